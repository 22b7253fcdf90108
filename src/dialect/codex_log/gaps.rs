//! What a Codex rollout record tells the gap trackers: a function call opens a tool call,
//! its output closes it (failed by the Codex rule, [`super::tool_output::failed`]).

use crate::dialect::RecordInfo;
use crate::gaps::{put, Op};
use crate::json::Json;

/// Codex rollouts: `response_item` calls and their outputs, by `call_id`.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    if info.ty != Some("response_item") {
        return false;
    }
    let Some(payload) = value.get("payload") else {
        return false;
    };
    let [ty, name, call_id, output] = payload.get_many(["type", "name", "call_id", "output"]);
    let Some(id) = call_id.and_then(|c| c.as_str()) else {
        return false;
    };
    match ty.and_then(|t| t.as_str()) {
        Some("function_call" | "custom_tool_call" | "local_shell_call") => {
            let name = name.and_then(|n| n.as_str()).unwrap_or("local_shell");
            ops.push(Op::OpenTool {
                id: put(text, id),
                name: put(text, name),
            });
        }
        Some("function_call_output" | "custom_tool_call_output" | "local_shell_call_output") => {
            ops.push(Op::CloseTool {
                id: put(text, id),
                failed: output.is_some_and(super::tool_output::failed),
            });
        }
        _ => {}
    }
    false
}
