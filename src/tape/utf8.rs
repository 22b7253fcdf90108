//! UTF-8 checked inside stage 1's AVX2 loop, on the vectors stage 1 has already loaded,
//! so a record is read once rather than twice (docs/DESIGN.md, "The parser").
//!
//! The method is simdjson's "lookup" algorithm (Keiser and Lemire, *Validating UTF-8 in
//! less than one instruction per byte*, 2021): every byte is looked at with the byte
//! before it through three 16-entry tables (`vpshufb`), whose entries are bit sets of the
//! errors the pair could be; an error is a bit left set in all three. Whether the second
//! and third bytes before a byte ask for a continuation is checked apart. A 64-byte block
//! of ASCII only asks whether the block before it ended inside a character.
//!
//! Tests: `tape::tests::utf8_in_stage1_is_std_s_verdict` (every short sequence of the
//! bytes where UTF-8's rules change, at every place around the edges of a vector and a
//! block) and `tape::tests::random_texts_get_serde_jsons_verdict`.

use std::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
};

// What a pair of bytes (the one before, this one) may be wrong with.
/// A lead byte or ASCII where a continuation byte must be: `11______ 0_______`, `11______ 11______`.
const TOO_SHORT: u8 = 1 << 0;
/// A continuation byte after ASCII: `0_______ 10______`.
const TOO_LONG: u8 = 1 << 1;
/// `11100000 100_____`
const OVERLONG_3: u8 = 1 << 2;
/// Above U+10FFFF: `11110100 1001____`, `11110100 101_____`, `11110101 1001____`, ...
const TOO_LARGE: u8 = 1 << 3;
/// A UTF-16 surrogate: `11101101 101_____`.
const SURROGATE: u8 = 1 << 4;
/// `1100000_ 10______`
const OVERLONG_2: u8 = 1 << 5;
/// Above U+10FFFF with a `1000____` second byte: `11110101 1000____`, `1111011_ 1000____`, `11111___ 1000____`.
const TOO_LARGE_1000: u8 = 1 << 6;
/// `11110000 1000____` (the same bit: the two are told apart by the first byte's low half).
const OVERLONG_4: u8 = 1 << 6;
/// Two continuation bytes in a row: an error unless a lead byte two or three back wants them.
const TWO_CONTS: u8 = 1 << 7;
/// The errors the first byte's low half says nothing about.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// By the high half of the byte before.
static BYTE_1_HIGH: [u8; 32] = twice([
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
]);

/// By the low half of the byte before.
static BYTE_1_LOW: [u8; 32] = twice([
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
]);

/// By the high half of the byte itself.
static BYTE_2_HIGH: [u8; 32] = twice([
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
]);

/// The largest byte each of a vector's places may hold when the input ends after it:
/// the last three bytes may not open a character longer than what is left.
static LAST_MAX: [u8; 32] = {
    let mut t = [0xFF; 32];
    t[29] = 0b1111_0000 - 1;
    t[30] = 0b1110_0000 - 1;
    t[31] = 0b1100_0000 - 1;
    t
};

/// A 16-entry table for `vpshufb`, which looks up each 128-bit lane on its own.
const fn twice(t: [u8; 16]) -> [u8; 32] {
    let mut out = [0; 32];
    let mut i = 0;
    while i < 16 {
        out[i] = t[i];
        out[i + 16] = t[i];
        i += 1;
    }
    out
}

/// 32 bytes as a vector.
#[target_feature(enable = "avx2")]
pub(super) fn load(bytes: &[u8; 32]) -> __m256i {
    // SAFETY: an unaligned 256-bit load reads exactly the 32 bytes of `bytes`.
    // (tests: `block_masks_match_the_bytes`, `utf8_in_stage1_is_std_s_verdict`.)
    #[allow(unsafe_code)]
    unsafe {
        _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>())
    }
}

/// The UTF-8 state carried from block to block: one vector and two flags, so that stage
/// 1's loop keeps it in registers (three vectors of state were spilled to the stack on
/// every block, and the reload stalled when the stack and the record met 4 KiB apart).
#[derive(Clone, Copy, Debug)]
pub(super) struct Utf8 {
    /// The last non-ASCII vector looked at (the bytes before the next one).
    prev: __m256i,
    /// Whether `prev` ended inside a character.
    incomplete: bool,
    /// Whether an error was found.
    bad: bool,
    /// The lookup tables and constants, loaded once per record (see [`Tables`]).
    tables: Tables,
}

