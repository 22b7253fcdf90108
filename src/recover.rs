//! `--recover`: getting JSON objects out of a stream that mixes text and JSON.
//!
//! Two repairs, both off unless `--recover` is given:
//!
//! - **Embedded objects.** A line that is not JSON by itself, whatever its first character,
//!   with a JSON object inside it (`Warning: foo {"type":"user",...}`,
//!   `[log] {...} (done)`, `2025-01-01T00:00:00Z INFO {...}`, ANSI-coloured text around an
//!   object) yields the object as a record. [`embedded_object`] tries a bounded number of
//!   `{` positions (the line's first character if it is one, then those from where the
//!   line stops being JSON) and asks serde_json's streaming deserializer where a complete
//!   value starting there ends; the pipeline then verifies those bytes with the normal
//!   decoder. The record's raw bytes are
//!   the object's bytes followed by a `\n` (so `filter` writes the object alone, one per
//!   line); the text around it is reported as `PROTO_TEXT_NOISE` for that line.
//! - **Pretty-printed objects.** A line that opens a container (`{` or `[`) and is cut short
//!   (`PROTO_TRUNCATED`) starts a [`Reassembly`]: the following lines are appended until the
//!   concatenation parses. It is abandoned, and every line then gets its own verdict, when a
//!   following line parses on its own as a JSON object (a valid line is never swallowed),
//!   when the concatenation turns into something that is not JSON, when it grows past
//!   [`MAX_LINES`] lines or [`MAX_BYTES`] bytes, or when the input ends. A reassembled
//!   object is one record whose raw bytes are all its lines' bytes (so `filter` and
//!   `--rejects` stay byte-exact), numbered by its first line; a `PROTO_TEXT_NOISE` warning
//!   names the range of lines. Lines of an abandoned reassembly are not searched again for
//!   a later start.
//!
//! This module owns the decisions and the buffer; the pipeline owns the decoding and the
//! hand-off to consumers. Reassembly needs to look ahead, which batch reading cannot, so
//! the binary reads on one thread with `--recover`.

use serde::de::IgnoredAny;
use std::ops::Range;

/// At most this many `{` positions of one line are tried as the start of an object.
pub const MAX_ATTEMPTS: usize = 8;
/// A reassembly spans at most this many lines.
pub const MAX_LINES: usize = 64;
/// A reassembly holds at most this many bytes.
pub const MAX_BYTES: usize = 1 << 20;
/// A single document's reassembly is parsed before its brackets close only once it holds
/// this much, then each time it doubles ([`Reassembly::worth_parsing`]).
const MIN_PARSE_BYTES: usize = 64 << 10;

/// Where a complete JSON object sits inside `line` (a line that is not JSON as a whole).
///
/// With `anywhere` (a line of text), every `{` is tried; otherwise (a line that starts
/// like JSON: `{"a":1} done`, `[log] {...}`, `2025-01-01T00:00:00Z INFO {...}`) the first
/// non-blank byte if it is a `{`, then every `{` from the byte where the line stops being
/// JSON on, so that broken JSON (`{"a":{"b":1},}`, `[{"a":1},]`) does not yield an object
/// from inside it. At most [`MAX_ATTEMPTS`] positions are tried. An object covering the
/// whole line (blanks aside) is not a recovery: `None`.
pub fn embedded_object(line: &[u8], anywhere: bool) -> Option<Range<usize>> {
    let leading = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .filter(|&i| line[i] == b'{');
    let from = if anywhere { 0 } else { json_breaks_at(line) };
    let later = memchr::memchr_iter(b'{', line.get(from..).unwrap_or_default())
        .map(|i| i + from)
        .filter(|&i| Some(i) != leading);
    let starts = leading.into_iter().chain(later).take(MAX_ATTEMPTS);
    for start in starts {
        let mut values =
            serde_json::Deserializer::from_slice(&line[start..]).into_iter::<IgnoredAny>();
        if let Some(Ok(_)) = values.next() {
            let end = start + values.byte_offset();
            let blank = |s: &[u8]| s.iter().all(u8::is_ascii_whitespace);
            if blank(&line[..start]) && blank(&line[end..]) {
                return None;
            }
            return Some(start..end);
        }
    }
    None
}

/// The byte where a line that is not JSON stops being JSON (where serde_json gives up).
fn json_breaks_at(line: &[u8]) -> usize {
    match serde_json::from_slice::<IgnoredAny>(line) {
        // One line: the column is the byte index, 1-based.
        Err(e) => e.column().saturating_sub(1).min(line.len()),
        Ok(_) => line.len(),
    }
}

/// Whether a line cut short could be the first line of a pretty-printed value.
pub fn opens_container(content: &[u8]) -> bool {
    content
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// One line held by a reassembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldLine {
    pub line: u64,
    pub offset: u64,
    /// Its bytes in [`Reassembly::bytes`].
    pub start: usize,
    pub end: usize,
}

/// The lines of a pretty-printed value being put back together, copied out of the framer.
///
/// A single-document input can be megabytes over tens of thousands of lines: parsing the
/// held bytes again at every line would take time quadratic in the document's size. So
/// the lines' brackets are counted as they come (outside strings), and the held bytes are
/// parsed only when the outermost value may have closed, or when they have doubled since
/// the last parse (which finds a document that went wrong within a constant factor of
/// where a parse per line would): the parses then cost at most about three passes over
/// the document ([`Reassembly::worth_parsing`]).
#[derive(Debug, Default)]
pub struct Reassembly {
    bytes: Vec<u8>,
    lines: Vec<HeldLine>,
    /// Brackets open so far, outside strings.
    depth: i64,
    in_string: bool,
    escaped: bool,
    /// The brackets closed (or went below zero) since the last parse.
    closed: bool,
    /// How many bytes were held at the last parse.
    parsed: usize,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Adds a line (with its terminator).
    pub fn push(&mut self, line: u64, offset: u64, bytes: &[u8]) {
        let start = self.bytes.len();
        self.scan(bytes);
        self.bytes.extend_from_slice(bytes);
        self.lines.push(HeldLine {
            line,
            offset,
            start,
            end: self.bytes.len(),
        });
    }

