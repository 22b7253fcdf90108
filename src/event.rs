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

/// Receives the events of a record.
pub type Emit<'e> = dyn FnMut(&Event<'_>) -> io::Result<()> + 'e;

/// Where an event comes from: the record's place and its session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    pub(crate) line: u64,
    pub(crate) file: &'a Arc<str>,
    pub(crate) session: Option<&'a str>,
}

impl<'a> Origin<'a> {
    /// The event of `body`, at this record.
    pub(crate) fn event(&self, body: Body<'a>) -> Event<'a> {
        Event {
            line: self.line,
            file: self.file,
            session: self.session,
            body,
        }
    }
}

/// One agent's mapping of its records to events (each agent's `events` module; the
/// registry, [`crate::dialect::Dialect::events`], names the constructor of each dialect's).
/// A reader is a value made for one input, holding what the agent keeps between that
/// input's records (Codex's open items, a rollout's model, JSON-RPC's pending requests,
/// the Gemini log's entries seen), and dropped when the input ends; what the engine keeps
/// for every agent (held usage, joined text) is in the [`Context`] it is handed.
pub(crate) trait EventReader: ReaderState {
    /// Emits the events of one valid record of a type the dialect knows.
    fn map<'a>(
        &mut self,
        cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()>;

    /// Takes in what a record not mapped says of the records after it (their model), so
    /// that the events of those still know it; most agents need nothing.
    fn observe(&mut self, _cx: &mut Context, _ty: Option<&str>, _v: Json<'_>) {}
}

/// Makes a fresh reader for one input (an agent descriptor's `events`).
pub(crate) type NewReader = fn() -> Box<dyn EventReader>;

/// What batch mode asks of a reader's state: a copy of it, and whether two readers hold
/// the same (a block's guessed context is checked against the one it follows). Every
/// reader that is `Clone + PartialEq` has it.
pub(crate) trait ReaderState: std::fmt::Debug + Send {
    fn boxed_clone(&self) -> Box<dyn EventReader>;
    /// Whether `other` is a reader of the same type holding the same state.
    fn same_state(&self, other: &dyn EventReader) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T> ReaderState for T
where
    T: EventReader + Clone + PartialEq + std::fmt::Debug + Send + 'static,
{
    fn boxed_clone(&self) -> Box<dyn EventReader> {
        Box::new(self.clone())
    }

    fn same_state(&self, other: &dyn EventReader) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Clone for Box<dyn EventReader> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The events of a record as one function of it: most agents' readers, which keep
/// nothing between records beyond the [`Context`]
/// (`events: Some(|| Box::new(Stateless(events::map)))`).
pub(crate) type MapFn = fn(&mut Context, Origin<'_>, Json<'_>, &mut Emit<'_>) -> io::Result<()>;

/// The reader of an agent whose events are a [`MapFn`]: it holds no state, so any two
/// are alike.
#[derive(Clone, Copy)]
pub(crate) struct Stateless(pub(crate) MapFn);

impl std::fmt::Debug for Stateless {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stateless")
    }
}

impl PartialEq for Stateless {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl EventReader for Stateless {
    fn map<'a>(
        &mut self,
        cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        (self.0)(cx, o, v, emit)
    }
}

/// A usage snapshot waiting for the end of its message.
#[derive(Debug, Clone, PartialEq)]
struct PendingUsage {
    file: Arc<str>,
    line: u64,
    session: Option<String>,
    message_id: String,
    model: Option<String>,
    input: Option<u64>,
    output: Option<u64>,
    cache_creation: Option<u64>,
    cache_read: Option<u64>,
}

/// Text arriving in chunks (Gemini's assistant deltas, Cursor's thinking), joined into one
/// event per turn.
#[derive(Debug, Clone, PartialEq)]
struct PendingText {
    file: Arc<str>,
    line: u64,
    session: Option<String>,
    thinking: bool,
    text: String,
}

/// What the engine remembers between one input's records, for every agent: the held
/// usage and joined text (emitted here, at the end of a message, a turn or the input).
/// What an agent keeps is in its own reader ([`EventReader`]). All of it is bounded, and
/// forgotten when the input ends.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Context {
    /// The usage snapshot of the message being read (Claude-shaped messages).
    pending: Option<PendingUsage>,
    /// Text being joined from its chunks.
    pending_text: Option<PendingText>,
}

impl Context {
    /// Whether a usage snapshot of a message other than `id` is held.
    pub(crate) fn holds_usage_other_than(&self, id: Option<&str>) -> bool {
        self.pending
            .as_ref()
            .is_some_and(|p| Some(p.message_id.as_str()) != id)
    }

