//! What a `codex exec --json` record tells the gap trackers: `thread.started` starts a
//! process (a resumed run is a new one), `turn.started` … `turn.completed` / `turn.failed`
//! is the session, `item.started` … `item.completed` the items (a failed tool item by
//! [`super::item_failed`]). Top-level `error` lines are retry notices, not results.

use crate::diagnostic::printable;
use crate::dialect::RecordInfo;
use crate::gaps::{put, Name, NoInit, Op};
use crate::json::Json;

/// The records that end a turn: what a turn left open at the end of its process lacks.
pub(in crate::dialect) const TURN_ENDS: &str = "turn.completed or turn.failed";

/// codex exec: thread.started, turn.started … turn.completed / turn.failed, items.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let ty: &'static str = match info.ty.unwrap_or_default() {
        "thread.started" => {
            ops.push(Op::ProcessStart {
                turn_ends: TURN_ENDS,
            });
            return false;
        }
        "turn.started" => "turn.started",
        "turn.completed" => "turn.completed",
        "turn.failed" => "turn.failed",
        "item.started" => "item.started",
        "item.updated" => "item.updated",
        "item.completed" => "item.completed",
        _ => return false,
    };
    ops.push(Op::NoInit(NoInit {
        ty: Name::Known(ty),
        start: "thread.started",
    }));
    match ty {
        "turn.started" => ops.push(Op::Open { replace: true }),
        "turn.completed" => ops.push(Op::End(None)),
        "turn.failed" => {
            let message = value
                .get("error")
                .and_then(|e| e.str("message"))
                .map(|m| format!(": {}", printable(&m.chars().take(120).collect::<String>())))
                .unwrap_or_default();
            let message = put(text, &format!("the turn failed{message}"));
            ops.push(Op::End(Some(message)));
        }
        "item.started" => {
            let item = value.get("item");
            let id = item.and_then(|i| i.str("id"));
            if let Some(id) = id {
                let kind = item.and_then(|i| i.str("type")).unwrap_or("?");
                ops.push(Op::OpenItem {
                    id: put(text, id),
                    kind: put(text, kind),
                });
            }
        }
        "item.completed" => {
            let item = value.get("item");
            let id = item.and_then(|i| i.str("id"));
            if let Some(id) = id {
                let failed = item
                    .filter(|&i| super::item_failed(i))
                    .and_then(super::tool_name)
                    .map(|name| put(text, name));
                ops.push(Op::CloseItem {
                    id: put(text, id),
                    failed,
                });
            }
        }
        _ => {}
    }
    false
}
