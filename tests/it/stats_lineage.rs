//! Resumed and forked sessions counted once (docs/REFERENCE.md "Lineage"): on the real
//! CLIs' captures under `testdata/lineage/` (how each was made is in the README there),
//! `stats` on the session logs, on the runs' stdout and on both equals what the model
//! servers served (`served.json`), in tokens and in cost to the cent, in total and per
//! session; Codex trees equal ccusage 20.0.24's figures; `--merge` of parts that hold a
//! parent and its fork apart equals the whole.

use crate::common;

use common::{ndjq_sub, stats_json, testdata};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    testdata().join("lineage").join(name)
}

fn served(name: &str) -> Value {
    let path = case(name).join("served.json");
    serde_json::from_slice(&common::read_file(&path)).expect("served.json")
}

fn n(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// (input, cache_creation, cache_read, output) of a report's `tokens` or a group's.
fn tokens(v: &Value) -> [u64; 4] {
    let t = &v["tokens"];
    [
        n(t, "input"),
        n(t, "cache_creation"),
        n(t, "cache_read"),
        n(t, "output"),
    ]
}

/// The same four of a `served.json` entry.
fn served_tokens(v: &Value) -> [u64; 4] {
    [
        n(v, "input"),
        n(v, "cache_creation"),
        n(v, "cache_read"),
        n(v, "output"),
    ]
}

fn assert_cost_to_the_cent(ours: &Value, theirs: &Value, what: &str) {
    let (ours, theirs) = (
        ours.as_f64().unwrap_or_else(|| panic!("{what}: no cost")),
        theirs.as_f64().expect("served cost"),
    );
    assert!(
        (ours - theirs).abs() < 0.005,
        "{what}: cost {ours} vs {theirs} served"
    );
}

/// The report's totals and every session's row equal what was served.
fn assert_served(report: &Value, name: &str, what: &str) {
    let want = served(name);
    let total = &want["served_total"];
    assert_eq!(tokens(report), served_tokens(total), "{name} {what}");
    assert_cost_to_the_cent(&report["cost_usd"], &total["cost_usd"], what);
    let groups = report["groups"].as_array().expect("--by session");
    let sessions = want["served_per_session"].as_array().expect("per session");
    assert_eq!(groups.len(), sessions.len(), "{name} {what}: {groups:?}");
    for s in sessions {
        let id = s["thread"].as_str().expect("a session id");
        let g = groups
            .iter()
            .find(|g| g["key"] == id)
            .unwrap_or_else(|| panic!("{name} {what}: no row for {id}"));
        assert_eq!(tokens(g), served_tokens(s), "{name} {what}: {id}");
        assert_cost_to_the_cent(&g["cost_usd"], &s["cost_usd"], &format!("{what} {id}"));
    }
    assert!(
        report.get("continues_unseen_sessions").is_none(),
        "{name} {what}: nothing unseen"
    );
}

fn by_session(paths: &[PathBuf]) -> Value {
    stats_json(&["--by", "session"], paths)
}

/// The session logs of a case.
fn logs(name: &str) -> PathBuf {
    let dir = case(name);
    if dir.join("sessions").is_dir() {
        dir.join("sessions")
    } else {
        dir.join("projects")
    }
}

fn steps(name: &str) -> Vec<PathBuf> {
    ["step1.ndjson", "step2.ndjson"]
        .iter()
        .map(|s| case(name).join(s))
        .filter(|p| p.exists())
        .collect()
}

/// `ndjq stats --by session` of the concatenated stdout of the runs, on stdin.
fn stdin_by_session(paths: &[PathBuf]) -> Value {
    let mut bytes = Vec::new();
    for p in paths {
        bytes.extend(common::read_file(p));
    }
    let out = ndjq_sub("stats")
        .args(["-q", "-f", "json", "--by", "session"])
        .write_stdin(bytes)
        .output()
        .expect("run ndjq stats");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("a stats report")
}

const CASES: [&str; 5] = [
    "codex-resume",
    "codex-execfork",
    "codex-tuifork",
    "claude-resume-sonnet",
    "claude-fork-sonnet",
];

#[test]
fn session_logs_of_resumed_and_forked_sessions_equal_what_was_served() {
    for name in CASES {
        assert_served(&by_session(&[logs(name)]), name, "logs");
    }
}

#[test]
fn a_fork_copying_its_parents_messages_gives_each_session_its_own_in_either_order() {
    // The fork's file copies the parent's messages: whichever file is read last, the
    // copies stay the parent's.
    let dir = logs("claude-fork-sonnet").join("-home-dev-forks-claude-fork-sonnet-work");
    let parent = dir.join("eaea688f-b67d-4e21-ae79-83cae5241565.jsonl.zst");
    let fork = dir.join("d12adb64-fcc8-445d-93eb-e38a7b64916a.jsonl.zst");
    for order in [[&parent, &fork], [&fork, &parent]] {
        let paths: Vec<PathBuf> = order.iter().map(|p| p.to_path_buf()).collect();
        let report: Value = stats_json(&["--by", "session", "-j", "1"], &paths);
        assert_served(&report, "claude-fork-sonnet", "logs in either order");
    }
}

#[test]
fn the_runs_stdout_after_one_another_equals_what_was_served() {
    // A resumed run's cumulative figures (Codex exec usage, a Claude result's modelUsage
    // and cost) and a Claude fork's result, which repeats its parent's, count once: as
    // files and as one stream.
    for name in ["codex-resume", "claude-resume-sonnet", "claude-fork-sonnet"] {
        let steps = steps(name);
        let report = by_session(&steps);
        let stdin = stdin_by_session(&steps);
        if name.starts_with("codex") {
            // Codex exec names no model: tokens only, and the cost is not priced.
            let want = served(name);
            for (r, what) in [(&report, "files"), (&stdin, "stdin")] {
                assert_eq!(
                    tokens(r),
                    served_tokens(&want["served_total"]),
                    "{name} {what}"
                );
            }
        } else {
            assert_served(&report, name, "stdout files");
            assert_served(&stdin, name, "stdout on stdin");
        }
    }
}

#[test]
fn logs_and_stdout_together_equal_what_was_served() {
    for name in CASES {
        let mut paths = vec![logs(name)];
        paths.extend(steps(name));
        let report = by_session(&paths);
        if name == "codex-execfork" {
            // The fork's stdout names no parent, but its rollout does: the rollouts count.
            assert_eq!(
                tokens(&report),
                served_tokens(&served(name)["served_total"])
            );
            continue;
        }
        assert_served(&report, name, "logs and stdout");
    }
}

#[test]
fn a_stream_that_continues_a_session_it_has_not_seen_says_so() {
    // The fork's stdout alone: its result's figures include its parent's, which no input
    // holds. The figures are what the stream says, and the report names the session.
    let step2 = case("claude-fork-sonnet").join("step2.ndjson");
    let report: Value = stats_json(&[], &[&step2]);
    assert_eq!(
        report["continues_unseen_sessions"],
        serde_json::json!(["d12adb64-fcc8-445d-93eb-e38a7b64916a"])
    );
    assert_eq!(tokens(&report), [7236, 23752, 57834, 124]);
    let text = ndjq_sub("stats")
        .args(["-q", "-f", "text"])
        .arg(&step2)
        .output()
        .expect("run ndjq stats");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("continues d12adb64-fcc8-445d-93eb-e38a7b64916a  (each continues a session not read: its figures include that session's usage)"),
        "{text}"
    );
    // With its parent's stdout before it, nothing is unseen (asserted by assert_served
    // above); a resumed run's stdout alone is the same case.
    let step2 = case("claude-resume-sonnet").join("step2.ndjson");
    let report: Value = stats_json(&[], &[&step2]);
    assert_eq!(
        report["continues_unseen_sessions"],
        serde_json::json!(["e65e3c40-c2b3-4c07-adb0-a09d4737cf2d"])
    );
}

