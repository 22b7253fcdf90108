//! `ndjq events`: one normalized event per content block or item.

use crate::cli::args::EventsArgs;
use anyhow::{bail, Result};

pub fn run(_args: &EventsArgs) -> Result<i32> {
    bail!("events: being written")
}
