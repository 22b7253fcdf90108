//! OpenCode's own store: the SQLite database OpenCode (1.2 and later) keeps its sessions in
//! (`~/.local/share/opencode/opencode.db`), read as records of the `opencode` dialect
//! (docs/REFERENCE.md, "OpenCode's store"; docs/DESIGN.md, "OpenCode's store").
//!
//! The database is opened read-only (never `immutable`, so the rows still in the `-wal`
//! are read), with a busy timeout, and read in short read transactions, one per session:
//! OpenCode, writing, is never blocked for long, and nothing is ever written to the `.db`
//! or its `-wal` (SQLite may still create or update the `-shm` beside them, as any reader
//! does). Where SQLite cannot open it in place (a read-only folder without a `-shm`), the
//! `.db` and `-wal` are copied to a temporary folder and that copy is read.
//!
//! Each row becomes one line: `{"type", "timestamp", "sessionID", "role", "message"|"part"}`
//! where `message` or `part` is the row's `data` as the database holds it, with the ids
//! its columns hold (`id`, `sessionID`, and `messageID` for a part) put first, as in
//! `opencode export` and `opencode run --format json`. `type` is a message's `role`
//! (`user`, `assistant`) or a part's own `type` (`text`, `tool`, `step-finish`, ...).
//! Sessions come in the order they began, each message followed by its parts.
//!
//! Followed (`--follow`, [`open_live`]), a store is read again when its `data_version`
//! changed, for the rows updated since shortly before the latest seen: each message once
//! finished, each part once ended, each row once. The `storage` folder of JSON files
//! OpenCode kept before 1.2 is read the same way, by another backend, once.

mod legacy;
mod live;
mod places;
mod record;
mod rows;
mod sqlite;

pub use legacy::is_legacy_storage;
pub use places::{default_stores, is_store_name};
pub use sqlite::{companion_of, is_sqlite, SQLITE_MAGIC};

/// Why a database met where a stream is read (a pipe, a file under `--follow`'s tail) is
/// not read there: a store is read by its path, with its `-wal` beside it.
pub const NOT_A_STREAM: &str =
    "an SQLite database, not NDJSON: name its file to read it (OpenCode's store)";

use crate::error::Error;
use legacy::{open_files, read_session_files};
use live::{read_changes, Live};
use rows::read_session;
use rusqlite::Connection;
use sqlite::{data_version, in_place_refused, open_at, Opening, TempCopy};
use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};

/// The rows behind the records of each store read in this run, by the store's display
/// name: `message:<id>` or `part:<id>` for record (line) 1, 2, ... A diagnostic names its
/// record so ([`record_label`]) where a file's would name its line.
static LABELS: LazyLock<Mutex<HashMap<String, Vec<Box<str>>>>> = LazyLock::new(Mutex::default);

/// Whether any store was read (no lock taken for a diagnostic of a file otherwise).
static ANY_STORE: AtomicBool = AtomicBool::new(false);

/// The row behind record `line` of the store shown as `file` (`message:<id>`,
/// `part:<id>`), when `file` is a store read in this run.
pub fn record_label(file: &str, line: u64) -> Option<String> {
    if !ANY_STORE.load(Ordering::Relaxed) {
        return None;
    }
    let labels = LABELS.lock().ok()?;
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    labels.get(file)?.get(index).map(|l| l.to_string())
}

/// The display name of the store at `path`, its rows' names ([`LABELS`]) begun anew.
fn register(path: &Path) -> String {
    let name = crate::input::path_name(path);
    if let Ok(mut labels) = LABELS.lock() {
        labels.insert(name.clone(), Vec::new());
        ANY_STORE.store(true, Ordering::Relaxed);
    }
    name
}

/// An open store, read as NDJSON one session at a time.
#[derive(Debug)]
pub struct StoreReader {
    /// Its display name (the key of its [`LABELS`]).
    name: String,
    from: Backend,
    /// The sessions not read yet, in the order they began.
    sessions: std::vec::IntoIter<String>,
    buf: Vec<u8>,
    pos: usize,
    /// Followed (`--follow`): what was taken, so only what changes is read again.
    live: Option<Live>,
    /// A copy read in place of the store (a read-only folder), removed when done.
    _copy: Option<TempCopy>,
}

/// Where a store's rows come from: the SQLite database, or the folder of JSON files
/// OpenCode kept before 1.2 ([`is_legacy_storage`]).
#[derive(Debug)]
enum Backend {
    Sqlite(Connection),
    Files(PathBuf),
}

