//! The arguments and examples of `ndjq validate`.

use super::*;

pub(super) const VALIDATE_EXAMPLES: &[Example] = &[
    Example {
        does: "a compiler-style report on a terminal (JSON in a pipe); exit status 1 on errors",
        run: "ndjq validate run.ndjson",
    },
    Example {
        does: "GitHub Actions annotations, for a CI step",
        run: "ndjq validate -f github run.ndjson",
    },
    Example {
        does: "stricter: warnings fail too, over every Claude Code session log",
        run: "ndjq validate --fail-on warning ~/.claude/projects",
    },
];

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Output format [default: text on a terminal, else json].
    #[arg(short = 'f', long, value_enum, value_name = "FORMAT")]
    pub format: Option<ValidateFormat>,

    /// Exit 1 when a diagnostic of this severity or worse is found.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value = "error")]
    pub fail_on: SeverityArg,

    /// Stop after N diagnostics at or above --fail-on.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,

    /// Also report the structural findings of `ndjq gaps` (missing result, orphan tool
    /// calls, sequence gaps, unanswered requests). They need every record of an input in
    /// order: workers still parse it on every core, and one thread applies what each
    /// record tells the trackers.
    #[arg(long)]
    pub gaps: bool,

    #[command(flatten)]
    pub child: ChildArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    Text,
    Json,
    Csv,
    Github,
}
