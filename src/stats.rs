//! The stats accumulator (SPEC section 5): record tallies, sessions, tokens, cost, tools,
//! and the per-session, per-model, per-file and per-day breakdowns.
//!
//! It keeps what an exact answer needs and nothing else: the last usage snapshot of each
//! API message (Claude repeats a message's usage on each of its content-block lines, and
//! the early lines carry an early snapshot), the last `result` of each session (cost is
//! cumulative), the last cumulative Codex token count of each rollout session, tool calls
//! by id and the ids of failed ones. That state is also what makes stats mergeable:
//! [`Stats::merge`] of the stats of consecutive parts equals the stats of the whole, which
//! is how batch mode combines its shards and how `ndjq stats --merge` reduces partial JSON
//! stats computed on other machines. Formatting lives in `sink::stats`.
//!
//! The per-message and per-tool-call memory is what grows with the input, so it is kept
//! flat (see [`store`]): a 96-bit digest of the id, the four token counts as `u32` (with
//! an exact side table for the rare count that does not fit) and an index into a table
//! of distinct attributions: 32 bytes per API message, 20 per tool call, no allocation
//! per entry.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::json::Json;
use crate::pipeline::Record;
use crate::summary::Summary;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::AddAssign;
use store::{join, Key, Keyed, LastWins, View};

mod agents;
mod store;

/// The version of the JSON shape; a field is never renamed without a new version.
pub const SCHEMA: &str = "ndjq.stats/1";

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// The part of `output` the agent reports as reasoning (Gemini `thoughts`, OpenCode
    /// `reasoning`); written only when there is some.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_output: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Counts come from the input (and from partial stats): they saturate rather than wrap or
/// panic when a hand-made or corrupt record carries values near `u64::MAX`.
impl AddAssign for Tokens {
    fn add_assign(&mut self, o: Tokens) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_creation = self.cache_creation.saturating_add(o.cache_creation);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.reasoning_output = self.reasoning_output.saturating_add(o.reasoning_output);
    }
}

impl Tokens {
    /// Claude usage: `input_tokens`, `output_tokens`, `cache_creation_input_tokens`,
    /// `cache_read_input_tokens`.
    fn from_claude(usage: Json<'_>) -> Tokens {
        let [input, output, cache_creation, cache_read] = usage.get_many([
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]);
        let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_u64()).unwrap_or(0);
        Tokens {
            input: n(input),
            output: n(output),
            cache_creation: n(cache_creation),
            cache_read: n(cache_read),
            reasoning_output: 0,
        }
    }

    /// Codex usage: `input_tokens` (cached included, reported raw), `output_tokens`,
    /// `cached_input_tokens`, `cache_write_input_tokens`.
    fn from_codex(usage: Json<'_>) -> Tokens {
        let n = |k: &str| usage.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        Tokens {
            input: n("input_tokens"),
            output: n("output_tokens"),
            cache_creation: n("cache_write_input_tokens"),
            cache_read: n("cached_input_tokens"),
            reasoning_output: 0,
        }
    }
}

/// Where something is attributed: indexes into the string table, [`NONE`] when unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
struct Attr {
    session: u32,
    model: u32,
    file: u32,
    day: u32,
}

const NONE: u32 = u32::MAX;

const NO_ATTR: Attr = Attr {
    session: NONE,
    model: NONE,
    file: NONE,
    day: NONE,
};

/// The distinct attributions, each stored once: entries refer to one by its index.
#[derive(Debug, Clone, Default)]
struct Attrs {
    list: Vec<Attr>,
    index: HashMap<Attr, u32>,
    /// The last one asked for: consecutive records mostly share it.
    last: Option<(Attr, u32)>,
}

impl Attrs {
    fn id(&mut self, a: Attr) -> u32 {
        if let Some((last, i)) = self.last {
            if last == a {
                return i;
            }
        }
        let next = u32::try_from(self.list.len()).unwrap_or(NONE);
        let i = *self.index.entry(a).or_insert(next);
        if i == next {
            self.list.push(a);
        }
        self.last = Some((a, i));
        i
    }

    /// An index nothing lists (a hand-made report) reads as unattributed.
    fn get(&self, i: u32) -> Attr {
        self.list.get(i as usize).copied().unwrap_or(NO_ATTR)
    }
}

/// Token counts as a message entry stores them: `u32` each, or [`BIG`] when one does not
/// fit, the exact counts then being in `Stats::big_tokens`. No API message comes near 4
/// billion tokens, but a count is never cut.
type Packed = [u32; 4];
const BIG: Packed = [u32::MAX; 4];

fn pack(t: Tokens) -> Packed {
    let f = |v: u64| u32::try_from(v).ok().filter(|&v| v != u32::MAX);
    match (
        f(t.input),
        f(t.output),
        f(t.cache_creation),
        f(t.cache_read),
    ) {
        (Some(a), Some(b), Some(c), Some(d)) => [a, b, c, d],
        _ => BIG,
    }
}

/// One API message's (or Codex turn's) last usage snapshot: 32 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct MessageEntry(Key, Packed, u32);

impl Keyed for MessageEntry {
    fn key(&self) -> Key {
        self.0
    }
}

/// A tool call: its tool's name (a string index) and its attribution. 20 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct ToolEntry(Key, u32, u32);

impl Keyed for ToolEntry {
    fn key(&self) -> Key {
        self.0
    }
}

