//! Decoding: the UTF-8 and JSON verdict on one record's bytes.
//!
//! The fast path checks the record is UTF-8 and parses it in place into a reused tape
//! ([`crate::tape`]): nothing is copied, and strings are unescaped only when read. Only
//! when the tape parser refuses a record does the slow path run: it names the problem
//! (invalid UTF-8 and where, too deep, text noise, or serde_json's message and column,
//! telling a value cut short from a malformed one) and accepts whatever serde_json accepts
//! that the tape parser left to it, so the verdict is always serde_json's, bounded by
//! `--max-depth`.
//!
//! Framing (CRLF, BOM, empty lines) happens before; dialects look at the value after.

use crate::diagnostic::Code;
use crate::json::{Json, TapeValue};
use crate::tape::Doc;
use serde::Deserialize;

/// The deepest nesting `--max-depth` may allow: the slow path's serde_json recurses once
/// per level, and 1024 levels fit any thread's stack.
pub const MAX_DEPTH_LIMIT: usize = 1024;
/// The default `--max-depth`.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Why a record is not a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: Code,
    /// 0-based byte index of the problem in the bytes given to the decoder.
    pub index: usize,
    pub message: String,
}

/// Decodes records one at a time, reusing its buffers.
pub struct Decoder {
    doc: Doc,
    serde_value: serde_json::Value,
    max_depth: usize,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("max_depth", &self.max_depth)
            .finish_non_exhaustive()
    }
}

impl Decoder {
    /// A decoder refusing values nested deeper than `max_depth` (clamped to 1..=1024).
    pub fn new(max_depth: usize) -> Self {
        let max_depth = max_depth.clamp(1, MAX_DEPTH_LIMIT);
        Decoder {
            doc: Doc::new(),
            serde_value: serde_json::Value::Null,
            max_depth,
        }
    }

