//! The live view of `stats --follow -f text` on a terminal (docs/GUIDE.md, "The live
//! view"): the current 5-hour block, the burn rate and where it leads, per model and per
//! agent, the sessions active now and today's total; or, with `--by`, that table.
//!
//! [`render`] is a pure function of a [`LiveSnapshot`] and the time, so frames are
//! golden-tested with a fixed clock; [`frame`] adds the terminal codes that redraw it in
//! place (cursor home, clear each line's rest and below: no scrolling, no flicker), and
//! [`snapshot_line`] writes the JSON objects of `stats --follow -f json`.

use super::fit;
use super::{cut, display_width, pad, safe, thousands};
use crate::stats::Report;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use std::io;

/// How long a block lasts: Claude plans' 5-hour windows, as `--by block` counts them.
pub const BLOCK: SignedDuration = SignedDuration::from_hours(5);

/// A session counts as active while it wrote within this long.
pub const ACTIVE_WITHIN: SignedDuration = SignedDuration::from_mins(10);

/// Everything one frame of the live view shows, computed from the stats.
#[derive(Debug, Clone, Default)]
pub struct LiveSnapshot {
    /// The current block, if one is open now.
    pub block: Option<BlockFigures>,
    /// The tokens a block may use (`--token-limit`); `limit_is_max` when it is the
    /// largest earlier block's.
    pub limit: Option<u64>,
    pub limit_is_max: bool,
    /// Tokens per minute and dollars per hour, over the last minutes.
    pub burn: Option<Burn>,
    /// The current block by model and by agent, most tokens first.
    pub models: Vec<Row>,
    pub agents: Vec<Row>,
    /// Sessions that wrote within [`ACTIVE_WITHIN`], latest first.
    pub active: Vec<Active>,
    /// Today (in the report's time zone).
    pub today: Row,
    /// With `--by`: the text table that is the whole view.
    pub table: Option<String>,
}

#[derive(Debug, Clone)]
pub struct BlockFigures {
    pub start: Timestamp,
    pub tokens: u64,
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Burn {
    pub tokens_per_min: f64,
    pub usd_per_hour: Option<f64>,
    /// Over how many minutes it was measured.
    pub minutes: f64,
    /// Measured from the block's start (not watched a minute yet), not the last minutes.
    pub block_average: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub name: String,
    pub tokens: u64,
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Active {
    pub name: String,
    pub agent: String,
    pub last: Timestamp,
}

/// One frame of the live view at `now`, in `tz`, as plain text lines, none wider than
/// `width` terminal cells: a name longer than its column is cut with `…`, and a line
/// still too wide (a narrow terminal) is cut at the edge, so the view never wraps.
pub fn render(s: &LiveSnapshot, now: Timestamp, tz: &TimeZone, width: usize) -> String {
    let text = render_lines(s, now, tz, width);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&fit(line, width));
        out.push('\n');
    }
    out
}