/// Opens `path` as OpenCode's store (a database, or the `storage` folder of OpenCode
/// before 1.2). A database of another application, or of a layout this reader does not
/// know, is an [`Error::NotAStore`] note: nothing is read.
pub fn open(path: &Path) -> Result<StoreReader, Error> {
    if path.is_dir() {
        return open_files(path);
    }
    let open_err = |e: rusqlite::Error| Error::Open {
        path: path.to_path_buf(),
        source: io::Error::other(format!("cannot read it as an SQLite database: {e}")),
    };
    let (conn, sessions, copy) = match open_at(path) {
        Ok((conn, sessions)) => (conn, sessions, None),
        Err(Opening::Foreign(why)) => {
            return Err(Error::NotAStore {
                path: path.to_path_buf(),
                why,
            })
        }
        Err(Opening::Sqlite(e)) if !in_place_refused(&e) => return Err(open_err(e)),
        // SQLite could not open it in place (a read-only folder where the `-shm` cannot
        // be made): the same bytes, copied, are read instead.
        Err(Opening::Sqlite(first)) => {
            let copy = TempCopy::of(path).map_err(|source| Error::Open {
                path: path.to_path_buf(),
                source: io::Error::other(format!(
                    "cannot read it as an SQLite database ({first}), nor copy it: {source}"
                )),
            })?;
            match open_at(&copy.db) {
                Ok((conn, sessions)) => (conn, sessions, Some(copy)),
                Err(Opening::Foreign(why)) => {
                    return Err(Error::NotAStore {
                        path: path.to_path_buf(),
                        why,
                    })
                }
                Err(Opening::Sqlite(_)) => return Err(open_err(first)),
            }
        }
    };
    Ok(StoreReader {
        name: register(path),
        from: Backend::Sqlite(conn),
        sessions: sessions.into_iter(),
        buf: Vec::new(),
        pos: 0,
        live: None,
        _copy: copy,
    })
}

/// Opens `path` as OpenCode's store to follow it (`--follow`): read, it gives the messages
/// finished so far (each with its parts); [`StoreReader::more`] then tells when others
/// are, as OpenCode writes them.
pub fn open_live(path: &Path) -> Result<StoreReader, Error> {
    let mut reader = open(path)?;
    // The JSON files of OpenCode before 1.2 are read as they are, once.
    let Backend::Sqlite(conn) = &reader.from else {
        return Ok(reader);
    };
    // The version before the first read: a change made while it reads is seen after.
    let version = data_version(conn).map_err(|e| Error::Open {
        path: path.to_path_buf(),
        source: io::Error::other(e.to_string()),
    })?;
    reader.live = Some(Live {
        version: Some(version),
        ..Live::default()
    });
    Ok(reader)
}

impl StoreReader {
    /// Whether there is more to read: what is left of the first read, or, when followed,
    /// messages finished since it last looked (only a change of the database's
    /// `data_version` makes it look: an unchanged store costs one pragma).
    pub fn more(&mut self) -> io::Result<bool> {
        if self.pos < self.buf.len() || self.sessions.len() > 0 {
            return Ok(true);
        }
        let (Some(live), Backend::Sqlite(conn)) = (self.live.as_mut(), &self.from) else {
            return Ok(false);
        };
        let version = data_version(conn).map_err(io::Error::other)?;
        if live.version == Some(version) {
            return Ok(false);
        }
        live.version = Some(version);
        self.buf.clear();
        self.pos = 0;
        let mut labels = Vec::new();
        read_changes(conn, live, &mut self.buf, &mut labels).map_err(io::Error::other)?;
        if let Ok(mut all) = LABELS.lock() {
            all.entry(self.name.clone()).or_default().extend(labels);
        }
        Ok(!self.buf.is_empty())
    }

    /// The follow ends: what is still unfinished is taken as it stands at the next
    /// [`StoreReader::more`], as a run without `--follow` would read it.
    pub fn take_the_rest(&mut self) {
        if let Some(live) = self.live.as_mut() {
            live.all = true;
            live.version = None;
            live.seen = 0;
        }
    }
}

impl Read for StoreReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            let Some(session) = self.sessions.next() else {
                return Ok(0);
            };
            self.buf.clear();
            self.pos = 0;
            let mut labels = Vec::new();
            let read = match &self.from {
                Backend::Sqlite(conn) => read_session(
                    conn,
                    &session,
                    self.live.as_mut(),
                    &mut self.buf,
                    &mut labels,
                )
                .map_err(io::Error::other),
                Backend::Files(storage) => {
                    read_session_files(storage, &session, &mut self.buf, &mut labels)
                }
            };
            read.map_err(|e| io::Error::other(format!("reading session {session}: {e}")))?;
            if let Ok(mut all) = LABELS.lock() {
                all.entry(self.name.clone()).or_default().extend(labels);
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
