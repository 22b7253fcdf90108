//! `stats`: Codex session rollouts into the stats store, through its narrow API
//! ([`Ingest`]): the session and model the records after `session_meta` and
//! `turn_context` are in, the last cumulative token count of each session, function calls
//! and their failed outputs.

use crate::dialect::facts::Top;
use crate::json::Json;
use crate::stats::{Ingest, Key, Tokens, NONE};

/// One record.
pub(crate) fn read(v: Json<'_>, top: &Top<'_>, s: &mut Ingest<'_>) {
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
            // The cumulative total: the last one of a session is its usage, however
            // often a count is re-emitted.
            if let Some(total) = info.and_then(|i| i.get("total_token_usage")) {
                s.cumulative_usage(session, Tokens::from_codex(total), attr);
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
