//! Normalized events (docs/REFERENCE.md, "Normalized events"): the one shape every dialect's
//! records are mapped to, and the [`Normalizer`] that maps them, one record at a time.
//!
//! This module owns the mapping, not the output: it hands each [`Event`] to a callback and
//! `sink::events` writes it as json, csv or text. Events borrow from the record they come
//! from, so nothing is copied unless it has to be (joined text, a parsed argument string).
//! The normalizer's state is small and bounded: the session of the current input, the one
//! usage snapshot waiting for its message to end, the Codex tool items started and not yet
//! completed, and the JSON-RPC requests not yet answered.
//!
//! How each dialect maps, where the event table leaves a choice:
//!
//! - **claude / claude-log**: one event per content block. `system/init` is `init`; every
//!   other `system` record is `system` with its subtype and a `message` (the first string of
//!   `content`, `summary`, `message`, `error`, `status`, `operation`). Other known types
//!   (`rate_limit_event`, `control_request`, and the transcript's `summary`,
//!   `file-history-snapshot`, `queue-operation`, `attachment`, ...) are `system` with the
//!   type as subtype. `stream_event` (partial deltas: the complete block follows on its
//!   `assistant` line), `keep_alive` and the transcript's `progress` lines (hook and bash
//!   progress, up to 70% of a transcript) produce nothing. Usage is deduplicated per
//!   message id: the last snapshot is held and emitted when the message id changes, at a
//!   `result` record, or at the end of the input; a usage without a message id is emitted
//!   on its own line. A `result` also carries the result `text` (or the joined `errors`).
//! - **codex** (`codex exec --json`): `thread.started` is `init` (the thread id is the
//!   session, carried to the records after it). A tool item (command_execution,
//!   mcp_tool_call, file_change, web_search) is one `tool_use` (at `item.started`, or at
//!   `item.completed` when no start was seen) and one `tool_result` at `item.completed`.
//!   `agent_message` is `text` (its item id as `message_id`), `reasoning` is `thinking`,
//!   an `error` item or a top-level `error` line (a retry notice) is `system`/`error` with a
//!   `message`, other item types are `system` with the item type as subtype.
//!   `turn.completed` gives a `usage` and a `result`; `turn.failed` a failed `result` whose
//!   `text` is the error message.
//! - **codex-log** (rollouts): `session_meta` is `init`; the conversation is read from
//!   `response_item` records only (`message` of role user or assistant, `reasoning`,
//!   `function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call` and their
//!   outputs), because the `event_msg` copies (`user_message`, `agent_message`,
//!   `agent_reasoning`, `item_completed`) repeat them; developer messages are skipped.
//!   `event_msg/token_count` is `usage` (from `info.last_token_usage`, with the model of
//!   the latest `turn_context`); `task_complete` is a successful `result`, `turn_aborted`
//!   an unsuccessful one (subtype `aborted`, the reason as `text`); `error` and
//!   `stream_error` are `system`/`error`. A `turn_context` naming a model different from the
//!   one before is `system`/`turn_context` with that `model`. A function call's output is an
//!   error when it reports a non-zero exit code (`metadata.exit_code`, or a `Process exited
//!   with code N` / `Exit code: N` line) or a sandbox failure; the old JSON-wrapped output
//!   `{"output":…,"metadata":…}` is unwrapped to its `output`.
//! - **jsonrpc**: one `rpc` event per message; a response takes the `method` of the request
//!   it answers (requests waiting for an answer are remembered, at most
//!   [`MAX_PENDING_REQUESTS`]); the session is the thread the message names
//!   (`params.threadId`, `params.thread.id`, `result.thread.id`, or the legacy
//!   `params.conversationId`).
//! - **gemini**: assistant `delta` chunks are joined into one `text` per turn (held, and
//!   emitted at the next other record or the end of the input, at the line of the first
//!   chunk); `tool_result` is an error when its status says so or its output reports a
//!   non-zero exit code (Gemini says `success` for a failed command); `result` gives one
//!   `usage` per model of `stats.models` and a `result`. The `-o json` document gives its
//!   `response` as text, its models' usage and a result. **gemini-log**: a message
//!   written again whole (same `id`) is mapped once, its tool calls once each.
//! - **qwen** maps as claude (usage and result `input` without its cached part);
//!   **qwen-log** maps its Gemini-style parts (text, thought, functionCall,
//!   functionResponse). **cursor** maps as claude plus `tool_call` started/completed and
//!   joined `thinking` deltas.
//!   **opencode**: text, reasoning, a tool part (tool_use, and its result once completed),
//!   `step_finish` usage and, with reason `stop`, a result; `error` a failed result.
//!   **copilot**: messages, tool requests and executions, its `result` (see
//!   docs/REFERENCE.md, "Events of the other agents", for the full table).
//! - **generic**, an undecided dialect, a type the dialect does not know, or a JSON value
//!   that is not an object: `unknown` with the whole record as `raw`.
//!
//! Invalid and empty records produce no events.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::json::{write_str, Json, Kind};
use crate::pipeline::{Record, Status};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
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
/// the newer is full it becomes the older, and the older is dropped. Which ids are kept
/// depends only on the order they came in (the same on every `-j`).
#[derive(Debug, Default, Clone, PartialEq)]
struct CappedSet {
    newer: HashSet<String>,
    older: HashSet<String>,
}

impl CappedSet {
    /// Adds `id`; false when it is already there.
    fn insert(&mut self, id: &str) -> bool {
        if self.newer.contains(id) || self.older.contains(id) {
            return false;
        }
        if self.newer.len() >= MAX_OPEN_ITEMS / 2 {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(id.to_string())
    }

    fn remove(&mut self, id: &str) -> bool {
        self.newer.remove(id) || self.older.remove(id)
    }

    fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
    }
}

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
}

impl Nested<'_> {
    /// The value when it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Nested::Json(j) => j.as_str(),
            Nested::Wrapped(..) => None,
            Nested::Owned(v) => v.as_str(),
        }
    }

    /// The string at `key` of an object value.
    pub fn str_at(&self, key: &str) -> Option<&str> {
        match self {
            Nested::Json(j) => j.get(key).and_then(|v| v.as_str()),
            Nested::Wrapped(k, v) if *k == key => v.as_str(),
            Nested::Wrapped(..) => None,
            Nested::Owned(v) => v.get(key).and_then(|v| v.as_str()),
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
            Nested::Wrapped(..) => return None,
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
                if let Some(p) = c.get("path").and_then(|p| p.as_str()) {
                    out.push((c.get("kind").and_then(|k| k.as_str()), p));
                }
            }),
            Nested::Owned(serde_json::Value::Array(items)) => {
                for c in items {
                    if let Some(p) = c.get("path").and_then(|p| p.as_str()) {
                        out.push((c.get("kind").and_then(|k| k.as_str()), p));
                    }
                }
            }
            Nested::Owned(_) | Nested::Wrapped(..) => {}
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

