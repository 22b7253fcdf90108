//! `ndjq run -- CMD`: supervise an agent. Its valid records pass through byte for byte as
//! they come (or, with `-f text`, a live transcript; `-f json`, normalized events); bad
//! ones are reported on stderr and kept with `--rejects`; the child is restarted on
//! garbage or stalls (see [`ndjq::supervisor`]). The exit status is the last child's
//! (0 when it succeeded, whatever was reported on the way), like timeout(1).

use super::filter::{select, Selection};
use crate::cli::args::{FollowArgs, InputArgs, RunArgs, RunFormat};
use crate::cli::config::Common;
use crate::cli::exit::Outcome;
use anyhow::{bail, Result};
use ndjq::filter::Predicates;
use ndjq::sink::events::EventFormat;

pub fn run(args: &RunArgs) -> Result<i32> {
    if args.command.is_empty() {
        bail!("`ndjq run` needs a command to run: ndjq run [OPTIONS] -- CMD [ARGS...]");
    }
    // The reading options `run` has; the rest are those of a wrapped command.
    let input = InputArgs {
        paths: Vec::new(),
        limits: args.limits.clone(),
        type_field: "type".to_string(),
        threads: 1,
        rejects: args.rejects.clone(),
        recover: args.recover,
        follow: FollowArgs {
            follow: false,
            poll: None,
        },
        command: args.command.clone(),
    };
    let common = Common::resolve(&input, &args.output, &args.child)?;
    let selection = Selection {
        // No predicate: every valid record.
        predicates: Predicates::default(),
        count_only: false,
        max_count: None,
        normalize: match args.format {
            RunFormat::Raw => None,
            RunFormat::Text => Some(EventFormat::Text),
            RunFormat::Json => Some(EventFormat::Json),
        },
    };
    let (ran, _, _) = select(&common, selection)?;
    Ok(ran.exit_code(Outcome::Success))
}
