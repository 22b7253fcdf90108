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
use ndjq::input::{self, Source};
use ndjq::parallel::Parallel;
use ndjq::pipeline::{Flow, Pipeline};
use std::io::{self, Write};

/// Parses the arguments and runs the command; the result is the exit code.
pub fn run() -> Result<i32> {
    let cli = args::Cli::parse();
    match cli.command {
        args::Command::Validate(a) => cmd::validate::run(&a),
        args::Command::Filter(a) => cmd::filter::run(&a),
    }
}

/// Feeds every source through the pipeline into `consumer`. Open and read errors are
/// reported on stderr and reading goes on with the next source (like grep); the return
/// value says whether any happened. A write error ends the run.
///
/// Regular files are read on all threads when `parallel_ok` (the consumer's decisions do
/// not depend on the records before) and output is not line-buffered; pipes are read one
/// record at a time so a live stream's lines come through as they are written.
pub(crate) fn run_sources<P: Parallel>(
    common: &Common,
    consumer: &mut P,
    parallel_ok: bool,
) -> Result<bool> {
    let mut pipeline = Pipeline::new(common.options.clone());
    let mut had_errors = false;
    let threads = if parallel_ok && !common.line_buffered {
        common.threads
    } else {
        1
    };
    for source in &common.sources {
        let result = match source {
            Err(e) => Err(clone_open_error(e)),
            Ok(source) => run_one(&mut pipeline, source, consumer, threads),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(e @ ndjq::Error::Write(_)) => return Err(e.into()),
            Err(e) => {
                had_errors = true;
                report_error(&e);
            }
        }
    }
    Ok(had_errors)
}

fn run_one<P: Parallel>(
    pipeline: &mut Pipeline,
    source: &Source,
    consumer: &mut P,
    threads: usize,
) -> Result<Flow, ndjq::Error> {
    let name = source.display_name();
    let read_err = |source: io::Error| ndjq::Error::Read {
        file: name.to_string(),
        line: 0,
        offset: 0,
        source,
    };
    match source {
        Source::Stdin => {
            let stdin = io::stdin().lock();
            let reader = input::decompress(stdin).map_err(read_err)?;
            if threads > 1 && config::stdin_is_file() {
                pipeline.run_parallel(&name, reader, consumer, threads)
            } else {
                pipeline.run(&name, reader, consumer)
            }
        }
        Source::File(path) => {
            let file = input::open_file(path)?;
            let is_file = file.metadata().is_ok_and(|m| m.is_file());
            let reader = input::decompress(file).map_err(read_err)?;
            if threads > 1 && is_file {
                pipeline.run_parallel(&name, reader, consumer, threads)
            } else {
                pipeline.run(&name, reader, consumer)
            }
        }
    }
}

/// Open errors are computed once by `input::expand`; reporting needs an owned copy.
fn clone_open_error(e: &ndjq::Error) -> ndjq::Error {
    match e {
        ndjq::Error::Open { path, source } => ndjq::Error::Open {
            path: path.clone(),
            source: io::Error::new(source.kind(), source.to_string()),
        },
        ndjq::Error::NoLogs { path } => ndjq::Error::NoLogs { path: path.clone() },
        other => ndjq::Error::Open {
            path: Default::default(),
            source: io::Error::other(other.to_string()),
        },
    }
}

/// The one place errors reach the user's terminal.
pub fn report_error(e: &dyn std::fmt::Display) {
    let _ = writeln!(io::stderr(), "ndjq: {e}");
}
