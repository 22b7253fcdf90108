//! `stats --follow`: what is written between the parts read. With `-f json`, one stats
//! object per line (with `taken_at`) when the totals changed, at most once per
//! `--interval`; with `-f text` on a terminal, the live view ([`ndjq::sink::live`])
//! redrawn in place; otherwise nothing until the final report.

use super::StatsRun;
use crate::cli::args::TokenLimit;
use jiff::{SignedDuration, Timestamp};
use ndjq::dialect::Dialect;
use ndjq::input::follow::Tick;
use ndjq::sink::live::{
    frame, render, snapshot_line, Active, BlockFigures, Burn, LiveSnapshot, Row, ACTIVE_WITHIN,
    BLOCK,
};
use ndjq::sink::Painter;
use ndjq::stats::{GroupBy, Pricing, Stats, Tokens};
use ndjq::timestamp::TimeZone;
use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What each followed file showed the live view: its agent and the time of its last record.
#[derive(Debug, Default)]
pub(super) struct Seen {
    files: HashMap<Arc<str>, (Option<Dialect>, Option<Timestamp>)>,
}

impl Seen {
    pub(super) fn record(&mut self, record: &ndjq::pipeline::Record<'_>) {
        let time = record
            .value
            .and_then(|v| v.str("timestamp"))
            .and_then(ndjq::timestamp::parse_iso);
        let entry = match self.files.get_mut(&**record.file) {
            Some(e) => e,
            None => self.files.entry(Arc::clone(record.file)).or_default(),
        };
        if record.info.dialect.is_some() {
            entry.0 = record.info.dialect;
        }
        if time > entry.1 {
            entry.1 = time;
        }
    }
}

/// What `stats --follow` writes while it follows.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Json,
    View,
    /// Only the final report (csv, or text not on a terminal).
    Quiet,
}

pub(super) struct Live<'a> {
    pub mode: Mode,
    pub interval: Duration,
    pub by: Option<GroupBy>,
    pub pricing: Pricing<'a>,
    pub painter: Painter,
    pub limit: Option<TokenLimit>,
    last_written: Option<Instant>,
    last_body: Vec<u8>,
    pending: bool,
    /// The current block's tokens and cost at earlier ticks (the burn rate's window).
    samples: VecDeque<(Timestamp, Timestamp, u64, Option<f64>)>,
    drawn: bool,
    /// The width when the terminal's own cannot be read (`COLUMNS`, else 100).
    fallback_width: usize,
    /// Set by SIGWINCH: the terminal was resized, the view is drawn again at its size.
    resized: Option<Arc<AtomicBool>>,
}

/// How soon a resized terminal is drawn again: the view looks at the SIGWINCH flag this
/// often between its frames (a flag check, nothing drawn unless it is set).
const RESIZE_CHECK: Duration = Duration::from_millis(100);

/// The terminal's size on stdout in cells (columns, rows), if it is a terminal that says.
fn terminal_size() -> Option<(usize, usize)> {
    let size = rustix::termios::tcgetwinsize(io::stdout()).ok()?;
    (size.ws_col > 0 && size.ws_row > 0)
        .then(|| (usize::from(size.ws_col), usize::from(size.ws_row)))
}

/// The burn rate is measured over this much of the recent past.
const BURN_WINDOW: SignedDuration = SignedDuration::from_mins(10);

impl<'a> Live<'a> {
    pub fn new(
        mode: Mode,
        interval: Duration,
        by: Option<GroupBy>,
        pricing: Pricing<'a>,
        painter: Painter,
        limit: Option<TokenLimit>,
        fallback_width: usize,
    ) -> Self {
        // Only the view is drawn to the terminal's size. A flag that cannot be registered
        // leaves the view at its size until the next start.
        let resized = (mode == Mode::View)
            .then(|| {
                let flag = Arc::new(AtomicBool::new(false));
                signal_hook::flag::register(signal_hook::consts::SIGWINCH, Arc::clone(&flag))
                    .ok()
                    .map(|_| flag)
            })
            .flatten();
        Live {
            fallback_width,
            resized,
            mode,
            interval,
            by,
            pricing,
            painter,
            limit,
            last_written: None,
            last_body: Vec::new(),
            pending: false,
            samples: VecDeque::new(),
            drawn: false,
        }
    }

    /// Writes a JSON snapshot if the totals changed since the last one.
    fn write_json<R: Write>(&mut self, run: &StatsRun<R>) -> io::Result<()> {
        let report = run.stats.report_live(self.by, &self.pricing);
        let body = serde_json::to_vec(&report)?;
        if body != self.last_body {
            let line = snapshot_line(&report, Timestamp::now())?;
            let mut out = io::stdout().lock();
            out.write_all(&line)?;
            out.flush()?;
            self.last_body = body;
        }
        Ok(())
    }