/// The last `result` of a session.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct SessionResult {
    /// The last result usage with integer input and output tokens.
    tokens: Option<Tokens>,
    /// The last cost reported (cumulative for the session).
    cost_usd: Option<f64>,
    turns: Option<u64>,
    duration_ms: Option<u64>,
    file: u32,
    day: u32,
    /// Where the result's `tokens` are the session's billed totals (Qwen Code: they count
    /// calls no message shows, such as its memory extraction), the attribution (the
    /// session's last model) that takes what the messages do not account for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    billed: Option<u32>,
}

/// Strings shared by attributions (sessions, models, files, days, tool names).
#[derive(Debug, Clone, Default)]
struct Strings {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(NONE - 1);
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }

    fn get(&self, i: u32) -> Option<&str> {
        self.names.get(i as usize).map(String::as_str)
    }
}

/// The top-level fields of a Claude record, read with the type in one walk.
#[derive(Clone, Copy)]
struct ClaudeTop<'a> {
    /// `session_id`, else `sessionId`.
    session: Option<Json<'a>>,
    message: Option<Json<'a>>,
    /// `requestId`, else `request_id`.
    request: Option<Json<'a>>,
}

/// Per-input context: what later records of the same input inherit.
#[derive(Debug, Clone, Copy)]
struct InputContext {
    file: u32,
    dialect: Option<Dialect>,
    /// Codex exec: the thread of the last `thread.started`; Codex rollouts: the session of
    /// `session_meta`.
    session: u32,
    /// Codex rollouts: the model of the last `turn_context`.
    model: u32,
    /// Codex exec: how many `thread.started` of the current thread this input has shown
    /// (a resumed run appends a second one), and turns seen since the last one.
    process: u32,
    turn: u32,
    records: u64,
}

/// The accumulator. See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Files, records, bytes, verdicts and diagnostics: the tally every command keeps.
    pub summary: Summary,
    pub dialects: BTreeMap<String, u64>,
    pub types: BTreeMap<String, u64>,
    strings: Strings,
    attrs: Attrs,
    sessions: HashSet<u32>,
    /// The last usage snapshot of each API message (and Codex exec turn).
    messages: LastWins<MessageEntry>,
    /// The exact counts of the messages whose entry says [`BIG`].
    big_tokens: HashMap<Key, Tokens>,
    /// Usage that is counted per line (no message id), by attribution.
    extra_usage: HashMap<u32, Tokens>,
    /// Codex rollouts: the last cumulative `total_token_usage` of each session, with its
    /// attribution.
    codex_totals: HashMap<u32, (Tokens, u32)>,
    results: HashMap<u32, SessionResult>,
    /// Codex exec turns (completed or failed), by key (see `add_codex`), to attribution.
    codex_turns: HashMap<Key, u32>,
    tool_calls: LastWins<ToolEntry>,
    tool_errors: LastWins<Key>,
    /// Costs reported per step (OpenCode `step_finish.cost`), by key: session and cost.
    step_costs: HashMap<Key, (u32, f64)>,
    /// The reasoning part of a message's output, by message key, where it is reported
    /// apart (kept beside the packed counts: few messages have one).
    reasoning: HashMap<Key, u64>,
    /// Records by session, file and day.
    records_by: HashMap<(Dim, u32), u64>,
    context: Option<InputContext>,
    /// A reused buffer for the `type/subtype` key.
    type_key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
enum Dim {
    Session,
    File,
    Day,
}

/// A breakdown key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Session,
    Model,
    Tool,
    Type,
    File,
    Day,
}

impl GroupBy {
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Session => "session",
            GroupBy::Model => "model",
            GroupBy::Tool => "tool",
            GroupBy::Type => "type",
            GroupBy::File => "file",
            GroupBy::Day => "day",
        }
    }
}

/// Tool totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTotals {
    pub calls: u64,
    pub errors: u64,
}

/// One row of a breakdown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub key: String,
    pub records: u64,
    pub tokens: Tokens,
    pub cost_usd: Option<f64>,
    pub tool_calls: u64,
    pub tool_errors: u64,
}

/// The totals a report shows, computed from the state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub sessions: u64,
    pub tokens: Tokens,
    pub result_tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub turns: u64,
    pub duration_ms: u64,
    pub tools: BTreeMap<String, ToolTotals>,
    pub models: BTreeMap<String, Tokens>,
}

fn day_of(ts: &str) -> Option<&str> {
    let d = ts.get(..10)?;
    let b = d.as_bytes();
    (b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit()))
    .then_some(d)
}

impl Stats {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new input begins: later records are attributed to `file`.
    pub fn begin_input(&mut self, file: &str) {
        self.summary.files += 1;
        let file = self.strings.id(file);
        self.context = Some(InputContext {
            file,
            dialect: None,
            session: NONE,
            model: NONE,
            process: 0,
            turn: 0,
            records: 0,
        });
    }

    /// The input ended; its records are counted under its dialect.
    pub fn end_input(&mut self, dialect: Option<Dialect>) {
        if let Some(ctx) = self.context.take() {
            if ctx.records > 0 {
                let name = dialect.or(ctx.dialect).map_or("(none)", Dialect::name);
                *self.dialects.entry(name.to_string()).or_insert(0) += ctx.records;
            }
        }
    }

    /// Counts the bytes of an overlong record that came after its first part.
    pub fn add_bytes(&mut self, n: usize) {
        self.summary.add_bytes(n);
    }

    /// Adds one record.
    pub fn add(&mut self, record: &Record<'_>) {
        // A shard of batch mode sees records of an input it was not told about.
        let mut ctx = match self.context {
            Some(c) => c,
            None => InputContext {
                file: self.strings.id(record.file),
                dialect: None,
                session: NONE,
                model: NONE,
                process: 0,
                turn: 0,
                records: 0,
            },
        };
        ctx.records += 1;
        if record.info.dialect.is_some() {
            ctx.dialect = record.info.dialect;
        }
        self.summary.add_record(record);
        *self.records_by.entry((Dim::File, ctx.file)).or_insert(0) += 1;
        if let Some(value) = record.value {
            self.add_value(value, &record.info, &mut ctx);
        }
        self.context = Some(ctx);
    }

