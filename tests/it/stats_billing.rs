//! `ndjq stats`: the token, cost, tool and report rules that bill (docs/REFERENCE.md,
//! "Token and cost rules"), each on
//! the real-client captures (`testdata/corpus/real-client/`) or a hand-made file
//! (`testdata/stats/`), each a test that fails if its rule breaks.

use crate::common;

use ndjq::stats::{Report, Tokens};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn real(name: &str) -> PathBuf {
    common::corpus_dir().join("real-client").join(name)
}

fn data(name: &str) -> PathBuf {
    common::testdata().join("stats").join(name)
}

fn stats(args: &[&str], paths: &[PathBuf]) -> Report {
    common::stats_json(args, paths)
}

fn stats_of_text(text: String) -> Report {
    let out = common::ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .write_stdin(text)
        .output()
        .expect("run ndjq stats");
    serde_json::from_slice(&out.stdout).expect("a stats report")
}

fn records(path: &Path) -> Vec<Value> {
    String::from_utf8(common::read_file(path))
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

fn t(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Tokens {
    Tokens {
        input,
        output,
        cache_creation,
        cache_read,
        ..Tokens::default()
    }
}

/// Four counts of a Tokens, without the split-out parts.
fn four(x: &Tokens) -> (u64, u64, u64, u64) {
    (x.input, x.output, x.cache_creation, x.cache_read)
}

const CLAUDE_CAPTURES: [&str; 7] = [
    "claude-text.ndjson",
    "claude-text-partial.ndjson",
    "claude-tool.ndjson",
    "claude-tool-partial.ndjson",
    "claude-multi_tool.ndjson",
    "claude-thinking.ndjson",
    "claude-error500.ndjson",
];

#[test]
fn each_claude_capture_counts_the_tokens_its_result_billed() {
    for name in CLAUDE_CAPTURES {
        let file = real(name);
        let result = records(&file)
            .into_iter()
            .rfind(|v| v["type"] == "result")
            .unwrap_or_else(|| panic!("{name}: a result line"));
        let u = &result["usage"];
        let n = |k: &str| u[k].as_u64().expect(k);
        let billed = t(
            n("input_tokens"),
            n("output_tokens"),
            n("cache_creation_input_tokens"),
            n("cache_read_input_tokens"),
        );
        let got = stats(&[], &[file]);
        assert_eq!(four(&got.tokens), four(&billed), "{name}");
        // The reported cost is the result's total_cost_usd, none of it estimated.
        let cost = result["total_cost_usd"].as_f64().expect("total_cost_usd");
        let got_cost = got.cost_usd_reported.expect("reported");
        assert!(
            (got_cost - cost).abs() < 1e-9,
            "{name}: {got_cost} != {cost}"
        );
        assert_eq!(got.cost_usd_estimated, None, "{name}");
    }
}

#[test]
fn message_delta_usage_is_the_messages_final_usage() {
    // Without the result line, the per-message rule alone: each message's last snapshot
    // (output 1 on every assistant line) and its message_delta's cumulative output
    // (tool-partial: 50 and 12; text-partial: 13), which are what the result billed.
    for (name, want_output) in [
        ("claude-tool-partial.ndjson", 62),
        ("claude-text-partial.ndjson", 13),
    ] {
        let lines = records(&real(name));
        let deltas: u64 = lines
            .iter()
            .filter(|v| v["event"]["type"] == "message_delta")
            .map(|v| v["event"]["usage"]["output_tokens"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(deltas, want_output, "{name}: the deltas' outputs");
        let text = String::from_utf8(common::read_file(&real(name))).expect("UTF-8");
        let no_result: String = text
            .lines()
            .filter(|l| !l.contains("\"type\":\"result\""))
            .map(|l| format!("{l}\n"))
            .collect();
        let got = stats_of_text(no_result);
        assert_eq!(got.tokens.output, want_output, "{name}");
        assert_eq!(got.result_tokens, None);
        // The same stream without its stream_event lines: only the snapshots (output 1
        // per message), which is why the deltas are needed.
        let no_deltas: String = text
            .lines()
            .filter(|l| !l.contains("\"type\":\"result\"") && !l.contains("message_delta"))
            .map(|l| format!("{l}\n"))
            .collect();
        let snapshots = stats_of_text(no_deltas);
        assert!(snapshots.tokens.output < want_output, "{name}");
    }
}

#[test]
fn result_model_usage_splits_the_session_by_model() {
    // The messages show sonnet only (100 in, output snapshot 1); the result's usage says
    // 100/20, its modelUsage adds an auxiliary haiku call (30/4, cache read 50).
    let got = stats(&[], &[data("claude-model-usage.ndjson")]);
    assert_eq!(four(&got.tokens), (130, 24, 0, 50));
    assert_eq!(
        four(&got.models["claude-sonnet-4-5-20250929"]),
        (100, 20, 0, 0)
    );
    assert_eq!(
        four(&got.models["claude-haiku-4-5-20251001"]),
        (30, 4, 0, 50)
    );
    // result_tokens stays the result's `usage`, for comparison.
    assert_eq!(four(&got.result_tokens.expect("result")), (100, 20, 0, 0));
    // Estimated at the built-in prices: sonnet 4.5 input 3e-6, output 1.5e-5; haiku 4.5
    // input 1e-6, output 5e-6, cache read 1e-7.
    let est = stats(
        &["--cost", "estimated"],
        &[data("claude-model-usage.ndjson")],
    );
    let want = 100.0 * 3e-6 + 20.0 * 1.5e-5 + 30.0 * 1e-6 + 4.0 * 5e-6 + 50.0 * 1e-7;
    let got_cost = est.cost_usd_estimated.expect("estimated");
    assert!((got_cost - want).abs() < 1e-12, "{got_cost} != {want}");
    assert_eq!(est.cost_usd_reported, None);
}

#[test]
fn codex_input_is_non_cached_in_the_stream_and_its_rollout_alike() {
    // codex-tool: turn.completed usage input 18672 of which cached 9344, output 52,
    // reasoning 16; its rollout's last total_token_usage says the same.
    let want = Tokens {
        input: 18672 - 9344,
        output: 52,
        cache_creation: 0,
        cache_read: 9344,
        reasoning_output: 16,
        cache_creation_1h: 0,
    };
    let stream = stats(&[], &[real("codex-tool.ndjson")]);
    let rollout = stats(&[], &[real("codex-tool.session-log.jsonl")]);
    assert_eq!(stream.tokens, want);
    assert_eq!(rollout.tokens, want);
    // Each names the call as its record does, as `events` shows it: exec by its item type
    // (the stream has no function name), the rollout by its function.
    assert_eq!(
        stream.tools.keys().collect::<Vec<_>>(),
        ["command_execution"]
    );
    assert_eq!(rollout.tools.keys().collect::<Vec<_>>(), ["exec_command"]);
    assert_eq!(stream.tools["command_execution"].calls, 1);
    assert_eq!(rollout.tools["exec_command"].calls, 1);
    // Both at once are one session, counted once: the rollout's total.
    let both = stats(
        &[],
        &[
            real("codex-tool.ndjson"),
            real("codex-tool.session-log.jsonl"),
        ],
    );
    assert_eq!(both.sessions, 1);
    assert_eq!(both.tokens, want);
}

#[test]
fn codex_rollout_tool_errors_come_from_the_exit_code() {
    let got = stats(&[], &[data("codex-rollout-errors.jsonl")]);
    // call_1 (exec_command, "Process exited with code 2") and call_2 (shell,
    // metadata.exit_code 1) failed; call_3 (exec_command) exited 0; apply_patch did not
    // fail. Each tool under the name the rollout gives it.
    let exec = &got.tools["exec_command"];
    assert_eq!((exec.calls, exec.errors), (2, 1));
    let shell = &got.tools["shell"];
    assert_eq!((shell.calls, shell.errors), (1, 1));
    let patch = &got.tools["apply_patch"];
    assert_eq!((patch.calls, patch.errors), (1, 0));
    // The rollout's token count: 5000 input of which 4000 cached.
    assert_eq!(four(&got.tokens), (1000, 300, 0, 4000));
    assert_eq!(got.tokens.reasoning_output, 200);
    // gpt-5-codex at 1.25e-6 input, 1e-5 output, 1.25e-7 cache read.
    let want = 1000.0 * 1.25e-6 + 300.0 * 1e-5 + 4000.0 * 1.25e-7;
    let cost = got.cost_usd_estimated.expect("estimated");
    assert!((cost - want).abs() < 1e-12, "{cost} != {want}");
}

#[test]
fn cost_modes_choose_reported_or_estimated() {
    let file = real("claude-tool.ndjson");
    let auto = stats(&[], std::slice::from_ref(&file));
    let reported = stats(&["--cost", "reported"], std::slice::from_ref(&file));
    let estimated = stats(&["--cost", "estimated"], std::slice::from_ref(&file));
    assert_eq!(auto.cost_usd, Some(0.0289072));
    assert_eq!(reported.cost_usd, Some(0.0289072));
    assert_eq!(estimated.cost_usd_reported, None);
    // claude-opus-5-5 is in the built-in table: the estimate prices the result's tokens.
    assert!(estimated.cost_usd_estimated.is_some_and(|c| c > 0.0));
    assert_eq!(estimated.cost_usd, estimated.cost_usd_estimated);
    assert!(estimated
        .pricing
        .as_deref()
        .is_some_and(|p| p.contains("LiteLLM")));
    // A model no table prices is named, its tokens left out of the cost.
    let codex_exec = stats(&["--cost", "estimated"], &[real("codex-tool.ndjson")]);
    assert_eq!(codex_exec.unpriced_models, ["(none)"]);
    assert_eq!(codex_exec.cost_usd, None);
}

#[test]
fn pricing_file_replaces_the_builtin_table() {
    let tmp = common::tempdir();
    let table = common::write_file(
        tmp.path(),
        "prices.json",
        br#"{"gpt-5-codex":{"input_cost_per_token":0.001,"output_cost_per_token":0.002,"cache_read_input_token_cost":0.0005}}"#,
    );
    let got = stats(
        &["--pricing", table.to_str().expect("UTF-8")],
        &[data("codex-rollout-errors.jsonl")],
    );
    // 1000 non-cached input at 0.001, 300 output at 0.002, 4000 cache reads at 0.0005
    // (prices above 0.01 a token are refused).
    let cost = got.cost_usd_estimated.expect("an estimate");
    assert!((cost - 3.6).abs() < 1e-9, "{cost}");
    assert_eq!(got.pricing.as_deref(), table.to_str());
}

#[test]
fn breakdowns_by_week_month_and_project() {
    let corpus = common::corpus_dir();
    let inputs = [
        corpus.join("claudeless"),
        data("codex-rollout-errors.jsonl"),
    ];
    let by = |key: &str| stats(&["--by", key], &inputs).groups.expect("groups");
    let all = stats(&[], &inputs);
    for key in ["day", "week", "month", "project"] {
        let groups = by(key);
        // Every breakdown adds up to the totals.
        let mut sum = Tokens::default();
        for g in &groups {
            sum += g.tokens;
        }
        assert_eq!(sum, all.tokens, "--by {key}");
    }
    let days: Vec<String> = by("day").into_iter().map(|g| g.key).collect();
    let months: Vec<String> = by("month").into_iter().map(|g| g.key).collect();
    let weeks: Vec<String> = by("week").into_iter().map(|g| g.key).collect();
    // A month is its days' first seven characters; a week is named by its Monday
    // (2026-03-02 was a Monday).
    for d in days.iter().filter(|d| *d != "(none)") {
        assert!(months.contains(&d[..7].to_string()), "{d} in {months:?}");
    }
    assert!(weeks.contains(&"2026-03-02".to_string()), "{weeks:?}");
    // A project is the session's working directory.
    let projects: Vec<String> = by("project").into_iter().map(|g| g.key).collect();
    assert!(projects.contains(&"/work/demo".to_string()), "{projects:?}");
}

#[test]
fn text_report_by_day_is_a_table_with_totals_and_estimates_marked() {
    let corpus = common::corpus_dir();
    let out = common::ndjq_sub("stats")
        .args(["-q", "-f", "text", "--by", "day", "--timezone", "UTC"])
        .arg(corpus.join("spotter"))
        .arg(corpus.join("claudeless"))
        .arg(corpus.join("agentcmd").join("claude-transcript"))
        .output()
        .expect("run ndjq stats");
    let got = String::from_utf8(out.stdout).expect("UTF-8");
    let golden = data("claude-transcripts.by-day.txt");
    let want = String::from_utf8(common::read_file(&golden)).expect("UTF-8");
    assert!(
        got == want,
        "differs from {}:\n--- expected\n{want}\n--- got\n{got}",
        golden.display()
    );
    assert!(got.contains("* estimated"), "estimates are marked");
    assert!(got.lines().any(|l| l.starts_with("total ")), "a totals row");
}

/// A Claude transcript with one assistant message (10 input, 1 output) at each time.
fn transcript_at(times: &[&str]) -> String {
    times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                r#"{{"parentUuid":null,"sessionId":"s-time","type":"assistant","uuid":"u{i}","timestamp":"{t}","requestId":"req_{i}","message":{{"id":"msg_{i}","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{{"type":"text","text":"x"}}],"usage":{{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#
            ) + "\n"
        })
        .collect()
}

fn groups_of(args: &[&str], text: &str) -> Vec<(String, u64)> {
    let out = common::ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .args(args)
        .write_stdin(text.to_string())
        .output()
        .expect("run ndjq stats");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Report = serde_json::from_slice(&out.stdout).expect("a report");
    r.groups
        .expect("groups")
        .into_iter()
        .map(|g| (g.key, g.tokens.input))
        .collect()
}

#[test]
fn days_are_counted_in_the_timezone() {
    let text = transcript_at(&["2026-03-02T23:30:00Z", "2026-03-03T01:00:00Z"]);
    let s = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
        v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    };
    assert_eq!(
        groups_of(&["--by", "day", "--timezone", "UTC"], &text),
        s(&[("2026-03-02", 10), ("2026-03-03", 10)])
    );
    // Tokyo is 9 hours ahead: both are on the 3rd there; New York 5 behind: the 2nd.
    assert_eq!(
        groups_of(&["--by", "day", "--timezone", "Asia/Tokyo"], &text),
        s(&[("2026-03-03", 20)])
    );
    assert_eq!(
        groups_of(&["--by", "day", "--timezone", "America/New_York"], &text),
        s(&[("2026-03-02", 20)])
    );
}

