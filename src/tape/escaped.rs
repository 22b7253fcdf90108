//! A check that a JSON document written inside a JSON string (its quotes escaped as `\"`)
//! is JSON the parser accepts, without unescaping it; long strings 64 bytes at a time on
//! AVX2. Used on Codex tool outputs (src/dialect/codex_log/tool_output.rs).

/// The escaped text of a JSON document held in a string without `\u` escapes, read for
/// its `metadata.exit_code` as the parser would read it if the document is JSON.
///
/// In such a text the document's structural characters and number bytes are themselves,
/// its white space is ` ` or `\n`, `\t`, `\r`, and its quotes are all `\"`: one that
/// follows `2k+1` backslashes is a quote of the document when `k` is even, else a `\"`
/// escape inside one of its strings.
pub(crate) struct Escaped<'a> {
    pub(crate) b: &'a [u8],
}

impl Escaped<'_> {
    /// Whether the document is JSON the parser accepts, checked without unescaping it.
    /// `false` also for what this check leaves to the parser: a control character or a
    /// UTF-16 surrogate escaped in a string, an exponent, a long number, deep nesting.
    pub(crate) fn is_surely_json(&self) -> bool {
        self.checked_value(0, 0)
            .and_then(|end| self.ws(end))
            .is_some_and(|end| end == self.b.len())
    }

    /// The index after the JSON value at `i`, `depth` containers deep.
    pub(crate) fn checked_value(&self, i: usize, depth: usize) -> Option<usize> {
        // Far from the parser's limit of 128.
        const DEEPEST: usize = 64;
        let (close, object) = match self.b.get(i)? {
            b'{' => (b'}', true),
            b'[' => (b']', false),
            b'\\' => return self.checked_string(i),
            b't' => return self.literal(i, b"true"),
            b'f' => return self.literal(i, b"false"),
            b'n' => return self.literal(i, b"null"),
            _ => return self.checked_number(i),
        };
        if depth >= DEEPEST {
            return None;
        }
        let mut i = self.ws(i + 1)?;
        if self.b.get(i) == Some(&close) {
            return Some(i + 1);
        }
        loop {
            if object {
                i = self.ws(self.checked_string(i)?)?;
                if self.b.get(i) != Some(&b':') {
                    return None;
                }
                i = self.ws(i + 1)?;
            }
            i = self.ws(self.checked_value(i, depth + 1)?)?;
            match self.b.get(i)? {
                b',' => i = self.ws(i + 1)?,
                c if *c == close => return Some(i + 1),
                _ => return None,
            }
        }
    }

    pub(crate) fn literal(&self, i: usize, word: &[u8]) -> Option<usize> {
        (self.b.get(i..i + word.len())? == word).then_some(i + word.len())
    }

    /// A number without exponent and not long (so surely in the range of an `f64`).
    pub(crate) fn checked_number(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let mut j = i;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        match b.get(j)? {
            b'0' => j += 1,
            b'1'..=b'9' => {
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
            }
            _ => return None,
        }
        if b.get(j) == Some(&b'.') {
            j += 1;
            if !b.get(j).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
        }
        let leave = matches!(b.get(j), Some(b'e' | b'E')) || j - i > 100;
        (!leave).then_some(j)
    }

    /// The index after the string whose opening `\"` is at `i`, when its contents are
    /// valid in a JSON string.
    pub(crate) fn checked_string(&self, i: usize) -> Option<usize> {
        if self.b.get(i..i + 2)? != b"\\\"" {
            return None;
        }
        let start = i + 2;
        // A long string (a command's output) is checked a block at a time
        // ([`checked_string_blocks`]); a key or a short value byte by byte.
        #[cfg(target_arch = "x86_64")]
        if self.b.len() - start >= 64 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, as just checked. (tests:
            // `string_checks_agree_on_every_path`, `generated_outputs_read_as_the_exact_reading`.)
            #[allow(unsafe_code)]
            return unsafe { checked_string_avx2(self.b, start) };
        }
        checked_string_bytes(self.b, start)
    }

    /// The index after the white space at `i`.
    pub(crate) fn ws(&self, mut i: usize) -> Option<usize> {
        loop {
            match self.b.get(i) {
                Some(b' ') => i += 1,
                Some(b'\\') => match self.b.get(i + 1)? {
                    b'n' | b't' | b'r' => i += 2,
                    _ => return Some(i),
                },
                _ => return Some(i),
            }
        }
    }
}

