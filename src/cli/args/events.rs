//! The arguments and examples of `ndjq events`.

use super::*;

pub(super) const EVENTS_EXAMPLES: &[Example] = &[
    Example {
        does: "a readable transcript on a terminal (NDJSON events in a pipe)",
        run: "ndjq events run.ndjson",
    },
    Example {
        does: "every event of your Codex sessions as a spreadsheet",
        run: "ndjq events -f csv ~/.codex/sessions > events.csv",
    },
    Example {
        does: "a live transcript of a Claude Code run",
        run: "claude -p \"hi\" --output-format stream-json --verbose | ndjq events -f text",
    },
];

#[derive(Debug, Args)]
pub struct EventsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Output format [default: text on a terminal, else json].
    #[arg(short = 'f', long, value_enum, value_name = "FORMAT")]
    pub format: Option<TableFormat>,

    #[command(flatten)]
    pub child: ChildArgs,
}
