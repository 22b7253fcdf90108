//! The stats accumulator (SPEC section 5): record tallies, sessions, tokens, cost, tools,
//! and the breakdowns by session, model, tool, type, file, day, week, month and project.
//!
//! Tokens are what the API billed, in one meaning for every agent: `input` is input NOT
//! read from cache (Codex's `input_tokens` include their cached part, so it is the
//! difference), plus `cache_read`, `cache_creation`, `output` and `reasoning_output`.
//!
//! It keeps what an exact answer needs and nothing else: the last usage snapshot of each
//! API message (Claude repeats a message's usage on each of its content-block lines, and
//! those lines carry the `message_start` snapshot) and the last `message_delta` usage of
//! each streamed message, the last `result` of each session (its billed totals replace its
//! messages' sum; cost is cumulative), each session's last model and working directory,
//! the last cumulative Codex token count of each rollout session, tool calls by id and
//! the ids of failed ones. That state is also what makes stats mergeable:
//! [`Stats::merge`] of the stats of consecutive parts equals the stats of the whole, which
//! is how batch mode combines its shards and how `ndjq stats --merge` reduces partial JSON
//! stats computed on other machines. Costs are computed from that state when a report is
//! made ([`Stats::report_priced`]): reported where a session reported one, else
//! estimated per message with a price table ([`crate::pricing`]). Formatting lives in
//! `sink::stats`.
//!
//! Adding an agent's usage: map its counts into [`Tokens`] (non-cached input!) and give
//! them to the store under a message (or turn) key with [`Attr`] naming session, model,
//! file and day (`add_usage`), or per line (`extra_usage`), or as a session's cumulative
//! total (`codex_totals`); a reported cost goes in the session's [`SessionResult`]. Models
//! are priced by name, so a dialect only has to name the model it saw.
//!
//! The per-message and per-tool-call memory is what grows with the input, so it is kept
//! flat (see [`store`]): a 96-bit digest of the id, the six token counts as `u32` (with
//! an exact side table for the rare count that does not fit) and an index into a table
//! of distinct attributions: 40 bytes per API message, 20 per tool call, no allocation
//! per entry.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::json::Json;
use crate::pipeline::Record;
use crate::pricing::{Billed, PriceTable};
use crate::summary::Summary;
use crate::timestamp::{self, TimeRange, TimeZone, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::AddAssign;
use store::{join, Key, Keyed, LastWins, View};

mod agents;
mod state_json;
pub use state_json::StateJson;
mod store;

/// The version of the JSON shape; a field is never renamed without a new version.
pub const SCHEMA: &str = "ndjq.stats/2";

/// The earlier version: its `input` held Codex's cached tokens too, so `--merge` refuses it
/// rather than mix two meanings.
pub const SCHEMA_V1: &str = "ndjq.stats/1";

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens not read from cache.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// The reasoning part of `output`, where the agent reports it (Codex, Gemini
    /// `thoughts`, OpenCode `reasoning`, Qwen's log).
    #[serde(default)]
    pub reasoning_output: u64,
    /// The part of `cache_creation` written to Claude's 1-hour cache (priced higher than
    /// the 5-minute one); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_1h: u64,
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
        self.cache_creation_1h = self.cache_creation_1h.saturating_add(o.cache_creation_1h);
    }
}

impl Tokens {
    /// Claude usage: `input_tokens`, `output_tokens`, `cache_creation_input_tokens`,
    /// `cache_read_input_tokens`.
    fn from_claude(usage: Json<'_>) -> Tokens {
        let [input, output, cache_creation, cache_read, split] = usage.get_many([
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "cache_creation",
        ]);
        let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
        let cache_creation = n(cache_creation);
        Tokens {
            input: n(input),
            output: n(output),
            cache_creation,
            cache_read: n(cache_read),
            reasoning_output: 0,
            cache_creation_1h: n(split.and_then(|s| s.get("ephemeral_1h_input_tokens")))
                .min(cache_creation),
        }
    }

    /// Claude `result.modelUsage` entry: `inputTokens`, `outputTokens`,
    /// `cacheCreationInputTokens`, `cacheReadInputTokens`.
    fn from_model_usage(usage: Json<'_>) -> Tokens {
        let [input, output, cache_creation, cache_read] = usage.get_many([
            "inputTokens",
            "outputTokens",
            "cacheCreationInputTokens",
            "cacheReadInputTokens",
        ]);
        let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
        Tokens {
            input: n(input),
            output: n(output),
            cache_creation: n(cache_creation),
            cache_read: n(cache_read),
            reasoning_output: 0,
            cache_creation_1h: 0,
        }
    }

    /// Codex usage: `input_tokens` includes its `cached_input_tokens`, so non-cached input
    /// is the difference; `cache_write_input_tokens` are cache writes, and
    /// `reasoning_output_tokens` the reasoning part of `output_tokens`.
    fn from_codex(usage: Json<'_>) -> Tokens {
        let [cached, input, output, cache_creation, reasoning_output] = usage.get_many([
            "cached_input_tokens",
            "input_tokens",
            "output_tokens",
            "cache_write_input_tokens",
            "reasoning_output_tokens",
        ]);
        let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
        let cached = n(cached);
        Tokens {
            input: n(input).saturating_sub(cached),
            output: n(output),
            cache_creation: n(cache_creation),
            cache_read: cached,
            reasoning_output: n(reasoning_output),
            cache_creation_1h: 0,
        }
    }