/// The vectors [`pair_errors`] and [`Utf8::block`] compare with, made opaque to the
/// compiler (`black_box`) when a record's check starts. Left as constants, LLVM loads them
/// from the binary's read-only data in every block it does not keep them in registers
/// for, while it spills `prev` to the stack: when a spill slot and one of those constants
/// sat a multiple of 4 KiB apart, each load waited for the store before it (4K aliasing),
/// and stage 1 ran 60% slower in one build of `events` (docs/PERFORMANCE.md, "The stack
/// and the constants"). Held here, they are kept in registers or in this function's own
/// frame, a few hundred bytes from the spill slots, never 4 KiB.
#[derive(Clone, Copy, Debug)]
struct Tables {
    byte_1_high: __m256i,
    byte_1_low: __m256i,
    byte_2_high: __m256i,
    last_max: __m256i,
    low_half: __m256i,
    third: __m256i,
    fourth: __m256i,
    two_conts: __m256i,
}

impl Tables {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        std::hint::black_box(Tables {
            byte_1_high: load(&BYTE_1_HIGH),
            byte_1_low: load(&BYTE_1_LOW),
            byte_2_high: load(&BYTE_2_HIGH),
            last_max: load(&LAST_MAX),
            low_half: _mm256_set1_epi8(0x0F),
            third: _mm256_set1_epi8((0xE0u8 - 0x80) as i8),
            fourth: _mm256_set1_epi8((0xF0u8 - 0x80) as i8),
            two_conts: _mm256_set1_epi8(TWO_CONTS as i8),
        })
    }
}

impl Utf8 {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Self {
        Utf8 {
            prev: _mm256_setzero_si256(),
            incomplete: false,
            bad: false,
            tables: Tables::new(),
        }
    }

    /// Checks a 64-byte block, given as its two halves.
    #[target_feature(enable = "avx2")]
    pub(super) fn block(&mut self, low: __m256i, high: __m256i) {
        if _mm256_movemask_epi8(_mm256_or_si256(low, high)) == 0 {
            // ASCII cannot finish a character the block before left open.
            self.bad |= self.incomplete;
            return;
        }
        let t = &self.tables;
        let errors = _mm256_or_si256(pair_errors(low, self.prev, t), pair_errors(high, low, t));
        self.bad |= _mm256_testz_si256(errors, errors) == 0;
        let open = _mm256_subs_epu8(high, t.last_max);
        self.incomplete = _mm256_testz_si256(open, open) == 0;
        self.prev = high;
    }

    /// Whether every block was UTF-8 and the last one did not end inside a character.
    pub(super) fn valid(&self) -> bool {
        !self.bad && !self.incomplete
    }
}

/// The error bits of the bytes of `input`, each seen with the three before it (`before`
/// holds the bytes before `input`).
#[target_feature(enable = "avx2")]
fn pair_errors(input: __m256i, before: __m256i, t: &Tables) -> __m256i {
    // The 16 bytes before `input`'s high lane, then its low lane: what `alignr` shifts
    // in so that every byte sees the one, two or three before it.
    let joined = _mm256_permute2x128_si256::<0x21>(before, input);
    let prev1 = _mm256_alignr_epi8::<15>(input, joined);
    let prev2 = _mm256_alignr_epi8::<14>(input, joined);
    let prev3 = _mm256_alignr_epi8::<13>(input, joined);
    let low_half = t.low_half;
    let high = |v: __m256i| _mm256_and_si256(_mm256_srli_epi16::<4>(v), low_half);
    let byte_1_high = _mm256_shuffle_epi8(t.byte_1_high, high(prev1));
    let byte_1_low = _mm256_shuffle_epi8(t.byte_1_low, _mm256_and_si256(prev1, low_half));
    let byte_2_high = _mm256_shuffle_epi8(t.byte_2_high, high(input));
    let special = _mm256_and_si256(_mm256_and_si256(byte_1_high, byte_1_low), byte_2_high);
    // A lead byte of three (four) bytes two (three) places back wants a continuation
    // here: only `111_____` (`1111____`) stays at 0x80 or above after the subtraction.
    let third = _mm256_subs_epu8(prev2, t.third);
    let fourth = _mm256_subs_epu8(prev3, t.fourth);
    let wanted = _mm256_and_si256(_mm256_or_si256(third, fourth), t.two_conts);
    _mm256_xor_si256(wanted, special)
}
