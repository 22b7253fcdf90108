//! The command line, as clap parses it. These structs only parse; `config` validates and
//! resolves them. The `///` comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};
pub use clap_complete::Shell;
use ndjq::dialect::Dialect;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Make sense of the NDJSON streams AI coding agents write.
///
/// ndjq reads NDJSON from files, folders, or stdin; validates and classifies every line
/// (UTF-8, JSON, known type, schema); and passes records through, byte for byte, or reports
/// what is wrong with them. It understands Claude Code (stream-json and session logs),
/// Codex (exec --json and session logs), Gemini CLI and Qwen Code (stream-json and session
/// logs), Cursor CLI, OpenCode (its JSON output and its SQLite store) and GitHub Copilot
/// CLI (its JSON output), JSON-RPC, and any other NDJSON. Given no PATH with stdin a
/// terminal, a command reads the agents' own log folders (~/.claude/projects,
/// ~/.codex/sessions, ..., OpenCode's opencode.db) and names them on stderr.
///
/// The guide, a tour of every command and flag with examples, is docs/GUIDE.md in ndjq's
/// source repository; the codes, exit statuses and schemas are in docs/REFERENCE.md.
#[derive(Debug, Parser)]
#[command(
    name = "ndjq",
    version,
    max_term_width = 100,
    after_help = examples_help(NDJQ_EXAMPLES)
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report every problem in a stream with its location; exit 1 when any is serious.
    #[command(after_help = examples_help(VALIDATE_EXAMPLES))]
    Validate(ValidateArgs),
    /// Report what is missing from a stream: lost lines, results, answers; exit 1 on any.
    #[command(after_help = examples_help(GAPS_EXAMPLES))]
    Gaps(GapsArgs),
    /// Pass through the original bytes of the records that match, like grep for NDJSON.
    #[command(after_help = examples_help(FILTER_EXAMPLES))]
    Filter(Box<FilterArgs>),
    /// One normalized event per content block or item: who said what, tool calls, usage.
    #[command(after_help = examples_help(EVENTS_EXAMPLES))]
    Events(EventsArgs),
    /// Totals and breakdowns: records, sessions, tokens, cost, tools, errors.
    #[command(after_help = examples_help(STATS_EXAMPLES))]
    Stats(StatsArgs),
    /// One self-contained HTML page: totals, charts, sessions and transcripts.
    #[command(after_help = examples_help(REPORT_EXAMPLES))]
    Report(Box<ReportArgs>),
    /// Supervise an agent: its output live; restarted (resumed) on garbage or stalls.
    #[command(after_help = examples_help(RUN_EXAMPLES))]
    Run(RunArgs),
    /// Claude Code's status line: model, session and today's cost, 5-hour window, context.
    ///
    /// Reads the JSON Claude Code pipes to a status line command and prints one line. Set
    /// it up in ~/.claude/settings.json with
    /// "statusLine": {"type": "command", "command": "ndjq statusline"}. Today's cost and
    /// ndjq's own 5-hour block come from every agent's logs (the folders `ndjq stats` reads
    /// with no PATH), answered from an incremental cache: only what was appended since the
    /// last line is read. Bad or empty input prints a short line and exits 0.
    #[command(after_help = examples_help(STATUSLINE_EXAMPLES))]
    Statusline(StatuslineArgs),
    /// Print the manual page (roff), or write one page per command into a folder.
    #[command(after_help = examples_help(MAN_EXAMPLES))]
    Man(ManArgs),
    /// Print the completion script of a shell, or write every shell's into a folder.
    #[command(after_help = examples_help(COMPLETIONS_EXAMPLES))]
    Completions(CompletionsArgs),
}

/// One example of a help text: what it does, and the command line(s) that do it. Every
/// example is run by a test (tests/it/cli.rs) in a scratch home holding the files it names.
#[derive(Debug)]
pub struct Example {
    pub does: &'static str,
    /// One or more lines; each is one shell command line.
    pub run: &'static str,
}

/// The closing `Examples:` section of a help text: each example's comment line, then its
/// command lines, the examples separated by blank lines.
pub fn examples_help(examples: &[Example]) -> String {
    let mut out = String::from("Examples:");
    for (i, ex) in examples.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("\n  # ");
        out.push_str(ex.does);
        for line in ex.run.lines() {
            out.push_str("\n  ");
            out.push_str(line);
        }
    }
    out
}