/// A Claude usage snapshot waiting for the end of its message.
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

/// Where an event comes from: the record's place and its session.
#[derive(Debug, Clone, Copy)]
struct Origin<'a> {
    line: u64,
    file: &'a str,
    session: Option<&'a str>,
}

impl<'a> Origin<'a> {
    fn event(&self, body: Body<'a>) -> Event<'a> {
        Event {
            line: self.line,
            file: self.file,
            session: self.session,
            body,
        }
    }
}

/// Maps records to events. Feed it the records of each input in order, then call
/// [`Normalizer::end_input`].
///
/// Two normalizers that compare equal emit the same events for the same records: batch
/// mode relies on it to check a block's guessed context (`Clone`, `PartialEq`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Normalizer {
    /// The session of the current input, carried to records that do not name it.
    session: Option<String>,
    /// The Claude usage snapshot of the message being read.
    pending: Option<PendingUsage>,
    /// Codex tool items whose `tool_use` was emitted and whose completion has not come.
    open_items: CappedSet,
    /// The model of the latest Codex `turn_context`.
    model: Option<String>,
    /// JSON-RPC requests waiting for a response: id (compact JSON) → method.
    requests: HashMap<String, String>,
    /// Gemini assistant text (or Cursor thinking) being joined from its chunks.
    pending_text: Option<PendingText>,
    /// The record's `usage.input_tokens` includes its cached part (Qwen Code, OpenAI's
    /// `prompt_tokens`): the cached part is taken out so `input` means the same everywhere.
    input_includes_cache: bool,
    /// A tool result's text tells a failed command (Qwen Code, Cursor).
    result_text_tells: bool,
    /// Gemini log messages and tool calls already mapped (a message is written again
    /// whole when it changes).
    seen: CappedSet,
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
            if record.info.dialect == Some(Dialect::CodexLog)
                && record.info.ty == Some("turn_context")
            {
                if let Some(m) = value.path(&["payload", "model"]).and_then(|m| m.as_str()) {
                    if self.model.as_deref() != Some(m) {
                        self.model = Some(m.to_string());
                    }
                }
            }
        }
    }

    /// The input ended: emits the usage still held and forgets the input's context.
    pub fn end_input(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let result = self.flush_text(emit).and(self.flush_usage(emit));
        self.seen.clear();
        self.session = None;
        self.open_items.clear();
        self.model = None;
        self.requests.clear();
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
        let dialect = record.info.dialect;
        self.input_includes_cache = dialect.is_some_and(Dialect::input_includes_cache);
        self.result_text_tells = dialect.is_some_and(Dialect::result_text_tells_failure);
        let known = value.is_object() && !record.has_code(Code::UnknownType);
        match dialect {
            Some(d) if known && d.reads_as_claude_messages() => {
                self.claude(origin, value, record.file, emit)
            }
            Some(Dialect::Gemini) if known => self.gemini(origin, value, record.file, emit),
            Some(Dialect::GeminiLog) if known => self.gemini_log(origin, value, emit),
            Some(Dialect::QwenLog) if known => self.qwen_log(origin, value, emit),
            Some(Dialect::Cursor) if known => self.cursor(origin, value, record.file, emit),
            Some(Dialect::OpenCode) if known => self.opencode(origin, value, emit),
            Some(Dialect::Copilot) if known => self.copilot(origin, value, emit),
            Some(Dialect::Codex) if known => self.codex(origin, value, emit),
            Some(Dialect::CodexLog) if known => self.codex_log(origin, value, emit),
            Some(Dialect::JsonRpc) if known => self.rpc(origin, value, emit),
            _ => {
                if origin.session.is_none() {
                    origin.session = ["session_id", "sessionId", "thread_id"]
                        .iter()
                        .find_map(|k| value.get(k).and_then(|s| s.as_str()));
                }
                emit(&origin.event(Body::Unknown {
                    ty: record.info.ty,
                    raw: value,
                }))
            }
        }
    }

    /// Emits the held usage snapshot, if any.
    fn flush_usage(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
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

    // ---- Claude stream-json and transcripts ----

    fn claude(
        &mut self,
        o: Origin<'_>,
        v: Json<'_>,
        file: &Arc<str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        match str_of(v, "type").unwrap_or_default() {
            "assistant" => self.claude_assistant(o, v, file, emit),
            "user" => claude_user(o, v, self.result_text_tells, emit),
            "result" => {
                self.flush_usage(emit)?;
                let mut outcome = claude_result(v);
                if self.input_includes_cache {
                    // The billed totals, in the usage events' meaning (docs/REFERENCE.md,
                    // "Normalized events": `input` is the input not read from cache).
                    let cached = uint(v.path(&["usage", "cache_read_input_tokens"]));
                    outcome.input = outcome.input.map(|i| i.saturating_sub(cached.unwrap_or(0)));
                }
                emit(&o.event(Body::Result(outcome)))
            }
            "system" if str_of(v, "subtype") == Some("init") => emit(&o.event(Body::Init {
                model: str_of(v, "model"),
                cwd: str_of(v, "cwd"),
                tools: v.get("tools").filter(|t| t.kind() != Kind::Null),
                permission_mode:
                    str_of(v, "permissionMode").or_else(|| str_of(v, "permission_mode")),
            })),
            "system" => emit(&o.event(Body::System {
                subtype: str_of(v, "subtype"),
                message: system_message(v),
                model: None,
            })),
            "stream_event" | "keep_alive" | "progress" => Ok(()),
            other => emit(&o.event(Body::System {
                subtype: Some(other),
                message: system_message(v),
                model: None,
            })),
        }
    }

    fn claude_assistant(
        &mut self,
        o: Origin<'_>,
        v: Json<'_>,
        file: &Arc<str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(message) = v.get("message") else {
            return Ok(());
        };
        let id = str_of(message, "id");
        if self
            .pending
            .as_ref()
            .is_some_and(|p| Some(p.message_id.as_str()) != id)
        {
            self.flush_usage(emit)?;
        }
        let uuid = str_of(v, "uuid");
        let mut result = Ok(());
        if let Some(content) = message.get("content") {
            content.for_each_element(|block| {
                if result.is_ok() {
                    if let Some(body) = claude_block(block, uuid, id) {
                        result = emit(&o.event(body));
                    }
                }
            });
        }
        result?;
        let Some(usage) = message.get("usage").filter(Json::is_object) else {
            return Ok(());
        };
        let model = str_of(message, "model");
        let cache_read = uint(usage.get("cache_read_input_tokens"));
        let mut input = uint(usage.get("input_tokens"));
        if self.input_includes_cache {
            input = input.map(|i| i.saturating_sub(cache_read.unwrap_or(0)));
        }
        let counts = Usage {
            message_id: id,
            model,
            input,
            output: uint(usage.get("output_tokens")),
            cache_creation: uint(usage.get("cache_creation_input_tokens")),
            cache_read,
        };
        match id {
            // The last snapshot of a message wins: held until the message ends.
            Some(id) => {
                self.pending = Some(PendingUsage {
                    file: file.clone(),
                    line: o.line,
                    session: o.session.map(str::to_string),
                    message_id: id.to_string(),
                    model: model.map(str::to_string),
                    input: counts.input,
                    output: counts.output,
                    cache_creation: counts.cache_creation,
                    cache_read: counts.cache_read,
                });
                Ok(())
            }
            None => emit(&o.event(Body::Usage(counts))),
        }
    }

    // ---- codex exec --json ----

    fn codex(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        match str_of(v, "type").unwrap_or_default() {
            "thread.started" => {
                // Item ids restart with every process, and so with every thread.started.
                self.open_items.clear();
                emit(&o.event(Body::Init {
                    model: None,
                    cwd: None,
                    tools: None,
                    permission_mode: None,
                }))
            }
            "item.started" => {
                let Some(item) = v.get("item") else {
                    return Ok(());
                };
                let Some((name, input)) = codex_tool(item) else {
                    return Ok(());
                };
                let id = str_of(item, "id");
                if let Some(id) = id {
                    if !self.open_items.insert(id) {
                        return Ok(());
                    }
                }
                emit(&o.event(Body::ToolUse { id, name, input }))
            }
            "item.completed" => match v.get("item") {
                Some(item) => self.codex_item_completed(o, item, emit),
                None => Ok(()),
            },
            "turn.completed" => {
                let usage = v.get("usage");
                let at = |k: &str| uint(usage.and_then(|u| u.get(k)));
                emit(&o.event(Body::Usage(Usage {
                    message_id: None,
                    model: None,
                    input: codex_input(at),
                    output: at("output_tokens"),
                    cache_creation: at("cache_write_input_tokens"),
                    cache_read: at("cached_input_tokens"),
                })))?;
                emit(&o.event(Body::Result(Outcome {
                    success: true,
                    input: codex_input(at),
                    output: at("output_tokens"),
                    per_turn: true,
                    ..Outcome::default()
                })))
            }
            "turn.failed" => emit(
                &o.event(Body::Result(Outcome {
                    success: false,
                    is_error: true,
                    text: v
                        .path(&["error", "message"])
                        .and_then(|m| m.as_str())
                        .map(Cow::Borrowed),
                    ..Outcome::default()
                })),
            ),
            "error" => emit(&o.event(Body::System {
                subtype: Some("error"),
                message: str_of(v, "message"),
                model: None,
            })),
            _ => Ok(()),
        }
    }

    fn codex_item_completed(
        &mut self,
        o: Origin<'_>,
        item: Json<'_>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let id = str_of(item, "id");
        let ty = str_of(item, "type").unwrap_or_default();
        if let Some((name, input)) = codex_tool(item) {
            let started = id.is_some_and(|id| self.open_items.remove(id));
            if !started {
                emit(&o.event(Body::ToolUse { id, name, input }))?;
            }
            let failed = crate::dialect::codex_item_failed(item);
            let content = match ty {
                "command_execution" => item.get("aggregated_output").map(Nested::Json),
                "mcp_tool_call" => match item.get("error").filter(|e| e.kind() != Kind::Null) {
                    Some(e) => Some(Nested::Json(e.get("message").unwrap_or(e))),
                    None => item
                        .get("result")
                        .filter(|r| r.kind() != Kind::Null)
                        .map(|r| match r.get("content") {
                            Some(c) => tool_content(c),
                            None => Nested::Json(r),
                        }),
                },
                _ => None,
            };
            return emit(&o.event(Body::ToolResult {
                tool_use_id: id,
                is_error: failed,
                content,
            }));
        }
        let body = match ty {
            "agent_message" => Body::Text {
                uuid: None,
                message_id: id,
                text: Text::of(item.get("text")),
            },
            "reasoning" => Body::Thinking {
                text: Text::of(item.get("text")),
            },
            "error" => Body::System {
                subtype: Some("error"),
                message: str_of(item, "message"),
                model: None,
            },
            "" => return Ok(()),
            other => Body::System {
                subtype: Some(other),
                message: None,
                model: None,
            },
        };
        emit(&o.event(body))
    }

    // ---- Codex session rollouts ----

    fn codex_log(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(p) = v.get("payload") else {
            return Ok(());
        };
        match str_of(v, "type").unwrap_or_default() {
            "session_meta" => emit(&o.event(Body::Init {
                model: str_of(p, "model"),
                cwd: str_of(p, "cwd"),
                tools: None,
                permission_mode: None,
            })),
            "turn_context" => {
                let Some(model) = str_of(p, "model") else {
                    return Ok(());
                };
                if self.model.as_deref() == Some(model) {
                    return Ok(());
                }
                self.model = Some(model.to_string());
                emit(&o.event(Body::System {
                    subtype: Some("turn_context"),
                    message: None,
                    model: Some(model),
                }))
            }
            "response_item" => codex_log_item(o, p, emit),
            "event_msg" => match str_of(p, "type").unwrap_or_default() {
                "token_count" => {
                    let Some(last) = p.path(&["info", "last_token_usage"]) else {
                        return Ok(());
                    };
                    let at = |k: &str| uint(last.get(k));
                    emit(&o.event(Body::Usage(Usage {
                        message_id: None,
                        model: self.model.as_deref(),
                        input: codex_input(at),
                        output: at("output_tokens"),
                        cache_creation: at("cache_write_input_tokens"),
                        cache_read: at("cached_input_tokens"),
                    })))
                }
                "task_complete" => emit(&o.event(Body::Result(Outcome {
                    success: true,
                    duration_ms: uint(p.get("duration_ms")),
                    ..Outcome::default()
                }))),
                "turn_aborted" => emit(&o.event(Body::Result(Outcome {
                    success: false,
                    subtype: Some("aborted"),
                    text: str_of(p, "reason").map(Cow::Borrowed),
                    ..Outcome::default()
                }))),
                "error" | "stream_error" => emit(&o.event(Body::System {
                    subtype: Some("error"),
                    message: str_of(p, "message"),
                    model: None,
                })),
                _ => Ok(()),
            },
            "compacted" => emit(&o.event(Body::System {
                subtype: Some("compacted"),
                message: str_of(p, "message"),
                model: None,
            })),
            _ => Ok(()),
        }
    }

    // ---- JSON-RPC ----

    fn rpc<'a>(&mut self, mut o: Origin<'a>, v: Json<'a>, emit: &mut Emit<'_>) -> io::Result<()> {
        o.session = crate::dialect::jsonrpc_session(v);
        let id = v.get("id");
        let error = v.get("error").filter(|e| e.kind() != Kind::Null);
        if let Some(method) = str_of(v, "method") {
            let direction = match id {
                Some(id) => {
                    if self.requests.len() >= MAX_PENDING_REQUESTS {
                        self.requests.clear();
                    }
                    self.requests
                        .insert(id.to_compact_string(), method.to_string());
                    Direction::Request
                }
                None => Direction::Notification,
            };
            return emit(&o.event(Body::Rpc {
                id,
                method: Some(method),
                direction,
                error,
            }));
        }
        match id {
            Some(id) if v.has("result") || error.is_some() => {
                let method = self.requests.remove(&id.to_compact_string());
                emit(&o.event(Body::Rpc {
                    id: Some(id),
                    method: method.as_deref(),
                    direction: Direction::Response,
                    error,
                }))
            }
            // Neither a request, a notification nor a response: shown whole.
            _ => emit(&o.event(Body::Unknown { ty: None, raw: v })),
        }
    }
}

