//! Bad input ndjq must survive (docs/REFERENCE.md, "Record codes"): one test per case, named after
//! it. Each test builds its input, checks the diagnostic code and its location through
//! `validate -f json`, and proves that the valid records around the bad one still pass,
//! byte for byte, through `filter` (and the bad one through `--rejects`).

use crate::common;

use common::{ndjq_std, ndjq_sub, tempdir, write_file};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

mod bounds;

// ---------------------------------------------------------------------------------------
// Running the binary and reading its reports
// ---------------------------------------------------------------------------------------

/// One diagnostic of `validate -f json`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
struct Diag {
    file: String,
    line: u64,
    column: Option<u64>,
    offset: u64,
    code: String,
    severity: String,
    message: String,
    excerpt: String,
}

/// The final line of `validate -f json`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
struct Summary {
    files: u64,
    records: u64,
    bytes: u64,
    valid: u64,
    invalid: u64,
    empty: u64,
    errors: u64,
    warnings: u64,
    infos: u64,
    by_code: BTreeMap<String, u64>,
    stopped_early: bool,
}

#[derive(Debug, Deserialize)]
struct SummaryLine {
    summary: Summary,
}

#[derive(Debug)]
struct Report {
    status: Option<i32>,
    diags: Vec<Diag>,
    summary: Summary,
    stderr: String,
}

impl Report {
    fn parse(stdout: &[u8], stderr: &[u8], status: Option<i32>) -> Report {
        let stdout = std::str::from_utf8(stdout).expect("validate -f json writes UTF-8");
        let stderr = String::from_utf8_lossy(stderr).into_owned();
        let mut diags = Vec::new();
        let mut summary = None;
        for line in stdout.lines() {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("validate printed a non-JSON line {line:?}: {e}"));
            if value.get("summary").is_some() {
                assert!(summary.is_none(), "two summary lines in:\n{stdout}");
                let parsed: SummaryLine =
                    serde_json::from_value(value).expect("summary line shape");
                summary = Some(parsed.summary);
            } else {
                assert!(
                    summary.is_none(),
                    "a diagnostic after the summary:\n{stdout}"
                );
                diags.push(serde_json::from_value(value).expect("diagnostic line shape"));
            }
        }
        let summary = summary.unwrap_or_else(|| {
            panic!("no summary line (exit {status:?}); stdout:\n{stdout}\nstderr:\n{stderr}")
        });
        let report = Report {
            status,
            diags,
            summary,
            stderr,
        };
        report.check_consistency();
        report
    }

    /// Invariants every report must keep, whatever the input.
    fn check_consistency(&self) {
        let s = &self.summary;
        assert_eq!(
            s.records,
            s.valid + s.invalid + s.empty,
            "records = valid + invalid + empty: {s:?}"
        );
        let count = |sev: &str| self.diags.iter().filter(|d| d.severity == sev).count() as u64;
        if !s.stopped_early {
            assert_eq!(s.errors, count("error"), "summary.errors: {self:#?}");
            assert_eq!(s.warnings, count("warning"), "summary.warnings: {self:#?}");
            assert_eq!(s.infos, count("info"), "summary.infos: {self:#?}");
            let mut by_code = BTreeMap::new();
            for d in &self.diags {
                *by_code.entry(d.code.clone()).or_insert(0u64) += 1;
            }
            assert_eq!(s.by_code, by_code, "summary.by_code: {self:#?}");
        }
        for d in &self.diags {
            assert!(d.line >= 1, "line numbers are 1-based: {d:?}");
            assert_ne!(d.column, Some(0), "columns are 1-based: {d:?}");
            assert!(!d.message.is_empty(), "a diagnostic without message: {d:?}");
        }
    }

    /// Every diagnostic on `line`.
    fn on_line(&self, line: u64) -> Vec<&Diag> {
        self.diags.iter().filter(|d| d.line == line).collect()
    }

    /// The codes on `line`.
    fn codes_on(&self, line: u64) -> Vec<&str> {
        self.on_line(line).iter().map(|d| d.code.as_str()).collect()
    }

    /// The one diagnostic on `line`, which must carry `code`.
    fn only(&self, code: &str, line: u64) -> &Diag {
        let on = self.on_line(line);
        assert!(
            on.len() == 1 && on[0].code == code,
            "expected exactly {code} on line {line}, got {:?}\nall: {:#?}",
            self.codes_on(line),
            self.diags
        );
        on[0]
    }

    fn assert_no_diagnostics_on(&self, lines: impl IntoIterator<Item = u64>) {
        for line in lines {
            assert!(
                self.on_line(line).is_empty(),
                "line {line} should be clean, got {:?}",
                self.on_line(line)
            );
        }
    }
}