    /// Decodes `bytes` (one record, without line terminator, CR or BOM) and hands the
    /// value or the failure to `f`. The value borrows the decoder's buffers.
    pub fn decode<T>(
        &mut self,
        bytes: &[u8],
        f: impl FnOnce(Result<Json<'_>, &Failure>) -> T,
    ) -> T {
        if let Some(text) = self.doc.parse_bytes(bytes, self.max_depth) {
            return f(Ok(Json::Tape(TapeValue::root(&self.doc, text))));
        }
        match slow_verdict(bytes, self.max_depth) {
            Ok(value) => {
                self.serde_value = value;
                let out = f(Ok(Json::Serde(&self.serde_value)));
                self.serde_value = serde_json::Value::Null;
                out
            }
            Err(failure) => f(Err(&failure)),
        }
    }

    /// The verdict alone: `Ok(())` for a JSON value, else why not.
    pub fn verdict(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.decode(bytes, |r| r.map(|_| ()).map_err(Failure::clone))
    }
}

/// The slow path: name the problem, or accept what serde_json accepts.
fn slow_verdict(bytes: &[u8], max_depth: usize) -> Result<serde_json::Value, Failure> {
    if let Some(failure) = utf16_failure(bytes) {
        return Err(failure);
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        let index = e.valid_up_to();
        let message = match e.error_len() {
            Some(_) => format!("invalid UTF-8 byte 0x{:02X}", bytes[index]),
            None => "UTF-8 sequence cut short at the end of the record".to_string(),
        };
        return Err(Failure {
            code: Code::InvalidUtf8,
            index,
            message,
        });
    }
    if let Some(index) = too_deep_at(bytes, max_depth) {
        return Err(Failure {
            code: Code::TooDeep,
            index,
            message: format!("nesting deeper than --max-depth {max_depth}"),
        });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Depth is bounded by the scan above, so serde_json's own limit is not needed.
    de.disable_recursion_limit();
    let result = serde_json::Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    // Text noise is asked only of what serde_json refuses: a line opening with `\r` (JSON
    // whitespace) can still be valid, e.g. around an integer beyond 64 bits.
    if result.is_err() && is_text_noise(bytes) {
        return Err(Failure {
            code: Code::TextNoise,
            index: 0,
            message: "a plain text line in a JSON stream".to_string(),
        });
    }
    result.map_err(|e| {
        // A container or string cut short is a truncated record; a bare word cut short
        // (`tru`, `nul`) is just not JSON.
        let opens_value = bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| matches!(b, b'{' | b'[' | b'"'));
        let code = match e.classify() {
            serde_json::error::Category::Eof if opens_value => Code::Truncated,
            _ => Code::InvalidJson,
        };
        // serde_json columns are 1-based bytes; an empty record reports column 0.
        let index = e.column().saturating_sub(1).min(bytes.len());
        let mut message = e.to_string();
        if let Some(cut) = message.rfind(" at line ") {
            message.truncate(cut);
        }
        if message.contains("surrogate") || message == "unexpected end of hex escape" {
            message = format!("invalid \\u escape: lone UTF-16 surrogate ({message})");
        }
        if code == Code::Truncated {
            message = format!("JSON ends mid-value ({message})");
        }
        Failure {
            code,
            index,
            message,
        }
    })
}

/// UTF-16 text split at `\n` shows as a byte-order mark or NUL bytes between characters;
/// it is valid UTF-8 byte by byte, so it must be recognised before the UTF-8 check.
fn utf16_failure(bytes: &[u8]) -> Option<Failure> {
    let bom = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
    let nuls = bytes.iter().filter(|&&b| b == 0).count();
    // A lone NUL is the tail of a UTF-16LE newline (`\n\0`) cut at the `\n`.
    let interleaved = (bytes.len() >= 2 && nuls * 3 >= bytes.len()) || bytes == [0];
    (bom || interleaved).then(|| Failure {
        code: Code::InvalidUtf8,
        index: if bom {
            0
        } else {
            bytes.iter().position(|&b| b == 0).unwrap_or(0)
        },
        message: "UTF-16 text, not UTF-8".to_string(),
    })
}

/// The index of the bracket that first nests deeper than `max_depth`, if any. Iterative,
/// string-aware, so a million `[` cost no stack.
pub fn too_deep_at(bytes: &[u8], max_depth: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// A line is text noise when it cannot be an attempt at JSON: it does not start (after
/// blanks) with a JSON value's first character, nor with a bare word a broken encoder
/// writes (`NaN`, `tru`, `undefined`), nor with a quote or comment that is JSON gone wrong.
/// Text noise includes log banners, `>>> exit 1` recorder lines and ANSI-coloured output.
fn is_text_noise(bytes: &[u8]) -> bool {
    let trimmed = match bytes.iter().position(|b| !matches!(b, b' ' | b'\t')) {
        Some(i) => &bytes[i..],
        None => return false,
    };
    let first = trimmed[0];
    match first {
        // The first character of a JSON value, or of a line of pretty-printed JSON.
        b'{' | b'[' | b'}' | b']' | b',' | b':' | b'"' | b'-' | b'0'..=b'9' => false,
        // JSON gone wrong: single quotes, comments, signs and dots of numbers.
        b'\'' | b'/' | b'+' | b'.' => false,
        // A carriage return opens a progress bar redrawn in place; ESC opens coloured text.
        b'\r' | 0x1B => true,
        // Other control characters (RS of json-seq, form feed, NUL) are broken JSON framing.
        0..=0x1F | 0x7F => false,
        b'a'..=b'z' | b'A'..=b'Z' => {
            let word_len = trimmed
                .iter()
                .position(|b| !b.is_ascii_alphanumeric())
                .unwrap_or(trimmed.len());
            let word = &trimmed[..word_len];
            let rest = &trimmed[word_len..];
            let json_word = [
                &b"true"[..],
                b"false",
                b"null",
                b"NaN",
                b"Infinity",
                b"undefined",
            ]
            .iter()
            .any(|w| w.starts_with(word) || word.starts_with(w));
            let rest_is_json_like = rest
                .iter()
                .all(|b| !b.is_ascii_alphabetic() || matches!(b, b'e' | b'E'));
            !(json_word && rest_is_json_like)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &[u8]) -> Option<Code> {
        Decoder::new(DEFAULT_MAX_DEPTH)
            .verdict(bytes)
            .err()
            .map(|f| f.code)
    }

    #[test]
    fn verdicts_follow_serde_json() {
        assert_eq!(code(br#"{"a":1}"#), None);
        assert_eq!(
            code(b"123456789012345678901234567890"),
            None,
            "big ints pass"
        );
        assert_eq!(code(br#"{"a":"\ud800"}"#), Some(Code::InvalidJson));
        assert_eq!(code(b"{\"b\":"), Some(Code::Truncated));
        assert_eq!(code(b"{\"a\":1}garbage"), Some(Code::InvalidJson));
        assert_eq!(code(b"{\"a\":\"\xff\"}"), Some(Code::InvalidUtf8));
        assert_eq!(code(b"1E400"), Some(Code::InvalidJson));
        assert_eq!(code(b"NaN"), Some(Code::InvalidJson));
        assert_eq!(code(b"tru"), Some(Code::InvalidJson));
        assert_eq!(code(b"Warning: something {\"a\":1}"), Some(Code::TextNoise));
        assert_eq!(code(b"\x1b[32mok\x1b[0m"), Some(Code::TextNoise));
        assert_eq!(code(b"{\0\"\0a\0\"\0"), Some(Code::InvalidUtf8));
    }

    #[test]
    fn depth_is_one_limit_for_both_parsers() {
        let nest = |n: usize| {
            let mut v = "[".repeat(n);
            v.push_str(&"]".repeat(n));
            v
        };
        let mut d = Decoder::new(128);
        assert!(d.verdict(nest(128).as_bytes()).is_ok());
        let f = d.verdict(nest(129).as_bytes()).expect_err("too deep");
        assert_eq!((f.code, f.index), (Code::TooDeep, 128));
        let f = d
            .verdict("[".repeat(1_000_000).as_bytes())
            .expect_err("deep");
        assert_eq!(f.code, Code::TooDeep);
        // A big integer deep inside goes through serde_json, still bounded by the limit.
        let mut v = "[".repeat(200);
        v.push_str("123456789012345678901234567890");
        v.push_str(&"]".repeat(200));
        assert!(Decoder::new(256).verdict(v.as_bytes()).is_ok());
        assert_eq!(
            Decoder::new(128).verdict(v.as_bytes()).map_err(|f| f.code),
            Err(Code::TooDeep)
        );
    }

    #[test]
    fn columns_point_at_the_problem() {
        let f = Decoder::new(128).verdict(b"{\"a\":1,}").expect_err("bad");
        assert_eq!(f.index, 7);
        let f = Decoder::new(128)
            .verdict(b"{\"a\":\"x\xffy\"}")
            .expect_err("bad");
        assert_eq!(f.index, 7);
    }
}
