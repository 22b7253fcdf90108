//! The events of Claude Code's records (docs/REFERENCE.md, "Normalized events"): its
//! stream-json (`claude`), its transcripts (`claude-log`), and the message records of the
//! agents that write Claude's shape (Qwen Code's stream, Cursor's messages).
//!
//! One event per content block. `system/init` is `init`; every other `system` record is
//! `system` with its subtype and a `message` (the first string of `content`, `summary`,
//! `message`, `error`, `status`, `operation`). Other known types (`rate_limit_event`,
//! `control_request`, and the transcript's `summary`, `file-history-snapshot`,
//! `queue-operation`, `attachment`, ...) are `system` with the type as subtype.
//! `stream_event` (partial deltas: the complete block follows on its `assistant` line),
//! `keep_alive` and the transcript's `progress` lines (hook and bash progress, up to 70% of
//! a transcript) produce nothing. Usage is deduplicated per message id: the last snapshot
//! is held and emitted when the message id changes, at a `result` record, or at the end of
//! the input; a usage without a message id is emitted on its own line. A `result` also
//! carries the result `text` (or the joined `errors`).

use super::ClaudeShape;
use crate::event::{tool_content, Body, Context, Emit, EventReader};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::{Json, Kind};
use std::borrow::Cow;
use std::io;

/// Claude's stream and transcripts: the engine's held usage is all they keep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::dialect) struct Claude;

impl EventReader for Claude {
    fn map<'a>(
        &mut self,
        cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        map(cx, o, v, &super::SHAPE, emit)
    }
}

/// The events of a record of Claude's shape, written by an agent of that `shape`: whether
/// its usage counts the cached input inside `input_tokens` and whether a tool result's text
/// tells a failure are the agent's.
pub(in crate::dialect) fn map(
    cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    shape: &ClaudeShape,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    match v.str("type").unwrap_or_default() {
        "assistant" => assistant(cx, o, v, shape.input_includes_cache, emit),
        "user" => user(o, v, shape.result_text_tells_failure, emit),
        "result" => {
            cx.flush_usage(emit)?;
            let mut outcome = result(v);
            if shape.input_includes_cache {
                // The billed totals, in the usage events' meaning (docs/REFERENCE.md,
                // "Normalized events": `input` is the input not read from cache).
                let cached = v
                    .path(&["usage", "cache_read_input_tokens"])
                    .and_then(|v| v.as_count());
                outcome.input = outcome.input.map(|i| i.saturating_sub(cached.unwrap_or(0)));
            }
            emit(&o.event(Body::Result(outcome)))
        }
        "system" if v.str("subtype") == Some("init") => emit(&o.event(Body::Init {
            model: v.str("model"),
            cwd: v.str("cwd"),
            tools: v.get("tools").filter(|t| t.kind() != Kind::Null),
            permission_mode: v.str("permissionMode").or_else(|| v.str("permission_mode")),
        })),
        "system" => emit(&o.event(Body::System {
            subtype: v.str("subtype"),
            message: system_message(v),
            model: None,
        })),
        "stream_event" | "keep_alive" | "progress" => Ok(()),
        other => emit(&o.event(Body::System {
            subtype: Some(other),
            message: system_message(v),
            model: None,
        })),
    }
}

/// The events of an assistant message: one per content block, then its usage, held until
/// the message ends.
fn assistant(
    cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    input_includes_cache: bool,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(message) = v.get("message") else {
        return Ok(());
    };
    let id = message.str("id");
    if cx.holds_usage_other_than(id) {
        cx.flush_usage(emit)?;
    }
    let uuid = v.str("uuid");
    let mut result = Ok(());
    if let Some(content) = message.get("content") {
        content.for_each_element(|block| {
            if result.is_ok() {
                if let Some(body) = content_block(block, uuid, id) {
                    result = emit(&o.event(body));
                }
            }
        });
    }
    result?;
    let Some(usage) = message.get("usage").filter(Json::is_object) else {
        return Ok(());
    };
    let model = message.str("model");
    let cache_read = usage.count("cache_read_input_tokens");
    let mut input = usage.count("input_tokens");
    if input_includes_cache {
        input = input.map(|i| i.saturating_sub(cache_read.unwrap_or(0)));
    }
    let counts = Usage {
        message_id: id,
        model,
        input,
        output: usage.count("output_tokens"),
        cache_creation: usage.count("cache_creation_input_tokens"),
        cache_read,
    };
    match id {
        // The last snapshot of a message wins: held until the message ends.
        Some(id) => {
            cx.hold_usage(o, id, &counts);
            Ok(())
        }
        None => emit(&o.event(Body::Usage(counts))),
    }
}

/// The short message of a `system`-mapped record: its first string among a few keys, or
/// the status of a rate-limit event.
pub(in crate::dialect) fn system_message(v: Json<'_>) -> Option<&str> {
    [
        "content",
        "summary",
        "message",
        "error",
        "status",
        "operation",
    ]
    .iter()
    .find_map(|k| v.str(k))
    .or_else(|| {
        v.path(&["rate_limit_info", "status"])
            .and_then(|s| s.as_str())
    })
}

