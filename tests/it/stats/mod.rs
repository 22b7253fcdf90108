//! Integration tests of `ndjq stats` (docs/REFERENCE.md, "Token and cost rules" and "The
//! `ndjq.stats/2` JSON schema").
//!
//! The figures are checked three ways:
//! - against `tests/stats_expected.py`, a second implementation written from the documented
//!   rules alone (docs/REFERENCE.md, "Token and cost rules"), on every file of the corpus of real
//!   captures (and on the hand-made files under `testdata/stats/` and generated streams). Its
//!   figures are committed under `testdata/expected/stats-oracle/`, so no Python is needed; when
//!   python3 is on PATH the script runs too and must agree with them
//!   (`NDJQ_BLESS=1 cargo test --test it stats::` writes them again);
//! - against numbers worked out by hand, with the arithmetic in comments;
//! - against themselves: the same input twice, a folder, `-j 1` vs `-j 2`, and `--merge` of
//!   the stats of random splits of a file (a property test with a fixed xorshift PRNG).
//!
//! JSON output is deserialized into `ndjq::stats::Report` and compared field by field; text
//! and CSV are compared with golden text. Every run is hermetic: a clean environment,
//! `--color never`, the package root as the working directory.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;

use assert_cmd::Command;
use ndjq::stats::{Group, Report, Tokens, ToolTotals};
use serde::Deserialize;
use serde_json::Value;

mod merging;
mod outputs;

// ---------------------------------------------------------------------------------------
// Running things
// ---------------------------------------------------------------------------------------

/// The package root: ndjq and the Python script run from here.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The corpus of real captures, `testdata/corpus`. Missing is a failure.
fn corpus() -> PathBuf {
    common::corpus_dir()
}

/// A corpus file by its path inside the corpus. Missing is a failure.
fn corpus_file(rel: &str) -> PathBuf {
    let path = corpus().join(rel);
    assert!(path.is_file(), "corpus file {} is missing", path.display());
    path
}

/// A file under `testdata/stats/`.
fn data(name: &str) -> PathBuf {
    let path = root().join("testdata").join("stats").join(name);
    assert!(path.is_file(), "test data {} is missing", path.display());
    path
}

/// `ndjq stats --color never` in a clean environment.
fn ndjq_stats() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ndjq"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        // Days are counted in the system's time zone: the same one on every machine.
        .env("TZ", "UTC")
        .current_dir(root())
        .args(["stats", "--color", "never"]);
    cmd
}

/// Runs `ndjq stats ARGS`, requires exit 0, and returns stdout.
fn stats_stdout<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = ndjq_stats().args(args).output().expect("run ndjq stats");
    assert_eq!(
        out.status.code(),
        Some(0),
        "ndjq stats {:?} failed: {}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stats output is UTF-8")
}

/// `ndjq stats -q -f json ARGS`, parsed.
fn stats_json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Report {
    let mut all: Vec<std::ffi::OsString> = vec!["-q".into(), "-f".into(), "json".into()];
    all.extend(args.iter().map(|a| a.as_ref().to_os_string()));
    parse_report(&stats_stdout(&all))
}

fn parse_report(text: &str) -> Report {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not a stats report ({e}): {text}"))
}

/// What `tests/stats_expected.py` computes (the documented rules).
#[derive(Debug, Deserialize)]
struct Expected {
    files: u64,
    lines: u64,
    bytes: u64,
    valid: u64,
    invalid: u64,
    empty: u64,
    types: BTreeMap<String, u64>,
    sessions: u64,
    tokens: Tokens,
    result_tokens: Option<Tokens>,
    cost_usd_reported: Option<f64>,
    turns: u64,
    tools: BTreeMap<String, ToolTotals>,
}

