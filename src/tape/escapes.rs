//! Escapes inside strings: checking one, and unescaping a string when it is read.

/// The index after the escape starting at `b[i] == b'\\'`, if it is a valid one. A `\u`
/// escape of a UTF-16 high surrogate must be followed by one of a low surrogate, and a low
/// surrogate may not stand alone (serde_json's rules for a string).
pub(super) fn escape_end(b: &[u8], i: usize) -> Option<usize> {
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

pub(super) fn hex4(b: &[u8], i: usize) -> Option<u32> {
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
pub(super) const HEX: [u8; 256] = {
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
pub(super) fn canonical_escape_len(b: &[u8], i: usize) -> Option<usize> {
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
pub(super) fn unescape(raw: &str, base: usize, slashes: &[u64]) -> String {
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
pub(super) const UNESCAPED: [u8; 256] = {
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
