//! `ndjq stats` against ccusage 20.0.24 (docs/REFERENCE.md, "Token and cost rules": tokens as
//! billed, costs from the LiteLLM table), on the real transcripts and rollouts of the corpus.
//!
//! ccusage's outputs are committed under `testdata/stats/ccusage/` (how they were made is
//! in the README there), so these tests never run ccusage. Sessions are matched by their
//! token counts (ccusage names a session by its file, ndjq by the id in its records).

use crate::common;

use ndjq::stats::Report;
use serde_json::Value;
use std::path::PathBuf;

fn stats_by_session(paths: &[PathBuf]) -> Report {
    common::stats_json(&["--by", "session"], paths)
}

fn expected(name: &str) -> Value {
    let path = common::testdata().join("stats").join("ccusage").join(name);
    serde_json::from_slice(&common::read_file(&path)).expect("ccusage's JSON")
}

fn n(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// ccusage's Codex counts of a session or the totals: (input, cache read, output,
/// reasoning). Its inputTokens are the non-cached input: Codex's input_tokens minus its
/// cached_input_tokens, what ndjq's `input` is for every agent.
fn codex_counts(v: &Value) -> (u64, u64, u64, u64) {
    (
        n(v, "inputTokens"),
        n(v, "cacheReadTokens"),
        n(v, "outputTokens"),
        n(v, "reasoningOutputTokens"),
    )
}

fn within_one_percent(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= theirs.abs() * 0.01
}

#[test]
fn claude_transcripts_tokens_equal_and_cost_within_one_percent_of_ccusage() {
    let corpus = common::corpus_dir();
    let got = stats_by_session(&[
        corpus.join("spotter"),
        corpus.join("claudeless"),
        corpus.join("agentcmd").join("claude-transcript"),
    ]);
    let want = expected("claude-session.json");
    let totals = &want["totals"];
    // Totals: every token count equal, the cost within 1%.
    assert_eq!(
        (
            got.tokens.input,
            got.tokens.output,
            got.tokens.cache_creation,
            got.tokens.cache_read
        ),
        (
            n(totals, "inputTokens"),
            n(totals, "outputTokens"),
            n(totals, "cacheCreationTokens"),
            n(totals, "cacheReadTokens")
        )
    );
    let cost = got.cost_usd.expect("transcripts are priced");
    let theirs = totals["totalCost"].as_f64().expect("totalCost");
    assert!(
        within_one_percent(cost, theirs),
        "{cost} vs ccusage {theirs}"
    );
    // Transcripts report no cost: all of it is estimated, nothing left unpriced.
    assert_eq!(got.cost_usd_estimated, got.cost_usd);
    assert_eq!(got.cost_usd_reported, None);
    assert!(got.unpriced_models.is_empty(), "{:?}", got.unpriced_models);
    // Each session: the same counts, its cost within 1%.
    let groups = got.groups.expect("--by session");
    let sessions = want["sessions"].as_array().expect("sessions");
    assert_eq!(groups.len(), sessions.len(), "as many sessions as ccusage");
    for s in sessions {
        let key = (
            n(s, "inputTokens"),
            n(s, "outputTokens"),
            n(s, "cacheCreationTokens"),
            n(s, "cacheReadTokens"),
        );
        let g = groups
            .iter()
            .find(|g| {
                (
                    g.tokens.input,
                    g.tokens.output,
                    g.tokens.cache_creation,
                    g.tokens.cache_read,
                ) == key
            })
            .unwrap_or_else(|| panic!("no ndjq session with ccusage's counts {key:?} ({s})"));
        let theirs = s["totalCost"].as_f64().expect("totalCost");
        let ours = g.cost_usd.expect("priced");
        assert!(
            within_one_percent(ours, theirs),
            "{}: {ours} vs ccusage {theirs}",
            g.key
        );
    }
}

#[test]
fn codex_rollouts_non_cached_input_cache_read_output_equal_ccusage() {
    let corpus = common::corpus_dir();
    let got = stats_by_session(&[
        corpus.join("agentcmd").join("codex-rollout"),
        corpus
            .join("real-client")
            .join("codex-tool.session-log.jsonl"),
    ]);
    let want = expected("codex-session.json");
    let groups = got.groups.expect("--by session");
    let sessions = want["sessions"].as_array().expect("sessions");
    assert_eq!(groups.len(), sessions.len(), "as many sessions as ccusage");
    for s in sessions {
        let key = codex_counts(s);
        let g = groups
            .iter()
            .find(|g| {
                (
                    g.tokens.input,
                    g.tokens.cache_read,
                    g.tokens.output,
                    g.tokens.reasoning_output,
                ) == key
            })
            .unwrap_or_else(|| panic!("no ndjq session with ccusage's counts {key:?} ({s})"));
        let theirs = s["costUSD"].as_f64().expect("costUSD");
        let ours = g.cost_usd.expect("priced");
        assert!(
            within_one_percent(ours, theirs),
            "{}: {ours} vs ccusage {theirs}",
            g.key
        );
    }
}

/// `ndjq-gen tree --shape SHAPE --files N --total-mb 1 --seed 5 DIR`.
fn gen_tree(shape: &str, files: &str, dir: &std::path::Path) {
    let out = std::process::Command::new(crate::common::ndjq_gen_path())
        .args([
            "tree",
            "--shape",
            shape,
            "--files",
            files,
            "--total-mb",
            "1",
        ])
        .args(["--seed", "5"])
        .arg(dir)
        .env_clear()
        .output()
        .expect("ndjq-gen runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn ndjq_gen_expected(name: &str) -> Value {
    let path = common::testdata()
        .join("expected")
        .join("ndjq-gen")
        .join(name);
    serde_json::from_slice(&common::read_file(&path)).expect("ccusage's JSON")
}

#[test]
fn generated_trees_cost_as_in_ccusage() {
    // testdata/expected/ndjq-gen/*.ccusage.json is ccusage 20.0.24 on these very trees
    // (see tests/it/gen.rs).
    let claude = common::tempdir();
    gen_tree("claude-projects", "12", claude.path());
    let got = stats_by_session(&[claude.path().to_path_buf()]);
    let want = ndjq_gen_expected("claude-projects-12.ccusage.json");
    let totals = &want["totals"];
    assert_eq!(
        (
            got.tokens.input,
            got.tokens.output,
            got.tokens.cache_creation,
            got.tokens.cache_read
        ),
        (
            n(totals, "inputTokens"),
            n(totals, "outputTokens"),
            n(totals, "cacheCreationTokens"),
            n(totals, "cacheReadTokens")
        )
    );
    let theirs = totals["totalCost"].as_f64().expect("totalCost");
    let ours = got.cost_usd.expect("priced");
    assert!(
        within_one_percent(ours, theirs),
        "{ours} vs ccusage {theirs}"
    );

    let codex = common::tempdir();
    gen_tree("codex-sessions", "8", codex.path());
    let got = stats_by_session(&[codex.path().to_path_buf()]);
    let want = ndjq_gen_expected("codex-sessions-8.ccusage.json");
    let sessions = want["sessions"].as_array().expect("sessions");
    let sum = |k: &str| sessions.iter().map(|s| n(s, k)).sum::<u64>();
    assert_eq!(
        (
            got.tokens.input,
            got.tokens.cache_read,
            got.tokens.output,
            got.tokens.reasoning_output
        ),
        (
            sum("inputTokens"),
            sum("cacheReadTokens"),
            sum("outputTokens"),
            sum("reasoningOutputTokens")
        )
    );
    let theirs: f64 = sessions.iter().filter_map(|s| s["costUSD"].as_f64()).sum();
    let ours = got.cost_usd.expect("priced");
    assert!(
        within_one_percent(ours, theirs),
        "{ours} vs ccusage {theirs}"
    );
}

/// ccusage reads only the Codex lines that carry usage or the model; ndjq reads every line.
/// On a rollout whose other lines are cut in half, both give the same usage and cost, and
/// only ndjq says that 13 of the 18 records are damaged (docs/PERFORMANCE.md, "Why `stats`
/// on Codex rollouts stays under 2.5x ccusage").
#[test]
fn codex_lines_ccusage_never_reads_are_checked_and_the_usage_is_the_same() {
    let file = common::testdata()
        .join("stats")
        .join("codex-rollout-cut-lines.jsonl");
    let out = common::ndjq_sub("stats")
        .args(["-f", "json"])
        .arg(&file)
        .output()
        .expect("run ndjq stats");
    // Damaged records are reported, not fatal: the report is written and the run succeeds.
    assert!(out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).expect("a stats report");
    let want = &expected("codex-cut-lines.json")["totals"];
    let tokens = |key: &str| n(&got["tokens"], key);
    assert_eq!(
        (
            tokens("input"),
            tokens("cache_read"),
            tokens("output"),
            tokens("reasoning_output")
        ),
        codex_counts(want)
    );
    let (ours, theirs) = (
        got["cost_usd"].as_f64().expect("priced"),
        want["costUSD"].as_f64().expect("costUSD"),
    );
    assert!(
        within_one_percent(ours, theirs),
        "{ours} vs ccusage {theirs}"
    );
    assert_eq!(
        (&got["lines"], &got["valid"], &got["invalid"]),
        (&18.into(), &5.into(), &13.into())
    );
    assert_eq!(got["diagnostics"]["PROTO_TRUNCATED"], 13);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("codex-rollout-cut-lines.jsonl:2:199: error[PROTO_TRUNCATED]"),
        "{stderr}"
    );
    assert!(stderr.contains("13 of 18 records invalid"), "{stderr}");
}