/// The string at `key` of an object.
fn str_of<'a>(v: Json<'a>, key: &str) -> Option<&'a str> {
    v.get(key).and_then(|s| s.as_str())
}

/// A non-negative integer (a whole float counts too: some writers emit `12.0`).
fn uint(v: Option<Json<'_>>) -> Option<u64> {
    let v = v?;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < u64::MAX as f64)
            .map(|f| f as u64)
    })
}

/// Whether a number is present and not zero (an exit code).
/// The short message of a `system`-mapped record: its first string among a few keys, or
/// the status of a rate-limit event.
fn system_message(v: Json<'_>) -> Option<&str> {
    [
        "content",
        "summary",
        "message",
        "error",
        "status",
        "operation",
    ]
    .iter()
    .find_map(|k| str_of(v, k))
    .or_else(|| {
        v.path(&["rate_limit_info", "status"])
            .and_then(|s| s.as_str())
    })
}

/// A tool result's content: a string as it is, a list of text blocks joined by newlines,
/// anything else (images, mixed blocks) as its JSON.
fn tool_content(c: Json<'_>) -> Nested<'_> {
    if c.kind() != Kind::Array {
        return Nested::Json(c);
    }
    let mut texts = Vec::new();
    let mut all_text = true;
    c.for_each_element(|b| match (str_of(b, "type"), str_of(b, "text")) {
        (Some("text"), Some(t)) => texts.push(t),
        _ => all_text = false,
    });
    if all_text {
        Nested::Owned(serde_json::Value::String(texts.join("\n")))
    } else {
        Nested::Json(c)
    }
}

/// The event of one content block of a Claude assistant message.
fn claude_block<'a>(
    block: Json<'a>,
    uuid: Option<&'a str>,
    message_id: Option<&'a str>,
) -> Option<Body<'a>> {
    match str_of(block, "type")? {
        "text" => Some(Body::Text {
            uuid,
            message_id,
            text: Text::of(block.get("text")),
        }),
        "thinking" => Some(Body::Thinking {
            text: Text::of(block.get("thinking")),
        }),
        "redacted_thinking" => Some(Body::Thinking {
            text: Text::from(""),
        }),
        "tool_use" | "server_tool_use" | "mcp_tool_use" => Some(Body::ToolUse {
            id: str_of(block, "id"),
            name: str_of(block, "name"),
            input: block.get("input").map(Nested::Json),
        }),
        // Server tool results (web search, code execution) answer a server_tool_use.
        _ if block.has("tool_use_id") => Some(tool_result_block(block, false)),
        _ => None,
    }
}