fn python3(args: &[&Path]) -> Output {
    let script = root().join("tests").join("stats_expected.py");
    // The script reads plain files: the compressed captures go to it decompressed.
    let plain = tempfile::tempdir().expect("a temporary directory");
    let args: Vec<PathBuf> = args
        .iter()
        .map(|a| common::plain_file(a, plain.path()))
        .collect();
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(&args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("python3 is required to run {} ({e})", script.display()));
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

// The oracle's figures are committed under testdata/expected/stats-oracle/ (one file per
// input or run, the script's JSON output as it printed it), so these tests need no Python.
// When python3 is on PATH the script runs as well and must print what is committed;
// `NDJQ_BLESS=1 cargo test --test it stats::` (with python3) writes the files again.

/// The committed oracle output `name`.
fn oracle_path(name: &str) -> PathBuf {
    root()
        .join("testdata")
        .join("expected")
        .join("stats-oracle")
        .join(name)
}

fn blessing() -> bool {
    std::env::var_os("NDJQ_BLESS").is_some()
}

/// Is python3 here to run the oracle?
fn have_python() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| {
        std::process::Command::new("python3")
            .arg("--version")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The oracle's output for `name`: the committed one, checked against `fresh` (the script
/// run now) when there is one, or replaced by it when blessing.
fn oracle(name: &str, fresh: Option<&str>) -> String {
    let path = oracle_path(name);
    let committed = std::fs::read_to_string(&path);
    match (fresh, committed) {
        (Some(fresh), _) if blessing() => {
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, format!("{}\n", fresh.trim_end())).expect("write");
            std::fs::rename(&tmp, &path).expect("rename");
            fresh.to_string()
        }
        (_, Err(e)) => panic!(
            "{}: {e}; with python3 installed, `NDJQ_BLESS=1 cargo test --test it stats::` writes it",
            path.display()
        ),
        (Some(fresh), Ok(committed)) => {
            let parse = |t: &str| -> Value { serde_json::from_str(t).expect("oracle JSON") };
            assert_eq!(
                parse(&committed),
                parse(fresh),
                "{} is not what tests/stats_expected.py prints now; check the change and \
                 run `NDJQ_BLESS=1 cargo test --test it stats::`",
                path.display()
            );
            committed
        }
        (None, Ok(committed)) => committed,
    }
}

/// The committed oracle file of one input under testdata/ (its path, `/` as `__`).
fn oracle_name(file: &Path) -> String {
    let rel = file
        .strip_prefix(root().join("testdata"))
        .unwrap_or_else(|_| panic!("{} is not under testdata/", file.display()));
    format!("{}.json", rel.to_string_lossy().replace(['/', '\\'], "__"))
}

/// The oracle's figures of all `files` read as one run; `label` names the run's committed
/// oracle file.
fn expected(label: &str, files: &[&Path]) -> Expected {
    let fresh = (have_python() || blessing())
        .then(|| String::from_utf8(python3(files).stdout).expect("UTF-8"));
    let text = oracle(&format!("run-{label}.json"), fresh.as_deref());
    serde_json::from_str(&text).expect("stats_expected.py prints one JSON object")
}

/// The oracle's figures of each file (under testdata/) on its own (one Python process for
/// all of them, when Python runs).
fn expected_each(files: &[PathBuf]) -> Vec<Expected> {
    let fresh: Option<Vec<String>> = (have_python() || blessing()).then(|| {
        let each = PathBuf::from("--each");
        let mut args: Vec<&Path> = vec![&each];
        args.extend(files.iter().map(PathBuf::as_path));
        let out = python3(&args);
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let rows: Vec<String> = text.lines().map(str::to_string).collect();
        assert_eq!(rows.len(), files.len(), "one expected object per file");
        rows
    });
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let fresh = fresh.as_ref().map(|rows| rows[i].as_str());
            let text = oracle(&oracle_name(f), fresh);
            serde_json::from_str(&text).expect("one JSON object per file")
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Comparing
// ---------------------------------------------------------------------------------------

/// Costs are sums of decimal amounts: equal within 1e-9 USD.
fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9,
        (None, None) => true,
        _ => false,
    }
}

fn check<T: PartialEq + Debug>(diffs: &mut Vec<String>, field: &str, want: T, got: T) {
    if want != got {
        diffs.push(format!("{field}: expected {want:?}, ndjq gave {got:?}"));
    }
}

