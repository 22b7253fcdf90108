//! Pricing a session, by the cost rules (docs/REFERENCE.md "Token and cost rules"): which
//! costs count as reported, what each attribution was billed (every message's last
//! snapshot, its `message_delta` applied, per-line usage, Codex rollout totals), a
//! session's `result` totals replacing its messages' sum, and the estimate from a price
//! table.

use super::intern::{Attr, NONE};
use super::store::Key;
use super::tokens::{Tokens, BIG};
use super::{ChainTurn, DeltaEntry, MessageEntry, RunFacts, SessionResult, Stats};
use crate::pricing::{Price, PriceTable};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
pub(super) struct Acc {
    pub(super) tokens: Tokens,
    pub(super) estimated: f64,
    /// Some of its tokens were priced.
    pub(super) priced: bool,
    pub(super) used: bool,
}

impl Acc {
    pub(super) fn add(&mut self, o: &Acc) {
        self.tokens += o.tokens;
        self.estimated += o.estimated;
        self.priced |= o.priced;
        self.used |= o.used;
    }
}

/// What [`Stats::billing`] computes.
#[derive(Debug)]
pub(super) struct Billing {
    pub(super) rows: BTreeMap<Attr, Acc>,
    pub(super) unpriced: BTreeSet<String>,
    /// The reported cost of each session whose cost counts as reported.
    pub(super) reported: HashMap<u32, f64>,
    /// The name of the table estimates came from.
    pub(super) table: Option<String>,
    /// Sessions whose figures include those of a session not read (see
    /// [`Stats::lineage`]).
    pub(super) continues_unseen: Vec<u32>,
}

impl Stats {
    /// What each attribution was billed, and its estimated cost (docs/REFERENCE.md "Token
    /// and cost rules"): which sessions' costs count as reported ([`Stats::reported_costs`]),
    /// the usage each attribution carries ([`Stats::usage_rows`]), then each session's
    /// `result` totals in place of its messages' sum ([`Stats::apply_result`]), priced
    /// where the cost is estimated ([`Pricer`]).
    pub(super) fn billing(&self, pricing: &Pricing<'_>) -> Billing {
        let lineage = self.lineage();
        let reported = match pricing.mode {
            CostMode::Estimated => HashMap::new(),
            _ => self.reported_costs(&lineage.bases),
        };
        let table = match pricing.mode {
            CostMode::Reported => None,
            _ => pricing.table,
        };
        let mut pricer = Pricer {
            stats: self,
            table,
            reported: &reported,
            prices: HashMap::new(),
            unpriced: BTreeSet::new(),
        };
        let mut rows = self.usage_rows(&mut pricer);
        let mut sessions: Vec<(&u32, &SessionResult)> = self.results.iter().collect();
        sessions.sort_by_key(|(s, _)| **s);
        for (&s, r) in sessions {
            if let Some(total) = r.tokens {
                let base = lineage.bases.get(&s).map(|b| b.model_usage.as_slice());
                self.apply_result(s, r, total, base, &mut rows, &mut pricer);
            }
        }
        let unpriced = pricer.unpriced;
        Billing {
            rows,
            unpriced,
            reported,
            table: table.map(|t| t.name.clone()),
            continues_unseen: lineage.unseen,
        }
    }

