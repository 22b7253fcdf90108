//! The pipeline: drives framing → decoding → dialect over one input and pushes each
//! classified record, with its diagnostics, into a [`Consumer`].
//!
//! This is the one pass every command shares. It keeps nothing but reused buffers: a
//! record lives until the consumer returns. What to do with a record (select it, count it,
//! print its diagnostics) is the consumer's business; which consumers run is the command's.

use crate::decode::Decoder;
use crate::diagnostic::{excerpt, printable, Code, Diagnostic};
use crate::dialect::{Classifier, Dialect, Findings, RecordInfo};
use crate::error::Error;
use crate::framing::{Frame, FrameKind, Framer};
use crate::json::Json;
use std::io::{self, Read};
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
    /// the rest follows through [`Consumer::overlong_chunk`].
    pub raw: &'a [u8],
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
    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow>;
    /// More bytes of the overlong record last passed to [`Consumer::record`].
    fn overlong_chunk(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// The input ended (or reading it stopped).
    fn end_input(&mut self, _file: &Arc<str>, _dialect: Option<Dialect>) -> io::Result<()> {
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_depth: crate::decode::DEFAULT_MAX_DEPTH,
            dialect: None,
            type_field: vec!["type".to_string()],
            read_size: crate::framing::DEFAULT_READ_SIZE,
        }
    }
}

/// The default `--max-line-bytes`: 100 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 100 << 20;
/// The largest `--max-line-bytes`: simd-json indexes with 32 bits, so a record must stay
/// well below 4 GiB.
pub const MAX_LINE_BYTES_LIMIT: usize = (u32::MAX as usize) - (1 << 20);

/// Runs the pass over inputs, reusing its buffers from one input to the next.
#[derive(Debug)]
pub struct Pipeline {
    options: Options,
    decoder: Decoder,
    classifier: Classifier,
    findings: Findings,
    diagnostics: Vec<Diagnostic>,
}

impl Pipeline {
    pub fn new(mut options: Options) -> Self {
        options.max_line_bytes = options.max_line_bytes.clamp(1, MAX_LINE_BYTES_LIMIT);
        Pipeline {
            decoder: Decoder::new(options.max_depth),
            classifier: Classifier::new(options.dialect, options.type_field.clone()),
            findings: Findings::default(),
            diagnostics: Vec::new(),
            options,
        }
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
        let framer =
            Framer::with_read_size(reader, self.options.max_line_bytes, self.options.read_size);
        let flow = self
            .stream(file, framer, consumer, false)
            .map(|(flow, _)| flow);
        let dialect = self.classifier.dialect();
        consumer.end_input(file, dialect).map_err(Error::Write)?;
        flow
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
        let read_error = |framer: &Framer<R>, source| {
            let (line, offset) = framer.position();
            Error::Read {
                file: file.to_string(),
                line,
                offset,
                source,
            }
        };
        loop {
            if until_detected && self.classifier.dialect().is_some() {
                return Ok((Flow::Continue, Some(framer)));
            }
            let frame = match framer.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => return Ok((Flow::Continue, None)),
                Err(e) => return Err(read_error(&framer, e)),
            };
            let overlong = frame.kind == FrameKind::Overlong;
            let flow = self.process(file, frame, consumer).map_err(Error::Write)?;
            if overlong {
                loop {
                    match framer.overlong_chunk() {
                        Ok(Some(chunk)) => consumer.overlong_chunk(chunk).map_err(Error::Write)?,
                        Ok(None) => break,
                        Err(e) => return Err(read_error(&framer, e)),
                    }
                }
            }
            if flow == Flow::Stop {
                return Ok((Flow::Stop, None));
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
        let Pipeline {
            decoder,
            classifier,
            findings,
            diagnostics,
            options,
        } = self;
        diagnostics.clear();
        let line = frame.line;
        let offset = frame.offset;
        let raw = frame.bytes;
        let diag = |code: Code, column: Option<u64>, message: String, excerpt: String| Diagnostic {
            file: file.clone(),
            line,
            column,
            offset: offset + column.map_or(0, |c| c.saturating_sub(1)),
            code,
            severity: code.severity(),
            message,
            excerpt,
        };

        if frame.kind == FrameKind::Overlong {
            diagnostics.push(diag(
                Code::LineTooLong,
                None,
                format!(
                    "record longer than --max-line-bytes {}; not parsed",
                    options.max_line_bytes
                ),
                excerpt(raw, None),
            ));
            return consumer.record(&Record {
                file,
                line,
                offset,
                raw,
                overlong: true,
                status: Status::Invalid,
                value: None,
                info: RecordInfo::default(),
                diagnostics,
            });
        }

        let mut content = frame.content();
        if let Some(stripped) = content.strip_suffix(b"\r") {
            content = stripped;
            diagnostics.push(diag(
                Code::Crlf,
                Some(content.len() as u64 + 1),
                "CRLF line ending (tolerated)".to_string(),
                String::new(),
            ));
        }
        let mut skipped = 0;
        if let Some(stripped) = content.strip_prefix(BOM) {
            content = stripped;
            skipped = BOM.len();
            // A BOM opening the input is ordinary; one further in means concatenated files.
            if line > 1 {
                diagnostics.push(diag(
                    Code::Bom,
                    Some(1),
                    "UTF-8 byte-order mark inside the stream (tolerated)".to_string(),
                    String::new(),
                ));
            }
        }

        if content.iter().all(|b| matches!(b, b' ' | b'\t')) {
            diagnostics.push(diag(
                Code::EmptyLine,
                None,
                "empty line".to_string(),
                String::new(),
            ));
            return consumer.record(&Record {
                file,
                line,
                offset,
                raw,
                overlong: false,
                status: Status::Empty,
                value: None,
                info: RecordInfo::default(),
                diagnostics,
            });
        }
        decoder.decode(content, |verdict| match verdict {
            Ok(value) => {
                let info = classifier.classify(value, findings);
                if !value.is_object() {
                    diagnostics.push(diag(
                        Code::NotObject,
                        Some(skipped as u64 + 1),
                        format!("valid JSON {}, not an object", value.kind().as_str()),
                        excerpt(content, None),
                    ));
                }
                if findings.unknown_type {
                    let dialect = info.dialect.map_or("?", |d| d.name());
                    diagnostics.push(diag(
                        Code::UnknownType,
                        None,
                        format!(
                            "type `{}` is not known to dialect {dialect} (passed through)",
                            printable(info.ty.unwrap_or_default())
                        ),
                        excerpt(content, None),
                    ));
                }
                for problem in &findings.schema {
                    diagnostics.push(diag(
                        Code::Schema,
                        None,
                        problem.message(&printable(info.ty.unwrap_or_default())),
                        excerpt(content, None),
                    ));
                }
                consumer.record(&Record {
                    file,
                    line,
                    offset,
                    raw,
                    overlong: false,
                    status: Status::Valid,
                    value: Some(value),
                    info,
                    diagnostics,
                })
            }
            Err(failure) => {
                diagnostics.push(diag(
                    failure.code,
                    Some((skipped + failure.index) as u64 + 1),
                    failure.message.clone(),
                    excerpt(content, Some(failure.index)),
                ));
                consumer.record(&Record {
                    file,
                    line,
                    offset,
                    raw,
                    overlong: false,
                    status: Status::Invalid,
                    value: None,
                    info: RecordInfo::default(),
                    diagnostics,
                })
            }
        })
    }
}