    fn add_value(
        &mut self,
        v: Json<'_>,
        info: &crate::dialect::RecordInfo<'_>,
        ctx: &mut InputContext,
    ) {
        // The top-level fields every record is read for, in one walk over it.
        let [ty, subtype, timestamp, session_id, session_id_camel, message, request_id, request_id_snake] =
            v.get_many([
                "type",
                "subtype",
                "timestamp",
                "session_id",
                "sessionId",
                "message",
                "requestId",
                "request_id",
            ]);
        let ty = ty.and_then(|t| t.as_str());
        let mut key = std::mem::take(&mut self.type_key);
        key.clear();
        match (ty, subtype.and_then(|s| s.as_str())) {
            (Some(t), Some(s)) => {
                key.push_str(t);
                key.push('/');
                key.push_str(s);
            }
            (Some(t), None) => key.push_str(t),
            (None, _) => key.push_str("(none)"),
        }
        // Counting must not allocate per record: look the type up before inserting it.
        match self.types.get_mut(key.as_str()) {
            Some(n) => *n += 1,
            None => {
                self.types.insert(key.clone(), 1);
            }
        }
        self.type_key = key;
        if !v.is_object() {
            return;
        }
        let day = timestamp
            .and_then(|t| t.as_str())
            .and_then(day_of)
            .map_or(NONE, |d| self.strings.id(d));
        if day != NONE {
            *self.records_by.entry((Dim::Day, day)).or_insert(0) += 1;
        }
        match info.dialect {
            Some(d) if agents::handles(Some(d)) => self.add_agent(d, v, ty, ctx, day),
            Some(Dialect::Codex) => self.add_codex(v, ty, ctx, day),
            Some(Dialect::CodexLog) => self.add_codex_log(v, ty, ctx, day),
            _ => {
                let top = ClaudeTop {
                    session: session_id.or(session_id_camel),
                    message,
                    request: request_id.or(request_id_snake),
                };
                self.add_claude(v, top, ty, ctx, day)
            }
        }
    }

    /// A message's usage snapshot, replacing any earlier one with its key.
    fn add_usage(&mut self, key: Key, tokens: Tokens, attr: u32) {
        let packed = pack(tokens);
        if packed == BIG {
            self.big_tokens.insert(key, tokens);
        }
        self.messages.push(MessageEntry(key, packed, attr));
    }

    /// A message entry's counts.
    fn tokens_of(&self, m: &MessageEntry) -> Tokens {
        if m.1 == BIG {
            return self.big_tokens.get(&m.0).copied().unwrap_or_default();
        }
        let reasoning_output = if self.reasoning.is_empty() {
            0
        } else {
            self.reasoning.get(&m.0).copied().unwrap_or(0)
        };
        Tokens {
            input: u64::from(m.1[0]),
            output: u64::from(m.1[1]),
            cache_creation: u64::from(m.1[2]),
            cache_read: u64::from(m.1[3]),
            reasoning_output,
        }
    }

    fn session_id(&mut self, s: &str) -> u32 {
        let id = self.strings.id(s);
        self.sessions.insert(id);
        id
    }

    fn count_session_record(&mut self, session: u32) {
        if session != NONE {
            *self.records_by.entry((Dim::Session, session)).or_insert(0) += 1;
        }
    }

    fn add_claude(
        &mut self,
        v: Json<'_>,
        top: ClaudeTop<'_>,
        ty: Option<&str>,
        ctx: &InputContext,
        day: u32,
    ) {
        let session = match top.session.and_then(|s| s.as_str()) {
            Some(s) => self.session_id(s),
            None => NONE,
        };
        self.count_session_record(session);
        match ty {
            Some("assistant") => {
                let Some(message) = top.message else {
                    return;
                };
                let [model, usage, id, content] =
                    message.get_many(["model", "usage", "id", "content"]);
                let model = model
                    .and_then(|m| m.as_str())
                    .map_or(NONE, |m| self.strings.id(m));
                let attr = self.attrs.id(Attr {
                    session,
                    model,
                    file: ctx.file,
                    day,
                });
                if let Some(usage) = usage.filter(|u| u.is_object()) {
                    let tokens = Tokens::from_claude(usage);
                    match id.and_then(|i| i.as_str()) {
                        Some(id) => {
                            let request = top.request.and_then(|r| r.as_str()).unwrap_or("");
                            self.add_usage(Key::of(&[id, request]), tokens, attr);
                        }
                        None => *self.extra_usage.entry(attr).or_default() += tokens,
                    }
                }
                if let Some(content) = content {
                    content.for_each_element(|block| {
                        let [ty, id, name] = block.get_many(["type", "id", "name"]);
                        if ty.and_then(|t| t.as_str()) == Some("tool_use") {
                            if let Some(id) = id.and_then(|i| i.as_str()) {
                                let name = name.and_then(|n| n.as_str()).unwrap_or("(unknown)");
                                let name = self.strings.id(name);
                                self.tool_calls.push(ToolEntry(Key::of(&[id]), name, attr));
                            }
                        }
                    });
                }
            }
            Some("user") => {
                let Some(content) = top.message.and_then(|m| m.get("content")) else {
                    return;
                };
                content.for_each_element(|block| {
                    let [ty, is_error, id] = block.get_many(["type", "is_error", "tool_use_id"]);
                    if ty.and_then(|t| t.as_str()) == Some("tool_result")
                        && is_error.and_then(|e| e.as_bool()) == Some(true)
                    {
                        if let Some(id) = id.and_then(|i| i.as_str()) {
                            self.tool_errors.push(Key::of(&[id]));
                        }
                    }
                });
            }
            Some("result") if session != NONE || v.has("usage") => {
                let entry = self.results.entry(session).or_default();
                entry.file = ctx.file;
                entry.day = day;
                if let Some(usage) = v.get("usage") {
                    let has_ints = usage.get("input_tokens").and_then(|n| n.as_u64()).is_some()
                        && usage
                            .get("output_tokens")
                            .and_then(|n| n.as_u64())
                            .is_some();
                    if has_ints {
                        entry.tokens = Some(Tokens::from_claude(usage));
                    }
                }
                if let Some(cost) = ["total_cost_usd", "cost_usd", "costUSD"]
                    .iter()
                    .find_map(|k| v.get(k).and_then(|c| c.as_f64()))
                {
                    entry.cost_usd = Some(cost);
                }
                if let Some(t) = v.get("num_turns").and_then(|n| n.as_u64()) {
                    entry.turns = Some(t);
                }
                if let Some(d) = v.get("duration_ms").and_then(|n| n.as_u64()) {
                    entry.duration_ms = Some(d);
                }
            }
            _ => {}
        }
    }

