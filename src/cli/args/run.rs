//! The arguments and examples of `ndjq run`.

use super::*;

pub(super) const RUN_EXAMPLES: &[Example] = &[
    Example {
        does: "a Claude Code run's valid records, live; on garbage it is resumed (--resume ID)",
        run: "ndjq run -- claude -p \"fix it\" --output-format stream-json --verbose",
    },
    Example {
        does: "a live, coloured transcript; ended and resumed after 5 minutes without output",
        run: "ndjq run -f text --idle-timeout 300 -- claude -p \"fix it\" --output-format stream-json --verbose",
    },
    Example {
        does: "every byte the agent printed saved, and its stats at the end",
        run: "ndjq stats --tee run.ndjson -- codex exec --json \"fix it\"",
    },
];

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The agent to run, and its arguments.
    #[arg(last = true, required = true, value_name = "CMD",
          value_hint = ValueHint::CommandWithArguments)]
    pub command: Vec<OsString>,

    /// What to write: the valid records' original bytes (raw), a live transcript (text),
    /// or normalized events (json).
    #[arg(
        short = 'f',
        long,
        value_enum,
        value_name = "FORMAT",
        default_value = "raw"
    )]
    pub format: RunFormat,

    #[command(flatten)]
    pub limits: RecordArgs,

    /// Write the raw bytes of every invalid record to FILE, byte for byte.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub rejects: Option<PathBuf>,

    /// Take JSON objects out of text lines and reassemble pretty-printed ones (see
    /// `ndjq filter --help`).
    #[arg(long)]
    pub recover: bool,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub child: ChildArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    Raw,
    Text,
    Json,
}
