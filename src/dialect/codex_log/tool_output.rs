//! Whether a Codex rollout's tool output reports a failure: the one rule `stats`,
//! `events` and `gaps` all use (docs/REFERENCE.md, "One meaning everywhere"), and reading
//! it without unescaping the output.
//!
//! An output (`function_call_output`'s `output`) is a string, often a JSON document
//! written inside it: `"{\"output\":\"…\",\"metadata\":{\"exit_code\":1}}"`, or an
//! object `{content, success}`. The rule ([`failed_exact`]): an object's `success: false`
//! says it failed (`success: true`, that it did not); a text that starts with `failed in
//! sandbox` (Codex could not run the command at all) failed; when the text is a JSON
//! document with an integer `metadata.exit_code`, that code decides; otherwise a
//! `Process exited with code N` or `Exit code: N` in the text does. Read that way, every
//! output is unescaped and parsed a second time, which cost more than all the rest of
//! `stats`.
//!
//! [`failed`] gives the same answer from the string as the record writes it, when it has
//! no `\u` escape (so every character is itself or a two-byte escape). It reads
//! `metadata.exit_code` from the end of the document (where Codex writes it, after the
//! long `output`: its own `"metadata":{"exit_code":N,"duration_seconds":D}}` is matched as
//! written, another tail key by key), or else the top-level keys from the start, jumping
//! over its strings with `memchr`, without checking the document is JSON. That reading is
//! right for every document the parser accepts; for one it refuses, the rule falls back to
//! the markers, which are found in the escaped text (they hold no character that is ever
//! escaped). So an answer needs either the markers to agree with the code (then both
//! branches of the rule give it) or the document to be JSON (then the code gives it), and
//! the shortcut looks for the cheaper first:
//!
//! - code 0 (most commands): the markers, one `memmem` pass, nearly always agree; only if
//!   they say it failed is the document checked;
//! - another code: commands that failed seldom say so in words as well, so the document is
//!   checked as JSON first, and the markers searched only if the check cannot vouch for it;
//! - no code: the markers decide.
//!
//! The check ([`Escaped::is_surely_json`]) is conservative: what it cannot vouch for (an
//! escaped control character, a surrogate, an exponent, a long number, deep nesting) goes
//! on. A long string (a command's output) is checked 64 bytes at a time
//! ([`checked_string_blocks`]; AVX2 where the CPU has it, with the byte-by-byte check,
//! [`checked_string_bytes`], as the fallback and the tests' reference). What is left, or
//! what the reading cannot tell (a key with escapes, a string that is not closed), is
//! unescaped into a reused buffer and parsed. An output with a `\u` escape, or one that is
//! not a string, goes to [`failed_exact`]. docs/PERFORMANCE.md ("The Codex tool-output
//! test") has the figures.

use crate::json::Json;
use crate::tape::escaped::*;
use memchr::memmem::Finder;
use std::sync::LazyLock;

/// Whether a rollout tool output reports a non-zero exit (see the module docs).
pub(crate) fn failed(output: Json<'_>) -> bool {
    output
        .raw_str()
        .and_then(|raw| match raw.starts_with(SANDBOX_FAILED) {
            // the marker holds nothing ever escaped: the raw text starts with it exactly
            // when the value does
            true => Some(true),
            false => failed_escaped(raw),
        })
        .unwrap_or_else(|| failed_exact(output))
}

/// How Codex starts the output of a command its sandbox could not run.
const SANDBOX_FAILED: &str = "failed in sandbox";

/// The reference: unescapes the output and parses the document it holds.
pub(crate) fn failed_exact(output: Json<'_>) -> bool {
    if let Some(success) = output.get("success").and_then(|s| s.as_bool()) {
        return !success;
    }
    let text: std::borrow::Cow<'_, str> = match output.as_str() {
        Some(t) if t.starts_with(SANDBOX_FAILED) => return true,
        Some(t) => t.into(),
        None => match output.str("content") {
            Some(t) => t.into(),
            None => output.to_compact_string().into(),
        },
    };
    let code_after = |marker: &str| -> Option<i64> {
        let at = text.find(marker)? + marker.len();
        let rest = text[at..].trim_start();
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        rest[..end].parse().ok()
    };
    if text.starts_with('{') {
        if let Some(code) = document_exit_code(&text) {
            return code != 0;
        }
    }
    code_after(PROCESS_EXITED)
        .or_else(|| code_after(EXIT_CODE))
        .is_some_and(|code| code != 0)
}

const PROCESS_EXITED: &str = "Process exited with code";
const EXIT_CODE: &str = "Exit code:";

