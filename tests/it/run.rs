//! `ndjq run -- CMD` and `-- CMD` on the reading commands, driven against fake agents
//! (tests/agents/agent.py, called as `claude` or `codex`) that replay real captures and
//! misbehave on request: one test per way a child can fail (docs/REFERENCE.md, "Wrapped command").
//!
//! Delays are short and every wait has a generous bound: no test depends on the machine's
//! speed, only on the order of events.

use crate::common;

use common::{ndjq, ndjq_bare_std, read_file, tempdir};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const CLAUDE_CAPTURE: &str = "testdata/claude/claude-tool.ndjson";
const CODEX_CAPTURE: &str = "testdata/codex/codex-tool.ndjson";
/// A bound no healthy run comes near; a hang fails the test instead of blocking CI.
const BOUND: Duration = Duration::from_secs(60);

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn agent(name: &str) -> String {
    repo(&format!("tests/agents/{name}")).display().to_string()
}

/// The capture's lines, which the fake agent replays.
fn capture_lines(path: &str) -> Vec<Vec<u8>> {
    read_file(&repo(path))
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn session_id_of(path: &str, key: &str) -> String {
    for line in capture_lines(path) {
        if let Ok(v) = serde_json::from_slice::<Value>(&line) {
            if let Some(id) = v[key].as_str() {
                return id.to_string();
            }
        }
    }
    panic!("no {key} in {path}");
}

/// `ndjq SUBCOMMAND --color never ARGS -- <fake claude> -p hi ...` with the plan in FAKE_AGENT.
fn wrapped(sub: &str, args: &[&str], plan: &str, resumed: &str, log: &Path) -> assert_cmd::Command {
    let mut cmd = ndjq();
    cmd.arg(sub)
        .args(["--color", "never"])
        .args(args)
        .arg("--")
        .arg(agent("claude"))
        .args([
            "-p",
            "fix it",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .env("FAKE_AGENT_CAPTURE", repo(CLAUDE_CAPTURE))
        .env("FAKE_AGENT", plan)
        .env("FAKE_AGENT_RESUMED", resumed)
        .env("FAKE_AGENT_LOG", log)
        .timeout(BOUND);
    cmd
}

/// The argument lists of every start of the fake agent, in order.
fn starts(log: &Path) -> Vec<Vec<String>> {
    String::from_utf8_lossy(&read_file(log))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON list per start"))
        .collect()
}

fn stats_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).expect("stats JSON")
}

fn diagnostics_in(report: &[u8]) -> Vec<Value> {
    report
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|v| v.get("code").is_some())
        .collect()
}

fn codes(report: &[u8]) -> Vec<String> {
    diagnostics_in(report)
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn garbage_restarts_the_agent_once_resuming_its_session_and_stats_count_it() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = wrapped(
        "stats",
        &["-f", "json", "--tee", "tee.ndjson"],
        "replay:2,garbage:6,hang",
        "replay",
        &log,
    )
    .current_dir(dir.path())
    .output()
    .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = session_id_of(CLAUDE_CAPTURE, "session_id");
    let starts = starts(&log);
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert!(!starts[0].contains(&"--resume".to_string()));
    let resume_at = starts[1]
        .iter()
        .position(|a| a == "--resume")
        .expect("--resume");
    assert_eq!(starts[1][resume_at + 1], id);
    // The original arguments come along.
    assert_eq!(&starts[1][..resume_at], &starts[0][..]);

    let stats = stats_of(&out.stdout);
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1, "{stats}");
    assert!(stats["diagnostics"].get("PROC_GAVE_UP").is_none());
    // The resumed run continues the same session to its result.
    assert_eq!(stats["sessions"], 1);
    assert_eq!(stats["types"]["result/success"], 1);
    assert!(stats["invalid"].as_u64().unwrap_or(0) >= 5, "{stats}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("info[PROC_RESTARTED]") && stderr.contains(&format!("--resume {id}")),
        "{stderr}"
    );
    // --tee holds the first run's bytes, garbage included, then the resumed run's.
    let tee = read_file(&dir.path().join("tee.ndjson"));
    let capture = capture_lines(CLAUDE_CAPTURE);
    assert!(tee.starts_with(&capture[..2].concat()));
    assert!(tee.ends_with(capture.last().expect("a line")));
    assert!(tee.windows(8).any(|w| w == b"garbage<"));
}

