//! The totals a report shows and the JSON [`Report`] (schema `ndjq.stats/2`), made from
//! the state when asked; formatting lives in `sink::stats`.

use super::billing::{round_cost, Pricing};
use super::grouping::{Group, GroupBy};
use super::merge::State;
use super::store::join;
use super::tokens::Tokens;
use super::{Stats, SCHEMA};
use crate::dialect::Dialect;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Tool totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTotals {
    pub calls: u64,
    pub errors: u64,
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
    /// Sessions whose figures include usage of a session the input does not hold.
    pub continues_unseen_sessions: Vec<String>,
}

impl Stats {
    /// The number of distinct sessions.
    pub fn session_count(&self) -> u64 {
        self.sessions.len() as u64
    }

    /// The totals of a report (docs/REFERENCE.md "The `ndjq.stats/2` JSON schema"), tokens
    /// priced with the built-in table.
    pub fn totals(&self) -> Totals {
        self.totals_priced(&Pricing::default())
    }

    /// The totals of a report (docs/REFERENCE.md "The `ndjq.stats/2` JSON schema").
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
        turns = turns.saturating_add(self.ended_turns.len() as u64);
        Totals {
            sessions: self.sessions.len() as u64,
            tokens,
            result_tokens,
            cost_usd: cost.map(round_cost),
            cost_usd_reported: reported.map(round_cost),
            cost_usd_estimated: estimated.map(round_cost),
            pricing: billing.table,
            unpriced_models: billing.unpriced.iter().cloned().collect(),
            turns,
            duration_ms,
            tools: self.tool_totals(),
            models,
            continues_unseen_sessions: billing
                .continues_unseen
                .iter()
                .map(|s| self.name(*s))
                .collect(),
        }
    }

    /// Calls and errors by tool: each call once per id, each error once per id, named
    /// through the call with its id.
    pub(super) fn tool_totals(&self) -> BTreeMap<String, ToolTotals> {
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
            continues_unseen_sessions: t.continues_unseen_sessions,
            by: by.map(|b| b.name().to_string()),
            groups: by.map(|b| self.groups_priced(b, pricing)),
            state: None,
        }
    }
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
    /// Sessions that continue a session the input does not hold (a resumed or forked
    /// run whose own figures are cumulative, read without the run before it): their
    /// tokens and cost include that session's usage (docs/REFERENCE.md "Lineage").
    /// Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continues_unseen_sessions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
    /// What `--merge` needs to combine reports exactly; written only with `--mergeable`
    /// (it is most of the bytes on a large tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
}