    /// Whether every count is zero.
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }

    /// The counts a price applies to.
    fn billed(&self) -> Billed {
        Billed {
            input: self.input,
            output: self.output,
            cache_creation: self.cache_creation,
            cache_read: self.cache_read,
            cache_creation_1h: self.cache_creation_1h,
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

/// The session (or model) an input's records have before the input names one: unknown
/// here, and, when `--merge` adds a part that continues the part before it (a rollout
/// split mid-session), that part's last session (or model): see [`Stats::merge_continued`].
/// Shown as `(none)`, like [`NONE`].
const INHERIT: u32 = u32::MAX - 1;

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
    index: IdMap<Attr, u32>,
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
type Packed = [u32; 6];
const BIG: Packed = [u32::MAX; 6];

fn pack(t: Tokens) -> Packed {
    let f = |v: u64| u32::try_from(v).ok().filter(|&v| v != u32::MAX);
    match (
        f(t.input),
        f(t.output),
        f(t.cache_creation),
        f(t.cache_read),
        f(t.reasoning_output),
        f(t.cache_creation_1h),
    ) {
        (Some(a), Some(b), Some(c), Some(d), Some(e), Some(g)) => [a, b, c, d, e, g],
        _ => BIG,
    }
}

/// One API message's (or Codex turn's) last usage snapshot: 40 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct MessageEntry(Key, Packed, u32);

impl Keyed for MessageEntry {
    fn key(&self) -> Key {
        self.0
    }
}

/// A Claude `message_delta`'s cumulative usage, by its message's key: the counts it carries
/// (bit 0 input, 1 output, 2 cache_creation, 3 cache_read of the mask) replace the
/// message's snapshot's, since the delta comes last.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct DeltaEntry(Key, Tokens, u8);

impl Keyed for DeltaEntry {
    fn key(&self) -> Key {
        self.0
    }
}

impl DeltaEntry {
    fn apply(&self, mut t: Tokens) -> Tokens {
        let d = self.1;
        let m = self.2;
        if m & 1 != 0 {
            t.input = d.input;
        }
        if m & 2 != 0 {
            t.output = d.output;
        }
        if m & 4 != 0 {
            t.cache_creation = d.cache_creation;
        }
        if m & 8 != 0 {
            t.cache_read = d.cache_read;
        }
        t
    }
}

/// A stream message's id key (`message.id` alone, as `message_delta` names it) and its
/// message key (with its request id).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Link(Key, Key);

impl Keyed for Link {
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
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SessionResult {
    /// The last result usage with integer input and output tokens.
    tokens: Option<Tokens>,
    /// That result's `modelUsage`, by model (a string index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    model_usage: Option<Vec<(u32, Tokens)>>,
    /// The last cost reported (cumulative for the session).
    cost_usd: Option<f64>,
    turns: Option<u64>,
    duration_ms: Option<u64>,
    file: u32,
    day: u32,
}

/// Strings shared by attributions (sessions, models, files, days, tool names). Each is
/// stored once, shared by the list and the index: a distinct session id costs its length
/// plus about 60 bytes here (docs/PERFORMANCE.md).
#[derive(Debug, Clone, Default)]
struct Strings {
    names: Vec<std::sync::Arc<str>>,
    /// foldhash, seeded per process: much faster than SipHash on the paths and ids of
    /// every part a merge re-indexes, and still not predictable from the input.
    index: HashMap<std::sync::Arc<str>, u32, foldhash::fast::RandomState>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(NONE - 2);
        let name: std::sync::Arc<str> = std::sync::Arc::from(s);
        self.names.push(name.clone());
        self.index.insert(name, i);
        i
    }

    fn get(&self, i: u32) -> Option<&str> {
        self.names.get(i as usize).map(|s| &**s)
    }
}

/// The top-level fields of a Claude record, read with the type in one walk.
#[derive(Clone, Copy)]
struct ClaudeTop<'a> {
    /// `session_id`, else `sessionId`.
    session: Option<Json<'a>>,
    message: Option<Json<'a>>,
    cwd: Option<Json<'a>>,
    /// An old transcript's per-message `costUSD`.
    cost: Option<f64>,
    /// `requestId`, else `request_id`, and whether it was `request_id` (stream-json).
    request: Option<(Json<'a>, bool)>,
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
    /// The last time a record of this input carried (for `--since` / `--until`).
    last_time: Option<Timestamp>,
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
    sessions: HashSet<u32, BuildHasherDefault<IdHasher>>,
    /// The last usage snapshot of each API message (and Codex exec turn).
    messages: LastWins<MessageEntry>,
    /// Claude `message_delta` usage, by message id key.
    deltas: LastWins<DeltaEntry>,
    /// Stream messages' id keys to their message keys.
    links: LastWins<Link>,
    /// Each session's working directory (its project).
    session_cwd: IdMap<u32, u32>,
    /// Costs reported per message or step (old transcripts' `costUSD`, OpenCode
    /// `step_finish.cost`), by key: attribution and cost. A session without a result's
    /// cost reports their sum.
    message_costs: HashMap<Key, (u32, f64)>,
    /// The model of each session's last assistant message (a string index each).
    last_model: IdMap<u32, u32>,
    /// The exact counts of the messages whose entry says [`BIG`].
    big_tokens: HashMap<Key, Tokens>,
    /// Usage that is counted per line (no message id), by attribution.
    extra_usage: IdMap<u32, Tokens>,
    /// Codex rollouts: the last cumulative `total_token_usage` of each session, with its
    /// attribution.
    codex_totals: IdMap<u32, (Tokens, u32)>,
    results: IdMap<u32, SessionResult>,
    /// Codex exec turns (completed or failed), by key (see `add_codex`), to attribution.
    codex_turns: HashMap<Key, u32>,
    tool_calls: LastWins<ToolEntry>,
    tool_errors: LastWins<Key>,
    /// Records by session, file and day.
    records_by: IdMap<(Dim, u32), u64>,
    context: Option<InputContext>,
    /// The session and model the last input ended in, when it named either: what the
    /// records of a part that continues it inherit (`--merge`).
    tail: Option<(u32, u32)>,
    /// The price tables the reports a `--merge` read were made with.
    pub parts_pricing: BTreeSet<String>,
    /// A reused buffer for the `type/subtype` key.
    type_key: String,
    clock: Clock,
    /// The last timestamp read (to the minute, UTC) and its hour's string index.
    hour_cache: Option<(String, u32)>,
    /// `--follow`: the context of each input that paused (another file's records came),
    /// for when it resumes; `None` unless [`Stats::keep_paused_inputs`] was called.
    paused: Option<HashMap<u32, InputContext>>,
}

/// The hasher of maps keyed by small numbers (string and attribution indexes), updated
/// for every record: FxHash's multiply and rotate, where the standard SipHash (made to
/// resist keys chosen by an attacker, which indexes are not) cost more than the counting.
#[derive(Debug, Clone, Copy, Default)]
struct IdHasher(u64);

/// A map keyed by indexes (see [`IdHasher`]).
type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
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
    Week,
    Month,
    Project,
    Block,
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
            GroupBy::Week => "week",
            GroupBy::Month => "month",
            GroupBy::Project => "project",
            GroupBy::Block => "block",
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
    /// Reported plus estimated.
    pub cost_usd: Option<f64>,
    /// The estimated part of `cost_usd`.
    #[serde(default)]
    pub cost_usd_estimated: Option<f64>,
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
    pub cost_usd_reported: Option<f64>,
    pub cost_usd_estimated: Option<f64>,
    pub pricing: Option<String>,
    pub unpriced_models: Vec<String>,
    pub turns: u64,
    pub duration_ms: u64,
    pub tools: BTreeMap<String, ToolTotals>,
    pub models: BTreeMap<String, Tokens>,
}

/// The time settings of a run: the zone days, weeks, months and blocks are counted in,
/// and `--since` / `--until`.
#[derive(Debug, Clone)]
pub struct Clock {
    pub tz: TimeZone,
    pub range: TimeRange,
}

impl Default for Clock {
    /// UTC, unbounded (the command line passes the system's zone).
    fn default() -> Self {
        Clock {
            tz: TimeZone::UTC,
            range: TimeRange::default(),
        }
    }
}

/// The hour of a time in `tz`, as `YYYY-MM-DDTHH`: what attributions record, days, weeks,
/// months and blocks being read from it.
fn hour_in(t: Timestamp, tz: &TimeZone) -> String {
    let z = t.to_zoned(tz.clone());
    format!(
        "{:04}-{:02}-{:02}T{:02}",
        z.year(),
        z.month(),
        z.day(),
        z.hour()
    )
}

/// The time of a record's `timestamp` (ISO string or epoch milliseconds).
fn time_of(ts: Json<'_>) -> Option<Timestamp> {
    match ts.kind() {
        crate::json::Kind::String => ts.as_str().and_then(timestamp::parse_iso),
        crate::json::Kind::Number => ts.as_f64().and_then(timestamp::from_epoch_ms),
        _ => None,
    }
}

/// The day (`YYYY-MM-DD`) of an hour key.
fn day_part(hour: &str) -> &str {
    hour.get(..10).unwrap_or(hour)
}

/// Claude's 5-hour billing windows, as ccusage counts them: a block starts at the hour of
/// the first activity not in an earlier block and lasts five hours. Every hour key to its
/// block's name (`YYYY-MM-DD HH:00`).
fn blocks_of<'a>(hours: impl Iterator<Item = &'a str>) -> HashMap<String, String> {
    let abs = |h: &str| -> Option<i64> {
        let y: i64 = h.get(..4)?.parse().ok()?;
        let m: i64 = h.get(5..7)?.parse().ok()?;
        let d: i64 = h.get(8..10)?.parse().ok()?;
        let hh: i64 = h.get(11..13)?.parse().ok()?;
        Some(days_from_civil(y, m, d) * 24 + hh)
    };
    let mut sorted: Vec<(i64, &str)> = hours.filter_map(|h| Some((abs(h)?, h))).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = HashMap::new();
    let mut start: Option<(i64, String)> = None;
    for (n, h) in sorted {
        let open = matches!(&start, Some((s, _)) if n < s + 5);
        if !open {
            start = Some((
                n,
                format!("{} {}:00", day_part(h), h.get(11..13).unwrap_or("00")),
            ));
        }
        if let Some((_, name)) = &start {
            out.insert(h.to_string(), name.clone());
        }
    }
    out
}

impl Stats {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether an input of `dialect` may be counted in blocks, each by its own
    /// accumulator merged in order: not when its records inherit context from earlier ones
    /// (Codex items and Gemini events their session, Copilot events its model, Qwen
    /// results their session's last model), which a block's first records cannot know.
    pub fn counts_in_blocks(dialect: Option<Dialect>) -> bool {
        !matches!(
            dialect,
            Some(
                Dialect::Codex
                    | Dialect::CodexLog
                    | Dialect::JsonRpc
                    | Dialect::Gemini
                    | Dialect::GeminiLog
                    | Dialect::Qwen
                    | Dialect::Copilot
            )
        )
    }

