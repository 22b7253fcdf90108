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

struct Parser<'s, 'd> {
    b: &'s [u8],
    i: usize,
    doc: &'d mut Doc,
    max_depth: usize,
}

/// `Some(())` to go on, `None` for "not JSON": lets `?` carry the refusal.
type Step = Option<()>;

impl Parser<'_, '_> {
    fn run(&mut self) -> Step {
        'value: loop {
            self.skip_ws();
            match self.peek()? {
                b'{' => {
                    self.open(Tag::Object)?;
                    self.skip_ws();
                    if self.peek()? == b'}' {
                        self.i += 1;
                        self.close();
                    } else {
                        self.key()?;
                        continue 'value;
                    }
                }
                b'[' => {
                    self.open(Tag::Array)?;
                    self.skip_ws();
                    if self.peek()? == b']' {
                        self.i += 1;
                        self.close();
                    } else {
                        continue 'value;
                    }
                }
                b'"' => self.string()?,
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true", Tag::True)?,
                b'f' => self.literal(b"false", Tag::False)?,
                b'n' => self.literal(b"null", Tag::Null)?,
                _ => return None,
            }
            // A value is complete: count it in its container, then close containers
            // until one expects another element.
            loop {
                let Some(&open) = self.doc.stack.last() else {
                    break 'value;
                };
                let node = &mut self.doc.nodes[open as usize];
                node.a += 1;
                let is_object = node.tag == Tag::Object;
                self.skip_ws();
                match (self.peek()?, is_object) {
                    (b',', true) => {
                        self.i += 1;
                        self.skip_ws();
                        self.key()?;
                        continue 'value;
                    }
                    (b',', false) => {
                        self.i += 1;
                        continue 'value;
                    }
                    (b'}', true) | (b']', false) => {
                        self.i += 1;
                        self.close();
                    }
                    _ => return None,
                }
            }
        }
        self.skip_ws();
        (self.i == self.b.len()).then_some(())
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn push(&mut self, tag: Tag, a: usize, b: usize) {
        // Offsets fit: `parse` refuses records of 4 GiB or more.
        self.doc.nodes.push(Node {
            tag,
            a: a as u32,
            b: b as u32,
            slot: 0,
        });
    }

    fn open(&mut self, tag: Tag) -> Step {
        if self.doc.stack.len() >= self.max_depth {
            return None;
        }
        self.i += 1;
        self.doc.stack.push(self.doc.nodes.len() as u32);
        self.push(tag, 0, 0);
        Some(())
    }

    fn close(&mut self) {
        if let Some(open) = self.doc.stack.pop() {
            let count = self.doc.nodes.len() - open as usize - 1;
            self.doc.nodes[open as usize].b = count as u32;
        }
    }

    /// An object key and its colon.
    fn key(&mut self) -> Step {
        if self.peek()? != b'"' {
            return None;
        }
        self.string()?;
        self.skip_ws();
        if self.peek()? != b':' {
            return None;
        }
        self.i += 1;
        Some(())
    }

    fn literal(&mut self, word: &[u8], tag: Tag) -> Step {
        if !self.b[self.i..].starts_with(word) {
            return None;
        }
        self.push(tag, self.i, self.i + word.len());
        self.i += word.len();
        Some(())
    }

