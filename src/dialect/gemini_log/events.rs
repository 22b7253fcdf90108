//! The events of Gemini CLI's session logs (`gemini-log`; docs/REFERENCE.md, "Normalized
//! events"): a message written again whole (same `id`) is mapped once, its tool calls once
//! each, and a call's result once, where the call has ended ([`super::tool_call_ended`]),
//! an error by [`super::tool_call_failed`].

use crate::dialect::gemini::events::{log_input, log_output};
use crate::event::{Body, CappedSet, Context, Emit, EventReader};
use crate::event::{Nested, Origin, Text, Usage};
use crate::json::Json;
use std::io;

/// The session log, with the entries of the input already mapped (at most
/// [`MAX_OPEN_ITEMS`](crate::event::MAX_OPEN_ITEMS)): the log writes an entry again whole when it changes.
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::dialect) struct Log {
    seen: CappedSet,
}

impl EventReader for Log {
    fn map<'a>(
        &mut self,
        _cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        map(self, o, v, emit)
    }
}

/// The events of one record.
fn map(cx: &mut Log, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(ty) = v.str("type") else {
        if v.has("projectHash") {
            return emit(&o.event(Body::Init {
                model: None,
                cwd: None,
                tools: None,
                permission_mode: None,
            }));
        }
        if let Some(to) = v.get("$rewindTo") {
            return emit(&o.event(Body::System {
                subtype: Some("rewind"),
                message: to.as_str(),
                model: None,
            }));
        }
        return Ok(());
    };
    let id = v.str("id");
    match ty {
        "user" => {
            let Some(content) = v.get("content") else {
                return Ok(());
            };
            if let Some(text) = content.as_str() {
                return emit(&o.event(Body::User {
                    uuid: id,
                    text: Text::from(text),
                }));
            }
            // Function responses repeat the tool results of the `gemini` line before.
            let mut result = Ok(());
            content.for_each_element(|part| {
                if let (Ok(()), Some(text)) = (&result, part.str("text")) {
                    result = emit(&o.event(Body::User {
                        uuid: id,
                        text: Text::from(text),
                    }));
                }
            });
            result
        }
        "gemini" => {
            // A message is written again whole when it changes: each part once.
            let first = id.is_none_or(|id| cx.seen.insert(&format!("m:{id}")));
            if first {
                if let Some(thoughts) = v.get("thoughts") {
                    let mut result = Ok(());
                    thoughts.for_each_element(|t| {
                        let text = t.str("description").or_else(|| t.str("subject"));
                        if let (Ok(()), Some(text)) = (&result, text) {
                            result = emit(&o.event(Body::Thinking {
                                text: Text::from(text),
                            }));
                        }
                    });
                    result?;
                }
                if let Some(text) = v.str("content").filter(|t| !t.is_empty()) {
                    emit(&o.event(Body::Text {
                        uuid: id,
                        message_id: id,
                        text: Text::from(text),
                    }))?;
                }
                if let Some(tokens) = v.get("tokens").filter(Json::is_object) {
                    let (input, cached) = log_input(tokens);
                    emit(&o.event(Body::Usage(Usage {
                        message_id: id,
                        model: v.str("model"),
                        input,
                        output: log_output(tokens),
                        cache_creation: None,
                        cache_read: cached,
                    })))?;
                }
            }
            let Some(calls) = v.get("toolCalls") else {
                return Ok(());
            };
            // Each call's use once (its first line), its result once (the first line
            // where it has ended).
            let mut fresh = Vec::new();
            calls.for_each_element(|c| {
                let cid = c.str("id");
                let new = cid.is_none_or(|cid| cx.seen.insert(&format!("t:{cid}")));
                let ended = super::tool_call_ended(c)
                    && cid.is_none_or(|cid| cx.seen.insert(&format!("r:{cid}")));
                if new || ended {
                    fresh.push((c, new, ended));
                }
            });
            for (call, new, ended) in fresh {
                let cid = call.str("id");
                if new {
                    emit(&o.event(Body::ToolUse {
                        id: cid,
                        name: call.str("name"),
                        input: call.get("args").map(Nested::Json),
                    }))?;
                }
                let output = call
                    .path(&["result", "0", "functionResponse", "response", "output"])
                    .or_else(|| {
                        call.path(&["result", "0", "functionResponse", "response", "error"])
                    });
                if ended {
                    let failed = super::tool_call_failed(call);
                    emit(
                        &o.event(Body::ToolResult {
                            tool_use_id: cid,
                            is_error: failed,
                            content: call
                                .get("resultDisplay")
                                .filter(|d| d.as_str().is_some())
                                .or(output)
                                .map(Nested::Json),
                        }),
                    )?;
                }
            }
            Ok(())
        }
        other => emit(&o.event(Body::System {
            subtype: Some(other),
            message: v.str("content"),
            model: None,
        })),
    }
}