#[test]
fn the_resumed_output_continues_the_raw_stream() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = wrapped("run", &[], "replay:2,garbage:6,hang", "replay", &log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let capture = capture_lines(CLAUDE_CAPTURE);
    // The first run's two records, then the whole resumed run (same ids: the capture's).
    let mut expected = capture[..2].concat();
    expected.extend(capture.concat());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn a_second_failure_gives_up_with_a_non_zero_exit() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = wrapped(
        "stats",
        &["-f", "json"],
        "replay:2,garbage:6,hang",
        "replay:1,garbage:6,hang",
        &log,
    )
    .output()
    .expect("run");
    assert_eq!(starts(&log).len(), 2, "--max-restarts 1: one restart only");
    assert_eq!(out.status.code(), Some(1));
    let stats = stats_of(&out.stdout);
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1);
    assert_eq!(stats["diagnostics"]["PROC_GAVE_UP"], 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[PROC_GAVE_UP]"), "{stderr}");
}

#[test]
fn max_restarts_zero_gives_up_at_once() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = wrapped(
        "run",
        &["--max-restarts", "0"],
        "replay:2,garbage:6,hang",
        "replay",
        &log,
    )
    .output()
    .expect("run");
    assert_eq!(starts(&log).len(), 1);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn codex_is_resumed_with_exec_resume_and_its_thread_id() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = ndjq()
        .args(["events", "--color", "never", "-f", "json", "--"])
        .arg(agent("codex"))
        .args(["exec", "--json", "fix it"])
        .env("FAKE_AGENT_CAPTURE", repo(CODEX_CAPTURE))
        .env("FAKE_AGENT", "replay:2,garbage:5,hang")
        .env("FAKE_AGENT_LOG", &log)
        .timeout(BOUND)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let thread = session_id_of(CODEX_CAPTURE, "thread_id");
    let starts = starts(&log);
    assert_eq!(starts.len(), 2);
    assert_eq!(
        starts[1],
        ["exec", "--json", "resume", thread.as_str(), "fix it"]
    );
    // The resumed run's events made it out.
    let events = String::from_utf8_lossy(&out.stdout);
    assert!(
        events.contains("command_execution") || events.contains("tool"),
        "{events}"
    );
}

#[test]
fn a_restart_template_is_used_for_other_agents() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let template = format!(
        "{} --resume {{session_id}} --from-template",
        agent("claude")
    );
    let out = wrapped(
        "run",
        &["--restart-cmd", &template],
        "replay:2,garbage:6,hang",
        "replay:1",
        &log,
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let id = session_id_of(CLAUDE_CAPTURE, "session_id");
    assert_eq!(
        starts(&log)[1],
        ["--resume", id.as_str(), "--from-template"]
    );
}

#[test]
fn a_crash_with_code_3_exits_3_with_the_stderr_tail_in_the_report() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = wrapped(
        "validate",
        &["-f", "json", "--stderr", "agent.err"],
        "replay:2,say:fatal: the model API is down,exit:3",
        "replay",
        &log,
    )
    .current_dir(dir.path())
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let exit = diagnostics_in(&out.stdout)
        .into_iter()
        .find(|d| d["code"] == "PROC_EXIT_NONZERO")
        .expect("PROC_EXIT_NONZERO in the report");
    assert!(exit["message"].as_str().unwrap_or("").contains("status 3"));
    assert!(
        exit["excerpt"]
            .as_str()
            .unwrap_or("")
            .contains("fatal: the model API is down"),
        "{exit}"
    );
    // --stderr took the child's stderr away from ndjq's.
    assert!(
        String::from_utf8_lossy(&read_file(&dir.path().join("agent.err")))
            .contains("the model API is down")
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("the model API is down"));
}

