//! `ndjq-gen`, the project's generator of test and benchmark data: the same arguments give
//! the same bytes; every dialect it writes is clean NDJSON of that dialect whose token
//! totals ndjq reads back; the manifest lists exactly the lines it damaged; the trees have
//! the layout the agents use, and ccusage (its output for these trees committed under
//! testdata/expected/ndjq-gen/) reads the same totals as ndjq.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ndjq::stats::{Report, Tokens};
use serde::Deserialize;
use serde_json::Value;

const DIALECTS: [&str; 4] = ["claude", "claude-log", "codex", "codex-log"];

/// Runs `ndjq-gen ARGS`, requires success, returns its stderr summary.
fn gen(args: &[&str]) -> Summary {
    let out = std::process::Command::new(crate::common::ndjq_gen_path())
        .args(args)
        .env_clear()
        .output()
        .expect("ndjq-gen runs");
    assert!(
        out.status.success(),
        "ndjq-gen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stderr).expect("UTF-8 summary");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("summary ({e}): {text}"))
}

/// The JSON summary `ndjq-gen` writes to stderr.
#[derive(Debug, Deserialize)]
struct Summary {
    #[serde(default)]
    lines: u64,
    #[serde(default)]
    files: u64,
    bytes: u64,
    sessions: u64,
    tokens: Tokens,
    #[serde(default)]
    corrupt: BTreeMap<String, u64>,
}

fn stats(paths: &[&Path]) -> Report {
    common::stats_json(&[], paths)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn same_arguments_same_bytes_other_seed_other_bytes() {
    let dir = common::tempdir();
    for dialect in DIALECTS {
        let mut runs = Vec::new();
        for (name, seed) in [("a", "4"), ("b", "4"), ("c", "5")] {
            let data = dir.path().join(format!("{dialect}-{name}.ndjson"));
            let manifest = dir.path().join(format!("{dialect}-{name}.manifest"));
            gen(&[
                "stream",
                "--dialect",
                dialect,
                "--records",
                "400",
                "--seed",
                seed,
                "--corrupt-rate",
                "0.05",
                "--seq",
                "--manifest",
                path_str(&manifest),
                "-o",
                path_str(&data),
            ]);
            runs.push((common::read_file(&data), common::read_file(&manifest)));
        }
        assert!(
            runs[0] == runs[1],
            "{dialect}: two runs with the same seed differ"
        );
        assert!(
            runs[0].0 != runs[2].0,
            "{dialect}: another seed gives the same stream"
        );
        assert!(
            !runs[0].1.is_empty(),
            "{dialect}: the manifest lists the damage"
        );
    }
}

#[test]
fn each_dialect_is_clean_ndjson_whose_totals_ndjq_reads_back() {
    let dir = common::tempdir();
    for dialect in DIALECTS {
        let data = dir.path().join(format!("{dialect}.ndjson"));
        let made = gen(&[
            "stream",
            "--dialect",
            dialect,
            "--size-mb",
            "1",
            "--seed",
            "3",
            "-o",
            path_str(&data),
        ]);
        assert!(
            made.bytes >= 1 << 20,
            "{dialect}: at least the size asked for"
        );
        assert_eq!(made.bytes, std::fs::metadata(&data).expect("stat").len());
        assert!(made.corrupt.is_empty());
        let got = stats(&[&data]);
        assert_eq!(got.lines, made.lines, "{dialect}");
        assert_eq!((got.invalid, got.empty), (0, 0), "{dialect}");
        assert_eq!(
            got.dialects.keys().collect::<Vec<_>>(),
            [dialect],
            "{dialect}"
        );
        // Only session-level findings (a failed result, an errored tool call) may show:
        // no record is malformed, of an unknown type or off its schema.
        assert!(
            got.diagnostics.keys().all(|c| !c.starts_with("PROTO_")),
            "{dialect}: {:?}",
            got.diagnostics
        );
        assert_eq!(got.sessions, made.sessions, "{dialect}");
        assert!(made.sessions > 1, "{dialect}: several sessions in a stream");
        assert_eq!(got.tokens.output, made.tokens.output, "{dialect}");
        assert_eq!(got.tokens.cache_read, made.tokens.cache_read, "{dialect}");
        assert_eq!(
            got.tokens.cache_creation, made.tokens.cache_creation,
            "{dialect}"
        );
        // Codex input tokens include the cached ones, in the generator's summary as in
        // Codex; ndjq's `input` is the non-cached part for every agent (ndjq.stats/2).
        let want_input = if dialect.starts_with("codex") {
            made.tokens.input - made.tokens.cache_read
        } else {
            made.tokens.input
        };
        assert_eq!(got.tokens.input, want_input, "{dialect}");
        assert!(
            got.tokens.output > 0 && got.tokens.cache_read > 0,
            "{dialect}"
        );
    }
}

#[test]
fn the_manifest_lists_exactly_the_damaged_lines() {
    let dir = common::tempdir();
    for dialect in DIALECTS {
        let data = dir.path().join(format!("{dialect}.ndjson"));
        let manifest = dir.path().join(format!("{dialect}.manifest"));
        let made = gen(&[
            "stream",
            "--dialect",
            dialect,
            "--records",
            "3000",
            "--seed",
            "4",
            "--corrupt-rate",
            "0.05",
            "--manifest",
            path_str(&manifest),
            "-o",
            path_str(&data),
        ]);
        let listed: BTreeMap<u64, String> = String::from_utf8(common::read_file(&manifest))
            .expect("UTF-8")
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("a manifest line is JSON");
                (
                    v["line"].as_u64().expect("line"),
                    v["kind"].as_str().expect("kind").to_string(),
                )
            })
            .collect();
        let kinds: BTreeSet<&str> = listed.values().map(String::as_str).collect();
        assert_eq!(
            kinds.len(),
            9,
            "{dialect}: all nine kinds at this seed: {kinds:?}"
        );
        let by_kind = |k: &str| listed.values().filter(|v| *v == k).count() as u64;
        for (k, n) in &made.corrupt {
            assert_eq!(
                by_kind(k),
                *n,
                "{dialect}: summary and manifest agree on {k}"
            );
        }
        // What ndjq finds in each record (structural findings aside).
        let out = common::ndjq_sub("validate")
            .args(["-f", "json"])
            .arg(&data)
            .output()
            .expect("ndjq runs");
        let mut found: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
        for l in String::from_utf8(out.stdout).expect("UTF-8").lines() {
            let v: Value = serde_json::from_str(l).expect("JSON");
            if let Some(code) = v["code"].as_str().filter(|c| c.starts_with("PROTO_")) {
                found
                    .entry(v["line"].as_u64().expect("line"))
                    .or_default()
                    .insert(code.to_string());
            }
        }
        let bytes = common::read_file(&data);
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        for (line, kind) in &listed {
            let codes = found.get(line).cloned().unwrap_or_default();
            let has = |c: &str| codes.contains(c);
            let ok = match kind.as_str() {
                "blank" => has("PROTO_EMPTY_LINE"),
                "crlf" => has("PROTO_CRLF"),
                "unknown_type" => has("PROTO_UNKNOWN_TYPE"),
                "bad_utf8" => has("PROTO_INVALID_UTF8"),
                "truncated" | "nul" | "merged" | "noise" => !codes.is_empty(),
                // A record without its `type`, or with `usage: null`: well-formed JSON that
                // ndjq accepts; the damage is in the record itself.
                "missing_field" => {
                    let v: Value = serde_json::from_slice(lines[*line as usize - 1]).expect("JSON");
                    v.get("type").is_none() || v.to_string().contains("\"usage\":null")
                }
                other => panic!("unknown kind {other}"),
            };
            assert!(ok, "{dialect}: line {line} ({kind}) drew {codes:?}");
        }
        let unlisted: Vec<_> = found.keys().filter(|l| !listed.contains_key(l)).collect();
        assert!(
            unlisted.is_empty(),
            "{dialect}: findings on lines not damaged: {unlisted:?}"
        );
    }
}

