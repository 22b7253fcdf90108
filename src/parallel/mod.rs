//! Batch mode: every input of a run on one pool of worker threads, with output in input
//! order.
//!
//! One pool serves the whole run: the calling thread spawns `threads` workers once and hands
//! them work units from every input. A small regular file (up to [`WHOLE_FILE_BYTES`]), or
//! a medium one (up to [`MEDIUM_FILE_BYTES`]) that another input follows, is one unit: a
//! worker opens it, reads it whole into a buffer of its own that is reused and sized to the
//! data, and runs a whole [`Pipeline`] pass over it (dialect detection included) into its
//! shard of the consumer. A larger regular file (or a medium one that is the last input)
//! whose dialect its head tells is cut into ranges of about [`BLOCK_BYTES`] ending at line ends: the calling thread
//! only reads around each cut, and each worker reads its range itself, so the records are
//! copied once, by the thread that parses them, while it runs (a [`LineChain`] gives each
//! range its first line number). Anything else (a compressed file, stdin, a pipe named on
//! the command line) is read by the calling thread: its first records one at a time until
//! the dialect is known, then, when the consumer allows it for that dialect, cut into blocks
//! at line boundaries and handed to the workers. Each worker's shard collects the output of
//! one unit in memory (a *part*); the calling thread merges the parts in unit order.
//! Records, diagnostics and errors come out exactly as a one-thread pass gives them,
//! whatever the thread count.
//!
//! What a record means can depend on the records before it in the same input: through the
//! dialect (decided on an input's first records), and for some consumers through more
//! (Codex items inherit their thread, events carry a session, gap trackers remember what was
//! opened). A whole-file unit sees its input from the first record to the last, so every
//! consumer may read small files in parallel; only blocks of one input need
//! [`Parallel::batchable`]. A line longer than a few blocks ends batching for the rest of
//! its input, which is then read one record at a time so memory stays bounded by
//! `--max-line-bytes`.

use crate::dialect::Dialect;
use crate::error::Error;
use crate::framing::{Frame, FrameKind};
use crate::input::{self, Source};
use crate::pipeline::{Consumer, Flow, Pipeline};
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};

mod merge;
mod pipeline;
mod pool;
mod ranges;
#[cfg(test)]
mod tests;
mod worker;

use merge::*;
use pool::*;
use ranges::*;
use worker::*;

/// Bytes per block handed to a worker.
pub const BLOCK_BYTES: usize = 1 << 20;
/// Small files are sent to the workers in batches of up to this many bytes (each batch is
/// one part to merge: at 1 MiB, `stats` on a tree of 140 KB files ran 2.5% slower; the
/// last batch is what one worker may still be reading when the other is done)...
const BATCH_BYTES: usize = 2 << 20;
/// ... and this many files.
const BATCH_FILES: usize = 64;
/// A partial line longer than this ends batching for the rest of the input.
const MAX_CARRY: usize = 4 * BLOCK_BYTES;
/// Files up to this size whose records cannot be cut into blocks are one unit too, read by
/// a worker through the framer, when the consumer's parts are small ([`Parallel::small_parts`]).
const WHOLE_STREAM_BYTES: u64 = 64 << 20;
/// How much of a file's head is read to tell its dialect before choosing how to read it.
const PEEK_BYTES: usize = 64 << 10;
/// At most this much of a block's end is run again before the next block, as its warm-up.
const WARM_BYTES: usize = 64 << 10;
/// How far before a range's warm-up a worker looks for the line its consumer's
/// [`Parallel::warm_anchor`] marks.
const ANCHOR_BYTES: usize = 1 << 20;
/// Regular files up to this size are one work unit, read whole by a worker.
pub const WHOLE_FILE_BYTES: u64 = 1 << 20;
/// Regular files up to this size are one work unit too (read whole up to
/// [`WHOLE_READ_LIMIT`], then through the framer) when another input follows them: in a
/// tree, the cuts, hand-overs and merges of a few ranges cost the calling thread more than
/// the workers lose by taking a file each (docs/PERFORMANCE.md, "Medium files"). The last
/// input is cut into ranges, so one file alone, or a tree's last, is still read by every
/// worker.
const MEDIUM_FILE_BYTES: u64 = 4 << 20;
/// A whole-file unit reads at most this much into memory in one go (a worker's buffer
/// grows to it); the rest of a file read whole (a medium one, one that grew since it was
/// listed, a stream of [`WHOLE_STREAM_BYTES`]) is read on through the framer. Reading a
/// medium file in one go instead, into a buffer of up to 4 MiB, was 1.5-4.5% slower on the
/// trees of 1-4 MB files: the bytes were out of the core's cache by the time they were
/// parsed, and the larger buffers were fresh pages.
const WHOLE_READ_LIMIT: u64 = WHOLE_FILE_BYTES;

