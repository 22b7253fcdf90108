//! Combining stats: [`Stats::merge`] of consecutive parts (batch shards, `--merge`) equals
//! the stats of the whole; the serialisable [`State`] a `--mergeable` report carries and
//! [`Stats::from_report`] reads back.

use super::ingest::{counts_bytes, cumulative_response_prefix};
use super::intern::{Attr, INHERIT, NONE};
use super::report::Report;
use super::store::{Key, LastWins, View};
use super::tokens::{Tokens, BIG};
use super::{
    ChainTurn, DeltaEntry, Dim, Link, MessageEntry, RunFacts, SessionResult, Stats, ToolEntry,
};
use crate::diagnostic::Code;
use crate::summary::Summary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

impl Stats {
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

    pub(super) fn merge_with(&mut self, mut later: Stats, continued: bool) {
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
            .map(|s| self.strings.id_shared(s))
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
        // Codex responses the later part keyed before it named a session: under the
        // session it continues, the keys the whole run makes (a token count repeated
        // across the cut is then one response).
        if !later.inherited_responses.is_empty() {
            let inherited = std::mem::take(&mut later.inherited_responses);
            if tail_session == INHERIT {
                self.inherited_responses.extend(inherited);
            } else {
                let name = self.strings.shared(tail_session);
                rekey_inherited(
                    &mut later.messages,
                    &mut later.big_tokens,
                    &inherited,
                    name.as_deref(),
                );
            }
        }
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
        for (s, (t, a)) in later.session_totals {
            self.session_totals.insert(rs(s), (t, ra(a)));
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
            // The session's first result is the earlier part's, when it has one.
            if entry.first.is_none() {
                entry.first = r.first.map(|f| RunFacts {
                    model_usage: f.model_usage.into_iter().map(|(m, t)| (re(m), t)).collect(),
                    ..f
                });
            }
            entry.tokens = r.tokens.or(entry.tokens);
            entry.cost_usd = r.cost_usd.or(entry.cost_usd);
            entry.turns = r.turns.or(entry.turns);
            entry.duration_ms = r.duration_ms.or(entry.duration_ms);
        }
        self.per_response_sessions
            .extend(later.per_response_sessions.into_iter().map(rs));
        // A thread's turns go on after this part's; a turn this part counted already (the
        // same stream in both) adds nothing.
        for (t, chain) in later.cumulative_chains {
            let mine = self.cumulative_chains.entry(rs(t)).or_default();
            for (k, tokens, a) in chain {
                if !self.ended_turns.contains_key(&k) {
                    mine.push((k, tokens, ra(a)));
                }
            }
        }
        for (k, a) in later.ended_turns {
            self.ended_turns.insert(k, ra(a));
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
            codex_totals: sorted(self.session_totals.iter().map(|(s, (t, a))| (*s, *t, *a))),
            results: {
                let mut v: Vec<(u32, SessionResult)> =
                    self.results.iter().map(|(s, r)| (*s, r.clone())).collect();
                v.sort_by_key(|(s, _)| *s);
                v
            },
            codex_turns: sorted(self.ended_turns.iter().map(|(k, a)| (*k, *a))),
            rollout_sessions: sorted(self.per_response_sessions.iter().copied()),
            inherited_responses: self.inherited_responses.clone(),
            exec_chains: {
                let mut v: Vec<(u32, Vec<ChainTurn>)> = self
                    .cumulative_chains
                    .iter()
                    .map(|(t, c)| (*t, c.clone()))
                    .collect();
                v.sort_by_key(|(t, _)| *t);
                v
            },
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
        s.check()?;
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
        stats.session_totals = s
            .codex_totals
            .into_iter()
            .map(|(k, tokens, attr)| (k, (tokens, attr)))
            .collect();
        stats.results = s.results.into_iter().collect();
        stats.ended_turns = s.codex_turns.into_iter().collect();
        stats.per_response_sessions = s.rollout_sessions.into_iter().collect();
        stats.inherited_responses = s.inherited_responses;
        stats.cumulative_chains = s.exec_chains.into_iter().collect();
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
}

impl State {
    /// Refuses a state whose entries point past its tables (docs/REFERENCE.md, `--merge`):
    /// every string index (a session, model, file, hour, working directory or tool name)
    /// names one of `strings`, or is one of the two marks a report writes for none
    /// ([`NONE`], [`INHERIT`]); `sessions` lists real sessions only; every attribution
    /// index names one of `attrs`; and `strings` holds each string once (a repeated one
    /// would shift the indexes after it). The error names the field.
    fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::with_capacity(self.strings.len());
        for (i, name) in self.strings.iter().enumerate() {
            if !seen.insert(name) {
                return Err(format!(
                    "state.strings[{i}] repeats an earlier string; not a state ndjq wrote"
                ));
            }
        }
        let strings = self.strings.len();
        let attrs = self.attrs.len();
        let bad = |field: String, i: u32, what: &str, len: usize| {
            Err(format!(
                "{field} is {i}, past the {len} entries of state.{what}; not a state ndjq wrote"
            ))
        };
        let string = |field: &dyn Fn() -> String, i: u32| -> Result<(), String> {
            if (i as usize) < strings || i == NONE || i == INHERIT {
                Ok(())
            } else {
                bad(field(), i, "strings", strings)
            }
        };
        let attr = |field: &dyn Fn() -> String, i: u32| -> Result<(), String> {
            if (i as usize) < attrs {
                Ok(())
            } else {
                bad(field(), i, "attrs", attrs)
            }
        };
        for (n, a) in self.attrs.iter().enumerate() {
            string(&|| format!("state.attrs[{n}].session"), a.session)?;
            string(&|| format!("state.attrs[{n}].model"), a.model)?;
            string(&|| format!("state.attrs[{n}].file"), a.file)?;
            string(&|| format!("state.attrs[{n}].day"), a.day)?;
        }
        for (n, &s) in self.sessions.iter().enumerate() {
            if s as usize >= strings {
                return bad(format!("state.sessions[{n}]"), s, "strings", strings);
            }
        }
        for (n, m) in self.messages.iter().enumerate() {
            attr(&|| format!("state.messages[{n}] attribution"), m.2)?;
        }
        for (n, &(s, m)) in self.last_model.iter().enumerate() {
            string(&|| format!("state.last_model[{n}] session"), s)?;
            string(&|| format!("state.last_model[{n}] model"), m)?;
        }
        for (n, &(s, c)) in self.session_cwd.iter().enumerate() {
            string(&|| format!("state.session_cwd[{n}] session"), s)?;
            string(&|| format!("state.session_cwd[{n}] cwd"), c)?;
        }
        for (n, e) in self.message_costs.iter().enumerate() {
            attr(&|| format!("state.message_costs[{n}] attribution"), e.1)?;
        }
        for (n, e) in self.extra_usage.iter().enumerate() {
            attr(&|| format!("state.extra_usage[{n}] attribution"), e.0)?;
        }
        for (n, e) in self.codex_totals.iter().enumerate() {
            string(&|| format!("state.codex_totals[{n}] session"), e.0)?;
            attr(&|| format!("state.codex_totals[{n}] attribution"), e.2)?;
        }
        for (n, (s, r)) in self.results.iter().enumerate() {
            string(&|| format!("state.results[{n}] session"), *s)?;
            string(&|| format!("state.results[{n}].file"), r.file)?;
            string(&|| format!("state.results[{n}].day"), r.day)?;
            for (u, (m, _)) in r.model_usage.iter().flatten().enumerate() {
                string(&|| format!("state.results[{n}].model_usage[{u}] model"), *m)?;
            }
        }
        for (n, e) in self.codex_turns.iter().enumerate() {
            attr(&|| format!("state.codex_turns[{n}] attribution"), e.1)?;
        }
        for (n, t) in self.tool_calls.iter().enumerate() {
            string(&|| format!("state.tool_calls[{n}] tool name"), t.1)?;
            attr(&|| format!("state.tool_calls[{n}] attribution"), t.2)?;
        }
        for (n, (_, i, _)) in self.records_by.iter().enumerate() {
            string(&|| format!("state.records_by[{n}] index"), *i)?;
        }
        if let Some((s, m)) = self.tail {
            string(&|| "state.tail session".to_string(), s)?;
            string(&|| "state.tail model".to_string(), m)?;
        }
        Ok(())
    }
}

/// Rekeys the responses in `inherited` (keyed under no session) under the session named
/// `name`: their usage entries and exact counts move to the new keys.
fn rekey_inherited(
    messages: &mut LastWins<MessageEntry>,
    big_tokens: &mut std::collections::HashMap<Key, Tokens>,
    inherited: &[(Key, [u64; 5])],
    name: Option<&str>,
) {
    let prefix = cumulative_response_prefix(name.unwrap_or(""));
    let map: std::collections::HashMap<Key, Key> = inherited
        .iter()
        .map(|(k, c)| (*k, Key::then(prefix, &counts_bytes(*c))))
        .collect();
    messages.rekey(|m| map.get(&m.0).map(|k| MessageEntry(*k, m.1, m.2)));
    for (old, new) in &map {
        if let Some(t) = big_tokens.remove(old) {
            big_tokens.insert(*new, t);
        }
    }
}

pub(super) fn sorted<T: Ord + Copy, I: Iterator<Item = T>>(it: I) -> Vec<T> {
    let mut v: Vec<T> = it.collect();
    v.sort_unstable();
    v
}

/// What a merge needs beyond the totals; part of the JSON report under `state`. Entries
/// name strings and attributions by their index in `strings` and `attrs`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Shared with the accumulator's table, not copied.
    pub(super) strings: Vec<std::sync::Arc<str>>,
    pub(super) attrs: Vec<Attr>,
    pub(super) sessions: Vec<u32>,
    /// `[key, [input, output, cache_creation, cache_read, reasoning_output,
    /// cache_creation_1h], attribution]`,
    /// sorted by key.
    pub(super) messages: View<MessageEntry>,
    /// The exact counts of the messages whose counts do not fit 32 bits.
    pub(super) big_tokens: Vec<(Key, Tokens)>,
    /// Claude `message_delta` usage: `[key, tokens, mask of the counts it carries]`.
    #[serde(default)]
    pub(super) deltas: View<DeltaEntry>,
    /// Stream messages: `[key of the message id alone, message key]`.
    #[serde(default)]
    pub(super) links: View<Link>,
    /// Each session's last model: `[session, model]`.
    #[serde(default)]
    pub(super) last_model: Vec<(u32, u32)>,
    /// Each session's working directory: `[session, cwd]`.
    #[serde(default)]
    pub(super) session_cwd: Vec<(u32, u32)>,
    /// Costs reported per message (old transcripts' `costUSD`) or per step (OpenCode
    /// `step_finish.cost`): `[key, attribution, cost]`.
    #[serde(default)]
    pub(super) message_costs: Vec<(Key, u32, f64)>,
    pub(super) extra_usage: Vec<(u32, Tokens)>,
    pub(super) codex_totals: Vec<(u32, Tokens, u32)>,
    pub(super) results: Vec<(u32, SessionResult)>,
    pub(super) codex_turns: Vec<(Key, u32)>,
    /// `[key, tool name, attribution]`, sorted by key.
    pub(super) tool_calls: View<ToolEntry>,
    pub(super) tool_errors: View<Key>,
    pub(super) records_by: Vec<(Dim, u32, u64)>,
    /// Codex rollout sessions counted response by response (reports of earlier versions
    /// have none: their rollouts are counted by `codex_totals`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) rollout_sessions: Vec<u32>,
    /// Codex exec threads: `[thread, [[turn key, cumulative usage, attribution], ...]]`,
    /// the turns in input order (reports of earlier versions kept exec turns in
    /// `messages`, counted whole).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) exec_chains: Vec<(u32, Vec<ChainTurn>)>,
    /// Codex rollout responses keyed before their part named a session: `[key, [input,
    /// cache_read, cache_creation, output, reasoning_output]]` (see
    /// [`Stats::merge_continued`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) inherited_responses: Vec<(Key, [u64; 5])>,
    /// The session and model the last input ended in (see [`Stats::merge_continued`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) tail: Option<(u32, u32)>,
}