    /// Codex exec has no turn or call ids that survive a second process, so a turn is keyed
    /// by (thread, process, turn number, its usage) and an item by (thread, process, item
    /// id, a digest of the item): the same stream given twice counts once, while a resumed
    /// run (same thread, new process, other usage) counts on its own.
    fn add_codex(&mut self, v: Json<'_>, ty: Option<&str>, ctx: &mut InputContext, day: u32) {
        if ty == Some("thread.started") {
            if let Some(t) = v.get("thread_id").and_then(|t| t.as_str()) {
                let thread = self.session_id(t);
                ctx.process = if thread == ctx.session {
                    ctx.process + 1
                } else {
                    1
                };
                ctx.session = thread;
                ctx.turn = 0;
            }
        }
        self.count_session_record(ctx.session);
        let attr = self.attrs.id(Attr {
            session: ctx.session,
            model: NONE,
            file: ctx.file,
            day,
        });
        let thread = self.strings.get(ctx.session).unwrap_or("").to_string();
        match ty {
            Some("turn.completed") | Some("turn.failed") => {
                ctx.turn += 1;
                let usage = v
                    .get("usage")
                    .filter(|u| u.is_object())
                    .map(Tokens::from_codex);
                let t = usage.unwrap_or_default();
                let turn = format!(
                    "{}/{}/{}/{}/{}/{}",
                    ctx.process, ctx.turn, t.input, t.output, t.cache_creation, t.cache_read
                );
                let key = Key::of(&["codex turn", &thread, &turn]);
                if let Some(tokens) = usage {
                    self.add_usage(key, tokens, attr);
                }
                self.codex_turns.insert(key, attr);
            }
            Some("item.completed") => {
                let Some(item) = v.get("item") else { return };
                let item_type = item.get("type").and_then(|t| t.as_str()).unwrap_or("");
                let name = match item_type {
                    "command_execution" | "file_change" | "web_search" => item_type,
                    "mcp_tool_call" => item
                        .get("tool")
                        .and_then(|t| t.as_str())
                        .unwrap_or("mcp_tool_call"),
                    _ => return,
                };
                let Some(id) = item.get("id").and_then(|i| i.as_str()) else {
                    return;
                };
                let digest = fnv1a(item.to_compact_string().as_bytes());
                let key = Key::of(&[
                    "codex item",
                    &thread,
                    &ctx.process.to_string(),
                    id,
                    &format!("{digest:016x}"),
                ]);
                let failed = item.get("status").and_then(|s| s.as_str()) == Some("failed")
                    || item
                        .get("exit_code")
                        .and_then(|c| c.as_f64())
                        .is_some_and(|c| c != 0.0)
                    || item
                        .get("error")
                        .is_some_and(|e| e.kind() != crate::json::Kind::Null);
                let name = self.strings.id(name);
                if failed {
                    self.tool_errors.push(key);
                }
                self.tool_calls.push(ToolEntry(key, name, attr));
            }
            _ => {}
        }
    }