    /// Holds `usage`, the latest snapshot of message `id`, until the message ends: the
    /// last snapshot of a message wins.
    pub(crate) fn hold_usage(&mut self, o: Origin<'_>, id: &str, usage: &Usage<'_>) {
        self.pending = Some(PendingUsage {
            file: o.file.clone(),
            line: o.line,
            session: o.session.map(str::to_string),
            message_id: id.to_string(),
            model: usage.model.map(str::to_string),
            input: usage.input,
            output: usage.output,
            cache_creation: usage.cache_creation,
            cache_read: usage.cache_read,
        });
    }

    /// Emits the held usage snapshot, if any.
    pub(crate) fn flush_usage(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        emit(&Event {
            line: p.line,
            file: &p.file,
            session: p.session.as_deref(),
            body: Body::Usage(Usage {
                message_id: Some(&p.message_id),
                model: p.model.as_deref(),
                input: p.input,
                output: p.output,
                cache_creation: p.cache_creation,
                cache_read: p.cache_read,
            }),
        })
    }

    /// Emits the text being joined, if any.
    pub(crate) fn flush_text(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(p) = self.pending_text.take() else {
            return Ok(());
        };
        let body = if p.thinking {
            Body::Thinking {
                text: Text::from(p.text),
            }
        } else {
            Body::Text {
                uuid: None,
                message_id: None,
                text: Text::from(p.text),
            }
        };
        emit(&Event {
            line: p.line,
            file: &p.file,
            session: p.session.as_deref(),
            body,
        })
    }

    /// Adds a chunk to the text being joined (a chunk of the other kind ends it first); the
    /// joined event is at the line of its first chunk.
    pub(crate) fn push_text(
        &mut self,
        o: Origin<'_>,
        thinking: bool,
        chunk: &str,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        if self
            .pending_text
            .as_ref()
            .is_some_and(|p| p.thinking != thinking)
        {
            self.flush_text(emit)?;
        }
        match &mut self.pending_text {
            Some(p) => p.text.push_str(chunk),
            None => {
                self.pending_text = Some(PendingText {
                    file: o.file.clone(),
                    line: o.line,
                    session: o.session.map(str::to_string),
                    thinking,
                    text: chunk.to_string(),
                })
            }
        }
        Ok(())
    }
}

/// Maps records to events. Feed it the records of each input in order, then call
/// [`Normalizer::end_input`].
///
/// Two normalizers that compare equal emit the same events for the same records: batch
/// mode relies on it to check a block's guessed context (`Clone`, `PartialEq`).
#[derive(Debug, Default, Clone)]
pub struct Normalizer {
    /// The session of the current input, carried to records that do not name it.
    session: Option<String>,
    /// What the engine remembers between the input's records.
    cx: Context,
    /// The reader of the input's agent, made at its first record of that dialect (an
    /// input's dialect changes at most from Claude's stream to an agent of its shape) and
    /// dropped when the input ends, with what it keeps.
    reader: Option<(Dialect, Box<dyn EventReader>)>,
}

impl PartialEq for Normalizer {
    /// A reader that holds what a fresh one holds is as good as none.
    fn eq(&self, other: &Self) -> bool {
        fn kept(
            r: &Option<(Dialect, Box<dyn EventReader>)>,
        ) -> Option<&(Dialect, Box<dyn EventReader>)> {
            r.as_ref().filter(|(d, r)| {
                !d.events()
                    .is_some_and(|fresh| r.same_state(fresh().as_ref()))
            })
        }
        self.session == other.session
            && self.cx == other.cx
            && match (kept(&self.reader), kept(&other.reader)) {
                (None, None) => true,
                (Some((d, r)), Some((e, q))) => d == e && r.same_state(q.as_ref()),
                _ => false,
            }
    }
}

/// The reader of `dialect` for the input being read: the one held, or a fresh one when
/// the input's dialect is new (`None` for a dialect whose records are all `unknown`).
fn reader_for(
    held: &mut Option<(Dialect, Box<dyn EventReader>)>,
    dialect: Option<Dialect>,
) -> Option<&mut (dyn EventReader + 'static)> {
    let d = dialect?;
    if held.as_ref().is_none_or(|(h, _)| *h != d) {
        *held = d.events().map(|new| (d, new()));
    }
    held.as_mut().map(|(_, r)| r.as_mut())
}

impl Normalizer {
    pub fn new() -> Self {
        Normalizer::default()
    }

