//! Writes normalized events ([`crate::event`]) as `json` (NDJSON in the key order of
//! docs/REFERENCE.md, "Normalized events"), `csv` (a header, then one row per event in the fixed
//! [`CSV_COLUMNS`]) or `text` (a transcript for people, closed by a summary line).
//!
//! The writer does not own its output: each call takes the `Write` to use, so `filter
//! --normalize` can write events into the same stream it would write raw lines to. It
//! knows nothing of terminals; colour comes from the [`Painter`] it is given.
//!
//! The text transcript: one line per event with a speaker label (`user`, `assistant`,
//! `thinking`, `tool`, `result`, ...); tool calls show their key argument (a command, a
//! file path, a pattern, a URL, a query; else a short compact JSON); tool results are cut
//! to their first lines, at most [`RESULT_CHARS`] characters; errors are red and thinking
//! dimmed. `usage` events print nothing there: their tokens are summed into the closing
//! line: per session, its last result's input and output where a result reports them
//! (the billed totals, as `stats` counts them: Claude's per-message output counts are
//! early snapshots, 1 where 13 were billed), else the sum of its usage events, a message
//! replayed after a restart counted once. It also counts events, tool calls and errors (failed tool
//! results, error results, JSON-RPC errors) and gives the cost (per session, the last cost a result
//! reported, summed). Control characters of the data (ANSI escapes in hook output) are shown
//! escaped, never sent to the terminal.

use super::{csv_row, sanitize, thousands, Painter};
use crate::event::{Body, Event, Nested, Text};
use crate::json::{write_str, Json};
use crate::stats::Totals;
use owo_colors::Style;
use std::borrow::Cow;
use std::io::{self, Write};

mod csv;
mod json;
mod text;

use csv::*;
use json::*;
use text::*;

/// An output format of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventFormat {
    Json,
    Csv,
    Text,
}

/// The CSV columns, in order: where an event is, then ids, names, flags, texts, numbers,
/// and the nested JSON values. `input` and `output` hold token counts for `usage` and
/// `result`, and `input` the tool's input (compact JSON) for `tool_use`, as in the JSON.
pub const CSV_COLUMNS: &[&str] = &[
    "line",
    "file",
    "session",
    "kind",
    "uuid",
    "message_id",
    "id",
    "tool_use_id",
    "name",
    "model",
    "subtype",
    "type",
    "method",
    "direction",
    "success",
    "is_error",
    "text",
    "message",
    "input",
    "content",
    "output",
    "cache_creation",
    "cache_read",
    "cost_usd",
    "duration_ms",
    "turns",
    "cwd",
    "permission_mode",
    "tools",
    "error",
    "raw",
];

/// Width of the speaker label column of the transcript.
const LABEL_WIDTH: usize = 10;
/// Lines of the transcript that hold one item (a tool call, a system message) are fit to
/// this many columns unless told otherwise ([`EventWriter::with_width`]).
pub const DEFAULT_WIDTH: usize = 100;
/// The narrowest width honoured: the label column and a little room after it.
const MIN_WIDTH: usize = LABEL_WIDTH + 30;
/// At most this many lines and characters of a user or assistant text.
const TEXT_LINES: usize = 40;
const TEXT_CHARS: usize = 4000;
/// At most this many lines and characters of thinking.
const THINKING_LINES: usize = 6;
const THINKING_CHARS: usize = 600;
/// At most this many lines and characters of a tool result or an error message.
pub const RESULT_LINES: usize = 3;
pub const RESULT_CHARS: usize = 200;

