//! The events of Qwen Code (docs/REFERENCE.md, "Normalized events"): its stream maps as
//! Claude's (usage and result `input` without its cached part, a tool result whose text
//! tells a failed command is an error); its session log (`qwen-log`) maps its Gemini-style
//! parts (text, thought, functionCall, functionResponse), a result being an error by
//! [`super::log_tool_result_failed`].

use crate::event::{sum_some, Body, Context, Emit};
use crate::event::{Nested, Origin, Text, Usage};
use crate::json::Json;
use std::io;

/// The stream: Claude's shape, read as Qwen Code writes it.
pub(in crate::dialect) fn stream(
    cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    super::claude::events::map(cx, o, v, &super::SHAPE, emit)
}

/// The events of one record (the agent's reader, as [`crate::event::MapFn`]).
pub(in crate::dialect) fn map(
    _cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let uuid = v.str("uuid");
    let ty = v.str("type").unwrap_or_default();
    if ty == "system" {
        return match v.str("subtype") {
            // Telemetry and snapshots are bookkeeping, not the conversation.
            Some("ui_telemetry" | "attribution_snapshot") | None => Ok(()),
            sub => emit(&o.event(Body::System {
                subtype: sub,
                message: None,
                model: None,
            })),
        };
    }
    let Some(parts) = v.path(&["message", "parts"]) else {
        return Ok(());
    };
    let failed = v
        .get("toolCallResult")
        .is_some_and(super::log_tool_result_failed);
    let mut result = Ok(());
    parts.for_each_element(|part| {
        if result.is_err() {
            return;
        }
        let body = if let Some(text) = part.str("text") {
            let thought = part.get("thought").and_then(|t| t.as_bool()) == Some(true);
            match ty {
                _ if thought => Body::Thinking {
                    text: Text::from(text),
                },
                "assistant" => Body::Text {
                    uuid,
                    message_id: uuid,
                    text: Text::from(text),
                },
                "user" => Body::User {
                    uuid,
                    text: Text::from(text),
                },
                _ => return,
            }
        } else if let Some(call) = part.get("functionCall") {
            Body::ToolUse {
                id: call.str("id"),
                name: call.str("name"),
                input: call.get("args").map(Nested::Json),
            }
        } else if let Some(resp) = part.get("functionResponse") {
            // The command's own output where the log keeps it apart from the wrapper
            // the model saw (`Command: …\nOutput: …\nExit Code: …`).
            let content = v
                .path(&["toolCallResult", "resultDisplay", "output"])
                .filter(|o| o.as_str().is_some())
                .or_else(|| resp.path(&["response", "output"]))
                .or_else(|| resp.path(&["response", "error"]))
                .or_else(|| resp.get("response"));
            Body::ToolResult {
                tool_use_id: resp.str("id"),
                is_error: failed,
                content: content.map(Nested::Json),
            }
        } else {
            return;
        };
        result = emit(&o.event(body));
    });
    result?;
    if let Some(u) = v.get("usageMetadata").filter(Json::is_object) {
        let at = |k: &str| u.count(k);
        let cached = at("cachedContentTokenCount");
        emit(&o.event(Body::Usage(Usage {
            message_id: uuid,
            model: v.str("model"),
            input: at("promptTokenCount").map(|p| p.saturating_sub(cached.unwrap_or(0))),
            output: sum_some(at("candidatesTokenCount"), at("thoughtsTokenCount")),
            cache_creation: None,
            cache_read: cached,
        })))?;
    }
    Ok(())
}
