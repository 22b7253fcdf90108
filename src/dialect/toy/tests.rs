//! The toy agent read through every engine: what "Adding an agent" promises (its module,
//! its descriptor, its line in the registry, and no engine touched) is enough for ndjq to
//! detect it, check it, and give one meaning to its records in `events`, `stats`, `gaps`
//! and `filter`.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::event::Normalizer;
use crate::gaps::GapTracker;
use crate::json::Json;
use crate::pipeline::{Consumer, Flow, Options, Pipeline, Record};
use std::io;
use std::sync::Arc;

/// A session: a failed call, a call never answered, usage written twice under one id
/// (the last counts), and no `toy.end`; then a second session that ends.
const LOG: &str = r#"{"type":"toy.start","session":"t1","model":"toy-1"}
{"type":"toy.say","session":"t1","text":"hello from the toy"}
{"type":"toy.call","session":"t1","id":"c1","tool":"Bash","input":{"command":"false"}}
{"type":"toy.done","session":"t1","id":"c1","failed":true,"output":"exit 1"}
{"type":"toy.call","session":"t1","id":"c2","tool":"Read"}
{"type":"toy.usage","session":"t1","id":"m1","model":"toy-1","input":7,"output":1}
{"type":"toy.usage","session":"t1","id":"m1","model":"toy-1","input":10,"output":5}
{"type":"toy.start","session":"t2","model":"toy-1"}
{"type":"toy.usage","session":"t2","id":"m2","model":"toy-1","input":"ten","output":2}
{"type":"toy.end","session":"t2"}
"#;

/// Every engine at once, over one pass.
#[derive(Default)]
struct Engines {
    dialects: Vec<Option<Dialect>>,
    problems: Vec<(u64, Code)>,
    events: Vec<String>,
    normalizer: Normalizer,
    stats: crate::stats::Stats,
    gaps: Option<GapTracker>,
    greps: Vec<u64>,
    tools: Vec<(Option<String>, Option<String>)>,
}

impl Consumer for Engines {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.gaps.get_or_insert_with(|| GapTracker::new(None));
        self.gaps.as_mut().map_or(Ok(()), |g| g.begin_input(file))
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.dialects.push(record.info.dialect);
        self.problems
            .extend(record.diagnostics.iter().map(|d| (d.line, d.code)));
        let events = &mut self.events;
        self.normalizer.record(record, &mut |e| {
            events.push(format!("{}@{}", e.body.kind(), e.line));
            Ok(())
        })?;
        self.stats.add(record);
        if let Some(g) = self.gaps.as_mut() {
            g.record(record)?;
        }
        if let (Some(d), Some(v)) = (record.info.dialect, record.value) {
            let mut hit = false;
            Dialect::for_each_text(Some(d), v, &mut |t: Json<'_>| {
                hit |= t.as_str().is_some_and(|s| s.contains("toy"));
                hit
            });
            if hit {
                self.greps.push(record.line);
            }
            Dialect::tool_calls(Some(d), v, &mut |id, name| {
                self.tools
                    .push((id.map(String::from), name.map(String::from)));
            });
        }
        Ok(Flow::Continue)
    }

    fn end_input(&mut self, file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        let events = &mut self.events;
        self.normalizer.end_input(&mut |e| {
            events.push(format!("{}@{}", e.body.kind(), e.line));
            Ok(())
        })?;
        self.stats.end_input(dialect);
        match self.gaps.as_mut() {
            Some(g) => g.end_input(file, dialect),
            None => Ok(()),
        }
    }
}

fn read(text: &str) -> Engines {
    let mut engines = Engines::default();
    let name: Arc<str> = Arc::from("toy.ndjson");
    Pipeline::new(Options::default())
        .run(&name, text.as_bytes(), &mut engines)
        .expect("reads");
    engines
}

#[test]
fn the_toy_agent_is_named_and_detected_through_the_registry() {
    assert_eq!(Dialect::parse("toy"), Some(Dialect::Toy));
    assert!(Dialect::ALL.contains(&Dialect::Toy));
    assert!(Dialect::LISTED.contains(&Dialect::Toy));
    let e = read(LOG);
    assert_eq!(e.dialects.len(), 10);
    assert!(e.dialects.iter().all(|d| *d == Some(Dialect::Toy)));
}

#[test]
fn the_toy_agent_is_checked_by_its_own_schema() {
    let e = read(LOG);
    // The count written as a string is the one problem.
    assert_eq!(e.problems, [(9, Code::Schema)]);
    // A type the toy does not know is flagged as such.
    let unknown = read(
        "{\"type\":\"toy.start\",\"session\":\"t\"}\n{\"type\":\"toy.nap\",\"session\":\"t\"}\n",
    );
    assert_eq!(unknown.problems, [(2, Code::UnknownType)]);
}

#[test]
fn the_toy_agent_has_one_meaning_in_events_stats_gaps_and_filter() {
    let mut e = read(LOG);
    assert_eq!(
        e.events,
        [
            "init@1",
            "text@2",
            "tool_use@3",
            "tool_result@4",
            "tool_use@5",
            "usage@6",
            "usage@7",
            "init@8",
            "usage@9",
            "result@10",
        ]
    );
    let totals = e.stats.totals();
    assert_eq!(totals.sessions, 2);
    // m1 counted once, at its last snapshot; m2's input is not a count.
    assert_eq!(totals.tokens.input, 10);
    assert_eq!(totals.tokens.output, 5 + 2);
    let calls: Vec<(&str, u64, u64)> = totals
        .tools
        .iter()
        .map(|(name, t)| (name.as_str(), t.calls, t.errors))
        .collect();
    assert_eq!(calls, [("Bash", 1, 1), ("Read", 1, 0)]);
    // The same calls in events and in stats.
    let tool_uses = e
        .events
        .iter()
        .filter(|k| k.starts_with("tool_use@"))
        .count();
    assert_eq!(tool_uses as u64, calls.iter().map(|c| c.1).sum::<u64>());

    let mut found: Vec<(u64, Code)> = e
        .gaps
        .as_mut()
        .expect("a tracker")
        .take_found()
        .into_iter()
        .map(|d| (d.line, d.code))
        .collect();
    found.sort();
    // The failed call, the call never answered, and session t1 cut off by t2's start.
    assert_eq!(
        found,
        [
            (1, Code::SessNoResult),
            (4, Code::ToolError),
            (5, Code::ToolOrphanUse)
        ]
    );

    assert_eq!(e.greps, [2]);
    assert_eq!(
        e.tools,
        [
            (Some("c1".to_string()), Some("Bash".to_string())),
            (Some("c1".to_string()), None),
            (Some("c2".to_string()), Some("Read".to_string())),
        ]
    );
}
