//! Gap trackers: what is missing or unmatched in a stream as a whole, rather than wrong
//! with one record (docs/REFERENCE.md, "Gaps findings": the SEQ_, SESS_, TOOL_ and
//! RPC_ codes).
//!
//! A [`GapTracker`] is fed the records of one input at a time, in stream order, and turns
//! what it sees into [`Diagnostic`]s: each at the record where the problem becomes known
//! (a sequence gap, a tool_result answering nothing, an error result), or at the end of
//! the input for what was opened and never closed (located at the opening record: "tool_use
//! toolu_… (Bash) at line 12 has no result"). It reads records; it does not print, decode or
//! classify them, and it never sees PROTO_ diagnostics.
//!
//! What it tracks:
//! - a numeric sequence field (`seq_field`, or auto-detected among [`SEQ_FIELDS`] on the
//!   first records that hold one as a non-negative integer): SEQ_GAP with the missing range,
//!   SEQ_DUPLICATE (the highest value so far again), SEQ_OUT_OF_ORDER (a lower one);
//! - Claude session transcripts: a `parentUuid` naming a uuid not seen before in the input
//!   is a broken chain. The taxonomy has no code of its own for it, so it is a SEQ_GAP
//!   ("parentUuid … never appeared (broken chain)"). Subagent (sidechain) files start from a
//!   uuid of the main session, so they are not checked; `parentUuid: null` (the first
//!   record, a compact boundary) is not a parent;
//! - sessions: SESS_NO_INIT, SESS_NO_RESULT and SESS_ERROR_RESULT for Claude stream-json
//!   (system/init … result; an error is a subtype `error_*`, `is_error: true` even under
//!   `success`, or a non-null `api_error_status`) and codex exec (thread.started, turn.started
//!   … turn.completed / turn.failed; top-level `error` lines are retry notices, not
//!   results). Transcripts have no result line, so they never lack one;
//! - the other agents' sessions: Qwen Code and Cursor as Claude (Cursor's `tool_call`
//!   started/completed too); Gemini CLI `init` … `result` (an error is a `status` other
//!   than `success`; the `-o json` document is a whole session, failed when it has an
//!   `error`); OpenCode, which has no init and no result, from its first record to a
//!   `step_finish` with reason `stop`, `done`, or an `error` (a failure); Copilot to its
//!   `result` (a failure when `exitCode` is not 0). A tool result is an error when the
//!   agent says so, or when a command's output or exit code says it failed (Gemini says
//!   `status: "success"` for a failed shell command);
//! - tool calls: TOOL_ORPHAN_USE, TOOL_ORPHAN_RESULT, TOOL_ERROR (a tool_result with
//!   `is_error: true`), and codex `item.started` never completed; a call whose record is
//!   written again whole when it changes (Gemini CLI's session log) is stated whole each
//!   time (`Op::ToolState`): opened once, answered once;
//! - JSON-RPC: RPC_UNANSWERED, RPC_UNMATCHED_RESPONSE, RPC_DUPLICATE_ID. Ids are matched as
//!   JSON values (their compact text): `"1"` and `1` differ. Requests are tracked whichever
//!   side sent them.
//!
//! Tracking is two steps: what a record tells the trackers is taken from the record alone
//! (its sequence values and a short list of operations, `Op`: open a tool call, close
//! one, end the session in an error, …), then applied to the trackers' state. The
//! operations of a record are its agent's to say: each agent's module reads its own
//! records (`src/dialect/<agent>/gaps.rs`, through `Dialect::gap_ops`), and what an
//! input's end leaves unfinished is a property of its dialect (`Dialect::input_end`); the
//! trackers here know no agent. [`GapTracker::track`]
//! does both at once. Batch mode does the first on the workers for a block of records
//! ([`GapTracker::collect`] into [`Facts`]) and the second in order on one thread when the
//! block is merged ([`GapTracker::replay`]), so the findings are those of one pass while
//! the parsing runs on every core.
//!
//! Memory is bounded: every tracked set holds at most `cap` entries ([`DEFAULT_CAP`]). When
//! a set is full, one diagnostic says so, the oldest entry is dropped, and tracking goes on;
//! from then on an answer to nothing (or a parent never seen) may be one that was dropped,
//! so those are no longer reported for that set.

use crate::diagnostic::{excerpt, printable, Code, Diagnostic, Severity, EXCERPT_CHARS};
use crate::dialect::{Dialect, RecordInfo};
use crate::json::Json;
use crate::pipeline::{Consumer, Flow, Record, Status};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::sync::Arc;

/// The hasher of the trackers' keys (tool-call ids, uuids, request ids) and labels:
/// foldhash, seeded per process. SipHash, the standard library's default, took a fifth of
/// the merging thread's time on a Claude stream (every tool call's id goes in twice and
/// out once); the per-process seed still keeps a crafted input from aiming at one bucket.
/// See docs/PERFORMANCE.md.
type Hasher = foldhash::fast::RandomState;

/// The most entries one tracked set holds (open tool calls, open requests, uuids seen).
pub const DEFAULT_CAP: usize = 100_000;

/// The fields looked at for a sequence number when none is given, in order of preference.
pub const SEQ_FIELDS: [&str; 3] = ["seq", "sequence", "event_id"];

/// How much of a record's start its findings' excerpt can show ([`excerpt`] from the first
/// byte reads at most four bytes a character, and one more byte tells whether there is
/// more): the facts of a block keep that much of each record, and the merge needs no more
/// of the block.
const EXCERPT_BYTES: usize = EXCERPT_CHARS * 4 + 1;

/// The start of `raw` that [`excerpt`] (from the first byte) reads, and one byte more when
/// there is more, which it only tests for: [`EXCERPT_BYTES`] at most, and when the first
/// [`EXCERPT_CHARS`] bytes are ASCII (nearly every record), those and one more (each byte
/// one character, shown or escaped).
fn excerpt_bytes(raw: &[u8]) -> &[u8] {
    let ascii = raw.get(..EXCERPT_CHARS).is_some_and(|b| b.is_ascii());
    let n = if ascii {
        EXCERPT_CHARS + 1
    } else {
        EXCERPT_BYTES
    };
    raw.get(..n).unwrap_or(raw)
}

/// How many valid records auto-detection of the sequence field looks at.
const SEQ_DETECTION_WINDOW: u64 = 64;

/// Where something was opened.
#[derive(Debug, Clone)]
struct Opened {
    line: u64,
    offset: u64,
    /// What it is, for the message: a tool's name, a method, an item type (interned: a
    /// stream names a handful of tools a million times).
    label: Arc<str>,
}

/// What an input left open when it ended ([`GapTracker::ending`]): the session's findings,
/// then the open tool calls and unanswered requests, each in the order they were opened,
/// which is line order (an entry is opened at the record being applied, and records are
/// applied in order; one opened again moves to the back with its new line).
#[derive(Debug, Default)]
pub struct Ending {
    first: VecDeque<Diagnostic>,
    tools: VecDeque<(KeyText, Opened)>,
    requests: VecDeque<(KeyText, Opened)>,
}

/// A key of a tracked set (a tool call's id, a uuid, a request id) with its hash, made
/// once per operation by [`GapTracker::key`] and used for every set the operation touches.
#[derive(Debug, Clone, Copy)]
struct Key<'s> {
    text: &'s str,
    hash: u64,
}

/// A key's text as a tracked set keeps it: in place when it is short (a uuid, a tool call's
/// id: nearly all of them), so that adding one allocates nothing and clearing a set frees
/// nothing.
#[derive(Debug, Clone)]
enum KeyText {
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

    fn as_str(&self) -> &str {
        match self {
            KeyText::Inline(len, buf) => buf
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            KeyText::Heap(s) => s,
        }
    }
}

