//! A set with a cap: keyed entries in the order they came, in bounded memory, one
//! implementation for every such set. How a full set makes room is its [`Evict`]: its
//! oldest entry leaves (the gap trackers' sets of open tool calls, requests and uuids,
//! `src/gaps/tracked.rs`, where [`Capped::insert`] says when that first happened), or its
//! older half, all at once ([`IdSet`]: the ids the events' readers remember,
//! `src/event/`).

use std::collections::{HashMap, VecDeque};

/// The hasher of the sets' keys (tool-call ids, uuids, request ids) and of the gap
/// trackers' labels: foldhash, seeded per process. SipHash, the standard library's default, took a fifth of
/// the merging thread's time on an agent's stream (every tool call's id goes in twice and
/// out once); the per-process seed still keeps a crafted input from aiming at one bucket.
/// See docs/PERFORMANCE.md.
pub(crate) type Hasher = foldhash::fast::RandomState;

/// A key of a set (a tool call's id, a uuid, a request id) with its hash, made once (the
/// gap trackers make it once per operation, for every set the operation touches).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key<'s> {
    pub(crate) text: &'s str,
    pub(crate) hash: u64,
}

/// A key's text as a set keeps it: in place when it is short (a uuid, a tool call's
/// id: nearly all of them), so that adding one allocates nothing and clearing a set frees
/// nothing.
#[derive(Debug, Clone)]
pub(crate) enum KeyText {
    Inline(u8, [u8; KeyText::INLINE]),
    Heap(Box<str>),
}

impl KeyText {
    const INLINE: usize = 38;

    fn as_bytes(&self) -> &[u8] {
        match self {
            KeyText::Inline(len, buf) => buf.get(..usize::from(*len)).unwrap_or_default(),
            KeyText::Heap(s) => s.as_bytes(),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            KeyText::Inline(len, buf) => buf
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            KeyText::Heap(s) => s,
        }
    }
}

/// One entry of a set.
#[derive(Debug, Clone)]
struct Slot<V> {
    key: KeyText,
    /// The index's key of it ([`Key::short`]).
    short: u32,
    /// Indexed by its text in `spill` (another live key held its short hash when it was
    /// added), so dropping it looks `spill` up, and dropping any other does not.
    spilled: bool,
    value: V,
}

impl<'s> Key<'s> {
    /// `text` with its hash by `hasher`.
    pub(crate) fn new(text: &'s str, hasher: &Hasher) -> Self {
        use std::hash::BuildHasher;
        Key {
            text,
            hash: hasher.hash_one(text),
        }
    }

    /// What the index is keyed by: 32 bits of the hash, so that the index takes half the
    /// memory (its probes are most of a set's time, in cache misses, on a long stream).
    /// The key's text decides; two keys of these 32 bits are told apart as any collision.
    fn short(&self) -> u32 {
        self.hash as u32
    }
}

/// The hasher of a table whose keys are hashes already: it hands the hash on, its bits
/// copied to the top too, which the table reads for its probes.
#[derive(Debug, Default, Clone, Copy)]
struct Rehash(u64);

impl std::hash::Hasher for Rehash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u32 hashes are written (below); any other input still hashes.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n) << 32 | u64::from(n);
    }
}

/// Short hash → the low 32 bits of an age (see [`age_of`]).
type ByHash = HashMap<u32, u32, std::hash::BuildHasherDefault<Rehash>>;

/// A set with a cap: the oldest entry (or the older half, [`Evict`]) is dropped when it is
/// full.
///
/// Entries sit in a queue in the order they came, each key kept once, in its slot;
/// the index maps 32 bits of a key's hash to the entry's age, and a key whose hash another
/// key in the set already has is indexed by its text in `spill`. Closing an entry leaves a
/// hole that is skipped when the oldest is dropped, and the queue is compacted when holes
/// outnumber entries. Dropping the oldest entry of a full set leaves its index entry in
/// place, pointing before the queue (stale, so absent): removing it would be a probe of
/// the index for every entry added, a cache miss on a long stream; stale entries are swept
/// when they are an eighth of the live ones. So memory stays bounded by the cap whatever stays
/// open. See docs/PERFORMANCE.md, "Context across blocks".
#[derive(Debug, Clone)]
pub(crate) struct Capped<V> {
    /// Short hash → age (its low 32 bits); the entry of age `a` is `slots[a - base]`.
    by_hash: ByHash,
    /// Key → age, for the keys whose short hash another live entry held when they were
    /// added.
    spill: HashMap<Box<str>, u64, Hasher>,
    slots: VecDeque<Option<Slot<V>>>,
    base: u64,
    /// Live entries.
    live: usize,
    cap: usize,
    /// The cap was hit in this input (reported once).
    capped: bool,
    evict: Evict,
    /// The age at which the newer generation begins ([`Evict::Generations`]): every
    /// entry before it is of the older one.
    split: u64,
    /// Live entries of the newer generation.
    newer: usize,
}