    /// Which sessions' results carry another session's figures (docs/REFERENCE.md
    /// "Lineage"). A result's `modelUsage` and cost are cumulative over the session and,
    /// for a fork, over its parent's too, while its `usage` is its own run's: a session
    /// whose first result has, for a model, more than its run's own usage and more than
    /// its messages show continues another. Its parent is the result read (any session's
    /// first or last) that fits inside that result, model by model, and leaves at least
    /// the run's own usage and the session's messages: the largest such. Those figures are its base, taken off the session's; a session
    /// that continues one with no result read is listed as unseen.
    fn lineage(&self) -> Lineage {
        let mut lineage = Lineage::default();
        // The sessions whose first result carries more than its run.
        let forks: Vec<(u32, &RunFacts)> = self
            .results
            .iter()
            .filter_map(|(s, r)| r.first.as_ref().map(|f| (*s, f)))
            .filter(|(_, f)| {
                f.model_usage
                    .iter()
                    .any(|(_, t)| covers(*t, f.usage) && *t != f.usage)
            })
            .collect();
        if forks.is_empty() {
            return lineage;
        }
        // What each of those sessions' messages show, by model: a result whose model
        // usage they cover shows nothing before its run (the messages of sub-agents count
        // in `modelUsage` but not in `usage`), and a parent's figures leave the fork at
        // least its messages. Input counts only: a stream's snapshots undercount output. A second pass over the messages, only when a result carries
        // more than its run.
        let mut unpriced = Pricer {
            stats: self,
            table: None,
            reported: &HashMap::new(),
            prices: HashMap::new(),
            unpriced: BTreeSet::new(),
        };
        let mut shown: HashMap<(u32, u32), Tokens> = HashMap::new();
        for (a, acc) in self.usage_rows(&mut unpriced) {
            *shown.entry((a.session, a.model)).or_default() += acc.tokens;
        }
        let shown_of = |s: u32, m: u32| shown.get(&(s, m)).copied().unwrap_or_default();
        let forks: Vec<(u32, &RunFacts)> = forks
            .into_iter()
            .filter(|(s, f)| {
                f.model_usage
                    .iter()
                    .any(|(m, t)| !covers_input(shown_of(*s, *m), *t))
            })
            .collect();
        // Every result read, largest first.
        let mut runs: Vec<Run<'_>> = Vec::new();
        for (s, r) in &self.results {
            if let Some(f) = &r.first {
                runs.push((sum(&f.model_usage), *s, &f.model_usage, f.cost_usd));
                if let Some(last) = &r.model_usage {
                    runs.push((sum(last), *s, last, r.cost_usd));
                }
            }
        }
        runs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (s, f) in forks {
            let whole = f
                .model_usage
                .iter()
                .fold(Tokens::default(), |mut a, (_, t)| {
                    a += *t;
                    a
                });
            let room = total_of(whole).saturating_sub(total_of(f.usage));
            let start = runs.partition_point(|r| r.0 > room);
            let parent = runs[start..].iter().find(|(n, p, list, _)| {
                *n > 0
                    && *p != s
                    && list.iter().all(|(m, t)| {
                        t.is_zero()
                            || f.model_usage
                                .iter()
                                .any(|(fm, ft)| fm == m && covers(*ft, *t))
                    })
                    && covers(sub_tokens(whole, sum_tokens(list)), f.usage)
                    && f.model_usage.iter().all(|(m, t)| {
                        let theirs = list.iter().filter(|(pm, _)| pm == m).fold(
                            Tokens::default(),
                            |mut a, (_, pt)| {
                                a += *pt;
                                a
                            },
                        );
                        covers_input(sub_tokens(*t, theirs), shown_of(s, *m))
                    })
            });
            match parent {
                Some((_, _, list, cost)) => {
                    lineage.bases.insert(
                        s,
                        Base {
                            model_usage: list.to_vec(),
                            cost_usd: *cost,
                        },
                    );
                }
                None => lineage.unseen.push(s),
            }
        }
        lineage.unseen.sort_unstable();
        lineage
    }

    /// The reported cost of each session that has one: its last result's, else the sum of
    /// its messages' `costUSD` (old transcripts) or steps' costs.
    fn reported_costs(&self, bases: &HashMap<u32, Base>) -> HashMap<u32, f64> {
        let mut reported: HashMap<u32, f64> = HashMap::new();
        for (s, r) in &self.results {
            if let Some(c) = r.cost_usd {
                // A fork's cost is cumulative over its parent's too.
                let base = bases.get(s).and_then(|b| b.cost_usd).unwrap_or(0.0);
                reported.insert(*s, (c - base).max(0.0));
            }
        }
        let mut by_message: HashMap<u32, f64> = HashMap::new();
        for (a, c) in self.message_costs.values() {
            let s = self.attrs.get(*a).session;
            if !reported.contains_key(&s) {
                *by_message.entry(s).or_insert(0.0) += c;
            }
        }
        reported.extend(by_message);
        reported
    }

