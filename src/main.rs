//! The `ndjq` binary: a thin shell around the library. The exit code is decided here from
//! the command's result; a closed stdout (`| head`) ends quietly with 0.

mod cli;

use std::io::{self, Write};

fn main() {
    // Started by a supervising ndjq as the trampoline of a wrapped command: become it.
    if let Some(code) = ndjq::supervisor::trampoline() {
        std::process::exit(code);
    }
    let code = match cli::run() {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            cli::report_error(&format!("{e:#}"));
            cli::EXIT_ERROR
        }
    };
    // Flushing a closed stdout must not turn a quiet exit into an error.
    let _ = io::stdout().flush();
    std::process::exit(code);
}

/// Whether the error is a reader that went away: that ends ndjq with 0, no message.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<ndjq::Error>()
                .is_some_and(ndjq::Error::is_broken_pipe)
    })
}
