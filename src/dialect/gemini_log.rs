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

use super::{expect, SchemaProblem, Want};
use crate::json::Json;

pub(super) const KNOWN_TYPES: &[&str] = &["user", "gemini", "info", "error", "warning"];

/// Decisive: the metadata line, an update line, or a `gemini` message.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    (obj.has("sessionId") && obj.has("projectHash"))
        || (ty.is_none() && (obj.has("$set") || obj.has("$rewindTo")))
        || (ty == Some("gemini") && obj.has("id") && obj.has("timestamp"))
}

pub(super) fn check(obj: Json<'_>, ty: &str, p: &mut Vec<SchemaProblem>) {
    expect(obj, "id", Want::Str, true, p);
    expect(obj, "timestamp", Want::Str, true, p);
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
    matches!(
        super::str_field(call, "status"),
        Some("error" | "cancelled")
    ) || call
        .path(&["result", "0", "functionResponse", "response", "output"])
        .and_then(|o| o.as_str())
        .is_some_and(super::output_reports_failure)
}