/// `ndjq validate -f json ARGS` on `input` through stdin.
fn validate(input: &[u8], args: &[&str]) -> Report {
    let out = ndjq_sub("validate")
        .args(["-f", "json"])
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("run ndjq validate");
    Report::parse(&out.stdout, &out.stderr, out.status.code())
}

/// `ndjq validate -f json ARGS PATHS`.
fn validate_paths(paths: &[&Path], args: &[&str]) -> Report {
    let out = ndjq_sub("validate")
        .args(["-f", "json"])
        .args(args)
        .args(paths)
        .output()
        .expect("run ndjq validate");
    Report::parse(&out.stdout, &out.stderr, out.status.code())
}

#[derive(Debug)]
struct Filtered {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// What `--rejects FILE` received (empty when the file was not created).
    rejects: Vec<u8>,
}

/// `ndjq filter --rejects FILE ARGS` on `input` through stdin.
fn filter(input: &[u8], args: &[&str]) -> Filtered {
    filter_with(args, |cmd| {
        cmd.write_stdin(input.to_vec());
    })
}

/// `ndjq filter --rejects FILE ARGS PATH`.
fn filter_path(path: &Path, args: &[&str]) -> Filtered {
    filter_with(args, |cmd| {
        cmd.arg(path);
    })
}

fn filter_with(args: &[&str], source: impl FnOnce(&mut assert_cmd::Command)) -> Filtered {
    let dir = tempdir();
    let rejects = dir.path().join("rejects.ndjson");
    let mut cmd = ndjq_sub("filter");
    cmd.arg("--rejects").arg(&rejects).args(args);
    source(&mut cmd);
    let out = cmd.output().expect("run ndjq filter");
    Filtered {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        rejects: std::fs::read(&rejects).unwrap_or_default(),
    }
}

/// Each record followed by `\n`.
fn lines(records: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        out.extend_from_slice(r);
        out.push(b'\n');
    }
    out
}

/// Shows bytes readably in assertion messages.
fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > 300 {
        let head: String = s.chars().take(300).collect();
        format!("{head:?}… ({} bytes)", bytes.len())
    } else {
        format!("{s:?}")
    }
}

#[track_caller]
fn assert_bytes(actual: &[u8], expected: &[u8], what: &str) {
    assert!(
        actual == expected,
        "{what} differs\n  actual:   {}\n  expected: {}",
        show(actual),
        show(expected)
    );
}

// Neutral records: no `type` a dialect knows, so no schema warnings get in the way.
const BEFORE: &[u8] = br#"{"n":1,"text":"before"}"#;
const AFTER: &[u8] = br#"{"n":3,"text":"after"}"#;

