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

#[test]
fn same_file_twice_counts_sessions_tokens_cost_and_tools_once() {
    let mut d = Vec::new();
    for f in [
        "real-client/claude-tool.ndjson",
        "real-client/claude-multi_tool.ndjson",
        "automagik/manual_test_output.jsonl",
        "spotter/tool_heavy.jsonl",
        "agentcmd/claude-transcript/full-session-four.jsonl",
        "real-client/codex-tool.session-log.jsonl",
        "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
    ] {
        d.extend(twice_diffs(&corpus_file(f)));
    }
    assert_no_diffs("the same file twice", &d);
}

#[test]
fn same_codex_exec_file_twice_counts_its_session_once() {
    // The stats rule "the same session logged twice is counted once" — also for codex exec,
    // whose usage lives on turn.completed lines.
    let mut d = Vec::new();
    for f in [
        "real-client/codex-tool.ndjson",
        "agentcmd/codex-exec/stream-output-5.jsonl",
    ] {
        d.extend(twice_diffs(&corpus_file(f)));
    }
    assert_no_diffs("the same codex exec file twice", &d);
}

#[test]
fn folder_input_equals_its_files() {
    // A small folder: the same report as its files listed in the walk order.
    let dir = corpus().join("real-client");
    let files = walk(&dir);
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let folder = stats_json(&[&dir]);
    // README.md, *.rc and *.stderr are not NDJSON files: only the 12 captures are read.
    assert_eq!(folder.files, 12);
    assert_eq!(folder.files, files.len() as u64);
    assert_no_diffs(
        "real-client as a folder vs as a list of files",
        &report_diffs(&stats_json(&refs), &folder, true),
    );
    assert_no_diffs(
        "real-client as a folder vs the documented rules",
        &spec_diffs(&expected("real-client", &refs), &folder),
    );
    // The whole corpus as one run: sessions, messages and tool ids shared between files
    // (a transcript and its subagents, a capture and its session log) count once.
    let dir = corpus();
    let files = corpus_files();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let folder = stats_json(&[&dir]);
    assert_eq!(folder.files, files.len() as u64);
    assert_no_diffs(
        "the corpus as a folder vs the documented rules",
        &spec_diffs(&expected("corpus", &refs), &folder),
    );
}

// ---------------------------------------------------------------------------------------
// 4. Merge
// ---------------------------------------------------------------------------------------

/// xorshift64: a small deterministic PRNG, so every failure can be replayed by its seed.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Splits `bytes` at 1 to 4 random line boundaries: 2 to 5 non-empty parts (fewer when
/// the file has fewer lines).
/// Where a file may be cut: after any line, or only where a Codex session starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cuts {
    AnyLine,
    SessionStarts,
}

/// Byte offsets where a part may begin.
fn cut_points(bytes: &[u8], cuts: Cuts) -> Vec<usize> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let ok = match cuts {
            Cuts::AnyLine => true,
            Cuts::SessionStarts => serde_json::from_slice::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
                .is_some_and(|t| t == "thread.started" || t == "session_meta"),
        };
        if ok && start > 0 {
            out.push(start);
        }
        start += line.len();
    }
    out
}

fn split_lines(bytes: &[u8], rng: &mut XorShift, cuts: Cuts) -> Vec<Vec<u8>> {
    let ends = cut_points(bytes, cuts);
    assert!(!ends.is_empty(), "nowhere to split");
    let parts = (2 + rng.below(4)).min(ends.len() + 1);
    let mut cuts: Vec<usize> = Vec::new();
    while cuts.len() + 1 < parts {
        let c = ends[rng.below(ends.len())];
        if !cuts.contains(&c) {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        out.push(bytes[start..c].to_vec());
        start = c;
    }
    out
}

const BYS: [Option<&str>; 9] = [
    None,
    Some("session"),
    Some("model"),
    Some("tool"),
    Some("type"),
    Some("day"),
    Some("week"),
    Some("project"),
    Some("block"),
];

fn by_args(by: Option<&str>) -> Vec<String> {
    by.map(|b| vec!["--by".to_string(), b.to_string()])
        .unwrap_or_default()
}

/// Writes each part and its `stats -f json` (with `--by`); returns the part files and the
/// stats files.
fn part_stats(dir: &Path, parts: &[Vec<u8>], by: Option<&str>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let tag = by.unwrap_or("none");
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let input = dir.join(format!("part{i}.ndjson"));
        std::fs::write(&input, part).expect("write a part");
        let mut args = vec![
            "-q".to_string(),
            "-f".into(),
            "json".into(),
            "--mergeable".into(),
        ];
        args.extend(by_args(by));
        args.push(input.display().to_string());
        let output = dir.join(format!("part{i}.{tag}.json"));
        std::fs::write(&output, stats_stdout(&args)).expect("write part stats");
        inputs.push(input);
        outputs.push(output);
    }
    (inputs, outputs)
}

