//! The events of OpenCode's `run --format json` stream (docs/REFERENCE.md, "Normalized
//! events"): text, reasoning, a tool part (tool_use, and its result once completed, an
//! error by [`super::tool_failed`]), `step_finish` usage and, with reason `stop`, a result;
//! `error` a failed result.

use crate::event::{str_of, sum_some, uint, Body, Context, Emit};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::Json;
use std::borrow::Cow;
use std::io;

/// The events of one record (the agent's reader, as [`crate::event::MapFn`]).
pub(in crate::dialect) fn map(
    _cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let part = v.get("part");
    let at = |k: &str| part.and_then(|p| str_of(p, k));
    match str_of(v, "type").unwrap_or_default() {
        "text" => emit(&o.event(Body::Text {
            uuid: at("id"),
            message_id: at("messageID"),
            text: Text::from(at("text").unwrap_or_default()),
        })),
        "reasoning" => emit(&o.event(Body::Thinking {
            text: Text::from(at("text").unwrap_or_default()),
        })),
        "tool_use" => {
            let Some(part) = part else { return Ok(()) };
            let state = part.get("state");
            let id = str_of(part, "callID");
            emit(&o.event(Body::ToolUse {
                id,
                name: str_of(part, "tool"),
                input: state.and_then(|s| s.get("input")).map(Nested::Json),
            }))?;
            let status = state.and_then(|s| str_of(s, "status"));
            if matches!(status, Some("completed" | "error")) {
                emit(
                    &o.event(Body::ToolResult {
                        tool_use_id: id,
                        is_error: super::tool_failed(state),
                        content: state
                            .and_then(|s| s.get("output").or_else(|| s.get("error")))
                            .map(Nested::Json),
                    }),
                )?;
            }
            Ok(())
        }
        "step_finish" => {
            let tokens = part.and_then(|p| p.get("tokens"));
            let t = |path: &[&str]| uint(tokens.and_then(|t| t.path(path)));
            emit(&o.event(Body::Usage(Usage {
                message_id: at("messageID"),
                model: None,
                input: t(&["input"]),
                output: sum_some(t(&["output"]), t(&["reasoning"])),
                cache_creation: t(&["cache", "write"]),
                cache_read: t(&["cache", "read"]),
            })))?;
            let reason = at("reason");
            if reason == Some("stop") {
                emit(&o.event(Body::Result(Outcome {
                    success: true,
                    subtype: reason,
                    cost_usd: part.and_then(|p| p.get("cost")).and_then(|c| c.as_f64()),
                    ..Outcome::default()
                })))?;
            }
            Ok(())
        }
        "error" => {
            let error = v.get("error");
            let message = error
                .and_then(|e| e.path(&["data", "message"]))
                .and_then(|m| m.as_str())
                .or_else(|| error.and_then(|e| str_of(e, "name")));
            emit(&o.event(Body::Result(Outcome {
                success: false,
                is_error: true,
                subtype: error.and_then(|e| str_of(e, "name")).or(Some("error")),
                text: message.map(Cow::Borrowed),
                ..Outcome::default()
            })))
        }
        _ => Ok(()),
    }
}
