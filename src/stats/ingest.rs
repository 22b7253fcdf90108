//! One record into the state: the input it belongs to and what later records of that
//! input inherit, the record and type tallies, and the usage, tool calls, results and
//! costs it carries. Claude's records are read in [`claude`], Codex's in [`codex`]; every
//! other agent's dialect module reads its records into neutral facts
//! ([`crate::dialect::facts`]), applied here without naming the agent.

mod claude;
mod codex;

use super::calendar::time_of;
use super::intern::{Attr, INHERIT, NONE};
use super::tokens::{pack, Tokens, BIG};
use super::{Dim, Key, MessageEntry, Stats, ToolEntry};
use crate::dialect::facts::{self, Fact};
use crate::dialect::Dialect;
use crate::json::Json;
use crate::pipeline::Record;
use crate::timestamp::Timestamp;
use claude::ClaudeTop;
use std::collections::HashMap;

/// Per-input context: what later records of the same input inherit.
#[derive(Debug, Clone, Copy)]
pub(super) struct InputContext {
    pub(super) file: u32,
    pub(super) dialect: Option<Dialect>,
    /// Codex exec: the thread of the last `thread.started`; Codex rollouts: the session of
    /// `session_meta`.
    pub(super) session: u32,
    /// Codex rollouts: the model of the last `turn_context`.
    pub(super) model: u32,
    /// The last time a record of this input carried (for `--since` / `--until`).
    pub(super) last_time: Option<Timestamp>,
    /// Codex exec: how many `thread.started` of the current thread this input has shown
    /// (a resumed run appends a second one), and turns seen since the last one.
    pub(super) process: u32,
    pub(super) turn: u32,
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
            Some(d) if facts::handles(d) => self.add_agent(d, v, ty, ctx, day),
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

    /// The other agents' records, read by their dialect modules into neutral facts
    /// ([`crate::dialect::facts`]), applied to the state.
    pub(super) fn add_agent(
        &mut self,
        dialect: Dialect,
        v: Json<'_>,
        ty: Option<&str>,
        ctx: &mut InputContext,
        day: u32,
    ) {
        // The session's name, shared with the table rather than copied: the facts are
        // applied as the reader gives them, with no list and no string per record.
        let session = self.strings.shared(ctx.session);
        let session = session.as_deref().unwrap_or("");
        facts::read(dialect, v, ty, session, &mut |fact| {
            self.add_fact(fact, ctx, day)
        });
        self.count_session_record(ctx.session);
    }

    /// One fact of another agent's record (see [`Stats::add_agent`]).
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