fn merge_json(files: &[PathBuf], by: Option<&str>) -> String {
    // Mergeable itself: merges of merges (`merge_is_associative`).
    let mut args = vec![
        "--merge".to_string(),
        "-f".into(),
        "json".into(),
        "--mergeable".into(),
    ];
    args.extend(by_args(by));
    args.extend(files.iter().map(|f| f.display().to_string()));
    stats_stdout(&args)
}

/// What `against` the merged stats of random splits of `file` are compared with.
#[derive(Clone, Copy)]
enum Against {
    /// `ndjq stats WHOLE` (STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b)).
    Whole,
    /// `ndjq stats PART1 PART2 ...` (the rule of `--merge`: "the same result as one run over all
    /// inputs"; docs/GUIDE.md, "Scaling out: `stats --merge`").
    Parts,
}

/// Splits `file` at random (one split per seed), runs `stats -f json` on each part and
/// merges the parts' stats with each `--by`. A merge computes the groups from the merged
/// state, not from the parts' groups, so each seed runs its parts with one `--by` (turn
/// about) and merges them with all of them.
fn merge_split_diffs(file: &Path, seeds: u64, against: Against, cuts: Cuts) -> Vec<String> {
    let bytes = common::read_data(file);
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut diffs = Vec::new();
    let whole: Vec<Report> = match against {
        Against::Whole => BYS
            .iter()
            .map(|&by| {
                let mut args = by_args(by);
                args.push(file.display().to_string());
                stats_json(&args)
            })
            .collect(),
        Against::Parts => Vec::new(),
    };
    for seed in 1..=seeds {
        let mut rng = XorShift::new(seed);
        let parts = split_lines(&bytes, &mut rng, cuts);
        assert_eq!(parts.concat(), bytes, "a split loses no byte");
        let part_by = BYS[seed as usize % BYS.len()];
        let (inputs, outputs) = part_stats(tmp.path(), &parts, part_by);
        for (i, by) in BYS.iter().enumerate() {
            let merged = parse_report(&merge_json(&outputs, *by));
            let want = match against {
                Against::Whole => whole[i].clone(),
                Against::Parts => {
                    let mut args = by_args(*by);
                    args.extend(inputs.iter().map(|p| p.display().to_string()));
                    stats_json(&args)
                }
            };
            let mut d = Vec::new();
            check(&mut d, "files", parts.len() as u64, merged.files);
            d.extend(report_diffs(&want, &merged, false));
            diffs.extend(d.into_iter().map(|d| {
                format!(
                    "{} seed {seed} ({} parts) --by {}: {d}",
                    rel(file),
                    parts.len(),
                    by.unwrap_or("-")
                )
            }));
        }
    }
    diffs
}

fn merge_splits(files: &[&str], seeds: u64, against: Against, cuts: Cuts) -> Vec<String> {
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            if let Some(name) = f.strip_prefix("testdata/stats/") {
                data(name)
            } else {
                corpus_file(f)
            }
        })
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .iter()
            .map(|p| s.spawn(move || merge_split_diffs(p, seeds, against, cuts)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a merge thread"))
            .collect()
    })
}

const CLAUDE_MERGE_FILES: [&str; 8] = [
    "real-client/claude-tool-partial.ndjson",
    "testdata/stats/claude-model-usage.ndjson",
    "testdata/stats/claude-log-costusd.jsonl",
    "automagik/manual_test_output.jsonl",
    "spotter/tool_heavy.jsonl",
    "spotter/subagent.jsonl",
    "agentcmd/claude-transcript/full-session-four.jsonl",
    "testdata/stats/claude-rules.ndjson",
];

