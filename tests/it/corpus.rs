//! ndjq over every file of the corpus of real captures (`testdata/corpus`, see
//! testdata/SOURCES.md and testdata/corpus/SCHEMA-NOTES.md). The big captures are stored
//! zstd-compressed, so the folder walk also reads `.zst` files; the expected bytes are the
//! decompressed ones.
//!
//! - `validate` finds nothing wrong in any of them: they are what the agents really write,
//!   so every diagnostic would be a false alarm (no unknown types: session logs keep adding
//!   record types, and the dialects know the ones seen in these files).
//! - Each file is detected as the dialect its format says.
//! - `filter --type X` selects exactly the lines whose parsed `type` is X, byte for byte.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::Value;
use support::{corpus_dir, is_ndjson_name, lines, ndjq, parse_validate, read, show, walk};

/// Every NDJSON file of the corpus (the files a folder walk reads), relative and absolute.
/// Fails when the corpus is missing or empty: these tests must never pass vacuously.
fn corpus_files() -> Vec<(String, PathBuf)> {
    let dir = corpus_dir();
    let files: Vec<(String, PathBuf)> = walk(&dir)
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&dir)
                .expect("under the corpus")
                .to_string_lossy()
                .replace('\\', "/");
            is_ndjson_name(&rel).then_some((rel, p))
        })
        .collect();
    assert!(
        files.len() >= 40,
        "the corpus looks incomplete: {} NDJSON files under {}",
        files.len(),
        dir.display()
    );
    for (rel, path) in &files {
        assert!(!read(path).is_empty(), "corpus file {rel} is empty");
    }
    assert!(
        files.iter().any(|(rel, _)| rel.ends_with(".zst")),
        "the big captures are stored compressed: some corpus file must be a .zst"
    );
    files
}

/// The clean Claude `--output-format stream-json` captures: not even a warning is allowed.
fn is_clean_claude_stream(rel: &str) -> bool {
    (rel.starts_with("real-client/claude-") && rel.ends_with(".ndjson"))
        || rel.starts_with("automagik/")
        || rel.starts_with("gleam-sdk/")
}

/// The dialect each corpus file is in, from the format column of testdata/SOURCES.md and
/// corpus/real-client/README.md.
fn expected_dialect(rel: &str) -> &'static str {
    if rel.ends_with(".session-log.jsonl") {
        if rel.starts_with("real-client/claude-") {
            return "claude-log";
        }
        if rel.starts_with("real-client/codex-") {
            return "codex-log";
        }
    }
    if is_clean_claude_stream(rel) {
        return "claude";
    }
    if (rel.starts_with("real-client/codex-") && rel.ends_with(".ndjson"))
        || rel.starts_with("agentcmd/codex-exec/")
        || rel.starts_with("agent-wrappers/")
    {
        return "codex";
    }
    if rel.starts_with("spotter/")
        || rel.starts_with("claudeless/")
        || rel.starts_with("agentcmd/claude-transcript/")
    {
        return "claude-log";
    }
    if rel.starts_with("agentcmd/codex-rollout/") {
        return "codex-log";
    }
    // Codex TUI session log: {ts, dir, kind, payload}, no `type` field at all.
    if rel.starts_with("codex-tui/") {
        return "generic";
    }
    panic!("corpus file {rel} is new: add its format to expected_dialect()")
}

/// Run `work` over `items` on a few threads (the corpus is about 13 MB; debug builds are
/// slow enough for this to matter). Panics in workers propagate.
fn parallel<T: Sync>(items: &[T], work: impl Fn(&T) + Sync) {
    let next = Mutex::new(0usize);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("lock");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                work(item);
            });
        }
    });
}

/// The structural findings (SEQ_/SESS_/TOOL_/RPC_, from `gaps` and `validate`) that are
/// real properties of the captures, as (line, code). Anything else is a false alarm.
/// TOOL_ERROR (info) is checked apart: it is right wherever the line holds a tool_result
/// with `"is_error":true` (a command that failed, a denied edit), which is common.
fn real_gaps(rel: &str) -> Vec<(u64, &'static str)> {
    match rel {
        // The API failed: Claude says so with subtype `success`, is_error true and
        // api_error_status 500 (corpus/real-client/README.md).
        "real-client/claude-error500.ndjson" => vec![(13, "SESS_ERROR_RESULT")],
        // The API stream failed: turn.failed after six retry notices.
        "real-client/codex-failed.ndjson" => vec![(9, "SESS_ERROR_RESULT")],
        // Truncated: stops right after turn.started (testdata/corpus/SCHEMA-NOTES.md §6.2).
        "agentcmd/codex-exec/stream-output-multi-1.jsonl" => vec![(2, "SESS_NO_RESULT")],
        // The transcript ends on an ExitPlanMode call waiting for the user's approval.
        "agentcmd/claude-transcript/06381696-0074-49f8-863e-6ad4fac507f9.jsonl" => {
            vec![(14, "TOOL_ORPHAN_USE")]
        }
        // The transcript was copied while its last three tool calls were running: it ends
        // on them, without their results.
        "agentcmd/claude-transcript/full-session.jsonl" => vec![
            (47, "TOOL_ORPHAN_USE"),
            (48, "TOOL_ORPHAN_USE"),
            (49, "TOOL_ORPHAN_USE"),
        ],
        _ => vec![],
    }
}