    /// Whether one more line of `len` bytes would exceed the caps.
    pub fn would_overflow(&self, len: usize) -> bool {
        self.lines.len() >= MAX_LINES || self.bytes.len() + len > MAX_BYTES
    }

    /// All held bytes: the reassembled record's raw bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The held lines, in order.
    pub fn lines(&self) -> &[HeldLine] {
        &self.lines
    }

    /// The bytes of one held line.
    pub fn line_bytes(&self, held: &HeldLine) -> &[u8] {
        &self.bytes[held.start..held.end]
    }

    /// The first line's number and offset.
    pub fn first(&self) -> Option<HeldLine> {
        self.lines.first().copied()
    }

    /// `lines 10-14: a JSON object pretty-printed over 5 lines, reassembled`.
    pub fn message(&self) -> String {
        let first = self.lines.first().map_or(0, |l| l.line);
        let last = self.lines.last().map_or(0, |l| l.line);
        format!(
            "lines {first}-{last}: a JSON object pretty-printed over {} lines, reassembled",
            self.lines.len()
        )
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.closed = false;
        self.parsed = 0;
    }

    /// Counts the brackets of the next bytes held.
    fn scan(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth <= 0 {
                        self.closed = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether parsing the held bytes can tell more than the last parse did: the
    /// outermost brackets closed since, or the bytes have doubled. Between those points a
    /// parse could only say "cut short so far" or, for a document that went wrong, say so a
    /// few lines earlier (its lines are then handed out one by one all the same).
    pub fn worth_parsing(&self) -> bool {
        self.closed || self.bytes.len() >= 2 * self.parsed.max(MIN_PARSE_BYTES)
    }

    /// The held bytes are being parsed now.
    pub fn parsing(&mut self) {
        self.closed = false;
        self.parsed = self.bytes.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_an_object_inside_text() {
        let line = br#"Warning: foo {"type":"user","a":{"b":"}"}} trailing"#;
        let r = embedded_object(line, true).expect("found");
        assert_eq!(&line[r], br#"{"type":"user","a":{"b":"}"}}"#);
        let ansi = b"\x1b[32m{\"a\":1}\x1b[0m";
        let r = embedded_object(ansi, true).expect("found");
        assert_eq!(&ansi[r], b"{\"a\":1}");
        // Braces of the text before the object are tried and skipped.
        let line = br#"note {x} {"a":1}"#;
        assert_eq!(embedded_object(line, true), Some(9..16));
    }

    #[test]
    fn leading_json_only_at_its_start() {
        assert_eq!(embedded_object(br#"{"a":1} done"#, false), Some(0..7));
        // Broken JSON does not yield an inner object.
        assert_eq!(embedded_object(br#"{"a":{"b":1},}"#, false), None);
        assert_eq!(embedded_object(br#"  {"a":1}  "#, false), None);
        assert_eq!(embedded_object(b"plain text", true), None);
        assert_eq!(embedded_object(br#"[{"a":1},]"#, false), None);
        // A broken object, then a whole one after the break.
        assert_eq!(embedded_object(br#"{bad} {"a":1}"#, false), Some(6..13));
    }

    #[test]
    fn objects_after_json_looking_prefixes() {
        let cases: [&[u8]; 5] = [
            br#"[log] {"type":"assistant","n":[1]} (done)"#,
            br#"[INFO] {"type":"assistant","n":[1]}"#,
            br#"[2025-01-01 10:00:00] {"type":"assistant","n":[1]}"#,
            br#"2025-01-01T00:00:00Z INFO {"type":"assistant","n":[1]}"#,
            br#"["tag"] {"type":"assistant","n":[1]}"#,
        ];
        for line in cases {
            let r = embedded_object(line, false).expect("found");
            assert_eq!(&line[r], br#"{"type":"assistant","n":[1]}"#);
        }
    }

    #[test]
    fn attempts_are_bounded() {
        let mut line = "{ ".repeat(MAX_ATTEMPTS);
        line.push_str(r#"{"a":1}"#);
        assert_eq!(embedded_object(line.as_bytes(), true), None);
    }

    #[test]
    fn reassembly_holds_lines_and_names_the_range() {
        let mut r = Reassembly::default();
        assert!(r.is_empty());
        r.push(10, 100, b"{\n");
        r.push(11, 102, b"  \"a\": 1\n");
        r.push(12, 111, b"}\n");
        assert_eq!(r.bytes(), b"{\n  \"a\": 1\n}\n");
        assert_eq!(r.line_bytes(&r.lines()[1]), b"  \"a\": 1\n");
        assert_eq!(r.first().map(|l| (l.line, l.offset)), Some((10, 100)));
        assert_eq!(
            r.message(),
            "lines 10-12: a JSON object pretty-printed over 3 lines, reassembled"
        );
        assert!(!r.would_overflow(10));
        assert!(r.would_overflow(MAX_BYTES));
        r.clear();
        assert!(r.is_empty());
    }

    #[test]
    fn containers_open_reassembly() {
        assert!(opens_container(b"  {"));
        assert!(opens_container(b"[1,"));
        assert!(!opens_container(b"\"abc"));
    }
}
