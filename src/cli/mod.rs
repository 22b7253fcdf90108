//! The binary's side: parse the command line, resolve it into a configuration, run one
//! command, and turn its outcome into an exit code.

mod args;
mod cmd;
mod config;
mod exit;

pub use exit::EXIT_ERROR;

use anyhow::Result;
use clap::Parser;
use config::Common;
use ndjq::dialect::store;
use ndjq::input::follow::{FollowEnd, FollowOptions, NoTick, Tick};
use ndjq::input::{self, Source};
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Consumer, Flow, Pipeline};
use ndjq::supervisor::{Ended, Supervisor};
use std::io::{self, Read, Write};
use std::sync::Arc;

/// Parses the arguments and runs the command; the result is the exit code.
pub fn run() -> Result<i32> {
    let cli = args::Cli::parse();
    match cli.command {
        args::Command::Validate(a) => cmd::validate::run(&a),
        args::Command::Gaps(a) => cmd::gaps::run(&a),
        args::Command::Filter(a) => cmd::filter::run(&a),
        args::Command::Events(a) => cmd::events::run(&a),
        args::Command::Stats(a) => cmd::stats::run(&a),
        args::Command::Report(a) => cmd::report::run(&a),
        args::Command::Run(a) => cmd::run::run(&a),
        args::Command::Statusline(a) => cmd::statusline::run(&a),
        args::Command::Man(a) => cmd::man::run(&a),
        args::Command::Completions(a) => cmd::completions::run(&a),
    }
}

/// Feeds every source through the pipeline into `consumer`. Open and read errors are
/// reported on stderr and reading goes on with the next source (like grep); the return
/// value says whether any happened. A write error ends the run.
///
/// When `parallel_ok` (the consumer's decisions do not reach across inputs: no count that
/// stops at an exact record), with more than one thread and output not line-buffered, the
/// inputs are read on one pool of workers for the whole run ([`Pipeline::run_pooled`]):
/// small files whole, large regular files in blocks when the consumer allows it for their
/// dialect; pipes are read one record at a time so a live stream's lines come through as
/// they are written.
pub(crate) fn run_sources<P: Parallel>(
    common: &Common,
    consumer: &mut P,
    parallel_ok: bool,
) -> Result<Ran> {
    run_sources_ticking(common, consumer, parallel_ok, &mut NoTick)
}

/// [`run_sources`]; with `--follow`, `tick` is called between the parts read (`stats`
/// writes its snapshots there).
pub(crate) fn run_sources_ticking<P: Parallel>(
    common: &Common,
    consumer: &mut P,
    parallel_ok: bool,
    tick: &mut dyn Tick<P>,
) -> Result<Ran> {
    if let Some(ran) = supervise(common, consumer)? {
        return Ok(ran);
    }
    if let Some(options) = &common.follow {
        return follow(common, options, consumer, tick);
    }
    // `--recover` looks ahead across records, which batch reading cannot.
    let threads = if parallel_ok && !common.line_buffered && !common.options.recover {
        common.threads
    } else {
        1
    };
    if threads <= 1 {
        return drive(common, |pipeline, name, reader, _| {
            pipeline.run(name, reader, consumer)
        });
    }
    let mut pipeline = Pipeline::new(common.options.clone());
    let mut had_errors = false;
    let mut report = |e: &ndjq::Error| {
        had_errors |= !e.is_note();
        report_error(e);
    };
    let mut open_source = |source: &Source| {
        open(source).map(|(name, reader, blocks)| ndjq::parallel::Opened {
            name,
            reader,
            blocks,
        })
    };
    pipeline.run_pooled(
        common.sources.iter(),
        consumer,
        threads,
        &mut open_source,
        &mut report,
    )?;
    Ok(Ran {
        had_errors,
        child: None,
    })
}

