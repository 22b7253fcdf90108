//! Reading one part of a followed file: from the offset reached through its last newline
//! (or to its end, when the run ends), checked against the file's first bytes; a FIFO read
//! whole.
use super::files::{f_line, Look};
use super::roots::NEW_FOLDER_AGAIN;
use super::Follower;
use crate::error::Error;
use crate::input::head::{Head, HEAD_MAX};
use crate::input::is_compressed;
use crate::pipeline::{Consumer, Flow};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The largest appended part read whole before it is handed on (see
/// [`Follower::read_part`]); a larger one is read as it streams.
pub(super) const BUFFERED_PART: u64 = 8 << 20;

/// How to read a part: up to the last newline, or everything (the end of the run).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Upto {
    LastNewline,
    End,
}

/// Opens `path` for reading without waiting (opening a FIFO waits for a writer) and keeps
/// it only when the handle is a regular file (`None` otherwise).
pub(super) fn open_regular(path: &Path) -> io::Result<Option<(File, fs::Metadata)>> {
    let nonblock = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblock)
        .open(path)?;
    let meta = file.metadata()?;
    Ok(meta.is_file().then_some((file, meta)))
}

impl Follower<'_> {
    /// Reads the file from where it got to, through its last newline (or to its end).
    pub(super) fn read_part<C: Consumer>(
        &mut self,
        abs: &Path,
        upto: Upto,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let Some(f) = self.files.get(abs) else {
            return Ok(Flow::Continue);
        };
        if f.whole {
            return Ok(Flow::Continue);
        }
        let (name, start) = (f.name.clone(), f.offset);
        let read_error = |source| Error::Read {
            file: name.to_string(),
            line: 0,
            offset: start,
            source,
        };
        let (mut file, len) = match open_regular(abs) {
            Ok(Some((file, meta))) if (meta.dev(), meta.ino()) == (f.dev, f.ino) => {
                (file, meta.len())
            }
            // Replaced since it was looked at, or not a file now: the next look tells.
            Ok(_) => return Ok(Flow::Continue),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Flow::Continue),
            Err(source) => {
                report(&Error::Open {
                    path: PathBuf::from(&*name),
                    source,
                });
                return Ok(Flow::Continue);
            }
        };
        if len <= start {
            return Ok(Flow::Continue);
        }
        let compressed = start == 0 && {
            let mut head = [0u8; 4];
            let n = file.read_at(&mut head, 0).unwrap_or(0);
            is_compressed(&head[..n])
        };
        let end = match (compressed, upto) {
            (true, _) | (_, Upto::End) => len,
            (false, Upto::LastNewline) => match crate::input::last_newline(&file, start, len) {
                Ok(Some(nl)) => nl + 1,
                // A partial line waits for its newline.
                Ok(None) => return Ok(Flow::Continue),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            },
        };
        // A part (small, as appended parts are) is read whole first, with the file's
        // first bytes when the fingerprint covers them or grows: the part, the check that
        // the file is still the one read so far, and the grown fingerprint all come of
        // the same bytes. A file truncated and written again while it is read would give
        // bytes of two files; then nothing is read now and the next look starts it again.
        let from = if start < HEAD_MAX { 0 } else { start };
        let mut head = None;
        let part = if !compressed && end - from <= BUFFERED_PART {
            let mut buf = vec![0u8; (end - from) as usize];
            match file.read_exact_at(&mut buf, from) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Flow::Continue),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            }
            let same = if from == 0 {
                let old = f.head;
                old.len == 0
                    || buf
                        .get(..old.len as usize)
                        .is_some_and(|b| Head::of_bytes(b) == old)
            } else {
                f.head.matches(&file).unwrap_or(false)
            };
            if !same {
                // Looked at again soon: the look then sees the change.
                if let Some(f) = self.files.get_mut(abs) {
                    f.look = Look::default();
                }
                let soon = Instant::now() + NEW_FOLDER_AGAIN[0];
                self.later.push((soon, PathBuf::from(&*name)));
                return Ok(Flow::Continue);
            }
            if from == 0 && f.head.grows_to(end) {
                head = Some(Head::of_bytes(&buf));
            }
            buf.drain(..(start - from) as usize);
            Some(buf)
        } else {
            None
        };
        // A large part streams; the fingerprint grows with what is read, up to its most.
        if part.is_none() && f.head.grows_to(end) {
            match Head::of(&file, end) {
                Ok(h) => head = Some(h),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            }
        }
        if let Err(e) = file.seek(SeekFrom::Start(start)) {
            report(&read_error(e));
            return Ok(Flow::Continue);
        }
        let switch_to = self.enter(abs, consumer)?;
        self.parts += 1;
        let at = (f_line(&self.files, abs), start);
        let result = match (compressed, part) {
            (true, _) => match crate::input::decompress(file) {
                Ok(reader) => self
                    .pipeline
                    .run_part(&name, reader, (0, 0), switch_to, consumer),
                Err(e) => Err(read_error(e)),
            },
            (false, Some(buf)) => self
                .pipeline
                .run_part(&name, &buf[..], at, switch_to, consumer),
            (false, None) => {
                self.pipeline
                    .run_part(&name, file.take(end - start), at, switch_to, consumer)
            }
        };
        let dialect = self.pipeline.dialect();
        let Some(f) = self.files.get_mut(abs) else {
            return Ok(Flow::Continue);
        };
        f.dialect = dialect.or(f.dialect);
        match result {
            Ok((flow, line, offset)) => {
                f.line = line;
                f.offset = if compressed { len } else { offset };
                f.whole = compressed;
                if let Some(h) = head {
                    f.head = h;
                }
                Ok(flow)
            }
            Err(e @ Error::Write(_)) => Err(e),
            Err(e) => {
                // Read no further than what was read well; the rest is tried again.
                report(&e);
                Ok(Flow::Continue)
            }
        }
    }

    /// Reads a file that is not a regular file (a FIFO) whole, as one input.
    pub(super) fn read_stream<C: Consumer>(
        &mut self,
        path: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        self.pause_current(consumer)?;
        let name: Arc<str> = Arc::from(crate::input::path_name(path));
        let result = crate::input::open_file(path).and_then(|file| {
            let reader = crate::input::decompress(file).map_err(|source| Error::Read {
                file: name.to_string(),
                line: 0,
                offset: 0,
                source,
            })?;
            self.pipeline.run(&name, reader, consumer)
        });
        match result {
            Ok(flow) => Ok(flow),
            Err(e @ Error::Write(_)) => Err(e),
            Err(e) => {
                report(&e);
                Ok(Flow::Continue)
            }
        }
    }
}