/// The index after the string whose contents start at `start` in the escaped text `b` (a
/// document held in a string without `\u` escapes), when its contents are valid in a JSON
/// string: byte by byte.
pub(crate) fn checked_string_bytes(b: &[u8], start: usize) -> Option<usize> {
    let mut j = start;
    loop {
        // Any character but a control one (the record has none) may stand as itself.
        if let Some(word) = b.get(j..).and_then(|r| r.first_chunk::<8>()) {
            match first_backslash(u64::from_le_bytes(*word)) {
                8 => {
                    j += 8;
                    continue;
                }
                at => j += at,
            }
        }
        if *b.get(j)? != b'\\' {
            j += 1;
            continue;
        }
        // One of the record's escapes: the document's quote or backslash, a `/` (the
        // document may hold it as itself), or a control character (it may not).
        match *b.get(j + 1)? {
            b'"' => return Some(j + 2),
            b'/' => j += 2,
            b'\\' => {
                // The document's own escape: its letter, itself escaped or not.
                j += 2;
                match *b.get(j)? {
                    b'\\' => match *b.get(j + 1)? {
                        b'"' | b'\\' | b'/' => j += 2,
                        _ => return None,
                    },
                    b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 1,
                    b'u' => {
                        if !unicode_escape_is_plain(b.get(j + 1..j + 5)?) {
                            return None;
                        }
                        j += 5;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

/// One bit per byte of a 64-byte block, for [`checked_string_blocks`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StringMasks {
    /// `\`
    pub(crate) backslash: u64,
    /// `"`
    pub(crate) quote: u64,
    /// `"` or `/`: what may follow the record's own backslash in a string of the document
    /// (`\b`, `\f`, `\n`, `\r`, `\t` there would be control characters in it)
    pub(crate) quote_or_solidus: u64,
    /// `/`, `b`, `f`, `n`, `r`, `t`, `u`: the document's escape letters
    pub(crate) letter: u64,
    /// `u`
    pub(crate) u: u64,
    /// `0` to `9`, `a` to `f`, `A` to `F`
    pub(crate) hex: u64,
    /// `d` or `D`
    pub(crate) d: u64,
}

/// The odd positions of a block, and those whose remainder mod 4 is 2 or 3: the two low
/// bits of each position.
pub(crate) const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;
pub(crate) const HIGH: u64 = 0xcccc_cccc_cccc_cccc;

/// [`checked_string_bytes`] a 64-byte block at a time, `masks` giving each block's bits.
///
/// In the escaped text a run of `L` backslashes and the byte `c` after it are `L / 2`
/// backslashes of the document, then `c` itself (`L` even) or the record's escape `\c`
/// (`L` odd); an odd number of the document's backslashes escapes what follows. So `L`
/// mod 4 says what `c` may be: 0, anything; 1, `"` (the end of the string) or `/`; 2, an
/// escape letter of the document (`u` with four hex digits, not a UTF-16 surrogate); 3,
/// `"` or `/` (escaped in the document). The lengths mod 4 of all the runs of a block come
/// from four additions, one per class of start positions mod 4: the carry of a run start
/// added to the run stops on the byte after it (simdjson tells odd runs from even ones
/// with one such addition). Only `\u` escapes of the document are looked at one by one.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn checked_string_blocks(
    b: &[u8],
    start: usize,
    masks: impl Fn(&[u8; 64]) -> StringMasks,
) -> Option<usize> {
    let mut base = start;
    let mut open = OpenRun::default();
    while let Some(block) = b.get(base..).and_then(<[u8]>::first_chunk::<64>) {
        if let Some(end) = string_block(b, base, masks(block), &mut open)? {
            return Some(end);
        }
        base += 64;
    }
    // the last bytes, fewer than a block, and zeros (no class has them)
    let rest = b.get(base..).filter(|rest| !rest.is_empty())?;
    let mut padded = [0u8; 64];
    padded.get_mut(..rest.len())?.copy_from_slice(rest);
    string_block(b, base, masks(&padded), &mut open)?
}

/// Whether the block before ended in a run of backslashes, and that run's length mod 4.
#[derive(Default)]
pub(crate) struct OpenRun {
    pub(crate) open: bool,
    pub(crate) len: usize,
}

/// One block of [`checked_string_blocks`], at `base` in `b`, with its bits `m`: `None`
/// when the string is not valid, `Some(None)` when it goes on past the block.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn string_block(
    b: &[u8],
    base: usize,
    m: StringMasks,
    run: &mut OpenRun,
) -> Option<Option<usize>> {
    let (open_run, run_len) = (run.open, run.len);
    let slash = m.backslash;
    // The run the block before left open goes on at byte 0, or ended there.
    let goes_on = open_run && slash & 1 == 1;
    let starts = slash & !((slash << 1) | u64::from(open_run));
    // Where each run ends (the byte after it), and the start of the run ending there
    // mod 4, bit by bit: one addition each. The open run counts as starting `run_len`
    // bytes before the block.
    let first = u64::from(goes_on);
    let virtual_start = (4 - run_len) % 4;
    let (all, _) = slash.overflowing_add(starts | first);
    let (odd_start, top_odd) =
        slash.overflowing_add((starts & ODD) | if virtual_start & 1 == 1 { first } else { 0 });
    let (high_start, top_high) =
        slash.overflowing_add((starts & HIGH) | if virtual_start & 2 == 2 { first } else { 0 });
    let after = all & !slash;
    let (start0, start1) = (odd_start & !slash, high_start & !slash);
    // the length's two low bits: the end's position less the start's, mod 4
    let len0 = ODD ^ start0;
    let len1 = HIGH ^ start1 ^ (!ODD & start0);
    let (mut odd, mut one, mut two) = (after & len0, after & len0 & !len1, after & !len0 & len1);
    if open_run && !goes_on {
        match run_len {
            1 => (odd, one) = (odd | 1, one | 1),
            2 => two |= 1,
            3 => odd |= 1,
            _ => {}
        }
    }
    let next_len = (4 - (usize::from(top_odd) + 2 * usize::from(top_high))) % 4;
    let end = one & m.quote;
    // the bytes before the end of the string (all of them when it goes on)
    let inside = end.wrapping_sub(1) & !end;
    // Four hex digits after each `u`: those of the `u`s up to byte 59 are in the block.
    // A `d` after a `u` may start a surrogate: those, and the `u`s at the block's
    // end, are looked at one by one.
    const LAST_FOUR: u64 = 0xf << 60;
    let unicode = two & m.u & inside;
    let early = unicode & !LAST_FOUR;
    let digits = (early << 1) | (early << 2) | (early << 3) | (early << 4);
    let bad = (((odd & !m.quote_or_solidus) | (two & !m.letter)) & inside) | (digits & !m.hex);
    if bad != 0 {
        return None;
    }
    let mut one_by_one = (unicode & LAST_FOUR) | (((early << 1) & m.d) >> 1);
    while one_by_one != 0 {
        let at = base + one_by_one.trailing_zeros() as usize;
        if !unicode_escape_is_plain(b.get(at + 1..at + 5)?) {
            return None;
        }
        one_by_one &= one_by_one - 1;
    }
    if end != 0 {
        return Some(Some(base + end.trailing_zeros() as usize + 1));
    }
    *run = OpenRun {
        open: slash >> 63 == 1,
        len: next_len,
    };
    Some(None)
}

/// Whether the four bytes after a `\u` of the document are hex digits, and not a UTF-16
/// surrogate (`d800` to `dfff`: those the check leaves to the parser).
pub(crate) fn unicode_escape_is_plain(hex: &[u8]) -> bool {
    let surrogate = matches!(hex.first(), Some(b'd' | b'D'))
        && matches!(hex.get(1), Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'));
    !surrogate && hex.len() == 4 && hex.iter().all(u8::is_ascii_hexdigit)
}

/// [`checked_string_blocks`] with the bits of each block from AVX2 compares.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn checked_string_avx2(b: &[u8], start: usize) -> Option<usize> {
    checked_string_blocks(b, start, |block| avx2_string_masks(block))
}

/// The bits of a block from AVX2: quotes and backslashes by compares, the other classes
/// looked up by each byte's two halves (a byte is in a class when the tables of both its
/// halves have the class's bit), as simdjson classifies structural characters.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn avx2_string_masks(block: &[u8; 64]) -> StringMasks {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_slli_epi16, _mm256_srli_epi16,
    };
    // Classes: 1 `/`; 2 `b` `f` `n`; 4 `r` `t` `u`; 8 `u`; 16 a digit; 32 `a` to `f` or
    // `A` to `F`; 64 `d` or `D`.
    #[rustfmt::skip]
    let by_low = _mm256_setr_epi8(
        0x10, 0x30, 0x36, 0x30, 0x74, 0x3c, 0x32, 0x10, 0x10, 0x10, 0, 0, 0, 0, 0x02, 0x01,
        0x10, 0x30, 0x36, 0x30, 0x74, 0x3c, 0x32, 0x10, 0x10, 0x10, 0, 0, 0, 0, 0x02, 0x01,
    );
    #[rustfmt::skip]
    let by_high = _mm256_setr_epi8(
        0, 0, 0x01, 0x10, 0x60, 0, 0x62, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x01, 0x10, 0x60, 0, 0x62, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    let nibble = _mm256_set1_epi8(0x0f);
    let (halves, _) = block.as_chunks::<32>();
    let mut m = StringMasks::default();
    for (k, half) in halves.iter().enumerate() {
        // SAFETY: an unaligned 256-bit load reads exactly the 32 bytes of `half`.
        // (tests: `string_checks_agree_on_every_path`.)
        #[allow(unsafe_code)]
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast::<__m256i>()) };
        let bits = |x: __m256i| u64::from(_mm256_movemask_epi8(x) as u32) << (32 * k);
        let classes = _mm256_and_si256(
            _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, nibble)),
            _mm256_shuffle_epi8(by_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)),
        );
        // the bytes in none of `classes`
        let none_of = |class: i8| {
            let x = _mm256_and_si256(classes, _mm256_set1_epi8(class));
            bits(_mm256_cmpeq_epi8(x, _mm256_setzero_si256()))
        };
        let half_bits = 0xffff_ffff << (32 * k);
        let quote = bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8)));
        let solidus = bits(_mm256_slli_epi16(classes, 7));
        m.backslash |= bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8)));
        m.quote |= quote;
        m.quote_or_solidus |= quote | solidus;
        m.letter |= !none_of(0x07) & half_bits;
        m.u |= bits(_mm256_slli_epi16(classes, 4));
        m.hex |= !none_of(0x30) & half_bits;
        m.d |= bits(_mm256_slli_epi16(classes, 1));
    }
    m
}

