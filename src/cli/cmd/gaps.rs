//! `ndjq gaps`: one report record per gap (lost sequence numbers, sessions without a start
//! or a result, error results, tool calls and JSON-RPC requests never answered), then a
//! summary; exit 1 when any is at or above `--fail-on` (default: warning, so that any gap
//! fails a CI job). The records' own diagnostics (PROTO_*) go to stderr, as for `stats`.
//!
//! Gaps depend on the records before them in the same input. Small files are read whole
//! in parallel with each other; a large one is cut into blocks whose records' gap facts
//! workers take ([`GapTracker::collect`]) and the merge applies in order
//! ([`GapTracker::replay`]): the findings are those of one pass.

use super::{Rejects, StderrDiagnostics};
use crate::cli::args::GapsArgs;
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::Result;
use ndjq::diagnostic::Diagnostic;
use ndjq::dialect::Dialect;
use ndjq::gaps::{Facts, GapTracker};
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::sink::{DiagnosticWriter, Format, Painter, Reporter};
use ndjq::summary::Summary;
use std::io::{self, BufWriter, Write};
use std::sync::Arc;

struct GapsRun<W: Write, R: Write> {
    writer: DiagnosticWriter<W>,
    tracker: GapTracker,
    /// Reused list of what the tracker found at the current record.
    found: Vec<Diagnostic>,
    /// Records read, and the gaps (only those) by code and severity.
    summary: Summary,
    diagnostics: StderrDiagnostics,
    line_buffered: bool,
    rejects: Option<Rejects<R>>,
    seq_field: Option<String>,
    format: Format,
    painter: Painter,
    facts: Facts,
}

impl<W: Write, R: Write> GapsRun<W, R> {
    fn write_found(&mut self) -> io::Result<()> {
        for d in &self.found {
            self.summary.add_diagnostic(d);
            self.writer.write(d)?;
        }
        if self.line_buffered && !self.found.is_empty() {
            self.writer.flush()?;
        }
        self.found.clear();
        Ok(())
    }
}

impl<W: Write, R: Write> Consumer for GapsRun<W, R> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.summary.files += 1;
        self.tracker.begin(file);
        Ok(())
    }

    fn resume_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.tracker.resume(file);
        Ok(())
    }

    /// Another file's records come (`--follow`): this one's trackers wait for it.
    fn pause_input(&mut self, _file: &Arc<str>, _dialect: Option<Dialect>) -> io::Result<()> {
        self.tracker.pause();
        Ok(())
    }

    fn rename_input(&mut self, from: &Arc<str>, to: &Arc<str>) -> io::Result<()> {
        self.tracker.rename(from, to);
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.summary.count_record(record);
        for d in record.diagnostics {
            self.diagnostics.report(d)?;
        }
        if let Some(r) = self.rejects.as_mut() {
            r.offer(record)?;
        }
        // A shard reading a block collects gap facts for the merge to apply.
        let mark = self.writer.written();
        self.tracker
            .see(record, mark, &mut self.found, &mut self.facts);
        self.write_found()?;
        Ok(Flow::Continue)
    }

    fn leftover(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.rejects.as_mut() {
            Some(r) => r.leftover(bytes),
            None => Ok(()),
        }
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.summary.add_bytes(bytes.len());
        match self.rejects.as_mut() {
            Some(r) => r.chunk(bytes),
            None => Ok(()),
        }
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        // A chunk of findings at a time: what an input left open can be 100,000 calls.
        let mut ending = self.tracker.ending(dialect);
        while self
            .tracker
            .next_found(&mut ending, &mut self.found, super::ENDING_CHUNK)
        {
            self.write_found()?;
        }
        self.write_found()
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.found.push(d.clone());
        self.write_found()
    }
}

/// What a shard of `gaps` collected from one input.
struct Part {
    text: Vec<u8>,
    summary: Summary,
    diagnostics: Vec<Diagnostic>,
    rejects: Option<(Vec<u8>, u64)>,
    /// A block's gap facts.
    facts: Facts,
}

impl<W: Write, R: Write> Parallel for GapsRun<W, R> {
    type Shard = GapsRun<Vec<u8>, Vec<u8>>;
    type Part = Part;

    /// A part is an input's gaps, not its records.
    fn small_parts(&self) -> bool {
        true
    }

    fn shard(&self) -> Self::Shard {
        GapsRun {
            writer: DiagnosticWriter::continuation(Vec::new(), self.format, self.painter),
            tracker: GapTracker::new(self.seq_field.clone()),
            found: Vec::new(),
            summary: Summary::default(),
            diagnostics: StderrDiagnostics::Collect(Vec::new()),
            line_buffered: false,
            rejects: self.rejects.as_ref().map(|_| Rejects::new(Vec::new())),
            seq_field: self.seq_field.clone(),
            format: self.format,
            painter: self.painter,
            facts: Facts::default(),
        }
    }

    fn take(shard: &mut Self::Shard) -> Part {
        Part {
            text: shard.writer.take_output(),
            summary: std::mem::take(&mut shard.summary),
            diagnostics: shard.diagnostics.take(),
            rejects: shard.rejects.as_mut().map(Rejects::take),
            facts: shard.facts.take(),
        }
    }

    /// A block's gap facts are applied in order (they hold what the findings' excerpts
    /// show of their records: the block's bytes are not needed).
    fn merge(&mut self, part: Part) -> io::Result<Flow> {
        let mut found = Vec::new();
        self.tracker.replay(&part.facts, &mut found);
        let summary = &mut self.summary;
        self.writer
            .write_interleaved(&part.text, &found, |d| summary.add_diagnostic(d))?;
        self.summary.merge(&part.summary);
        for d in &part.diagnostics {
            self.diagnostics.report(d)?;
        }
        if let (Some(r), Some((bytes, n))) = (self.rejects.as_mut(), part.rejects) {
            r.merge(&bytes, n)?;
        }
        Ok(Flow::Continue)
    }
}

pub fn run(args: &GapsArgs) -> Result<i32> {
    let mut common = Common::resolve(&args.input, &args.output, &args.child)?;
    // A session without its result is a gap the tracker reports itself.
    if let Some(child) = common.child.as_mut() {
        child.report_no_result = false;
    }
    let (format, painter) = super::diagnostic_output(args.format, &common);
    let fail_on = super::severity(args.fail_on);
    let stderr = (!common.quiet).then(io::stderr);
    let out = BufWriter::with_capacity(256 << 10, io::stdout().lock());
    let mut run = GapsRun {
        writer: DiagnosticWriter::new(out, format, painter)?,
        tracker: GapTracker::new(args.seq_field.clone()),
        found: Vec::new(),
        summary: Summary::default(),
        diagnostics: StderrDiagnostics::Report(Reporter::new(stderr, common.err_painter)?),
        line_buffered: common.line_buffered,
        rejects: Rejects::for_run(&common)?,
        seq_field: args.seq_field.clone(),
        format,
        painter,
        facts: Facts::default(),
    };
    let ran = crate::cli::run_sources(&common, &mut run, true)?;
    if let Some(r) = run.rejects.as_mut() {
        r.finish()?;
    }
    run.diagnostics.finish(None)?;
    run.writer.finish(&run.summary, false)?;
    let outcome = if run.summary.at_or_above(fail_on) > 0 {
        Outcome::Findings
    } else {
        Outcome::Success
    };
    Ok(ran.exit_code(outcome))
}