/// How a full set makes room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evict {
    /// Its oldest entry leaves, one at a time: the set holds the newest `cap`.
    Oldest,
    /// Two generations of `cap / 2` entries: when the newer is full it becomes the older,
    /// and the older leaves, all at once. Which entries are kept depends only on the order
    /// they came in.
    Generations,
}

/// Where a key is indexed.
#[derive(Clone, Copy)]
enum Found {
    ByHash(u64),
    Spill(u64),
}

impl Found {
    fn age(self) -> u64 {
        match self {
            Found::ByHash(a) | Found::Spill(a) => a,
        }
    }
}

/// The slot of `age` in a queue whose first slot is of age `base`.
fn slot_at<V>(slots: &VecDeque<Option<Slot<V>>>, base: u64, age: u64) -> Option<&Slot<V>> {
    let i = usize::try_from(age.checked_sub(base)?).ok()?;
    slots.get(i)?.as_ref()
}

/// The age whose low 32 bits are `low`, at or after `base`: every live entry's (the queue
/// is far shorter than 2^32); a stale one's lands past the queue, so it is absent.
fn age_of(base: u64, low: u32) -> u64 {
    base + u64::from(low.wrapping_sub(base as u32))
}

impl<V> Capped<V> {
    /// A set of at most `cap` entries whose oldest leaves when it is full.
    pub(crate) fn new(cap: usize) -> Self {
        Capped::evicting(cap, Evict::Oldest)
    }

