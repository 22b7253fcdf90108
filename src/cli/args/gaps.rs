//! The arguments and examples of `ndjq gaps`.

use super::*;

pub(super) const GAPS_EXAMPLES: &[Example] = &[
    Example {
        does: "lost lines, a missing or error result, unanswered tool calls; exit status 1 on any",
        run: "ndjq gaps run.ndjson",
    },
    Example {
        does: "GitHub Actions annotations for every gap of a folder of agent logs, in a CI step",
        run: "ndjq gaps -f github logs/",
    },
    Example {
        does: "a stream numbered by its own field: lost and repeated numbers",
        run: "ndjq gaps --seq-field n -f text events.ndjson",
    },
];

#[derive(Debug, Args)]
pub struct GapsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Output format [default: text on a terminal, else json].
    #[arg(short = 'f', long, value_enum, value_name = "FORMAT")]
    pub format: Option<ValidateFormat>,

    /// Exit 1 when a gap of this severity or worse is found.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value = "warning")]
    pub fail_on: SeverityArg,

    /// The numeric sequence field to check for lost, repeated and reordered numbers
    /// [default: the first of seq, sequence, event_id the records hold].
    #[arg(long, value_name = "NAME")]
    pub seq_field: Option<String>,

    #[command(flatten)]
    pub child: ChildArgs,
}
