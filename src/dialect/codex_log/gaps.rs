//! What a Codex rollout record tells the gap trackers: a function call opens a tool call,
//! its output closes it (failed by the Codex rule, [`super::tool_output::failed`]).

use crate::dialect::RecordInfo;
use crate::gaps::{put, seq_op, Op, SEQ_FIELDS};
use crate::json::Json;

/// Codex rollouts: `response_item` calls and their outputs, by `call_id`. One walk over the
/// record's keys finds its sequence candidates and its payload.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let [seq, sequence, event_id, payload] =
        value.get_many([SEQ_FIELDS[0], SEQ_FIELDS[1], SEQ_FIELDS[2], "payload"]);
    seq_op([seq, sequence, event_id], ops);
    if info.ty != Some("response_item") {
        return true;
    }
    let Some(payload) = payload else {
        return true;
    };
    let [ty, name, call_id, output] = payload.get_many(["type", "name", "call_id", "output"]);
    let Some(id) = call_id.and_then(|c| c.as_str()) else {
        return true;
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
    true
}
