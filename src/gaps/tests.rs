//! The engine's unit tests.

use super::batch::{excerpt_bytes, EXCERPT_BYTES};
use super::*;
use crate::diagnostic::{excerpt, Code, Diagnostic};
use crate::dialect::Dialect;
use crate::pipeline::{Consumer, Flow, Options, Pipeline, Record};
use std::io;
use std::sync::Arc;

fn gaps(text: &str, cap: usize) -> Vec<(u64, Code, String)> {
    let mut pipeline = Pipeline::new(Options::default());
    let mut tracker = GapTracker::with_cap(None, cap);
    let name: Arc<str> = Arc::from("t");
    pipeline
        .run(&name, text.as_bytes(), &mut tracker)
        .expect("reads");
    tracker
        .take_found()
        .into_iter()
        .map(|d| (d.line, d.code, d.message))
        .collect()
}

/// Collects the facts of every record, taking them every `chunk` records as a block.
struct Collector {
    tracker: GapTracker,
    facts: Facts,
    chunk: usize,
    seen: usize,
    blocks: Vec<Facts>,
    dialect: Option<Dialect>,
}

impl Consumer for Collector {
    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.tracker.collect(record, self.seen, &mut self.facts);
        self.seen += 1;
        if self.seen.is_multiple_of(self.chunk) {
            self.blocks.push(self.facts.take());
        }
        Ok(Flow::Continue)
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.blocks.push(self.facts.take());
        self.dialect = dialect;
        Ok(())
    }
}

type Found = Vec<(u64, Code, String, String)>;

fn found(ds: impl IntoIterator<Item = Diagnostic>) -> Found {
    ds.into_iter()
        .map(|d| (d.line, d.code, d.message, d.excerpt))
        .collect()
}

/// The findings of collecting the facts in blocks of `chunk` records and replaying
/// them, as the merge of batch mode does.
fn replayed(text: &str, chunk: usize, seq_field: Option<&str>) -> Found {
    let name: Arc<str> = Arc::from("t");
    let mut collector = Collector {
        tracker: GapTracker::new(seq_field.map(String::from)),
        facts: Facts::default(),
        chunk,
        seen: 0,
        blocks: Vec::new(),
        dialect: None,
    };
    Pipeline::new(Options::default())
        .run(&name, text.as_bytes(), &mut collector)
        .expect("reads");
    let mut tracker = GapTracker::new(seq_field.map(String::from));
    tracker.begin(&name);
    let mut out = Vec::new();
    for facts in &collector.blocks {
        let mut marked = Vec::new();
        tracker.replay(facts, &mut marked);
        out.extend(marked.into_iter().map(|(_, d)| d));
    }
    tracker.end(collector.dialect, &mut out);
    found(out)
}

fn tracked(text: &str, seq_field: Option<&str>) -> Found {
    let mut pipeline = Pipeline::new(Options::default());
    let mut tracker = GapTracker::new(seq_field.map(String::from));
    let name: Arc<str> = Arc::from("t");
    pipeline
        .run(&name, text.as_bytes(), &mut tracker)
        .expect("reads");
    found(tracker.take_found())
}