/// Where ndjq's report disagrees with the oracle's figures.
fn spec_diffs(want: &Expected, got: &Report) -> Vec<String> {
    let mut d = Vec::new();
    check(&mut d, "files", want.files, got.files);
    check(&mut d, "lines", want.lines, got.lines);
    check(&mut d, "bytes", want.bytes, got.bytes);
    check(&mut d, "valid", want.valid, got.valid);
    check(&mut d, "invalid", want.invalid, got.invalid);
    check(&mut d, "empty", want.empty, got.empty);
    check(&mut d, "types", &want.types, &got.types);
    check(&mut d, "sessions", want.sessions, got.sessions);
    // The documented rules say nothing of the 1-hour part of cache writes (ndjq reads it to price
    // them as ccusage does, tests/it/stats_ccusage.rs): the script does not compute it.
    let no_1h = |t: Tokens| Tokens {
        cache_creation_1h: 0,
        ..t
    };
    check(&mut d, "tokens", want.tokens, no_1h(got.tokens));
    check(
        &mut d,
        "result_tokens",
        want.result_tokens,
        got.result_tokens.map(no_1h),
    );
    if !close(want.cost_usd_reported, got.cost_usd_reported) {
        d.push(format!(
            "cost_usd_reported: expected {:?}, ndjq gave {:?}",
            want.cost_usd_reported, got.cost_usd_reported
        ));
    }
    check(&mut d, "turns", want.turns, got.turns);
    check(&mut d, "tools", &want.tools, &got.tools);
    if got.lines != got.valid + got.invalid + got.empty {
        d.push(format!(
            "lines {} != valid {} + invalid {} + empty {}",
            got.lines, got.valid, got.invalid, got.empty
        ));
    }
    d
}

fn groups_diffs(d: &mut Vec<String>, want: &Option<Vec<Group>>, got: &Option<Vec<Group>>) {
    let (Some(want), Some(got)) = (want, got) else {
        check(d, "groups", want.is_some(), got.is_some());
        return;
    };
    let keys = |g: &[Group]| g.iter().map(|g| g.key.clone()).collect::<Vec<_>>();
    if keys(want) != keys(got) {
        d.push(format!("groups keys: {:?} != {:?}", keys(want), keys(got)));
        return;
    }
    for (w, g) in want.iter().zip(got) {
        let k = &w.key;
        check(d, &format!("groups[{k}].records"), w.records, g.records);
        check(d, &format!("groups[{k}].tokens"), w.tokens, g.tokens);
        check(
            d,
            &format!("groups[{k}].tool_calls"),
            w.tool_calls,
            g.tool_calls,
        );
        check(
            d,
            &format!("groups[{k}].tool_errors"),
            w.tool_errors,
            g.tool_errors,
        );
        if !close(w.cost_usd, g.cost_usd) {
            d.push(format!(
                "groups[{k}].cost_usd: {:?} != {:?}",
                w.cost_usd, g.cost_usd
            ));
        }
    }
}

/// Every field of two reports except `state` (whose layout is not part of the contract),
/// and `files` unless `with_files`.
fn report_diffs(want: &Report, got: &Report, with_files: bool) -> Vec<String> {
    let mut d = Vec::new();
    check(&mut d, "schema", &want.schema, &got.schema);
    if with_files {
        check(&mut d, "files", want.files, got.files);
    }
    check(&mut d, "lines", want.lines, got.lines);
    check(&mut d, "bytes", want.bytes, got.bytes);
    check(&mut d, "valid", want.valid, got.valid);
    check(&mut d, "invalid", want.invalid, got.invalid);
    check(&mut d, "empty", want.empty, got.empty);
    check(&mut d, "dialects", &want.dialects, &got.dialects);
    check(&mut d, "types", &want.types, &got.types);
    check(&mut d, "diagnostics", &want.diagnostics, &got.diagnostics);
    check(&mut d, "sessions", want.sessions, got.sessions);
    check(&mut d, "tokens", want.tokens, got.tokens);
    check(
        &mut d,
        "result_tokens",
        want.result_tokens,
        got.result_tokens,
    );
    if !close(want.cost_usd, got.cost_usd) {
        d.push(format!(
            "cost_usd: {:?} != {:?}",
            want.cost_usd, got.cost_usd
        ));
    }
    check(&mut d, "turns", want.turns, got.turns);
    check(&mut d, "duration_ms", want.duration_ms, got.duration_ms);
    check(&mut d, "tools", &want.tools, &got.tools);
    check(&mut d, "models", &want.models, &got.models);
    if !close(want.cost_usd_estimated, got.cost_usd_estimated) {
        d.push(format!(
            "cost_usd_estimated: {:?} != {:?}",
            want.cost_usd_estimated, got.cost_usd_estimated
        ));
    }
    if !close(want.cost_usd_reported, got.cost_usd_reported) {
        d.push(format!(
            "cost_usd_reported: {:?} != {:?}",
            want.cost_usd_reported, got.cost_usd_reported
        ));
    }
    check(&mut d, "pricing", &want.pricing, &got.pricing);
    check(
        &mut d,
        "unpriced_models",
        &want.unpriced_models,
        &got.unpriced_models,
    );
    check(&mut d, "by", &want.by, &got.by);
    groups_diffs(&mut d, &want.groups, &got.groups);
    d
}