#[test]
fn a_segfault_exits_139_and_is_named() {
    let dir = tempdir();
    let out = wrapped(
        "run",
        &[],
        "replay:2,signal:SEGV",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(139));
    assert!(String::from_utf8_lossy(&out.stderr).contains("killed by SIGSEGV"));
    // What came before the crash passed through.
    assert_eq!(out.stdout, capture_lines(CLAUDE_CAPTURE)[..2].concat());
}

#[test]
fn a_command_not_found_exits_127_and_one_not_executable_126() {
    let out = ndjq()
        .args(["run", "--", "ndjq-no-such-agent", "-p", "x"])
        .timeout(BOUND)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("PROC_SPAWN_FAILED") && stderr.contains("`ndjq-no-such-agent`: not found"),
        "{stderr}"
    );
    let out = ndjq()
        .args(["filter", "--", "./README.md"])
        .timeout(BOUND)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an executable file"));
}

#[test]
fn a_hang_is_a_stall_killed_after_the_idle_timeout_with_124() {
    let dir = tempdir();
    let out = wrapped(
        "run",
        &["--idle-timeout", "0.5", "--max-restarts", "0"],
        "replay:2,hang",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(124));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[PROC_STALLED]"), "{stderr}");
}

#[test]
fn a_stall_is_restarted_like_garbage() {
    let dir = tempdir();
    let log = dir.path().join("l");
    let out = wrapped(
        "stats",
        // Long enough for the restarted agent to start even on a loaded machine.
        &["-f", "json", "--idle-timeout", "3"],
        "replay:2,hang",
        "replay",
        &log,
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(starts(&log).len(), 2);
    let stats = stats_of(&out.stdout);
    assert_eq!(stats["diagnostics"]["PROC_STALLED"], 1);
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1);
}

#[test]
fn a_hang_after_the_result_is_a_success() {
    let dir = tempdir();
    let started = Instant::now();
    let out = wrapped(
        "run",
        &["--grace", "0.3"],
        "replay,hang",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, capture_lines(CLAUDE_CAPTURE).concat());
    assert!(started.elapsed() < BOUND);
}

#[test]
fn a_partial_last_line_is_truncated_and_kept_in_the_tee() {
    let dir = tempdir();
    let out = wrapped(
        "validate",
        &["-f", "json", "--tee", "tee.ndjson"],
        "replay:2,partial,exit:0",
        "replay",
        &dir.path().join("l"),
    )
    .current_dir(dir.path())
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(1), "PROTO_TRUNCATED is an error");
    let found = diagnostics_in(&out.stdout);
    let truncated = found
        .iter()
        .find(|d| d["code"] == "PROTO_TRUNCATED")
        .expect("PROTO_TRUNCATED");
    assert_eq!(truncated["line"], 3);
    // No terminal result: the clean exit is a success, with a warning.
    assert!(codes(&out.stdout).contains(&"SESS_NO_RESULT".to_string()));
    let tee = read_file(&dir.path().join("tee.ndjson"));
    let mut expected = capture_lines(CLAUDE_CAPTURE)[..2].concat();
    expected.extend_from_slice(
        br#"{"type":"assistant","message":{"id":"msg_cut","content":[{"type":"te"#,
    );
    assert_eq!(
        tee, expected,
        "--tee holds every byte, the partial line too"
    );
}

#[test]
fn a_megabyte_of_stderr_does_not_deadlock() {
    let dir = tempdir();
    let out = wrapped(
        "run",
        &["--stderr", "agent.err"],
        "stderr:1048576,replay",
        "replay",
        &dir.path().join("l"),
    )
    .current_dir(dir.path())
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, capture_lines(CLAUDE_CAPTURE).concat());
    assert_eq!(read_file(&dir.path().join("agent.err")).len(), 1 << 20);
}

#[test]
fn a_grandchild_holding_stdout_does_not_hang_ndjq() {
    let dir = tempdir();
    let started = Instant::now();
    let out = wrapped(
        "run",
        &["--grace", "0.5"],
        "grandchild,replay,exit:0",
        "replay",
        &dir.path().join("l"),
    )
    .timeout(Duration::from_secs(40))
    .output()
    .expect("run");
    // The grandchild sleeps 60 s holding stdout: ndjq ended it long before.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(40));
    assert_eq!(out.stdout, capture_lines(CLAUDE_CAPTURE).concat());
}

