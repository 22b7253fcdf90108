//! The pipeline: drives framing → decoding → dialect over one input and pushes each
//! classified record, with its diagnostics, into a [`Consumer`].
//!
//! This is the one pass every command shares. It keeps nothing but reused buffers: a
//! record lives until the consumer returns. What to do with a record (select it, count it,
//! print its diagnostics) is the consumer's business; which consumers run is the command's.
//!
//! One framing case lives here rather than in the framer: an input whose first line is a
//! lone `{` is one pretty-printed JSON document (Gemini CLI's `-o json`), not NDJSON. Its
//! lines are held (in the `--recover` reassembly buffer) until they parse as one value,
//! which becomes one record whose raw bytes are all its lines; see `document_step`.

use crate::decode::{Decoder, Failure};
use crate::diagnostic::{excerpt, printable, Code, Diagnostic};
use crate::dialect::{Classifier, Dialect, Findings, RecordInfo};
use crate::error::Error;
use crate::framing::{Frame, FrameKind, Framer};
use crate::json::Json;
use crate::recover::{self, Reassembly};
use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the decoder made of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A JSON value (an object or not).
    Valid,
    /// Not a JSON value: it carries an error (or text-noise) diagnostic.
    Invalid,
    /// An empty line (or blanks only).
    Empty,
}

/// One record, as every consumer sees it.
#[derive(Debug)]
pub struct Record<'a> {
    /// The input's display name.
    pub file: &'a Arc<str>,
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// The original bytes, terminator included. For an overlong record, only its first part:
    /// the rest follows through [`Consumer::overlong_chunk`]. With `--recover`, an object
    /// taken out of a text line is its own bytes and a `\n`, and a reassembled object is
    /// all its lines (see [`crate::recover`]).
    pub raw: &'a [u8],
    /// How many bytes of the input the record stands for: `raw`'s, except for an object
    /// taken out of a text line (`--recover`), which stands for the whole line.
    pub input_len: usize,
    pub overlong: bool,
    pub status: Status,
    /// The parsed value, for a valid record.
    pub value: Option<Json<'a>>,
    pub info: RecordInfo<'a>,
    pub diagnostics: &'a [Diagnostic],
}

impl Record<'_> {
    pub fn has_code(&self, code: Code) -> bool {
        self.diagnostics.iter().any(|d| d.code == code)
    }
}

/// Whether to keep reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Receives the records of the inputs, in order.
pub trait Consumer {
    /// A new input begins.
    fn begin_input(&mut self, _file: &Arc<str>) -> io::Result<()> {
        Ok(())
    }
    /// An input begun before goes on (`--follow`: its new records come after another
    /// input's, see [`crate::input::follow`]). By default, as if it began again.
    fn resume_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.begin_input(file)
    }
    /// An input pauses while another one is read (`--follow`): [`Consumer::resume_input`]
    /// goes on with it later, or [`Consumer::resume_input`] then [`Consumer::end_input`]
    /// end it. By default, as if it ended: a consumer whose findings depend on the records
    /// before (the gap trackers) keeps its state aside instead.
    fn pause_input(&mut self, file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.end_input(file, dialect)
    }
    /// A paused input's file was renamed (`--follow`): it goes on under its new name, as
    /// the same input. By default nothing is kept per input, so nothing changes.
    fn rename_input(&mut self, _from: &Arc<str>, _to: &Arc<str>) -> io::Result<()> {
        Ok(())
    }
    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow>;
    /// More bytes of the overlong record last passed to [`Consumer::record`].
    fn overlong_chunk(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// With `--recover`, the bytes of a line that were not passed on when an object was
    /// taken out of it: the text before and after the object (and anything else on the
    /// line, a second object included), with the line's end. They go to `--rejects`, so
    /// no byte of the input is lost (see [`crate::recover`]).
    fn leftover(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// The input ended (or reading it stopped).
    fn end_input(&mut self, _file: &Arc<str>, _dialect: Option<Dialect>) -> io::Result<()> {
        Ok(())
    }
    /// A diagnostic about an input as a whole rather than one of its records: a wrapped
    /// child exited non-zero, stalled, was restarted (see [`crate::supervisor`]).
    fn notice(&mut self, _diagnostic: &Diagnostic) -> io::Result<()> {
        Ok(())
    }
}

/// Limits and choices that shape the pass.
#[derive(Debug, Clone)]
pub struct Options {
    pub max_line_bytes: usize,
    pub max_depth: usize,
    pub dialect: Option<Dialect>,
    /// Dotted path of the type field for `generic`.
    pub type_field: Vec<String>,
    /// Read size of the framer (tests vary it).
    pub read_size: usize,
    /// `--recover`: extract objects embedded in text and reassemble pretty-printed ones
    /// (see [`crate::recover`]). Needs records one at a time: not for batch reading.
    pub recover: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_depth: crate::decode::DEFAULT_MAX_DEPTH,
            dialect: None,
            type_field: vec!["type".to_string()],
            read_size: crate::framing::DEFAULT_READ_SIZE,
            recover: false,
        }
    }
}