/// Puts `bad` on line 2 between two valid records, and checks the whole contract: exactly
/// one diagnostic `code` on line 2 at a consistent offset, the neighbours valid and passed
/// byte-exactly by `filter`, the bad record byte-exactly in `--rejects` and `--invalid`,
/// and `validate`'s exit status following the severity. Returns the diagnostic.
fn bad_between_good(bad: &[u8], code: &str) -> Diag {
    let input = lines(&[BEFORE, bad, AFTER]);
    let report = validate(&input, &[]);
    let diag = report.only(code, 2).clone();
    report.assert_no_diagnostics_on([1, 3]);
    let s = &report.summary;
    assert_eq!(
        (s.records, s.valid, s.invalid, s.empty),
        (3, 2, 1, 0),
        "{code}: the bad record is one invalid record, its neighbours valid: {s:?}"
    );
    assert_eq!(s.bytes, input.len() as u64, "every byte is counted");
    assert_eq!(diag.file, "-", "stdin is named -");
    let line_start = BEFORE.len() as u64 + 1;
    match diag.column {
        Some(col) => {
            assert!(
                col as usize <= bad.len() + 1,
                "column {col} beyond the record ({} bytes): {diag:?}",
                bad.len()
            );
            assert_eq!(
                diag.offset,
                line_start + col - 1,
                "offset is the line start plus the column: {diag:?}"
            );
        }
        None => assert_eq!(diag.offset, line_start, "offset of the record: {diag:?}"),
    }
    let want = if diag.severity == "error" { 1 } else { 0 };
    assert_eq!(report.status, Some(want), "validate exit for {diag:?}");

    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
    assert_bytes(&f.rejects, &lines(&[bad]), "--rejects");
    assert_eq!(
        f.status,
        Some(0),
        "filter selected the neighbours: {}",
        f.stderr
    );
    assert!(
        f.stderr.contains(code),
        "filter reports {code} on stderr, got: {}",
        f.stderr
    );
    let inv = filter(&input, &["--invalid", "-q"]);
    assert_bytes(&inv.stdout, &lines(&[bad]), "filter --invalid output");
    assert_eq!(inv.status, Some(0));
    assert_eq!(inv.stderr, "", "-q silences diagnostics");
    diag
}

/// Checks that every record of `input` passes `filter` unchanged and `validate` finds no
/// error; returns the report.
fn all_valid_and_unchanged(input: &[u8]) -> Report {
    let report = validate(input, &[]);
    assert_eq!(report.summary.invalid, 0, "{:#?}", report.diags);
    assert_eq!(report.summary.errors, 0, "{:#?}", report.diags);
    assert_eq!(report.status, Some(0));
    let f = filter(input, &[]);
    assert_bytes(&f.stdout, input, "filter output");
    assert_bytes(&f.rejects, b"", "--rejects");
    assert_eq!(f.status, Some(0));
    report
}

/// Peak resident memory of a live process, in bytes (Linux only).
#[cfg(target_os = "linux")]
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(not(target_os = "linux"))]
fn peak_rss(_pid: u32) -> Option<u64> {
    None
}

/// What [`run_holding_stdin`] saw.
struct Held {
    stdout: Vec<u8>,
    stderr: String,
    status: Option<i32>,
    /// Peak memory while stdin was still open, when the platform tells.
    peak: Option<u64>,
}

/// Runs `ndjq SUBCOMMAND ARGS`, writes `input` to its stdin and keeps stdin open until
/// `ready(stdout so far)` holds, then samples the process's peak memory (it is still alive,
/// waiting for more input) before closing stdin and collecting the rest.
fn run_holding_stdin(
    subcommand: &str,
    args: &[&str],
    input: Vec<u8>,
    ready: impl Fn(&[u8]) -> bool,
) -> Held {
    let mut child = ndjq_std(subcommand)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let (written_tx, written_rx) = mpsc::channel();
    let (close_tx, close_rx) = mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let result = stdin.write_all(&input).and_then(|()| stdin.flush());
        let _ = written_tx.send(result.map_err(|e| e.to_string()));
        let _ = close_rx.recv();
        drop(stdin);
    });
    let out = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let out = Arc::clone(&out);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1 << 16];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out
                        .lock()
                        .expect("stdout buffer")
                        .extend_from_slice(&buf[..n]),
                }
            }
        })
    };
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    written_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("writer finished")
        .expect("ndjq read all of its stdin");
    while !ready(&out.lock().expect("stdout buffer")) {
        assert!(Instant::now() < deadline, "ndjq never got ready");
        std::thread::sleep(Duration::from_millis(5));
    }
    let peak = peak_rss(pid);
    let _ = close_tx.send(());
    writer.join().expect("writer thread");
    reader.join().expect("reader thread");
    let stderr = err_reader.join().expect("stderr thread");
    let status = child.wait().expect("wait for ndjq");
    let stdout = std::mem::take(&mut *out.lock().expect("stdout buffer"));
    Held {
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        status: status.code(),
        peak,
    }
}

