//! The texts generated records carry, and the small writers every dialect uses: JSON
//! string escaping, ids, timestamps.
//!
//! [`Texts`] holds a few large bodies of text built once per seed (code, numbered file
//! listings, shell output, grep hits, prose); a record's text is a piece sliced out of one
//! of them at a line start, so generating gigabytes costs copying, not formatting.

use crate::rng::Rng;
use crate::words::{BASH_TEMPLATES, CODE_TEMPLATES, PROSE_TEMPLATES, UNICODE_COMMENTS, WORDS};

/// Appends `s` as a JSON string (quotes included): `"` and `\` escaped, control characters
/// as `\n`, `\t`, ... or `\u00XX`; everything else, non-ASCII included, kept as it is.
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\t' => Some("\\t"),
            b'\r' => Some("\\r"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f | 0x7f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                use std::fmt::Write as _;
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// `s` as a JSON string.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_str(&mut out, s);
    out
}

/// A word.
pub fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.index(WORDS.len())]
}

/// Expands a template (see `words`): `{a}`..`{d}` words, `{A}`..`{C}` capitalised words,
/// `{n}` a number below `n_max`, `{m}` a digit.
pub fn fill(rng: &mut Rng, template: &str, n_max: u64, out: &mut String) {
    let bytes = template.as_bytes();
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b == b'{' || b == b'}') && bytes.get(i + 1) == Some(&b) {
            out.push_str(&template[plain..=i]);
            i += 2;
            plain = i;
            continue;
        }
        if b == b'{' && bytes.get(i + 2) == Some(&b'}') {
            out.push_str(&template[plain..i]);
            match bytes[i + 1] {
                b'a' | b'b' | b'c' | b'd' => out.push_str(word(rng)),
                b'A' | b'B' | b'C' => {
                    let w = word(rng);
                    out.push(w.as_bytes()[0].to_ascii_uppercase() as char);
                    out.push_str(&w[1..]);
                }
                b'n' => out.push_str(&rng.range(1, n_max).to_string()),
                _ => out.push_str(&rng.below(10).to_string()),
            }
            i += 3;
            plain = i;
            continue;
        }
        i += 1;
    }
    out.push_str(&template[plain..]);
}

/// A template picked from `templates`, expanded.
pub fn fill_one(rng: &mut Rng, templates: &[&str]) -> String {
    let mut s = String::new();
    let t = *rng.pick(templates);
    fill(rng, t, 500, &mut s);
    s
}

/// A large text made of template lines; pieces of any length are sliced out at line
/// starts.
#[derive(Debug)]
pub struct Corpus {
    text: String,
    starts: Vec<usize>,
}

/// How the lines of a [`Corpus`] are decorated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decor {
    None,
    /// `cat -n` style numbers with the `→` Claude's Read tool prints.
    Numbered,
    /// `src/<a>/<b>.rs:<n>:` in front, as grep prints.
    GrepHit,
}

impl Corpus {
    fn build(
        rng: &mut Rng,
        templates: &[&str],
        lines: usize,
        decor: Decor,
        unicode_every: u64,
    ) -> Corpus {
        let mut text = String::with_capacity(lines * 48);
        let mut starts = Vec::with_capacity(lines);
        let mut number = 1u64;
        for i in 0..lines {
            if i > 0 {
                text.push('\n');
            }
            starts.push(text.len());
            if decor == Decor::GrepHit {
                let (a, b, n) = (word(rng), word(rng), rng.range(1, 3000));
                text.push_str(&format!("src/{a}/{b}.rs:{n}:"));
            }
            if decor == Decor::Numbered {
                if rng.one_in(400) {
                    number = 1;
                }
                text.push_str(&format!("{number:6}\u{2192}"));
                number += 1;
            }
            let template = *rng.pick(templates);
            if unicode_every > 0 && rng.one_in(unicode_every) {
                text.push_str("    ");
                text.push_str(UNICODE_COMMENTS[rng.index(UNICODE_COMMENTS.len())]);
            } else {
                fill(rng, template, 5000, &mut text);
            }
        }
        Corpus { text, starts }
    }

    /// About `len` bytes starting at a line start, ending at a line end when one is near
    /// (and always on a character boundary).
    pub fn piece(&self, rng: &mut Rng, len: usize) -> &str {
        let t = &self.text;
        if len >= t.len() {
            return t;
        }
        let mut start = self.starts[rng.index(self.starts.len())];
        if start + len > t.len() {
            start = t.len() - len;
            while !t.is_char_boundary(start) {
                start -= 1;
            }
        }
        let mut end = match memchr_from(t.as_bytes(), start + len) {
            Some(nl) if nl - start <= len + 400 => nl,
            _ => start + len,
        };
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        &t[start..end]
    }
}

