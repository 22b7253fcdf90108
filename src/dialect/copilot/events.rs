//! The events of Copilot CLI's stream (docs/REFERENCE.md, "Events of the other agents"):
//! messages, tool requests and executions (an execution an error by
//! [`super::execution_failed`]), its `result`.

use crate::event::{Body, Context, Emit};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::Json;
use std::io;

/// The events of one record (the agent's reader, as [`crate::event::MapFn`]).
pub(in crate::dialect) fn map(
    _cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = v.str("type").unwrap_or_default();
    let data = v.get("data");
    let at = |k: &str| data.and_then(|d| d.str(k));
    match ty {
        "session.start" | "session.resume" => emit(
            &o.event(Body::Init {
                model: at("selectedModel").or_else(|| at("model")),
                cwd: data
                    .and_then(|d| d.path(&["context", "cwd"]))
                    .and_then(|c| c.as_str()),
                tools: None,
                permission_mode: None,
            }),
        ),
        "user.message" => emit(&o.event(Body::User {
            uuid: v.str("id"),
            text: Text::from(at("content").unwrap_or_default()),
        })),
        "assistant.message" => {
            let message_id = at("messageId");
            if let Some(text) = at("content").filter(|t| !t.is_empty()) {
                emit(&o.event(Body::Text {
                    uuid: v.str("id"),
                    message_id,
                    text: Text::from(text),
                }))?;
            }
            if let Some(requests) = data.and_then(|d| d.get("toolRequests")) {
                let mut result = Ok(());
                requests.for_each_element(|r| {
                    if result.is_ok() {
                        result = emit(&o.event(Body::ToolUse {
                            id: r.str("toolCallId"),
                            name: r.str("name"),
                            input: r.get("arguments").map(Nested::Json),
                        }));
                    }
                });
                result?;
            }
            match data.and_then(|d| d.count("outputTokens")) {
                Some(output) => emit(&o.event(Body::Usage(Usage {
                    message_id,
                    model: at("model"),
                    output: Some(output),
                    ..Usage::default()
                }))),
                None => Ok(()),
            }
        }
        "assistant.reasoning" => emit(&o.event(Body::Thinking {
            text: Text::from(at("content").unwrap_or_default()),
        })),
        "tool.execution_complete" => {
            let failed = super::execution_failed(data);
            let content = data.and_then(|d| {
                d.path(&["result", "content"])
                    .or_else(|| d.path(&["error", "message"]))
                    .or_else(|| d.get("result"))
            });
            emit(&o.event(Body::ToolResult {
                tool_use_id: at("toolCallId"),
                is_error: failed,
                content: content.map(Nested::Json),
            }))
        }
        "session.error" | "abort" => emit(&o.event(Body::System {
            subtype: Some("error"),
            message: at("message").or_else(|| at("reason")),
            model: None,
        })),
        "session.model_change" | "session.tools_updated" => emit(&o.event(Body::System {
            subtype: Some(ty),
            message: None,
            model: at("model").or_else(|| at("newModel")),
        })),
        "result" => {
            let code = v.get("exitCode").and_then(|c| c.as_f64());
            let failed = code.is_none_or(|c| c != 0.0);
            emit(
                &o.event(Body::Result(Outcome {
                    success: !failed,
                    is_error: failed,
                    subtype: Some(if failed { "error" } else { "success" }),
                    duration_ms: v
                        .path(&["usage", "sessionDurationMs"])
                        .and_then(|v| v.as_count()),
                    ..Outcome::default()
                })),
            )
        }
        // Deltas repeat the message that follows; turn marks and the rest are framing.
        _ => Ok(()),
    }
}