/// One entry of a tracked set.
#[derive(Debug)]
struct Slot<V> {
    key: KeyText,
    /// The index's key of it ([`Key::short`]).
    short: u32,
    /// Indexed by its text in `spill` (another live key held its short hash when it was
    /// added), so dropping it looks `spill` up, and dropping any other does not.
    spilled: bool,
    opened: V,
}

impl Key<'_> {
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

/// Short hash → the low 32 bits of an age (see [`Tracked::age_of`]).
type ByHash = HashMap<u32, u32, std::hash::BuildHasherDefault<Rehash>>;

/// A set of open things with a cap: the oldest is dropped when it is full.
///
/// Entries sit in a queue in the order they were opened, each key kept once, in its slot;
/// the index maps 32 bits of a key's hash to the entry's age, and a key whose hash another
/// key in the set already has is indexed by its text in `spill`. Closing an entry leaves a
/// hole that is skipped when the oldest is dropped, and the queue is compacted when holes
/// outnumber entries. Dropping the oldest entry of a full set leaves its index entry in
/// place, pointing before the queue (stale, so absent): removing it would be a probe of
/// the index for every entry added, a cache miss on a long stream; stale entries are swept
/// when they are an eighth of the live ones. So memory stays bounded by the cap whatever stays
/// open. See docs/PERFORMANCE.md, "Context across blocks".
#[derive(Debug)]
struct Tracked<V = Opened> {
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

impl<V> Tracked<V> {
    fn new(cap: usize) -> Self {
        Tracked {
            by_hash: ByHash::default(),
            spill: HashMap::default(),
            slots: VecDeque::new(),
            base: 0,
            live: 0,
            cap: cap.max(1),
            capped: false,
        }
    }

