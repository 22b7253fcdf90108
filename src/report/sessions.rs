//! What the page says about each session beyond `stats`' figures: when it started and
//! ended, its agent, how it ended, and (with transcripts) its events as HTML. Read from
//! the normalized events ([`crate::event::Normalizer`]), the same ones `ndjq events`
//! writes, so the transcript is that view and a session's ending is read in one place.

use super::escape::escape_into;
use crate::dialect::Dialect;
use crate::event::{Body, Event, Nested, Normalizer};
use crate::pipeline::Record;
use crate::timestamp::{self, TimeRange, Timestamp};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Text longer than this (characters, or lines) shows its start; the rest is behind a
/// `<details>`.
const SHOWN_CHARS: usize = 1200;
const SHOWN_LINES: usize = 12;
/// Text longer than this (bytes) is cut for good: the page says how much is left out
/// and where the log has it.
const KEPT_BYTES: usize = 64 << 10;

/// How a session ended: its last result event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ending {
    pub success: bool,
    pub is_error: bool,
    pub subtype: Option<String>,
}

impl Ending {
    /// One or two words for the session table.
    pub fn describe(&self) -> String {
        let sub = self.subtype.as_deref().filter(|s| *s != "success");
        match (self.success && !self.is_error, sub) {
            (true, _) => "success".to_string(),
            (false, Some(s)) => format!("error ({s})"),
            (false, None) => "error".to_string(),
        }
    }
}

/// One session, as the events tell it.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub start: Option<Timestamp>,
    pub end: Option<Timestamp>,
    pub agent: Option<Dialect>,
    pub ending: Option<Ending>,
    /// The transcript's HTML (empty without transcripts).
    pub transcript: String,
    pub events: u64,
}

impl SessionInfo {
    fn merge(&mut self, later: SessionInfo) {
        self.start = match (self.start, later.start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.end = self.end.max(later.end);
        self.agent = self.agent.or(later.agent);
        if later.ending.is_some() {
            self.ending = later.ending;
        }
        self.transcript.push_str(&later.transcript);
        self.events += later.events;
    }
}

/// Collects [`SessionInfo`] from records, in each input's order.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    normalizer: Normalizer,
    transcripts: bool,
    range: TimeRange,
    /// The current input's last record time (a record without one takes it).
    last_time: Option<Timestamp>,
    pub sessions: HashMap<String, SessionInfo>,
    /// Each input's dialect (the agent of its sessions).
    pub files: HashMap<String, Dialect>,
}

impl SessionLog {
    pub fn new(transcripts: bool, range: TimeRange) -> Self {
        SessionLog {
            transcripts,
            range,
            ..SessionLog::default()
        }
    }

    /// Whether transcripts are collected.
    pub fn transcripts(&self) -> bool {
        self.transcripts
    }

    /// An empty log with the same settings (a worker's).
    pub fn fresh(&self) -> Self {
        SessionLog::new(self.transcripts, self.range)
    }

    pub fn begin_input(&mut self) {
        self.last_time = None;
    }

    pub fn record(&mut self, record: &Record<'_>) {
        let Some(value) = record.value else {
            return;
        };
        let time = timestamp::record_time(value);
        if time.is_some() {
            self.last_time = time;
        }
        // Out of --since/--until: the record's context counts, its events do not, as in
        // `stats`.
        if let Some(t) = time.or(self.last_time) {
            if !self.range.contains(t) {
                self.normalizer.observe(record);
                return;
            }
        }
        let SessionLog {
            normalizer,
            transcripts,
            sessions,
            ..
        } = self;
        let dialect = record.info.dialect;
        // Writing into memory cannot fail.
        let _ = normalizer.record(record, &mut |event| {
            take(sessions, *transcripts, dialect, time, event);
            Ok(())
        });
    }

    pub fn end_input(&mut self, file: &str, dialect: Option<Dialect>) {
        let SessionLog {
            normalizer,
            transcripts,
            sessions,
            ..
        } = self;
        let _ = normalizer.end_input(&mut |event| {
            take(sessions, *transcripts, dialect, None, event);
            Ok(())
        });
        if let Some(d) = dialect {
            self.files.insert(file.to_string(), d);
        }
    }

