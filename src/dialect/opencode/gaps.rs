//! What an OpenCode record tells the gap trackers: there is no init and no result, so a
//! run is open from its first record to a `step_finish` that ends it ([`super::ends_run`])
//! or an `error` (a failure); a `tool_use` part states its call ([`Op::ToolState`]): opened once, closed once
//! `completed` or `error` (failed by [`super::tool_failed`]), never opened again after.

use crate::dialect::RecordInfo;
use crate::gaps::{put, session_error, session_record, Op};
use crate::json::Json;

/// OpenCode: no init and no result; a run ends at its last step or an error.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let ty = info.ty.unwrap_or_default();
    // OpenCode has no init: every record belongs to the run it names.
    session_record(info.ty, None, ops, text);
    match ty {
        "tool_use" | "tool" => {
            let part = value.get("part");
            let id = part.and_then(|p| p.str("callID"));
            let Some(id) = id else { return false };
            let name = part.and_then(|p| p.str("tool")).unwrap_or("?");
            let state = part.and_then(|p| p.get("state"));
            let status = state.and_then(|s| s.str("status"));
            // A part is printed again as its state changes: each line states the call
            // whole, opened once and closed once (as Gemini's rewritten messages).
            let ended =
                matches!(status, Some("completed" | "error")).then(|| super::tool_failed(state));
            ops.push(Op::ToolState {
                id: put(text, id),
                name: put(text, name),
                ended,
            });
        }
        "error" | "assistant" if ty == "error" || super::store_error(value).is_some() => {
            let e = value.get("error").or_else(|| super::store_error(value));
            let message = e
                .and_then(|e| e.path(&["data", "message"]))
                .and_then(|m| m.as_str())
                .or_else(|| e.and_then(|e| e.str("name")))
                .unwrap_or("error");
            ops.push(Op::End(Some(put(text, &session_error(message)))));
        }
        _ if super::ends_run(value, ty) => ops.push(Op::End(None)),
        _ => {}
    }
    false
}
