//! Helpers shared by the `validate`, `filter` and `corpus` integration tests.
//!
//! Every test binary includes this module with `mod support;` and uses a different part of
//! it, hence the `dead_code` allowance.
#![allow(dead_code)]

// One way to run the binary hermetically, shared with the tests that use `common` alone.
pub use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde::Deserialize;
use serde_json::Value;

/// The package root: every test runs ndjq from here, so relative paths such as
/// `testdata/edge/mixed.ndjson` appear unchanged in its output (and in the golden files).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the package root.
pub fn data(rel: &str) -> PathBuf {
    root().join(rel)
}

/// The corpus of real captures, `testdata/corpus`.
pub fn corpus_dir() -> PathBuf {
    common::corpus_dir()
}

/// The mixed hand-made file, as written in commands (relative to the package root).
pub const MIXED: &str = "testdata/edge/mixed.ndjson";

/// `ndjq` with a clean environment (only `PATH` kept: no colour variables inherited from
/// whoever runs the tests), run from the package root.
pub fn ndjq() -> Command {
    common::ndjq()
}

/// Same as [`ndjq`], as a `std::process::Command` (for tests that drive pipes themselves).
pub fn ndjq_std() -> std::process::Command {
    common::ndjq_bare_std()
}

/// Read a file as ndjq reads it (a `.zst` file decompressed), with its name in the panic
/// message.
pub fn read(path: impl AsRef<Path>) -> Vec<u8> {
    common::read_data(path.as_ref())
}

/// Split into records, each keeping its terminating `\n` (a last line without one is kept
/// too), exactly the unit `filter` passes through.
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// The 1-based line numbers `wanted` of `bytes`, concatenated.
pub fn pick(bytes: &[u8], wanted: &[usize]) -> Vec<u8> {
    let all = lines(bytes);
    let mut out = Vec::new();
    for &n in wanted {
        out.extend_from_slice(all[n - 1]);
    }
    out
}

/// The concatenation of the lines whose parsed JSON satisfies `keep` (lines that do not
/// parse are never kept).
pub fn select(bytes: &[u8], keep: impl Fn(&Value) -> bool) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines(bytes) {
        if let Some(v) = parse(line) {
            if keep(&v) {
                out.extend_from_slice(line);
            }
        }
    }
    out
}

/// Parse one record (with or without its newline).
pub fn parse(line: &[u8]) -> Option<Value> {
    let trimmed = line.strip_suffix(b"\n").unwrap_or(line);
    serde_json::from_slice(trimmed).ok()
}

/// The top-level string `type` of a parsed record.
pub fn type_of(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str)
}

/// Render bytes for assertion messages.
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One diagnostic of `validate -f json` (docs/REFERENCE.md, "Diagnostic output"). Unknown
/// fields are refused: the documentation lists the keys of a diagnostic exactly.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diag {
    pub file: String,
    pub line: u64,
    pub column: Option<u64>,
    pub offset: u64,
    pub code: String,
    pub severity: String,
    pub message: String,
    pub excerpt: String,
}

/// The final `{"summary":{...}}` record of `validate -f json`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Summary {
    pub files: u64,
    pub records: u64,
    pub bytes: u64,
    pub valid: u64,
    pub invalid: u64,
    pub empty: u64,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    pub by_code: BTreeMap<String, u64>,
    pub stopped_early: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SummaryRecord {
    summary: Summary,
}

/// Parse the NDJSON output of `validate -f json`: diagnostics, then exactly one summary as
/// the last record. Panics with the offending line when the shape is wrong.
pub fn parse_validate(stdout: &[u8]) -> (Vec<Diag>, Summary) {
    let text = std::str::from_utf8(stdout).expect("validate -f json writes UTF-8");
    assert!(
        text.ends_with('\n'),
        "output must end with a newline: {text:?}"
    );
    let records: Vec<&str> = text.lines().collect();
    let (last, diags) = records.split_last().expect("at least the summary record");
    let summary: SummaryRecord = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("last record is not a summary ({e}): {last}"));
    let diags = diags
        .iter()
        .map(|l| {
            serde_json::from_str::<Diag>(l)
                .unwrap_or_else(|e| panic!("not a diagnostic record ({e}): {l}"))
        })
        .collect();
    (diags, summary.summary)
}

/// Every file under `dir`, recursively, in sorted path order.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Does `name` end with an extension ndjq reads from folders (docs/REFERENCE.md, "Input framing")?
pub fn is_ndjson_name(name: &str) -> bool {
    let base = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(name);
    [".jsonl", ".ndjson", ".json"]
        .iter()
        .any(|ext| base.ends_with(ext))
}

/// Remove ANSI SGR escape sequences (`ESC [ ... m`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Compare `actual` with a golden file under `testdata/expected/`, showing both on failure.
pub fn assert_golden(name: &str, actual: &[u8]) {
    let path = data(&format!("testdata/expected/{name}"));
    let expected = read(&path);
    assert!(
        actual == expected.as_slice(),
        "output differs from golden file {}\n--- expected\n{}\n--- actual\n{}",
        path.display(),
        show(&expected),
        show(actual)
    );
}
