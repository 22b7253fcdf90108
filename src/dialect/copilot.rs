//! `copilot`: GitHub Copilot CLI `--output-format json`.
//!
//! Lines are session events `{type, data, id, timestamp, parentId, ephemeral?}` with dotted
//! types (`session.*`, `user.message`, `assistant.turn_start`, `assistant.message`,
//! `assistant.message_delta`, `tool.execution_start`, `tool.execution_complete`, …), and the
//! run ends with `{type: "result", sessionId, exitCode, usage{premiumRequests,
//! totalApiDurationMs, sessionDurationMs, codeChanges}}`. The model is named in
//! `session.tools_updated.data.model` and on `assistant.message` / tool completions. A new
//! event of a known family (`assistant.something_new`) is known: the dotted suffix plays
//! the part of a subtype.

pub(super) mod events;

use super::agent::{Agent, StatsReader};
use super::check_value;
use super::facts::Fact;
use super::texts;
use super::Head;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::input::LogFolder;
use crate::json::Json;
use crate::stats::{Key, Tokens};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "session.start",
    "session.resume",
    "session.error",
    "session.idle",
    "session.info",
    "session.model_change",
    "session.mcp_servers_loaded",
    "session.tools_updated",
    "session.task_complete",
    "session.usage_info",
    "session.shutdown",
    "user.message",
    "assistant.turn_start",
    "assistant.intent",
    "assistant.reasoning",
    "assistant.reasoning_delta",
    "assistant.message",
    "assistant.message_delta",
    "assistant.turn_end",
    "assistant.usage",
    "tool.user_requested",
    "tool.execution_start",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.execution_complete",
    "subagent.started",
    "subagent.completed",
    "subagent.failed",
    "hook.start",
    "hook.end",
    "system.message",
    "abort",
    "result",
];

/// The event families whose new members are known all the same.
const FAMILIES: &[&str] = &[
    "session.",
    "user.",
    "assistant.",
    "tool.",
    "subagent.",
    "hook.",
    "system.",
    "skill.",
];

/// Whether `ty` is a known type or a member of a known family.
pub(super) fn knows(ty: &str) -> bool {
    KNOWN_TYPES.contains(&ty) || FAMILIES.iter().any(|f| ty.starts_with(f))
}

/// Decisive: a dotted event of a Copilot family with its `data` object and `id`, or the
/// final `result` with `exitCode`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    let Some(ty) = ty else { return false };
    if ty == "result" {
        return obj.has("exitCode") && obj.has("sessionId");
    }
    ty.contains('.')
        && FAMILIES.iter().any(|f| ty.starts_with(f))
        && obj.get("data").is_some_and(|d| d.is_object())
        && obj.has("id")
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    if ty == "result" {
        expect(obj, "sessionId", Want::Str, true, p);
        expect(obj, "exitCode", Want::Num, true, p);
        expect(obj, "usage", Want::Obj, false, p);
        return;
    }
    expect(obj, "data", Want::Obj, true, p);
    expect(obj, "id", Want::Str, true, p);
    check_value(head.timestamp, "timestamp", Want::Str, true, p);
    match ty {
        "assistant.message" => {
            expect(obj, "data.messageId", Want::Str, false, p);
            expect(obj, "data.content", Want::Str, false, p);
            expect(obj, "data.toolRequests", Want::Arr, false, p);
            expect(obj, "data.outputTokens", Want::Count, false, p);
        }
        "tool.execution_start" | "tool.execution_complete" => {
            expect(obj, "data.toolCallId", Want::Str, true, p);
        }
        "user.message" => expect(obj, "data.content", Want::Str, false, p),
        _ => {}
    }
}

/// Whether a `tool.execution_complete`'s `data` reports a failure (`success: false`). The
/// rule `stats`, `events` and `gaps` all use.
pub(crate) fn execution_failed(data: Option<Json<'_>>) -> bool {
    data.and_then(|d| d.get("success"))
        .and_then(|s| s.as_bool())
        == Some(false)
}

/// The stats facts of a Copilot CLI record: `assistant.message` `outputTokens` (the only
/// count it prints), the model the session changes to, tool executions, and the
/// `result`'s `sessionDurationMs`.
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    let data = v.get("data");
    let data_str = |k: &str| data.and_then(|d| d.str(k));
    match ty {
        Some("session.tools_updated" | "session.model_change" | "session.start") => {
            if let Some(m) = data_str("model")
                .or_else(|| data_str("newModel"))
                .or_else(|| data_str("selectedModel"))
            {
                f(Fact::Model(m));
            }
        }
        Some("assistant.message") => {
            if let (Some(id), Some(out)) = (
                data_str("messageId"),
                data.and_then(|d| d.count("outputTokens")),
            ) {
                f(Fact::Usage {
                    key: Key::of(&["copilot message", id]),
                    model: data_str("model"),
                    tokens: Tokens {
                        output: out,
                        ..Tokens::default()
                    },
                });
            }
        }
        Some("tool.execution_start") => {
            if let Some(id) = data_str("toolCallId") {
                f(Fact::ToolCall {
                    key: Key::of(&[id]),
                    name: data_str("toolName").unwrap_or("(unknown)"),
                });
            }
        }
        Some("tool.execution_complete") => {
            let failed = execution_failed(data);
            if let (true, Some(id)) = (failed, data_str("toolCallId")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        Some("result") => {
            if let Some(s) = v.str("sessionId") {
                f(Fact::Session(s));
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: v
                    .path(&["usage", "sessionDurationMs"])
                    .and_then(|v| v.as_count()),
                turns: None,
            });
        }
        _ => {}
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// Only the final `result` names the session (its `sessionId`).
fn named_session(v: Json<'_>) -> Option<&str> {
    match v.str("type") {
        Some("result") => v.str("sessionId"),
        _ => None,
    }
}

/// The tool call of a tool execution's start or end, by its `toolCallId` and
/// `toolName` (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if matches!(
        value.str("type"),
        Some("tool.execution_start" | "tool.execution_complete")
    ) {
        let data = value.get("data");
        f(
            data.and_then(|d| d.str("toolCallId")),
            data.and_then(|d| d.str("toolName")),
        );
    }
}

/// Where Copilot CLI keeps its sessions: `$COPILOT_HOME/session-state`, else
/// `~/.copilot/session-state`.
fn log_folders(
    set: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
    out: &mut Vec<LogFolder>,
) {
    match set("COPILOT_HOME") {
        Some(dir) => out.push(LogFolder::whole(
            "Copilot CLI",
            PathBuf::from(dir).join("session-state"),
        )),
        None => {
            if let Some(h) = home {
                out.push(LogFolder::whole(
                    "Copilot CLI",
                    h.join(".copilot/session-state"),
                ));
            }
        }
    }
}

/// The `copilot` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "copilot",
    known_types: KNOWN_TYPES,
    knows: Some(knows),
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session,
    claude: None,
    carries_session: true,
    inherits_context: true,
    events: Some(|| Box::new(crate::event::Stateless(events::map))),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::SessionResult,
    texts: texts::all_strings,
    tools,
    log_folders,
    cli: None,
};