/// Facts collected in blocks of any size and replayed give the findings of one pass,
/// excerpts included: the operations a block leaves out (a session start checked
/// again, a session opened again) and the records without any (only counted, for the
/// detection window of the sequence field) change nothing.
#[test]
fn facts_replayed_in_blocks_find_what_one_pass_finds() {
    let claude =
        |ty: &str, rest: &str| format!("{{\"type\":\"{ty}\",\"session_id\":\"s\"{rest}}}\n");
    let tool_use = |id: &str| {
        claude(
            "assistant",
            &format!(
                ",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{{}}}}]}}"
            ),
        )
    };
    let tool_result = |id: &str, error: bool| {
        claude(
            "user",
            &format!(
                ",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"is_error\":{error},\"content\":\"{}\"}}]}}",
                "out ".repeat(80)
            ),
        )
    };
    let text_message = claude(
        "assistant",
        ",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}",
    );
    // A stream without its init, sessions ended in errors, orphans, repeated answers.
    let mut stream = String::new();
    for i in 0..40 {
        stream += &text_message;
        stream += &tool_use(&format!("toolu_{i}"));
        match i % 5 {
            0 => stream += &tool_result(&format!("toolu_{i}"), true),
            1 => stream += &tool_result(&format!("toolu_x{i}"), false),
            2 => {
                stream += &tool_result(&format!("toolu_{i}"), false);
                stream += &tool_result(&format!("toolu_{i}"), true);
            }
            3 => {}
            _ => stream += &tool_result(&format!("toolu_{i}"), false),
        }
        // Sessions ended, then begun again by an init or by the next message.
        if i % 7 == 6 {
            stream += &claude("result", ",\"subtype\":\"error_during_execution\"");
        }
        if i % 14 == 6 {
            stream += &claude(
                "system",
                &format!(",\"subtype\":\"init\",\"session_id\":\"s{i}\""),
            );
        }
    }
    // Ended, then begun again by a message: open at the end.
    stream += &claude("result", ",\"subtype\":\"success\"");
    stream += &text_message;
    stream += &text_message;
    // Sequence numbers after records without any: within the detection window, and
    // past it (not looked for any more).
    let numbered = |skip: usize| {
        let mut t = "{\"a\":1}\n".repeat(skip);
        for n in [1, 2, 5, 5, 3, 9] {
            t += &format!("{{\"seq\":{n}}}\n");
        }
        t
    };
    let inputs = [
        (stream, None),
        (numbered(10), None),
        (numbered(63), None),
        (numbered(64), None),
        (numbered(70), None),
        (numbered(70), Some("seq")),
    ];
    for (text, seq_field) in &inputs {
        let want = tracked(text, *seq_field);
        for chunk in [1, 2, 3, 5, 8, 13, 64, 1000] {
            assert_eq!(replayed(text, chunk, *seq_field), want, "blocks of {chunk}");
        }
    }
    // The stream's findings carry excerpts cut from the facts' copy of each record.
    let stream = tracked(&inputs[0].0, None);
    assert!(stream.iter().any(|f| f.3.ends_with('…')), "{stream:?}");
    assert!(stream.len() > 40, "{stream:?}");
    let last = inputs[0].0.lines().count() as u64 - 1;
    assert!(stream.contains(&(
        last,
        Code::SessNoResult,
        format!("session that began at line {last} has no result (stream ended)"),
        String::new()
    )));
    // Found within the window, not past it, and always with the field named.
    assert_eq!(tracked(&inputs[2].0, None).len(), 4);
    assert!(tracked(&inputs[3].0, None).is_empty());
    assert_eq!(tracked(&inputs[5].0, Some("seq")).len(), 4);
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
    let text = "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":5}\n{\"seq\":5}\n{\"seq\":3}\n{\"seq\":7}\n";
    let got = gaps(text, DEFAULT_CAP);
    let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(
        codes,
        [
            (3, Code::SeqGap),
            (4, Code::SeqDuplicate),
            (5, Code::SeqOutOfOrder),
            (6, Code::SeqGap)
        ]
    );
    assert!(got[0].2.contains("missing 3-4"), "{got:?}");
    assert!(got[3].2.contains("missing 6"), "{got:?}");
}

#[test]
fn rpc_ids_are_values_and_the_cap_drops_the_oldest() {
    let text = "{\"id\":1,\"method\":\"a\"}\n{\"id\":\"1\",\"result\":{}}\n{\"id\":2,\"method\":\"b\"}\n{\"id\":3,\"method\":\"c\"}\n";
    let got = gaps(text, 2);
    let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(
        codes,
        [
            (2, Code::RpcUnmatchedResponse),
            (4, Code::RpcUnanswered),
            (3, Code::RpcUnanswered),
            (4, Code::RpcUnanswered),
        ]
    );
    assert!(got
        .iter()
        .any(|(_, _, m)| m.contains("more than 2 open requests")));
}

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
