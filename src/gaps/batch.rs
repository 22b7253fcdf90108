//! Batch mode: what a block of records tells the trackers is taken on a worker
//! ([`GapTracker::collect`] into [`Facts`]: the operations, where each record is, the start
//! of each record for its excerpt) and applied in order on one thread when the block is
//! merged ([`GapTracker::replay`]), so the findings are those of one pass while the parsing
//! runs on every core.

use super::op::Op;
use super::tracked::Tracked;
use super::tracker::{tracked_value, trim_newline, At, GapTracker};
use super::SEQ_DETECTION_WINDOW;
use crate::capped::Key;
use crate::diagnostic::{Diagnostic, EXCERPT_CHARS};
use crate::pipeline::Record;
use std::sync::Arc;

/// How much of a record's start its findings' excerpt can show (`excerpt` from the first
/// byte reads at most four bytes a character, and one more byte tells whether there is
/// more): the facts of a block keep that much of each record, and the merge needs no more
/// of the block.
pub(super) const EXCERPT_BYTES: usize = EXCERPT_CHARS * 4 + 1;

/// The start of `raw` that `excerpt` (from the first byte) reads, and one byte more when
/// there is more, which it only tests for: [`EXCERPT_BYTES`] at most, and when the first
/// [`EXCERPT_CHARS`] bytes are ASCII (nearly every record), those and one more (each byte
/// one character, shown or escaped).
pub(super) fn excerpt_bytes(raw: &[u8]) -> &[u8] {
    let ascii = raw.get(..EXCERPT_CHARS).is_some_and(|b| b.is_ascii());
    let n = if ascii {
        EXCERPT_CHARS + 1
    } else {
        EXCERPT_BYTES
    };
    raw.get(..n).unwrap_or(raw)
}

#[derive(Debug, Default)]
pub struct Facts {
    records: Vec<FactRecord>,
    pub(super) ops: Vec<Op>,
    /// The operations' strings.
    pub(super) text: String,
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
    /// and copying as they grow was 2% of a worker's time on an agent's stream; see
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

    /// Takes in a record whose operations were pushed onto `ops` from `from` on: they are
    /// kept, but for those that change nothing ([`Facts::redundant`]), with where the record
    /// is and as much of its start (`raw`, without its line end) as its findings' excerpt
    /// shows, so the merge needs no block; a record left without any is only counted.
    pub(super) fn record(&mut self, from: usize, line: u64, offset: u64, raw: &[u8], mark: usize) {
        self.redundant(from);
        if self.ops.len() == from {
            self.skipped = self.skipped.saturating_add(1);
            return;
        }
        self.raw.extend_from_slice(excerpt_bytes(raw));
        // A block's records and output stay far below 4 GiB (a longer line ends batching).
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.records.push(FactRecord {
            line,
            offset,
            raw_end: small(self.raw.len()),
            ops_end: small(self.ops.len()),
            mark: small(mark),
            skipped: std::mem::take(&mut self.skipped),
        });
    }

    /// Leaves out of `ops[from..]`, a record's operations, those that change nothing after
    /// the ones before them. On a stream whose every message says that a session start
    /// should have come and that the session is open from here, that says nothing after the
    /// first record of a block: two of a record's three or four operations, which
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

impl GapTracker {
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
        facts.record(
            from,
            record.line,
            record.offset,
            trim_newline(record.raw),
            mark,
        );
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
            if set.len() > 4096 {
                set.touch(key);
            }
        }
        let lines = facts.records.iter().fold(0, |n, r| n ^ r.line);
        let text = facts.text.as_bytes().iter().step_by(64);
        std::hint::black_box((lines, text.fold(0, |n, b| n ^ b)));
        if [self.answered.len(), self.uuids.len(), self.requests.len()]
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
}
