//! Normalized events (docs/REFERENCE.md, "Normalized events"): the one shape every dialect's
//! records are mapped to, and the [`Normalizer`] that maps them, one record at a time.
//!
//! This module owns the engine, not the agents' meaning nor the output: each agent's module
//! maps its records (`src/dialect/<agent>/events.rs`, an [`EventReader`] made for each
//! input by the constructor the registry names), this module carries the session, holds
//! the usage and joined text an agent asks it to, and hands each [`Event`] to a callback;
//! `sink::events` writes it as json, csv or text. Events borrow from the record they come
//! from, so nothing is copied unless it has to be (joined text, a parsed argument string).
//! The normalizer's state is small and bounded: the session of the current input, a
//! [`Context`] (the one usage snapshot waiting for its message to end, the text being
//! joined) and the input's agent reader with what that agent keeps (the tool items started
//! and not yet completed, the requests not yet answered, ...).
//!
//! A generic record, one of an undecided dialect or of a type the dialect does not know,
//! and a JSON value that is not an object are `unknown`, with the whole record as `raw`.
//! Invalid and empty records produce no events.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::json::{write_str, Json, Kind};
use crate::pipeline::{Record, Status};
use std::any::Any;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::io::{self, Write};
use std::sync::Arc;

mod context;
mod normalizer;
mod reader;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use context::Context;
pub use normalizer::Normalizer;
pub use reader::Emit;
pub(crate) use reader::{EventReader, NewReader, Origin, Stateless};

/// JSON-RPC requests remembered while they wait for their response; beyond this many
/// (a peer that never answers), the oldest are forgotten all at once.
pub const MAX_PENDING_REQUESTS: usize = 10_000;

/// At most this many Codex items started and not completed (and Gemini log parts seen)
/// are remembered, as `gaps` caps its open items ([`crate::gaps::DEFAULT_CAP`]): a stream
/// of millions that never complete stays in bounded memory. The oldest half goes first;
/// an item forgotten that does complete later gets its `tool_use` again.
pub const MAX_OPEN_ITEMS: usize = 100_000;

/// A set of ids in bounded memory: two generations of at most [`MAX_OPEN_ITEMS`] / 2; when
/// the newer is full it becomes the older, and the older is dropped (the capped set of
/// `src/capped.rs`).
pub(crate) type CappedSet = crate::capped::IdSet<MAX_OPEN_ITEMS>;

/// One normalized event.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    /// 1-based line of the record the event comes from (for a deduplicated usage: the line
    /// of the snapshot it reports).
    pub line: u64,
    pub file: &'a str,
    pub session: Option<&'a str>,
    pub body: Body<'a>,
}

/// What an event says, by kind (the `kind` key of the output).
#[derive(Debug, Clone)]
pub enum Body<'a> {
    Init {
        model: Option<&'a str>,
        cwd: Option<&'a str>,
        tools: Option<Json<'a>>,
        permission_mode: Option<&'a str>,
    },
    User {
        uuid: Option<&'a str>,
        text: Text<'a>,
    },
    Text {
        uuid: Option<&'a str>,
        message_id: Option<&'a str>,
        text: Text<'a>,
    },
    Thinking {
        text: Text<'a>,
    },
    ToolUse {
        id: Option<&'a str>,
        name: Option<&'a str>,
        input: Option<Nested<'a>>,
    },
    ToolResult {
        tool_use_id: Option<&'a str>,
        is_error: bool,
        content: Option<Nested<'a>>,
    },
    Usage(Usage<'a>),
    Result(Outcome<'a>),
    System {
        subtype: Option<&'a str>,
        /// A short human-readable message, when the record has one.
        message: Option<&'a str>,
        /// The model a Codex `turn_context` switched to.
        model: Option<&'a str>,
    },
    Rpc {
        /// The request id, as JSON (a number or a string); absent for a notification.
        id: Option<Json<'a>>,
        method: Option<&'a str>,
        direction: Direction,
        error: Option<Json<'a>>,
    },
    Unknown {
        ty: Option<&'a str>,
        raw: Json<'a>,
    },
}

impl Body<'_> {
    /// The `kind` name of the event.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Init { .. } => "init",
            Body::User { .. } => "user",
            Body::Text { .. } => "text",
            Body::Thinking { .. } => "thinking",
            Body::ToolUse { .. } => "tool_use",
            Body::ToolResult { .. } => "tool_result",
            Body::Usage(_) => "usage",
            Body::Result(_) => "result",
            Body::System { .. } => "system",
            Body::Rpc { .. } => "rpc",
            Body::Unknown { .. } => "unknown",
        }
    }
}

