//! The arguments and examples of `ndjq completions`.

use super::*;

pub(super) const COMPLETIONS_EXAMPLES: &[Example] = &[
    Example {
        does: "bash: loaded on demand by bash-completion",
        run: "ndjq completions bash > ~/.local/share/bash-completion/completions/ndjq",
    },
    Example {
        does: "zsh: any folder on $fpath (here with `fpath+=(~/.zfunc)` in ~/.zshrc)",
        run: "ndjq completions zsh > ~/.zfunc/_ndjq",
    },
    Example {
        does: "fish: loaded on demand from its completions folder",
        run: "ndjq completions fish > ~/.config/fish/completions/ndjq.fish",
    },
];

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for. With --dir and no SHELL: every shell.
    #[arg(value_enum, value_name = "SHELL", required_unless_present = "dir")]
    pub shell: Option<Shell>,

    /// Write the script(s) into DIR (created if missing) under the names the shells look
    /// for (ndjq.bash, _ndjq, ndjq.fish, ndjq.elv, _ndjq.ps1), instead of printing on stdout.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}