    /// A string, from its opening quote to the next quote stage 1 found unescaped; its
    /// contents were checked there.
    #[inline]
    fn string(&mut self) -> Step {
        let start = self.i + 1;
        let (end, escaped) = string_end(self.doc.quote_words(), self.doc.slash_words(), start)?;
        self.i = end + 1;
        if escaped {
            let slot = self.doc.cache.len() as u32;
            self.doc.cache.push(OnceCell::new());
            self.push(Tag::Escaped, start, end);
            if let Some(node) = self.doc.nodes.last_mut() {
                node.slot = slot;
            }
        } else {
            self.push(Tag::Str, start, end);
        }
        Some(())
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, in the f64 range.
    fn number(&mut self) -> Step {
        let b = self.b;
        let start = self.i;
        let mut i = start;
        if b[i] == b'-' {
            i += 1;
        }
        match *b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits_end(b, i),
            _ => return None,
        }
        let mut exponent = false;
        if b.get(i) == Some(&b'.') {
            let end = digits_end(b, i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            exponent = true;
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let end = digits_end(b, i);
            if end == i {
                return None;
            }
            i = end;
        }
        // serde_json refuses a number that rounds to infinity; only an exponent or
        // hundreds of digits can get there.
        if exponent || i - start > 300 {
            let text = std::str::from_utf8(&b[start..i]).ok()?;
            if !text.parse::<f64>().ok()?.is_finite() {
                return None;
            }
        }
        self.push(Tag::Number, start, i);
        self.i = i;
        Some(())
    }
}

fn digits_end(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// The index of the first set bit at or after `from` (the tests' reference for
/// [`string_end`]).
#[cfg(test)]
fn next_bit(bits: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut m = bits.get(w)? & (!0u64 << (from % 64));
    while m == 0 {
        w += 1;
        m = *bits.get(w)?;
    }
    Some(w * 64 + m.trailing_zeros() as usize)
}

/// The closing quote of a string whose contents start at `from`, and whether a backslash
/// comes before it: one walk over both masks (a string spans many words when it is a tool's
/// output). `None` when no quote closes it.
#[inline]
fn string_end(quotes: &[u64], slashes: &[u64], from: usize) -> Option<(usize, bool)> {
    let mut w = from / 64;
    let first = !0u64 << (from % 64);
    let mut q = quotes.get(w)? & first;
    let mut s = slashes.get(w).copied().unwrap_or(0) & first;
    let mut slash_before = 0u64;
    while q == 0 {
        slash_before |= s;
        w += 1;
        q = *quotes.get(w)?;
        s = slashes.get(w).copied().unwrap_or(0);
    }
    let bit = q.trailing_zeros();
    // The backslashes of the last word below the quote.
    let below = (1u64 << bit) - 1;
    Some((w * 64 + bit as usize, slash_before | (s & below) != 0))
}

/// The positions of a sorted list that fall in `from..to`.
fn within(list: &[u32], from: usize, to: usize) -> impl Iterator<Item = &u32> {
    let first = list.partition_point(|&p| (p as usize) < from);
    list.get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(move |&&p| (p as usize) < to)
}

/// Whether a bit is set in `from..to` (what [`string_end`] finds on its way, as a test
/// reads it).
#[cfg(test)]
fn any_bit(bits: &[u64], from: usize, to: usize) -> bool {
    if from >= to {
        return false;
    }
    let (first, last) = (from / 64, (to - 1) / 64);
    let low = !0u64 << (from % 64);
    let high = !0u64 >> (63 - (to - 1) % 64);
    let word = |w: usize| bits.get(w).copied().unwrap_or(0);
    if first == last {
        return word(first) & low & high != 0;
    }
    word(first) & low != 0
        || bits
            .get(first + 1..last)
            .is_some_and(|ws| ws.iter().any(|&w| w != 0))
        || word(last) & high != 0
}

/// The bytes an escape may name after its backslash: the one-character escapes
/// ([`UNESCAPED`]) and `u`.
const ESCAPABLE: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    while k < 256 {
        t[k] = UNESCAPED[k] != 0 || k == b'u' as usize;
        k += 1;
    }
    t
};

/// The loop of stage 1, given a function making a block's masks (quotes, backslashes,
/// control characters, `n`s) and one computing a prefix XOR.
macro_rules! stage1_body {
    ($b:expr, $doc:expr, $masks:expr, $prefix_xor:ident) => {{
        let b: &[u8] = $b;
        let doc: &mut Doc = $doc;
        doc.unicode.clear();
        doc.solidus.clear();
        // Sized first and written in place: no capacity check per block. Every word of the
        // record is written below (one per 64-byte block), so the vectors only ever grow:
        // zeroing the words first was a quarter of the record's size in `memset` each time.
        let words = b.len().div_ceil(64);
        if doc.quotes.len() < words {
            doc.quotes.resize(words, 0);
            doc.slashes.resize(words, 0);
        }
        doc.words = words;
        // Whether the first byte of the next block is escaped, and is in a string.
        let mut carry_escaped = 0u64;
        let mut carry_in_string = 0u64;
        let mut bad = 0u64;
        let mut last = [b' '; 64];
        let outputs = doc.quotes[..words]
            .iter_mut()
            .zip(doc.slashes[..words].iter_mut());
        for (k, (block, (quotes_out, slashes_out))) in b.chunks(64).zip(outputs).enumerate() {
            let block: &[u8; 64] = match block.first_chunk::<64>() {
                Some(full) => full,
                None => {
                    last[..block.len()].copy_from_slice(block);
                    &last
                }
            };
            let (quote, slash, control, n) = $masks(block);
            let escaped = escaped_bits(slash, &mut carry_escaped);
            let escaped_quote = quote & escaped;
            let quote = quote & !escaped;
            let in_string = $prefix_xor(quote) ^ carry_in_string;
            carry_in_string = ((in_string as i64) >> 63) as u64;
            bad |= control & in_string;
            // Escaped quotes, backslashes and `n`s are fine; look at the other ones.
            let e = escaped & !(slash | escaped_quote | n);
            if e != 0 {
                bad |= other_escapes(e, block, k * 64, &mut doc.unicode, &mut doc.solidus);
            }
            *quotes_out = quote;
            *slashes_out = slash;
        }
        bad == 0 && unicode_escapes_valid(b, &doc.unicode)
    }};
}

/// The escapes of a block other than `\"`, `\\` and `\n` (`e` has the bit of each
/// escaped byte): where its `\u`s and `\/`s are, and whether one is not an escape (nonzero
/// then). Out of stage 1's loop, which keeps its registers for the common case.
#[cold]
#[inline(never)]
fn other_escapes(
    mut e: u64,
    block: &[u8; 64],
    base: usize,
    unicode: &mut Vec<u32>,
    solidus: &mut Vec<u32>,
) -> u64 {
    let mut bad = 0;
    while e != 0 {
        let at = e.trailing_zeros() as usize;
        let c = block[at];
        bad |= u64::from(!ESCAPABLE[usize::from(c)]);
        match c {
            b'u' => unicode.push((base + at) as u32),
            b'/' => solidus.push((base + at) as u32),
            _ => {}
        }
        e &= e - 1;
    }
    bad
}

/// Stage 1 over the whole record: fills `doc.quotes` and `doc.slashes`, and returns
/// `false` when the record is not UTF-8, or a string holds a control character or an
/// invalid escape. Bytes outside strings are stage 2's: a stray backslash or control
/// character there fails it.
///
/// The body is written once (`stage1_body!`) and compiled for the instruction sets a CPU
/// may have: AVX2 with carry-less multiplication when the CPU has them, checking UTF-8 on
/// the vectors it loads (compiled a second time for CPUs with AVX-512, see
/// [`stage1_avx512`]); else SSE2 (every x86-64 CPU), else plain code on other targets,
/// both after the record was checked as UTF-8 (the standard library, or simdutf8 off x86-64).
fn stage1(b: &[u8], doc: &mut Doc) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
        {
            // SAFETY: the CPU has every feature `stage1_avx512` is compiled for, as just
            // checked (AVX-512BW implies AVX-512F; AVX2 is asked for too, though every
            // CPU with AVX-512 has it). It reads the record through safe slice operations
            // and `utf8::load` only.
            // (tests: `stage1_is_the_same_on_every_path`, `utf8_in_stage1_is_std_s_verdict`.)
            #[allow(unsafe_code)]
            return unsafe { stage1_avx512(b, doc) };
        }
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
        {
            // SAFETY: the CPU has both features `stage1_avx2` is compiled for, as just
            // checked. It reads the record through safe slice operations only.
            // (tests: `block_masks_match_the_bytes`, `stage1_is_the_same_on_every_path`.)
            #[allow(unsafe_code)]
            return unsafe { stage1_avx2(b, doc) };
        }
        // SAFETY: SSE2 is part of x86-64 itself: every x86-64 CPU has it. (tests: as above.)
        #[allow(unsafe_code)]
        unsafe {
            stage1_sse2(b, doc)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        simdutf8::basic::from_utf8(b).is_ok() && stage1_body!(b, doc, portable_masks, prefix_xor)
    }
}

