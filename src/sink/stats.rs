//! Writes a stats report as JSON (one object, `ndjq.stats/2`), CSV (the chosen breakdown,
//! or one row of totals) or an aligned text table for people.

use super::{csv_row, thousands, Format, Painter};
use crate::stats::{Group, Report, Tokens};
use owo_colors::Style;
use std::io::{self, Write};

/// Writes `report` in `format`.
pub fn write_report(
    out: &mut impl Write,
    report: &Report,
    format: Format,
    p: Painter,
) -> io::Result<()> {
    match format {
        Format::Json | Format::Github => {
            serde_json::to_writer(&mut *out, report)?;
            out.write_all(b"\n")
        }
        Format::Csv => write_csv(out, report),
        Format::Text => write_text(out, report, p, None),
    }
}

/// The `--by` text table of `report` (its header lines too) for a terminal `width` cells
/// wide (the live view): the key column gives up what the figures need, its keys cut with
/// `…`, so the figures stay on screen.
pub fn write_text_fitted(
    out: &mut impl Write,
    report: &Report,
    p: Painter,
    width: usize,
) -> io::Result<()> {
    write_text(out, report, p, Some(width))
}

/// Writes `report` as JSON with `state` (the JSON of a [`crate::stats::State`], in pieces) in
/// place of its own, which is empty: a large tree's state is megabytes, serialized on
/// another thread while the totals are computed.
pub fn write_json_with_state(
    out: &mut impl Write,
    report: &Report,
    state: &crate::stats::StateJson,
) -> io::Result<()> {
    let mut head = serde_json::to_vec(report)?;
    let empty = serde_json::to_vec(&crate::stats::State::default())?;
    // `state` is the report's last field: `..."state":{empty}}`.
    let tail_len = b"\"state\":".len() + empty.len() + 1;
    let at = head.len().saturating_sub(tail_len);
    let placeholder = head.get(at..).is_some_and(|tail| {
        tail.starts_with(b"\"state\":") && tail[b"\"state\":".len()..tail.len() - 1] == empty[..]
    });
    if !placeholder {
        return Err(io::Error::other("the report's state is not its last field"));
    }
    head.truncate(at + b"\"state\":".len());
    out.write_all(&head)?;
    state.write_to(out)?;
    out.write_all(b"}\n")
}

const GROUP_HEADER: [&str; 11] = [
    "key",
    "records",
    "input",
    "output",
    "cache_creation",
    "cache_read",
    "reasoning_output",
    "cost_usd",
    "cost_usd_estimated",
    "tool_calls",
    "tool_errors",
];

