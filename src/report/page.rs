//! The page: one HTML document, its style sheet and script inline and allowed by hash in
//! its Content-Security-Policy, every figure from [`Stats`] (the code `ndjq stats` runs),
//! every string escaped by [`escape_into`]. See docs/DESIGN.md, "The HTML report".

use super::escape::{escape_into, script_json};
use super::sessions::SessionLog;
use super::svg::{self, Bar, Chart, BAD_SERIES, MAX_SERIES};
use crate::sink::thousands;
use crate::stats::{Group, GroupBy, Pricing, Stats, Tokens};
use crate::timestamp::{TimeRange, TimeZone, Timestamp};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// The style sheet, as written into the page (its hash is in the policy).
pub const STYLE: &str = include_str!("page.css");
/// The script: sorts and filters the session table; marks the page ready.
pub const SCRIPT: &str = include_str!("page.js");

/// Rows of a chart by category beyond this many are summed into one.
const MAX_ROWS: usize = 15;
/// The 5-hour block chart shows this many of the latest blocks.
const MAX_BLOCKS: usize = 60;

/// What the page is made of beyond the stats.
#[derive(Debug)]
pub struct Options<'a> {
    pub tz: &'a TimeZone,
    pub range: TimeRange,
    /// Whether the log holds transcripts to write.
    pub transcripts: bool,
}

/// `48198349` as `48.2M`: a figure beside another, its exact value in the title.
fn compact(n: u64) -> String {
    let v = n as f64;
    match n {
        0..=9_999 => thousands(n),
        10_000..=999_999 => format!("{:.1}k", v / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", v / 1e6),
        _ => format!("{:.1}B", v / 1e9),
    }
}

fn dollars(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.01 {
        format!("${v:.4}")
    } else {
        let cents = (v * 100.0).round() as u64;
        format!("${}.{:02}", thousands(cents / 100), cents % 100)
    }
}

fn whole(v: f64) -> String {
    thousands(v.round() as u64)
}

fn exact_cost(v: f64) -> String {
    // Costs are rounded to the cent's hundredth of a millionth by stats; print as JSON does.
    serde_json::to_string(&((v * 1e8).round() / 1e8)).unwrap_or_default()
}

fn exact_count(v: f64) -> String {
    format!("{}", v.round() as u64)
}

/// All tokens of a row: the whole prompt (input, cache read, cache write) and the output.
pub fn token_sum(t: &Tokens) -> u64 {
    t.input
        .saturating_add(t.output)
        .saturating_add(t.cache_creation)
        .saturating_add(t.cache_read)
}

/// The base64 SHA-256 a CSP source expression names.
pub fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!("'sha256-{}'", base64(&digest))
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The id of a session's transcript (`session-…`): characters other than letters,
/// digits, `-`, `_`, `.` and `:` become `_`, so it is the same in `id` and `href`.
pub fn anchor(session: &str) -> String {
    let mut out = String::from("session-");
    out.extend(session.chars().map(|c| {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':') {
            c
        } else {
            '_'
        }
    }));
    out
}

/// The series of a breakdown within keys: the inner keys with the largest figure first,
/// the ones beyond [`MAX_SERIES`] as "other".
fn series_of(rows: &[(String, String, Group)], figure: impl Fn(&Group) -> f64) -> Vec<String> {
    let mut total: HashMap<&str, f64> = HashMap::new();
    for (_, inner, g) in rows {
        *total.entry(inner.as_str()).or_default() += figure(g);
    }
    let mut names: Vec<(&str, f64)> = total.into_iter().filter(|(_, v)| *v > 0.0).collect();
    names.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out: Vec<String> = names.iter().map(|(n, _)| n.to_string()).collect();
    if out.len() > MAX_SERIES {
        out.truncate(MAX_SERIES);
        out.push("other".to_string());
    }
    out
}

/// Bars by outer key, stacked by inner key (series as [`series_of`] chose them).
fn stacked(
    keys: &[String],
    rows: &[(String, String, Group)],
    series: &[String],
    figure: impl Fn(&Group) -> f64,
) -> Vec<Bar> {
    let index: HashMap<&str, usize> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let other = series
        .iter()
        .position(|s| s == "other" && series.len() > MAX_SERIES);
    let mut by_key: BTreeMap<&str, BTreeMap<usize, f64>> = BTreeMap::new();
    for (k, inner, g) in rows {
        let v = figure(g);
        if v == 0.0 {
            continue;
        }
        let Some(s) = index.get(inner.as_str()).copied().or(other) else {
            continue;
        };
        *by_key.entry(k).or_default().entry(s).or_default() += v;
    }
    keys.iter()
        .map(|k| Bar {
            key: k.clone(),
            parts: by_key
                .get(k.as_str())
                .map(|m| m.iter().map(|(s, v)| (*s, *v)).collect())
                .unwrap_or_default(),
            ..Bar::default()
        })
        .collect()
}