/// The part both markers share: one search finds where either may be.
const XIT: &str = "xit";

/// Searchers for the markers and the key, built once.
static FIND_XIT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(XIT));
/// The key `"metadata"` as a document held in a string writes it.
const METADATA_KEY: &[u8] = b"\\\"metadata\\\"";

/// The parser of JSON documents held in a string (a Codex tool output), with the buffer
/// such a document is unescaped into.
struct Nested {
    decoder: crate::decode::Decoder,
    text: Vec<u8>,
}

thread_local! {
    /// One per thread, reused from output to output.
    static NESTED: std::cell::RefCell<Nested> = std::cell::RefCell::new(Nested {
        decoder: crate::decode::Decoder::new(128),
        text: Vec::new(),
    });
}

/// `metadata.exit_code` of the JSON document `text`, read with the project's parser (the
/// verdict on what is JSON stays serde_json's: a document the tape refuses is parsed by it).
fn document_exit_code(text: &str) -> Option<i64> {
    NESTED.with(|nested| {
        let mut nested = nested.try_borrow_mut().ok()?;
        exit_code_of(&mut nested.decoder, text.as_bytes())
    })
}

/// The `output` string of the document `{"output": …, "metadata": {…}}` held in `text`, as
/// its JSON text between the quotes, when that text is already what serde_json writes for
/// it (`events` then copies it as it is, neither unescaped nor escaped again). Read by the
/// same parser as [`document_exit_code`], so `events` and the failure rule take the same
/// documents for JSON. `None` when there is no such string, or when serde_json would
/// write it otherwise, or when only serde_json read the document.
pub(super) fn document_output(text: &str) -> Option<&str> {
    let (a, b) = NESTED.with(|nested| {
        let mut nested = nested.try_borrow_mut().ok()?;
        nested.decoder.decode(text.as_bytes(), |value| {
            value.ok()?.get("output")?.canonical_span()
        })
    })?;
    text.get(a..b)
}

fn exit_code_of(decoder: &mut crate::decode::Decoder, text: &[u8]) -> Option<i64> {
    decoder.decode(text, |value| {
        value
            .ok()?
            .path(&["metadata", "exit_code"])
            .and_then(|c| c.as_i64())
    })
}

/// [`document_exit_code`] of the value of the escaped text `raw` of a string without `\u`
/// escapes, unescaped into the reused buffer rather than a new string. `None` inside for
/// a document without an integer code; `None` outside for an escape that is not one.
fn escaped_document_exit_code(raw: &[u8]) -> Option<Option<i64>> {
    NESTED.with(|nested| {
        let mut nested = nested.try_borrow_mut().ok()?;
        let Nested { decoder, text } = &mut *nested;
        text.clear();
        text.reserve(raw.len());
        let mut i = 0;
        loop {
            // Escapes come every few bytes in tool output: look eight bytes at a time
            // rather than search for each backslash.
            if let Some(word) = raw.get(i..).and_then(|r| r.first_chunk::<8>()) {
                let at = first_backslash(u64::from_le_bytes(*word));
                text.extend_from_slice(word.get(..at)?);
                i += at;
                if at == 8 {
                    continue;
                }
            }
            let Some(&c) = raw.get(i) else { break };
            if c != b'\\' {
                text.push(c);
                i += 1;
                continue;
            }
            let at = i;
            text.push(match raw.get(at + 1)? {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                _ => return None,
            });
            i = at + 2;
        }
        Some(exit_code_of(decoder, text))
    })
}

/// [`failed_exact`]'s answer from the escaped text `raw` of a string without `\u`
/// escapes, or `None` when it cannot tell cheaply.
fn failed_escaped(raw: &str) -> Option<bool> {
    if !raw.starts_with('{') {
        return failed_by_markers(raw);
    }
    let doc = Escaped { b: raw.as_bytes() };
    let code = match doc.exit_code() {
        // The code decides when the document is JSON, the markers when it is not: when
        // both give the same answer, that is the answer. Look for the one that costs less
        // first. A command that failed mostly says so in the code alone, so the markers
        // would not agree: check the document (which then decides) rather than search it.
        Some(Some(code)) if code != 0 => {
            if doc.is_surely_json() {
                return Some(true);
            }
            if failed_by_markers(raw)? {
                return Some(true);
            }
            escaped_document_exit_code(raw.as_bytes())?
        }
        // A command that did not fail mostly says nothing about it: the markers, found
        // with one fast search, agree.
        Some(Some(_)) => {
            if !failed_by_markers(raw)? || doc.is_surely_json() {
                return Some(false);
            }
            escaped_document_exit_code(raw.as_bytes())?
        }
        Some(None) => return failed_by_markers(raw),
        None => escaped_document_exit_code(raw.as_bytes())?,
    };
    match code {
        Some(code) => Some(code != 0),
        None => failed_by_markers(raw),
    }
}

