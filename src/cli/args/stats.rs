//! The arguments and examples of `ndjq stats` (its figures shared with `report`).

use super::*;

pub(super) const STATS_EXAMPLES: &[Example] = &[
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
