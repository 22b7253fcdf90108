//! `ndjq validate`: every diagnostic with its location, then a summary; exit 1 when any
//! is at or above `--fail-on`. With `--gaps`, it also reports the findings of `ndjq gaps`
//! (at the record where each becomes known, or at the end of the input). Those depend on
//! the records before in the same input: a worker reading a block takes each record's
//! gap facts ([`GapTracker::collect`]) and the merge applies them in order
//! ([`GapTracker::replay`]), putting each finding after its record's own diagnostics.

use super::Rejects;
use crate::cli::args::ValidateArgs;
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::Result;
use ndjq::diagnostic::{Diagnostic, Severity};
use ndjq::dialect::Dialect;
use ndjq::gaps::{Facts, GapTracker};
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::sink::{DiagnosticWriter, Format, Painter};
use ndjq::summary::Summary;
use std::io::{self, BufWriter, Write};
use std::sync::Arc;

struct Validate<W: Write, R: Write> {
    writer: DiagnosticWriter<W>,
    format: Format,
    painter: Painter,
    summary: Summary,
    fail_on: Severity,
    max_errors: Option<u64>,
    stopped_early: bool,
    line_buffered: bool,
    rejects: Option<Rejects<R>>,
    /// The structural checks of `gaps`, with `--gaps`.
    tracker: Option<GapTracker>,
    /// Reused list of what the tracker found at the current record.
    found: Vec<Diagnostic>,
    facts: Facts,
}

impl<W: Write, R: Write> Validate<W, R> {
    fn write_found(&mut self) -> io::Result<()> {
        for d in &self.found {
            self.summary.add_diagnostic(d);
            self.writer.write(d)?;
        }
        self.found.clear();
        Ok(())
    }
}

impl<W: Write, R: Write> Consumer for Validate<W, R> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.summary.files += 1;
        if let Some(t) = self.tracker.as_mut() {
            t.begin(file);
        }
        Ok(())
    }

    fn resume_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        if let Some(t) = self.tracker.as_mut() {
            t.resume(file);
        }
        Ok(())
    }

    /// Another file's records come (`--follow`): this one's trackers wait for it.
    fn pause_input(&mut self, _file: &Arc<str>, _dialect: Option<Dialect>) -> io::Result<()> {
        if let Some(t) = self.tracker.as_mut() {
            t.pause();
        }
        Ok(())
    }

    fn rename_input(&mut self, from: &Arc<str>, to: &Arc<str>) -> io::Result<()> {
        if let Some(t) = self.tracker.as_mut() {
            t.rename(from, to);
        }
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.summary.add_record(record);
        for d in record.diagnostics {
            self.writer.write(d)?;
        }
        if let Some(t) = self.tracker.as_mut() {
            // A shard reading a block collects gap facts for the merge to apply.
            t.see(
                record,
                self.writer.written(),
                &mut self.found,
                &mut self.facts,
            );
        }
        let wrote = !record.diagnostics.is_empty() || !self.found.is_empty();
        self.write_found()?;
        if self.line_buffered && wrote {
            self.writer.flush()?;
        }
        if let Some(r) = self.rejects.as_mut() {
            r.offer(record)?;
        }
        if let Some(max) = self.max_errors {
            if self.summary.at_or_above(self.fail_on) >= max {
                self.stopped_early = true;
                return Ok(Flow::Stop);
            }
        }
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

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.found.push(d.clone());
        self.write_found()?;
        if self.line_buffered {
            self.writer.flush()?;
        }
        Ok(())
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        // Stopped at --max-errors: the rest of the input was not read, so what is still
        // open is not known to stay open.
        if self.stopped_early {
            return Ok(());
        }
        let mut wrote = false;
        if let Some(mut ending) = self.tracker.as_mut().map(|t| t.ending(dialect)) {
            // A chunk of findings at a time: what an input left open can be 100,000 calls.
            loop {
                let more = self.tracker.as_ref().is_some_and(|t| {
                    t.next_found(&mut ending, &mut self.found, super::ENDING_CHUNK)
                });
                wrote |= !self.found.is_empty();
                self.write_found()?;
                if !more {
                    break;
                }
            }
        }
        wrote |= !self.found.is_empty();
        self.write_found()?;
        if self.line_buffered && wrote {
            self.writer.flush()?;
        }
        Ok(())
    }
}

