//! The engine's unit tests: the trackers driven with the operations a reader emits
//! ([`Op`]), with no dialect and no agent.

use super::batch::{excerpt_bytes, EXCERPT_BYTES};
use super::testing::{found, Found};
use super::tracker::At;
use super::*;
use crate::diagnostic::{excerpt, Code};
use std::sync::Arc;

/// One operation of a record, its strings in place (a test's shorthand for an [`Op`]).
#[derive(Clone, Copy)]
enum R {
    Seq([Option<u64>; 3]),
    Chain(bool, Option<&'static str>, Option<&'static str>),
    Init,
    SessionStart(&'static str),
    NoInit(&'static str, &'static str),
    Open(bool),
    End(Option<&'static str>),
    ProcessStart(&'static str),
    OpenTool(&'static str, &'static str),
    CloseTool(&'static str, bool),
    ToolState(&'static str, &'static str, Option<bool>),
    OpenItem(&'static str, &'static str),
    CloseItem(&'static str, Option<&'static str>),
    Request(&'static str, &'static str),
    Response(&'static str),
}

impl R {
    fn push(self, ops: &mut Vec<Op>, text: &mut String) {
        let op = match self {
            R::Seq(values) => Op::Seq(values),
            R::Chain(sidechain, parent, uuid) => Op::Chain {
                sidechain,
                parent: parent.map(|p| put(text, p)),
                uuid: uuid.map(|u| put(text, u)),
            },
            R::Init => Op::Init,
            R::SessionStart(id) => Op::SessionStart { id: put(text, id) },
            R::NoInit(ty, start) => Op::NoInit(NoInit {
                ty: Name::Read(put(text, ty)),
                start,
            }),
            R::Open(replace) => Op::Open { replace },
            R::End(error) => Op::End(error.map(|e| put(text, e))),
            R::ProcessStart(turn_ends) => Op::ProcessStart { turn_ends },
            R::OpenTool(id, name) => Op::OpenTool {
                id: put(text, id),
                name: put(text, name),
            },
            R::CloseTool(id, failed) => Op::CloseTool {
                id: put(text, id),
                failed,
            },
            R::ToolState(id, name, ended) => Op::ToolState {
                id: put(text, id),
                name: put(text, name),
                ended,
            },
            R::OpenItem(id, kind) => Op::OpenItem {
                id: put(text, id),
                kind: put(text, kind),
            },
            R::CloseItem(id, failed) => Op::CloseItem {
                id: put(text, id),
                failed: failed.map(|f| put(text, f)),
            },
            R::Request(key, method) => Op::Request {
                key: put(text, key),
                method: put(text, method),
            },
            R::Response(key) => Op::Response {
                key: put(text, key),
            },
        };
        ops.push(op);
    }
}

/// A record: its text (for the excerpts) and the operations its reader emits.
type Rec = (String, Vec<R>);

fn rec(raw: &str, ops: &[R]) -> Rec {
    (raw.to_string(), ops.to_vec())
}

/// Each record's line (from 1) and offset.
fn places(records: &[Rec]) -> impl Iterator<Item = (u64, u64, &Rec)> {
    records
        .iter()
        .scan(0u64, |offset, r| {
            let at = *offset;
            *offset += r.0.len() as u64 + 1;
            Some(at)
        })
        .zip(records)
        .enumerate()
        .map(|(i, (offset, r))| (i as u64 + 1, offset, r))
}

/// The findings of `records` in one pass, the input's end owing `owed`.
fn tracked(records: &[Rec], owed: InputEnd, seq_field: Option<&str>, cap: usize) -> Found {
    let file: Arc<str> = Arc::from("t");
    let mut tracker = GapTracker::with_cap(seq_field.map(String::from), cap);
    tracker.begin(&file);
    let mut out = Vec::new();
    for (line, offset, (raw, rs)) in places(records) {
        let (mut ops, mut text) = (Vec::new(), String::new());
        for r in rs {
            r.push(&mut ops, &mut text);
        }
        let at = At {
            file: &file,
            line,
            offset,
            raw: raw.as_bytes(),
        };
        tracker.apply(&ops, &text, &at, &mut out);
    }
    let mut ending = tracker.ending_as(owed);
    while tracker.next_found(&mut ending, &mut out, usize::MAX) {}
    found(out)
}

/// The findings of `records` collected in blocks of `chunk` records and replayed, as the
/// merge of batch mode does.
fn replayed(records: &[Rec], owed: InputEnd, seq_field: Option<&str>, chunk: usize) -> Found {
    let mut blocks = Vec::new();
    let mut facts = Facts::default();
    for (line, offset, (raw, rs)) in places(records) {
        let from = facts.ops.len();
        for r in rs {
            r.push(&mut facts.ops, &mut facts.text);
        }
        facts.record(from, line, offset, raw.as_bytes(), line as usize);
        if (line as usize).is_multiple_of(chunk) {
            blocks.push(facts.take());
        }
    }
    blocks.push(facts.take());
    let file: Arc<str> = Arc::from("t");
    let mut tracker = GapTracker::new(seq_field.map(String::from));
    tracker.begin(&file);
    let mut out = Vec::new();
    for facts in &blocks {
        let mut marked = Vec::new();
        tracker.replay(facts, &mut marked);
        out.extend(marked.into_iter().map(|(_, d)| d));
    }
    let mut ending = tracker.ending_as(owed);
    while tracker.next_found(&mut ending, &mut out, usize::MAX) {}
    found(out)
}

fn codes(found: &Found) -> Vec<(u64, Code)> {
    found.iter().map(|f| (f.0, f.1)).collect()
}

/// What a reader emits for a message of a session that needs a start: the start checked
/// for, and the session open from here.
fn message(ty: &'static str, more: &[R]) -> Vec<R> {
    let mut ops = vec![R::NoInit(ty, "the start"), R::Open(false)];
    ops.extend_from_slice(more);
    ops
}

/// Facts collected in blocks of any size and replayed give the findings of one pass,
/// excerpts included: the operations a block leaves out (a session start checked
/// again, a session opened again) and the records without any (only counted, for the
/// detection window of the sequence field) change nothing.
#[test]
fn facts_replayed_in_blocks_find_what_one_pass_finds() {
    let long = format!("{{\"result\":\"{}\"}}", "out ".repeat(80));
    let ids: Vec<&'static str> = (0..40)
        .flat_map(|i| {
            [
                format!("call_{i}"),
                format!("call_x{i}"),
                format!("item_{i}"),
            ]
        })
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    // A session without its start, sessions ended in errors, orphans, repeated answers,
    // items, calls stated whole, requests.
    let mut stream = Vec::new();
    for i in 0..40 {
        let [id, other, item] = [ids[3 * i], ids[3 * i + 1], ids[3 * i + 2]];
        stream.push(rec("{\"text\":\"hi\"}", &message("text", &[])));
        stream.push(rec(
            "{\"call\":1}",
            &message("call", &[R::OpenTool(id, "Run")]),
        ));
        let answer = |failed| message("answer", &[R::CloseTool(id, failed)]);
        match i % 5 {
            0 => stream.push(rec(&long, &answer(true))),
            1 => stream.push(rec(
                &long,
                &message("answer", &[R::CloseTool(other, false)]),
            )),
            2 => {
                stream.push(rec(&long, &answer(false)));
                stream.push(rec(&long, &answer(true)));
            }
            3 => {}
            _ => stream.push(rec(
                &long,
                &message(
                    "answer",
                    &[R::CloseTool(id, false), R::CloseTool(id, false)],
                ),
            )),
        }
        match i % 4 {
            0 => stream.push(rec("{\"item\":1}", &[R::OpenItem(item, "command")])),
            1 => stream.push(rec("{\"item\":2}", &[R::CloseItem(ids[3 * i - 1], None)])),
            2 => stream.push(rec("{\"item\":3}", &[R::CloseItem(item, Some("Run"))])),
            _ => stream.push(rec("{\"state\":1}", &[R::ToolState(item, "Edit", None)])),
        }
        if i % 6 == 5 {
            stream.push(rec(
                "{\"state\":2}",
                &[R::ToolState(ids[3 * i - 1], "Edit", Some(true))],
            ));
            stream.push(rec("{\"rpc\":1}", &[R::Request(id, "m")]));
            stream.push(rec("{\"rpc\":2}", &[R::Request(id, "m")]));
            stream.push(rec("{\"rpc\":3}", &[R::Response(other)]));
        }
        // Sessions ended, then begun again by a start or by the next message.
        if i % 7 == 6 {
            stream.push(rec(
                "{\"end\":1}",
                &[R::End(Some("the session ended in an error"))],
            ));
        }
        if i % 14 == 6 {
            stream.push(rec(
                "{\"start\":1}",
                &[R::Init, R::SessionStart(["s1", "s2"][i % 28 / 14])],
            ));
        }
        if i == 30 {
            stream.push(rec("{\"process\":1}", &[R::ProcessStart("an end")]));
        }
    }
    // Ended, then begun again by a message: open at the end.
    stream.push(rec("{\"end\":2}", &[R::End(None)]));
    stream.push(rec("{\"text\":\"hi\"}", &message("text", &[])));
    stream.push(rec("{\"text\":\"hi\"}", &message("text", &[])));
    // Sequence numbers after records without any: within the detection window, and
    // past it (not looked for any more).
    let numbered = |skip: usize, named: bool| {
        let mut records = vec![rec("{\"a\":1}", &[]); skip];
        for n in [1, 2, 5, 5, 3, 9] {
            let values = if named {
                [Some(n), None, None]
            } else {
                [None, None, Some(n)]
            };
            records.push(rec("{\"n\":1}", &[R::Seq(values)]));
        }
        records
    };
    let inputs = [
        (stream, InputEnd::SessionResult, None),
        (numbered(10, false), InputEnd::Nothing, None),
        (numbered(63, false), InputEnd::Nothing, None),
        (numbered(64, false), InputEnd::Nothing, None),
        (numbered(70, false), InputEnd::Nothing, None),
        (numbered(70, true), InputEnd::Nothing, Some("seq")),
    ];
    for (records, owed, seq_field) in &inputs {
        let want = tracked(records, *owed, *seq_field, DEFAULT_CAP);
        for chunk in [1, 2, 3, 5, 8, 13, 64, 1000] {
            let got = replayed(records, *owed, *seq_field, chunk);
            assert_eq!(got, want, "blocks of {chunk}");
        }
    }
    // The stream's findings carry excerpts cut from the facts' copy of each record.
    let stream = tracked(&inputs[0].0, InputEnd::SessionResult, None, DEFAULT_CAP);
    assert!(stream.iter().any(|f| f.3.ends_with('…')), "{stream:?}");
    assert!(stream.len() > 40, "{stream:?}");
    for code in [
        Code::SessNoInit,
        Code::SessErrorResult,
        Code::ToolError,
        Code::ToolOrphanResult,
        Code::ToolOrphanUse,
        Code::RpcDuplicateId,
        Code::RpcUnmatchedResponse,
        Code::RpcUnanswered,
    ] {
        assert!(stream.iter().any(|f| f.1 == code), "{code:?} in {stream:?}");
    }
    let last = inputs[0].0.len() as u64 - 1;
    assert!(stream.contains(&(
        last,
        Code::SessNoResult,
        format!("session that began at line {last} has no result (stream ended)"),
        String::new()
    )));
    // Found within the window, not past it, and always with the field named.
    let seq = |i: usize| tracked(&inputs[i].0, inputs[i].1, inputs[i].2, DEFAULT_CAP);
    assert_eq!(seq(2).len(), 4);
    assert!(seq(3).is_empty());
    assert_eq!(seq(5).len(), 4);
}

/// The bytes the facts keep of a record give its whole excerpt: ASCII, multi-byte
/// characters, control characters, bad bytes and characters cut at every length.
#[test]
fn excerpt_bytes_give_the_whole_records_excerpt() {
    let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
    let pieces: [&[u8]; 8] = [
        b"a",
        b"{\"k\":",
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\x01",
        b"\xff",
        b"\t",
    ];
    for round in 0..4000 {
        let mut raw = Vec::new();
        let ascii_head = round % 2 == 0;
        if ascii_head {
            raw.extend(std::iter::repeat_n(b'x', (rng.next_u64() % 70) as usize));
        }
        for _ in 0..rng.next_u64() % 120 {
            raw.extend_from_slice(pieces[(rng.next_u64() % 8) as usize]);
        }
        let kept = excerpt_bytes(&raw);
        assert!(kept.len() <= EXCERPT_BYTES);
        assert_eq!(excerpt(kept, None), excerpt(&raw, None), "{raw:?}");
    }
}

#[test]
fn sequence_gaps_duplicates_and_disorder() {
    let records: Vec<Rec> = [1, 2, 5, 5, 3, 7]
        .into_iter()
        .map(|n| rec("{\"seq\":1}", &[R::Seq([Some(n), None, None])]))
        .collect();
    let got = tracked(&records, InputEnd::Nothing, None, DEFAULT_CAP);
    assert_eq!(
        codes(&got),
        [
            (3, Code::SeqGap),
            (4, Code::SeqDuplicate),
            (5, Code::SeqOutOfOrder),
            (6, Code::SeqGap)
        ]
    );
    assert_eq!(got[0].2, "seq jumps from 2 to 5: missing 3-4");
    assert!(got[3].2.contains("missing 6"), "{got:?}");
}

/// Requests are matched by their key, and a full set of open requests drops the oldest.
#[test]
fn requests_are_matched_by_key_and_the_cap_drops_the_oldest() {
    let records = [
        rec("{\"id\":1}", &[R::Request("1", "a")]),
        rec("{\"id\":\"1\"}", &[R::Response("\"1\"")]),
        rec("{\"id\":2}", &[R::Request("2", "b")]),
        rec("{\"id\":3}", &[R::Request("3", "c")]),
    ];
    let got = tracked(&records, InputEnd::Nothing, None, 2);
    assert_eq!(
        codes(&got),
        [
            (2, Code::RpcUnmatchedResponse),
            (4, Code::RpcUnanswered),
            (3, Code::RpcUnanswered),
            (4, Code::RpcUnanswered),
        ]
    );
    assert!(got[1].2.contains("more than 2 open requests"), "{got:?}");
}

/// Once the uuid set is full (reported once, as info), later parents are not checked
/// and later uuids not kept: a parent that would be a broken chain below the cap is
/// not one after it, and the cap is never reported twice.
#[test]
fn a_full_uuid_set_reports_once_and_checks_no_more_parents() {
    let link = |uuid, parent| rec("{\"uuid\":1}", &[R::Chain(false, parent, Some(uuid))]);
    let records = [
        link("a", None),
        link("b", Some("gone")), // line 2: broken chain, below the cap
        link("c", Some("b")),    // line 3: the third uuid fills the set of 2
        link("d", Some("gone")), // not checked any more
        link("e", Some("a")),
    ];
    let found = tracked(&records, InputEnd::Nothing, None, 2);
    assert_eq!(
        codes(&found),
        [(2, Code::SeqGap), (3, Code::SeqGap)],
        "{found:?}"
    );
    assert!(found[0].2.contains("broken chain"), "{found:?}");
    assert!(found[1].2.contains("uuids"), "{found:?}");
}

/// A call stated whole in several records is opened once and answered once; a process
/// that starts again leaves its turn and items open for good.
#[test]
fn calls_stated_whole_and_processes_started_again() {
    let records = [
        rec("{\"s\":1}", &[R::ToolState("c1", "Edit", None)]),
        rec("{\"s\":2}", &[R::ToolState("c1", "Edit", Some(true))]),
        rec("{\"s\":3}", &[R::ToolState("c1", "Edit", Some(true))]),
        rec("{\"p\":1}", &[R::ProcessStart("a turn end")]),
        rec("{\"t\":1}", &[R::Open(true), R::OpenItem("i1", "command")]),
        rec("{\"p\":2}", &[R::ProcessStart("a turn end")]),
        rec("{\"t\":2}", &[R::Open(true), R::OpenItem("i1", "command")]),
    ];
    let got = tracked(
        &records,
        InputEnd::Process {
            turn_ends: "a turn end",
        },
        None,
        8,
    );
    let messages: Vec<(u64, Code, &str)> = got.iter().map(|f| (f.0, f.1, f.2.as_str())).collect();
    assert_eq!(
        messages,
        [
            (
                2,
                Code::ToolError,
                "tool_result for c1 (Edit, line 1) is an error"
            ),
            (
                5,
                Code::SessNoResult,
                "turn started at line 5 has no a turn end (the process ended)"
            ),
            (
                5,
                Code::ToolOrphanUse,
                "item i1 (command) started at line 5 never completed (the process ended)"
            ),
            (
                7,
                Code::SessNoResult,
                "turn started at line 7 has no a turn end (stream ended)"
            ),
            (
                7,
                Code::ToolOrphanUse,
                "item i1 (command) started at line 7 never completed (stream ended)"
            ),
        ]
    );
}