/// The default `--max-line-bytes`: 100 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 100 << 20;
/// The largest `--max-line-bytes`: the tape ([`crate::tape`]) indexes with 32 bits, so a
/// record must stay well below 4 GiB.
pub const MAX_LINE_BYTES_LIMIT: usize = (u32::MAX as usize) - (1 << 20);

/// Runs the pass over inputs, reusing its buffers from one input to the next.
#[derive(Debug)]
pub struct Pipeline {
    options: Options,
    decoder: Decoder,
    classifier: Classifier,
    findings: Findings,
    diagnostics: Vec<Diagnostic>,
    /// The raw bytes of an object recovered from a text line (`--recover`).
    recovered: Vec<u8>,
    /// The dialect the classifier was made with (a worker of batch mode switches between
    /// inputs' detected dialects).
    forced: Option<Dialect>,
    /// The read buffer of the last input's framer, for the next one.
    spare: Vec<u8>,
}

impl Pipeline {
    pub fn new(mut options: Options) -> Self {
        options.max_line_bytes = options.max_line_bytes.clamp(1, MAX_LINE_BYTES_LIMIT);
        Pipeline {
            decoder: Decoder::new(options.max_depth),
            classifier: Classifier::new(options.dialect, options.type_field.clone()),
            findings: Findings::default(),
            diagnostics: Vec::new(),
            recovered: Vec::new(),
            forced: options.dialect,
            spare: Vec::new(),
            options,
        }
    }

    /// Makes the classifier start every input with `dialect` (`None`: detect it), as a
    /// worker of batch mode needs for each unit it takes.
    pub(crate) fn use_dialect(&mut self, dialect: Option<Dialect>) {
        if self.forced != dialect {
            self.classifier = Classifier::new(dialect, self.options.type_field.clone());
            self.forced = dialect;
        }
        self.classifier.reset();
    }

    /// Reads one input to its end (or until the consumer stops) and reports whether to go on
    /// with the next input. A read error ends the input ([`Error::Read`], the records before
    /// it were delivered); a consumer's error is [`Error::Write`].
    pub fn run<R: Read>(
        &mut self,
        file: &Arc<str>,
        reader: R,
        consumer: &mut dyn Consumer,
    ) -> Result<Flow, Error> {
        self.reset_input();
        consumer.begin_input(file).map_err(Error::Write)?;
        let framer = self.framer(reader);
        let flow = self
            .stream(file, framer, consumer, false)
            .map(|(flow, _)| flow);
        let dialect = self.classifier.dialect();
        consumer.end_input(file, dialect).map_err(Error::Write)?;
        flow
    }

