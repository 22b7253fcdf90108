//! The compact memory of `stats`: what it must remember per API message and per tool id
//! to count each once, in as few bytes as an exact answer allows.
//!
//! Every such entry is keyed by a 96-bit digest of its id ([`Key`]) and "the last one
//! wins": a later snapshot of a message replaces an earlier one. Nothing needs to look an
//! entry up while records stream in, so a [`LastWins`] store only appends to a pending
//! list and, now and then, folds that list into one sorted vector: sort it, keep the last
//! entry of each key, overwrite the keys already there and merge the new ones in place,
//! from the back. Memory is the entries themselves (no hash table slack, no per-entry
//! allocation) plus the pending list, at most an eighth of them. The sorted vector sits
//! behind an [`Arc`], so a report can carry it to the JSON writer without a copy.

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// A 96-bit digest of an id (a message id and its request id, a tool id, ...): the high
/// 64 bits of its 128-bit FNV-1a hash and the low 64 folded to 32. Two distinct ids share
/// a key with odds of about one in 10^11 for a billion ids. The digest travels in partial
/// stats, so it must stay the same across machines and versions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key([u32; 3]);

const FNV_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// The digest of the first parts of many keys ([`Key::prefix`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyPrefix(u128);

impl Key {
    pub(crate) fn of(parts: &[&str]) -> Key {
        Key::digest(parts.iter().map(|p| p.as_bytes()))
    }

    /// [`Key::of`] of parts that are bytes (numbers written as bytes, say).
    #[cfg(test)]
    pub(crate) fn of_bytes(parts: &[&[u8]]) -> Key {
        Key::digest(parts.iter().copied())
    }

    /// The digest state after `parts`: [`Key::then`] of it and a last part is
    /// [`Key::of_bytes`] of all of them, hashing the shared parts once.
    pub(crate) fn prefix(parts: &[&[u8]]) -> KeyPrefix {
        KeyPrefix(Key::absorb(parts.iter().copied()))
    }

    /// [`Key::of_bytes`] of `prefix`'s parts and `last`.
    pub(crate) fn then(prefix: KeyPrefix, last: &[u8]) -> Key {
        // The zero byte between parts, then the last part.
        Key::finish(Key::feed(prefix.0.wrapping_mul(FNV_PRIME), last))
    }

    #[inline]
    fn digest<'a>(parts: impl Iterator<Item = &'a [u8]>) -> Key {
        Key::finish(Key::absorb(parts))
    }

    #[inline]
    fn absorb<'a>(parts: impl Iterator<Item = &'a [u8]>) -> u128 {
        let mut h = FNV_OFFSET;
        for (i, part) in parts.enumerate() {
            if i > 0 {
                // A zero byte between parts: ("ab", "c") and ("a", "bc") differ.
                h = h.wrapping_mul(FNV_PRIME);
            }
            h = Key::feed(h, part);
        }
        h
    }

    #[inline]
    fn feed(mut h: u128, part: &[u8]) -> u128 {
        for &b in part {
            h ^= u128::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        h
    }

    #[inline]
    fn finish(h: u128) -> Key {
        let hi = (h >> 64) as u64;
        let lo = h as u64;
        Key([(hi >> 32) as u32, hi as u32, (lo ^ (lo >> 32)) as u32])
    }

    /// The 24 lowercase hex digits of the key.
    pub(crate) fn hex(self) -> [u8; 24] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 24];
        for (i, word) in self.0.iter().enumerate() {
            for j in 0..8 {
                out[i * 8 + j] = DIGITS[((word >> (28 - 4 * j)) & 0xf) as usize];
            }
        }
        out
    }

    fn parse(text: &str) -> Option<Key> {
        if text.len() != 24 || !text.is_ascii() {
            return None;
        }
        let word = |i: usize| u32::from_str_radix(&text[i * 8..i * 8 + 8], 16).ok();
        Some(Key([word(0)?, word(1)?, word(2)?]))
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hex = self.hex();
        // Hex digits are ASCII.
        s.serialize_str(std::str::from_utf8(&hex).unwrap_or_default())
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        let text = String::deserialize(d)?;
        Key::parse(&text).ok_or_else(|| de::Error::custom("a key is 24 hex digits"))
    }
}

/// An entry of a [`LastWins`] store.
pub(crate) trait Keyed: Copy {
    fn key(&self) -> Key;
}

impl Keyed for Key {
    fn key(&self) -> Key {
        *self
    }
}

/// Fewer pending entries than this are never folded in (folding costs a pass over the
/// sorted vector).
const MIN_PENDING: usize = 1 << 15;