/// The examples of a command (`ndjq` itself for the empty name), for the manual page.
pub fn examples_of(command: &str) -> &'static [Example] {
    match command {
        "validate" => VALIDATE_EXAMPLES,
        "gaps" => GAPS_EXAMPLES,
        "filter" => FILTER_EXAMPLES,
        "events" => EVENTS_EXAMPLES,
        "stats" => STATS_EXAMPLES,
        "report" => REPORT_EXAMPLES,
        "run" => RUN_EXAMPLES,
        "statusline" => STATUSLINE_EXAMPLES,
        "man" => MAN_EXAMPLES,
        "completions" => COMPLETIONS_EXAMPLES,
        "" | "ndjq" => NDJQ_EXAMPLES,
        _ => &[],
    }
}

const NDJQ_EXAMPLES: &[Example] = &[
    Example {
        does: "every problem of a stream with file:line:column; exit status 1 on errors",
        run: "ndjq validate run.ndjson",
    },
    Example {
        does: "only the assistant records, passed through byte for byte",
        run: "ndjq filter --type assistant run.ndjson",
    },
    Example {
        does: "tokens, cost, tools and errors of all your Claude Code sessions",
        run: "ndjq stats ~/.claude/projects",
    },
];

const VALIDATE_EXAMPLES: &[Example] = &[
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

const GAPS_EXAMPLES: &[Example] = &[
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

const FILTER_EXAMPLES: &[Example] = &[
    Example {
        does: "the assistant records of a live Claude Code run, as they arrive",
        run: "claude -p \"fix it\" --output-format stream-json --verbose | ndjq filter --type assistant",
    },
    Example {
        does: "messages over 100 output tokens: time, tokens and tools (`*`: any block), like jq -r",
        run: "ndjq filter --where 'message.usage.output_tokens>100' \\\n  --print timestamp,message.usage.output_tokens,message.content.*.name session.jsonl",
    },
    Example {
        does: "ten minutes of records whose text, thinking or tool input or output says error or fail",
        run: "ndjq filter -i --grep 'error|fail' \\\n  --since 2025-10-21T03:20:00Z --until 2025-10-21T03:30:00Z session.jsonl",
    },
];

const EVENTS_EXAMPLES: &[Example] = &[
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

const STATS_EXAMPLES: &[Example] = &[
    Example {
        does: "tokens, cost, tools and errors at a glance",
        run: "ndjq stats run.ndjson",
    },
    Example {
        does: "one row per model over every Claude Code session log",
        run: "ndjq stats --by model ~/.claude/projects",
    },
    Example {
        does: "scale out: stats of each part, merged, are those of one run over all of them",
        run: "ndjq stats -f json --mergeable shard1/ > a.json\n\
              ndjq stats -f json --mergeable shard2/ > b.json\n\
              ndjq stats --merge a.json b.json",
    },
];

const REPORT_EXAMPLES: &[Example] = &[
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

const RUN_EXAMPLES: &[Example] = &[
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

const STATUSLINE_EXAMPLES: &[Example] = &[
    Example {
        does: "the line Claude Code shows under its prompt, from the JSON it pipes",
        run: "echo '{\"model\":{\"display_name\":\"Opus\"},\"cost\":{\"total_cost_usd\":0.42}}' \\\n  | ndjq statusline",
    },
    Example {
        does: "your own line, without colour",
        run: "echo '{\"context_window\":{\"used_percentage\":37}}' \\\n  | ndjq statusline --color never --format '{today_cost} today, context {context}'",
    },
    Example {
        does: "the same figures as a plain run, from the cache: only what was appended is read",
        run: "ndjq stats --cache ~/.claude/projects",
    },
];

const MAN_EXAMPLES: &[Example] = &[
    Example {
        does: "read the manual without installing it",
        run: "ndjq man | man -l -",
    },
    Example {
        does: "install every page (ndjq.1, ndjq-filter.1, ...) where man finds them",
        run: "ndjq man --dir ~/.local/share/man/man1",
    },
];

const COMPLETIONS_EXAMPLES: &[Example] = &[
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

/// Where records come from and how they are read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files, folders (searched for *.jsonl, *.ndjson, *.json, also .gz/.zst) or `-` for
    /// stdin. Without any, stdin is read.
    #[arg(value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub limits: RecordArgs,

    /// Dotted path of the type field for the generic dialect.
    #[arg(long, value_name = "PATH", default_value = "type")]
    pub type_field: String,

    /// Worker threads for reading files (0: one per core, at most 8; at most 1024). Output
    /// is the same, in the same order, whatever the number.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,

    /// Write the raw bytes of every invalid record to FILE, byte for byte.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub rejects: Option<PathBuf>,
    /// Mixed text and JSON: take JSON objects out of text lines (`Warning: x {...}`) and
    /// reassemble objects pretty-printed over several lines; the text is reported as
    /// PROTO_TEXT_NOISE. Inputs are then read on one thread.
    #[arg(long)]
    pub recover: bool,

    #[command(flatten)]
    pub follow: FollowArgs,

    /// Run CMD and read its stdout (instead of PATHs), watching it like `ndjq run` does.
    #[arg(last = true, value_name = "CMD", value_hint = ValueHint::CommandWithArguments)]
    pub command: Vec<OsString>,
}

/// `--follow`: keep reading as files grow (every reading command but `run`).
#[derive(Debug, Clone, Args)]
pub struct FollowArgs {
    /// After reading what is there, keep reading as the files grow, like `tail -F`: new
    /// records as they are written, truncated and replaced files from their start, new
    /// files under the folders, renamed files read on where they were. Ends on Ctrl-C
    /// (SIGINT), SIGTERM or SIGHUP, with the summary.
    #[arg(short = 'F', long)]
    pub follow: bool,

    /// With --follow: look for changes every SECS seconds instead of waiting for
    /// file-system notifications (for file systems without them, such as NFS).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "follow")]
    pub poll: Option<Duration>,
}

/// `stats --follow`: how often to write, and the live view's limit.
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// With --follow: write the stats at most once every SECS seconds (JSON: one object
    /// per line when the totals changed; text on a terminal: the live view).
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = parse_seconds,
          requires = "follow")]
    pub interval: Duration,

    /// With --follow, the live view: the tokens a 5-hour block may use, or `max` (the
    /// largest earlier block); shows the share used and when the limit will be reached.
    #[arg(long, value_name = "N|max", value_parser = parse_token_limit, requires = "follow")]
    pub token_limit: Option<TokenLimit>,
}

/// `--token-limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    Tokens(u64),
    /// The largest earlier block.
    Max,
}

fn parse_token_limit(s: &str) -> Result<TokenLimit, String> {
    if s.eq_ignore_ascii_case("max") {
        return Ok(TokenLimit::Max);
    }
    // Tokens count in thousands and millions (2M = 2,000,000), not in binary multiples.
    let t = s.trim().replace('_', "");
    let (digits, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1_000),
        Some('m' | 'M') => (&t[..t.len() - 1], 1_000_000),
        _ => (t.as_str(), 1),
    };
    match digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        Some(n) if n > 0 => Ok(TokenLimit::Tokens(n)),
        _ => Err(format!(
            "`{s}` is not a number of tokens (like 500000 or 2M) or `max`"
        )),
    }
}