#[test]
fn blocks_are_five_hour_windows_from_the_first_activity() {
    // 10:15 opens a block at 10:00 (to 15:00); 12:00 is in it; 15:30 opens the next at
    // 15:00; 16:00 is in that one; 23:10 opens a third.
    let text = transcript_at(&[
        "2026-03-02T10:15:00Z",
        "2026-03-02T12:00:00Z",
        "2026-03-02T15:30:00Z",
        "2026-03-02T16:00:00Z",
        "2026-03-02T23:10:00Z",
    ]);
    let got = groups_of(&["--by", "block", "--timezone", "UTC"], &text);
    let want: Vec<(String, u64)> = [
        ("2026-03-02 10:00", 20),
        ("2026-03-02 15:00", 20),
        ("2026-03-02 23:00", 10),
    ]
    .iter()
    .map(|(k, n)| (k.to_string(), *n))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn since_and_until_keep_the_records_in_range() {
    let text = transcript_at(&[
        "2026-03-01T12:00:00Z",
        "2026-03-02T12:00:00Z",
        "2026-03-03T12:00:00Z",
    ]);
    let utc = ["--timezone", "UTC", "--by", "day"];
    let with = |extra: &[&str]| {
        let mut args = utc.to_vec();
        args.extend_from_slice(extra);
        groups_of(&args, &text)
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        with(&["--since", "2026-03-02"]),
        ["2026-03-02", "2026-03-03"]
    );
    // A date as --until means the whole day.
    assert_eq!(
        with(&["--until", "2026-03-02"]),
        ["2026-03-01", "2026-03-02"]
    );
    assert_eq!(
        with(&["--since", "2026-03-02T00:00:00Z", "--until", "20260302"]),
        ["2026-03-02"]
    );
    // On the corpus: before 2026 only the agentcmd transcripts (October 2025) count,
    // with one thread or two.
    let corpus = common::corpus_dir();
    let paths = [
        corpus.join("spotter"),
        corpus.join("agentcmd").join("claude-transcript"),
    ];
    for j in ["1", "2"] {
        let got = stats(&["--until", "2025-12-31", "-j", j], &paths);
        let all = stats(&[], &[corpus.join("agentcmd").join("claude-transcript")]);
        assert_eq!(got.tokens, all.tokens, "-j {j}");
    }
}

#[test]
fn old_transcripts_report_the_sum_of_their_messages_cost() {
    // old-1: msg_1 on two lines (costUSD 0.01 each: one message) and msg_2 (0.02): 0.03
    // reported. new-1 has no costUSD: estimated, claude-sonnet-4-20250514 (retired from
    // the newest LiteLLM, in the built-in table) at 3e-6 / 1.5e-5: 100 in, 10 out.
    let got = stats(&["--by", "session"], &[data("claude-log-costusd.jsonl")]);
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
    assert!(
        close(got.cost_usd_reported, 0.03),
        "{:?}",
        got.cost_usd_reported
    );
    let est = 100.0 * 3e-6 + 10.0 * 1.5e-5;
    assert!(
        close(got.cost_usd_estimated, est),
        "{:?}",
        got.cost_usd_estimated
    );
    assert!(close(got.cost_usd, 0.03 + est));
    let groups = got.groups.expect("groups");
    let old = groups.iter().find(|g| g.key == "old-1").expect("old-1");
    assert!(close(old.cost_usd, 0.03) && old.cost_usd_estimated.is_none());
    let new = groups.iter().find(|g| g.key == "new-1").expect("new-1");
    assert!(close(new.cost_usd, est) && close(new.cost_usd_estimated, est));
}
