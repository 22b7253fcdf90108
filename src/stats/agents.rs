//! What the stats of the other agents' records are made of (SPEC section 5): Gemini CLI
//! (stream, `-o json` document, session log), Qwen Code (stream, session log), Cursor,
//! OpenCode and Copilot.
//!
//! Each record is read into [`Fact`]s (a session id, a usage snapshot under a key, a tool
//! call, a failed call, a session's result, a reported step cost) that the accumulator
//! applies; this module knows the agents' fields, the accumulator knows deduplication,
//! attribution and merging. Tokens are in SPEC's one meaning: `input` is the non-cached
//! input, `cache_read` the cached, `output` includes reasoning, and `reasoning_output`
//! (Gemini `thoughts`, OpenCode `reasoning`) is also given apart.
//!
//! Where each agent's numbers come from:
//! - **gemini** (stream): the `result`'s `stats`, per model from `stats.models` (the CLI's
//!   own totals: the routing model's call included); `input` there is the non-cached part,
//!   `input_tokens` the whole prompt. Older versions have no `stats.models`: the init's
//!   model, unless it is an alias (`auto`), names the totals. Keyed by the result's timestamp and model, so a
//!   resumed run (a new process, its own totals) adds up and the same stream twice counts
//!   once. The `-o json` document: `stats.models.<m>.tokens` (`prompt` whole, `cached`,
//!   `candidates`, `thoughts`), and its tool counts from `stats.tools.byName`.
//! - **gemini-log**: each `gemini` message's `tokens` (the last line of a message id wins:
//!   a message is written again when it changes), its `toolCalls`.
//! - **qwen**: each assistant message's `usage` (`input_tokens` includes the cached part);
//!   the `result`'s `usage`, converted the same way, is the session's billed totals (as a
//!   Claude result's, SPEC 5: it also counts calls no message shows, such as the memory
//!   extraction after a text-only turn; the difference goes to the session's last model).
//! - **qwen-log**: `usageMetadata` of assistant lines (`promptTokenCount` includes
//!   `cachedContentTokenCount`; `thoughtsTokenCount` apart), `functionCall` parts and the
//!   `toolCallResult` of tool_result lines.
//! - **cursor**: `result.usage{inputTokens, outputTokens, cacheReadTokens,
//!   cacheWriteTokens}` where newer versions write it (the session's billed totals, as a
//!   Claude result's); `tool_call` started/completed.
//! - **opencode**: each `step_finish` (`tokens.input` is already non-cached; `reasoning`
//!   apart from `output`) and its `cost` (summed per session: the reported cost, as old
//!   Claude transcripts' per-message `costUSD`).
//! - **copilot**: `assistant.message` `outputTokens` (the only count it prints), tool
//!   executions, and the `result`'s `sessionDurationMs`.
//!
//! A tool call is an error when the agent says so, or when a command's output or exit code
//! says it failed: Gemini CLI prints `status: "success"` for a failing shell command.

use super::{Key, Tokens};
use crate::dialect::Dialect;
use crate::event::reports_failure;
use crate::json::Json;

/// One thing a record says, for the accumulator.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fact<'a> {
    /// The session the record (and the records after it in its input) belongs to.
    Session(&'a str),
    /// The model the records after this one use (Copilot names it apart).
    Model(&'a str),
    /// A usage snapshot: the last one under a key counts.
    Usage {
        key: Key,
        model: Option<&'a str>,
        /// `reasoning_output` set where the agent reports it apart.
        tokens: Tokens,
    },
    ToolCall {
        key: Key,
        name: &'a str,
    },
    ToolError {
        key: Key,
    },
    /// The session's result: its billed totals where the agent gives them, its length.
    Result {
        tokens: Option<Tokens>,
        duration_ms: Option<u64>,
        turns: Option<u64>,
    },
    /// A cost the agent reported for one step, under a key (summed per session).
    StepCost {
        key: Key,
        cost_usd: f64,
    },
}

/// Whether the accumulator reads the dialect through [`facts`].
pub(crate) fn handles(dialect: Option<Dialect>) -> bool {
    matches!(
        dialect,
        Some(
            Dialect::Gemini
                | Dialect::GeminiLog
                | Dialect::Qwen
                | Dialect::QwenLog
                | Dialect::Cursor
                | Dialect::OpenCode
                | Dialect::Copilot
                | Dialect::JsonRpc
        )
    )
}

fn str_of<'a>(v: Json<'a>, key: &str) -> Option<&'a str> {
    v.get(key).and_then(|s| s.as_str())
}