    /// Reads the next part of a growing input (`--follow`, see [`crate::input::follow`]):
    /// its records are numbered on from `line` and `offset` (where the last part ended).
    /// With `switch_to`, another input's part came between: the classifier starts again,
    /// with the input's dialect when it is known. No `begin_input` nor `end_input`: the
    /// caller says when the input starts and ends. Returns whether to go on, and the line
    /// and offset the part ended at.
    pub fn run_part<R: Read>(
        &mut self,
        file: &Arc<str>,
        reader: R,
        (line, offset): (u64, u64),
        switch_to: Option<Option<Dialect>>,
        consumer: &mut dyn Consumer,
    ) -> Result<(Flow, u64, u64), Error> {
        if let Some(dialect) = switch_to {
            self.use_dialect(self.options.dialect.or(dialect));
        }
        let mut framer = self.framer(reader).starting_at(line, offset);
        let result = self.stream_frames(file, &mut framer, consumer, false);
        let (line, offset) = framer.position();
        self.recycle(framer);
        let flow = result?.unwrap_or(Flow::Continue);
        Ok((flow, line, offset))
    }

    /// The dialect the input being read was found (or told) to be.
    pub fn dialect(&self) -> Option<Dialect> {
        self.classifier.dialect()
    }

    /// A framer over `reader` with this pipeline's limits, reading into the buffer the last
    /// input's framer left.
    pub(crate) fn framer<R: Read>(&mut self, reader: R) -> Framer<R> {
        let options = &self.options;
        Framer::with_read_size(reader, options.max_line_bytes, options.read_size)
            .with_buffer(std::mem::take(&mut self.spare))
    }

    /// Keeps a finished framer's buffer for the next input, unless a long line grew it.
    fn recycle<R: Read>(&mut self, framer: Framer<R>) {
        let buf = framer.into_buffer();
        if buf.len()
            <= 2 * self
                .options
                .read_size
                .max(crate::framing::DEFAULT_READ_SIZE)
        {
            self.spare = buf;
        }
    }

    pub(crate) fn reset_input(&mut self) {
        self.classifier.reset();
    }

    pub(crate) fn options(&self) -> &Options {
        &self.options
    }

    pub(crate) fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Feeds records from `framer` to `consumer` one at a time. With `until_detected`, stops
    /// (handing the framer back) as soon as the input's dialect is known, so the rest can be
    /// read in batches.
    pub(crate) fn stream<R: Read>(
        &mut self,
        file: &Arc<str>,
        mut framer: Framer<R>,
        consumer: &mut dyn Consumer,
        until_detected: bool,
    ) -> Result<(Flow, Option<Framer<R>>), Error> {
        let result = self.stream_frames(file, &mut framer, consumer, until_detected);
        match result {
            Ok(Some(flow)) => {
                self.recycle(framer);
                Ok((flow, None))
            }
            Ok(None) => Ok((Flow::Continue, Some(framer))),
            Err(e) => {
                self.recycle(framer);
                Err(e)
            }
        }
    }