    fn add_codex_log(&mut self, v: Json<'_>, ty: Option<&str>, ctx: &mut InputContext, day: u32) {
        let payload = v.get("payload");
        match ty {
            Some("session_meta") => {
                if let Some(id) = payload.and_then(|p| p.get("id")).and_then(|i| i.as_str()) {
                    ctx.session = self.session_id(id);
                }
            }
            Some("turn_context") => {
                if let Some(m) = payload
                    .and_then(|p| p.get("model"))
                    .and_then(|m| m.as_str())
                {
                    ctx.model = self.strings.id(m);
                }
            }
            _ => {}
        }
        self.count_session_record(ctx.session);
        let Some(payload) = payload else { return };
        let attr = self.attrs.id(Attr {
            session: ctx.session,
            model: ctx.model,
            file: ctx.file,
            day,
        });
        let ptype = payload.get("type").and_then(|t| t.as_str());
        match (ty, ptype) {
            (Some("event_msg"), Some("token_count")) => {
                // The cumulative total: the last one of a session is its usage, however
                // often a count is re-emitted.
                if let Some(total) = payload.get("info").and_then(|i| i.get("total_token_usage")) {
                    let tokens = Tokens::from_codex(total);
                    self.codex_totals.insert(ctx.session, (tokens, attr));
                }
            }
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call"),
            ) => {
                let name = payload
                    .get("name")
                    .and_then(|n| n.as_str())
                    .unwrap_or(ptype.unwrap_or("(unknown)"));
                if let Some(id) = payload.get("call_id").and_then(|i| i.as_str()) {
                    let name = self.strings.id(name);
                    self.tool_calls.push(ToolEntry(Key::of(&[id]), name, attr));
                }
            }
            _ => {}
        }
    }

    /// The other agents' records (see [`agents`]): their facts applied to the state.
    fn add_agent(
        &mut self,
        dialect: Dialect,
        v: Json<'_>,
        ty: Option<&str>,
        ctx: &mut InputContext,
        day: u32,
    ) {
        let session = self.strings.get(ctx.session).unwrap_or("").to_string();
        let mut facts = Vec::new();
        agents::facts(dialect, v, ty, &session, &mut |fact| facts.push(fact));
        for fact in facts {
            let attr = |s: &mut Stats, ctx: &InputContext, model: u32| {
                s.attrs.id(Attr {
                    session: ctx.session,
                    model,
                    file: ctx.file,
                    day,
                })
            };
            match fact {
                agents::Fact::Session(id) => ctx.session = self.session_id(id),
                agents::Fact::Model(m) => ctx.model = self.strings.id(m),
                agents::Fact::Usage { key, model, tokens } => {
                    if tokens.reasoning_output > 0 {
                        self.reasoning.insert(key, tokens.reasoning_output);
                    } else if !self.reasoning.is_empty() {
                        self.reasoning.remove(&key);
                    }
                    let model = model.map_or(ctx.model, |m| self.strings.id(m));
                    if dialect == Dialect::Qwen {
                        // The session's last model, for what only its result counts.
                        ctx.model = model;
                    }
                    let a = attr(self, ctx, model);
                    self.add_usage(key, tokens, a);
                }
                agents::Fact::ToolCall { key, name } => {
                    let name = self.strings.id(name);
                    let a = attr(self, ctx, ctx.model);
                    self.tool_calls.push(ToolEntry(key, name, a));
                }
                agents::Fact::ToolError { key } => self.tool_errors.push(key),
                agents::Fact::Result {
                    tokens,
                    duration_ms,
                    turns,
                } => {
                    let billed = (dialect == Dialect::Qwen && tokens.is_some())
                        .then(|| attr(self, ctx, ctx.model));
                    let entry = self.results.entry(ctx.session).or_default();
                    entry.file = ctx.file;
                    entry.day = day;
                    entry.billed = billed.or(entry.billed);
                    entry.tokens = tokens.or(entry.tokens);
                    entry.duration_ms = duration_ms.or(entry.duration_ms);
                    entry.turns = turns.or(entry.turns);
                }
                agents::Fact::StepCost { key, cost_usd } => {
                    self.step_costs.insert(key, (ctx.session, cost_usd));
                }
            }
        }
        self.count_session_record(ctx.session);
    }

    /// Adds the stats of the records that came after this one's (batch shards, `--merge`):
    /// counters add up, sets unite, and for a key both know, `later`'s last value wins.
    pub fn merge(&mut self, later: Stats) {
        self.summary.merge(&later.summary);
        for (k, n) in later.dialects {
            let e = self.dialects.entry(k).or_insert(0);
            *e = e.saturating_add(n);
        }
        for (k, n) in later.types {
            let e = self.types.entry(k).or_insert(0);
            *e = e.saturating_add(n);
        }
        // Re-index the later side's strings and attributions into this side's tables.
        let map: Vec<u32> = later
            .strings
            .names
            .iter()
            .map(|s| self.strings.id(s))
            .collect();
        let re = |i: u32| -> u32 { map.get(i as usize).copied().unwrap_or(NONE) };
        let amap: Vec<u32> = later
            .attrs
            .list
            .iter()
            .map(|a| {
                self.attrs.id(Attr {
                    session: re(a.session),
                    model: re(a.model),
                    file: re(a.file),
                    day: re(a.day),
                })
            })
            .collect();
        let ra = |i: u32| -> u32 { amap.get(i as usize).copied().unwrap_or(NONE) };
        self.sessions.extend(later.sessions.into_iter().map(re));
        self.messages
            .extend_later(later.messages, |m| MessageEntry(m.0, m.1, ra(m.2)));
        self.big_tokens.extend(later.big_tokens);
        for (a, t) in later.extra_usage {
            *self.extra_usage.entry(ra(a)).or_default() += t;
        }
        for (s, (t, a)) in later.codex_totals {
            self.codex_totals.insert(re(s), (t, ra(a)));
        }
        for (s, r) in later.results {
            let entry = self.results.entry(re(s)).or_default();
            entry.file = re(r.file);
            entry.day = re(r.day);
            entry.tokens = r.tokens.or(entry.tokens);
            entry.cost_usd = r.cost_usd.or(entry.cost_usd);
            entry.turns = r.turns.or(entry.turns);
            entry.duration_ms = r.duration_ms.or(entry.duration_ms);
            entry.billed = r.billed.map(ra).or(entry.billed);
        }
        for (k, a) in later.codex_turns {
            self.codex_turns.insert(k, ra(a));
        }
        self.tool_calls
            .extend_later(later.tool_calls, |c| ToolEntry(c.0, re(c.1), ra(c.2)));
        self.tool_errors.extend_later(later.tool_errors, |k| k);
        self.reasoning.extend(later.reasoning);
        for (k, (session, c)) in later.step_costs {
            self.step_costs.insert(k, (re(session), c));
        }
        for ((d, i), n) in later.records_by {
            let e = self.records_by.entry((d, re(i))).or_insert(0);
            *e = e.saturating_add(n);
        }
        if let (Some(mine), Some(theirs)) = (self.context.as_mut(), later.context) {
            mine.records = mine.records.saturating_add(theirs.records);
            mine.dialect = theirs.dialect.or(mine.dialect);
        }
    }

    fn name(&self, i: u32) -> String {
        self.strings.get(i).unwrap_or("(none)").to_string()
    }

    /// Usage summed by attribution index (messages, per-line usage, Codex rollout totals):
    /// `None` for an attribution no usage names. An index no table lists goes last.
    fn usage_by_attr(&self) -> Vec<Option<Tokens>> {
        let mut by: Vec<Option<Tokens>> = vec![None; self.attrs.list.len() + 1];
        let last = self.attrs.list.len();
        let mut add = |a: u32, t: Tokens| {
            let i = (a as usize).min(last);
            *by[i].get_or_insert_with(Tokens::default) += t;
        };
        for m in self.messages.settled().iter() {
            add(m.2, self.tokens_of(m));
        }
        for (a, t) in &self.extra_usage {
            add(*a, *t);
        }
        for (t, a) in self.codex_totals.values() {
            add(*a, *t);
        }
        // Sessions whose result holds their billed totals: what the messages do not
        // account for goes to the session's last model.
        for (&session, r) in &self.results {
            let (Some(billed), Some(total)) = (r.billed, r.tokens) else {
                continue;
            };
            let mut seen = Tokens::default();
            for (i, t) in by.iter().enumerate() {
                if let Some(t) = t {
                    if self.attrs.get(i as u32).session == session {
                        seen += *t;
                    }
                }
            }
            let rest = Tokens {
                input: total.input.saturating_sub(seen.input),
                output: total.output.saturating_sub(seen.output),
                cache_creation: total.cache_creation.saturating_sub(seen.cache_creation),
                cache_read: total.cache_read.saturating_sub(seen.cache_read),
                reasoning_output: total.reasoning_output.saturating_sub(seen.reasoning_output),
            };
            if rest != Tokens::default() {
                let i = (billed as usize).min(last);
                *by[i].get_or_insert_with(Tokens::default) += rest;
            }
        }
        by
    }

    /// The totals of SPEC section 5.
    pub fn totals(&self) -> Totals {
        let mut tokens = Tokens::default();
        let mut models: BTreeMap<String, Tokens> = BTreeMap::new();
        for (i, t) in self.usage_by_attr().into_iter().enumerate() {
            if let Some(t) = t {
                tokens += t;
                let a = self.attrs.get(i as u32);
                *models.entry(self.name(a.model)).or_default() += t;
            }
        }
        let mut result_tokens: Option<Tokens> = None;
        let mut cost: Option<f64> = None;
        let mut turns = 0;
        let mut duration_ms = 0;
        for r in self.results.values() {
            if let Some(t) = r.tokens {
                *result_tokens.get_or_insert_with(Tokens::default) += t;
            }
            if let Some(c) = r.cost_usd {
                *cost.get_or_insert(0.0) += c;
            }
            turns = r.turns.unwrap_or(0).saturating_add(turns);
            duration_ms = r.duration_ms.unwrap_or(0).saturating_add(duration_ms);
        }
        for (_, c) in self.step_costs.values() {
            *cost.get_or_insert(0.0) += c;
        }
        turns = turns.saturating_add(self.codex_turns.len() as u64);
        Totals {
            sessions: self.sessions.len() as u64,
            tokens,
            result_tokens,
            cost_usd: cost.map(round_cost),
            turns,
            duration_ms,
            tools: self.tool_totals(),
            models,
        }
    }

    /// Calls and errors by tool: each call once per id, each error once per id, named
    /// through the call with its id.
    fn tool_totals(&self) -> BTreeMap<String, ToolTotals> {
        let calls = self.tool_calls.settled();
        let errors = self.tool_errors.settled();
        let mut by_name: HashMap<u32, ToolTotals> = HashMap::new();
        for c in calls.iter() {
            by_name.entry(c.1).or_default().calls += 1;
        }
        let mut unknown = 0;
        for (_, call) in join(errors.iter(), calls.iter()) {
            match call {
                Some(c) => by_name.entry(c.1).or_default().errors += 1,
                None => unknown += 1,
            }
        }
        let mut tools: BTreeMap<String, ToolTotals> = BTreeMap::new();
        for (name, t) in by_name {
            let e = tools.entry(self.name(name)).or_default();
            e.calls += t.calls;
            e.errors += t.errors;
        }
        if unknown > 0 {
            tools.entry("(unknown)".to_string()).or_default().errors += unknown;
        }
        tools
    }

    /// The breakdown by `by`, sorted by key.
    pub fn groups(&self, by: GroupBy) -> Vec<Group> {
        let mut rows: BTreeMap<String, Group> = BTreeMap::new();
        let pick = |a: Attr| match by {
            GroupBy::Session => Some(a.session),
            GroupBy::Model => Some(a.model),
            GroupBy::File => Some(a.file),
            GroupBy::Day => Some(a.day),
            GroupBy::Tool | GroupBy::Type => None,
        };
        match by {
            GroupBy::Type => {
                for (t, n) in &self.types {
                    row(&mut rows, t.clone()).records += n;
                }
            }
            GroupBy::Tool => {
                for (name, t) in self.tool_totals() {
                    let g = row(&mut rows, name);
                    g.tool_calls += t.calls;
                    g.tool_errors += t.errors;
                }
            }
            _ => {
                let dim = match by {
                    GroupBy::Session => Some(Dim::Session),
                    GroupBy::File => Some(Dim::File),
                    GroupBy::Day => Some(Dim::Day),
                    _ => None,
                };
                if let Some(dim) = dim {
                    for ((d, i), n) in &self.records_by {
                        if *d == dim {
                            row(&mut rows, self.name(*i)).records += n;
                        }
                    }
                }
                for (i, t) in self.usage_by_attr().into_iter().enumerate() {
                    if let (Some(t), Some(k)) = (t, pick(self.attrs.get(i as u32))) {
                        row(&mut rows, self.name(k)).tokens += t;
                    }
                }
                for (session, r) in &self.results {
                    let key = match by {
                        GroupBy::Session => Some(*session),
                        GroupBy::File => Some(r.file),
                        GroupBy::Day => Some(r.day),
                        _ => None,
                    };
                    if let (Some(k), Some(c)) = (key, r.cost_usd) {
                        let g = row(&mut rows, self.name(k));
                        g.cost_usd = Some(round_cost(g.cost_usd.unwrap_or(0.0) + c));
                    }
                }
                // Calls and errors by attribution first: a handful of rows, not a string
                // per call.
                let calls = self.tool_calls.settled();
                let errors = self.tool_errors.settled();
                let mut by_attr: HashMap<u32, (u64, u64)> = HashMap::new();
                for (c, error) in join(calls.iter(), errors.iter()) {
                    let e = by_attr.entry(c.2).or_default();
                    e.0 += 1;
                    e.1 += u64::from(error.is_some());
                }
                for (a, (calls, errors)) in by_attr {
                    if let Some(k) = pick(self.attrs.get(a)) {
                        let g = row(&mut rows, self.name(k));
                        g.tool_calls += calls;
                        g.tool_errors += errors;
                    }
                }
            }
        }
        rows.into_values().collect()
    }

    /// The state a later merge needs, in a serialisable form. The large lists are shared
    /// with this accumulator, not copied.
    pub fn to_state(&self) -> State {
        let messages = self.messages.settled();
        // Only the exact counts an entry still refers to.
        let mut big: Vec<(Key, Tokens)> = Vec::new();
        if !self.big_tokens.is_empty() {
            for m in messages.iter().filter(|m| m.1 == BIG) {
                if let Some(t) = self.big_tokens.get(&m.0) {
                    big.push((m.0, *t));
                }
            }
        }
        State {
            strings: self.strings.names.clone(),
            attrs: self.attrs.list.clone(),
            sessions: sorted(self.sessions.iter().copied()),
            messages,
            big_tokens: big,
            extra_usage: sorted(self.extra_usage.iter().map(|(a, t)| (*a, *t))),
            codex_totals: sorted(self.codex_totals.iter().map(|(s, (t, a))| (*s, *t, *a))),
            results: {
                let mut v: Vec<(u32, SessionResult)> =
                    self.results.iter().map(|(s, r)| (*s, *r)).collect();
                v.sort_by_key(|(s, _)| *s);
                v
            },
            codex_turns: sorted(self.codex_turns.iter().map(|(k, a)| (*k, *a))),
            tool_calls: self.tool_calls.settled(),
            tool_errors: self.tool_errors.settled(),
            reasoning: sorted(self.reasoning.iter().map(|(k, r)| (*k, *r))),
            step_costs: {
                let mut v: Vec<(Key, u32, f64)> = self
                    .step_costs
                    .iter()
                    .map(|(k, (s, c))| (*k, *s, *c))
                    .collect();
                v.sort_by_key(|(k, _, _)| *k);
                v
            },
            records_by: sorted(self.records_by.iter().map(|((d, i), n)| (*d, *i, *n))),
        }
    }

    /// Rebuilds stats from a report written by `ndjq stats -f json`. Fails on a diagnostic
    /// code this version does not know (rather than dropping its count).
    pub fn from_report(report: Report) -> Result<Stats, String> {
        let mut summary = Summary {
            files: report.files,
            records: report.lines,
            bytes: report.bytes,
            valid: report.valid,
            invalid: report.invalid,
            empty: report.empty,
            ..Summary::default()
        };
        for (name, n) in &report.diagnostics {
            let code =
                Code::parse(name).ok_or_else(|| format!("unknown diagnostic code `{name}`"))?;
            summary.add_diagnostics(code, *n);
        }
        let s = report.state;
        let mut stats = Stats {
            summary,
            dialects: report.dialects,
            types: report.types,
            ..Stats::default()
        };
        for name in &s.strings {
            stats.strings.id(name);
        }
        // Indexes must keep their meaning: the list as written, the first of a twin.
        for (i, a) in s.attrs.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| "too many attributions".to_string())?;
            stats.attrs.index.entry(*a).or_insert(i);
        }
        stats.attrs.list = s.attrs;
        stats.sessions = s.sessions.into_iter().collect();
        stats.messages = LastWins::from_entries(s.messages.into_vec());
        stats.big_tokens = s.big_tokens.into_iter().collect();
        stats.extra_usage = s.extra_usage.into_iter().collect();
        stats.codex_totals = s
            .codex_totals
            .into_iter()
            .map(|(k, tokens, attr)| (k, (tokens, attr)))
            .collect();
        stats.results = s.results.into_iter().collect();
        stats.codex_turns = s.codex_turns.into_iter().collect();
        stats.tool_calls = LastWins::from_entries(s.tool_calls.into_vec());
        stats.tool_errors = LastWins::from_entries(s.tool_errors.into_vec());
        stats.reasoning = s.reasoning.into_iter().collect();
        stats.step_costs = s
            .step_costs
            .into_iter()
            .map(|(k, session, c)| (k, (session, c)))
            .collect();
        stats.records_by = s
            .records_by
            .into_iter()
            .map(|(d, i, n)| ((d, i), n))
            .collect();
        Ok(stats)
    }

    /// The full JSON report (`ndjq.stats/1`).
    pub fn report(&self, by: Option<GroupBy>) -> Report {
        let t = self.totals();
        Report {
            schema: SCHEMA.to_string(),
            files: self.summary.files,
            lines: self.summary.records,
            bytes: self.summary.bytes,
            valid: self.summary.valid,
            invalid: self.summary.invalid,
            empty: self.summary.empty,
            dialects: self.dialects.clone(),
            types: self.types.clone(),
            diagnostics: self
                .summary
                .by_code
                .iter()
                .map(|(c, n)| (c.as_str().to_string(), *n))
                .collect(),
            sessions: t.sessions,
            tokens: t.tokens,
            result_tokens: t.result_tokens,
            cost_usd: t.cost_usd,
            turns: t.turns,
            duration_ms: t.duration_ms,
            tools: t.tools,
            models: t.models,
            cost_usd_estimated: None,
            unpriced_models: None,
            by: by.map(|b| b.name().to_string()),
            groups: by.map(|b| self.groups(b)),
            state: self.to_state(),
        }
    }
}