const TOTALS_HEADER: [&str; 21] = [
    "files",
    "lines",
    "bytes",
    "valid",
    "invalid",
    "empty",
    "sessions",
    "input",
    "output",
    "cache_creation",
    "cache_read",
    "reasoning_output",
    "result_input",
    "result_output",
    "result_cache_creation",
    "result_cache_read",
    "cost_usd",
    "cost_usd_reported",
    "cost_usd_estimated",
    "turns",
    "duration_ms",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn write_csv(out: &mut impl Write, r: &Report) -> io::Result<()> {
    match &r.groups {
        Some(groups) => {
            out.write_all(&csv_row(&GROUP_HEADER)?)?;
            for g in groups {
                let cells = [
                    g.key.clone(),
                    g.records.to_string(),
                    g.tokens.input.to_string(),
                    g.tokens.output.to_string(),
                    g.tokens.cache_creation.to_string(),
                    g.tokens.cache_read.to_string(),
                    g.tokens.reasoning_output.to_string(),
                    opt(g.cost_usd),
                    opt(g.cost_usd_estimated),
                    g.tool_calls.to_string(),
                    g.tool_errors.to_string(),
                ];
                let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
                out.write_all(&csv_row(&refs)?)?;
            }
        }
        None => {
            out.write_all(&csv_row(&TOTALS_HEADER)?)?;
            let rt = r.result_tokens;
            let cells = [
                r.files.to_string(),
                r.lines.to_string(),
                r.bytes.to_string(),
                r.valid.to_string(),
                r.invalid.to_string(),
                r.empty.to_string(),
                r.sessions.to_string(),
                r.tokens.input.to_string(),
                r.tokens.output.to_string(),
                r.tokens.cache_creation.to_string(),
                r.tokens.cache_read.to_string(),
                r.tokens.reasoning_output.to_string(),
                opt(rt.map(|t| t.input)),
                opt(rt.map(|t| t.output)),
                opt(rt.map(|t| t.cache_creation)),
                opt(rt.map(|t| t.cache_read)),
                opt(r.cost_usd),
                opt(r.cost_usd_reported),
                opt(r.cost_usd_estimated),
                r.turns.to_string(),
                r.duration_ms.to_string(),
            ];
            let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
            out.write_all(&csv_row(&refs)?)?;
        }
    }
    Ok(())
}

fn tokens_line(t: &Tokens) -> String {
    let mut s = format!(
        "input {}  output {}  cache_creation {}  cache_read {}",
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_creation),
        thousands(t.cache_read)
    );
    if t.reasoning_output > 0 {
        s.push_str(&format!(
            "  (reasoning {} of the output)",
            thousands(t.reasoning_output)
        ));
    }
    s
}

/// Dollars with thousands separators: cents from $1 up, else four decimals.
pub(crate) fn dollars(c: f64) -> String {
    let c = if c.abs() < 5e-10 { 0.0 } else { c };
    let (sign, c) = if c < 0.0 { ("-", -c) } else { ("", c) };
    if c >= 1.0 || c == 0.0 {
        let cents = (c * 100.0).round() as u64;
        format!("{sign}${}.{:02}", thousands(cents / 100), cents % 100)
    } else {
        format!("{sign}${c:.4}")
    }
}

/// A cost cell: dollars, with `*` when part of it is estimated.
fn cost_cell(cost: Option<f64>, estimated: Option<f64>) -> String {
    match cost {
        Some(c) if estimated.is_some_and(|e| e != 0.0) => format!("{}*", dollars(c)),
        Some(c) => format!("{} ", dollars(c)),
        None => String::new(),
    }
}

/// A bar of at most `width` eighths-resolution blocks, `v` of `max`.
fn bar(v: f64, max: f64, width: usize) -> String {
    if max <= 0.0 || v <= 0.0 {
        return String::new();
    }
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = ((v / max) * (width * 8) as f64).round().max(1.0) as usize;
    let mut s = "█".repeat(eighths / 8);
    s.push_str(PARTS[eighths % 8]);
    s
}

/// A table cell: its text as the terminal shows it (escaped, no colour codes) and the
/// style it is painted in once the columns are laid out.
struct Cell {
    text: String,
    style: Option<Style>,
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell { text, style: None }
    }
}

impl Cell {
    fn styled(text: String, style: Style) -> Cell {
        Cell {
            text,
            style: Some(style),
        }
    }

    /// A string from a log (a type, model, tool, session, path): escaped, so it can
    /// neither drive the terminal nor break the table's lines (tabs too).
    fn key(text: &str) -> Cell {
        Cell::from(safe(text))
    }
}

use super::{display_width, safe};

/// The fewest cells a fitted table's key column keeps (see [`table`]).
const KEY_MIN_CELLS: usize = 12;