/// Stage 1 on AVX2 vectors with its UTF-8 check, as a function compiled for `$features`.
macro_rules! stage1_on_avx2 {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name(b: &[u8], doc: &mut Doc) -> bool {
            let mut utf8 = utf8::Utf8::new();
            let bytes = MaskBytes::new();
            let strings_ok = stage1_body!(
                b,
                doc,
                |block: &[u8; 64]| avx2_masks(block, &mut utf8, &bytes),
                clmul_prefix_xor
            );
            strings_ok && utf8.valid()
        }
    };
}

stage1_on_avx2!(stage1_avx2, "avx2,pclmulqdq");

stage1_on_avx2!(
    /// The AVX2 stage 1 compiled for CPUs with AVX-512 as well: the same source, but the
    /// compiler has 32 vector registers instead of 16 (the UTF-8 tables and the bytes
    /// looked for no longer spill to the stack every block) and compares 64 bytes into a
    /// mask register at once. 5-6% less CPU for `validate` (docs/PERFORMANCE.md, "Stage 1
    /// compiled for AVX-512"). Written with AVX-512 intrinsics by hand, it was slower.
    stage1_avx512,
    "avx2,pclmulqdq,avx512f,avx512bw,avx512vl"
);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn stage1_sse2(b: &[u8], doc: &mut Doc) -> bool {
    // An x86-64 CPU without AVX2 (older than 2013, or a small Atom): the standard library's
    // check, which has an ASCII fast path of its own.
    std::str::from_utf8(b).is_ok() && stage1_body!(b, doc, sse2_masks, prefix_xor)
}

/// Checks every `\u` escape one by one (`unicode` holds where their `u`s are): four hex
/// digits, and UTF-16 surrogates only in pairs, as serde_json requires.
fn unicode_escapes_valid(b: &[u8], unicode: &[u32]) -> bool {
    let mut done = 0;
    for &u in unicode {
        let u = u as usize;
        if u < done {
            // the low half of a surrogate pair, checked with its high half
            continue;
        }
        match escape_end(b, u.saturating_sub(1)) {
            Some(end) => done = end,
            None => return false,
        }
    }
    true
}

/// The escaped bytes of a block (the byte after each backslash that is not itself
/// escaped), given its backslashes and whether its first byte is escaped; sets the carry
/// for the next block. simdjson's branch-free method: runs of backslashes are told odd
/// from even by adding the run starts to the runs.
fn escaped_bits(slash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    if slash == 0 {
        return std::mem::take(carry);
    }
    let slash = slash & !*carry;
    let follows_escape = (slash << 1) | *carry;
    let odd_starts = slash & !EVEN & !follows_escape;
    let (even_started, overflow) = odd_starts.overflowing_add(slash);
    *carry = u64::from(overflow);
    let invert = even_started << 1;
    (EVEN ^ invert) & follows_escape
}

/// XOR of all lower bits: 1 from an opening quote up to (not including) its closing one.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The eight bytes of `chunk` from `i` as a little-endian word, for a vector register
/// (built from words, not loaded through a pointer, so no `unsafe` is needed to read).
#[cfg(target_arch = "x86_64")]
fn word_at(chunk: &[u8], i: usize) -> i64 {
    chunk
        .get(i..i + 8)
        .and_then(<[u8]>::first_chunk::<8>)
        .map_or(0, |w| i64::from_le_bytes(*w))
}

/// One bit per byte of a 64-byte block: quotes, backslashes, control characters, `n`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn sse2_masks(block: &[u8; 64]) -> (u64, u64, u64, u64) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let slash = _mm_set1_epi8(b'\\' as i8);
    let letter_n = _mm_set1_epi8(b'n' as i8);
    let below_space = _mm_set1_epi8(0x1F);
    let (mut q, mut s, mut c, mut n) = (0u64, 0u64, 0u64, 0u64);
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        let v = _mm_set_epi64x(word_at(chunk, 8), word_at(chunk, 0));
        let shift = 16 * k;
        q |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u16) << shift;
        s |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)) as u16) << shift;
        n |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, letter_n)) as u16) << shift;
        let low = _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v);
        c |= u64::from(_mm_movemask_epi8(low) as u16) << shift;
    }
    (q, s, c, n)
}

