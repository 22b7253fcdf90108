//! Differential test: over every line of every file in testdata/ (the corpus of real
//! captures under testdata/corpus included; NDJSON or not: text files are lines too; the
//! JSONTestSuite files under testdata/conformance are whole documents, not lines, and
//! tests/it/conformance.rs has them), ndjq's verdict equals serde_json's, the
//! `type` ndjq reads equals the one serde_json reads, and the whole value ndjq reads (every
//! key, string, unescaped, and number, written back out and read by serde_json) equals
//! serde_json's.
//!
//! The verdict is taken from the binary (`validate -f json`: the lines carrying a verdict
//! code) and from the library (the status and type each record reaches a consumer with);
//! the type tallies from `stats -f json`. The reference is serde_json under the framing
//! choices the README documents: a `\r` before `\n` and a UTF-8 BOM opening a line are
//! ignored, a line of blanks (space, tab) is empty, nesting beyond `--max-depth` (128) is
//! invalid, and an input whose first line is a lone `{` and which parses whole (a
//! pretty-printed document: Gemini CLI's `-o json`) is one record. A missing folder fails
//! the test.

use crate::common;

use ndjq::json::{Json, Kind};
use ndjq::pipeline::{Consumer, Flow, Options, Pipeline, Record, Status};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn roots() -> Vec<PathBuf> {
    vec![common::corpus_dir(), common::testdata()]
}

/// Files under `dir`, recursively, in sorted order; the corpus and the JSONTestSuite are
/// left out of the walk of testdata/ (the first is a root of its own, the second is not
/// NDJSON).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a folder entry").path()).collect();
    paths.sort();
    let testdata = common::testdata();
    let skipped = [testdata.join("corpus"), testdata.join("conformance")];
    for p in paths {
        if skipped.contains(&p) {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in roots() {
        assert!(dir.is_dir(), "missing {}", dir.display());
        walk(&dir, &mut files);
    }
    assert!(files.len() > 90, "too few files: {}", files.len());
    files
}

/// The bytes ndjq reads from a file: gzip and zstd are recognised by their magic bytes.
fn decompressed(path: &Path) -> Vec<u8> {
    let raw = common::read_file(path);
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        out
    } else if raw.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        zstd::decode_all(&raw[..]).expect("unzstd")
    } else {
        raw
    }
}

/// serde_json's reading of one line (with its `\n`): the verdict, and the value if valid.
fn reference(line: &[u8]) -> (Status, Option<Value>) {
    let c = line.strip_suffix(b"\n").unwrap_or(line);
    let c = c.strip_suffix(b"\r").unwrap_or(c);
    let c = c.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(c);
    if c.iter().all(|b| matches!(b, b' ' | b'\t')) {
        return (Status::Empty, None);
    }
    if common::nesting(c) > ndjq::decode::DEFAULT_MAX_DEPTH {
        return (Status::Invalid, None);
    }
    let mut de = serde_json::Deserializer::from_slice(c);
    de.disable_recursion_limit();
    let parsed: Result<Value, _> = serde::Deserialize::deserialize(&mut de);
    match parsed.and_then(|v| de.end().map(|()| v)) {
        Ok(v) => (Status::Valid, Some(v)),
        Err(_) => (Status::Invalid, None),
    }
}

fn type_of(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str)
}

/// The stats `types` key of a valid value: `type`, `type/subtype`, or `(none)`.
fn type_key(v: &Value) -> String {
    match (type_of(v), v.get("subtype").and_then(Value::as_str)) {
        (Some(t), Some(s)) => format!("{t}/{s}"),
        (Some(t), None) => t.to_string(),
        (None, _) => "(none)".to_string(),
    }
}

/// What serde_json makes of a whole file.
struct Expected {
    verdicts: Vec<Status>,
    types: Vec<Option<String>>,
    values: Vec<Option<Value>>,
    type_counts: BTreeMap<String, u64>,
}