/// Writes rows as an aligned table: the first column left-aligned, the others right,
/// except the columns `left` names. A row of `None` is a rule line. Widths are those the
/// terminal shows (see docs/DESIGN.md, "Text tables"); colour is added after padding.
/// With `fit`, a terminal's width: the first column is narrowed (to no less than
/// [`KEY_MIN_CELLS`]) so the table fits it, its texts cut with `…`.
fn table(
    out: &mut impl Write,
    p: Painter,
    header: &[&str],
    rows: &[Option<Vec<Cell>>],
    left: &[usize],
    fit: Option<usize>,
) -> io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| display_width(h)).collect();
    for row in rows.iter().flatten() {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(display_width(&cell.text));
            }
        }
    }
    let cut_rows: Vec<Option<Vec<Cell>>>;
    let mut rows = rows;
    if let (Some(fit), Some(first)) = (fit, widths.first().copied()) {
        let rest: usize = widths[1..].iter().sum::<usize>() + 2 * (widths.len() - 1);
        let key_w = first.min(fit.saturating_sub(rest).max(KEY_MIN_CELLS));
        if key_w < first {
            widths[0] = key_w;
            cut_rows = rows
                .iter()
                .map(|row| {
                    row.as_ref().map(|cells| {
                        cells
                            .iter()
                            .enumerate()
                            .map(|(i, c)| Cell {
                                text: if i == 0 {
                                    super::cut(&c.text, key_w)
                                } else {
                                    c.text.clone()
                                },
                                style: c.style,
                            })
                            .collect()
                    })
                })
                .collect();
            rows = &cut_rows;
        }
    }
    let line = |cells: &[Cell]| -> String {
        let mut s = String::new();
        let last = cells
            .iter()
            .rposition(|c| !c.text.is_empty())
            .map_or(0, |i| i + 1);
        for (i, c) in cells.iter().enumerate().take(last) {
            let w = widths.get(i).copied().unwrap_or(0);
            if i > 0 {
                s.push_str("  ");
            }
            let pad = " ".repeat(w.saturating_sub(display_width(&c.text)));
            let text = match c.style {
                Some(style) if !c.text.is_empty() => p.paint(&c.text, style),
                _ => c.text.clone(),
            };
            let left_aligned = i == 0 || left.contains(&i);
            if !left_aligned {
                s.push_str(&pad);
            }
            s.push_str(&text);
            // No padding after the last cell: no trailing blanks.
            if left_aligned && i + 1 < last {
                s.push_str(&pad);
            }
        }
        s
    };
    let head: Vec<Cell> = header.iter().map(|h| Cell::from(h.to_string())).collect();
    writeln!(out, "{}", p.paint(&line(&head), Style::new().bold()))?;
    let total: usize = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    for row in rows {
        match row {
            Some(row) => writeln!(out, "{}", line(row))?,
            None => writeln!(out, "{}", "─".repeat(total))?,
        }
    }
    Ok(())
}

