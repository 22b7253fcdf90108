//! The events of Codex session rollouts (`codex-log`; docs/REFERENCE.md, "Normalized
//! events").
//!
//! `session_meta` is `init`; the conversation is read from `response_item` records only
//! (`message` of role user or assistant, `reasoning`, `function_call`, `custom_tool_call`,
//! `local_shell_call`, `web_search_call` (a call without an output record) and the
//! outputs of the others), because the `event_msg` copies (`user_message`,
//! `agent_message`, `agent_reasoning`, `item_completed`) repeat them;
//! developer messages are skipped. `event_msg/token_count` is `usage` (from
//! `info.last_token_usage`, with the model of the latest `turn_context`); `task_complete`
//! is a successful `result`, `turn_aborted` an unsuccessful one (subtype `aborted`, the
//! reason as `text`); `error` and `stream_error` are `system`/`error`. A `turn_context`
//! naming a model different from the one before is `system`/`turn_context` with that
//! `model`. A function call's output is an error when it reports a non-zero exit code
//! (`metadata.exit_code`, or a `Process exited with code N` / `Exit code: N` line) or a
//! sandbox failure ([`super::tool_output::failed`]); the old JSON-wrapped output
//! `{"output":…,"metadata":…}` is unwrapped to its `output`; a `local_shell_call_output`
//! is read alike. A call's tool is named as the record names it ([`tool_name`]).

use crate::dialect::codex::events::input as codex_input;
use crate::event::{Body, Context, Emit, EventReader};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::Json;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::io;

/// The rollouts, with the model of the input's latest `turn_context` (for the usage
/// records, which do not name it).
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::dialect) struct Rollout {
    model: Option<String>,
}

impl EventReader for Rollout {
    fn map<'a>(
        &mut self,
        _cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        map(self, o, v, emit)
    }

    /// A `turn_context` names the model of the usage after it.
    fn observe(&mut self, _cx: &mut Context, ty: Option<&str>, v: Json<'_>) {
        if ty == Some("turn_context") {
            if let Some(m) = v.path(&["payload", "model"]).and_then(|m| m.as_str()) {
                if self.model.as_deref() != Some(m) {
                    self.model = Some(m.to_string());
                }
            }
        }
    }
}

/// The tool a rollout `response_item` of type `payload_type` calls, by the name the record
/// gives it: a function's or a custom tool's own `name` (`exec_command`, `shell`,
/// `apply_patch`, an MCP tool), `local_shell` and `web_search` for the built-in calls that
/// name none; `None` for an item that is no tool call. `events`, `stats --by tool` and
/// `filter --tool` all show this name, the one a user finds in the file (docs/REFERENCE.md,
/// "One meaning everywhere").
pub(crate) fn tool_name<'a>(payload_type: &str, name: Option<&'a str>) -> Option<&'a str> {
    match payload_type {
        "function_call" | "custom_tool_call" => name,
        "local_shell_call" => Some("local_shell"),
        "web_search_call" => Some("web_search"),
        _ => None,
    }
}

fn map(cx: &mut Rollout, o: Origin<'_>, v: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(p) = v.get("payload") else {
        return Ok(());
    };
    match v.str("type").unwrap_or_default() {
        "session_meta" => emit(&o.event(Body::Init {
            model: p.str("model"),
            cwd: p.str("cwd"),
            tools: None,
            permission_mode: None,
        })),
        "turn_context" => {
            let Some(model) = p.str("model") else {
                return Ok(());
            };
            if cx.model.as_deref() == Some(model) {
                return Ok(());
            }
            cx.model = Some(model.to_string());
            emit(&o.event(Body::System {
                subtype: Some("turn_context"),
                message: None,
                model: Some(model),
            }))
        }
        "response_item" => item(o, p, emit),
        "event_msg" => match p.str("type").unwrap_or_default() {
            "token_count" => {
                let Some(last) = p.path(&["info", "last_token_usage"]) else {
                    return Ok(());
                };
                let at = |k: &str| last.count(k);
                emit(&o.event(Body::Usage(Usage {
                    message_id: None,
                    model: cx.model.as_deref(),
                    input: codex_input(at),
                    output: at("output_tokens"),
                    cache_creation: at("cache_write_input_tokens"),
                    cache_read: at("cached_input_tokens"),
                })))
            }
            "task_complete" => emit(&o.event(Body::Result(Outcome {
                success: true,
                duration_ms: p.count("duration_ms"),
                ..Outcome::default()
            }))),
            "turn_aborted" => emit(&o.event(Body::Result(Outcome {
                success: false,
                subtype: Some("aborted"),
                text: p.str("reason").map(Cow::Borrowed),
                ..Outcome::default()
            }))),
            "error" | "stream_error" => emit(&o.event(Body::System {
                subtype: Some("error"),
                message: p.str("message"),
                model: None,
            })),
            _ => Ok(()),
        },
        "compacted" => emit(&o.event(Body::System {
            subtype: Some("compacted"),
            message: p.str("message"),
            model: None,
        })),
        _ => Ok(()),
    }
}

