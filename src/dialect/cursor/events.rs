//! The events of Cursor's stream (docs/REFERENCE.md, "Normalized events"): its messages
//! map as Claude's, plus `tool_call` started/completed (a completed call an error by
//! [`super::tool_call_failed`]) and joined `thinking` deltas.

use crate::dialect::claude::events as claude;
use crate::event::{Body, Context, Emit};
use crate::event::{Nested, Origin, Outcome};
use crate::json::Json;
use std::io;

/// The events of one record (the agent's reader, as [`crate::event::MapFn`]).
pub(in crate::dialect) fn map(
    cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = v.str("type").unwrap_or_default();
    if ty == "thinking" {
        if let Some(chunk) = v.str("text") {
            cx.push_text(o, true, chunk, emit)?;
        }
        if v.str("subtype") == Some("completed") {
            cx.flush_text(emit)?;
        }
        return Ok(());
    }
    cx.flush_text(emit)?;
    match ty {
        "tool_call" => {
            let Some(call) = v.get("tool_call") else {
                return Ok(());
            };
            // {"<name>ToolCall": {args, result}}: the one key names the tool.
            let mut named = None;
            call.for_each_entry(|k, inner| {
                if named.is_none() {
                    named = Some((k, inner));
                }
            });
            let Some((key, inner)) = named else {
                return Ok(());
            };
            let name = key.strip_suffix("ToolCall").unwrap_or(key);
            let id = v.str("call_id");
            match v.str("subtype") {
                Some("started") => emit(&o.event(Body::ToolUse {
                    id,
                    name: Some(name),
                    input: inner.get("args").map(Nested::Json),
                })),
                Some("completed") => {
                    let res = inner.get("result");
                    let failure = res.and_then(|r| r.get("failure").or_else(|| r.get("error")));
                    let success = res.and_then(|r| r.get("success"));
                    emit(&o.event(Body::ToolResult {
                        tool_use_id: id,
                        is_error: super::tool_call_failed(res),
                        content: failure.or(success).or(res).map(Nested::Json),
                    }))
                }
                _ => Ok(()),
            }
        }
        "connection" | "retry" => emit(&o.event(Body::System {
            subtype: Some(ty),
            message: claude::system_message(v).or_else(|| v.str("subtype")),
            model: None,
        })),
        "result" => emit(&o.event(Body::Result(result(v)))),
        _ => claude::map(cx, o, v, &super::SHAPE, emit),
    }
}

/// A Cursor `result`: Claude's, with `usage{inputTokens, outputTokens}`.
fn result(v: Json<'_>) -> Outcome<'_> {
    let mut outcome = claude::result(v);
    let usage = v.get("usage");
    outcome.input = outcome
        .input
        .or_else(|| usage.and_then(|u| u.count("inputTokens")));
    outcome.output = outcome
        .output
        .or_else(|| usage.and_then(|u| u.count("outputTokens")));
    outcome
}