const MIB: u64 = 1 << 20;

// ---------------------------------------------------------------------------------------
// The rows
// ---------------------------------------------------------------------------------------

#[test]
fn valid_lf_line() {
    let input = lines(&[
        br#"{"kind":"init","id":"s1"}"#,
        "{\"kind\":\"note\",\"text\":\"caf\u{e9} \u{1F600} \\\"quoted\\\" \\\\ \\n\"}".as_bytes(),
        br#"{"nested":{"a":[1,2,{"b":null}],"c":true},"e":-1.5e-3}"#,
    ]);
    let report = all_valid_and_unchanged(&input);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    assert_eq!(report.summary.valid, 3);
    assert_eq!(report.summary.bytes, input.len() as u64);
    assert_eq!(report.summary.files, 1);
}

#[test]
fn crlf_line() {
    let input = b"{\"a\":1}\r\n{\"b\":2}\r\n{\"c\":3}\n".to_vec();
    let report = all_valid_and_unchanged(&input);
    let d = report.only("PROTO_CRLF", 1);
    assert_eq!(d.severity, "info");
    report.only("PROTO_CRLF", 2);
    report.assert_no_diagnostics_on([3]);
    assert_eq!(report.summary.valid, 3);
    // Tolerated, yet `--fail-on info` fails on it.
    assert_eq!(validate(&input, &["--fail-on", "info"]).status, Some(1));
    // The CRLF record is parsed (queries see it) and passed with its `\r\n`.
    let f = filter(&input, &["--where", "b=2"]);
    assert_bytes(&f.stdout, b"{\"b\":2}\r\n", "filter --where b=2");
    assert_eq!(f.status, Some(0));
}

#[test]
fn last_line_without_newline() {
    let input = b"{\"a\":1}\n{\"b\":2}".to_vec();
    let report = all_valid_and_unchanged(&input);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    assert_eq!(report.summary.records, 2);
    assert_eq!(report.summary.valid, 2);
    let f = filter(&input, &["--where", "b=2"]);
    assert_bytes(
        &f.stdout,
        b"{\"b\":2}",
        "the unterminated record, nothing added",
    );
}

#[test]
fn truncated_last_line() {
    let input = b"{\"a\":1}\n{\"b\":2}\n{\"a\":".to_vec();
    let report = validate(&input, &[]);
    let d = report.only("PROTO_TRUNCATED", 3);
    assert_eq!(d.severity, "error");
    assert!(d.column.is_some(), "a truncated record has a column: {d:?}");
    report.assert_no_diagnostics_on([1, 2]);
    assert_eq!(
        (report.summary.valid, report.summary.invalid),
        (2, 1),
        "{:?}",
        report.summary
    );
    assert_eq!(
        report.status,
        Some(1),
        "validate exits 1 on a truncated line"
    );
    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, b"{\"a\":1}\n{\"b\":2}\n", "filter output");
    assert_bytes(
        &f.rejects,
        b"{\"a\":",
        "--rejects keeps the cut record as is",
    );
    assert_eq!(f.status, Some(0));
}

