//! `ndjq stats`: totals and breakdowns, or (`--merge`) the combination of partial JSON
//! stats into what one run over all their inputs gives.

pub(crate) mod live;

use super::{Rejects, StderrDiagnostics};
use crate::cli::args::{
    Cli, Command, CostArg, FigureArgs, GroupBy as GroupArg, StatsArgs, TableFormat,
};
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use crate::cli::Ran;
use anyhow::{bail, Context, Result};
use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ndjq::diagnostic::Diagnostic;
use ndjq::dialect::Dialect;
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::pricing::PriceTable;
use ndjq::sink::stats::{write_json_with_state, write_report};
use ndjq::sink::{Format, Reporter};
use ndjq::stats::{Clock, CostMode, GroupBy, Pricing, Report, Stats};
use ndjq::timestamp::{self, Edge, TimeRange, TimeZone};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) struct StatsRun<R: Write> {
    pub(crate) stats: Stats,
    diagnostics: StderrDiagnostics,
    rejects: Option<Rejects<R>>,
    /// Bytes read, on stderr, for large inputs on a terminal.
    progress: Option<ProgressBar>,
    /// `--follow`: each file's agent and last record time, for the live view.
    seen: Option<live::Seen>,
}

impl StatsRun<BufWriter<std::fs::File>> {
    /// The consumer of a run over `common`'s inputs, its diagnostics on stderr.
    pub(crate) fn new(clock: Clock, common: &Common) -> Result<Self> {
        let stderr = (!common.quiet).then(io::stderr);
        let mut run = StatsRun {
            stats: Stats::with_clock(clock),
            diagnostics: StderrDiagnostics::Report(Reporter::new(stderr, common.err_painter)?),
            rejects: Rejects::for_run(common)?,
            progress: match common.follow {
                Some(_) => None,
                None => progress_bar(common),
            },
            seen: common.follow.as_ref().map(|_| live::Seen::default()),
        };
        if common.follow.is_some() {
            run.stats.keep_paused_inputs();
        }
        Ok(run)
    }

    /// After the run: the progress bar cleared, the rejects flushed, the closing line.
    pub(crate) fn finish(&mut self) -> Result<()> {
        if let Some(p) = self.progress.take() {
            p.finish_and_clear();
        }
        if let Some(r) = self.rejects.as_mut() {
            r.finish()?;
        }
        if self.stats.summary.invalid > 0 {
            let line = format!(
                "{} of {} records invalid; their content is not in the stats",
                self.stats.summary.invalid, self.stats.summary.records
            );
            self.diagnostics.finish(Some(&line))?;
        } else {
            self.diagnostics.finish(None)?;
        }
        Ok(())
    }
}

impl<R: Write> Consumer for StatsRun<R> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.stats.begin_input(file);
        Ok(())
    }

    fn resume_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.stats.resume_input(file);
        Ok(())
    }

    fn rename_input(&mut self, from: &Arc<str>, to: &Arc<str>) -> io::Result<()> {
        self.stats.rename_input(from, to);
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.stats.add(record);
        if let Some(seen) = self.seen.as_mut() {
            seen.record(record);
        }
        if let Some(p) = &self.progress {
            p.inc(record.input_len as u64);
        }
        for d in record.diagnostics {
            self.diagnostics.report(d)?;
        }
        if let Some(r) = self.rejects.as_mut() {
            r.offer(record)?;
        }
        Ok(Flow::Continue)
    }

    fn leftover(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.rejects.as_mut() {
            Some(r) => r.leftover(bytes),
            None => Ok(()),
        }
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stats.add_bytes(bytes.len());
        match self.rejects.as_mut() {
            Some(r) => r.chunk(bytes),
            None => Ok(()),
        }
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.stats.end_input(dialect);
        Ok(())
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.stats.summary.add_diagnostic(d);
        self.diagnostics.notice(d)
    }
}

/// What a shard of `stats` collected from one block.
pub(crate) struct Part {
    stats: Stats,
    diagnostics: Vec<Diagnostic>,
    rejects: Option<(Vec<u8>, u64)>,
}

impl<R: Write> Parallel for StatsRun<R> {
    type Shard = StatsRun<Vec<u8>>;
    type Part = Part;

    /// A part is an input's counts, not its records.
    fn small_parts(&self) -> bool {
        true
    }

    /// Codex records inherit their thread (and rollouts their session and model) from
    /// earlier records, and with a time range a record without a time takes the one before
    /// it: those inputs are read in order (whole by one worker when they are not huge).
    fn batchable(&self, dialect: Option<Dialect>) -> bool {
        // With --since/--until, a record without a time of its own takes its input's last
        // one, which a block's first records cannot know.
        if !self.stats.clock().range.is_unbounded() {
            return false;
        }
        Stats::counts_in_blocks(dialect)
    }