/// Category rows, largest first, those beyond [`MAX_ROWS`] summed into one.
fn ranked(mut bars: Vec<Bar>) -> Vec<Bar> {
    bars.retain(|b| b.total() > 0.0);
    bars.sort_by(|a, b| b.total().total_cmp(&a.total()).then(a.key.cmp(&b.key)));
    if bars.len() > MAX_ROWS {
        let rest = bars.split_off(MAX_ROWS - 1);
        let n = rest.len();
        let total: f64 = rest.iter().map(Bar::total).sum();
        bars.push(Bar {
            key: format!("{n} others"),
            parts: vec![(0, total)],
            ..Bar::default()
        });
    }
    bars
}

fn chart_section(out: &mut String, title: &str, body: &str, legend: Option<String>) {
    out.push_str("<figure class=\"card\"><figcaption>");
    escape_into(out, title);
    out.push_str("</figcaption><div class=\"scroll\">");
    out.push_str(body);
    out.push_str("</div>");
    if let Some(legend) = legend {
        out.push_str(&legend);
    }
    out.push_str("</figure>\n");
}

fn local(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone())
        .strftime("%Y-%m-%d %H:%M")
        .to_string()
}

/// The whole page.
pub fn render(
    stats: &Stats,
    pricing: &Pricing<'_>,
    log: &SessionLog,
    opts: &Options<'_>,
) -> String {
    let report = stats.report_totals(None, pricing);
    let days = stats.groups_priced(GroupBy::Day, pricing);
    let day_keys: Vec<&str> = days
        .iter()
        .map(|g| g.key.as_str())
        .filter(|k| k.len() == 10)
        .collect();
    let (first_day, last_day) = (day_keys.first().copied(), day_keys.last().copied());
    let span = match (first_day, last_day) {
        (Some(a), Some(b)) => day_number(b).unwrap_or(0) - day_number(a).unwrap_or(0) + 1,
        _ => 0,
    };
    let unit = if span <= 62 {
        GroupBy::Day
    } else if span <= 7 * 60 {
        GroupBy::Week
    } else {
        GroupBy::Month
    };
    let time_rows = stats.groups_within(unit, GroupBy::Model, pricing);
    let time_keys: Vec<String> = match unit {
        GroupBy::Day => all_days(first_day, last_day),
        _ => stats
            .groups_priced(unit, pricing)
            .into_iter()
            .map(|g| g.key)
            .filter(|k| k != "(none)")
            .collect(),
    };
    let cost_of = |g: &Group| g.cost_usd.unwrap_or(0.0);
    let tokens_of = |g: &Group| token_sum(&g.tokens) as f64;
    // One series list (by tokens) for both charts: a model has one colour on the page.
    // (A model with a cost but no tokens, a reported cost, is in it too.)
    let token_series = series_of(&time_rows, |g| {
        tokens_of(g) + f64::from(u8::from(cost_of(g) > 0.0))
    });
    let cost_series = token_series.clone();
    let cost_bars = stacked(&time_keys, &time_rows, &cost_series, cost_of);
    let token_bars = stacked(&time_keys, &time_rows, &token_series, tokens_of);

    let projects = stats.groups_priced(GroupBy::Project, pricing);
    let project_bars = ranked(
        projects
            .iter()
            .map(|g| Bar {
                key: g.key.clone(),
                parts: vec![(0, cost_of(g))],
                note: Some(format!("{} tokens", thousands(token_sum(&g.tokens)))),
                ..Bar::default()
            })
            .collect(),
    );
    // Agents: each input's figures under its dialect.
    let mut agents: BTreeMap<String, Group> = BTreeMap::new();
    for g in stats.groups_priced(GroupBy::File, pricing) {
        let name = log
            .files
            .get(&g.key)
            .map_or("(unknown)", |d| d.name())
            .to_string();
        let a = agents.entry(name).or_default();
        a.tokens += g.tokens;
        if let Some(c) = g.cost_usd {
            a.cost_usd = Some(a.cost_usd.unwrap_or(0.0) + c);
        }
        a.tool_calls += g.tool_calls;
        a.tool_errors += g.tool_errors;
    }
    // Every agent, its cost drawn and its tokens written after it (an agent without a
    // price still shows).
    let mut agent_bars: Vec<Bar> = agents
        .iter()
        .map(|(k, g)| Bar {
            key: k.clone(),
            parts: vec![(0, cost_of(g))],
            note: Some(format!("{} tokens", thousands(token_sum(&g.tokens)))),
            tail: Some((format!("· {} tokens", compact(token_sum(&g.tokens))), "dim")),
        })
        .collect();
    agent_bars.sort_by(|a, b| b.total().total_cmp(&a.total()).then(a.key.cmp(&b.key)));
    let mut blocks: Vec<Group> = stats
        .groups_priced(GroupBy::Block, pricing)
        .into_iter()
        .filter(|g| !g.key.is_empty() && g.key != "(none)")
        .collect();
    let all_blocks = blocks.len();
    if blocks.len() > MAX_BLOCKS {
        blocks.drain(..blocks.len() - MAX_BLOCKS);
    }
    let block_bars: Vec<Bar> = blocks
        .iter()
        .map(|g| Bar {
            key: g.key.clone(),
            parts: vec![(0, tokens_of(g))],
            note: Some(dollars(cost_of(g))),
            ..Bar::default()
        })
        .collect();
    let mut tool_bars: Vec<Bar> = report
        .tools
        .iter()
        .map(|(name, t)| {
            let rate = if t.calls > 0 {
                t.errors as f64 / t.calls as f64 * 100.0
            } else {
                0.0
            };
            Bar {
                key: name.clone(),
                parts: vec![
                    (0, t.calls.saturating_sub(t.errors) as f64),
                    (BAD_SERIES, t.errors as f64),
                ],
                note: Some(format!(
                    "{} errors, {rate:.1}% error rate",
                    thousands(t.errors)
                )),
                tail: (t.errors > 0).then(|| (format!("{rate:.1}% errors"), "bad")),
            }
        })
        .collect();
    tool_bars.sort_by(|a, b| b.total().total_cmp(&a.total()).then(a.key.cmp(&b.key)));
    tool_bars.truncate(25);

    // The sessions, by start.
    let session_groups = stats.groups_priced(GroupBy::Session, pricing);
    let mut session_models: HashMap<String, Vec<String>> = HashMap::new();
    for (s, m, g) in stats.groups_within(GroupBy::Session, GroupBy::Model, pricing) {
        if token_sum(&g.tokens) > 0 && m != "(none)" {
            session_models.entry(s).or_default().push(m);
        }
    }
    let mut session_project: HashMap<String, String> = HashMap::new();
    for (s, p, _) in stats.groups_within(GroupBy::Session, GroupBy::Project, pricing) {
        session_project.entry(s).or_insert(p);
    }

    let mut out = String::with_capacity(64 << 10);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'\">",
        csp_hash(SCRIPT),
        csp_hash(STYLE)
    );
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"generator\" content=\"ndjq ",
    );
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str("\">\n<title>ndjq report");
    let period = match (first_day, last_day) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => "no dated records".to_string(),
    };
    out.push_str(": ");
    escape_into(&mut out, &period);
    out.push_str("</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header><h1>Agent report</h1><p class=\"period\">");
    escape_into(&mut out, &period);
    if span > 0 {
        let _ = write!(out, " ({span} days)");
    }
    if let Some(s) = opts.range.since {
        out.push_str(", since ");
        escape_into(&mut out, &local(s, opts.tz));
    }
    if let Some(u) = opts.range.until {
        out.push_str(", until ");
        escape_into(&mut out, &local(u, opts.tz));
    }
    out.push_str(", times in ");
    escape_into(&mut out, opts.tz.iana_name().unwrap_or("UTC"));
    out.push_str("</p></header>\n<main>\n");

    // Totals.
    out.push_str("<section id=\"totals\" class=\"cards\">\n");
    let cost = report.cost_usd;
    let estimated = report.cost_usd_estimated.unwrap_or(0.0);
    out.push_str("<div class=\"card big\"><h2>Cost</h2><p class=\"num\" id=\"total-cost\"");
    if let Some(c) = cost {
        let _ = write!(out, " data-value=\"{}\"", exact_cost(c));
    }
    out.push('>');
    out.push_str(&cost.map_or("n/a".to_string(), dollars));
    out.push_str("</p>");
    if estimated > 0.0 {
        let _ = write!(
            out,
            "<p class=\"est\" id=\"estimated-cost\" data-value=\"{}\">≈ {} of it estimated from \
             token counts</p>",
            exact_cost(estimated),
            dollars(estimated)
        );
    }
    if let Some(r) = report.cost_usd_reported {
        let _ = write!(out, "<p>{} reported by the agents</p>", dollars(r));
    }
    if !report.unpriced_models.is_empty() {
        out.push_str("<p class=\"bad\">No price for ");
        escape_into(&mut out, &report.unpriced_models.join(", "));
        out.push_str(": their tokens are not in the cost.</p>");
    }
    out.push_str("</div>\n");
    let t = &report.tokens;
    let _ = write!(
        out,
        "<div class=\"card big\"><h2>Tokens</h2><p class=\"num\" id=\"total-tokens\" \
         data-value=\"{}\">{}</p><table class=\"kinds\">",
        token_sum(t),
        thousands(token_sum(t))
    );
    for (id, name, v) in [
        ("input", "input", t.input),
        ("output", "output", t.output),
        ("cache_read", "cache read", t.cache_read),
        ("cache_creation", "cache write", t.cache_creation),
        (
            "reasoning_output",
            "reasoning (in output)",
            t.reasoning_output,
        ),
    ] {
        let _ = write!(
            out,
            "<tr><th>{name}</th><td class=\"n\" id=\"tokens-{id}\" data-value=\"{v}\">{}</td></tr>",
            thousands(v)
        );
    }
    out.push_str("</table></div>\n");
    let calls: u64 = report.tools.values().map(|t| t.calls).sum();
    let errors: u64 = report.tools.values().map(|t| t.errors).sum();
    let _ = writeln!(
        out,
        "<div class=\"card\"><h2>Sessions</h2><p class=\"num\" id=\"total-sessions\" \
         data-value=\"{0}\">{1}</p><p>{2}{3} tool calls, <span class=\"{4}\">{5} \
         failed</span></p></div>",
        report.sessions,
        thousands(report.sessions),
        if report.turns > 0 {
            format!("{} turns, ", thousands(report.turns))
        } else {
            String::new()
        },
        thousands(calls),
        if errors > 0 { "bad" } else { "" },
        thousands(errors)
    );
    out.push_str("<div class=\"card\"><h2>Agents</h2><ul class=\"agents\">");
    for (name, g) in &agents {
        out.push_str("<li>");
        escape_into(&mut out, name);
        let _ = write!(
            out,
            " <span class=\"dim\">{}</span></li>",
            dollars(cost_of(g))
        );
    }
    out.push_str("</ul></div>\n");
    out.push_str("<div class=\"card\"><h2>Records</h2>");
    let _ = write!(
        out,
        "<p>{} records in {} files; {} invalid</p>",
        thousands(report.lines),
        thousands(report.files),
        thousands(report.invalid)
    );
    out.push_str("<p class=\"dim\">Prices: ");
    escape_into(
        &mut out,
        report
            .pricing
            .as_deref()
            .unwrap_or("none (reported costs only)"),
    );
    out.push_str("</p></div>\n</section>\n");

    // Charts.
    let unit_name = match unit {
        GroupBy::Week => "week",
        GroupBy::Month => "month",
        _ => "day",
    };
    out.push_str("<section id=\"charts\" class=\"charts\">\n");
    chart_section(
        &mut out,
        &format!("Cost per {unit_name}, by model"),
        &svg::columns(&Chart {
            id: &format!("chart-{unit_name}-cost"),
            label: &format!("cost per {unit_name}, stacked by model"),
            series: &cost_series,
            bars: &cost_bars,
            format: dollars,
            exact: exact_cost,
        }),
        (cost_series.len() > 1).then(|| svg::legend(&cost_series)),
    );
    chart_section(
        &mut out,
        &format!("Tokens per {unit_name}, by model"),
        &svg::columns(&Chart {
            id: &format!("chart-{unit_name}-tokens"),
            label: &format!("tokens per {unit_name}, stacked by model"),
            series: &token_series,
            bars: &token_bars,
            format: whole,
            exact: exact_count,
        }),
        (token_series.len() > 1).then(|| svg::legend(&token_series)),
    );
    let one = ["cost".to_string()];
    chart_section(
        &mut out,
        "Cost by project",
        &svg::rows(&Chart {
            id: "chart-project-cost",
            label: "cost by project",
            series: &one,
            bars: &project_bars,
            format: dollars,
            exact: exact_cost,
        }),
        None,
    );
    chart_section(
        &mut out,
        "Cost and tokens by agent",
        &svg::rows(&Chart {
            id: "chart-agent-cost",
            label: "cost by agent",
            series: &one,
            bars: &agent_bars,
            format: dollars,
            exact: exact_cost,
        }),
        None,
    );
    let tok = ["tokens".to_string()];
    let block_title = if all_blocks > MAX_BLOCKS {
        format!("Tokens per 5-hour block (the last {MAX_BLOCKS} of {all_blocks})")
    } else {
        "Tokens per 5-hour block".to_string()
    };
    chart_section(
        &mut out,
        &block_title,
        &svg::columns(&Chart {
            id: "chart-block-tokens",
            label: "tokens per 5-hour block",
            series: &tok,
            bars: &block_bars,
            format: whole,
            exact: exact_count,
        }),
        None,
    );
    let tool_series: Vec<String> = (0..=BAD_SERIES)
        .map(|i| match i {
            0 => "calls".to_string(),
            BAD_SERIES => "failed".to_string(),
            _ => String::new(),
        })
        .collect();
    chart_section(
        &mut out,
        "Tool calls and errors",
        &svg::rows(&Chart {
            id: "chart-tool-calls",
            label: "tool calls by tool, failed calls stacked",
            series: &tool_series,
            bars: &tool_bars,
            format: whole,
            exact: exact_count,
        }),
        Some(
            "<ul class=\"legend\"><li><span class=\"sw s0\"></span>succeeded</li>\
             <li><span class=\"sw s9\"></span>failed</li></ul>"
                .to_string(),
        ),
    );
    out.push_str("</section>\n");

    // The session table.
    let mut rows: Vec<(Option<Timestamp>, &Group)> = session_groups
        .iter()
        .filter(|g| g.key != "(none)")
        .map(|g| (log.sessions.get(&g.key).and_then(|s| s.start), g))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.key.cmp(&b.1.key)));
    let _ = write!(
        out,
        "<section id=\"sessions\"><h2>Sessions <span class=\"dim\" id=\"shown\">{}</span></h2>\n\
         <p class=\"tools\"><input id=\"filter\" type=\"search\" placeholder=\"Filter sessions \
         (project, agent, model, ending…)\" aria-label=\"Filter sessions\"></p>\n\
         <div class=\"scroll\"><table id=\"session-table\" class=\"sessions\"><thead><tr>\
         <th data-sort=\"text\">start</th><th data-sort=\"text\">session</th>\
         <th data-sort=\"text\">project</th><th data-sort=\"text\">agent</th>\
         <th data-sort=\"text\">models</th><th data-sort=\"num\" class=\"n\">tokens</th>\
         <th data-sort=\"num\" class=\"n\">cost</th><th data-sort=\"num\" class=\"n\">tools</th>\
         <th data-sort=\"num\" class=\"n\">errors</th><th data-sort=\"text\">ended</th>\
         </tr></thead><tbody>\n",
        thousands(rows.len() as u64)
    );
    for (start, g) in &rows {
        let info = log.sessions.get(&g.key);
        out.push_str("<tr><td>");
        if let Some(s) = start {
            out.push_str(&local(*s, opts.tz));
        }
        out.push_str("</td><td>");
        let short: String = g.key.chars().take(8).collect();
        let has_transcript = opts.transcripts && info.is_some_and(|i| !i.transcript.is_empty());
        if has_transcript {
            out.push_str("<a href=\"#");
            escape_into(&mut out, &anchor(&g.key));
            out.push_str("\" title=\"");
            escape_into(&mut out, &g.key);
            out.push_str("\">");
            escape_into(&mut out, &short);
            out.push_str("</a>");
        } else {
            out.push_str("<span title=\"");
            escape_into(&mut out, &g.key);
            out.push_str("\">");
            escape_into(&mut out, &short);
            out.push_str("</span>");
        }
        out.push_str("</td><td>");
        if let Some(p) = session_project.get(&g.key) {
            escape_into(&mut out, project_name(p));
        }
        out.push_str("</td><td>");
        if let Some(d) = info.and_then(|i| i.agent) {
            out.push_str(d.name());
        }
        out.push_str("</td><td>");
        if let Some(models) = session_models.get(&g.key) {
            escape_into(&mut out, &models.join(", "));
        }
        let est = g.cost_usd_estimated.unwrap_or(0.0) > 0.0;
        let _ = write!(
            out,
            "</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n{}\">{}</td><td>",
            thousands(token_sum(&g.tokens)),
            if est { " est" } else { "" },
            g.cost_usd.map_or(String::new(), |c| {
                if est {
                    format!("≈{}", dollars(c))
                } else {
                    dollars(c)
                }
            }),
            thousands(g.tool_calls),
            if g.tool_errors > 0 { " bad" } else { "" },
            thousands(g.tool_errors)
        );
        match info.and_then(|i| i.ending.as_ref()) {
            Some(e) => {
                let d = e.describe();
                let _ = write!(
                    out,
                    "<span class=\"{}\">",
                    if d == "success" { "ok" } else { "bad" }
                );
                escape_into(&mut out, &d);
                out.push_str("</span>");
            }
            None => out.push_str("<span class=\"dim\">no result</span>"),
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody></table></div>\n<p class=\"dim\">≈: estimated from token counts. Click a column to sort.</p></section>\n");

    // Transcripts.
    if opts.transcripts {
        out.push_str("<section id=\"transcripts\"><h2>Transcripts</h2>\n");
        for (start, g) in &rows {
            let Some(info) = log.sessions.get(&g.key) else {
                continue;
            };
            if info.transcript.is_empty() {
                continue;
            }
            out.push_str("<article class=\"transcript\" id=\"");
            escape_into(&mut out, &anchor(&g.key));
            out.push_str("\"><h3>");
            escape_into(&mut out, &g.key);
            out.push_str("</h3><p class=\"dim\">");
            if let Some(s) = start {
                out.push_str(&local(*s, opts.tz));
                out.push_str(" · ");
            }
            if let Some(d) = info.agent {
                out.push_str(d.name());
                out.push_str(" · ");
            }
            let _ = writeln!(
                out,
                "{} tokens · {} · <a href=\"#sessions\">back to the table</a></p>",
                thousands(token_sum(&g.tokens)),
                g.cost_usd.map_or("no cost".to_string(), dollars)
            );
            out.push_str(&info.transcript);
            out.push_str("</article>\n");
        }
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n<footer class=\"dim\">Written by ndjq ");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str(". The figures are those of <code>ndjq stats</code>, whose JSON is in this page.</footer>\n");

    // The stats it was drawn from, and the breakdowns the charts show.
    let data = serde_json::json!({
        "stats": report,
        "period": unit_name,
        "groups": {
            unit_name: stats.groups_priced(unit, pricing),
            "model": stats.groups_priced(GroupBy::Model, pricing),
            "project": projects,
            "agent": agents.iter().map(|(k, g)| Group { key: k.clone(), ..g.clone() }).collect::<Vec<_>>(),
            "block": stats.groups_priced(GroupBy::Block, pricing),
            "tool": stats.groups_priced(GroupBy::Tool, pricing),
        },
    });
    out.push_str("<script type=\"application/json\" id=\"ndjq-stats\">");
    out.push_str(&script_json(&data.to_string()));
    out.push_str("</script>\n<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body></html>\n");
    out
}

