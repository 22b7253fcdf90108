//! `ndjq report`: the figures of `stats` (the same consumer, the same library code) and
//! each session's times, agent, ending and transcript (from the normalized events of
//! `events`), written as one self-contained HTML page by [`ndjq::report`].
//!
//! The page is a file: `-o FILE`, stdout when it is not a terminal, else a new file in the
//! temporary folder whose path is printed (never HTML on a terminal). `--open` hands the
//! file to the system's opener.

use super::stats::{figures, Part, StatsRun};
use crate::cli::args::ReportArgs;
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::{Context, Result};
use ndjq::diagnostic::Diagnostic;
use ndjq::dialect::Dialect;
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Consumer, Flow, Record};
use ndjq::report::SessionLog;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `stats`' consumer, and the sessions' log beside it.
struct ReportRun<R: Write> {
    stats: StatsRun<R>,
    log: SessionLog,
}

impl<R: Write> Consumer for ReportRun<R> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.log.begin_input();
        self.stats.begin_input(file)
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.log.record(record);
        self.stats.record(record)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stats.overlong_chunk(bytes)
    }

    fn end_input(&mut self, file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.log.end_input(file, dialect);
        self.stats.end_input(file, dialect)
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.stats.notice(d)
    }
}

impl<R: Write> Parallel for ReportRun<R> {
    type Shard = ReportRun<Vec<u8>>;
    type Part = (Part, SessionLog);

    /// Events take their session and usage from the records before them: each input is
    /// read whole, in order, by one worker (small inputs are still read in parallel with
    /// each other).
    fn batchable(&self, _dialect: Option<Dialect>) -> bool {
        false
    }

    /// Without transcripts, a part is an input's counts and its sessions' few facts.
    fn small_parts(&self) -> bool {
        !self.log.transcripts()
    }

    fn shard(&self) -> Self::Shard {
        ReportRun {
            stats: self.stats.shard(),
            log: self.log.fresh(),
        }
    }

    fn take(shard: &mut Self::Shard) -> Self::Part {
        (
            <StatsRun<R> as Parallel>::take(&mut shard.stats),
            shard.log.take(),
        )
    }

    fn merge(&mut self, (part, log): Self::Part) -> io::Result<Flow> {
        self.log.merge(log);
        self.stats.merge(part)
    }
}

/// Whether the inputs are one file (or stdin, or a wrapped command): one session's log,
/// whose transcript is shown unless `--no-transcripts`.
fn one_input(args: &ReportArgs) -> bool {
    match args.input.paths.as_slice() {
        [] => !args.input.command.is_empty(),
        [p] => !p.is_dir(),
        _ => false,
    }
}

/// A new file in the temporary folder, never one that exists (nor a link planted there).
fn temp_page() -> Result<(PathBuf, File)> {
    let dir = std::env::temp_dir();
    let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    for n in 0..100 {
        let name = if n == 0 {
            format!("ndjq-report-{stamp}.html")
        } else {
            format!("ndjq-report-{stamp}-{n}.html")
        };
        let path = dir.join(name);
        match File::options().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", path.display())),
        }
    }
    anyhow::bail!("cannot create a new report file in {}", dir.display())
}

/// Opens the page with the system's opener, without waiting for the browser.
fn open_page(path: &Path) -> Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {opener} to open {}", path.display()))?;
    Ok(())
}

pub fn run(args: &ReportArgs) -> Result<i32> {
    let common = Common::resolve(&args.input, &args.output, &args.child)?;
    if common.follow.is_some() {
        anyhow::bail!(
            "report writes one page of what the logs hold now; for a live view use \
             `ndjq stats --follow`"
        );
    }
    if let Some(out) = args.out_file.as_deref().filter(|p| p.as_os_str() != "-") {
        // A page written into the folder it reads, by an earlier run: never an input.
        common.sources.add_output_path("-o", out)?;
    }
    if args.open
        && args
            .out_file
            .as_deref()
            .is_some_and(|p| p.as_os_str() == "-")
    {
        anyhow::bail!("--open opens a file: give -o FILE, or no -o for a temporary file");
    }
    let figures = figures(&args.figures)?;
    let pricing = figures.pricing();
    let asked = args.transcripts && !args.no_transcripts;
    let collect = asked || (!args.no_transcripts && one_input(args));
    let mut run = ReportRun {
        stats: StatsRun::new(figures.clock.clone(), &common)?,
        log: SessionLog::new(collect, figures.clock.range),
    };
    let ran = crate::cli::run_sources(&common, &mut run, true)?;
    run.stats.finish()?;
    let stats = &run.stats.stats;
    // By default, a transcript is for a page of one session.
    let transcripts = asked || (collect && stats.session_count() <= 1);
    let page = ndjq::report::render(
        stats,
        &pricing,
        &run.log,
        &ndjq::report::Options {
            tz: &figures.clock.tz,
            range: figures.clock.range,
            transcripts,
        },
    );
    let to_stdout = match &args.out_file {
        Some(p) => p.as_os_str() == "-",
        None => !common.stdout_is_tty && !args.open,
    };
    if to_stdout {
        let mut out = io::stdout().lock();
        out.write_all(page.as_bytes())?;
        out.flush()?;
        return Ok(ran.exit_code(Outcome::Success));
    }
    let path = match &args.out_file {
        Some(p) => {
            super::write_whole(p, page.as_bytes())?;
            p.clone()
        }
        None => {
            let (path, mut file) = temp_page()?;
            file.write_all(page.as_bytes())
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
            path
        }
    };
    if args.out_file.is_none() || io::stdout().is_terminal() {
        println!("{}", path.display());
    }
    if args.open {
        open_page(&path)?;
    }
    Ok(ran.exit_code(Outcome::Success))
}
