//! `qwen`: Qwen Code `--output-format stream-json`, and `qwen-log`, its session logs
//! (`~/.qwen/projects/<cwd>/chats/<session>.jsonl`).
//!
//! The stream is Claude Code's shape (QwenLM/qwen-code,
//! `packages/cli/src/nonInteractive/types.ts`; real captures of Qwen Code 0.24.4): it is
//! told apart by its `system/init`, which carries `qwen_code_version`. Its records are
//! checked as Claude's. Differences that matter downstream: `usage.input_tokens` includes
//! the cached part (OpenAI's `prompt_tokens`), `system/retry` notices, and a failure is a
//! `result/error_during_execution` with `is_error` and an `error{message}`.
//!
//! The session log is Claude's transcript shape (`uuid`, `parentUuid`, `sessionId`,
//! `timestamp`, `type`) with Gemini's message parts: `message{role, parts[]}`, a
//! `provenance`, `usageMetadata{promptTokenCount, candidatesTokenCount,
//! cachedContentTokenCount, thoughtsTokenCount}` on assistant lines, `tool_result` lines
//! with `toolCallResult`, and `system` lines (`ui_telemetry`, `attribution_snapshot`).

pub(super) mod events;
pub(super) mod gaps;

use super::agent::{self, Agent, Cli, StatsReader};
use super::check_value;
use super::facts::{at, claude_shaped, from_prompt, Fact};
use super::texts;
use super::Head;
use super::{claude, expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::input::LogFolder;
use crate::json::Json;
use crate::stats::{Key, Tokens};
use std::ffi::{OsStr, OsString};
use std::path::Path;

pub(super) const KNOWN_TYPES: &[&str] = claude::KNOWN_TYPES;

pub(super) const LOG_KNOWN_TYPES: &[&str] = &["user", "assistant", "system", "tool_result"];

/// Decisive: the init (or any record) naming `qwen_code_version`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    ty == Some("system") && obj.has("qwen_code_version") && obj.has("session_id")
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    claude::check(obj, head, p);
}

/// Decisive for the log: transcript keys together with Gemini-style message parts or the
/// `provenance` Claude's transcripts never have.
/// Also the per-session usage summary Qwen Code writes beside its chats
/// (`{version, sessionId, project, models{…}, tools{…}}`, no type).
pub(super) fn recognises_log(obj: Json<'_>, ty: Option<&str>) -> bool {
    obj.has("sessionId")
        && ((obj.has("uuid")
            && (obj.has("provenance") || obj.path(&["message", "parts"]).is_some()))
            || (ty.is_none() && obj.has("project") && obj.has("models")))
}

pub(super) fn check_log(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    expect(obj, "sessionId", Want::Str, true, p);
    expect(obj, "uuid", Want::Str, true, p);
    check_value(head.timestamp, "timestamp", Want::Str, true, p);
    match ty {
        "user" | "assistant" | "tool_result" => {
            expect(obj, "message", Want::Obj, true, p);
            expect(obj, "message.parts", Want::Arr, true, p);
            expect(obj, "usageMetadata", Want::Obj, false, p);
        }
        "system" => expect(obj, "subtype", Want::Str, false, p),
        _ => {}
    }
}

/// Whether a `qwen-log` tool result (its `toolCallResult`) reports a failure: a status
/// other than `success`, or a non-zero `resultDisplay.exitCode`. The rule `stats`,
/// `events` and `gaps` all use.
pub(crate) fn log_tool_result_failed(result: Json<'_>) -> bool {
    result.str("status").is_some_and(|s| s != "success")
        || super::nonzero(result.path(&["resultDisplay", "exitCode"]))
}

// ---- CLI knowledge: the `qwen` program ----

/// The program names Qwen Code runs as.
pub(super) const PROGRAMS: &[&str] = &["qwen"];

/// Resumes with `--resume ID` (an existing `--resume`/`-r`/`--session-id` and
/// `--continue` dropped).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    let valued: &[&[u8]] = &[b"--resume", b"-r", b"--session-id"];
    super::argv::with_resume_flag(program, args, valued, &[b"--continue"], id)
}

/// The stats facts of a Qwen Code stream record: Claude's shape ([`claude_shaped`]); each
/// assistant message's `usage` (`input_tokens` includes the cached part). The `result`'s
/// `usage`, converted the same way, is the session's billed totals (as a Claude result's:
/// it also counts calls no message shows, such as the memory extraction after a text-only
/// turn; the difference goes to the session's last model).
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    claude_shaped(v, ty, result_tokens, f);
}

/// A Qwen `result`'s `usage`, where it has integer input tokens.
fn result_tokens(u: Json<'_>) -> Option<Tokens> {
    u.count("input_tokens")?;
    let cached = at(u, &["cache_read_input_tokens"]);
    Some(from_prompt(
        at(u, &["input_tokens"]),
        cached,
        at(u, &["output_tokens"]),
    ))
}

