//! One record into the state: the input it belongs to and what later records of that
//! input inherit, the record and type tallies, and the usage, tool calls, results and
//! costs it carries. What an agent's record says is read by that agent's module
//! (`src/dialect/*/stats.rs`, and the neutral facts of [`crate::dialect::facts`]), which
//! drives the store through [`Ingest`]; nothing here names an agent.

use super::calendar::time_of;
use super::facts::{Fact, FactsFn};
use super::intern::{Attr, INHERIT, NONE};
use super::store::KeyPrefix;
use super::tokens::{pack, Tokens, BIG};
use super::{DeltaEntry, Dim, Key, Link, MessageEntry, RunFacts, Stats, ToolEntry};
use crate::dialect::stats_reader::{StatsReader, TopFields, CUMULATIVE_RESPONSE_KEY};
use crate::dialect::Dialect;
use crate::json::Json;
use crate::pipeline::Record;
use crate::timestamp::Timestamp;
use std::collections::HashMap;

/// Per-input context: what later records of the same input inherit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputContext {
    pub(super) file: u32,
    pub(super) dialect: Option<Dialect>,
    /// The session the input's records are in until one names another (Codex exec: the
    /// thread of the last `thread.started`; Codex rollouts: the session of `session_meta`).
    pub(crate) session: u32,
    /// The model they use (Codex rollouts: that of the last `turn_context`).
    pub(crate) model: u32,
    /// The last time a record of this input carried (for `--since` / `--until`).
    pub(super) last_time: Option<Timestamp>,
    /// How many times this input has started its current session (a resumed Codex exec
    /// run appends a second `thread.started`), and the turns seen since the last start:
    /// what keys a turn when the agent gives it no id that survives a second run.
    pub(crate) process: u32,
    pub(crate) turn: u32,
    pub(super) records: u64,
}

impl Stats {
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