fn ccusage(name: &str) -> Value {
    let path = testdata()
        .join("lineage")
        .join("ccusage")
        .join(format!("{name}.json"));
    serde_json::from_slice(&common::read_file(&path)).expect("ccusage's JSON")
}

#[test]
fn codex_rollouts_of_forks_and_resumes_equal_ccusage() {
    for name in ["codex-resume", "codex-execfork", "codex-tuifork"] {
        let report = by_session(&[logs(name)]);
        let want = ccusage(name);
        let counts = |v: &Value, keys: [&str; 4]| keys.map(|k| n(v, k));
        let ours = |v: &Value| {
            counts(
                &v["tokens"],
                ["input", "cache_read", "output", "reasoning_output"],
            )
        };
        let theirs = |v: &Value| {
            counts(
                v,
                [
                    "inputTokens",
                    "cacheReadTokens",
                    "outputTokens",
                    "reasoningOutputTokens",
                ],
            )
        };
        assert_eq!(ours(&report), theirs(&want["totals"]), "{name}");
        assert_cost_to_the_cent(&report["cost_usd"], &want["totals"]["costUSD"], name);
        // ccusage names a session by its file, which ends with the session id.
        let groups = report["groups"].as_array().expect("--by session");
        let sessions = want["sessions"].as_array().expect("sessions");
        assert_eq!(groups.len(), sessions.len(), "{name}");
        for s in sessions {
            let file = s["sessionFile"].as_str().expect("sessionFile");
            let g = groups
                .iter()
                .find(|g| file.ends_with(g["key"].as_str().unwrap_or("?")))
                .unwrap_or_else(|| panic!("{name}: no row for {file}"));
            assert_eq!(ours(g), theirs(s), "{name} {file}");
        }
    }
}