    /// The usage of each attribution before results: every message's last snapshot (its
    /// `message_delta` usage applied), per-line usage and Codex rollout totals.
    fn usage_rows(&self, pricer: &mut Pricer<'_>) -> BTreeMap<Attr, Acc> {
        let mut by: Vec<Acc> = vec![Acc::default(); self.attrs.list.len() + 1];
        let last = self.attrs.list.len();
        let mut add = |i: u32, t: Tokens, tiers: bool| {
            let acc = &mut by[(i as usize).min(last)];
            acc.used = true;
            acc.tokens += t;
            if let Some(c) = pricer.price(self.attrs.get(i), t, tiers) {
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
        // A Codex thread whose rollout is read too: the rollout's responses (or its
        // cumulative total) are the session's (the thread id is its session id), its exec
        // turns are not added again. Exec turns in `messages` come from reports of earlier
        // versions, which kept them there.
        let totals_only: HashSet<u32> = self
            .session_totals
            .keys()
            .filter(|s| !self.per_response_sessions.contains(s))
            .copied()
            .collect();
        for m in self.messages.settled().iter() {
            if !totals_only.is_empty() && totals_only.contains(&self.attrs.get(m.2).session) {
                continue;
            }
            let mut t = self.tokens_of(m);
            if let Some(d) = deltas.get(&m.0) {
                t = d.apply(t);
            }
            add(m.2, t, true);
        }
        for (a, t) in &self.extra_usage {
            add(*a, *t, true);
        }
        // A cumulative total is priced as one count: never in tiers.
        for (s, (t, a)) in &self.session_totals {
            if !self.per_response_sessions.contains(s) {
                add(*a, *t, false);
            }
        }
        // Codex exec threads: each turn's cumulative usage less the one before it.
        for (thread, chain) in &self.cumulative_chains {
            if self.per_response_sessions.contains(thread)
                || self.session_totals.contains_key(thread)
            {
                continue;
            }
            for (_, t, a) in chain_increments(chain) {
                add(a, t, true);
            }
        }
        let mut rows: BTreeMap<Attr, Acc> = BTreeMap::new();
        for (i, acc) in by.into_iter().enumerate() {
            if acc.used {
                rows.entry(self.attrs.get(i as u32)).or_default().add(&acc);
            }
        }
        rows
    }

    /// Session `s`'s result totals replace its rows' sum, model by model: what the result
    /// has more is added where the result is, what it has less is taken from the model's
    /// rows in order.
    fn apply_result(
        &self,
        s: u32,
        r: &SessionResult,
        total: Tokens,
        base: Option<&[(u32, Tokens)]>,
        rows: &mut BTreeMap<Attr, Acc>,
        pricer: &mut Pricer<'_>,
    ) {
        let mut have: BTreeMap<u32, Tokens> = BTreeMap::new();
        for (a, acc) in rows.range(session_range(s)) {
            *have.entry(a.model).or_default() += acc.tokens;
        }
        let mut wants = self.result_wants(s, r, total, &have);
        // A fork's result counts its parent's figures too: they are the parent's.
        for (m, t) in base.unwrap_or(&[]) {
            if let Some(w) = wants.get_mut(m) {
                *w = sub_tokens(*w, *t);
            }
        }
        for (model, mut w) in wants {
            let h = have.get(&model).copied().unwrap_or_default();
            if r.model_usage.is_some() {
                // modelUsage does not split cache writes by lifetime: the messages' do.
                w.cache_creation_1h = h.cache_creation_1h.min(w.cache_creation);
            }
            if w == h {
                continue;
            }
            let (more, mut less) = split_difference(w, h);
            if !more.is_zero() {
                let at = result_place(s, model, r, rows);
                let c = pricer.price(at, more, false);
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
                    if let Some(c) = pricer.price(a, cut, false) {
                        acc.estimated -= c;
                    }
                }
            }
        }
    }

    /// What session `s`'s result says each model billed: per model from `modelUsage` (a
    /// model the rows have and it does not name billed nothing), else the rows' own, the
    /// difference between the result's total and their sum going to the session's last
    /// model.
    fn result_wants(
        &self,
        s: u32,
        r: &SessionResult,
        total: Tokens,
        have: &BTreeMap<u32, Tokens>,
    ) -> BTreeMap<u32, Tokens> {
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
        want
    }
}

/// What [`Stats::lineage`] finds.
#[derive(Debug, Default)]
struct Lineage {
    /// The parent's figures a session's result carries, by session.
    bases: HashMap<u32, Base>,
    /// Sessions whose results carry figures of a session not read, in index order.
    unseen: Vec<u32>,
}

/// A result read: the size of its `modelUsage`, its session, its `modelUsage` and its cost.
type Run<'a> = (u64, u32, &'a [(u32, Tokens)], Option<f64>);

/// A parent's cumulative figures as its fork's result repeats them.
#[derive(Debug)]
struct Base {
    model_usage: Vec<(u32, Tokens)>,
    cost_usd: Option<f64>,
}

fn sum_tokens(list: &[(u32, Tokens)]) -> Tokens {
    list.iter().fold(Tokens::default(), |mut a, (_, t)| {
        a += *t;
        a
    })
}

fn sum(list: &[(u32, Tokens)]) -> u64 {
    total_of(sum_tokens(list))
}

/// Input (cached or not), cache writes and output.
fn total_of(t: Tokens) -> u64 {
    t.input
        .saturating_add(t.output)
        .saturating_add(t.cache_creation)
        .saturating_add(t.cache_read)
}

/// Where tokens a result adds for `model` go: the result's file and day, or, where it has
/// none (a stream's result line has no timestamp), those of the session's last row of that
/// model, else of its last row.
fn result_place(s: u32, model: u32, r: &SessionResult, rows: &BTreeMap<Attr, Acc>) -> Attr {
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
    Attr {
        session: s,
        model,
        file: or(r.file, near.map(|a| a.file)),
        day: or(r.day, near.map(|a| a.day)),
    }
}

