//! The breakdowns (`--by`): one row per session, model, tool, type, file, day, ISO week,
//! month, 5-hour block or project, each attribution's billed figures added to its row.

use super::billing::{round_cost, Pricing};
use super::calendar::{blocks_of, day_part, week_of};
use super::intern::{Attr, NONE};
use super::store::join;
use super::tokens::Tokens;
use super::{Dim, Stats};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

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

impl Stats {
    /// Where a session's reported cost goes in a breakdown: the file and hour of its last
    /// result carrying a cost, under the session's last model (one rule for the `--by`
    /// rows and the live view's).
    fn reported_cost_attr(&self, session: u32) -> Option<Attr> {
        let r = self
            .results
            .get(&session)
            .filter(|r| r.cost_usd.is_some())?;
        Some(Attr {
            session,
            model: self.last_model.get(&session).copied().unwrap_or(NONE),
            file: r.file,
            day: r.day,
        })
    }

    /// The project of attribution `a`: its session's working directory, else the
    /// `~/.claude/projects` folder its file is in.
    pub(super) fn project_of(&self, a: Attr) -> String {
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
    pub(super) fn group_key(
        &self,
        by: GroupBy,
        a: Attr,
        blocks: &HashMap<String, String>,
    ) -> Option<String> {
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
    pub(super) fn blocks(&self) -> HashMap<String, String> {
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
    pub(super) fn add_billed<K: Ord>(
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
            let Some(a) = self.reported_cost_attr(*session) else {
                continue;
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
            let Some(a) = self.reported_cost_attr(*session) else {
                continue;
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
}

pub(super) fn row(rows: &mut BTreeMap<String, Group>, key: String) -> &mut Group {
    rows.entry(key.clone()).or_insert_with(|| Group {
        key,
        ..Group::default()
    })
}
