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

#[cfg(test)]
mod tests {
    //! Transcript records through the trackers.

    use crate::diagnostic::Code;
    use crate::gaps::testing::gaps;

    /// Once the uuid set is full (reported once, as info), later parents are not checked
    /// and later uuids not kept: a parent that would be a broken chain below the cap is
    /// not one after it, and the cap is never reported twice.
    #[test]
    fn a_full_uuid_set_reports_once_and_checks_no_more_parents() {
        let log = |uuid: &str, parent: &str| {
            format!(
                "{{\"parentUuid\":{parent},\"isSidechain\":false,\"sessionId\":\"s\",\
                 \"type\":\"user\",\"uuid\":\"{uuid}\",\"timestamp\":\"t\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"x\"}}}}\n"
            )
        };
        let mut text = log("a", "null");
        text += &log("b", "\"gone\""); // line 2: broken chain, below the cap
        text += &log("c", "\"b\""); // line 3: the third uuid fills the set of 2
        text += &log("d", "\"gone\""); // not checked any more
        text += &log("e", "\"a\"");
        let found = gaps(&text, 2);
        let codes: Vec<(u64, Code)> = found.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(codes, [(2, Code::SeqGap), (3, Code::SeqGap)], "{found:?}");
        assert!(found[0].2.contains("broken chain"), "{found:?}");
        assert!(found[1].2.contains("uuids"), "{found:?}");
    }
}
