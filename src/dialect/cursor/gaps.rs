//! What a Cursor `tool_call` record tells the gap trackers: `started` opens the call,
//! `completed` closes it (failed by [`super::tool_call_failed`]). Cursor's other records
//! are Claude's shape (`claude::gaps::stream`).

use crate::dialect::RecordInfo;
use crate::gaps::{put, Op};
use crate::json::Json;

/// Cursor's tool_call started/completed.
pub(in crate::dialect) fn tool_call(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    if info.ty != Some("tool_call") {
        return;
    }
    let Some(id) = value.str("call_id") else {
        return;
    };
    let mut name = None;
    let mut failed = false;
    if let Some(call) = value.get("tool_call") {
        call.for_each_entry(|k, inner| {
            if name.is_none() {
                name = Some(k.strip_suffix("ToolCall").unwrap_or(k));
                failed = super::tool_call_failed(inner.get("result"));
            }
        });
    }
    match info.subtype {
        Some("started") => ops.push(Op::OpenTool {
            id: put(text, id),
            name: put(text, name.unwrap_or("?")),
        }),
        Some("completed") => ops.push(Op::CloseTool {
            id: put(text, id),
            failed,
        }),
        _ => {}
    }
}
