//! What a Claude transcript record tells the gap trackers: its place in the `parentUuid`
//! chain, and its message's tool blocks (read as the stream's, `claude::gaps::tools`).
//! Transcripts have no result line, so their sessions never lack one.

use crate::dialect::RecordInfo;
use crate::gaps::{put, seq_op, Op, SEQ_FIELDS};
use crate::json::Json;

/// A transcript record: its chain, then its tool blocks. One walk over the record's keys
/// finds its sequence candidates, its chain and its message (this runs for every record;
/// docs/PERFORMANCE.md, "Context across blocks").
pub(in crate::dialect) fn ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    let [seq, sequence, event_id, sidechain, parent, uuid, message] = value.get_many([
        SEQ_FIELDS[0],
        SEQ_FIELDS[1],
        SEQ_FIELDS[2],
        "isSidechain",
        "parentUuid",
        "uuid",
        "message",
    ]);
    seq_op([seq, sequence, event_id], ops);
    chain(sidechain, parent, uuid, ops, text);
    super::super::claude::gaps::tools(info, message, ops, text);
    true
}

/// parentUuid chains: a parent never seen in the input is a broken chain. Subagent
/// (sidechain) files start from a uuid of the main session, so they are not checked;
/// `parentUuid: null` (the first record, a compact boundary) is not a parent.
fn chain(
    sidechain: Option<Json<'_>>,
    parent: Option<Json<'_>>,
    uuid: Option<Json<'_>>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
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
