//! Claude's records (stream-json and session logs, and the agents that write the same
//! shape): message usage snapshots and `message_delta` usage, tool calls and failed tool
//! results, and the session's `result` (its billed totals and reported cost).

use super::InputContext;
use crate::json::Json;
use crate::stats::intern::{Attr, NONE};
use crate::stats::tokens::Tokens;
use crate::stats::{DeltaEntry, Key, Link, Stats, ToolEntry};

/// The top-level fields of a Claude record, read with the type in one walk.
#[derive(Clone, Copy)]
pub(super) struct ClaudeTop<'a> {
    /// `session_id`, else `sessionId`.
    pub(super) session: Option<Json<'a>>,
    pub(super) message: Option<Json<'a>>,
    pub(super) cwd: Option<Json<'a>>,
    /// An old transcript's per-message `costUSD`.
    pub(super) cost: Option<f64>,
    /// `requestId`, else `request_id`, and whether it was `request_id` (stream-json).
    pub(super) request: Option<(Json<'a>, bool)>,
}

impl Stats {
    /// A Claude API message's usage snapshot (an `assistant` line or a `message_start`),
    /// keyed by its `message.id`; without an id it counts once per line.
    pub(super) fn add_claude_message<'a>(
        &mut self,
        message: Json<'a>,
        request: Option<(Json<'_>, bool)>,
        session: u32,
        ctx: &InputContext,
        day: u32,
    ) -> (u32, Option<Json<'a>>) {
        // `content` too, for the caller: one walk over the message.
        let [model, usage, id, content] = message.get_many(["model", "usage", "id", "content"]);
        let model_name = model.and_then(|m| m.as_str());
        let model = model_name.map_or(NONE, |m| self.strings.id_via(&mut self.recent.model, m));
        if session != NONE && model != NONE && model_name != Some("<synthetic>") {
            self.last_model.insert(session, model);
        }
        let attr = self.attrs.id(Attr {
            session,
            model,
            file: ctx.file,
            day,
        });
        if let Some(usage) = usage.filter(|u| u.is_object()) {
            let tokens = Tokens::from_claude(usage);
            match id.and_then(|i| i.as_str()) {
                Some(id) => {
                    let (req, stream) = match request {
                        Some((r, stream)) => (r.as_str().unwrap_or(""), stream),
                        None => ("", false),
                    };
                    let key = self.recent.message_key(id, req);
                    // A stream's `message_delta` names its message by id alone: remember
                    // which request that is (transcripts have no deltas).
                    if stream && !req.is_empty() {
                        self.links.push(Link(Key::of(&[id, ""]), key));
                    }
                    self.add_usage(key, tokens, attr)
                }
                None => *self.extra_usage.entry(attr).or_default() += tokens,
            }
        }
        (attr, content)
    }

    /// A `stream_event` `message_delta`: its cumulative usage, for the message its
    /// `api_message_id` names (docs/REFERENCE.md "Token and cost rules").
    pub(super) fn add_message_delta(&mut self, v: Json<'_>, event: Json<'_>) {
        if event.get("type").and_then(|t| t.as_str()) != Some("message_delta") {
            return;
        }
        let id = v
            .get("api_message_id")
            .and_then(|i| i.as_str())
            .or_else(|| {
                event
                    .get("message")
                    .and_then(|m| m.get("id"))
                    .and_then(|i| i.as_str())
            });
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
            self.deltas
                .push(DeltaEntry(Key::of(&[id, ""]), tokens, mask));
        }
    }

    pub(super) fn add_claude(
        &mut self,
        v: Json<'_>,
        top: ClaudeTop<'_>,
        ty: Option<&str>,
        ctx: &InputContext,
        day: u32,
    ) {
        let session = match top.session.and_then(|s| s.as_str()) {
            Some(s) => self.session_id(s),
            None => NONE,
        };
        self.count_session_record(session);
        if let (true, Some(cwd)) = (session != NONE, top.cwd.and_then(|c| c.as_str())) {
            self.set_cwd(session, cwd);
        }
        match ty {
            Some("assistant") => {
                let Some(message) = top.message else {
                    return;
                };
                let (attr, content) =
                    self.add_claude_message(message, top.request, session, ctx, day);
                if let Some(cost) = top.cost {
                    // Old transcripts: a cost per message, repeated on its lines.
                    let id = message.get("id").and_then(|i| i.as_str());
                    let req = top.request.and_then(|(r, _)| r.as_str()).unwrap_or("");
                    let key = match id {
                        Some(id) => self.recent.message_key(id, req),
                        None => Key::of(&["costUSD line", &self.message_costs.len().to_string()]),
                    };
                    self.message_costs.insert(key, (attr, cost));
                }
                if let Some(content) = content {
                    content.for_each_element(|block| {
                        let [ty, id, name] = block.get_many(["type", "id", "name"]);
                        if ty.and_then(|t| t.as_str()) == Some("tool_use") {
                            if let Some(id) = id.and_then(|i| i.as_str()) {
                                let name = name.and_then(|n| n.as_str()).unwrap_or("(unknown)");
                                let name = self.strings.id(name);
                                self.tool_calls.push(ToolEntry(Key::of(&[id]), name, attr));
                            }
                        }
                    });
                }
            }
            Some("stream_event") => {
                if let Some(event) = v.get("event") {
                    self.add_message_delta(v, event);
                }
            }
            Some("user") => {
                let Some(content) = top.message.and_then(|m| m.get("content")) else {
                    return;
                };
                content.for_each_element(|block| {
                    let [ty, is_error, id] = block.get_many(["type", "is_error", "tool_use_id"]);
                    if ty.and_then(|t| t.as_str()) == Some("tool_result")
                        && is_error.and_then(|e| e.as_bool()) == Some(true)
                    {
                        if let Some(id) = id.and_then(|i| i.as_str()) {
                            self.tool_errors.push(Key::of(&[id]));
                        }
                    }
                });
            }
            Some("result") if session != NONE || v.has("usage") => {
                let mut model_usage: Option<Vec<(u32, Tokens)>> = None;
                if let Some(mu) = v.get("modelUsage").filter(|m| m.is_object()) {
                    let mut list = Vec::new();
                    mu.for_each_entry(|model, usage| {
                        if usage.is_object() {
                            list.push((model.to_string(), Tokens::from_model_usage(usage)));
                        }
                    });
                    if !list.is_empty() {
                        model_usage = Some(
                            list.into_iter()
                                .map(|(m, t)| (self.strings.id(&m), t))
                                .collect(),
                        );
                    }
                }
                let entry = self.results.entry(session).or_default();
                entry.file = ctx.file;
                entry.day = day;
                if let Some(usage) = v.get("usage") {
                    let has_ints = usage
                        .get("input_tokens")
                        .and_then(|n| n.as_count())
                        .is_some()
                        && usage
                            .get("output_tokens")
                            .and_then(|n| n.as_count())
                            .is_some();
                    if has_ints {
                        entry.tokens = Some(Tokens::from_claude(usage));
                        entry.model_usage = model_usage;
                    }
                }
                if let Some(cost) = ["total_cost_usd", "cost_usd", "costUSD"]
                    .iter()
                    .find_map(|k| v.get(k).and_then(|c| c.as_cost()))
                {
                    entry.cost_usd = Some(cost);
                }
                if let Some(t) = v.get("num_turns").and_then(|n| n.as_count()) {
                    entry.turns = Some(t);
                }
                if let Some(d) = v.get("duration_ms").and_then(|n| n.as_count()) {
                    entry.duration_ms = Some(d);
                }
            }
            _ => {}
        }
    }
}
