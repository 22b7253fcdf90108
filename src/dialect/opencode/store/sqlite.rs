//! The store's SQLite database: told by its magic bytes, opened read-only in place with its
//! `-wal` (or, where SQLite cannot, a copy of both), its layout checked, its sessions listed.

use rusqlite::{Connection, OpenFlags};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The first bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How long a read waits on a busy database (OpenCode writing, a checkpoint) before it
/// gives up.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

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

/// SQLite's `data_version`: it changes when another connection commits a change.
pub(super) fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
}

/// Whether SQLite refused to open a database where it is (it could not make or map the
/// files beside it), rather than finding it broken.
pub(super) fn in_place_refused(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied)
    )
}

/// Why a database was not opened.
pub(super) enum Opening {
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
pub(super) fn open_at(path: &Path) -> Result<(Connection, Vec<String>), Opening> {
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
pub(super) const MESSAGE_COLUMNS: &[&str] =
    &["id", "session_id", "time_created", "time_updated", "data"];
pub(super) const PART_COLUMNS: &[&str] = &[
    "id",
    "message_id",
    "session_id",
    "time_created",
    "time_updated",
    "data",
];

/// Whether the database has OpenCode's `message` and `part` tables with the columns read.
pub(super) fn check_layout(conn: &Connection) -> Result<(), Opening> {
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

/// A copy of a store (its `.db` and `-wal`) in a folder of its own under the system's
/// temporary folder, removed when dropped.
#[derive(Debug)]
pub(super) struct TempCopy {
    pub(super) dir: PathBuf,
    pub(super) db: PathBuf,
}

impl TempCopy {
    pub(super) fn of(path: &Path) -> io::Result<TempCopy> {
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
