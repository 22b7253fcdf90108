//! Shared pieces of ndjq's fuzz targets: a consumer that records what the pipeline hands
//! out, a reader that cuts its input at chosen read boundaries, the independent oracle of
//! a line's verdict (serde_json plus the framing rules of docs/REFERENCE.md), a
//! structure-aware generator of agent-shaped records, and report comparison.
//!
//! Nothing here calls into ndjq's private code: the targets drive the library through what
//! `src/lib.rs` exports, as the binary does.

use arbitrary::{Arbitrary, Unstructured};
use ndjq::dialect::Dialect;
use ndjq::json::{Json, Kind};
use ndjq::pipeline::{Consumer, Flow, Options, Pipeline, Record, Status};
use ndjq::sink::events::{EventFormat, EventWriter};
use ndjq::sink::Painter;
use serde_json::Value;
use std::io::{self, Read};
use std::sync::{Arc, OnceLock};

/// One record as a consumer saw it, overlong chunks glued on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub line: u64,
    pub offset: u64,
    pub raw: Vec<u8>,
    pub status: Status,
    pub overlong: bool,
    pub codes: Vec<&'static str>,
    pub messages: Vec<String>,
    pub ty: Option<String>,
    pub dialect: Option<Dialect>,
    /// The value as ndjq read it, written out compactly and read back by serde_json.
    pub value: Option<Value>,
    /// Whether that compact text is [`reference_compact`]'s: ndjq copies most strings
    /// from the record as they are, and must write what serde_json would.
    pub strings_as_serde: bool,
}

/// Collects every record.
#[derive(Debug, Default)]
pub struct Collect {
    pub records: Vec<Seen>,
}

impl Consumer for Collect {
    fn record(&mut self, r: &Record<'_>) -> io::Result<Flow> {
        self.records.push(Seen {
            line: r.line,
            offset: r.offset,
            raw: r.raw.to_vec(),
            status: r.status,
            overlong: r.overlong,
            codes: r.diagnostics.iter().map(|d| d.code.as_str()).collect(),
            messages: r.diagnostics.iter().map(|d| d.message.clone()).collect(),
            ty: r.info.ty.map(str::to_string),
            dialect: r.info.dialect,
            value: r
                .value
                .and_then(|v| serde_json::from_str(&v.to_compact_string()).ok()),
            strings_as_serde: r
                .value
                .is_none_or(|v| v.to_compact_string() == reference_compact(v)),
        });
        Ok(Flow::Continue)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(last) = self.records.last_mut() {
            last.raw.extend_from_slice(bytes);
        }
        Ok(())
    }
}

/// A value ndjq read, written compactly in input order with every key and string as
/// serde_json writes the string ndjq unescaped (numbers as ndjq writes them).
pub fn reference_compact(v: Json<'_>) -> String {
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match v.kind() {
        Kind::String => quoted(v.as_str().unwrap_or_default()),
        Kind::Array => {
            let mut items = Vec::new();
            v.for_each_element(|e| items.push(reference_compact(e)));
            format!("[{}]", items.join(","))
        }
        Kind::Object => {
            let mut entries = Vec::new();
            v.for_each_entry(|k, e| {
                entries.push(format!("{}:{}", quoted(k), reference_compact(e)))
            });
            format!("{{{}}}", entries.join(","))
        }
        _ => v.to_compact_string(),
    }
}

/// Reads `data` in pieces whose sizes cycle through `sizes` (each at least 1), so records
/// are cut at arbitrary read boundaries.
#[derive(Debug)]
pub struct ChunkReader<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl<'a> ChunkReader<'a> {
    pub fn new(data: &'a [u8], sizes: Vec<usize>) -> Self {
        let sizes = if sizes.is_empty() { vec![1] } else { sizes };
        ChunkReader {
            data,
            sizes,
            next: 0,
        }
    }
}

impl Read for ChunkReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.next % self.sizes.len()].max(1);
        self.next += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Runs the pipeline over one input and returns what the consumer saw.
pub fn run(options: Options, reader: impl Read) -> Vec<Seen> {
    let mut pipeline = Pipeline::new(options);
    let mut collect = Collect::default();
    let file: Arc<str> = Arc::from("fuzz");
    pipeline
        .run(&file, reader, &mut collect)
        .expect("reading from memory cannot fail");
    collect.records
}

