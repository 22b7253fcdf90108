//! The fast path of decoding: a validating JSON parser that builds a flat tape of nodes
//! pointing into the record's own bytes.
//!
//! Nothing is copied or unescaped while parsing. A string node is the span between its
//! quotes; one with escapes is unescaped the first time somebody reads it (a `type`, a
//! `session_id`), and most never are (tool output, message text). A number node is its
//! text, converted when read.
//!
//! Agent records are mostly string contents, so strings are where the time goes. They
//! are handled in two stages, as simdjson does. Stage 1 looks at 64 bytes at a time and
//! makes bit masks of quotes, backslashes and control characters (AVX2 or SSE2 compares on
//! x86-64), works out which quotes are escaped and which bytes are inside strings with
//! branch-free bit arithmetic, and checks every escape (only escapes other than `\"`, `\\`
//! and `\n` are looked at one by one).
//! Stage 2 is a plain parser of the structure, which jumps from a string's opening quote
//! to its closing one through the quote mask. UTF-8 is checked in stage 1 on AVX2
//! (`utf8.rs`), else before it (the standard library on x86-64, simdutf8 elsewhere).
//!
//! The parser must never accept what serde_json refuses: its grammar is RFC 8259 as
//! serde_json reads it (no lone UTF-16 surrogate in a `\u` escape, no number out of the
//! f64 range, any value at the top). It may refuse what serde_json accepts (a record
//! over 4 GiB); the decoder then asks serde_json itself, so the verdict is always
//! serde_json's. The fuzz target `framing_decode` and tests/it/differential.rs hold it to that.

use std::cell::OnceCell;

#[cfg(target_arch = "x86_64")]
mod utf8;

pub(crate) mod escaped;
mod escapes;
#[macro_use]
mod stage1;
mod stage2;
#[cfg(test)]
mod tests;

use escapes::*;
use stage1::*;
use stage2::*;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Null,
    True,
    False,
    Number,
    /// A string without escapes: its text is the span.
    Str,
    /// A string with escapes: the node's `slot` indexes its unescaped text in the cache.
    Escaped,
    Array,
    Object,
}

/// One value on the tape. For a string or a number, `a..b` is its text in the record (a
/// string's without the quotes). For a container, `a` is the number of its elements
/// (entries for an object) and `b` the number of nodes it spans after itself; an object's
/// nodes are key, value, key, value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) tag: Tag,
    /// start of the text, or `len` of a container
    pub(crate) a: u32,
    /// end of the text, or `count` of a container
    pub(crate) b: u32,
    /// the cache slot of an escaped string
    pub(crate) slot: u32,
}

/// A parsed record: its nodes, and the unescaped texts of its escaped strings, filled
/// when first read. Reused from record to record.
#[derive(Debug, Default)]
pub struct Doc {
    pub(crate) nodes: Vec<Node>,
    pub(crate) cache: Vec<OnceCell<String>>,
    stack: Vec<u32>,
    /// Stage 1: one bit per byte, 64 bytes a word: the quotes that are not escaped.
    quotes: Vec<u64>,
    /// Stage 1: the backslashes.
    slashes: Vec<u64>,
    /// How many words of `quotes` and `slashes` are the record's: the vectors keep the
    /// longest record's length, so a long record after a short one is not zero-filled
    /// before stage 1 writes it ([`Doc::quote_words`], [`Doc::slash_words`]).
    words: usize,
    /// Stage 1: where the `u` of each `\u` escape is.
    unicode: Vec<u32>,
    /// Stage 1: where the `/` of each `\/` escape is (serde_json writes a plain `/`).
    solidus: Vec<u32>,
}

impl Doc {
    pub fn new() -> Self {
        Doc::default()
    }

    /// Stage 1's quote mask of the record parsed last.
    fn quote_words(&self) -> &[u64] {
        self.quotes.get(..self.words).unwrap_or_default()
    }

    /// Stage 1's backslash mask of the record parsed last.
    fn slash_words(&self) -> &[u64] {
        self.slashes.get(..self.words).unwrap_or_default()
    }

    /// The unescaped text of string node `node` of record `src`.
    pub(crate) fn text<'a>(&'a self, src: &'a str, node: &Node) -> &'a str {
        let raw = src.get(node.a as usize..node.b as usize).unwrap_or("");
        match node.tag {
            Tag::Escaped => match self.cache.get(node.slot as usize) {
                Some(cell) => {
                    cell.get_or_init(|| unescape(raw, node.a as usize, self.slash_words()))
                }
                None => raw,
            },
            _ => raw,
        }
    }

    /// The text between the quotes of string node `node` of record `src`, when it is
    /// already what serde_json writes for the string's value: a string without escapes
    /// (its bytes hold no quote, backslash or control character), or one whose every
    /// escape is the one serde_json would write ([`canonical_escape_len`]). Such a string
    /// can be copied to JSON output without being unescaped and escaped again; `None`
    /// sends the caller to [`Doc::text`] and an escaper.
    pub(crate) fn canonical_raw<'a>(&self, src: &'a str, node: &Node) -> Option<&'a str> {
        let (a, b) = (node.a as usize, node.b as usize);
        let raw = src.get(a..b)?;
        match node.tag {
            Tag::Str => Some(raw),
            // Stage 1 listed the escapes that may not be serde_json's: only `\/` and `\u`.
            Tag::Escaped => {
                if within(&self.solidus, a, b).next().is_some() {
                    return None;
                }
                for &u in within(&self.unicode, a, b) {
                    canonical_escape_len(src.as_bytes(), (u as usize).saturating_sub(1))?;
                }
                Some(raw)
            }
            _ => None,
        }
    }

    /// Whether string node `node` holds a `\u` escape (stage 1 listed them all).
    pub(crate) fn has_unicode_escape(&self, node: &Node) -> bool {
        node.tag == Tag::Escaped
            && within(&self.unicode, node.a as usize, node.b as usize)
                .next()
                .is_some()
    }

    /// Parses `src` as one JSON value (surrounding JSON whitespace allowed) nested at most
    /// `max_depth` deep. `false` when it is not JSON as serde_json reads it, or when the
    /// record is too big for the tape's 32-bit offsets (serde_json decides those).
    pub fn parse(&mut self, src: &str, max_depth: usize) -> bool {
        self.parse_bytes(src.as_bytes(), max_depth).is_some()
    }

    /// As [`Doc::parse`], for bytes not yet known to be UTF-8: stage 1 checks that too.
    /// The record as text when it is JSON, else `None`.
    pub fn parse_bytes<'s>(&mut self, src: &'s [u8], max_depth: usize) -> Option<&'s str> {
        self.nodes.clear();
        self.cache.clear();
        self.stack.clear();
        if u32::try_from(src.len()).is_err() || !stage1(src, self) {
            return None;
        }
        // SAFETY: stage 1 returns `true` only when all of `src` is UTF-8: the AVX2 path
        // checks it in its loop (`utf8`), the others check it first.
        // (tests: `utf8_in_stage1_is_std_s_verdict`, `stage1_is_the_same_on_every_path`.)
        #[allow(unsafe_code)]
        let text = unsafe { std::str::from_utf8_unchecked(src) };
        // On failure the nodes are left as they are: only a parsed record is ever read.
        Parser {
            b: src,
            i: 0,
            doc: self,
            max_depth,
        }
        .run()?;
        Some(text)
    }
}
