//! `stats`: Claude's records (stream-json and session logs, and any record no other reader
//! takes) into the stats store, through its narrow API ([`Ingest`]): message usage
//! snapshots and `message_delta` usage, tool calls and failed tool results, and the
//! session's `result` (its billed totals and reported cost). The rules are in
//! docs/REFERENCE.md "Token and cost rules".

use crate::dialect::stats_reader::TopFields;
use crate::json::Json;
use crate::stats::{Ingest, Key, ResultFacts, Tokens, NONE};

/// One record. `top` holds its top-level fields, found in one walk with its type.
pub(crate) fn read(v: Json<'_>, top: &TopFields<'_>, s: &mut Ingest<'_>) {
    let session = match top.session().and_then(|j| j.as_str()) {
        Some(id) => s.session(id),
        None => NONE,
    };
    s.count_record(session);
    if let (true, Some(cwd)) = (session != NONE, top.cwd().and_then(|c| c.as_str())) {
        s.set_cwd(session, cwd);
    }
    // `requestId`, else `request_id`, and whether it was `request_id` (stream-json).
    let request = top
        .request_id()
        .map(|r| (r, false))
        .or(top.request_id_snake().map(|r| (r, true)));
    match top.ty() {
        Some("assistant") => {
            let Some(message) = top.message() else {
                return;
            };
            // A fork's copy of its parent's message names the session that made the
            // request: the message is that session's (docs/REFERENCE.md "Lineage"). The
            // parent is a row of `--by session`, not a session this input holds.
            let owner = match top.request_session_id().and_then(|r| r.as_str()) {
                Some(id) if top.session().and_then(|j| j.as_str()) != Some(id) => s.name(id),
                _ => session,
            };
            let (attr, content) = message_usage(s, message, request, owner);
            if let Some(cost) = top.cost_usd().and_then(|c| c.as_cost()) {
                // Old transcripts: a cost per message, repeated on its lines.
                let id = message.str("id");
                let req = request.and_then(|(r, _)| r.as_str()).unwrap_or("");
                let key = match id {
                    Some(id) => s.message_key(id, req),
                    None => Key::of(&["costUSD line", &s.message_costs_len().to_string()]),
                };
                s.message_cost(key, attr, cost);
            }
            if let Some(content) = content {
                content.for_each_element(|block| {
                    let [ty, id, name] = block.get_many(["type", "id", "name"]);
                    if ty.and_then(|t| t.as_str()) == Some("tool_use") {
                        if let Some(id) = id.and_then(|i| i.as_str()) {
                            let name = name.and_then(|n| n.as_str()).unwrap_or("(unknown)");
                            s.tool_call(Key::of(&[id]), name, attr);
                        }
                    }
                });
            }
        }
        Some("stream_event") => {
            if let Some(event) = v.get("event") {
                message_delta(s, v, event);
            }
        }
        Some("user") => {
            let Some(content) = top.message().and_then(|m| m.get("content")) else {
                return;
            };
            content.for_each_element(|block| {
                let [ty, is_error, id] = block.get_many(["type", "is_error", "tool_use_id"]);
                if ty.and_then(|t| t.as_str()) == Some("tool_result")
                    && is_error.and_then(|e| e.as_bool()) == Some(true)
                {
                    if let Some(id) = id.and_then(|i| i.as_str()) {
                        s.tool_error(Key::of(&[id]));
                    }
                }
            });
        }
        Some("result") if session != NONE || v.has("usage") => result(s, v, session),
        _ => {}
    }
}

/// A Claude API message's usage snapshot (an `assistant` line or a `message_start`),
/// keyed by its `message.id` and request id; without an id it counts once per line.
/// Gives the message's attribution and its `content` (found in the same walk).
fn message_usage<'a>(
    s: &mut Ingest<'_>,
    message: Json<'a>,
    request: Option<(Json<'_>, bool)>,
    session: u32,
) -> (u32, Option<Json<'a>>) {
    let [model, usage, id, content] = message.get_many(["model", "usage", "id", "content"]);
    let model_name = model.and_then(|m| m.as_str());
    let model = model_name.map_or(NONE, |m| s.model(m));
    if session != NONE && model != NONE && model_name != Some("<synthetic>") {
        s.set_session_model(session, model);
    }
    let attr = s.attr(session, model);
    if let Some(usage) = usage.filter(|u| u.is_object()) {
        let tokens = tokens(usage);
        match id.and_then(|i| i.as_str()) {
            Some(id) => {
                let (req, stream) = match request {
                    Some((r, stream)) => (r.as_str().unwrap_or(""), stream),
                    None => ("", false),
                };
                let key = s.message_key(id, req);
                // A stream's `message_delta` names its message by id alone: remember
                // which request that is (transcripts have no deltas).
                if stream && !req.is_empty() {
                    s.link(Key::of(&[id, ""]), key);
                }
                s.usage(key, tokens, attr)
            }
            None => s.line_usage(attr, tokens),
        }
    }
    (attr, content)
}