/// Token counts of one API message (Claude) or one turn (Codex).
#[derive(Debug, Clone, Default)]
pub struct Usage<'a> {
    pub message_id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cache_creation: Option<u64>,
    pub cache_read: Option<u64>,
}

/// How a session or turn ended.
#[derive(Debug, Clone, Default)]
pub struct Outcome<'a> {
    pub success: bool,
    pub is_error: bool,
    pub subtype: Option<&'a str>,
    pub cost_usd: Option<f64>,
    pub duration_ms: Option<u64>,
    pub turns: Option<u64>,
    pub input: Option<u64>,
    pub output: Option<u64>,
    /// `input` and `output` are one turn's (Codex `turn.completed`), also given by the
    /// turn's usage event, rather than the session's billed totals (Claude's, Gemini's).
    pub per_turn: bool,
    /// The result text, or the error message of a failed turn.
    pub text: Option<Cow<'a, str>>,
}

/// The role of a JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Request,
    Response,
    Notification,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
            Direction::Notification => "notification",
        }
    }
}

/// The text of a `user`, `text` or `thinking` event: a string of the record, unescaped only
/// when read, so that JSON output can copy it as the record writes it (see
/// [`Json::write_compact`]) instead of unescaping it and escaping it again; or text made
/// here (joined chunks) or read already.
#[derive(Debug, Clone)]
pub struct Text<'a>(TextRepr<'a>);

#[derive(Debug, Clone)]
enum TextRepr<'a> {
    /// A string value of the record (never another kind of value).
    Json(Json<'a>),
    Str(Cow<'a, str>),
}

impl<'a> Text<'a> {
    /// The string `v` is; empty when there is no value or it is not a string.
    pub fn of(v: Option<Json<'a>>) -> Self {
        match v {
            Some(j) if j.kind() == Kind::String => Text(TextRepr::Json(j)),
            _ => Text::from(""),
        }
    }

    /// The text, unescaped.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            TextRepr::Json(j) => j.as_str().unwrap_or_default(),
            TextRepr::Str(s) => s,
        }
    }

    /// Writes the text as a JSON string, byte for byte as serde_json writes it.
    pub fn write_json<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        match &self.0 {
            TextRepr::Json(j) => j.write_compact(out),
            TextRepr::Str(s) => write_str(out, s),
        }
    }
}

impl<'a> From<&'a str> for Text<'a> {
    fn from(s: &'a str) -> Self {
        Text(TextRepr::Str(Cow::Borrowed(s)))
    }
}

impl From<String> for Text<'_> {
    fn from(s: String) -> Self {
        Text(TextRepr::Str(Cow::Owned(s)))
    }
}

