//! Stage 1: the quote, backslash and control-character masks of every 64-byte block
//! (AVX2 with its UTF-8 check, AVX-512, SSE2, or plain code), and the escapes they find.

use super::*;

/// The bytes an escape may name after its backslash: the one-character escapes
/// ([`UNESCAPED`]) and `u`.
pub(super) const ESCAPABLE: [bool; 256] = {
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
pub(super) fn other_escapes(
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
pub(super) fn stage1(b: &[u8], doc: &mut Doc) -> bool {
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
        pub(super) fn $name(b: &[u8], doc: &mut Doc) -> bool {
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
pub(super) fn stage1_sse2(b: &[u8], doc: &mut Doc) -> bool {
    // An x86-64 CPU without AVX2 (older than 2013, or a small Atom): the standard library's
    // check, which has an ASCII fast path of its own.
    std::str::from_utf8(b).is_ok() && stage1_body!(b, doc, sse2_masks, prefix_xor)
}

/// Checks every `\u` escape one by one (`unicode` holds where their `u`s are): four hex
/// digits, and UTF-16 surrogates only in pairs, as serde_json requires.
pub(super) fn unicode_escapes_valid(b: &[u8], unicode: &[u32]) -> bool {
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
pub(super) fn escaped_bits(slash: u64, carry: &mut u64) -> u64 {
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
pub(super) fn prefix_xor(mut x: u64) -> u64 {
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
pub(super) fn word_at(chunk: &[u8], i: usize) -> i64 {
    chunk
        .get(i..i + 8)
        .and_then(<[u8]>::first_chunk::<8>)
        .map_or(0, |w| i64::from_le_bytes(*w))
}

/// One bit per byte of a 64-byte block: quotes, backslashes, control characters, `n`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
pub(super) fn sse2_masks(block: &[u8; 64]) -> (u64, u64, u64, u64) {
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
pub(super) struct MaskBytes {
    pub(super) quote: std::arch::x86_64::__m256i,
    pub(super) slash: std::arch::x86_64::__m256i,
    pub(super) letter_n: std::arch::x86_64::__m256i,
    pub(super) below_space: std::arch::x86_64::__m256i,
}

#[cfg(target_arch = "x86_64")]
impl MaskBytes {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Self {
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
pub(super) fn avx2_masks(
    block: &[u8; 64],
    utf8: &mut utf8::Utf8,
    bytes: &MaskBytes,
) -> (u64, u64, u64, u64) {
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
pub(super) fn clmul_prefix_xor(x: u64) -> u64 {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8, _mm_set_epi64x,
    };
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// One bit per byte of a 64-byte block: quotes, backslashes, control characters, `n`s.
/// (Plain code for targets other than x86-64; correct, not tuned.)
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn portable_masks(block: &[u8; 64]) -> (u64, u64, u64, u64) {
    let (mut q, mut s, mut c, mut n) = (0u64, 0u64, 0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        q |= u64::from(b == b'"') << i;
        s |= u64::from(b == b'\\') << i;
        c |= u64::from(b < 0x20) << i;
        n |= u64::from(b == b'n') << i;
    }
    (q, s, c, n)
}
