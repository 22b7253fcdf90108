//! `ndjq completions`: shell completion scripts, generated from the clap definition (so
//! they know every command, flag and value `--help` knows). The scripts are committed in
//! completions/; a test regenerates them and fails when they drift.

use crate::cli::args::{Cli, CompletionsArgs, Shell};
use anyhow::{bail, Context, Result};
use clap::{CommandFactory, ValueEnum};
use clap_complete::Generator;
use std::io::Write;

/// The name the completion scripts complete.
const BIN: &str = "ndjq";

pub fn run(args: &CompletionsArgs) -> Result<i32> {
    match (&args.dir, args.shell) {
        (None, Some(shell)) => std::io::stdout().lock().write_all(&script(shell))?,
        (Some(dir), one) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create folder {}", dir.display()))?;
            let shells = match one {
                Some(shell) => vec![shell],
                None => Shell::value_variants().to_vec(),
            };
            for shell in shells {
                let path = dir.join(shell.file_name(BIN));
                super::write_whole(&path, &script(shell))?;
            }
        }
        // clap requires SHELL without --dir; kept for a clear message all the same.
        (None, None) => bail!("give a SHELL (bash, zsh, fish, elvish, powershell) or --dir DIR"),
    }
    Ok(0)
}

/// The completion script of one shell.
fn script(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut out);
    out
}