/// `ndjq stats -f json --mergeable PATHS` into `dir/name`.
fn part(dir: &Path, name: &str, paths: &[PathBuf]) -> PathBuf {
    let out = ndjq_sub("stats")
        .args(["-q", "-f", "json", "--mergeable"])
        .args(paths)
        .output()
        .expect("run ndjq stats");
    assert!(out.status.success());
    common::write_file(dir, name, &out.stdout)
}

#[test]
fn merging_parts_that_hold_a_parent_and_its_fork_apart_equals_the_whole() {
    let dir = common::tempdir();
    let fork_logs = logs("claude-fork-sonnet").join("-home-dev-forks-claude-fork-sonnet-work");
    let split = |name: &str| -> Vec<Vec<PathBuf>> {
        match name {
            // The parent's file and the fork's file.
            "claude-fork-sonnet" => vec![
                vec![fork_logs.join("eaea688f-b67d-4e21-ae79-83cae5241565.jsonl.zst")],
                vec![fork_logs.join("d12adb64-fcc8-445d-93eb-e38a7b64916a.jsonl.zst")],
            ],
            _ => steps(name).into_iter().map(|p| vec![p]).collect(),
        }
    };
    for name in ["claude-fork-sonnet", "claude-resume-sonnet", "codex-resume"] {
        let parts = split(name);
        // Each part alone, merged in both orders, equals one run over the inputs in that
        // order (a resumed session's last result is the one read last).
        let mut files = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            files.push(part(dir.path(), &format!("{name}-{i}.json"), p));
        }
        let forward: Vec<PathBuf> = parts.iter().flatten().cloned().collect();
        let backward: Vec<PathBuf> = parts.iter().rev().flatten().cloned().collect();
        for (order, whole) in [
            (files.clone(), forward),
            (files.iter().rev().cloned().collect(), backward),
        ] {
            let want = by_session(&whole);
            let got: Value = {
                let out = ndjq_sub("stats")
                    .args(["-q", "-f", "json", "--by", "session", "--merge"])
                    .args(&order)
                    .output()
                    .expect("run ndjq stats --merge");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                serde_json::from_slice(&out.stdout).expect("a report")
            };
            assert_eq!(tokens(&got), tokens(&want), "{name}");
            assert_eq!(got["cost_usd"], want["cost_usd"], "{name}");
            assert_eq!(got["groups"], want["groups"], "{name}");
        }
    }
    // The Claude fork's stdout and its parent's as two parts.
    let steps = steps("claude-fork-sonnet");
    let a = part(dir.path(), "parent.json", &steps[..1]);
    let b = part(dir.path(), "fork.json", &steps[1..]);
    let merged: Value = stats_json(&["--by", "session", "--merge"], &[&a, &b]);
    assert_served(&merged, "claude-fork-sonnet", "merged stdout parts");
}