fn num(v: Option<Json<'_>>) -> Option<u64> {
    v?.as_count()
}

fn at(v: Json<'_>, path: &[&str]) -> u64 {
    num(v.path(path)).unwrap_or(0)
}

/// Tokens from a whole prompt that includes its cached part.
fn from_prompt(prompt: u64, cached: u64, output: u64) -> Tokens {
    Tokens {
        input: prompt.saturating_sub(cached),
        output,
        cache_read: cached,
        ..Tokens::default()
    }
}

/// The facts of one valid object record of `dialect`, handed to `f` in order.
pub(crate) fn facts<'a>(
    dialect: Dialect,
    v: Json<'a>,
    ty: Option<&'a str>,
    session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    match dialect {
        Dialect::Gemini => gemini(v, ty, session, f),
        Dialect::GeminiLog => gemini_log(v, ty, session, f),
        Dialect::Qwen | Dialect::Cursor => claude_shaped(dialect, v, ty, f),
        Dialect::QwenLog => qwen_log(v, ty, f),
        Dialect::OpenCode => opencode(v, ty, f),
        Dialect::Copilot => copilot(v, ty, f),
        Dialect::JsonRpc => {
            if let Some(id) = crate::dialect::jsonrpc_session(v) {
                f(Fact::Session(id));
            }
        }
        _ => {}
    }
}

/// A Gemini `tokens` object (-o json model tokens, session-log message tokens): `input` or
/// `prompt` is the whole prompt, `candidates` or `output` the answer, `thoughts` apart.
fn gemini_tokens(t: Json<'_>) -> Tokens {
    let prompt = num(t.get("prompt"))
        .or_else(|| num(t.get("input")))
        .unwrap_or(0);
    let answer = num(t.get("candidates"))
        .or_else(|| num(t.get("output")))
        .unwrap_or(0);
    let thoughts = at(t, &["thoughts"]);
    let cached = at(t, &["cached"]);
    Tokens {
        reasoning_output: thoughts,
        ..from_prompt(prompt, cached, answer.saturating_add(thoughts))
    }
}

