//! What a Gemini CLI record tells the gap trackers: `init` … `result` is the session (an
//! error is a `status` other than `success`), `tool_use` / `tool_result` by `tool_id` (a
//! result failed by [`super::tool_result_failed`]: the agent says so, or the command's
//! output does); the `-o json` document is a whole session, failed when it has an `error`.

use crate::dialect::RecordInfo;
use crate::gaps::{put, session_error, session_record, Op};
use crate::json::{Json, Kind};

/// Gemini CLI: init … result, tool_use / tool_result by `tool_id`; the `-o json` document.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let str_at = |k: &str| value.str(k);
    let Some(ty) = info.ty else {
        // The `-o json` document: a whole session in one record.
        if super::is_document(value) {
            let error = value
                .get("error")
                .filter(|e| e.kind() == Kind::Object)
                .map(|e| session_error(e.str("message").unwrap_or("error")));
            ops.push(Op::Init);
            ops.push(Op::Open { replace: false });
            ops.push(Op::End(error.map(|e| put(text, &e))));
        }
        return false;
    };
    if ty == "init" {
        ops.push(Op::Init);
        ops.push(Op::Open { replace: true });
        return false;
    }
    session_record(info.ty, Some("init"), ops, text);
    match ty {
        "tool_use" => {
            if let Some(id) = str_at("tool_id") {
                ops.push(Op::OpenTool {
                    id: put(text, id),
                    name: put(text, str_at("tool_name").unwrap_or("?")),
                });
            }
        }
        "tool_result" => {
            if let Some(id) = str_at("tool_id") {
                let failed = super::tool_result_failed(value);
                ops.push(Op::CloseTool {
                    id: put(text, id),
                    failed,
                });
            }
        }
        "result" => {
            let status = str_at("status").unwrap_or("?");
            let error = (status != "success").then(|| {
                let message = value
                    .path(&["error", "message"])
                    .and_then(|m| m.as_str())
                    .unwrap_or("");
                session_error(format!("status `{status}` {message}").trim_end())
            });
            ops.push(Op::End(error.map(|e| put(text, &e))));
        }
        _ => {}
    }
    false
}