/// How each record is read: the limits and the dialect (every reading command and `run`).
#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// Longest record to parse (bytes; K, M, G suffixes). Longer ones are reported as
    /// PROTO_LINE_TOO_LONG and streamed through without being held in memory.
    #[arg(long, value_name = "SIZE", default_value = "100M", value_parser = parse_size)]
    pub max_line_bytes: usize,

    /// Deepest nesting of arrays and objects to accept (1 to 1024); deeper is PROTO_TOO_DEEP.
    #[arg(long, value_name = "N", default_value_t = 128,
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub max_depth: u16,

    /// Skip detection and read every input as this dialect.
    #[arg(long, value_enum, value_name = "NAME")]
    pub dialect: Option<DialectName>,
}

/// How a wrapped command (`-- CMD`) is watched.
#[derive(Debug, Args)]
#[command(next_help_heading = "Wrapped command (-- CMD)")]
pub struct ChildArgs {
    /// End the command when it writes N invalid records within SECS seconds, and start it
    /// again resuming its session (claude, gemini, qwen, cursor-agent: --resume ID; codex:
    /// exec resume ID; opencode: run --session ID).
    #[arg(long, value_name = "N/SECS", default_value = "5/60", value_parser = parse_rate,
          requires = "command")]
    pub restart_after: Rate,

    /// How many times the command may be restarted; after that, PROC_GAVE_UP.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "command")]
    pub max_restarts: u32,

    /// Seconds from SIGTERM to SIGKILL when ending the command; also how long it may live
    /// on after its result (then it is ended, and that is a success).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = parse_seconds,
          requires = "command")]
    pub grace: Duration,

    /// No output for SECS seconds is a stall (PROC_STALLED): the command is ended and
    /// restarted (resuming its session, or, when it printed nothing yet, started again as
    /// given); without a restart left, ndjq exits 124.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "command")]
    pub idle_timeout: Option<Duration>,

    /// The command line that resumes a session, `{session_id}` standing for its id (words
    /// split like a shell; nothing expanded), for an agent ndjq does not resume itself:
    /// claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in.
    #[arg(long, value_name = "TEMPLATE", requires = "command")]
    pub restart_cmd: Option<String>,

    /// Save every byte the command writes on stdout to FILE, as it came, before anything
    /// is checked.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "command")]
    pub tee: Option<PathBuf>,

    /// Write the command's stderr to FILE instead of ndjq's stderr.
    #[arg(long = "stderr", value_name = "FILE", value_hint = ValueHint::FilePath,
          requires = "command")]
    pub stderr_file: Option<PathBuf>,
}

