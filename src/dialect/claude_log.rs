//! `claude-log`: Claude Code session transcripts (`~/.claude/projects/<slug>/*.jsonl`,
//! subagent files under `<session>/subagents/`).
//!
//! The first key is usually `parentUuid`; `summary` and `file-history-snapshot` lines carry
//! no session id at all (testdata/corpus/SCHEMA-NOTES.md §2). Session logs grow new types
//! over time; the ones seen in real captures are known here.

use super::agent::{self, Agent, StatsReader};
use super::{check_value, expect, SchemaProblem, Want};
use super::{ClaudeTop, Head};
use crate::gaps::InputEnd;
use crate::input::LogFolder;
use crate::json::Json;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "cost-state",
    "custom-title",
    "last-prompt",
    "tools-used",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "atis-latch",
];

/// Decisive: camel-case transcript keys, or a type only transcripts have.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    obj.has("sessionId")
        || obj.has("parentUuid")
        || matches!(
            ty,
            Some("summary" | "file-history-snapshot" | "queue-operation" | "progress")
        )
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    match ty {
        "user" | "assistant" => {
            // One walk over the record's (many) keys for the four checked, not one each:
            // every line of a transcript is checked.
            let [session, uuid, message, cost] = match head.claude {
                Some(c) => [
                    c.get(obj, ClaudeTop::SESSION_ID_CAMEL),
                    c.get(obj, ClaudeTop::UUID),
                    c.get(obj, ClaudeTop::MESSAGE),
                    c.get(obj, ClaudeTop::COST_USD),
                ],
                None => obj.get_many(["sessionId", "uuid", "message", "costUSD"]),
            };
            check_value(session, "sessionId", Want::Str, true, p);
            check_value(uuid, "uuid", Want::Str, true, p);
            check_value(message, "message", Want::Obj, true, p);
            if ty == "assistant" {
                check_value(cost, "costUSD", Want::Cost, false, p);
                let usage = message.and_then(|m| m.get("usage"));
                super::check_counts(usage, "message.usage", super::claude::CLAUDE_COUNTS, p);
            }
        }
        "summary" => expect(obj, "summary", Want::Str, true, p),
        _ => {}
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// Where Claude Code keeps its transcripts, as ccusage looks for them: each entry of a
/// comma-separated `CLAUDE_CONFIG_DIR` has a `projects` folder, else
/// `$XDG_CONFIG_HOME/claude` (or `~/.config/claude`) and `~/.claude` do.
fn log_folders(
    set: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
    out: &mut Vec<LogFolder>,
) {
    match set("CLAUDE_CONFIG_DIR") {
        Some(dirs) => {
            for dir in dirs.to_string_lossy().split(',').map(str::trim) {
                if !dir.is_empty() {
                    out.push(LogFolder::whole(
                        "Claude Code",
                        Path::new(dir).join("projects"),
                    ));
                }
            }
        }
        None => {
            let config = set("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".config")));
            if let Some(config) = config {
                out.push(LogFolder::whole(
                    "Claude Code",
                    config.join("claude/projects"),
                ));
            }
            if let Some(h) = home {
                out.push(LogFolder::whole("Claude Code", h.join(".claude/projects")));
            }
        }
    }
}

/// The `claude-log` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "claude-log",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: true,
    named_session: agent::session_id_camel,
    claude: Some(&super::claude::SHAPE),
    carries_session: true,
    inherits_context: false,
    events: Some(|| Box::new(super::claude::events::Claude)),
    stats: StatsReader {
        read: super::claude::stats::read,
        claude_fields: true,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::Nothing,
    texts: super::claude::texts::messages,
    tools: super::claude::tool_blocks,
    log_folders,
    cli: None,
};