fn is_structural(code: &str) -> bool {
    ["SEQ_", "SESS_", "TOOL_", "RPC_"]
        .iter()
        .any(|p| code.starts_with(p))
}

/// The lines where `events` reads a failed tool call (a tool_result with is_error).
fn failed_tool_lines(path: &Path) -> std::collections::BTreeSet<u64> {
    let out = ndjq()
        .args(["events", "--color", "never", "-q", "-f", "json"])
        .arg(path)
        .output()
        .expect("run ndjq events");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["kind"] == "tool_result" && e["is_error"] == true)
        .filter_map(|e| e["line"].as_u64())
        .collect()
}

/// Checks the structural findings on one corpus file: exactly its [`real_gaps`], plus
/// TOOL_ERROR only on lines holding an error tool_result (`"is_error":true`, or what
/// `events` reads as one: a failed Codex item or rollout call).
fn assert_real_gaps(rel: &str, path: &Path, found: &[&support::Diag]) {
    let text = read(path);
    let file_lines = lines(&text);
    let mut failed_lines = None;
    let mut got: Vec<(u64, &str)> = Vec::new();
    for d in found {
        if d.code == "TOOL_ERROR" {
            let line = file_lines
                .get(d.line as usize - 1)
                .unwrap_or_else(|| panic!("{rel}:{}: no such line", d.line));
            let failed = String::from_utf8_lossy(line).contains("\"is_error\":true")
                || failed_lines
                    .get_or_insert_with(|| failed_tool_lines(path))
                    .contains(&d.line);
            assert!(
                failed,
                "{rel}:{}: TOOL_ERROR on a line with no error tool_result",
                d.line
            );
            assert_eq!(d.severity, "info", "{rel}:{}", d.line);
        } else {
            got.push((d.line, d.code.as_str()));
        }
    }
    assert_eq!(got, real_gaps(rel), "{rel}: structural findings {found:#?}");
}

