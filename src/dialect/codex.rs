//! `codex`: `codex exec --json` (SCHEMA-NOTES.md section 3): thread, turn and item events.

use crate::json::Json;

pub(super) const KNOWN_TYPES: &[&str] = &[
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
];

/// Decisive: a thread, turn or item event (a bare `error` alone is not enough).
pub(super) fn recognises(_obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_some_and(|t| {
        KNOWN_TYPES.contains(&t) && t != "error"
            || t.starts_with("thread.")
            || t.starts_with("turn.")
            || t.starts_with("item.")
    })
}
