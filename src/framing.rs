//! Framing: cuts a byte stream into records at `\n`, numbering lines and byte offsets.
//!
//! The framer owns one reusable buffer. A record that fits is handed out as a slice of it
//! (no copy); a record longer than `max_line_bytes` is never buffered whole: the framer
//! hands out its first part as an [`FrameKind::Overlong`] frame and the rest as chunks
//! through [`Framer::overlong_chunk`], so memory stays bounded by the limit, not the
//! input. CRLF, BOM and empty lines are the decoder's business: the framer only cuts.
//! It reads whatever `read` returns, so a live pipe yields each line as soon as its `\n`
//! arrives.

use std::io::{self, Read};

/// The default read size: large reads keep system-call overhead negligible on files.
pub const DEFAULT_READ_SIZE: usize = 1 << 20;

/// One record as cut from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The record's bytes, including its `\n` (if it has one). For an overlong record, only
    /// the part read so far.
    pub bytes: &'a [u8],
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the record's first byte in the input.
    pub offset: u64,
    pub kind: FrameKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// The whole record; `terminated` is false for a last line without `\n`.
    Complete { terminated: bool },
    /// Longer than the limit: more bytes of this record may follow through
    /// [`Framer::overlong_chunk`].
    Overlong,
}

impl Frame<'_> {
    /// The record without its line terminator (`\n`; a `\r` before it is kept).
    pub fn content(&self) -> &[u8] {
        match self.bytes.last() {
            Some(b'\n') => &self.bytes[..self.bytes.len() - 1],
            _ => self.bytes,
        }
    }
}

/// Cuts records out of a reader. See the module documentation.
#[derive(Debug)]
pub struct Framer<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Where the newline search resumes, so a long line is scanned once.
    scan: usize,
    eof: bool,
    line: u64,
    offset: u64,
    max_line: usize,
    read_size: usize,
    in_overlong: bool,
    /// A read error, held back until the bytes read before it are handed out.
    error: Option<io::Error>,
}

impl<R: Read> Framer<R> {
    pub fn new(reader: R, max_line_bytes: usize) -> Self {
        Self::with_read_size(reader, max_line_bytes, DEFAULT_READ_SIZE)
    }

    /// A framer reading at most `read_size` bytes at a time (tests use tiny sizes to cut
    /// records at every possible boundary).
    pub fn with_read_size(reader: R, max_line_bytes: usize, read_size: usize) -> Self {
        let read_size = read_size.max(1);
        Framer {
            reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            scan: 0,
            eof: false,
            line: 0,
            offset: 0,
            max_line: max_line_bytes.max(1),
            read_size,
            in_overlong: false,
            error: None,
        }
    }

    /// Reads into `buf`, the buffer an earlier framer gave back ([`Framer::into_buffer`]), so
    /// a run over many inputs does not allocate and zero a fresh one for each. Its bytes are
    /// overwritten. Only before the first read.
    pub fn with_buffer(mut self, buf: Vec<u8>) -> Self {
        if self.end == 0 && !self.eof {
            self.buf = buf;
        }
        self
    }

    /// The framer's buffer, for the next framer to reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Continues numbering from an earlier part of the same input: the next record is line
    /// `line + 1` at byte `offset`.
    pub fn starting_at(mut self, line: u64, offset: u64) -> Self {
        self.line = line;
        self.offset = offset;
        self
    }

    /// The number of the last record handed out and the offset of the next byte.
    pub fn position(&self) -> (u64, u64) {
        (self.line, self.offset)
    }

    /// Ends framing: the bytes read but not yet handed out, and the reader. Not to be
    /// called in the middle of an overlong record.
    pub fn into_parts(mut self) -> (Vec<u8>, R) {
        self.buf.truncate(self.end);
        self.buf.drain(..self.start);
        (self.buf, self.reader)
    }

