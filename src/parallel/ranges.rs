//! Cutting a file into ranges at line ends, and reading a range with `pread`.

use super::*;

/// The first [`PEEK_BYTES`] of a file.
pub(super) fn read_head(path: &std::path::Path) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(PEEK_BYTES);
    let file = std::fs::File::open(path).ok()?;
    file.take(PEEK_BYTES as u64).read_to_end(&mut head).ok()?;
    Some(head)
}

/// Where [`Pipeline::send_blocks`] starts: the line and offset of the first record, and
/// the partial line already read.
pub(super) struct Start {
    pub(super) line: u64,
    pub(super) offset: u64,
    pub(super) carry: Vec<u8>,
}

/// Where the range starting at `start` of a file the workers read ends.
pub(super) enum Cut {
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
pub(super) const CUT_WINDOW: usize = 16 << 10;

/// Finds the end of the range starting at `start`: the end of the line holding its
/// [`BLOCK_BYTES`]th byte, or when that line goes on past what one read around that byte
/// shows (a tool result of a megabyte), the end of the line before it, so that this thread
/// does not read through a long line (the next range starts with it); or the end of the
/// file. Reads only around the cut, into `window`.
pub(super) fn next_cut(handle: &std::fs::File, start: u64, window: &mut Vec<u8>) -> Cut {
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
pub(super) const ALIGN: usize = 64;

/// The room a worker's whole-file buffer of `capacity` grows to when a file needs `need`
/// bytes of it: doubled, as a `Vec` grows, but never past what the largest small file
/// needs. A buffer past that is dropped after its file (in [`work`]); a doubled one would
/// be, and then grown again from nothing for the next large file, its pages faulted in and
/// zeroed each time (docs/PERFORMANCE.md, "Whole-file buffers grow to the limit, not past
/// it").
pub(super) fn whole_buffer_room(capacity: usize, need: usize) -> usize {
    capacity
        .saturating_mul(2)
        .clamp(need, WHOLE_BUFFER_ROOM.max(need))
}

/// The room of a worker's whole-file buffer that holds the largest small file (with its
/// alignment and the one byte past the listed size): the most [`work`] keeps.
pub(super) const WHOLE_BUFFER_ROOM: usize = ALIGN + WHOLE_READ_LIMIT as usize + 1;

/// Where in `buf` to start the bytes read from `offset` of a file: there, the address and
/// the offset agree modulo [`ALIGN`]. The kernel copies a read out of the page cache a
/// page at a time, and that copy runs about half again as long when the destination is
/// just past the source modulo 4 KiB (store-to-load aliasing), which is what a large
/// buffer from the allocator (its data 16 bytes into a page) and a read from a page
/// boundary give: every whole file, every file's first range. Measured in
/// docs/PERFORMANCE.md. `buf` must have [`ALIGN`] bytes to spare.
pub(super) fn align_pad(buf: &[u8], offset: u64) -> usize {
    (offset as usize).wrapping_sub(buf.as_ptr() as usize) % ALIGN
}

/// Reads `buf.len()` bytes of `handle` from `offset`, or up to the end of the file: how many
/// were read, and the error that stopped the reading, if any.
pub(super) fn read_range(
    handle: &std::fs::File,
    offset: u64,
    buf: &mut [u8],
) -> (usize, Option<io::Error>) {
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
pub(super) struct ReadAt<'a> {
    pub(super) handle: &'a std::fs::File,
    pub(super) offset: u64,
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
pub(super) fn read_at(handle: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(handle, buf, offset)
}

#[cfg(windows)]
pub(super) fn read_at(handle: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(handle, buf, offset)
}

/// Elsewhere no file is read in ranges ([`Pipeline::blocks_from_start`]).
#[cfg(not(any(unix, windows)))]
pub(super) fn read_at(_handle: &std::fs::File, _buf: &mut [u8], _offset: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

/// The lines of a file whose ranges the workers read: each worker posts how many lines its
/// range holds and learns how many come before it. A range is taken by a worker only after
/// every range before it was (the work queue is in order), and its worker posts its count
/// before it waits, so the wait always ends.
#[derive(Default)]
pub(super) struct LineChain {
    pub(super) state: Mutex<Chain>,
    pub(super) counted: Condvar,
}

#[derive(Default)]
pub(super) struct Chain {
    /// The first range whose count is not yet known, and the lines before it.
    pub(super) next: u64,
    pub(super) lines: u64,
    /// Counts posted for ranges after `next`.
    pub(super) ahead: BTreeMap<u64, u64>,
    /// The lines before each range now known, until its worker takes the figure.
    pub(super) before: BTreeMap<u64, u64>,
}

impl LineChain {
    /// Posts that range `index` holds `count` lines and waits for the number of lines
    /// before it.
    pub(super) fn lines_before(&self, index: u64, count: u64) -> u64 {
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
    pub(super) fn total(&self) -> u64 {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).lines
    }
}