/// Fails with the first mismatches (and how many there are in all).
fn assert_no_diffs(what: &str, diffs: &[String]) {
    const SHOWN: usize = 40;
    let more = match diffs.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!("\n  ... and {n} more ({} in all)", diffs.len()),
    };
    assert!(
        diffs.is_empty(),
        "{what}:\n  {}{more}",
        diffs[..diffs.len().min(SHOWN)].join("\n  ")
    );
}

/// Runs ndjq on each file and compares it with the oracle's figures; returns every mismatch.
fn spec_mismatches(files: &[PathBuf]) -> Vec<String> {
    let expected = expected_each(files);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .zip(&expected)
            .map(|(file, want)| {
                s.spawn(move || {
                    let got = stats_json(&[file]);
                    spec_diffs(want, &got)
                        .into_iter()
                        .map(|d| format!("{}: {d}", rel(file)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a comparison thread"))
            .collect()
    })
}

/// A path for messages: relative to the corpus or the package when it can be.
fn rel(path: &Path) -> String {
    let corpus = corpus();
    path.strip_prefix(&corpus)
        .or_else(|_| path.strip_prefix(root()))
        .unwrap_or(path)
        .display()
        .to_string()
}

// ---------------------------------------------------------------------------------------
// Walking the corpus
// ---------------------------------------------------------------------------------------

fn is_ndjson(path: &Path) -> bool {
    let plain = match path.extension().and_then(|e| e.to_str()) {
        Some("zst") => Path::new(path.file_stem().unwrap_or_default()),
        _ => path,
    };
    matches!(
        plain.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson" | "json")
    )
}

/// The NDJSON files under `dir` (`.zst` ones too), walked recursively in sorted order
/// (docs/GUIDE.md, "Inputs").
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    let mut files = Vec::new();
    for path in entries {
        if path.is_dir() {
            files.extend(walk(&path));
        } else if is_ndjson(&path) {
            files.push(path);
        }
    }
    files
}

fn corpus_files() -> Vec<PathBuf> {
    let files = walk(&corpus());
    assert!(
        files.len() >= 40,
        "expected the whole corpus (40+ NDJSON files), found {}",
        files.len()
    );
    files
}

fn corpus_files_under(sub: &str) -> Vec<PathBuf> {
    let files = walk(&corpus().join(sub));
    assert!(!files.is_empty(), "no NDJSON file under corpus/{sub}");
    files
}

// ---------------------------------------------------------------------------------------
// 1-2. ndjq against the documented rules (tests/stats_expected.py)
// ---------------------------------------------------------------------------------------

#[test]
fn every_corpus_file_matches_the_spec_rules() {
    let mismatches = spec_mismatches(&corpus_files());
    assert_no_diffs(
        "ndjq stats disagrees with the documented rules",
        &mismatches,
    );
}

#[test]
fn hand_made_files_match_the_spec_rules() {
    let files = [
        data("claude-rules.ndjson"),
        data("codex-exec-tools.jsonl"),
        data("claude-model-usage.ndjson"),
        data("codex-rollout-errors.jsonl"),
        data("claude-log-costusd.jsonl"),
    ];
    assert_no_diffs(
        "ndjq stats disagrees with the documented rules",
        &spec_mismatches(&files),
    );
}

/// Assistant lines per message id and their naive (every line) usage sum.
fn repeated_ids_and_naive_total(path: &Path) -> (usize, u64) {
    let text = String::from_utf8(common::read_data(path)).expect("a UTF-8 corpus file");
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut naive = 0;
    // Only assistant lines matter; skipping the others up front keeps this quick in a
    // debug build (progress lines are most of a transcript).
    for line in text.lines().filter(|l| l.contains("\"assistant\"")) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["type"] != "assistant" {
            continue;
        }
        if let Some(id) = v["message"]["id"].as_str() {
            *seen.entry(id.to_string()).or_insert(0) += 1;
        }
        let usage = &v["message"]["usage"];
        for k in [
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ] {
            naive += usage[k].as_u64().unwrap_or(0);
        }
    }
    (seen.values().filter(|&&n| n > 1).count(), naive)
}

fn total(t: &Tokens) -> u64 {
    t.input + t.output + t.cache_creation + t.cache_read
}

#[test]
fn transcripts_with_repeated_message_ids() {
    // Claude writes one line per content block, each repeating the message's usage: the
    // The rule (docs/REFERENCE.md, "Token and cost rules") keeps the last snapshot per (message.id,
    // requestId).
    let mut files = corpus_files_under("spotter");
    files.extend(corpus_files_under("agentcmd/claude-transcript"));
    assert_no_diffs(
        "transcripts: ndjq stats disagrees with the documented rules",
        &spec_mismatches(&files),
    );
    let mut with_repeats = 0;
    for file in &files {
        let (repeated, naive) = repeated_ids_and_naive_total(file);
        if repeated == 0 {
            continue;
        }
        with_repeats += 1;
        let got = stats_json(&[file]);
        assert!(
            total(&got.tokens) < naive,
            "{}: {repeated} repeated message ids, yet the tokens ({}) are not below the \
             every-line sum ({naive})",
            rel(file),
            total(&got.tokens)
        );
    }
    assert!(
        with_repeats >= 8,
        "expected most transcripts to repeat message ids, found {with_repeats}"
    );
}

#[test]
fn stream_json_captures_with_a_result_line() {
    let mut files: Vec<PathBuf> = corpus_files_under("real-client")
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("claude-") && name.ends_with(".ndjson")
        })
        .collect();
    assert_eq!(
        files.len(),
        7,
        "the seven Claude stream-json real-client captures"
    );
    files.push(corpus_file("automagik/manual_test_output.jsonl"));
    files.push(corpus_file("gleam-sdk/basic_query.ndjson"));
    assert_no_diffs(
        "stream-json: ndjq stats disagrees with the documented rules",
        &spec_mismatches(&files),
    );
    for file in &files {
        let got = stats_json(&[file]);
        let name = rel(file);
        let result = got
            .result_tokens
            .unwrap_or_else(|| panic!("{name}: a result line, so result_tokens"));
        assert!(got.cost_usd.is_some(), "{name}: total_cost_usd is reported");
        // testdata/corpus/SCHEMA-NOTES.md: input, cache_creation, cache_read once per message id
        // reproduces result.usage exactly; output on assistant lines is the message_start
        // snapshot, so the result's output is the larger, true one.
        assert_eq!(result.input, got.tokens.input, "{name}: input");
        assert_eq!(result.cache_creation, got.tokens.cache_creation, "{name}");
        assert_eq!(result.cache_read, got.tokens.cache_read, "{name}");
        assert!(result.output >= got.tokens.output, "{name}: output");
    }
}