/// The stats facts of a Qwen Code session-log record: `usageMetadata` of assistant lines
/// (`promptTokenCount` includes `cachedContentTokenCount`; `thoughtsTokenCount` apart),
/// `functionCall` parts and the `toolCallResult` of tool_result lines.
pub(crate) fn log_facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    // The per-session usage summary (no type) repeats the chats' totals: not counted.
    let Some(ty) = ty else { return };
    if let Some(s) = v.str("sessionId") {
        f(Fact::Session(s));
    }
    match ty {
        "assistant" => {
            if let (Some(id), Some(u)) = (
                v.str("uuid"),
                v.get("usageMetadata").filter(Json::is_object),
            ) {
                let thoughts = at(u, &["thoughtsTokenCount"]);
                f(Fact::Usage {
                    key: Key::of(&["qwen message", id]),
                    model: v.str("model"),
                    tokens: Tokens {
                        reasoning_output: thoughts,
                        ..from_prompt(
                            at(u, &["promptTokenCount"]),
                            at(u, &["cachedContentTokenCount"]),
                            at(u, &["candidatesTokenCount"]).saturating_add(thoughts),
                        )
                    },
                });
            }
            if let Some(parts) = v.path(&["message", "parts"]) {
                parts.for_each_element(|p| {
                    let Some(call) = p.get("functionCall") else {
                        return;
                    };
                    if let Some(id) = call.str("id") {
                        f(Fact::ToolCall {
                            key: Key::of(&[id]),
                            name: call.str("name").unwrap_or("(unknown)"),
                        });
                    }
                });
            }
        }
        "tool_result" => {
            let Some(r) = v.get("toolCallResult") else {
                return;
            };
            let failed = log_tool_result_failed(r);
            if let (true, Some(id)) = (failed, r.str("callId")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        _ => {}
    }
}

/// Qwen Code's stream is Claude's messages, its usage counting the cached input inside
/// `input_tokens`, its shell results telling a failure by their text.
static SHAPE: claude::ClaudeShape = claude::ClaudeShape {
    reads_messages: true,
    top: false,
    input_includes_cache: true,
    result_text_tells_failure: true,
};

/// The `qwen` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "qwen",
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
    inherits_context: true,
    events: Some(|| Box::new(crate::event::Stateless(events::stream))),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops: claude::stream_gap_ops,
    input_end: InputEnd::SessionResult,
    texts: claude::texts::messages,
    tools: claude::tool_blocks,
    log_folders: agent::no_log_folders,
    cli: Some(Cli {
        programs: PROGRAMS,
        resume,
        // Claude's stream shape: its init and result tell a supervisor the same.
        run_facts: super::claude::run_facts,
    }),
};

/// The tool calls of a session log's Gemini-style `message.parts`: a call's `functionCall`
/// and its `functionResponse`, each by id and tool (`filter --tool`).
fn log_tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if let Some(parts) = value.get("message").and_then(|m| m.get("parts")) {
        parts.for_each_element(|part| {
            if let Some(call) = part
                .get("functionCall")
                .or_else(|| part.get("functionResponse"))
            {
                f(call.str("id"), call.str("name"));
            }
        });
    }
}

/// Where Qwen Code keeps its session logs: a `chats` folder in each project of
/// `~/.qwen/projects` and of `~/.qwen/tmp`.
fn log_folders(
    _set: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
    out: &mut Vec<LogFolder>,
) {
    if let Some(h) = home {
        for root in [".qwen/projects", ".qwen/tmp"] {
            out.push(LogFolder::per_project("Qwen Code", h.join(root), "chats"));
        }
    }
}

/// The `qwen-log` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static LOG_AGENT: Agent = Agent {
    name: "qwen-log",
    known_types: LOG_KNOWN_TYPES,
    knows: None,
    recognises: recognises_log,
    check: check_log,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::session_id_camel,
    claude: None,
    carries_session: true,
    inherits_context: false,
    events: Some(|| Box::new(crate::event::Stateless(events::map))),
    stats: StatsReader {
        read: |v, top, s| s.facts(log_facts, v, top),
        claude_fields: false,
    },
    gap_ops: gaps::log_ops,
    input_end: InputEnd::Nothing,
    texts: texts::all_strings,
    tools: log_tools,
    log_folders,
    cli: None,
};

#[cfg(test)]
mod tests {
    use crate::dialect::argv::os;
    use crate::supervisor::resume_command;
    use std::ffi::OsStr;

    #[test]
    fn qwen_resumes_with_the_new_id_for_any_old_resume() {
        let run = |program: &str, args: &[&str]| {
            resume_command(None, OsStr::new(program), &os(args), "S", None)
        };
        assert_eq!(
            run("/usr/bin/qwen", &["-p", "go", "--continue", "--resume=old"]),
            Some(os(&["/usr/bin/qwen", "-p", "go", "--resume", "S"]))
        );
    }
}
