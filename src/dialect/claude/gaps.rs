//! What a Claude-shaped record tells the gap trackers (`gaps`, `validate --gaps`; the
//! vocabulary is `crate::gaps::Op`): the session of a stream (`system`/`init` … `result`,
//! Qwen Code's and Cursor's too) and the `tool_use` / `tool_result` blocks of messages
//! (streams and transcripts).

use crate::diagnostic::printable;
use crate::dialect::{Dialect, RecordInfo};
use crate::gaps::{put, seq_op, Name, NoInit, Op, SEQ_FIELDS};
use crate::json::{Json, Kind};

/// A Claude-shaped stream's record: its session, then its message's tool blocks. One walk
/// over the record's keys finds its sequence candidates and its message (this runs for
/// every record; docs/PERFORMANCE.md, "Context across blocks").
pub(in crate::dialect) fn stream(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    let [seq, sequence, event_id, message] =
        value.get_many([SEQ_FIELDS[0], SEQ_FIELDS[1], SEQ_FIELDS[2], "message"]);
    seq_op([seq, sequence, event_id], ops);
    session(info, value, ops, text);
    tools(info, message, ops, text);
}

/// Claude stream-json sessions (and Qwen's, Cursor's): system/init … result. An error
/// result is a subtype `error_*`, `is_error: true` (even under `success`), or a non-null
/// `api_error_status`.
fn session(info: &RecordInfo<'_>, value: Json<'_>, ops: &mut Vec<Op>, text: &mut String) {
    let ty = info.ty.unwrap_or_default();
    let subtype = info.subtype.unwrap_or_default();
    if ty == "system" && subtype == "init" {
        ops.push(Op::Init);
        if let Some(id) = value.str("session_id") {
            ops.push(Op::SessionStart { id: put(text, id) });
        }
        ops.push(Op::Open { replace: false });
        return;
    }
    let ty: &'static str = match ty {
        "assistant" => "assistant",
        "user" => "user",
        "result" => "result",
        "stream_event" => "stream_event",
        _ => return,
    };
    ops.push(Op::NoInit(NoInit {
        ty: Name::Known(ty),
        start: "system/init",
    }));
    ops.push(Op::Open { replace: false });
    if ty != "result" {
        return;
    }
    let mut why = Vec::new();
    if subtype.starts_with("error") {
        why.push(format!("subtype `{}`", printable(subtype)));
    }
    let [is_error, api_error_status] = value.get_many(["is_error", "api_error_status"]);
    if is_error.and_then(|v| v.as_bool()) == Some(true) {
        if why.is_empty() {
            why.push(format!("is_error true (subtype `{}`)", printable(subtype)));
        } else {
            why.push("is_error true".to_string());
        }
    }
    if let Some(status) = api_error_status {
        if status.kind() != Kind::Null {
            why.push(format!("api_error_status {}", status.to_compact_string()));
        }
    }
    let error =
        (!why.is_empty()).then(|| format!("the session ended in an error: {}", why.join(", ")));
    ops.push(Op::End(error.map(|e| put(text, &e))));
}

/// tool_use / tool_result content blocks (Claude stream-json and transcripts) of a
/// record's `message`; a result failed by [`super::tool_result_failed_given`].
pub(in crate::dialect) fn tools(
    info: &RecordInfo<'_>,
    message: Option<Json<'_>>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    let ty = info.ty.unwrap_or_default();
    if ty != "assistant" && ty != "user" {
        return;
    }
    let Some(content) = message.and_then(|m| m.get("content")) else {
        return;
    };
    if content.kind() != Kind::Array {
        return;
    }
    let text_tells = info
        .dialect
        .and_then(Dialect::claude_shape)
        .is_some_and(|c| c.result_text_tells_failure);
    content.for_each_element(|block| {
        // One walk over the block for the fields either kind needs.
        let [ty, id, name, use_id, is_error] =
            block.get_many(["type", "id", "name", "tool_use_id", "is_error"]);
        match ty.and_then(|t| t.as_str()) {
            Some("tool_use") => {
                if let Some(id) = id.and_then(|v| v.as_str()) {
                    let name = name.and_then(|v| v.as_str()).unwrap_or("?");
                    ops.push(Op::OpenTool {
                        id: put(text, id),
                        name: put(text, name),
                    });
                }
            }
            Some("tool_result") => {
                if let Some(id) = use_id.and_then(|v| v.as_str()) {
                    let failed = super::tool_result_failed_given(is_error, block, text_tells);
                    ops.push(Op::CloseTool {
                        id: put(text, id),
                        failed,
                    });
                }
            }
            _ => {}
        }
    });
}
