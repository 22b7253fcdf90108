//! What a Claude transcript record tells the gap trackers: its place in the `parentUuid`
//! chain, and its message's tool blocks (read as the stream's, `claude::gaps::tools`).
//! Transcripts have no result line, so their sessions never lack one.

use crate::dialect::RecordInfo;
use crate::gaps::{put, Op};
use crate::json::Json;

/// A transcript record: its chain, then its tool blocks.
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    chain(value, ops, text);
    super::super::claude::gaps::tools(info, value, ops, text);
}

/// parentUuid chains: a parent never seen in the input is a broken chain. Subagent
/// (sidechain) files start from a uuid of the main session, so they are not checked;
/// `parentUuid: null` (the first record, a compact boundary) is not a parent.
fn chain(value: Json<'_>, ops: &mut Vec<Op>, text: &mut String) {
    let [sidechain, parent, uuid] = value.get_many(["isSidechain", "parentUuid", "uuid"]);
    let sidechain = sidechain.and_then(|v| v.as_bool()) == Some(true);
    let parent = parent.and_then(|v| v.as_str()).map(|s| put(text, s));
    let uuid = uuid.and_then(|v| v.as_str()).map(|s| put(text, s));
    if sidechain || parent.is_some() || uuid.is_some() {
        ops.push(Op::Chain {
            sidechain,
            parent,
            uuid,
        });
    }
}
