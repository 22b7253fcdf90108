//! The human text of a Cursor record (`filter --grep`): its messages as Claude's
//! (`claude::texts::messages`); its `tool_call` and `thinking` records, every string.

use crate::dialect::texts::{str_at, strings};
use crate::json::Json;

/// `f` on each piece of the record's text, until it returns true; whether it did.
pub(in crate::dialect) fn each<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    match str_at(v, "type") {
        Some("tool_call" | "thinking") => strings(Some(v), f),
        _ => super::super::claude::texts::messages(v, f),
    }
}
