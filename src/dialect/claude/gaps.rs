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

#[cfg(test)]
mod tests {
    //! The stream reader through the trackers, in one pass and in blocks.

    use crate::diagnostic::Code;
    use crate::gaps::testing::{replayed, tracked};

    /// Facts collected in blocks of any size and replayed give the findings of one pass,
    /// excerpts included: the operations a block leaves out (a session start checked
    /// again, a session opened again) and the records without any (only counted, for the
    /// detection window of the sequence field) change nothing.
    #[test]
    fn facts_replayed_in_blocks_find_what_one_pass_finds() {
        let claude =
            |ty: &str, rest: &str| format!("{{\"type\":\"{ty}\",\"session_id\":\"s\"{rest}}}\n");
        let tool_use = |id: &str| {
            claude(
                "assistant",
                &format!(
                    ",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{{}}}}]}}"
                ),
            )
        };
        let tool_result = |id: &str, error: bool| {
            claude(
                "user",
                &format!(
                    ",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"is_error\":{error},\"content\":\"{}\"}}]}}",
                    "out ".repeat(80)
                ),
            )
        };
        let text_message = claude(
            "assistant",
            ",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}",
        );
        // A stream without its init, sessions ended in errors, orphans, repeated answers.
        let mut stream = String::new();
        for i in 0..40 {
            stream += &text_message;
            stream += &tool_use(&format!("toolu_{i}"));
            match i % 5 {
                0 => stream += &tool_result(&format!("toolu_{i}"), true),
                1 => stream += &tool_result(&format!("toolu_x{i}"), false),
                2 => {
                    stream += &tool_result(&format!("toolu_{i}"), false);
                    stream += &tool_result(&format!("toolu_{i}"), true);
                }
                3 => {}
                _ => stream += &tool_result(&format!("toolu_{i}"), false),
            }
            // Sessions ended, then begun again by an init or by the next message.
            if i % 7 == 6 {
                stream += &claude("result", ",\"subtype\":\"error_during_execution\"");
            }
            if i % 14 == 6 {
                stream += &claude(
                    "system",
                    &format!(",\"subtype\":\"init\",\"session_id\":\"s{i}\""),
                );
            }
        }
        // Ended, then begun again by a message: open at the end.
        stream += &claude("result", ",\"subtype\":\"success\"");
        stream += &text_message;
        stream += &text_message;
        // Sequence numbers after records without any: within the detection window, and
        // past it (not looked for any more).
        let numbered = |skip: usize| {
            let mut t = "{\"a\":1}\n".repeat(skip);
            for n in [1, 2, 5, 5, 3, 9] {
                t += &format!("{{\"seq\":{n}}}\n");
            }
            t
        };
        let inputs = [
            (stream, None),
            (numbered(10), None),
            (numbered(63), None),
            (numbered(64), None),
            (numbered(70), None),
            (numbered(70), Some("seq")),
        ];
        for (text, seq_field) in &inputs {
            let want = tracked(text, *seq_field);
            for chunk in [1, 2, 3, 5, 8, 13, 64, 1000] {
                assert_eq!(replayed(text, chunk, *seq_field), want, "blocks of {chunk}");
            }
        }
        // The stream's findings carry excerpts cut from the facts' copy of each record.
        let stream = tracked(&inputs[0].0, None);
        assert!(stream.iter().any(|f| f.3.ends_with('…')), "{stream:?}");
        assert!(stream.len() > 40, "{stream:?}");
        let last = inputs[0].0.lines().count() as u64 - 1;
        assert!(stream.contains(&(
            last,
            Code::SessNoResult,
            format!("session that began at line {last} has no result (stream ended)"),
            String::new()
        )));
        // Found within the window, not past it, and always with the field named.
        assert_eq!(tracked(&inputs[2].0, None).len(), 4);
        assert!(tracked(&inputs[3].0, None).is_empty());
        assert_eq!(tracked(&inputs[5].0, Some("seq")).len(), 4);
    }
}
