//! The human text of a Codex rollout record (`filter --grep`): of the `payload`, the
//! `text` of each `content` and `summary` part (messages, reasoning), `arguments` and
//! `input` (tool calls), `output` (tool outputs: a string, or every string in it), every
//! string of `action` (`local_shell_call`), and the `message`, `text` and
//! `last_agent_message` of `event_msg` payloads.

use crate::dialect::texts::{at, each_at, str_at, strings};
use crate::json::Json;

/// `f` on each piece of the record's text, until it returns true; whether it did.
pub(in crate::dialect) fn each<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    let Some(p) = v.get("payload") else {
        return false;
    };
    match str_at(v, "type") {
        Some("response_item") => {
            each_at(p.get("content"), "text", f)
                || each_at(p.get("summary"), "text", f)
                || at(p, "arguments", f)
                || at(p, "input", f)
                || strings(p.get("output"), f)
                || strings(p.get("action"), f)
        }
        Some("event_msg") => ["message", "text", "last_agent_message"]
            .iter()
            .any(|k| at(p, k, f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::filter::grep::tests::{grep, hit};

    /// A rollout's message text is searched.
    #[test]
    fn codex_log_message_text_is_searched() {
        let g = grep(&["hello"], false);
        let rollout = r#"{"type":"response_item","payload":{"type":"message","content":[{"type":"output_text","text":"hello there"}]}}"#;
        assert!(hit(&g, "codex-log", rollout));
    }
}