const CODEX_MERGE_FILES: [&str; 4] = [
    "agentcmd/codex-exec/stream-output-5.jsonl",
    "real-client/codex-tool.session-log.jsonl",
    "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
    "testdata/stats/codex-exec-tools.jsonl",
];

#[test]
fn merge_of_random_splits_equals_the_whole_claude() {
    // STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b), with every `--by`.
    let d = merge_splits(&CLAUDE_MERGE_FILES, 3, Against::Whole, Cuts::AnyLine);
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_of_splits_at_session_starts_equals_the_whole_codex() {
    // STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b). Codex records take their
    // thread (exec) or session and model (rollouts) from earlier records of the same input,
    // and every input starts with no context (dialects and sessions are per input:
    // docs/REFERENCE.md, "Dialects"), so for Codex the parts must begin where a session begins: at
    // `thread.started` or `session_meta`. Streams of several sessions are made by concatenating
    // captures.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let concat = |name: &str, files: &[&str]| -> PathBuf {
        let mut bytes = Vec::new();
        for f in files {
            bytes.extend(common::read_data(&corpus_file(f)));
        }
        let out = tmp.path().join(name);
        std::fs::write(&out, bytes).expect("write");
        out
    };
    let exec = concat(
        "exec.jsonl",
        &[
            "agentcmd/codex-exec/stream-output-5.jsonl",
            "real-client/codex-tool.ndjson",
            "agentcmd/codex-exec/stream-output-2.jsonl",
            "real-client/codex-failed.ndjson",
        ],
    );
    let rollouts = concat(
        "rollouts.jsonl",
        &[
            "real-client/codex-tool.session-log.jsonl",
            "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
        ],
    );
    let mut d = Vec::new();
    for file in [
        exec.as_path(),
        rollouts.as_path(),
        data("codex-exec-tools.jsonl").as_path(),
    ] {
        d.extend(merge_split_diffs(
            file,
            3,
            Against::Whole,
            Cuts::SessionStarts,
        ));
    }
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_of_random_splits_equals_one_run_over_the_parts() {
    // `--merge` (docs/GUIDE.md, "Scaling out: `stats --merge`") "combines partial JSON stats into
    // the same result as one run over all inputs": here the inputs are the parts themselves.
    let mut d = merge_splits(&CLAUDE_MERGE_FILES[..2], 2, Against::Parts, Cuts::AnyLine);
    // A Codex part cut mid-session: `--merge` reads it as continuing the part before (so
    // the merge equals the whole), while one run over the part files
    // reads it as an input of its own with no session or model yet. Where each part
    // begins a session, both agree.
    d.extend(merge_splits(
        &["testdata/stats/codex-exec-tools.jsonl"],
        2,
        Against::Parts,
        Cuts::SessionStarts,
    ));
    assert_no_diffs("merge of the parts != one run over the parts", &d);
}

#[test]
fn merge_of_random_splits_equals_the_whole_codex() {
    // A Codex part cut anywhere continues the part before it. (Not
    // codex-exec-tools.jsonl: a part that begins with its `error` line, which no dialect
    // claims, counts that line before the dialect is known, under no session.)
    let d = merge_splits(&CODEX_MERGE_FILES[..3], 3, Against::Whole, Cuts::AnyLine);
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_is_associative() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    for (f, seed) in [
        ("spotter/tool_heavy.jsonl", 7),
        ("real-client/claude-multi_tool.ndjson", 8),
        ("agentcmd/claude-transcript/full-session-two.jsonl", 9),
    ] {
        let bytes = common::read_data(&corpus_file(f));
        let mut rng = XorShift::new(seed);
        // Exactly three parts: cut the file twice.
        let mut parts = split_lines(&bytes, &mut rng, Cuts::AnyLine);
        while parts.len() != 3 {
            parts = split_lines(&bytes, &mut rng, Cuts::AnyLine);
        }
        for by in [None, Some("session"), Some("day")] {
            let (_, p) = part_stats(tmp.path(), &parts, by);
            let ab = tmp.path().join("ab.json");
            std::fs::write(&ab, merge_json(&p[..2], by)).expect("write");
            let bc = tmp.path().join("bc.json");
            std::fs::write(&bc, merge_json(&p[1..], by)).expect("write");
            let left = parse_report(&merge_json(&[ab, p[2].clone()], by));
            let right = parse_report(&merge_json(&[p[0].clone(), bc], by));
            let flat = parse_report(&merge_json(&p, by));
            let what = format!("{f} --by {}", by.unwrap_or("-"));
            assert_eq!(flat.files, 3, "{what}");
            assert_no_diffs(
                &format!("{what}: merge(merge(a,b),c) != merge(a,b,c)"),
                &report_diffs(&flat, &left, true),
            );
            assert_no_diffs(
                &format!("{what}: merge(a,merge(b,c)) != merge(a,b,c)"),
                &report_diffs(&flat, &right, true),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// 5. Threads
// ---------------------------------------------------------------------------------------

fn same_output_with_threads(file: &Path, bys: &[Option<&str>]) {
    for &by in bys {
        let run = |j: &str| {
            let mut args = vec!["-q".to_string(), "-f".into(), "json".into(), "-j".into()];
            args.push(j.to_string());
            args.extend(by_args(by));
            args.push(file.display().to_string());
            stats_stdout(&args)
        };
        let one = run("1");
        let two = run("2");
        assert!(
            one == two,
            "{} --by {}: -j 1 and -j 2 differ",
            rel(file),
            by.unwrap_or("-")
        );
    }
}

#[test]
fn threads_do_not_change_the_output_of_a_big_transcript() {
    // 2.7 MB: three 1 MiB blocks for the workers. Stored compressed; decompressed here so
    // that the workers read the plain file, as they would a transcript on disk.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let stored = corpus_file("spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.zst");
    let file = common::plain_file(&stored, tmp.path());
    assert!(std::fs::metadata(&file).expect("stat").len() > 2 << 20);
    same_output_with_threads(&file, &[None, Some("session"), Some("model"), Some("day")]);
}

#[test]
fn threads_do_not_change_the_output_of_a_generated_stream() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    // Seed 8 at a 2% rate damages lines in all nine ways (ndjq-gen's summary says so).
    let streams = [("clean.ndjson", "0"), ("corrupt.ndjson", "0.02")];
    for (name, corrupt) in streams {
        let status = std::process::Command::new(crate::common::ndjq_gen_path())
            .args(["stream", "--dialect", "claude", "--seed", "8"])
            .args(["--size-mb", "4"])
            .args(["--corrupt-rate", corrupt, "-o"])
            .arg(tmp.path().join(name))
            .stderr(std::process::Stdio::null())
            .status()
            .expect("ndjq-gen runs");
        assert!(status.success(), "ndjq-gen failed");
    }
    for (name, corrupt) in streams {
        let file = tmp.path().join(name);
        same_output_with_threads(&file, &[None, Some("session")]);
        // The generated stream (with blank, CRLF, non-UTF-8, truncated and merged lines
        // when corrupt) also follows the documented rules.
        // The generator is deterministic: the oracle's figures for it are committed.
        let label = format!(
            "ndjq-gen-claude-4mib-seed8-{}",
            name.trim_end_matches(".ndjson")
        );
        let want = expected(&label, &[&file]);
        let got = stats_json(&[&file]);
        assert_no_diffs(&format!("generated {name}"), &spec_diffs(&want, &got));
        if corrupt != "0" {
            assert!(got.invalid > 0 && got.empty > 0, "the corruption shows");
        }
    }
}

/// A Claude stream-json file with `n` distinct messages, each seen twice: a first
/// snapshot (output 1) and, `lag` lines later, the last one, by which time the stats store
/// has folded its pending entries many times. Every message has a tool call; every 7th
/// call fails. Message 5's last snapshot reads more than 32 bits of cache tokens, and
/// message 6's first one does (its last one does not): the exact side table is used and
/// left behind. Returns the file and, from a plain map, the expected output tokens, cache
/// reads and tool errors.
fn many_messages(dir: &Path, n: u64, lag: u64) -> (PathBuf, u64, u64, u64) {
    use std::fmt::Write as _;
    let mut text = String::new();
    let mut last: HashMap<u64, (u64, u64)> = HashMap::new();
    let line = |text: &mut String, i: u64, out: u64, cache: u64, session: u64| {
        let _ = writeln!(
            text,
            r#"{{"type":"assistant","session_id":"s{session}","message":{{"id":"msg_{i}","model":"m{}","content":[{{"type":"tool_use","id":"toolu_{i}","name":"T{}","input":{{}}}}],"usage":{{"input_tokens":3,"output_tokens":{out},"cache_creation_input_tokens":0,"cache_read_input_tokens":{cache}}}}}}}"#,
            i % 3,
            i % 5
        );
    };
    let mut errors = 0;
    for step in 0..n + lag {
        if step < n {
            let cache = if step == 6 { 9_000_000_000 } else { 7 };
            line(&mut text, step, 1, cache, step / 1000);
            last.insert(step, (1, cache));
        }
        if step >= lag {
            let i = step - lag;
            let (out, cache) = (10 + i % 1000, if i == 5 { 5_000_000_000 } else { 7 });
            line(&mut text, i, out, cache, i / 1000);
            last.insert(i, (out, cache));
            if i.is_multiple_of(7) {
                let _ = writeln!(
                    text,
                    r#"{{"type":"user","session_id":"s{}","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_{i}","is_error":true}}]}}}}"#,
                    i / 1000
                );
                errors += 1;
            }
        }
    }
    let path = dir.join("many.ndjson");
    std::fs::write(&path, text).expect("write the generated stream");
    let output = last.values().map(|v| v.0).sum();
    let cache = last.values().map(|v| v.1).sum();
    (path, output, cache, errors)
}

#[test]
fn many_messages_stay_exact_through_the_compact_store() {
    // More distinct messages and tool calls than the store keeps pending (2^15), so its
    // sorted vector is folded into many times while snapshots are still being replaced.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let (n, lag) = (40_000, 36_000);
    let (file, output, cache, errors) = many_messages(tmp.path(), n, lag);
    let got = stats_json(&[&file]);
    assert_eq!(got.tokens.input, 3 * n);
    assert_eq!(got.tokens.output, output);
    assert_eq!(got.tokens.cache_read, cache);
    let calls: u64 = got.tools.values().map(|t| t.calls).sum();
    let errs: u64 = got.tools.values().map(|t| t.errors).sum();
    assert_eq!((calls, errs), (n, errors));
    assert_eq!(got.sessions, n.div_ceil(1000));
    // The second implementation agrees, and so do threads and merges of splits.
    assert_no_diffs(
        "many messages",
        &spec_diffs(
            &expected(&format!("many-messages-{n}-{lag}"), &[&file]),
            &got,
        ),
    );
    same_output_with_threads(&file, &[None]);
    let bytes = std::fs::read(&file).expect("read the generated stream");
    let parts = split_lines(&bytes, &mut XorShift::new(7), Cuts::AnyLine);
    let (_, outputs) = part_stats(tmp.path(), &parts, None);
    let merged = parse_report(&merge_json(&outputs, None));
    let d = report_diffs(&got, &merged, false);
    assert_no_diffs("many messages: merge of the parts != the whole", &d);
}

// ---------------------------------------------------------------------------------------
// 6. Breakdowns and human output
// ---------------------------------------------------------------------------------------

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

#[test]
fn by_session_groups() {
    let got = stats_json(&["--by", "session", "testdata/stats/claude-rules.ndjson"]);
    assert_eq!(got.by.as_deref(), Some("session"));
    let zero = Tokens::default();
    // s-one: lines 1-14; its result's billed usage (see claude_rules_file_by_hand); its
    // last cost 0.03; Read and Bash, Bash failed (toolu_9's error has no call, so no
    // session). s-three: its result line (costUSD 0.25). s-two: init, result (cost_usd
    // 0.5, usage 1/2/3/4), system.
    let t = |input, output, cache_creation, cache_read| Tokens {
        input,
        output,
        cache_creation,
        cache_read,
        reasoning_output: 0,
        cache_creation_1h: 0,
    };
    let want = Some(vec![
        group("s-one", 14, t(200, 50, 10, 2000), Some(0.03), 2, 1),
        group("s-three", 1, zero, Some(0.25), 0, 0),
        group("s-two", 3, t(1, 2, 3, 4), Some(0.5), 0, 0),
    ]);
    let mut d = Vec::new();
    groups_diffs(&mut d, &want, &got.groups);
    assert_no_diffs("--by session", &d);
}

#[test]
fn by_tool_groups() {
    let got = stats_json(&["--by", "tool", "testdata/stats/codex-exec-tools.jsonl"]);
    assert_eq!(got.by.as_deref(), Some("tool"));
    let zero = Tokens::default();
    let want = Some(vec![
        group("command_execution", 0, zero, None, 4, 1),
        group("fetch", 0, zero, None, 1, 0),
        group("file_change", 0, zero, None, 1, 1),
        group("search", 0, zero, None, 1, 1),
        group("web_search", 0, zero, None, 1, 0),
    ]);
    let mut d = Vec::new();
    groups_diffs(&mut d, &want, &got.groups);
    assert_no_diffs("--by tool", &d);
}

#[test]
fn csv_by_model() {
    let got = stats_stdout(&[
        "-q",
        "-f",
        "csv",
        "--by",
        "model",
        "testdata/stats/claude-rules.ndjson",
    ]);
    // claude-test-priced: msg_1 (both requests) and the two id-less lines:
    //   input 100+100+2+2, output 30+5+2+2, cache_creation 10, cache_read 1000+1100,
    //   then s-one's result difference (-11 / +2 / 0 / -100, s-one's last model);
    //   Read and Bash were called from its messages, Bash failed; s-one's reported
    //   cost 0.03 (a reported cost goes to its session's last model).
    // claude-test-unpriced: msg_2's last snapshot.
    // (none): s-two's result usage, with no message and so no model; the reported costs
    //   of s-two (0.5) and s-three (0.25), which have no model either.
    let want = "\
key,records,input,output,cache_creation,cache_read,reasoning_output,cost_usd,cost_usd_estimated,tool_calls,tool_errors
(none),0,1,2,3,4,0,0.75,,0,0
claude-test-priced,0,193,41,10,2000,0,0.03,,2,1
claude-test-unpriced,0,7,9,0,0,0,,,0,0
";
    assert_eq!(got, want);
}

#[test]
fn text_golden() {
    let golden = data("claude-rules.by-session.txt");
    let want = std::fs::read_to_string(&golden).expect("read the golden file");
    let got = stats_stdout(&[
        "-q",
        "-f",
        "text",
        "--by",
        "session",
        "testdata/stats/claude-rules.ndjson",
    ]);
    assert!(
        got == want,
        "text output differs from {}:\n--- expected\n{want}\n--- got\n{got}",
        golden.display()
    );
}

// ---------------------------------------------------------------------------------------
// 7. --pricing
// ---------------------------------------------------------------------------------------

#[test]
fn pricing_estimates_cost_and_lists_unpriced_models() {
    let got = stats_json(&[
        "--pricing",
        "testdata/stats/prices.json",
        "--cost",
        "estimated",
        "testdata/stats/claude-rules.ndjson",
    ]);
    // Every session estimated (--cost estimated). claude-test-priced: input 204, output
    // 39, cache_creation 10, cache_read 2100, plus s-one's result difference (see
    // claude_rules_file_by_hand) at 3e-6 / 1.5e-5 / 3.75e-6 / 3e-7 per token.
    let priced = &got.models["claude-test-priced"];
    let want = priced.input as f64 * 3e-6
        + priced.output as f64 * 1.5e-5
        + priced.cache_creation as f64 * 3.75e-6
        + priced.cache_read as f64 * 3e-7;
    assert!(
        close(got.cost_usd_estimated, Some(want)),
        "{:?} != {want}",
        got.cost_usd_estimated
    );
    // claude-test-unpriced (7 in, 9 out) is not in the table, and named.
    // s-two's result usage (1/2/3/4) comes with no message, so no model: "(none)".
    assert_eq!(
        got.unpriced_models,
        vec!["(none)".to_string(), "claude-test-unpriced".to_string()]
    );
    assert_eq!(got.cost_usd_reported, None);
    assert!(close(got.cost_usd, got.cost_usd_estimated));
    assert_eq!(got.pricing.as_deref(), Some("testdata/stats/prices.json"));
    // --cost reported: the reported costs only, no estimate, nothing unpriced.
    let plain = stats_json(&["--cost", "reported", "testdata/stats/claude-rules.ndjson"]);
    assert!(close(plain.cost_usd, Some(0.78)));
    assert!(close(plain.cost_usd_reported, Some(0.78)));
    assert_eq!(plain.cost_usd_estimated, None);
    assert!(plain.unpriced_models.is_empty());
    // auto: every session of this file reports a cost, so nothing is estimated.
    let auto = stats_json(&["testdata/stats/claude-rules.ndjson"]);
    assert!(close(auto.cost_usd, Some(0.78)));
    assert_eq!(auto.cost_usd_estimated, None);
}

/// A model named `foo/`, `x//`, `/` or `a/b` was priced as an arbitrary model: the text
/// after its last `/`, empty or one letter, is inside every table name. A price is found
/// by a whole name or whole `/`-segments of it; these are unpriced, and named.
#[test]
fn model_named_with_a_trailing_slash_is_unpriced() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let models = [
        "foo/",
        "x//",
        "/",
        "a/b",
        "openai/g",
        "anthropic/claude-sonnet-4-20250514",
    ];
    let mut log = String::new();
    for (i, model) in models.iter().enumerate() {
        log.push_str(&format!(
            "{{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{{\"id\":\"msg_{i}\",\
             \"role\":\"assistant\",\"model\":\"{model}\",\"content\":[],\"usage\":\
             {{\"input_tokens\":1000,\"output_tokens\":100}}}}}}\n"
        ));
    }
    let file = tmp.path().join("models.jsonl");
    std::fs::write(&file, log).expect("write");
    let got = stats_json(&[
        std::ffi::OsStr::new("--cost"),
        "estimated".as_ref(),
        file.as_os_str(),
    ]);
    let mut want: Vec<String> = models[..5].iter().map(|m| m.to_string()).collect();
    want.sort();
    assert_eq!(got.unpriced_models, want);
    // Only the real model is priced: 1000 input at $3/M and 100 output at $15/M.
    assert!(
        close(got.cost_usd_estimated, Some(1000.0 * 3e-6 + 100.0 * 1.5e-5)),
        "{:?}",
        got.cost_usd_estimated
    );
}

// ---------------------------------------------------------------------------------------
// 8. Errors
// ---------------------------------------------------------------------------------------

fn failure(args: &[&str]) -> String {
    let out = ndjq_stats().args(args).output().expect("run ndjq stats");
    assert_eq!(
        out.status.code(),
        Some(2),
        "ndjq stats {args:?} should exit 2; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn merge_rejects_what_is_not_stats_json() {
    let err = failure(&["--merge", "testdata/stats/claude-rules.ndjson"]);
    assert!(
        err.contains("testdata/stats/claude-rules.ndjson")
            && err.contains("not the JSON output of `ndjq stats -f json --mergeable`"),
        "{err}"
    );
    // A report of another schema version.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let report = stats_stdout(&[
        "-q",
        "-f",
        "json",
        "--mergeable",
        "testdata/stats/claude-rules.ndjson",
    ]);
    let other = tmp.path().join("other.json");
    std::fs::write(&other, report.replace("ndjq.stats/2", "ndjq.stats/9")).expect("write");
    let err = failure(&["--merge", other.to_str().expect("UTF-8 path")]);
    assert!(
        err.contains("ndjq.stats/9") && err.contains("ndjq.stats/2"),
        "{err}"
    );
    // A report of schema 1, whose Codex `input` held the cached tokens too: refused, not
    // mixed with version 2's meaning.
    std::fs::write(&other, report.replace("ndjq.stats/2", "ndjq.stats/1")).expect("write");
    let err = failure(&["--merge", other.to_str().expect("UTF-8 path")]);
    assert!(
        err.contains("ndjq.stats/1") && err.contains("compute it again"),
        "{err}"
    );
}

/// `--merge` trusted the indexes inside a state: a message whose model pointed past the
/// string table merged into `(none)`, a session index of 4294967295 was counted as a
/// second session, both with exit 0. Each is refused (exit 2) naming its field.
#[test]
fn merge_refuses_a_state_whose_model_index_is_out_of_range() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let text = stats_stdout(&[
        "-q",
        "-f",
        "json",
        "--mergeable",
        "testdata/stats/claude-rules.ndjson",
    ]);
    let good: Value = serde_json::from_str(&text).expect("JSON");
    let strings = good["state"]["strings"].as_array().expect("strings").len() as u64;
    let attrs = good["state"]["attrs"].as_array().expect("attrs").len() as u64;
    assert!(good["state"]["tool_calls"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    type Change = fn(&mut Value, u64, u64);
    let cases: [(&str, Change, &str); 6] = [
        (
            "model",
            |v, strings, _| v["state"]["attrs"][0]["model"] = strings.into(),
            "state.attrs[0].model is",
        ),
        (
            "session",
            |v, _, _| {
                v["state"]["sessions"]
                    .as_array_mut()
                    .expect("sessions")
                    .push(4294967295u64.into())
            },
            "state.sessions[",
        ),
        (
            "attribution",
            |v, _, attrs| v["state"]["messages"][0][2] = attrs.into(),
            "state.messages[0] attribution is",
        ),
        (
            "tool",
            |v, strings, _| v["state"]["tool_calls"][0][1] = (strings + 7).into(),
            "state.tool_calls[0] tool name is",
        ),
        (
            "records_by",
            |v, _, _| v["state"]["records_by"][0][1] = 4294967293u64.into(),
            "state.records_by[0] index is 4294967293",
        ),
        (
            "repeated string",
            |v, _, _| {
                let first = v["state"]["strings"][0].clone();
                v["state"]["strings"]
                    .as_array_mut()
                    .expect("strings")
                    .push(first)
            },
            "state.strings[",
        ),
    ];
    let part = tmp.path().join("part.json");
    for (what, change, field) in cases {
        let mut v = good.clone();
        change(&mut v, strings, attrs);
        std::fs::write(&part, serde_json::to_vec(&v).expect("JSON")).expect("write");
        let err = failure(&["--merge", part.to_str().expect("UTF-8 path")]);
        assert!(
            err.contains("part.json: ") && err.contains(field),
            "{what}: {err}"
        );
    }
    // The report as written merges.
    std::fs::write(&part, &text).expect("write");
    let merged = stats_json(&["--merge", part.to_str().expect("UTF-8 path")]);
    assert_eq!(
        merged.sessions,
        good["sessions"].as_u64().expect("sessions")
    );
}

#[test]
fn missing_files_exit_2() {
    let err = failure(&["-q", "-f", "json", "testdata/stats/no-such-file.ndjson"]);
    assert!(err.contains("testdata/stats/no-such-file.ndjson"), "{err}");
    let err = failure(&["--merge", "testdata/stats/no-such-file.json"]);
    assert!(err.contains("testdata/stats/no-such-file.json"), "{err}");
    let err = failure(&[
        "--pricing",
        "testdata/stats/no-such-prices.json",
        "testdata/stats/claude-rules.ndjson",
    ]);
    assert!(err.contains("testdata/stats/no-such-prices.json"), "{err}");
}

/// The report's `state` is written by hand (its large lists on other threads): byte for
/// byte what serde writes for the same report, on one thread and on several.
#[test]
fn the_json_report_is_what_serde_writes_for_it() {
    for j in ["1", "2"] {
        let text = stats_stdout(&[
            "-q",
            "-f",
            "json",
            "--mergeable",
            "-j",
            j,
            "testdata/corpus",
        ]);
        let value: Value = serde_json::from_str(&text).expect("JSON");
        for list in ["messages", "tool_calls", "strings", "records_by"] {
            let n = value["state"][list].as_array().map_or(0, Vec::len);
            assert!(n > 10, "-j {j}: state.{list} has {n} entries");
        }
        let report = parse_report(&text);
        let again = serde_json::to_string(&report).expect("serialize");
        assert!(
            text.trim_end() == again,
            "-j {j}: the report differs from serde's serialization of it"
        );
    }
}