fn gemini<'a>(v: Json<'a>, ty: Option<&'a str>, session: &str, f: &mut dyn FnMut(Fact<'a>)) {
    match ty {
        None if crate::dialect::gemini::is_document(v) => {
            let own = str_of(v, "session_id");
            if let Some(s) = own {
                f(Fact::Session(s));
            }
            let session = own.unwrap_or(session);
            if let Some(models) = v.path(&["stats", "models"]) {
                models.for_each_entry(|model, m| {
                    let Some(t) = m.get("tokens") else { return };
                    f(Fact::Usage {
                        key: Key::of(&["gemini document", session, model]),
                        model: Some(model),
                        tokens: gemini_tokens(t),
                    });
                });
            }
            if let Some(by_name) = v.path(&["stats", "tools", "byName"]) {
                by_name.for_each_entry(|name, t| {
                    let calls = at(t, &["count"]);
                    let fails = at(t, &["fail"]).min(calls);
                    for i in 0..calls {
                        let n = i.to_string();
                        let key = Key::of(&["gemini document tool", session, name, &n]);
                        f(Fact::ToolCall { key, name });
                        if i < fails {
                            f(Fact::ToolError { key });
                        }
                    }
                });
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: None,
                turns: None,
            });
        }
        Some("init") => {
            if let Some(s) = str_of(v, "session_id") {
                f(Fact::Session(s));
            }
            // A real model (not an alias such as `auto` or `pro`) names the tokens of a
            // result without `stats.models` (older versions), so they can be priced.
            if let Some(m) = str_of(v, "model").filter(|m| m.starts_with("gemini-")) {
                f(Fact::Model(m));
            }
        }
        Some("tool_use") => {
            if let Some(id) = str_of(v, "tool_id") {
                f(Fact::ToolCall {
                    key: Key::of(&[id]),
                    name: str_of(v, "tool_name").unwrap_or("(unknown)"),
                });
            }
        }
        Some("tool_result") => {
            let failed = crate::dialect::gemini::tool_result_failed(v);
            if let (true, Some(id)) = (failed, str_of(v, "tool_id")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        Some("result") => {
            let Some(stats) = v.get("stats") else {
                return;
            };
            let when = str_of(v, "timestamp").unwrap_or("");
            let tokens_of = |s: Json<'_>| {
                let cached = at(s, &["cached"]);
                let input = num(s.get("input"))
                    .unwrap_or_else(|| at(s, &["input_tokens"]).saturating_sub(cached));
                Tokens {
                    input,
                    output: at(s, &["output_tokens"]),
                    cache_read: cached,
                    ..Tokens::default()
                }
            };
            match stats.get("models").filter(Json::is_object) {
                Some(models) => models.for_each_entry(|model, m| {
                    f(Fact::Usage {
                        key: Key::of(&["gemini result", session, when, model]),
                        model: Some(model),
                        tokens: tokens_of(m),
                    });
                }),
                None => f(Fact::Usage {
                    key: Key::of(&["gemini result", session, when]),
                    model: None,
                    tokens: tokens_of(stats),
                }),
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: num(stats.get("duration_ms")),
                turns: None,
            });
        }
        _ => {}
    }
}

fn gemini_log<'a>(v: Json<'a>, ty: Option<&'a str>, session: &str, f: &mut dyn FnMut(Fact<'a>)) {
    match ty {
        None if v.has("projectHash") => {
            if let Some(s) = str_of(v, "sessionId") {
                f(Fact::Session(s));
            }
        }
        Some("gemini") => {
            let id = str_of(v, "id").unwrap_or("");
            if let Some(t) = v.get("tokens").filter(Json::is_object) {
                f(Fact::Usage {
                    key: Key::of(&["gemini message", session, id]),
                    model: str_of(v, "model"),
                    tokens: gemini_tokens(t),
                });
            }
            if let Some(calls) = v.get("toolCalls") {
                calls.for_each_element(|c| {
                    let Some(cid) = str_of(c, "id") else { return };
                    let key = Key::of(&[cid]);
                    f(Fact::ToolCall {
                        key,
                        name: str_of(c, "name").unwrap_or("(unknown)"),
                    });
                    if crate::dialect::gemini_log_tool_failed(c) {
                        f(Fact::ToolError { key });
                    }
                });
            }
        }
        _ => {}
    }
}

