//! `--grep REGEX`: records whose human text matches a regular expression.
//!
//! The human text of a record is its agent's to say: each agent's `texts` module
//! (`src/dialect/<agent>/texts.rs`, through `Dialect::for_each_text`) hands over its
//! pieces; the table of what each dialect's text is, is in docs/REFERENCE.md ("`--grep`
//! human text, per dialect"). This module is the search: the patterns, the prefilter,
//! and the escapes.
//!
//! Each piece of text is matched on its own (a match never spans two pieces). A literal
//! prefilter runs on the raw line first: the literals that every match must contain are
//! taken out of the regex (regex-syntax's extractor), cut to the characters JSON writes
//! verbatim, and looked for in the raw bytes; a line holding none of them (and no `\u`
//! escape of a character other than a control character, which could hide one) cannot
//! match, and is passed over without a walk. The same test runs again on each piece of
//! text that has escapes, on its raw (still escaped) bytes, before it is unescaped: most
//! such pieces in a line that passed (a tool's output full of `\n` and ANSI colours)
//! cannot match and are never copied. A piece without escapes is searched where it lies
//! in the record.

use super::expr::{check_syntax, regex_error, ExprError};
use crate::dialect::Dialect;
use crate::json::Json;
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::Hir;

/// The compiled `--grep` patterns (any of them may match) and their prefilter.
#[derive(Debug, Clone)]
pub struct Grep {
    regexes: Vec<regex::bytes::Regex>,
    /// Matches every raw line that may hold a match (`None`: every line may).
    prefilter: Option<regex::bytes::Regex>,
    /// When every pattern matches exactly a set of literals with no backslash (`panic`,
    /// `package\.json`, `-i error`): finds them, so that a string with escapes which holds
    /// one outside its escapes matches without being unescaped.
    exact: Option<regex::bytes::Regex>,
}

impl Grep {
    /// Compiles the patterns; a syntax error points at the character.
    pub fn new(patterns: &[String], ignore_case: bool) -> Result<Grep, ExprError> {
        let mut regexes = Vec::new();
        let mut literals = Some(Vec::new());
        let mut exact = Some(Vec::new());
        for pattern in patterns {
            let hir = check_syntax(pattern, ignore_case)?;
            exact = match (exact, exact_literals(&hir)) {
                (Some(mut all), Some(more)) => {
                    all.extend(more);
                    Some(all)
                }
                _ => None,
            };
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
        let exact = exact
            .filter(|l| !l.is_empty())
            .and_then(|l| literal_matcher(&l));
        Ok(Grep {
            regexes,
            prefilter,
            exact,
        })
    }

    /// Whether the prefilter lets the raw text through: a whole line, or the raw bytes of
    /// one string's contents.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        match &self.prefilter {
            None => true,
            Some(p) => p.is_match(raw) || has_hiding_escape(raw),
        }
    }

    /// Whether a piece of the record's human text matches.
    pub fn matches(&self, raw: &[u8], dialect: Option<Dialect>, value: Json<'_>) -> bool {
        if !self.may_match(raw) {
            return false;
        }
        Dialect::for_each_text(dialect, value, &mut |piece| self.piece_matches(piece))
    }

    /// Whether one string value matches (anything else does not). A string with escapes
    /// is unescaped only when its raw bytes pass the prefilter.
    fn piece_matches(&self, piece: Json<'_>) -> bool {
        if let Some(raw) = piece.escaped_raw() {
            let raw = raw.as_bytes();
            if !self.may_match(raw) {
                return false;
            }
            // A literal without a backslash that starts outside every escape lies wholly
            // outside them: the unescaped text holds it too. One that starts inside an
            // escape (the `n` of `\n`) proves nothing, and neither does no literal at all
            // (a `\u` escape may write one): the text is unescaped and searched.
            if let Some(found) = self.exact.as_ref().and_then(|e| e.find(raw)) {
                let start = found.start();
                if !raw[start.saturating_sub(5)..start].contains(&b'\\') {
                    return true;
                }
            }
        }
        piece
            .as_str()
            .is_some_and(|text| self.regexes.iter().any(|r| r.is_match(text.as_bytes())))
    }
}

