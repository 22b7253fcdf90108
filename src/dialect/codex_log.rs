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
use crate::json::Json;

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

/// The `codex-log` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "codex-log",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    named_session,
    reads_as_claude_messages: false,
    claude_top: false,
    input_includes_cache: false,
    result_text_tells_failure: false,
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
    programs: &[],
    resume: None,
    run_facts: None,
};