    /// Emits the events of one record.
    pub fn record(&mut self, record: &Record<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if record.status != Status::Valid {
            return Ok(());
        }
        let Some(value) = record.value else {
            return Ok(());
        };
        let carried = self.take_session(record.info.dialect, value);
        let result = self.map(record, value, carried.as_deref(), emit);
        self.session = carried;
        result
    }

    /// Takes in the context of a record without emitting anything (`filter --normalize`
    /// passes the records it does not select here, so the events of those it selects still
    /// know their session and model).
    pub fn observe(&mut self, record: &Record<'_>) {
        if let (Status::Valid, Some(value)) = (record.status, record.value) {
            self.session = self.take_session(record.info.dialect, value);
            if let Some(reader) = reader_for(&mut self.reader, record.info.dialect) {
                reader.observe(&mut self.cx, record.info.ty, value);
            }
        }
    }

    /// The input ended: emits the usage and text still held and forgets the input's
    /// context.
    pub fn end_input(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let cx = &mut self.cx;
        let result = cx.flush_text(emit).and(cx.flush_usage(emit));
        self.session = None;
        self.reader = None;
        result
    }

    /// The carried session, updated from a record that names its own (allocating only when
    /// the session changes).
    fn take_session(&mut self, dialect: Option<Dialect>, value: Json<'_>) -> Option<String> {
        let carried = self.session.take();
        // Sessions of JSON-RPC and generic inputs are read per record, never carried.
        let d = dialect.filter(|d| d.carries_session())?;
        let own = d.named_session(value);
        match own {
            Some(s) if carried.as_deref() != Some(s) => Some(s.to_string()),
            _ => carried,
        }
    }

