//! The stats accumulator (`ndjq stats`, docs/REFERENCE.md "stats"): record tallies,
//! sessions, tokens, cost, tools, and the breakdowns by session, model, tool, type, file,
//! day, week, month, block and project.
//!
//! Tokens are what the API billed, in one meaning for every agent (docs/REFERENCE.md
//! "Token and cost rules"): `input` is input NOT read from cache (Codex's `input_tokens`
//! include their cached part, so it is the difference), plus `cache_read`,
//! `cache_creation`, `output` and `reasoning_output`.
//!
//! It keeps what an exact answer needs and nothing else: the last usage snapshot of each
//! API message (Claude repeats a message's usage on each of its content-block lines, and
//! those lines carry the `message_start` snapshot) and the last `message_delta` usage of
//! each streamed message, the last `result` of each session (its billed totals replace its
//! messages' sum; cost is cumulative) and its first (which tells a fork's result, whose
//! figures include its parent's), each session's last model and working directory, each
//! Codex rollout response once (or a session's last cumulative count, in rollouts without
//! per-response counts), each Codex exec thread's turns in order (their usage is
//! cumulative), tool calls by id and the ids of failed ones (docs/REFERENCE.md
//! "Lineage"). That state is also what makes stats mergeable:
//! [`Stats::merge`] of the stats of consecutive parts equals the stats of the whole, which
//! is how batch mode combines its shards and how `ndjq stats --merge` reduces partial JSON
//! stats computed on other machines. Costs are computed from that state when a report is
//! made ([`Stats::report_priced`]): reported where a session reported one, else
//! estimated per message with a price table ([`crate::pricing`]). Formatting lives in
//! `sink::stats`.
//!
//! The rooms (docs/DESIGN.md "The stats rooms"); this file keeps the [`Stats`] type, the
//! entries it stores and its public API:
//! - [`tokens`]: the [`Tokens`] type, its mappings from each agent's usage fields, and the
//!   packed form a message entry stores.
//! - [`intern`]: the string table (sessions, models, files, hours, tool names) and the
//!   table of distinct attributions every entry points into.
//! - [`calendar`]: the clock (`--timezone`, `--since`/`--until`), the hour a record is
//!   counted in, and days, ISO weeks, months and 5-hour blocks read from it.
//! - [`ingest`]: one record into the state: the input context, the tallies, and the
//!   narrow API ([`Ingest`]) through which each agent's reader (`src/dialect/*/stats.rs`,
//!   or the neutral facts of [`crate::dialect::facts`]) adds what a record says.
//! - [`merge`]: stats of consecutive parts combined, and the serialisable [`State`] a
//!   `--merge` reads back ([`Stats::from_report`]).
//! - [`billing`]: what each attribution was billed and what it cost, by the cost rules.
//! - [`grouping`]: the `--by` rows, including blocks, weeks and projects.
//! - [`report`]: the totals and the JSON [`Report`].
//!
//! Adding an agent's usage: its dialect module's facts reader maps its counts into
//! [`Tokens`] (non-cached input!) and gives them as a usage fact under a message (or turn)
//! key, or as a session's result; a reported cost is a step cost or a result's. Models
//! are priced by name, so a dialect only has to name the model it saw.
//!
//! The per-message and per-tool-call memory is what grows with the input, so it is kept
//! flat (see [`store`]): a 96-bit digest of the id, the six token counts as `u32` (with
//! an exact side table for the rare count that does not fit) and an index into a table
//! of distinct attributions: 40 bytes per API message, 20 per tool call, no allocation
//! per entry.

use crate::dialect::Dialect;
use crate::summary::Summary;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;

mod billing;
mod calendar;
mod facts;
mod grouping;
mod ingest;
mod intern;
mod merge;
mod report;
mod state_json;
mod store;
mod tokens;

pub use billing::{CostMode, Pricing};
pub use calendar::Clock;
pub use grouping::{Group, GroupBy};
pub use merge::State;
pub use report::{Report, ToolTotals, Totals};
pub use state_json::StateJson;
pub(crate) use store::Key;
pub use tokens::Tokens;

pub(crate) use facts::Fact;
pub(crate) use ingest::{Ingest, InputContext, ResultFacts};
pub(crate) use intern::NONE;
use intern::{Attrs, IdHasher, IdMap, RecentIds, Strings};
use store::{Keyed, LastWins};
use tokens::Packed;

/// The version of the JSON shape; a field is never renamed without a new version.
pub const SCHEMA: &str = "ndjq.stats/2";