/// A tool result block; `text_tells`: see [`Dialect::result_text_tells_failure`].
fn tool_result_block(block: Json<'_>, text_tells: bool) -> Body<'_> {
    Body::ToolResult {
        tool_use_id: str_of(block, "tool_use_id"),
        is_error: crate::dialect::claude_tool_result_failed(block, text_tells),
        content: block
            .get("content")
            .filter(|c| c.kind() != Kind::Null)
            .map(tool_content),
    }
}

/// The events of a Claude user message: its text, and the tool results it carries.
fn claude_user(
    o: Origin<'_>,
    v: Json<'_>,
    text_tells: bool,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let uuid = str_of(v, "uuid");
    let Some(content) = v.path(&["message", "content"]) else {
        return Ok(());
    };
    if content.kind() == Kind::String {
        return emit(&o.event(Body::User {
            uuid,
            text: Text::of(Some(content)),
        }));
    }
    let mut result = Ok(());
    content.for_each_element(|block| {
        if result.is_err() {
            return;
        }
        let body = match str_of(block, "type") {
            Some("text") => Body::User {
                uuid,
                text: Text::of(block.get("text")),
            },
            Some("tool_result") => tool_result_block(block, text_tells),
            _ => return,
        };
        result = emit(&o.event(body));
    });
    result
}

fn claude_result(v: Json<'_>) -> Outcome<'_> {
    let subtype = str_of(v, "subtype");
    let error_subtype = subtype.is_some_and(|s| s.starts_with("error"));
    // Claude reports API failures as subtype `success` with is_error: the flag decides.
    let is_error = v
        .get("is_error")
        .and_then(|e| e.as_bool())
        .unwrap_or(error_subtype);
    let text = match str_of(v, "result") {
        Some(t) => Some(Cow::Borrowed(t)),
        None => {
            let mut errors = Vec::new();
            if let Some(list) = v.get("errors") {
                list.for_each_element(|e| errors.extend(e.as_str()));
            }
            if errors.is_empty() {
                // Qwen Code: `error{message}`.
                v.path(&["error", "message"])
                    .and_then(|m| m.as_str())
                    .map(Cow::Borrowed)
            } else {
                Some(Cow::Owned(errors.join("; ")))
            }
        }
    };
    let usage = v.get("usage");
    Outcome {
        success: !is_error && !error_subtype,
        is_error,
        subtype,
        cost_usd: ["total_cost_usd", "cost_usd", "costUSD"]
            .iter()
            .find_map(|k| v.get(k).and_then(|c| c.as_f64())),
        duration_ms: uint(v.get("duration_ms")),
        turns: uint(v.get("num_turns")),
        input: uint(usage.and_then(|u| u.get("input_tokens"))),
        output: uint(usage.and_then(|u| u.get("output_tokens"))),
        per_turn: false,
        text,
    }
}

/// The name and input of a Codex exec tool item, or `None` for other items.
fn codex_tool(item: Json<'_>) -> Option<(Option<&str>, Option<Nested<'_>>)> {
    let name = crate::dialect::codex_tool_name(item)?;
    Some(match str_of(item, "type")? {
        "command_execution" => (
            Some(name),
            item.get("command").map(|c| Nested::Wrapped("command", c)),
        ),
        "mcp_tool_call" => (Some(name), item.get("arguments").map(Nested::Json)),
        "file_change" => (Some("file_change"), item.get("changes").map(Nested::Json)),
        "web_search" => (
            Some("web_search"),
            item.get("query")
                .map(|q| Nested::Wrapped("query", q))
                .or_else(|| item.get("action").map(Nested::Json)),
        ),
        _ => return None,
    })
}

/// The events of a rollout `response_item`.
fn codex_log_item(o: Origin<'_>, p: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    match str_of(p, "type").unwrap_or_default() {
        "message" => {
            let role = str_of(p, "role");
            let id = str_of(p, "id");
            let mut result = Ok(());
            if let Some(content) = p.get("content") {
                content.for_each_element(|block| {
                    if result.is_err() {
                        return;
                    }
                    let Some(text) = str_of(block, "text") else {
                        return;
                    };
                    let body = match role {
                        Some("user") => Body::User {
                            uuid: None,
                            text: Text::from(text),
                        },
                        Some("assistant") => Body::Text {
                            uuid: None,
                            message_id: id,
                            text: Text::from(text),
                        },
                        // Developer and system instructions are not the conversation.
                        _ => return,
                    };
                    result = emit(&o.event(body));
                });
            }
            result
        }
        "reasoning" => {
            let mut texts = Vec::new();
            for key in ["summary", "content"] {
                if let Some(list) = p.get(key) {
                    list.for_each_element(|b| texts.extend(str_of(b, "text")));
                }
            }
            if texts.is_empty() {
                // Encrypted reasoning only: it happened, its text is not in the log.
                texts.push("");
            }
            for text in texts {
                emit(&o.event(Body::Thinking {
                    text: Text::from(text),
                }))?;
            }
            Ok(())
        }
        "function_call" => {
            let input = p.get("arguments").map(|a| match a.as_str() {
                Some(s) => match serde_json::from_str::<serde_json::Value>(s) {
                    Ok(parsed) => Nested::Owned(parsed),
                    Err(_) => Nested::Json(a),
                },
                None => Nested::Json(a),
            });
            emit(&o.event(Body::ToolUse {
                id: str_of(p, "call_id").or_else(|| str_of(p, "id")),
                name: str_of(p, "name"),
                input,
            }))
        }
        "custom_tool_call" => emit(&o.event(Body::ToolUse {
            id: str_of(p, "call_id").or_else(|| str_of(p, "id")),
            name: str_of(p, "name"),
            input: p.get("input").map(Nested::Json),
        })),
        "local_shell_call" => emit(&o.event(Body::ToolUse {
            id: str_of(p, "call_id").or_else(|| str_of(p, "id")),
            name: Some("local_shell"),
            input: p.get("action").map(Nested::Json),
        })),
        "web_search_call" => emit(&o.event(Body::ToolUse {
            id: str_of(p, "call_id").or_else(|| str_of(p, "id")),
            name: Some("web_search"),
            input: p.get("action").map(Nested::Json),
        })),
        "function_call_output" | "custom_tool_call_output" => {
            let (content, is_error) = match p.get("output") {
                Some(out) => function_output(out),
                None => (None, false),
            };
            emit(&o.event(Body::ToolResult {
                tool_use_id: str_of(p, "call_id"),
                is_error,
                content,
            }))
        }
        _ => Ok(()),
    }
}

/// The content of a rollout function call's output, and whether it reports a failure
/// (the Codex rule, [`crate::dialect::codex_tool_failed`], that `stats` and `gaps` use too).
fn function_output(out: Json<'_>) -> (Option<Nested<'_>>, bool) {
    let failed = crate::dialect::codex_tool_failed(out);
    if out.is_object() {
        // {content, success}: the structured form.
        let content = out
            .get("content")
            .map(Nested::Json)
            .unwrap_or(Nested::Json(out));
        return (Some(content), failed);
    }
    // The old form is a JSON document in the string: {"output": …, "metadata": {…}}; its
    // output is the content.
    if let Some(text) = out.as_str().filter(|t| t.starts_with('{')) {
        if let Ok(serde_json::Value::Object(mut doc)) =
            serde_json::from_str::<serde_json::Value>(text)
        {
            if let Some(serde_json::Value::String(inner)) = doc.remove("output") {
                return (
                    Some(Nested::Owned(serde_json::Value::String(inner))),
                    failed,
                );
            }
        }
    }
    (Some(Nested::Json(out)), failed)
}

// ---- Gemini CLI, Qwen Code, Cursor, OpenCode, Copilot ----

/// Assistant text (or Cursor thinking) arriving in chunks, joined into one event per turn.
#[derive(Debug, Clone, PartialEq)]
struct PendingText {
    file: Arc<str>,
    line: u64,
    session: Option<String>,
    thinking: bool,
    text: String,
}

impl Normalizer {
    /// Emits the assistant text being joined, if any.
    fn flush_text(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
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

    /// Adds a chunk to the text being joined (a chunk of the other kind ends it first).
    fn push_text(
        &mut self,
        o: Origin<'_>,
        file: &Arc<str>,
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
                    file: file.clone(),
                    line: o.line,
                    session: o.session.map(str::to_string),
                    thinking,
                    text: chunk.to_string(),
                })
            }
        }
        Ok(())
    }

    fn gemini(
        &mut self,
        o: Origin<'_>,
        v: Json<'_>,
        file: &Arc<str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let ty = str_of(v, "type");
        if ty == Some("message")
            && str_of(v, "role") == Some("assistant")
            && v.get("delta").and_then(|d| d.as_bool()) == Some(true)
        {
            let chunk = str_of(v, "content").unwrap_or_default();
            return self.push_text(o, file, false, chunk, emit);
        }
        self.flush_text(emit)?;
        match ty {
            None if crate::dialect::gemini::is_document(v) => {
                if let Some(text) = str_of(v, "response") {
                    emit(&o.event(Body::Text {
                        uuid: None,
                        message_id: None,
                        text: Text::from(text),
                    }))?;
                }
                gemini_model_usage(o, v.path(&["stats", "models"]), emit)?;
                let error = v.get("error").filter(Json::is_object);
                let (input, output) = gemini_document_totals(v);
                emit(&o.event(Body::Result(Outcome {
                    success: error.is_none(),
                    is_error: error.is_some(),
                    subtype: Some(if error.is_some() { "error" } else { "success" }),
                    input,
                    output,
                    text: error.and_then(|e| str_of(e, "message")).map(Cow::Borrowed),
                    ..Outcome::default()
                })))
            }
            Some("init") => emit(&o.event(Body::Init {
                model: str_of(v, "model"),
                cwd: None,
                tools: None,
                permission_mode: None,
            })),
            Some("message") => {
                let text = Text::of(v.get("content"));
                emit(&o.event(match str_of(v, "role") {
                    Some("assistant") => Body::Text {
                        uuid: None,
                        message_id: None,
                        text,
                    },
                    _ => Body::User { uuid: None, text },
                }))
            }
            Some("tool_use") => emit(&o.event(Body::ToolUse {
                id: str_of(v, "tool_id"),
                name: str_of(v, "tool_name"),
                input: v.get("parameters").map(Nested::Json),
            })),
            Some("tool_result") => emit(
                &o.event(Body::ToolResult {
                    tool_use_id: str_of(v, "tool_id"),
                    is_error: crate::dialect::gemini::tool_result_failed(v),
                    content: v
                        .path(&["error", "message"])
                        .or_else(|| v.get("output"))
                        .map(Nested::Json),
                }),
            ),
            Some("error") => emit(&o.event(Body::System {
                subtype: Some("error"),
                message: str_of(v, "message"),
                model: None,
            })),
            Some("result") => {
                let stats = v.get("stats");
                let at = |k: &str| uint(stats.and_then(|s| s.get(k)));
                match stats.and_then(|s| s.get("models")) {
                    Some(models) => gemini_model_usage(o, Some(models), emit)?,
                    None if stats.is_some() => {
                        let (input, cached) = gemini_input(stats);
                        emit(&o.event(Body::Usage(Usage {
                            input,
                            output: at("output_tokens"),
                            cache_read: cached,
                            ..Usage::default()
                        })))?
                    }
                    None => {}
                }
                let status = str_of(v, "status");
                let failed = status != Some("success");
                emit(
                    &o.event(Body::Result(Outcome {
                        success: !failed,
                        is_error: failed,
                        subtype: status,
                        duration_ms: at("duration_ms"),
                        input: gemini_input(stats).0,
                        output: at("output_tokens"),
                        text: v
                            .path(&["error", "message"])
                            .and_then(|m| m.as_str())
                            .map(Cow::Borrowed),
                        ..Outcome::default()
                    })),
                )
            }
            _ => Ok(()),
        }
    }

    fn gemini_log(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(ty) = str_of(v, "type") else {
            if v.has("projectHash") {
                return emit(&o.event(Body::Init {
                    model: None,
                    cwd: None,
                    tools: None,
                    permission_mode: None,
                }));
            }
            if let Some(to) = v.get("$rewindTo") {
                return emit(&o.event(Body::System {
                    subtype: Some("rewind"),
                    message: to.as_str(),
                    model: None,
                }));
            }
            return Ok(());
        };
        let id = str_of(v, "id");
        match ty {
            "user" => {
                let Some(content) = v.get("content") else {
                    return Ok(());
                };
                if let Some(text) = content.as_str() {
                    return emit(&o.event(Body::User {
                        uuid: id,
                        text: Text::from(text),
                    }));
                }
                // Function responses repeat the tool results of the `gemini` line before.
                let mut result = Ok(());
                content.for_each_element(|part| {
                    if let (Ok(()), Some(text)) = (&result, str_of(part, "text")) {
                        result = emit(&o.event(Body::User {
                            uuid: id,
                            text: Text::from(text),
                        }));
                    }
                });
                result
            }
            "gemini" => {
                // A message is written again whole when it changes: each part once.
                let first = id.is_none_or(|id| self.seen.insert(&format!("m:{id}")));
                if first {
                    if let Some(thoughts) = v.get("thoughts") {
                        let mut result = Ok(());
                        thoughts.for_each_element(|t| {
                            let text = str_of(t, "description").or_else(|| str_of(t, "subject"));
                            if let (Ok(()), Some(text)) = (&result, text) {
                                result = emit(&o.event(Body::Thinking {
                                    text: Text::from(text),
                                }));
                            }
                        });
                        result?;
                    }
                    if let Some(text) = str_of(v, "content").filter(|t| !t.is_empty()) {
                        emit(&o.event(Body::Text {
                            uuid: id,
                            message_id: id,
                            text: Text::from(text),
                        }))?;
                    }
                    if let Some(tokens) = v.get("tokens").filter(Json::is_object) {
                        let (input, cached) = gemini_log_input(tokens);
                        emit(&o.event(Body::Usage(Usage {
                            message_id: id,
                            model: str_of(v, "model"),
                            input,
                            output: gemini_log_output(tokens),
                            cache_creation: None,
                            cache_read: cached,
                        })))?;
                    }
                }
                let Some(calls) = v.get("toolCalls") else {
                    return Ok(());
                };
                let mut fresh = Vec::new();
                calls.for_each_element(|c| {
                    let new =
                        str_of(c, "id").is_none_or(|cid| self.seen.insert(&format!("t:{cid}")));
                    if new {
                        fresh.push(c);
                    }
                });
                for call in fresh {
                    let cid = str_of(call, "id");
                    emit(&o.event(Body::ToolUse {
                        id: cid,
                        name: str_of(call, "name"),
                        input: call.get("args").map(Nested::Json),
                    }))?;
                    let output = call
                        .path(&["result", "0", "functionResponse", "response", "output"])
                        .or_else(|| {
                            call.path(&["result", "0", "functionResponse", "response", "error"])
                        });
                    let status = str_of(call, "status");
                    if status.is_some() || output.is_some() {
                        let failed = crate::dialect::gemini_log_tool_failed(call);
                        emit(
                            &o.event(Body::ToolResult {
                                tool_use_id: cid,
                                is_error: failed,
                                content: call
                                    .get("resultDisplay")
                                    .filter(|d| d.as_str().is_some())
                                    .or(output)
                                    .map(Nested::Json),
                            }),
                        )?;
                    }
                }
                Ok(())
            }
            other => emit(&o.event(Body::System {
                subtype: Some(other),
                message: str_of(v, "content"),
                model: None,
            })),
        }
    }

    fn qwen_log(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        let uuid = str_of(v, "uuid");
        let ty = str_of(v, "type").unwrap_or_default();
        if ty == "system" {
            return match str_of(v, "subtype") {
                // Telemetry and snapshots are bookkeeping, not the conversation.
                Some("ui_telemetry" | "attribution_snapshot") | None => Ok(()),
                sub => emit(&o.event(Body::System {
                    subtype: sub,
                    message: None,
                    model: None,
                })),
            };
        }
        let Some(parts) = v.path(&["message", "parts"]) else {
            return Ok(());
        };
        let failed = v
            .get("toolCallResult")
            .is_some_and(crate::dialect::qwen_log_tool_failed);
        let mut result = Ok(());
        parts.for_each_element(|part| {
            if result.is_err() {
                return;
            }
            let body = if let Some(text) = str_of(part, "text") {
                let thought = part.get("thought").and_then(|t| t.as_bool()) == Some(true);
                match ty {
                    _ if thought => Body::Thinking {
                        text: Text::from(text),
                    },
                    "assistant" => Body::Text {
                        uuid,
                        message_id: uuid,
                        text: Text::from(text),
                    },
                    "user" => Body::User {
                        uuid,
                        text: Text::from(text),
                    },
                    _ => return,
                }
            } else if let Some(call) = part.get("functionCall") {
                Body::ToolUse {
                    id: str_of(call, "id"),
                    name: str_of(call, "name"),
                    input: call.get("args").map(Nested::Json),
                }
            } else if let Some(resp) = part.get("functionResponse") {
                // The command's own output where the log keeps it apart from the wrapper
                // the model saw (`Command: …\nOutput: …\nExit Code: …`).
                let content = v
                    .path(&["toolCallResult", "resultDisplay", "output"])
                    .filter(|o| o.as_str().is_some())
                    .or_else(|| resp.path(&["response", "output"]))
                    .or_else(|| resp.path(&["response", "error"]))
                    .or_else(|| resp.get("response"));
                Body::ToolResult {
                    tool_use_id: str_of(resp, "id"),
                    is_error: failed,
                    content: content.map(Nested::Json),
                }
            } else {
                return;
            };
            result = emit(&o.event(body));
        });
        result?;
        if let Some(u) = v.get("usageMetadata").filter(Json::is_object) {
            let at = |k: &str| uint(u.get(k));
            let cached = at("cachedContentTokenCount");
            emit(&o.event(Body::Usage(Usage {
                message_id: uuid,
                model: str_of(v, "model"),
                input: at("promptTokenCount").map(|p| p.saturating_sub(cached.unwrap_or(0))),
                output: sum_some(at("candidatesTokenCount"), at("thoughtsTokenCount")),
                cache_creation: None,
                cache_read: cached,
            })))?;
        }
        Ok(())
    }

    fn cursor(
        &mut self,
        o: Origin<'_>,
        v: Json<'_>,
        file: &Arc<str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let ty = str_of(v, "type").unwrap_or_default();
        if ty == "thinking" {
            if let Some(chunk) = str_of(v, "text") {
                self.push_text(o, file, true, chunk, emit)?;
            }
            if str_of(v, "subtype") == Some("completed") {
                self.flush_text(emit)?;
            }
            return Ok(());
        }
        self.flush_text(emit)?;
        match ty {
            "tool_call" => {
                let Some(call) = v.get("tool_call") else {
                    return Ok(());
                };
                // {"<name>ToolCall": {args, result}}: the one key names the tool.
                let mut named = None;
                call.for_each_entry(|k, inner| {
                    if named.is_none() {
                        named = Some((k, inner));
                    }
                });
                let Some((key, inner)) = named else {
                    return Ok(());
                };
                let name = key.strip_suffix("ToolCall").unwrap_or(key);
                let id = str_of(v, "call_id");
                match str_of(v, "subtype") {
                    Some("started") => emit(&o.event(Body::ToolUse {
                        id,
                        name: Some(name),
                        input: inner.get("args").map(Nested::Json),
                    })),
                    Some("completed") => {
                        let res = inner.get("result");
                        let failure = res.and_then(|r| r.get("failure").or_else(|| r.get("error")));
                        let success = res.and_then(|r| r.get("success"));
                        emit(&o.event(Body::ToolResult {
                            tool_use_id: id,
                            is_error: crate::dialect::cursor_tool_failed(res),
                            content: failure.or(success).or(res).map(Nested::Json),
                        }))
                    }
                    _ => Ok(()),
                }
            }
            "connection" | "retry" => emit(&o.event(Body::System {
                subtype: Some(ty),
                message: system_message(v).or_else(|| str_of(v, "subtype")),
                model: None,
            })),
            "result" => emit(&o.event(Body::Result(cursor_result(v)))),
            _ => self.claude(o, v, file, emit),
        }
    }

    fn opencode(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        let part = v.get("part");
        let at = |k: &str| part.and_then(|p| str_of(p, k));
        match str_of(v, "type").unwrap_or_default() {
            "text" => emit(&o.event(Body::Text {
                uuid: at("id"),
                message_id: at("messageID"),
                text: Text::from(at("text").unwrap_or_default()),
            })),
            "reasoning" => emit(&o.event(Body::Thinking {
                text: Text::from(at("text").unwrap_or_default()),
            })),
            "tool_use" => {
                let Some(part) = part else { return Ok(()) };
                let state = part.get("state");
                let id = str_of(part, "callID");
                emit(&o.event(Body::ToolUse {
                    id,
                    name: str_of(part, "tool"),
                    input: state.and_then(|s| s.get("input")).map(Nested::Json),
                }))?;
                let status = state.and_then(|s| str_of(s, "status"));
                if matches!(status, Some("completed" | "error")) {
                    emit(
                        &o.event(Body::ToolResult {
                            tool_use_id: id,
                            is_error: crate::dialect::opencode::tool_failed(state),
                            content: state
                                .and_then(|s| s.get("output").or_else(|| s.get("error")))
                                .map(Nested::Json),
                        }),
                    )?;
                }
                Ok(())
            }
            "step_finish" => {
                let tokens = part.and_then(|p| p.get("tokens"));
                let t = |path: &[&str]| uint(tokens.and_then(|t| t.path(path)));
                emit(&o.event(Body::Usage(Usage {
                    message_id: at("messageID"),
                    model: None,
                    input: t(&["input"]),
                    output: sum_some(t(&["output"]), t(&["reasoning"])),
                    cache_creation: t(&["cache", "write"]),
                    cache_read: t(&["cache", "read"]),
                })))?;
                let reason = at("reason");
                if reason == Some("stop") {
                    emit(&o.event(Body::Result(Outcome {
                        success: true,
                        subtype: reason,
                        cost_usd: part.and_then(|p| p.get("cost")).and_then(|c| c.as_f64()),
                        ..Outcome::default()
                    })))?;
                }
                Ok(())
            }
            "error" => {
                let error = v.get("error");
                let message = error
                    .and_then(|e| e.path(&["data", "message"]))
                    .and_then(|m| m.as_str())
                    .or_else(|| error.and_then(|e| str_of(e, "name")));
                emit(&o.event(Body::Result(Outcome {
                    success: false,
                    is_error: true,
                    subtype: error.and_then(|e| str_of(e, "name")).or(Some("error")),
                    text: message.map(Cow::Borrowed),
                    ..Outcome::default()
                })))
            }
            _ => Ok(()),
        }
    }

    fn copilot(&mut self, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        let ty = str_of(v, "type").unwrap_or_default();
        let data = v.get("data");
        let at = |k: &str| data.and_then(|d| str_of(d, k));
        match ty {
            "session.start" | "session.resume" => emit(
                &o.event(Body::Init {
                    model: at("selectedModel").or_else(|| at("model")),
                    cwd: data
                        .and_then(|d| d.path(&["context", "cwd"]))
                        .and_then(|c| c.as_str()),
                    tools: None,
                    permission_mode: None,
                }),
            ),
            "user.message" => emit(&o.event(Body::User {
                uuid: str_of(v, "id"),
                text: Text::from(at("content").unwrap_or_default()),
            })),
            "assistant.message" => {
                let message_id = at("messageId");
                if let Some(text) = at("content").filter(|t| !t.is_empty()) {
                    emit(&o.event(Body::Text {
                        uuid: str_of(v, "id"),
                        message_id,
                        text: Text::from(text),
                    }))?;
                }
                if let Some(requests) = data.and_then(|d| d.get("toolRequests")) {
                    let mut result = Ok(());
                    requests.for_each_element(|r| {
                        if result.is_ok() {
                            result = emit(&o.event(Body::ToolUse {
                                id: str_of(r, "toolCallId"),
                                name: str_of(r, "name"),
                                input: r.get("arguments").map(Nested::Json),
                            }));
                        }
                    });
                    result?;
                }
                match uint(data.and_then(|d| d.get("outputTokens"))) {
                    Some(output) => emit(&o.event(Body::Usage(Usage {
                        message_id,
                        model: at("model"),
                        output: Some(output),
                        ..Usage::default()
                    }))),
                    None => Ok(()),
                }
            }
            "assistant.reasoning" => emit(&o.event(Body::Thinking {
                text: Text::from(at("content").unwrap_or_default()),
            })),
            "tool.execution_complete" => {
                let failed = crate::dialect::copilot_execution_failed(data);
                let content = data.and_then(|d| {
                    d.path(&["result", "content"])
                        .or_else(|| d.path(&["error", "message"]))
                        .or_else(|| d.get("result"))
                });
                emit(&o.event(Body::ToolResult {
                    tool_use_id: at("toolCallId"),
                    is_error: failed,
                    content: content.map(Nested::Json),
                }))
            }
            "session.error" | "abort" => emit(&o.event(Body::System {
                subtype: Some("error"),
                message: at("message").or_else(|| at("reason")),
                model: None,
            })),
            "session.model_change" | "session.tools_updated" => emit(&o.event(Body::System {
                subtype: Some(ty),
                message: None,
                model: at("model").or_else(|| at("newModel")),
            })),
            "result" => {
                let code = v.get("exitCode").and_then(|c| c.as_f64());
                let failed = code.is_none_or(|c| c != 0.0);
                emit(&o.event(Body::Result(Outcome {
                    success: !failed,
                    is_error: failed,
                    subtype: Some(if failed { "error" } else { "success" }),
                    duration_ms: uint(v.path(&["usage", "sessionDurationMs"])),
                    ..Outcome::default()
                })))
            }
            // Deltas repeat the message that follows; turn marks and the rest are framing.
            _ => Ok(()),
        }
    }
}