/// Every file under `dir`, relative, sorted, with its size.
fn files(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read a folder") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .expect("under")
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::metadata(&p).expect("stat").len()));
            }
        }
    }
    out.sort();
    out
}

/// ccusage's totals, from its committed `session --json` output.
fn ccusage_totals(name: &str) -> Value {
    let path: PathBuf = common::testdata().join("expected/ndjq-gen").join(name);
    let v: Value = serde_json::from_slice(&common::read_file(&path)).expect("ccusage JSON");
    v["totals"].clone()
}

fn num(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn a_claude_projects_tree_reads_the_same_in_ndjq_and_ccusage() {
    // The committed file is the output of
    //   CLAUDE_CONFIG_DIR=T ccusage claude session --json --offline   (ccusage 20.0.24)
    // on `ndjq-gen tree --shape claude-projects --files 12 --total-mb 1 --seed 5 T`.
    let dir = common::tempdir();
    let made = gen(&[
        "tree",
        "--shape",
        "claude-projects",
        "--files",
        "12",
        "--total-mb",
        "1",
        "--seed",
        "5",
        path_str(dir.path()),
    ]);
    let listing = files(dir.path());
    assert_eq!(listing.len(), 12);
    assert_eq!(made.files, 12);
    for (rel, size) in &listing {
        let parts: Vec<&str> = rel.split('/').collect();
        assert_eq!(parts.len(), 3, "{rel}: projects/<project>/<session>.jsonl");
        assert_eq!(parts[0], "projects");
        assert!(parts[1].starts_with("-home-dev-"), "{rel}");
        let stem = parts[2].strip_suffix(".jsonl").expect(".jsonl");
        assert_eq!(stem.len(), 36, "{rel}: a session uuid");
        assert!(*size >= 2 << 10, "{rel}: {size} bytes");
    }
    let total: u64 = listing.iter().map(|(_, s)| s).sum();
    assert_eq!(total, made.bytes);
    // The same tree again: the same files, byte for byte.
    let again = common::tempdir();
    gen(&[
        "tree",
        "--shape",
        "claude-projects",
        "--files",
        "12",
        "--total-mb",
        "1",
        "--seed",
        "5",
        path_str(again.path()),
    ]);
    for (rel, _) in &listing {
        assert!(
            common::read_file(&dir.path().join(rel)) == common::read_file(&again.path().join(rel)),
            "{rel} differs between two runs"
        );
    }
    let got = stats(&[dir.path()]);
    assert_eq!(got.files, 12);
    assert_eq!(got.sessions, 12);
    assert!(
        got.diagnostics.keys().all(|c| !c.starts_with("PROTO_")),
        "{:?}",
        got.diagnostics
    );
    let cc = ccusage_totals("claude-projects-12.ccusage.json");
    // ndjq keeps each message's last usage snapshot; ccusage its first; the generator
    // repeats one usage on every line of a message, as Claude Code does: the same totals.
    assert_eq!(
        (
            got.tokens.input,
            got.tokens.output,
            got.tokens.cache_creation,
            got.tokens.cache_read
        ),
        (
            num(&cc, "inputTokens"),
            num(&cc, "outputTokens"),
            num(&cc, "cacheCreationTokens"),
            num(&cc, "cacheReadTokens")
        )
    );
    assert_eq!(got.tokens, made.tokens);
}

#[test]
fn a_codex_sessions_tree_reads_in_ndjq_as_in_ccusage() {
    // The committed file is the output of
    //   CODEX_HOME=T ccusage codex session --json --offline   (ccusage 20.0.24)
    // on `ndjq-gen tree --shape codex-sessions --files 8 --total-mb 1 --seed 5 T`.
    let dir = common::tempdir();
    let made = gen(&[
        "tree",
        "--shape",
        "codex-sessions",
        "--files",
        "8",
        "--total-mb",
        "1",
        "--seed",
        "5",
        path_str(dir.path()),
    ]);
    let listing = files(dir.path());
    assert_eq!(listing.len(), 8);
    for (rel, _) in &listing {
        let parts: Vec<&str> = rel.split('/').collect();
        assert_eq!(parts.len(), 5, "{rel}: sessions/YYYY/MM/DD/rollout-*.jsonl");
        assert_eq!(parts[0], "sessions");
        let name = parts[4];
        let date = format!("{}-{}-{}T", parts[1], parts[2], parts[3]);
        assert!(name.starts_with(&format!("rollout-{date}")), "{rel}");
        assert!(name.ends_with(".jsonl"), "{rel}");
    }
    let got = stats(&[dir.path()]);
    assert_eq!((got.files, got.sessions), (8, 8));
    assert!(
        got.diagnostics.keys().all(|c| !c.starts_with("PROTO_")),
        "{:?}",
        got.diagnostics
    );
    // The generator's input includes the cached tokens, as Codex's does; ndjq's and
    // ccusage's leave them out.
    assert_eq!(got.tokens.input, made.tokens.input - made.tokens.cache_read);
    assert_eq!(
        (
            got.tokens.output,
            got.tokens.cache_read,
            got.tokens.cache_creation
        ),
        (
            made.tokens.output,
            made.tokens.cache_read,
            made.tokens.cache_creation
        )
    );
    let cc = ccusage_totals("codex-sessions-8.ccusage.json");
    assert_eq!(got.tokens.output, num(&cc, "outputTokens"));
    assert_eq!(got.tokens.cache_read, num(&cc, "cacheReadTokens"));
    assert_eq!(got.tokens.input, num(&cc, "inputTokens"));
}

/// The longest line of a file, in bytes.
fn longest_line(path: &Path) -> usize {
    common::read_file(path)
        .split(|&b| b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

#[test]
fn the_bimodal_and_long_line_trees_have_their_shapes_and_read_back_their_totals() {
    // claude-bimodal: every other file about 2 KB, the others sharing the rest, each with
    // one tool result line of about 110/140 of its size.
    let dir = common::tempdir();
    let args = |out: &Path| {
        vec![
            "tree".to_string(),
            "--shape".into(),
            "claude-bimodal".into(),
            "--files".into(),
            "6".into(),
            "--total-mb".into(),
            "1".into(),
            "--seed".into(),
            "7".into(),
            path_str(out).to_string(),
        ]
    };
    let a: Vec<String> = args(dir.path());
    let made = gen(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let listing = files(dir.path());
    assert_eq!(listing.len(), 6);
    // A session ends at its first message boundary past its size: a small one may run
    // over by a few KB.
    let small: Vec<_> = listing.iter().filter(|(_, s)| *s < 20_000).collect();
    assert_eq!(small.len(), 3, "{listing:?}");
    for (rel, size) in &listing {
        let longest = longest_line(&dir.path().join(rel)) as u64;
        if *size >= 20_000 {
            // About 346 KB each: one line of about 270 KB.
            assert!(longest > size * 100 / 140, "{rel}: {longest} of {size}");
            assert!(longest < size * 120 / 140, "{rel}: {longest} of {size}");
        } else {
            assert!(longest < 10_000, "{rel}: {longest}");
        }
    }
    let again = common::tempdir();
    let b: Vec<String> = args(again.path());
    gen(&b.iter().map(String::as_str).collect::<Vec<_>>());
    for (rel, _) in &listing {
        assert!(
            common::read_file(&dir.path().join(rel)) == common::read_file(&again.path().join(rel)),
            "{rel} differs between two runs"
        );
    }
    let got = stats(&[dir.path()]);
    assert_eq!((got.files, got.sessions), (6, 6));
    assert_eq!(got.tokens, made.tokens);

    // claude-long-lines: files from 2 KB to 3.2 MB; those over 1.2 MB hold a line of
    // about 900 KB.
    let dir = common::tempdir();
    let made = gen(&[
        "tree",
        "--shape",
        "claude-long-lines",
        "--files",
        "5",
        "--total-mb",
        "5",
        "--seed",
        "7",
        path_str(dir.path()),
    ]);
    let listing = files(dir.path());
    assert_eq!(listing.len(), 5);
    let mut long = 0;
    for (rel, size) in &listing {
        assert!(*size >= 2 << 10 && *size < 4_000_000, "{rel}: {size}");
        let longest = longest_line(&dir.path().join(rel));
        if *size >= 1_300_000 {
            assert!((850_000..1_050_000).contains(&longest), "{rel}: {longest}");
            long += 1;
        } else if *size < 1_200_000 {
            assert!(longest < 850_000, "{rel}: {longest}");
        }
    }
    assert!(long >= 1, "{listing:?}");
    let got = stats(&[dir.path()]);
    assert_eq!((got.files, got.sessions), (5, 5));
    assert_eq!(got.tokens, made.tokens);
}

#[test]
fn trees_with_forks_count_every_message_once_and_their_split_merges_to_the_whole() {
    for shape in ["claude-projects", "codex-sessions"] {
        let dir = common::tempdir();
        let made = gen(&[
            "tree",
            "--shape",
            shape,
            "--files",
            "10",
            "--total-mb",
            "1",
            "--seed",
            "9",
            "--forks",
            "100",
            path_str(dir.path()),
        ]);
        // Every odd-numbered file is a fork of the one before it.
        let listing = files(dir.path());
        let mark = if shape == "codex-sessions" {
            "\"forked_from_id\""
        } else {
            "\"requestSessionId\""
        };
        let forks = listing
            .iter()
            .filter(|(rel, _)| {
                String::from_utf8_lossy(&common::read_file(&dir.path().join(rel))).contains(mark)
            })
            .count();
        assert_eq!(forks, 5, "{shape}: {listing:?}");
        let whole: Value = common::stats_json(&["--by", "session"], &[dir.path()]);
        let t = &whole["tokens"];
        let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
        // The summary's Codex input includes the cached part.
        let input = if shape == "codex-sessions" {
            n(t, "input") + n(t, "cache_read")
        } else {
            n(t, "input")
        };
        assert_eq!(
            (
                input,
                n(t, "output"),
                n(t, "cache_creation"),
                n(t, "cache_read")
            ),
            (
                made.tokens.input,
                made.tokens.output,
                made.tokens.cache_creation,
                made.tokens.cache_read
            ),
            "{shape}"
        );
        assert_eq!(whole["sessions"], 10, "{shape}");
        assert_eq!(
            whole["groups"].as_array().map(Vec::len),
            Some(10),
            "{shape}"
        );
        // Each file a part of its own: a parent and its fork are always apart.
        let parts = common::tempdir();
        let mut reports = Vec::new();
        for (k, (rel, _)) in listing.iter().enumerate() {
            let out = common::ndjq_sub("stats")
                .args(["-q", "-f", "json", "--mergeable"])
                .arg(dir.path().join(rel))
                .output()
                .expect("run ndjq stats");
            assert!(out.status.success());
            reports.push(common::write_file(
                parts.path(),
                &format!("{k}.json"),
                &out.stdout,
            ));
        }
        let merged: Value = common::stats_json(&["--by", "session", "--merge"], &reports);
        for key in ["tokens", "cost_usd", "sessions", "groups"] {
            assert_eq!(merged[key], whole[key], "{shape}: {key}");
        }
    }
}