/// Output buffers of merged parts, handed back to the shards that fill the next ones. A
/// fresh buffer per part is fresh pages, faulted in (and copied each time it grows) part
/// after part, and whether glibc's heuristics let that happen changed from build to build:
/// `events` on a tree of 3,000 files once took twice as long (docs/PERFORMANCE.md, "Output
/// buffers handed back to the workers").
///
/// Kept buffers are bounded in number and in bytes together: a buffer keeps the room of
/// the largest part it held, so a count alone would let a few large parts (a 4 MiB medium
/// file's events) pin their room for the rest of the run.
#[derive(Debug, Clone, Default)]
pub struct SpareBuffers(Arc<Mutex<Spare>>);

#[derive(Debug, Default)]
struct Spare {
    buffers: Vec<Vec<u8>>,
    /// The capacity of `buffers`, summed.
    bytes: usize,
}

impl SpareBuffers {
    /// How many are kept: one per unit in flight is plenty.
    const KEPT: usize = 16;
    /// How many bytes of room they may hold together: eight batches' worth.
    const KEPT_BYTES: usize = 8 * BATCH_BYTES;

    /// A buffer for a shard's next part: a spare one, else a new one of `capacity` (the
    /// next part is about as large as the last).
    pub fn next(&self, capacity: usize) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut spare| {
                let buf = spare.buffers.pop()?;
                spare.bytes -= buf.capacity();
                Some(buf)
            })
            .unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    /// Gives back the buffer of a part just merged (dropped when the spares are full).
    pub fn give(&self, mut buf: Vec<u8>) {
        if let Ok(mut spare) = self.0.lock() {
            let bytes = spare.bytes + buf.capacity();
            if spare.buffers.len() < Self::KEPT && bytes <= Self::KEPT_BYTES {
                buf.clear();
                spare.bytes = bytes;
                spare.buffers.push(buf);
            }
        }
    }
}

/// A consumer that can be split across worker threads.
pub trait Parallel: Consumer {
    /// A copy of the consumer that collects its output in memory.
    type Shard: Consumer + Send;
    /// What a shard collected from one unit.
    type Part: Send;

    /// Whether an input of this dialect can be cut into blocks: its records must not
    /// depend on records before them beyond the dialect (Codex items inherit their thread
    /// from `thread.started`, for one). Whole small files are read in parallel whatever
    /// this says.
    fn batchable(&self, _dialect: Option<Dialect>) -> bool {
        true
    }

    /// Whether a part holds what the records add up to rather than output that grows with
    /// them (stats, gap findings): then a large file that cannot be cut into blocks is read
    /// whole by a worker instead of by the calling thread with the pool idle.
    fn small_parts(&self) -> bool {
        false
    }

    /// Whether blocks are read with a warm-up, for a consumer whose records take context
    /// from the records before them (events: the session, a usage snapshot held until its
    /// message ends). A worker runs the last lines of the block before first (their output
    /// dropped, [`Parallel::end_warm_up`]) to rebuild that context as a guess; when the part
    /// is merged, [`Parallel::fits`] checks the guess against the consumer's actual context.
    /// A block whose guess was wrong is read again, in order, by the calling thread, so the
    /// output is always that of one pass.
    fn warm_up(&self) -> bool {
        false
    }

    /// For a warm-up consumer, bytes that mark the one record before the warm-up that the
    /// context may still hold, for an input of `dialect` read in ranges (events: a Claude
    /// `"assistant"` record, whose usage is held until the next message or `result`, across
    /// tool results that can be longer than the warm-up). When the warm-up's lines do not
    /// hold the mark, the worker looks up to [`ANCHOR_BYTES`] further back for the last line
    /// that does and runs it first, at its own line number. It only makes the guess right
    /// more often: the guess is checked as any.
    fn warm_anchor(&self, _dialect: Option<Dialect>) -> Option<&'static [u8]> {
        None
    }

    /// A shard starts a block of a warm-up consumer: it forgets the context it had.
    fn start_block(_shard: &mut Self::Shard) {}

    /// A shard's warm-up is over: what it wrote is dropped, its context kept as the guess.
    fn end_warm_up(_shard: &mut Self::Shard) {}

    /// Whether `part` was made from the context the consumer has now (always, for a part
    /// made without a guess).
    fn fits(&self, _part: &Self::Part) -> bool {
        true
    }

    fn shard(&self) -> Self::Shard;
    fn take(shard: &mut Self::Shard) -> Self::Part;
    /// Adds a unit's part, in input order. A whole file's part holds its whole input (the
    /// shard saw `begin_input` and `end_input`); a block's part is a run of records of the
    /// input the consumer itself was told about.
    fn merge(&mut self, part: Self::Part) -> io::Result<Flow>;
}

