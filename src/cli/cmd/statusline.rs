//! `ndjq statusline`: Claude Code pipes a JSON object to a status line command after each
//! message and shows the one line it prints (docs/GUIDE.md, "Claude Code's status line").
//! The line: the model, this session's cost, today's cost over every agent's logs (the
//! folders `stats` reads with no path), the 5-hour window and the context used.
//!
//! The logs' figures come from the incremental cache ([`ndjq::cache`]): a run after which
//! no log changed answers from the figures the last one derived, one after a message reads
//! only the lines appended since. Whatever stdin holds, the command prints one short line
//! and exits 0: a status line must never fill the prompt with errors (the details go to
//! stderr).

use super::stats::live::{block_start, total};
use crate::cli::args::{ColorArg, StatuslineArgs};
use crate::cli::config;
use anyhow::{bail, Result};
use jiff::{SignedDuration, Timestamp};
use ndjq::cache::{self, StatsCache};
use ndjq::input::{Source, Walk};
use ndjq::sink::live::BLOCK;
use ndjq::sink::{sanitize, Painter};
use ndjq::stats::{Clock, GroupBy, Pricing, Stats};
use ndjq::timestamp::{TimeRange, TimeZone};
use owo_colors::Style;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{self, Read, Write};
use std::path::PathBuf;

/// The most bytes of stdin read: Claude Code's object is a few hundred.
const STDIN_CAP: u64 = 1 << 20;

/// The line when no `--format` is given: these parts, the empty ones left out.
const DEFAULT_PARTS: [&str; 5] = [
    "{model}",
    "{session_cost} session",
    "{today_cost} today",
    "{block}",
    "{context}",
];

/// The placeholders of `--format`.
const PLACEHOLDERS: [&str; 7] = [
    "model",
    "session_cost",
    "today_cost",
    "block",
    "seven_day",
    "context",
    "dir",
];

pub fn run(args: &StatuslineArgs) -> Result<i32> {
    let dir = cache::default_dir(|k| std::env::var_os(k));
    if args.clear_cache {
        return clear_cache(dir);
    }
    let template = match &args.format {
        Some(t) => Template::parse(t)?,
        None => Template::default_line(),
    };
    let painter = Painter::new(color(args.color));
    let mut text = Vec::new();
    let read = io::stdin().lock().take(STDIN_CAP).read_to_end(&mut text);
    let status = match read {
        Err(e) => Err(("no status input", format!("cannot read stdin: {e}"))),
        Ok(_) if text.iter().all(u8::is_ascii_whitespace) => Err((
            "no status input",
            "stdin is empty: Claude Code pipes a JSON object to a statusLine command".into(),
        )),
        Ok(_) => match serde_json::from_slice::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(Value::Object(map)),
            Ok(_) => Err((
                "status input unreadable",
                "stdin is JSON but not an object".into(),
            )),
            Err(e) => Err(("status input unreadable", format!("stdin is not JSON: {e}"))),
        },
    };
    let mut out = io::stdout().lock();
    let status = match status {
        Ok(v) => v,
        Err((short, long)) => {
            eprintln!("ndjq statusline: {long}");
            writeln!(out, "ndjq: {short}")?;
            out.flush()?;
            return Ok(0);
        }
    };
    let tz = TimeZone::try_system().unwrap_or(TimeZone::UTC);
    let now = Timestamp::now();
    let figures = match log_figures(&tz, dir.filter(|_| !args.no_cache)) {
        Ok(f) => Some(f),
        Err(e) => {
            eprintln!("ndjq statusline: the logs: {e:#}");
            None
        }
    };
    let parts = Parts::of(&status, figures.as_ref(), now, &tz, painter);
    writeln!(out, "{}", template.render(&parts))?;
    out.flush()?;
    Ok(0)
}

/// `--clear-cache`: the cache folder deleted.
fn clear_cache(dir: Option<PathBuf>) -> Result<i32> {
    let Some(dir) = dir else {
        bail!("no cache folder: neither XDG_CACHE_HOME nor HOME is set");
    };
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => eprintln!("ndjq: removed {}", ndjq::input::path_name(&dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => bail!("cannot remove {}: {e}", ndjq::input::path_name(&dir)),
    }
    Ok(0)
}

/// Colour is on unless told otherwise: Claude Code shows the line's colours although
/// the command's stdout is a pipe.
fn color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Auto => config::color_enabled(ColorArg::Auto, true),
        other => config::color_enabled(other, false),
    }
}

