//! The rows of a store as they are read: a session's messages and parts in one read
//! transaction, written out in record order (each message followed by its parts).

use super::live::{finished, part_finished, Live};
use super::record::write_row;
use rusqlite::Connection;
use std::collections::HashMap;

/// A row as read: its id, its session, its message (for a part), its times, its `data`.
pub(super) struct Row {
    pub(super) id: String,
    pub(super) session: String,
    pub(super) message: String,
    pub(super) time: i64,
    pub(super) updated: i64,
    pub(super) data: Vec<u8>,
}

/// A row's `data` column as bytes (text or blob; anything else as SQLite shows it).
pub(super) fn data_of(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Vec<u8>> {
    Ok(match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
        rusqlite::types::ValueRef::Null => b"null".to_vec(),
        other => format!("{other:?}").into_bytes(),
    })
}

/// The rows a query gives, with `(id, session, message, time_created, time_updated, data)`
/// as its columns (`message` empty for a message row).
pub(super) fn rows_of(
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

pub(super) const MESSAGES_OF_SESSION: &str =
    "SELECT id, session_id, '', time_created, time_updated, data \
     FROM message WHERE session_id = ?1 ORDER BY time_created, id";
pub(super) const PARTS_OF_SESSION: &str =
    "SELECT id, session_id, message_id, time_created, time_updated, \
     data FROM part WHERE session_id = ?1 ORDER BY message_id, id";

/// One session's records, read in one short read transaction: each message (in time
/// order) followed by its parts (in id order, the order OpenCode made them); parts whose
/// message is gone last.
pub(super) fn read_session(
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

/// Parts by message id, and the message ids in the order first met.
pub(super) fn by_message(parts: Vec<Row>) -> (HashMap<String, Vec<Row>>, Vec<String>) {
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

/// The records of `messages` (in the order given), each followed by its parts (from
/// `parts`, by message id), then the parts whose message is not among them (in `order`),
/// into `out`, their rows' names into `labels`. When following (`live`), a message is
/// taken once it is finished ([`finished`]), and a row only once; a part waits for its
/// message.
pub(super) fn write_rows(
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
pub(super) fn write_part(
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