    /// Stats whose days are counted in `clock.tz` and whose records are those in
    /// `clock.range` (a record without a time takes its input's last one).
    /// Sorts what the per-message and per-tool stores hold (a worker's part, before the
    /// merge takes it): the merge then sorts runs already in order, on one thread.
    pub fn settle_stores(&mut self) {
        self.messages.settle_pending();
        self.deltas.settle_pending();
        self.links.settle_pending();
        self.tool_calls.settle_pending();
        self.tool_errors.settle_pending();
    }

    pub fn with_clock(clock: Clock) -> Self {
        Stats {
            clock,
            ..Self::default()
        }
    }

    /// The time settings, for the shards of a parallel run.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The hour key of a record's timestamp in the clock's zone, as a string index.
    fn hour_id(&mut self, ts: Json<'_>, time: Option<Timestamp>) -> u32 {
        // Records of one session come seconds apart: a `…Z` time in the same minute as
        // the last one is in the same hour.
        let key = ts
            .as_str()
            .filter(|s| s.ends_with('Z') && s.len() >= 16)
            .map(|s| &s[..16]);
        if let (Some(k), Some((last, id))) = (key, &self.hour_cache) {
            if k == last {
                return *id;
            }
        }
        let Some(t) = time.or_else(|| time_of(ts)) else {
            return NONE;
        };
        let hour = hour_in(t, &self.clock.tz);
        let id = self.strings.id(&hour);
        if let Some(k) = key {
            self.hour_cache = Some((k.to_string(), id));
        }
        id
    }

    /// A new input begins: later records are attributed to `file`.
    pub fn begin_input(&mut self, file: &str) {
        self.summary.files += 1;
        let file = self.strings.id(file);
        self.context = Some(InputContext {
            file,
            dialect: None,
            session: INHERIT,
            model: INHERIT,
            last_time: None,
            process: 0,
            turn: 0,
            records: 0,
        });
    }

    /// An input read before goes on (`--follow`): as [`Stats::begin_input`], but the file
    /// is counted once.
    pub fn resume_input(&mut self, file: &str) {
        self.begin_input(file);
        self.summary.files = self.summary.files.saturating_sub(1);
        let id = self.strings.id(file);
        if let Some(saved) = self.paused.as_ref().and_then(|p| p.get(&id)) {
            // A Codex thread, a rollout's session and model go on where they were.
            self.context = Some(*saved);
        }
    }

    /// Keeps each ended input's context for [`Stats::resume_input`] (`--follow`, where an
    /// input pauses while another file grows and resumes later).
    pub fn keep_paused_inputs(&mut self) {
        self.paused.get_or_insert_with(HashMap::new);
    }

    /// The input ended; its records are counted under its dialect.
    pub fn end_input(&mut self, dialect: Option<Dialect>) {
        if let Some(ctx) = self.context.take() {
            let known = |i: u32| i < INHERIT;
            self.tail =
                (known(ctx.session) || known(ctx.model)).then_some((ctx.session, ctx.model));
            if ctx.records > 0 {
                let name = dialect.or(ctx.dialect).map_or("(none)", Dialect::name);
                *self.dialects.entry(name.to_string()).or_insert(0) += ctx.records;
            }
            if let Some(paused) = self.paused.as_mut() {
                paused.insert(ctx.file, InputContext { records: 0, ..ctx });
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
                session: INHERIT,
                model: INHERIT,
                last_time: None,
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
        // Every record is in one row of a breakdown by time (records without a time in
        // `(none)`), so the rows add up to the lines read; a record out of --since/--until
        // is in none (docs/REFERENCE.md, stats).
        let day = match record.value {
            Some(value) => self.add_value(value, &record.info, &mut ctx),
            None => Some(NONE),
        };
        if let Some(day) = day {
            *self.records_by.entry((Dim::Day, day)).or_insert(0) += 1;
        }
        self.context = Some(ctx);
    }

    /// Adds a JSON record; returns the hour it is counted under (NONE without a time), or
    /// `None` for a record out of --since/--until.
    fn add_value(
        &mut self,
        v: Json<'_>,
        info: &crate::dialect::RecordInfo<'_>,
        ctx: &mut InputContext,
    ) -> Option<u32> {
        // The top-level fields every record is read for, in one walk over it.
        let [ty, subtype, timestamp, session_id, session_id_camel, message, request_id, request_id_snake, cwd, cost] =
            v.get_many([
                "type",
                "subtype",
                "timestamp",
                "session_id",
                "sessionId",
                "message",
                "requestId",
                "request_id",
                "cwd",
                "costUSD",
            ]);
        let ty = ty.and_then(|t| t.as_str());
        // --since / --until: a record out of range is counted as read, nothing more. One
        // without a time of its own (a stream's result line) has its input's last one.
        let mut time = None;
        if !self.clock.range.is_unbounded() {
            time = timestamp.and_then(time_of);
            if time.is_some() {
                ctx.last_time = time;
            }
            match time.or(ctx.last_time) {
                Some(t) if !self.clock.range.contains(t) => return None,
                _ => {}
            }
        }
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
            return Some(NONE);
        }
        let day = timestamp.map_or(NONE, |t| self.hour_id(t, time));

        match info.dialect {
            Some(d) if agents::handles(Some(d)) => self.add_agent(d, v, ty, ctx, day),
            Some(Dialect::Codex) => self.add_codex(v, ty, ctx, day),
            Some(Dialect::CodexLog) => self.add_codex_log(v, ty, ctx, day),
            _ => {
                let top = ClaudeTop {
                    session: session_id.or(session_id_camel),
                    message,
                    cwd,
                    cost: cost.and_then(|c| c.as_cost()),
                    request: request_id
                        .map(|r| (r, false))
                        .or(request_id_snake.map(|r| (r, true))),
                };
                self.add_claude(v, top, ty, ctx, day)
            }
        }
        Some(day)
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
        Tokens {
            input: u64::from(m.1[0]),
            output: u64::from(m.1[1]),
            cache_creation: u64::from(m.1[2]),
            cache_read: u64::from(m.1[3]),
            reasoning_output: u64::from(m.1[4]),
            cache_creation_1h: u64::from(m.1[5]),
        }
    }

    /// A session's working directory: the first one a record names. Every directory named
    /// is interned, even one that does not become the session's: a batch shard that sees
    /// only a later part of the session interns it too, and the merged string table must
    /// be the one a single pass makes (its order decides the report's bytes on any `-j`).
    fn set_cwd(&mut self, session: u32, cwd: &str) {
        let cwd = self.strings.id(cwd);
        self.session_cwd.entry(session).or_insert(cwd);
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

    /// A Claude API message's usage snapshot (an `assistant` line or a `message_start`),
    /// keyed by its `message.id`; without an id it counts once per line.
    fn add_claude_message(
        &mut self,
        message: Json<'_>,
        request: Option<(Json<'_>, bool)>,
        session: u32,
        ctx: &InputContext,
        day: u32,
    ) -> u32 {
        let [model, usage, id] = message.get_many(["model", "usage", "id"]);
        let model_name = model.and_then(|m| m.as_str());
        let model = model_name.map_or(NONE, |m| self.strings.id(m));
        if session != NONE && model != NONE && model_name != Some("<synthetic>") {
            self.last_model.insert(session, model);
        }
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
                    let (req, stream) = match request {
                        Some((r, stream)) => (r.as_str().unwrap_or(""), stream),
                        None => ("", false),
                    };
                    let key = Key::of(&[id, req]);
                    // A stream's `message_delta` names its message by id alone: remember
                    // which request that is (transcripts have no deltas).
                    if stream && !req.is_empty() {
                        self.links.push(Link(Key::of(&[id, ""]), key));
                    }
                    self.add_usage(key, tokens, attr)
                }
                None => *self.extra_usage.entry(attr).or_default() += tokens,
            }
        }
        attr
    }

