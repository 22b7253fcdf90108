//! The command line, as clap parses it. These structs only parse; `config` validates and
//! resolves them. The `///` comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Make sense of the NDJSON streams AI coding agents write.
///
/// ndjq reads NDJSON from files, folders, or stdin; validates and classifies every line
/// (UTF-8, JSON, known type, schema); and passes records through, byte for byte, or reports
/// what is wrong with them. It understands Claude Code stream-json and session logs, codex
/// exec --json and Codex session logs, JSON-RPC, and any other NDJSON.
#[derive(Debug, Parser)]
#[command(name = "ndjq", version, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report every problem in a stream with its location; exit 1 when any is serious.
    #[command(after_help = VALIDATE_EXAMPLES)]
    Validate(ValidateArgs),
    /// Pass through the original bytes of the records that match, like grep for NDJSON.
    #[command(after_help = FILTER_EXAMPLES)]
    Filter(FilterArgs),
    /// One normalized event per content block or item: who said what, tool calls, usage.
    #[command(after_help = EVENTS_EXAMPLES)]
    Events(EventsArgs),
    /// Totals and breakdowns: records, sessions, tokens, cost, tools, errors.
    #[command(after_help = STATS_EXAMPLES)]
    Stats(StatsArgs),
}

const EVENTS_EXAMPLES: &str = "\
Examples:
  ndjq events run.ndjson                       # a readable transcript on a terminal
  ndjq events -f csv ~/.codex/sessions > events.csv
  claude -p \"hi\" --output-format stream-json --verbose | ndjq events -f text";

const STATS_EXAMPLES: &str = "\
Examples:
  ndjq stats run.ndjson                        # tokens, cost, tools, errors at a glance
  ndjq stats --by model ~/.claude/projects     # one row per model
  ndjq stats -f json shard1/ > a.json; ndjq stats -f json shard2/ > b.json
  ndjq stats --merge a.json b.json             # the same as one run over both";

const VALIDATE_EXAMPLES: &str = "\
Examples:
  ndjq validate run.ndjson                      # compiler-style report, exit 1 on errors
  ndjq validate --format github run.ndjson      # GitHub Actions annotations in CI
  ndjq validate --fail-on warning ~/.claude/projects   # stricter: warnings fail too";

const FILTER_EXAMPLES: &str = "\
Examples:
  claude -p \"fix it\" --output-format stream-json --verbose | ndjq filter --type assistant
  ndjq filter --tool Bash --rejects bad.ndjson run.ndjson   # tool traffic; save bad lines
  ndjq filter -c --type result --where is_error=true logs/  # count failed results";

/// Where records come from and how they are read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files, folders (searched for *.jsonl, *.ndjson, *.json, also .gz/.zst) or `-` for
    /// stdin. Without any, stdin is read.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

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
    pub dialect: Option<DialectArg>,

    /// Dotted path of the type field for the generic dialect.
    #[arg(long, value_name = "PATH", default_value = "type")]
    pub type_field: String,

    /// Worker threads for reading files (0: one per core). Output is the same, in the same
    /// order, whatever the number.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,

    /// Write the raw bytes of every invalid record to FILE, byte for byte.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
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
}

#[derive(Debug, Args)]
pub struct FilterArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,

    /// Records of these types (comma-separated; `system/init` also matches the subtype).
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

    /// Records where the value at a dotted path equals VALUE (JSON, or else a string);
    /// `PATH` alone: the path exists and is not null. Repeat to require several.
    #[arg(short = 'w', long = "where", value_name = "PATH=VALUE")]
    pub wheres: Vec<String>,

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

    /// Stop after N selected records.
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<u64>,
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

    /// Also break the totals down by this key (a `groups` list in JSON; the rows in csv
    /// and text).
    #[arg(long, value_enum, value_name = "KEY")]
    pub by: Option<GroupBy>,

    /// Read the PATHs as JSON stats written by `ndjq stats -f json` and combine them, in
    /// order, into what one run over all their inputs gives.
    #[arg(long)]
    pub merge: bool,

    /// A LiteLLM price table (JSON) to add `cost_usd_estimated` from token counts; models
    /// it does not price are listed. Never fetched: give a local file.
    #[arg(long, value_name = "FILE")]
    pub pricing: Option<PathBuf>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    Claude,
    ClaudeLog,
    Codex,
    CodexLog,
    Jsonrpc,
    Generic,
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

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