/// `--restart-after N/SECS`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub errors: u32,
    pub window: Duration,
}

/// How results are written.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE
    /// forces it), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorArg,

    /// Flush after every record. Automatic when stdin is a pipe and stdout is not a file,
    /// so a live agent's lines come through as they are written.
    #[arg(long)]
    pub line_buffered: bool,

    /// Print no diagnostics on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

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

#[derive(Debug, Args)]
pub struct FilterArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Records of these types (comma-separated; `system/init` also matches the subtype). A
    /// near miss of a type some dialect knows gets a did-you-mean warning.
    #[arg(
        short = 't',
        long = "type",
        value_name = "T[,T]",
        value_delimiter = ','
    )]
    pub types: Vec<String>,

    /// Records with one of these subtypes.
    #[arg(long = "subtype", value_name = "S[,S]", value_delimiter = ',')]
    pub subtypes: Vec<String>,

    /// Records holding a tool_use, or the tool_result of a tool_use, of these tools.
    #[arg(long = "tool", value_name = "NAME[,NAME]", value_delimiter = ',')]
    pub tools: Vec<String>,

    /// Records of these sessions (session_id, sessionId or thread_id).
    #[arg(long = "session", value_name = "ID[,ID]", value_delimiter = ',')]
    pub sessions: Vec<String>,

    /// Records naming these models (message.model or model).
    #[arg(long = "model", value_name = "M[,M]", value_delimiter = ',')]
    pub models: Vec<String>,

    /// Records where the value at PATH compares with VALUE. OP: = != > >= < <= (numbers
    /// with numbers, strings with strings) or ~ (a regex). PATH is dotted; `*` is any key
    /// or array index (any value may match). VALUE is JSON (`3`, `true`, `"a b"`) or else
    /// the text as typed. PATH alone: exists and is not null. Repeat to require several.
    #[arg(short = 'w', long = "where", value_name = "PATH[OP VALUE]")]
    pub wheres: Vec<String>,

    /// Records whose human text matches REGEX: message text, thinking, tool input and
    /// output (per dialect; every string for JSON-RPC and generic). Repeat: any may match
    /// (a comma is part of the regex, not a separator: `error|fail` or two --grep).
    #[arg(short = 'g', long = "grep", value_name = "REGEX")]
    pub greps: Vec<String>,

    /// --grep and `--where PATH~REGEX` ignore case.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,

    /// Records at or after TIME (RFC 3339, or a date: 2025-06-30; without an offset, local
    /// time). Records without a timestamp pass.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Records at or before TIME (a date: up to its end). Records without a timestamp pass.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// Only records that are valid JSON.
    #[arg(long, conflicts_with = "invalid")]
    pub valid: bool,

    /// Only records that are not valid JSON (the ones --rejects saves).
    #[arg(long)]
    pub invalid: bool,

    /// Records carrying one of these diagnostic codes (e.g. PROTO_UNKNOWN_TYPE).
    #[arg(long = "diagnostic", value_name = "CODE[,CODE]", value_delimiter = ',')]
    pub diagnostics: Vec<String>,

    /// Select the records that do not match.
    #[arg(short = 'v', long)]
    pub invert: bool,

    /// Print the normalized events of the selected records (as `ndjq events` does) instead
    /// of their raw bytes.
    #[arg(long, conflicts_with = "count")]
    pub normalize: bool,

    /// Output format of --normalize [default: json].
    #[arg(
        short = 'f',
        long,
        value_enum,
        value_name = "FORMAT",
        requires = "normalize"
    )]
    pub format: Option<TableFormat>,

    /// Print only the number of selected records.
    #[arg(short = 'c', long)]
    pub count: bool,

    /// Print these values of each selected record instead of its bytes: tab-separated,
    /// strings raw (like jq -r), missing or null values empty, objects and arrays as
    /// compact JSON (a path with `*`: the array of its values).
    #[arg(short = 'p', long = "print", value_name = "PATH[,PATH]",
          conflicts_with_all = ["count", "normalize"])]
    pub print: Vec<String>,

    /// With --print, end each record's line with NUL instead of a newline.
    #[arg(short = '0', long = "null", requires = "print")]
    pub null: bool,

    /// Stop after N selected records.
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<u64>,

    #[command(flatten)]
    pub child: ChildArgs,
}

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

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Output format [default: text on a terminal, else json].
    #[arg(short = 'f', long, value_enum, value_name = "FORMAT")]
    pub format: Option<TableFormat>,

    /// Also break the totals down by this key (a `groups` list in JSON; the rows in csv;
    /// in text, the header lines and this table only).
    #[arg(long, value_enum, value_name = "KEY")]
    pub by: Option<GroupBy>,

    /// Read the PATHs as JSON stats written by `ndjq stats -f json --mergeable` and
    /// combine them, in order, into what one run over all their inputs gives.
    #[arg(long)]
    pub merge: bool,

    /// With -f json, also write the merge `state` that --merge needs (most of the bytes
    /// on a large tree); without it the JSON is the report alone.
    #[arg(long)]
    pub mergeable: bool,

    /// Answer from the incremental cache that `ndjq statusline` keeps ($XDG_CACHE_HOME/ndjq,
    /// else ~/.cache/ndjq): only the bytes appended since the last run are read; the
    /// figures are the same. Diagnostics are counted in the report, not shown one by one.
    #[arg(long, conflicts_with_all = ["merge", "follow", "rejects", "no_cache"])]
    pub cache: bool,

    /// Read every input (the default; overrides --cache).
    #[arg(long)]
    pub no_cache: bool,

    #[command(flatten)]
    pub figures: FigureArgs,

    #[command(flatten)]
    pub live: LiveArgs,

    #[command(flatten)]
    pub child: ChildArgs,
}

