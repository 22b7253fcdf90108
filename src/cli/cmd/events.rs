//! `ndjq events`: one normalized event per content block or item (docs/REFERENCE.md, "Normalized
//! events"), as NDJSON, CSV or a text transcript.
//!
//! Events depend on the records before them in the same input (a session named once, a
//! usage snapshot held until its message ends), so each input is read by one thread, in
//! order; small files are read in parallel with each other and their events merged in order. Bad
//! records are not a failure of `events`: they produce no event, are reported on stderr like
//! `filter` does (rate-limited, with a closing count) and saved with `--rejects`. The exit status
//! is 0, or 2 after an I/O error. [`EventStream`] is shared with `filter --normalize`.

use super::{Rejects, StderrDiagnostics};
use crate::cli::args::{EventsArgs, TableFormat};
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::Result;
use ndjq::diagnostic::Diagnostic;
use ndjq::dialect::Dialect;
use ndjq::event::Normalizer;
use ndjq::parallel::{Parallel, SpareBuffers};
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::sink::events::{EventFormat, EventWriter};
use ndjq::sink::{Painter, Reporter};
use ndjq::stats::Stats;
use ndjq::summary::Summary;
use std::io::{self, BufWriter, Write};
use std::sync::Arc;

/// Records in, events out: the normalizer and the writer of one output.
#[derive(Debug)]
pub struct EventStream {
    normalizer: Normalizer,
    writer: EventWriter,
    /// The transcript's closing line counts tokens and cost with `stats`' own accumulator
    /// (40 bytes per message, docs/PERFORMANCE.md), so it says what `stats` says on the
    /// same records; JSON and CSV keep none.
    billing: Option<Stats>,
}

impl EventStream {
    pub fn new(format: EventFormat, painter: Painter) -> Self {
        EventStream {
            normalizer: Normalizer::new(),
            writer: EventWriter::new(format, painter),
            billing: (format == EventFormat::Text).then(Stats::new),
        }
    }

    /// Fits the text transcript's one-item lines to `width` columns.
    pub fn with_width(mut self, width: usize) -> Self {
        self.writer = self.writer.with_width(width);
        self
    }

    /// Writes what opens the output (the CSV header).
    pub fn start(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.writer.start(out)
    }

    /// Writes the events of a record.
    pub fn record(&mut self, out: &mut impl Write, record: &Record<'_>) -> io::Result<()> {
        if let Some(b) = self.billing.as_mut() {
            b.add(record);
        }
        let writer = &mut self.writer;
        self.normalizer
            .record(record, &mut |event| writer.write(&mut *out, event))
    }

    /// Takes in the context of a record whose events are not wanted.
    pub fn observe(&mut self, record: &Record<'_>) {
        self.normalizer.observe(record);
    }

    /// Writes what an input still held (the last message's usage).
    pub fn end_input(&mut self, out: &mut impl Write) -> io::Result<()> {
        if let Some(b) = self.billing.as_mut() {
            b.end_input(None);
        }
        let writer = &mut self.writer;
        self.normalizer
            .end_input(&mut |event| writer.write(&mut *out, event))
    }

    /// Writes what closes the output (the transcript's summary line) and flushes.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        let totals = self.billing.as_ref().map(Stats::totals);
        self.writer.finish(out, totals.as_ref())
    }

    /// Whether an input of `dialect` may be cut into blocks: not for the transcript when
    /// its billing could not be counted in blocks ([`Stats::counts_in_blocks`]).
    fn batchable(&self, dialect: Option<Dialect>) -> bool {
        self.billing.is_none() || Stats::counts_in_blocks(dialect)
    }

    /// Forgets what a batch-mode warm-up counted (its output is dropped).
    fn forget_tally(&mut self) {
        self.writer.forget_tally();
        if self.billing.is_some() {
            self.billing = Some(Stats::new());
        }
    }

    pub fn events(&self) -> u64 {
        self.writer.events()
    }

    /// Takes in what another stream wrote to the same output after this one's events (a
    /// shard's, merged in order); with `context`, the records' context it ended with too.
    fn merge(&mut self, later: EventStream, context: bool) {
        if context {
            self.normalizer = later.normalizer;
        }
        self.writer.merge(later.writer);
        if let (Some(b), Some(l)) = (self.billing.as_mut(), later.billing) {
            b.merge(l);
        }
    }

    /// The context the next record's events depend on.
    fn context(&self) -> Context {
        (
            self.normalizer.clone(),
            self.writer.last_file().map(str::to_string),
        )
    }

    fn has_context(&self, context: &Context) -> bool {
        self.normalizer == context.0 && self.writer.last_file() == context.1.as_deref()
    }
}