/// The earlier version: its `input` held Codex's cached tokens too, so `--merge` refuses it
/// rather than mix two meanings.
pub const SCHEMA_V1: &str = "ndjq.stats/1";

/// One API message's (or Codex rollout response's) last usage snapshot: 40 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct MessageEntry(Key, Packed, u32);

impl Keyed for MessageEntry {
    fn key(&self) -> Key {
        self.0
    }
}

/// A streamed message's closing usage (Claude's `message_delta`), by its message's key:
/// the counts it carries (bit 0 input, 1 output, 2 cache_creation, 3 cache_read of the
/// mask) replace the message's snapshot's, since the delta comes last.
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

/// A turn of a cumulative chain: its key, its usage (cumulative over its session) and its
/// attribution.
type ChainTurn = (Key, Tokens, u32);

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
    /// The first result of the session read that splits its totals by model: its run's
    /// own usage beside the cumulative figures, which tells a fork's result (whose
    /// figures include its parent's) from a first run's (docs/REFERENCE.md "Lineage").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first: Option<RunFacts>,
}

/// One result's figures: its run's own `usage`, its cumulative `modelUsage` (by model, a
/// string index each) and its cumulative cost.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct RunFacts {
    usage: Tokens,
    model_usage: Vec<(u32, Tokens)>,
    cost_usd: Option<f64>,
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
    /// Streamed messages' closing usage (a delta that comes after the message's
    /// snapshots), by the key of the message's id alone.
    deltas: LastWins<DeltaEntry>,
    /// Streamed messages' id keys to their message keys (a delta names its message by
    /// its id alone).
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
    /// Sessions counted by their cumulative total (their records carry no usage of each
    /// response): the last total of each session, with its attribution. The state's
    /// `codex_totals`.
    session_totals: IdMap<u32, (Tokens, u32)>,
    /// Sessions whose responses are counted one by one (in `messages`): their cumulative
    /// totals and turns are not counted again. The state's `rollout_sessions`.
    per_response_sessions: HashSet<u32, BuildHasherDefault<IdHasher>>,
    /// Responses of a part that began mid-session, keyed before it named a session
    /// (under none): each key with its cumulative counts, for `--merge` to rekey under the
    /// session the part continues.
    inherited_responses: Vec<(Key, [u64; 5])>,
    /// Sessions whose turns report usage cumulative over the session (earlier runs of a
    /// resumed one included): each new turn's usage in input order (turn key, usage,
    /// attribution). The session's usage is what each adds to the one before it
    /// (docs/REFERENCE.md "Lineage"); a turn key seen before is not added. The state's
    /// `exec_chains`.
    cumulative_chains: IdMap<u32, Vec<ChainTurn>>,
    results: IdMap<u32, SessionResult>,
    /// Turns that ended (completed or failed, with usage or not), by key, to attribution.
    /// The state's `codex_turns`.
    ended_turns: HashMap<Key, u32>,
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
    /// The session, directory, model and message the last records named: what spares
    /// hashing them again on the next line. It never changes a result.
    recent: RecentIds,
    /// `--follow`: the context of each input that paused (another file's records came),
    /// for when it resumes; `None` unless [`Stats::keep_paused_inputs`] was called.
    paused: Option<HashMap<u32, InputContext>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
enum Dim {
    Session,
    File,
    Day,
}

impl Stats {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether an input of `dialect` may be counted in blocks, each by its own
    /// accumulator merged in order: not when its records inherit context from earlier ones
    /// ([`crate::dialect::facts::inherits_context`]), which a block's first records cannot
    /// know.
    pub fn counts_in_blocks(dialect: Option<Dialect>) -> bool {
        !dialect.is_some_and(crate::dialect::facts::inherits_context)
    }

    /// Sorts what the per-message and per-tool stores hold (a worker's part, before the
    /// merge takes it): the merge then sorts runs already in order, on one thread.
    pub fn settle_stores(&mut self) {
        self.messages.settle_pending();
        self.deltas.settle_pending();
        self.links.settle_pending();
        self.tool_calls.settle_pending();
        self.tool_errors.settle_pending();
    }

    /// Stats whose days are counted in `clock.tz` and whose records are those in
    /// `clock.range` (a record without a time takes its input's last one).
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

    /// The string at index `i`, `(none)` for an unknown one.
    fn name(&self, i: u32) -> String {
        self.strings.get(i).unwrap_or("(none)").to_string()
    }
}