    /// Takes in what a worker collected from later inputs.
    pub fn merge(&mut self, later: SessionLog) {
        for (id, info) in later.sessions {
            match self.sessions.get_mut(&id) {
                Some(s) => s.merge(info),
                None => {
                    self.sessions.insert(id, info);
                }
            }
        }
        self.files.extend(later.files);
    }

    /// Takes what was collected, leaving the settings.
    pub fn take(&mut self) -> SessionLog {
        let fresh = self.fresh();
        std::mem::replace(self, fresh)
    }
}

fn take(
    sessions: &mut HashMap<String, SessionInfo>,
    transcripts: bool,
    dialect: Option<Dialect>,
    time: Option<Timestamp>,
    event: &Event<'_>,
) {
    let Some(id) = event.session else {
        return;
    };
    let info = match sessions.get_mut(id) {
        Some(s) => s,
        None => sessions.entry(id.to_string()).or_default(),
    };
    if let Some(t) = time {
        info.start = Some(info.start.map_or(t, |s| s.min(t)));
        info.end = Some(info.end.map_or(t, |e| e.max(t)));
    }
    if info.agent.is_none() {
        info.agent = dialect;
    }
    info.events += 1;
    if let Body::Result(o) = &event.body {
        info.ending = Some(Ending {
            success: o.success,
            is_error: o.is_error,
            subtype: o.subtype.map(str::to_string),
        });
    }
    if transcripts {
        write_event(&mut info.transcript, event);
    }
}