/// An input the calling thread reads: its display name, a (decompressing) reader, and
/// whether it may be cut into blocks (a regular file, not a pipe).
pub struct Opened<'a> {
    pub name: Arc<str>,
    pub reader: Box<dyn Read + 'a>,
    pub blocks: bool,
}

impl std::fmt::Debug for Opened<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("name", &self.name)
            .field("blocks", &self.blocks)
            .finish_non_exhaustive()
    }
}

/// A consumer that takes records and keeps nothing (reading a file's head for its dialect).
struct Ignore;

impl Consumer for Ignore {
    fn record(&mut self, _record: &crate::pipeline::Record<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// What a worker is asked to do.
enum Work {
    /// Records of an input the calling thread is reading, whose dialect is known:
    /// `bytes[warm..len]`, the first being line `line + 1` at `offset`, after a warm-up of
    /// `bytes[..warm]` when `speculate`.
    Block {
        seq: u64,
        file: Arc<str>,
        dialect: Option<Dialect>,
        bytes: Vec<u8>,
        warm: usize,
        len: usize,
        line: u64,
        offset: u64,
        speculate: bool,
    },
    /// Small regular files, each read whole, in order.
    Files { seq: u64, files: Vec<WholeFile> },
    /// `len` bytes of a large regular file from `start`, whole lines, which the worker reads
    /// itself: into `bytes` (a buffer to reuse, handed back for the merge) or, when that is
    /// `None`, into a buffer of its own. Range `index` of the file, whose first line number
    /// `lines` tells once the ranges before it are counted.
    Range {
        seq: u64,
        file: Arc<str>,
        handle: Arc<std::fs::File>,
        start: u64,
        len: usize,
        index: u64,
        lines: Arc<LineChain>,
        dialect: Option<Dialect>,
        bytes: Option<Vec<u8>>,
        /// Run the last lines before the range first, as a warm-up
        /// ([`Parallel::warm_up`]).
        speculate: bool,
        /// The consumer's [`Parallel::warm_anchor`] for this input.
        anchor: Option<&'static [u8]>,
    },
}

/// A regular file a worker reads whole: its display name, path and listed size.
struct WholeFile {
    file: Arc<str>,
    path: PathBuf,
    /// Its folder, to open it by name in ([`input::Folder`]).
    dir: Option<Arc<std::os::fd::OwnedFd>>,
    size: u64,
}

impl WholeFile {
    /// The bytes a worker holds for it, for the in-flight limit: what is read whole, and
    /// then a framer's buffer; a part (`filter`'s records, `events`) can be as large as
    /// the file, so a medium file counts whole.
    fn held(&self) -> usize {
        self.size.min(MEDIUM_FILE_BYTES) as usize
    }
}

/// Small files waiting to be sent to the workers as one unit, so a tree of thousands of
/// files costs hundreds of hand-overs and merges, not thousands.
#[derive(Default)]
struct Batch {
    files: Vec<WholeFile>,
    held: usize,
}

/// One unit's result, merged in its place.
enum Slot<T> {
    /// A block's part, with what it takes to read the block again when the part's guessed
    /// context was wrong.
    Block {
        part: io::Result<T>,
        bytes: Vec<u8>,
        file: Arc<str>,
        dialect: Option<Dialect>,
        warm: usize,
        len: usize,
        line: u64,
        offset: u64,
        /// The error that ended reading a range: the rest of its input is not read.
        failed: Option<Error>,
        /// The range read short, without an error: the file shrank while it was read
        /// (logrotate's copytruncate). Its input ends there, as for a reader going through
        /// it in order: later ranges, which may have been read before the file shrank, are
        /// dropped, so every `-j` sees the same prefix, and a line the cut fell in is the
        /// input's unterminated last line (`PROTO_TRUNCATED` when it opens a value).
        shrunk: bool,
    },
    /// A whole file's part (or that of several files in a row), then the error that ended
    /// the last one's reading (reported after it).
    Part(io::Result<T>, Option<Error>),
    /// What a batch of small files gave, in order.
    Batch(Vec<Slot<T>>),
    /// The start of an input cut into blocks from its first record.
    Begin(Arc<str>),
    /// The end of an input the calling thread read in blocks.
    End(Arc<str>, Option<Dialect>),
    /// An error reported in its place (an input that could not be opened or listed).
    Failed(Error),
}

struct Done<T> {
    seq: u64,
    slot: Slot<T>,
    /// The bytes of input the unit held, for the in-flight limit.
    held: usize,
}
