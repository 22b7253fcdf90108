//! A worker thread: the [`work`] loop that runs a unit's pipeline pass into its shard.

use super::*;

/// How reading a whole file went.
pub(super) enum Whole {
    /// Its records went to the shard, then maybe a read error ended it.
    Read(Option<Error>),
    /// It could not be opened.
    Failed(Error),
    /// The shard failed.
    WriteFailed(io::Error),
}

/// A worker: takes units until the calling thread hangs up.
pub(super) fn work<P: Parallel>(
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
pub(super) struct Anchor<'a> {
    pub(super) line: &'a [u8],
    pub(super) lines_after: u64,
    pub(super) bytes_before_warm: u64,
}

/// Reads up to [`ANCHOR_BYTES`] of `handle` before `end` (the start of a warm-up, which
/// starts a line) into `back` and finds the last line there holding `mark`. `None` when
/// there is none, the read fails, or the line starts before what was read.
pub(super) fn find_anchor<'a>(
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
pub(super) fn run_block<P: Parallel>(
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
pub(super) fn settle<T>(
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