/// As [`sse2_masks`], 32 bytes at a time, and the block's UTF-8 checked on the way.
/// The bytes stage 1 looks for, one per lane, opaque to the compiler so they stay in
/// registers or the frame of `stage1_avx2` and `stage1_avx512` (the reason is `utf8::Tables`'s).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct MaskBytes {
    quote: std::arch::x86_64::__m256i,
    slash: std::arch::x86_64::__m256i,
    letter_n: std::arch::x86_64::__m256i,
    below_space: std::arch::x86_64::__m256i,
}

#[cfg(target_arch = "x86_64")]
impl MaskBytes {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        use std::arch::x86_64::_mm256_set1_epi8;
        std::hint::black_box(MaskBytes {
            quote: _mm256_set1_epi8(b'"' as i8),
            slash: _mm256_set1_epi8(b'\\' as i8),
            letter_n: _mm256_set1_epi8(b'n' as i8),
            below_space: _mm256_set1_epi8(0x1F),
        })
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2_masks(block: &[u8; 64], utf8: &mut utf8::Utf8, bytes: &MaskBytes) -> (u64, u64, u64, u64) {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_min_epu8, _mm256_movemask_epi8};
    let (halves, _) = block.as_chunks::<32>();
    let halves = [&halves[0], &halves[1]].map(|half| utf8::load(half));
    utf8.block(halves[0], halves[1]);
    let MaskBytes {
        quote,
        slash,
        letter_n,
        below_space,
    } = *bytes;
    let mask =
        |v: __m256i, of: __m256i| u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, of)) as u32);
    let (mut q, mut s, mut c, mut n) = (0u64, 0u64, 0u64, 0u64);
    for (k, v) in halves.into_iter().enumerate() {
        let shift = 32 * k;
        q |= mask(v, quote) << shift;
        s |= mask(v, slash) << shift;
        n |= mask(v, letter_n) << shift;
        c |= mask(v, _mm256_min_epu8(v, below_space)) << shift;
    }
    (q, s, c, n)
}

/// [`prefix_xor`] in one carry-less multiplication by all ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
fn clmul_prefix_xor(x: u64) -> u64 {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8, _mm_set_epi64x,
    };
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// One bit per byte of a 64-byte block: quotes, backslashes, control characters, `n`s.
/// (Plain code for targets other than x86-64; correct, not tuned.)
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn portable_masks(block: &[u8; 64]) -> (u64, u64, u64, u64) {
    let (mut q, mut s, mut c, mut n) = (0u64, 0u64, 0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        q |= u64::from(b == b'"') << i;
        s |= u64::from(b == b'\\') << i;
        c |= u64::from(b < 0x20) << i;
        n |= u64::from(b == b'n') << i;
    }
    (q, s, c, n)
}

/// The index after the escape starting at `b[i] == b'\\'`, if it is a valid one. A `\u`
/// escape of a UTF-16 high surrogate must be followed by one of a low surrogate, and a low
/// surrogate may not stand alone (serde_json's rules for a string).
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => {
            let unit = hex4(b, i + 2)?;
            match unit {
                0xD800..=0xDBFF => {
                    if b.get(i + 6) != Some(&b'\\') || b.get(i + 7) != Some(&b'u') {
                        return None;
                    }
                    match hex4(b, i + 8)? {
                        0xDC00..=0xDFFF => Some(i + 12),
                        _ => None,
                    }
                }
                0xDC00..=0xDFFF => None,
                _ => Some(i + 6),
            }
        }
        _ => None,
    }
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let digits = b.get(i..i + 4)?;
    let mut n = 0;
    for &d in digits {
        let v = HEX[usize::from(d)];
        if v > 15 {
            return None;
        }
        n = n * 16 + u32::from(v);
    }
    Some(n)
}

/// Each byte's value as a hex digit, or 0xFF.
const HEX: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut k = 0;
    while k < 10 {
        t[b'0' as usize + k] = k as u8;
        k += 1;
    }
    k = 0;
    while k < 6 {
        t[b'a' as usize + k] = 10 + k as u8;
        t[b'A' as usize + k] = 10 + k as u8;
        k += 1;
    }
    t
};

