//! The events of a toy record: `toy.start` an init, `toy.say` text, `toy.call` a tool
//! use, `toy.done` its result (an error by [`super::call_failed`]), `toy.usage` usage and
//! `toy.end` a successful result.

use crate::event::{Body, Context, Emit, Nested, Origin, Outcome, Text, Usage};
use crate::json::Json;
use std::io;

pub(in crate::dialect) fn map(
    _cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let body = match v.str("type").unwrap_or_default() {
        "toy.start" => Body::Init {
            model: v.str("model"),
            cwd: None,
            tools: None,
            permission_mode: None,
        },
        "toy.say" => Body::Text {
            uuid: None,
            message_id: None,
            text: Text::from(v.str("text").unwrap_or_default()),
        },
        "toy.call" => Body::ToolUse {
            id: v.str("id"),
            name: v.str("tool"),
            input: v.get("input").map(Nested::Json),
        },
        "toy.done" => Body::ToolResult {
            tool_use_id: v.str("id"),
            is_error: super::call_failed(v),
            content: v.get("output").map(Nested::Json),
        },
        "toy.usage" => Body::Usage(Usage {
            message_id: v.str("id"),
            model: v.str("model"),
            input: v.count("input"),
            output: v.count("output"),
            ..Usage::default()
        }),
        "toy.end" => Body::Result(Outcome {
            success: true,
            ..Outcome::default()
        }),
        _ => return Ok(()),
    };
    emit(&o.event(body))
}