fn expected(bytes: &[u8]) -> Expected {
    let mut e = Expected {
        verdicts: Vec::new(),
        types: Vec::new(),
        values: Vec::new(),
        type_counts: BTreeMap::new(),
    };
    // A pretty-printed document (first line a lone `{`, Gemini CLI's `-o json`) that
    // parses whole is one record, numbered by its first line.
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    if first.trim_ascii() == b"{" {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            e.verdicts.push(Status::Valid);
            e.types.push(type_of(&v).map(str::to_string));
            *e.type_counts.entry(type_key(&v)).or_insert(0) += 1;
            e.values.push(Some(v));
            return e;
        }
    }
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let (status, value) = reference(line);
        e.verdicts.push(status);
        e.types
            .push(value.as_ref().and_then(type_of).map(str::to_string));
        if let Some(v) = &value {
            *e.type_counts.entry(type_key(v)).or_insert(0) += 1;
        }
        e.values.push(value);
    }
    e
}

// ---------------------------------------------------------------------------------------
// The library: the status and type of every record

/// One record as ndjq reads it.
struct Seen {
    line: u64,
    status: Status,
    ty: Option<String>,
    /// The value, written out compactly and read back by serde_json.
    value: Option<Value>,
    /// Whether that compact text is [`reference_compact`]'s.
    same_text: bool,
}

#[derive(Default)]
struct Collect(Vec<Seen>);

impl Consumer for Collect {
    fn record(&mut self, r: &Record<'_>) -> io::Result<Flow> {
        let compact = r
            .value
            .map(|v| (v.to_compact_string(), reference_compact(v)));
        let value = compact
            .as_ref()
            .and_then(|(text, _)| serde_json::from_str(text).ok());
        let same_text = compact.is_none_or(|(ours, reference)| ours == reference);
        self.0.push(Seen {
            line: r.line,
            status: r.status,
            ty: r.info.ty.map(str::to_string),
            value,
            same_text,
        });
        Ok(Flow::Continue)
    }
}

