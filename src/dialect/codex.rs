//! `codex`: `codex exec --json` (testdata/corpus/SCHEMA-NOTES.md §3): thread, turn, item events.

pub(super) mod events;

use super::agent::{self, Agent, Cli, StatsReader};
use super::Head;
use super::RunFacts;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::json::Json;

/// `stats`: this agent's records into the stats store.
pub(super) mod stats;
use std::ffi::{OsStr, OsString};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
];

/// Decisive: a thread, turn or item event (a bare `error` alone is not enough).
pub(super) fn recognises(_obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_some_and(|t| {
        KNOWN_TYPES.contains(&t) && t != "error"
            || t.starts_with("thread.")
            || t.starts_with("turn.")
            || t.starts_with("item.")
    })
}

/// The token counts of a Codex usage object (exec `usage`, rollout `total_token_usage`).
pub(super) const CODEX_COUNTS: [&str; 5] = [
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "cache_write_input_tokens",
];

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    match ty {
        "thread.started" => expect(obj, "thread_id", Want::Str, true, p),
        "turn.completed" => {
            expect(obj, "usage", Want::Obj, true, p);
            super::check_counts(obj.get("usage"), "usage", CODEX_COUNTS, p);
        }
        "turn.failed" => {
            expect(obj, "error", Want::Obj, true, p);
            expect(obj, "error.message", Want::Str, false, p);
        }
        "item.started" | "item.updated" | "item.completed" => {
            expect(obj, "item", Want::Obj, true, p);
            expect(obj, "item.id", Want::Str, true, p);
            expect(obj, "item.type", Want::Str, true, p);
        }
        "error" => expect(obj, "message", Want::Str, true, p),
        _ => {}
    }
}

/// The tool an `item.completed` / `item.started` item is, by the name `stats`, `events`
/// and `gaps` all give it: its item type, an MCP call by its tool; `None` for an item that
/// is no tool call (a message, reasoning, a to-do list).
pub(crate) fn tool_name(item: Json<'_>) -> Option<&str> {
    match item.get("type")?.as_str()? {
        t @ ("command_execution" | "file_change" | "web_search") => Some(t),
        "mcp_tool_call" => Some(item.str("tool").unwrap_or("mcp_tool_call")),
        _ => None,
    }
}

/// Whether a completed tool item failed: status `failed`, a non-zero `exit_code`, or an
/// MCP `error` (the one rule every command uses; docs/REFERENCE.md, "One meaning
/// everywhere").
pub(crate) fn item_failed(item: Json<'_>) -> bool {
    item.str("status") == Some("failed")
        || item
            .get("exit_code")
            .and_then(|c| c.as_f64())
            .is_some_and(|c| c != 0.0)
        || item
            .get("error")
            .is_some_and(|e| e.kind() != crate::json::Kind::Null)
}

// ---- CLI knowledge: the `codex` program ----

/// The program names Codex runs as.
pub(super) const PROGRAMS: &[&str] = &["codex"];

/// Resumes with `exec resume ID` before the prompt (a resumed run's old `resume ID`
/// dropped).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    let mut argv = vec![program.to_os_string()];
    let exec = args
        .iter()
        .position(|a| a == "exec" || a == "e")
        .unwrap_or(args.len());
    argv.extend(args[..exec].iter().cloned());
    argv.push("exec".into());
    let mut rest: Vec<OsString> = args.get(exec + 1..).unwrap_or_default().to_vec();
    // Resuming a resumed run: its old `resume ID` goes.
    if let Some(r) = rest.iter().position(|a| a == "resume") {
        let end = (r + 2).min(rest.len());
        rest.drain(r..end);
    }
    let prompt_at = prompt_index(&rest).unwrap_or(rest.len());
    rest.splice(prompt_at..prompt_at, [OsString::from("resume"), id.into()]);
    argv.extend(rest);
    argv
}

