//! `codex-log`: Codex session rollouts (`~/.codex/sessions/**/rollout-*.jsonl`):
//! `{timestamp, type, payload}` records (SCHEMA-NOTES.md section 5).

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
