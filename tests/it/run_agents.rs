//! `ndjq run -- CMD` (and `-- CMD` on `stats`) over the other agents: a fake Gemini CLI,
//! Qwen Code and OpenCode (tests/agents/agent.py under their names) replays a real capture
//! of the CLI (testdata/other-agents/real-client), stalls, and is restarted with the
//! CLI's own resume: Gemini `--resume <session>`, Qwen `--resume <id>`, OpenCode
//! `run --session <id>`. Also `ndjq gaps` on those captures cut short (a stalled stream):
//! an unfinished session, beside the failed and the clean ones.
//!
//! Delays are short and every wait has a generous bound: no test depends on the machine's
//! speed, only on the order of events.

use crate::common;

use common::{ndjq, read_file, tempdir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const DIR: &str = "testdata/other-agents/real-client";
/// A bound no healthy run comes near; a hang fails the test instead of blocking CI.
const BOUND: Duration = Duration::from_secs(60);

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn agent(name: &str) -> String {
    repo(&format!("tests/agents/{name}")).display().to_string()
}

/// The argument lists of every start of the fake agent, in order.
fn starts(log: &Path) -> Vec<Vec<String>> {
    String::from_utf8_lossy(&read_file(log))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON list per start"))
        .collect()
}

/// The session id the capture names first under `key`.
fn session_of(capture: &str, key: &str) -> String {
    let bytes = read_file(&repo(&format!("{DIR}/{capture}")));
    for line in bytes.split(|&b| b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<Value>(line) {
            if let Some(id) = v[key].as_str() {
                return id.to_string();
            }
        }
    }
    panic!("no {key} in {capture}")
}

/// `ndjq stats -f json --idle-timeout 3 -- <fake NAME> ARGS` replaying `capture`: the
/// first run stalls after `lines` lines, the resumed one replays the whole capture.
fn stalled_then_resumed(
    name: &str,
    args: &[&str],
    capture: &str,
    lines: usize,
) -> (Value, Vec<Vec<String>>) {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = ndjq()
        .args(["stats", "-f", "json", "--color", "never"])
        // Long enough for the restarted agent to start even on a loaded machine.
        .args(["--idle-timeout", "3"])
        .arg("--")
        .arg(agent(name))
        .args(args)
        .env("FAKE_AGENT_CAPTURE", repo(&format!("{DIR}/{capture}")))
        .env("FAKE_AGENT", format!("replay:{lines},hang"))
        .env("FAKE_AGENT_RESUMED", "replay")
        .env("FAKE_AGENT_LOG", &log)
        .timeout(BOUND)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).expect("stats json");
    (stats, starts(&log))
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_stalled_gemini_stream_is_resumed_with_its_session() {
    let capture = "gemini-tool.ndjson";
    let id = session_of(capture, "session_id");
    let args = ["-p", "run echo", "--output-format", "stream-json", "--yolo"];
    let (stats, starts) = stalled_then_resumed("gemini", &args, capture, 4);
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0], owned(&args));
    let mut resumed = owned(&args);
    resumed.extend(["--resume".to_string(), id.clone()]);
    assert_eq!(starts[1], resumed);
    assert_eq!(stats["diagnostics"]["PROC_STALLED"], 1);
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1);
    assert_eq!(stats["dialects"]["gemini"], 4 + 11);
    assert_eq!(stats["sessions"], 1);
}

#[test]
fn a_stalled_qwen_stream_is_resumed_and_its_continue_dropped() {
    let capture = "qwen-tool.ndjson";
    let id = session_of(capture, "session_id");
    let args = [
        "-p",
        "run echo",
        "--continue",
        "--output-format",
        "stream-json",
    ];
    let (stats, starts) = stalled_then_resumed("qwen", &args, capture, 3);
    assert_eq!(starts.len(), 2);
    assert_eq!(
        starts[1],
        owned(&[
            "-p",
            "run echo",
            "--output-format",
            "stream-json",
            "--resume",
            &id
        ])
    );
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1);
    assert_eq!(stats["dialects"]["qwen"], 3 + 7);
}

