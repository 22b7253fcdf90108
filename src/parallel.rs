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

    /// Whether [`Parallel::merge_block`] reads the block's bytes. When it does not, a worker
    /// reads the ranges of a large file into a buffer of its own, which stays in its core's
    /// cache, rather than into one handed back to the calling thread for the merge.
    fn merge_reads_block(&self) -> bool {
        false
    }

    /// Adds a block's part: `block` holds the block's records, the first at byte `offset`
    /// of the input (gap findings, found while merging, point into it). Empty for a range a
    /// worker read into its own buffer: unless [`Parallel::merge_reads_block`] or
    /// [`Parallel::warm_up`] (whose wrong guesses are read again from the block).
    fn merge_block(&mut self, part: Self::Part, _block: &[u8], _offset: u64) -> io::Result<Flow> {
        self.merge(part)
    }
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

impl Pipeline {
    /// Reads every source into `consumer` on a pool of `threads` workers (see the module
    /// documentation). `open` opens what the calling thread reads; `report` is told, in
    /// input order, of each input that could not be opened or read (reading goes on with the
    /// next). Only a consumer's error ends the run early ([`Error::Write`]).
    pub fn run_pooled<'a, P: Parallel>(
        &mut self,
        sources: impl Iterator<Item = Result<Source, Error>>,
        consumer: &mut P,
        threads: usize,
        open: &mut dyn FnMut(&Source) -> Result<Opened<'a>, Error>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let threads = threads.max(1);
        let options = self.options().clone();
        std::thread::scope(|scope| -> Result<(), Error> {
            // Room for every unit in flight: the calling thread blocks only in `receive`.
            let (work_tx, work_rx) = sync_channel::<Work>(threads * 8);
            let work_rx = Arc::new(Mutex::new(work_rx));
            let (done_tx, done_rx) = channel::<Done<P::Part>>();
            for started in 0..threads {
                let work_rx = Arc::clone(&work_rx);
                let done_tx = done_tx.clone();
                let shard = consumer.shard();
                let pipeline = Pipeline::new(options.clone());
                let spawned = std::thread::Builder::new()
                    .name("ndjq-worker".to_string())
                    .spawn_scoped(scope, move || {
                        work::<P>(pipeline, shard, &work_rx, &done_tx)
                    });
                // The system refused a thread (a process limit): an error, not a panic. The
                // workers already started end when the channel they wait on is dropped.
                if let Err(e) = spawned {
                    return Err(Error::Threads {
                        asked: threads,
                        started,
                        source: e,
                    });
                }
            }
            drop(done_tx);
            let mut pool = Pool {
                work: work_tx,
                done: done_rx,
                merger: Merger {
                    next: 0,
                    waiting: BTreeMap::new(),
                    free: Vec::new(),
                    stopped: false,
                    held: 0,
                    failed: None,
                },
                sent: 0,
                max_units: threads * 8,
                max_held: (threads + 2) * BLOCK_BYTES,
                max_listed: threads * 8 * BLOCK_BYTES,
            };
            let mut batch = Batch::default();
            let mut folder = input::Folder::default();
            let mut sources = sources.peekable();
            while let Some(source) = sources.next() {
                if pool.merger.stopped {
                    break;
                }
                let source = match source {
                    Ok(s) => s,
                    Err(e) => {
                        pool.send_batch(&mut batch, self, consumer, report)?;
                        pool.local(Slot::Failed(e), self, consumer, report)?;
                        continue;
                    }
                };
                let source = &source;
                // The size of a regular file, with the handle of its folder to open it by
                // name in; a pipe or device named on the command line is read by this
                // thread, one record at a time.
                let (size, dir) = match source {
                    Source::File(path) => match folder.regular_file(path) {
                        Some((size, dir)) => (Some(size), dir),
                        None => (None, None),
                    },
                    _ => (None, None),
                };
                if let (Source::File(path), Some(_)) = (source, size) {
                    let whole = size.is_some_and(|n| {
                        n <= WHOLE_FILE_BYTES
                            || (n <= MEDIUM_FILE_BYTES && sources.peek().is_some())
                            || (n <= WHOLE_STREAM_BYTES
                                && consumer.small_parts()
                                && !consumer.batchable(self.peek_dialect(path)))
                    });
                    if let (true, Some(size)) = (whole, size) {
                        let unit = WholeFile {
                            file: source.display_name(),
                            path: path.clone(),
                            dir,
                            size,
                        };
                        if batch.held + unit.held() > BATCH_BYTES {
                            pool.send_batch(&mut batch, self, consumer, report)?;
                        }
                        batch.held += unit.held();
                        batch.files.push(unit);
                        if batch.files.len() >= BATCH_FILES {
                            pool.send_batch(&mut batch, self, consumer, report)?;
                        }
                        continue;
                    }
                }
                pool.send_batch(&mut batch, self, consumer, report)?;
                if let (Source::File(path), Some(_)) = (source, size) {
                    if let Some(dialect) = self.blocks_from_start(path, consumer) {
                        match input::open_in(dir.as_deref(), path) {
                            Ok(handle) => {
                                let name = source.display_name();
                                pool.local(Slot::Begin(Arc::clone(&name)), self, consumer, report)?;
                                self.send_ranges(
                                    &name, handle, dialect, consumer, &mut pool, report,
                                )?;
                            }
                            Err(e) => pool.local(Slot::Failed(e), self, consumer, report)?,
                        }
                        continue;
                    }
                }
                // Records go straight to the consumer: everything before them first.
                pool.drain(self, consumer, report)?;
                match open(source) {
                    Ok(opened) => self.read_input(opened, consumer, &mut pool, report)?,
                    Err(e) => report(&e),
                }
            }
            pool.send_batch(&mut batch, self, consumer, report)?;
            pool.drain(self, consumer, report)
        })
    }

    /// The dialect of a file as its first records tell it (the forced one, if any), read
    /// from its head; `None` when the head does not tell (or is compressed).
    fn peek_dialect(&mut self, path: &std::path::Path) -> Option<Dialect> {
        match self.options().dialect {
            Some(forced) => Some(forced),
            None => self.detect_in(&read_head(path)?),
        }
    }

    /// The dialect the whole lines of `head` tell, as a one-thread pass detects it.
    fn detect_in(&mut self, head: &[u8]) -> Option<Dialect> {
        let forced = self.options().dialect;
        let end = memchr::memrchr(b'\n', head).map_or(0, |i| i + 1);
        self.use_dialect(None);
        let name: Arc<str> = Arc::from("");
        let mut pos = 0;
        while pos < end && self.classifier().dialect().is_none() {
            let next = memchr::memchr(b'\n', &head[pos..end]).map_or(end, |i| pos + i + 1);
            let frame = Frame {
                bytes: &head[pos..next],
                line: 0,
                offset: 0,
                kind: FrameKind::Complete { terminated: true },
            };
            if self.process(&name, frame, &mut Ignore).is_err() {
                break;
            }
            pos = next;
        }
        let dialect = self.classifier().dialect();
        self.use_dialect(forced);
        dialect
    }

    /// The dialect of a large regular file whose every record, its first included, can go
    /// to the workers in blocks, so the pool never waits for the calling thread to read its
    /// head: the consumer takes blocks of that dialect, the head tells the dialect, and the
    /// file is neither compressed nor one pretty-printed document (nor read with
    /// `--recover`).
    fn blocks_from_start<P: Parallel>(
        &mut self,
        path: &std::path::Path,
        consumer: &P,
    ) -> Option<Dialect> {
        // Ranges are read with `pread`, which only Unix and Windows have.
        if self.options().recover || !cfg!(any(unix, windows)) {
            return None;
        }
        let head = read_head(path)?;
        let first_line = &head[..memchr::memchr(b'\n', &head).unwrap_or(head.len())];
        if input::is_compressed(&head) || crate::pipeline::first_line_opens_document(first_line) {
            return None;
        }
        let dialect = match self.options().dialect {
            Some(forced) => forced,
            None => self.detect_in(&head)?,
        };
        consumer.batchable(Some(dialect)).then_some(dialect)
    }

    /// Reads one input on the calling thread: its first records one at a time, the rest in
    /// blocks on the pool when it allows. The pool is drained.
    fn read_input<P: Parallel>(
        &mut self,
        opened: Opened<'_>,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let Opened {
            name,
            reader,
            blocks,
        } = opened;
        self.use_dialect(self.options().dialect);
        consumer.begin_input(&name).map_err(Error::Write)?;
        let framer = self.framer(reader);
        let result = match self.stream(&name, framer, consumer, true) {
            Ok((flow, None)) => Ok(flow),
            Ok((_, Some(framer))) if blocks && consumer.batchable(self.classifier().dialect()) => {
                let dialect = self.classifier().dialect();
                let (line, offset) = framer.position();
                let (carry, reader) = framer.into_parts();
                let start = Start {
                    line,
                    offset,
                    carry,
                };
                return self.send_blocks(&name, dialect, start, reader, consumer, pool, report);
            }
            Ok((_, Some(framer))) => self
                .stream(&name, framer, consumer, false)
                .map(|(flow, _)| flow),
            Err(e) => Err(e),
        };
        let dialect = self.classifier().dialect();
        consumer.end_input(&name, dialect).map_err(Error::Write)?;
        settle(result, pool, report)
    }

    /// Cuts the rest of an input into blocks for the workers, read as `dialect`. The input's
    /// end (and its read error, if any) is merged after its last block; the calling thread
    /// goes on meanwhile.
    #[allow(clippy::too_many_arguments)]
    fn send_blocks<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        dialect: Option<Dialect>,
        start: Start,
        mut reader: R,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let Start {
            mut line,
            mut offset,
            mut carry,
        } = start;
        let speculate = consumer.warm_up();
        // The last whole lines of the block before: the next block's warm-up.
        let mut warm: Vec<u8> = Vec::new();
        let mut eof = false;
        let mut read_error = None;
        let mut fallback = false;
        while !eof && !pool.merger.stopped {
            let mut bytes = pool.merger.free.pop().unwrap_or_default();
            let w = warm.len();
            if bytes.len() < w + carry.len() + BLOCK_BYTES {
                bytes.resize(w + carry.len() + BLOCK_BYTES, 0);
            }
            bytes[..w].copy_from_slice(&warm);
            bytes[w..w + carry.len()].copy_from_slice(&carry);
            let mut len = w + carry.len();
            // Always read a block past the carried partial line, or a long line would
            // never grow.
            let target = len + BLOCK_BYTES;
            carry.clear();
            while len < target && !eof {
                match reader.read(&mut bytes[len..]) {
                    Ok(0) => eof = true,
                    Ok(n) => len += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_error = Some(e);
                        eof = true;
                    }
                }
            }
            // At the end (or a read error) the last, unterminated line is a record too.
            let cut = if eof {
                len
            } else {
                memchr::memrchr(b'\n', &bytes[w..len]).map_or(w, |i| w + i + 1)
            };
            carry.extend_from_slice(&bytes[cut..len]);
            if cut == w {
                pool.merger.free.push(bytes);
                if read_error.is_some() {
                    break;
                }
                if carry.len() > MAX_CARRY {
                    fallback = true;
                    break;
                }
                continue;
            }
            let newlines = bytecount::count(&bytes[w..cut], b'\n') as u64;
            let lines = newlines + u64::from(bytes[cut - 1] != b'\n');
            warm.clear();
            if speculate {
                let from = cut.saturating_sub(WARM_BYTES).max(w);
                let start = if from == w {
                    w
                } else {
                    memchr::memchr(b'\n', &bytes[from..cut]).map_or(cut, |i| from + i + 1)
                };
                warm.extend_from_slice(&bytes[start..cut]);
            }
            let work = Work::Block {
                seq: pool.sent,
                file: Arc::clone(file),
                dialect,
                bytes,
                warm: w,
                len: cut,
                line,
                offset,
                speculate,
            };
            line += lines;
            offset += (cut - w) as u64;
            pool.send(work, cut, self, consumer, report)?;
        }
        if fallback && !pool.merger.stopped {
            // The rest one record at a time, straight to the consumer.
            pool.drain(self, consumer, report)?;
            let rest = io::Cursor::new(carry).chain(reader);
            return self.stream_rest(file, rest, (line, offset), dialect, consumer, pool, report);
        }
        pool.local(Slot::End(Arc::clone(file), dialect), self, consumer, report)?;
        if let Some(source) = read_error {
            let e = Error::Read {
                file: file.to_string(),
                line,
                offset: offset + carry.len() as u64,
                source,
            };
            pool.local(Slot::Failed(e), self, consumer, report)?;
        }
        Ok(())
    }

    /// Hands a large regular file to the workers as ranges of about [`BLOCK_BYTES`], each
    /// ending at a line's end, which the workers read themselves: this thread only reads
    /// around each cut to find the line's end, so it copies no records and the pool never
    /// waits for it. The file is read as `dialect` after its head block, which detects the
    /// dialect as a one-thread pass does. A line longer than [`MAX_CARRY`] (or a read error
    /// while looking for a cut) ends the ranges: the rest is read one record at a time.
    #[allow(clippy::too_many_arguments)]
    fn send_ranges<P: Parallel>(
        &mut self,
        file: &Arc<str>,
        handle: std::fs::File,
        dialect: Dialect,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let handle = Arc::new(handle);
        let lines = Arc::new(LineChain::default());
        let mut head = Some(self.options().dialect);
        let mut start = 0u64;
        let mut index = 0u64;
        let mut window = Vec::new();
        let mut long = false;
        while !pool.merger.stopped {
            let (end, last) = match next_cut(&handle, start, &mut window) {
                Cut::At(end) => (end, false),
                Cut::Last(end) => (end, true),
                Cut::Done => break,
                Cut::Long => {
                    long = true;
                    break;
                }
            };
            let len = (end - start) as usize;
            let work = Work::Range {
                seq: pool.sent,
                file: Arc::clone(file),
                handle: Arc::clone(&handle),
                start,
                len,
                index,
                lines: Arc::clone(&lines),
                dialect: head.take().unwrap_or(Some(dialect)),
                bytes: (consumer.merge_reads_block() || consumer.warm_up())
                    .then(|| pool.merger.free.pop().unwrap_or_default()),
                speculate: consumer.warm_up(),
                anchor: consumer.warm_anchor(Some(dialect)),
            };
            pool.send(work, len, self, consumer, report)?;
            start = end;
            index += 1;
            if last {
                break;
            }
        }
        if long && !pool.merger.stopped {
            // The rest one record at a time, straight to the consumer, once the ranges sent
            // so far are merged (and their lines counted).
            pool.drain(self, consumer, report)?;
            if !pool.merger.cut_short(file) {
                // This thread only peeked at the input: its classifier starts where the
                // ranges sent so far left off.
                self.use_dialect(head.unwrap_or(Some(dialect)));
                let rest = ReadAt {
                    handle: &handle,
                    offset: start,
                };
                let at = (lines.total(), start);
                return self.stream_rest(file, rest, at, Some(dialect), consumer, pool, report);
            }
        }
        pool.local(
            Slot::End(Arc::clone(file), Some(dialect)),
            self,
            consumer,
            report,
        )
    }

    /// Reads the rest of an input (`rest`, from line `at.0 + 1` at offset `at.1`) one record
    /// at a time, straight to the consumer, and ends the input: what a line too long for
    /// blocks leaves. Everything sent to the pool before it must be merged.
    #[allow(clippy::too_many_arguments)]
    fn stream_rest<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        rest: R,
        at: (u64, u64),
        dialect: Option<Dialect>,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let framer = self.framer(rest).starting_at(at.0, at.1);
        let result = self
            .stream(file, framer, consumer, false)
            .map(|(flow, _)| flow);
        consumer.end_input(file, dialect).map_err(Error::Write)?;
        settle(result, pool, report)
    }

    /// Runs the records of `bytes` (whole lines; the first is line `line + 1` at `offset`)
    /// into `consumer`.
    fn process_lines(
        &mut self,
        file: &Arc<str>,
        bytes: &[u8],
        mut line: u64,
        offset: u64,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        let max_line = self.options().max_line_bytes;
        let mut pos = 0;
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i + 1);
            let raw = &bytes[pos..end];
            let terminated = raw.last() == Some(&b'\n');
            let content_len = raw.len() - usize::from(terminated);
            line += 1;
            let kind = if content_len > max_line {
                FrameKind::Overlong
            } else {
                FrameKind::Complete { terminated }
            };
            let frame = Frame {
                bytes: raw,
                line,
                offset: offset + pos as u64,
                kind,
            };
            if self.process(file, frame, consumer)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
            pos = end;
        }
        Ok(Flow::Continue)
    }

    /// A whole small file into `shard`, as one input. `buf` is the worker's reused buffer.
    fn read_whole<S: Consumer>(
        &mut self,
        unit: &WholeFile,
        buf: &mut Vec<u8>,
        shard: &mut S,
    ) -> Whole {
        let (file, path, size) = (&unit.file, unit.path.as_path(), unit.size);
        let mut handle = match input::open_in(unit.dir.as_deref(), path) {
            Ok(f) => input::CutCheck::new(f),
            Err(e) => return Whole::Failed(e),
        };
        // Read with the size known, in one system call and a second that finds the end
        // (a growing read would take five for 140 KB); a byte past the listed size (or the
        // limit) shows a file that grew since it was listed. The buffer keeps its length,
        // so it is not zeroed again for every file, and the bytes start at `pad`
        // ([`align_pad`]).
        let want = size.min(WHOLE_READ_LIMIT) as usize + 1;
        if buf.len() < ALIGN + want {
            buf.reserve_exact(whole_buffer_room(buf.capacity(), ALIGN + want) - buf.len());
            buf.resize(ALIGN + want, 0);
        }
        let pad = align_pad(buf, 0);
        let mut n = 0;
        let mut read_error = None;
        while n < want {
            match handle.read(&mut buf[pad + n..pad + want]) {
                Ok(0) => break,
                // Exactly the listed size, and no byte more: the file is whole as listed,
                // so the read that would find its end (and the `fstat` behind it,
                // [`input::CutCheck`]) is not made. It would only tell of a change made
                // after this read, which a read a moment earlier would not have seen
                // either. Two system calls of the six a small file cost
                // (docs/PERFORMANCE.md, "Two system calls fewer per small file, and names
                // looked up in their folder").
                Ok(k) if n + k == size as usize && n + k < want => {
                    n += k;
                    break;
                }
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
        }
        let data = &buf[pad..pad + n];
        let compressed = input::is_compressed(data);
        self.use_dialect(self.options().dialect);
        let first_line = &data[..memchr::memchr(b'\n', data).unwrap_or(n)];
        let document =
            !self.options().recover && crate::pipeline::first_line_opens_document(first_line);
        if read_error.is_none() && n == want && !compressed && !document {
            // A medium file (or one grown since it was listed): its first lines from the
            // buffer, in place, the rest through the framer, numbered on from them.
            if let Some(cut) = memchr::memrchr(b'\n', data).map(|i| i + 1) {
                return self.read_on(file, data, cut, handle, shard);
            }
        }
        if read_error.is_none() && (compressed || document || n == want) {
            // Compressed, grown since it was listed, or one pretty-printed document (read
            // whole by the stream's reassembly): through the framer, as any input.
            let rest = io::Cursor::new(data).chain(handle);
            let reader = match input::decompress(rest) {
                Ok(r) => r,
                Err(source) => {
                    return Whole::Read(Some(Error::Read {
                        file: file.to_string(),
                        line: 0,
                        offset: 0,
                        source,
                    }))
                }
            };
            return match self.run(file, reader, shard) {
                Ok(_) => Whole::Read(None),
                Err(Error::Write(e)) => Whole::WriteFailed(e),
                Err(e) => Whole::Read(Some(e)),
            };
        }
        let processed = shard.begin_input(file).and_then(|()| {
            let flow = self.process_lines(file, data, 0, 0, shard);
            let dialect = self.classifier().dialect();
            shard.end_input(file, dialect).and(flow)
        });
        if let Err(e) = processed {
            return Whole::WriteFailed(e);
        }
        Whole::Read(read_error.map(|source| Error::Read {
            file: file.to_string(),
            line: bytecount::count(data, b'\n') as u64,
            offset: n as u64,
            source,
        }))
    }

    /// [`Pipeline::read_whole`] of a file longer than what was read of it: the whole lines
    /// of `data` (up to `cut`) are read in place, as a small file's are, and the rest
    /// (`data`'s partial last line, then the file) through a framer, as one input. Copying
    /// `data` into the framer's buffer first cost 2% of `filter` on a tree of 1-4 MB files.
    fn read_on<S: Consumer>(
        &mut self,
        file: &Arc<str>,
        data: &[u8],
        cut: usize,
        handle: input::CutCheck,
        shard: &mut S,
    ) -> Whole {
        let (whole_lines, rest) = data.split_at(cut);
        if let Err(e) = shard.begin_input(file) {
            return Whole::WriteFailed(e);
        }
        let flow = match self.process_lines(file, whole_lines, 0, 0, shard) {
            Ok(flow) => flow,
            Err(e) => return Whole::WriteFailed(e),
        };
        let mut failed = None;
        if flow == Flow::Continue {
            let lines = bytecount::count(whole_lines, b'\n') as u64;
            let reader = io::Cursor::new(rest).chain(handle);
            match self.run_part(file, reader, (lines, cut as u64), None, shard) {
                Ok(_) => {}
                Err(Error::Write(e)) => return Whole::WriteFailed(e),
                Err(e) => failed = Some(e),
            }
        }
        let dialect = self.classifier().dialect();
        match shard.end_input(file, dialect) {
            Ok(()) => Whole::Read(failed),
            Err(e) => Whole::WriteFailed(e),
        }
    }
}

