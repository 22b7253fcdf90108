//! Writes a stats report as JSON (one object, `ndjq.stats/1`), CSV (the chosen breakdown,
//! or one row of totals) or an aligned text table for people.

use super::{csv_row, thousands, Format, Painter};
use crate::stats::{Report, Tokens};
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
        Format::Text => write_text(out, report, p),
    }
}

const GROUP_HEADER: [&str; 9] = [
    "key",
    "records",
    "input",
    "output",
    "cache_creation",
    "cache_read",
    "cost_usd",
    "tool_calls",
    "tool_errors",
];

const TOTALS_HEADER: [&str; 18] = [
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
    "result_input",
    "result_output",
    "result_cache_creation",
    "result_cache_read",
    "cost_usd",
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
                    opt(g.cost_usd),
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
                opt(rt.map(|t| t.input)),
                opt(rt.map(|t| t.output)),
                opt(rt.map(|t| t.cache_creation)),
                opt(rt.map(|t| t.cache_read)),
                opt(r.cost_usd),
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
    format!(
        "input {}  output {}  cache_creation {}  cache_read {}",
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_creation),
        thousands(t.cache_read)
    )
}

/// Writes rows as an aligned table: the first column left-aligned, the others right.
fn table(
    out: &mut impl Write,
    p: Painter,
    header: &[&str],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            if i == 0 {
                s.push_str(&format!("{c:<w$}"));
            } else {
                s.push_str(&format!("  {c:>w$}"));
            }
        }
        s.trim_end().to_string()
    };
    let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    writeln!(out, "{}", p.paint(&line(&head), Style::new().bold()))?;
    for row in rows {
        writeln!(out, "{}", line(row))?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, r: &Report, p: Painter) -> io::Result<()> {
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
        .map(|(d, n)| format!("{d} {}", thousands(*n)))
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
        Some(c) => format!("${c:.4}"),
        None => "not reported".to_string(),
    };
    writeln!(out, "{}{}", label("cost"), cost)?;
    if let Some(e) = r.cost_usd_estimated {
        let unpriced = r.unpriced_models.as_deref().unwrap_or_default();
        let note = if unpriced.is_empty() {
            String::new()
        } else {
            format!("  (unpriced: {})", unpriced.join(", "))
        };
        writeln!(out, "{}${e:.4}{note}", label("estimated"))?;
    }
    writeln!(
        out,
        "{}{}  duration {:.1} s",
        label("turns"),
        thousands(r.turns),
        r.duration_ms as f64 / 1000.0
    )?;
    if !r.tools.is_empty() {
        writeln!(out)?;
        let rows: Vec<Vec<String>> = r
            .tools
            .iter()
            .map(|(name, t)| {
                let errors = if t.errors > 0 {
                    p.paint(&t.errors.to_string(), Style::new().red())
                } else {
                    "0".to_string()
                };
                vec![name.clone(), thousands(t.calls), errors]
            })
            .collect();
        table(out, p, &["tool", "calls", "errors"], &rows)?;
    }
    if !r.models.is_empty() {
        writeln!(out)?;
        let rows: Vec<Vec<String>> = r
            .models
            .iter()
            .map(|(m, t)| {
                vec![
                    m.clone(),
                    thousands(t.input),
                    thousands(t.output),
                    thousands(t.cache_creation),
                    thousands(t.cache_read),
                ]
            })
            .collect();
        table(
            out,
            p,
            &["model", "input", "output", "cache_creation", "cache_read"],
            &rows,
        )?;
    }
    writeln!(out)?;
    let rows: Vec<Vec<String>> = r
        .types
        .iter()
        .map(|(t, n)| vec![t.clone(), thousands(*n)])
        .collect();
    table(out, p, &["type", "records"], &rows)?;
    if !r.diagnostics.is_empty() {
        writeln!(out)?;
        let rows: Vec<Vec<String>> = r
            .diagnostics
            .iter()
            .map(|(c, n)| vec![c.clone(), thousands(*n)])
            .collect();
        table(out, p, &["diagnostic", "count"], &rows)?;
    }
    if let (Some(by), Some(groups)) = (&r.by, &r.groups) {
        writeln!(out)?;
        let rows: Vec<Vec<String>> = groups
            .iter()
            .map(|g| {
                vec![
                    g.key.clone(),
                    thousands(g.records),
                    thousands(g.tokens.input),
                    thousands(g.tokens.output),
                    thousands(g.tokens.cache_creation),
                    thousands(g.tokens.cache_read),
                    g.cost_usd.map(|c| format!("${c:.4}")).unwrap_or_default(),
                    thousands(g.tool_calls),
                    thousands(g.tool_errors),
                ]
            })
            .collect();
        let mut header = GROUP_HEADER;
        header[0] = by.as_str();
        table(out, p, &header, &rows)?;
    }
    Ok(())
}
