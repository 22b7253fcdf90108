//! The `storage` folder of JSON files OpenCode kept its sessions in before 1.2, read as the
//! database is.

use super::record::DataHead;
use super::rows::{write_rows, Row};
use super::{register, Backend, StoreReader};
use crate::error::Error;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

/// Whether `dir` is the folder of JSON files OpenCode kept its sessions in before 1.2:
/// `storage`, holding `message/<session>/<message>.json` (and `part/<message>/<part>.json`).
pub fn is_legacy_storage(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == "storage") && dir.join("message").is_dir()
}

/// Opens OpenCode's JSON storage of before 1.2 (`dir` is its `storage` folder): its
/// sessions, in the order they began (message ids grow with time).
pub(super) fn open_files(dir: &Path) -> Result<StoreReader, Error> {
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
pub(super) fn json_files(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
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
pub(super) fn read_session_files(
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
pub(super) fn compact(json: &[u8]) -> Vec<u8> {
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