/// A project's short name: the last part of its path (the whole path is in the JSON).
fn project_name(p: &str) -> &str {
    p.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(p)
}

fn day_number(day: &str) -> Option<i64> {
    let d: jiff::civil::Date = day.parse().ok()?;
    Some(i64::from(
        d.since(jiff::civil::date(1970, 1, 1)).ok()?.get_days(),
    ))
}

/// Every day from `first` to `last` (a day without records is a zero bar).
fn all_days(first: Option<&str>, last: Option<&str>) -> Vec<String> {
    let (Some(a), Some(b)) = (first, last) else {
        return Vec::new();
    };
    let (Ok(mut d), Ok(end)) = (
        a.parse::<jiff::civil::Date>(),
        b.parse::<jiff::civil::Date>(),
    ) else {
        return vec![a.to_string()];
    };
    let mut out = Vec::new();
    while d <= end && out.len() < 400 {
        out.push(d.to_string());
        match d.tomorrow() {
            Ok(n) => d = n,
            Err(_) => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_thousands() {
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(compact(48_198_349), "48.2M");
        assert_eq!(compact(1_234), "1,234");
        assert_eq!(dollars(1234.5), "$1,234.50");
        assert_eq!(
            csp_hash(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }

    #[test]
    fn anchors_are_plain() {
        assert_eq!(anchor("a b\"<"), "session-a_b__");
        assert_eq!(super::super::escape::escape("x"), "x");
    }
}