/// A JSON value an event carries whole (a tool's input, a result's content).
#[derive(Debug, Clone)]
pub enum Nested<'a> {
    /// A part of the record, written as it is.
    Json(Json<'a>),
    /// A one-key object around a part of the record (`{"command": …}`).
    Wrapped(&'static str, Json<'a>),
    /// A value made here: joined text, or a Codex argument string parsed as JSON (its
    /// object keys come out sorted: serde_json's map).
    Owned(serde_json::Value),
    /// A string held as its JSON text between the quotes, already as serde_json writes
    /// it (a Codex output taken out of the document it came in): written as it is, and
    /// unescaped only when read as text.
    EscapedStr(&'a str, OnceCell<String>),
}

impl Nested<'_> {
    /// The value when it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Nested::Json(j) => j.as_str(),
            Nested::Wrapped(..) => None,
            Nested::Owned(v) => v.as_str(),
            Nested::EscapedStr(raw, text) => Some(text.get_or_init(|| {
                // `raw` is a string's JSON text as serde_json writes it: it reads back.
                serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_default()
            })),
        }
    }

    /// The string at `key` of an object value.
    pub fn str_at(&self, key: &str) -> Option<&str> {
        match self {
            Nested::Json(j) => j.str(key),
            Nested::Wrapped(k, v) if *k == key => v.as_str(),
            Nested::Wrapped(..) => None,
            Nested::Owned(v) => v.get(key).and_then(|v| v.as_str()),
            Nested::EscapedStr(..) => None,
        }
    }

    /// The strings of the array at `key` of an object value (a command as argv).
    pub fn strings_at(&self, key: &str) -> Option<Vec<&str>> {
        let mut out = Vec::new();
        let mut all = true;
        match self {
            Nested::Json(j) => j.get(key)?.for_each_element(|v| match v.as_str() {
                Some(s) => out.push(s),
                None => all = false,
            }),
            Nested::Wrapped(k, v) if *k == key => v.for_each_element(|v| match v.as_str() {
                Some(s) => out.push(s),
                None => all = false,
            }),
            Nested::Wrapped(..) | Nested::EscapedStr(..) => return None,
            Nested::Owned(v) => {
                for item in v.get(key)?.as_array()? {
                    match item.as_str() {
                        Some(s) => out.push(s),
                        None => all = false,
                    }
                }
            }
        }
        (all && !out.is_empty()).then_some(out)
    }

    /// The `path` (and `kind`) of each object in an array value (Codex file changes).
    pub fn changed_paths(&self) -> Vec<(Option<&str>, &str)> {
        let mut out = Vec::new();
        match self {
            Nested::Json(j) => j.for_each_element(|c| {
                if let Some(p) = c.str("path") {
                    out.push((c.str("kind"), p));
                }
            }),
            Nested::Owned(serde_json::Value::Array(items)) => {
                for c in items {
                    if let Some(p) = c.get("path").and_then(|v| v.as_str()) {
                        out.push((c.get("kind").and_then(|v| v.as_str()), p));
                    }
                }
            }
            Nested::Owned(_) | Nested::Wrapped(..) | Nested::EscapedStr(..) => {}
        }
        out
    }

    /// Writes the value as compact JSON.
    pub fn write_compact<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        match self {
            Nested::Json(j) => j.write_compact(out),
            Nested::Wrapped(key, v) => {
                out.write_all(b"{")?;
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b":")?;
                v.write_compact(out)?;
                out.write_all(b"}")
            }
            Nested::Owned(v) => serde_json::to_writer(&mut *out, v).map_err(io::Error::from),
            Nested::EscapedStr(raw, _) => {
                out.write_all(b"\"")?;
                out.write_all(raw.as_bytes())?;
                out.write_all(b"\"")
            }
        }
    }

    /// The value as compact JSON text.
    pub fn to_compact_string(&self) -> String {
        let mut buf = Vec::new();
        // Writing into a Vec cannot fail, and compact JSON is UTF-8.
        let _ = self.write_compact(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

// ---- Helpers the agents' readers share ----

/// `a + b` where either is known.
pub(crate) fn sum_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

/// A tool result's content (a Claude `tool_result` block's, an MCP result's): a string as
/// it is, a list of text blocks joined by newlines, anything else (images, mixed blocks)
/// as its JSON.
pub(crate) fn tool_content(c: Json<'_>) -> Nested<'_> {
    if c.kind() != Kind::Array {
        return Nested::Json(c);
    }
    let mut texts = Vec::new();
    let mut all_text = true;
    c.for_each_element(|b| match (b.str("type"), b.str("text")) {
        (Some("text"), Some(t)) => texts.push(t),
        _ => all_text = false,
    });
    if all_text {
        Nested::Owned(serde_json::Value::String(texts.join("\n")))
    } else {
        Nested::Json(c)
    }
}