/// `a + b` where either is known.
fn sum_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

/// Non-cached input and cache reads of Gemini stream stats (or one of its models):
/// Codex's `input_tokens` includes its cached part (`cached_input_tokens`): the part not read
/// from cache, so `input` means the same for every agent (as in `stats`).
fn codex_input(at: impl Fn(&str) -> Option<u64>) -> Option<u64> {
    at("input_tokens").map(|i| i.saturating_sub(at("cached_input_tokens").unwrap_or(0)))
}

/// `input` is the non-cached part where the CLI gives it, else `input_tokens - cached`.
fn gemini_input(stats: Option<Json<'_>>) -> (Option<u64>, Option<u64>) {
    let at = |k: &str| uint(stats.and_then(|s| s.get(k)));
    let cached = at("cached");
    let input =
        at("input").or_else(|| at("input_tokens").map(|i| i.saturating_sub(cached.unwrap_or(0))));
    (input, cached)
}

/// Non-cached input and cache reads of a session-log `tokens` (or `-o json` model
/// tokens): `input` there is the whole prompt.
fn gemini_log_input(tokens: Json<'_>) -> (Option<u64>, Option<u64>) {
    let cached = uint(tokens.get("cached"));
    let prompt = uint(tokens.get("input")).or_else(|| uint(tokens.get("prompt")));
    (
        prompt.map(|p| p.saturating_sub(cached.unwrap_or(0))),
        cached,
    )
}

