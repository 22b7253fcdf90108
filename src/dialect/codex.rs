//! `codex`: `codex exec --json` (SCHEMA-NOTES.md section 3): thread, turn and item events.

use super::{expect, SchemaProblem, Want};
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

/// The token counts of a Codex usage object (exec `usage`, rollout `total_token_usage`).
pub(super) const CODEX_COUNTS: [&str; 5] = [
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "cache_write_input_tokens",
];

pub(super) fn check(obj: Json<'_>, ty: &str, p: &mut Vec<SchemaProblem>) {
    match ty {
        "thread.started" => expect(obj, "thread_id", Want::Str, true, p),
        "turn.completed" => {
            expect(obj, "usage", Want::Obj, true, p);
            super::check_counts(obj.get("usage"), "usage", CODEX_COUNTS, p);
        }
        "turn.failed" => {
            expect(obj, "error", Want::Obj, true, p);
            expect(obj, "error.message", Want::Str, false, p);
        }
        "item.started" | "item.updated" | "item.completed" => {
            expect(obj, "item", Want::Obj, true, p);
            expect(obj, "item.id", Want::Str, true, p);
            expect(obj, "item.type", Want::Str, true, p);
        }
        "error" => expect(obj, "message", Want::Str, true, p),
        _ => {}
    }
}
