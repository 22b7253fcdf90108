//! The command line, as clap parses it. These structs only parse; `config` validates and
//! resolves them. The `///` comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};
pub use clap_complete::Shell;
use ndjq::dialect::Dialect;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

mod completions;
mod events;
mod filter;
mod gaps;
mod man;
mod report;
mod run;
mod stats;
mod statusline;
mod validate;

pub use completions::*;
pub use events::*;
pub use filter::*;
pub use gaps::*;
pub use man::*;
pub use report::*;
pub use run::*;
pub use stats::*;
pub use statusline::*;
pub use validate::*;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
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
