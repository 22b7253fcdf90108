//! `codex-log`: Codex session rollouts (`~/.codex/sessions/**/rollout-*.jsonl`):
//! `{timestamp, type, payload}` records (testdata/corpus/SCHEMA-NOTES.md section 5).

use super::agent::{Agent, StatsReader};
use super::Head;
use super::{check_value, SchemaProblem, Want};
use crate::gaps::InputEnd;

pub(crate) mod events;
/// `stats`: rollout records into the stats store.
pub(super) mod stats;
pub(crate) mod tool_output;
use crate::input::LogFolder;
use crate::json::Json;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    "token_usage_record",
    "world_state",
];

/// Decisive: a rollout type with its `payload`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    matches!(
        ty,
        Some("session_meta" | "turn_context" | "response_item" | "event_msg")
    ) && obj.has("payload")
}

pub(super) fn check(_obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    // The same checks as `expect` on each path, with the record's two levels each walked
    // once (the top level by the classifier, whose walk found `timestamp` and `payload`):
    // every line of a rollout is checked, and the walks were most of the check's time. A
    // child of a missing `payload` is not checked (`expect`'s rule); a `payload` that is
    // not an object has no child (an array has no key).
    let (timestamp, payload) = (head.timestamp, head.payload);
    check_value(timestamp, "timestamp", Want::Str, false, p);
    let child = |found: Option<Json<'_>>, path, want, required, p: &mut Vec<SchemaProblem>| {
        if payload.is_some() {
            check_value(found, path, want, required, p);
        }
    };
    match ty {
        "session_meta" => {
            check_value(payload, "payload", Want::Obj, true, p);
            child(
                payload.and_then(|v| v.get("id")),
                "payload.id",
                Want::Str,
                true,
                p,
            );
        }
        "turn_context" => {
            check_value(payload, "payload", Want::Obj, true, p);
            let model = payload.and_then(|v| v.get("model"));
            child(model, "payload.model", Want::Str, false, p);
        }
        "response_item" | "event_msg" => {
            check_value(payload, "payload", Want::Obj, true, p);
            let [ptype, info] = match payload {
                Some(v) => v.get_many(["type", "info"]),
                None => [None; 2],
            };
            child(ptype, "payload.type", Want::Str, true, p);
            if ptype.and_then(|t| t.as_str()) == Some("token_count") {
                let total = info.and_then(|i| i.get("total_token_usage"));
                super::check_counts(
                    total,
                    "payload.info.total_token_usage",
                    super::codex::CODEX_COUNTS,
                    p,
                );
            }
        }
        _ => {}
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// The human text of its records (`filter --grep`).
pub(super) mod texts;

/// Only `session_meta` names the session (its `payload.id`).
fn named_session(v: Json<'_>) -> Option<&str> {
    match v.str("type") {
        Some("session_meta") => v.path(&["payload", "id"]).and_then(|s| s.as_str()),
        _ => None,
    }
}

/// The tool call of a rollout's `response_item`: a call by its `call_id` and tool, an
/// `*_output` by the `call_id` it answers (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if value.str("type") != Some("response_item") {
        return;
    }
    let Some(payload) = value.get("payload") else {
        return;
    };
    let ptype = payload.str("type").unwrap_or_default();
    match events::tool_name(ptype, payload.str("name")) {
        Some(name) => f(payload.str("call_id"), Some(name)),
        None if ptype.ends_with("_output") => f(payload.str("call_id"), None),
        None => {}
    }
}

/// Where Codex keeps its rollouts: `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
fn log_folders(
    set: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
    out: &mut Vec<LogFolder>,
) {
    match set("CODEX_HOME") {
        Some(dir) => out.push(LogFolder::whole(
            "Codex",
            PathBuf::from(dir).join("sessions"),
        )),
        None => {
            if let Some(h) = home {
                out.push(LogFolder::whole("Codex", h.join(".codex/sessions")));
            }
        }
    }
}

/// The `codex-log` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "codex-log",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: true,
    named_session,
    claude: None,
    carries_session: true,
    inherits_context: true,
    events: Some(|| Box::<events::Rollout>::default()),
    stats: StatsReader {
        read: stats::read,
        claude_fields: false,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::Nothing,
    texts: texts::each,
    tools,
    log_folders,
    cli: None,
};