/// The verdict docs/REFERENCE.md promises for one line (`\n` included if it has one), computed
/// without ndjq: the line is overlong when its bytes before `\n` exceed `max_line`; one
/// `\r` before the `\n` and one UTF-8 BOM at its start are ignored; blanks only (space,
/// tab) is empty; nesting deeper than `max_depth` is invalid; otherwise serde_json decides.
pub fn oracle(line: &[u8], max_line: usize, max_depth: usize) -> Status {
    let content = line.strip_suffix(b"\n").unwrap_or(line);
    if content.len() > max_line {
        return Status::Invalid;
    }
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    if content.iter().all(|b| matches!(b, b' ' | b'\t')) {
        return Status::Empty;
    }
    if serde_json_verdict(content, max_depth) {
        Status::Valid
    } else {
        Status::Invalid
    }
}

/// The value serde_json reads from a valid line, under the same framing rules as
/// [`oracle`] (`\n`, one `\r` before it and a BOM at the start stripped).
pub fn oracle_value(line: &[u8]) -> Option<Value> {
    let content = line.strip_suffix(b"\n").unwrap_or(line);
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    let mut de = serde_json::Deserializer::from_slice(content);
    de.disable_recursion_limit();
    let value: Value = serde::Deserialize::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// serde_json's verdict on `bytes` as one JSON text, with nesting bounded by `max_depth`
/// (checked first, counting brackets outside strings, so serde_json never recurses deeper).
pub fn serde_json_verdict(bytes: &[u8], max_depth: usize) -> bool {
    if nesting(bytes) > max_depth {
        return false;
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let parsed: Result<Value, _> = serde::Deserialize::deserialize(&mut de);
    parsed.is_ok() && de.end().is_ok()
}

/// The deepest bracket nesting outside strings (exact for valid JSON).
pub fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Checks that the records cover the input exactly once, in order, each numbered by the
/// line it starts on: 1, 2, ..., or further on after a record of several lines (a
/// pretty-printed document at the start of an input is read whole, docs/REFERENCE.md,
/// "Input framing").
pub fn check_accounting(input: &[u8], seen: &[Seen]) {
    let mut offset = 0u64;
    let mut line = 1u64;
    for r in seen {
        assert_eq!(r.line, line, "records are numbered by the line they start on");
        line += r.raw.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(
            r.offset, offset,
            "record {} starts where the last ended",
            r.line
        );
        let end = offset as usize + r.raw.len();
        assert!(end <= input.len(), "record {} runs past the input", r.line);
        assert_eq!(
            &input[offset as usize..end],
            &r.raw[..],
            "record {} is the input's bytes",
            r.line
        );
        offset = end as u64;
    }
    assert_eq!(offset as usize, input.len(), "every byte is in a record");
}

// ---------------------------------------------------------------------------------------
// Structure-aware records

/// Keys the agents' records use, so generated objects hit the dialects' code paths.
const KEYS: &[&str] = &[
    "type",
    "subtype",
    "session_id",
    "sessionId",
    "message",
    "id",
    "model",
    "usage",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "cached_input_tokens",
    "content",
    "tool_use_id",
    "name",
    "input",
    "is_error",
    "total_cost_usd",
    "cost_usd",
    "costUSD",
    "num_turns",
    "duration_ms",
    "timestamp",
    "uuid",
    "parentUuid",
    "requestId",
    "payload",
    "item",
    "thread_id",
    "method",
    "jsonrpc",
    "result",
    "error",
    "params",
    "status",
    "exit_code",
    "text",
    "thinking",
    "info",
    "total_token_usage",
    "last_token_usage",
    "call_id",
    "arguments",
    "output",
    "cwd",
    "tools",
    "permission_mode",
    "seq",
    "event_id",
    "parent_tool_use_id",
    "isSidechain",
    "command",
    "server",
    "tool",
    "changes",
    "aggregated_output",
    "api_error_status",
    "stop_reason",
    "role",
    "items",
    "query",
];

/// String values that mean something to some dialect.
const WORDS: &[&str] = &[
    "system",
    "init",
    "user",
    "assistant",
    "result",
    "success",
    "error_max_turns",
    "error_during_execution",
    "tool_use",
    "tool_result",
    "text",
    "thinking",
    "stream_event",
    "rate_limit_event",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
    "command_execution",
    "mcp_tool_call",
    "file_change",
    "web_search",
    "agent_message",
    "reasoning",
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "function_call",
    "function_call_output",
    "token_count",
    "message",
    "failed",
    "completed",
    "in_progress",
    "2.0",
    "2026-11-22T10:00:00.000Z",
    "2026-11-23T23:59:59Z",
    "msg_1",
    "msg_2",
    "req_1",
    "toolu_1",
    "toolu_2",
    "item_1",
    "call_1",
    "s1",
    "s2",
    "beb1e36d-2b5a-4ad9-afa5-1c75cd61d484",
    "claude-opus-5-5",
    "gpt-5-codex",
    "Bash",
    "Read",
    "u1",
    "u2",
    "",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "100",
    "2637",
    "-1",
    "0.0289",
    "1.5",
    "1e2",
    "-0",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.1",
    "1E400",
];

#[derive(Debug, Clone, Copy)]
pub struct Key(pub &'static str);

impl<'a> Arbitrary<'a> for Key {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Key(u.choose(KEYS)?))
    }
}

/// A JSON value drawn mostly from the agents' vocabulary.
#[derive(Debug, Clone, Arbitrary)]
pub enum Gen {
    Null,
    Bool(bool),
    Number(u8),
    Int(u32),
    Word(u8),
    Free(String),
    Array(Vec<Gen>),
    Object(Vec<(Key, Gen)>),
}

impl Gen {
    pub fn to_value(&self, depth: usize) -> Value {
        match self {
            Gen::Null => Value::Null,
            Gen::Bool(b) => Value::Bool(*b),
            Gen::Number(i) => {
                serde_json::from_str(NUMBERS[*i as usize % NUMBERS.len()]).unwrap_or(Value::Null)
            }
            Gen::Int(n) => Value::from(*n),
            Gen::Word(i) => Value::from(WORDS[*i as usize % WORDS.len()]),
            Gen::Free(s) => Value::from(s.as_str()),
            Gen::Array(items) if depth > 0 => {
                Value::Array(items.iter().map(|g| g.to_value(depth - 1)).collect())
            }
            Gen::Object(entries) if depth > 0 => Value::Object(
                entries
                    .iter()
                    .map(|(k, g)| (k.0.to_string(), g.to_value(depth - 1)))
                    .collect(),
            ),
            Gen::Array(_) | Gen::Object(_) => Value::Null,
        }
    }
}

/// One step of a path into a record.
#[derive(Debug, Clone, Arbitrary)]
pub enum Step {
    Key(Key),
    Index(u8),
}

/// An edit of a real record.
#[derive(Debug, Clone, Arbitrary)]
pub enum Edit {
    Set(Vec<Step>, Gen),
    Remove(Vec<Step>),
}

/// One generated line.
#[derive(Debug, Clone, Arbitrary)]
pub enum Line {
    /// A real record (from testdata/), edited.
    Real(u16, Vec<Edit>),
    /// An object made from the vocabulary.
    Made(Vec<(Key, Gen)>),
    /// Any value.
    Value(Gen),
    /// A real record cut short.
    Cut(u16, u16),
    /// A line of text.
    Text(String),
    Empty,
}

/// Real records of every dialect, parsed once.
pub fn templates() -> &'static [Value] {
    static T: OnceLock<Vec<Value>> = OnceLock::new();
    T.get_or_init(|| {
        let files = [
            include_str!("../../testdata/claude/claude-tool.ndjson"),
            include_str!("../../testdata/claude/claude-error500.ndjson"),
            include_str!("../../testdata/stats/claude-rules.ndjson"),
            include_str!("../../testdata/stats/codex-exec-tools.jsonl"),
            include_str!("../../testdata/codex/codex-failed.ndjson"),
            include_str!("../../testdata/codex-log/codex-tool.session-log.jsonl"),
            include_str!("../../testdata/claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl"),
            include_str!("../../testdata/jsonrpc/app-server.jsonl"),
        ];
        files
            .iter()
            .flat_map(|f| f.lines())
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    })
}