    /// [`Pipeline::stream`]'s loop: `None` when it stopped at the detected dialect.
    fn stream_frames<R: Read>(
        &mut self,
        file: &Arc<str>,
        framer: &mut Framer<R>,
        consumer: &mut dyn Consumer,
        until_detected: bool,
    ) -> Result<Option<Flow>, Error> {
        let read_error = |framer: &Framer<R>, source| {
            let (line, offset) = framer.position();
            Error::Read {
                file: file.to_string(),
                line,
                offset,
                source,
            }
        };
        // The lines of a pretty-printed value being reassembled (`--recover`, or a
        // single-document input).
        let mut held = Reassembly::default();
        // The input is one pretty-printed JSON document (Gemini CLI `-o json`).
        let mut document = false;
        loop {
            if until_detected && held.is_empty() && self.classifier.dialect().is_some() {
                return Ok(None);
            }
            let frame = match framer.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => {
                    let flow = self.release(file, &mut held, consumer);
                    return flow.map(Some).map_err(Error::Write);
                }
                Err(e) => {
                    if self
                        .release(file, &mut held, consumer)
                        .map_err(Error::Write)?
                        == Flow::Stop
                    {
                        return Ok(Some(Flow::Stop));
                    }
                    return Err(read_error(framer, e));
                }
            };
            let overlong = frame.kind == FrameKind::Overlong;
            if !document && !self.options.recover && frame.line == 1 && opens_document(&frame) {
                document = true;
                held.push(frame.line, frame.offset, frame.bytes);
                continue;
            }
            let handled = if document && !held.is_empty() {
                Some(
                    self.document_step(file, frame, &mut held, consumer)
                        .map_err(Error::Write)?,
                )
            } else if self.options.recover {
                self.recover_step(file, frame, &mut held, consumer)
                    .map_err(Error::Write)?
            } else {
                None
            };
            let flow = match handled {
                Some(flow) => flow,
                None => {
                    let may_reassemble = self.options.recover;
                    match self
                        .process_inner(file, frame, consumer, may_reassemble)
                        .map_err(Error::Write)?
                    {
                        Some(flow) => flow,
                        None => {
                            held.push(frame.line, frame.offset, frame.bytes);
                            Flow::Continue
                        }
                    }
                }
            };
            if overlong {
                loop {
                    match framer.overlong_chunk() {
                        Ok(Some(chunk)) => consumer.overlong_chunk(chunk).map_err(Error::Write)?,
                        Ok(None) => break,
                        Err(e) => return Err(read_error(framer, e)),
                    }
                }
            }
            if flow == Flow::Stop {
                return Ok(Some(Flow::Stop));
            }
        }
    }

    /// Decodes and classifies one record and hands it to the consumer.
    pub(crate) fn process(
        &mut self,
        file: &Arc<str>,
        frame: Frame<'_>,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        // Without leave to start a reassembly, every record reaches the consumer.
        Ok(self
            .process_inner(file, frame, consumer, false)?
            .unwrap_or(Flow::Continue))
    }

    /// [`Pipeline::process`], and with `--recover` the extraction of an object embedded in
    /// text. With `may_reassemble` (and `--recover`), a line that opens a container and is
    /// cut short is not handed to the consumer: `None` asks the caller to start a
    /// reassembly with it.
    fn process_inner(
        &mut self,
        file: &Arc<str>,
        frame: Frame<'_>,
        consumer: &mut dyn Consumer,
        may_reassemble: bool,
    ) -> io::Result<Option<Flow>> {
        let Pipeline {
            decoder,
            classifier,
            findings,
            diagnostics,
            options,
            recovered,
            ..
        } = self;
        diagnostics.clear();
        let raw = frame.bytes;
        let mut emit = Emit {
            classifier,
            findings,
            diagnostics,
            file,
            line: frame.line,
            offset: frame.offset,
            line_len: None,
        };

        if frame.kind == FrameKind::Overlong {
            // A record cut shorter than the limit is one memory ran out for.
            let message = if raw.len() > options.max_line_bytes {
                format!(
                    "record longer than --max-line-bytes {}; not parsed",
                    options.max_line_bytes
                )
            } else {
                format!(
                    "record longer than the memory left for one record ({} bytes; \
                     --max-line-bytes {}); not parsed",
                    raw.len(),
                    options.max_line_bytes
                )
            };
            emit.push(Code::LineTooLong, None, message, excerpt(raw, None));
            return emit
                .record(
                    raw,
                    true,
                    Status::Invalid,
                    None,
                    RecordInfo::default(),
                    consumer,
                )
                .map(Some);
        }

        let mut content = frame.content();
        if let Some(stripped) = content.strip_suffix(b"\r") {
            content = stripped;
            emit.push(
                Code::Crlf,
                Some(content.len() as u64 + 1),
                "CRLF line ending (tolerated)".to_string(),
                String::new(),
            );
        }
        let mut skipped = 0;
        if let Some(stripped) = content.strip_prefix(BOM) {
            content = stripped;
            skipped = BOM.len();
            // A BOM opening the input is ordinary; one further in means concatenated files.
            if frame.line > 1 {
                emit.push(
                    Code::Bom,
                    Some(1),
                    "UTF-8 byte-order mark inside the stream (tolerated)".to_string(),
                    String::new(),
                );
            }
        }

        if content.iter().all(|b| matches!(b, b' ' | b'\t')) {
            emit.push(
                Code::EmptyLine,
                None,
                "empty line".to_string(),
                String::new(),
            );
            return emit
                .record(
                    raw,
                    false,
                    Status::Empty,
                    None,
                    RecordInfo::default(),
                    consumer,
                )
                .map(Some);
        }
        let recover = options.recover;
        let attempt = decoder.decode(content, |verdict| match verdict {
            Ok(value) => emit
                .valid(raw, content, skipped, value, consumer)
                .map(Attempt::Done),
            Err(failure) => {
                if recover {
                    if may_reassemble
                        && failure.code == Code::Truncated
                        && recover::opens_container(content)
                    {
                        return Ok(Attempt::Reassemble);
                    }
                    let anywhere = failure.code == Code::TextNoise;
                    if anywhere || failure.code == Code::InvalidJson {
                        if let Some(range) = recover::embedded_object(content, anywhere) {
                            return Ok(Attempt::Embedded(range, failure.clone()));
                        }
                    }
                }
                emit.invalid(raw, content, skipped, failure, consumer)
                    .map(Attempt::Done)
            }
        })?;
        let (range, failure) = match attempt {
            Attempt::Done(flow) => return Ok(Some(flow)),
            Attempt::Reassemble => return Ok(None),
            Attempt::Embedded(range, failure) => (range, failure),
        };
        // The object found inside the text, verified by the normal decoder; its record's
        // raw bytes are the object's and a newline.
        let object = &content[range.clone()];
        recovered.clear();
        recovered.extend_from_slice(object);
        recovered.push(b'\n');
        let recovered: &[u8] = recovered;
        let found = decoder.decode(object, |verdict| match verdict {
            Ok(value) if value.is_object() => {
                emit.push(
                    Code::TextNoise,
                    Some((skipped + range.start) as u64 + 1),
                    format!(
                        "text around a JSON object (bytes {}-{} of the line); the object is recovered",
                        skipped + range.start + 1,
                        skipped + range.end
                    ),
                    excerpt(content, None),
                );
                emit.line_len = Some(raw.len());
                // What is not passed on: the line around the object, in `raw`'s terms
                // (`content` lost a BOM and a `\r`, which stay with the text).
                let (cut_start, cut_end) = (skipped + range.start, skipped + range.end);
                let mut rest = Vec::with_capacity(raw.len() - (cut_end - cut_start));
                rest.extend_from_slice(&raw[..cut_start]);
                rest.extend_from_slice(&raw[cut_end..]);
                consumer.leftover(&rest)?;
                emit.valid(recovered, object, 0, value, consumer).map(Some)
            }
            _ => Ok(None),
        })?;
        match found {
            Some(flow) => Ok(Some(flow)),
            None => emit
                .invalid(raw, content, skipped, &failure, consumer)
                .map(Some),
        }
    }

    /// With `--recover`, takes `frame` into the reassembly in progress, if there is one.
    /// `None`: the caller processes the frame as usual (after the held lines, if the
    /// reassembly was abandoned, were handed out one by one).
    fn recover_step(
        &mut self,
        file: &Arc<str>,
        frame: Frame<'_>,
        held: &mut Reassembly,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Option<Flow>> {
        if held.is_empty() {
            return Ok(None);
        }
        let content = frame.content();
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        let alone_is_object = frame.kind == FrameKind::Overlong
            || self
                .decoder
                .decode(content, |v| matches!(v, Ok(value) if value.is_object()));
        if alone_is_object || held.would_overflow(frame.bytes.len()) {
            return Ok(match self.release(file, held, consumer)? {
                Flow::Stop => Some(Flow::Stop),
                Flow::Continue => None,
            });
        }
        held.push(frame.line, frame.offset, frame.bytes);
        match self.reassembled(file, held, consumer, true)? {
            Reassembled::Emitted(flow) => {
                held.clear();
                Ok(Some(flow))
            }
            Reassembled::Incomplete => Ok(Some(Flow::Continue)),
            Reassembled::Broken => self.release(file, held, consumer).map(Some),
        }
    }

    /// Takes `frame` into a single-document input's reassembly. Unlike `--recover`, a line
    /// that parses alone does not end it (a pretty-printed document has lines such as
    /// `{}` inside it), no line count caps it (`--max-line-bytes` caps its bytes, as for
    /// any record), and the document is the format, not noise: no `PROTO_TEXT_NOISE`.
    fn document_step(
        &mut self,
        file: &Arc<str>,
        frame: Frame<'_>,
        held: &mut Reassembly,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        if frame.kind == FrameKind::Overlong
            || held.bytes().len() + frame.bytes.len() > self.options.max_line_bytes
        {
            self.release(file, held, consumer)?;
            return Ok(self
                .process_inner(file, frame, consumer, false)?
                .unwrap_or(Flow::Continue));
        }
        held.push(frame.line, frame.offset, frame.bytes);
        // Parsed again only where that can tell more (linear in the document's size, see
        // [`Reassembly::worth_parsing`]).
        if !held.worth_parsing() {
            return Ok(Flow::Continue);
        }
        held.parsing();
        match self.reassembled(file, held, consumer, false)? {
            Reassembled::Emitted(flow) => {
                held.clear();
                Ok(flow)
            }
            Reassembled::Incomplete => Ok(Flow::Continue),
            Reassembled::Broken => self.release(file, held, consumer),
        }
    }

    /// Hands the held lines of an abandoned reassembly to the consumer one by one, each with
    /// its own verdict, and empties the reassembly.
    fn release(
        &mut self,
        file: &Arc<str>,
        held: &mut Reassembly,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        let mut flow = Flow::Continue;
        for line in held.lines() {
            let bytes = held.line_bytes(line);
            let frame = Frame {
                bytes,
                line: line.line,
                offset: line.offset,
                kind: FrameKind::Complete {
                    terminated: bytes.last() == Some(&b'\n'),
                },
            };
            flow = self
                .process_inner(file, frame, consumer, false)?
                .unwrap_or(Flow::Continue);
            if flow == Flow::Stop {
                break;
            }
        }
        held.clear();
        Ok(flow)
    }

    /// Whether the held lines now form one JSON value; if so, hands it to the consumer.
    fn reassembled(
        &mut self,
        file: &Arc<str>,
        held: &Reassembly,
        consumer: &mut dyn Consumer,
        noise: bool,
    ) -> io::Result<Reassembled> {
        let Some(first) = held.first() else {
            return Ok(Reassembled::Incomplete);
        };
        let Pipeline {
            decoder,
            classifier,
            findings,
            diagnostics,
            ..
        } = self;
        diagnostics.clear();
        let raw = held.bytes();
        let (content, skipped) = match raw.strip_prefix(BOM) {
            Some(stripped) => (stripped, BOM.len()),
            None => (raw, 0),
        };
        let mut emit = Emit {
            classifier,
            findings,
            diagnostics,
            file,
            line: first.line,
            offset: first.offset,
            line_len: None,
        };
        decoder.decode(content, |verdict| match verdict {
            Ok(value) => {
                if noise {
                    emit.push(
                        Code::TextNoise,
                        None,
                        held.message(),
                        excerpt(content, None),
                    );
                }
                emit.valid(raw, content, skipped, value, consumer)
                    .map(Reassembled::Emitted)
            }
            Err(failure) if failure.code == Code::Truncated => Ok(Reassembled::Incomplete),
            Err(_) => Ok(Reassembled::Broken),
        })
    }
}

