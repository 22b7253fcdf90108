//! Test helpers for the readers' unit tests (`src/dialect/<agent>/gaps.rs`): an input's
//! text run through the pipeline (its dialect detected, its records read by their reader)
//! into a tracker, in one pass or in blocks as batch mode does.

use super::{Facts, GapTracker};
use crate::diagnostic::{Code, Diagnostic};
use crate::dialect::Dialect;
use crate::pipeline::{Consumer, Flow, Options, Pipeline, Record};
use std::io;
use std::sync::Arc;

/// A finding: its line, code, message and excerpt.
pub(crate) type Found = Vec<(u64, Code, String, String)>;

pub(crate) fn found(ds: impl IntoIterator<Item = Diagnostic>) -> Found {
    ds.into_iter()
        .map(|d| (d.line, d.code, d.message, d.excerpt))
        .collect()
}

/// The findings of `text` in one pass, every tracked set holding at most `cap` entries:
/// line, code and message.
pub(crate) fn gaps(text: &str, cap: usize) -> Vec<(u64, Code, String)> {
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

/// The findings of `text` in one pass.
pub(crate) fn tracked(text: &str, seq_field: Option<&str>) -> Found {
    let mut pipeline = Pipeline::new(Options::default());
    let mut tracker = GapTracker::new(seq_field.map(String::from));
    let name: Arc<str> = Arc::from("t");
    pipeline
        .run(&name, text.as_bytes(), &mut tracker)
        .expect("reads");
    found(tracker.take_found())
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

/// The findings of collecting the facts of `text` in blocks of `chunk` records and
/// replaying them, as the merge of batch mode does.
pub(crate) fn replayed(text: &str, chunk: usize, seq_field: Option<&str>) -> Found {
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