/// `--follow`: stdin first when it is named (read to its end: a pipe is live already),
/// then the files, as they grow, until SIGINT, SIGTERM or SIGHUP (exit 130, 143 or 129,
/// as `run`), each ending with the final output.
fn follow<P: Parallel>(
    common: &Common,
    options: &FollowOptions,
    consumer: &mut P,
    tick: &mut dyn Tick<P>,
) -> Result<Ran> {
    let mut pipeline = Pipeline::new(common.options.clone());
    let mut had_errors = false;
    if common.sources.reads_stdin() {
        let stdin = open(&Source::Stdin)
            .and_then(|(name, reader, _)| pipeline.run(&name, reader, consumer));
        match stdin {
            Ok(_) => {}
            Err(e @ ndjq::Error::Write(_)) => return Err(e.into()),
            Err(e) => {
                had_errors = true;
                report_error(&e);
            }
        }
    }
    let mut report = |e: &ndjq::Error| {
        had_errors |= !e.is_note();
        report_error(e);
    };
    let end = ndjq::input::follow::follow(
        &mut pipeline,
        common.sources.paths(),
        options,
        consumer,
        &mut report,
        tick,
    )?;
    Ok(Ran {
        had_errors,
        child: match end {
            FollowEnd::Signal(sig) => Some(Ended::Failed(128 + sig)),
            FollowEnd::Stopped => None,
        },
    })
}

/// How reading the inputs went.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ran {
    /// An input could not be opened or read.
    pub had_errors: bool,
    /// How the wrapped command ended, when there was one.
    pub child: Option<Ended>,
}

impl Ran {
    /// The exit status: a wrapped command's failure, else the command's own verdict.
    pub fn exit_code(&self, outcome: exit::Outcome) -> i32 {
        exit::exit_code_with_child(outcome, self.had_errors, self.child)
    }
}

/// Runs the wrapped command, one record at a time, into `consumer`.
fn supervise(common: &Common, consumer: &mut dyn Consumer) -> Result<Option<Ran>> {
    let Some(options) = &common.child else {
        return Ok(None);
    };
    let mut pipeline = Pipeline::new(common.options.clone());
    let ended = Supervisor::new(options.clone()).run(&mut pipeline, consumer)?;
    Ok(Some(Ran {
        had_errors: false,
        child: Some(ended),
    }))
}

/// Opens each source (its display name, a decompressing reader, and whether it can be read
/// in batches: a regular file) and hands it to `run_input`.
fn drive<'a>(
    common: &Common,
    mut run_input: impl FnMut(
        &mut Pipeline,
        &Arc<str>,
        Box<dyn Read + 'a>,
        bool,
    ) -> Result<Flow, ndjq::Error>,
) -> Result<Ran> {
    let mut pipeline = Pipeline::new(common.options.clone());
    let mut had_errors = false;
    for source in common.sources.iter() {
        let result = match source {
            Err(e) => Err(e),
            Ok(source) => open(&source).and_then(|(name, reader, batchable)| {
                run_input(&mut pipeline, &name, reader, batchable)
            }),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(e @ ndjq::Error::Write(_)) => return Err(e.into()),
            Err(e) => {
                had_errors |= !e.is_note();
                report_error(&e);
            }
        }
    }
    Ok(Ran {
        had_errors,
        child: None,
    })
}

/// An opened source: its display name, a decompressing reader, and whether it is a
/// regular file (readable in batches).
type Opened<'a> = (Arc<str>, Box<dyn Read + 'a>, bool);

fn open<'a>(source: &Source) -> Result<Opened<'a>, ndjq::Error> {
    let name = source.display_name();
    let read_err = |source: io::Error| ndjq::Error::Read {
        file: name.to_string(),
        line: 0,
        offset: 0,
        source,
    };
    match source {
        Source::Stdin => {
            let reader = input::decompress(io::stdin().lock()).map_err(read_err)?;
            Ok((name.clone(), reader, config::stdin_is_file()))
        }
        Source::File(path) => {
            let file = input::open_file(path)?;
            let is_file = file.metadata().is_ok_and(|m| m.is_file());
            let reader = input::decompress(input::CutCheck::new(file)).map_err(read_err)?;
            Ok((name.clone(), reader, is_file))
        }
        Source::Store(path) => {
            let reader = store::open(path)?;
            Ok((name.clone(), Box::new(reader), false))
        }
    }
}

/// The one place errors reach the user's terminal.
/// Messages name paths and what logs hold: escaped as every text output is
/// ([`ndjq::sink::sanitize`]).
pub fn report_error(e: &dyn std::fmt::Display) {
    let text = e.to_string();
    // Line by line: a message may show an expression over two lines, caret under it.
    let lines: Vec<_> = text.split('\n').map(ndjq::sink::sanitize).collect();
    let _ = writeln!(io::stderr(), "ndjq: {}", lines.join("\n"));
}