/// The events of a rollout `response_item`.
fn item(o: Origin<'_>, p: Json<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
    let ty = p.str("type").unwrap_or_default();
    match ty {
        "message" => {
            let role = p.str("role");
            let id = p.str("id");
            let mut result = Ok(());
            if let Some(content) = p.get("content") {
                content.for_each_element(|block| {
                    if result.is_err() {
                        return;
                    }
                    let Some(text) = block.str("text") else {
                        return;
                    };
                    let body = match role {
                        Some("user") => Body::User {
                            uuid: None,
                            text: Text::from(text),
                        },
                        Some("assistant") => Body::Text {
                            uuid: None,
                            message_id: id,
                            text: Text::from(text),
                        },
                        // Developer and system instructions are not the conversation.
                        _ => return,
                    };
                    result = emit(&o.event(body));
                });
            }
            result
        }
        "reasoning" => {
            let mut texts = Vec::new();
            for key in ["summary", "content"] {
                if let Some(list) = p.get(key) {
                    list.for_each_element(|b| texts.extend(b.str("text")));
                }
            }
            if texts.is_empty() {
                // Encrypted reasoning only: it happened, its text is not in the log.
                texts.push("");
            }
            for text in texts {
                emit(&o.event(Body::Thinking {
                    text: Text::from(text),
                }))?;
            }
            Ok(())
        }
        "function_call" => {
            let input = p.get("arguments").map(|a| match a.as_str() {
                Some(s) => match serde_json::from_str::<serde_json::Value>(s) {
                    Ok(parsed) => Nested::Owned(parsed),
                    Err(_) => Nested::Json(a),
                },
                None => Nested::Json(a),
            });
            emit(&o.event(Body::ToolUse {
                id: p.str("call_id").or_else(|| p.str("id")),
                name: tool_name(ty, p.str("name")),
                input,
            }))
        }
        "custom_tool_call" => emit(&o.event(Body::ToolUse {
            id: p.str("call_id").or_else(|| p.str("id")),
            name: tool_name(ty, p.str("name")),
            input: p.get("input").map(Nested::Json),
        })),
        "local_shell_call" => emit(&o.event(Body::ToolUse {
            id: p.str("call_id").or_else(|| p.str("id")),
            name: tool_name(ty, None),
            input: p.get("action").map(Nested::Json),
        })),
        "web_search_call" => emit(&o.event(Body::ToolUse {
            id: p.str("call_id").or_else(|| p.str("id")),
            name: tool_name(ty, None),
            input: p.get("action").map(Nested::Json),
        })),
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let (content, is_error) = match p.get("output") {
                Some(out) => function_output(out),
                None => (None, false),
            };
            emit(&o.event(Body::ToolResult {
                tool_use_id: p.str("call_id"),
                is_error,
                content,
            }))
        }
        _ => Ok(()),
    }
}

/// The content of a rollout function call's output, and whether it reports a failure
/// (the Codex rule, [`super::tool_output::failed`], that `stats` and `gaps` use too).
fn function_output(out: Json<'_>) -> (Option<Nested<'_>>, bool) {
    let failed = super::tool_output::failed(out);
    if out.is_object() {
        // {content, success}: the structured form.
        let content = out
            .get("content")
            .map(Nested::Json)
            .unwrap_or(Nested::Json(out));
        return (Some(content), failed);
    }
    // The old form is a JSON document in the string: {"output": …, "metadata": {…}}; its
    // output is the content.
    if let Some(text) = out.as_str().filter(|t| t.starts_with('{')) {
        if let Some(raw) = super::tool_output::document_output(text) {
            return (Some(Nested::EscapedStr(raw, OnceCell::new())), failed);
        }
        if let Ok(serde_json::Value::Object(mut doc)) =
            serde_json::from_str::<serde_json::Value>(text)
        {
            if let Some(serde_json::Value::String(inner)) = doc.remove("output") {
                return (
                    Some(Nested::Owned(serde_json::Value::String(inner))),
                    failed,
                );
            }
        }
    }
    (Some(Nested::Json(out)), failed)
}

#[cfg(test)]
mod tests {
    use crate::event::tests::events;

    #[test]
    fn codex_log_function_outputs_report_failures() {
        let input = concat!(
            r#"{"type":"session_meta","payload":{"id":"sid","cwd":"/w"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"no such file\",\"metadata\":{\"exit_code\":1}}"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Process exited with code 0\nOutput:\nok"}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            "\n",
        );
        assert_eq!(
            events(input, None),
            [
                "init@1 s=sid",
                r#"tool_use@2 s=sid id=Some("c1") name=Some("shell") input={"command":["ls"]}"#,
                r#"tool_result@3 s=sid id=Some("c1") err=true content="no such file""#,
                r#"tool_result@4 s=sid id=Some("c2") err=false content="Process exited with code 0\nOutput:\nok""#,
            ]
        );
    }
}