/// One field of an event, as the JSON and CSV writers see it.
enum Field<'e> {
    Str(&'e str),
    Text(&'e Text<'e>),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Json(Json<'e>),
    Nested(&'e Nested<'e>),
}

/// The fields of an event after `line`, `file`, `session` and `kind`, in the documented order
/// (docs/REFERENCE.md, "Normalized events");
/// absent values are left out.
fn fields<'e>(ev: &'e Event<'e>) -> Vec<(&'static str, Field<'e>)> {
    let mut f = Vec::with_capacity(9);
    fn s<'e>(f: &mut Vec<(&'static str, Field<'e>)>, k: &'static str, v: Option<&'e str>) {
        if let Some(v) = v {
            f.push((k, Field::Str(v)));
        }
    }
    match &ev.body {
        Body::Init {
            model,
            cwd,
            tools,
            permission_mode,
        } => {
            s(&mut f, "model", *model);
            s(&mut f, "cwd", *cwd);
            if let Some(t) = tools {
                f.push(("tools", Field::Json(*t)));
            }
            if let Some(p) = permission_mode {
                f.push(("permission_mode", Field::Str(p)));
            }
        }
        Body::User { uuid, text } => {
            s(&mut f, "uuid", *uuid);
            f.push(("text", Field::Text(text)));
        }
        Body::Text {
            uuid,
            message_id,
            text,
        } => {
            s(&mut f, "uuid", *uuid);
            s(&mut f, "message_id", *message_id);
            f.push(("text", Field::Text(text)));
        }
        Body::Thinking { text } => f.push(("text", Field::Text(text))),
        Body::ToolUse { id, name, input } => {
            s(&mut f, "id", *id);
            s(&mut f, "name", *name);
            if let Some(i) = input {
                f.push(("input", Field::Nested(i)));
            }
        }
        Body::ToolResult {
            tool_use_id,
            is_error,
            content,
        } => {
            s(&mut f, "tool_use_id", *tool_use_id);
            f.push(("is_error", Field::Bool(*is_error)));
            if let Some(c) = content {
                f.push(("content", Field::Nested(c)));
            }
        }
        Body::Usage(u) => {
            s(&mut f, "message_id", u.message_id);
            s(&mut f, "model", u.model);
            let counts = [
                ("input", u.input),
                ("output", u.output),
                ("cache_creation", u.cache_creation),
                ("cache_read", u.cache_read),
            ];
            f.extend(
                counts
                    .iter()
                    .filter_map(|(k, v)| v.map(|n| (*k, Field::UInt(n)))),
            );
        }
        Body::Result(r) => {
            f.push(("success", Field::Bool(r.success)));
            f.push(("is_error", Field::Bool(r.is_error)));
            if let Some(st) = r.subtype {
                f.push(("subtype", Field::Str(st)));
            }
            if let Some(c) = r.cost_usd {
                f.push(("cost_usd", Field::Float(c)));
            }
            let counts = [
                ("duration_ms", r.duration_ms),
                ("turns", r.turns),
                ("input", r.input),
                ("output", r.output),
            ];
            f.extend(
                counts
                    .iter()
                    .filter_map(|(k, v)| v.map(|n| (*k, Field::UInt(n)))),
            );
            if let Some(t) = &r.text {
                f.push(("text", Field::Str(t)));
            }
        }
        Body::System {
            subtype,
            message,
            model,
        } => {
            s(&mut f, "subtype", *subtype);
            s(&mut f, "message", *message);
            s(&mut f, "model", *model);
        }
        Body::Rpc {
            id,
            method,
            direction,
            error,
        } => {
            if let Some(id) = id {
                f.push(("id", Field::Json(*id)));
            }
            if let Some(m) = method {
                f.push(("method", Field::Str(m)));
            }
            f.push(("direction", Field::Str(direction.as_str())));
            if let Some(e) = error {
                f.push(("error", Field::Json(*e)));
            }
        }
        Body::Unknown { ty, raw } => {
            if let Some(t) = ty {
                f.push(("type", Field::Str(t)));
            }
            f.push(("raw", Field::Json(*raw)));
        }
    }
    f
}

/// What the transcript's closing line counts of the events; its tokens and cost are
/// `stats`' totals of the same records (see [`EventWriter::finish`]), not a tally of its own.
#[derive(Debug, Default)]
struct Tally {
    events: u64,
    tool_calls: u64,
    errors: u64,
    usages: u64,
    results: u64,
}

/// Writes events in one format.
#[derive(Debug)]
pub struct EventWriter {
    format: EventFormat,
    painter: Painter,
    tally: Tally,
    /// The input of the last event written in text (a header opens each input).
    file: Option<String>,
    /// Columns a one-item line of the transcript is fit to.
    width: usize,
}

impl EventWriter {
    pub fn new(format: EventFormat, painter: Painter) -> Self {
        EventWriter {
            format,
            painter,
            tally: Tally::default(),
            file: None,
            width: DEFAULT_WIDTH,
        }
    }

    /// Fits the transcript's one-item lines (tool calls, system messages) to `width`
    /// columns (at least 40) instead of [`DEFAULT_WIDTH`]: the caller knows the terminal.
    pub fn with_width(mut self, width: usize) -> Self {
        self.width = width.max(MIN_WIDTH);
        self
    }

    /// Opens the output: the CSV header.
    pub fn start<W: Write + ?Sized>(&mut self, out: &mut W) -> io::Result<()> {
        if self.format == EventFormat::Csv {
            out.write_all(&csv_row(CSV_COLUMNS)?)?;
        }
        Ok(())
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.tally.events
    }

    /// The input the last event written came from (the text transcript opens each input
    /// with a header).
    pub fn last_file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// Forgets the events counted so far (a batch-mode warm-up's, whose output is dropped).
    pub fn forget_tally(&mut self) {
        self.tally = Tally::default();
    }

    /// Takes in what another writer wrote to the same output after this one's events (a
    /// shard of batch mode): its tally, and the input its last event came from.
    pub fn merge(&mut self, later: EventWriter) {
        let (t, l) = (&mut self.tally, later.tally);
        t.events += l.events;
        t.tool_calls += l.tool_calls;
        t.errors += l.errors;
        t.usages += l.usages;
        t.results += l.results;
        if later.file.is_some() {
            self.file = later.file;
        }
    }