/// Where the prompt of `codex exec [OPTIONS] [PROMPT]` is: the last argument when it is
/// not an option nor an option's value.
fn prompt_index(rest: &[OsString]) -> Option<usize> {
    const TAKES_VALUE: &[&str] = &[
        "-m",
        "--model",
        "-c",
        "--config",
        "-p",
        "--profile",
        "-s",
        "--sandbox",
        "-C",
        "--cd",
        "-i",
        "--image",
        "--output-schema",
        "-o",
        "--output-last-message",
        "--color",
        "--add-dir",
        "--local-provider",
    ];
    let last = rest.len().checked_sub(1)?;
    let arg = rest[last].to_str()?;
    if arg.starts_with('-') {
        return None;
    }
    if last > 0 {
        let before = rest[last - 1].to_str().unwrap_or("");
        if TAKES_VALUE.contains(&before) {
            return None;
        }
    }
    Some(last)
}

/// `thread.started` begins a session (its `thread_id`); `turn.started` begins a turn;
/// `turn.completed` and `turn.failed` end the run.
pub(super) fn run_facts<'a>(obj: Json<'a>, ty: &str, _subtype: Option<&str>) -> RunFacts<'a> {
    let mut facts = RunFacts::default();
    match ty {
        "thread.started" => {
            facts.session = obj.str("thread_id");
            facts.begins = true;
        }
        "turn.started" => facts.begins = true,
        "turn.completed" | "turn.failed" => facts.ends = true,
        _ => {}
    }
    facts
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// The human text of its records (`filter --grep`).
pub(super) mod texts;

/// Only `thread.started` names the session (its `thread_id`).
fn named_session(v: Json<'_>) -> Option<&str> {
    match v.str("type") {
        Some("thread.started") => v.str("thread_id"),
        _ => None,
    }
}

/// The tool call of an exec item (`item.started`, `item.completed`), by the name `events`
/// and `stats` give it (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if matches!(value.str("type"), Some("item.started" | "item.completed")) {
        if let Some(item) = value.get("item") {
            if let Some(name) = tool_name(item) {
                f(item.str("id"), Some(name));
            }
        }
    }
}

/// The `codex` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "codex",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: true,
    named_session,
    claude: None,
    carries_session: true,
    inherits_context: true,
    events: Some(|| Box::<events::Exec>::default()),
    stats: StatsReader {
        read: stats::read,
        claude_fields: false,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::Process {
        turn_ends: gaps::TURN_ENDS,
    },
    texts: texts::each,
    tools,
    log_folders: agent::no_log_folders,
    cli: Some(Cli {
        programs: PROGRAMS,
        resume,
        run_facts,
    }),
};

#[cfg(test)]
mod tests {
    use crate::dialect::argv::os;
    use crate::dialect::Dialect;
    use crate::supervisor::resume_command;
    use std::ffi::OsStr;

    #[test]
    fn codex_resumes_with_exec_resume_before_the_prompt() {
        let args = os(&["exec", "--json", "-m", "o3", "fix it"]);
        let argv = resume_command(None, OsStr::new("codex"), &args, "t-9", None);
        assert_eq!(
            argv,
            Some(os(&[
                "codex", "exec", "--json", "-m", "o3", "resume", "t-9", "fix it"
            ]))
        );
        // No prompt: the id goes last; an old resume is replaced.
        let args = os(&["exec", "--json", "resume", "t-1"]);
        let argv = resume_command(
            Dialect::parse("codex"),
            OsStr::new("codex"),
            &args,
            "t-2",
            None,
        );
        assert_eq!(
            argv,
            Some(os(&["codex", "exec", "--json", "resume", "t-2"]))
        );
        // A model name is an option's value, not a prompt.
        let args = os(&["exec", "-m", "o3"]);
        let argv = resume_command(
            Dialect::parse("codex"),
            OsStr::new("codex"),
            &args,
            "t",
            None,
        );
        assert_eq!(
            argv,
            Some(os(&["codex", "exec", "-m", "o3", "resume", "t"]))
        );
    }
}