/// Whether `raw` (JSON text) holds a `\u` escape that may write a character of a
/// prefilter literal. Literals hold no control characters, so `\u0000` to `\u001f` (the
/// ANSI colours of tool output are `\u001b`) hide none; a `\u` after an escaped
/// backslash (`\\u`) is no escape at all.
fn has_hiding_escape(raw: &[u8]) -> bool {
    memchr::memmem::find_iter(raw, b"\\u").any(|at| {
        let before = raw[..at].iter().rev().take_while(|&&b| b == b'\\').count();
        before % 2 == 0 && !matches!(raw.get(at + 2..at + 5), Some([b'0', b'0', b'0' | b'1']))
    })
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

/// The literals that `hir` matches, and nothing else, when it is such a set (no
/// repetition, no look-around such as `^` or `\b`, within the extractor's limits) and no
/// literal holds a backslash; `None` otherwise.
fn exact_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    if !hir.properties().look_set().is_empty() {
        return None;
    }
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    let lits = seq.literals()?;
    let usable = seq.is_exact()
        && !lits.is_empty()
        && lits
            .iter()
            .all(|l| !l.as_bytes().is_empty() && !l.as_bytes().contains(&b'\\'));
    usable.then(|| lits.iter().map(|l| l.as_bytes().to_vec()).collect())
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The search for `patterns`, for the tests here and the agents' text tests.
    pub(crate) fn grep(patterns: &[&str], ignore_case: bool) -> Grep {
        let p: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        Grep::new(&p, ignore_case).expect("compiles")
    }

    /// Whether the line of the dialect named `dialect` matches; the tape (whose escaped
    /// strings are looked at raw first) and serde_json (already unescaped) must agree.
    pub(crate) fn hit(g: &Grep, dialect: &str, line: &str) -> bool {
        let dialect = Dialect::parse(dialect).expect("a dialect name");
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let serde = g.matches(line.as_bytes(), Some(dialect), Json::Serde(&v));
        let mut doc = crate::tape::Doc::new();
        assert!(doc.parse(line, 128), "the tape reads {line}");
        let root = Json::Tape(crate::json::TapeValue::root(&doc, line));
        let tape = g.matches(line.as_bytes(), Some(dialect), root);
        assert_eq!(tape, serde, "tape and serde_json differ on {line}");
        tape
    }

    #[test]
    fn an_escaped_character_does_not_fool_the_prefilter() {
        // `é` written as \u00e9, `<` as \u003c (Go's encoder does that).
        let line = r#"{"type":"user","message":{"content":"caf\u00e9 \u003cb\u003e"}}"#;
        assert!(hit(&grep(&["café"], false), "jsonrpc", line));
        assert!(hit(&grep(&["<b>"], false), "jsonrpc", line));
        let newline = r#"{"type":"user","message":{"content":"one\ntwo"}}"#;
        assert!(hit(&grep(&["one\ntwo"], false), "jsonrpc", newline));
        assert!(hit(&grep(&["(?m)^two"], false), "jsonrpc", newline));
    }

    #[test]
    fn only_escapes_that_can_write_a_literal_character_defeat_the_prefilter() {
        assert!(!has_hiding_escape(br#"red \u001b[31m \u0000 \u001F"#));
        assert!(has_hiding_escape(br#"caf\u00e9"#));
        assert!(has_hiding_escape(br#"\u0070anic"#));
        assert!(has_hiding_escape(br#"\ud83d\ude00"#));
        // An escaped backslash followed by `u` is text, not an escape.
        assert!(!has_hiding_escape(br#"C:\\users"#));
        assert!(has_hiding_escape(br#"C:\\\u0041"#));
        let g = grep(&["panic"], false);
        let ansi = r#"{"type":"user","message":{"content":"\u001b[31merror\u001b[0m"}}"#;
        assert!(!g.may_match(ansi.as_bytes()));
        let hidden = r#"{"type":"user","message":{"content":"\u0070anic"}}"#;
        assert!(hit(&g, "jsonrpc", hidden));
    }

    #[test]
    fn a_match_may_lie_across_escapes_in_any_piece() {
        // The first piece has escapes and none of the literal; the match is in the
        // second, across `\n`, `\"` and `\u00e9`.
        let line = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a\nb"},{"type":"text","text":"x \"caf\u00e9\"\n  panic: y"}]}}"#;
        assert!(hit(&grep(&["\"café\"\n +panic"], false), "jsonrpc", line));
        assert!(hit(&grep(&["(?m)^  panic"], false), "jsonrpc", line));
        assert!(!hit(&grep(&["npanic"], false), "jsonrpc", line));
        assert!(!hit(&grep(&["u00e9"], false), "jsonrpc", line));
        assert!(hit(&grep(&["a\nb"], false), "jsonrpc", line));
    }

    #[test]
    fn only_literal_sets_without_assertions_are_exact() {
        let exact = |p: &str, i: bool| {
            let hir = check_syntax(p, i).expect("compiles");
            exact_literals(&hir).map(|l| l.len())
        };
        assert_eq!(exact("panic", false), Some(1));
        assert_eq!(exact(r"package\.json|Cargo\.toml", false), Some(2));
        assert_eq!(exact("ab", true), Some(4));
        for inexact in [r"^panic", r"\bpanic", "pan+ic", "p.nic", r"a\\b", "a|"] {
            assert_eq!(exact(inexact, false), None, "{inexact}");
        }
        // A literal found right after a backslash is inside an escape: no verdict from
        // it, the text is unescaped and searched.
        let g = grep(&["tab"], false);
        assert!(g.exact.is_some());
        let line = r#"{"type":"user","message":{"content":"a\tab"}}"#;
        assert!(!hit(&g, "jsonrpc", line));
        let line = r#"{"type":"user","message":{"content":"a\ttab\n"}}"#;
        assert!(hit(&g, "jsonrpc", line));
        let line = r#"{"type":"user","message":{"content":"\\tab"}}"#;
        assert!(hit(&g, "jsonrpc", line));
        // Far enough from the escape: found in the raw bytes, never unescaped.
        let line = r#"{"type":"user","message":{"content":"a\nxxxxxtab"}}"#;
        assert!(hit(&g, "jsonrpc", line));
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

    /// Every string of a JSON-RPC record is its text, however deep.
    #[test]
    fn every_string_of_a_jsonrpc_record_is_text() {
        let g = grep(&["hello"], false);
        let rpc = r#"{"id":1,"result":{"deep":["x","hello"]}}"#;
        assert!(hit(&g, "jsonrpc", rpc));
    }
}
