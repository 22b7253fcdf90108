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

use crate::error::Error;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

/// The first bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How long a read waits on a busy database (OpenCode writing, a checkpoint) before it
/// gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether `path` names a regular file that begins with SQLite's magic bytes. Only a
/// regular file is opened (opening a FIFO would block).
pub fn is_sqlite(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == SQLITE_MAGIC
}

/// When `path` is a file SQLite keeps beside a database (its `-wal`, `-shm` or `-journal`)
/// and that database is there: what it is, for the note that skips it (the database is
/// read with it).
pub fn companion_of(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    ["-wal", "-shm", "-journal"].iter().find_map(|suffix| {
        let db = text.strip_suffix(suffix)?;
        is_sqlite(Path::new(db)).then(|| {
            format!(
                "the {} file of the SQLite database {db}, read with the database; skipped",
                &suffix[1..]
            )
        })
    })
}

/// Whether a file found in a folder walk is named as OpenCode names its stores:
/// `opencode.db`, `opencode-<channel>.db`.
pub fn is_store_name(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.as_encoded_bytes())
        .is_some_and(|n| n.starts_with(b"opencode") && n.ends_with(b".db"))
}

/// Where OpenCode keeps its stores, those that exist: `$OPENCODE_DB` when set, else every
/// `opencode*.db` in `$XDG_DATA_HOME/opencode` (or `~/.local/share/opencode`), sorted, or
/// when there is none, the `storage` folder of OpenCode before 1.2.
/// Also the place looked in, as people read it (`~` for the home folder).
pub fn default_stores(
    var: impl Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
) -> (Vec<PathBuf>, Option<PathBuf>) {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    if let Some(db) = set("OPENCODE_DB") {
        let db = PathBuf::from(db);
        let found = if db.is_file() {
            vec![db.clone()]
        } else {
            Vec::new()
        };
        return (found, Some(db));
    }
    let data = set("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".local/share")));
    let Some(dir) = data.map(|d| d.join("opencode")) else {
        return (Vec::new(), None);
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| is_store_name(p) && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    // OpenCode before 1.2: its JSON files, where there is no database.
    let storage = dir.join("storage");
    if found.is_empty() && is_legacy_storage(&storage) {
        found.push(storage);
    }
    (found, Some(dir.join("opencode*.db")))
}

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
    let name = super::path_name(path);
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

/// SQLite's `data_version`: it changes when another connection commits a change.
fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
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

/// Whether SQLite refused to open a database where it is (it could not make or map the
/// files beside it), rather than finding it broken.
fn in_place_refused(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied)
    )
}

/// Why a database was not opened.
enum Opening {
    /// SQLite's own failure.
    Sqlite(rusqlite::Error),
    /// It is not OpenCode's store (or of a layout not known here): why.
    Foreign(String),
}

impl From<rusqlite::Error> for Opening {
    fn from(e: rusqlite::Error) -> Opening {
        Opening::Sqlite(e)
    }
}

/// Opens `path` read-only, checks its tables and lists its sessions (one read transaction).
fn open_at(path: &Path) -> Result<(Connection, Vec<String>), Opening> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "query_only", true)?;
    let tx = conn.unchecked_transaction()?;
    check_layout(&conn)?;
    let sessions = {
        let mut stmt = conn.prepare(
            "SELECT session_id FROM message GROUP BY session_id \
             ORDER BY MIN(time_created), session_id",
        )?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    // No message, but rows in the newer `session_message` table: a layout not read here.
    let newer = sessions.is_empty()
        && conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master \
                 WHERE type = 'table' AND name = 'session_message')",
                [],
                |r| r.get::<_, bool>(0),
            )
            .unwrap_or(false)
        && conn
            .query_row("SELECT EXISTS (SELECT 1 FROM session_message)", [], |r| {
                r.get::<_, bool>(0)
            })
            .unwrap_or(false);
    tx.finish()?;
    if newer {
        return Err(Opening::Foreign(
            "an SQLite database, an OpenCode store whose messages are in a session_message \
             table (a newer layout), not in message and part; not read"
                .into(),
        ));
    }
    Ok((conn, sessions))
}

