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

    // ---- text ----

    fn paint(&self, text: &str, style: Style) -> String {
        self.painter.paint(text, style)
    }

    fn label(&self, name: &str, style: Style) -> String {
        self.paint(&format!("{name:<LABEL_WIDTH$}"), style)
    }

    /// Writes `lines` under a label: the first after it, the others indented to match.
    /// `more` lines left out are noted at the end.
    fn block<W: Write + ?Sized>(
        &self,
        out: &mut W,
        label: &str,
        lines: &[String],
        style: Style,
        more: usize,
    ) -> io::Result<()> {
        let indent = " ".repeat(LABEL_WIDTH);
        for (i, line) in lines.iter().enumerate() {
            let head = if i == 0 { label } else { &indent };
            if line.trim().is_empty() {
                writeln!(out, "{}", head.trim_end())?;
            } else {
                writeln!(out, "{head}{}", self.paint(line, style))?;
            }
        }
        if lines.is_empty() {
            writeln!(out, "{}", label.trim_end())?;
        }
        if more > 0 {
            let note = format!(
                "… ({} more {})",
                more,
                if more == 1 { "line" } else { "lines" }
            );
            writeln!(out, "{indent}{}", self.paint(&note, Style::new().dimmed()))?;
        }
        Ok(())
    }

    fn write_text<W: Write + ?Sized>(&mut self, out: &mut W, ev: &Event<'_>) -> io::Result<()> {
        if self.file.as_deref() != Some(ev.file) {
            self.file = Some(ev.file.to_string());
            let header = format!("── {}", sanitize(ev.file));
            writeln!(out, "{}", self.paint(&header, Style::new().bold().dimmed()))?;
        }
        let plain = Style::new();
        let dim = Style::new().dimmed();
        let red = Style::new().red();
        match &ev.body {
            Body::Init {
                model,
                cwd,
                tools,
                permission_mode,
            } => {
                let mut parts = Vec::new();
                if let Some(s) = ev.session {
                    parts.push(format!("session {s}"));
                }
                if let Some(m) = model {
                    parts.push(format!("model {m}"));
                }
                if let Some(c) = cwd {
                    parts.push(format!("cwd {c}"));
                }
                if let Some(t) = tools {
                    let mut n = 0u64;
                    t.for_each_element(|_| n += 1);
                    parts.push(plural(n, "tool"));
                }
                if let Some(p) = permission_mode {
                    parts.push(format!("permission {p}"));
                }
                let line = sanitize(&parts.join(" · ")).into_owned();
                let label = self.label("init", Style::new().cyan().bold());
                self.block(out, &label, &[line], plain, 0)
            }
            Body::User { text, .. } => {
                let (lines, more) = excerpt(text.as_str(), TEXT_LINES, TEXT_CHARS);
                let label = self.label("user", Style::new().green().bold());
                self.block(out, &label, &lines, plain, more)
            }
            Body::Text { text, .. } => {
                let (lines, more) = excerpt(text.as_str(), TEXT_LINES, TEXT_CHARS);
                let label = self.label("assistant", Style::new().blue().bold());
                self.block(out, &label, &lines, plain, more)
            }
            Body::Thinking { text } => {
                let (mut lines, more) = excerpt(text.as_str(), THINKING_LINES, THINKING_CHARS);
                if lines.is_empty() {
                    lines.push("(not shown in the log)".to_string());
                }
                let label = self.label("thinking", dim);
                self.block(out, &label, &lines, dim, more)
            }
            Body::ToolUse { name, input, .. } => {
                let name = sanitize(name.unwrap_or("(unnamed)")).into_owned();
                let room = self
                    .width
                    .saturating_sub(LABEL_WIDTH + name.chars().count() + 1);
                let arg = input
                    .as_ref()
                    .and_then(|i| key_argument(i))
                    .map(|a| one_line(&a, room));
                let line = match arg {
                    Some(a) if !a.is_empty() => {
                        format!("{} {a}", self.paint(&name, Style::new().bold()))
                    }
                    _ => self.paint(&name, Style::new().bold()),
                };
                let label = self.label("tool", Style::new().yellow().bold());
                writeln!(out, "{label}{line}")
            }
            Body::ToolResult {
                is_error, content, ..
            } => {
                let text = content.as_ref().map(|c| match c.as_str() {
                    Some(s) => Cow::Borrowed(s),
                    None => Cow::Owned(c.to_compact_string()),
                });
                let shown = text.as_deref().map(command_output).unwrap_or_default();
                let (mut lines, more) = excerpt_compact(shown, RESULT_LINES, RESULT_CHARS);
                let (mark, style) = if *is_error {
                    ("✗ ", red)
                } else {
                    ("↳ ", dim)
                };
                if lines.is_empty() {
                    lines.push(if *is_error { "(failed)" } else { "(no output)" }.to_string());
                }
                for (i, line) in lines.iter_mut().enumerate() {
                    let lead = if i == 0 { mark } else { "  " };
                    *line = format!("{lead}{line}");
                }
                let indent = " ".repeat(LABEL_WIDTH);
                self.block(out, &indent, &lines, style, more)
            }
            Body::Usage(_) => Ok(()),
            Body::Result(r) => {
                let mut parts = Vec::new();
                let status = if r.success {
                    format!("✓ {}", r.subtype.unwrap_or("completed"))
                } else if r.is_error {
                    match r.subtype {
                        Some(st) => format!("✗ error (subtype {st})"),
                        None => "✗ error".to_string(),
                    }
                } else {
                    format!("✗ {}", r.subtype.unwrap_or("not completed"))
                };
                let status_style = if r.success {
                    Style::new().green().bold()
                } else {
                    Style::new().red().bold()
                };
                parts.push(self.paint(&sanitize(&status), status_style));
                if let Some(t) = r.turns {
                    parts.push(plural(t, "turn"));
                }
                if let Some(d) = r.duration_ms {
                    parts.push(duration(d));
                }
                if let Some(c) = r.cost_usd {
                    parts.push(format!("${c:.4}"));
                }
                if r.input.is_some() || r.output.is_some() {
                    parts.push(format!(
                        "{} in / {} out",
                        thousands(r.input.unwrap_or(0)),
                        thousands(r.output.unwrap_or(0))
                    ));
                }
                let label = self.label("result", Style::new().bold());
                writeln!(out, "{label}{}", parts.join(" · "))?;
                // A successful result's text repeats the last answer: shown only for failures.
                match &r.text {
                    Some(text) if !r.success => {
                        let (lines, more) = excerpt(text, RESULT_LINES, RESULT_CHARS);
                        let style = if r.is_error { red } else { plain };
                        let indent = " ".repeat(LABEL_WIDTH);
                        self.block(out, &indent, &lines, style, more)
                    }
                    _ => Ok(()),
                }
            }
            Body::System {
                subtype,
                message,
                model,
            } => {
                let subtype = subtype.unwrap_or("system");
                let mut line = subtype.to_string();
                if let Some(m) = message {
                    line.push_str(": ");
                    line.push_str(m);
                }
                if let Some(m) = model {
                    line.push_str(": model ");
                    line.push_str(m);
                }
                let style = if subtype.contains("error") || subtype.contains("retry") {
                    Style::new().yellow()
                } else {
                    dim
                };
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("system", dim);
                writeln!(out, "{label}{}", self.paint(&line, style))
            }
            Body::Rpc {
                id,
                method,
                direction,
                error,
            } => {
                let id = id.map(|i| format!("#{}", i.to_compact_string()));
                let method = method.unwrap_or("?");
                let (line, style) = match direction {
                    crate::event::Direction::Request => (
                        format!("→ {method} {}", id.unwrap_or_default()),
                        Style::new().cyan(),
                    ),
                    crate::event::Direction::Notification => (format!("· {method}"), dim),
                    crate::event::Direction::Response => match error {
                        Some(e) => {
                            let why = e
                                .get("message")
                                .and_then(|m| m.as_str())
                                .map(str::to_string)
                                .unwrap_or_else(|| e.to_compact_string());
                            (
                                format!("← {} {method} ✗ {why}", id.unwrap_or_default()),
                                red,
                            )
                        }
                        None => (
                            format!("← {} {method} ✓", id.unwrap_or_default()),
                            Style::new().cyan(),
                        ),
                    },
                };
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("rpc", Style::new().cyan().bold());
                writeln!(out, "{label}{}", self.paint(&line, style))
            }
            Body::Unknown { ty, raw } => {
                let line = format!("{} {}", ty.unwrap_or("(no type)"), raw.to_compact_string());
                let line = one_line(&line, self.width - LABEL_WIDTH);
                let label = self.label("unknown", Style::new().magenta());
                writeln!(out, "{label}{}", self.paint(&line, dim))
            }
        }
    }
}