#[test]
fn every_byte_written_before_the_exit_comes_through_even_with_no_grace() {
    let dir = tempdir();
    // No result line: only the exit ends the run, and nothing waits after it.
    let lines = capture_lines(CLAUDE_CAPTURE);
    let no_result = lines[..lines.len() - 1].concat();
    let capture = common::write_file(dir.path(), "no-result.ndjson", &no_result);
    let out = wrapped(
        "run",
        &["--grace", "0"],
        "burst:2000,exit:0",
        "replay",
        &dir.path().join("l"),
    )
    .env("FAKE_AGENT_CAPTURE", &capture)
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout == no_result.repeat(2000), "bytes were lost");
}

#[test]
fn a_child_closing_stdout_early_is_waited_for() {
    let dir = tempdir();
    let out = wrapped(
        "run",
        &[],
        "replay:2,close-stdout,sleep:0.5,exit:4",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    // EOF came first; the exit status is still the child's.
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn a_child_ignoring_sigterm_is_killed_after_the_grace_period() {
    let dir = tempdir();
    let out = wrapped(
        "run",
        &["--grace", "0.5", "--max-restarts", "0"],
        "ignore-term,replay:2,garbage:6,hang",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PROC_GAVE_UP"));
}

/// Starts `ndjq run -f text` on a fake agent that writes its pid, then hangs; returns ndjq,
/// the agent's pid and the transcript's lines as they come, once the first one came
/// (before the agent has finished: the transcript is live).
fn start_hanging(
    plan: &str,
    dir: &Path,
) -> (std::process::Child, u32, std::sync::mpsc::Receiver<String>) {
    let pidfile = dir.join("pid");
    let mut child = ndjq_bare_std()
        .args(["run", "--color", "never", "-f", "text", "--"])
        .arg(agent("claude"))
        .args(["-p", "hi"])
        .env("FAKE_AGENT_CAPTURE", repo(CLAUDE_CAPTURE))
        .env("FAKE_AGENT", plan)
        .env("FAKE_AGENT_PIDFILE", &pidfile)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ndjq");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = lines
        .recv_timeout(BOUND)
        .expect("a transcript line while the agent runs");
    assert!(!first.is_empty());
    let pid = std::fs::read_to_string(&pidfile)
        .expect("the agent wrote its pid")
        .trim()
        .parse()
        .expect("a pid");
    (child, pid, lines)
}

/// Whether a process is gone: no such pid, or a zombie no one is left to reap (it is
/// reparented when its parent dies; some containers' init reaps late).
fn gone(pid: u32) -> bool {
    let deadline = Instant::now() + BOUND;
    while Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                let state = stat
                    .rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().next());
                if state == Some("Z") {
                    return true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn signal(pid: u32, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

#[test]
fn the_live_transcript_comes_record_by_record_and_ctrl_c_leaves_nothing_behind() {
    let dir = tempdir();
    let (mut ndjq, agent_pid, lines) = start_hanging("pid,replay:3,hang", dir.path());
    // More of the transcript while the agent still runs: the assistant's words.
    let mut seen = String::new();
    while !seen.contains("Bash") {
        let line = lines
            .recv_timeout(BOUND)
            .expect("more transcript while the agent runs");
        seen.push_str(&line);
        seen.push('\n');
    }
    assert!(ndjq.try_wait().expect("try_wait").is_none());
    signal(ndjq.id(), "INT");
    let status = ndjq.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    assert!(gone(agent_pid), "the agent outlived ndjq's Ctrl-C");
}

#[test]
fn sigterm_to_ndjq_exits_143_and_a_second_ctrl_c_kills_a_stubborn_agent() {
    let dir = tempdir();
    let (mut ndjq, agent_pid, _stdout) =
        start_hanging("pid,ignore-term,ignore-int,replay:3,hang", dir.path());
    signal(ndjq.id(), "TERM");
    std::thread::sleep(Duration::from_millis(200));
    // The agent ignored the TERM passed on; ndjq waits (grace 5 s) unless told again.
    assert!(ndjq.try_wait().expect("try_wait").is_none());
    signal(ndjq.id(), "INT");
    std::thread::sleep(Duration::from_millis(100));
    signal(ndjq.id(), "INT");
    let status = ndjq.wait().expect("wait");
    assert_eq!(
        status.code(),
        Some(143),
        "the first signal decides the status"
    );
    assert!(gone(agent_pid));
}

#[test]
fn ctrl_c_reaches_the_whole_tree_the_agent_started() {
    let dir = tempdir();
    let (mut ndjq, agent_pid, _lines) = start_hanging("pid,grandchild,replay:3,hang", dir.path());
    let grandchild: u32 = std::fs::read_to_string(dir.path().join("pid.grandchild"))
        .expect("the agent wrote its child's pid")
        .trim()
        .parse()
        .expect("a pid");
    signal(ndjq.id(), "INT");
    assert_eq!(ndjq.wait().expect("wait").code(), Some(130));
    assert!(gone(agent_pid));
    assert!(gone(grandchild), "the agent's own child outlived ndjq");
}

#[test]
fn a_reader_going_away_ends_ndjq_quietly_and_the_agent_with_it() {
    let dir = tempdir();
    let pidfile = dir.path().join("pid");
    let mut child = ndjq_bare_std()
        .args(["run", "--"])
        .arg(agent("claude"))
        .env("FAKE_AGENT_CAPTURE", repo(CLAUDE_CAPTURE))
        .env("FAKE_AGENT", "pid,replay,replay,replay,hang")
        .env("FAKE_AGENT_DELAY", "0.05")
        .env("FAKE_AGENT_PIDFILE", &pidfile)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ndjq");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("read a line");
    drop(stdout);
    let status = child.wait().expect("wait");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("read stderr");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    assert!(gone(pid));
}

#[test]
fn an_agent_ended_for_a_restart_is_reaped_before_the_next_starts() {
    let dir = tempdir();
    let pidfile = dir.path().join("pid");
    let read_pid =
        || -> Option<u32> { std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok() };
    let mut ndjq = ndjq_bare_std()
        .args(["run", "--"])
        .arg(agent("claude"))
        .env("FAKE_AGENT_CAPTURE", repo(CLAUDE_CAPTURE))
        .env("FAKE_AGENT", "pid,sleep:0.3,replay:2,garbage:5,hang")
        .env("FAKE_AGENT_RESUMED", "pid,replay:3,hang")
        .env("FAKE_AGENT_PIDFILE", &pidfile)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ndjq");
    let deadline = Instant::now() + BOUND;
    let mut first = None;
    let mut second = None;
    while Instant::now() < deadline && second.is_none() {
        match (first, read_pid()) {
            (None, Some(p)) => first = Some(p),
            (Some(f), Some(p)) if p != f => second = Some(p),
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (Some(first), Some(_)) = (first, second) else {
        panic!("the agent was not restarted");
    };
    // No zombie left of the first agent: ndjq waited for it.
    assert!(
        !Path::new(&format!("/proc/{first}")).exists(),
        "the ended agent was not reaped"
    );
    signal(ndjq.id(), "INT");
    assert_eq!(ndjq.wait().expect("wait").code(), Some(130));
}

#[test]
fn kill_9_to_ndjq_takes_the_agent_with_it() {
    let dir = tempdir();
    let (mut ndjq, agent_pid, _stdout) = start_hanging("pid,replay:3,hang", dir.path());
    signal(ndjq.id(), "KILL");
    let _ = ndjq.wait();
    assert!(gone(agent_pid), "the agent was orphaned");
}

#[test]
fn filter_max_count_ends_the_agent_as_a_success() {
    let dir = tempdir();
    let started = Instant::now();
    let out = wrapped(
        "filter",
        &["-m", "1", "--type", "assistant"],
        "replay,hang",
        "replay",
        &dir.path().join("l"),
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, capture_lines(CLAUDE_CAPTURE)[1]);
    // Not the agent's hour of hanging: it was ended when no more records were needed.
    assert!(started.elapsed() < BOUND);
}

#[test]
fn every_reading_command_takes_a_wrapped_command() {
    let dir = tempdir();
    let log = dir.path().join("l");
    let capture = capture_lines(CLAUDE_CAPTURE);
    // filter: like grep over the child's output.
    let out = wrapped("filter", &["--type", "result"], "replay", "replay", &log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(&out.stdout, capture.last().expect("a line"));
    // gaps: a run cut short misses its result.
    let out = wrapped("gaps", &["-f", "json"], "replay:2,exit:0", "replay", &log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let found = codes(&out.stdout);
    assert_eq!(
        found.iter().filter(|c| *c == "SESS_NO_RESULT").count(),
        1,
        "reported once, by the tracker: {found:?}"
    );
    // validate: a clean run is clean.
    let out = wrapped("validate", &["-f", "json"], "replay", "replay", &log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(codes(&out.stdout).is_empty());
    // events and stats were exercised above; PATHs and a command are one too many.
    let out = ndjq()
        .args(["stats", "x.ndjson", "--", "true"])
        .timeout(BOUND)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not both"));
    // Watching options need a command.
    let out = ndjq()
        .args(["filter", "--idle-timeout", "5", "x.ndjson"])
        .timeout(BOUND)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// `ndjq SUB ARGS -- <fake NAME> AGENT_ARGS`: the first run replays the real first run of
/// `testdata/lineage/CASE` then garbage, so it is restarted with resume; the resumed run
/// replays the real resumed run, whose usage repeats the first run's.
fn restarted_with_resume(
    sub: &str,
    args: &[&str],
    name: &str,
    agent_args: &[&str],
    case: &str,
) -> std::process::Output {
    let dir = format!("testdata/lineage/{case}");
    ndjq()
        .arg(sub)
        .args(["--color", "never"])
        .args(args)
        .arg("--")
        .arg(agent(name))
        .args(agent_args)
        .env("FAKE_AGENT_CAPTURE", repo(&format!("{dir}/step1.ndjson")))
        .env("FAKE_AGENT", "replay,garbage:6,hang")
        .env("FAKE_AGENT_RESUMED", "replay")
        .env(
            "FAKE_AGENT_RESUMED_CAPTURE",
            repo(&format!("{dir}/step2.ndjson")),
        )
        .timeout(BOUND)
        .output()
        .expect("run")
}

#[test]
fn an_agent_restarted_with_resume_is_billed_once_in_stats_and_the_run_summary() {
    // Codex's resumed run prints its thread's cumulative usage, Claude's resumed result
    // its session's cumulative modelUsage and cost: what was served once is counted once.
    let claude = [
        "-p",
        "fix it",
        "--output-format",
        "stream-json",
        "--verbose",
    ];
    let cases: [(&str, &str, &[&str], &str); 2] = [
        (
            "codex",
            "codex-resume",
            &["exec", "--json", "fix it"],
            "tokens 9,390 in, 69 out, 18,816 cache read, 0 cache write",
        ),
        (
            "claude",
            "claude-resume-sonnet",
            &claude,
            "tokens 7,239 in, 124 out, 57,837 cache read, 23,754 cache write · cost $0.1300",
        ),
    ];
    for (name, case, agent_args, summary) in cases {
        let out = restarted_with_resume("stats", &["-f", "json"], name, agent_args, case);
        assert_eq!(out.status.code(), Some(0), "{name}");
        let stats = stats_of(&out.stdout);
        assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1, "{name}: {stats}");
        let served: Value = serde_json::from_slice(&read_file(&repo(&format!(
            "testdata/lineage/{case}/served.json"
        ))))
        .expect("served.json");
        for k in ["input", "cache_creation", "cache_read", "output"] {
            assert_eq!(
                stats["tokens"][k], served["served_total"][k],
                "{name} {k}: {stats}"
            );
        }
        let out = restarted_with_resume("run", &["-f", "text"], name, agent_args, case);
        assert_eq!(out.status.code(), Some(0), "{name}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(summary), "{name}: {text}");
    }
}
