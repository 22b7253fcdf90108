//! JSONTestSuite conformance (testdata/conformance: "both accept all `y_` and reject all `n_`
//! files"): the library decoder and the `validate` binary must agree with the suite, and
//! no file may crash either. `i_` files may go either way, but never panic or exit 2.

use crate::common;

use common::ndjq_sub;
use ndjq::decode::Decoder;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const SUITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/conformance/JSONTestSuite/test_parsing"
);
const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Accept,
    Reject,
    Either,
}

struct Case {
    name: String,
    path: PathBuf,
    bytes: Vec<u8>,
    expect: Expect,
}

/// Every file of the suite; fails (never skips) when the suite is missing or incomplete.
fn cases() -> Vec<Case> {
    let dir = Path::new(SUITE);
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| {
        panic!(
            "JSONTestSuite missing at {}: {e}; it is required",
            dir.display()
        )
    });
    let mut cases: Vec<Case> = entries
        .map(|entry| {
            let path = entry.expect("read a directory entry").path();
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            let expect = match name.as_bytes().first() {
                Some(b'y') => Expect::Accept,
                Some(b'n') => Expect::Reject,
                Some(b'i') => Expect::Either,
                _ => panic!("unexpected file in the suite: {name}"),
            };
            let bytes = std::fs::read(&path).expect("read a suite file");
            Case {
                name,
                path,
                bytes,
                expect,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(
        cases.len() >= 300,
        "JSONTestSuite at {} has only {} files, expected at least 300",
        dir.display(),
        cases.len()
    );
    let count = |e: Expect| cases.iter().filter(|c| c.expect == e).count();
    assert!(count(Expect::Accept) >= 90, "too few y_ files");
    assert!(count(Expect::Reject) >= 180, "too few n_ files");
    assert!(count(Expect::Either) >= 30, "too few i_ files");
    cases
}

#[test]
fn decoder_follows_json_test_suite() {
    let cases = cases();
    // Depth 1024 for the verdicts: n_structure_100000_opening_arrays must be rejected
    // whatever the depth limit, and the y_ files are shallow.
    let mut deep = Decoder::new(1024);
    let mut default = Decoder::new(ndjq::decode::DEFAULT_MAX_DEPTH);
    let mut wrong = Vec::new();
    for case in &cases {
        let verdict = catch_unwind(AssertUnwindSafe(|| deep.verdict(&case.bytes)));
        let Ok(verdict) = verdict else {
            wrong.push(format!("{}: decoder panicked (max_depth 1024)", case.name));
            deep = Decoder::new(1024);
            continue;
        };
        match (case.expect, &verdict) {
            (Expect::Accept, Err(f)) => wrong.push(format!(
                "{}: rejected a y_ file: {:?} at {}: {}",
                case.name, f.code, f.index, f.message
            )),
            (Expect::Reject, Ok(())) => wrong.push(format!("{}: accepted an n_ file", case.name)),
            _ => {}
        }
        if let Err(f) = &verdict {
            if f.index > case.bytes.len() {
                wrong.push(format!(
                    "{}: failure index {} beyond the {} bytes",
                    case.name,
                    f.index,
                    case.bytes.len()
                ));
            }
            if f.message.is_empty() {
                wrong.push(format!("{}: failure without a message", case.name));
            }
        }
        // The default depth must not crash either, and may only be stricter.
        let shallow = catch_unwind(AssertUnwindSafe(|| default.verdict(&case.bytes)));
        match shallow {
            Err(_) => {
                wrong.push(format!("{}: decoder panicked (default depth)", case.name));
                default = Decoder::new(ndjq::decode::DEFAULT_MAX_DEPTH);
            }
            Ok(Ok(())) if verdict.is_err() => wrong.push(format!(
                "{}: accepted at depth 128 but rejected at depth 1024",
                case.name
            )),
            Ok(_) => {}
        }
    }
    assert!(wrong.is_empty(), "decoder disagrees:\n{}", wrong.join("\n"));
}

#[derive(Debug, Deserialize)]
struct Diag {
    code: String,
    severity: String,
}

#[derive(Debug, Deserialize)]
struct Summary {
    records: u64,
    valid: u64,
    invalid: u64,
    empty: u64,
    errors: u64,
    by_code: BTreeMap<String, u64>,
}

#[derive(Debug, Deserialize)]
struct SummaryLine {
    summary: Summary,
}

struct Run {
    status: Option<i32>,
    diags: Vec<Diag>,
    summary: Option<Summary>,
    stderr: String,
}

fn validate_file(path: &Path) -> Run {
    let out = ndjq_sub("validate")
        .args(["-f", "json"])
        .arg(path)
        .output()
        .expect("run ndjq validate");
    let stdout = String::from_utf8(out.stdout).expect("validate -f json writes UTF-8");
    let mut diags = Vec::new();
    let mut summary = None;
    for line in stdout.lines() {
        let value: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}: not JSON: {line:?}: {e}", path.display()));
        if value.get("summary").is_some() {
            let parsed: SummaryLine = serde_json::from_value(value).expect("summary line shape");
            summary = Some(parsed.summary);
        } else {
            diags.push(serde_json::from_value(value).expect("diagnostic line shape"));
        }
    }
    Run {
        status: out.status.code(),
        diags,
        summary,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Blank for framing: nothing but spaces, tabs and CRs once a leading BOM is set aside.
fn is_blank(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

#[test]
fn validate_follows_json_test_suite() {
    let cases = cases();
    let mut decoder = Decoder::new(ndjq::decode::DEFAULT_MAX_DEPTH);
    let mut wrong = Vec::new();
    let mut single_line = 0;
    for case in &cases {
        let run = validate_file(&case.path);
        let name = &case.name;
        let status = match run.status {
            Some(s @ (0 | 1)) => s,
            other => {
                wrong.push(format!(
                    "{name}: exit {other:?} (killed or I/O error), stderr: {}",
                    run.stderr.trim()
                ));
                continue;
            }
        };
        let Some(summary) = run.summary else {
            wrong.push(format!("{name}: no summary line"));
            continue;
        };
        if case.bytes.contains(&b'\n') {
            // Several records: only "no crash, a summary, exit 0/1" applies.
            continue;
        }
        single_line += 1;
        let errors = run.diags.iter().filter(|d| d.severity == "error").count() as u64;
        if errors != summary.errors {
            wrong.push(format!(
                "{name}: {errors} error diagnostics but summary.errors {}",
                summary.errors
            ));
        }
        let codes: Vec<&str> = run.diags.iter().map(|d| d.code.as_str()).collect();
        let by_code_total: u64 = summary.by_code.values().sum();
        if by_code_total != run.diags.len() as u64 {
            wrong.push(format!(
                "{name}: by_code counts {by_code_total} but {} diagnostics printed",
                run.diags.len()
            ));
        }
        match case.expect {
            Expect::Accept => {
                if status != 0 || summary.valid != 1 || summary.invalid != 0 {
                    wrong.push(format!(
                        "{name}: y_ file gave exit {status}, valid {}, invalid {}, codes {codes:?}",
                        summary.valid, summary.invalid
                    ));
                }
                if codes.iter().any(|c| *c != "PROTO_NOT_OBJECT") {
                    wrong.push(format!("{name}: y_ file has diagnostics {codes:?}"));
                }
            }
            Expect::Reject if is_blank(&case.bytes) => {
                // "" is zero records; " " (or a lone BOM) is one empty line: info only.
                let ok = summary.valid == 0
                    && summary.invalid == 0
                    && (summary.empty == 1 || summary.records == 0)
                    && status == 0;
                if !ok {
                    wrong.push(format!(
                        "{name}: blank n_ file gave exit {status}, {summary:?}"
                    ));
                }
            }
            Expect::Reject => {
                if summary.valid != 0 || summary.invalid != 1 || summary.records != 1 {
                    wrong.push(format!(
                        "{name}: n_ file not counted one invalid record: {summary:?}"
                    ));
                }
                // Text noise is a warning, so it does not fail `validate` by default; any
                // other reason for an invalid record is an error and must.
                let noise_only =
                    !codes.is_empty() && codes.iter().all(|c| *c == "PROTO_TEXT_NOISE");
                let want = if noise_only { 0 } else { 1 };
                if status != want || (!noise_only && summary.errors == 0) {
                    wrong.push(format!(
                        "{name}: n_ file gave exit {status} (want {want}), codes {codes:?}"
                    ));
                }
            }
            Expect::Either => {
                if summary.records != 1 || summary.valid + summary.invalid != 1 {
                    wrong.push(format!(
                        "{name}: i_ file not counted as one record: {summary:?}"
                    ));
                }
                let want = if summary.errors > 0 { 1 } else { 0 };
                if status != want {
                    wrong.push(format!(
                        "{name}: i_ file exit {status} with {} errors",
                        summary.errors
                    ));
                }
            }
        }
        // The binary's verdict is the library's verdict at the same (default) depth.
        if !is_blank(&case.bytes) {
            let record = case.bytes.strip_prefix(BOM).unwrap_or(&case.bytes);
            let record = record.strip_suffix(b"\r").unwrap_or(record);
            let library_ok = decoder.verdict(record).is_ok();
            if library_ok != (summary.valid == 1) {
                wrong.push(format!(
                    "{name}: library says valid={library_ok}, binary says valid={}",
                    summary.valid
                ));
            }
        }
    }
    assert!(
        single_line >= 290,
        "only {single_line} single-line files were checked"
    );
    assert!(
        wrong.is_empty(),
        "validate disagrees with JSONTestSuite:\n{}",
        wrong.join("\n")
    );
}
