//! Batch mode: the same pass over a file, on every core, with output in input order.
//!
//! The calling thread reads the input in large blocks cut at a line boundary, numbers
//! them, and hands them to worker threads; each worker runs its own [`Pipeline`] over its
//! block into a shard of the consumer (a copy that writes to memory); the calling thread
//! merges the shards' parts back in block order. Records and diagnostics come out exactly
//! as a one-thread pass would give them.
//!
//! What a record means can depend on the records before it only through the dialect,
//! which is decided on the input's first records: those are read one at a time, and
//! batching starts once the dialect is known. Consumers whose decisions carry state from
//! record to record (a `--max-count`, tool ids) do not use this mode. A line longer than a
//! few blocks ends batching for the rest of the input, which is then read one record at a
//! time so memory stays bounded by `--max-line-bytes`.

use crate::error::Error;
use crate::framing::{Frame, FrameKind, Framer};
use crate::pipeline::{Consumer, Flow, Pipeline};
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

/// Bytes per block handed to a worker.
pub const BLOCK_BYTES: usize = 1 << 20;
/// A partial line longer than this ends batching for the rest of the input.
const MAX_CARRY: usize = 4 * BLOCK_BYTES;

/// A consumer that can be split across worker threads.
pub trait Parallel: Consumer {
    /// A copy of the consumer that collects its output in memory.
    type Shard: Consumer + Send;
    /// What a shard collected from one block.
    type Part: Send;

    /// Whether an input of this dialect can be read in batches: its records must not
    /// depend on records before them beyond the dialect (Codex items inherit their thread
    /// from `thread.started`, for one).
    fn batchable(&self, _dialect: Option<crate::dialect::Dialect>) -> bool {
        true
    }

    fn shard(&self) -> Self::Shard;
    fn take(shard: &mut Self::Shard) -> Self::Part;
    /// Adds a block's part, in input order.
    fn merge(&mut self, part: Self::Part) -> io::Result<Flow>;
}

struct Job {
    seq: u64,
    bytes: Vec<u8>,
    len: usize,
    line: u64,
    offset: u64,
}

struct Done<T> {
    seq: u64,
    part: io::Result<T>,
    bytes: Vec<u8>,
}