    fn clear(&mut self) {
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

    fn contains(&self, key: Key<'_>) -> bool {
        self.find(key).is_some()
    }

    fn get(&self, key: Key<'_>) -> Option<&V> {
        let age = self.find(key)?.age();
        self.slot(age).map(|s| &s.opened)
    }

    /// Adds (or replaces) an entry. Returns true when this insertion hit the cap for the
    /// first time in the input (the oldest entry was dropped).
    ///
    /// One probe of the index finds where the key is and claims its short hash for it
    /// (the set of answered calls takes every call's id once and is full on a long stream:
    /// that probe is a cache miss, so it is not made three times).
    fn insert(&mut self, key: Key<'_>, opened: V) -> bool {
        use std::collections::hash_map::Entry;
        // The new entry goes to the back, then the old one of the same key, or the oldest
        // when the set was full, leaves the front.
        let full = self.live >= self.cap;
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
            opened,
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
        if let Some(old) = old {
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

    fn remove(&mut self, key: Key<'_>) -> Option<V> {
        let found = self.find(key)?;
        match found {
            Found::ByHash(_) => self.by_hash.remove(&key.short()).map(|_| ()),
            Found::Spill(_) => self.spill.remove(key.text).map(|_| ()),
        };
        self.live -= 1;
        self.take(found.age()).map(|s| s.opened)
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
        if self.slots.len() > 2 * self.live + 64 {
            self.compact();
        }
        entry
    }

    /// Drops the oldest open entry. Its index entry stays, stale, unless it is in `spill`.
    fn drop_oldest(&mut self) {
        while let Some(slot) = self.slots.pop_front() {
            let age = self.base;
            self.base += 1;
            let Some(s) = slot else { continue };
            self.live -= 1;
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
        for (i, slot) in old.into_iter().enumerate() {
            let Some(s) = slot else { continue };
            let age = self.base + i as u64;
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
    }

    /// Everything still open, oldest first, leaving the set empty.
    fn drain(&mut self) -> Vec<(KeyText, V)> {
        self.by_hash.clear();
        self.spill.clear();
        self.base = 0;
        self.live = 0;
        self.slots
            .drain(..)
            .flatten()
            .map(|s| (s.key, s.opened))
            .collect()
    }
}

/// Labels shared by the entries that carry them; a bounded table, so a stream of ever new
/// names cannot grow it without end (past the bound, a label is just not shared).
#[derive(Debug)]
struct Labels(HashSet<Arc<str>, Hasher>, Arc<str>, Option<Arc<str>>);

impl Default for Labels {
    fn default() -> Self {
        Labels(HashSet::default(), Arc::from(""), None)
    }
}

impl Labels {
    const MAX: usize = 4096;

    fn get(&mut self, s: &str) -> Arc<str> {
        // The empty label (a session, a uuid) is most of them: no lookup.
        if s.is_empty() {
            return Arc::clone(&self.1);
        }
        // The one asked for last (a tool called again), without hashing it.
        if let Some(l) = self.2.as_ref().filter(|l| ***l == *s) {
            return Arc::clone(l);
        }
        if let Some(l) = self.0.get(s) {
            let l = Arc::clone(l);
            self.2 = Some(Arc::clone(&l));
            return l;
        }
        let l: Arc<str> = Arc::from(s);
        if self.0.len() < Self::MAX {
            self.0.insert(Arc::clone(&l));
        }
        l
    }
}

/// The numeric sequence of one input.
#[derive(Debug, Default)]
struct Sequence {
    field: Option<String>,
    /// The auto-detected field's index in [`SEQ_FIELDS`].
    detected: Option<usize>,
    max: Option<u64>,
    looked_at: u64,
}

/// Tracks gaps over the records of one input at a time. See the module documentation.
#[derive(Debug)]
pub struct GapTracker {
    seq_field: Option<String>,
    cap: usize,
    file: Arc<str>,
    seq: Sequence,
    tools: Tracked,
    /// Tool calls answered already: a second answer to one is no second TOOL_ERROR (a
    /// call's error counts once, as in `stats`). Only the line of the answer is kept: on a
    /// long stream this set is full, and each call answered is written into it (a slot of
    /// 56 bytes rather than 80: docs/PERFORMANCE.md, "validate --gaps on the calling
    /// thread").
    answered: Tracked<u64>,
    items: Tracked,
    requests: Tracked,
    uuids: Tracked,
    /// The uuid last added to `uuids` in this input.
    last_uuid: Option<String>,
    sidechain: bool,
    /// A session start (system/init, thread.started) was seen in this input.
    saw_init: bool,
    /// SESS_NO_INIT was reported in this input.
    reported_no_init: bool,
    /// The open Claude session or codex turn: where it began.
    open_session: Option<Opened>,
    /// Diagnostics found and not yet taken (the [`Consumer`] use).
    found: Vec<Diagnostic>,
    labels: Labels,
    /// Hashes the sets' keys, once per operation ([`GapTracker::key`]).
    hasher: Hasher,
    /// Between [`GapTracker::begin`] and [`GapTracker::end`]: records are tracked as they
    /// come. Otherwise (a worker reading a block) [`GapTracker::see`] collects their facts.
    following: bool,
    /// Reused list of a record's operations, and their strings.
    scratch: (Vec<Op>, String),
    /// Inputs paused while another is read (`--follow`), by name: what each one tracks,
    /// set aside until it resumes ([`GapTracker::pause`]).
    paused: HashMap<Arc<str>, InputState>,
}

/// What the tracker keeps of one input, set aside while another input is read.
#[derive(Debug)]
struct InputState {
    seq: Sequence,
    tools: Tracked,
    answered: Tracked<u64>,
    items: Tracked,
    requests: Tracked,
    uuids: Tracked,
    last_uuid: Option<String>,
    sidechain: bool,
    saw_init: bool,
    reported_no_init: bool,
    open_session: Option<Opened>,
}

impl GapTracker {
    /// A tracker with the default cap. `seq_field` names the sequence field; `None`
    /// auto-detects one of [`SEQ_FIELDS`].
    pub fn new(seq_field: Option<String>) -> Self {
        GapTracker::with_cap(seq_field, DEFAULT_CAP)
    }

    /// A tracker whose every set holds at most `cap` entries.
    pub fn with_cap(seq_field: Option<String>, cap: usize) -> Self {
        GapTracker {
            seq_field,
            cap,
            file: Arc::from(""),
            seq: Sequence::default(),
            tools: Tracked::new(cap),
            answered: Tracked::new(cap),
            items: Tracked::new(cap),
            requests: Tracked::new(cap),
            uuids: Tracked::new(cap),
            last_uuid: None,
            sidechain: false,
            saw_init: false,
            reported_no_init: false,
            open_session: None,
            found: Vec::new(),
            labels: Labels::default(),
            hasher: Hasher::default(),
            following: false,
            scratch: (Vec::new(), String::new()),
            paused: HashMap::new(),
        }
    }

    /// The current input pauses while another one is read (`--follow`): what it tracks is
    /// set aside, whole, for [`GapTracker::resume`]; nothing is reported. Two sessions
    /// written in turns are tracked as if each file were read alone.
    pub fn pause(&mut self) {
        if !self.following {
            return;
        }
        self.following = false;
        let cap = self.cap;
        let state = InputState {
            seq: std::mem::take(&mut self.seq),
            tools: std::mem::replace(&mut self.tools, Tracked::new(cap)),
            answered: std::mem::replace(&mut self.answered, Tracked::new(cap)),
            items: std::mem::replace(&mut self.items, Tracked::new(cap)),
            requests: std::mem::replace(&mut self.requests, Tracked::new(cap)),
            uuids: std::mem::replace(&mut self.uuids, Tracked::new(cap)),
            last_uuid: self.last_uuid.take(),
            sidechain: std::mem::take(&mut self.sidechain),
            saw_init: std::mem::take(&mut self.saw_init),
            reported_no_init: std::mem::take(&mut self.reported_no_init),
            open_session: self.open_session.take(),
        };
        self.paused.insert(self.file.clone(), state);
    }

    /// A paused input goes on where it was; an input never paused begins.
    pub fn resume(&mut self, file: &Arc<str>) {
        let Some(s) = self.paused.remove(file) else {
            return self.begin(file);
        };
        self.following = true;
        self.file = file.clone();
        self.seq = s.seq;
        self.tools = s.tools;
        self.answered = s.answered;
        self.items = s.items;
        self.requests = s.requests;
        self.uuids = s.uuids;
        self.last_uuid = s.last_uuid;
        self.sidechain = s.sidechain;
        self.saw_init = s.saw_init;
        self.reported_no_init = s.reported_no_init;
        self.open_session = s.open_session;
    }

    /// A paused input's file was renamed: it resumes under its new name.
    pub fn rename(&mut self, from: &Arc<str>, to: &Arc<str>) {
        if let Some(s) = self.paused.remove(from) {
            self.paused.insert(to.clone(), s);
        }
    }

    /// A new input begins: nothing carries over from the one before.
    pub fn begin(&mut self, file: &Arc<str>) {
        if !self.paused.is_empty() {
            self.paused.remove(file);
        }
        self.following = true;
        self.file = file.clone();
        self.seq = Sequence {
            field: self.seq_field.clone(),
            ..Sequence::default()
        };
        self.tools.clear();
        self.answered.clear();
        self.items.clear();
        self.requests.clear();
        self.uuids.clear();
        self.last_uuid = None;
        self.sidechain = false;
        self.saw_init = false;
        self.reported_no_init = false;
        self.open_session = None;
    }

    /// Looks at one record; the gaps it reveals are pushed onto `out`.
    pub fn track(&mut self, record: &Record<'_>, out: &mut Vec<Diagnostic>) {
        let Some(value) = tracked_value(record) else {
            return;
        };
        let (mut ops, mut text) = std::mem::take(&mut self.scratch);
        ops.clear();
        text.clear();
        self.extract(&record.info, value, &mut ops, &mut text);
        let at = At {
            file: record.file,
            line: record.line,
            offset: record.offset,
            raw: trim_newline(record.raw),
        };
        self.apply(&ops, &text, &at, out);
        self.scratch = (ops, text);
    }

    /// A record as a consumer of a whole input or of blocks meets it: tracked, its gaps
    /// pushed onto `found`, when the tracker follows its input (it was told of its begin);
    /// else its facts collected into `facts` with `mark` ([`GapTracker::collect`]).
    pub fn see(
        &mut self,
        record: &Record<'_>,
        mark: usize,
        found: &mut Vec<Diagnostic>,
        facts: &mut Facts,
    ) {
        if self.following {
            self.track(record, found);
        } else {
            self.collect(record, mark, facts);
        }
    }

    /// Takes what `record` tells the trackers into `facts` without using the tracker's
    /// state, so a worker can do it for a block of records while [`GapTracker::replay`]
    /// applies the facts in order on one thread: the findings are exactly those of
    /// [`GapTracker::track`] over the same records. `mark` is handed back with each finding
    /// (where the caller's own output for the record ended).
    pub fn collect(&self, record: &Record<'_>, mark: usize, facts: &mut Facts) {
        let Some(value) = tracked_value(record) else {
            return;
        };
        let from = facts.ops.len();
        self.extract(&record.info, value, &mut facts.ops, &mut facts.text);
        facts.redundant(from);
        if facts.ops.len() == from {
            facts.skipped = facts.skipped.saturating_add(1);
            return;
        }
        // What a finding's excerpt shows of the record, so the merge needs no block.
        let raw = trim_newline(record.raw);
        facts.raw.extend_from_slice(excerpt_bytes(raw));
        // A block's records and output stay far below 4 GiB (a longer line ends batching).
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        facts.records.push(FactRecord {
            line: record.line,
            offset: record.offset,
            raw_end: small(facts.raw.len()),
            ops_end: small(facts.ops.len()),
            mark: small(mark),
            skipped: std::mem::take(&mut facts.skipped),
        });
    }

    /// Applies the facts of a block, in order. Each finding is pushed onto `out` with the
    /// mark of the record it was found at.
    pub fn replay(&mut self, facts: &Facts, out: &mut Vec<(usize, Diagnostic)>) {
        self.warm(facts);
        let mut found = Vec::new();
        let mut start = 0;
        let mut raw_start = 0;
        let file = Arc::clone(&self.file);
        for r in &facts.records {
            let raw_end = r.raw_end as usize;
            let raw = facts.raw.get(raw_start..raw_end).unwrap_or_default();
            raw_start = raw_end;
            let at = At {
                file: &file,
                line: r.line,
                offset: r.offset,
                raw,
            };
            let end = r.ops_end as usize;
            let ops = facts.ops.get(start..end).unwrap_or_default();
            self.skip(r.skipped);
            self.apply(ops, &facts.text, &at, &mut found);
            start = end;
            out.extend(found.drain(..).map(|d| (r.mark as usize, d)));
        }
        self.skip(facts.skipped);
    }

    /// Looks up, ahead of applying them, the index entries of the large sets that the
    /// block's operations will touch: the calls answered, which on a long stream holds
    /// [`DEFAULT_CAP`] ids, and each id's entry is a cache miss. Looked up one after the
    /// other, with nothing depending on them, the misses overlap; applied in order, each
    /// waited for the last. The same for the facts themselves, written by a worker on the
    /// other core: their records are read in a tight loop first. It changes nothing but
    /// what is in the cache.
    fn warm(&self, facts: &Facts) {
        fn touch<V>(set: &Tracked<V>, key: Key<'_>) {
            if set.live > 4096 {
                std::hint::black_box(set.by_hash.get(&key.short()));
            }
        }
        let lines = facts.records.iter().fold(0, |n, r| n ^ r.line);
        let text = facts.text.as_bytes().iter().step_by(64);
        std::hint::black_box((lines, text.fold(0, |n, b| n ^ b)));
        if [self.answered.live, self.uuids.live, self.requests.live]
            .iter()
            .all(|&n| n <= 4096)
        {
            return;
        }
        let text = &facts.text;
        for op in &facts.ops {
            match op {
                Op::CloseTool { id, .. } | Op::ToolState { id, .. } => {
                    touch(&self.answered, self.key(id.of(text)))
                }
                Op::Chain {
                    parent: Some(id), ..
                } => touch(&self.uuids, self.key(id.of(text))),
                Op::Request { key, .. } | Op::Response { key } => {
                    touch(&self.requests, self.key(key.of(text)))
                }
                _ => {}
            }
        }
    }

    /// Applies `n` records that told the trackers nothing, as [`GapTracker::apply`] would
    /// with no operations: they only count towards the detection window of the sequence
    /// field while it is undecided.
    fn skip(&mut self, n: u32) {
        if self.seq_field.is_none() && self.seq.detected.is_none() {
            let seen = self.seq.looked_at.saturating_add(u64::from(n));
            self.seq.looked_at = self.seq.looked_at.max(seen.min(SEQ_DETECTION_WINDOW));
        }
    }

    /// The input ended: what was opened and never closed, in the order of the lines that
    /// opened it, is pushed onto `out`.
    pub fn end(&mut self, dialect: Option<Dialect>, out: &mut Vec<Diagnostic>) {
        let mut ending = self.ending(dialect);
        while self.next_found(&mut ending, out, usize::MAX) {}
    }

    /// The input ended: takes what it left open, whose findings [`GapTracker::next_found`]
    /// then gives in line order, a chunk at a time, so a full set of open calls (100,000)
    /// is never held as that many diagnostics at once.
    pub fn ending(&mut self, dialect: Option<Dialect>) -> Ending {
        self.following = false;
        let mut first = Vec::new();
        match dialect.map_or(InputEnd::Nothing, Dialect::input_end) {
            InputEnd::SessionResult => {
                if let Some(s) = self.open_session.take() {
                    first.push(self.at_opened(
                        Code::SessNoResult,
                        &s,
                        format!(
                            "session that began at line {} has no result (stream ended)",
                            s.line
                        ),
                    ));
                }
            }
            InputEnd::Process { turn_ends } => {
                self.close_process(&mut first, turn_ends, "stream ended")
            }
            InputEnd::Nothing => {}
        }
        self.uuids.clear();
        self.last_uuid = None;
        first.sort_by_key(|d| d.line);
        Ending {
            first: first.into(),
            tools: self.tools.drain().into(),
            requests: self.requests.drain().into(),
        }
    }

    /// Pushes up to `max` more findings of `ending` onto `out`, in line order (at a tie:
    /// the session, then tool calls, then requests); whether any are left.
    pub fn next_found(&self, ending: &mut Ending, out: &mut Vec<Diagnostic>, max: usize) -> bool {
        for _ in 0..max {
            let first = ending.first.front().map(|d| d.line);
            let next = [ending.tools.front(), ending.requests.front()]
                .into_iter()
                .flatten()
                .map(|(_, o)| o.line)
                .min();
            let d = match (first, next) {
                (Some(f), Some(n)) if f <= n => ending.first.pop_front(),
                (Some(_), None) => ending.first.pop_front(),
                _ => self.next_merged(ending),
            };
            match d {
                Some(d) => out.push(d),
                None => return false,
            }
        }
        !(ending.first.is_empty() && ending.tools.is_empty() && ending.requests.is_empty())
    }

    /// The earlier of the next open tool call and the next unanswered request (the tool
    /// call at a tie), as its finding.
    fn next_merged(&self, ending: &mut Ending) -> Option<Diagnostic> {
        let tool_first = match (ending.tools.front(), ending.requests.front()) {
            (Some(t), Some(r)) => t.1.line <= r.1.line,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if tool_first {
            let (id, o) = ending.tools.pop_front()?;
            return Some(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "tool_use {} ({}) at line {} has no result",
                    printable(id.as_str()),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
        let (id, o) = ending.requests.pop_front()?;
        Some(self.at_opened(
            Code::RpcUnanswered,
            &o,
            format!(
                "request id {} ({}) at line {} was never answered",
                printable(id.as_str()),
                printable(&o.label),
                o.line
            ),
        ))
    }

    /// Takes what was found since the last call (when used as a [`Consumer`]).
    pub fn take_found(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.found)
    }

    /// A key of the tracked sets, hashed once for every set it is looked up in.
    fn key<'s>(&self, text: &'s str) -> Key<'s> {
        use std::hash::BuildHasher;
        Key {
            text,
            hash: self.hasher.hash_one(text),
        }
    }

    fn at_opened(&self, code: Code, o: &Opened, message: String) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: o.line,
            column: None,
            offset: o.offset,
            code,
            severity: code.severity(),
            message,
            excerpt: String::new(),
        }
    }

    fn capped(&self, code: Code, severity: Severity, at: &At<'_>, what: &str) -> Diagnostic {
        let mut d = at.diag(
            code,
            format!(
                "more than {} {what}: the oldest no longer tracked",
                self.cap.max(1)
            ),
        );
        d.severity = severity;
        d
    }

    // ---- what a record tells the trackers (no state) ----

    /// The record's facts, pushed onto `ops` in the order the trackers take them: its
    /// sequence candidates first (when it has any), then what its dialect says. A reader
    /// that walks every record's keys anyway (the Claude-shaped ones) finds the sequence
    /// candidates in that walk ([`seq_op`]); for the others they are looked up here.
    fn extract(
        &self,
        info: &RecordInfo<'_>,
        value: Json<'_>,
        ops: &mut Vec<Op>,
        text: &mut String,
    ) {
        let start = ops.len();
        let walked = info
            .dialect
            .is_some_and(|d| d.gap_ops(info, value, ops, text));
        let seq = match &self.seq_field {
            Some(f) => {
                if walked && matches!(ops.get(start), Some(Op::Seq(_))) {
                    ops.remove(start);
                }
                [value.get(f).and_then(|v| v.as_u64()), None, None]
            }
            None if walked => return,
            None => value
                .get_many(SEQ_FIELDS)
                .map(|v| v.and_then(|v| v.as_u64())),
        };
        if seq.iter().any(Option::is_some) {
            ops.insert(start, Op::Seq(seq));
        }
    }

    // ---- what the trackers make of it (the state) ----

    /// Applies a record's operations (every record the trackers look at, with or without
    /// any: the sequence field is looked for on a window of records).
    fn apply(&mut self, ops: &[Op], text: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let seq = match ops.first() {
            Some(Op::Seq(values)) => *values,
            _ => [None; 3],
        };
        self.track_seq(seq, at, out);
        for op in ops {
            match op {
                Op::Seq(_) => {}
                Op::Chain {
                    sidechain,
                    parent,
                    uuid,
                } => {
                    if *sidechain {
                        self.sidechain = true;
                    }
                    if let Some(parent) = parent.map(|p| p.of(text)) {
                        // A parent is nearly always the record before: its uuid, the last
                        // one added, is in the set without a lookup.
                        if !self.sidechain
                            && !self.uuids.capped
                            && self.last_uuid.as_deref() != Some(parent)
                            && !self.uuids.contains(self.key(parent))
                        {
                            out.push(at.diag(
                                Code::SeqGap,
                                format!(
                                    "parentUuid {} never appeared (broken chain)",
                                    printable(parent)
                                ),
                            ));
                        }
                    }
                    // Once the set of uuids is full, parents are no longer checked (it
                    // reported so), so nothing reads it again in this input: the uuids
                    // after that are not kept, which on a long stream is most of them.
                    if let Some(uuid) = uuid.map(|u| u.of(text)).filter(|_| !self.uuids.capped) {
                        let opened = at.opened(self.labels.get(""));
                        let last = self.last_uuid.get_or_insert_with(String::new);
                        last.clear();
                        last.push_str(uuid);
                        if self.uuids.insert(self.key(uuid), opened) {
                            out.push(self.capped(Code::SeqGap, Severity::Info, at, "uuids"));
                        }
                    }
                }
                Op::Init => self.saw_init = true,
                Op::SessionStart { id } => {
                    let id = id.of(text);
                    match self.open_session.take() {
                        Some(o) if !o.label.is_empty() && &*o.label != id => {
                            out.push(self.at_opened(
                                Code::SessNoResult,
                                &o,
                                format!(
                                    "session that began at line {} has no result (session {} \
                                     began at line {})",
                                    o.line,
                                    printable(id),
                                    at.line
                                ),
                            ));
                            self.open_session = Some(at.opened(Arc::from(id)));
                        }
                        // The same session's init again, or one opened before its init:
                        // still open, now knowing its id.
                        Some(o) => {
                            self.open_session = Some(Opened {
                                label: Arc::from(id),
                                ..o
                            })
                        }
                        None => self.open_session = Some(at.opened(Arc::from(id))),
                    }
                }
                Op::NoInit(kind) => {
                    if !self.saw_init && !self.reported_no_init {
                        self.reported_no_init = true;
                        out.push(at.diag(Code::SessNoInit, kind.message(text)));
                    }
                }
                Op::Open { replace } => {
                    if *replace || self.open_session.is_none() {
                        self.open_session = Some(at.opened(self.labels.get("")));
                    }
                }
                Op::End(error) => {
                    self.open_session = None;
                    if let Some(message) = error {
                        let message = message.of(text).to_string();
                        out.push(at.diag(Code::SessErrorResult, message));
                    }
                }
                Op::ProcessStart { turn_ends } => {
                    // A resumed run (`codex exec resume`) is a new process: what the last
                    // one left open stays open for good, and item ids start again.
                    if self.saw_init {
                        self.close_process(out, turn_ends, "the process ended");
                    }
                    self.answered.clear();
                    self.saw_init = true;
                }
                Op::OpenTool { id, name } => {
                    self.open_tool(self.key(id.of(text)), name.of(text), at, out)
                }
                Op::CloseTool { id, failed } => {
                    self.close_tool(self.key(id.of(text)), *failed, at, out)
                }
                Op::ToolState { id, name, ended } => {
                    let id = self.key(id.of(text));
                    if !self.answered.contains(id) {
                        if !self.tools.contains(id) {
                            self.open_tool(id, name.of(text), at, out);
                        }
                        if let Some(failed) = ended {
                            self.close_tool(id, *failed, at, out);
                        }
                    }
                }
                Op::OpenItem { id, kind } => {
                    let id = self.key(id.of(text));
                    let opened = at.opened(self.labels.get(kind.of(text)));
                    if self.items.insert(id, opened) {
                        out.push(self.capped(
                            Code::ToolOrphanUse,
                            Severity::Warning,
                            at,
                            "open items",
                        ));
                    }
                }
                Op::CloseItem { id, failed } => {
                    let id = self.key(id.of(text));
                    let opened = self.items.remove(id);
                    if let Some(name) = failed {
                        self.tool_failed(id, name.of(text), opened.map(|o| o.line), at, out);
                    }
                }
                Op::Request { key, method } => {
                    let key = self.key(key.of(text));
                    let method = self.labels.get(method.of(text));
                    if let Some(first) = self.requests.get(key) {
                        out.push(at.diag(
                            Code::RpcDuplicateId,
                            format!(
                                "request id {} reused while the request at line {} ({}) is still open",
                                printable(key.text),
                                first.line,
                                printable(&first.label)
                            ),
                        ));
                    }
                    if self.requests.insert(key, at.opened(method)) {
                        out.push(self.capped(
                            Code::RpcUnanswered,
                            Severity::Warning,
                            at,
                            "open requests",
                        ));
                    }
                }
                Op::Response { key } => {
                    let key = self.key(key.of(text));
                    if self.requests.remove(key).is_none() && !self.requests.capped {
                        out.push(at.diag(
                            Code::RpcUnmatchedResponse,
                            format!(
                                "response id {}: no open request with that id",
                                printable(key.text)
                            ),
                        ));
                    }
                }
            }
        }
    }

    // ---- sequence numbers ----

    fn track_seq(&mut self, values: SeqValues, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let n = if self.seq_field.is_some() {
            values[0]
        } else if let Some(i) = self.seq.detected {
            values[i]
        } else {
            if self.seq.looked_at >= SEQ_DETECTION_WINDOW {
                return;
            }
            self.seq.looked_at += 1;
            let found = values.iter().position(Option::is_some);
            if let Some(i) = found {
                self.seq.detected = Some(i);
                self.seq.field = Some(SEQ_FIELDS[i].to_string());
            }
            found.and_then(|i| values[i])
        };
        let Some(n) = n else { return };
        let field = self.seq.field.as_deref().unwrap_or_default();
        match self.seq.max {
            None => self.seq.max = Some(n),
            Some(max) if n == max.saturating_add(1) => self.seq.max = Some(n),
            Some(max) if n > max => {
                let range = if n - 1 == max + 1 {
                    format!("{}", max + 1)
                } else {
                    format!("{}-{}", max + 1, n - 1)
                };
                out.push(at.diag(
                    Code::SeqGap,
                    format!("{field} jumps from {max} to {n}: missing {range}"),
                ));
                self.seq.max = Some(n);
            }
            Some(max) if n == max => {
                out.push(at.diag(Code::SeqDuplicate, format!("{field} {n} repeated")))
            }
            Some(max) => out.push(at.diag(
                Code::SeqOutOfOrder,
                format!("{field} {n} after {max}: out of order"),
            )),
        }
    }

    /// What an agent process left open: its turn (which lacks one of `turn_ends`) and its
    /// started items.
    fn close_process(&mut self, out: &mut Vec<Diagnostic>, turn_ends: &str, why: &str) {
        if let Some(s) = self.open_session.take() {
            out.push(self.at_opened(
                Code::SessNoResult,
                &s,
                format!("turn started at line {} has no {turn_ends} ({why})", s.line),
            ));
        }
        for (id, o) in self.items.drain() {
            out.push(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "item {} ({}) started at line {} never completed ({why})",
                    printable(id.as_str()),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
    }

    // ---- Gemini CLI, Cursor, OpenCode, Copilot ----

    /// Opens a tool call (`id`, named `name`).
    fn open_tool(&mut self, id: Key<'_>, name: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let opened = at.opened(self.labels.get(name));
        if self.tools.insert(id, opened) {
            out.push(self.capped(
                Code::ToolOrphanUse,
                Severity::Warning,
                at,
                "open tool calls",
            ));
        }
    }

    /// A failed tool call: TOOL_ERROR, once per call (`name` and the line it was opened at
    /// when known).
    fn tool_failed(
        &mut self,
        id: Key<'_>,
        name: &str,
        line: Option<u64>,
        at: &At<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        if self.answered.contains(id) {
            return;
        }
        let message = match line {
            Some(line) => format!(
                "tool_result for {} ({}, line {line}) is an error",
                printable(id.text),
                printable(name)
            ),
            None if name.is_empty() => {
                format!("tool_result for {} is an error", printable(id.text))
            }
            None => format!("{} call {} failed", printable(name), printable(id.text)),
        };
        out.push(at.diag(Code::ToolError, message));
        self.answered.insert(id, at.line);
    }

    /// Closes a tool call; an error result is TOOL_ERROR, an answer to nothing an orphan.
    fn close_tool(&mut self, id: Key<'_>, is_error: bool, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        match self.tools.remove(id) {
            Some(o) => {
                if is_error {
                    self.tool_failed(id, &o.label, Some(o.line), at, out);
                } else {
                    self.answered.insert(id, at.line);
                }
            }
            None if self.answered.get(id) == Some(&at.line) => {
                // The same answer twice in one record (Claude repeats a tool_result block):
                // reported with the first.
            }
            None => {
                // An error answered before is reported once (the ids of a copied session
                // come again); the answer to a call not open is still an orphan.
                if is_error {
                    self.tool_failed(id, "", None, at, out);
                }
                if !self.tools.capped {
                    out.push(at.diag(
                        Code::ToolOrphanResult,
                        format!(
                            "tool_result for {}: no tool_use with that id before",
                            printable(id.text)
                        ),
                    ));
                }
            }
        }
    }
}

/// The candidates of a record for the sequence field: the one named with `--seq-field`
/// first, else one per [`SEQ_FIELDS`].
type SeqValues = [Option<u64>; 3];

// ---- the vocabulary: what a record tells the trackers ----
//
// Each agent's module reads its own records into these operations
// ([`Dialect::gap_ops`], `src/dialect/<agent>/gaps.rs`); the trackers above apply them
// without knowing the agent.

/// One thing a record tells the trackers, taken from the record alone. Its strings are
/// [`Span`]s of the text buffer handed over with it ([`put`]).
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// The record's sequence candidates (first, when it has any; the trackers' own).
    Seq(SeqValues),
    /// A transcript's parent chain: the record is a sidechain's, names a parent, has a
    /// uuid (a parent never seen is a broken chain).
    Chain {
        sidechain: bool,
        parent: Option<Span>,
        uuid: Option<Span>,
    },
    /// A session start (an init record, a whole-session document).
    Init,
    /// A session start naming its session: a session of another id still open is cut off
    /// (SESS_NO_RESULT).
    SessionStart {
        id: Span,
    },
    /// A record that needs a session start before it.
    NoInit(NoInit),
    /// The session is open from here: always (`replace`), or unless one is open.
    Open {
        replace: bool,
    },
    /// The session ends here, in an error when there is a message.
    End(Option<Span>),
    /// A new agent process starts in the same stream (a resumed run): what the last one
    /// left open (its turn, which lacks one of `turn_ends`, and its started items) stays
    /// open for good, and ids start again.
    ProcessStart {
        turn_ends: &'static str,
    },
    /// A tool call opens.
    OpenTool {
        id: Span,
        name: Span,
    },
    CloseTool {
        id: Span,
        failed: bool,
    },
    /// A tool call's whole state, in a record written again whole each time it changes
    /// (the same call in several records): opened unless it is open or was answered in
    /// this input, and closed when `ended` says how it ended (failed or not), once.
    ToolState {
        id: Span,
        name: Span,
        ended: Option<bool>,
    },
    /// An item of the process's work starts (`kind`: what it is).
    OpenItem {
        id: Span,
        kind: Span,
    },
    /// An item completes: `failed` names a tool item that failed.
    CloseItem {
        id: Span,
        failed: Option<Span>,
    },
    /// A JSON-RPC request or response, by the compact text of its id.
    Request {
        key: Span,
        method: Span,
    },
    Response {
        key: Span,
    },
}

/// A record of type `ty` came before any session start, the record named `start`
/// (`system/init`, `thread.started`, `init`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoInit {
    pub(crate) ty: Name,
    pub(crate) start: &'static str,
}

/// A name an operation carries: one the reader knows (a static string), or one read from
/// the record ([`put`] in the text buffer).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Name {
    Known(&'static str),
    Read(Span),
}

impl NoInit {
    fn message(&self, text: &str) -> String {
        let ty = match self.ty {
            Name::Known(ty) => ty,
            Name::Read(ty) => ty.of(text),
        };
        format!(
            "`{}` before any {}: the session has no start",
            printable(ty),
            self.start
        )
    }
}

/// Pushes a record's sequence candidates (the values of [`SEQ_FIELDS`], in order, as a
/// reader found them in its own walk over the record) as its first operation, when any is
/// a non-negative integer. A reader that does so says so ([`Dialect::gap_ops`]).
pub(crate) fn seq_op(values: [Option<Json<'_>>; 3], ops: &mut Vec<Op>) {
    let seq = values.map(|v| v.and_then(|v| v.as_u64()));
    if seq.iter().any(Option::is_some) {
        ops.push(Op::Seq(seq));
    }
}

/// What the end of an input leaves unfinished, by dialect ([`Dialect::input_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputEnd {
    /// A session still open has no result (SESS_NO_RESULT).
    SessionResult,
    /// The stream is an agent process's output: its open turn lacks one of `turn_ends`,
    /// and its started items never completed.
    Process { turn_ends: &'static str },
    /// Nothing is owed at the end (transcripts, JSON-RPC, generic).
    Nothing,
}

/// What the records of blocks of one input tell the trackers, in order: made by workers
/// with [`GapTracker::collect`], applied by [`GapTracker::replay`].
#[derive(Debug, Default)]
pub struct Facts {
    records: Vec<FactRecord>,
    ops: Vec<Op>,
    /// The operations' strings.
    text: String,
    /// The start of each record ([`FactRecord::raw_end`]), as much as an excerpt shows.
    raw: Vec<u8>,
    /// Records without operations since the last one with some ([`FactRecord::skipped`]).
    skipped: u32,
    /// What the operations so far guarantee of the trackers' state once applied, whatever
    /// it was before them (the records of one input, in order): operations that then
    /// change nothing are left out ([`Facts::redundant`]).
    known: Known,
}

/// See [`Facts::known`].
#[derive(Debug, Default, Clone, Copy)]
struct Known {
    /// A session-start check ([`Op::NoInit`]) was applied: after it the input has seen its
    /// start or reported the lack of one, which no later record changes, so every later
    /// one is moot.
    no_init: bool,
    /// A session is open (after [`Op::Open`] or [`Op::SessionStart`], until [`Op::End`]
    /// or [`Op::ProcessStart`]): opening it unless one is open changes nothing.
    open: bool,
}

impl Facts {
    /// Takes the facts collected so far, leaving room for as many: the next block's are
    /// about as many as this one's, so they are not grown from empty again (reallocating
    /// and copying as they grow was 2% of a worker's time on a Claude stream; see
    /// docs/PERFORMANCE.md, "Context across blocks").
    pub fn take(&mut self) -> Facts {
        let room = Facts {
            records: Vec::with_capacity(self.records.len()),
            ops: Vec::with_capacity(self.ops.len()),
            text: String::with_capacity(self.text.len()),
            raw: Vec::with_capacity(self.raw.len()),
            skipped: 0,
            known: Known::default(),
        };
        std::mem::replace(self, room)
    }

    /// Leaves out of `ops[from..]`, a record's operations, those that change nothing after
    /// the ones before them. On a Claude stream every message says that a session start
    /// should have come and that the session is open from here, which after the first
    /// record of a block says nothing: two of a record's three or four operations, which
    /// the merging thread read and applied one by one (docs/PERFORMANCE.md, "validate
    /// --gaps on the calling thread").
    fn redundant(&mut self, from: usize) {
        let known = &mut self.known;
        let mut keep = from;
        for i in from..self.ops.len() {
            let drop = match self.ops.get(i) {
                Some(Op::NoInit(_)) => std::mem::replace(&mut known.no_init, true),
                Some(Op::Open { replace }) => {
                    let moot = known.open && !replace;
                    known.open = true;
                    moot
                }
                Some(Op::SessionStart { .. }) => {
                    known.open = true;
                    false
                }
                Some(Op::End(_) | Op::ProcessStart { .. }) => {
                    known.open = false;
                    false
                }
                _ => false,
            };
            if !drop {
                self.ops.swap(keep, i);
                keep += 1;
            }
        }
        self.ops.truncate(keep);
    }
}

#[derive(Debug)]
struct FactRecord {
    line: u64,
    offset: u64,
    /// Its excerpt's bytes are `raw[previous record's raw_end..raw_end]`.
    raw_end: u32,
    /// Its operations are `ops[previous record's ops_end..ops_end]`.
    ops_end: u32,
    mark: u32,
    /// Records the trackers looked at just before it that told them nothing: not kept,
    /// only counted (they count towards the window of sequence-field detection).
    skipped: u32,
}

/// The value the trackers look at: a valid record's, when it is an object.
fn tracked_value<'a>(record: &Record<'a>) -> Option<Json<'a>> {
    if record.status != Status::Valid {
        return None;
    }
    record.value.filter(|v| v.is_object())
}

/// Keeps `s` in `text`, where the facts' strings are: one buffer, not an allocation each.
pub(crate) fn put(text: &mut String, s: &str) -> Span {
    let start = text.len();
    text.push_str(s);
    let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Span {
        start: small(start),
        len: small(s.len()),
    }
}

/// A string [`put`] in a text buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn of(self, text: &str) -> &str {
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// The message of a session that ended in an error (the reason cut to 160 characters).
pub(crate) fn session_error(why: &str) -> String {
    let why: String = why.chars().take(160).collect();
    format!("the session ended in an error: {}", printable(&why))
}

/// A record of a session that has begun: opens it if it is not open, after reporting
/// once a missing start where the dialect has one (`start`: the start record's name).
pub(crate) fn session_record(
    ty: Option<&str>,
    start: Option<&'static str>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    if let Some(start) = start {
        ops.push(Op::NoInit(NoInit {
            ty: Name::Read(put(text, ty.unwrap_or("(none)"))),
            start,
        }));
    }
    ops.push(Op::Open { replace: false });
}

/// Where a diagnostic about a record points.
struct At<'r> {
    file: &'r Arc<str>,
    line: u64,
    offset: u64,
    /// The record without its line end, or as much of its start as its excerpt shows.
    raw: &'r [u8],
}

