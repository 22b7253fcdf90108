//! A store under follow (`--follow`): what was taken so far, what changed since, and when a
//! message or part is finished, so it is taken.

use super::record::DataHead;
use super::rows::{by_message, rows_of, write_rows, Row};
use rusqlite::Connection;
use std::collections::HashMap;

/// What a follow of the store has written: the rows taken (a message with its role), the
/// latest `time_updated` seen, and the database's `data_version` then.
#[derive(Debug, Default)]
pub(super) struct Live {
    pub(super) messages: HashMap<String, Option<String>>,
    pub(super) parts: std::collections::HashSet<String>,
    pub(super) seen: i64,
    pub(super) version: Option<i64>,
    /// The follow ends: messages are taken as they stand, finished or not.
    pub(super) all: bool,
}

/// How far back of the latest `time_updated` seen a follow looks again for rows: a row a
/// slower writer committed late, stamped a little earlier, is still found.
pub(super) const LOOK_BACK_MS: i64 = 60_000;

pub(super) const MESSAGES_SINCE: &str =
    "SELECT id, session_id, '', time_created, time_updated, data \
     FROM message WHERE time_updated >= ?1 ORDER BY time_created, id";
pub(super) const PARTS_OF_MESSAGE: &str =
    "SELECT id, session_id, message_id, time_created, time_updated, \
     data FROM part WHERE message_id = ?1 ORDER BY id";
pub(super) const PARTS_SINCE: &str =
    "SELECT id, session_id, message_id, time_created, time_updated, data \
     FROM part WHERE time_updated >= ?1 ORDER BY time_created, id";

/// What changed since a follow last looked (rows updated since a little before the latest
/// seen), in one read transaction: messages newly finished, with their parts, then parts
/// added to messages already taken.
pub(super) fn read_changes(
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

/// Whether a message is finished, so a follow takes it: a user message once it has a part
/// (its text), an assistant message once it has `time.completed` or an `error`.
pub(super) fn finished(data: &[u8], has_parts: bool) -> bool {
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
pub(super) fn part_finished(data: &[u8]) -> bool {
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