fn apply(value: &mut Value, path: &[Step], op: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        if let Some(v) = op {
            *value = v;
        }
        return;
    };
    let mut at = value;
    for step in parents {
        let next = match (step, at) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k.0),
            (Step::Index(i), Value::Array(a)) if !a.is_empty() => {
                let n = a.len();
                a.get_mut(*i as usize % n)
            }
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return,
        }
    }
    match (last, at, op) {
        (Step::Key(k), Value::Object(m), Some(v)) => {
            m.insert(k.0.to_string(), v);
        }
        (Step::Key(k), Value::Object(m), None) => {
            m.remove(k.0);
        }
        (Step::Index(i), Value::Array(a), Some(v)) if !a.is_empty() => {
            let n = a.len();
            a[*i as usize % n] = v;
        }
        (Step::Index(i), Value::Array(a), None) if !a.is_empty() => {
            let n = a.len();
            a.remove(*i as usize % n);
        }
        _ => {}
    }
}

impl Line {
    /// The line's bytes, without its `\n`.
    pub fn render(&self) -> Vec<u8> {
        let t = templates();
        match self {
            Line::Real(which, edits) => {
                let mut v = t[*which as usize % t.len()].clone();
                for e in edits.iter().take(8) {
                    match e {
                        Edit::Set(path, g) => apply(&mut v, path, Some(g.to_value(6))),
                        Edit::Remove(path) => apply(&mut v, path, None),
                    }
                }
                serde_json::to_vec(&v).unwrap_or_default()
            }
            Line::Made(entries) => serde_json::to_vec(&Value::Object(
                entries
                    .iter()
                    .map(|(k, g)| (k.0.to_string(), g.to_value(6)))
                    .collect(),
            ))
            .unwrap_or_default(),
            Line::Value(g) => serde_json::to_vec(&g.to_value(8)).unwrap_or_default(),
            Line::Cut(which, at) => {
                let mut b = serde_json::to_vec(&t[*which as usize % t.len()]).unwrap_or_default();
                let n = *at as usize % b.len().max(1);
                b.truncate(n);
                b
            }
            Line::Text(s) => s.replace('\n', " ").into_bytes(),
            Line::Empty => Vec::new(),
        }
    }
}