/// Entries by key, the last one pushed winning. See the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct LastWins<T> {
    /// Sorted by key, one entry per key.
    sorted: Arc<Vec<T>>,
    /// Stores merged in since the last fold ([`LastWins::extend_later`]), each sorted by
    /// key with one entry per key, oldest first; each at least twice as long as the next.
    runs: Vec<Vec<T>>,
    /// Entries pushed since the last fold, in the order they came (newer than `runs`).
    pending: Vec<T>,
}

impl<T> Default for LastWins<T> {
    fn default() -> Self {
        LastWins {
            sorted: Arc::new(Vec::new()),
            runs: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<T: Keyed> LastWins<T> {
    /// An entry that replaces any earlier one with its key.
    pub(crate) fn push(&mut self, entry: T) {
        self.pending.push(entry);
        self.fold_if_due();
    }

    fn fold_if_due(&mut self) {
        let newer = self.pending.len() + self.runs.iter().map(Vec::len).sum::<usize>();
        if newer >= MIN_PENDING.max(self.sorted.len() / 8) {
            self.fold();
        }
    }

    /// Takes in every entry of `later` (which came after this store's), each mapped by `f`,
    /// which must keep its key. `later`'s entries are already sorted (a worker settles its
    /// part): they join the runs as they are, and runs of like length are merged, one
    /// linear pass each, so the merging thread never sorts.
    pub(crate) fn extend_later(&mut self, later: LastWins<T>, f: impl Fn(T) -> T) {
        let LastWins {
            sorted,
            runs,
            pending,
        } = later;
        self.seal_pending();
        let sorted = Arc::try_unwrap(sorted).unwrap_or_else(|v| (*v).clone());
        for mut run in std::iter::once(sorted).chain(runs) {
            for e in &mut run {
                *e = f(*e);
            }
            self.push_run(run);
        }
        for e in pending {
            self.pending.push(f(e));
        }
        self.fold_if_due();
    }

    /// Replaces each entry `f` gives a replacement for (one under another key, say),
    /// keeping which entry came last: one pass and a sort of the store, for the rare merge
    /// that needs it.
    pub(crate) fn rekey(&mut self, f: impl Fn(&T) -> Option<T>) {
        let sorted = std::mem::take(&mut self.sorted);
        let mut all = Arc::try_unwrap(sorted).unwrap_or_else(|v| (*v).clone());
        for run in std::mem::take(&mut self.runs) {
            all.extend(run);
        }
        all.append(&mut self.pending);
        for e in &mut all {
            if let Some(n) = f(e) {
                *e = n;
            }
        }
        Self::settle(&mut all);
        self.sorted = Arc::new(all);
    }

    /// Folds the pending entries in now: a worker does it before handing its part over,
    /// so the merge on the calling thread takes runs already in order.
    pub(crate) fn settle_pending(&mut self) {
        self.fold();
    }

    /// Sorts `entries` by key, keeping only the last of each key.
    fn settle(entries: &mut Vec<T>) {
        entries.reverse();
        // Stable: among equal keys the first is now the last pushed.
        entries.sort_by_key(Keyed::key);
        entries.dedup_by_key(|e| e.key());
    }

    /// The pending entries, settled, as the newest run.
    fn seal_pending(&mut self) {
        if !self.pending.is_empty() {
            let mut run = std::mem::take(&mut self.pending);
            Self::settle(&mut run);
            self.push_run(run);
        }
    }

    /// Adds a sorted run (one entry per key) newer than every entry held, then merges the
    /// newest runs while one is not at least twice as long as the next: each entry is
    /// copied a logarithmic number of times.
    fn push_run(&mut self, run: Vec<T>) {
        if run.is_empty() {
            return;
        }
        self.runs.push(run);
        while let [.., older, newer] = self.runs.as_slice() {
            if older.len() >= 2 * newer.len() {
                break;
            }
            let (Some(newer), Some(older)) = (self.runs.pop(), self.runs.pop()) else {
                break;
            };
            self.runs.push(merge_runs(&older, &newer));
        }
    }

    /// Folds the runs and the pending entries into the sorted vector.
    fn fold(&mut self) {
        if self.pending.is_empty() && self.runs.is_empty() {
            return;
        }
        let mut fresh = std::mem::take(&mut self.pending);
        Self::settle(&mut fresh);
        let mut fresh = last_of_each(&std::mem::take(&mut self.runs), fresh);
        let sorted = Arc::make_mut(&mut self.sorted);
        // Keys already known take the new entry in place; the others are merged in.
        fresh.retain(
            |e| match sorted.binary_search_by_key(&e.key(), Keyed::key) {
                Ok(i) => {
                    sorted[i] = *e;
                    false
                }
                Err(_) => true,
            },
        );
        let old = sorted.len();
        sorted.extend_from_slice(&fresh);
        let (mut i, mut j, mut w) = (old, fresh.len(), sorted.len());
        while j > 0 {
            w -= 1;
            if i > 0 && sorted[i - 1].key() > fresh[j - 1].key() {
                sorted[w] = sorted[i - 1];
                i -= 1;
            } else {
                sorted[w] = fresh[j - 1];
                j -= 1;
            }
        }
        fresh.clear();
        self.pending = fresh;
    }

    /// Every entry, sorted by key, one per key: the sorted vector, shared, and the newer
    /// entries settled (a copy of at most an eighth of the entries).
    pub(crate) fn settled(&self) -> View<T> {
        let mut newest = self.pending.clone();
        Self::settle(&mut newest);
        View {
            sorted: Arc::clone(&self.sorted),
            newer: last_of_each(&self.runs, newest),
        }
    }

    /// A store holding exactly `entries` (sorted and deduplicated here, later ones
    /// winning).
    pub(crate) fn from_entries(mut entries: Vec<T>) -> Self {
        Self::settle(&mut entries);
        LastWins {
            sorted: Arc::new(entries),
            ..LastWins::default()
        }
    }
}

/// `runs` (oldest first) and then `newest`, all sorted with one entry per key, as one
/// such run: the newest entry of each key.
fn last_of_each<T: Keyed>(runs: &[Vec<T>], newest: Vec<T>) -> Vec<T> {
    runs.iter()
        .rev()
        .fold(newest, |newer, older| merge_runs(older, &newer))
}

/// Two sorted runs (one entry per key) as one, `newer`'s entry winning where both have a
/// key.
fn merge_runs<T: Keyed>(older: &[T], newer: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(older.len() + newer.len());
    let (mut i, mut j) = (0, 0);
    while i < older.len() && j < newer.len() {
        match older[i].key().cmp(&newer[j].key()) {
            Ordering::Less => {
                out.push(older[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(newer[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(newer[j]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&older[i..]);
    out.extend_from_slice(&newer[j..]);
    out
}

/// The entries of a [`LastWins`] store in key order, one per key, without copying its
/// sorted vector: that vector merged with the newer entries, which win. A report's
/// `state` carries its large lists as views, written and read as JSON arrays.
#[derive(Debug, Clone)]
pub(crate) struct View<T> {
    sorted: Arc<Vec<T>>,
    /// Sorted by key, one per key; replaces an entry of `sorted` with the same key.
    newer: Vec<T>,
}

impl<T> Default for View<T> {
    fn default() -> Self {
        View {
            sorted: Arc::new(Vec::new()),
            newer: Vec::new(),
        }
    }
}

impl<T: Keyed> View<T> {
    /// At least the number of entries (entries of the newer part may replace sorted ones).
    pub(crate) fn len_hint(&self) -> usize {
        self.sorted.len() + self.newer.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let mut a = self.sorted.iter().peekable();
        let mut b = self.newer.iter().peekable();
        std::iter::from_fn(move || match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.key().cmp(&y.key()) {
                Ordering::Less => a.next(),
                Ordering::Greater => b.next(),
                Ordering::Equal => {
                    a.next();
                    b.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        })
    }

    /// The entries as one vector, copied only if they are still shared.
    pub(crate) fn into_vec(self) -> Vec<T> {
        if self.newer.is_empty() {
            return Arc::try_unwrap(self.sorted).unwrap_or_else(|v| (*v).clone());
        }
        self.iter().copied().collect()
    }
}

/// Walks two key-sorted sequences together: each entry of `a` with the entry of `b` that
/// has its key, if any.
pub(crate) fn join<'a, A: Keyed + 'a, B: Keyed + 'a>(
    a: impl Iterator<Item = &'a A> + 'a,
    b: impl Iterator<Item = &'a B> + 'a,
) -> impl Iterator<Item = (&'a A, Option<&'a B>)> + 'a {
    let mut b = b.peekable();
    a.map(move |x| {
        let k = x.key();
        while b.peek().is_some_and(|y| y.key() < k) {
            b.next();
        }
        (x, b.peek().copied().filter(|y| y.key() == k))
    })
}

impl<T: Keyed + Serialize> Serialize for View<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for e in self.iter() {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for View<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(e) = seq.next_element()? {
                    v.push(e);
                }
                Ok(v)
            }
        }
        d.deserialize_seq(V(PhantomData)).map(|v| View {
            sorted: Arc::new(v),
            newer: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_from_a_prefix_is_the_key_of_all_its_parts() {
        let counts = 28_206u64.to_le_bytes();
        let prefix = Key::prefix(&[b"a response", b"01a22069-aad2"]);
        let whole = Key::of_bytes(&[b"a response", b"01a22069-aad2", &counts]);
        assert_eq!(Key::then(prefix, &counts), whole);
        assert_eq!(
            Key::then(Key::prefix(&[b"msg_1"]), b"req_1"),
            Key::of(&["msg_1", "req_1"])
        );
        assert_ne!(Key::then(prefix, &counts[..7]), whole);
    }

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct E(Key, u32);
    impl Keyed for E {
        fn key(&self) -> Key {
            self.0
        }
    }

    fn k(i: u32) -> Key {
        Key::of(&[&i.to_string()])
    }

    /// Against a plain map, across many folds: the last value of each key, sorted.
    #[test]
    fn last_wins_like_a_map() {
        let mut store = LastWins::default();
        let mut map = std::collections::BTreeMap::new();
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for n in 0..300_000u32 {
            let x = rng.next_u64();
            let id = (x % 70_000) as u32;
            store.push(E(k(id), n));
            map.insert(k(id), n);
        }
        let got: Vec<(Key, u32)> = store.settled().iter().map(|e| (e.0, e.1)).collect();
        assert!(
            !store.pending.is_empty(),
            "the test must see pending entries"
        );
        let want: Vec<(Key, u32)> = map.into_iter().collect();
        assert_eq!(got, want);
        store.fold();
        let again: Vec<(Key, u32)> = store.settled().iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(again, want);
    }

    /// Parts merged in order, as the merging thread takes them (some settled by their
    /// worker, some not, some holding runs of their own), against one plain map fed every
    /// entry in order: the same last value of each key, at every step where the test looks.
    #[test]
    fn merged_parts_keep_the_last_entry_of_each_key() {
        let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        let mut total = LastWins::default();
        let mut map = std::collections::BTreeMap::new();
        let mut n = 0u32;
        for part_no in 0..200 {
            let mut part = LastWins::default();
            let size = match next() % 10 {
                0 => 36_000,
                1..=3 => 0,
                _ => next() % 3_000,
            };
            for _ in 0..size {
                let id = (next() % 90_000) as u32;
                n += 1;
                part.push(E(k(id), n));
                map.insert(k(id), n + 1_000_000);
            }
            if part_no % 3 != 0 {
                part.settle_pending();
            }
            if part_no % 7 == 0 {
                // A part that holds merged parts of its own.
                let mut outer = LastWins::default();
                outer.extend_later(part, |e| e);
                part = outer;
            }
            total.extend_later(part, |e| E(e.0, e.1 + 1_000_000));
            if part_no % 50 == 0 || part_no == 199 {
                let got: Vec<(Key, u32)> = total.settled().iter().map(|e| (e.0, e.1)).collect();
                let want: Vec<(Key, u32)> = map.iter().map(|(k, v)| (*k, *v)).collect();
                assert_eq!(got, want, "after part {part_no}");
            }
        }
        assert!(n > 200_000, "the test must fold many times");
        total.fold();
        assert!(total.runs.is_empty() && total.pending.is_empty());
        let want: Vec<(Key, u32)> = map.into_iter().collect();
        let got: Vec<(Key, u32)> = total.settled().iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn key_text_round_trips() {
        let key = Key::of(&["msg_1", "req_1"]);
        let hex = key.hex();
        let text = std::str::from_utf8(&hex).expect("ascii");
        assert_eq!(
            text,
            format!("{:08x}{:08x}{:08x}", key.0[0], key.0[1], key.0[2])
        );
        assert_eq!(Key::parse(text), Some(key));
        assert_ne!(Key::of(&["ab", "c"]), Key::of(&["a", "bc"]));
        assert_eq!(Key::parse("xyz"), None);
    }

    #[test]
    fn join_pairs_equal_keys() {
        let a = LastWins::from_entries((0..10).map(|i| E(k(i), i)).collect());
        let b = LastWins::from_entries([3, 7, 11].iter().map(|&i| E(k(i), 100 + i)).collect());
        let (a, b) = (a.settled(), b.settled());
        let mut hits: Vec<(u32, u32)> = join(a.iter(), b.iter())
            .filter_map(|(x, y)| y.map(|y| (x.1, y.1)))
            .collect();
        hits.sort_unstable();
        assert_eq!(hits, vec![(3, 103), (7, 107)]);
    }
}
