//! What a Copilot CLI record tells the gap trackers: the session runs to its `result` (a
//! failure when `exitCode` is not 0); `tool.execution_start` / `tool.execution_complete`
//! by `toolCallId` (failed by [`super::execution_failed`]).

use crate::dialect::RecordInfo;
use crate::gaps::{put, session_error, session_record, Op};
use crate::json::Json;

/// Copilot CLI: tool executions, and the result's exit code.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let ty = info.ty.unwrap_or_default();
    session_record(info.ty, None, ops, text);
    let data = value.get("data");
    let data_str = |k: &str| data.and_then(|d| d.str(k));
    match ty {
        "tool.execution_start" => {
            if let Some(id) = data_str("toolCallId") {
                ops.push(Op::OpenTool {
                    id: put(text, id),
                    name: put(text, data_str("toolName").unwrap_or("?")),
                });
            }
        }
        "tool.execution_complete" => {
            if let Some(id) = data_str("toolCallId") {
                let failed = super::execution_failed(data);
                ops.push(Op::CloseTool {
                    id: put(text, id),
                    failed,
                });
            }
        }
        "result" => {
            let code = value.get("exitCode").and_then(|c| c.as_f64());
            let error = match code {
                Some(c) => (c != 0.0).then(|| format!("exitCode {c}")),
                None => Some("no exitCode".to_string()),
            };
            let error = error.as_deref().map(session_error);
            ops.push(Op::End(error.map(|e| put(text, &e))));
        }
        _ => {}
    }
    false
}
