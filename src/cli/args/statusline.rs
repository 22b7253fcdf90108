//! The arguments and examples of `ndjq statusline`.

use super::*;

pub(super) const STATUSLINE_EXAMPLES: &[Example] = &[
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