    fn map(
        &mut self,
        record: &Record<'_>,
        value: Json<'_>,
        carried: Option<&str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let mut origin = Origin {
            line: record.line,
            file: record.file,
            session: carried,
        };
        let known = value.is_object() && !record.has_code(Code::UnknownType);
        let reader = match known {
            true => reader_for(&mut self.reader, record.info.dialect),
            false => None,
        };
        match reader {
            Some(reader) => reader.map(&mut self.cx, origin, value, emit),
            // Generic, an undecided dialect, a type the dialect does not know, or a value
            // that is not an object: shown whole.
            _ => {
                if origin.session.is_none() {
                    origin.session = ["session_id", "sessionId", "thread_id"]
                        .iter()
                        .find_map(|k| value.str(k));
                }
                emit(&origin.event(Body::Unknown {
                    ty: record.info.ty,
                    raw: value,
                }))
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Consumer, Flow, Options, Pipeline};

    /// An event's text reads as the string it comes from, and is written as serde_json
    /// writes that string, whether copied from the record or escaped again.
    #[test]
    fn texts_read_and_write_as_their_strings() {
        let src = r#"{"a":"x\ny \"q\"","b":"\u00e9\/","c":3,"d":"plain"}"#;
        let mut doc = crate::tape::Doc::new();
        assert!(doc.parse(src, 8));
        let v = Json::Tape(crate::json::TapeValue::root(&doc, src));
        let cases = [
            ("a", "x\ny \"q\""),
            ("b", "é/"),
            ("c", ""),
            ("missing", ""),
            ("d", "plain"),
        ];
        let texts = cases.map(|(key, want)| (Text::of(v.get(key)), want));
        let owned = [
            (Text::from(String::from("a\u{1}b")), "a\u{1}b"),
            (Text::from("\t"), "\t"),
        ];
        for (text, want) in texts.into_iter().chain(owned) {
            assert_eq!(text.as_str(), want);
            let mut out = Vec::new();
            text.write_json(&mut out).expect("writes to a Vec");
            assert_eq!(out, serde_json::to_vec(want).expect("serde_json writes"));
        }
    }

    /// The events of `input` (read as one input) as compact JSON lines of
    /// `kind:field=value` summaries, for short assertions.
    fn events(input: &str, dialect: Option<Dialect>) -> Vec<String> {
        struct Collect {
            n: Normalizer,
            out: Vec<String>,
        }
        fn show(e: &Event<'_>) -> String {
            let mut s = format!("{}@{}", e.body.kind(), e.line);
            if let Some(session) = e.session {
                s.push_str(&format!(" s={session}"));
            }
            match &e.body {
                Body::Usage(u) => s.push_str(&format!(
                    " id={:?} in={:?} out={:?}",
                    u.message_id, u.input, u.output
                )),
                Body::ToolUse { id, name, input } => s.push_str(&format!(
                    " id={id:?} name={name:?} input={}",
                    input
                        .as_ref()
                        .map(Nested::to_compact_string)
                        .unwrap_or_default()
                )),
                Body::ToolResult {
                    tool_use_id,
                    is_error,
                    content,
                } => s.push_str(&format!(
                    " id={tool_use_id:?} err={is_error} content={}",
                    content
                        .as_ref()
                        .map(Nested::to_compact_string)
                        .unwrap_or_default()
                )),
                Body::Result(r) => s.push_str(&format!(
                    " ok={} err={} text={:?}",
                    r.success, r.is_error, r.text
                )),
                Body::Rpc {
                    method, direction, ..
                } => s.push_str(&format!(" {} {method:?}", direction.as_str())),
                Body::Text { text, .. } | Body::User { text, .. } => {
                    s.push_str(&format!(" {:?}", text.as_str()))
                }
                _ => {}
            }
            s
        }
        impl Consumer for Collect {
            fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
                let out = &mut self.out;
                self.n.record(record, &mut |e| {
                    out.push(show(e));
                    Ok(())
                })?;
                Ok(Flow::Continue)
            }
            fn end_input(&mut self, _: &Arc<str>, _: Option<Dialect>) -> io::Result<()> {
                let out = &mut self.out;
                self.n.end_input(&mut |e| {
                    out.push(show(e));
                    Ok(())
                })
            }
        }
        let mut c = Collect {
            n: Normalizer::new(),
            out: Vec::new(),
        };
        let mut p = Pipeline::new(Options {
            dialect,
            ..Options::default()
        });
        let name: Arc<str> = Arc::from("t");
        p.run(&name, input.as_bytes(), &mut c)
            .expect("in-memory run");
        c.out
    }

    #[test]
    fn claude_usage_is_held_until_the_message_ends_and_keeps_the_last_snapshot() {
        let input = concat!(
            r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5,"output_tokens":9}}}"#,
            "\n",
            r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m2","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":7,"output_tokens":2}}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m3","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":8,"output_tokens":3}}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                r#"text@1 s=s "a""#,
                r#"tool_use@2 s=s id=Some("t1") name=Some("Bash") input={"command":"ls"}"#,
                r#"tool_result@3 s=s id=Some("t1") err=false content="x\ny""#,
                r#"usage@2 s=s id=Some("m1") in=Some(5) out=Some(9)"#,
                r#"text@4 s=s "b""#,
                r#"usage@4 s=s id=Some("m2") in=Some(7) out=Some(2)"#,
                r#"text@5 s=s "c""#,
                r#"usage@5 s=s id=Some("m3") in=Some(8) out=Some(3)"#,
            ]
        );
    }

    #[test]
    fn claude_error_results_are_never_trusted_by_subtype() {
        let input = concat!(
            r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s","result":"API Error: 500"}"#,
            "\n",
            r#"{"type":"result","subtype":"error_max_turns","session_id":"s","errors":["too many","turns"]}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                r#"result@1 s=s ok=false err=true text=Some("API Error: 500")"#,
                r#"result@2 s=s ok=false err=true text=Some("too many; turns")"#,
            ]
        );
    }

    #[test]
    fn codex_tools_are_used_once_per_item_and_sessions_carry() {
        let input = concat!(
            r#"{"type":"thread.started","thread_id":"th"}"#,
            "\n",
            r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"ls","status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"x","exit_code":2,"status":"failed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"s","tool":"search","arguments":{"q":1},"result":{"content":[{"type":"text","text":"r"}]},"error":null,"status":"completed"}}"#,
            "\n",
            r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                "init@1 s=th",
                r#"tool_use@2 s=th id=Some("item_1") name=Some("command_execution") input={"command":"ls"}"#,
                r#"tool_result@3 s=th id=Some("item_1") err=true content="x""#,
                r#"tool_use@4 s=th id=Some("item_2") name=Some("search") input={"q":1}"#,
                r#"tool_result@4 s=th id=Some("item_2") err=false content="r""#,
                r#"result@5 s=th ok=false err=true text=Some("boom")"#,
            ]
        );
    }

    #[test]
    fn codex_log_function_outputs_report_failures() {
        let input = concat!(
            r#"{"type":"session_meta","payload":{"id":"sid","cwd":"/w"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"no such file\",\"metadata\":{\"exit_code\":1}}"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Process exited with code 0\nOutput:\nok"}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                "init@1 s=sid",
                r#"tool_use@2 s=sid id=Some("c1") name=Some("shell") input={"command":["ls"]}"#,
                r#"tool_result@3 s=sid id=Some("c1") err=true content="no such file""#,
                r#"tool_result@4 s=sid id=Some("c2") err=false content="Process exited with code 0\nOutput:\nok""#,
            ]
        );
    }

    #[test]
    fn rpc_responses_take_the_method_of_their_request() {
        let input = concat!(
            r#"{"id":0,"method":"initialize","params":{}}"#,
            "\n",
            r#"{"method":"thread/started","params":{"threadId":"t"}}"#,
            "\n",
            r#"{"id":0,"result":{}}"#,
            "\n",
            r#"{"id":"x","error":{"code":-1,"message":"no"}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                r#"rpc@1 request Some("initialize")"#,
                r#"rpc@2 s=t notification Some("thread/started")"#,
                r#"rpc@3 response Some("initialize")"#,
                "rpc@4 response None",
            ]
        );
    }

    #[test]
    fn unknown_types_non_objects_and_generic_records_are_unknown() {
        let input = concat!(
            r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#,
            "\n",
            r#"{"type":"heartbeat","session_id":"s"}"#,
            "\n",
            "[1,2]\n",
            "not json\n",
        );
        assert_eq!(
            events(input, None),
            ["init@1 s=s", "unknown@2 s=s", "unknown@3 s=s"]
        );
        assert_eq!(
            events("{\"kind\":1}\n", Dialect::parse("generic")),
            ["unknown@1"]
        );
    }
}

#[cfg(test)]
mod capped_tests {
    use super::{CappedSet, MAX_OPEN_ITEMS};

    /// Millions of Codex items started and never completed are held in
    /// bounded memory (as `gaps` caps its open items), the oldest forgotten first.
    #[test]
    fn open_codex_items_are_capped() {
        let mut set = CappedSet::default();
        for i in 0..(3 * MAX_OPEN_ITEMS) {
            assert!(set.insert(&format!("item_{i}")));
            assert!(set.len() <= MAX_OPEN_ITEMS);
        }
        // The newest are kept, the oldest gone.
        assert!(!set.insert(&format!("item_{}", 3 * MAX_OPEN_ITEMS - 1)));
        assert!(set.insert("item_0"));
        assert!(set.remove("item_0"));
        assert!(!set.remove("item_0"));
    }
}