#[test]
fn claude_tool_capture_by_hand() {
    let got = stats_json(&[corpus_file("real-client/claude-tool.ndjson")]);
    // 6 lines: system/init, assistant (text), assistant (tool_use), user (tool_result),
    // assistant (final text), result/success.
    assert_eq!(
        (got.files, got.lines, got.valid, got.invalid, got.empty),
        (1, 6, 6, 0, 0)
    );
    assert_eq!(got.bytes, 7817);
    let types: BTreeMap<String, u64> = [
        ("assistant", 3),
        ("result/success", 1),
        ("system/init", 1),
        ("user", 1),
    ]
    .map(|(k, n)| (k.to_string(), n))
    .into();
    assert_eq!(got.types, types);
    assert_eq!(got.sessions, 1);
    // Two API messages. msg_01VIUi5x… is on two lines (text, then tool_use), both with
    // usage {input 1294, output 1, cache_creation 1293, cache_read 9848}; msg_01XPPASZ…
    // is on one line with {input 1343, output 1, cache_creation 1343, cache_read 9848}.
    // Once per message id:
    //   input          = 1294 + 1343 = 2637   (every line: 1294 + 1294 + 1343 = 3931)
    //   output         =    1 +    1 =    2
    //   cache_creation = 1293 + 1343 = 2636
    //   cache_read     = 9848 + 9848 = 19696
    // But the result's usage says output 62: the assistant lines carry the message_start
    // snapshot (output_tokens 1); the final count per message only comes in
    // stream_event message_delta (not emitted without --include-partial-messages), and
    // in result.usage. The session's tokens are the result's (docs/REFERENCE.md,
    // "Token and cost rules"); its modelUsage
    // names one model, claude-opus-5-5, with the same counts.
    assert_eq!(
        got.tokens,
        Tokens {
            input: 2637,
            output: 62,
            cache_creation: 2636,
            cache_read: 19696,
            reasoning_output: 0,
            cache_creation_1h: 0,
        }
    );
    assert_eq!(got.models["claude-opus-5-5"], got.tokens);
    assert_eq!(
        got.result_tokens,
        Some(Tokens {
            input: 2637,
            output: 62,
            cache_creation: 2636,
            cache_read: 19696,
            reasoning_output: 0,
            cache_creation_1h: 0,
        })
    );
    assert!(close(got.cost_usd, Some(0.0289072)), "{:?}", got.cost_usd);
    assert_eq!((got.turns, got.duration_ms), (2, 603));
    let tools: BTreeMap<String, ToolTotals> = [(
        "Bash".to_string(),
        ToolTotals {
            calls: 1,
            errors: 0,
        },
    )]
    .into();
    assert_eq!(got.tools, tools);
}