/// One NDJSON line. (Written piece by piece, not with `write!`: its formatting machinery
/// cost more than the rest of a short event.)
fn write_json<W: Write + ?Sized>(out: &mut W, ev: &Event<'_>) -> io::Result<()> {
    out.write_all(b"{\"line\":")?;
    serde_json::to_writer(&mut *out, &ev.line)?;
    out.write_all(b",\"file\":")?;
    write_str(out, ev.file)?;
    if let Some(s) = ev.session {
        out.write_all(b",\"session\":")?;
        write_str(out, s)?;
    }
    out.write_all(b",\"kind\":\"")?;
    out.write_all(ev.body.kind().as_bytes())?;
    out.write_all(b"\"")?;
    for (key, value) in fields(ev) {
        // The keys are this file's own names: nothing in them to escape.
        out.write_all(b",\"")?;
        out.write_all(key.as_bytes())?;
        out.write_all(b"\":")?;
        match value {
            Field::Str(s) => write_str(out, s)?,
            Field::Text(t) => t.write_json(out)?,
            Field::UInt(n) => serde_json::to_writer(&mut *out, &n)?,
            Field::Float(x) => serde_json::to_writer(&mut *out, &x)?,
            Field::Bool(b) => out.write_all(if b { b"true" } else { b"false" })?,
            Field::Json(j) => j.write_compact(out)?,
            Field::Nested(n) => n.write_compact(out)?,
        }
    }
    out.write_all(b"}\n")
}