/// The columns read, per table.
const MESSAGE_COLUMNS: &[&str] = &["id", "session_id", "time_created", "time_updated", "data"];
const PART_COLUMNS: &[&str] = &[
    "id",
    "message_id",
    "session_id",
    "time_created",
    "time_updated",
    "data",
];

/// Whether the database has OpenCode's `message` and `part` tables with the columns read.
fn check_layout(conn: &Connection) -> Result<(), Opening> {
    let columns = |table: &str| -> Result<Vec<String>, rusqlite::Error> {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
        let rows = stmt.query_map([table], |r| r.get::<_, String>(0))?;
        rows.collect()
    };
    let message = columns("message")?;
    let part = columns("part")?;
    if message.is_empty() || part.is_empty() {
        let newer = !columns("session_message")?.is_empty();
        return Err(Opening::Foreign(if newer {
            "an SQLite database, an OpenCode store of a newer layout (a session_message table, no message and \
             part tables); not read"
                .into()
        } else {
            "an SQLite database, not OpenCode's store (no message and part tables); not read".into()
        }));
    }
    let lacks = |have: &[String], want: &[&str]| {
        want.iter()
            .find(|w| !have.iter().any(|h| h == *w))
            .map(|w| w.to_string())
    };
    if let Some(missing) = lacks(&message, MESSAGE_COLUMNS).or_else(|| lacks(&part, PART_COLUMNS)) {
        return Err(Opening::Foreign(format!(
            "an SQLite database, an OpenCode store of a layout not known here (no column {missing}); not read"
        )));
    }
    Ok(())
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

/// A row as read: its id, its session, its message (for a part), its times, its `data`.
struct Row {
    id: String,
    session: String,
    message: String,
    time: i64,
    updated: i64,
    data: Vec<u8>,
}

/// A row's `data` column as bytes (text or blob; anything else as SQLite shows it).
fn data_of(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Vec<u8>> {
    Ok(match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
        rusqlite::types::ValueRef::Null => b"null".to_vec(),
        other => format!("{other:?}").into_bytes(),
    })
}

/// The rows a query gives, with `(id, session, message, time_created, time_updated, data)`
/// as its columns (`message` empty for a message row).
fn rows_of(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<Row>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(Row {
            id: r.get(0)?,
            session: r.get(1)?,
            message: r.get(2)?,
            time: r.get(3)?,
            updated: r.get(4)?,
            data: data_of(r, 5)?,
        });
    }
    Ok(out)
}

const MESSAGES_OF_SESSION: &str = "SELECT id, session_id, '', time_created, time_updated, data \
     FROM message WHERE session_id = ?1 ORDER BY time_created, id";
const PARTS_OF_SESSION: &str = "SELECT id, session_id, message_id, time_created, time_updated, \
     data FROM part WHERE session_id = ?1 ORDER BY message_id, id";
const MESSAGES_SINCE: &str = "SELECT id, session_id, '', time_created, time_updated, data \
     FROM message WHERE time_updated >= ?1 ORDER BY time_created, id";
const PARTS_OF_MESSAGE: &str = "SELECT id, session_id, message_id, time_created, time_updated, \
     data FROM part WHERE message_id = ?1 ORDER BY id";
const PARTS_SINCE: &str = "SELECT id, session_id, message_id, time_created, time_updated, data \
     FROM part WHERE time_updated >= ?1 ORDER BY time_created, id";

/// What a follow of the store has written: the rows taken (a message with its role), the
/// latest `time_updated` seen, and the database's `data_version` then.
#[derive(Debug, Default)]
struct Live {
    messages: HashMap<String, Option<String>>,
    parts: std::collections::HashSet<String>,
    seen: i64,
    version: Option<i64>,
    /// The follow ends: messages are taken as they stand, finished or not.
    all: bool,
}