#[test]
fn validate_finds_nothing_wrong_in_the_corpus() {
    let files = corpus_files();
    let dir = corpus_dir();
    let out = ndjq()
        .args(["validate", "--gaps", "-f", "json", "--fail-on", "info"])
        .arg(&dir)
        .output()
        .expect("ndjq runs");
    let (diags, summary) = parse_validate(&out.stdout);

    // The folder walk read every file, and all of every (decompressed) file.
    let total_bytes: u64 = files.iter().map(|(_, p)| read(p).len() as u64).sum();
    let total_lines: usize = files.iter().map(|(_, p)| lines(&read(p)).len()).sum();
    assert_eq!(summary.files, files.len() as u64);
    assert_eq!(summary.bytes, total_bytes);
    assert_eq!(summary.records, total_lines as u64);

    let rel = |d: &support::Diag| {
        Path::new(&d.file)
            .strip_prefix(&dir)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| d.file.clone())
    };
    // 0. The structural findings are the real properties of the captures, nothing else;
    //    the rest of this test is about the records themselves.
    for (rel_name, path) in &files {
        let found: Vec<&support::Diag> = diags
            .iter()
            .filter(|d| is_structural(&d.code) && rel(d) == *rel_name)
            .collect();
        assert_real_gaps(rel_name, path, &found);
    }
    let (structural, diags): (Vec<support::Diag>, Vec<support::Diag>) =
        diags.into_iter().partition(|d| is_structural(&d.code));
    // 1. No error anywhere.
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == "error")
        .map(|d| format!("{}:{}: {} {}", rel(d), d.line, d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "errors on real captures: {errors:#?}");
    // 2. Nothing at all on the clean Claude stream-json captures.
    let on_clean: Vec<&support::Diag> = diags
        .iter()
        .filter(|d| is_clean_claude_stream(&rel(d)))
        .collect();
    assert!(on_clean.is_empty(), "{on_clean:#?}");
    // 3. Nothing on the other files either. We looked: every file of the corpus is
    //    well-formed NDJSON (no blank lines, CRLF, BOM, text lines: SCHEMA-NOTES.md §6.4) and
    //    every `type` in it is one its dialect knows (including the newer Claude session-log
    //    types attachment, cost-state, api-request*, atis-latch, last-prompt, tools-used and
    //    the Codex log types world_state and token_usage_record). The session-level
    //    findings (0.) are the only ones, and the summary counts exactly them.
    assert!(diags.is_empty(), "diagnostics on real captures: {diags:#?}");
    assert_eq!(summary.valid, summary.records);
    let count = |sev: &str| structural.iter().filter(|d| d.severity == sev).count() as u64;
    assert_eq!(
        (
            summary.invalid,
            summary.empty,
            summary.errors,
            summary.warnings,
            summary.infos
        ),
        (0, 0, count("error"), count("warning"), count("info"))
    );
    assert!(summary.by_code.keys().all(|c| is_structural(c)));
    // The real error results (claude-error500, codex-failed) fail --fail-on info.
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn each_corpus_file_is_detected_as_its_dialect() {
    // Each file alone on stdin, with one record of a type no dialect has appended: the
    // PROTO_UNKNOWN_TYPE warning it draws names the dialect the file was detected as.
    // Nothing else may be reported (this also validates each file on its own).
    const PROBE: &[u8] = b"{\"type\":\"ndjq-probe\"}\n";
    let files = corpus_files();
    parallel(&files, |(rel, path)| {
        let mut input = read(path);
        let n = lines(&input).len() as u64;
        input.extend_from_slice(PROBE);
        let out = ndjq()
            .args(["validate", "--gaps", "-f", "json"])
            .write_stdin(input)
            .output()
            .expect("ndjq runs");
        let (diags, summary) = parse_validate(&out.stdout);
        assert_eq!(summary.records, n + 1, "{rel}");
        // The structural findings are the file's real ones (the probe opens nothing).
        let (structural, diags): (Vec<support::Diag>, Vec<support::Diag>) =
            diags.into_iter().partition(|d| is_structural(&d.code));
        assert_real_gaps(rel, path, &structural.iter().collect::<Vec<_>>());
        let has_error_result = real_gaps(rel)
            .iter()
            .any(|(_, c)| *c == "SESS_ERROR_RESULT");
        let dialect = expected_dialect(rel);
        if dialect == "generic" {
            // The generic dialect knows no types, so it warns about none.
            assert!(diags.is_empty(), "{rel}: {diags:#?}");
            return;
        }
        assert_eq!(
            diags.len(),
            1,
            "{rel}: only the probe is reported: {diags:#?}"
        );
        let d = &diags[0];
        assert_eq!(
            (d.line, d.code.as_str(), d.severity.as_str()),
            (n + 1, "PROTO_UNKNOWN_TYPE", "warning"),
            "{rel}"
        );
        assert!(
            d.message.contains(&format!("dialect {dialect} ")),
            "{rel} should be detected as {dialect}: {}",
            d.message
        );
        assert_eq!(
            out.status.code(),
            Some(if has_error_result { 1 } else { 0 }),
            "{rel}: a warning is not an error; an error result is"
        );
    });
}

/// The two keys `filter --type` looks at; every other key is skipped.
#[derive(Debug, Deserialize)]
struct TypeKeys {
    #[serde(rename = "type")]
    ty: Option<Value>,
    subtype: Option<Value>,
}

/// Run `ndjq filter --type ARG FILE`; return stdout and exit code.
fn filter_type(arg: &str, path: &Path) -> (Vec<u8>, i32) {
    let out = ndjq()
        .args(["filter", "--type", arg])
        .arg(path)
        .output()
        .expect("ndjq runs");
    (out.stdout, out.status.code().expect("exit code"))
}

fn assert_selection(rel: &str, arg: &str, got: (Vec<u8>, i32), expected: &[u8]) {
    let (stdout, code) = got;
    if stdout != expected {
        let got_lines = lines(&stdout).len();
        let want_lines = lines(expected).len();
        let first_diff = lines(&stdout)
            .iter()
            .zip(lines(expected))
            .position(|(a, b)| *a != b);
        panic!(
            "filter --type {arg} {rel}: {got_lines} lines out, {want_lines} expected; \
             first differing selected line: {first_diff:?}; output starts {:?}",
            show(&stdout[..stdout.len().min(300)])
        );
    }
    let want = if expected.is_empty() { 1 } else { 0 };
    assert_eq!(code, want, "exit status of filter --type {arg} {rel}");
}

#[test]
fn filter_type_selects_exactly_the_lines_of_that_type() {
    let files = corpus_files();
    parallel(&files, |(rel, path)| {
        let bytes = read(path);
        let records = lines(&bytes);
        // For each line: its `type` and `subtype` when they are strings, parsed with
        // serde_json (into a struct that skips every other field: much faster than a
        // `Value` in a debug build).
        let parsed: Vec<(Option<String>, Option<String>)> = records
            .iter()
            .map(|l| {
                let k: TypeKeys = serde_json::from_slice(l)
                    .unwrap_or_else(|e| panic!("{rel}: a line is not a JSON object: {e}"));
                let s = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_string));
                (s(k.ty), s(k.subtype))
            })
            .collect();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut pairs: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for (t, st) in &parsed {
            if let Some(t) = t {
                *counts.entry(t).or_default() += 1;
                if let Some(st) = st {
                    *pairs.entry((t, st)).or_default() += 1;
                }
            }
        }
        let expected = |keep: &dyn Fn(Option<&str>, Option<&str>) -> bool| -> Vec<u8> {
            let mut out = Vec::new();
            for (line, (t, st)) in records.iter().zip(&parsed) {
                if keep(t.as_deref(), st.as_deref()) {
                    out.extend_from_slice(line);
                }
            }
            out
        };

        let mut by_count: Vec<(&str, usize)> = counts.iter().map(|(t, n)| (*t, *n)).collect();
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        // Each run reads the whole file, and debug builds are slow: on the few files over
        // 1 MB (the big spotter transcripts and a rollout) check the most and the least
        // common type and one type/subtype pair; on all the others, everything.
        let big = bytes.len() > 1_000_000;
        let types: Vec<&str> = if big {
            let mut t: Vec<&str> = by_count.first().map(|x| x.0).into_iter().collect();
            t.extend(by_count.last().map(|x| x.0));
            t.dedup();
            t
        } else {
            by_count.iter().map(|x| x.0).collect()
        };
        let pair_list: Vec<(&str, &str)> = if big {
            pairs.keys().take(1).copied().collect()
        } else {
            pairs.keys().copied().collect()
        };

        for ty in types {
            let want = expected(&|t, _| t == Some(ty));
            assert_selection(rel, ty, filter_type(ty, path), &want);
        }
        for (ty, st) in pair_list {
            let arg = format!("{ty}/{st}");
            let want = expected(&|t, s| t == Some(ty) && s == Some(st));
            assert_selection(rel, &arg, filter_type(&arg, path), &want);
        }
        if big {
            return;
        }
        // The two most common types together.
        if let [(a, _), (b, _), ..] = by_count[..] {
            let arg = format!("{a},{b}");
            let want = expected(&|t, _| t == Some(a) || t == Some(b));
            assert_selection(rel, &arg, filter_type(&arg, path), &want);
        }
        // A type the file does not have: nothing, exit 1.
        assert_selection(rel, "ndjq-absent", filter_type("ndjq-absent", path), &[]);
    });
}