/// Lines of the real exec-fork rollouts, repeated as a resumed Codex repeats them.
#[test]
fn a_rollout_response_repeated_by_other_records_is_counted_once() {
    let dir = common::tempdir();
    let rollouts = logs("codex-execfork").join("2026").join("11").join("28");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&rollouts)
        .expect("the rollouts")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    // The fork (its file sorts second): its one response is in a `token_usage_record`
    // and a `token_count`. Repeat the count, and add a `compacted` record that carries
    // the same record as its latest.
    let fork = String::from_utf8(common::read_file(&entries[1])).expect("UTF-8");
    let lines: Vec<&str> = fork.lines().collect();
    let count = lines
        .iter()
        .find(|l| l.contains("\"token_count\""))
        .expect("a token_count");
    let record: Value = serde_json::from_str(
        lines
            .iter()
            .find(|l| l.contains("\"token_usage_record\""))
            .expect("a token_usage_record"),
    )
    .expect("JSON");
    let compacted = serde_json::json!({
        "timestamp": record["timestamp"],
        "type": "compacted",
        "payload": {"message": "", "latest_token_usage_record": record["payload"]},
    });
    let mut text = fork.clone();
    text.push_str(count);
    text.push('\n');
    text.push_str(&compacted.to_string());
    text.push('\n');
    let repeated = common::write_file(dir.path(), "fork.jsonl", text.as_bytes());
    let once: Value = stats_json(&[], &[&entries[1]]);
    let again: Value = stats_json(&[], &[&repeated]);
    assert_eq!(tokens(&again), tokens(&once));
    // The fork's own response, not its cumulative total (which starts from its parent's).
    let fork_served = &served("codex-execfork")["served_per_session"][1];
    assert_eq!(tokens(&once), served_tokens(fork_served));
}

#[test]
fn a_codex_exec_stream_read_twice_and_a_fork_stream_alone_count_as_they_say() {
    // The resumed run's stdout repeats the first run's usage: twice the same streams is
    // still what was served once.
    let mut twice = steps("codex-resume");
    twice.extend(steps("codex-resume"));
    let report = by_session(&twice);
    assert_eq!(
        tokens(&report),
        served_tokens(&served("codex-resume")["served_total"])
    );
    // `codex exec fork` prints a new thread id and the thread's cumulative usage, parent
    // included, and nothing that names the parent: read alone, the figures are the
    // stream's.
    let step2 = case("codex-execfork").join("step2.ndjson");
    let report: Value = stats_json(&[], &[&step2]);
    assert_eq!(tokens(&report), [28188 - 18816, 0, 18816, 69]);
}

#[test]
fn gemini_and_qwen_resumed_runs_count_once() {
    // Gemini CLI 0.61.0's resumed run reports its own run's usage (`result.stats`), Qwen
    // Code 0.24.4's its session's so far (`result.usage`, the first run included): both
    // runs' stdout give what was served once, as do Qwen's session log and Gemini's
    // (whose log leaves out the auxiliary calls to the small model that the results
    // count).
    for name in ["gemini-resume", "qwen-resume"] {
        let want = served(name);
        let total = served_tokens(&want["served_total"]);
        let steps = steps(name);
        assert_eq!(tokens(&by_session(&steps)), total, "{name} stdout files");
        assert_eq!(tokens(&stdin_by_session(&steps)), total, "{name} stdin");
        let log = by_session(&[case(name).join("chats")]);
        let expected = match want.get("auxiliary") {
            Some(aux) => {
                let aux = served_tokens(aux);
                std::array::from_fn(|i| total[i] - aux[i])
            }
            None => total,
        };
        assert_eq!(tokens(&log), expected, "{name} log");
    }
}