/// One CSV row: strings as they are, nested values as compact JSON.
fn write_csv<W: Write + ?Sized>(out: &mut W, ev: &Event<'_>) -> io::Result<()> {
    let mut cells: Vec<Cow<'_, str>> = vec![Cow::Borrowed(""); CSV_COLUMNS.len()];
    let mut put = |key: &str, value: Cow<'_, str>| {
        if let Some(i) = CSV_COLUMNS.iter().position(|c| *c == key) {
            cells[i] = Cow::Owned(value.into_owned());
        }
    };
    put("line", Cow::Owned(ev.line.to_string()));
    put("file", Cow::Borrowed(ev.file));
    if let Some(s) = ev.session {
        put("session", Cow::Borrowed(s));
    }
    put("kind", Cow::Borrowed(ev.body.kind()));
    for (key, value) in fields(ev) {
        let text = match value {
            Field::Str(s) => Cow::Borrowed(s),
            Field::Text(t) => Cow::Borrowed(t.as_str()),
            Field::UInt(n) => Cow::Owned(n.to_string()),
            Field::Float(x) => Cow::Owned(serde_json::to_string(&x)?),
            Field::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
            Field::Json(j) => match j.as_str() {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(j.to_compact_string()),
            },
            Field::Nested(n) => match n.as_str() {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(n.to_compact_string()),
            },
        };
        put(key, text);
    }
    let refs: Vec<&str> = cells.iter().map(|c| c.as_ref()).collect();
    out.write_all(&csv_row(&refs)?)
}