/// NDJSON of the lines, each ended by `\n`.
pub fn render(lines: &[Line]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(&l.render());
        out.push(b'\n');
    }
    out
}

// ---------------------------------------------------------------------------------------
// Reports

/// Whether two JSON values are equal, numbers compared as floats with a relative
/// tolerance of 1e-9 (cost sums depend on the order they are added in).
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x == y {
                return true;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// What `ndjq stats -f json` promises about `stats`, as JSON: the report without its
/// `state` (whose inner layout is not part of the contract), plus the groups of every
/// `--by` (which is what the state is for).
pub fn report_value(stats: &ndjq::stats::Stats) -> Value {
    use ndjq::stats::GroupBy;
    let mut v = serde_json::to_value(stats.report(None)).expect("a report serialises");
    if let Some(m) = v.as_object_mut() {
        m.remove("state");
        for by in [
            GroupBy::Session,
            GroupBy::Model,
            GroupBy::Tool,
            GroupBy::Type,
            GroupBy::File,
            GroupBy::Day,
        ] {
            let groups = serde_json::to_value(stats.groups(by)).expect("groups serialise");
            m.insert(format!("by_{}", by.name()), groups);
        }
    }
    v
}

/// Stats as `--merge` reads them back: the report written as JSON, parsed, rebuilt.
pub fn through_json(stats: &ndjq::stats::Stats) -> ndjq::stats::Stats {
    let text = serde_json::to_string(&stats.report(None)).expect("a report serialises");
    let report: ndjq::stats::Report = serde_json::from_str(&text).expect("a report parses back");
    ndjq::stats::Stats::from_report(report).expect("a report rebuilds")
}

/// A consumer feeding the stats accumulator, the event normalizer and the gap tracker.
#[derive(Debug, Default)]
pub struct Everything {
    pub stats: ndjq::stats::Stats,
    pub normalizer: ndjq::event::Normalizer,
    pub gaps: Option<ndjq::gaps::GapTracker>,
    pub records: u64,
    pub events: u64,
    writers: Option<[EventWriter; 3]>,
    json: Vec<u8>,
    other: Vec<u8>,
}

impl Everything {
    pub fn new() -> Self {
        Everything {
            gaps: Some(ndjq::gaps::GapTracker::with_cap(None, 4)),
            writers: Some(
                [EventFormat::Json, EventFormat::Csv, EventFormat::Text]
                    .map(|f| EventWriter::new(f, Painter::new(true)).with_width(40)),
            ),
            ..Everything::default()
        }
    }

    /// Checks the events written so far: one JSON object per line, as many as emitted.
    pub fn check_events(&mut self) {
        let mut n = 0;
        for line in self.json.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: Value = serde_json::from_slice(line).expect("an event is JSON");
            assert!(v.is_object(), "an event is an object");
            n += 1;
        }
        assert_eq!(n, self.events, "one JSON line per event");
        if let Some(w) = self.writers.as_mut() {
            for w in w.iter_mut() {
                w.finish(&mut self.other, None).expect("writing to memory");
            }
        }
    }
}

