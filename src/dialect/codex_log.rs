//! `codex-log`: Codex session rollouts (`~/.codex/sessions/**/rollout-*.jsonl`):
//! `{timestamp, type, payload}` records (SCHEMA-NOTES.md section 5).

use super::agent::{Agent, StatsReader};
use super::{expect, SchemaProblem, Want};
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

pub(super) fn check(obj: Json<'_>, ty: &str, p: &mut Vec<SchemaProblem>) {
    expect(obj, "timestamp", Want::Str, false, p);
    match ty {
        "session_meta" => {
            expect(obj, "payload", Want::Obj, true, p);
            expect(obj, "payload.id", Want::Str, true, p);
        }
        "turn_context" => {
            expect(obj, "payload", Want::Obj, true, p);
            expect(obj, "payload.model", Want::Str, false, p);
        }
        "response_item" | "event_msg" => {
            expect(obj, "payload", Want::Obj, true, p);
            expect(obj, "payload.type", Want::Str, true, p);
            let payload = obj.get("payload");
            let is_count =
                payload.and_then(|p| p.get("type")).and_then(|t| t.as_str()) == Some("token_count");
            if is_count {
                let info = payload.and_then(|p| p.get("info"));
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
    match v.get("type").and_then(|t| t.as_str()) {
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
    input_includes_cache: false,
    result_text_tells_failure: false,
    carries_session: true,
    inherits_context: true,
    events: Some(&events::Rollout),
    stats: StatsReader::Typed(stats::read),
    gap_ops: gaps::ops,
    input_end: InputEnd::Nothing,
    texts: texts::each,
    programs: &[],
    resume: None,
    run_facts: None,
};