fn memchr_from(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| from + p)
}

/// The bodies of text of one seed.
#[derive(Debug)]
pub struct Texts {
    pub code: Corpus,
    pub listing: Corpus,
    pub shell: Corpus,
    pub grep: Corpus,
    pub prose: Corpus,
    /// Base64 blobs the size of thinking signatures and encrypted reasoning.
    pub blobs: Vec<String>,
}

impl Texts {
    pub fn new(seed: u64) -> Texts {
        let mut rng = Rng::new(seed, 0x7e47);
        let code = Corpus::build(&mut rng, CODE_TEMPLATES, 120_000, Decor::None, 40);
        let listing = Corpus::build(&mut rng, CODE_TEMPLATES, 120_000, Decor::Numbered, 40);
        let shell = Corpus::build(&mut rng, BASH_TEMPLATES, 60_000, Decor::None, 40);
        let grep = Corpus::build(&mut rng, CODE_TEMPLATES, 40_000, Decor::GrepHit, 40);
        let prose = Corpus::build(&mut rng, PROSE_TEMPLATES, 30_000, Decor::None, 25);
        let blobs = (0..256)
            .map(|_| {
                let n = rng.range(150, 1200) as usize;
                base64ish(&mut rng, n)
            })
            .collect();
        Texts {
            code,
            listing,
            shell,
            grep,
            prose,
            blobs,
        }
    }
}

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// What base64 of `n` random bytes looks like (padding included).
fn base64ish(rng: &mut Rng, n: usize) -> String {
    let chars = n.div_ceil(3) * 4;
    let pad = (3 - n % 3) % 3;
    let mut s: String = (0..chars - pad).map(|_| *rng.pick(B64) as char).collect();
    s.extend(std::iter::repeat_n('=', pad));
    s
}

/// `n` random base-62 characters.
pub fn b62(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| *rng.pick(B62) as char).collect()
}

/// A random UUID (version 4 layout).
pub fn uuid(rng: &mut Rng) -> String {
    let h = format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64());
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

/// A UUID with the time-ordered layout of version 7 (Codex session ids), for `ms`.
pub fn uuid7(rng: &mut Rng, ms: u64) -> String {
    let r = format!("{:016x}", rng.next_u64());
    let t = format!("{:012x}", ms & 0xffff_ffff_ffff);
    format!(
        "{}-{}-7{}-{}-{}",
        &t[0..8],
        &t[8..12],
        &r[0..3],
        &r[3..7],
        &format!("{:012x}", rng.next_u64() & 0xffff_ffff_ffff)
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The parts of a time in milliseconds since the epoch: (y, mo, d, h, mi, s, ms).
pub fn parts(ms: u64) -> (i64, u32, u32, u64, u64, u64, u64) {
    let secs = ms / 1000;
    let (y, mo, d) = civil((secs / 86_400) as i64);
    let sod = secs % 86_400;
    (y, mo, d, sod / 3600, sod % 3600 / 60, sod % 60, ms % 1000)
}

/// `2025-10-14T09:12:33.123Z`.
pub fn iso(ms: u64) -> String {
    let (y, mo, d, h, mi, s, milli) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// 2025-09-01T00:00:00Z, where generated sessions start (plus up to 90 days).
pub const EPOCH_MS: u64 = 1_756_684_800_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_what_json_requires_and_keep_the_rest() {
        assert_eq!(
            json_str("a\"b\\c\nd\te\u{1b}f é🚀"),
            r#""a\"b\\c\nd\te\u001bf é🚀""#
        );
        let v: serde_json::Value =
            serde_json::from_str(&json_str("x\u{0}\u{7f}\r\u{8}\u{c}")).expect("valid JSON");
        assert_eq!(v, "x\u{0}\u{7f}\r\u{8}\u{c}");
    }

    #[test]
    fn templates_fill_words_numbers_and_literal_braces() {
        let mut rng = Rng::new(1, 1);
        let mut s = String::new();
        fill(&mut rng, "{{x}} {a}.{B} {n}{m}}}", 500, &mut s);
        assert!(s.starts_with("{x} "), "{s}");
        assert!(s.ends_with('}'), "{s}");
        assert!(!s.contains("{a}") && !s.contains("{B}"), "{s}");
    }

    #[test]
    fn dates_are_gregorian() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(EPOCH_MS), "2025-09-01T00:00:00.000Z");
        assert_eq!(iso(951_782_400_123), "2000-02-29T00:00:00.123Z");
    }

    #[test]
    fn pieces_are_on_char_boundaries() {
        let texts = Texts::new(3);
        let mut rng = Rng::new(3, 9);
        for len in [1, 7, 100, 5000, 100_000] {
            let p = texts.prose.piece(&mut rng, len);
            assert!(!p.is_empty());
        }
    }
}