    /// A paused input's file was renamed (`--follow`): its context goes on under the new
    /// name (the records read before stay counted under the old one).
    pub fn rename_input(&mut self, from: &str, to: &str) {
        let (from, to) = (self.strings.id(from), self.strings.id(to));
        if let Some(paused) = self.paused.as_mut() {
            if let Some(ctx) = paused.remove(&from) {
                paused.insert(to, InputContext { file: to, ..ctx });
            }
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
                // One allocation per dialect, not per input.
                match self.dialects.get_mut(name) {
                    Some(n) => *n += ctx.records,
                    None => {
                        self.dialects.insert(name.to_string(), ctx.records);
                    }
                }
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
    pub(super) fn add_value(
        &mut self,
        v: Json<'_>,
        info: &crate::dialect::RecordInfo<'_>,
        ctx: &mut InputContext,
    ) -> Option<u32> {
        // The agent's reader, and the top-level fields every record is read for, in one
        // walk over it.
        let reader = StatsReader::of(info.dialect);
        let top = TopFields::of_record(v, info, reader.claude_fields);
        let (ty, timestamp) = (top.ty(), top.timestamp());
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
        match (ty, top.subtype()) {
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

        let mut ingest = Ingest {
            stats: self,
            input: ctx,
            day,
        };
        (reader.read)(v, &top, &mut ingest);
        Some(day)
    }

    /// A message's usage snapshot, replacing any earlier one with its key.
    pub(super) fn add_usage(&mut self, key: Key, tokens: Tokens, attr: u32) {
        let packed = pack(tokens);
        if packed == BIG {
            self.big_tokens.insert(key, tokens);
        }
        self.messages.push(MessageEntry(key, packed, attr));
    }

    /// A session's working directory: the first one a record names. Every directory named
    /// is interned, even one that does not become the session's: a batch shard that sees
    /// only a later part of the session interns it too, and the merged string table must
    /// be the one a single pass makes (its order decides the report's bytes on any `-j`).
    pub(super) fn set_cwd(&mut self, session: u32, cwd: &str) {
        // The same session and directory as the last record's: done already.
        if self.recent.cwd_session == session && self.recent.cwd.get(cwd).is_some() {
            return;
        }
        let cwd = self.strings.id_via(&mut self.recent.cwd, cwd);
        self.session_cwd.entry(session).or_insert(cwd);
        self.recent.cwd_session = session;
    }

    pub(super) fn session_id(&mut self, s: &str) -> u32 {
        // The last record's session is interned and in `sessions` already.
        if let Some(id) = self.recent.session.get(s) {
            return id;
        }
        let id = self.strings.id(s);
        self.sessions.insert(id);
        self.recent.session.set(s, id);
        id
    }

    pub(super) fn count_session_record(&mut self, session: u32) {
        if session != NONE {
            *self.records_by.entry((Dim::Session, session)).or_insert(0) += 1;
        }
    }

    /// A record read by `read` into neutral facts ([`crate::dialect::facts`]), applied to
    /// the state as the reader gives them.
    fn add_facts<'a>(
        &mut self,
        read: FactsFn,
        v: Json<'a>,
        ty: Option<&'a str>,
        ctx: &mut InputContext,
        day: u32,
    ) {
        // The session's name, shared with the table rather than copied: the facts are
        // applied as the reader gives them, with no list and no string per record.
        let session = self.strings.shared(ctx.session);
        let session = session.as_deref().unwrap_or("");
        read(v, ty, session, &mut |fact| self.add_fact(fact, ctx, day));
        self.count_session_record(ctx.session);
    }

    /// One fact of a record (see [`Stats::add_facts`]).
    fn add_fact(&mut self, fact: Fact<'_>, ctx: &mut InputContext, day: u32) {
        let attr = |s: &mut Stats, ctx: &InputContext, model: u32| {
            s.attrs.id(Attr {
                session: ctx.session,
                model,
                file: ctx.file,
                day,
            })
        };
        match fact {
            Fact::Session(id) => ctx.session = self.session_id(id),
            Fact::Model(m) => ctx.model = self.strings.id(m),
            Fact::Cwd(cwd) => {
                if ctx.session != NONE {
                    self.set_cwd(ctx.session, cwd);
                }
            }
            Fact::Usage { key, model, tokens } => {
                let model = model.map_or(ctx.model, |m| self.strings.id(m));
                if ctx.session != NONE && model != NONE {
                    // The session's last model: what only its result counts goes
                    // there (Qwen Code's memory extraction, docs/REFERENCE.md "Stats of the
                    // other agents").
                    self.last_model.insert(ctx.session, model);
                }
                let a = attr(self, ctx, model);
                self.add_usage(key, tokens, a);
            }
            Fact::ToolCall { key, name } => {
                let name = self.strings.id(name);
                let a = attr(self, ctx, ctx.model);
                self.tool_calls.push(ToolEntry(key, name, a));
            }
            Fact::ToolError { key } => self.tool_errors.push(key),
            Fact::Result {
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
            Fact::StepCost { key, cost_usd } => {
                // Reported, per step: summed per session like old transcripts'
                // per-message `costUSD` (docs/REFERENCE.md "Token and cost rules").
                let a = attr(self, ctx, ctx.model);
                self.message_costs.insert(key, (a, cost_usd));
            }
        }
    }
}

/// The stats store as an agent's reader drives it (`src/dialect/*/stats.rs`, one call per
/// record through [`crate::dialect::stats_reader`]): the record's input and hour, and
/// the few things a record can tell. The store and its rules stay here; what an agent's
/// fields mean stays in its module (docs/DESIGN.md "The stats rooms").
pub(crate) struct Ingest<'s> {
    stats: &'s mut Stats,
    /// What later records of the record's input inherit.
    pub(crate) input: &'s mut InputContext,
    day: u32,
}

/// A result's billed totals split by model (a string index each).
pub(crate) type ModelUsage = Vec<(u32, Tokens)>;

/// A session's result as a reader gives it: its billed totals (and their split by model,
/// by string index) where it has them, the cost it reported, turns and duration. What a
/// later result gives replaces what an earlier one did.
pub(crate) struct ResultFacts {
    pub(crate) tokens: Option<(Tokens, Option<ModelUsage>)>,
    pub(crate) cost_usd: Option<f64>,
    pub(crate) turns: Option<u64>,
    pub(crate) duration_ms: Option<u64>,
}

impl Ingest<'_> {
    /// A session named: its string index, the session counted.
    pub(crate) fn session(&mut self, id: &str) -> u32 {
        self.stats.session_id(id)
    }

    /// A session's working directory (its project): the first one named counts.
    pub(crate) fn set_cwd(&mut self, session: u32, cwd: &str) {
        self.stats.set_cwd(session, cwd);
    }

    /// The record counted in `session`'s row ([`NONE`]: in none).
    pub(crate) fn count_record(&mut self, session: u32) {
        self.stats.count_session_record(session);
    }

    /// The string index of a name (a model, a tool).
    pub(crate) fn name(&mut self, s: &str) -> u32 {
        self.stats.strings.id(s)
    }

    /// The string index of a model named on most lines of an input.
    pub(crate) fn model(&mut self, s: &str) -> u32 {
        self.stats.strings.id_via(&mut self.stats.recent.model, s)
    }

    /// The name at a string index, shared with the table.
    pub(crate) fn name_of(&self, i: u32) -> Option<std::sync::Arc<str>> {
        self.stats.strings.shared(i)
    }

    /// The model a session last used: what only its result counts goes there.
    pub(crate) fn set_session_model(&mut self, session: u32, model: u32) {
        self.stats.last_model.insert(session, model);
    }

    /// The attribution of what this record adds: `session`, `model`, its input and hour.
    pub(crate) fn attr(&mut self, session: u32, model: u32) -> u32 {
        self.stats.attrs.id(Attr {
            session,
            model,
            file: self.input.file,
            day: self.day,
        })
    }

    /// `Key::of(&[id, req])` of an API message, hashed once for the lines that repeat it.
    pub(crate) fn message_key(&mut self, id: &str, req: &str) -> Key {
        self.stats.recent.message_key(id, req)
    }

    /// The key of one of `session`'s responses known by the session's cumulative total
    /// after it, `counts` (Codex rollouts): [`Key::of_bytes`] of [`CUMULATIVE_RESPONSE_KEY`], the
    /// session's name and `counts`, the first two hashed once for the records of a
    /// session. A response of a part that
    /// begins mid-session (no session named yet) is keyed under no name and kept with its
    /// counts, so `--merge` rekeys it under the session the part continues
    /// ([`Stats::merge_continued`](super::Stats::merge_continued)).
    pub(crate) fn response_key(&mut self, session: u32, counts: [u64; 5]) -> Key {
        let prefix = match self.stats.recent.response_prefix {
            Some((s, p)) if s == session => p,
            _ => {
                let name = self.stats.strings.shared(session);
                let name: &str = name.as_deref().unwrap_or("");
                let p = cumulative_response_prefix(name);
                self.stats.recent.response_prefix = Some((session, p));
                p
            }
        };
        let key = Key::then(prefix, &counts_bytes(counts));
        if session == INHERIT {
            self.stats.inherited_responses.push((key, counts));
        }
        key
    }

    /// A message's usage snapshot: the last one under a key counts.
    pub(crate) fn usage(&mut self, key: Key, tokens: Tokens, attr: u32) {
        self.stats.add_usage(key, tokens, attr);
    }

    /// Usage counted per line (a message without an id).
    pub(crate) fn line_usage(&mut self, attr: u32, tokens: Tokens) {
        *self.stats.extra_usage.entry(attr).or_default() += tokens;
    }

    /// One response of a session counted response by response, under a key its
    /// repetitions share (a re-emitted token count, a usage record of the same response):
    /// the session's usage is the sum of its responses, and its cumulative totals are not
    /// counted.
    pub(crate) fn response_usage(&mut self, session: u32, key: Key, tokens: Tokens, attr: u32) {
        self.stats.per_response_sessions.insert(session);
        self.stats.add_usage(key, tokens, attr);
    }

    /// A turn's usage, cumulative over its session (earlier runs of a resumed session
    /// included): kept in the session's chain, in input order, unless a turn with its key
    /// ended before (the same stream read twice).
    pub(crate) fn cumulative_turn(&mut self, thread: u32, key: Key, tokens: Tokens, attr: u32) {
        if self.stats.ended_turns.contains_key(&key) {
            return;
        }
        self.stats
            .cumulative_chains
            .entry(thread)
            .or_default()
            .push((key, tokens, attr));
    }

    /// A session's cumulative usage: the last one of the session is its usage.
    pub(crate) fn cumulative_usage(&mut self, session: u32, tokens: Tokens, attr: u32) {
        self.stats.session_totals.insert(session, (tokens, attr));
    }

    /// A stream message's id key (what its `message_delta` names) and its message key.
    pub(crate) fn link(&mut self, id_key: Key, key: Key) {
        self.stats.links.push(Link(id_key, key));
    }

    /// A streamed message's cumulative usage: the counts `mask` says it carries (bit 0
    /// input, 1 output, 2 cache_creation, 3 cache_read) replace its snapshot's.
    pub(crate) fn delta(&mut self, id_key: Key, tokens: Tokens, mask: u8) {
        self.stats.deltas.push(DeltaEntry(id_key, tokens, mask));
    }

    /// A turn that ended, by key (usage or not).
    pub(crate) fn turn_ended(&mut self, key: Key, attr: u32) {
        self.stats.ended_turns.insert(key, attr);
    }

    pub(crate) fn tool_call(&mut self, key: Key, name: &str, attr: u32) {
        let name = self.stats.strings.id(name);
        self.stats.tool_calls.push(ToolEntry(key, name, attr));
    }

    pub(crate) fn tool_error(&mut self, key: Key) {
        self.stats.tool_errors.push(key);
    }

    /// A cost reported for one message or step, by key (summed per session when no
    /// result reports one).
    pub(crate) fn message_cost(&mut self, key: Key, attr: u32, cost_usd: f64) {
        self.stats.message_costs.insert(key, (attr, cost_usd));
    }

    /// How many message costs are held (a key for a line without a message id).
    pub(crate) fn message_costs_len(&self) -> usize {
        self.stats.message_costs.len()
    }

    /// A session's result.
    pub(crate) fn result(&mut self, session: u32, r: ResultFacts) {
        let entry = self.stats.results.entry(session).or_default();
        entry.file = self.input.file;
        entry.day = self.day;
        if let Some((tokens, model_usage)) = r.tokens {
            if let (None, Some(list)) = (&entry.first, &model_usage) {
                entry.first = Some(RunFacts {
                    usage: tokens,
                    model_usage: list.clone(),
                    cost_usd: r.cost_usd,
                });
            }
            entry.tokens = Some(tokens);
            entry.model_usage = model_usage;
        }
        entry.cost_usd = r.cost_usd.or(entry.cost_usd);
        entry.turns = r.turns.or(entry.turns);
        entry.duration_ms = r.duration_ms.or(entry.duration_ms);
    }

    /// A record read by `read` into neutral facts ([`crate::dialect::facts`]): the stats
    /// reader of an agent that gives facts is `|v, top, s| s.facts(facts, v, top)`.
    pub(crate) fn facts<'a>(&mut self, read: FactsFn, v: Json<'a>, top: &TopFields<'a>) {
        self.stats
            .add_facts(read, v, top.ty(), self.input, self.day);
    }
}

/// The part of the key of a response known by its session's cumulative total that its
/// session gives.
pub(super) fn cumulative_response_prefix(session_name: &str) -> KeyPrefix {
    Key::prefix(&[CUMULATIVE_RESPONSE_KEY, session_name.as_bytes()])
}

/// A cumulative total's counts as bytes: no text to format.
pub(super) fn counts_bytes(counts: [u64; 5]) -> [u8; 40] {
    let mut b = [0u8; 40];
    for (i, n) in counts.iter().enumerate() {
        b[i * 8..i * 8 + 8].copy_from_slice(&n.to_le_bytes());
    }
    b
}