fn render_lines(s: &LiveSnapshot, now: Timestamp, tz: &TimeZone, width: usize) -> String {
    let mut out = String::new();
    let clock = |t: Timestamp| t.to_zoned(tz.clone()).strftime("%H:%M").to_string();
    let stamp = now
        .to_zoned(tz.clone())
        .strftime("%Y-%m-%d %H:%M:%S %Z")
        .to_string();
    out.push_str(&format!("ndjq stats --follow · {stamp} · Ctrl-C ends\n\n"));
    if let Some(table) = &s.table {
        out.push_str(table);
        if !table.ends_with('\n') {
            out.push('\n');
        }
        return out;
    }
    match &s.block {
        None => out.push_str("Block      none open (no activity in the last 5 hours)\n"),
        Some(b) => {
            let end = b.start.saturating_add(BLOCK).unwrap_or(b.start);
            let left = end.duration_since(now).max(SignedDuration::ZERO);
            let elapsed = now.duration_since(b.start).max(SignedDuration::ZERO);
            out.push_str(&format!(
                "Block      {} → {}   {} left   {}\n",
                clock(b.start),
                clock(end),
                hours_minutes(left),
                bar(elapsed.as_secs_f64() / BLOCK.as_secs_f64(), 20),
            ));
            out.push_str(&format!(
                "So far     {} tokens   {}\n",
                thousands(b.tokens),
                usd(b.cost)
            ));
            match s.burn {
                Some(burn) => {
                    let over = if burn.block_average {
                        "since the block began".to_string()
                    } else {
                        format!("last {} min", burn.minutes.round().max(1.0) as u64)
                    };
                    out.push_str(&format!(
                        "Burn rate  {} tokens/min   {}/h   ({over})\n",
                        thousands(burn.tokens_per_min.round() as u64),
                        usd(burn.usd_per_hour),
                    ));
                    let mins_left = left.as_secs_f64() / 60.0;
                    let tokens = b.tokens as f64 + burn.tokens_per_min * mins_left;
                    let cost = match (b.cost, burn.usd_per_hour) {
                        (Some(c), Some(r)) => Some(c + r * mins_left / 60.0),
                        (c, _) => c,
                    };
                    out.push_str(&format!(
                        "At {}   {} tokens   {}   (projected)\n",
                        clock(end),
                        thousands(tokens.round() as u64),
                        usd(cost)
                    ));
                    if let Some(limit) = s.limit {
                        out.push_str(&limit_line(
                            b.tokens,
                            limit,
                            s.limit_is_max,
                            burn,
                            now,
                            end,
                            &clock,
                        ));
                    }
                }
                None => {
                    out.push_str("Burn rate  -\n");
                    if let Some(limit) = s.limit {
                        let share = b.tokens as f64 / limit.max(1) as f64;
                        out.push_str(&format!(
                            "Limit      {} of {}{}   {}\n",
                            percent(share),
                            thousands(limit),
                            if s.limit_is_max {
                                " (largest block)"
                            } else {
                                ""
                            },
                            bar(share, 20)
                        ));
                    }
                }
            }
        }
    }
    for (title, rows) in [("Model", &s.models), ("Agent", &s.agents)] {
        if rows.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(&table(title, rows, width));
    }
    out.push('\n');
    if s.active.is_empty() {
        out.push_str("Active     no session wrote in the last 10 minutes\n");
    } else {
        out.push_str(&format!(
            "Active     {} (wrote in the last 10 minutes)\n",
            s.active.len()
        ));
        // Session ids and agent names come from the logs: escaped, and measured as the
        // terminal shows them.
        let names: Vec<(String, String)> = s
            .active
            .iter()
            .map(|a| (safe(&a.name), safe(&a.agent)))
            .collect();
        let agos: Vec<String> = s
            .active
            .iter()
            .map(|a| ago_text(now.duration_since(a.last).max(SignedDuration::ZERO)))
            .collect();
        // The name takes what the agent and the time leave of the width.
        let rest = 2 + 2 + 10 + 2 + agos.iter().map(|a| a.len()).max().unwrap_or(0);
        let name_w = names
            .iter()
            .map(|(n, _)| display_width(n))
            .max()
            .unwrap_or(0)
            .min(width.saturating_sub(rest).max(MIN_NAME_CELLS));
        for ((name, agent), ago) in names.iter().zip(&agos) {
            out.push_str(&format!(
                "  {}  {}  {ago}\n",
                pad(&cut(name, name_w), name_w),
                pad(agent, 10),
            ));
        }
    }
    out.push_str(&format!(
        "Today      {} tokens   {}\n",
        thousands(s.today.tokens),
        usd(s.today.cost)
    ));
    out
}

/// The limit's line: the share used, and when the burn rate reaches it.
fn limit_line(
    tokens: u64,
    limit: u64,
    is_max: bool,
    burn: Burn,
    now: Timestamp,
    end: Timestamp,
    clock: &dyn Fn(Timestamp) -> String,
) -> String {
    let share = tokens as f64 / limit.max(1) as f64;
    let of = format!(
        "Limit      {} of {}{}   {}",
        percent(share),
        thousands(limit),
        if is_max { " (largest block)" } else { "" },
        bar(share, 20)
    );
    let when = if tokens >= limit {
        "reached".to_string()
    } else if burn.tokens_per_min <= 0.0 {
        "not reached at this rate".to_string()
    } else {
        let mins = (limit - tokens) as f64 / burn.tokens_per_min;
        let at = now
            .saturating_add(SignedDuration::from_secs_f64((mins * 60.0).min(1e9)))
            .unwrap_or(end);
        if at >= end {
            "not reached in this block".to_string()
        } else {
            format!("reached at {}", clock(at))
        }
    };
    format!("{of}   {when}\n")
}

