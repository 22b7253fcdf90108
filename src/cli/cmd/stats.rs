//! `ndjq stats`: totals and breakdowns.

use crate::cli::args::StatsArgs;
use anyhow::{bail, Result};

pub fn run(_args: &StatsArgs) -> Result<i32> {
    bail!("stats: being written")
}