fn write_text(out: &mut impl Write, r: &Report, p: Painter, fit: Option<usize>) -> io::Result<()> {
    let label = |s: &str| p.paint(&format!("{s:<10}"), Style::new().bold());
    writeln!(
        out,
        "{}{} in {} ({} valid, {} invalid, {} empty), {} bytes",
        label("records"),
        thousands(r.lines),
        if r.files == 1 {
            "1 file".to_string()
        } else {
            format!("{} files", r.files)
        },
        thousands(r.valid),
        thousands(r.invalid),
        thousands(r.empty),
        thousands(r.bytes)
    )?;
    let dialects: Vec<String> = r
        .dialects
        .iter()
        .map(|(d, n)| format!("{} {}", safe(d), thousands(*n)))
        .collect();
    writeln!(out, "{}{}", label("dialects"), dialects.join(", "))?;
    writeln!(out, "{}{}", label("sessions"), thousands(r.sessions))?;
    writeln!(out, "{}{}", label("tokens"), tokens_line(&r.tokens))?;
    if let Some(t) = &r.result_tokens {
        writeln!(
            out,
            "{}{}  (as the results report them)",
            label("result"),
            tokens_line(t)
        )?;
    }
    let cost = match r.cost_usd {
        Some(c) => {
            let mut parts = Vec::new();
            if let Some(rep) = r.cost_usd_reported {
                parts.push(format!("{} reported", dollars(rep)));
            }
            if let Some(e) = r.cost_usd_estimated {
                parts.push(format!("{} estimated", dollars(e)));
            }
            format!("{}  ({})", dollars(c), parts.join(" + "))
        }
        None => "none reported, none priced".to_string(),
    };
    writeln!(out, "{}{}", label("cost"), cost)?;
    if r.cost_usd_estimated.is_some() {
        if let Some(name) = &r.pricing {
            writeln!(out, "{}estimated with {}", label("pricing"), safe(name))?;
        }
    }
    if !r.unpriced_models.is_empty() {
        writeln!(
            out,
            "{}{}  (no price: their tokens are not in the cost)",
            label("unpriced"),
            p.paint(
                &r.unpriced_models
                    .iter()
                    .map(|m| if m == "(none)" {
                        "(model not named)".to_string()
                    } else {
                        safe(m)
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                Style::new().yellow()
            )
        )?;
    }
    if !r.continues_unseen_sessions.is_empty() {
        writeln!(
            out,
            "{}{}  (each continues a session not read: its figures include that session's usage)",
            label("continues"),
            p.paint(
                &r.continues_unseen_sessions
                    .iter()
                    .map(|s| safe(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                Style::new().yellow()
            )
        )?;
    }
    // Turns and duration come from results (stream-json, exec logs); transcripts do not
    // record them, and a zero there would read as a measurement.
    let seconds = format!("{:.1} s", r.duration_ms as f64 / 1000.0);
    match (r.turns > 0, r.duration_ms > 0) {
        (true, true) => writeln!(
            out,
            "{}{}  duration {seconds}",
            label("turns"),
            thousands(r.turns)
        )?,
        (true, false) => writeln!(out, "{}{}", label("turns"), thousands(r.turns))?,
        (false, true) => writeln!(out, "{}{seconds}", label("duration"))?,
        (false, false) => {}
    }
    // With --by, the breakdown asked for is the table; the others stay in JSON.
    if let (Some(by), Some(groups)) = (&r.by, &r.groups) {
        writeln!(out)?;
        return write_groups(out, p, by, groups, fit);
    }
    if !r.tools.is_empty() {
        writeln!(out)?;
        let rows: Vec<Option<Vec<Cell>>> = r
            .tools
            .iter()
            .map(|(name, t)| {
                let errors = if t.errors > 0 {
                    Cell::styled(thousands(t.errors), Style::new().red())
                } else {
                    Cell::from("0".to_string())
                };
                Some(vec![
                    Cell::key(name),
                    Cell::from(thousands(t.calls)),
                    errors,
                ])
            })
            .collect();
        table(out, p, &["tool", "calls", "errors"], &rows, &[], None)?;
    }
    if !r.models.is_empty() {
        writeln!(out)?;
        let rows: Vec<Option<Vec<Cell>>> = r
            .models
            .iter()
            .map(|(m, t)| {
                Some(vec![
                    Cell::key(m),
                    Cell::from(thousands(t.input)),
                    Cell::from(thousands(t.output)),
                    Cell::from(thousands(t.cache_creation)),
                    Cell::from(thousands(t.cache_read)),
                ])
            })
            .collect();
        table(
            out,
            p,
            &["model", "input", "output", "cache_creation", "cache_read"],
            &rows,
            &[],
            None,
        )?;
    }
    writeln!(out)?;
    let rows: Vec<Option<Vec<Cell>>> = r
        .types
        .iter()
        .map(|(t, n)| Some(vec![Cell::key(t), Cell::from(thousands(*n))]))
        .collect();
    table(out, p, &["type", "records"], &rows, &[], None)?;
    if !r.diagnostics.is_empty() {
        writeln!(out)?;
        let rows: Vec<Option<Vec<Cell>>> = r
            .diagnostics
            .iter()
            .map(|(c, n)| Some(vec![Cell::key(c), Cell::from(thousands(*n))]))
            .collect();
        table(out, p, &["diagnostic", "count"], &rows, &[], None)?;
    }
    Ok(())
}

/// The breakdown as a table read at a glance: thousands separators, a cost column (`*`
/// where estimated), a totals row, and for days, weeks and months a bar per row.
fn write_groups(
    out: &mut impl Write,
    p: Painter,
    by: &str,
    groups: &[Group],
    fit: Option<usize>,
) -> io::Result<()> {
    let with_bar = matches!(by, "day" | "week" | "month");
    let reasoning = groups.iter().any(|g| g.tokens.reasoning_output > 0);
    let any_cost = groups.iter().any(|g| g.cost_usd.is_some());
    let estimated = groups
        .iter()
        .any(|g| g.cost_usd_estimated.is_some_and(|e| e != 0.0));
    // The bar measures cost where there is one, else tokens.
    let measure = |g: &Group| -> f64 {
        if any_cost {
            g.cost_usd.unwrap_or(0.0)
        } else {
            total_tokens(&g.tokens) as f64
        }
    };
    let max = groups.iter().map(measure).fold(0.0, f64::max);
    let mut header: Vec<&str> = vec![
        by,
        "records",
        "input",
        "output",
        "cache_create",
        "cache_read",
    ];
    if reasoning {
        header.push("reasoning");
    }
    header.extend(["total_tokens", "cost_usd", "tool_calls", "errors"]);
    if with_bar {
        header.push("");
    }
    let cells = |key: Cell, g: &Group, bar_text: Option<String>| -> Vec<Cell> {
        let mut c = vec![
            key,
            Cell::from(thousands(g.records)),
            Cell::from(thousands(g.tokens.input)),
            Cell::from(thousands(g.tokens.output)),
            Cell::from(thousands(g.tokens.cache_creation)),
            Cell::from(thousands(g.tokens.cache_read)),
        ];
        if reasoning {
            c.push(Cell::from(thousands(g.tokens.reasoning_output)));
        }
        c.extend([
            Cell::from(thousands(total_tokens(&g.tokens))),
            Cell::from(cost_cell(g.cost_usd, g.cost_usd_estimated)),
            Cell::from(thousands(g.tool_calls)),
            if g.tool_errors > 0 {
                Cell::styled(thousands(g.tool_errors), Style::new().red())
            } else {
                Cell::from("0".to_string())
            },
        ]);
        if let Some(b) = bar_text {
            c.push(Cell::styled(b, Style::new().cyan()));
        }
        c
    };
    let mut rows: Vec<Option<Vec<Cell>>> = groups
        .iter()
        .map(|g| {
            let b = with_bar.then(|| bar(measure(g), max, 24));
            Some(cells(Cell::key(&g.key), g, b))
        })
        .collect();
    let mut total = Group::default();
    for g in groups {
        total.records += g.records;
        total.tokens += g.tokens;
        total.tool_calls += g.tool_calls;
        total.tool_errors += g.tool_errors;
        if let Some(c) = g.cost_usd {
            total.cost_usd = Some(total.cost_usd.unwrap_or(0.0) + c);
        }
        if let Some(e) = g.cost_usd_estimated {
            total.cost_usd_estimated = Some(total.cost_usd_estimated.unwrap_or(0.0) + e);
        }
    }
    rows.push(None);
    rows.push(Some(cells(
        Cell::styled("total".to_string(), Style::new().bold()),
        &total,
        with_bar.then(String::new),
    )));
    let bar_col = with_bar.then_some(header.len() - 1);
    table(out, p, &header, &rows, bar_col.as_slice(), fit)?;
    if estimated {
        writeln!(out, "* estimated from token counts (no cost reported)")?;
    }
    Ok(())
}

fn total_tokens(t: &Tokens) -> u64 {
    t.input
        .saturating_add(t.output)
        .saturating_add(t.cache_creation)
        .saturating_add(t.cache_read)
}
