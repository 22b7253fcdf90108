//! The arguments and examples of `ndjq filter`.

use super::*;

pub(super) const FILTER_EXAMPLES: &[Example] = &[
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