/// A value ndjq read, written compactly in input order with every key and string as
/// serde_json writes the string ndjq unescaped (numbers as ndjq writes them: their values
/// are compared above). ndjq's own compact writing copies most strings from the record
/// without unescaping them, and must give these bytes.
fn reference_compact(v: Json<'_>) -> String {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
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

fn library_diffs(name: &str, bytes: &[u8], want: &Expected) -> Vec<String> {
    let mut c = Collect::default();
    let file: Arc<str> = Arc::from(name);
    Pipeline::new(Options::default())
        .run(&file, bytes, &mut c)
        .expect("reading memory");
    let mut d = Vec::new();
    if c.0.len() != want.verdicts.len() {
        d.push(format!(
            "{name}: {} records, {} lines",
            c.0.len(),
            want.verdicts.len()
        ));
    }
    let wanted = want.verdicts.iter().zip(&want.types).zip(&want.values);
    for (seen, ((want_status, want_ty), want_value)) in c.0.iter().zip(wanted) {
        let Seen {
            line,
            status,
            ty,
            value,
            same_text,
        } = seen;
        if status != want_status {
            d.push(format!(
                "{name}:{line}: ndjq {status:?}, serde_json {want_status:?}"
            ));
        }
        if *status == Status::Valid && ty != want_ty {
            d.push(format!(
                "{name}:{line}: ndjq type {ty:?}, serde_json {want_ty:?}"
            ));
        }
        if *status == Status::Valid && value != want_value {
            d.push(format!("{name}:{line}: ndjq read a different value"));
        }
        if !same_text {
            d.push(format!(
                "{name}:{line}: ndjq wrote a string otherwise than serde_json"
            ));
        }
    }
    d
}

// ---------------------------------------------------------------------------------------
// The binary: validate's diagnostics, stats' type tallies

const VERDICT_CODES: &[&str] = &[
    "PROTO_INVALID_UTF8",
    "PROTO_INVALID_JSON",
    "PROTO_TRUNCATED",
    "PROTO_TEXT_NOISE",
    "PROTO_LINE_TOO_LONG",
    "PROTO_TOO_DEEP",
];

fn binary_diffs(path: &Path, want: &Expected) -> Vec<String> {
    let name = path.display().to_string();
    let mut d = Vec::new();
    let out = common::ndjq_std("validate")
        .args(["-f", "json", "-j", "1"])
        .arg(path)
        .output()
        .expect("ndjq validate runs");
    let mut invalid = BTreeSet::new();
    let mut empty = BTreeSet::new();
    let mut summary = None;
    for l in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(l).expect("validate -f json writes JSON lines");
        if let Some(s) = v.get("summary") {
            summary = Some(s.clone());
            continue;
        }
        let line = v["line"].as_u64().expect("a diagnostic has a line");
        match v["code"].as_str().expect("a diagnostic has a code") {
            c if VERDICT_CODES.contains(&c) => {
                invalid.insert(line);
            }
            "PROTO_EMPTY_LINE" => {
                empty.insert(line);
            }
            _ => {}
        }
    }
    for (i, want_status) in want.verdicts.iter().enumerate() {
        let line = i as u64 + 1;
        let got = if invalid.contains(&line) {
            Status::Invalid
        } else if empty.contains(&line) {
            Status::Empty
        } else {
            Status::Valid
        };
        if got != *want_status {
            d.push(format!(
                "{name}:{line}: validate says {got:?}, serde_json {want_status:?}"
            ));
        }
    }
    let count = |s: Status| want.verdicts.iter().filter(|v| **v == s).count() as u64;
    let summary = summary.expect("validate -f json ends with a summary");
    for (key, s) in [
        ("valid", Status::Valid),
        ("invalid", Status::Invalid),
        ("empty", Status::Empty),
    ] {
        if summary[key].as_u64() != Some(count(s)) {
            d.push(format!(
                "{name}: summary {key} {}, serde_json {}",
                summary[key],
                count(s)
            ));
        }
    }
    // The default --fail-on is error: exit 1 exactly when an error was reported.
    let has_errors = summary["errors"].as_u64().unwrap_or(0) > 0;
    if out.status.code() != Some(i32::from(has_errors)) {
        d.push(format!("{name}: validate exit {:?}", out.status));
    }

    let out = common::ndjq_std("stats")
        .args(["-q", "-f", "json", "-j", "1"])
        .arg(path)
        .output()
        .expect("ndjq stats runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("stats -f json is JSON");
    let types: BTreeMap<String, u64> =
        serde_json::from_value(report["types"].clone()).expect("types is a map of counts");
    if types != want.type_counts {
        d.push(format!(
            "{name}: stats types {types:?}, serde_json {:?}",
            want.type_counts
        ));
    }
    d
}

#[test]
fn every_line_of_the_corpus_and_testdata_gets_serde_json_s_verdict_and_type() {
    let files = all_files();
    // Two threads: the machine running CI has two cores.
    let (left, right): (Vec<_>, Vec<_>) = files.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let check = |part: Vec<(usize, &PathBuf)>| -> (Vec<String>, u64) {
        let mut diffs = Vec::new();
        let mut lines = 0;
        for (_, path) in part {
            let bytes = decompressed(path);
            let want = expected(&bytes);
            lines += want.verdicts.len() as u64;
            diffs.extend(library_diffs(&path.display().to_string(), &bytes, &want));
            diffs.extend(binary_diffs(path, &want));
        }
        (diffs, lines)
    };
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| check(left));
        let b = check(right);
        (h.join().expect("a checking thread"), b)
    });
    let diffs: Vec<String> = a.0.into_iter().chain(b.0).collect();
    let lines = a.1 + b.1;
    assert!(lines > 10_000, "only {lines} lines checked");
    assert!(
        diffs.is_empty(),
        "{} differences from serde_json over {lines} lines:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// The reference itself tells the cases apart the way the README says, so a broken
/// reference cannot hide a broken ndjq.
#[test]
fn the_reference_follows_the_documented_choices() {
    assert_eq!(reference(b"{\"a\":1}\r\n").0, Status::Valid);
    assert_eq!(reference(b"\xEF\xBB\xBF{\"a\":1}\n").0, Status::Valid);
    assert_eq!(reference(b" \t \n").0, Status::Empty);
    assert_eq!(reference(b"\n").0, Status::Empty);
    assert_eq!(reference(b"{\"a\":\n").0, Status::Invalid);
    assert_eq!(reference(b"1E400").0, Status::Invalid);
    assert_eq!(
        reference(b"123456789012345678901234567890").0,
        Status::Valid
    );
    assert_eq!(reference(b"\"\\ud800\"").0, Status::Invalid);
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(reference(nest(128).as_bytes()).0, Status::Valid);
    assert_eq!(reference(nest(129).as_bytes()).0, Status::Invalid);
    let (_, v) = reference(br#"{"subtype":"init","type":"system"}"#);
    assert_eq!(v.as_ref().map(type_key).as_deref(), Some("system/init"));
}