/// What the line takes from the logs: costs per day, per 5-hour block and per session.
/// Cached whole (it is small) while no log changes.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Figures {
    /// `YYYY-MM-DD` (in the time zone) and its cost.
    days: Vec<(String, Option<f64>)>,
    /// Block start (`YYYY-MM-DD HH:00`), its tokens and cost.
    blocks: Vec<(String, u64, Option<f64>)>,
    /// Session id and its cost.
    sessions: Vec<(String, Option<f64>)>,
}

impl Figures {
    fn of(stats: &Stats) -> Figures {
        let pricing = Pricing::default();
        let groups = |by| stats.groups_priced(by, &pricing);
        Figures {
            days: groups(GroupBy::Day)
                .into_iter()
                .map(|g| (g.key, g.cost_usd))
                .collect(),
            blocks: groups(GroupBy::Block)
                .into_iter()
                .map(|g| (g.key, total(&g.tokens), g.cost_usd))
                .collect(),
            sessions: groups(GroupBy::Session)
                .into_iter()
                .map(|g| (g.key, g.cost_usd))
                .collect(),
        }
    }
}

/// The figures of every agent's default log folders (as `stats` with no path on a
/// terminal reads them), through the cache in `cache_dir` (`None`: read as `stats` does).
fn log_figures(tz: &TimeZone, cache_dir: Option<PathBuf>) -> Result<Figures> {
    // Its error speaks of a terminal on stdin; here stdin is Claude Code's JSON.
    let folders = config::agent_folders(true)
        .map_err(|_| anyhow::anyhow!("no agent's log folder found (see `ndjq stats --help`)"))?;
    let clock = Clock {
        range: TimeRange::default(),
        tz: tz.clone(),
    };
    let Some(dir) = cache_dir else {
        return Ok(Figures::of(&super::stats::stats_of(&folders, clock)?));
    };
    let options = ndjq::pipeline::Options::default();
    let key = ndjq::cache::config_key(&clock, &options);
    let mut files = Vec::new();
    // OpenCode's SQLite stores are not logs that grow at their end: they are read whole each
    // time (a short read transaction) and merged with what the cache gives for the files.
    let mut stores = Vec::new();
    for source in Walk::new(&folders) {
        match source {
            Ok(Source::File(path)) => {
                if let Ok(meta) = std::fs::metadata(&path) {
                    files.push((path, meta));
                }
            }
            Ok(Source::Store(path)) => stores.push(path),
            _ => {}
        }
    }
    let mut cache = StatsCache::open(&dir, &key);
    if stores.is_empty() {
        if let Some(derived) = cache.derived_if_unchanged(&files) {
            if let Ok(figures) = serde_json::from_value::<Figures>(derived.clone()) {
                return Ok(figures);
            }
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let (mut stats, _) = cache.refresh(&files, &clock, &options, threads, &mut |e| {
        eprintln!("ndjq statusline: {e}");
    })?;
    if !stores.is_empty() {
        stats.merge(super::stats::stats_of(&stores, clock)?);
    }
    let figures = Figures::of(&stats);
    cache.set_derived(serde_json::to_value(&figures)?);
    if let Err(e) = cache.save() {
        eprintln!(
            "ndjq statusline: cannot write the cache in {}: {e}",
            ndjq::input::path_name(&dir)
        );
    }
    Ok(figures)
}

/// The text of each placeholder, painted.
#[derive(Debug, Default)]
struct Parts {
    model: String,
    session_cost: String,
    today_cost: String,
    block: String,
    seven_day: String,
    context: String,
    dir: String,
}

impl Parts {
    fn of(
        status: &Value,
        figures: Option<&Figures>,
        now: Timestamp,
        tz: &TimeZone,
        painter: Painter,
    ) -> Parts {
        let get = |path: &[&str]| path.iter().try_fold(status, |v, k| v.get(k));
        let text = |path: &[&str]| get(path).and_then(Value::as_str).filter(|s| !s.is_empty());
        let number = |path: &[&str]| get(path).and_then(Value::as_f64).filter(|n| n.is_finite());
        let bold = Style::new().bold();
        let mut parts = Parts::default();
        let model = text(&["model", "display_name"])
            .or_else(|| text(&["model", "id"]))
            .or_else(|| text(&["model"]));
        if let Some(m) = model {
            parts.model = painter.paint(&escape(m), bold.cyan());
        }
        let session = text(&["session_id"]);
        let session_cost = number(&["cost", "total_cost_usd"]).or_else(|| {
            let (figures, id) = (figures?, session?);
            figures.sessions.iter().find(|(s, _)| s == id)?.1
        });
        if let Some(c) = session_cost {
            parts.session_cost = painter.paint(&money(c), Style::new().green());
        }
        if let Some(f) = figures {
            let today = now.to_zoned(tz.clone()).strftime("%Y-%m-%d").to_string();
            let cost = f
                .days
                .iter()
                .find(|(d, _)| *d == today)
                .and_then(|(_, c)| *c)
                .unwrap_or(0.0);
            parts.today_cost = painter.paint(&money(cost), Style::new().green());
        }
        let official = number(&["rate_limits", "five_hour", "used_percentage"]);
        parts.block = match official {
            Some(used) => {
                let mut s = format!("5h {}", percent(used));
                let resets = number(&["rate_limits", "five_hour", "resets_at"])
                    .and_then(|t| Timestamp::from_second(t as i64).ok());
                if let Some(at) = resets {
                    let left = at.duration_since(now);
                    s.push_str(&format!(
                        " resets {}",
                        at.to_zoned(tz.clone()).strftime("%H:%M")
                    ));
                    if left > SignedDuration::ZERO {
                        s.push_str(&format!(" ({})", span(left)));
                    }
                }
                painter.paint(&s, level(used))
            }
            None => figures.map_or_else(String::new, |f| own_block(f, now, tz, painter)),
        };
        if let Some(used) = number(&["rate_limits", "seven_day", "used_percentage"]) {
            parts.seven_day = painter.paint(&format!("7d {}", percent(used)), level(used));
        }
        let context = number(&["context_window", "used_percentage"])
            .or_else(|| number(&["context_window", "remaining_percentage"]).map(|r| 100.0 - r))
            .or_else(|| {
                let size = number(&["context_window", "context_window_size"])?;
                let used: f64 = [
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                ]
                .iter()
                .filter_map(|k| number(&["context_window", "current_usage", k]))
                .sum();
                (size > 0.0).then(|| used / size * 100.0)
            });
        if let Some(used) = context {
            parts.context = painter.paint(&format!("ctx {}", percent(used)), level(used));
        }
        if let Some(dir) = text(&["workspace", "current_dir"]).or_else(|| text(&["cwd"])) {
            let name = std::path::Path::new(dir)
                .file_name()
                .map_or(dir.into(), |n| n.to_string_lossy());
            parts.dir = painter.paint(&escape(&name), Style::new().blue());
        }
        parts
    }

    fn get(&self, name: &str) -> &str {
        match name {
            "model" => &self.model,
            "session_cost" => &self.session_cost,
            "today_cost" => &self.today_cost,
            "block" => &self.block,
            "seven_day" => &self.seven_day,
            "context" => &self.context,
            "dir" => &self.dir,
            _ => "",
        }
    }
}

/// ndjq's own 5-hour block at `now` (the one `stats --by block` and the live view of
/// `stats --follow` show): its cost, the time left and the burn rate since its start.
fn own_block(f: &Figures, now: Timestamp, tz: &TimeZone, painter: Painter) -> String {
    let current = f.blocks.iter().rev().find_map(|(key, _, cost)| {
        let start = block_start(key, tz)?;
        let end = start.saturating_add(BLOCK).ok()?;
        (start <= now && now < end).then_some((start, end, *cost))
    });
    let Some((start, end, cost)) = current else {
        return painter.paint("no block", Style::new().dimmed());
    };
    let cost = cost.unwrap_or(0.0);
    let mut s = format!(
        "block {} {} left",
        money(cost),
        span(end.duration_since(now))
    );
    let minutes = now.duration_since(start).as_secs_f64() / 60.0;
    if minutes >= 1.0 {
        s.push_str(&format!(" {}/h", money(cost / minutes * 60.0)));
    }
    painter.paint(&s, Style::new().magenta())
}

/// A `--format` template: text and placeholders.
#[derive(Debug)]
enum Template {
    /// The default line: its parts, the empty ones left out, joined by ` · `.
    Parts(Vec<Vec<Piece>>),
    Line(Vec<Piece>),
}

#[derive(Debug)]
enum Piece {
    Text(String),
    Slot(&'static str),
}

impl Template {
    fn default_line() -> Template {
        let parts = DEFAULT_PARTS
            .iter()
            .map(|p| Self::pieces(p).unwrap_or_default())
            .collect();
        Template::Parts(parts)
    }

    fn parse(text: &str) -> Result<Template> {
        Ok(Template::Line(Self::pieces(text)?))
    }

    fn pieces(text: &str) -> Result<Vec<Piece>> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            if rest[i..].starts_with("{{") || rest[i..].starts_with("}}") {
                literal.push_str(&rest[i..=i]);
                rest = &after[1..];
                continue;
            }
            if rest[i..].starts_with('}') {
                bail!("--format: a lone `}}` (write `}}}}` for a brace)");
            }
            let Some(end) = after.find('}') else {
                bail!("--format: `{{` without its `}}` (write `{{{{` for a brace)");
            };
            let name = &after[..end];
            let Some(slot) = PLACEHOLDERS.iter().find(|p| **p == name) else {
                bail!(
                    "--format: no placeholder `{{{name}}}`; there are {}",
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                );
            };
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Slot(slot));
            rest = &after[end + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(pieces)
    }

    fn render(&self, parts: &Parts) -> String {
        let one = |pieces: &[Piece]| {
            let mut s = String::new();
            for p in pieces {
                match p {
                    Piece::Text(t) => s.push_str(t),
                    Piece::Slot(name) => s.push_str(parts.get(name)),
                }
            }
            s
        };
        match self {
            Template::Line(pieces) => one(pieces).replace(['\n', '\r'], " "),
            Template::Parts(list) => list
                .iter()
                .filter(|pieces| {
                    pieces.iter().all(|p| match p {
                        Piece::Slot(name) => !parts.get(name).is_empty(),
                        Piece::Text(_) => true,
                    })
                })
                .map(|pieces| one(pieces))
                .collect::<Vec<_>>()
                .join(" · "),
        }
    }
}

/// A string from the JSON or a log, safe for the terminal (control and BiDi characters
/// shown escaped), and at most 60 characters.
fn escape(text: &str) -> String {
    let s = sanitize(text).replace('\t', " ");
    if s.chars().count() > 60 {
        let mut cut: String = s.chars().take(59).collect();
        cut.push('…');
        cut
    } else {
        s
    }
}

fn money(usd: f64) -> String {
    format!("${usd:.2}")
}

fn percent(p: f64) -> String {
    format!("{:.0}%", p.clamp(0.0, 999.0))
}

/// A duration as `2h13m` or `13m`.
fn span(d: SignedDuration) -> String {
    let mins = d.as_secs().max(0) / 60;
    match (mins / 60, mins % 60) {
        (0, m) => format!("{m}m"),
        (h, m) => format!("{h}h{m:02}m"),
    }
}

/// Green under half, yellow under 80 %, red above.
fn level(used: f64) -> Style {
    match used {
        u if u < 50.0 => Style::new().green(),
        u if u < 80.0 => Style::new().yellow(),
        _ => Style::new().red(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_name_known_placeholders_and_escape_braces() {
        assert!(Template::parse("{model} {{x}}").is_ok());
        assert!(Template::parse("{nope}").is_err());
        assert!(Template::parse("{model").is_err());
        assert!(Template::parse("a } b").is_err());
        let parts = Parts {
            model: "M".into(),
            ..Parts::default()
        };
        let t = Template::parse("[{model}] {{x}}").expect("a template");
        assert_eq!(t.render(&parts), "[M] {x}");
        assert_eq!(Template::default_line().render(&parts), "M");
    }

    #[test]
    fn spans_read_as_hours_and_minutes() {
        assert_eq!(span(SignedDuration::from_mins(133)), "2h13m");
        assert_eq!(span(SignedDuration::from_mins(7)), "7m");
        assert_eq!(span(SignedDuration::from_mins(-7)), "0m");
    }
}