/// Qwen Code and Cursor: Claude's shape, with their own usage fields.
fn claude_shaped<'a>(
    dialect: Dialect,
    v: Json<'a>,
    ty: Option<&'a str>,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let Some(s) = str_of(v, "session_id") {
        f(Fact::Session(s));
    }
    match ty {
        Some("assistant") => {
            let Some(message) = v.get("message") else {
                return;
            };
            if let (Some(id), Some(u)) = (
                str_of(message, "id"),
                message.get("usage").filter(Json::is_object),
            ) {
                let cached = at(u, &["cache_read_input_tokens"]);
                let mut tokens =
                    from_prompt(at(u, &["input_tokens"]), cached, at(u, &["output_tokens"]));
                tokens.cache_creation = at(u, &["cache_creation_input_tokens"]);
                f(Fact::Usage {
                    key: Key::of(&[id, ""]),
                    model: str_of(message, "model"),
                    tokens,
                });
            }
            if let Some(content) = message.get("content") {
                content.for_each_element(|b| {
                    if str_of(b, "type") == Some("tool_use") {
                        if let Some(id) = str_of(b, "id") {
                            f(Fact::ToolCall {
                                key: Key::of(&[id]),
                                name: str_of(b, "name").unwrap_or("(unknown)"),
                            });
                        }
                    }
                });
            }
        }
        Some("user") => {
            let Some(content) = v.path(&["message", "content"]) else {
                return;
            };
            content.for_each_element(|b| {
                if str_of(b, "type") != Some("tool_result") {
                    return;
                }
                let failed = b.get("is_error").and_then(|e| e.as_bool()) == Some(true)
                    || str_of(b, "content").is_some_and(reports_failure);
                if let (true, Some(id)) = (failed, str_of(b, "tool_use_id")) {
                    f(Fact::ToolError {
                        key: Key::of(&[id]),
                    });
                }
            });
        }
        Some("tool_call") => {
            let Some(id) = str_of(v, "call_id") else {
                return;
            };
            let key = Key::of(&[id]);
            let Some(call) = v.get("tool_call") else {
                return;
            };
            let mut first = true;
            call.for_each_entry(|name, inner| {
                if !std::mem::take(&mut first) {
                    return;
                }
                match str_of(v, "subtype") {
                    Some("started") => f(Fact::ToolCall {
                        key,
                        name: name.strip_suffix("ToolCall").unwrap_or(name),
                    }),
                    Some("completed")
                        if crate::dialect::cursor_tool_failed(inner.get("result")) =>
                    {
                        f(Fact::ToolError { key });
                    }
                    _ => {}
                }
            });
        }
        Some("result") => {
            let u = v.get("usage").filter(Json::is_object);
            let tokens = match (dialect, u) {
                (Dialect::Qwen, Some(u)) if num(u.get("input_tokens")).is_some() => {
                    let cached = at(u, &["cache_read_input_tokens"]);
                    Some(from_prompt(
                        at(u, &["input_tokens"]),
                        cached,
                        at(u, &["output_tokens"]),
                    ))
                }
                // Cursor prints no per-message usage: the result's is the session's.
                (Dialect::Cursor, Some(u)) if num(u.get("inputTokens")).is_some() => Some(Tokens {
                    input: at(u, &["inputTokens"]),
                    output: at(u, &["outputTokens"]),
                    cache_creation: at(u, &["cacheWriteTokens"]),
                    cache_read: at(u, &["cacheReadTokens"]),
                    ..Tokens::default()
                }),
                _ => None,
            };
            f(Fact::Result {
                tokens,
                duration_ms: num(v.get("duration_ms")),
                turns: num(v.get("num_turns")),
            });
        }
        _ => {}
    }
}