/// A `stream_event` `message_delta`: its cumulative usage, for the message its
/// `api_message_id` names (docs/REFERENCE.md "Token and cost rules").
fn message_delta(s: &mut Ingest<'_>, v: Json<'_>, event: Json<'_>) {
    if event.str("type") != Some("message_delta") {
        return;
    }
    let id = v
        .str("api_message_id")
        .or_else(|| event.get("message").and_then(|m| m.str("id")));
    let (Some(id), Some(usage)) = (id, event.get("usage").filter(|u| u.is_object())) else {
        return;
    };
    let [input, output, cache_creation, cache_read] = usage.get_many([
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]);
    let mut mask = 0u8;
    let mut n = |v: Option<Json<'_>>, bit: u8| match v.and_then(|v| v.as_count()) {
        Some(n) => {
            mask |= bit;
            n
        }
        None => 0,
    };
    let tokens = Tokens {
        input: n(input, 1),
        output: n(output, 2),
        cache_creation: n(cache_creation, 4),
        cache_read: n(cache_read, 8),
        reasoning_output: 0,
        cache_creation_1h: 0,
    };
    if mask != 0 {
        // Keyed as a message without request id would be, which is what it applies
        // to unless a link says otherwise.
        s.delta(Key::of(&[id, ""]), tokens, mask);
    }
}

/// A session's `result`: its billed totals (with integer input and output tokens), their
/// split by model, the cost reported, turns and duration.
fn result(s: &mut Ingest<'_>, v: Json<'_>, session: u32) {
    let mut model_usage: Option<Vec<(u32, Tokens)>> = None;
    if let Some(mu) = v.get("modelUsage").filter(|m| m.is_object()) {
        let mut list = Vec::new();
        mu.for_each_entry(|model, usage| {
            if usage.is_object() {
                list.push((model.to_string(), model_usage_tokens(usage)));
            }
        });
        if !list.is_empty() {
            model_usage = Some(list.into_iter().map(|(m, t)| (s.name(&m), t)).collect());
        }
    }
    let tokens = v.get("usage").and_then(|usage| {
        let int = |k: &str| usage.get(k).and_then(|n| n.as_count()).is_some();
        (int("input_tokens") && int("output_tokens")).then(|| tokens(usage))
    });
    let cost_usd = ["total_cost_usd", "cost_usd", "costUSD"]
        .iter()
        .find_map(|k| v.get(k).and_then(|c| c.as_cost()));
    s.result(
        session,
        ResultFacts {
            tokens: tokens.map(|t| (t, model_usage)),
            cost_usd,
            turns: v.get("num_turns").and_then(|n| n.as_count()),
            duration_ms: v.get("duration_ms").and_then(|n| n.as_count()),
        },
    );
}

/// Claude usage: `input_tokens`, `output_tokens`, `cache_creation_input_tokens`,
/// `cache_read_input_tokens`.
fn tokens(usage: Json<'_>) -> Tokens {
    let [input, output, cache_creation, cache_read, split] = usage.get_many([
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cache_creation",
    ]);
    let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
    let cache_creation = n(cache_creation);
    Tokens {
        input: n(input),
        output: n(output),
        cache_creation,
        cache_read: n(cache_read),
        reasoning_output: 0,
        cache_creation_1h: n(split.and_then(|s| s.get("ephemeral_1h_input_tokens")))
            .min(cache_creation),
    }
}

/// Claude `result.modelUsage` entry: `inputTokens`, `outputTokens`,
/// `cacheCreationInputTokens`, `cacheReadInputTokens`.
fn model_usage_tokens(usage: Json<'_>) -> Tokens {
    let [input, output, cache_creation, cache_read] = usage.get_many([
        "inputTokens",
        "outputTokens",
        "cacheCreationInputTokens",
        "cacheReadInputTokens",
    ]);
    let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
    Tokens {
        input: n(input),
        output: n(output),
        cache_creation: n(cache_creation),
        cache_read: n(cache_read),
        reasoning_output: 0,
        cache_creation_1h: 0,
    }
}
