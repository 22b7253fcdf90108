//! What a toy record tells the gap trackers: its session runs from `toy.start` to
//! `toy.end`; `toy.call` opens a call that `toy.done` closes (failed by
//! [`super::call_failed`]).

use crate::dialect::RecordInfo;
use crate::gaps::{put, session_record, Op};
use crate::json::Json;

pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let ty = info.ty.unwrap_or_default();
    if ty == "toy.start" {
        ops.push(Op::Init);
        if let Some(id) = value.str("session") {
            ops.push(Op::SessionStart { id: put(text, id) });
        }
        ops.push(Op::Open { replace: false });
        return false;
    }
    session_record(info.ty, Some("toy.start"), ops, text);
    match ty {
        "toy.call" => {
            if let Some(id) = value.str("id") {
                ops.push(Op::OpenTool {
                    id: put(text, id),
                    name: put(text, value.str("tool").unwrap_or("?")),
                });
            }
        }
        "toy.done" => {
            if let Some(id) = value.str("id") {
                ops.push(Op::CloseTool {
                    id: put(text, id),
                    failed: super::call_failed(value),
                });
            }
        }
        "toy.end" => ops.push(Op::End(None)),
        _ => {}
    }
    false
}