/// Output tokens of a session-log `tokens`: the answer and the thoughts.
fn gemini_log_output(tokens: Json<'_>) -> Option<u64> {
    sum_some(
        uint(tokens.get("output")).or_else(|| uint(tokens.get("candidates"))),
        uint(tokens.get("thoughts")),
    )
}

/// One `usage` per model of Gemini stats (`stats.models`), stream or document shape.
fn gemini_model_usage(
    o: Origin<'_>,
    models: Option<Json<'_>>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(models) = models else { return Ok(()) };
    let mut result = Ok(());
    models.for_each_entry(|model, m| {
        if result.is_err() {
            return;
        }
        let usage = match m.get("tokens").filter(Json::is_object) {
            // -o json: {tokens{input (whole prompt), candidates, cached, thoughts}}
            Some(t) => {
                let (input, cached) = gemini_log_input(t);
                Usage {
                    model: Some(model),
                    input,
                    output: gemini_log_output(t),
                    cache_read: cached,
                    ..Usage::default()
                }
            }
            None => {
                let (input, cached) = gemini_input(Some(m));
                Usage {
                    model: Some(model),
                    input,
                    output: uint(m.get("output_tokens")),
                    cache_read: cached,
                    ..Usage::default()
                }
            }
        };
        result = emit(&o.event(Body::Usage(usage)));
    });
    result
}