/// Estimates costs from a price table for the sessions whose cost is not reported: each
/// model's price looked up once, the models the table lacks remembered.
struct Pricer<'a> {
    stats: &'a Stats,
    table: Option<&'a PriceTable>,
    reported: &'a HashMap<u32, f64>,
    prices: HashMap<u32, Option<Price>>,
    unpriced: BTreeSet<String>,
}

impl Pricer<'_> {
    /// The estimated cost of `t` billed to attribution `a`, in tiers or as one count; none
    /// when its session's cost is reported, nothing is billed, or the model has no price.
    fn price(&mut self, a: Attr, t: Tokens, tiers: bool) -> Option<f64> {
        let table = self.table?;
        if self.reported.contains_key(&a.session) || t.is_zero() {
            return None;
        }
        let stats = self.stats;
        let p = *self
            .prices
            .entry(a.model)
            .or_insert_with(|| stats.strings.get(a.model).and_then(|m| table.price(m)));
        match p {
            Some(p) => Some(p.cost(t.billed(), tiers)),
            None => {
                self.unpriced.insert(stats.name(a.model));
                None
            }
        }
    }
}

impl Stats {
    /// A message entry's counts.
    pub(super) fn tokens_of(&self, m: &MessageEntry) -> Tokens {
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
}

/// What each turn of a Codex exec thread adds, in input order: its cumulative usage less
/// the turn's before it, or all of it when a count went down (a count that is not
/// cumulative, as in hand-made streams: docs/REFERENCE.md "Lineage"). A key met again adds
/// nothing (a chain merged from parts that both read it).
pub(super) fn chain_increments(chain: &[ChainTurn]) -> impl Iterator<Item = ChainTurn> + '_ {
    let mut seen: HashSet<Key> = HashSet::new();
    let mut prev: Option<Tokens> = None;
    chain.iter().filter_map(move |&(k, t, a)| {
        if !seen.insert(k) {
            return None;
        }
        let add = match prev {
            Some(p) if covers(t, p) => sub_tokens(t, p),
            _ => t,
        };
        prev = Some(t);
        Some((k, add, a))
    })
}

/// Whether every input count of `a` (non-cached, cache writes, cache reads) is at least
/// `b`'s.
fn covers_input(a: Tokens, b: Tokens) -> bool {
    a.input >= b.input && a.cache_creation >= b.cache_creation && a.cache_read >= b.cache_read
}

/// Whether every count of `a` is at least `b`'s.
pub(super) fn covers(a: Tokens, b: Tokens) -> bool {
    a.input >= b.input
        && a.output >= b.output
        && a.cache_creation >= b.cache_creation
        && a.cache_read >= b.cache_read
        && a.reasoning_output >= b.reasoning_output
        && a.cache_creation_1h >= b.cache_creation_1h
}

/// The attributions of session `s` (sessions sort first in [`Attr`]).
pub(super) fn session_range(s: u32) -> std::ops::RangeInclusive<Attr> {
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

pub(super) fn per_field(a: Tokens, b: Tokens, f: impl Fn(u64, u64) -> u64) -> Tokens {
    Tokens {
        input: f(a.input, b.input),
        output: f(a.output, b.output),
        cache_creation: f(a.cache_creation, b.cache_creation),
        cache_read: f(a.cache_read, b.cache_read),
        reasoning_output: f(a.reasoning_output, b.reasoning_output),
        cache_creation_1h: f(a.cache_creation_1h, b.cache_creation_1h),
    }
}

pub(super) fn sub_tokens(a: Tokens, b: Tokens) -> Tokens {
    per_field(a, b, u64::saturating_sub)
}

pub(super) fn min_tokens(a: Tokens, b: Tokens) -> Tokens {
    per_field(a, b, u64::min)
}

/// `w + plus - minus`, field by field, not below zero.
pub(super) fn signed_add(w: Tokens, plus: Tokens, minus: Tokens) -> Tokens {
    per_field(
        per_field(w, plus, u64::saturating_add),
        minus,
        u64::saturating_sub,
    )
}

/// What `want` has more than `have`, and what it has less, field by field.
pub(super) fn split_difference(want: Tokens, have: Tokens) -> (Tokens, Tokens) {
    (sub_tokens(want, have), sub_tokens(have, want))
}

/// Costs are sums of decimal dollar amounts: rounding to 1e-9 USD hides float noise.
pub(super) fn round_cost(c: f64) -> f64 {
    (c * 1e9).round() / 1e9
}