    fn draw<R: Write>(&mut self, run: &StatsRun<R>) -> io::Result<()> {
        let now = Timestamp::now();
        let tz = run.stats.clock().tz.clone();
        let mut snapshot = self.snapshot(&run.stats, run.seen.as_ref(), now, &tz);
        let (width, height) = terminal_size().unwrap_or((self.fallback_width, usize::MAX));
        if let Some(by) = self.by {
            let report = run.stats.report_live(Some(by), &self.pricing);
            let mut table = Vec::new();
            ndjq::sink::stats::write_text_fitted(&mut table, &report, self.painter, width)?;
            snapshot.table = Some(String::from_utf8_lossy(&table).into_owned());
        }
        let mut out = io::stdout().lock();
        if !self.drawn {
            // Hide the cursor; the whole screen is the view.
            out.write_all(b"\x1b[?25l\x1b[2J")?;
            self.drawn = true;
        }
        out.write_all(frame(&render(&snapshot, now, &tz, width), height).as_bytes())?;
        out.flush()
    }

    /// Whether the terminal was resized since the last frame (the flag is cleared).
    fn was_resized(&self) -> bool {
        self.resized
            .as_ref()
            .is_some_and(|f| f.swap(false, Ordering::Relaxed))
    }

    /// Ends the view: the screen cleared and the cursor back, for the final report.
    pub fn finish<R: Write>(&mut self, run: &StatsRun<R>) -> io::Result<()> {
        match self.mode {
            Mode::Json => self.write_json(run),
            Mode::View if self.drawn => {
                let mut out = io::stdout().lock();
                out.write_all(b"\x1b[H\x1b[2J\x1b[?25h")?;
                out.flush()
            }
            _ => Ok(()),
        }
    }

    /// The figures of one frame at `now`.
    fn snapshot(
        &mut self,
        stats: &Stats,
        seen: Option<&Seen>,
        now: Timestamp,
        tz: &TimeZone,
    ) -> LiveSnapshot {
        let blocks: Vec<(Timestamp, u64, Option<f64>)> = stats
            .groups_priced(GroupBy::Block, &self.pricing)
            .iter()
            .filter_map(|g| Some((block_start(&g.key, tz)?, total(&g.tokens), g.cost_usd)))
            .collect();
        let current = blocks
            .iter()
            .rev()
            .find(|(start, _, _)| {
                *start <= now && now < start.saturating_add(BLOCK).unwrap_or(*start)
            })
            .copied();
        let earlier_max = blocks
            .iter()
            .filter(|(start, _, _)| current.is_none_or(|c| *start < c.0))
            .map(|b| b.1)
            .max();
        let (limit, limit_is_max) = match self.limit {
            Some(TokenLimit::Tokens(n)) => (Some(n), false),
            Some(TokenLimit::Max) => (earlier_max, true),
            None => (None, false),
        };
        let agent_of = |file: &str| -> String {
            seen.and_then(|s| s.files.get(file))
                .and_then(|(d, _)| *d)
                .map_or("(unknown)", Dialect::name)
                .to_string()
        };
        let mut snapshot = LiveSnapshot {
            limit,
            limit_is_max,
            ..LiveSnapshot::default()
        };
        if let Some((start, tokens, cost)) = current {
            let from_hour = start
                .to_zoned(tz.clone())
                .strftime("%Y-%m-%dT%H")
                .to_string();
            snapshot.models = rows(
                stats
                    .groups_since(GroupBy::Model, &from_hour, &self.pricing)
                    .into_iter()
                    .map(|g| Row {
                        name: g.key,
                        tokens: total(&g.tokens),
                        cost: g.cost_usd,
                    }),
            );
            snapshot.agents = rows(
                stats
                    .groups_since(GroupBy::File, &from_hour, &self.pricing)
                    .into_iter()
                    .map(|g| Row {
                        name: agent_of(&g.key),
                        tokens: total(&g.tokens),
                        cost: g.cost_usd,
                    }),
            );
            snapshot.burn = self.burn(now, start, tokens, cost);
            snapshot.block = Some(BlockFigures {
                start,
                tokens,
                cost,
            });
        } else {
            self.samples.clear();
        }
        if let Some(seen) = seen {
            let since = now.saturating_sub(ACTIVE_WITHIN).unwrap_or(now);
            let mut active: Vec<Active> = seen
                .files
                .iter()
                .filter_map(|(file, (dialect, last))| {
                    let last = (*last)?;
                    (last >= since).then(|| Active {
                        name: session_name(file),
                        agent: dialect.map_or("(unknown)", Dialect::name).to_string(),
                        last,
                    })
                })
                .collect();
            active.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| a.name.cmp(&b.name)));
            snapshot.active = active;
        }
        let today = now.to_zoned(tz.clone()).strftime("%Y-%m-%d").to_string();
        if let Some(g) = stats
            .groups_priced(GroupBy::Day, &self.pricing)
            .into_iter()
            .find(|g| g.key == today)
        {
            snapshot.today = Row {
                name: today,
                tokens: total(&g.tokens),
                cost: g.cost_usd,
            };
        }
        snapshot
    }

    /// Tokens per minute and dollars per hour over the last minutes of this block; until
    /// a minute has been watched, the block's average since its start.
    fn burn(
        &mut self,
        now: Timestamp,
        start: Timestamp,
        tokens: u64,
        cost: Option<f64>,
    ) -> Option<Burn> {
        let window_start = now.saturating_sub(BURN_WINDOW).unwrap_or(now);
        self.samples
            .retain(|(at, block, _, _)| *block == start && *at >= window_start);
        self.samples.push_back((now, start, tokens, cost));
        let (at, _, old_tokens, old_cost) = *self.samples.front()?;
        let watched = now.duration_since(at).as_secs_f64() / 60.0;
        let (minutes, tokens_gained, cost_gained, block_average) = if watched >= 1.0 {
            (
                watched,
                tokens.saturating_sub(old_tokens),
                cost.zip(old_cost).map(|(c, o)| (c - o).max(0.0)),
                false,
            )
        } else {
            let since_start = now.duration_since(start).as_secs_f64() / 60.0;
            if since_start < 1.0 {
                return None;
            }
            (since_start, tokens, cost, true)
        };
        Some(Burn {
            tokens_per_min: tokens_gained as f64 / minutes,
            usd_per_hour: cost_gained.map(|c| c / minutes * 60.0),
            minutes,
            block_average,
        })
    }
}