#[test]
fn blank_line() {
    let input = b"{\"a\":1}\n\n{\"b\":2}\n".to_vec();
    let report = validate(&input, &[]);
    let d = report.only("PROTO_EMPTY_LINE", 2);
    assert_eq!(d.severity, "info");
    assert_eq!(d.offset, 8);
    let s = &report.summary;
    assert_eq!(
        (s.records, s.valid, s.invalid, s.empty),
        (3, 2, 0, 1),
        "{s:?}"
    );
    assert_eq!(report.status, Some(0), "an empty line is not an error");
    assert_eq!(validate(&input, &["--fail-on", "info"]).status, Some(1));
    let f = filter(&input, &[]);
    assert_bytes(
        &f.stdout,
        b"{\"a\":1}\n{\"b\":2}\n",
        "filter skips the blank line",
    );
    assert_bytes(&f.rejects, b"", "a blank line is no reject");
    assert_eq!(f.status, Some(0));
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

#[test]
fn bom_at_stream_start() {
    let input = [BOM, b"{\"a\":1}\n{\"b\":2}\n"].concat();
    let report = all_valid_and_unchanged(&input);
    assert!(
        report.diags.is_empty(),
        "a leading BOM is silent: {:#?}",
        report.diags
    );
    assert_eq!(report.summary.valid, 2);
    let f = filter(&input, &["--where", "a=1"]);
    assert_bytes(
        &f.stdout,
        &[BOM, b"{\"a\":1}\n"].concat(),
        "BOM record kept whole",
    );
    // Each input's first line may carry its own BOM.
    let dir = tempdir();
    let a = write_file(dir.path(), "a.ndjson", &input);
    let b = write_file(dir.path(), "b.ndjson", &input);
    let report = validate_paths(&[&a, &b], &[]);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    assert_eq!((report.summary.files, report.summary.valid), (2, 4));
}

#[test]
fn bom_at_line_57() {
    let mut records: Vec<Vec<u8>> = (1..=56)
        .map(|n| format!("{{\"n\":{n}}}").into_bytes())
        .collect();
    records.push([BOM, b"{\"n\":57}"].concat());
    records.push(b"{\"n\":58}".to_vec());
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let input = lines(&refs);
    let report = all_valid_and_unchanged(&input);
    let d = report.only("PROTO_BOM", 57);
    assert_eq!(d.severity, "info");
    let line_start: usize = records[..56].iter().map(|r| r.len() + 1).sum();
    assert_eq!(d.offset, line_start as u64, "the BOM's offset: {d:?}");
    assert_eq!(report.diags.len(), 1, "{:#?}", report.diags);
    assert_eq!(report.summary.valid, 58);
    let f = filter(&input, &["--where", "n=57"]);
    assert_bytes(
        &f.stdout,
        &[BOM, b"{\"n\":57}\n"].concat(),
        "BOM record kept whole",
    );
    assert_eq!(f.status, Some(0));
}

/// Encodes `text` as UTF-16.
fn utf16(text: &str, little_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut push = |u: u16| {
        let b = if little_endian {
            u.to_le_bytes()
        } else {
            u.to_be_bytes()
        };
        out.extend_from_slice(&b);
    };
    if bom {
        push(0xFEFF);
    }
    text.encode_utf16().for_each(&mut push);
    out
}

#[test]
fn utf16_text() {
    let text = "{\"type\":\"user\",\"text\":\"hello\"}\n{\"type\":\"assistant\",\"n\":2}\n";
    let dir = tempdir();
    let good = write_file(dir.path(), "good.ndjson", b"{\"ok\":1}\n");
    for (name, le, bom) in [
        ("utf16le-bom", true, true),
        ("utf16le", true, false),
        ("utf16be-bom", false, true),
        ("utf16be", false, false),
    ] {
        let input = utf16(text, le, bom);
        let report = validate(&input, &[]);
        assert!(report.summary.records >= 2, "{name}: {:?}", report.summary);
        assert_eq!(report.summary.valid, 0, "{name}: nothing valid");
        assert_eq!(report.status, Some(1), "{name}");
        let f = filter(&input, &[]);
        assert_bytes(&f.stdout, b"", &format!("{name}: filter output"));
        assert_bytes(
            &f.rejects,
            &input,
            &format!("{name}: --rejects holds every byte"),
        );
        // A UTF-8 input after it is read normally.
        let path = write_file(dir.path(), &format!("{name}.ndjson"), &input);
        let report = validate_paths(&[&path, &good], &[]);
        assert_eq!(report.summary.valid, 1, "{name}: the UTF-8 file after it");
        assert!(report
            .diags
            .iter()
            .all(|d| d.file != good.to_string_lossy()));
        // Every record, including the lone 0x00 that follows the last 0x0A of UTF-16LE
        // text, is UTF-16, not UTF-8.
        let report = validate(&input, &[]);
        for line in 1..=report.summary.records {
            let on = report.on_line(line);
            assert!(
                on.len() == 1
                    && on[0].code == "PROTO_INVALID_UTF8"
                    && on[0].message.contains("UTF-16"),
                "{name}: line {line} should be PROTO_INVALID_UTF8 naming UTF-16, got {on:?}"
            );
        }
    }
}

#[test]
fn ff_in_string() {
    let d = bad_between_good(b"{\"a\":\"x\xFFy\"}", "PROTO_INVALID_UTF8");
    assert_eq!(d.column, Some(8), "column of the 0xFF byte: {d:?}");
    assert_eq!(d.severity, "error");
    // `bad_between_good` compared --rejects byte for byte: the 0xFF is there, no U+FFFD.
}

#[test]
fn overlong_surrogate_and_cut_multibyte() {
    for (bad, column) in [
        (&b"{\"a\":\"\xC0\xAF\"}"[..], 7),       // overlong '/'
        (&b"{\"a\":\"\xED\xA0\x80\"}"[..], 7),   // UTF-8 encoded surrogate D800
        (&b"{\"a\":\"\xE2\x82\"}"[..], 7),       // multibyte cut before the quote
        (&b"{\"a\":\"ok\xF0\x9F\x98\"}"[..], 9), // 4-byte sequence cut short
    ] {
        let d = bad_between_good(bad, "PROTO_INVALID_UTF8");
        assert_eq!(d.column, Some(column), "{}: {d:?}", show(bad));
    }
    // A multibyte sequence cut by the end of the input.
    let input = [b"{\"a\":1}\n{\"a\":\"x" as &[u8], b"\xE2\x82"].concat();
    let report = validate(&input, &[]);
    report.only("PROTO_INVALID_UTF8", 2);
    assert_eq!(report.summary.valid, 1);
    let f = filter(&input, &[]);
    assert_bytes(&f.rejects, b"{\"a\":\"x\xE2\x82", "--rejects");
}

#[test]
fn lone_surrogate_escape() {
    let d = bad_between_good(br#"{"a":"\ud800"}"#, "PROTO_INVALID_JSON");
    assert!(d.column.is_some(), "{d:?}");
    bad_between_good(br#"{"a":"x\udc00y"}"#, "PROTO_INVALID_JSON");
    // A proper pair is fine.
    all_valid_and_unchanged(b"{\"a\":\"\\ud83d\\ude00\"}\n");
}

#[test]
fn raw_nul_in_string() {
    let bad = b"{\"a\":\"x\0y\",\"b\":\"after the nul\"}";
    let d = bad_between_good(bad, "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(8), "column of the NUL: {d:?}");
    assert!(
        d.excerpt.contains("after"),
        "the excerpt is not cut at the NUL: {d:?}"
    );
}

#[test]
fn nul_after_object() {
    let d = bad_between_good(b"{\"a\":1}\0", "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(8), "{d:?}");
    // `bad_between_good` checked 3 records: the line was not split at the NUL.
}

#[test]
fn raw_tab_or_control_in_string() {
    let d = bad_between_good(b"{\"a\":\"x\ty\"}", "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(8), "{d:?}");
    let d = bad_between_good(b"{\"a\":\"\x1F\"}", "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(7), "{d:?}");
}

#[test]
fn trailing_garbage() {
    let d = bad_between_good(b"{\"a\":1}garbage", "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(8), "{d:?}");
    assert!(d.message.contains("trailing"), "{d:?}");
}

#[test]
fn two_values_on_one_line() {
    let d = bad_between_good(b"{\"a\":1} {\"b\":2}", "PROTO_INVALID_JSON");
    assert_eq!(d.column, Some(9), "{d:?}");
    assert!(d.message.contains("trailing"), "{d:?}");
}

#[test]
fn cut_record_then_valid_lines() {
    let input = lines(&[b"{\"a\":1}", b"{\"b\":", b"{\"c\":3}", b"{\"d\":4}"]);
    let report = validate(&input, &[]);
    report.only("PROTO_TRUNCATED", 2);
    report.assert_no_diagnostics_on([1, 3, 4]);
    assert_eq!(report.summary.valid, 3, "the next lines parse");
    assert_eq!(report.status, Some(1));
    let f = filter(&input, &[]);
    assert_bytes(
        &f.stdout,
        &lines(&[b"{\"a\":1}", b"{\"c\":3}", b"{\"d\":4}"]),
        "filter output",
    );
    assert_bytes(&f.rejects, b"{\"b\":\n", "--rejects");
}

#[test]
fn pretty_printed_object_without_recover() {
    let mut records: Vec<Vec<u8>> = (1..=9)
        .map(|n| format!("{{\"n\":{n}}}").into_bytes())
        .collect();
    let pretty: [&[u8]; 5] = [
        b"{",
        b"  \"type\": \"user\",",
        b"  \"msg\": {\"a\": 1},",
        b"  \"n\": 10",
        b"}",
    ];
    records.extend(pretty.iter().map(|l| l.to_vec()));
    records.push(b"{\"n\":15}".to_vec());
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let input = lines(&refs);
    let report = validate(&input, &[]);
    for line in 10..=14 {
        let on = report.codes_on(line);
        assert!(
            on.len() == 1
                && matches!(
                    on[0],
                    "PROTO_INVALID_JSON" | "PROTO_TRUNCATED" | "PROTO_TEXT_NOISE"
                ),
            "one decode diagnostic on line {line}, got {on:?}"
        );
    }
    report.assert_no_diagnostics_on((1..=9).chain([15]));
    let s = &report.summary;
    assert_eq!((s.valid, s.invalid), (10, 5), "{s:?}");
    assert_eq!(report.status, Some(1));
    let f = filter(&input, &[]);
    let valid: Vec<&[u8]> = refs[..9].iter().chain(&refs[14..]).copied().collect();
    assert_bytes(&f.stdout, &lines(&valid), "no valid line eaten");
    assert_bytes(&f.rejects, &lines(&pretty), "--rejects");
}

#[test]
fn plain_text_banner() {
    let bad = b"Welcome to Claude Code v2.0.14 (research preview)";
    let d = bad_between_good(bad, "PROTO_TEXT_NOISE");
    assert_eq!(d.severity, "warning");
    let input = lines(&[BEFORE, bad, AFTER]);
    assert_eq!(validate(&input, &["--fail-on", "warning"]).status, Some(1));
}

#[test]
fn ansi_codes_and_progress_bars() {
    let noise: [&[u8]; 4] = [
        b"\x1b[32m\xE2\x9C\x94\x1b[0m Task completed",
        b"\x1b[1;31merror:\x1b[0m could not reach the API, retrying",
        // tqdm: every update starts with a carriage return.
        b"\r  0%|          | 0/100 [00:00<?, ?it/s]\r 45%|####5     | 45/100 [00:01<00:01, 44.2it/s]\r100%|##########| 100/100 [00:02<00:00, 44.9it/s]",
        b"Downloading model...  10%\rDownloading model...  55%\rDownloading model... 100%",
    ];
    let mut records = vec![BEFORE];
    records.extend(noise);
    records.push(AFTER);
    let input = lines(&records);
    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
    assert_bytes(&f.rejects, &lines(&noise), "--rejects keeps them unchanged");
    let inv = filter(&input, &["--invalid", "-q"]);
    assert_bytes(&inv.stdout, &lines(&noise), "filter --invalid");
    let report = validate(&input, &[]);
    report.assert_no_diagnostics_on([1, 6]);
    assert_eq!((report.summary.valid, report.summary.invalid), (2, 4));
    for line in 2..=5 {
        report.only("PROTO_TEXT_NOISE", line);
    }
    assert_eq!(report.status, Some(0), "text noise is a warning");
}

/// A valid record of about `size` bytes holding one big string, as a tool result does.
fn big_record(size: usize) -> Vec<u8> {
    let chunk = format!(
        "{}\\\"quoted\\\"\\t\\n",
        "lorem ipsum dolor sit amet, caf\u{e9} ".repeat(30)
    );
    let mut out = br#"{"kind":"tool_output","content":""#.to_vec();
    while out.len() + chunk.len() + 2 < size {
        out.extend_from_slice(chunk.as_bytes());
    }
    out.extend_from_slice(b"\"}");
    out
}
