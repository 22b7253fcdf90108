//! The library's error: I/O and configuration only. A bad record is never an error; it is
//! data with a diagnostic.

use crate::input::path_name;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// What failed, and where.
#[derive(Debug)]
pub enum Error {
    /// An input could not be opened or walked.
    Open { path: PathBuf, source: io::Error },
    /// Reading an input failed part-way (the records before were processed).
    Read {
        file: String,
        line: u64,
        offset: u64,
        source: io::Error,
    },
    /// Writing output failed (a closed pipe included).
    Write(io::Error),
    /// A folder held no log files.
    NoLogs { path: PathBuf },
    /// A folder walk found a log file's name on something that is not a regular file (a
    /// FIFO, socket or device): it is skipped, never opened. A note, not a failure.
    NotRegular { path: PathBuf, kind: &'static str },
    /// An input is a file this run writes (`--rejects`, `--tee`, stdout redirected to a
    /// file): never read, or the run would read what it writes. Found in a folder walk it
    /// is skipped with a note (`named` false); named as an input, an error.
    OwnOutput { path: PathBuf, named: bool },
    /// The system would not start the worker threads `-j` asked for.
    Threads {
        asked: usize,
        started: usize,
        source: io::Error,
    },
    /// An SQLite database that is not OpenCode's store, or of a layout not known, or a
    /// file SQLite keeps beside a database (its `-wal`): nothing of it is read. A note.
    NotAStore { path: PathBuf, why: String },
    /// `--follow` met a truncated or replaced file, or fell back to polling: a note.
    FollowNote(String),
}

impl Error {
    /// Whether the error is a reader that went away (`| head`): not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    /// Whether this is only a note (an input skipped on purpose): it does not change the
    /// exit status.
    pub fn is_note(&self) -> bool {
        matches!(
            self,
            Error::NotRegular { .. }
                | Error::OwnOutput { named: false, .. }
                | Error::NotAStore { .. }
                | Error::FollowNote(_)
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Open { path, source } => write!(f, "{}: {}", path_name(path), plain(source)),
            Error::Read {
                file,
                line,
                offset,
                source,
            } => write!(
                f,
                "{file}: read error after line {line} (byte {offset}): {}",
                plain(source)
            ),
            Error::Write(e) => write!(f, "write error: {}", plain(e)),
            Error::NoLogs { path } => write!(
                f,
                "{}: no *.jsonl, *.ndjson or *.json files (or .gz/.zst) in this folder",
                path_name(path)
            ),
            Error::NotRegular { path, kind } => write!(
                f,
                "note: {}: skipped, a {kind} and not a regular file (name it on the command line to read it)",
                path_name(path)
            ),
            Error::Threads {
                asked,
                started,
                source,
            } => write!(
                f,
                "cannot start {asked} worker threads (the system refused after {started}: {}); try a smaller -j",
                plain(source)
            ),
            Error::OwnOutput { path, named: false } => write!(
                f,
                "note: {}: skipped, input file is also the output (--rejects, --tee, report -o or stdout)",
                path_name(path)
            ),
            Error::OwnOutput { path, named: true } => write!(
                f,
                "{}: input file is also the output (--rejects, --tee, report -o or stdout); not read",
                path_name(path)
            ),
            Error::NotAStore { path, why } => {
                write!(f, "note: {}: {why}", path_name(path))
            }
            Error::FollowNote(what) => write!(f, "note: {what}"),
        }
    }
}

/// An I/O error's message without Rust's " (os error N)" suffix.
fn plain(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // Open and read errors already say their cause in their message; a chain printer
        // would repeat it.
        match self {
            Error::Write(e) => Some(e),
            Error::Open { .. }
            | Error::Read { .. }
            | Error::NoLogs { .. }
            | Error::NotRegular { .. }
            | Error::OwnOutput { .. }
            | Error::Threads { .. }
            | Error::NotAStore { .. }
            | Error::FollowNote(_) => None,
        }
    }
}