fn qwen_log<'a>(v: Json<'a>, ty: Option<&'a str>, f: &mut dyn FnMut(Fact<'a>)) {
    // The per-session usage summary (no type) repeats the chats' totals: not counted.
    let Some(ty) = ty else { return };
    if let Some(s) = str_of(v, "sessionId") {
        f(Fact::Session(s));
    }
    match ty {
        "assistant" => {
            if let (Some(id), Some(u)) = (
                str_of(v, "uuid"),
                v.get("usageMetadata").filter(Json::is_object),
            ) {
                let thoughts = at(u, &["thoughtsTokenCount"]);
                f(Fact::Usage {
                    key: Key::of(&["qwen message", id]),
                    model: str_of(v, "model"),
                    tokens: Tokens {
                        reasoning_output: thoughts,
                        ..from_prompt(
                            at(u, &["promptTokenCount"]),
                            at(u, &["cachedContentTokenCount"]),
                            at(u, &["candidatesTokenCount"]).saturating_add(thoughts),
                        )
                    },
                });
            }
            if let Some(parts) = v.path(&["message", "parts"]) {
                parts.for_each_element(|p| {
                    let Some(call) = p.get("functionCall") else {
                        return;
                    };
                    if let Some(id) = str_of(call, "id") {
                        f(Fact::ToolCall {
                            key: Key::of(&[id]),
                            name: str_of(call, "name").unwrap_or("(unknown)"),
                        });
                    }
                });
            }
        }
        "tool_result" => {
            let Some(r) = v.get("toolCallResult") else {
                return;
            };
            let failed = crate::dialect::qwen_log_tool_failed(r);
            if let (true, Some(id)) = (failed, str_of(r, "callId")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        _ => {}
    }
}

fn opencode<'a>(v: Json<'a>, ty: Option<&'a str>, f: &mut dyn FnMut(Fact<'a>)) {
    if let Some(s) = str_of(v, "sessionID") {
        f(Fact::Session(s));
    }
    let Some(part) = v.get("part") else {
        return;
    };
    match ty {
        Some("tool_use") => {
            let Some(id) = str_of(part, "callID") else {
                return;
            };
            let key = Key::of(&[id]);
            f(Fact::ToolCall {
                key,
                name: str_of(part, "tool").unwrap_or("(unknown)"),
            });
            if crate::dialect::opencode::tool_failed(part.get("state")) {
                f(Fact::ToolError { key });
            }
        }
        Some("step_finish") => {
            let id = str_of(part, "id").unwrap_or("");
            if let Some(t) = part.get("tokens").filter(Json::is_object) {
                let reasoning = at(t, &["reasoning"]);
                f(Fact::Usage {
                    key: Key::of(&["opencode step", id]),
                    model: None,
                    tokens: Tokens {
                        input: at(t, &["input"]),
                        output: at(t, &["output"]).saturating_add(reasoning),
                        cache_creation: at(t, &["cache", "write"]),
                        cache_read: at(t, &["cache", "read"]),
                        reasoning_output: reasoning,
                        cache_creation_1h: 0,
                    },
                });
            }
            if let Some(cost) = part.get("cost").and_then(|c| c.as_cost()) {
                f(Fact::StepCost {
                    key: Key::of(&["opencode step", id]),
                    cost_usd: cost,
                });
            }
        }
        _ => {}
    }
}

fn copilot<'a>(v: Json<'a>, ty: Option<&'a str>, f: &mut dyn FnMut(Fact<'a>)) {
    let data = v.get("data");
    let data_str = |k: &str| data.and_then(|d| str_of(d, k));
    match ty {
        Some("session.tools_updated" | "session.model_change" | "session.start") => {
            if let Some(m) = data_str("model")
                .or_else(|| data_str("newModel"))
                .or_else(|| data_str("selectedModel"))
            {
                f(Fact::Model(m));
            }
        }
        Some("assistant.message") => {
            if let (Some(id), Some(out)) = (
                data_str("messageId"),
                num(data.and_then(|d| d.get("outputTokens"))),
            ) {
                f(Fact::Usage {
                    key: Key::of(&["copilot message", id]),
                    model: data_str("model"),
                    tokens: Tokens {
                        output: out,
                        ..Tokens::default()
                    },
                });
            }
        }
        Some("tool.execution_start") => {
            if let Some(id) = data_str("toolCallId") {
                f(Fact::ToolCall {
                    key: Key::of(&[id]),
                    name: data_str("toolName").unwrap_or("(unknown)"),
                });
            }
        }
        Some("tool.execution_complete") => {
            let failed = crate::dialect::copilot_execution_failed(data);
            if let (true, Some(id)) = (failed, data_str("toolCallId")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        Some("result") => {
            if let Some(s) = str_of(v, "sessionId") {
                f(Fact::Session(s));
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: num(v.path(&["usage", "sessionDurationMs"])),
                turns: None,
            });
        }
        _ => {}
    }
}