#[test]
fn claude_rules_file_by_hand() {
    // testdata/stats/claude-rules.ndjson exercises every Claude rule on 19 lines.
    let got = stats_json(&[data("claude-rules.ndjson")]);
    assert_eq!(
        (got.lines, got.valid, got.invalid, got.empty),
        (19, 19, 0, 0)
    );
    // s-one, s-two (init and a system line with a non-string subtype) and s-three.
    assert_eq!(got.sessions, 3);
    // `system` with subtype 7 counts as `system`; `[1,2]` as `(none)`.
    assert_eq!(got.types.get("system"), Some(&1));
    assert_eq!(got.types.get("(none)"), Some(&1));
    // Without its result lines, the per-message rule shows (all messages are s-one's):
    // (msg_1, req_a): snapshots output 1, 30, 30 → the last: 100 / 30 / 10 / 1000
    // (msg_1, req_b): a retried request, its own key:   100 /  5 /  0 / 1100
    // (msg_2, none):  snapshots output 3, 9 → the last:    7 /  9 /  0 /    0
    // two lines without message.id, each counted:      2×(2 /  2 /  0 /    0)
    //   input 100+100+7+4 = 211, output 30+5+9+4 = 48, cache_creation 10,
    //   cache_read 1000+1100 = 2100
    let text = std::fs::read_to_string(data("claude-rules.ndjson")).expect("read");
    let no_results: String = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"result\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = ndjq_stats()
        .args(["-q", "-f", "json"])
        .write_stdin(no_results)
        .output()
        .expect("run ndjq stats");
    let per_message = parse_report(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        per_message.tokens,
        Tokens {
            input: 211,
            output: 48,
            cache_creation: 10,
            cache_read: 2100,
            reasoning_output: 0,
            cache_creation_1h: 0,
        }
    );
    // With them, each session with a result carrying integer usage counts the result's
    // billed totals: s-one's last result has null usage counts, so its earlier one
    // (200/50/10/2000); s-two 1/2/3/4; s-three has no usage.
    let billed = Tokens {
        input: 201,
        output: 52,
        cache_creation: 13,
        cache_read: 2004,
        reasoning_output: 0,
        cache_creation_1h: 0,
    };
    assert_eq!(got.result_tokens, Some(billed));
    assert_eq!(got.tokens, billed);
    // s-one's difference from its messages (200-211, 50-48, 10-10, 2000-2100) goes to its
    // last model, claude-test-priced: 204-11 / 39+2 / 10 / 2100-100. s-two's result has no
    // message, so no model: (none).
    let priced = &got.models["claude-test-priced"];
    assert_eq!(
        (
            priced.input,
            priced.output,
            priced.cache_creation,
            priced.cache_read
        ),
        (193, 41, 10, 2000)
    );
    assert_eq!(got.models["claude-test-unpriced"].output, 9);
    assert_eq!(got.models["(none)"].cache_read, 4);
    // s-one: last total_cost_usd 0.03 (not 0.01 + 0.03: it is cumulative);
    // s-two: total_cost_usd null → cost_usd 0.5; s-three: costUSD 0.25.
    assert!(close(got.cost_usd, Some(0.78)), "{:?}", got.cost_usd);
    // num_turns of each session's last result: 2 + 1 + 3.
    assert_eq!(got.turns, 6);
    // toolu_1 (Read) on two lines counts once; toolu_2 (Bash) failed, its error result
    // is repeated and counts once; toolu_9 failed with no tool_use: (unknown).
    let tools: BTreeMap<String, ToolTotals> = [
        (
            "(unknown)",
            ToolTotals {
                calls: 0,
                errors: 1,
            },
        ),
        (
            "Bash",
            ToolTotals {
                calls: 1,
                errors: 1,
            },
        ),
        (
            "Read",
            ToolTotals {
                calls: 1,
                errors: 0,
            },
        ),
    ]
    .map(|(k, t)| (k.to_string(), t))
    .into();
    assert_eq!(got.tools, tools);
}

