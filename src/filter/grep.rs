//! `--grep REGEX`: records whose human text matches a regular expression.
//!
//! The human text of a record, per dialect:
//!
//! - **claude, claude-log**: `message.content` when it is a string; of its blocks, the
//!   `text` of text blocks, the `thinking` of thinking blocks, every string in a
//!   tool_use's `input`, a tool_result's `content` (a string, or the `text` of its text
//!   blocks); a `result` record's `result`; a transcript `summary`'s `summary`.
//! - **codex** (`exec --json`): of the `item`, `text` (agent messages, reasoning),
//!   `command` and `aggregated_output` (commands), every string of `arguments` and
//!   `result` (MCP calls), the `path` of each file change, `message` (error items); a
//!   top-level `error`'s `message`; `turn.failed`'s `error.message`.
//! - **codex-log** (rollouts): of the `payload`, the `text` of each `content` and
//!   `summary` part (messages, reasoning), `arguments` and `input` (tool calls), `output`
//!   (tool outputs: a string, or every string in it), every string of `action`
//!   (`local_shell_call`), and the `message`, `text` and `last_agent_message` of
//!   `event_msg` payloads.
//! - **jsonrpc, generic**: every string value. A record read before its input's dialect
//!   is decided is read as the dialect whose known types hold its type, else as generic.
//!
//! Each piece of text is matched on its own (a match never spans two pieces). A literal
//! prefilter runs on the raw line first: the literals that every match must contain are
//! taken out of the regex (regex-syntax's extractor), cut to the characters JSON writes
//! verbatim, and looked for in the raw bytes; a line holding none of them (and no `\u`
//! escape, which could hide one) cannot match, and is passed over without a walk.

use super::expr::{check_syntax, regex_error, ExprError};
use crate::dialect::Dialect;
use crate::json::{Json, Kind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::Hir;

/// The compiled `--grep` patterns (any of them may match) and their prefilter.
#[derive(Debug, Clone)]
pub struct Grep {
    regexes: Vec<regex::bytes::Regex>,
    /// Matches every raw line that may hold a match (`None`: every line may).
    prefilter: Option<regex::bytes::Regex>,
}

impl Grep {
    /// Compiles the patterns; a syntax error points at the character.
    pub fn new(patterns: &[String], ignore_case: bool) -> Result<Grep, ExprError> {
        let mut regexes = Vec::new();
        let mut literals = Some(Vec::new());
        for pattern in patterns {
            let hir = check_syntax(pattern, ignore_case)?;
            regexes.push(
                regex::bytes::RegexBuilder::new(pattern)
                    .case_insensitive(ignore_case)
                    .build()
                    .map_err(|e| regex_error(pattern, e))?,
            );
            literals = match (literals, required_literals(&hir)) {
                (Some(mut all), Some(more)) => {
                    all.extend(more);
                    Some(all)
                }
                _ => None,
            };
        }
        let prefilter = literals
            .filter(|l| !l.is_empty())
            .and_then(|l| literal_matcher(&l));
        Ok(Grep { regexes, prefilter })
    }

    /// Whether the prefilter lets the raw line through.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        match &self.prefilter {
            None => true,
            Some(p) => p.is_match(raw) || memchr::memmem::find(raw, b"\\u").is_some(),
        }
    }

    /// Whether a piece of the record's human text matches.
    pub fn matches(&self, raw: &[u8], dialect: Option<Dialect>, value: Json<'_>) -> bool {
        if !self.may_match(raw) {
            return false;
        }
        for_each_text(dialect, value, &mut |text| {
            self.regexes.iter().any(|r| r.is_match(text.as_bytes()))
        })
    }
}

/// Byte strings one of which every match of `hir` contains, as they appear in a JSON
/// string written without escapes; `None` when there are none to rely on.
fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    for kind in [ExtractKind::Prefix, ExtractKind::Suffix] {
        let seq = Extractor::new().kind(kind).extract(hir);
        let Some(lits) = seq.literals() else {
            continue;
        };
        if lits.is_empty() {
            continue;
        }
        let safe: Option<Vec<Vec<u8>>> = lits
            .iter()
            .map(|l| longest_verbatim_run(l.as_bytes()).map(<[u8]>::to_vec))
            .collect();
        if safe.is_some() {
            return safe;
        }
    }
    None
}

/// The longest run of bytes that a JSON writer copies into a string as they are (not `"`,
/// `\`, `/` or control characters), if it is not empty.
fn longest_verbatim_run(lit: &[u8]) -> Option<&[u8]> {
    lit.split(|&b| b < 0x20 || matches!(b, b'"' | b'\\' | b'/' | 0x7F))
        .max_by_key(|run| run.len())
        .filter(|run| !run.is_empty())
}

