//! The arguments and examples of `ndjq report`.

use super::*;

pub(super) const REPORT_EXAMPLES: &[Example] = &[
    Example {
        does: "a page of every Claude Code session log: written to a file, opened in the browser",
        run: "ndjq report --open ~/.claude/projects",
    },
    Example {
        does: "November's Codex sessions, with their transcripts, into a chosen file",
        run: "ndjq report --since 2026-11-01 --until 2026-11-30 --transcripts \\\n  -o november.html ~/.codex/sessions",
    },
    Example {
        does: "one session: its figures and its transcript",
        run: "ndjq report -o session.html session.jsonl",
    },
];

/// `ndjq report`: the inputs and figures of `stats`, as one HTML page.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Write the page to FILE (`-`: stdout) [default: stdout when it is not a terminal,
    /// else a new file in the temporary folder, whose path is printed].
    #[arg(short = 'o', long = "output", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub out_file: Option<PathBuf>,

    /// Open the page with the system's opener (xdg-open, open) once it is written.
    #[arg(long)]
    pub open: bool,

    /// Add each session's transcript (the `events` view) [default: on when the input is
    /// one file or stdin and holds one session].
    #[arg(long, overrides_with = "no_transcripts")]
    pub transcripts: bool,

    /// Leave the transcripts out.
    #[arg(long, overrides_with = "transcripts")]
    pub no_transcripts: bool,

    #[command(flatten)]
    pub figures: FigureArgs,

    #[command(flatten)]
    pub live: LiveArgs,

    #[command(flatten)]
    pub child: ChildArgs,
}