/// What the events of a record depend on beyond the record: the normalizer's state, and
/// the input the last event came from (the transcript's headers).
type Context = (Normalizer, Option<String>);

/// The events format chosen on the command line, else `default`.
pub fn format_of(arg: Option<TableFormat>, default: EventFormat) -> EventFormat {
    match arg {
        Some(TableFormat::Json) => EventFormat::Json,
        Some(TableFormat::Csv) => EventFormat::Csv,
        Some(TableFormat::Text) => EventFormat::Text,
        None => default,
    }
}

struct Events<W: Write, R: Write> {
    stream: EventStream,
    out: W,
    line_buffered: bool,
    summary: Summary,
    reporter: StderrDiagnostics,
    rejects: Option<Rejects<R>>,
    format: EventFormat,
    painter: Painter,
    width: usize,
    /// In a shard reading a block: the context its warm-up rebuilt.
    guess: Option<Context>,
    /// Output buffers of merged parts, handed back to the shards.
    spare: SpareBuffers,
}

impl<W: Write, R: Write> Events<W, R> {
    fn fresh_stream(&self) -> EventStream {
        EventStream::new(self.format, self.painter).with_width(self.width)
    }
}

impl<W: Write, R: Write> Consumer for Events<W, R> {
    fn begin_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        self.summary.files += 1;
        Ok(())
    }

    fn resume_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.summary.add_record(record);
        for d in record.diagnostics {
            self.reporter.report(d)?;
        }
        if let Some(r) = self.rejects.as_mut() {
            r.offer(record)?;
        }
        self.stream.record(&mut self.out, record)?;
        if self.line_buffered {
            self.out.flush()?;
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

    fn end_input(
        &mut self,
        _file: &Arc<str>,
        _dialect: Option<ndjq::dialect::Dialect>,
    ) -> io::Result<()> {
        self.stream.end_input(&mut self.out)?;
        if self.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    fn notice(&mut self, d: &ndjq::diagnostic::Diagnostic) -> io::Result<()> {
        self.summary.add_diagnostic(d);
        self.reporter.notice(d)
    }
}

/// What a shard of `events` collected from one input.
struct Part {
    out: Vec<u8>,
    stream: EventStream,
    guess: Option<Context>,
    summary: Summary,
    diagnostics: Vec<Diagnostic>,
    rejects: Option<(Vec<u8>, u64)>,
}

impl<W: Write, R: Write> Parallel for Events<W, R> {
    type Shard = Events<Vec<u8>, Vec<u8>>;
    type Part = Part;

    /// Events carry context from record to record (a session, a held usage): blocks start
    /// with a warm-up that rebuilds it, checked when merged.
    fn warm_up(&self) -> bool {
        true
    }

    fn batchable(&self, dialect: Option<Dialect>) -> bool {
        self.stream.batchable(dialect)
    }

    /// The record further back whose context a block's warm-up may need: the dialect's
    /// [`Dialect::warm_anchor`].
    fn warm_anchor(&self, dialect: Option<Dialect>) -> Option<&'static [u8]> {
        dialect.and_then(Dialect::warm_anchor)
    }

    fn start_block(shard: &mut Self::Shard) {
        shard.stream = shard.fresh_stream();
    }

    fn end_warm_up(shard: &mut Self::Shard) {
        shard.out.clear();
        shard.summary = Summary::default();
        shard.reporter.take();
        if let Some(r) = shard.rejects.as_mut() {
            r.take();
        }
        shard.stream.forget_tally();
        shard.guess = Some(shard.stream.context());
    }

    fn fits(&self, part: &Part) -> bool {
        part.guess
            .as_ref()
            .is_none_or(|guess| self.stream.has_context(guess))
    }

    fn shard(&self) -> Self::Shard {
        Events {
            stream: EventStream::new(self.format, self.painter).with_width(self.width),
            out: Vec::new(),
            line_buffered: false,
            summary: Summary::default(),
            reporter: StderrDiagnostics::Collect(Vec::new()),
            rejects: self.rejects.as_ref().map(|_| Rejects::new(Vec::new())),
            format: self.format,
            painter: self.painter,
            width: self.width,
            guess: None,
            spare: self.spare.clone(),
        }
    }

    fn take(shard: &mut Self::Shard) -> Part {
        let fresh = shard.fresh_stream();
        let next = shard.spare.next(shard.out.capacity());
        Part {
            out: std::mem::replace(&mut shard.out, next),
            stream: std::mem::replace(&mut shard.stream, fresh),
            guess: shard.guess.take(),
            summary: std::mem::take(&mut shard.summary),
            diagnostics: shard.reporter.take(),
            rejects: shard.rejects.as_mut().map(Rejects::take),
        }
    }

    fn merge(&mut self, mut part: Part) -> io::Result<Flow> {
        self.out.write_all(&part.out)?;
        self.spare.give(std::mem::take(&mut part.out));
        self.stream.merge(part.stream, part.guess.is_some());
        self.summary.merge(&part.summary);
        for d in &part.diagnostics {
            self.reporter.report(d)?;
        }
        if let (Some(r), Some((bytes, n))) = (self.rejects.as_mut(), part.rejects) {
            r.merge(&bytes, n)?;
        }
        Ok(Flow::Continue)
    }
}

