//! `stats`: Codex session rollouts into the stats store, through its narrow API
//! ([`Ingest`]): the session and model the records after `session_meta` and
//! `turn_context` are in, each response's usage (counted once, whatever repeats it; a
//! fork's cumulative totals start from its parent's), function calls and their failed
//! outputs.

use crate::dialect::stats_reader::TopFields;
use crate::json::Json;
use crate::stats::{Ingest, Key, NONE};

/// The first part of the key of a rollout's response, which its session's name and its
/// cumulative total after it complete ([`Ingest::response_key`]). Its bytes are in every
/// saved key: they never change.
pub(crate) const RESPONSE_KEY: &[u8] = b"codex response";

/// A `token_usage_record` (or a `compacted` record's `latest_token_usage_record`): one
/// response's `usage` and the thread's cumulative `thread_token_usage` after it, the same
/// response its `token_count` gives.
fn usage_record(s: &mut Ingest<'_>, session: u32, attr: u32, record: Json<'_>) {
    let [usage, total] = record.get_many(["usage", "thread_token_usage"]);
    if let (Some(usage), Some(total)) = (
        usage.filter(|u| u.is_object()),
        total.filter(|t| t.is_object()),
    ) {
        response(s, session, attr, usage, total);
    }
}

/// One response of a rollout: `usage` is its own, `total` the session's cumulative usage
/// after it, which names the response for every record that repeats it (a re-emitted
/// `token_count`, its `token_usage_record`), so it is counted once (docs/REFERENCE.md
/// "Lineage"). A fork's totals start from its parent's, so its own usage is the sum of
/// its responses, never its last total.
fn response(s: &mut Ingest<'_>, session: u32, attr: u32, usage: Json<'_>, total: Json<'_>) {
    let t = crate::dialect::codex::stats::tokens(total);
    let counts = [
        t.input,
        t.cache_read,
        t.cache_creation,
        t.output,
        t.reasoning_output,
    ];
    let key = s.response_key(session, counts);
    s.response_usage(
        session,
        key,
        crate::dialect::codex::stats::tokens(usage),
        attr,
    );
}

/// One record.
pub(crate) fn read(v: Json<'_>, top: &TopFields<'_>, s: &mut Ingest<'_>) {
    // The type and payload the classifier found in its walk over the record.
    let (ty, payload) = (top.ty(), top.payload());
    // The payload's fields this record's type may need, found in one walk over it: most
    // lines are messages, reasoning and events that need only their type.
    let [ptype, id, model, cwd, info, name, call_id, output] = match ty {
        Some("session_meta") => {
            let [id, cwd] = payload.map_or([None; 2], |p| p.get_many(["id", "cwd"]));
            [None, id, None, cwd, None, None, None, None]
        }
        Some("turn_context") => {
            let [model, cwd] = payload.map_or([None; 2], |p| p.get_many(["model", "cwd"]));
            [None, None, model, cwd, None, None, None, None]
        }
        Some("event_msg") => {
            let [ptype, info] = payload.map_or([None; 2], |p| p.get_many(["type", "info"]));
            [ptype, None, None, None, info, None, None, None]
        }
        Some("response_item") => {
            let keys = ["type", "id", "name", "call_id", "output"];
            let [ptype, id, name, call_id, output] =
                payload.map_or([None; 5], |p| p.get_many(keys));
            [ptype, id, None, None, None, name, call_id, output]
        }
        _ => [None; 8],
    };
    fn str_of(v: Option<Json<'_>>) -> Option<&str> {
        v.and_then(|v| v.as_str())
    }
    match ty {
        Some("session_meta") => {
            if let Some(id) = str_of(id) {
                s.input.session = s.session(id);
            }
        }
        Some("turn_context") => {
            if let Some(m) = str_of(model) {
                s.input.model = s.name(m);
            }
        }
        _ => {}
    }
    let session = s.input.session;
    if matches!(ty, Some("session_meta" | "turn_context")) && session != NONE {
        if let Some(cwd) = str_of(cwd) {
            s.set_cwd(session, cwd);
        }
    }
    s.count_record(session);
    if payload.is_none() {
        return;
    }
    let attr = s.attr(session, s.input.model);
    let ptype = str_of(ptype);
    match (ty, ptype) {
        (Some("event_msg"), Some("token_count")) => {
            let [total, last] = info.map_or([None; 2], |i| {
                i.get_many(["total_token_usage", "last_token_usage"])
            });
            match (
                total.filter(|t| t.is_object()),
                last.filter(|l| l.is_object()),
            ) {
                // One response: its own usage, keyed by the cumulative total it brings
                // the session to (a fork's totals start from its parent's).
                (Some(total), Some(last)) => response(s, session, attr, last, total),
                // An older count with no per-response usage: the session's last
                // cumulative total is its usage.
                (Some(total), None) => {
                    s.cumulative_usage(session, crate::dialect::codex::stats::tokens(total), attr);
                }
                _ => {}
            }
        }
        (Some("token_usage_record"), _) => {
            if let Some(p) = payload {
                usage_record(s, session, attr, p);
            }
        }
        (Some("compacted"), _) => {
            if let Some(r) = payload.and_then(|p| p.get("latest_token_usage_record")) {
                usage_record(s, session, attr, r);
            }
        }
        (
            Some("response_item"),
            Some("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call"),
        ) => {
            // The name the record gives, as `events` and `filter --tool` show it.
            let name =
                super::events::tool_name(ptype.unwrap_or(""), str_of(name)).unwrap_or("(unknown)");
            // A web search has no call id (at most its item id, as `events` shows it; else
            // the record itself is its key).
            let key = match (str_of(call_id), ptype) {
                (Some(id), _) => Some(Key::of(&[id])),
                (None, Some("web_search_call")) => Some(match str_of(id) {
                    Some(id) => Key::of(&[id]),
                    None => Key::of(&[&format!(
                        "{:016x}",
                        crate::dialect::codex::stats::fnv1a(v.to_compact_string().as_bytes())
                    )]),
                }),
                (None, _) => None,
            };
            if let Some(key) = key {
                s.tool_call(key, name, attr);
            }
        }
        (
            Some("response_item"),
            Some("function_call_output" | "custom_tool_call_output" | "local_shell_call_output"),
        ) => {
            let Some(id) = str_of(call_id) else {
                return;
            };
            if output.is_some_and(super::tool_output::failed) {
                s.tool_error(Key::of(&[id]));
            }
        }
        _ => {}
    }
}