#[test]
fn codex_exec_tools_file_by_hand() {
    let got = stats_json(&[data("codex-exec-tools.jsonl")]);
    assert_eq!(got.dialects.get("codex"), Some(&21));
    // th-a, th-b; th-a again on resume is the same session.
    assert_eq!(got.sessions, 2);
    // turn.completed usages: 1000/50/cached 800/write 20 and 500/10/cached 400. Codex's
    // input_tokens include the cached ones: non-cached input (1000-800)+(500-400) = 300.
    assert_eq!(
        got.tokens,
        Tokens {
            input: 300,
            output: 60,
            cache_creation: 20,
            cache_read: 1200,
            reasoning_output: 0,
            cache_creation_1h: 0,
        }
    );
    assert_eq!(got.result_tokens, None);
    assert_eq!(got.cost_usd, None);
    // Two turn.completed and one turn.failed.
    assert_eq!(got.turns, 3);
    // command_execution: th-a item_0, item_1 (exit 1: error), th-b item_0 (another
    // thread: another call), th-a item_7. MCP calls are named by their tool: search
    // (error object), fetch (error null). file_change item_5 (failed) twice: once.
    // agent_message is not a tool; item.started is not counted.
    let tools: BTreeMap<String, ToolTotals> = [
        (
            "command_execution",
            ToolTotals {
                calls: 4,
                errors: 1,
            },
        ),
        (
            "fetch",
            ToolTotals {
                calls: 1,
                errors: 0,
            },
        ),
        (
            "file_change",
            ToolTotals {
                calls: 1,
                errors: 1,
            },
        ),
        (
            "search",
            ToolTotals {
                calls: 1,
                errors: 1,
            },
        ),
        (
            "web_search",
            ToolTotals {
                calls: 1,
                errors: 0,
            },
        ),
    ]
    .map(|(k, t)| (k.to_string(), t))
    .into();
    assert_eq!(got.tools, tools);
}