#[test]
fn filter_type_field_on_the_codex_tui_log() {
    // The Codex TUI session log has no `type`; its discriminators are `kind` and, inside
    // codex events, `payload.msg.type`. `--type-field` picks them (generic dialect).
    let path = corpus_dir().join("codex-tui").join("oss-story.jsonl.zst");
    let bytes = read(&path);
    let records = lines(&bytes);
    let parsed: Vec<Value> = records
        .iter()
        .map(|l| serde_json::from_slice(l).expect("JSON"))
        .collect();
    let expected = |keep: &dyn Fn(&Value) -> bool| -> Vec<u8> {
        let mut out = Vec::new();
        for (line, v) in records.iter().zip(&parsed) {
            if keep(v) {
                out.extend_from_slice(line);
            }
        }
        out
    };
    for (field, value) in [
        ("kind", "codex_event"),
        ("kind", "session_end"),
        ("payload.msg.type", "agent_message_delta"),
    ] {
        let want = expected(&|v| {
            let mut cur = v;
            for key in field.split('.') {
                match cur.get(key) {
                    Some(next) => cur = next,
                    None => return false,
                }
            }
            cur == value
        });
        assert!(!want.is_empty(), "{field}={value} is in the file");
        let out = ndjq()
            .args(["filter", "--type-field", field, "--type", value])
            .arg(&path)
            .output()
            .expect("ndjq runs");
        assert_selection(
            &format!("codex-tui/oss-story.jsonl (--type-field {field})"),
            value,
            (out.stdout, out.status.code().expect("exit code")),
            &want,
        );
    }
}