/// How far back of the latest `time_updated` seen a follow looks again for rows: a row a
/// slower writer committed late, stamped a little earlier, is still found.
const LOOK_BACK_MS: i64 = 60_000;

/// The records of `messages` (in the order given), each followed by its parts (from
/// `parts`, by message id), then the parts whose message is not among them (in `order`),
/// into `out`, their rows' names into `labels`. When following (`live`), a message is
/// taken once it is finished ([`finished`]), and a row only once; a part waits for its
/// message.
fn write_rows(
    messages: &[Row],
    mut parts: HashMap<String, Vec<Row>>,
    order: &[String],
    mut live: Option<&mut Live>,
    out: &mut Vec<u8>,
    labels: &mut Vec<Box<str>>,
) {
    for m in messages {
        let mine = parts.remove(&m.id).unwrap_or_default();
        // The message's role, and whether it is written now (a follow took it before).
        let taken = match live.as_deref_mut() {
            None => Some((write_row(out, &m.session, None, None, m), true)),
            Some(l) => {
                l.seen = l.seen.max(m.updated);
                match l.messages.get(&m.id) {
                    Some(role) => Some((role.clone(), false)),
                    None if l.all || finished(&m.data, !mine.is_empty()) => {
                        let role = write_row(out, &m.session, None, None, m);
                        l.messages.insert(m.id.clone(), role.clone());
                        Some((role, true))
                    }
                    None => None,
                }
            }
        };
        let Some((role, written)) = taken else {
            continue;
        };
        if written {
            labels.push(format!("message:{}", m.id).into());
        }
        for p in &mine {
            write_part(live.as_deref_mut(), p, role.as_deref(), out, labels);
        }
    }
    for message in order {
        let role = match live.as_deref() {
            None => None,
            Some(l) => match l.messages.get(message) {
                Some(role) => role.clone(),
                // In a follow, a part waits for its message (unless the follow ends).
                None if !l.all => continue,
                None => None,
            },
        };
        for p in parts.remove(message).unwrap_or_default() {
            write_part(live.as_deref_mut(), &p, role.as_deref(), out, labels);
        }
    }
}

/// Writes part `p` (of a message of `role`), once in a follow.
fn write_part(
    live: Option<&mut Live>,
    p: &Row,
    role: Option<&str>,
    out: &mut Vec<u8>,
    labels: &mut Vec<Box<str>>,
) {
    if let Some(l) = live {
        l.seen = l.seen.max(p.updated);
        if l.parts.contains(&p.id) || !(l.all || part_finished(&p.data)) {
            return;
        }
        l.parts.insert(p.id.clone());
    }
    write_row(out, &p.session, Some(&p.message), role, p);
    labels.push(format!("part:{}", p.id).into());
}

/// Whether a message is finished, so a follow takes it: a user message once it has a part
/// (its text), an assistant message once it has `time.completed` or an `error`.
fn finished(data: &[u8], has_parts: bool) -> bool {
    let head: DataHead = serde_json::from_slice(data).unwrap_or_default();
    match head.role.as_deref() {
        Some("user") => has_parts,
        Some("assistant") => {
            head.error.is_some() || head.time.is_some_and(|t| t.completed.is_some())
        }
        // Not a message ndjq knows, or not JSON: as it stands.
        _ => true,
    }
}