/// The event of one content block of a Claude assistant message.
fn content_block<'a>(
    block: Json<'a>,
    uuid: Option<&'a str>,
    message_id: Option<&'a str>,
) -> Option<Body<'a>> {
    match block.str("type")? {
        "text" => Some(Body::Text {
            uuid,
            message_id,
            text: Text::of(block.get("text")),
        }),
        "thinking" => Some(Body::Thinking {
            text: Text::of(block.get("thinking")),
        }),
        "redacted_thinking" => Some(Body::Thinking {
            text: Text::from(""),
        }),
        "tool_use" | "server_tool_use" | "mcp_tool_use" => Some(Body::ToolUse {
            id: block.str("id"),
            name: block.str("name"),
            input: block.get("input").map(Nested::Json),
        }),
        // Server tool results (web search, code execution) answer a server_tool_use.
        _ if block.has("tool_use_id") => Some(result_block(block, false)),
        _ => None,
    }
}

/// A tool result block; `text_tells`: see [`ClaudeShape::result_text_tells_failure`].
fn result_block(block: Json<'_>, text_tells: bool) -> Body<'_> {
    Body::ToolResult {
        tool_use_id: block.str("tool_use_id"),
        is_error: super::tool_result_failed(block, text_tells),
        content: block
            .get("content")
            .filter(|c| c.kind() != Kind::Null)
            .map(tool_content),
    }
}

/// The events of a Claude user message: its text, and the tool results it carries.
fn user(o: Origin<'_>, v: Json<'_>, text_tells: bool, emit: &mut Emit<'_>) -> io::Result<()> {
    let uuid = v.str("uuid");
    let Some(content) = v.path(&["message", "content"]) else {
        return Ok(());
    };
    if content.kind() == Kind::String {
        return emit(&o.event(Body::User {
            uuid,
            text: Text::of(Some(content)),
        }));
    }
    let mut result = Ok(());
    content.for_each_element(|block| {
        if result.is_err() {
            return;
        }
        let body = match block.str("type") {
            Some("text") => Body::User {
                uuid,
                text: Text::of(block.get("text")),
            },
            Some("tool_result") => result_block(block, text_tells),
            _ => return,
        };
        result = emit(&o.event(body));
    });
    result
}

/// How a `result` record says the session ended (Cursor's adds its own token fields).
pub(in crate::dialect) fn result(v: Json<'_>) -> Outcome<'_> {
    let subtype = v.str("subtype");
    let error_subtype = subtype.is_some_and(|s| s.starts_with("error"));
    // Claude reports API failures as subtype `success` with is_error: the flag decides.
    let is_error = v
        .get("is_error")
        .and_then(|e| e.as_bool())
        .unwrap_or(error_subtype);
    let text = match v.str("result") {
        Some(t) => Some(Cow::Borrowed(t)),
        None => {
            let mut errors = Vec::new();
            if let Some(list) = v.get("errors") {
                list.for_each_element(|e| errors.extend(e.as_str()));
            }
            if errors.is_empty() {
                // Qwen Code: `error{message}`.
                v.path(&["error", "message"])
                    .and_then(|m| m.as_str())
                    .map(Cow::Borrowed)
            } else {
                Some(Cow::Owned(errors.join("; ")))
            }
        }
    };
    let usage = v.get("usage");
    Outcome {
        success: !is_error && !error_subtype,
        is_error,
        subtype,
        cost_usd: ["total_cost_usd", "cost_usd", "costUSD"]
            .iter()
            .find_map(|k| v.get(k).and_then(|c| c.as_f64())),
        duration_ms: v.count("duration_ms"),
        turns: v.count("num_turns"),
        input: usage.and_then(|u| u.count("input_tokens")),
        output: usage.and_then(|u| u.count("output_tokens")),
        per_turn: false,
        text,
    }
}

#[cfg(test)]
mod tests {
    use crate::event::tests::events;

    #[test]
    fn claude_usage_is_held_until_the_message_ends_and_keeps_the_last_snapshot() {
        let input = concat!(
            r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5,"output_tokens":9}}}"#,
            "\n",
            r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m2","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":7,"output_tokens":2}}}"#,
            "\n",
            r#"{"type":"assistant","session_id":"s","message":{"id":"m3","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":8,"output_tokens":3}}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                r#"text@1 s=s "a""#,
                r#"tool_use@2 s=s id=Some("t1") name=Some("Bash") input={"command":"ls"}"#,
                r#"tool_result@3 s=s id=Some("t1") err=false content="x\ny""#,
                r#"usage@2 s=s id=Some("m1") in=Some(5) out=Some(9)"#,
                r#"text@4 s=s "b""#,
                r#"usage@4 s=s id=Some("m2") in=Some(7) out=Some(2)"#,
                r#"text@5 s=s "c""#,
                r#"usage@5 s=s id=Some("m3") in=Some(8) out=Some(3)"#,
            ]
        );
    }

    #[test]
    fn claude_error_results_are_never_trusted_by_subtype() {
        let input = concat!(
            r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s","result":"API Error: 500"}"#,
            "\n",
            r#"{"type":"result","subtype":"error_max_turns","session_id":"s","errors":["too many","turns"]}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                r#"result@1 s=s ok=false err=true text=Some("API Error: 500")"#,
                r#"result@2 s=s ok=false err=true text=Some("too many; turns")"#,
            ]
        );
    }
}