/// One regex that finds any of the literals (the regex crate turns an alternation of
/// literals into a multi-substring search).
fn literal_matcher(literals: &[Vec<u8>]) -> Option<regex::bytes::Regex> {
    let mut pattern = String::from("(?-u:");
    for (i, lit) in literals.iter().enumerate() {
        if i > 0 {
            pattern.push('|');
        }
        for b in lit {
            pattern.push_str(&format!("\\x{b:02X}"));
        }
    }
    pattern.push(')');
    regex::bytes::Regex::new(&pattern).ok()
}

/// Calls `f` with each piece of the record's human text until it returns true; returns
/// whether it did.
pub fn for_each_text<'a>(
    dialect: Option<Dialect>,
    value: Json<'a>,
    f: &mut dyn FnMut(&'a str) -> bool,
) -> bool {
    match dialect {
        Some(Dialect::Claude | Dialect::ClaudeLog) => claude_text(value, f),
        Some(Dialect::Codex) => codex_text(value, f),
        Some(Dialect::CodexLog) => codex_log_text(value, f),
        Some(Dialect::JsonRpc | Dialect::Generic) => strings(Some(value), f),
        // Claude's shape: its message text; Cursor's tool calls as all their strings.
        Some(Dialect::Qwen) => claude_text(value, f),
        Some(Dialect::Cursor) => match str_at(value, "type") {
            Some("tool_call" | "thinking") => strings(Some(value), f),
            _ => claude_text(value, f),
        },
        // The other agents' human text is most of their strings: all of them are searched.
        Some(
            Dialect::Gemini
            | Dialect::GeminiLog
            | Dialect::QwenLog
            | Dialect::OpenCode
            | Dialect::Copilot,
        ) => strings(Some(value), f),
        // Before detection has decided (a transcript opening with file-history-snapshot
        // lines): the dialect whose known types hold the record's type.
        None => {
            let ty = str_at(value, "type");
            let guess = [
                Dialect::ClaudeLog,
                Dialect::Claude,
                Dialect::Codex,
                Dialect::CodexLog,
            ]
            .into_iter()
            .find(|d| ty.is_some_and(|t| d.known_types().contains(&t)));
            match guess {
                Some(d) => for_each_text(Some(d), value, f),
                None => strings(Some(value), f),
            }
        }
    }
}

fn str_at<'a>(v: Json<'a>, key: &str) -> Option<&'a str> {
    v.get(key).and_then(|s| s.as_str())
}

/// `f` on the string, if there is one.
fn one<'a>(s: Option<&'a str>, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    s.is_some_and(f)
}

/// `f` on every string value in `v`, at any depth (object keys excluded).
fn strings<'a>(v: Option<Json<'a>>, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    let Some(v) = v else {
        return false;
    };
    let mut done = false;
    match v.kind() {
        Kind::String => return one(v.as_str(), f),
        Kind::Object => v.for_each_entry(|_, child| {
            if !done {
                done = strings(Some(child), f);
            }
        }),
        Kind::Array => v.for_each_element(|child| {
            if !done {
                done = strings(Some(child), f);
            }
        }),
        _ => {}
    }
    done
}

/// `f` on the `key` string of each element of an array.
fn each_at<'a>(array: Option<Json<'a>>, key: &str, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    let mut done = false;
    if let Some(a) = array {
        a.for_each_element(|e| {
            if !done {
                done = one(str_at(e, key), f);
            }
        });
    }
    done
}