    /// The next record, or `None` at the end of the input. Any unread rest of an overlong
    /// record is skipped first.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        while self.in_overlong {
            if self.overlong_chunk()?.is_none() {
                break;
            }
        }
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.scan..self.end]) {
                let nl = self.scan + i;
                let len = nl - self.start;
                let (s, e) = (self.start, nl + 1);
                self.start = e;
                self.scan = e;
                let kind = if len > self.max_line {
                    FrameKind::Overlong
                } else {
                    FrameKind::Complete { terminated: true }
                };
                return Ok(Some(self.emit(s, e, kind)));
            }
            self.scan = self.end;
            let pending = self.end - self.start;
            if pending > self.max_line {
                // Hand out what we have; the rest streams through `overlong_chunk`.
                let (s, e) = (self.start, self.end);
                self.start = e;
                self.scan = e;
                self.in_overlong = true;
                return Ok(Some(self.emit(s, e, FrameKind::Overlong)));
            }
            if self.eof {
                if pending == 0 {
                    return match self.error.take() {
                        Some(e) => Err(e),
                        None => Ok(None),
                    };
                }
                let (s, e) = (self.start, self.end);
                self.start = e;
                self.scan = e;
                return Ok(Some(self.emit(
                    s,
                    e,
                    FrameKind::Complete { terminated: false },
                )));
            }
            self.fill()?;
        }
    }

    /// The next piece of the overlong record last returned, through its `\n`; `None` when
    /// that record has ended.
    pub fn overlong_chunk(&mut self) -> io::Result<Option<&[u8]>> {
        if !self.in_overlong {
            return Ok(None);
        }
        loop {
            if self.start < self.end {
                let (s, e) = match memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                    Some(i) => {
                        self.in_overlong = false;
                        (self.start, self.start + i + 1)
                    }
                    None => (self.start, self.end),
                };
                self.start = e;
                self.scan = e;
                self.offset += (e - s) as u64;
                return Ok(Some(&self.buf[s..e]));
            }
            if self.eof {
                self.in_overlong = false;
                return match self.error.take() {
                    Some(e) => Err(e),
                    None => Ok(None),
                };
            }
            self.fill()?;
        }
    }

    fn emit(&mut self, s: usize, e: usize, kind: FrameKind) -> Frame<'_> {
        self.line += 1;
        let offset = self.offset;
        self.offset += (e - s) as u64;
        Frame {
            bytes: &self.buf[s..e],
            line: self.line,
            offset,
            kind,
        }
    }

    /// Reads more input after the pending bytes, compacting and growing the buffer as the
    /// pending record requires (never beyond the line limit plus one read).
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scan -= self.start;
            self.start = 0;
        }
        let want = self.end + self.read_size;
        if self.buf.len() < want {
            let cap = (self.max_line + 1 + self.read_size).max(self.read_size);
            let grown = want
                .max(self.buf.len().saturating_mul(2))
                .min(cap)
                .max(want);
            // Memory may run out before `--max-line-bytes` does (a limit above what the
            // process may allocate): then the record is overlong at what fits.
            let fits = self.buf.try_reserve_exact(grown - self.buf.len()).is_ok()
                || self.buf.try_reserve_exact(want - self.buf.len()).is_ok();
            if fits {
                self.buf.resize(self.buf.capacity().min(grown).max(want), 0);
            } else {
                let pending = self.end - self.start;
                if pending <= 1 {
                    return Err(io::Error::new(
                        io::ErrorKind::OutOfMemory,
                        "out of memory for the read buffer",
                    ));
                }
                // `next_frame` hands the pending bytes out as an overlong record.
                self.max_line = self.max_line.min(pending - 1);
                return Ok(());
            }
        }
        let limit = (self.end + self.read_size).min(self.buf.len());
        loop {
            match self.reader.read(&mut self.buf[self.end..limit]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The bytes before the error are still records: hand them out first.
                    self.eof = true;
                    self.error = Some(e);
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects (line, offset, bytes, kind) for every record, gluing overlong chunks.
    fn frames(input: &[u8], max: usize, read: usize) -> Vec<(u64, u64, Vec<u8>, bool)> {
        let mut f = Framer::with_read_size(input, max, read);
        let mut out = Vec::new();
        loop {
            let (line, offset, mut bytes, overlong) = match f.next_frame().expect("read") {
                None => break,
                Some(fr) => (
                    fr.line,
                    fr.offset,
                    fr.bytes.to_vec(),
                    fr.kind == FrameKind::Overlong,
                ),
            };
            if overlong {
                while let Some(c) = f.overlong_chunk().expect("read") {
                    bytes.extend_from_slice(c);
                }
            }
            out.push((line, offset, bytes, overlong));
        }
        out
    }

    #[test]
    fn cuts_lines_keeps_unterminated_last_and_counts_offsets() {
        let input = b"{\"a\":1}\n\n{\"b\":2}\r\nlast";
        for read in [1, 2, 3, 7, 64, 1 << 20] {
            let got = frames(input, 1 << 20, read);
            assert_eq!(got.len(), 4, "read size {read}");
            assert_eq!(got[0], (1, 0, b"{\"a\":1}\n".to_vec(), false));
            assert_eq!(got[1], (2, 8, b"\n".to_vec(), false));
            assert_eq!(got[2], (3, 9, b"{\"b\":2}\r\n".to_vec(), false));
            assert_eq!(got[3], (4, 18, b"last".to_vec(), false));
        }
    }

    #[test]
    fn empty_input_is_no_record() {
        assert!(frames(b"", 10, 4).is_empty());
    }

    #[test]
    fn overlong_lines_stream_without_buffering_and_framing_resumes() {
        let long = vec![b'x'; 1000];
        let mut input = long.clone();
        input.push(b'\n');
        input.extend_from_slice(b"ok\n");
        input.extend_from_slice(&long); // never-ending last line
        for read in [1, 5, 16, 4096] {
            let mut f = Framer::with_read_size(&input[..], 10, read);
            let fr = f.next_frame().expect("read").expect("frame");
            assert_eq!(fr.kind, FrameKind::Overlong);
            assert!(fr.bytes.len() <= 10 + read + 1);
            let mut total = fr.bytes.len();
            while let Some(c) = f.overlong_chunk().expect("read") {
                assert!(c.len() <= 10 + read + 1, "chunk bounded by buffer");
                total += c.len();
            }
            assert_eq!(total, 1001);
            assert!(f.buf.len() <= 10 + 1 + read, "buffer stays bounded");
            let fr = f.next_frame().expect("read").expect("frame");
            assert_eq!((fr.line, fr.offset, fr.bytes), (2, 1001, &b"ok\n"[..]));
            let fr = f.next_frame().expect("read").expect("frame");
            assert_eq!((fr.line, fr.kind), (3, FrameKind::Overlong));
            // Skipping the rest without reading it is allowed too.
            assert!(f.next_frame().expect("read").is_none());
        }
    }

    /// Reads its bytes, then fails.
    struct FailingReader<'a>(&'a [u8]);

    impl Read for FailingReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("disk on fire"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn bytes_before_a_read_error_are_records_then_the_error_comes() {
        let mut f = Framer::with_read_size(FailingReader(b"{\"a\":1}\n{\"b\":"), 100, 4);
        let fr = f.next_frame().expect("first").expect("frame");
        assert_eq!(fr.bytes, b"{\"a\":1}\n");
        let fr = f.next_frame().expect("second").expect("frame");
        assert_eq!(fr.bytes, b"{\"b\":");
        assert_eq!(fr.kind, FrameKind::Complete { terminated: false });
        assert!(f.next_frame().is_err());
    }

    #[test]
    fn a_line_exactly_at_the_limit_is_complete() {
        let got = frames(b"12345\n123456\n", 5, 2);
        assert!(!got[0].3);
        assert!(got[1].3);
        assert_eq!(got[1].2, b"123456\n");
    }
}
