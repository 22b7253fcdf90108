//! The engine's unit tests.

use super::*;
use crate::pipeline::{Consumer, Flow, Options, Pipeline};

/// An event's text reads as the string it comes from, and is written as serde_json
/// writes that string, whether copied from the record or escaped again.
#[test]
fn texts_read_and_write_as_their_strings() {
    let src = r#"{"a":"x\ny \"q\"","b":"\u00e9\/","c":3,"d":"plain"}"#;
    let mut doc = crate::tape::Doc::new();
    assert!(doc.parse(src, 8));
    let v = Json::Tape(crate::json::TapeValue::root(&doc, src));
    let cases = [
        ("a", "x\ny \"q\""),
        ("b", "é/"),
        ("c", ""),
        ("missing", ""),
        ("d", "plain"),
    ];
    let texts = cases.map(|(key, want)| (Text::of(v.get(key)), want));
    let owned = [
        (Text::from(String::from("a\u{1}b")), "a\u{1}b"),
        (Text::from("\t"), "\t"),
    ];
    for (text, want) in texts.into_iter().chain(owned) {
        assert_eq!(text.as_str(), want);
        let mut out = Vec::new();
        text.write_json(&mut out).expect("writes to a Vec");
        assert_eq!(out, serde_json::to_vec(want).expect("serde_json writes"));
    }
}

/// The events of `input` (read as one input) as compact JSON lines of
/// `kind:field=value` summaries, for short assertions.
pub(crate) fn events(input: &str, dialect: Option<Dialect>) -> Vec<String> {
    struct Collect {
        n: Normalizer,
        out: Vec<String>,
    }
    fn show(e: &Event<'_>) -> String {
        let mut s = format!("{}@{}", e.body.kind(), e.line);
        if let Some(session) = e.session {
            s.push_str(&format!(" s={session}"));
        }
        match &e.body {
            Body::Usage(u) => s.push_str(&format!(
                " id={:?} in={:?} out={:?}",
                u.message_id, u.input, u.output
            )),
            Body::ToolUse { id, name, input } => s.push_str(&format!(
                " id={id:?} name={name:?} input={}",
                input
                    .as_ref()
                    .map(Nested::to_compact_string)
                    .unwrap_or_default()
            )),
            Body::ToolResult {
                tool_use_id,
                is_error,
                content,
            } => s.push_str(&format!(
                " id={tool_use_id:?} err={is_error} content={}",
                content
                    .as_ref()
                    .map(Nested::to_compact_string)
                    .unwrap_or_default()
            )),
            Body::Result(r) => s.push_str(&format!(
                " ok={} err={} text={:?}",
                r.success, r.is_error, r.text
            )),
            Body::Rpc {
                method, direction, ..
            } => s.push_str(&format!(" {} {method:?}", direction.as_str())),
            Body::Text { text, .. } | Body::User { text, .. } => {
                s.push_str(&format!(" {:?}", text.as_str()))
            }
            _ => {}
        }
        s
    }
    impl Consumer for Collect {
        fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
            let out = &mut self.out;
            self.n.record(record, &mut |e| {
                out.push(show(e));
                Ok(())
            })?;
            Ok(Flow::Continue)
        }
        fn end_input(&mut self, _: &Arc<str>, _: Option<Dialect>) -> io::Result<()> {
            let out = &mut self.out;
            self.n.end_input(&mut |e| {
                out.push(show(e));
                Ok(())
            })
        }
    }
    let mut c = Collect {
        n: Normalizer::new(),
        out: Vec::new(),
    };
    let mut p = Pipeline::new(Options {
        dialect,
        ..Options::default()
    });
    let name: Arc<str> = Arc::from("t");
    p.run(&name, input.as_bytes(), &mut c)
        .expect("in-memory run");
    c.out
}

#[test]
fn rpc_responses_take_the_method_of_their_request() {
    let input = concat!(
        r#"{"id":0,"method":"initialize","params":{}}"#,
        "\n",
        r#"{"method":"thread/started","params":{"threadId":"t"}}"#,
        "\n",
        r#"{"id":0,"result":{}}"#,
        "\n",
        r#"{"id":"x","error":{"code":-1,"message":"no"}}"#,
        "\n",
    );
    assert_eq!(
        events(input, None),
        [
            r#"rpc@1 request Some("initialize")"#,
            r#"rpc@2 s=t notification Some("thread/started")"#,
            r#"rpc@3 response Some("initialize")"#,
            "rpc@4 response None",
        ]
    );
}

#[test]
fn unknown_types_non_objects_and_generic_records_are_unknown() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#,
        "\n",
        r#"{"type":"heartbeat","session_id":"s"}"#,
        "\n",
        "[1,2]\n",
        "not json\n",
    );
    assert_eq!(
        events(input, None),
        ["init@1 s=s", "unknown@2 s=s", "unknown@3 s=s"]
    );
    assert_eq!(
        events("{\"kind\":1}\n", Dialect::parse("generic")),
        ["unknown@1"]
    );
}

mod capped_tests {
    use super::{CappedSet, MAX_OPEN_ITEMS};

    /// Millions of Codex items started and never completed are held in
    /// bounded memory (as `gaps` caps its open items), the oldest forgotten first.
    #[test]
    fn open_codex_items_are_capped() {
        let mut set = CappedSet::default();
        for i in 0..(3 * MAX_OPEN_ITEMS) {
            assert!(set.insert(&format!("item_{i}")));
            assert!(set.len() <= MAX_OPEN_ITEMS);
        }
        // The newest are kept, the oldest gone.
        assert!(!set.insert(&format!("item_{}", 3 * MAX_OPEN_ITEMS - 1)));
        assert!(set.insert("item_0"));
        assert!(set.remove("item_0"));
        assert!(!set.remove("item_0"));
    }
}