fn claude_text<'a>(v: Json<'a>, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    if let Some(content) = v.get("message").and_then(|m| m.get("content")) {
        if content.kind() == Kind::String {
            return one(content.as_str(), f);
        }
        let mut done = false;
        content.for_each_element(|block| {
            if done {
                return;
            }
            done = match str_at(block, "type") {
                Some("text") => one(str_at(block, "text"), f),
                Some("thinking") => one(str_at(block, "thinking"), f),
                Some("tool_use") => strings(block.get("input"), f),
                Some("tool_result") => match block.get("content") {
                    Some(c) if c.kind() == Kind::String => one(c.as_str(), f),
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
        Some("result") => one(str_at(v, "result"), f),
        Some("summary") => one(str_at(v, "summary"), f),
        _ => false,
    }
}

fn codex_text<'a>(v: Json<'a>, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    if let Some(item) = v.get("item") {
        return ["text", "command", "aggregated_output", "message"]
            .iter()
            .any(|k| one(str_at(item, k), f))
            || strings(item.get("arguments"), f)
            || strings(item.get("result"), f)
            || each_at(item.get("changes"), "path", f);
    }
    match str_at(v, "type") {
        Some("error") => one(str_at(v, "message"), f),
        Some("turn.failed") => one(
            v.get("error")
                .and_then(|e| e.get("message"))
                .and_then(|m| m.as_str()),
            f,
        ),
        _ => false,
    }
}

fn codex_log_text<'a>(v: Json<'a>, f: &mut dyn FnMut(&'a str) -> bool) -> bool {
    let Some(p) = v.get("payload") else {
        return false;
    };
    match str_at(v, "type") {
        Some("response_item") => {
            each_at(p.get("content"), "text", f)
                || each_at(p.get("summary"), "text", f)
                || one(str_at(p, "arguments"), f)
                || one(str_at(p, "input"), f)
                || strings(p.get("output"), f)
                || strings(p.get("action"), f)
        }
        Some("event_msg") => ["message", "text", "last_agent_message"]
            .iter()
            .any(|k| one(str_at(p, k), f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grep(patterns: &[&str], ignore_case: bool) -> Grep {
        let p: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        Grep::new(&p, ignore_case).expect("compiles")
    }

    fn hit(g: &Grep, dialect: Dialect, line: &str) -> bool {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        g.matches(line.as_bytes(), Some(dialect), Json::Serde(&v))
    }

    const ASSISTANT: &str = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Plan: \"quote\" it","signature":"secretsig"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la /tmp"}}]}}"#;

    #[test]
    fn claude_text_thinking_and_tool_input_not_metadata() {
        let g = grep(&["ls -la"], false);
        assert!(hit(&g, Dialect::Claude, ASSISTANT));
        assert!(hit(&grep(&["Plan"], false), Dialect::Claude, ASSISTANT));
        assert!(!hit(
            &grep(&["secretsig"], false),
            Dialect::Claude,
            ASSISTANT
        ));
        assert!(!hit(&grep(&["Bash"], false), Dialect::Claude, ASSISTANT));
        assert!(!hit(
            &grep(&["assistant"], false),
            Dialect::Claude,
            ASSISTANT
        ));
        // A quote is escaped in the raw line: the prefilter keeps the part without it.
        assert!(hit(
            &grep(&["\"quote\""], false),
            Dialect::Claude,
            ASSISTANT
        ));
        assert!(hit(&grep(&["/tmp$"], false), Dialect::Claude, ASSISTANT));
        assert!(hit(&grep(&["PLAN"], true), Dialect::Claude, ASSISTANT));
        assert!(!hit(&grep(&["PLAN"], false), Dialect::Claude, ASSISTANT));
        assert!(hit(
            &grep(&["nope", "la /"], false),
            Dialect::Claude,
            ASSISTANT
        ));
    }

    #[test]
    fn an_escaped_character_does_not_fool_the_prefilter() {
        // `é` written as \u00e9, `<` as \u003c (Go's encoder does that).
        let line = r#"{"type":"user","message":{"content":"caf\u00e9 \u003cb\u003e"}}"#;
        assert!(hit(&grep(&["café"], false), Dialect::Claude, line));
        assert!(hit(&grep(&["<b>"], false), Dialect::Claude, line));
        let newline = r#"{"type":"user","message":{"content":"one\ntwo"}}"#;
        assert!(hit(&grep(&["one\ntwo"], false), Dialect::Claude, newline));
        assert!(hit(&grep(&["(?m)^two"], false), Dialect::Claude, newline));
    }

    #[test]
    fn prefilter_literals_are_verbatim_runs() {
        let g = grep(&["foo\"barbaz"], false);
        let p = g.prefilter.as_ref().expect("a prefilter");
        assert!(p.is_match(b"xx barbaz"));
        assert!(!p.is_match(b"xx foo"));
        assert!(grep(&[".*"], false).prefilter.is_none());
        assert!(grep(&["a", ".*"], false).prefilter.is_none());
    }

    #[test]
    fn codex_items_and_other_dialects() {
        let g = grep(&["hello"], false);
        let item = r#"{"type":"item.completed","item":{"id":"hello","type":"command_execution","command":"echo hello","aggregated_output":""}}"#;
        assert!(hit(&g, Dialect::Codex, item));
        let id_only = r#"{"type":"item.completed","item":{"id":"hello","type":"x"}}"#;
        assert!(!hit(&g, Dialect::Codex, id_only));
        let rollout = r#"{"type":"response_item","payload":{"type":"message","content":[{"type":"output_text","text":"hello there"}]}}"#;
        assert!(hit(&g, Dialect::CodexLog, rollout));
        let rpc = r#"{"id":1,"result":{"deep":["x","hello"]}}"#;
        assert!(hit(&g, Dialect::JsonRpc, rpc));
    }
}