/// What the markers say in the escaped text `raw` (the last branch of [`failed_exact`]),
/// or `None` when it cannot be read without unescaping it.
fn failed_by_markers(raw: &str) -> Option<bool> {
    let (process_exited, exit_code) = first_markers(raw.as_bytes());
    let after = |at: Option<usize>, marker: &str| match at {
        Some(at) => code_after(raw, at + marker.len()),
        None => Some(None),
    };
    let markers = match after(process_exited, PROCESS_EXITED)? {
        Some(code) => Some(code),
        None => after(exit_code, EXIT_CODE)?,
    };
    Some(markers.is_some_and(|code| code != 0))
}

/// Where the first `Process exited with code` and the first `Exit code:` are in the
/// escaped text, found in one pass. A marker's first byte is no escape's letter and it
/// holds no `\`, so it is in the escaped text exactly where it is in the value.
fn first_markers(raw: &[u8]) -> (Option<usize>, Option<usize>) {
    let (mut process_exited, mut exit_code) = (None, None);
    for at in FIND_XIT.find_iter(raw) {
        // `xit` is 9 bytes into `Process exited with code`, 1 into `Exit code:`
        let starts = |marker: &str, xit_at: usize| {
            let from = at.checked_sub(xit_at)?;
            raw.get(from..)?
                .starts_with(marker.as_bytes())
                .then_some(from)
        };
        process_exited = process_exited.or_else(|| starts(PROCESS_EXITED, 9));
        exit_code = exit_code.or_else(|| starts(EXIT_CODE, 1));
        if process_exited.is_some() && exit_code.is_some() {
            break;
        }
    }
    (process_exited, exit_code)
}

/// `code_after(marker)` of [`failed_exact`] on the escaped text, the marker ending at
/// `i`: the integer after it (past white space), `Some(None)` when there is none, `None`
/// when the text cannot be read without unescaping it.
fn code_after(text: &str, mut i: usize) -> Option<Option<i64>> {
    let raw = text.as_bytes();
    // `trim_start`: white space is a character itself or an escape (`\n`, `\t`, `\r`, `\f`).
    loop {
        match raw.get(i) {
            Some(b'\\') => match raw.get(i + 1)? {
                b'n' | b't' | b'r' | b'f' => i += 2,
                b'"' | b'\\' | b'/' | b'b' => break,
                _ => return None,
            },
            Some(_) => {
                let c = text.get(i..)?.chars().next()?;
                if !c.is_whitespace() {
                    break;
                }
                i += c.len_utf8();
            }
            None => break,
        }
    }
    // A sign and digits are never escaped: the number is the bytes as they are.
    let start = i;
    if raw.get(i) == Some(&b'-') {
        i += 1;
    }
    while raw.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    Some(text.get(start..i)?.parse().ok())
}