/// Whether a part is finished, so a follow takes it: a tool part once its state is
/// `completed` or `error`, a text or reasoning part with a `time` once it has `time.end`;
/// any other at once.
fn part_finished(data: &[u8]) -> bool {
    #[derive(serde::Deserialize, Default)]
    struct PartHead {
        #[serde(rename = "type")]
        ty: Option<String>,
        state: Option<StateHead>,
        time: Option<EndHead>,
    }
    #[derive(serde::Deserialize)]
    struct StateHead {
        status: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct EndHead {
        end: Option<serde::de::IgnoredAny>,
    }
    let head: PartHead = serde_json::from_slice(data).unwrap_or_default();
    match head.ty.as_deref() {
        Some("tool") => matches!(
            head.state.and_then(|s| s.status).as_deref(),
            Some("completed" | "error")
        ),
        Some("text" | "reasoning") => head.time.is_none_or(|t| t.end.is_some()),
        _ => true,
    }
}

/// One session's records, read in one short read transaction: each message (in time
/// order) followed by its parts (in id order, the order OpenCode made them); parts whose
/// message is gone last.
fn read_session(
    conn: &Connection,
    session: &str,
    live: Option<&mut Live>,
    out: &mut Vec<u8>,
    labels: &mut Vec<Box<str>>,
) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    let messages = rows_of(conn, MESSAGES_OF_SESSION, [session])?;
    let parts = rows_of(conn, PARTS_OF_SESSION, [session])?;
    tx.finish()?;
    let (parts, order) = by_message(parts);
    write_rows(&messages, parts, &order, live, out, labels);
    Ok(())
}

/// What changed since a follow last looked (rows updated since a little before the latest
/// seen), in one read transaction: messages newly finished, with their parts, then parts
/// added to messages already taken.
fn read_changes(
    conn: &Connection,
    live: &mut Live,
    out: &mut Vec<u8>,
    labels: &mut Vec<Box<str>>,
) -> rusqlite::Result<()> {
    let since = live.seen.saturating_sub(LOOK_BACK_MS);
    let tx = conn.unchecked_transaction()?;
    let messages: Vec<Row> = rows_of(conn, MESSAGES_SINCE, [since])?
        .into_iter()
        .filter(|m| !live.messages.contains_key(&m.id))
        .collect();
    let mut parts = Vec::new();
    for m in &messages {
        parts.extend(rows_of(conn, PARTS_OF_MESSAGE, [&m.id])?);
    }
    let late = rows_of(conn, PARTS_SINCE, [since])?;
    tx.finish()?;
    let (parts, order) = by_message(parts);
    write_rows(&messages, parts, &order, Some(live), out, labels);
    let (late, order) = by_message(late);
    write_rows(&[], late, &order, Some(live), out, labels);
    Ok(())
}

/// Parts by message id, and the message ids in the order first met.
fn by_message(parts: Vec<Row>) -> (HashMap<String, Vec<Row>>, Vec<String>) {
    let mut by: HashMap<String, Vec<Row>> = HashMap::new();
    let mut order = Vec::new();
    for p in parts {
        if !by.contains_key(&p.message) {
            order.push(p.message.clone());
        }
        by.entry(p.message.clone()).or_default().push(p);
    }
    (by, order)
}

/// Whether `dir` is the folder of JSON files OpenCode kept its sessions in before 1.2:
/// `storage`, holding `message/<session>/<message>.json` (and `part/<message>/<part>.json`).
pub fn is_legacy_storage(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == "storage") && dir.join("message").is_dir()
}

/// Opens OpenCode's JSON storage of before 1.2 (`dir` is its `storage` folder): its
/// sessions, in the order they began (message ids grow with time).
fn open_files(dir: &Path) -> Result<StoreReader, Error> {
    let err = |source| Error::Open {
        path: dir.to_path_buf(),
        source,
    };
    let mut sessions: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(dir.join("message")).map_err(err)? {
        let entry = entry.map_err(err)?;
        let Ok(session) = entry.file_name().into_string() else {
            continue;
        };
        if !entry.path().is_dir() {
            continue;
        }
        let first = json_files(&entry.path())
            .map_err(err)?
            .into_iter()
            .next()
            .map(|(id, _)| id);
        if let Some(first) = first {
            sessions.push((first, session));
        }
    }
    sessions.sort();
    Ok(StoreReader {
        name: register(dir),
        from: Backend::Files(dir.to_path_buf()),
        sessions: sessions
            .into_iter()
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .into_iter(),
        buf: Vec::new(),
        pos: 0,
        live: None,
        _copy: None,
    })
}