    fn shard(&self) -> Self::Shard {
        StatsRun {
            stats: Stats::with_clock(self.stats.clock().clone()),
            diagnostics: StderrDiagnostics::Collect(Vec::new()),
            rejects: self.rejects.as_ref().map(|_| Rejects::new(Vec::new())),
            progress: None,
            seen: None,
        }
    }

    fn take(shard: &mut Self::Shard) -> Part {
        Part {
            stats: {
                let fresh = Stats::with_clock(shard.stats.clock().clone());
                let mut part = std::mem::replace(&mut shard.stats, fresh);
                part.settle_stores();
                part
            },
            diagnostics: shard.diagnostics.take(),
            rejects: shard.rejects.as_mut().map(Rejects::take),
        }
    }

    fn merge(&mut self, part: Part) -> io::Result<Flow> {
        if let Some(p) = &self.progress {
            p.inc(part.stats.summary.bytes);
        }
        self.stats.merge(part.stats);
        for d in &part.diagnostics {
            self.diagnostics.report(d)?;
        }
        if let (Some(r), Some((bytes, n))) = (self.rejects.as_mut(), part.rejects) {
            r.merge(&bytes, n)?;
        }
        Ok(Flow::Continue)
    }
}

/// Inputs at least this large get a progress bar (when stderr is a terminal).
const PROGRESS_MIN_BYTES: u64 = 256 << 20;

