//! The human text of a `codex exec --json` record (`filter --grep`): of the `item`,
//! `text` (agent messages, reasoning), `command` and `aggregated_output` (commands),
//! `message` (error items), every string of `arguments` and `result` (MCP calls), the
//! `path` of each file change; a top-level `error`'s `message`; `turn.failed`'s
//! `error.message`.

use crate::dialect::texts::{at, each_at, str_at, strings};
use crate::json::Json;

/// `f` on each piece of the record's text, until it returns true; whether it did.
pub(in crate::dialect) fn each<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    if let Some(item) = v.get("item") {
        return ["text", "command", "aggregated_output", "message"]
            .iter()
            .any(|k| at(item, k, f))
            || strings(item.get("arguments"), f)
            || strings(item.get("result"), f)
            || each_at(item.get("changes"), "path", f);
    }
    match str_at(v, "type") {
        Some("error") => at(v, "message", f),
        Some("turn.failed") => v.get("error").is_some_and(|e| at(e, "message", f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::filter::grep::tests::{grep, hit};

    /// An item's command is its text, its id is not.
    #[test]
    fn codex_item_text_is_its_command_not_its_id() {
        let g = grep(&["hello"], false);
        let item = r#"{"type":"item.completed","item":{"id":"hello","type":"command_execution","command":"echo hello","aggregated_output":""}}"#;
        assert!(hit(&g, "codex", item));
        let id_only = r#"{"type":"item.completed","item":{"id":"hello","type":"x"}}"#;
        assert!(!hit(&g, "codex", id_only));
    }
}
