//! `ndjq events`: one normalized event per content block or item (SPEC section 4), as
//! NDJSON, CSV or a text transcript.
//!
//! Events depend on the records before them (a session named once, a usage snapshot held
//! until its message ends), so records are read one at a time, in order. Bad records are
//! not a failure of `events`: they produce no event, are reported on stderr like `filter`
//! does (rate-limited, with a closing count) and saved with `--rejects`. The exit status
//! is 0, or 2 after an I/O error. [`EventStream`] is shared with `filter --normalize`.

use super::Rejects;
use crate::cli::args::{EventsArgs, TableFormat};
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::Result;
use ndjq::event::Normalizer;
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::sink::events::{EventFormat, EventWriter};
use ndjq::sink::{Painter, Reporter};
use ndjq::summary::Summary;
use std::io::{self, BufWriter, Stderr, Write};
use std::sync::Arc;

/// Records in, events out: the normalizer and the writer of one output.
#[derive(Debug)]
pub struct EventStream {
    normalizer: Normalizer,
    writer: EventWriter,
}

impl EventStream {
    pub fn new(format: EventFormat, painter: Painter) -> Self {
        EventStream {
            normalizer: Normalizer::new(),
            writer: EventWriter::new(format, painter),
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
        let writer = &mut self.writer;
        self.normalizer
            .end_input(&mut |event| writer.write(&mut *out, event))
    }

    /// Writes what closes the output (the transcript's summary line) and flushes.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.writer.finish(out)
    }

    pub fn events(&self) -> u64 {
        self.writer.events()
    }
}

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
    reporter: Reporter<Stderr>,
    rejects: Option<Rejects<R>>,
}

impl<W: Write, R: Write> Consumer for Events<W, R> {
    fn begin_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        self.summary.files += 1;
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

pub fn run(args: &EventsArgs) -> Result<i32> {
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    let default = if common.stdout_is_tty {
        EventFormat::Text
    } else {
        EventFormat::Json
    };
    let format = format_of(args.format, default);
    let rejects = common.rejects.as_deref().map(Rejects::create).transpose()?;
    let stderr = (!common.quiet).then(io::stderr);
    let stdout = io::stdout().lock();
    let mut events = Events {
        stream: EventStream::new(format, common.painter).with_width(common.text_width),
        out: BufWriter::with_capacity(256 << 10, stdout),
        line_buffered: common.line_buffered,
        summary: Summary::default(),
        reporter: Reporter::new(stderr, common.err_painter)?,
        rejects,
    };
    events.stream.start(&mut events.out)?;
    let ran = crate::cli::run_sources_serial(&common, &mut events)?;
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
