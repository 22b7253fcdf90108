//! The arguments and examples of `ndjq man`.

use super::*;

pub(super) const MAN_EXAMPLES: &[Example] = &[
    Example {
        does: "read the manual without installing it",
        run: "ndjq man | man -l -",
    },
    Example {
        does: "install every page (ndjq.1, ndjq-filter.1, ...) where man finds them",
        run: "ndjq man --dir ~/.local/share/man/man1",
    },
];

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page into DIR (created if missing): ndjq.1 and one ndjq-COMMAND.1 per
    /// command, instead of printing ndjq.1 on stdout.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}