/// A progress bar over the input files' total size, when stderr is a terminal, the input
/// is large, and not quiet. Compressed files count by their compressed size, so the bar is
/// only an indication there.
fn progress_bar(common: &Common) -> Option<ProgressBar> {
    if common.quiet || !io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = common
        .sources
        .iter()
        .filter_map(|s| match s {
            Ok(ndjq::input::Source::File(p)) => std::fs::metadata(p).ok().map(|m| m.len()),
            _ => None,
        })
        .sum();
    if total < PROGRESS_MIN_BYTES {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style =
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

fn group_by(g: GroupArg) -> GroupBy {
    match g {
        GroupArg::Session => GroupBy::Session,
        GroupArg::Model => GroupBy::Model,
        GroupArg::Tool => GroupBy::Tool,
        GroupArg::Type => GroupBy::Type,
        GroupArg::File => GroupBy::File,
        GroupArg::Day => GroupBy::Day,
        GroupArg::Week => GroupBy::Week,
        GroupArg::Month => GroupBy::Month,
        GroupArg::Project => GroupBy::Project,
        GroupArg::Block => GroupBy::Block,
    }
}

/// Reads partial JSON stats, in the order given, into one accumulator.
fn merge_reports(common: &Common) -> Result<(Stats, bool)> {
    let mut total: Option<Stats> = None;
    let mut had_errors = false;
    for source in common.sources.iter() {
        let source = match source {
            Ok(s) => s,
            Err(e) => {
                crate::cli::report_error(&e);
                had_errors = true;
                continue;
            }
        };
        let name = source.display_name();
        let what = format!("--merge input {name}");
        let text = match source {
            ndjq::input::Source::Stdin => super::read_capped(io::stdin().lock(), &what)?,
            ndjq::input::Source::File(p) | ndjq::input::Source::Store(p) => {
                super::read_capped(ndjq::input::open_file(&p)?, &what)?
            }
        };
        let report: Report = serde_json::from_slice(&text).with_context(|| {
            format!(
                "{name}: not the JSON output of `ndjq stats -f json --mergeable` (schema ndjq.stats/2)"
            )
        })?;
        if report.schema == ndjq::stats::SCHEMA_V1 {
            bail!(
                "{name}: schema `{}` counts Codex input tokens another way; compute it again with this version",
                report.schema
            );
        }
        if report.schema != ndjq::stats::SCHEMA {
            bail!(
                "{name}: schema `{}`, expected `{}`",
                report.schema,
                ndjq::stats::SCHEMA
            );
        }
        if report.state.is_none() {
            bail!(
                "{name}: a report without its merge state; produce the partial stats with \
                 `ndjq stats -f json --mergeable`"
            );
        }
        let stats = Stats::from_report(report).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        match total.as_mut() {
            // Parts are consecutive pieces: one may continue the last input of the one
            // before (a log split mid-session).
            Some(t) => t.merge_continued(stats),
            None => total = Some(stats),
        }
    }
    Ok((total.unwrap_or_default(), had_errors))
}

/// `stats --cache`: the stats of the inputs through the incremental cache that `ndjq
/// statusline` keeps ([`ndjq::cache`]), under a configuration of the time zone, range and
/// reading options.
fn cached_stats(common: &Common, clock: Clock) -> Result<(Stats, Ran)> {
    let Some(dir) = ndjq::cache::default_dir(|k| std::env::var_os(k)) else {
        bail!("--cache: no cache folder, neither XDG_CACHE_HOME nor HOME is set");
    };
    let mut files = Vec::new();
    // OpenCode's SQLite stores do not grow at their end: read whole, merged after the files.
    let mut stores = Vec::new();
    let mut had_errors = false;
    for source in common.sources.iter() {
        match source {
            Ok(ndjq::input::Source::File(path)) => match std::fs::metadata(&path) {
                Ok(meta) => files.push((path, meta)),
                Err(e) => {
                    had_errors = true;
                    crate::cli::report_error(&format!("{}: {e}", ndjq::input::path_name(&path)));
                }
            },
            Ok(ndjq::input::Source::Store(path)) => stores.push(path),
            Ok(ndjq::input::Source::Stdin) => {
                bail!("--cache reads files: stdin cannot be cached; give PATHs")
            }
            Err(e) => {
                had_errors |= !e.is_note();
                crate::cli::report_error(&e);
            }
        }
    }
    let key = ndjq::cache::config_key(&clock, &common.options);
    let mut cache = ndjq::cache::StatsCache::open(&dir, &key);
    let (mut stats, done) =
        cache.refresh(&files, &clock, &common.options, common.threads, &mut |e| {
            had_errors |= !e.is_note();
            crate::cli::report_error(e);
        })?;
    if !stores.is_empty() {
        stats.merge(stats_of(&stores, clock)?);
    }
    if !common.quiet {
        eprintln!(
            "ndjq: cache: files unchanged {}, read on from their offset {}, read from their start {}; bytes read {}",
            done.unchanged, done.appended, done.read_whole, done.bytes_read
        );
    }
    if let Err(e) = cache.save() {
        if !common.quiet {
            eprintln!(
                "ndjq: note: cannot write the cache in {}: {e}",
                ndjq::input::path_name(&dir)
            );
        }
    }
    Ok((
        stats,
        Ran {
            had_errors,
            child: None,
        },
    ))
}

/// The prices and the time range of `--pricing`, `--cost`, `--since`, `--until` and
/// `--timezone` (`stats` and `report`).
pub(crate) struct Figures {
    table: Option<PriceTable>,
    mode: CostMode,
    pub(crate) clock: Clock,
}

impl Figures {
    pub(crate) fn pricing(&self) -> Pricing<'_> {
        let mut pricing = Pricing {
            mode: self.mode,
            ..Pricing::default()
        };
        if let Some(t) = &self.table {
            pricing.table = Some(t);
        }
        pricing
    }
}

pub(crate) fn figures(args: &FigureArgs) -> Result<Figures> {
    let table = match &args.pricing {
        Some(path) => {
            let what = format!("--pricing file {}", ndjq::input::path_name(path));
            let file = std::fs::File::open(path).with_context(|| format!("cannot read {what}"))?;
            let text = super::read_capped(file, &what)?;
            let table = PriceTable::parse(&text, &path.display().to_string()).map_err(|e| {
                anyhow::anyhow!(
                    "--pricing file {} is not a LiteLLM price table: {e}",
                    path.display()
                )
            })?;
            Some(table)
        }
        None => None,
    };
    let mode = match args.cost {
        CostArg::Reported => CostMode::Reported,
        CostArg::Estimated => CostMode::Estimated,
        CostArg::Auto => CostMode::Auto,
    };
    let tz = match &args.timezone {
        Some(name) => TimeZone::get(name)
            .map_err(|e| anyhow::anyhow!("--timezone {name}: not a time zone ({e})"))?,
        None => TimeZone::try_system().unwrap_or(TimeZone::UTC),
    };
    let bound = |text: &Option<String>, edge, flag| {
        text.as_deref()
            .map(|t| timestamp::parse_bound(t, edge, &tz))
            .transpose()
            .map_err(|e| anyhow::anyhow!("{flag}: {e}"))
    };
    let clock = Clock {
        range: TimeRange {
            since: bound(&args.since, Edge::Start, "--since")?,
            until: bound(&args.until, Edge::End, "--until")?,
        },
        tz: tz.clone(),
    };
    Ok(Figures { table, mode, clock })
}

pub fn run(args: &StatsArgs) -> Result<i32> {
    // Not the agents' folders, which hold logs, not stats (see `config::agent_folders`).
    if args.merge && args.input.paths.is_empty() && io::stdin().is_terminal() {
        bail!("--merge combines the JSON stats named as PATHs (or `-` for stdin); none given");
    }
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    let format = match args.format {
        Some(TableFormat::Text) => Format::Text,
        Some(TableFormat::Json) => Format::Json,
        Some(TableFormat::Csv) => Format::Csv,
        // The merge state is JSON: --mergeable alone means -f json, even on a terminal.
        None if common.stdout_is_tty && !args.mergeable => Format::Text,
        None => Format::Json,
    };
    if args.mergeable && format != Format::Json {
        bail!("--mergeable writes the merge state in JSON: give it with -f json");
    }
    let figures = figures(&args.figures)?;
    let pricing = figures.pricing();
    let clock = figures.clock.clone();
    if args.merge && common.follow.is_some() {
        bail!("--merge combines finished JSON stats; --follow reads logs as they grow");
    }
    if args.merge && common.child.is_some() {
        bail!("--merge reads JSON stats from files, not from a wrapped command");
    }
    if args.merge
        && (args.figures.since.is_some()
            || args.figures.until.is_some()
            || args.figures.timezone.is_some())
    {
        bail!(
            "--since, --until and --timezone apply while reading records: give them to the \
             runs that wrote the partial stats, not to --merge"
        );
    }
    let (stats, ran) = if args.merge {
        let (stats, had_errors) = merge_reports(&common)?;
        // Parts priced with another table are priced again with this run's: say so (the
        // JSON report lists them in `parts_pricing`).
        let current = match pricing.mode {
            CostMode::Reported => None,
            _ => pricing.table.map(|t| t.name.as_str()),
        };
        let other: Vec<&str> = stats
            .parts_pricing
            .iter()
            .map(String::as_str)
            .filter(|p| Some(*p) != current)
            .collect();
        if !other.is_empty() && !common.quiet {
            // Table names come from the reports read: escaped as every message is.
            crate::cli::report_error(&format!(
                "note: parts priced with {}; merged with {}",
                other.join("; "),
                current.unwrap_or("no price table (--cost reported)")
            ));
        }
        (
            stats,
            Ran {
                had_errors,
                child: None,
            },
        )
    } else if args.cache && !args.no_cache {
        cached_stats(&common, clock)?
    } else {
        let mut run = StatsRun::new(clock, &common)?;
        let mode = match format {
            Format::Json | Format::Github => live::Mode::Json,
            Format::Text if common.stdout_is_tty => live::Mode::View,
            _ => live::Mode::Quiet,
        };
        let mut ticks = live::Live::new(
            mode,
            args.live.interval.max(std::time::Duration::from_millis(10)),
            args.by.map(group_by),
            pricing,
            common.painter,
            args.live.token_limit,
            common.text_width,
        );
        let ran = crate::cli::run_sources_ticking(&common, &mut run, true, &mut ticks)?;
        if common.follow.is_some() {
            ticks.finish(&run)?;
            if ticks.mode == live::Mode::Json {
                // The last object written is the final report.
                run.diagnostics.finish(None)?;
                return Ok(ran.exit_code(Outcome::Success));
            }
        }
        run.finish()?;
        (run.stats, ran)
    };
    let by = args.by.map(group_by);
    let mut out = BufWriter::new(io::stdout().lock());
    if args.mergeable {
        // The merge state (megabytes on a large tree) is written as JSON on other cores
        // while the totals and breakdowns are computed (not with `-j 1`: one thread).
        let (report, state) = stats.json_report(by, &pricing, common.threads > 1)?;
        write_json_with_state(&mut out, &report, &state)?;
    } else {
        let report = stats.report_totals(by, &pricing);
        write_report(&mut out, &report, format, common.painter)?;
    }
    out.flush()?;
    Ok(ran.exit_code(Outcome::Success))
}

/// The stats of `folders` as `ndjq stats -q FOLDERS` reads them, without the cache: what
/// `stats --cache` and the status line read of a store, which does not grow at its end,
/// and the status line's `--no-cache`.
pub(crate) fn stats_of(folders: &[PathBuf], clock: Clock) -> Result<Stats> {
    let mut argv: Vec<std::ffi::OsString> = vec!["ndjq".into(), "stats".into(), "-q".into()];
    argv.extend(folders.iter().map(|f| f.as_os_str().to_owned()));
    let Command::Stats(args) = Cli::try_parse_from(argv)?.command else {
        bail!("not the stats command");
    };
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    let mut run = StatsRun::new(clock, &common)?;
    crate::cli::run_sources(&common, &mut run, true)?;
    Ok(run.stats)
}