impl Pipeline {
    /// Like [`Pipeline::run`], on `threads` worker threads once the dialect is known.
    pub fn run_parallel<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        reader: R,
        consumer: &mut P,
        threads: usize,
    ) -> Result<Flow, Error> {
        self.reset_input();
        consumer.begin_input(file).map_err(Error::Write)?;
        let options = self.options().clone();
        let framer = Framer::with_read_size(reader, options.max_line_bytes, options.read_size);
        let result = match self.stream(file, framer, consumer, true) {
            Ok((flow, None)) => Ok(flow),
            Ok((_, Some(framer))) if consumer.batchable(self.classifier().dialect()) => {
                self.run_blocks(file, framer, consumer, threads.max(1))
            }
            Ok((_, Some(framer))) => self
                .stream(file, framer, consumer, false)
                .map(|(flow, _)| flow),
            Err(e) => Err(e),
        };
        let dialect = self.classifier().dialect();
        consumer.end_input(file, dialect).map_err(Error::Write)?;
        result
    }

    fn run_blocks<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        framer: Framer<R>,
        consumer: &mut P,
        threads: usize,
    ) -> Result<Flow, Error> {
        let (mut line, mut offset) = framer.position();
        let (carry, mut reader) = framer.into_parts();
        let mut carry = carry;
        let mut options = self.options().clone();
        options.dialect = self.classifier().dialect();
        let in_flight_cap = threads * 2;
        let mut fallback = false;

        let outcome = std::thread::scope(|scope| -> Result<Flow, Error> {
            let (work_tx, work_rx) = sync_channel::<Job>(in_flight_cap);
            let work_rx = Arc::new(Mutex::new(work_rx));
            let (done_tx, done_rx) = channel::<Done<P::Part>>();
            for _ in 0..threads {
                let work_rx = Arc::clone(&work_rx);
                let done_tx = done_tx.clone();
                let mut shard = consumer.shard();
                let mut pipeline = Pipeline::new(options.clone());
                let file = Arc::clone(file);
                scope.spawn(move || loop {
                    let job = match work_rx.lock() {
                        Ok(rx) => match rx.recv() {
                            Ok(job) => job,
                            Err(_) => return,
                        },
                        Err(_) => return,
                    };
                    let result = pipeline.process_block(&file, &job, &mut shard);
                    let part = result.map(|()| P::take(&mut shard));
                    let done = Done {
                        seq: job.seq,
                        part,
                        bytes: job.bytes,
                    };
                    if done_tx.send(done).is_err() {
                        return;
                    }
                });
            }
            drop(done_tx);

            let mut merger = Merger {
                next: 0,
                waiting: BTreeMap::new(),
                free: Vec::new(),
                stopped: false,
            };
            let mut sent = 0u64;
            let mut eof = false;
            let mut read_error = None;
            while !eof && !merger.stopped {
                let mut bytes = merger.free.pop().unwrap_or_default();
                if bytes.len() < carry.len() + BLOCK_BYTES {
                    bytes.resize(carry.len() + BLOCK_BYTES, 0);
                }
                bytes[..carry.len()].copy_from_slice(&carry);
                let mut len = carry.len();
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
                    memchr::memrchr(b'\n', &bytes[..len]).map_or(0, |i| i + 1)
                };
                carry.extend_from_slice(&bytes[cut..len]);
                if cut == 0 {
                    merger.free.push(bytes);
                    if read_error.is_some() {
                        break;
                    }
                    if carry.len() > MAX_CARRY {
                        fallback = true;
                        break;
                    }
                    continue;
                }
                let newlines = memchr::memchr_iter(b'\n', &bytes[..cut]).count() as u64;
                let lines = newlines + u64::from(bytes[cut - 1] != b'\n');
                let job = Job {
                    seq: sent,
                    bytes,
                    len: cut,
                    line,
                    offset,
                };
                line += lines;
                offset += cut as u64;
                sent += 1;
                if work_tx.send(job).is_err() {
                    break;
                }
                while sent - merger.next >= in_flight_cap as u64 && !merger.stopped {
                    let Ok(done) = done_rx.recv() else { break };
                    merger.accept(done, consumer)?;
                }
            }
            drop(work_tx);
            while merger.next < sent && !merger.stopped {
                let Ok(done) = done_rx.recv() else { break };
                merger.accept(done, consumer)?;
            }
            if let Some(source) = read_error {
                return Err(Error::Read {
                    file: file.to_string(),
                    line,
                    offset: offset + carry.len() as u64,
                    source,
                });
            }
            Ok(if merger.stopped {
                Flow::Stop
            } else {
                Flow::Continue
            })
        });
        let flow = outcome?;
        if fallback && flow == Flow::Continue {
            let rest = io::Cursor::new(carry).chain(reader);
            let framer = Framer::with_read_size(rest, options.max_line_bytes, options.read_size)
                .starting_at(line, offset);
            return self
                .stream(file, framer, consumer, false)
                .map(|(flow, _)| flow);
        }
        Ok(flow)
    }

    /// Runs the records of one block (whole lines) into a shard.
    fn process_block(
        &mut self,
        file: &Arc<str>,
        job: &Job,
        shard: &mut dyn Consumer,
    ) -> io::Result<()> {
        let bytes = &job.bytes[..job.len];
        let max_line = self.options().max_line_bytes;
        let mut pos = 0;
        let mut line = job.line;
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
                offset: job.offset + pos as u64,
                kind,
            };
            self.process(file, frame, shard)?;
            pos = end;
        }
        Ok(())
    }
}

/// Puts the workers' parts back in block order.
struct Merger<T> {
    next: u64,
    waiting: BTreeMap<u64, io::Result<T>>,
    free: Vec<Vec<u8>>,
    stopped: bool,
}

impl<T> Merger<T> {
    fn accept<P: Parallel<Part = T>>(
        &mut self,
        done: Done<T>,
        consumer: &mut P,
    ) -> Result<(), Error> {
        self.free.push(done.bytes);
        self.waiting.insert(done.seq, done.part);
        while let Some(part) = self.waiting.remove(&self.next) {
            self.next += 1;
            if self.stopped {
                continue;
            }
            let part = part.map_err(Error::Write)?;
            if consumer.merge(part).map_err(Error::Write)? == Flow::Stop {
                self.stopped = true;
            }
        }
        Ok(())
    }
}