#[test]
fn codex_exec_failed_turn_has_no_usage_but_counts_a_turn() {
    let file = corpus_file("real-client/codex-failed.ndjson");
    assert_no_diffs(
        "codex-failed",
        &spec_mismatches(std::slice::from_ref(&file)),
    );
    let got = stats_json(&[&file]);
    // Six `error` lines are retry notices; only turn.failed ends the turn.
    let types: BTreeMap<String, u64> = [
        ("error", 6),
        ("thread.started", 1),
        ("turn.failed", 1),
        ("turn.started", 1),
    ]
    .map(|(k, n)| (k.to_string(), n))
    .into();
    assert_eq!(got.types, types);
    assert_eq!(got.sessions, 1);
    assert_eq!(got.tokens, Tokens::default());
    assert_eq!(got.result_tokens, None);
    assert_eq!(got.cost_usd, None);
    assert_eq!(got.turns, 1);
    assert!(got.tools.is_empty());
}

#[test]
fn truncated_codex_stream() {
    // The stream stops after turn.started: a session, no turn, no usage.
    let file = corpus_file("agentcmd/codex-exec/stream-output-multi-1.jsonl");
    assert_no_diffs(
        "truncated codex",
        &spec_mismatches(std::slice::from_ref(&file)),
    );
    let got = stats_json(&[&file]);
    assert_eq!((got.lines, got.valid, got.invalid), (2, 2, 0));
    assert_eq!(got.sessions, 1);
    assert_eq!(got.turns, 0);
    assert_eq!(got.tokens, Tokens::default());
    assert_eq!(got.result_tokens, None);
    assert!(got.tools.is_empty());
}

#[test]
fn claude_api_failure_capture() {
    // Ten system/api_retry lines, a <synthetic> assistant message with zero usage, and a
    // result with subtype success, is_error true, total_cost_usd 0.
    let file = corpus_file("real-client/claude-error500.ndjson");
    assert_no_diffs(
        "claude-error500",
        &spec_mismatches(std::slice::from_ref(&file)),
    );
    let got = stats_json(&[&file]);
    assert_eq!(got.types.get("system/api_retry"), Some(&10));
    assert_eq!(got.types.get("result/success"), Some(&1));
    assert_eq!(got.sessions, 1);
    assert_eq!(got.tokens, Tokens::default());
    // A reported zero is not "not reported".
    assert_eq!(got.result_tokens, Some(Tokens::default()));
    assert_eq!(got.cost_usd, Some(0.0));
    assert_eq!(got.turns, 1);
    assert!(got.tools.is_empty());
}

// ---------------------------------------------------------------------------------------
// 3. Several inputs: the same file twice, folders
// ---------------------------------------------------------------------------------------

/// `ndjq stats FILE FILE` counts sessions, tokens, cost and tools once; lines double.
fn twice_diffs(file: &Path) -> Vec<String> {
    let once = stats_json(&[file]);
    let twice = stats_json(&[file, file]);
    let mut d = Vec::new();
    check(&mut d, "files", 2 * once.files, twice.files);
    check(&mut d, "lines", 2 * once.lines, twice.lines);
    check(&mut d, "bytes", 2 * once.bytes, twice.bytes);
    check(&mut d, "valid", 2 * once.valid, twice.valid);
    check(&mut d, "sessions", once.sessions, twice.sessions);
    check(&mut d, "tokens", once.tokens, twice.tokens);
    check(
        &mut d,
        "result_tokens",
        once.result_tokens,
        twice.result_tokens,
    );
    if !close(once.cost_usd, twice.cost_usd) {
        d.push(format!(
            "cost_usd: {:?} != {:?}",
            once.cost_usd, twice.cost_usd
        ));
    }
    check(&mut d, "turns", once.turns, twice.turns);
    check(&mut d, "tools", &once.tools, &twice.tools);
    check(&mut d, "models", &once.models, &twice.models);
    d.into_iter()
        .map(|x| format!("{}: {x}", rel(file)))
        .collect()
}

fn group(
    key: &str,
    records: u64,
    tokens: Tokens,
    cost: Option<f64>,
    calls: u64,
    errors: u64,
) -> Group {
    Group {
        key: key.to_string(),
        records,
        tokens,
        cost_usd: cost,
        cost_usd_estimated: None,
        tool_calls: calls,
        tool_errors: errors,
    }
}