impl At<'_> {
    fn diag(&self, code: Code, message: String) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: self.line,
            column: None,
            offset: self.offset,
            code,
            severity: code.severity(),
            message,
            excerpt: excerpt(self.raw, None),
        }
    }

    fn opened(&self, label: Arc<str>) -> Opened {
        Opened {
            line: self.line,
            offset: self.offset,
            label,
        }
    }
}

fn trim_newline(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    raw.strip_suffix(b"\r").unwrap_or(raw)
}

/// As a consumer, the tracker keeps what it finds for [`GapTracker::take_found`].
impl Consumer for GapTracker {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.begin(file);
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        let mut found = std::mem::take(&mut self.found);
        self.track(record, &mut found);
        self.found = found;
        Ok(Flow::Continue)
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        let mut found = std::mem::take(&mut self.found);
        self.end(dialect, &mut found);
        self.found = found;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Options, Pipeline};

    /// The tracked set against a plain list in opening order, through random opens,
    /// re-opens, closes and evictions: same entries, same order, bounded queue. `hash`
    /// makes each key's hash: the real one, or one that makes keys collide (indexed by
    /// their text in `spill`).
    fn tracked_set_against_a_plain_list(hash: impl Fn(&str) -> u64) {
        let mut t: Tracked = Tracked::new(50);
        let mut model: Vec<(String, u64)> = Vec::new();
        let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
        for step in 0..20_000u64 {
            let x = rng.next_u64();
            // Some keys too long to be kept in place.
            let key = if x.is_multiple_of(5) {
                format!("{}-k{}", "long".repeat(12), x % 97)
            } else {
                format!("k{}", x % 97)
            };
            let k = Key {
                text: &key,
                hash: hash(&key),
            };
            let opened = Opened {
                line: step,
                offset: 0,
                label: Arc::from(""),
            };
            if x.is_multiple_of(3) {
                let got = t.remove(k).map(|o| o.line);
                let want = model
                    .iter()
                    .position(|(k, _)| *k == key)
                    .map(|i| model.remove(i).1);
                assert_eq!(got, want, "remove {key} at {step}");
            } else {
                let capped = t.insert(k, opened);
                model.retain(|(k, _)| *k != key);
                let mut dropped = false;
                if model.len() >= 50 {
                    model.remove(0);
                    dropped = true;
                }
                model.push((key.clone(), step));
                assert!(!capped || dropped);
            }
            assert_eq!(
                t.get(k).map(|o| o.line),
                model.iter().find(|(k, _)| *k == key).map(|e| e.1)
            );
            assert_eq!(t.live, model.len());
            assert!(t.slots.len() <= 2 * t.live + 65, "holes are compacted");
            assert!(
                t.by_hash.len() <= 50 + 50 / 8 + 65,
                "stale entries are swept"
            );
        }
        let rest: Vec<(String, u64)> = t
            .drain()
            .into_iter()
            .map(|(k, o)| (k.as_str().to_string(), o.line))
            .collect();
        assert_eq!(rest, model);
    }

    #[test]
    fn tracked_set_matches_a_plain_list() {
        let hasher = Hasher::default();
        tracked_set_against_a_plain_list(|k| {
            use std::hash::BuildHasher;
            hasher.hash_one(k)
        });
    }

    /// Keys of the same hash (a collision) are told apart by their text.
    #[test]
    fn tracked_set_with_colliding_hashes_matches_a_plain_list() {
        tracked_set_against_a_plain_list(|k| k.len() as u64 % 3);
    }

    fn gaps(text: &str, cap: usize) -> Vec<(u64, Code, String)> {
        let mut pipeline = Pipeline::new(Options::default());
        let mut tracker = GapTracker::with_cap(None, cap);
        let name: Arc<str> = Arc::from("t");
        pipeline
            .run(&name, text.as_bytes(), &mut tracker)
            .expect("reads");
        tracker
            .take_found()
            .into_iter()
            .map(|d| (d.line, d.code, d.message))
            .collect()
    }

    /// Collects the facts of every record, taking them every `chunk` records as a block.
    struct Collector {
        tracker: GapTracker,
        facts: Facts,
        chunk: usize,
        seen: usize,
        blocks: Vec<Facts>,
        dialect: Option<Dialect>,
    }

    impl Consumer for Collector {
        fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
            self.tracker.collect(record, self.seen, &mut self.facts);
            self.seen += 1;
            if self.seen.is_multiple_of(self.chunk) {
                self.blocks.push(self.facts.take());
            }
            Ok(Flow::Continue)
        }

        fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
            self.blocks.push(self.facts.take());
            self.dialect = dialect;
            Ok(())
        }
    }

    type Found = Vec<(u64, Code, String, String)>;

    fn found(ds: impl IntoIterator<Item = Diagnostic>) -> Found {
        ds.into_iter()
            .map(|d| (d.line, d.code, d.message, d.excerpt))
            .collect()
    }

    /// The findings of collecting the facts in blocks of `chunk` records and replaying
    /// them, as the merge of batch mode does.
    fn replayed(text: &str, chunk: usize, seq_field: Option<&str>) -> Found {
        let name: Arc<str> = Arc::from("t");
        let mut collector = Collector {
            tracker: GapTracker::new(seq_field.map(String::from)),
            facts: Facts::default(),
            chunk,
            seen: 0,
            blocks: Vec::new(),
            dialect: None,
        };
        Pipeline::new(Options::default())
            .run(&name, text.as_bytes(), &mut collector)
            .expect("reads");
        let mut tracker = GapTracker::new(seq_field.map(String::from));
        tracker.begin(&name);
        let mut out = Vec::new();
        for facts in &collector.blocks {
            let mut marked = Vec::new();
            tracker.replay(facts, &mut marked);
            out.extend(marked.into_iter().map(|(_, d)| d));
        }
        tracker.end(collector.dialect, &mut out);
        found(out)
    }

    fn tracked(text: &str, seq_field: Option<&str>) -> Found {
        let mut pipeline = Pipeline::new(Options::default());
        let mut tracker = GapTracker::new(seq_field.map(String::from));
        let name: Arc<str> = Arc::from("t");
        pipeline
            .run(&name, text.as_bytes(), &mut tracker)
            .expect("reads");
        found(tracker.take_found())
    }

    /// Facts collected in blocks of any size and replayed give the findings of one pass,
    /// excerpts included: the operations a block leaves out (a session start checked
    /// again, a session opened again) and the records without any (only counted, for the
    /// detection window of the sequence field) change nothing.
    #[test]
    fn facts_replayed_in_blocks_find_what_one_pass_finds() {
        let claude =
            |ty: &str, rest: &str| format!("{{\"type\":\"{ty}\",\"session_id\":\"s\"{rest}}}\n");
        let tool_use = |id: &str| {
            claude(
                "assistant",
                &format!(
                    ",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{{}}}}]}}"
                ),
            )
        };
        let tool_result = |id: &str, error: bool| {
            claude(
                "user",
                &format!(
                    ",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"is_error\":{error},\"content\":\"{}\"}}]}}",
                    "out ".repeat(80)
                ),
            )
        };
        let text_message = claude(
            "assistant",
            ",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}",
        );
        // A stream without its init, sessions ended in errors, orphans, repeated answers.
        let mut stream = String::new();
        for i in 0..40 {
            stream += &text_message;
            stream += &tool_use(&format!("toolu_{i}"));
            match i % 5 {
                0 => stream += &tool_result(&format!("toolu_{i}"), true),
                1 => stream += &tool_result(&format!("toolu_x{i}"), false),
                2 => {
                    stream += &tool_result(&format!("toolu_{i}"), false);
                    stream += &tool_result(&format!("toolu_{i}"), true);
                }
                3 => {}
                _ => stream += &tool_result(&format!("toolu_{i}"), false),
            }
            // Sessions ended, then begun again by an init or by the next message.
            if i % 7 == 6 {
                stream += &claude("result", ",\"subtype\":\"error_during_execution\"");
            }
            if i % 14 == 6 {
                stream += &claude(
                    "system",
                    &format!(",\"subtype\":\"init\",\"session_id\":\"s{i}\""),
                );
            }
        }
        // Ended, then begun again by a message: open at the end.
        stream += &claude("result", ",\"subtype\":\"success\"");
        stream += &text_message;
        stream += &text_message;
        // Sequence numbers after records without any: within the detection window, and
        // past it (not looked for any more).
        let numbered = |skip: usize| {
            let mut t = "{\"a\":1}\n".repeat(skip);
            for n in [1, 2, 5, 5, 3, 9] {
                t += &format!("{{\"seq\":{n}}}\n");
            }
            t
        };
        let inputs = [
            (stream, None),
            (numbered(10), None),
            (numbered(63), None),
            (numbered(64), None),
            (numbered(70), None),
            (numbered(70), Some("seq")),
        ];
        for (text, seq_field) in &inputs {
            let want = tracked(text, *seq_field);
            for chunk in [1, 2, 3, 5, 8, 13, 64, 1000] {
                assert_eq!(replayed(text, chunk, *seq_field), want, "blocks of {chunk}");
            }
        }
        // The stream's findings carry excerpts cut from the facts' copy of each record.
        let stream = tracked(&inputs[0].0, None);
        assert!(stream.iter().any(|f| f.3.ends_with('…')), "{stream:?}");
        assert!(stream.len() > 40, "{stream:?}");
        let last = inputs[0].0.lines().count() as u64 - 1;
        assert!(stream.contains(&(
            last,
            Code::SessNoResult,
            format!("session that began at line {last} has no result (stream ended)"),
            String::new()
        )));
        // Found within the window, not past it, and always with the field named.
        assert_eq!(tracked(&inputs[2].0, None).len(), 4);
        assert!(tracked(&inputs[3].0, None).is_empty());
        assert_eq!(tracked(&inputs[5].0, Some("seq")).len(), 4);
    }

    /// The bytes the facts keep of a record give its whole excerpt: ASCII, multi-byte
    /// characters, control characters, bad bytes and characters cut at every length.
    #[test]
    fn excerpt_bytes_give_the_whole_records_excerpt() {
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let pieces: [&[u8]; 8] = [
            b"a",
            b"{\"k\":",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\x01",
            b"\xff",
            b"\t",
        ];
        for round in 0..4000 {
            let mut raw = Vec::new();
            let ascii_head = round % 2 == 0;
            if ascii_head {
                raw.extend(std::iter::repeat_n(b'x', (rng.next_u64() % 70) as usize));
            }
            for _ in 0..rng.next_u64() % 120 {
                raw.extend_from_slice(pieces[(rng.next_u64() % 8) as usize]);
            }
            let kept = excerpt_bytes(&raw);
            assert!(kept.len() <= EXCERPT_BYTES);
            assert_eq!(excerpt(kept, None), excerpt(&raw, None), "{raw:?}");
        }
    }

    #[test]
    fn sequence_gaps_duplicates_and_disorder() {
        let text = "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":5}\n{\"seq\":5}\n{\"seq\":3}\n{\"seq\":7}\n";
        let got = gaps(text, DEFAULT_CAP);
        let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            codes,
            [
                (3, Code::SeqGap),
                (4, Code::SeqDuplicate),
                (5, Code::SeqOutOfOrder),
                (6, Code::SeqGap)
            ]
        );
        assert!(got[0].2.contains("missing 3-4"), "{got:?}");
        assert!(got[3].2.contains("missing 6"), "{got:?}");
    }

    #[test]
    fn rpc_ids_are_values_and_the_cap_drops_the_oldest() {
        let text = "{\"id\":1,\"method\":\"a\"}\n{\"id\":\"1\",\"result\":{}}\n{\"id\":2,\"method\":\"b\"}\n{\"id\":3,\"method\":\"c\"}\n";
        let got = gaps(text, 2);
        let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            codes,
            [
                (2, Code::RpcUnmatchedResponse),
                (4, Code::RpcUnanswered),
                (3, Code::RpcUnanswered),
                (4, Code::RpcUnanswered),
            ]
        );
        assert!(got
            .iter()
            .any(|(_, _, m)| m.contains("more than 2 open requests")));
    }

    /// Once the uuid set is full (reported once, as info), later parents are not checked
    /// and later uuids not kept: a parent that would be a broken chain below the cap is
    /// not one after it, and the cap is never reported twice.
    #[test]
    fn a_full_uuid_set_reports_once_and_checks_no_more_parents() {
        let log = |uuid: &str, parent: &str| {
            format!(
                "{{\"parentUuid\":{parent},\"isSidechain\":false,\"sessionId\":\"s\",\
                 \"type\":\"user\",\"uuid\":\"{uuid}\",\"timestamp\":\"t\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"x\"}}}}\n"
            )
        };
        let mut text = log("a", "null");
        text += &log("b", "\"gone\""); // line 2: broken chain, below the cap
        text += &log("c", "\"b\""); // line 3: the third uuid fills the set of 2
        text += &log("d", "\"gone\""); // not checked any more
        text += &log("e", "\"a\"");
        let found = gaps(&text, 2);
        let codes: Vec<(u64, Code)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(codes, [(2, Code::SeqGap), (3, Code::SeqGap)], "{found:?}");
        assert!(found[0].2.contains("broken chain"), "{found:?}");
        assert!(found[1].2.contains("uuids"), "{found:?}");
    }
}