fn row(rows: &mut BTreeMap<String, Group>, key: String) -> &mut Group {
    rows.entry(key.clone()).or_insert_with(|| Group {
        key,
        ..Group::default()
    })
}

/// FNV-1a, 64 bits: a digest that stays the same across versions and machines, since it
/// travels in partial stats.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Costs are sums of decimal dollar amounts: rounding to 1e-9 USD hides float noise.
fn round_cost(c: f64) -> f64 {
    (c * 1e9).round() / 1e9
}

fn sorted<T: Ord + Copy, I: Iterator<Item = T>>(it: I) -> Vec<T> {
    let mut v: Vec<T> = it.collect();
    v.sort_unstable();
    v
}

/// What a merge needs beyond the totals; part of the JSON report under `state`. Entries
/// name strings and attributions by their index in `strings` and `attrs`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    strings: Vec<String>,
    attrs: Vec<Attr>,
    sessions: Vec<u32>,
    /// `[key, [input, output, cache_creation, cache_read], attribution]`, sorted by key.
    messages: View<MessageEntry>,
    /// The exact counts of the messages whose counts do not fit 32 bits.
    big_tokens: Vec<(Key, Tokens)>,
    extra_usage: Vec<(u32, Tokens)>,
    codex_totals: Vec<(u32, Tokens, u32)>,
    results: Vec<(u32, SessionResult)>,
    codex_turns: Vec<(Key, u32)>,
    /// `[key, tool name, attribution]`, sorted by key.
    tool_calls: View<ToolEntry>,
    tool_errors: View<Key>,
    /// `[key, reasoning tokens]` of the messages that report some apart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reasoning: Vec<(Key, u64)>,
    /// `[key, session, cost]`: costs reported per step (OpenCode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    step_costs: Vec<(Key, u32, f64)>,
    records_by: Vec<(Dim, u32, u64)>,
}

