//! What a Qwen Code session-log record (`qwen-log`) tells the gap trackers: a
//! `functionCall` part opens a tool call, a `functionResponse` part closes it (failed by
//! [`super::log_tool_result_failed`] on the line's `toolCallResult`), by their `id`, as
//! `events` reads them. The log has no result line: its session never lacks one.

use crate::dialect::RecordInfo;
use crate::gaps::{put, Op};
use crate::json::Json;

/// The log's message parts: calls and their responses.
pub(in crate::dialect) fn log_ops(
    _info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let Some(parts) = value.path(&["message", "parts"]) else {
        return false;
    };
    let failed = value
        .get("toolCallResult")
        .is_some_and(super::log_tool_result_failed);
    parts.for_each_element(|part| {
        if let Some(call) = part.get("functionCall") {
            if let Some(id) = call.str("id") {
                let name = call.str("name").unwrap_or("?");
                ops.push(Op::OpenTool {
                    id: put(text, id),
                    name: put(text, name),
                });
            }
        } else if let Some(response) = part.get("functionResponse") {
            if let Some(id) = response.str("id") {
                ops.push(Op::CloseTool {
                    id: put(text, id),
                    failed,
                });
            }
        }
    });
    false
}
