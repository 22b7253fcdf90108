//! The events of `codex exec --json` (docs/REFERENCE.md, "Normalized events").
//!
//! `thread.started` is `init` (the thread id is the session, carried to the records after
//! it). A tool item (command_execution, mcp_tool_call, file_change, web_search) is one
//! `tool_use` (at `item.started`, or at `item.completed` when no start was seen) and one
//! `tool_result` at `item.completed`. `agent_message` is `text` (its item id as
//! `message_id`), `reasoning` is `thinking`, an `error` item or a top-level `error` line (a
//! retry notice) is `system`/`error` with a `message`, other item types are `system` with
//! the item type as subtype. `turn.completed` gives a `usage` and a `result`; `turn.failed`
//! a failed `result` whose `text` is the error message.

use crate::event::{tool_content, Body, CappedSet, Context, Emit, EventReader};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::{Json, Kind};
use std::borrow::Cow;
use std::io;

/// The exec stream, with the tool items of the input started and not completed (at most
/// [`MAX_OPEN_ITEMS`](crate::event::MAX_OPEN_ITEMS)).
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::dialect) struct Exec {
    /// Tool calls whose `tool_use` was emitted and whose completion has not come.
    open_items: CappedSet,
}

impl EventReader for Exec {
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
fn map(cx: &mut Exec, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    match v.str("type").unwrap_or_default() {
        "thread.started" => {
            // Item ids restart with every process, and so with every thread.started.
            cx.open_items.clear();
            emit(&o.event(Body::Init {
                model: None,
                cwd: None,
                tools: None,
                permission_mode: None,
            }))
        }
        "item.started" => {
            let Some(item) = v.get("item") else {
                return Ok(());
            };
            let Some((name, input)) = tool(item) else {
                return Ok(());
            };
            let id = item.str("id");
            if let Some(id) = id {
                if !cx.open_items.insert(id) {
                    return Ok(());
                }
            }
            emit(&o.event(Body::ToolUse { id, name, input }))
        }
        "item.completed" => match v.get("item") {
            Some(item) => item_completed(cx, o, item, emit),
            None => Ok(()),
        },
        "turn.completed" => {
            let usage = v.get("usage");
            let at = |k: &str| usage.and_then(|u| u.count(k));
            emit(&o.event(Body::Usage(Usage {
                message_id: None,
                model: None,
                input: input(at),
                output: at("output_tokens"),
                cache_creation: at("cache_write_input_tokens"),
                cache_read: at("cached_input_tokens"),
            })))?;
            emit(&o.event(Body::Result(Outcome {
                success: true,
                input: input(at),
                output: at("output_tokens"),
                per_turn: true,
                ..Outcome::default()
            })))
        }
        "turn.failed" => emit(
            &o.event(Body::Result(Outcome {
                success: false,
                is_error: true,
                text: v
                    .path(&["error", "message"])
                    .and_then(|m| m.as_str())
                    .map(Cow::Borrowed),
                ..Outcome::default()
            })),
        ),
        "error" => emit(&o.event(Body::System {
            subtype: Some("error"),
            message: v.str("message"),
            model: None,
        })),
        _ => Ok(()),
    }
}

fn item_completed(
    cx: &mut Exec,
    o: Origin<'_>,
    item: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id = item.str("id");
    let ty = item.str("type").unwrap_or_default();
    if let Some((name, input)) = tool(item) {
        let started = id.is_some_and(|id| cx.open_items.remove(id));
        if !started {
            emit(&o.event(Body::ToolUse { id, name, input }))?;
        }
        let failed = super::item_failed(item);
        let content = match ty {
            "command_execution" => item.get("aggregated_output").map(Nested::Json),
            "mcp_tool_call" => match item.get("error").filter(|e| e.kind() != Kind::Null) {
                Some(e) => Some(Nested::Json(e.get("message").unwrap_or(e))),
                None => item
                    .get("result")
                    .filter(|r| r.kind() != Kind::Null)
                    .map(|r| match r.get("content") {
                        Some(c) => tool_content(c),
                        None => Nested::Json(r),
                    }),
            },
            _ => None,
        };
        return emit(&o.event(Body::ToolResult {
            tool_use_id: id,
            is_error: failed,
            content,
        }));
    }
    let body = match ty {
        "agent_message" => Body::Text {
            uuid: None,
            message_id: id,
            text: Text::of(item.get("text")),
        },
        "reasoning" => Body::Thinking {
            text: Text::of(item.get("text")),
        },
        "error" => Body::System {
            subtype: Some("error"),
            message: item.str("message"),
            model: None,
        },
        "" => return Ok(()),
        other => Body::System {
            subtype: Some(other),
            message: None,
            model: None,
        },
    };
    emit(&o.event(body))
}

/// The name and input of a Codex exec tool item, or `None` for other items.
fn tool(item: Json<'_>) -> Option<(Option<&str>, Option<Nested<'_>>)> {
    let name = super::tool_name(item)?;
    Some(match item.str("type")? {
        "command_execution" => (
            Some(name),
            item.get("command").map(|c| Nested::Wrapped("command", c)),
        ),
        "mcp_tool_call" => (Some(name), item.get("arguments").map(Nested::Json)),
        "file_change" => (Some("file_change"), item.get("changes").map(Nested::Json)),
        "web_search" => (
            Some("web_search"),
            item.get("query")
                .map(|q| Nested::Wrapped("query", q))
                .or_else(|| item.get("action").map(Nested::Json)),
        ),
        _ => return None,
    })
}

/// Codex's `input_tokens` includes its cached part (`cached_input_tokens`): the part not
/// read from cache, so `input` means the same for every agent (as in `stats`); the rollouts'
/// counts too.
pub(in crate::dialect) fn input(at: impl Fn(&str) -> Option<u64>) -> Option<u64> {
    at("input_tokens").map(|i| i.saturating_sub(at("cached_input_tokens").unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use crate::event::tests::events;

    #[test]
    fn codex_tools_are_used_once_per_item_and_sessions_carry() {
        let input = concat!(
            r#"{"type":"thread.started","thread_id":"th"}"#,
            "\n",
            r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"ls","status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"x","exit_code":2,"status":"failed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"s","tool":"search","arguments":{"q":1},"result":{"content":[{"type":"text","text":"r"}]},"error":null,"status":"completed"}}"#,
            "\n",
            r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                "init@1 s=th",
                r#"tool_use@2 s=th id=Some("item_1") name=Some("command_execution") input={"command":"ls"}"#,
                r#"tool_result@3 s=th id=Some("item_1") err=true content="x""#,
                r#"tool_use@4 s=th id=Some("item_2") name=Some("search") input={"q":1}"#,
                r#"tool_result@4 s=th id=Some("item_2") err=false content="r""#,
                r#"result@5 s=th ok=false err=true text=Some("boom")"#,
            ]
        );
    }
}
