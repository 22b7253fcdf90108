//! Stage 2: the parser of the structure, which builds the tape and jumps over strings
//! through stage 1's quote mask.

use super::*;

pub(super) struct Parser<'s, 'd> {
    pub(super) b: &'s [u8],
    pub(super) i: usize,
    pub(super) doc: &'d mut Doc,
    pub(super) max_depth: usize,
}

/// `Some(())` to go on, `None` for "not JSON": lets `?` carry the refusal.
pub(super) type Step = Option<()>;

impl Parser<'_, '_> {
    pub(super) fn run(&mut self) -> Step {
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

    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    pub(super) fn push(&mut self, tag: Tag, a: usize, b: usize) {
        // Offsets fit: `parse` refuses records of 4 GiB or more.
        self.doc.nodes.push(Node {
            tag,
            a: a as u32,
            b: b as u32,
            slot: 0,
        });
    }

    pub(super) fn open(&mut self, tag: Tag) -> Step {
        if self.doc.stack.len() >= self.max_depth {
            return None;
        }
        self.i += 1;
        self.doc.stack.push(self.doc.nodes.len() as u32);
        self.push(tag, 0, 0);
        Some(())
    }

    pub(super) fn close(&mut self) {
        if let Some(open) = self.doc.stack.pop() {
            let count = self.doc.nodes.len() - open as usize - 1;
            self.doc.nodes[open as usize].b = count as u32;
        }
    }

    /// An object key and its colon.
    pub(super) fn key(&mut self) -> Step {
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

    pub(super) fn literal(&mut self, word: &[u8], tag: Tag) -> Step {
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
    pub(super) fn string(&mut self) -> Step {
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
    pub(super) fn number(&mut self) -> Step {
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

pub(super) fn digits_end(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// The index of the first set bit at or after `from` (the tests' reference for
/// [`string_end`]).
#[cfg(test)]
pub(super) fn next_bit(bits: &[u64], from: usize) -> Option<usize> {
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
pub(super) fn string_end(quotes: &[u64], slashes: &[u64], from: usize) -> Option<(usize, bool)> {
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
pub(super) fn within(list: &[u32], from: usize, to: usize) -> impl Iterator<Item = &u32> {
    let first = list.partition_point(|&p| (p as usize) < from);
    list.get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(move |&&p| (p as usize) < to)
}

/// Whether a bit is set in `from..to` (what [`string_end`] finds on its way, as a test
/// reads it).
#[cfg(test)]
pub(super) fn any_bit(bits: &[u64], from: usize, to: usize) -> bool {
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
