//! The human text of a Claude message record (`filter --grep`; Claude's streams and
//! transcripts, Qwen Code's stream, Cursor's messages): `message.content` when it is a
//! string; of its blocks, the `text` of text blocks, the `thinking` of thinking blocks,
//! every string in a tool_use's `input`, a tool_result's `content` (a string, or the
//! `text` of its text blocks); a `result` record's `result`; a transcript `summary`'s
//! `summary`. Not the metadata: ids, tool names, signatures.

use crate::dialect::texts::{at, each_at, str_at, strings};
use crate::json::{Json, Kind};

/// `f` on each piece of the record's text, until it returns true; whether it did.
pub(in crate::dialect) fn messages<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    if let Some(content) = v.get("message").and_then(|m| m.get("content")) {
        if content.kind() == Kind::String {
            return f(content);
        }
        let mut done = false;
        content.for_each_element(|block| {
            if done {
                return;
            }
            done = match str_at(block, "type") {
                Some("text") => at(block, "text", f),
                Some("thinking") => at(block, "thinking", f),
                Some("tool_use") => strings(block.get("input"), f),
                Some("tool_result") => match block.get("content") {
                    Some(c) if c.kind() == Kind::String => f(c),
                    c => each_at(c, "text", f),
                },
                _ => false,
            };
        });
        if done {
            return true;
        }
    }
    match str_at(v, "type") {
        Some("result") => at(v, "result", f),
        Some("summary") => at(v, "summary", f),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::filter::grep::tests::{grep, hit};

    const ASSISTANT: &str = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Plan: \"quote\" it","signature":"secretsig"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la /tmp"}}]}}"#;

    #[test]
    fn claude_text_thinking_and_tool_input_not_metadata() {
        let g = grep(&["ls -la"], false);
        assert!(hit(&g, "claude", ASSISTANT));
        assert!(hit(&grep(&["Plan"], false), "claude", ASSISTANT));
        assert!(!hit(&grep(&["secretsig"], false), "claude", ASSISTANT));
        assert!(!hit(&grep(&["Bash"], false), "claude", ASSISTANT));
        assert!(!hit(&grep(&["assistant"], false), "claude", ASSISTANT));
        // A quote is escaped in the raw line: the prefilter keeps the part without it.
        assert!(hit(&grep(&["\"quote\""], false), "claude", ASSISTANT));
        assert!(hit(&grep(&["/tmp$"], false), "claude", ASSISTANT));
        assert!(hit(&grep(&["PLAN"], true), "claude", ASSISTANT));
        assert!(!hit(&grep(&["PLAN"], false), "claude", ASSISTANT));
        assert!(hit(&grep(&["nope", "la /"], false), "claude", ASSISTANT));
    }
}