fn table(title: &str, rows: &[Row], width: usize) -> String {
    // Model and agent names come from the logs: escaped, measured as the terminal shows.
    let names: Vec<String> = rows.iter().map(|r| safe(&r.name)).collect();
    let tokens: Vec<String> = rows.iter().map(|r| thousands(r.tokens)).collect();
    let costs: Vec<String> = rows.iter().map(|r| usd(r.cost)).collect();
    let tok_w = tokens.iter().map(String::len).chain([6]).max().unwrap_or(6);
    let cost_w = costs
        .iter()
        .map(|c| c.chars().count())
        .chain([4])
        .max()
        .unwrap_or(4);
    // The figures keep their columns; the names take what is left of the width.
    let room = width
        .saturating_sub(2 + tok_w + 2 + cost_w)
        .max(MIN_NAME_CELLS.max(title.len()));
    let name_w = names
        .iter()
        .map(|n| display_width(n))
        .chain([title.len()])
        .max()
        .unwrap_or(0)
        .min(room);
    let mut out = format!(
        "{}  {:>tok_w$}  {:>cost_w$}\n",
        pad(title, name_w),
        "Tokens",
        "Cost"
    );
    for ((name, t), c) in names.iter().zip(&tokens).zip(&costs) {
        out.push_str(&format!(
            "{}  {t:>tok_w$}  {c:>cost_w$}\n",
            pad(&cut(name, name_w), name_w)
        ));
    }
    out
}

/// The fewest cells a name column is given, however narrow the terminal: past that, the
/// whole line is cut at the edge instead ([`fit`]).
const MIN_NAME_CELLS: usize = 8;

/// `[#####.....]`: a share of `width` cells, full at 1 and beyond.
fn bar(share: f64, width: usize) -> String {
    let full = ((share.clamp(0.0, 1.0) * width as f64).round() as usize).min(width);
    format!("[{}{}]", "#".repeat(full), ".".repeat(width - full))
}

fn percent(share: f64) -> String {
    format!("{:.0}%", (share * 100.0).max(0.0))
}

fn hours_minutes(d: SignedDuration) -> String {
    let mins = d.as_secs().max(0) / 60;
    format!("{}h {:02}m", mins / 60, mins % 60)
}

fn ago_text(d: SignedDuration) -> String {
    match d.as_secs().max(0) {
        s if s < 60 => "just now".to_string(),
        s => format!("{} min ago", s / 60),
    }
}

/// Dollars as the text reports write them; `-` when nothing could be priced.
fn usd(c: Option<f64>) -> String {
    let Some(c) = c else {
        return "$-".to_string();
    };
    let c = if c.abs() < 5e-10 { 0.0 } else { c.max(0.0) };
    if c >= 1.0 || c == 0.0 {
        let cents = (c * 100.0).round() as u64;
        format!("${}.{:02}", thousands(cents / 100), cents % 100)
    } else {
        format!("${c:.4}")
    }
}

/// `text` as a frame drawn over the last one: cursor home, each line's old rest cleared,
/// then everything below. At most `height` lines (the terminal's rows), and no newline
/// after the last: a frame that filled the screen and went one line past would scroll
/// its first line off.
pub fn frame(text: &str, height: usize) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str("\x1b[H");
    for (i, line) in text.lines().take(height.max(1)).enumerate() {
        if i > 0 {
            out.push_str("\x1b[K\n");
        }
        out.push_str(line);
    }
    out.push_str("\x1b[K\x1b[J");
    out
}