/// What `stats` and `report` count: the prices and the time range.
#[derive(Debug, Args)]
pub struct FigureArgs {
    /// A price table in LiteLLM's format (model_prices_and_context_window.json) to
    /// estimate costs with, instead of the built-in snapshot. Never fetched: a local file.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub pricing: Option<PathBuf>,

    /// Which costs count: the agents' reported costs, estimates from token counts at the
    /// table's prices, or auto (each session's reported cost, else its estimate).
    #[arg(long, value_enum, value_name = "MODE", default_value = "auto")]
    pub cost: CostArg,

    /// Only records at or after this time: RFC 3339, or a date (YYYY-MM-DD, YYYYMMDD) in
    /// the --timezone. A record without a time has its input's last one.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Only records at or before this time (a date means the whole day).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// The time zone days, weeks, months and blocks are counted in, and dates in --since
    /// and --until read in: an IANA name (Europe/Paris), UTC [default: the system's].
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
}

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

/// `ndjq statusline`: the JSON Claude Code pipes to a status line command on stdin, one
/// line on stdout.
#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// The line, with these placeholders: {model}, {session_cost} (Claude Code's figure,
    /// else the logs'), {today_cost} (every agent's logs, today), {block} (the 5-hour
    /// window: the plan's used % and reset when Claude Code sends them, else ndjq's block
    /// with its cost, time left and burn rate), {seven_day}, {context} (context window
    /// used), {dir} (the working folder's name); `{{` and `}}` for braces [default: the
    /// non-empty ones of model, session cost, today, block, context, joined by ` · `].
    #[arg(long, value_name = "TEMPLATE")]
    pub format: Option<String>,

    /// When to colour the line: auto (always, as Claude Code shows colours, unless
    /// NO_COLOR is set; CLICOLOR_FORCE forces it), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorArg,

    /// Read every log again instead of answering from the cache
    /// ($XDG_CACHE_HOME/ndjq, else ~/.cache/ndjq), and leave the cache as it is.
    #[arg(long)]
    pub no_cache: bool,

    /// Delete the cache folder and exit (it is rebuilt on the next run).
    #[arg(long)]
    pub clear_cache: bool,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page into DIR (created if missing): ndjq.1 and one ndjq-COMMAND.1 per
    /// command, instead of printing ndjq.1 on stdout.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    Text,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupBy {
    Session,
    Model,
    Tool,
    Type,
    File,
    Day,
    /// ISO weeks, named by their Monday.
    Week,
    Month,
    /// The session's working directory.
    Project,
    /// Claude's 5-hour billing windows (a block starts at the hour of the first activity
    /// after the last block).
    Block,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CostArg {
    Reported,
    Estimated,
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    Text,
    Json,
    Csv,
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeverityArg {
    Error,
    Warning,
    Info,
}

/// A `--dialect` name: clap reads the names from the dialect registry
/// ([`Dialect::LISTED`]), so a new dialect needs no line here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialectName(pub Dialect);

/// The registry's dialects as clap values, built once at compile time.
const DIALECT_NAMES: &[DialectName] = &{
    let mut out = [DialectName(Dialect::LISTED[0]); Dialect::LISTED.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = DialectName(Dialect::LISTED[i]);
        i += 1;
    }
    out
};

impl ValueEnum for DialectName {
    fn value_variants<'a>() -> &'a [Self] {
        DIALECT_NAMES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

/// Parses `4096`, `64K`, `100M`, `1G` (powers of 1024; a trailing `B`/`iB` is allowed).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size like 4096, 64K, 100M or 1G"))?;
    let bytes = n
        .checked_mul(1usize << shift)
        .ok_or_else(|| format!("`{s}` is too large"))?;
    if bytes == 0 {
        return Err("the size must be at least 1 byte".to_string());
    }
    Ok(bytes)
}

/// The most worker threads `-j` takes. Past a few per core more threads only add memory
/// (each holds blocks in flight) and contention; a number far past it is a typo, and one
/// the system cannot start would fail half-way (see docs/REFERENCE.md).
pub const MAX_THREADS: usize = 1024;

/// Parses `-j`: 0 (one per core) up to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of threads (0 to {MAX_THREADS})"))?;
    if n > MAX_THREADS as u64 {
        return Err(format!(
            "{n} threads is more than the {MAX_THREADS} ndjq starts; 0 means one per core"
        ));
    }
    Ok(n as usize)
}

/// Parses seconds: `5`, `0.5`, `2s`, `250ms`.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (number, scale) = match t.strip_suffix("ms") {
        Some(n) => (n, 0.001),
        None => (t.strip_suffix('s').unwrap_or(t), 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 && n * scale <= 1e9 => {
            Ok(Duration::from_secs_f64(n * scale))
        }
        _ => Err(format!(
            "`{s}` is not a number of seconds like 5, 0.5 or 250ms"
        )),
    }
}

/// Parses `N/SECS`, e.g. `5/60`.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || format!("`{s}` is not N/SECS, like 5/60 (5 invalid records within 60 s)");
    let (n, secs) = s.split_once('/').ok_or_else(bad)?;
    let errors: u32 = n.trim().parse().map_err(|_| bad())?;
    if errors == 0 {
        return Err("N must be at least 1".to_string());
    }
    let window = parse_seconds(secs).map_err(|_| bad())?;
    Ok(Rate { errors, window })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn seconds_and_rates_parse() {
        assert_eq!(parse_seconds("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_seconds("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("soon").is_err());
        assert_eq!(
            parse_rate("5/60"),
            Ok(Rate {
                errors: 5,
                window: Duration::from_secs(60)
            })
        );
        assert!(parse_rate("5").is_err());
        assert!(parse_rate("0/60").is_err());
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("100M"), Ok(100 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert!(parse_size("ten").is_err());
        assert!(parse_size("0").is_err());
    }
}