impl Escaped<'_> {
    /// `metadata.exit_code` as an `i64`: `Some(None)` when the document (if it is JSON) has
    /// none, `None` when this reading cannot tell.
    fn exit_code(&self) -> Option<Option<i64>> {
        let code = match self.last_entry_metadata() {
            Some(code) => code,
            None => {
                let Some((start, _)) = self.last_value_of(0, b"metadata")?.0 else {
                    return Some(None);
                };
                if self.b.get(start) != Some(&b'{') {
                    return Some(None);
                }
                self.last_value_of(start, b"exit_code")?.0
            }
        };
        let Some((start, end)) = code else {
            return Some(None);
        };
        // A number is its own bytes; `-0` is a float to serde_json, and so are `1e2` and
        // `1.0`, which `parse` refuses as it refuses anything past 64 bits.
        let text = std::str::from_utf8(self.b.get(start..end)?).ok()?;
        Some(match text {
            "-0" => None,
            _ => text.parse().ok(),
        })
    }

    /// The span of `metadata.exit_code` (`Some(None)` for none) when `metadata` is the
    /// last entry of the document (as Codex writes it: after the long `output`), found
    /// from the end without reading the rest; `None` when the document ends otherwise.
    ///
    /// The last `\"metadata\"` whose quotes are the document's is the string
    /// `"metadata"` (between the document's strings there are no letters but literals);
    /// followed by `:`, a value, `}` and nothing but white space, it is a key of the
    /// top-level object, and its last one.
    fn last_entry_metadata(&self) -> Option<Option<(usize, usize)>> {
        // The last `m` two bytes into the key (its only `m`): Codex writes the key a few
        // dozen bytes from the end, and `memrchr` gets there in a few vector steps where
        // a reverse substring search goes byte by byte.
        let at = memchr::memrchr_iter(b'm', self.b)
            .filter_map(|m| m.checked_sub(2))
            .find(|&at| {
                self.b
                    .get(at..)
                    .is_some_and(|b| b.starts_with(METADATA_KEY))
            })?;
        let run = 1 + self.b[..at]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count();
        if run % 4 != 1 {
            return None;
        }
        if let Some(code) = self.codex_metadata(at + METADATA_KEY.len()) {
            return Some(Some(code));
        }
        let i = self.ws(at + METADATA_KEY.len())?;
        if self.b.get(i) != Some(&b':') {
            return None;
        }
        let start = self.ws(i + 1)?;
        // An object is read for its code on the way to its end.
        let (code, end) = match self.b.get(start)? {
            b'{' => self.last_value_of(start, b"exit_code")?,
            _ => (None, self.value_end(start)?),
        };
        let end = self.ws(end)?;
        (self.b.get(end) == Some(&b'}') && self.ws(end + 1)? == self.b.len()).then_some(code)
    }

    /// The span of the code when what follows the key at `i` is what Codex writes there,
    /// `:{"exit_code":N,"duration_seconds":D}}` and the end: read as it is, rather than
    /// key by key (as the rest of [`Escaped::last_entry_metadata`] would read it).
    fn codex_metadata(&self, i: usize) -> Option<(usize, usize)> {
        const CODE: &[u8] = br#":{\"exit_code\":"#;
        const DURATION: &[u8] = br#",\"duration_seconds\":"#;
        let rest = self.b.get(i..)?.strip_prefix(CODE)?;
        let start = i + CODE.len();
        let digits = usize::from(rest.first() == Some(&b'-'));
        let len = digits
            + rest[digits..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
        let duration = rest[len..].strip_prefix(DURATION)?.strip_suffix(b"}}")?;
        // a number, as `value_end` reads one
        let number = !duration.is_empty()
            && !duration
                .iter()
                .any(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\\'));
        number.then_some((start, start + len))
    }

    /// The span of the last value of `key` in the object starting at `at` (`None` inside
    /// when it has none), and the index after the object.
    fn last_value_of(&self, at: usize, key: &[u8]) -> Option<(Option<(usize, usize)>, usize)> {
        let mut i = self.ws(at + 1)?;
        let mut found = None;
        if self.b.get(i) == Some(&b'}') {
            return Some((None, i + 1));
        }
        loop {
            let (k0, k1, next) = self.string(i)?;
            let name = self.b.get(k0..k1)?;
            if name.contains(&b'\\') {
                // an escape in a key: its value needs unescaping
                return None;
            }
            i = self.ws(next)?;
            if self.b.get(i) != Some(&b':') {
                return None;
            }
            let v0 = self.ws(i + 1)?;
            let v1 = self.value_end(v0)?;
            if name == key {
                found = Some((v0, v1));
            }
            i = self.ws(v1)?;
            match self.b.get(i)? {
                b',' => i = self.ws(i + 1)?,
                b'}' => return Some((found, i + 1)),
                _ => return None,
            }
        }
    }

    /// The string whose opening `\"` is at `i`: its contents' span and the index after it.
    fn string(&self, i: usize) -> Option<(usize, usize, usize)> {
        if self.b.get(i..i + 2)? != b"\\\"" {
            return None;
        }
        let start = i + 2;
        let mut from = start;
        loop {
            let q = from + memchr::memchr(b'"', self.b.get(from..)?)?;
            let run = self.b[start..q]
                .iter()
                .rev()
                .take_while(|&&c| c == b'\\')
                .count();
            // `run` is odd (the record's own escape of the quote); the rest are the
            // document's backslashes, two bytes each.
            if run % 2 == 1 && (run / 2) % 2 == 0 {
                return Some((start, q - 1, q + 1));
            }
            from = q + 1;
        }
    }

    /// The index after the value starting at `i`.
    fn value_end(&self, i: usize) -> Option<usize> {
        match self.b.get(i)? {
            b'\\' => self.string(i).map(|(_, _, end)| end),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut i = i;
                loop {
                    match self.b.get(i)? {
                        b'{' | b'[' => {
                            depth += 1;
                            i += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            i += 1;
                            if depth == 0 {
                                return Some(i);
                            }
                        }
                        b'\\' => match self.b.get(i + 1)? {
                            b'"' => i = self.string(i)?.2,
                            _ => i += 2,
                        },
                        _ => i += 1,
                    }
                }
            }
            _ => {
                // a number or a literal: up to the next delimiter or white space
                let len = self.b[i..]
                    .iter()
                    .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\\'))
                    .unwrap_or(self.b.len() - i);
                Some(i + len)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Decoder;

    /// Both readings of `output` (the JSON text of the record's `output` value).
    fn both(output: &str) -> (bool, bool) {
        let record = format!("{{\"output\":{output}}}");
        let mut decoder = Decoder::new(128);
        decoder.decode(record.as_bytes(), |v| {
            let v = v.expect("test record is JSON");
            let out = v.get("output").expect("has output");
            (failed(out), failed_exact(out))
        })
    }

    /// The JSON text of a string holding `s`.
    fn quoted(s: &str) -> String {
        serde_json::to_string(s).expect("a string serializes")
    }

    #[track_caller]
    fn agree(output: &str) {
        let (fast, exact) = both(output);
        assert_eq!(fast, exact, "output {output}");
    }

    #[test]
    fn tricky_outputs_read_as_the_exact_reading() {
        let docs = [
            r#"{"output":"ok","metadata":{"exit_code":0,"duration_seconds":1.5}}"#,
            r#"{"output":"boom","metadata":{"exit_code":1}}"#,
            r#"{"output":"Exit code: 2","metadata":{"exit_code":0}}"#,
            r#"{"output":"Exit code: 0","metadata":{"exit_code":3}}"#,
            r#"{"output":"a \"metadata\":{\"exit_code\":1}","metadata":{"exit_code":0}}"#,
            r#"{"output":"\\\"metadata\\\":{\"exit_code\":1}","metadata":{"exit_code":0}}"#,
            r#"{"output":"x\\","metadata":{"exit_code":5}}"#,
            r#"{"output":"x\\\\\"","metadata":{"exit_code":5}}"#,
            r#"{"metadata":{"exit_code":1},"metadata":{"exit_code":0}}"#,
            r#"{"metadata":{"exit_code":0},"metadata":{"exit_code":1}}"#,
            r#"{"metadata":{"exit_code":1},"metadata":[1]}"#,
            r#"{"metadata":{"exit_code":1,"exit_code":0}}"#,
            r#"{"metadata":{"exit_code":0,"exit_code":1}}"#,
            r#"{"metadata":{"inner":{"exit_code":1},"exit_code":0}}"#,
            r#"{"metadata":{"exit_code":1e2}}"#,
            r#"{"metadata":{"exit_code":1E2}, "o":"Exit code: 1"}"#,
            r#"{"metadata":{"exit_code":1.0}}"#,
            r#"{"metadata":{"exit_code":-0}}"#,
            r#"{"metadata":{"exit_code":-0},"o":"Exit code: 4"}"#,
            r#"{"metadata":{"exit_code":-1}}"#,
            r#"{"metadata":{"exit_code":99999999999999999999}}"#,
            r#"{"metadata":{"exit_code":9223372036854775807}}"#,
            r#"{"metadata":{"exit_code":-9223372036854775808}}"#,
            r#"{"metadata":{"exit_code":"1"}}"#,
            r#"{"metadata":{"exit_code":null},"o":"Process exited with code 7"}"#,
            r#"{"metadata":{"exit_code":true}}"#,
            r#"{"metadata":"exit_code"}"#,
            r#"{"m\u0065tadata":{"exit_code":1}}"#,
            r#"{"metadata":{"exit\u005fcode":1}}"#,
            r#"{"metadata":{"exit_code":1}"#,
            r#"{"metadata":{"exit_code":1}} trailing"#,
            r#"{"metadata":{"exit_code":1}}  "#,
            r#"{"metadata":{"exit_code":01}}"#,
            r#"{"metadata":{"exit_code":1,}}"#,
            r#"{"output":"\ud800","metadata":{"exit_code":1}}"#,
            r#"{"output":"\udc00","metadata":{"exit_code":1}}"#,
            r#"{"output":"\uD83D\uDE00 \uDbff\uDfff \ud7ff \ue000","metadata":{"exit_code":1}}"#,
            r#"{"output":"\ud7ff\ue000\uE000\uFFFF","metadata":{"exit_code":1}}"#,
            r#"{"output":"\uDFFF","metadata":{"exit_code":1}}"#,
            r#"{"output":"\u0G00","metadata":{"exit_code":1}}"#,
            r#"{"output":"\ud83d\ude00","metadata":{"exit_code":1}}"#,
            r#"{"output":"\u00E9\u001b","metadata":{"exit_code":1}}"#,
            r#"{"output":"\u00g9","metadata":{"exit_code":1}}"#,
            r#"{"output":"a\xb","metadata":{"exit_code":1}}"#,
            r#"{"output":"a\/b\b\f\n\r\t","metadata":{"exit_code":1}}"#,
            r#"{"output":"a/b","metadata":{"exit_code":1},"n":[0,-0,0.5,-1.25,true,false,null,{},[]]}"#,
            r#"{"output":"a","metadata":{"exit_code":1},"n":[1.]}"#,
            r#"{"output":"a","metadata":{"exit_code":1},"n":[.5]}"#,
            r#"{"output":"a","metadata":{"exit_code":1},"n":[+1]}"#,
            r#"{"output":"a","metadata":{"exit_code":1},"n":[1,]}"#,
            r#"{"output":"a","metadata":{"exit_code":1},"n":nul}"#,
            r#"{"output":"tab	in string","metadata":{"exit_code":1}}"#,
            "{\"output\":\"new\nline\",\"metadata\":{\"exit_code\":1}}",
            "{\"output\":\"back\u{8}space\",\"metadata\":{\"exit_code\":1}}",
            "{\n  \"output\" : \"x\" ,\n\t\"metadata\" :\r\n {\"exit_code\" : 1 }\n}",
            "{\"a\":[{\"b\":[1,2,{\"c\":\"]}\"}]}],\"metadata\":{\"exit_code\":1}}",
            r#"{"a":{"metadata":{"exit_code":1}},"metadata":{}}"#,
            r#"{"output":"Exit code: 1","metadata":{"exit_code":0},"a\"metadata":{"exit_code":1}}"#,
            r#"{"output":"Exit code: 0","metadata":{"exit_code":1},"a\\\"metadata":{"exit_code":0}}"#,
            r#"{"output":"Exit code: 1","a\\":{"metadata":{"exit_code":1}},"metadata":{"exit_code":0}}"#,
            r#"{"output":"Exit code: 1","x":"metadata","metadata":{"exit_code":0},"y":"\"metadata\":{\"exit_code\":1}"}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":1.5}}"#,
            r#"{"output":"Exit code: 1","metadata":{"exit_code":0,"duration_seconds":1.5}}"#,
            r#"{"output":"Exit code: 0","metadata":{"exit_code":-1,"duration_seconds":0}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":{}}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":[}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":"1"}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":1}} "#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":1}}}"#,
            r#"{"output":"x","metadata":{"exit_code":1e2,"duration_seconds":1}}"#,
            r#"{"output":"x","metadata":{"exit_code":-0,"duration_seconds":1}}"#,
            r#"{"output":"x","metadata":{"exit_code":,"duration_seconds":1}}"#,
            r#"{"output":"x","metadata":{"exit_code":-,"duration_seconds":1}}"#,
            r#"{"output":"x","metadata":{"exit_code":99999999999999999999,"duration_seconds":1}}"#,
            r#"{"output":"Exit code: 3","metadata":{"exit_code":01,"duration_seconds":1}}"#,
            r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":1,"exit_code":0}}"#,
            r#"{"output":"x","metadata":{"exit_code":0,"duration_seconds":tru}}"#,
            r#"{"output":"x\","metadata":{"exit_code":1,"duration_seconds":1}}"#,
            r#"{}"#,
            r#"{ }"#,
            r#"{"#,
            r#"{"metadata""#,
            r#"{"metadata":"#,
            r#"{"metadata":{"exit_code""#,
            r#"{"metadata":{"exit_code":"#,
            r#"{"metadata":{"exit_code":2"#,
            r#"{"output":"unterminated"#,
            r#"{"output":"Exit code: 1"#,
            r#"{"output":"Process exited with code 0\nExit code: 1"}"#,
            r#"{"output":"Process exited with code x Exit code: 1"}"#,
            r#"{"output":"Process exited with code   -3"}"#,
            r#"{"output":"Process exited with code -"}"#,
            r#"{"output":"Exit code:\n\t 12abc"}"#,
            r#"{"output":"Exit code:  007"}"#,
            r#"{"output":"Exit code: 99999999999999999999"}"#,
            "{\"output\":\"Exit code:\u{a0}\u{3000}5\"}",
            "{\"output\":\"Exit code:\u{b}5\"}",
            "{\"output\":\"Exit code:\u{1f}5\"}",
        ];
        for doc in docs {
            // The document as a string, written as serde_json writes it, and with other
            // escapes: `\/`, `\u0022` for a quote, `\u007b` for the brace.
            agree(&quoted(doc));
            agree(&quoted(doc).replace('/', "\\/"));
            agree(&quoted(doc).replacen("\\\"", "\\u0022", 1));
            agree(&quoted(doc).replacen('{', "\\u007b", 1));
        }
        // Plain text outputs, and outputs that are not strings.
        for text in [
            "Process exited with code 1",
            "Process exited with code 0",
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\n",
            "Exit code: 1\nWall time: 2s",
            "Exit code:\t\t-1",
            "Exit code:\u{2028}3",
            "Exit code:\u{c}3",
            "Exit code:\u{8}3",
            "Exit code: \"1\"",
            "Exit code: 0\n{\"metadata\":{\"exit_code\":1}}",
            "{not json Exit code: 1",
            "",
            "xit code: 1",
            "it exited with code 1 Exit code: 2",
            "Exit code: x Process exited with code 3",
            "Process exited with code x Exit code: 4 Process exited with code 5",
            "exit exit Exit code: 0 Exit code: 6",
            "Process exited with code 0 Exit code: 7",
            "Process exited with code Exit code: 8",
            "Exit code:Exit code: 9",
        ] {
            agree(&quoted(text));
        }
        // Nesting and numbers at and past the parser's limits.
        for (depth, number) in [(60, "1"), (100, "1"), (127, "1"), (130, "1"), (2, "1e400")] {
            let doc = format!(
                "{{\"a\":{}{number}{},\"metadata\":{{\"exit_code\":1}}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            agree(&quoted(&doc));
        }
        agree(&quoted(&format!(
            "{{\"a\":{},\"metadata\":{{\"exit_code\":1}}}}",
            "9".repeat(400)
        )));
        agree(r#""Exit code:\u00201""#);
        agree(r#""\u0045xit code: 1""#);
        agree(r#""Exit code: \u0031""#);
        agree(r#"{"content":"Exit code: 1"}"#);
        agree(r#"{"metadata":{"exit_code":1}}"#);
        agree("17");
        // The shortcut answers by itself in the common cases.
        for doc in [
            r#"{"output":"ok","metadata":{"exit_code":0}}"#,
            r#"{"output":"x \"y\" \\","metadata":{"exit_code":0}}"#,
            "Process exited with code 1",
        ] {
            let raw = quoted(doc);
            let raw = &raw[1..raw.len() - 1];
            assert!(failed_escaped(raw).is_some(), "{doc}");
        }
        let (fast, _) = both(&quoted(r#"{"metadata":{"exit_code":1}}"#));
        assert!(fast);
    }

    #[test]
    fn the_markers_hold_xit_where_the_search_says() {
        assert_eq!(PROCESS_EXITED.find(XIT), Some(9));
        assert_eq!(EXIT_CODE.find(XIT), Some(1));
    }

    /// Random documents built from the pieces the shortcut looks at.
    #[test]
    fn random_outputs_read_as_the_exact_reading() {
        const PIECES: [&str; 52] = [
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            " ",
            "\n",
            "\t",
            "\"",
            "\\",
            "\\\"",
            "\\\\",
            "\"metadata\"",
            "\"exit_code\"",
            "metadata",
            "exit_code",
            "0",
            "1",
            "-0",
            "-",
            "1e2",
            "12",
            "2.5",
            "null",
            "true",
            "Exit code:",
            "Process exited with code",
            " 3",
            "\"output\"",
            "\\u0022",
            "\u{a0}",
            "é",
            "x",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\/",
            "\\n",
            "\n",
            "/",
            "\u{8}",
            "-1",
            "0.5",
            "01",
            "1.",
            "tru",
            "[]",
            "{}",
            "\\u12",
            "\\x",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        ];
        let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| rng.below(n);
        let templates = [
            r#"{"output":"#,
            r#"{"metadata":{"exit_code":"#,
            r#"{"output":"","metadata":{"#,
            "",
        ];
        for round in 0..20_000 {
            let mut doc = templates[next(templates.len())].to_string();
            // One in four long: strings with many escapes, as a command's output has.
            let pieces = if round % 4 == 0 { next(120) } else { next(12) };
            for _ in 0..pieces {
                doc.push_str(PIECES[next(PIECES.len())]);
            }
            agree(&quoted(&doc));
            // and a well-formed document around it
            let whole = format!(
                "{{\"output\":{},\"metadata\":{{\"exit_code\":{}}}}}",
                quoted(&doc),
                ["0", "1", "-0", "1e2", "2"][next(5)]
            );
            agree(&quoted(&whole));
            // and the pieces as the document's own text inside one of its strings
            let raw = format!("{{\"output\":\"{doc}\",\"metadata\":{{\"exit_code\":1}}}}");
            agree(&quoted(&raw));
        }
    }

    /// Outputs shaped as Codex writes them, long enough for the block-at-a-time check, with
    /// every exit code and marker, every escape, and broken documents: `failed` answers as
    /// `failed_exact` does.
    #[test]
    fn generated_outputs_read_as_the_exact_reading() {
        // JSON string contents, as the document holds the command's output
        const TEXT: [&str; 22] = [
            r"ok\n",
            r"line of output from a command, long enough to be a line\n",
            r"\u001b[32mgreen\u001b[0m ",
            r#"\"quoted\" "#,
            r"back\\slash ",
            r"C:\\dir\\file\\ ",
            r"tab\there\r\n",
            r"a/b\/c\b\f ",
            r"\u00e9\u00E9 ",
            "é ✓ ",
            r"\ud83d\ude00 ",
            r"\\\\\\\\\\\\\\\\\\\\\\ ",
            r"Process exited with code 0\n",
            r"Process exited with code 1\n",
            r"Exit code: 0\n",
            r"Exit code: 2\n",
            r"Exit code: \n",
            r"Process exited with code -1 ",
            r#"{\"metadata\":{\"exit_code\":1}} "#,
            r#"\\\"metadata\\\":{\\\"exit_code\\\":1} "#,
            r"xit exit ",
            r"\\u001b ",
        ];
        // and what is not valid in them
        const BROKEN: [&str; 11] = [
            r"\ud800 ", r"\uZZZZ ", r"\u12", r"\x ", r"\", "\n", "\t", "\u{8}", "\"", "}", "\u{1b}",
        ];
        const CODES: [&str; 9] = ["0", "1", "2", "-1", "-0", "1e2", "1.0", "null", "\"1\""];
        let mut rng = crate::test_rng::Rng::new(0xda94_2042_e4dd_58b5);
        let mut next = |n: usize| rng.below(n);
        let (mut failed_seen, mut shortcut) = (0, 0);
        let rounds = if cfg!(miri) { 200 } else { 20_000 };
        for round in 0..rounds {
            // the command's output, as the document's string holds it (its escapes written
            // out: the pieces are JSON string contents, some of them not valid ones)
            let mut text = String::new();
            for _ in 0..1 + next(if round % 4 == 0 { 80 } else { 12 }) {
                text.push_str(match next(40) {
                    0 => BROKEN[next(BROKEN.len())],
                    _ => TEXT[next(TEXT.len())],
                });
            }
            let code = CODES[next(CODES.len())];
            let mut doc = match next(4) {
                0 => format!("{{\"output\":\"{text}\",\"metadata\":{{\"exit_code\":{code}}}}}"),
                1 => format!(
                    "{{\"output\":\"{text}\",\"metadata\":{{\"exit_code\":{code},\"duration_seconds\":0.5}}}}"
                ),
                2 => format!("{{\"metadata\":{{\"exit_code\":{code}}},\"output\":\"{text}\"}}"),
                _ => format!("{{\"output\":\"{text}\"}}"),
            };
            match next(8) {
                // truncated
                0 => doc.truncate(doc.floor_char_boundary(next(doc.len() + 1))),
                // something after it
                1 => doc.push_str([" ", "\n", "x", "}", ",{}"][next(5)]),
                _ => {}
            }
            let raw = quoted(&doc);
            let (fast, exact) = both(&raw);
            assert_eq!(fast, exact, "output {raw}");
            failed_seen += usize::from(exact);
            shortcut += usize::from(failed_escaped(&raw[1..raw.len() - 1]).is_some());
            // the same with a `\u` escape of the record: the exact reading
            agree(&raw.replacen("\\\"", "\\u0022", 1));
            // and as plain text
            agree(&quoted(&text));
        }
        // Non-string outputs, and outputs with `success`.
        for output in [
            r#"{"content":"Exit code: 1","success":true}"#,
            r#"{"content":"Exit code: 0","success":false}"#,
            r#"{"content":"Process exited with code 3"}"#,
            r#"{"content":"{\"metadata\":{\"exit_code\":1}}"}"#,
            r#"["Exit code: 1"]"#,
            "null",
            "true",
            "-1",
        ] {
            agree(output);
        }
        // both answers are common, and the shortcut answers most by itself
        assert!(
            failed_seen > rounds / 10 && failed_seen < rounds * 9 / 10,
            "{failed_seen}"
        );
        assert!(shortcut > rounds / 2, "{shortcut}");
    }
}