/// The argument that says what a tool call does: a command, a file, a pattern, a URL, a
/// query; else a short compact JSON of the input.
fn key_argument(input: &Nested<'_>) -> Option<String> {
    if let Some(s) = input.as_str() {
        return Some(s.to_string());
    }
    if let Some(argv) = input.strings_at("command") {
        return Some(match argv.as_slice() {
            [shell, flag, script]
                if ["bash", "sh", "zsh"].iter().any(|s| shell.ends_with(s))
                    && matches!(*flag, "-c" | "-lc") =>
            {
                script.to_string()
            }
            _ => argv.join(" "),
        });
    }
    let keys = [
        "command",
        "cmd",
        "file_path",
        "notebook_path",
        "pattern",
        "path",
        "url",
        "query",
        "description",
        "prompt",
    ];
    if let Some(s) = keys.iter().find_map(|k| input.str_at(k)) {
        return Some(s.to_string());
    }
    let paths = input.changed_paths();
    if !paths.is_empty() {
        let list: Vec<String> = paths
            .iter()
            .map(|(kind, path)| match kind {
                Some(k) => format!("{k} {path}"),
                None => path.to_string(),
            })
            .collect();
        return Some(list.join(", "));
    }
    Some(input.to_compact_string())
}

/// The part of a command's output worth showing: Codex prefixes it with a few lines of
/// bookkeeping (`Exit code`, `Wall time`, ...) closed by `Output:`.
fn command_output(text: &str) -> &str {
    let mut offset = 0;
    for line in text.split_inclusive('\n').take(8) {
        offset += line.len();
        if line.trim_end() == "Output:" {
            return &text[offset..];
        }
    }
    text
}

/// The first `max_lines` lines of `text`, with at most `max_chars` characters in all, made
/// safe for a terminal, and how many lines were left out.
fn excerpt(text: &str, max_lines: usize, max_chars: usize) -> (Vec<String>, usize) {
    excerpt_lines(text.lines(), max_lines, max_chars)
}

/// Like [`excerpt`], leaving out blank lines (tool output is read for its content).
fn excerpt_compact(text: &str, max_lines: usize, max_chars: usize) -> (Vec<String>, usize) {
    excerpt_lines(
        text.lines().filter(|l| !l.trim().is_empty()),
        max_lines,
        max_chars,
    )
}

fn excerpt_lines<'t>(
    all: impl Iterator<Item = &'t str>,
    max_lines: usize,
    max_chars: usize,
) -> (Vec<String>, usize) {
    let mut lines: Vec<String> = Vec::new();
    let mut budget = max_chars;
    let mut total: usize = 0;
    let mut trailing_blank: usize = 0;
    let mut cut = false;
    // Blank lines at the start are skipped, at the end not counted.
    for line in all.skip_while(|l| l.trim().is_empty()) {
        if line.trim().is_empty() {
            trailing_blank += 1;
        } else {
            trailing_blank = 0;
        }
        total += 1;
        if cut || lines.len() >= max_lines {
            continue;
        }
        let n = line.chars().count();
        if n <= budget {
            lines.push(sanitize(line).into_owned());
            budget -= n;
        } else {
            let head: String = line.chars().take(budget).collect();
            lines.push(format!("{}…", sanitize(&head)));
            cut = true;
        }
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let shown = lines.len();
    (lines, (total - trailing_blank).saturating_sub(shown))
}

/// The first line of `text`, fit to `width` characters, made safe for a terminal.
fn one_line(text: &str, width: usize) -> String {
    let mut lines = text.trim().lines();
    let first = lines.next().unwrap_or_default();
    let more = lines.next().is_some();
    let first = sanitize(first);
    let n = first.chars().count();
    if n <= width && !more {
        first.into_owned()
    } else {
        let keep = width.saturating_sub(1).min(n);
        let head: String = first.chars().take(keep).collect();
        format!("{head}…")
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{} {word}s", thousands(n))
    }
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
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