/// Whether the first line of an input opens a pretty-printed JSON document: `{` alone
/// (after a BOM, blanks and a `\r`). No NDJSON stream starts so, as no one-line object
/// does; Gemini CLI's `-o json` output always does.
fn opens_document(frame: &Frame<'_>) -> bool {
    frame.kind != FrameKind::Overlong && first_line_opens_document(frame.content())
}

/// Whether a line (without its newline) is a lone `{`, as the first line of a
/// pretty-printed single-document input (Gemini CLI `-o json`) is.
pub(crate) fn first_line_opens_document(content: &[u8]) -> bool {
    let content = content.strip_prefix(BOM).unwrap_or(content);
    content.trim_ascii() == b"{"
}

/// What the decoding of one line led to.
enum Attempt {
    /// The record reached the consumer.
    Done(Flow),
    /// The line may open a pretty-printed value (`--recover`).
    Reassemble,
    /// A JSON object lies in this part of a line that is not JSON (`--recover`).
    Embedded(Range<usize>, Failure),
}

/// Where a reassembly stands after one more line.
enum Reassembled {
    Emitted(Flow),
    Incomplete,
    /// The held lines can no longer become one JSON value.
    Broken,
}

/// Builds one record's diagnostics and hands the record to the consumer.
struct Emit<'p, 'f> {
    classifier: &'p mut Classifier,
    findings: &'p mut Findings,
    diagnostics: &'p mut Vec<Diagnostic>,
    file: &'f Arc<str>,
    line: u64,
    offset: u64,
    /// The bytes of the line a record was taken out of, when that is not the record's.
    line_len: Option<usize>,
}