pub fn run(args: &EventsArgs) -> Result<i32> {
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    let default = if common.stdout_is_tty {
        EventFormat::Text
    } else {
        EventFormat::Json
    };
    let format = format_of(args.format, default);
    let rejects = Rejects::for_run(&common)?;
    let stderr = (!common.quiet).then(io::stderr);
    let stdout = io::stdout().lock();
    let mut events = Events {
        stream: EventStream::new(format, common.painter).with_width(common.text_width),
        out: BufWriter::with_capacity(256 << 10, stdout),
        line_buffered: common.line_buffered,
        summary: Summary::default(),
        reporter: StderrDiagnostics::Report(Reporter::new(stderr, common.err_painter)?),
        rejects,
        format,
        painter: common.painter,
        width: common.text_width,
        guess: None,
        spare: SpareBuffers::default(),
    };
    events.stream.start(&mut events.out)?;
    let ran = crate::cli::run_sources(&common, &mut events, true)?;
    events.stream.finish(&mut events.out)?;
    if let Some(r) = events.rejects.as_mut() {
        r.finish()?;
    }
    let s = &events.summary;
    if s.invalid > 0 || s.warnings > 0 {
        let rejected = match &events.rejects {
            Some(r) => format!(", {} saved to --rejects", r.written),
            None => String::new(),
        };
        let line = format!(
            "{}: {}; {} invalid{rejected}, {} empty; {}, {}",
            plural(s.records, "record"),
            plural(events.stream.events(), "event"),
            s.invalid,
            s.empty,
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
        );
        events.reporter.finish(Some(&line))?;
    }
    // Bad records are reported, not a failure: only an I/O error changes the status.
    Ok(ran.exit_code(Outcome::Success))
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