/// Non-cached input and output (thoughts included) totals of an `-o json` document, over
/// its models.
fn gemini_document_totals(v: Json<'_>) -> (Option<u64>, Option<u64>) {
    let Some(models) = v.path(&["stats", "models"]) else {
        return (None, None);
    };
    let (mut input, mut output) = (0u64, 0u64);
    models.for_each_entry(|_, m| {
        if let Some(t) = m.get("tokens") {
            input = input.saturating_add(gemini_log_input(t).0.unwrap_or(0));
            output = output.saturating_add(gemini_log_output(t).unwrap_or(0));
        }
    });
    (Some(input), Some(output))
}

/// A Cursor `result`: Claude's, with `usage{inputTokens, outputTokens}`.
fn cursor_result(v: Json<'_>) -> Outcome<'_> {
    let mut outcome = claude_result(v);
    let usage = v.get("usage");
    outcome.input = outcome
        .input
        .or_else(|| uint(usage.and_then(|u| u.get("inputTokens"))));
    outcome.output = outcome
        .output
        .or_else(|| uint(usage.and_then(|u| u.get("outputTokens"))));
    outcome
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
            events("{\"kind\":1}\n", Some(Dialect::Generic)),
            ["unknown@1"]
        );
    }
}

#[cfg(test)]
mod capped_tests {
    use super::{CappedSet, MAX_OPEN_ITEMS};

    /// Issue 25, case 8: millions of Codex items started and never completed are held in
    /// bounded memory (as `gaps` caps its open items), the oldest forgotten first.
    #[test]
    fn issue25_case8_open_codex_items_are_capped() {
        let mut set = CappedSet::default();
        for i in 0..(3 * MAX_OPEN_ITEMS) {
            assert!(set.insert(&format!("item_{i}")));
            assert!(set.newer.len() + set.older.len() <= MAX_OPEN_ITEMS);
        }
        // The newest are kept, the oldest gone.
        assert!(!set.insert(&format!("item_{}", 3 * MAX_OPEN_ITEMS - 1)));
        assert!(set.insert("item_0"));
        assert!(set.remove("item_0"));
        assert!(!set.remove("item_0"));
    }
}