impl Emit<'_, '_> {
    fn push(&mut self, code: Code, column: Option<u64>, message: String, excerpt: String) {
        self.diagnostics.push(Diagnostic {
            file: self.file.clone(),
            line: self.line,
            column,
            offset: self.offset + column.map_or(0, |c| c.saturating_sub(1)),
            code,
            severity: code.severity(),
            message,
            excerpt,
        });
    }

    fn record(
        &mut self,
        raw: &[u8],
        overlong: bool,
        status: Status,
        value: Option<Json<'_>>,
        info: RecordInfo<'_>,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        consumer.record(&Record {
            file: self.file,
            line: self.line,
            offset: self.offset,
            raw,
            input_len: self.line_len.unwrap_or(raw.len()),
            overlong,
            status,
            value,
            info,
            diagnostics: self.diagnostics,
        })
    }

    /// A valid value: classified, its findings reported.
    fn valid(
        &mut self,
        raw: &[u8],
        content: &[u8],
        skipped: usize,
        value: Json<'_>,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        let info = self.classifier.classify(value, self.findings);
        if !value.is_object() {
            self.push(
                Code::NotObject,
                Some(skipped as u64 + 1),
                format!("valid JSON {}, not an object", value.kind().as_str()),
                excerpt(content, None),
            );
        }
        if self.findings.unknown_type {
            let dialect = info.dialect.map_or("?", |d| d.name());
            self.push(
                Code::UnknownType,
                None,
                format!(
                    "type `{}` is not known to dialect {dialect} (passed through)",
                    printable(info.ty.unwrap_or_default())
                ),
                excerpt(content, None),
            );
        }
        for i in 0..self.findings.schema.len() {
            let message = self.findings.schema[i].message(&printable(info.ty.unwrap_or_default()));
            self.push(Code::Schema, None, message, excerpt(content, None));
        }
        self.record(raw, false, Status::Valid, Some(value), info, consumer)
    }

    /// A record that is not a JSON value.
    fn invalid(
        &mut self,
        raw: &[u8],
        content: &[u8],
        skipped: usize,
        failure: &Failure,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        self.push(
            failure.code,
            Some((skipped + failure.index) as u64 + 1),
            failure.message.clone(),
            excerpt(content, Some(failure.index)),
        );
        self.record(
            raw,
            false,
            Status::Invalid,
            None,
            RecordInfo::default(),
            consumer,
        )
    }
}