/// What a shard of `validate` collected from one block.
struct Part {
    text: Vec<u8>,
    rejects: Option<(Vec<u8>, u64)>,
    summary: Summary,
    /// With `--gaps`, a block's gap facts.
    facts: Facts,
}

impl<W: Write, R: Write> Parallel for Validate<W, R> {
    type Shard = Validate<Vec<u8>, Vec<u8>>;
    type Part = Part;

    /// With `--gaps`, the part is what one input adds: its diagnostics.
    fn small_parts(&self) -> bool {
        self.tracker.is_some()
    }

    fn shard(&self) -> Self::Shard {
        Validate {
            writer: DiagnosticWriter::continuation(Vec::new(), self.format, self.painter),
            format: self.format,
            painter: self.painter,
            summary: Summary::default(),
            fail_on: self.fail_on,
            max_errors: None,
            stopped_early: false,
            line_buffered: false,
            rejects: self.rejects.as_ref().map(|_| Rejects::new(Vec::new())),
            tracker: self.tracker.as_ref().map(|_| GapTracker::new(None)),
            found: Vec::new(),
            facts: Facts::default(),
        }
    }

    fn take(shard: &mut Self::Shard) -> Part {
        Part {
            text: shard.writer.take_output(),
            rejects: shard.rejects.as_mut().map(Rejects::take),
            summary: std::mem::take(&mut shard.summary),
            facts: shard.facts.take(),
        }
    }

    /// A block's gap facts are applied in order; each finding is written after its
    /// record's own diagnostics. The facts hold what the findings' excerpts show of their
    /// records, so the block's bytes are not needed (a worker reads its ranges into a
    /// buffer of its own).
    fn merge(&mut self, part: Part) -> io::Result<Flow> {
        let mut found = Vec::new();
        if let Some(t) = self.tracker.as_mut() {
            t.replay(&part.facts, &mut found);
        }
        let summary = &mut self.summary;
        self.writer
            .write_interleaved(&part.text, &found, |d| summary.add_diagnostic(d))?;
        if let (Some(r), Some((bytes, n))) = (self.rejects.as_mut(), part.rejects) {
            r.merge(&bytes, n)?;
        }
        self.summary.merge(&part.summary);
        Ok(Flow::Continue)
    }
}

pub fn run(args: &ValidateArgs) -> Result<i32> {
    let mut common = Common::resolve(&args.input, &args.output, &args.child)?;
    // With --gaps, a session without its result is reported by the tracker.
    if let (Some(child), true) = (common.child.as_mut(), args.gaps) {
        child.report_no_result = false;
    }
    let (format, painter) = super::diagnostic_output(args.format, &common);
    let fail_on = super::severity(args.fail_on);
    let rejects = Rejects::for_run(&common)?;
    let stdout = io::stdout().lock();
    let out = BufWriter::with_capacity(256 << 10, stdout);
    let mut validate = Validate {
        writer: DiagnosticWriter::new(out, format, painter)?,
        format,
        painter,
        summary: Summary::default(),
        fail_on,
        max_errors: args.max_errors,
        stopped_early: false,
        line_buffered: common.line_buffered,
        rejects,
        tracker: args.gaps.then(|| GapTracker::new(None)),
        found: Vec::new(),
        facts: Facts::default(),
    };
    // --max-errors stops at an exact record: one record at a time.
    let parallel_ok = args.max_errors.is_none();
    let ran = crate::cli::run_sources(&common, &mut validate, parallel_ok)?;
    if let Some(r) = validate.rejects.as_mut() {
        r.finish()?;
    }
    validate
        .writer
        .finish(&validate.summary, validate.stopped_early)?;
    let outcome = if validate.summary.at_or_above(fail_on) > 0 {
        Outcome::Findings
    } else {
        Outcome::Success
    };
    Ok(ran.exit_code(outcome))
}