#[test]
fn a_result_whose_model_usage_its_messages_show_continues_nothing() {
    // A run whose sub-agent's messages (same model, same session) count in `modelUsage`
    // but not in `usage`: its result carries more than `usage`, but nothing its messages
    // do not show. Beside it, a session small enough to fit inside the difference: it is
    // not taken for a parent, and nothing is unseen.
    let dir = common::tempdir();
    let parent = case("claude-fork-sonnet").join("step1.ndjson");
    let text = String::from_utf8(common::read_file(&parent)).expect("UTF-8");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let id = "5ab0a9e1-0000-4000-8000-00000000a9e1";
    let sub = serde_json::json!({
        "input_tokens": 9000, "cache_creation_input_tokens": 42000,
        "cache_read_input_tokens": 40000, "output_tokens": 130
    });
    let mut subagent = lines
        .iter()
        .find(|l| l["type"] == "assistant")
        .expect("an assistant line")
        .clone();
    subagent["message"]["id"] = "msg_subagent".into();
    subagent["message"]["usage"] = sub.clone();
    subagent["parent_tool_use_id"] = "toolu_task".into();
    let at = lines.len() - 1;
    lines.insert(at, subagent);
    for l in lines.iter_mut() {
        if l.get("session_id").is_some() {
            l["session_id"] = id.into();
        }
        // Messages of their own, not the parent's.
        if let Some(m) = l["message"]["id"].as_str().map(|m| format!("{m}_own")) {
            l["message"]["id"] = m.into();
        }
    }
    let result = lines.last_mut().expect("the result");
    for (mu, u) in [
        ("inputTokens", "input_tokens"),
        ("outputTokens", "output_tokens"),
        ("cacheCreationInputTokens", "cache_creation_input_tokens"),
        ("cacheReadInputTokens", "cache_read_input_tokens"),
    ] {
        let m = &mut result["modelUsage"]["claude-sonnet-4-5-20250929"][mu];
        *m = (m.as_u64().expect("a count") + sub[u].as_u64().expect("a count")).into();
    }
    let mut out = String::new();
    for l in &lines {
        out.push_str(&l.to_string());
        out.push('\n');
    }
    let with_subagent = common::write_file(dir.path(), "subagent.ndjson", out.as_bytes());
    let report = by_session(&[parent.clone(), with_subagent]);
    assert!(
        report.get("continues_unseen_sessions").is_none(),
        "{report}"
    );
    let groups = report["groups"].as_array().expect("--by session");
    let row = groups
        .iter()
        .find(|g| g["key"] == id)
        .expect("the session's row");
    // Its own messages, the sub-agent's included: nothing taken off.
    let own = served_tokens(&served("claude-fork-sonnet")["served_per_session"][0]);
    assert_eq!(
        tokens(row),
        [own[0] + 9000, own[1] + 42000, own[2] + 40000, own[3] + 130]
    );
}

/// A real Codex rollout whose token count is written again, cut between the two: the part
/// after the cut names no session (it continues the first part's), and `--merge` must key
/// its response as the whole run does, so the repeated count is one response.
#[test]
fn a_token_count_repeated_across_a_merge_cut_counts_once() {
    let dir = common::tempdir();
    let rollout = testdata()
        .join("codex-log")
        .join("codex-tool.session-log.jsonl");
    let text = String::from_utf8(common::read_file(&rollout)).expect("UTF-8");
    let counts: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"token_count\""))
        .collect();
    assert!(counts.len() >= 2, "the rollout's token counts");
    // The whole run: the rollout, then its first and last counts written again.
    let again = format!("{}\n{}\n", counts[0], counts[counts.len() - 1]);
    let whole_text = format!("{text}{again}");
    let whole_path = common::write_file(dir.path(), "whole.jsonl", whole_text.as_bytes());
    let whole: Value = stats_json(&[], &[&whole_path]);
    let once: Value = stats_json(&[], &[&rollout]);
    assert_eq!(tokens(&whole), tokens(&once), "a repeated count in one run");
    // Cut before the repeats: in two parts, and in three (the middle one naming no
    // session either).
    let head = common::write_file(dir.path(), "head.jsonl", text.as_bytes());
    let first = common::write_file(
        dir.path(),
        "first.jsonl",
        format!("{}\n", counts[0]).as_bytes(),
    );
    let last = common::write_file(
        dir.path(),
        "last.jsonl",
        format!("{}\n", counts[counts.len() - 1]).as_bytes(),
    );
    let tail = common::write_file(dir.path(), "tail.jsonl", again.as_bytes());
    let h = part(dir.path(), "head.json", &[head]);
    let two = [h.clone(), part(dir.path(), "tail.json", &[tail])];
    let three = [
        h,
        part(dir.path(), "first.json", &[first]),
        part(dir.path(), "last.json", &[last]),
    ];
    for parts in [&two[..], &three[..]] {
        let merged: Value = stats_json(&["--merge"], parts);
        assert_eq!(tokens(&merged), tokens(&whole), "{} parts", parts.len());
        assert_eq!(
            merged["cost_usd"],
            whole["cost_usd"],
            "{} parts",
            parts.len()
        );
    }
}
