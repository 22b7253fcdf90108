//! What an agent's record says, in neutral terms: the [`Fact`]s a dialect's reader gives
//! (a session id, the model, a usage snapshot under its dedupe key, a tool call, a failed
//! call, a session's result, a reported step cost), which `stats` applies without naming
//! the agent (docs/DESIGN.md "The stats rooms"). Each agent's reader lives in its own
//! module (`gemini::facts`, `qwen::log_facts`, ...), next to its failure rules; the type is
//! the stats engine's ([`crate::stats::Fact`]); this module holds the helpers and the reader
//! the agents that write Claude's shape share.
//!
//! Tokens are in one meaning (docs/REFERENCE.md "Token and cost rules"): `input` is the
//! non-cached input, `cache_read` the cached, `output` includes reasoning, and
//! `reasoning_output` (Gemini `thoughts`, OpenCode `reasoning`) is also given apart. A tool
//! call is an error when the agent says so, or when a command's output or exit code says
//! it failed: Gemini CLI prints `status: "success"` for a failing shell command.
//!
//! Claude's own records and Codex's are read by their modules' `stats` readers
//! (`claude::stats`, `codex::stats`, `codex_log::stats`), which drive the store directly:
//! their usage needs request ids, `message_delta` links, turns and cumulative totals.
//! `stats` hands a record to the reader its agent's descriptor names
//! ([`super::stats_reader`]); a reader into facts hands them on through
//! [`crate::stats::Ingest::facts`].

use super::Dialect;
use crate::json::Json;
use crate::stats::{Key, Tokens};

pub(crate) use crate::stats::Fact;

/// Whether a record of `dialect` means something only with what earlier records of its
/// input said: Codex items and Gemini events their session, Copilot events their model,
/// Qwen results their session's last model. Such an input is read in one piece, never in
/// blocks counted apart.
pub(crate) fn inherits_context(dialect: Dialect) -> bool {
    dialect.agent().inherits_context
}

pub(super) fn at(v: Json<'_>, path: &[&str]) -> u64 {
    v.path(path).and_then(|v| v.as_count()).unwrap_or(0)
}

/// Tokens from a whole prompt that includes its cached part.
pub(super) fn from_prompt(prompt: u64, cached: u64, output: u64) -> Tokens {
    Tokens {
        input: prompt.saturating_sub(cached),
        output,
        cache_read: cached,
        ..Tokens::default()
    }
}

/// The facts of a record in Claude's shape (Qwen Code, Cursor): its `session_id`, each
/// assistant message's usage (`input_tokens` including the cached part) and `tool_use`
/// blocks, failed `tool_result` blocks (`is_error`, or an exit code in the content), and
/// the `result` (its usage read by `result_tokens`: the session's billed totals).
pub(super) fn claude_shaped<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    result_tokens: fn(Json<'_>) -> Option<Tokens>,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let Some(s) = v.str("session_id") {
        f(Fact::Session(s));
    }
    match ty {
        Some("assistant") => {
            let Some(message) = v.get("message") else {
                return;
            };
            if let (Some(id), Some(u)) = (
                message.str("id"),
                message.get("usage").filter(Json::is_object),
            ) {
                let cached = at(u, &["cache_read_input_tokens"]);
                let mut tokens =
                    from_prompt(at(u, &["input_tokens"]), cached, at(u, &["output_tokens"]));
                tokens.cache_creation = at(u, &["cache_creation_input_tokens"]);
                f(Fact::Usage {
                    key: Key::of(&[id, ""]),
                    model: message.str("model"),
                    tokens,
                });
            }
            if let Some(content) = message.get("content") {
                content.for_each_element(|b| {
                    if b.str("type") == Some("tool_use") {
                        if let Some(id) = b.str("id") {
                            f(Fact::ToolCall {
                                key: Key::of(&[id]),
                                name: b.str("name").unwrap_or("(unknown)"),
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
                if b.str("type") != Some("tool_result") {
                    return;
                }
                // Qwen Code and Cursor: the text tells too.
                let failed = super::claude::tool_result_failed(b, true);
                if let (true, Some(id)) = (failed, b.str("tool_use_id")) {
                    f(Fact::ToolError {
                        key: Key::of(&[id]),
                    });
                }
            });
        }
        Some("result") => {
            let tokens = v
                .get("usage")
                .filter(Json::is_object)
                .and_then(result_tokens);
            f(Fact::Result {
                tokens,
                duration_ms: v.count("duration_ms"),
                turns: v.count("num_turns"),
            });
        }
        _ => {}
    }
}