/// [`avx2_string_masks`] byte by byte (for the tests, and a reference).
#[cfg(test)]
pub(crate) fn portable_string_masks(block: &[u8; 64]) -> StringMasks {
    let mut m = StringMasks::default();
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        let set = |mask: &mut u64, yes: bool| *mask |= if yes { bit } else { 0 };
        set(&mut m.backslash, c == b'\\');
        set(&mut m.quote, c == b'"');
        set(&mut m.quote_or_solidus, matches!(c, b'"' | b'/'));
        set(
            &mut m.letter,
            matches!(c, b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u'),
        );
        set(&mut m.u, c == b'u');
        set(&mut m.hex, c.is_ascii_hexdigit());
        set(&mut m.d, matches!(c, b'd' | b'D'));
    }
    m
}

/// Where the first backslash of the eight bytes of `w` (little-endian) is, 8 for none.
/// The borrow of the subtraction only runs upwards from a zero byte, so the lowest byte
/// it marks is exact.
pub(crate) fn first_backslash(w: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (ONES * u64::from(b'\\'));
    let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
    zero.trailing_zeros() as usize / 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_backslash_of_a_word_is_found() {
        let pool = [
            0u8,
            b'a',
            b'\\' ^ 0x80,
            b'\\' + 1,
            b'\\' - 1,
            0xff,
            b'\\',
            0x80,
        ];
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..100_000 {
            let x = rng.next_u64();
            let w: [u8; 8] = std::array::from_fn(|k| pool[(x >> (k * 3)) as usize % pool.len()]);
            let want = w.iter().position(|&c| c == b'\\').unwrap_or(8);
            assert_eq!(first_backslash(u64::from_le_bytes(w)), want, "{w:?}");
        }
    }

    /// The strings of generated texts, checked byte by byte, a block at a time with the
    /// portable bits, and with the AVX2 bits when the CPU has them: the same answer, from
    /// every start, with runs of backslashes across the blocks' edges.
    #[test]
    fn string_checks_agree_on_every_path() {
        const PIECES: [&[u8]; 34] = [
            b"\\",
            b"\\\\",
            b"\\\\\\\\\\\\\\",
            b"\"",
            b"/",
            b"b",
            b"f",
            b"n",
            b"r",
            b"t",
            b"u",
            b"x",
            b"0",
            b"9",
            b"a",
            b"F",
            b"g",
            b"d",
            b"D",
            b"8",
            b"c",
            b" ",
            b"\xc3\xa9",
            b"\\\\u001b",
            b"\\\\ud83d",
            b"\\\\uDC00",
            b"\\\\ud7ff",
            b"\\\\u00",
            b"\\\\n",
            b"\\\\\\\"",
            b"\\\"",
            b"\\n",
            b"\\/",
            b"plain text without any escape in it at all, long enough to fill a block",
        ];
        // the document's `\\`, `\\\\`, `\n`, `\u001b`, `\"`, `/`, `\/`, as the record
        // writes them, and plain text
        const VALID: [&[u8]; 11] = [
            br"\\\\",
            br"\\\\\\\\",
            br"\\n",
            br"\\u001b",
            br#"\\\""#,
            br"\/",
            br"\\\/",
            b"x",
            "é".as_bytes(),
            b" ",
            b"plain text without any escape in it",
        ];
        let mut rng = crate::test_rng::Rng::new(0x853c_49e6_748f_ea9b);
        let mut next = |n: usize| rng.below(n);
        let (mut ended, mut refused) = (0, 0);
        // (Fewer under Miri, which runs the AVX2 path a thousand times slower.)
        let rounds = if cfg!(miri) { 600 } else { 60_000 };
        for round in 0..rounds {
            let mut text = Vec::new();
            // mostly runs of plain text and escapes, as a command's output has
            let pieces = 1 + next(if round % 8 == 0 { 200 } else { 60 });
            for _ in 0..pieces {
                // valid contents mostly, so that many strings reach their end
                let piece = match next(8) {
                    0 => PIECES[next(PIECES.len())],
                    _ => VALID[next(VALID.len())],
                };
                // a quote of the document ends the string: keep most texts going longer
                if piece == b"\\\"" && next(4) != 0 {
                    continue;
                }
                text.extend_from_slice(piece);
            }
            if next(2) == 0 {
                // the string's end, and what may follow it
                text.extend_from_slice(br#"\",\"metadata\":{}}"#);
            }
            let start = next(text.len().min(70) + 1);
            let want = checked_string_bytes(&text, start);
            match want {
                Some(_) => ended += 1,
                None => refused += 1,
            }
            assert_eq!(
                checked_string_blocks(&text, start, portable_string_masks),
                want,
                "{:?} from {start}",
                String::from_utf8_lossy(&text)
            );
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, as just checked.
                #[allow(unsafe_code)]
                let avx2 = unsafe { checked_string_avx2(&text, start) };
                assert_eq!(
                    avx2,
                    want,
                    "{:?} from {start}",
                    String::from_utf8_lossy(&text)
                );
                if let Some(block) = text.first_chunk::<64>() {
                    // SAFETY: as above.
                    #[allow(unsafe_code)]
                    let bits = unsafe { avx2_string_masks(block) };
                    assert_eq!(bits, portable_string_masks(block));
                }
            }
        }
        // every byte's bits
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            for k in 0..4u8 {
                let block = std::array::from_fn(|i| k * 64 + i as u8);
                // SAFETY: the CPU has AVX2, as just checked.
                #[allow(unsafe_code)]
                let bits = unsafe { avx2_string_masks(&block) };
                assert_eq!(bits, portable_string_masks(&block), "bytes from {}", k * 64);
            }
        }
        // both answers are common, so the comparison means something
        assert!(
            ended > rounds / 6 && refused > rounds / 6,
            "{ended} {refused}"
        );
    }
}