    /// A `stream_event` `message_delta`: its cumulative usage, for the message its
    /// `api_message_id` names (SPEC 5).
    fn add_message_delta(&mut self, v: Json<'_>, event: Json<'_>) {
        if event.get("type").and_then(|t| t.as_str()) != Some("message_delta") {
            return;
        }
        let id = v
            .get("api_message_id")
            .and_then(|i| i.as_str())
            .or_else(|| {
                event
                    .get("message")
                    .and_then(|m| m.get("id"))
                    .and_then(|i| i.as_str())
            });
        let (Some(id), Some(usage)) = (id, event.get("usage").filter(|u| u.is_object())) else {
            return;
        };
        let [input, output, cache_creation, cache_read] = usage.get_many([
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]);
        let mut mask = 0u8;
        let mut n = |v: Option<Json<'_>>, bit: u8| match v.and_then(|v| v.as_count()) {
            Some(n) => {
                mask |= bit;
                n
            }
            None => 0,
        };
        let tokens = Tokens {
            input: n(input, 1),
            output: n(output, 2),
            cache_creation: n(cache_creation, 4),
            cache_read: n(cache_read, 8),
            reasoning_output: 0,
            cache_creation_1h: 0,
        };
        if mask != 0 {
            // Keyed as a message without request id would be, which is what it applies
            // to unless a link says otherwise.
            self.deltas
                .push(DeltaEntry(Key::of(&[id, ""]), tokens, mask));
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
        if let (true, Some(cwd)) = (session != NONE, top.cwd.and_then(|c| c.as_str())) {
            self.set_cwd(session, cwd);
        }
        match ty {
            Some("assistant") => {
                let Some(message) = top.message else {
                    return;
                };
                let attr = self.add_claude_message(message, top.request, session, ctx, day);
                if let Some(cost) = top.cost {
                    // Old transcripts: a cost per message, repeated on its lines.
                    let id = message.get("id").and_then(|i| i.as_str());
                    let req = top.request.and_then(|(r, _)| r.as_str()).unwrap_or("");
                    let key = match id {
                        Some(id) => Key::of(&[id, req]),
                        None => Key::of(&["costUSD line", &self.message_costs.len().to_string()]),
                    };
                    self.message_costs.insert(key, (attr, cost));
                }
                if let Some(content) = message.get("content") {
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
            Some("stream_event") => {
                if let Some(event) = v.get("event") {
                    self.add_message_delta(v, event);
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
                let mut model_usage: Option<Vec<(u32, Tokens)>> = None;
                if let Some(mu) = v.get("modelUsage").filter(|m| m.is_object()) {
                    let mut list = Vec::new();
                    mu.for_each_entry(|model, usage| {
                        if usage.is_object() {
                            list.push((model.to_string(), Tokens::from_model_usage(usage)));
                        }
                    });
                    if !list.is_empty() {
                        model_usage = Some(
                            list.into_iter()
                                .map(|(m, t)| (self.strings.id(&m), t))
                                .collect(),
                        );
                    }
                }
                let entry = self.results.entry(session).or_default();
                entry.file = ctx.file;
                entry.day = day;
                if let Some(usage) = v.get("usage") {
                    let has_ints = usage
                        .get("input_tokens")
                        .and_then(|n| n.as_count())
                        .is_some()
                        && usage
                            .get("output_tokens")
                            .and_then(|n| n.as_count())
                            .is_some();
                    if has_ints {
                        entry.tokens = Some(Tokens::from_claude(usage));
                        entry.model_usage = model_usage;
                    }
                }
                if let Some(cost) = ["total_cost_usd", "cost_usd", "costUSD"]
                    .iter()
                    .find_map(|k| v.get(k).and_then(|c| c.as_cost()))
                {
                    entry.cost_usd = Some(cost);
                }
                if let Some(t) = v.get("num_turns").and_then(|n| n.as_count()) {
                    entry.turns = Some(t);
                }
                if let Some(d) = v.get("duration_ms").and_then(|n| n.as_count()) {
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
                let Some(name) = crate::dialect::codex_tool_name(item) else {
                    return;
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
                let failed = crate::dialect::codex_item_failed(item);
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
        // The payload's fields, found in one walk over it.
        let [ptype, id, model, cwd, info, name, call_id, output] = match payload {
            Some(p) => p.get_many([
                "type", "id", "model", "cwd", "info", "name", "call_id", "output",
            ]),
            None => [None; 8],
        };
        fn str_of(v: Option<Json<'_>>) -> Option<&str> {
            v.and_then(|v| v.as_str())
        }
        match ty {
            Some("session_meta") => {
                if let Some(id) = str_of(id) {
                    ctx.session = self.session_id(id);
                }
            }
            Some("turn_context") => {
                if let Some(m) = str_of(model) {
                    ctx.model = self.strings.id(m);
                }
            }
            _ => {}
        }
        if matches!(ty, Some("session_meta" | "turn_context")) && ctx.session != NONE {
            if let Some(cwd) = str_of(cwd) {
                self.set_cwd(ctx.session, cwd);
            }
        }
        self.count_session_record(ctx.session);
        if payload.is_none() {
            return;
        }
        let attr = self.attrs.id(Attr {
            session: ctx.session,
            model: ctx.model,
            file: ctx.file,
            day,
        });
        let ptype = str_of(ptype);
        match (ty, ptype) {
            (Some("event_msg"), Some("token_count")) => {
                // The cumulative total: the last one of a session is its usage, however
                // often a count is re-emitted.
                if let Some(total) = info.and_then(|i| i.get("total_token_usage")) {
                    let tokens = Tokens::from_codex(total);
                    self.codex_totals.insert(ctx.session, (tokens, attr));
                }
            }
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call"),
            ) => {
                let name = str_of(name).unwrap_or(ptype.unwrap_or("(unknown)"));
                let name = codex_tool_name(ptype.unwrap_or(""), name);
                if let Some(id) = str_of(call_id) {
                    let name = self.strings.id(name);
                    self.tool_calls.push(ToolEntry(Key::of(&[id]), name, attr));
                }
            }
            (
                Some("response_item"),
                Some(
                    "function_call_output" | "custom_tool_call_output" | "local_shell_call_output",
                ),
            ) => {
                let Some(id) = str_of(call_id) else {
                    return;
                };
                if output.is_some_and(crate::dialect::codex_tool_failed) {
                    self.tool_errors.push(Key::of(&[id]));
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
                    let model = model.map_or(ctx.model, |m| self.strings.id(m));
                    if ctx.session != NONE && model != NONE {
                        // The session's last model: what only its result counts goes
                        // there (Qwen Code's memory extraction, SPEC 5).
                        self.last_model.insert(ctx.session, model);
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
                    // Tokens given here are the session's billed totals: billing() makes
                    // the session's tokens these, as for a Claude result.
                    let entry = self.results.entry(ctx.session).or_default();
                    entry.file = ctx.file;
                    entry.day = day;
                    if tokens.is_some() {
                        entry.model_usage = None;
                    }
                    entry.tokens = tokens.or(entry.tokens);
                    entry.duration_ms = duration_ms.or(entry.duration_ms);
                    entry.turns = turns.or(entry.turns);
                }
                agents::Fact::StepCost { key, cost_usd } => {
                    // Reported, per step: summed per session like old transcripts'
                    // per-message `costUSD` (SPEC 5).
                    let a = attr(self, ctx, ctx.model);
                    self.message_costs.insert(key, (a, cost_usd));
                }
            }
        }
        self.count_session_record(ctx.session);
    }

    /// Adds the stats of the records that came after this one's (batch shards, `--merge`):
    /// counters add up, sets unite, and for a key both know, `later`'s last value wins.
    pub fn merge(&mut self, later: Stats) {
        self.merge_with(later, false);
    }

    /// [`Stats::merge`] of a part that continues this one's last input (`stats --merge`):
    /// what the later part's first input had before it named a session or a model (a
    /// Codex rollout or another agent's log split mid-session) is this part's last
    /// session and model, so a split's merge equals the whole (docs/REFERENCE.md).
    pub fn merge_continued(&mut self, later: Stats) {
        self.merge_with(later, true);
    }

    fn merge_with(&mut self, later: Stats, continued: bool) {
        self.summary.merge(&later.summary);
        self.parts_pricing
            .extend(later.parts_pricing.iter().cloned());
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
        let re = |i: u32| -> u32 {
            if i == INHERIT {
                return INHERIT;
            }
            map.get(i as usize).copied().unwrap_or(NONE)
        };
        // An inherited session or model: this part's last, when the later part continues it.
        let (tail_session, tail_model) = match (continued, self.tail) {
            (true, Some(t)) => t,
            _ => (INHERIT, INHERIT),
        };
        let rs = |i: u32| -> u32 {
            if i == INHERIT {
                tail_session
            } else {
                re(i)
            }
        };
        let rm = |i: u32| -> u32 {
            if i == INHERIT {
                tail_model
            } else {
                re(i)
            }
        };
        let amap: Vec<u32> = later
            .attrs
            .list
            .iter()
            .map(|a| {
                self.attrs.id(Attr {
                    session: rs(a.session),
                    model: rm(a.model),
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
        self.deltas.extend_later(later.deltas, |d| d);
        self.links.extend_later(later.links, |l| l);
        for (s, m) in later.last_model {
            self.last_model.insert(rs(s), rm(m));
        }
        for (s, c) in later.session_cwd {
            self.session_cwd.entry(rs(s)).or_insert(re(c));
        }
        for (k, (a, c)) in later.message_costs {
            self.message_costs.insert(k, (ra(a), c));
        }
        for (a, t) in later.extra_usage {
            *self.extra_usage.entry(ra(a)).or_default() += t;
        }
        // Cumulative totals: the later snapshot of a session replaces the earlier one.
        for (s, (t, a)) in later.codex_totals {
            self.codex_totals.insert(rs(s), (t, ra(a)));
        }
        for (s, r) in later.results {
            let entry = self.results.entry(rs(s)).or_default();
            entry.file = re(r.file);
            entry.day = re(r.day);
            if r.tokens.is_some() {
                entry.model_usage = r
                    .model_usage
                    .map(|l| l.into_iter().map(|(m, t)| (re(m), t)).collect());
            }
            entry.tokens = r.tokens.or(entry.tokens);
            entry.cost_usd = r.cost_usd.or(entry.cost_usd);
            entry.turns = r.turns.or(entry.turns);
            entry.duration_ms = r.duration_ms.or(entry.duration_ms);
        }
        for (k, a) in later.codex_turns {
            self.codex_turns.insert(k, ra(a));
        }
        self.tool_calls
            .extend_later(later.tool_calls, |c| ToolEntry(c.0, re(c.1), ra(c.2)));
        self.tool_errors.extend_later(later.tool_errors, |k| k);
        for ((d, i), n) in later.records_by {
            let i = if d == Dim::Session { rs(i) } else { re(i) };
            let e = self.records_by.entry((d, i)).or_insert(0);
            *e = e.saturating_add(n);
        }
        // The later part's last input is now the last one (a block of an input, which
        // began no input, leaves it).
        if later.summary.files > 0 {
            match later.tail {
                Some((s, m)) => self.tail = Some((rs(s), rm(m))),
                // A continuing part that never named a session or model goes on in this
                // part's (a rollout cut in three).
                None if continued => {}
                None => self.tail = None,
            }
        }
        if let (Some(mine), Some(theirs)) = (self.context.as_mut(), later.context) {
            mine.records = mine.records.saturating_add(theirs.records);
            mine.dialect = theirs.dialect.or(mine.dialect);
        }
    }

    fn name(&self, i: u32) -> String {
        self.strings.get(i).unwrap_or("(none)").to_string()
    }

    /// What each attribution was billed, and its estimated cost: every message's last
    /// snapshot (its `message_delta` usage applied), per-line usage and Codex rollout
    /// totals; then, per session whose last `result` carries integer usage, the result's
    /// totals (SPEC 5): per model from `modelUsage`, else the difference from the messages'
    /// sum attributed to the session's last model, at the result's file, day and project.
    fn billing(&self, pricing: &Pricing<'_>) -> Billing {
        let mut reported: HashMap<u32, f64> = HashMap::new();
        if pricing.mode != CostMode::Estimated {
            for (s, r) in &self.results {
                if let Some(c) = r.cost_usd {
                    reported.insert(*s, c);
                }
            }
            // A session without a result's cost: the sum of its messages' `costUSD`.
            let mut by_message: HashMap<u32, f64> = HashMap::new();
            for (a, c) in self.message_costs.values() {
                let s = self.attrs.get(*a).session;
                if !reported.contains_key(&s) {
                    *by_message.entry(s).or_insert(0.0) += c;
                }
            }
            reported.extend(by_message);
        }
        let table = match pricing.mode {
            CostMode::Reported => None,
            _ => pricing.table,
        };
        let estimates = |session: u32| table.is_some() && !reported.contains_key(&session);
        let mut prices: HashMap<u32, Option<crate::pricing::Price>> = HashMap::new();
        let mut unpriced: BTreeSet<String> = BTreeSet::new();
        // Prices `t` of attribution `a` (when its session's cost is estimated).
        let mut price = |a: Attr, t: Tokens, tiers: bool| -> Option<f64> {
            let table = table?;
            if !estimates(a.session) || t.is_zero() {
                return None;
            }
            let p = *prices
                .entry(a.model)
                .or_insert_with(|| self.strings.get(a.model).and_then(|m| table.price(m)));
            match p {
                Some(p) => Some(p.cost(t.billed(), tiers)),
                None => {
                    unpriced.insert(self.name(a.model));
                    None
                }
            }
        };
        let mut by: Vec<Acc> = vec![Acc::default(); self.attrs.list.len() + 1];
        let last = self.attrs.list.len();
        let mut add =
            |i: u32,
             a: Attr,
             t: Tokens,
             tiers: bool,
             price: &mut dyn FnMut(Attr, Tokens, bool) -> Option<f64>| {
                let acc = &mut by[(i as usize).min(last)];
                acc.used = true;
                acc.tokens += t;
                if let Some(c) = price(a, t, tiers) {
                    acc.estimated += c;
                    acc.priced = true;
                }
            };
        let links = self.links.settled();
        let links: HashMap<Key, Key> = links.iter().map(|l| (l.0, l.1)).collect();
        let deltas = self.deltas.settled();
        // A delta applies to its message: the linked one, else the one without request id.
        let deltas: HashMap<Key, DeltaEntry> = deltas
            .iter()
            .map(|d| (links.get(&d.0).copied().unwrap_or(d.0), *d))
            .collect();
        // A Codex thread whose rollout is read too: the rollout's cumulative total is the
        // session's (the thread id is its session id), its exec turns are not added again.
        let rollouts: HashSet<u32> = self.codex_totals.keys().copied().collect();
        for m in self.messages.settled().iter() {
            let a = self.attrs.get(m.2);
            if !rollouts.is_empty() && rollouts.contains(&a.session) {
                continue;
            }
            let mut t = self.tokens_of(m);
            if let Some(d) = deltas.get(&m.0) {
                t = d.apply(t);
            }
            add(m.2, a, t, true, &mut price);
        }
        for (a, t) in &self.extra_usage {
            add(*a, self.attrs.get(*a), *t, true, &mut price);
        }
        for (t, a) in self.codex_totals.values() {
            add(*a, self.attrs.get(*a), *t, false, &mut price);
        }
        let mut rows: BTreeMap<Attr, Acc> = BTreeMap::new();
        for (i, acc) in by.into_iter().enumerate() {
            if acc.used {
                rows.entry(self.attrs.get(i as u32)).or_default().add(&acc);
            }
        }
        // The results' billed totals.
        let mut sessions: Vec<(&u32, &SessionResult)> = self.results.iter().collect();
        sessions.sort_by_key(|(s, _)| **s);
        for (&s, r) in sessions {
            let Some(total) = r.tokens else { continue };
            let mut have: BTreeMap<u32, Tokens> = BTreeMap::new();
            for (a, acc) in rows.range(session_range(s)) {
                *have.entry(a.model).or_default() += acc.tokens;
            }
            let mut want: BTreeMap<u32, Tokens> = BTreeMap::new();
            match &r.model_usage {
                Some(list) => {
                    for m in have.keys() {
                        want.insert(*m, Tokens::default());
                    }
                    for (m, t) in list {
                        *want.entry(*m).or_default() += *t;
                    }
                }
                None => {
                    let model = self.last_model.get(&s).copied().unwrap_or(NONE);
                    want = have.clone();
                    let sum = have.values().fold(Tokens::default(), |mut a, t| {
                        a += *t;
                        a
                    });
                    let w = want.entry(model).or_default();
                    *w = signed_add(*w, total, sum);
                }
            }
            for (model, mut w) in want {
                let h = have.get(&model).copied().unwrap_or_default();
                if r.model_usage.is_some() {
                    // modelUsage does not split cache writes by lifetime: the messages' do.
                    w.cache_creation_1h = h.cache_creation_1h.min(w.cache_creation);
                }
                if w == h {
                    continue;
                }
                let (more, mut less) = split_difference(w, h);
                // Where the result is: a stream's result line has no timestamp, so its
                // day (and what else it lacks) is that of the session's last message.
                let near = rows
                    .range(session_range(s))
                    .filter(|(a, _)| a.model == model)
                    .map(|(a, _)| *a)
                    .next_back()
                    .or_else(|| rows.range(session_range(s)).map(|(a, _)| *a).next_back());
                let or = |mine: u32, theirs: Option<u32>| {
                    if mine == NONE {
                        theirs.unwrap_or(NONE)
                    } else {
                        mine
                    }
                };
                let at = Attr {
                    session: s,
                    model,
                    file: or(r.file, near.map(|a| a.file)),
                    day: or(r.day, near.map(|a| a.day)),
                };
                if !more.is_zero() {
                    let c = price(at, more, false);
                    let acc = rows.entry(at).or_default();
                    acc.tokens += more;
                    if let Some(c) = c {
                        acc.estimated += c;
                        acc.priced = true;
                    }
                }
                if !less.is_zero() {
                    let keys: Vec<Attr> = rows
                        .range(session_range(s))
                        .filter(|(a, _)| a.model == model)
                        .map(|(a, _)| *a)
                        .collect();
                    for a in keys {
                        let Some(acc) = rows.get_mut(&a) else {
                            continue;
                        };
                        let cut = min_tokens(acc.tokens, less);
                        acc.tokens = sub_tokens(acc.tokens, cut);
                        less = sub_tokens(less, cut);
                        if let Some(c) = price(a, cut, false) {
                            acc.estimated -= c;
                        }
                    }
                }
            }
        }
        Billing {
            rows,
            unpriced,
            reported,
            table: table.map(|t| t.name.clone()),
        }
    }

    /// The number of distinct sessions.
    pub fn session_count(&self) -> u64 {
        self.sessions.len() as u64
    }

    /// The totals of SPEC section 5, tokens priced with the built-in table.
    pub fn totals(&self) -> Totals {
        self.totals_priced(&Pricing::default())
    }

    /// The totals of SPEC section 5.
    pub fn totals_priced(&self, pricing: &Pricing<'_>) -> Totals {
        let billing = self.billing(pricing);
        let mut tokens = Tokens::default();
        let mut models: BTreeMap<String, Tokens> = BTreeMap::new();
        let mut estimated: Option<f64> = None;
        for (a, acc) in &billing.rows {
            tokens += acc.tokens;
            *models.entry(self.name(a.model)).or_default() += acc.tokens;
            if acc.priced {
                *estimated.get_or_insert(0.0) += acc.estimated;
            }
        }
        models.retain(|_, t| !t.is_zero());
        let mut result_tokens: Option<Tokens> = None;
        let mut turns = 0;
        let mut duration_ms = 0;
        for r in self.results.values() {
            if let Some(t) = r.tokens {
                *result_tokens.get_or_insert_with(Tokens::default) += t;
            }
            turns = r.turns.unwrap_or(0).saturating_add(turns);
            duration_ms = r.duration_ms.unwrap_or(0).saturating_add(duration_ms);
        }
        let reported =
            (!billing.reported.is_empty()).then(|| billing.reported.values().sum::<f64>());
        let cost = match (reported, estimated) {
            (None, None) => None,
            (r, e) => Some(r.unwrap_or(0.0) + e.unwrap_or(0.0)),
        };
        turns = turns.saturating_add(self.codex_turns.len() as u64);
        Totals {
            sessions: self.sessions.len() as u64,
            tokens,
            result_tokens,
            cost_usd: cost.map(round_cost),
            cost_usd_reported: reported.map(round_cost),
            cost_usd_estimated: estimated.map(round_cost),
            pricing: billing.table,
            unpriced_models: billing.unpriced.into_iter().collect(),
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

    /// The project of attribution `a`: its session's working directory, else the
    /// `~/.claude/projects` folder its file is in.
    fn project_of(&self, a: Attr) -> String {
        if let Some(cwd) = self.session_cwd.get(&a.session) {
            return self.name(*cwd);
        }
        let file = self.strings.get(a.file).unwrap_or("");
        let path = std::path::Path::new(file);
        let mut parts = path.iter().map(|p| p.to_string_lossy());
        while let Some(p) = parts.next() {
            if p == "projects" {
                if let Some(slug) = parts.next() {
                    return slug.to_string();
                }
            }
        }
        "(none)".to_string()
    }

    /// The key of attribution `a` in a breakdown by `by` (a session's block is its
    /// session's first 5-hour window).
    fn group_key(&self, by: GroupBy, a: Attr, blocks: &HashMap<String, String>) -> Option<String> {
        let day = || self.strings.get(a.day).map(day_part);
        match by {
            GroupBy::Session => Some(self.name(a.session)),
            GroupBy::Model => Some(self.name(a.model)),
            GroupBy::File => Some(self.name(a.file)),
            GroupBy::Project => Some(self.project_of(a)),
            GroupBy::Day => Some(day().unwrap_or("(none)").to_string()),
            GroupBy::Block => Some(
                self.strings
                    .get(a.day)
                    .and_then(|h| blocks.get(h))
                    .cloned()
                    .unwrap_or_else(|| "(none)".to_string()),
            ),
            GroupBy::Week => Some(day().and_then(week_of).unwrap_or_else(|| "(none)".into())),
            GroupBy::Month => Some(
                day()
                    .and_then(|d| d.get(..7))
                    .unwrap_or("(none)")
                    .to_string(),
            ),
            GroupBy::Tool | GroupBy::Type => None,
        }
    }

    /// The breakdown by `by`, sorted by key, tokens priced with the built-in table.
    pub fn groups(&self, by: GroupBy) -> Vec<Group> {
        self.groups_priced(by, &Pricing::default())
    }

    /// The breakdown by `by`, sorted by key.
    pub fn groups_priced(&self, by: GroupBy, pricing: &Pricing<'_>) -> Vec<Group> {
        let mut rows: BTreeMap<String, Group> = BTreeMap::new();
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
                let blocks = if by == GroupBy::Block {
                    self.blocks()
                } else {
                    HashMap::new()
                };
                let dim = match by {
                    GroupBy::Session => Some(Dim::Session),
                    GroupBy::File => Some(Dim::File),
                    GroupBy::Day | GroupBy::Week | GroupBy::Month | GroupBy::Block => {
                        Some(Dim::Day)
                    }
                    _ => None,
                };
                if let Some(dim) = dim {
                    for ((d, i), n) in &self.records_by {
                        if *d == dim {
                            if *i == NONE {
                                // Records without a time: the `(none)` row their usage is
                                // in too (see `group_key`).
                                row(&mut rows, "(none)".to_string()).records += n;
                                continue;
                            }
                            let hour = self.strings.get(*i).unwrap_or("");
                            let key = match by {
                                GroupBy::Day => day_part(hour).to_string(),
                                GroupBy::Block => blocks.get(hour).cloned().unwrap_or_default(),
                                GroupBy::Week => week_of(day_part(hour)).unwrap_or_default(),
                                GroupBy::Month => self
                                    .strings
                                    .get(*i)
                                    .and_then(|d| d.get(..7))
                                    .unwrap_or("")
                                    .to_string(),
                                _ => self.name(*i),
                            };
                            row(&mut rows, key).records += n;
                        }
                    }
                }
                self.add_billed(pricing, &mut rows, |a| self.group_key(by, a, &blocks));
            }
        }
        rows.into_iter()
            .map(|(key, g)| Group { key, ..g })
            .collect()
    }

    /// Every hour key to its 5-hour block's name.
    fn blocks(&self) -> HashMap<String, String> {
        blocks_of(
            self.records_by
                .keys()
                .filter(|(d, _)| *d == Dim::Day)
                .filter_map(|(_, i)| self.strings.get(*i))
                .chain(
                    self.attrs
                        .list
                        .iter()
                        .filter_map(|a| self.strings.get(a.day)),
                ),
        )
    }

    /// Adds each attribution's billed tokens, cost and tool calls to the row `key` gives
    /// it (none: left out). The one attribution of figures that every breakdown shares.
    fn add_billed<K: Ord>(
        &self,
        pricing: &Pricing<'_>,
        rows: &mut BTreeMap<K, Group>,
        key: impl Fn(Attr) -> Option<K>,
    ) {
        let billing = self.billing(pricing);
        for (a, acc) in &billing.rows {
            if let Some(k) = key(*a) {
                let g = rows.entry(k).or_default();
                g.tokens += acc.tokens;
                if acc.priced {
                    g.cost_usd = Some(g.cost_usd.unwrap_or(0.0) + acc.estimated);
                    g.cost_usd_estimated =
                        Some(g.cost_usd_estimated.unwrap_or(0.0) + acc.estimated);
                }
            }
        }
        for (session, c) in &billing.reported {
            let Some(r) = self.results.get(session).filter(|r| r.cost_usd.is_some()) else {
                continue;
            };
            let a = Attr {
                session: *session,
                model: self.last_model.get(session).copied().unwrap_or(NONE),
                file: r.file,
                day: r.day,
            };
            if let Some(k) = key(a) {
                let g = rows.entry(k).or_default();
                g.cost_usd = Some(g.cost_usd.unwrap_or(0.0) + c);
            }
        }
        for (a, c) in self.message_costs.values() {
            let a = self.attrs.get(*a);
            let from_result = self
                .results
                .get(&a.session)
                .is_some_and(|r| r.cost_usd.is_some());
            if from_result || !billing.reported.contains_key(&a.session) {
                continue;
            }
            if let Some(k) = key(a) {
                let g = rows.entry(k).or_default();
                g.cost_usd = Some(g.cost_usd.unwrap_or(0.0) + c);
            }
        }
        for g in rows.values_mut() {
            g.cost_usd = g.cost_usd.map(round_cost);
            g.cost_usd_estimated = g.cost_usd_estimated.map(round_cost);
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
            if let Some(k) = key(self.attrs.get(a)) {
                let g = rows.entry(k).or_default();
                g.tool_calls += calls;
                g.tool_errors += errors;
            }
        }
    }

    /// The breakdown by `by`, each row broken down again by `within` (per day and model,
    /// per session and project): `(key, inner key, figures)` sorted by both keys. Records
    /// are not counted (they are kept by one key only), tokens, costs and tool calls are,
    /// exactly as in [`Stats::groups_priced`]. `Tool` and `Type` have no such rows.
    pub fn groups_within(
        &self,
        by: GroupBy,
        within: GroupBy,
        pricing: &Pricing<'_>,
    ) -> Vec<(String, String, Group)> {
        let needs_blocks = by == GroupBy::Block || within == GroupBy::Block;
        let blocks = if needs_blocks {
            self.blocks()
        } else {
            HashMap::new()
        };
        let mut rows: BTreeMap<(String, String), Group> = BTreeMap::new();
        self.add_billed(pricing, &mut rows, |a| {
            Some((
                self.group_key(by, a, &blocks)?,
                self.group_key(within, a, &blocks)?,
            ))
        });
        rows.into_iter().map(|((k, w), g)| (k, w, g)).collect()
    }

    /// Tokens and cost by model or by file (`by`), of the attributions from the hour
    /// `from_hour` (`YYYY-MM-DDTHH` in the clock's zone) on: the current block of the live
    /// view (`stats --follow`). A session's reported cost counts where its result is.
    pub fn groups_since(&self, by: GroupBy, from_hour: &str, pricing: &Pricing<'_>) -> Vec<Group> {
        let mut rows: BTreeMap<String, Group> = BTreeMap::new();
        let recent = |a: Attr| self.strings.get(a.day).is_some_and(|h| h >= from_hour);
        let none = HashMap::new();
        let billing = self.billing(pricing);
        for (a, acc) in &billing.rows {
            if !recent(*a) {
                continue;
            }
            if let Some(k) = self.group_key(by, *a, &none) {
                let g = row(&mut rows, k);
                g.tokens += acc.tokens;
                if acc.priced {
                    g.cost_usd = Some(g.cost_usd.unwrap_or(0.0) + acc.estimated);
                }
            }
        }
        for (session, c) in &billing.reported {
            let Some(r) = self.results.get(session).filter(|r| r.cost_usd.is_some()) else {
                continue;
            };
            let a = Attr {
                session: *session,
                model: self.last_model.get(session).copied().unwrap_or(NONE),
                file: r.file,
                day: r.day,
            };
            if recent(a) {
                if let Some(k) = self.group_key(by, a, &none) {
                    let g = row(&mut rows, k);
                    g.cost_usd = Some(g.cost_usd.unwrap_or(0.0) + c);
                }
            }
        }
        for g in rows.values_mut() {
            g.cost_usd = g.cost_usd.map(round_cost);
        }
        rows.into_values().collect()
    }

    /// [`Stats::report_totals`] while an input is being read (`stats --follow`): its records
    /// so far are counted under its dialect too.
    pub fn report_live(&self, by: Option<GroupBy>, pricing: &Pricing<'_>) -> Report {
        let mut report = self.report_totals(by, pricing);
        if let Some(ctx) = self.context.filter(|c| c.records > 0) {
            let name = ctx.dialect.map_or("(none)", Dialect::name);
            *report.dialects.entry(name.to_string()).or_insert(0) += ctx.records;
        }
        report
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
            deltas: self.deltas.settled(),
            links: self.links.settled(),
            last_model: sorted(self.last_model.iter().map(|(s, m)| (*s, *m))),
            session_cwd: sorted(self.session_cwd.iter().map(|(s, c)| (*s, *c))),
            message_costs: {
                let mut v: Vec<(Key, u32, f64)> = self
                    .message_costs
                    .iter()
                    .map(|(k, (a, c))| (*k, *a, *c))
                    .collect();
                v.sort_by_key(|e| e.0);
                v
            },
            extra_usage: sorted(self.extra_usage.iter().map(|(a, t)| (*a, *t))),
            codex_totals: sorted(self.codex_totals.iter().map(|(s, (t, a))| (*s, *t, *a))),
            results: {
                let mut v: Vec<(u32, SessionResult)> =
                    self.results.iter().map(|(s, r)| (*s, r.clone())).collect();
                v.sort_by_key(|(s, _)| *s);
                v
            },
            codex_turns: sorted(self.codex_turns.iter().map(|(k, a)| (*k, *a))),
            tool_calls: self.tool_calls.settled(),
            tool_errors: self.tool_errors.settled(),
            records_by: sorted(self.records_by.iter().map(|((d, i), n)| (*d, *i, *n))),
            tail: self.tail,
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
        let s = report.state.ok_or_else(|| {
            "no merge state: produce the partial stats with `ndjq stats -f json --mergeable`"
                .to_string()
        })?;
        let mut parts_pricing: BTreeSet<String> = report.parts_pricing.into_iter().collect();
        parts_pricing.extend(report.pricing);
        let mut stats = Stats {
            parts_pricing,
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
        stats.deltas = LastWins::from_entries(s.deltas.into_vec());
        stats.links = LastWins::from_entries(s.links.into_vec());
        stats.last_model = s.last_model.into_iter().collect();
        stats.session_cwd = s.session_cwd.into_iter().collect();
        stats.message_costs = s
            .message_costs
            .into_iter()
            .map(|(k, a, c)| (k, (a, c)))
            .collect();
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
        stats.records_by = s
            .records_by
            .into_iter()
            .map(|(d, i, n)| ((d, i), n))
            .collect();
        stats.tail = s.tail;
        Ok(stats)
    }

    /// The full JSON report (`ndjq.stats/2`), tokens priced with the built-in table.
    pub fn report(&self, by: Option<GroupBy>) -> Report {
        self.report_priced(by, &Pricing::default())
    }

    /// The full JSON report (`ndjq.stats/2`).
    pub fn report_priced(&self, by: Option<GroupBy>, pricing: &Pricing<'_>) -> Report {
        Report {
            state: Some(self.to_state()),
            ..self.report_totals(by, pricing)
        }
    }

    /// The report without its merge state: all that a text, CSV or plain JSON report
    /// shows; the `--mergeable` writer takes the state from [`Stats::to_state`] on the side.
    pub fn report_totals(&self, by: Option<GroupBy>, pricing: &Pricing<'_>) -> Report {
        let t = self.totals_priced(pricing);
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
            cost_usd_reported: t.cost_usd_reported,
            cost_usd_estimated: t.cost_usd_estimated,
            parts_pricing: self
                .parts_pricing
                .iter()
                .filter(|p| t.pricing.as_ref() != Some(*p))
                .cloned()
                .collect(),
            pricing: t.pricing,
            unpriced_models: t.unpriced_models,
            turns: t.turns,
            duration_ms: t.duration_ms,
            tools: t.tools,
            models: t.models,
            by: by.map(|b| b.name().to_string()),
            groups: by.map(|b| self.groups_priced(b, pricing)),
            state: None,
        }
    }
}

/// How `stats` prices tokens: which table, and which costs count.
#[derive(Debug, Clone, Copy)]
pub struct Pricing<'a> {
    pub table: Option<&'a PriceTable>,
    pub mode: CostMode,
}

static BUILTIN_TABLE: std::sync::OnceLock<PriceTable> = std::sync::OnceLock::new();

impl Default for Pricing<'static> {
    /// The built-in table, `auto`.
    fn default() -> Self {
        Pricing {
            table: Some(BUILTIN_TABLE.get_or_init(PriceTable::builtin)),
            mode: CostMode::Auto,
        }
    }
}

/// `--cost`: the costs the agents reported, estimates from token counts, or (auto) the
/// reported cost of each session that has one and an estimate for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CostMode {
    Reported,
    Estimated,
    #[default]
    Auto,
}

/// One attribution's billed tokens and their estimated cost.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    tokens: Tokens,
    estimated: f64,
    /// Some of its tokens were priced.
    priced: bool,
    used: bool,
}

impl Acc {
    fn add(&mut self, o: &Acc) {
        self.tokens += o.tokens;
        self.estimated += o.estimated;
        self.priced |= o.priced;
        self.used |= o.used;
    }
}

/// What [`Stats::billing`] computes.
#[derive(Debug)]
struct Billing {
    rows: BTreeMap<Attr, Acc>,
    unpriced: BTreeSet<String>,
    /// The reported cost of each session whose cost counts as reported.
    reported: HashMap<u32, f64>,
    /// The name of the table estimates came from.
    table: Option<String>,
}

/// The attributions of session `s` (sessions sort first in [`Attr`]).
fn session_range(s: u32) -> std::ops::RangeInclusive<Attr> {
    let lo = Attr {
        session: s,
        model: 0,
        file: 0,
        day: 0,
    };
    let hi = Attr {
        session: s,
        model: u32::MAX,
        file: u32::MAX,
        day: u32::MAX,
    };
    lo..=hi
}

fn per_field(a: Tokens, b: Tokens, f: impl Fn(u64, u64) -> u64) -> Tokens {
    Tokens {
        input: f(a.input, b.input),
        output: f(a.output, b.output),
        cache_creation: f(a.cache_creation, b.cache_creation),
        cache_read: f(a.cache_read, b.cache_read),
        reasoning_output: f(a.reasoning_output, b.reasoning_output),
        cache_creation_1h: f(a.cache_creation_1h, b.cache_creation_1h),
    }
}

fn sub_tokens(a: Tokens, b: Tokens) -> Tokens {
    per_field(a, b, u64::saturating_sub)
}

fn min_tokens(a: Tokens, b: Tokens) -> Tokens {
    per_field(a, b, u64::min)
}

/// `w + plus - minus`, field by field, not below zero.
fn signed_add(w: Tokens, plus: Tokens, minus: Tokens) -> Tokens {
    per_field(
        per_field(w, plus, u64::saturating_add),
        minus,
        u64::saturating_sub,
    )
}

/// What `want` has more than `have`, and what it has less, field by field.
fn split_difference(want: Tokens, have: Tokens) -> (Tokens, Tokens) {
    (sub_tokens(want, have), sub_tokens(have, want))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// The week of a `YYYY-MM-DD` day, named by its Monday (ISO weeks start on Monday).
fn week_of(day: &str) -> Option<String> {
    let y: i64 = day.get(..4)?.parse().ok()?;
    let m: i64 = day.get(5..7)?.parse().ok()?;
    let d: i64 = day.get(8..10)?.parse().ok()?;
    let n = days_from_civil(y, m, d);
    // 1970-01-01 was a Thursday: Monday is 0 in (n + 3) mod 7.
    let monday = n - (n + 3).rem_euclid(7);
    let (y, m, d) = civil_from_days(monday);
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

fn row(rows: &mut BTreeMap<String, Group>, key: String) -> &mut Group {
    rows.entry(key.clone()).or_insert_with(|| Group {
        key,
        ..Group::default()
    })
}

/// The one name of a Codex tool in a rollout and in `codex exec --json`: exec's item type
/// (`command_execution`, `file_change`, `web_search`), which stays the same across Codex
/// versions while the rollout's function names change (`shell`, `exec_command`,
/// `shell_command`, `local_shell_call`, `apply_patch`); other functions keep their name.
fn codex_tool_name<'a>(payload_type: &'a str, name: &'a str) -> &'a str {
    match (payload_type, name) {
        ("local_shell_call", _) => "command_execution",
        (_, "shell" | "exec_command" | "shell_command" | "container.exec" | "unified_exec") => {
            "command_execution"
        }
        (_, "apply_patch") => "file_change",
        (_, "web_search" | "web_search_call") => "web_search",
        _ => name,
    }
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
    /// Shared with the accumulator's table, not copied.
    strings: Vec<std::sync::Arc<str>>,
    attrs: Vec<Attr>,
    sessions: Vec<u32>,
    /// `[key, [input, output, cache_creation, cache_read, reasoning_output,
    /// cache_creation_1h], attribution]`,
    /// sorted by key.
    messages: View<MessageEntry>,
    /// The exact counts of the messages whose counts do not fit 32 bits.
    big_tokens: Vec<(Key, Tokens)>,
    /// Claude `message_delta` usage: `[key, tokens, mask of the counts it carries]`.
    #[serde(default)]
    deltas: View<DeltaEntry>,
    /// Stream messages: `[key of the message id alone, message key]`.
    #[serde(default)]
    links: View<Link>,
    /// Each session's last model: `[session, model]`.
    #[serde(default)]
    last_model: Vec<(u32, u32)>,
    /// Each session's working directory: `[session, cwd]`.
    #[serde(default)]
    session_cwd: Vec<(u32, u32)>,
    /// Costs reported per message (old transcripts' `costUSD`) or per step (OpenCode
    /// `step_finish.cost`): `[key, attribution, cost]`.
    #[serde(default)]
    message_costs: Vec<(Key, u32, f64)>,
    extra_usage: Vec<(u32, Tokens)>,
    codex_totals: Vec<(u32, Tokens, u32)>,
    results: Vec<(u32, SessionResult)>,
    codex_turns: Vec<(Key, u32)>,
    /// `[key, tool name, attribution]`, sorted by key.
    tool_calls: View<ToolEntry>,
    tool_errors: View<Key>,
    records_by: Vec<(Dim, u32, u64)>,
    /// The session and model the last input ended in (see [`Stats::merge_continued`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tail: Option<(u32, u32)>,
}

/// The JSON report of `ndjq stats` (schema `ndjq.stats/2`).
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
    /// Reported plus estimated, summed over sessions; null when nothing could be priced.
    pub cost_usd: Option<f64>,
    /// The sessions' reported costs (the last `total_cost_usd` of each).
    pub cost_usd_reported: Option<f64>,
    /// The part of `cost_usd` estimated from token counts (sessions that reported none).
    pub cost_usd_estimated: Option<f64>,
    /// The price table estimates came from (source, versions, date, or the file given).
    pub pricing: Option<String>,
    /// `--merge`: the price tables the parts were made with that are not `pricing` (their
    /// tokens were priced again with this one); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts_pricing: Vec<String>,
    /// Models the table has no price for (their tokens are not in `cost_usd`).
    pub unpriced_models: Vec<String>,
    pub turns: u64,
    pub duration_ms: u64,
    pub tools: BTreeMap<String, ToolTotals>,
    pub models: BTreeMap<String, Tokens>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
    /// What `--merge` needs to combine reports exactly; written only with `--mergeable`
    /// (it is most of the bytes on a large tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
}
