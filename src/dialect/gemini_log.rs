//! `gemini-log`: Gemini CLI session logs (`~/.gemini/tmp/<hash>/chats/session-*.jsonl`).
//!
//! From the real logs of Gemini CLI 0.61.0 (testdata/other-agents/real-client): a metadata
//! line `{sessionId, projectHash, startTime, lastUpdated, kind}`, then one line per message
//! `{id, timestamp, type, content, …}` with `type` user, gemini, info, error or warning
//! (`gemini` lines carry `tokens{input, output, cached, thoughts, tool, total}`, `model`,
//! `thoughts` and `toolCalls`), and update lines without a type: `{"$set": {…}}` (fields
//! of the session replaced) and `{"$rewindTo": id}` (the conversation cut back to a
//! message). A message is written again, whole, when it changes (a `gemini` line gains its
//! `toolCalls`): the same `id` twice is one message, the last line wins.

pub(super) mod events;
pub(super) mod gaps;

use super::agent::{self, Agent, StatsReader};
use super::check_value;
use super::facts::Fact;
use super::texts;
use super::Head;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::input::LogFolder;
use crate::json::Json;
use crate::stats::Key;
use std::ffi::OsString;
use std::path::Path;

pub(super) const KNOWN_TYPES: &[&str] = &["user", "gemini", "info", "error", "warning"];

/// Decisive: the metadata line, an update line, or a `gemini` message.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    (obj.has("sessionId") && obj.has("projectHash"))
        || (ty.is_none() && (obj.has("$set") || obj.has("$rewindTo")))
        || (ty == Some("gemini") && obj.has("id") && obj.has("timestamp"))
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    expect(obj, "id", Want::Str, true, p);
    check_value(head.timestamp, "timestamp", Want::Str, true, p);
    expect(obj, "content", Want::StrOrArr, ty != "gemini", p);
    if ty == "gemini" {
        expect(obj, "tokens", Want::Obj, false, p);
        expect(obj, "tokens.input", Want::Count, false, p);
        expect(obj, "tokens.output", Want::Count, false, p);
        expect(obj, "model", Want::Str, false, p);
        expect(obj, "toolCalls", Want::Arr, false, p);
    }
}

/// Whether a session log's tool call failed: status `error` or `cancelled`, or its
/// function response's output says the command failed. The rule `stats`, `events` and
/// `gaps` all use.
pub(crate) fn tool_call_failed(call: Json<'_>) -> bool {
    matches!(call.str("status"), Some("error" | "cancelled"))
        || call
            .path(&["result", "0", "functionResponse", "response", "output"])
            .and_then(|o| o.as_str())
            .is_some_and(super::output_reports_failure)
}

/// Whether a session log's tool call has ended: its status is final (`success`, `error`,
/// `cancelled`, or any other than those of a call still under way: `validating`,
/// `scheduled`, `awaiting_approval`, `executing`), or, without a status, its function
/// response is there. A call not ended has no result yet. The rule `events` and `gaps`
/// use.
pub(crate) fn tool_call_ended(call: Json<'_>) -> bool {
    match call.str("status") {
        Some(s) => !matches!(
            s,
            "validating" | "scheduled" | "awaiting_approval" | "executing"
        ),
        None => {
            let response = call.path(&["result", "0", "functionResponse", "response"]);
            response.is_some_and(|r| r.has("output") || r.has("error"))
        }
    }
}

/// The stats facts of a Gemini CLI session-log record: each `gemini` message's `tokens`
/// (the last line of a message id wins: a message is written again when it changes), its
/// `toolCalls`.
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    match ty {
        None if v.has("projectHash") => {
            if let Some(s) = v.str("sessionId") {
                f(Fact::Session(s));
            }
        }
        Some("gemini") => {
            let id = v.str("id").unwrap_or("");
            if let Some(t) = v.get("tokens").filter(Json::is_object) {
                f(Fact::Usage {
                    key: Key::of(&["gemini message", session, id]),
                    model: v.str("model"),
                    tokens: super::gemini::model_tokens(t),
                });
            }
            if let Some(calls) = v.get("toolCalls") {
                calls.for_each_element(|c| {
                    let Some(cid) = c.str("id") else { return };
                    let key = Key::of(&[cid]);
                    f(Fact::ToolCall {
                        key,
                        name: c.str("name").unwrap_or("(unknown)"),
                    });
                    if tool_call_failed(c) {
                        f(Fact::ToolError { key });
                    }
                });
            }
        }
        _ => {}
    }
}

/// The tool calls of a `gemini` message's `toolCalls`, by id and name (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if value.str("type") == Some("gemini") {
        if let Some(calls) = value.get("toolCalls") {
            calls.for_each_element(|c| f(c.str("id"), c.str("name")));
        }
    }
}

/// Where Gemini CLI keeps its session logs: a `chats` folder in each project of
/// `~/.gemini/tmp`.
fn log_folders(
    _set: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
    out: &mut Vec<LogFolder>,
) {
    if let Some(h) = home {
        out.push(LogFolder::per_project(
            "Gemini CLI",
            h.join(".gemini/tmp"),
            "chats",
        ));
    }
}

/// The `gemini-log` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "gemini-log",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::session_id_camel,
    claude: None,
    carries_session: true,
    inherits_context: true,
    events: Some(|| Box::<events::Log>::default()),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::Nothing,
    texts: texts::all_strings,
    tools,
    log_folders,
    cli: None,
};