/// The first [`PEEK_BYTES`] of a file.
fn read_head(path: &std::path::Path) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(PEEK_BYTES);
    let file = std::fs::File::open(path).ok()?;
    file.take(PEEK_BYTES as u64).read_to_end(&mut head).ok()?;
    Some(head)
}

/// Where [`Pipeline::send_blocks`] starts: the line and offset of the first record, and
/// the partial line already read.
struct Start {
    line: u64,
    offset: u64,
    carry: Vec<u8>,
}

/// Where the range starting at `start` of a file the workers read ends.
enum Cut {
    /// At this offset, just past a line's end.
    At(u64),
    /// At the end of the file: the last range.
    Last(u64),
    /// Nothing is left past `start`.
    Done,
    /// The line holding the range's last byte is longer than [`MAX_CARRY`], or reading
    /// around the cut failed: the rest is read one record at a time.
    Long,
}

/// How much is read at a time when looking for a range's cut: lines are mostly short.
const CUT_WINDOW: usize = 16 << 10;

/// Finds the end of the range starting at `start`: the end of the line holding its
/// [`BLOCK_BYTES`]th byte, or when that line goes on past what one read around that byte
/// shows (a tool result of a megabyte), the end of the line before it, so that this thread
/// does not read through a long line (the next range starts with it); or the end of the
/// file. Reads only around the cut, into `window`.
fn next_cut(handle: &std::fs::File, start: u64, window: &mut Vec<u8>) -> Cut {
    let from = start + BLOCK_BYTES as u64 - 1;
    // One read from `CUT_WINDOW` before `from` to `CUT_WINDOW` after it.
    let back = (CUT_WINDOW as u64).min(from - start) as usize;
    let lo = from - back as u64;
    window.resize(back + CUT_WINDOW, 0);
    let n = match read_range(handle, lo, window) {
        (n, None) => n,
        (_, Some(_)) => return Cut::Long,
    };
    if n <= back {
        // The file ends before the block would: the rest of it is the last range.
        let end = match (n, handle.metadata()) {
            (0, Ok(m)) => m.len(),
            (0, Err(_)) => return Cut::Long,
            _ => lo + n as u64,
        };
        return if end > start {
            Cut::Last(end)
        } else {
            Cut::Done
        };
    }
    if let Some(i) = memchr::memchr(b'\n', &window[back..n]) {
        return Cut::At(from + i as u64 + 1);
    }
    if n < window.len() {
        // The file ends within the line.
        return Cut::Last(lo + n as u64);
    }
    if let Some(i) = memchr::memrchr(b'\n', &window[..back]) {
        return Cut::At(lo + i as u64 + 1);
    }
    // One line from before the window to past it: read on to its end.
    let mut at = lo + n as u64;
    loop {
        window.resize(4 * CUT_WINDOW, 0);
        match read_at(handle, window, at) {
            Ok(0) => return Cut::Last(at),
            Ok(n) => {
                if let Some(i) = memchr::memchr(b'\n', &window[..n]) {
                    return Cut::At(at + i as u64 + 1);
                }
                at += n as u64;
                if at - from > MAX_CARRY as u64 {
                    return Cut::Long;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Cut::Long,
        }
    }
}

/// The alignment [`align_pad`] gives a read's destination against its file offset.
const ALIGN: usize = 64;

/// The room a worker's whole-file buffer of `capacity` grows to when a file needs `need`
/// bytes of it: doubled, as a `Vec` grows, but never past what the largest small file
/// needs. A buffer past that is dropped after its file (in [`work`]); a doubled one would
/// be, and then grown again from nothing for the next large file, its pages faulted in and
/// zeroed each time (docs/PERFORMANCE.md, "Whole-file buffers grow to the limit, not past
/// it").
fn whole_buffer_room(capacity: usize, need: usize) -> usize {
    capacity
        .saturating_mul(2)
        .clamp(need, WHOLE_BUFFER_ROOM.max(need))
}

/// The room of a worker's whole-file buffer that holds the largest small file (with its
/// alignment and the one byte past the listed size): the most [`work`] keeps.
const WHOLE_BUFFER_ROOM: usize = ALIGN + WHOLE_READ_LIMIT as usize + 1;

/// Where in `buf` to start the bytes read from `offset` of a file: there, the address and
/// the offset agree modulo [`ALIGN`]. The kernel copies a read out of the page cache a
/// page at a time, and that copy runs about half again as long when the destination is
/// just past the source modulo 4 KiB (store-to-load aliasing), which is what a large
/// buffer from the allocator (its data 16 bytes into a page) and a read from a page
/// boundary give: every whole file, every file's first range. Measured in
/// docs/PERFORMANCE.md. `buf` must have [`ALIGN`] bytes to spare.
fn align_pad(buf: &[u8], offset: u64) -> usize {
    (offset as usize).wrapping_sub(buf.as_ptr() as usize) % ALIGN
}

/// Reads `buf.len()` bytes of `handle` from `offset`, or up to the end of the file: how many
/// were read, and the error that stopped the reading, if any.
fn read_range(handle: &std::fs::File, offset: u64, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match read_at(handle, &mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// A file read from `offset` on, without moving its position.
struct ReadAt<'a> {
    handle: &'a std::fs::File,
    offset: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(self.handle, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// Reads from `offset` without moving the file's position, so the workers read ranges of
/// one open file side by side.
#[cfg(unix)]
fn read_at(handle: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(handle, buf, offset)
}

#[cfg(windows)]
fn read_at(handle: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(handle, buf, offset)
}

/// Elsewhere no file is read in ranges ([`Pipeline::blocks_from_start`]).
#[cfg(not(any(unix, windows)))]
fn read_at(_handle: &std::fs::File, _buf: &mut [u8], _offset: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

/// The lines of a file whose ranges the workers read: each worker posts how many lines its
/// range holds and learns how many come before it. A range is taken by a worker only after
/// every range before it was (the work queue is in order), and its worker posts its count
/// before it waits, so the wait always ends.
#[derive(Default)]
struct LineChain {
    state: Mutex<Chain>,
    counted: Condvar,
}

#[derive(Default)]
struct Chain {
    /// The first range whose count is not yet known, and the lines before it.
    next: u64,
    lines: u64,
    /// Counts posted for ranges after `next`.
    ahead: BTreeMap<u64, u64>,
    /// The lines before each range now known, until its worker takes the figure.
    before: BTreeMap<u64, u64>,
}

impl LineChain {
    /// Posts that range `index` holds `count` lines and waits for the number of lines
    /// before it.
    fn lines_before(&self, index: u64, count: u64) -> u64 {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let chain = &mut *guard;
        chain.ahead.insert(index, count);
        let mut advanced = false;
        while let Some(count) = chain.ahead.remove(&chain.next) {
            chain.before.insert(chain.next, chain.lines);
            chain.lines += count;
            chain.next += 1;
            advanced = true;
        }
        if advanced {
            self.counted.notify_all();
        }
        loop {
            if let Some(lines) = guard.before.remove(&index) {
                return lines;
            }
            guard = self.counted.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The lines of every range counted so far.
    fn total(&self) -> u64 {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).lines
    }
}

/// How reading a whole file went.
enum Whole {
    /// Its records went to the shard, then maybe a read error ended it.
    Read(Option<Error>),
    /// It could not be opened.
    Failed(Error),
    /// The shard failed.
    WriteFailed(io::Error),
}

/// A worker: takes units until the calling thread hangs up.
fn work<P: Parallel>(
    mut pipeline: Pipeline,
    mut shard: P::Shard,
    work_rx: &Mutex<Receiver<Work>>,
    done_tx: &Sender<Done<P::Part>>,
) {
    let mut buf = Vec::new();
    // The worker's own buffer for ranges whose bytes the merge does not read.
    let mut own = Vec::new();
    // Where a worker looks back for a warm-up's anchor line.
    let mut back = Vec::new();
    loop {
        let job = match work_rx.lock() {
            Ok(rx) => match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
            Err(_) => return,
        };
        let done = match job {
            Work::Block {
                seq,
                file,
                dialect,
                bytes,
                warm,
                len,
                line,
                offset,
                speculate,
            } => {
                pipeline.use_dialect(dialect);
                let part = run_block::<P>(
                    &mut pipeline,
                    &mut shard,
                    &file,
                    speculate.then_some(&bytes[..warm]),
                    None,
                    &bytes[warm..len],
                    line,
                    offset,
                );
                Done {
                    seq,
                    slot: Slot::Block {
                        part,
                        bytes,
                        file,
                        dialect,
                        warm,
                        len,
                        line,
                        offset,
                        failed: None,
                        shrunk: false,
                    },
                    held: len,
                }
            }
            Work::Range {
                seq,
                file,
                handle,
                start,
                len,
                index,
                lines,
                dialect,
                bytes,
                speculate,
                anchor,
            } => {
                let handed = bytes.is_some();
                let mut bytes = bytes.unwrap_or_else(|| std::mem::take(&mut own));
                // A warm-up consumer's range is read after the last lines before it:
                // `bytes[from..at]` are those lines, `bytes[at..]` the range.
                let warm_start = if speculate {
                    start.saturating_sub(WARM_BYTES as u64)
                } else {
                    start
                };
                // `bytes[pad..]` holds what is read from `warm_start` on ([`align_pad`]):
                // `at` and `from` below count from there.
                let at = (start - warm_start) as usize;
                if bytes.len() < ALIGN + at + len {
                    bytes.resize(ALIGN + at + len, 0);
                }
                let pad = align_pad(&bytes, warm_start);
                let read_warm = read_range(&handle, warm_start, &mut bytes[pad..pad + at]);
                let (from, warm_read) = match read_warm {
                    // From the first whole line (the file's first line is whole).
                    (n, None) if n == at && warm_start > 0 => (
                        memchr::memchr(b'\n', &bytes[pad..pad + at]).map_or(at, |i| i + 1),
                        true,
                    ),
                    (n, None) if n == at => (0, true),
                    // No warm-up: the guess is an empty context, checked as any.
                    _ => (at, false),
                };
                let (from, at) = (pad + from, pad + at);
                // A warm-up without the anchor's mark (or without a whole line: the line
                // before the range is longer than the warm-up) looks further back.
                let anchor_line = match anchor {
                    Some(mark) if speculate && warm_read && start > 0 => {
                        let window = &bytes[from..at];
                        if memchr::memmem::find(window, mark).is_some() {
                            None
                        } else {
                            let line_start = warm_start + (from - pad) as u64;
                            find_anchor(&handle, line_start, mark, &mut back)
                        }
                    }
                    _ => None,
                };
                let (n, error) = read_range(&handle, start, &mut bytes[at..at + len]);
                let shrunk = error.is_none() && n < len;
                let range = &bytes[at..at + n];
                let count = bytecount::count(range, b'\n') as u64
                    + u64::from(n > 0 && range[n - 1] != b'\n');
                // Posted first, whatever happens next: later ranges wait for it.
                let line = lines.lines_before(index, count);
                pipeline.use_dialect(dialect);
                let part = run_block::<P>(
                    &mut pipeline,
                    &mut shard,
                    &file,
                    speculate.then_some(&bytes[from..at]),
                    anchor_line,
                    range,
                    line,
                    start,
                );
                // Read short: the file shrank since the range was cut.
                let error = error.or_else(|| {
                    shrunk.then(|| input::shrank(handle.metadata().map_or(0, |m| m.len())))
                });
                let failed = error.map(|source| Error::Read {
                    file: file.to_string(),
                    line: line + count,
                    offset: start + n as u64,
                    source,
                });
                let (warm, len_read) = if handed {
                    (at, at + n)
                } else {
                    own = bytes;
                    bytes = Vec::new();
                    (0, 0)
                };
                Done {
                    seq,
                    slot: Slot::Block {
                        part,
                        bytes,
                        file,
                        dialect,
                        warm,
                        len: len_read,
                        line,
                        offset: start,
                        failed,
                        shrunk,
                    },
                    held: len,
                }
            }
            Work::Files { seq, files } => {
                // One part for the files in a row that read cleanly; a part is cut where
                // an error has to be reported in its place.
                let mut slots = Vec::new();
                let mut pending = false;
                let mut held = 0;
                for unit in &files {
                    held += unit.held();
                    let whole = pipeline.read_whole(unit, &mut buf, &mut shard);
                    // A buffer grown for a large file is not kept beyond what small ones
                    // need.
                    if buf.capacity() > WHOLE_BUFFER_ROOM {
                        buf = Vec::new();
                    }
                    match whole {
                        Whole::Read(None) => pending = true,
                        Whole::Read(Some(e)) => {
                            slots.push(Slot::Part(Ok(P::take(&mut shard)), Some(e)));
                            pending = false;
                        }
                        Whole::Failed(e) => {
                            if pending {
                                slots.push(Slot::Part(Ok(P::take(&mut shard)), None));
                                pending = false;
                            }
                            slots.push(Slot::Failed(e));
                        }
                        Whole::WriteFailed(e) => {
                            // The run ends with this error.
                            P::take(&mut shard);
                            slots.push(Slot::Part(Err(e), None));
                            pending = false;
                            break;
                        }
                    }
                }
                if pending {
                    slots.push(Slot::Part(Ok(P::take(&mut shard)), None));
                }
                Done {
                    seq,
                    slot: Slot::Batch(slots),
                    held,
                }
            }
        };
        if done_tx.send(done).is_err() {
            return;
        }
    }
}

/// The line a warm-up runs first ([`Parallel::warm_anchor`]): `line`, then `lines_after`
/// lines, then the warm-up, which starts `bytes_before_warm` bytes after the line's start.
struct Anchor<'a> {
    line: &'a [u8],
    lines_after: u64,
    bytes_before_warm: u64,
}

/// Reads up to [`ANCHOR_BYTES`] of `handle` before `end` (the start of a warm-up, which
/// starts a line) into `back` and finds the last line there holding `mark`. `None` when
/// there is none, the read fails, or the line starts before what was read.
fn find_anchor<'a>(
    handle: &std::fs::File,
    end: u64,
    mark: &[u8],
    back: &'a mut Vec<u8>,
) -> Option<Anchor<'a>> {
    let begin = end.saturating_sub(ANCHOR_BYTES as u64);
    let len = (end - begin) as usize;
    if back.len() < len {
        back.resize(len, 0);
    }
    match read_range(handle, begin, &mut back[..len]) {
        (n, None) if n == len => {}
        _ => return None,
    }
    let region = &back[..len];
    let at = memchr::memmem::rfind(region, mark)?;
    let start = match memchr::memrchr(b'\n', &region[..at]) {
        Some(i) => i + 1,
        None if begin == 0 => 0,
        None => return None,
    };
    let end = at + memchr::memchr(b'\n', &region[at..])? + 1;
    Some(Anchor {
        line: &region[start..end],
        lines_after: bytecount::count(&region[end..], b'\n') as u64,
        bytes_before_warm: (len - start) as u64,
    })
}

/// A block's part: its records (`records`, the first being line `line + 1` at `offset`) run
/// into `shard`, after, for a warm-up consumer, the lines just before them (`warm`), whose
/// output is dropped and whose context is kept as the guess ([`Parallel::warm_up`]), and
/// before them their `anchor` line when there is one ([`Parallel::warm_anchor`]).
#[allow(clippy::too_many_arguments)]
fn run_block<P: Parallel>(
    pipeline: &mut Pipeline,
    shard: &mut P::Shard,
    file: &Arc<str>,
    warm: Option<&[u8]>,
    anchor: Option<Anchor<'_>>,
    records: &[u8],
    line: u64,
    offset: u64,
) -> io::Result<P::Part> {
    if let Some(warm) = warm {
        P::start_block(shard);
        let warm_lines = bytecount::count(warm, b'\n') as u64;
        let (at_line, at) = (line - warm_lines, offset - warm.len() as u64);
        if let Some(a) = anchor {
            // Always in the file before the warm-up, unless the file changed under us:
            // then no anchor, and the guess is checked as any.
            let before = at_line.checked_sub(a.lines_after + 1);
            if let (Some(before), Some(line_at)) = (before, at.checked_sub(a.bytes_before_warm)) {
                pipeline.process_lines(file, a.line, before, line_at, shard)?;
            }
        }
        pipeline.process_lines(file, warm, at_line, at, shard)?;
        P::end_warm_up(shard);
    }
    pipeline.process_lines(file, records, line, offset, shard)?;
    Ok(P::take(shard))
}

/// How an input read on the calling thread ends the run's part for it: a stop stops the
/// pool's merging, a write error ends the run, any other error is reported and the run
/// goes on with the next input.
fn settle<T>(
    result: Result<Flow, Error>,
    pool: &mut Pool<T>,
    report: &mut dyn FnMut(&Error),
) -> Result<(), Error> {
    match result {
        Ok(Flow::Continue) => Ok(()),
        Ok(Flow::Stop) => {
            pool.merger.stopped = true;
            Ok(())
        }
        Err(e @ Error::Write(_)) => Err(e),
        Err(e) => {
            report(&e);
            Ok(())
        }
    }
}

/// The calling thread's side of the pool: what it sent, and the merger.
struct Pool<T> {
    work: std::sync::mpsc::SyncSender<Work>,
    done: Receiver<Done<T>>,
    merger: Merger<T>,
    sent: u64,
    /// At most this many units, and this many bytes of input, are in flight: `max_held`
    /// of blocks the calling thread read (and of ranges read into buffers the merge gets
    /// back), `max_listed` of files and ranges the workers read into buffers of their own.
    /// Those are only queued until a worker takes them, so the queue is kept long enough
    /// that the workers do not run dry while this thread waits for a core: with both cores
    /// busy, it can wait a whole time slice after a unit is done (docs/PERFORMANCE.md).
    max_units: usize,
    max_held: usize,
    max_listed: usize,
}

impl<T> Pool<T> {
    /// Sends a unit to the workers, first merging what came back while too much is in
    /// flight.
    fn send<P: Parallel<Part = T>>(
        &mut self,
        work: Work,
        held: usize,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let max_held = match &work {
            Work::Block { .. } | Work::Range { bytes: Some(_), .. } => self.max_held,
            Work::Range { bytes: None, .. } | Work::Files { .. } => self.max_listed,
        };
        while self.merger.next < self.sent
            && ((self.sent - self.merger.next) as usize >= self.max_units
                || self.merger.held + held > max_held)
        {
            self.receive(pipeline, consumer, report)?;
        }
        self.merger.held += held;
        self.sent += 1;
        if self.work.send(work).is_err() {
            // The workers are gone (a panic): nothing more can be read.
            self.merger.stopped = true;
        }
        Ok(())
    }

    /// Sends the small files waiting in `batch` as one unit, if there are any.
    fn send_batch<P: Parallel<Part = T>>(
        &mut self,
        batch: &mut Batch,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        if batch.files.is_empty() {
            return Ok(());
        }
        let Batch { files, held } = std::mem::take(batch);
        let work = Work::Files {
            seq: self.sent,
            files,
        };
        self.send(work, held, pipeline, consumer, report)
    }

    /// A slot made by the calling thread, merged in its place.
    fn local<P: Parallel<Part = T>>(
        &mut self,
        slot: Slot<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let seq = self.sent;
        self.sent += 1;
        self.merger
            .accept(Done { seq, slot, held: 0 }, pipeline, consumer, report)
    }

    fn receive<P: Parallel<Part = T>>(
        &mut self,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        match self.done.recv() {
            Ok(done) => self.merger.accept(done, pipeline, consumer, report),
            Err(_) => {
                // Every worker is gone: what they held never comes.
                self.merger.next = self.sent;
                self.merger.stopped = true;
                Ok(())
            }
        }
    }

    /// Merges everything sent so far.
    fn drain<P: Parallel<Part = T>>(
        &mut self,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        while self.merger.next < self.sent {
            self.receive(pipeline, consumer, report)?;
        }
        Ok(())
    }
}

/// Puts the units' results back in input order.
struct Merger<T> {
    next: u64,
    waiting: BTreeMap<u64, Slot<T>>,
    free: Vec<Vec<u8>>,
    /// The consumer asked to stop: later parts are dropped, inputs' ends still told.
    stopped: bool,
    /// Bytes of input in flight.
    held: usize,
    /// An input whose reading a range's read error (or a range read short: the file shrank)
    /// ended, with that error: its later ranges are dropped, and the error is reported
    /// after its end.
    failed: Option<(Arc<str>, Option<Error>)>,
}

impl<T> Merger<T> {
    /// Whether a read error ended reading `file`'s ranges.
    fn cut_short(&self, file: &Arc<str>) -> bool {
        self.failed
            .as_ref()
            .is_some_and(|(f, _)| Arc::ptr_eq(f, file))
    }

    fn accept<P: Parallel<Part = T>>(
        &mut self,
        done: Done<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        self.held = self.held.saturating_sub(done.held);
        self.waiting.insert(done.seq, done.slot);
        while let Some(slot) = self.waiting.remove(&self.next) {
            self.next += 1;
            self.apply(slot, pipeline, consumer, report)?;
        }
        Ok(())
    }

    /// Merges one unit's result, the next in input order.
    fn apply<P: Parallel<Part = T>>(
        &mut self,
        slot: Slot<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        match slot {
            Slot::Batch(slots) => {
                for slot in slots {
                    self.apply(slot, pipeline, consumer, report)?;
                }
            }
            Slot::Begin(file) => consumer.begin_input(&file).map_err(Error::Write)?,
            Slot::End(file, dialect) => {
                consumer.end_input(&file, dialect).map_err(Error::Write)?;
                if self.cut_short(&file) {
                    if let Some((_, Some(e))) = self.failed.take() {
                        report(&e);
                    }
                }
            }
            Slot::Block { bytes, .. } if self.stopped => self.free.push(bytes),
            Slot::Block { bytes, file, .. } if self.cut_short(&file) => self.free.push(bytes),
            _ if self.stopped => {}
            Slot::Block {
                part,
                bytes,
                file,
                dialect,
                warm,
                len,
                line,
                offset,
                failed,
                shrunk,
            } => {
                let part = part.map_err(Error::Write)?;
                let flow = if consumer.fits(&part) {
                    consumer.merge_block(part, &bytes[warm..len], offset)
                } else {
                    // The guess was wrong: the records again, in order, as one pass.
                    drop(part);
                    pipeline.use_dialect(dialect);
                    pipeline.process_lines(&file, &bytes[warm..len], line, offset, consumer)
                };
                self.free.push(bytes);
                if flow.map_err(Error::Write)? == Flow::Stop {
                    self.stopped = true;
                }
                if failed.is_some() || shrunk {
                    self.failed = Some((file, failed));
                }
            }
            Slot::Part(part, error) => {
                let part = part.map_err(Error::Write)?;
                if consumer.merge(part).map_err(Error::Write)? == Flow::Stop {
                    self.stopped = true;
                }
                if let Some(e) = error {
                    report(&e);
                }
            }
            Slot::Failed(e) => report(&e),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The whole-file buffer doubles as it grows but stops at what the largest small
    /// file needs, so a buffer grown for a file near the limit is kept for the next one
    /// (`work` drops a buffer past that room).
    #[test]
    fn whole_file_buffer_grows_to_the_limit_not_past_it() {
        let most = WHOLE_BUFFER_ROOM;
        assert_eq!(whole_buffer_room(0, 5000), 5000, "at least what is needed");
        assert_eq!(whole_buffer_room(4096, 5000), 8192, "doubled");
        assert_eq!(whole_buffer_room(4096, 100_000), 100_000);
        // 700 KB then 900 KB: doubling would give 1.4 MB, past the room kept.
        assert_eq!(whole_buffer_room(700 << 10, 900 << 10), most);
        assert_eq!(whole_buffer_room(most - 1, most), most);
        assert!(whole_buffer_room(most, most) <= most);
    }

    /// A merged part's buffer comes back to the next part, emptied and with its room,
    /// and no more are kept than units can be in flight, nor more room than eight batches.
    #[test]
    fn spare_buffers_come_back_emptied_and_are_bounded() {
        let spare = SpareBuffers::default();
        let fresh = spare.next(1000);
        assert!(fresh.is_empty() && fresh.capacity() >= 1000);
        let mut used = Vec::with_capacity(1 << 20);
        used.extend_from_slice(b"merged part");
        let at = used.as_ptr();
        spare.clone().give(used);
        let again = spare.next(10);
        assert!(again.is_empty(), "emptied");
        assert_eq!(again.as_ptr(), at, "the same buffer");
        assert!(again.capacity() >= 1 << 20, "with its room");
        let kept = |spare: &SpareBuffers| {
            spare
                .0
                .lock()
                .map(|s| (s.buffers.len(), s.bytes))
                .unwrap_or_default()
        };
        for _ in 0..SpareBuffers::KEPT + 5 {
            spare.give(Vec::with_capacity(64));
        }
        assert_eq!(kept(&spare).0, SpareBuffers::KEPT);
        // Bounded in bytes too: large buffers beyond the room are let go.
        let large = SpareBuffers::default();
        for _ in 0..SpareBuffers::KEPT {
            large.give(Vec::with_capacity(3 * BATCH_BYTES));
        }
        let (count, bytes) = kept(&large);
        assert_eq!(count, SpareBuffers::KEPT_BYTES / (3 * BATCH_BYTES));
        assert!(bytes <= SpareBuffers::KEPT_BYTES);
        // Taking one frees its room for the next.
        let taken = large.next(0);
        assert_eq!(kept(&large).1, bytes - taken.capacity());
        large.give(taken);
        assert_eq!(kept(&large), (count, bytes));
    }

    /// Collects the line numbers and raw bytes of the records it is given.
    #[derive(Default)]
    struct Lines(Vec<(u64, Vec<u8>)>);

    impl Consumer for Lines {
        fn record(&mut self, r: &crate::pipeline::Record<'_>) -> io::Result<Flow> {
            self.0.push((r.line, r.raw.to_vec()));
            Ok(Flow::Continue)
        }
    }

    impl Parallel for Lines {
        type Shard = Lines;
        type Part = Vec<(u64, Vec<u8>)>;
        fn shard(&self) -> Lines {
            Lines::default()
        }
        fn take(shard: &mut Lines) -> Self::Part {
            std::mem::take(&mut shard.0)
        }
        fn merge(&mut self, part: Self::Part) -> io::Result<Flow> {
            self.0.extend(part);
            Ok(Flow::Continue)
        }
    }

    /// Issue 25 case 11: a file truncated after its ranges were cut (logrotate's
    /// copytruncate). The worker whose range reads short says so, its cut line is the
    /// input's unterminated last line, and the merge drops the ranges after it, which a
    /// worker may have read before the file shrank: every `-j` sees the same prefix.
    #[test]
    fn issue25_case11_a_range_read_short_ends_its_input_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.jsonl");
        let first = b"{\"n\":1}\n{\"n\":2}\n{\"n\":3,\"pad\":\"xxxxxxxx\"}\n";
        let second = b"{\"n\":4}\n";
        std::fs::write(&path, [&first[..], &second[..]].concat()).expect("write");
        let handle = Arc::new(std::fs::File::open(&path).expect("open"));
        let file: Arc<str> = Arc::from("log.jsonl");
        let lines = Arc::new(LineChain::default());
        let range = |index: u64, start: u64, len: usize| Work::Range {
            seq: index,
            file: Arc::clone(&file),
            handle: Arc::clone(&handle),
            start,
            len,
            index,
            lines: Arc::clone(&lines),
            dialect: None,
            bytes: Some(Vec::new()),
            speculate: false,
            anchor: None,
        };
        let (work_tx, work_rx) = sync_channel::<Work>(4);
        let (done_tx, done_rx) = channel::<Done<Vec<(u64, Vec<u8>)>>>();
        let work_rx = Mutex::new(work_rx);
        // The file shrinks after the ranges were cut, in the middle of line 3.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(first.len() as u64 - 10))
            .expect("truncate");
        work_tx.send(range(0, 0, first.len())).expect("send");
        drop(work_tx);
        work::<Lines>(
            Pipeline::new(crate::pipeline::Options::default()),
            Lines::default(),
            &work_rx,
            &done_tx,
        );
        let done = done_rx.recv().expect("a result");
        let Slot::Block { shrunk, .. } = &done.slot else {
            panic!("a range gives a block");
        };
        assert!(*shrunk, "the short read is seen");
        // The merge: the short range, then a range read before the file shrank.
        let later = Done {
            seq: 1,
            slot: Slot::Block {
                part: Ok(vec![(4, second.to_vec())]),
                bytes: Vec::new(),
                file: Arc::clone(&file),
                dialect: None,
                warm: 0,
                len: 0,
                line: 3,
                offset: first.len() as u64,
                failed: None,
                shrunk: false,
            },
            held: 0,
        };
        let mut merger = Merger {
            next: 0,
            waiting: BTreeMap::new(),
            free: Vec::new(),
            stopped: false,
            held: 0,
            failed: None,
        };
        let mut pipeline = Pipeline::new(crate::pipeline::Options::default());
        let mut all = Lines::default();
        let mut reported = Vec::new();
        let mut report = |e: &Error| reported.push(e.to_string());
        let end = Done {
            seq: 2,
            slot: Slot::End(Arc::clone(&file), None),
            held: 0,
        };
        for d in [done, later, end] {
            merger
                .accept(d, &mut pipeline, &mut all, &mut report)
                .expect("merged");
        }
        let seen: Vec<u64> = all.0.iter().map(|(l, _)| *l).collect();
        assert_eq!(seen, [1, 2, 3], "nothing after the cut");
        assert!(
            all.0[2].1.last() != Some(&b'\n'),
            "the cut line is unterminated"
        );
        // Reported after the input's end, as a read error.
        assert_eq!(reported.len(), 1, "{reported:?}");
        assert!(
            reported[0].starts_with("log.jsonl: read error after line 3 (byte ")
                && reported[0].contains("the file shrank to"),
            "{reported:?}"
        );
    }

    fn file_of(bytes: &[u8]) -> std::fs::File {
        let mut f = tempfile::tempfile().expect("temp file");
        f.write_all(bytes).expect("write");
        f
    }

    #[test]
    fn the_anchor_is_the_last_marked_line_before_the_warm_up_with_its_place() {
        let lines: [&[u8]; 5] = [
            b"{\"type\":\"assistant\",\"n\":1}\n",
            b"{\"type\":\"user\"}\n",
            b"{\"type\":\"assistant\",\"n\":2}\n",
            b"{\"type\":\"user\",\"long\":\"xxxxxxxx\"}\n",
            b"{\"type\":\"user\"}\n",
        ];
        let all = lines.concat();
        let f = file_of(&all);
        let mut back = Vec::new();
        // The warm-up starts at the fifth line: two lines after the second assistant line.
        let end = (all.len() - lines[4].len()) as u64;
        let a = find_anchor(&f, end, b"\"assistant\"", &mut back).expect("found");
        assert_eq!(a.line, lines[2]);
        assert_eq!(a.lines_after, 1);
        assert_eq!(
            a.bytes_before_warm,
            (lines[2].len() + lines[3].len()) as u64
        );
        // Before the second assistant line: the first, at the file's start.
        let end = (lines[0].len() + lines[1].len()) as u64;
        let a = find_anchor(&f, end, b"\"assistant\"", &mut back).expect("found");
        assert_eq!(a.line, lines[0]);
        assert_eq!(a.lines_after, 1);
        assert_eq!(a.bytes_before_warm, end);
        // No marked line before the warm-up.
        assert!(find_anchor(&f, end, b"\"result\"", &mut back).is_none());
        assert!(find_anchor(&f, 0, b"\"assistant\"", &mut back).is_none());
    }

    #[test]
    fn an_anchor_line_starting_before_what_is_read_is_not_taken() {
        // A marked line longer than the look-back: its start is not read, so its line
        // number cannot be known.
        let mut all = b"{\"type\":\"user\"}\n{\"type\":\"assistant\",\"text\":\"".to_vec();
        all.extend(std::iter::repeat_n(b'x', ANCHOR_BYTES));
        all.extend_from_slice(b"\"}\n");
        let f = file_of(&all);
        let mut back = Vec::new();
        assert!(find_anchor(&f, all.len() as u64, b"\"assistant\"", &mut back).is_none());
        // With its start in reach, it is found.
        let short = b"{\"type\":\"user\"}\n{\"type\":\"assistant\",\"text\":\"x\"}\n";
        let f = file_of(short);
        let a = find_anchor(&f, short.len() as u64, b"\"assistant\"", &mut back).expect("found");
        assert_eq!(a.line, &short[16..]);
        assert_eq!(a.lines_after, 0);
    }

    /// A line of `len` bytes with its newline.
    fn line(len: usize) -> Vec<u8> {
        let mut l = vec![b'x'; len - 1];
        l.push(b'\n');
        l
    }

    #[test]
    fn a_range_ends_after_the_line_at_its_size_or_before_a_long_one() {
        let mut window = Vec::new();
        // Lines of 1,000 bytes: the cut is after the line holding the block's last byte.
        let short: Vec<u8> = (0..2000).flat_map(|_| line(1000)).collect();
        let f = file_of(&short);
        let end = (BLOCK_BYTES / 1000 + 1) * 1000;
        assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == end as u64));
        // A 300 KB line from just before the block's end: the range ends before it, and
        // the next one holds it whole.
        let head = BLOCK_BYTES - 4000;
        let mut long = line(head);
        long.extend(line(300_000));
        long.extend((0..1000).flat_map(|_| line(1000)));
        let f = file_of(&long);
        assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == head as u64));
        let next = head as u64;
        match next_cut(&f, next, &mut window) {
            Cut::At(c) => assert!(c > next + 300_000, "{c}"),
            _ => panic!("a cut past the long line"),
        }
        // A line longer than the window on both sides of the block's end: read to its end.
        let mut huge = line(BLOCK_BYTES - 40_000);
        huge.extend(line(200_000));
        huge.extend(line(10));
        let f = file_of(&huge);
        let at = (BLOCK_BYTES - 40_000 + 200_000) as u64;
        assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == at));
        // The end of the file: within the block, within the line, or nothing left.
        let f = file_of(&line(5000));
        assert!(matches!(next_cut(&f, 0, &mut window), Cut::Last(5000)));
        assert!(matches!(next_cut(&f, 5000, &mut window), Cut::Done));
        let mut open = line(BLOCK_BYTES - 100);
        open.extend(vec![b'x'; 1000]);
        let f = file_of(&open);
        let len = open.len() as u64;
        assert!(matches!(next_cut(&f, 0, &mut window), Cut::Last(l) if l == len));
    }

    #[test]
    fn reads_land_where_address_and_offset_agree() {
        let buf = vec![0u8; 4096];
        for offset in [0u64, 1, 16, 63, 64, 4095, 1 << 20, 123_456_789] {
            let pad = align_pad(&buf, offset);
            assert!(pad < ALIGN);
            let addr = buf.as_ptr() as usize + pad;
            assert_eq!(addr % ALIGN, offset as usize % ALIGN, "{offset}");
        }
    }
}