    /// A set of at most `cap` entries that makes room as `evict` says.
    pub(crate) fn evicting(cap: usize, evict: Evict) -> Self {
        Capped {
            by_hash: ByHash::default(),
            spill: HashMap::default(),
            slots: VecDeque::new(),
            base: 0,
            live: 0,
            cap: cap.max(1),
            capped: false,
            evict,
            split: 0,
            newer: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        // Clearing a table writes over its whole capacity, even when it is empty: once per
        // input. A table grown for a long input and holding little now is let go, so a
        // tree of small files after a large one does not pay for the large one each time.
        if self.by_hash.capacity() > 4 * self.by_hash.len().max(1024) {
            self.by_hash = ByHash::default();
        } else if !self.by_hash.is_empty() {
            self.by_hash.clear();
        }
        if !self.spill.is_empty() {
            self.spill.clear();
        }
        self.slots.clear();
        self.base = 0;
        self.live = 0;
        self.capped = false;
        self.split = 0;
        self.newer = 0;
    }

    fn slot(&self, age: u64) -> Option<&Slot<V>> {
        slot_at(&self.slots, self.base, age)
    }

    /// The live entry the index holds for `short`, if any, with its age.
    fn indexed(&self, short: u32) -> Option<(u64, &Slot<V>)> {
        let age = age_of(self.base, *self.by_hash.get(&short)?);
        self.slot(age).map(|s| (age, s))
    }

    /// Where `key` is indexed, with its entry's age.
    fn find(&self, key: Key<'_>) -> Option<Found> {
        if let Some((age, s)) = self.indexed(key.short()) {
            if s.key.as_bytes() == key.text.as_bytes() {
                return Some(Found::ByHash(age));
            }
        }
        if self.spill.is_empty() {
            return None;
        }
        let age = *self.spill.get(key.text)?;
        self.slot(age).map(|_| Found::Spill(age))
    }

    /// Live entries.
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Whether the cap was hit in this input (since the last [`Capped::clear`]).
    pub(crate) fn is_capped(&self) -> bool {
        self.capped
    }

    /// Looks `key`'s index entry up and nothing more: it brings it into the cache ahead of
    /// its use (the gap trackers' merge, `src/gaps/batch.rs`).
    pub(crate) fn touch(&self, key: Key<'_>) {
        std::hint::black_box(self.by_hash.get(&key.short()));
    }

    pub(crate) fn contains(&self, key: Key<'_>) -> bool {
        self.find(key).is_some()
    }

    pub(crate) fn get(&self, key: Key<'_>) -> Option<&V> {
        let age = self.find(key)?.age();
        self.slot(age).map(|s| &s.value)
    }

    /// Adds (or replaces) an entry; one added again is new again (the newest, of the newer
    /// generation). Returns true when this insertion hit the cap for the first time in the
    /// input (the oldest entry was dropped; never with [`Evict::Generations`]).
    ///
    /// One probe of the index finds where the key is and claims its short hash for it
    /// (the set of answered calls takes every call's id once and is full on a long stream:
    /// that probe is a cache miss, so it is not made three times).
    pub(crate) fn insert(&mut self, key: Key<'_>, value: V) -> bool {
        use std::collections::hash_map::Entry;
        // The new entry goes to the back, then the old one of the same key, or the oldest
        // when the set was full, leaves the front.
        if self.evict == Evict::Generations && self.newer >= self.cap / 2 {
            self.next_generation();
        }
        let full = self.evict == Evict::Oldest && self.live >= self.cap;
        let age = self.base + self.slots.len() as u64;
        let (slots, base, spill) = (&self.slots, self.base, &mut self.spill);
        // The age of the key's entry in `spill`, when it is there and live; the entry then
        // takes the new age.
        let claim_spilled = |spill: &mut HashMap<Box<str>, u64, Hasher>| -> Option<u64> {
            if spill.is_empty() {
                return None;
            }
            let to = spill.get_mut(key.text)?;
            let a = slot_at(slots, base, *to).map(|_| *to)?;
            *to = age;
            Some(a)
        };
        // (the age of the key's live entry, whether the new entry is indexed in `spill`)
        let (old, spilled) = match self.by_hash.entry(key.short()) {
            Entry::Occupied(mut e) => match slot_at(slots, base, age_of(base, *e.get())) {
                Some(s) if s.key.as_bytes() == key.text.as_bytes() => {
                    let old = age_of(base, *e.get());
                    e.insert(age as u32);
                    (Some(old), false)
                }
                // Another live key holds the short hash: this one is (or goes) in `spill`.
                Some(_) => match claim_spilled(spill) {
                    Some(a) => (Some(a), true),
                    None => {
                        spill.insert(Box::from(key.text), age);
                        (None, true)
                    }
                },
                // Held by a stale entry: the key takes it, unless it is in `spill`.
                None => match claim_spilled(spill) {
                    Some(a) => (Some(a), true),
                    None => {
                        e.insert(age as u32);
                        (None, false)
                    }
                },
            },
            Entry::Vacant(e) => match claim_spilled(spill) {
                Some(a) => (Some(a), true),
                None => {
                    e.insert(age as u32);
                    (None, false)
                }
            },
        };
        // A short key's bytes are copied into the slot in the queue, not into one on the
        // stack that is then copied whole (which read back bytes just written, in other
        // sizes, and stalled).
        let inline = u8::try_from(key.text.len())
            .ok()
            .filter(|&n| usize::from(n) <= KeyText::INLINE);
        self.slots.push_back(Some(Slot {
            key: match inline {
                Some(n) => KeyText::Inline(n, [0; KeyText::INLINE]),
                None => KeyText::Heap(Box::from(key.text)),
            },
            short: key.short(),
            spilled,
            value,
        }));
        if let Some(Some(Slot {
            key: KeyText::Inline(n, buf),
            ..
        })) = self.slots.back_mut()
        {
            if let Some(to) = buf.get_mut(..usize::from(*n)) {
                to.copy_from_slice(key.text.as_bytes());
            }
        }
        self.newer += 1;
        if let Some(old) = old {
            if old >= self.split {
                self.newer -= 1;
            }
            self.take(old);
            return false;
        }
        self.live += 1;
        if !full {
            return false;
        }
        self.drop_oldest();
        let first_cap = !self.capped;
        self.capped = true;
        first_cap
    }

    pub(crate) fn remove(&mut self, key: Key<'_>) -> Option<V> {
        let found = self.find(key)?;
        match found {
            Found::ByHash(_) => self.by_hash.remove(&key.short()).map(|_| ()),
            Found::Spill(_) => self.spill.remove(key.text).map(|_| ()),
        };
        self.live -= 1;
        if found.age() >= self.split {
            self.newer -= 1;
        }
        self.take(found.age()).map(|s| s.value)
    }

    /// Empties the slot of `age` (its key is already out of the index, or indexed anew).
    fn take(&mut self, age: u64) -> Option<Slot<V>> {
        let i = usize::try_from(age.checked_sub(self.base)?).ok()?;
        let entry = self.slots.get_mut(i)?.take();
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        while let Some(None) = self.slots.back() {
            self.slots.pop_back();
        }
        // The newer generation begins at the latest where the next entry will go.
        self.split = self.split.min(self.base + self.slots.len() as u64);
        if self.slots.len() > 2 * self.live + 64 {
            self.compact();
        }
        entry
    }

    /// Drops the oldest entry. Its index entry stays, stale, unless it is in `spill`.
    fn drop_oldest(&mut self) {
        while let Some(slot) = self.slots.pop_front() {
            let age = self.base;
            self.base += 1;
            let Some(s) = slot else { continue };
            self.live -= 1;
            if age >= self.split {
                self.newer -= 1;
            }
            if s.spilled && self.spill.get(s.key.as_str()) == Some(&age) {
                self.spill.remove(s.key.as_str());
            }
            // Swept when stale entries are an eighth of the live ones: a full set's index
            // then stays in a table of 2^17 entries (1 MiB) rather than 2^18, and a sweep
            // reads the table alone, in order.
            if self.by_hash.len() > self.live + self.live / 8 + 64 {
                self.sweep();
            }
            return;
        }
    }

    /// The newer generation becomes the older, and the older leaves ([`Evict::Generations`]).
    /// The index entries of those that leave stay, stale, as in [`Capped::drop_oldest`].
    fn next_generation(&mut self) {
        while self.base < self.split {
            let Some(slot) = self.slots.pop_front() else {
                break;
            };
            let age = self.base;
            self.base += 1;
            let Some(s) = slot else { continue };
            self.live -= 1;
            if s.spilled && self.spill.get(s.key.as_str()) == Some(&age) {
                self.spill.remove(s.key.as_str());
            }
        }
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        self.split = self.base + self.slots.len() as u64;
        self.newer = 0;
        if self.by_hash.len() > self.live + self.live / 8 + 64 {
            self.sweep();
        }
    }

    /// Drops the index's stale entries: those pointing before the queue (an entry of the
    /// index that points into it is live: a closed or replaced entry leaves the index when
    /// it leaves the queue). Told by the age alone, without reading the slot, which on a
    /// full set is a cache miss per entry.
    fn sweep(&mut self) {
        let (len, base) = (self.slots.len() as u64, self.base);
        self.by_hash
            .retain(|_, low| age_of(base, *low) - base < len);
    }

    /// Closes the holes left by removed entries, keeping the order.
    fn compact(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots.reserve(self.live);
        let mut next = self.base;
        let mut split = None;
        for (i, slot) in old.into_iter().enumerate() {
            let Some(s) = slot else { continue };
            let age = self.base + i as u64;
            if age >= self.split && split.is_none() {
                split = Some(next);
            }
            match self.by_hash.get_mut(&s.short) {
                Some(low) if age_of(self.base, *low) == age => *low = next as u32,
                _ => {
                    if let Some(a) = self.spill.get_mut(s.key.as_str()) {
                        *a = next;
                    }
                }
            }
            self.slots.push_back(Some(s));
            next += 1;
        }
        self.split = split.unwrap_or(next);
    }

    /// Every entry, oldest first, leaving the set empty.
    pub(crate) fn drain(&mut self) -> Vec<(KeyText, V)> {
        self.by_hash.clear();
        self.spill.clear();
        self.base = 0;
        self.live = 0;
        self.split = 0;
        self.newer = 0;
        self.slots
            .drain(..)
            .flatten()
            .map(|s| (s.key, s.value))
            .collect()
    }

    /// Every live entry's key, and whether it is of the newer generation.
    fn generations(&self) -> impl Iterator<Item = (&str, bool)> {
        let (base, split) = (self.base, self.split);
        self.slots.iter().enumerate().filter_map(move |(i, slot)| {
            let s = slot.as_ref()?;
            Some((s.key.as_str(), base + i as u64 >= split))
        })
    }

    /// Whether `key`'s entry is of the newer generation, when it is there.
    fn generation(&self, key: Key<'_>) -> Option<bool> {
        self.find(key).map(|f| f.age() >= self.split)
    }
}

/// A set of ids in bounded memory: two generations of at most `CAP / 2` ids
/// ([`Evict::Generations`]); when the newer is full it becomes the older, and the older
/// is dropped. Which ids are kept depends only on the order they came in (the same on
/// every `-j`). Two sets are equal when they hold the same ids in the same generations:
/// they then keep the same ids whatever comes next.
#[derive(Debug, Clone)]
pub(crate) struct IdSet<const CAP: usize> {
    set: Capped<()>,
    hasher: Hasher,
}

impl<const CAP: usize> Default for IdSet<CAP> {
    fn default() -> Self {
        IdSet {
            set: Capped::evicting(CAP, Evict::Generations),
            hasher: Hasher::default(),
        }
    }
}

impl<const CAP: usize> IdSet<CAP> {
    /// Adds `id`; false when it is already there.
    pub(crate) fn insert(&mut self, id: &str) -> bool {
        let key = Key::new(id, &self.hasher);
        if self.set.contains(key) {
            return false;
        }
        self.set.insert(key, ());
        true
    }

    /// Removes `id`; false when it was not there.
    pub(crate) fn remove(&mut self, id: &str) -> bool {
        self.set.remove(Key::new(id, &self.hasher)).is_some()
    }

    pub(crate) fn clear(&mut self) {
        self.set.clear();
    }

    /// How many ids it holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.set.len()
    }
}

impl<const CAP: usize> PartialEq for IdSet<CAP> {
    fn eq(&self, other: &Self) -> bool {
        self.set.live == other.set.live
            && self.set.newer == other.set.newer
            && self
                .set
                .generations()
                .all(|(id, newer)| other.set.generation(Key::new(id, &other.hasher)) == Some(newer))
    }
}

#[cfg(test)]
mod tests;