/// The `*.json` files of a folder (none when it is missing), by name: their stems (the
/// ids) and paths.
fn json_files(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).map(String::from);
        if let (Some(stem), true) = (stem, path.extension().is_some_and(|e| e == "json")) {
            out.push((stem, path));
        }
    }
    out.sort();
    Ok(out)
}

/// One session of the JSON storage as records: its messages (by their `time.created`),
/// each followed by its parts (by id), as [`read_session`] gives a database's.
fn read_session_files(
    storage: &Path,
    session: &str,
    out: &mut Vec<u8>,
    labels: &mut Vec<Box<str>>,
) -> io::Result<()> {
    let row = |id: String, message: &str, path: &Path| -> io::Result<Row> {
        let data = compact(&std::fs::read(path)?);
        let time = serde_json::from_slice::<DataHead>(&data)
            .ok()
            .and_then(|h| h.time)
            .and_then(|t| t.created.or(t.start))
            .unwrap_or(0);
        Ok(Row {
            id,
            session: session.to_string(),
            message: message.to_string(),
            time,
            updated: time,
            data,
        })
    };
    let mut messages = Vec::new();
    for (id, path) in json_files(&storage.join("message").join(session))? {
        messages.push(row(id, "", &path)?);
    }
    messages.sort_by(|a, b| (a.time, &a.id).cmp(&(b.time, &b.id)));
    let mut parts: HashMap<String, Vec<Row>> = HashMap::new();
    for m in &messages {
        let mut mine = Vec::new();
        for (id, path) in json_files(&storage.join("part").join(&m.id))? {
            let mut p = row(id, &m.id, &path)?;
            if p.time == 0 {
                p.time = m.time;
            }
            mine.push(p);
        }
        parts.insert(m.id.clone(), mine);
    }
    write_rows(&messages, parts, &[], None, out, labels);
    Ok(())
}

/// JSON with the white space between its tokens left out (OpenCode wrote its files
/// indented), so a document is one line; the bytes of its strings are kept as they are.
fn compact(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if !b.is_ascii_whitespace() {
            if b == b'"' {
                in_string = true;
            }
            out.push(b);
        }
    }
    out
}

/// What a row's `data` says of itself: its kind and the ids it already holds.
#[derive(serde::Deserialize, Default)]
struct DataHead {
    role: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    id: Option<serde::de::IgnoredAny>,
    #[serde(rename = "sessionID")]
    session_id: Option<serde::de::IgnoredAny>,
    #[serde(rename = "messageID")]
    message_id: Option<serde::de::IgnoredAny>,
    time: Option<TimeHead>,
    error: Option<serde::de::IgnoredAny>,
}

/// A row's `time`: whether it has `completed`; when it was created (a message) or
/// started (a part), for the JSON storage, which has no time columns.
#[derive(serde::Deserialize, Default)]
struct TimeHead {
    completed: Option<serde::de::IgnoredAny>,
    created: Option<i64>,
    start: Option<i64>,
}