/// Text, cut: the first [`SHOWN_CHARS`] characters or [`SHOWN_LINES`] lines shown, the rest (up to [`KEPT_BYTES`]) behind a
/// `<details>`, anything beyond that left out with a note of where it is.
fn long_text(out: &mut String, text: &str, line: u64) {
    let by_chars = text
        .char_indices()
        .nth(SHOWN_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let by_lines = text
        .match_indices('\n')
        .nth(SHOWN_LINES - 1)
        .map_or(text.len(), |(i, _)| i + 1);
    let cut = by_chars.min(by_lines);
    out.push_str("<pre>");
    escape_into(out, &text[..cut]);
    out.push_str("</pre>");
    if cut < text.len() {
        let rest = &text[cut..];
        let mut keep = rest.len().min(KEPT_BYTES);
        while !rest.is_char_boundary(keep) {
            keep -= 1;
        }
        let _ = write!(
            out,
            "<details class=\"more\"><summary>{} more characters</summary><pre>",
            rest.chars().count()
        );
        escape_into(out, &rest[..keep]);
        out.push_str("</pre>");
        if keep < rest.len() {
            let _ = write!(
                out,
                "<p class=\"note\">{} more bytes left out: line {line} of the log.</p>",
                rest.len() - keep
            );
        }
        out.push_str("</details>");
    }
}

fn nested_text(n: &Nested<'_>) -> String {
    match n.as_str() {
        Some(s) => s.to_string(),
        None => n.to_compact_string(),
    }
}

/// The one argument that says what a tool call did (a command, a path, a pattern).
fn key_argument(input: &Nested<'_>) -> Option<String> {
    for key in [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ] {
        if let Some(s) = input.str_at(key) {
            return Some(s.to_string());
        }
    }
    input.strings_at("command").map(|v| v.join(" "))
}

fn count(n: Option<u64>) -> String {
    crate::sink::thousands(n.unwrap_or(0))
}

/// One event as HTML (see docs/REFERENCE.md, `report`).
fn write_event(out: &mut String, event: &Event<'_>) {
    let line = event.line;
    match &event.body {
        Body::Init { model, cwd, .. } => {
            out.push_str("<div class=\"ev sys\"><span class=\"who\">start</span> ");
            if let Some(m) = model {
                escape_into(out, m);
                out.push(' ');
            }
            if let Some(c) = cwd {
                out.push_str("in <code>");
                escape_into(out, c);
                out.push_str("</code>");
            }
            out.push_str("</div>");
        }
        Body::User { text, .. } => {
            out.push_str("<div class=\"ev user\"><span class=\"who\">user</span>");
            long_text(out, text.as_str(), line);
            out.push_str("</div>");
        }
        Body::Text { text, .. } => {
            out.push_str("<div class=\"ev asst\"><span class=\"who\">assistant</span>");
            long_text(out, text.as_str(), line);
            out.push_str("</div>");
        }
        Body::Thinking { text } => {
            let _ = write!(
                out,
                "<details class=\"ev think\"><summary>thinking ({} characters)</summary>",
                text.as_str().chars().count()
            );
            long_text(out, text.as_str(), line);
            out.push_str("</details>");
        }
        Body::ToolUse { name, input, .. } => {
            out.push_str("<details class=\"ev tool\"><summary><span class=\"who\">tool</span> <b>");
            escape_into(out, name.unwrap_or("(unnamed)"));
            out.push_str("</b>");
            if let Some(arg) = input.as_ref().and_then(key_argument) {
                out.push_str(" <code>");
                let short: String = arg.chars().take(160).collect();
                escape_into(out, &short);
                if short.len() < arg.len() {
                    out.push('…');
                }
                out.push_str("</code>");
            }
            out.push_str("</summary>");
            if let Some(i) = input {
                long_text(out, &i.to_compact_string(), line);
            }
            out.push_str("</details>");
        }
        Body::ToolResult {
            is_error, content, ..
        } => {
            out.push_str(if *is_error {
                "<div class=\"ev out err\"><span class=\"who\">error</span>"
            } else {
                "<div class=\"ev out\"><span class=\"who\">output</span>"
            });
            match content {
                Some(c) => long_text(out, &nested_text(c), line),
                None => out.push_str("<pre></pre>"),
            }
            out.push_str("</div>");
        }
        Body::Usage(u) => {
            out.push_str("<div class=\"ev usage\">");
            if let Some(m) = u.model {
                escape_into(out, m);
                out.push_str(": ");
            }
            let _ = write!(
                out,
                "{} in, {} out, {} cache read, {} cache write</div>",
                count(u.input),
                count(u.output),
                count(u.cache_read),
                count(u.cache_creation)
            );
        }
        Body::Result(o) => {
            let ok = o.success && !o.is_error;
            out.push_str(if ok {
                "<div class=\"ev end ok\"><span class=\"who\">result</span> "
            } else {
                "<div class=\"ev end err\"><span class=\"who\">result</span> "
            });
            escape_into(
                out,
                o.subtype.unwrap_or(if ok { "success" } else { "error" }),
            );
            if let Some(c) = o.cost_usd {
                let _ = write!(out, ", ${c:.4}");
            }
            if let Some(d) = o.duration_ms {
                let _ = write!(out, ", {:.1} s", d as f64 / 1000.0);
            }
            if let Some(t) = o.turns {
                let _ = write!(out, ", {t} turns");
            }
            if let Some(text) = &o.text {
                long_text(out, text, line);
            }
            out.push_str("</div>");
        }
        Body::System {
            subtype, message, ..
        } => {
            let err = *subtype == Some("error");
            out.push_str(if err {
                "<div class=\"ev sys err\"><span class=\"who\">"
            } else {
                "<div class=\"ev sys\"><span class=\"who\">"
            });
            escape_into(out, subtype.unwrap_or("system"));
            out.push_str("</span> ");
            if let Some(m) = message {
                let short: String = m.chars().take(400).collect();
                escape_into(out, &short);
            }
            out.push_str("</div>");
        }
        Body::Rpc {
            method,
            direction,
            error,
            ..
        } => {
            out.push_str(if error.is_some() {
                "<div class=\"ev sys err\"><span class=\"who\">"
            } else {
                "<div class=\"ev sys\"><span class=\"who\">"
            });
            out.push_str(direction.as_str());
            out.push_str("</span> ");
            escape_into(out, method.unwrap_or(""));
            out.push_str("</div>");
        }
        Body::Unknown { ty, .. } => {
            out.push_str("<div class=\"ev sys\"><span class=\"who\">record</span> ");
            escape_into(out, ty.unwrap_or("(no type)"));
            out.push_str("</div>");
        }
    }
    out.push('\n');
}
