//! The events of OpenCode's `run --format json` stream (docs/REFERENCE.md, "Normalized
//! events"): text, reasoning, a tool part (tool_use, and its result once completed, an
//! error by [`super::tool_failed`]), `step_finish` usage and, with reason `stop`, a result;
//! `error` a failed result. The store's records (docs/REFERENCE.md, "OpenCode's store"):
//! a user message's text parts are the user's; a `tool` part is a `tool_use` part; each
//! assistant message gives its usage (with its model), and a failed one a failed result;
//! a `step-finish` with reason `stop` gives the result, its usage counted at its message.

use crate::event::{sum_some, Body, Context, Emit};
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
    let at = |k: &str| part.and_then(|p| p.str(k));
    let ty = v.str("type").unwrap_or_default();
    match ty {
        "text" if v.str("role") == Some("user") => emit(&o.event(Body::User {
            uuid: at("id"),
            text: Text::from(at("text").unwrap_or_default()),
        })),
        "text" => emit(&o.event(Body::Text {
            uuid: at("id"),
            message_id: at("messageID"),
            text: Text::from(at("text").unwrap_or_default()),
        })),
        "reasoning" => emit(&o.event(Body::Thinking {
            text: Text::from(at("text").unwrap_or_default()),
        })),
        "tool_use" | "tool" => {
            let Some(part) = part else { return Ok(()) };
            let state = part.get("state");
            let id = part.str("callID");
            emit(&o.event(Body::ToolUse {
                id,
                name: part.str("tool"),
                input: state.and_then(|s| s.get("input")).map(Nested::Json),
            }))?;
            let status = state.and_then(|s| s.str("status"));
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
        "assistant" => {
            let message = v.get("message");
            let tokens = message.and_then(|m| m.get("tokens"));
            if tokens.is_some() {
                emit(&o.event(Body::Usage(usage(
                    tokens,
                    message.and_then(|m| m.str("id")),
                    message.and_then(|m| m.str("modelID")),
                ))))?;
            }
            match super::store_error(v) {
                Some(error) => failed(&o, error, emit),
                None => Ok(()),
            }
        }
        "step_finish" | "step-finish" => {
            if ty == "step_finish" {
                let tokens = part.and_then(|p| p.get("tokens"));
                emit(&o.event(Body::Usage(usage(tokens, at("messageID"), None))))?;
            }
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
        "error" => match v.get("error") {
            Some(error) => failed(&o, error, emit),
            None => emit(&o.event(Body::Result(Outcome {
                success: false,
                is_error: true,
                subtype: Some("error"),
                ..Outcome::default()
            }))),
        },
        _ => Ok(()),
    }
}

/// The usage event of an OpenCode `tokens` object.
fn usage<'a>(
    tokens: Option<Json<'a>>,
    message_id: Option<&'a str>,
    model: Option<&'a str>,
) -> Usage<'a> {
    let t = |path: &[&str]| tokens.and_then(|t| t.path(path)).and_then(|v| v.as_count());
    Usage {
        message_id,
        model,
        input: t(&["input"]),
        output: sum_some(t(&["output"]), t(&["reasoning"])),
        cache_creation: t(&["cache", "write"]),
        cache_read: t(&["cache", "read"]),
    }
}

/// The failed result of an error (`{name, data{message}}`).
fn failed(o: &Origin<'_>, error: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    let message = error
        .path(&["data", "message"])
        .and_then(|m| m.as_str())
        .or_else(|| error.str("name"));
    emit(&o.event(Body::Result(Outcome {
        success: false,
        is_error: true,
        subtype: error.str("name").or(Some("error")),
        text: message.map(Cow::Borrowed),
        ..Outcome::default()
    })))
}