impl<R: Write> Tick<StatsRun<R>> for Live<'_> {
    fn tick(&mut self, run: &mut StatsRun<R>, changed: bool) -> io::Result<Option<Duration>> {
        self.pending |= changed;
        let now = Instant::now();
        if let Some(t) = self.last_written {
            let next = t + self.interval;
            let resized = self.mode == Mode::View && self.was_resized();
            // A resized terminal may have reflowed the last frame: the screen is cleared.
            self.drawn &= !resized;
            if next > now && !resized {
                return Ok(match self.mode {
                    Mode::Json if !self.pending => None,
                    Mode::Quiet => None,
                    Mode::View => Some((next - now).min(RESIZE_CHECK)),
                    Mode::Json => Some(next - now),
                });
            }
        }
        match self.mode {
            Mode::Quiet => return Ok(None),
            Mode::Json if !self.pending => return Ok(None),
            Mode::Json => self.write_json(run)?,
            // The view's clock moves even when nothing is written.
            Mode::View => self.draw(run)?,
        }
        self.pending = false;
        self.last_written = Some(now);
        Ok(match self.mode {
            Mode::View => Some(self.interval.min(RESIZE_CHECK)),
            _ => None,
        })
    }
}

/// All the tokens of a count: the prompt (uncached, cached, written to cache) and the
/// output, as the block figures of ccusage count them.
pub(crate) fn total(t: &Tokens) -> u64 {
    t.input + t.output + t.cache_creation + t.cache_read
}

fn rows(rows: impl Iterator<Item = Row>) -> Vec<Row> {
    let mut merged: Vec<Row> = Vec::new();
    for r in rows {
        match merged.iter_mut().find(|m| m.name == r.name) {
            Some(m) => {
                m.tokens += r.tokens;
                m.cost = match (m.cost, r.cost) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
            None => merged.push(r),
        }
    }
    merged.retain(|r| r.tokens > 0 || r.cost.is_some_and(|c| c > 0.0));
    merged.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.name.cmp(&b.name)));
    merged
}

/// A block's start from its key (`YYYY-MM-DD HH:00`, in `tz`).
pub(crate) fn block_start(key: &str, tz: &TimeZone) -> Option<Timestamp> {
    let civil: jiff::civil::DateTime = format!("{}:00", key.replacen(' ', "T", 1)).parse().ok()?;
    civil.to_zoned(tz.clone()).ok().map(|z| z.timestamp())
}

/// A session's name in the view: its file's name without the log suffixes (Claude and
/// Codex name the file by the session), at most 36 characters.
fn session_name(file: &str) -> String {
    let name = std::path::Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file);
    let stem = name.split('.').next().unwrap_or(name);
    stem.chars().take(36).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_keys_are_read_in_the_zone() {
        let tz = TimeZone::UTC;
        assert_eq!(
            block_start("2026-11-25 14:00", &tz),
            "2026-11-25T14:00:00Z".parse().ok()
        );
        assert_eq!(block_start("(none)", &tz), None);
        assert_eq!(session_name("logs/d5d7c6f2.jsonl.gz"), "d5d7c6f2");
    }
}