    pub fn write<W: Write + ?Sized>(&mut self, out: &mut W, ev: &Event<'_>) -> io::Result<()> {
        self.tally.events += 1;
        match self.format {
            EventFormat::Json => write_json(out, ev),
            EventFormat::Csv => write_csv(out, ev),
            EventFormat::Text => {
                self.count(ev);
                self.write_text(out, ev)
            }
        }
    }

    /// Closes the output: the summary line of the transcript, its tokens and cost
    /// `billing`'s (the `stats` totals of the records written).
    pub fn finish<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        billing: Option<&Totals>,
    ) -> io::Result<()> {
        if self.format == EventFormat::Text {
            let line = self.summary_line(billing);
            let style = if self.tally.errors > 0 {
                Style::new().red().bold()
            } else {
                Style::new().bold()
            };
            writeln!(out, "{}", self.painter.paint(&line, style))?;
        }
        out.flush()
    }

    /// Counts an event into the tally of the transcript's closing line (the event count
    /// is kept by [`EventWriter::write`] for every format).
    fn count(&mut self, ev: &Event<'_>) {
        let t = &mut self.tally;
        match &ev.body {
            Body::ToolUse { .. } => t.tool_calls += 1,
            Body::ToolResult { is_error: true, .. } | Body::Rpc { error: Some(_), .. } => {
                t.errors += 1
            }
            Body::Usage(_) => t.usages += 1,
            Body::Result(r) => {
                t.results += 1;
                if r.is_error {
                    t.errors += 1;
                }
            }
            _ => {}
        }
    }

    fn summary_line(&self, billing: Option<&Totals>) -> String {
        let t = &self.tally;
        let mut parts = vec![
            plural(t.events, "event"),
            plural(t.tool_calls, "tool call"),
            plural(t.errors, "error"),
        ];
        if let Some(b) = billing {
            if t.usages > 0 || !b.tokens.is_zero() {
                let k = &b.tokens;
                parts.push(format!(
                    "tokens {} in, {} out, {} cache read, {} cache write",
                    thousands(k.input),
                    thousands(k.output),
                    thousands(k.cache_read),
                    thousands(k.cache_creation)
                ));
            }
            // As `stats` counts it: each session's reported cost, else an estimate.
            match (b.cost_usd, b.cost_usd_estimated) {
                (Some(c), None) => parts.push(format!("cost ${c:.4}")),
                (Some(c), Some(e)) if (c - e).abs() < 1e-12 => {
                    parts.push(format!("cost ${c:.4} (estimated)"))
                }
                (Some(c), Some(e)) => parts.push(format!("cost ${c:.4} (${e:.4} estimated)")),
                _ => {}
            }
        }
        format!("── {}", parts.join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_count_what_they_leave_out() {
        let (lines, more) = excerpt("a\nb\nc\nd\n", 2, 100);
        assert_eq!((lines, more), (vec!["a".to_string(), "b".to_string()], 2));
        let (lines, more) = excerpt("abcdef\nxyz", 3, 4);
        assert_eq!((lines, more), (vec!["abcd…".to_string()], 1));
        let (lines, more) = excerpt("", 3, 4);
        assert_eq!((lines.len(), more), (0, 0));
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(sanitize("\u{1b}[1mhook\u{1b}[0m\r"), "\\e[1mhook\\e[0m");
        assert_eq!(sanitize("tab\tok"), "tab\tok");
        assert_eq!(one_line("first\nsecond", 20), "first…");
        assert_eq!(one_line("abcdefgh", 5), "abcd…");
    }

    #[test]
    fn one_item_lines_fit_the_width_given() {
        let message = "x".repeat(300);
        let ev = Event {
            line: 1,
            file: "f",
            session: None,
            body: Body::System {
                subtype: Some("status"),
                message: Some(&message),
                model: None,
            },
        };
        let widest = |writer: EventWriter| {
            let mut writer = writer;
            let mut out = Vec::new();
            writer.write(&mut out, &ev).expect("write to a Vec");
            let text = String::from_utf8(out).expect("UTF-8");
            text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
        };
        let plain = || EventWriter::new(EventFormat::Text, Painter::new(false));
        assert_eq!(widest(plain()), DEFAULT_WIDTH);
        assert_eq!(widest(plain().with_width(60)), 60);
        assert_eq!(widest(plain().with_width(200)), 200);
        assert_eq!(widest(plain().with_width(5)), MIN_WIDTH);
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(603), "603 ms");
        assert_eq!(duration(186_278), "186.3 s");
        assert_eq!(command_output("Exit code: 0\nOutput:\nhi\n"), "hi\n");
        assert_eq!(command_output("plain"), "plain");
    }
}