/// The length of the escape at `b[i] == b'\\'` when it is the one serde_json writes for
/// the character it stands for: `\"`, `\\`, one of the short escapes `\b \f \n \r \t`,
/// or `\u00xx` in lowercase hex for another control character. `None` for any other
/// escape (`\/`, `\u00e9`, uppercase hex, a surrogate pair, `\u0008` for `\b`): serde_json
/// writes those characters differently.
fn canonical_escape_len(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => match *b.get(i + 2..i + 6)? {
            [b'0', b'0', high @ (b'0' | b'1'), low @ (b'0'..=b'9' | b'a'..=b'f')] => {
                let low = char::from(low).to_digit(16)?;
                let unit = u32::from(high - b'0') * 16 + low;
                // The control characters with a short escape are written short.
                (!matches!(unit, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)).then_some(6)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The text of a string's contents that `escape_end` accepted.
/// `base` is where `raw` starts in the record, so the backslashes are found in stage 1's
/// mask `slashes` rather than searched for again.
fn unescape(raw: &str, base: usize, slashes: &[u64]) -> String {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    // Where the text not yet copied starts; an escape found before it is the second
    // backslash of a `\\`.
    let mut start = 0;
    // The backslashes of `raw`, one word of the mask at a time (a tool's output has one
    // every few dozen bytes: a search from scratch for each cost more than the copying).
    let mut w = base / 64;
    let mut bits = slashes.get(w).copied().unwrap_or(0) & (!0u64 << (base % 64));
    'escapes: loop {
        while bits == 0 {
            w += 1;
            if w * 64 >= base + b.len() {
                break 'escapes;
            }
            bits = slashes.get(w).copied().unwrap_or(0);
        }
        let at = (w * 64 + bits.trailing_zeros() as usize).wrapping_sub(base);
        bits &= bits - 1;
        if at >= b.len() {
            break;
        }
        if at < start {
            continue;
        }
        out.push_str(&raw[start..at]);
        let Some(&e) = b.get(at + 1) else {
            start = at;
            break;
        };
        let next = match UNESCAPED[usize::from(e)] {
            0 if e == b'u' => {
                let high = hex4(b, at + 2).unwrap_or(0xFFFD);
                if (0xD800..=0xDBFF).contains(&high) {
                    let low = hex4(b, at + 8).unwrap_or(0xDC00);
                    let code =
                        0x10000 + ((high - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    at + 12
                } else {
                    out.push(char::from_u32(high).unwrap_or('\u{FFFD}'));
                    at + 6
                }
            }
            0 => {
                out.push(char::from(e));
                at + 2
            }
            c => {
                out.push(char::from(c));
                at + 2
            }
        };
        start = next.min(b.len());
    }
    out.push_str(&raw[start..]);
    out
}

/// What each one-character escape stands for (`\u` is read apart; stage 1 refused any
/// other).
const UNESCAPED: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 8;
    t[b'f' as usize] = 12;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(s: &str) -> bool {
        Doc::new().parse(s, 128)
    }

    #[test]
    fn grammar_follows_serde_json() {
        let cases = [
            r#"{"a":1}"#,
            r#" [1, -0, 0.5, 1e5, 1E-5, -1.5e+3, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"] "#,
            r#"{"a":{"b":[[],{}]},"a":null}"#,
            "true",
            "1E400",
            "1e-400",
            "01",
            "1.",
            ".5",
            "-",
            "[1,]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\x""#,
            "\"a\u{1}\"",
            "\"tab\there\"",
            "[1 2]",
            "{}x",
            "nul",
            "\u{feff}{}",
            "[\"é😀\"]",
            &"9".repeat(400),
            &format!("0.{}", "9".repeat(400)),
        ];
        for case in cases {
            let theirs = serde_json::from_str::<serde_json::Value>(case).is_ok();
            assert_eq!(accepts(case), theirs, "{case:?}");
        }
    }

    /// `len` bytes of `pool`, the same for a seed.
    fn random_bytes(seed: u64, len: usize, pool: &[u8]) -> Vec<u8> {
        let mut rng = crate::test_rng::Rng::new(seed | 1);
        (0..len).map(|_| pool[rng.below(pool.len())]).collect()
    }

    type Masks = (u64, u64, u64, u64);
    type MaskMaker = (&'static str, fn(&[u8; 64]) -> Masks);

    /// Every way of making a block's masks, on this CPU.
    fn mask_makers() -> Vec<MaskMaker> {
        #[allow(unused_mut)]
        let mut makers: Vec<MaskMaker> = vec![("portable", portable_masks)];
        #[cfg(target_arch = "x86_64")]
        {
            #[allow(unsafe_code)]
            fn sse2(block: &[u8; 64]) -> Masks {
                // SAFETY: SSE2 is part of x86-64.
                unsafe { sse2_masks(block) }
            }
            makers.push(("sse2", sse2));
            if std::arch::is_x86_feature_detected!("avx2") {
                #[allow(unsafe_code)]
                fn avx2(block: &[u8; 64]) -> Masks {
                    // SAFETY: only pushed after the CPU was found to have AVX2.
                    unsafe { avx2_masks(block, &mut utf8::Utf8::new(), &MaskBytes::new()) }
                }
                makers.push(("avx2", avx2));
            }
        }
        makers
    }

    type Stage1 = (&'static str, fn(&[u8], &mut Doc) -> bool);

    /// Every compilation of stage 1 this CPU can run, SSE2's last. `stage1` takes the
    /// first; the tests hold every one to the plain code and to the standard library.
    fn stage1_paths() -> Vec<Stage1> {
        #[allow(unused_mut)]
        let mut paths: Vec<Stage1> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512bw") && has!("avx512vl") && has!("avx2") && has!("pclmulqdq") {
                #[allow(unsafe_code)]
                fn avx512(b: &[u8], doc: &mut Doc) -> bool {
                    // SAFETY: only listed after the CPU was found to have these features.
                    unsafe { stage1_avx512(b, doc) }
                }
                paths.push(("avx512", avx512));
            }
            if has!("avx2") && has!("pclmulqdq") {
                #[allow(unsafe_code)]
                fn avx2(b: &[u8], doc: &mut Doc) -> bool {
                    // SAFETY: only listed after the CPU was found to have these features.
                    unsafe { stage1_avx2(b, doc) }
                }
                paths.push(("avx2", avx2));
            }
            #[allow(unsafe_code)]
            fn sse2(b: &[u8], doc: &mut Doc) -> bool {
                // SAFETY: SSE2 is part of x86-64.
                unsafe { stage1_sse2(b, doc) }
            }
            paths.push(("sse2", sse2));
        }
        paths
    }

    #[test]
    fn block_masks_match_the_bytes() {
        let all: Vec<u8> = (0..=255).collect();
        for (name, masks) in mask_makers() {
            for seed in 0..200 {
                let bytes = random_bytes(seed, 64, &all);
                let block: &[u8; 64] = bytes.first_chunk().expect("64 bytes");
                let (q, s, c, n) = masks(block);
                for (i, &b) in bytes.iter().enumerate() {
                    assert_eq!(
                        q >> i & 1 == 1,
                        b == b'"',
                        "{name}: quote at {i} of {bytes:?}"
                    );
                    assert_eq!(s >> i & 1 == 1, b == b'\\', "{name}: backslash at {i}");
                    assert_eq!(c >> i & 1 == 1, b < 0x20, "{name}: control at {i}: {b:#x}");
                    assert_eq!(n >> i & 1 == 1, b == b'n', "{name}: n at {i}");
                }
            }
        }
    }

    /// Every compiled path gives what the plain code gives, and `stage1` takes one of them.
    #[test]
    fn stage1_is_the_same_on_every_path() {
        let pool = b"\\\"\"an u0/\x01{}[]:,\xc3\xa9";
        let paths = stage1_paths();
        for seed in 0..300u64 {
            let raw = random_bytes(seed, 1 + (seed as usize * 13) % 400, pool);
            // Mostly not UTF-8 (a lone 0xC3 or 0xA9): the verdict alone, then the masks
            // of the same bytes made UTF-8 (each bad byte an U+FFFD).
            let repaired = String::from_utf8_lossy(&raw).into_owned().into_bytes();
            for bytes in [raw, repaired] {
                let mut plain = Doc::new();
                let strings_ok = stage1_body!(&bytes, &mut plain, portable_masks, prefix_xor);
                let is_utf8 = std::str::from_utf8(&bytes).is_ok();
                let expected = is_utf8 && strings_ok;
                let mut taken = Doc::new();
                assert_eq!(stage1(&bytes, &mut taken), expected, "{bytes:?}");
                for (name, path) in &paths {
                    let mut doc = Doc::new();
                    assert_eq!(path(&bytes, &mut doc), expected, "{name}: {bytes:?}");
                    if !is_utf8 {
                        // A path may stop at the UTF-8 verdict.
                        continue;
                    }
                    assert_eq!(doc.quotes, plain.quotes, "{name}");
                    assert_eq!(doc.slashes, plain.slashes, "{name}");
                    assert_eq!(doc.unicode, plain.unicode, "{name}");
                    assert_eq!(doc.solidus, plain.solidus, "{name}");
                }
                if is_utf8 {
                    assert_eq!(taken.quotes, plain.quotes);
                    assert_eq!(taken.slashes, plain.slashes);
                }
            }
        }
    }

    /// Stage 1's UTF-8 verdict is the standard library's, on every path: every sequence of
    /// up to four of the bytes where UTF-8's rules change, after every number of ASCII
    /// bytes that puts it across the edge of a 32-byte vector or a 64-byte block, and
    /// followed by ASCII, by more of the same, or by nothing (the end of the record).
    #[test]
    fn utf8_in_stage1_is_std_s_verdict() {
        let edges: &[u8] = &[
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF,
        ];
        let mut sequences: Vec<Vec<u8>> = Vec::new();
        for &a in edges {
            sequences.push(vec![a]);
            for &b in edges {
                sequences.push(vec![a, b]);
                if a >= 0xC0 {
                    for &c in edges {
                        sequences.push(vec![a, b, c]);
                        if a >= 0xF0 && (0x80..0xC0).contains(&b) && (0x80..0xC0).contains(&c) {
                            for &d in edges {
                                sequences.push(vec![a, b, c, d]);
                            }
                        }
                    }
                }
            }
        }
        let paths = stage1_paths();
        let mut checked = 0;
        let mut valid = 0;
        // Miri runs every 97th sequence at two places (each takes it a while).
        let leads: &[usize] = if cfg!(miri) {
            &[30, 62]
        } else {
            &[0, 1, 29, 30, 31, 32, 60, 61, 62, 63, 64, 95]
        };
        let step = if cfg!(miri) { 97 } else { 1 };
        for seq in sequences.iter().step_by(step) {
            for &lead in leads {
                for tail in [&b""[..], b"a", "é".as_bytes(), seq] {
                    let mut bytes = vec![b'a'; lead];
                    bytes.extend_from_slice(seq);
                    bytes.extend_from_slice(tail);
                    let theirs = std::str::from_utf8(&bytes).is_ok();
                    let mut doc = Doc::new();
                    assert_eq!(stage1(&bytes, &mut doc), theirs, "{bytes:x?}");
                    for (name, path) in &paths {
                        assert_eq!(path(&bytes, &mut doc), theirs, "{name}: {bytes:x?}");
                    }
                    checked += 1;
                    valid += usize::from(theirs);
                }
            }
        }
        assert!(
            (checked > 100_000 || cfg!(miri)) && valid > checked / 50,
            "{valid} of {checked}"
        );
        // A character may also end exactly at a block's end, or begin in the padding of a
        // last short block.
        for len in (60..=200).step_by(if cfg!(miri) { 29 } else { 1 }) {
            let mut text: String = "a".repeat(len);
            text.push('😀');
            let cut = &text.as_bytes()[..text.len() - 1];
            assert!(stage1(text.as_bytes(), &mut Doc::new()), "{len}");
            assert!(!stage1(cut, &mut Doc::new()), "cut at {len}");
            for (name, path) in &paths {
                assert!(path(text.as_bytes(), &mut Doc::new()), "{name}: {len}");
                assert!(!path(cut, &mut Doc::new()), "{name}: cut at {len}");
            }
        }
    }

    /// Stage 1's quotes are the quotes not escaped by an odd run of backslashes, across
    /// block boundaries too: checked against a byte-by-byte reading.
    #[test]
    fn escaped_quotes_match_a_byte_by_byte_reading() {
        for seed in 0..500 {
            let len = 1 + (seed as usize * 7) % 300;
            let bytes = random_bytes(seed, len, b"\\\\\\\"\"a ");
            let mut doc = Doc::new();
            stage1(&bytes, &mut doc);
            let mut escaped = false;
            for (i, &b) in bytes.iter().enumerate() {
                let bit = doc.quotes[i / 64] >> (i % 64) & 1 == 1;
                assert_eq!(bit, b == b'"' && !escaped, "byte {i} of {bytes:?}");
                escaped = b == b'\\' && !escaped;
            }
        }
    }

    /// Random texts made of JSON's pieces: the tape parser accepts exactly what
    /// serde_json accepts, and reads back the same strings.
    #[test]
    fn random_texts_get_serde_jsons_verdict() {
        let pieces: [&str; 24] = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\"k\"",
            "\\",
            "\\\"",
            "\\u00e9",
            "\\ud83d",
            "\\ude00",
            "1",
            "-0",
            "2.5e3",
            "true",
            "null",
            " ",
            "\n",
            "\u{1}",
            "é",
            "x",
            "\"a\\\\b\"",
        ];
        let mut accepted = 0;
        let runs = if cfg!(miri) { 500 } else { 20_000u64 };
        for seed in 0..runs {
            let picks = random_bytes(
                seed,
                1 + (seed as usize % 12),
                &(0..24).collect::<Vec<u8>>(),
            );
            let text: String = picks.iter().map(|&p| pieces[usize::from(p)]).collect();
            let theirs = serde_json::from_str::<serde_json::Value>(&text);
            let mut doc = Doc::new();
            assert_eq!(doc.parse(&text, 128), theirs.is_ok(), "{text:?}");
            if let Ok(serde_json::Value::String(s)) = theirs {
                accepted += 1;
                assert_eq!(doc.text(&text, &doc.nodes[0]), s, "{text:?}");
            }
        }
        assert!(
            accepted > runs / 200,
            "the pieces make valid strings too: {accepted}"
        );
    }

    /// One `Doc` reused from record to record, as the pipeline reuses it (stage 1 does not
    /// zero the last record's masks first), reads every record as a fresh one does: long
    /// records and short ones in turn, strings full of quotes and backslashes, some records
    /// cut short.
    #[test]
    fn a_reused_doc_reads_as_a_fresh_one() {
        let mut reused = Doc::new();
        let runs = if cfg!(miri) { 100 } else { 4_000u64 };
        let mut parsed = 0;
        for seed in 0..runs {
            let len = match seed % 3 {
                0 => 200 + seed as usize % 900,
                1 => seed as usize % 40,
                _ => 60 + seed as usize % 70,
            };
            let text =
                String::from_utf8(random_bytes(seed, len, b"ab\"\\ \n{}:,")).unwrap_or_default();
            let value = serde_json::json!({"k": text, "n": [1, {"s": text.len()}]});
            let mut record = value.to_string().into_bytes();
            if seed % 5 == 0 {
                record.truncate(record.len() * 2 / 3);
            }
            let mut fresh = Doc::new();
            let theirs = fresh.parse_bytes(&record, 128).is_some();
            let ours = reused.parse_bytes(&record, 128).is_some();
            assert_eq!(ours, theirs, "seed {seed}");
            if !theirs {
                continue;
            }
            parsed += 1;
            let shape = |d: &Doc| -> Vec<(Tag, u32, u32)> {
                d.nodes.iter().map(|n| (n.tag, n.a, n.b)).collect()
            };
            assert_eq!(shape(&reused), shape(&fresh), "seed {seed}");
            let src = std::str::from_utf8(&record).unwrap_or_default();
            for (r, f) in reused.nodes.iter().zip(&fresh.nodes) {
                if matches!(r.tag, Tag::Str | Tag::Escaped) {
                    assert_eq!(reused.text(src, r), fresh.text(src, f), "seed {seed}");
                }
            }
        }
        assert!(parsed > runs / 2, "most records are whole: {parsed}");
    }

    /// Long strings dense with escapes of every kind (so escapes meet at the edges of the
    /// mask's words, and `\\\\` is followed by other escapes) read as serde_json reads them.
    #[test]
    fn long_escaped_strings_read_as_serde_json_reads_them() {
        let pieces: [&str; 12] = [
            "\\n",
            "\\\\",
            "\\\"",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\/",
            "\\t",
            "a",
            "bc",
            "é",
            "\\\\n",
            " ",
        ];
        let runs = if cfg!(miri) { 50 } else { 3_000u64 };
        for seed in 0..runs {
            let picks = random_bytes(seed, seed as usize % 300, &(0..12).collect::<Vec<u8>>());
            let body: String = picks.iter().map(|&p| pieces[usize::from(p)]).collect();
            let text = format!("[\"{body}\"]");
            let theirs: Vec<String> = serde_json::from_str(&text).expect("valid JSON");
            let mut doc = Doc::new();
            assert!(doc.parse(&text, 8), "{text}");
            assert_eq!(doc.text(&text, &doc.nodes[1]), theirs[0], "{text}");
        }
    }

    #[test]
    fn string_ends_match_the_two_searches() {
        let quotes = [0x8000_0000_0000_0001u64, 0, 0x10, 1 << 63];
        let slash_sets = [[0u64; 4], [!0; 4], [0, 1 << 5, 0, 0], [0x2, 0, 0x8, 0x4000]];
        for slashes in slash_sets {
            for from in 0..256 {
                let expect = next_bit(&quotes, from).map(|end| (end, any_bit(&slashes, from, end)));
                assert_eq!(string_end(&quotes, &slashes, from), expect, "from {from}");
            }
        }
    }

    #[test]
    fn bit_searches_match_a_scan() {
        let bits = [0x8000_0000_0000_0001u64, 0, 0x10, 1 << 63];
        let set = |i: usize| bits[i / 64] >> (i % 64) & 1 == 1;
        for from in 0..256 {
            let expect = (from..256).find(|&i| set(i));
            assert_eq!(next_bit(&bits, from), expect, "next from {from}");
            for to in from..=256 {
                let expect = (from..to).any(set);
                assert_eq!(any_bit(&bits, from, to), expect, "any in {from}..{to}");
            }
        }
    }

    #[test]
    fn depth_is_bounded() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(Doc::new().parse(&nest(4), 4));
        assert!(!Doc::new().parse(&nest(5), 4));
        let deep = if cfg!(miri) { 500 } else { 100_000 };
        assert!(!Doc::new().parse(&"[".repeat(deep), 128));
    }

    /// The raw text of a string is offered for copying exactly when it is what serde_json
    /// writes for the string's value: one case per kind of escape.
    #[test]
    fn canonical_raw_is_offered_only_where_serde_json_writes_the_same() {
        let cases = [
            ("\"plain é 😀 \u{7f}\"", true),
            (r#""""#, true),
            (r#""a\"b\\c\nd\re\tf\bg\fh""#, true),
            (r#""\u0000\u0001\u001f\u000b\u001b""#, true),
            (r#""\/""#, false),
            (r#""a\u00e9""#, false),
            (r#""\u001F""#, false),
            (r#""\u001B""#, false),
            (r#""\ud83d\ude00""#, false),
            (r#""\u0008""#, false),
            (r#""\u0009""#, false),
            (r#""\u000a""#, false),
            (r#""\u000c""#, false),
            (r#""\u000d""#, false),
            (r#""\u0020""#, false),
            (r#""\u007f""#, false),
            (r#""\u0022""#, false),
            (r#""\u005c""#, false),
            (r#""\\/""#, true),
            (r#""\\u00e9""#, true),
        ];
        for (literal, canonical) in cases {
            let mut doc = Doc::new();
            assert!(doc.parse(literal, 8), "{literal}");
            let raw = doc.canonical_raw(literal, &doc.nodes[0]);
            assert_eq!(raw.is_some(), canonical, "{literal}");
            let value: String = serde_json::from_str(literal).expect("valid");
            let theirs = serde_json::to_string(&value).expect("serde_json writes");
            if let Some(raw) = raw {
                assert_eq!(format!("\"{raw}\""), theirs, "{literal}");
            }
        }
    }

    /// An escape stage 1 listed is looked for in its own string only: the strings around
    /// one with `\/` or `\u00e9` are still copied, and the one holding it is not.
    #[test]
    fn canonical_raw_looks_at_its_own_string_only() {
        let src = r#"["a\nb", "\/", "c\"d", "\u00e9", "\u0001", {"k\/": "\t"}]"#;
        let mut doc = Doc::new();
        assert!(doc.parse(src, 8));
        let offered: Vec<Option<&str>> = doc.nodes[1..]
            .iter()
            .filter(|n| matches!(n.tag, Tag::Str | Tag::Escaped))
            .map(|n| doc.canonical_raw(src, n))
            .collect();
        let expect = [
            Some(r"a\nb"),
            None,
            Some(r#"c\"d"#),
            None,
            Some(r"\u0001"),
            None,
            Some(r"\t"),
        ];
        assert_eq!(offered, expect);
        assert_eq!(doc.canonical_raw(src, &doc.nodes[0]), None, "not a string");
    }

    #[test]
    fn escapes_are_unescaped_when_read() {
        let src = r#"["a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00", "plain"]"#;
        let mut doc = Doc::new();
        assert!(doc.parse(src, 8));
        let expect: Vec<String> = serde_json::from_str(src).expect("valid");
        let texts: Vec<&str> = doc.nodes[1..].iter().map(|n| doc.text(src, n)).collect();
        assert_eq!(texts, expect);
        assert_eq!(doc.nodes[0].a, 2, "two elements");
        assert_eq!(doc.nodes[0].b, 2, "two nodes after the array");
    }
}