/// The JSON report of `ndjq stats` (schema `ndjq.stats/1`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub files: u64,
    pub lines: u64,
    pub bytes: u64,
    pub valid: u64,
    pub invalid: u64,
    pub empty: u64,
    pub dialects: BTreeMap<String, u64>,
    pub types: BTreeMap<String, u64>,
    pub diagnostics: BTreeMap<String, u64>,
    pub sessions: u64,
    pub tokens: Tokens,
    pub result_tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub turns: u64,
    pub duration_ms: u64,
    pub tools: BTreeMap<String, ToolTotals>,
    pub models: BTreeMap<String, Tokens>,
    /// With `--pricing`: the cost of the tokens at the table's prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd_estimated: Option<f64>,
    /// With `--pricing`: models the table has no price for (their tokens are not costed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpriced_models: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
    pub state: State,
}

/// Prices tokens with a LiteLLM price table (`{"model": {"input_cost_per_token": …,
/// "output_cost_per_token": …, "cache_creation_input_token_cost": …,
/// "cache_read_input_token_cost": …}}`): the estimated cost and the models it cannot price.
/// A model is looked up as given, then without a `provider/` prefix in the table's keys.
pub fn estimate_cost(
    models: &BTreeMap<String, Tokens>,
    table: &serde_json::Value,
) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut unpriced = Vec::new();
    for (model, t) in models {
        let entry = table.get(model).or_else(|| {
            table.as_object().and_then(|m| {
                m.iter()
                    .find(|(k, _)| k.rsplit('/').next() == Some(model.as_str()))
                    .map(|(_, v)| v)
            })
        });
        let price = |k: &str| entry.and_then(|e| e.get(k)).and_then(|v| v.as_f64());
        match (
            price("input_cost_per_token"),
            price("output_cost_per_token"),
        ) {
            (Some(i), Some(o)) => {
                let cw = price("cache_creation_input_token_cost").unwrap_or(i);
                let cr = price("cache_read_input_token_cost").unwrap_or(i);
                total += t.input as f64 * i
                    + t.output as f64 * o
                    + t.cache_creation as f64 * cw
                    + t.cache_read as f64 * cr;
            }
            _ => {
                if *t != Tokens::default() {
                    unpriced.push(model.clone());
                }
            }
        }
    }
    (round_cost(total), unpriced)
}