#[test]
fn a_stalled_opencode_run_is_resumed_with_session() {
    let capture = "opencode-tool.ndjson";
    let id = session_of(capture, "sessionID");
    let args = ["run", "--format", "json", "run echo"];
    let (stats, starts) = stalled_then_resumed("opencode", &args, capture, 3);
    assert_eq!(starts.len(), 2);
    assert_eq!(
        starts[1],
        owned(&["run", "--session", &id, "--format", "json", "run echo"])
    );
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1);
    assert_eq!(stats["dialects"]["opencode"], 3 + 7);
}

#[test]
fn a_gemini_run_ends_well_when_it_hangs_after_its_result() {
    let dir = tempdir();
    let capture = repo(&format!("{DIR}/gemini-text.ndjson"));
    let out = ndjq()
        .args(["run", "--grace", "0.3", "--"])
        .arg(agent("gemini"))
        .args(["-p", "hi", "--output-format", "stream-json"])
        .env("FAKE_AGENT_CAPTURE", &capture)
        .env("FAKE_AGENT", "replay,hang")
        .env("FAKE_AGENT_LOG", dir.path().join("l"))
        .timeout(BOUND)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, read_file(&capture));
}

/// The codes of `ndjq gaps -f json` on some bytes.
fn gap_codes(bytes: &[u8]) -> (Vec<String>, i32) {
    let out = ndjq()
        .args(["gaps", "-f", "json"])
        .write_stdin(bytes.to_vec())
        .output()
        .expect("runs");
    let codes = out
        .stdout
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| v["code"].as_str().map(str::to_string))
        .collect();
    (codes, out.status.code().unwrap_or(-1))
}

/// The first `n` lines of a capture: what a stalled CLI had written when it stopped.
fn cut(capture: &str, n: usize) -> Vec<u8> {
    read_file(&repo(&format!("{DIR}/{capture}")))
        .split_inclusive(|&b| b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect()
}

#[test]
fn gaps_tells_clean_failed_and_unfinished_sessions_apart() {
    let whole = |c: &str| read_file(&repo(&format!("{DIR}/{c}")));
    for clean in [
        "gemini-text.ndjson",
        "gemini-tool.ndjson",
        "gemini-text-json.ndjson",
        "qwen-text.ndjson",
        "qwen-tool.ndjson",
        "qwen-tool-partial.ndjson",
        "opencode-text.ndjson",
        "opencode-tool.ndjson",
    ] {
        assert_eq!(gap_codes(&whole(clean)), (vec![], 0), "{clean}");
    }
    for failed in [
        "gemini-error500-long.ndjson",
        "qwen-error500.ndjson",
        "opencode-error500.ndjson",
    ] {
        assert_eq!(
            gap_codes(&whole(failed)),
            (vec!["SESS_ERROR_RESULT".to_string()], 1),
            "{failed}"
        );
    }
    // Stalled after the tool call: the call has no result and the session no end.
    let stalled: [(&str, usize); 2] = [("gemini-tool.ndjson", 6), ("qwen-tool.ndjson", 4)];
    for (capture, lines) in stalled {
        let (mut codes, status) = gap_codes(&cut(capture, lines));
        codes.sort();
        assert_eq!(
            (codes, status),
            (
                vec!["SESS_NO_RESULT".to_string(), "TOOL_ORPHAN_USE".to_string()],
                1
            ),
            "{capture} cut at {lines}"
        );
    }
    // OpenCode prints a tool call once, completed, so a stall leaves no call open; it
    // leaves the run without its final step, within a step or between two.
    for lines in [3, 4] {
        let (codes, status) = gap_codes(&cut("opencode-tool.ndjson", lines));
        assert_eq!((codes, status), (vec!["SESS_NO_RESULT".to_string()], 1));
    }
}

#[test]
fn a_failing_command_in_a_gemini_stream_is_a_tool_error_in_gaps() {
    let stream = concat!(
        r#"{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"s","model":"auto"}"#,
        "\n",
        r#"{"type":"tool_use","timestamp":"2026-01-01T00:00:01Z","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"false"}}"#,
        "\n",
        r#"{"type":"tool_result","timestamp":"2026-01-01T00:00:02Z","tool_id":"t1","status":"success","output":"Command exited with code: 1"}"#,
        "\n",
        r#"{"type":"result","timestamp":"2026-01-01T00:00:03Z","status":"success","stats":{}}"#,
        "\n",
    );
    let (codes, _) = gap_codes(stream.as_bytes());
    assert_eq!(codes, ["TOOL_ERROR"]);
}
