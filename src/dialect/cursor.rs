//! `cursor`: Cursor CLI (`cursor-agent -p --output-format stream-json`).
//!
//! Claude-like records (`system/init`, `user`, `assistant`, `result`, all with a snake-case
//! `session_id`) plus its own types: `tool_call` (subtype `started` / `completed`, a
//! `call_id`, and `tool_call{<name>ToolCall{args, result}}`), `thinking` (subtype `delta` /
//! `completed`), `connection` and `retry`. Newer versions put `usage{inputTokens,
//! outputTokens, cacheReadTokens, cacheWriteTokens}` on `result`. Told apart from Claude
//! by its own types, or by its init: Cursor's has `apiKeySource` and no `tools` list
//! (every Claude Code init has one; a hand-made Claude init with neither stays Claude).

pub(super) mod events;

use super::agent::{self, Agent, Cli, StatsReader};
use super::facts::{at, claude_shaped, Fact};
use super::Head;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::json::Json;
use crate::stats::{Key, Tokens};
use std::ffi::{OsStr, OsString};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "system",
    "user",
    "assistant",
    "result",
    "tool_call",
    "thinking",
    "connection",
    "retry",
];

/// The types only Cursor writes.
pub(super) fn own_type(ty: Option<&str>) -> bool {
    matches!(ty, Some("tool_call" | "thinking" | "connection" | "retry"))
}

/// Decisive: one of Cursor's own types with a `session_id`, or an init with `apiKeySource`
/// and without `tools`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    if !obj.has("session_id") {
        return false;
    }
    own_type(ty)
        || (ty == Some("system")
            && obj.str("subtype") == Some("init")
            && obj.has("apiKeySource")
            && !obj.has("tools")
            && !obj.has("qwen_code_version")
            && !obj.has("claude_code_version"))
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    let session_required = !matches!(ty, "connection" | "retry");
    expect(obj, "session_id", Want::Str, session_required, p);
    match ty {
        "system" => expect(obj, "subtype", Want::Str, true, p),
        "user" | "assistant" => {
            expect(obj, "message", Want::Obj, true, p);
            expect(obj, "message.content", Want::StrOrArr, true, p);
        }
        "result" => {
            expect(obj, "subtype", Want::Str, true, p);
            expect(obj, "is_error", Want::Bool, false, p);
            expect(obj, "usage", Want::Obj, false, p);
        }
        "tool_call" => {
            expect(obj, "subtype", Want::Str, true, p);
            expect(obj, "call_id", Want::Str, false, p);
            expect(obj, "tool_call", Want::Obj, true, p);
        }
        "thinking" => expect(obj, "subtype", Want::Str, false, p),
        _ => {}
    }
}

/// Whether a completed `tool_call`'s `result` reports a failure: a `failure` or `error`
/// member, or a non-zero `success.exitCode`. The rule `stats`, `events` and `gaps` all use.
pub(crate) fn tool_call_failed(result: Option<Json<'_>>) -> bool {
    result.is_some_and(|r| r.has("failure") || r.has("error"))
        || super::nonzero(result.and_then(|r| r.path(&["success", "exitCode"])))
}

// ---- CLI knowledge: the `cursor-agent` program ----

/// The program names Cursor's CLI runs as.
pub(super) const PROGRAMS: &[&str] = &["cursor-agent"];

/// Resumes with `--resume ID` (chat id; an existing `--resume`/`-r`/`--session-id` and
/// `--continue` dropped).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    let valued: &[&[u8]] = &[b"--resume", b"-r", b"--session-id"];
    super::argv::with_resume_flag(program, args, valued, &[b"--continue"], id)
}

/// The stats facts of a Cursor record: Claude's shape ([`claude_shaped`]), its `tool_call`
/// started/completed, and `result.usage{inputTokens, outputTokens, cacheReadTokens,
/// cacheWriteTokens}` where newer versions write it (the session's billed totals, as a
/// Claude result's: Cursor prints no per-message usage).
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    claude_shaped(v, ty, result_tokens, f);
    if ty != Some("tool_call") {
        return;
    }
    let Some(id) = v.str("call_id") else {
        return;
    };
    let key = Key::of(&[id]);
    let Some(call) = v.get("tool_call") else {
        return;
    };
    let mut first = true;
    call.for_each_entry(|name, inner| {
        if !std::mem::take(&mut first) {
            return;
        }
        match v.str("subtype") {
            Some("started") => f(Fact::ToolCall {
                key,
                name: name.strip_suffix("ToolCall").unwrap_or(name),
            }),
            Some("completed") if tool_call_failed(inner.get("result")) => {
                f(Fact::ToolError { key });
            }
            _ => {}
        }
    });
}

/// A Cursor `result`'s `usage`, where newer versions print it.
fn result_tokens(u: Json<'_>) -> Option<Tokens> {
    u.count("inputTokens")?;
    Some(Tokens {
        input: at(u, &["inputTokens"]),
        output: at(u, &["outputTokens"]),
        cache_creation: at(u, &["cacheWriteTokens"]),
        cache_read: at(u, &["cacheReadTokens"]),
        ..Tokens::default()
    })
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// The human text of its records (`filter --grep`).
pub(super) mod texts;

/// Cursor's stream shares Claude's stream shape but has its own `tool_call` records and no
/// usage, so it is read on its own; only its shell results tell a failure by their text.
static SHAPE: super::claude::ClaudeShape = super::claude::ClaudeShape {
    reads_messages: false,
    top: false,
    input_includes_cache: false,
    result_text_tells_failure: true,
};

/// The `cursor` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "cursor",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::session_id,
    claude: Some(&SHAPE),
    carries_session: true,
    inherits_context: false,
    events: Some(|| Box::new(crate::event::Stateless(events::map))),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops: super::claude::stream_gap_ops,
    input_end: InputEnd::SessionResult,
    texts: texts::each,
    tools: super::claude::tool_blocks,
    log_folders: agent::no_log_folders,
    cli: Some(Cli {
        programs: PROGRAMS,
        resume,
        // Claude's stream shape: its init and result tell a supervisor the same.
        run_facts: super::claude::run_facts,
    }),
};

#[cfg(test)]
mod tests {
    use crate::dialect::argv::os;
    use crate::supervisor::resume_command;
    use std::ffi::OsStr;

    #[test]
    fn cursor_replaces_an_old_resume_with_the_new_id() {
        let run = |program: &str, args: &[&str]| {
            resume_command(None, OsStr::new(program), &os(args), "S", None)
        };
        assert_eq!(
            run("cursor-agent", &["-p", "go", "--resume", "c1"]),
            Some(os(&["cursor-agent", "-p", "go", "--resume", "S"]))
        );
    }
}