/// Writes one row as a record: a message (`message` is `None`) or a part of `message`
/// (whose role is `role`). Returns a message's role. A `data` that is not a JSON object
/// is written as it is, so the line is reported as the bad record it is.
fn write_row(
    out: &mut Vec<u8>,
    session: &str,
    message: Option<&str>,
    role: Option<&str>,
    row: &Row,
) -> Option<String> {
    // Valid JSON holds a line break only as white space: it becomes a space, so the
    // record stays one line. In a `data` that is not JSON it does the same.
    let data: Vec<u8> = row
        .data
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect();
    let parsed: Option<DataHead> = serde_json::from_slice(&data).ok();
    let trimmed = data.trim_ascii_start();
    let object = parsed.is_some() && trimmed.first() == Some(&b'{');
    let head = parsed.unwrap_or_default();
    let ty = match message {
        None => head.role.clone().unwrap_or_else(|| "message".into()),
        Some(_) => head.ty.clone().unwrap_or_else(|| "part".into()),
    };
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    out.extend_from_slice(b"{\"type\":");
    out.extend_from_slice(quote(&ty).as_bytes());
    out.extend_from_slice(format!(",\"timestamp\":{},\"sessionID\":", row.time).as_bytes());
    out.extend_from_slice(quote(session).as_bytes());
    let role = match message {
        None => head.role.as_deref(),
        Some(_) => role,
    };
    if let Some(role) = role {
        out.extend_from_slice(b",\"role\":");
        out.extend_from_slice(quote(role).as_bytes());
    }
    out.extend_from_slice(if message.is_none() {
        b",\"message\":"
    } else {
        b",\"part\":"
    });
    if object {
        let mut ids: Vec<(&str, &str)> = Vec::new();
        if head.id.is_none() {
            ids.push(("id", &row.id));
        }
        if head.session_id.is_none() {
            ids.push(("sessionID", session));
        }
        if let (Some(m), None) = (message, &head.message_id) {
            ids.push(("messageID", m));
        }
        let rest = &trimmed[1..];
        out.push(b'{');
        for (i, (k, v)) in ids.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(quote(k).as_bytes());
            out.push(b':');
            out.extend_from_slice(quote(v).as_bytes());
        }
        if !ids.is_empty() && rest.trim_ascii_start().first() != Some(&b'}') {
            out.push(b',');
        }
        out.extend_from_slice(rest);
    } else {
        out.extend_from_slice(&data);
    }
    out.extend_from_slice(b"}\n");
    (message.is_none()).then_some(head.role).flatten()
}

/// A copy of a store (its `.db` and `-wal`) in a folder of its own under the system's
/// temporary folder, removed when dropped.
#[derive(Debug)]
struct TempCopy {
    dir: PathBuf,
    db: PathBuf,
}

impl TempCopy {
    fn of(path: &Path) -> io::Result<TempCopy> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ndjq-store-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)?;
        let copy = TempCopy {
            db: dir.join("store.db"),
            dir,
        };
        std::fs::copy(path, &copy.db)?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        match std::fs::copy(&wal, copy.dir.join("store.db-wal")) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(copy)
    }
}

impl Drop for TempCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(data: &str) -> Row {
        Row {
            id: "msg_1".into(),
            session: "ses_a".into(),
            message: "msg_1".into(),
            time: 5,
            updated: 5,
            data: data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_row_becomes_one_record_with_the_ids_its_columns_hold() {
        let mut out = Vec::new();
        let role = write_row(&mut out, "ses_a", None, None, &row(r#"{"role":"user"}"#));
        assert_eq!(role.as_deref(), Some("user"));
        write_row(
            &mut out,
            "ses_a",
            Some("msg_1"),
            Some("user"),
            &row("{\"type\":\"text\",\n\"text\":\"hi\"}"),
        );
        write_row(&mut out, "ses_a", Some("msg_1"), None, &row("{}"));
        write_row(&mut out, "ses_a", None, None, &row("not json"));
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"user","timestamp":5,"sessionID":"ses_a","role":"user","message":{"id":"msg_1","sessionID":"ses_a","role":"user"}}"#,
                r#"{"type":"text","timestamp":5,"sessionID":"ses_a","role":"user","part":{"id":"msg_1","sessionID":"ses_a","messageID":"msg_1","type":"text", "text":"hi"}}"#,
                r#"{"type":"part","timestamp":5,"sessionID":"ses_a","part":{"id":"msg_1","sessionID":"ses_a","messageID":"msg_1"}}"#,
                r#"{"type":"message","timestamp":5,"sessionID":"ses_a","message":not json}"#,
            ]
        );
        for l in &lines[..3] {
            serde_json::from_str::<serde_json::Value>(l).expect("json");
        }
    }

    #[test]
    fn stores_are_found_by_name() {
        for yes in ["opencode.db", "opencode-next.db", "/a/b/opencode-beta.db"] {
            assert!(is_store_name(Path::new(yes)), "{yes}");
        }
        for no in [
            "opencode.db-wal",
            "opencode.db-shm",
            "other.db",
            "opencode.json",
        ] {
            assert!(!is_store_name(Path::new(no)), "{no}");
        }
    }
}