/// One line of `stats --follow -f json`: the report (`ndjq.stats/2`, without its merge
/// state) and `taken_at`, the RFC 3339 time the snapshot was taken.
pub fn snapshot_line(report: &Report, taken_at: Timestamp) -> io::Result<Vec<u8>> {
    if report.state.is_some() {
        return Err(io::Error::other(
            "a live snapshot is the report without its state",
        ));
    }
    let mut v = serde_json::to_vec(report)?;
    // The report is an object: `taken_at` goes in before its closing brace.
    if v.pop() != Some(b'}') {
        return Err(io::Error::other("the report is not a JSON object"));
    }
    v.extend_from_slice(format!(",\"taken_at\":\"{taken_at}\"}}\n").as_bytes());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().expect("timestamp")
    }

    fn snapshot() -> LiveSnapshot {
        LiveSnapshot {
            block: Some(BlockFigures {
                start: at("2026-11-25T14:00:00Z"),
                tokens: 1_250_000,
                cost: Some(12.5),
            }),
            limit: Some(1_800_000),
            limit_is_max: false,
            burn: Some(Burn {
                tokens_per_min: 5_000.0,
                usd_per_hour: Some(3.0),
                minutes: 10.0,
                block_average: false,
            }),
            models: vec![
                Row {
                    name: "claude-opus-5-5".into(),
                    tokens: 1_000_000,
                    cost: Some(11.0),
                },
                Row {
                    name: "gpt-5.1-codex".into(),
                    tokens: 250_000,
                    cost: Some(1.5),
                },
            ],
            agents: vec![
                Row {
                    name: "aurora".into(),
                    tokens: 1_000_000,
                    cost: Some(11.0),
                },
                Row {
                    name: "comet".into(),
                    tokens: 250_000,
                    cost: Some(1.5),
                },
            ],
            active: vec![Active {
                name: "d5d7c6f2-2e3c-41c7".into(),
                agent: "aurora".into(),
                last: at("2026-11-25T16:27:30Z"),
            }],
            today: Row {
                name: "2026-11-25".into(),
                tokens: 3_400_000,
                cost: Some(40.25),
            },
            table: None,
        }
    }

    /// A golden frame from a fixed clock: block times, time left, projection (1,250,000 +
    /// 5,000/min × 150 min = 2,000,000), and the limit reached at 16:30 + 550,000 / 5,000
    /// min = 18:20.
    #[test]
    fn a_frame_from_a_fixed_clock() {
        let now = at("2026-11-25T16:30:00Z");
        let got = render(&snapshot(), now, &TimeZone::UTC, 100);
        let want = "\
ndjq stats --follow · 2026-11-25 16:30:00 UTC · Ctrl-C ends

Block      14:00 → 19:00   2h 30m left   [##########..........]
So far     1,250,000 tokens   $12.50
Burn rate  5,000 tokens/min   $3.00/h   (last 10 min)
At 19:00   2,000,000 tokens   $20.00   (projected)
Limit      69% of 1,800,000   [##############......]   reached at 18:20

Model               Tokens    Cost
claude-opus-5-5  1,000,000  $11.00
gpt-5.1-codex      250,000   $1.50

Agent      Tokens    Cost
aurora  1,000,000  $11.00
comet     250,000   $1.50

Active     1 (wrote in the last 10 minutes)
  d5d7c6f2-2e3c-41c7  aurora      2 min ago
Today      3,400,000 tokens   $40.25
";
        assert_eq!(got, want);
    }

    #[test]
    fn a_frame_with_the_limit_out_of_reach_and_none_active() {
        let mut s = snapshot();
        s.limit = Some(10_000_000);
        s.limit_is_max = true;
        s.active.clear();
        s.models.clear();
        s.agents.clear();
        let got = render(&s, at("2026-11-25T18:45:00Z"), &TimeZone::UTC, 100);
        assert!(
            got.contains("Block      14:00 → 19:00   0h 15m left"),
            "{got}"
        );
        assert!(
            got.contains("Limit      12% of 10,000,000 (largest block)   [###.................]   not reached in this block"),
            "{got}"
        );
        assert!(
            got.contains("Active     no session wrote in the last 10 minutes"),
            "{got}"
        );
        assert!(!got.contains("Model"), "{got}");
    }

    #[test]
    fn no_open_block_and_a_by_table() {
        let s = LiveSnapshot::default();
        let got = render(&s, at("2026-11-25T16:30:00Z"), &TimeZone::UTC, 100);
        assert!(got.contains("Block      none open"), "{got}");
        assert!(got.contains("Today      0 tokens   $-"), "{got}");
        let s = LiveSnapshot {
            table: Some("Key  Records\nx          1\n".into()),
            ..LiveSnapshot::default()
        };
        let got = render(&s, at("2026-11-25T16:30:00Z"), &TimeZone::UTC, 100);
        assert_eq!(
            got,
            "ndjq stats --follow · 2026-11-25 16:30:00 UTC · Ctrl-C ends\n\nKey  Records\nx          1\n"
        );
    }

    /// Names from a log are escaped in the live view too (a log cannot
    /// retitle or clear the terminal, nor forge a row) and columns line up in terminal
    /// cells with a wide name.
    #[test]
    fn names_from_a_log_are_escaped_and_measured_as_shown() {
        let mut s = snapshot();
        s.models[0].name = "\u{1b}]0;pwned\u{7}\u{1b}[2J\nFAKE 99999".into();
        s.models[1].name = "検索-model".into();
        s.active[0].name = "sess\u{1b}[31m".into();
        let got = render(&s, at("2026-11-25T16:30:00Z"), &TimeZone::UTC, 100);
        assert!(!got.contains('\u{1b}'), "{got:?}");
        assert!(!got.contains("\nFAKE"), "{got:?}");
        let rows: Vec<&str> = got
            .lines()
            .skip_while(|l| !l.starts_with("Model"))
            .take(3)
            .collect();
        let widths: Vec<usize> = rows.iter().map(|r| display_width(r)).collect();
        assert_eq!(widths[0], widths[1], "{rows:?}");
        assert_eq!(widths[1], widths[2], "{rows:?}");
        assert!(rows[2].starts_with("検索-model "), "{rows:?}");
    }

    #[test]
    fn a_frame_redraws_in_place() {
        assert_eq!(frame("a\nbc\n", 30), "\x1b[Ha\x1b[K\nbc\x1b[K\x1b[J");
        // No more lines than the terminal has rows.
        assert_eq!(frame("a\nb\nc\n", 2), "\x1b[Ha\x1b[K\nb\x1b[K\x1b[J");
    }

    /// A 500-character model name wrapped every row over five lines and scrolled the
    /// header off; a CJK name put the numbers out of line. Names are cut to their column
    /// in terminal cells with `…`, and no line is wider than the terminal.
    #[test]
    fn long_and_wide_names_are_cut_to_the_terminal_width() {
        let mut s = snapshot();
        s.models[0].name = "m".repeat(500);
        s.models[1].name = "検索モデル".repeat(20);
        s.agents[0].name = "\u{202E}".repeat(100);
        s.active[0].name = "セッション".repeat(30);
        let now = at("2026-11-25T16:30:00Z");
        for width in [80, 41, 20] {
            let got = render(&s, now, &TimeZone::UTC, width);
            for line in got.lines() {
                assert!(display_width(line) <= width, "{width}: {line:?}");
            }
            let rows: Vec<&str> = got
                .lines()
                .skip_while(|l| !l.starts_with("Model"))
                .take(3)
                .collect();
            assert!(rows[1].contains('…') && rows[2].contains('…'), "{rows:?}");
            if width == 80 {
                // Every row whole: the figures in line, ending at the same cell.
                let widths: Vec<usize> = rows.iter().map(|r| display_width(r)).collect();
                assert_eq!(widths[0], widths[1], "{rows:?}");
                assert_eq!(widths[1], widths[2], "{rows:?}");
                assert!(rows[1].ends_with("1,000,000  $11.00"), "{rows:?}");
                assert!(rows[2].ends_with("250,000   $1.50"), "{rows:?}");
                assert!(got.contains("  セッション"), "{got}");
                assert!(got.contains("\\u{202E}"), "{got}");
            }
        }
        // Colour codes are not counted, and a cut line resets the colour.
        assert_eq!(fit("\x1b[1mabcdef\x1b[0m", 6), "\x1b[1mabcdef\x1b[0m");
        assert_eq!(fit("\x1b[1mabcdef\x1b[0m", 4), "\x1b[1mabc…\x1b[0m");
        assert_eq!(cut("検索モデル", 6), "検索…");
        assert_eq!(cut("検索モデル", 5), "検索…");
    }
}