/// Writes an event in every format: JSON into `json`, CSV and text into `other`.
fn write_event(
    writers: &mut [EventWriter; 3],
    json: &mut Vec<u8>,
    other: &mut Vec<u8>,
    e: &ndjq::event::Event<'_>,
) -> io::Result<()> {
    writers[0].write(json, e)?;
    writers[1].write(other, e)?;
    writers[2].write(other, e)?;
    other.clear();
    Ok(())
}

impl Consumer for Everything {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.stats.begin_input(file);
        if let Some(g) = self.gaps.as_mut() {
            g.begin_input(file)?;
        }
        Ok(())
    }

    fn record(&mut self, r: &Record<'_>) -> io::Result<Flow> {
        self.records += 1;
        self.stats.add(r);
        let mut n = 0u64;
        if let Some(w) = self.writers.as_mut() {
            let (json, other) = (&mut self.json, &mut self.other);
            self.normalizer.record(r, &mut |e| {
                n += 1;
                write_event(w, json, other, e)
            })?;
        }
        self.events += n;
        if let Some(g) = self.gaps.as_mut() {
            g.record(r)?;
        }
        Ok(Flow::Continue)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stats.add_bytes(bytes.len());
        Ok(())
    }

    fn end_input(&mut self, file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.stats.end_input(dialect);
        let mut n = 0u64;
        if let Some(w) = self.writers.as_mut() {
            let (json, other) = (&mut self.json, &mut self.other);
            self.normalizer.end_input(&mut |e| {
                n += 1;
                write_event(w, json, other, e)
            })?;
        }
        self.events += n;
        if let Some(g) = self.gaps.as_mut() {
            g.end_input(file, dialect)?;
            for d in g.take_found() {
                assert!(d.line >= 1, "a gap names a line");
            }
        }
        Ok(())
    }
}

/// Runs `inputs` (each its own input, as files named on one command line, called
/// `in{first}`, `in{first + 1}`, ...) through one pipeline into `consumer`.
pub fn run_inputs(
    options: &Options,
    first: usize,
    inputs: &[Vec<u8>],
    consumer: &mut dyn Consumer,
) {
    // Small reads: a 1 MiB buffer per input would cost more than the run.
    let mut pipeline = Pipeline::new(Options {
        read_size: 1 << 12,
        ..options.clone()
    });
    for (i, input) in inputs.iter().enumerate() {
        let file: Arc<str> = Arc::from(format!("in{}", first + i).as_str());
        pipeline
            .run(&file, &input[..], consumer)
            .expect("reading from memory cannot fail");
    }
}

/// The invariants every stats accumulator keeps.
pub fn check_stats_invariants(stats: &ndjq::stats::Stats) {
    let s = &stats.summary;
    assert_eq!(
        s.records,
        s.valid + s.invalid + s.empty,
        "lines = valid + invalid + empty"
    );
    let by_code: u64 = s.by_code.values().sum();
    assert_eq!(
        by_code,
        s.errors + s.warnings + s.infos,
        "codes = severities"
    );
    let types: u64 = stats.types.values().sum();
    assert_eq!(types, s.valid, "every valid record has one type key");
    let report = stats.report(None);
    assert_eq!(report.lines, s.records);
    if stats.summary.files > 0 {
        let dialects: u64 = stats.dialects.values().sum();
        assert_eq!(
            dialects, s.records,
            "every record is counted under its input's dialect"
        );
    }
    let groups = stats.groups(ndjq::stats::GroupBy::Type);
    assert_eq!(
        groups.iter().map(|g| g.records).sum::<u64>(),
        s.valid,
        "--by type adds up to the valid records"
    );
}
