//! What a Gemini CLI session-log record tells the gap trackers: the tool calls of its
//! `gemini` messages. A message is written again, whole, when it changes (the same `id`,
//! the last line wins), so one call comes in several lines: each line states the call
//! ([`Op::ToolState`]), which is opened once, closed once its status is final
//! ([`super::tool_call_ended`]), failed by [`super::tool_call_failed`], and never opened
//! again once closed. The log has no result line: its session never lacks one.

use crate::dialect::RecordInfo;
use crate::gaps::{put, Op};
use crate::json::Json;

/// A `gemini` message's `toolCalls`, by their `id`.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    if info.ty != Some("gemini") {
        return false;
    }
    let Some(calls) = value.get("toolCalls") else {
        return false;
    };
    calls.for_each_element(|call| {
        let Some(id) = call.str("id") else {
            return;
        };
        let name = call.str("name").unwrap_or("?");
        let ended = super::tool_call_ended(call).then(|| super::tool_call_failed(call));
        ops.push(Op::ToolState {
            id: put(text, id),
            name: put(text, name),
            ended,
        });
    });
    false
}
