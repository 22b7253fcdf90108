//! One meaning for every command (docs/REFERENCE.md, "One meaning everywhere"): over every
//! agent capture under testdata/, `stats`, `events` and `gaps` read the same tool calls,
//! tool errors and sessions.
//!
//! - `stats` tool calls = distinct `tool_use` events (by session and id; one without an
//!   id is a call of its own);
//! - `stats` tool errors = distinct `tool_result` events with `is_error` (by session and
//!   `tool_use_id`) = `gaps` TOOL_ERROR findings;
//! - `stats` sessions = the distinct sessions the events name.

use crate::common;

use common::{ndjq_sub, testdata};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every capture: the agent logs and streams under testdata/, not the expected outputs,
/// the JSON test suite, price tables or ccusage's reports.
fn captures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("read testdata")
            .map(|e| e.expect("a folder entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() && name == "storage" && path.join("message").is_dir() {
                // OpenCode's JSON storage of before 1.2: one input, as ndjq reads it.
                out.push(path);
            } else if path.is_dir() {
                if !matches!(name, "expected" | "conformance" | "ccusage") {
                    walk(&path, out);
                }
            } else if [".jsonl", ".ndjson", ".json", ".jsonl.zst", ".ndjson.zst"]
                .iter()
                .any(|ext| name.ends_with(ext))
                && name != "prices.json"
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&testdata(), &mut out);
    out
}

fn json_lines(subcommand: &str, path: &Path) -> Vec<Value> {
    let out = ndjq_sub(subcommand)
        .args(["-q", "-f", "json"])
        .arg(path)
        .output()
        .expect("run ndjq");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// What one command says of an input: tool calls, tool errors, TOOL_ERROR findings,
/// sessions.
#[derive(Debug, PartialEq)]
struct Reading {
    calls: u64,
    errors: u64,
    sessions: u64,
}

fn stats_reading(path: &Path) -> Reading {
    let report = json_lines("stats", path).pop().expect("a stats report");
    let sum = |field: &str| {
        report["tools"].as_object().map_or(0, |t| {
            t.values().map(|v| v[field].as_u64().unwrap_or(0)).sum()
        })
    };
    Reading {
        calls: sum("calls"),
        errors: sum("errors"),
        sessions: report["sessions"].as_u64().unwrap_or(0),
    }
}

/// A call's key in `events`: its session and its id (`id` of a tool_use, `tool_use_id` of
/// a result); a call the record names no id for (a Codex rollout's web search) is a call
/// of its own, keyed by its line.
fn call_key(e: &Value, id: &str) -> (String, String) {
    let id = match &e[id] {
        Value::Null => format!("line {}", e["line"]),
        v => v.to_string(),
    };
    (e["session"].to_string(), id)
}

fn events_reading(path: &Path) -> Reading {
    let events = json_lines("events", path);
    let key = |e: &Value, id: &str| call_key(e, id);
    let calls: BTreeSet<_> = events
        .iter()
        .filter(|e| e["kind"] == "tool_use")
        .map(|e| key(e, "id"))
        .collect();
    let errors: BTreeSet<_> = events
        .iter()
        .filter(|e| e["kind"] == "tool_result" && e["is_error"] == true)
        .map(|e| key(e, "tool_use_id"))
        .collect();
    let sessions: BTreeSet<_> = events
        .iter()
        .filter_map(|e| e["session"].as_str())
        .collect();
    Reading {
        calls: calls.len() as u64,
        errors: errors.len() as u64,
        sessions: sessions.len() as u64,
    }
}

fn gaps_tool_errors(path: &Path) -> u64 {
    json_lines("gaps", path)
        .iter()
        .filter(|d| d["code"] == "TOOL_ERROR")
        .count() as u64
}

#[test]
fn stats_events_and_gaps_read_every_capture_alike() {
    let captures = captures();
    assert!(
        captures.len() > 80,
        "only {} captures found",
        captures.len()
    );
    let mut disagreements = Vec::new();
    for path in &captures {
        let stats = stats_reading(path);
        let events = events_reading(path);
        let gaps = gaps_tool_errors(path);
        if stats != events || stats.errors != gaps {
            disagreements.push(format!(
                "{}: stats {stats:?}, events {events:?}, gaps TOOL_ERROR {gaps}",
                path.display()
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} captures read differently:\n{}",
        disagreements.len(),
        captures.len(),
        disagreements.join("\n")
    );
}

/// The calls of each tool `stats` counts (`--by tool`'s rows, the report's `tools`); a
/// row without calls (the errors of calls not in the input, `(unknown)`) names no call.
fn stats_tool_names(path: &Path) -> BTreeMap<String, u64> {
    let report = json_lines("stats", path).pop().expect("a stats report");
    report["tools"].as_object().map_or_else(BTreeMap::new, |t| {
        t.iter()
            .map(|(name, v)| (name.clone(), v["calls"].as_u64().unwrap_or(0)))
            .filter(|(_, calls)| *calls > 0)
            .collect()
    })
}

/// The calls of each tool `events` names: distinct `tool_use` events (by session and id),
/// counted under their `name` (the first one an id is given).
fn events_tool_names(path: &Path) -> BTreeMap<String, u64> {
    let mut seen = BTreeSet::new();
    let mut names = BTreeMap::new();
    for e in json_lines("events", path) {
        if e["kind"] == "tool_use" && seen.insert(call_key(&e, "id")) {
            let name = e["name"].as_str().unwrap_or("(unknown)").to_string();
            *names.entry(name).or_insert(0) += 1;
        }
    }
    names
}

/// A tool has one name in every command: the one its record gives (a Codex rollout's
/// `exec_command` stays `exec_command`; the Codex exec stream names no function, its item
/// type is the name), so `stats --by tool` counts under the name `events` shows and a user
/// finds in the file (docs/REFERENCE.md, "One meaning everywhere").
#[test]
fn stats_and_events_name_every_tool_alike() {
    let captures = captures();
    let mut disagreements = Vec::new();
    let mut named = 0;
    for path in &captures {
        let stats = stats_tool_names(path);
        let events = events_tool_names(path);
        named += usize::from(!stats.is_empty());
        if stats != events {
            disagreements.push(format!(
                "{}: stats {stats:?}, events {events:?}",
                path.display()
            ));
        }
    }
    assert!(named > 40, "only {named} captures name a tool");
    assert!(
        disagreements.is_empty(),
        "{} of {} captures name their tools differently:\n{}",
        disagreements.len(),
        captures.len(),
        disagreements.join("\n")
    );
    // The rollouts are among them, under their own function names.
    let rollout = testdata().join("corpus/real-client/codex-tool.session-log.jsonl");
    assert_eq!(
        stats_tool_names(&rollout),
        BTreeMap::from([("exec_command".to_string(), 1)])
    );
}

/// `filter --tool NAME` takes the names `events` shows: every tool a capture's events name
/// selects records (its call, its result).
#[test]
fn filter_tool_takes_the_names_events_show() {
    let mut missed = Vec::new();
    let mut checked = 0;
    for path in captures() {
        for name in events_tool_names(&path).keys() {
            let out = ndjq_sub("filter")
                .args(["-q", "-c", "--tool", name])
                .arg(&path)
                .output()
                .expect("run ndjq");
            let count = String::from_utf8_lossy(&out.stdout).trim().to_string();
            checked += 1;
            if count.parse::<u64>().unwrap_or(0) == 0 {
                missed.push(format!(
                    "{}: --tool {name} selects {count:?}",
                    path.display()
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} tool names checked");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// The test is not vacuous: the captures hold tool calls, failed ones and sessions of
/// several agents.
#[test]
fn the_captures_hold_tool_errors_of_several_agents() {
    let mut dialects_with_errors = BTreeSet::new();
    for path in captures() {
        let report = json_lines("stats", &path).pop().expect("a stats report");
        let errors: u64 = report["tools"].as_object().map_or(0, |t| {
            t.values().map(|v| v["errors"].as_u64().unwrap_or(0)).sum()
        });
        if errors > 0 {
            if let Some(d) = report["dialects"].as_object() {
                dialects_with_errors.extend(d.keys().cloned());
            }
        }
    }
    for dialect in ["claude", "codex", "codex-log"] {
        assert!(
            dialects_with_errors.contains(dialect),
            "no capture of {dialect} with a tool error: {dialects_with_errors:?}"
        );
    }
}

/// A Qwen Code (or Cursor) tool result whose text says the command failed is an error in
/// every command, though `is_error` is false; the same block in a Claude stream is not
/// (Claude sets `is_error` itself). One rule: `dialect::claude::tool_result_failed`.
#[test]
fn a_failure_told_by_the_result_text_is_read_alike_and_only_where_the_agent_means_it() {
    let dir = common::tempdir();
    let stream = |init_extra: &str| {
        [
            format!(
                r#"{{"type":"system","subtype":"init","session_id":"q1","model":"qwen3-coder","tools":[]{init_extra}}}"#
            ),
            r#"{"type":"assistant","session_id":"q1","message":{"id":"m1","role":"assistant","model":"qwen3-coder","content":[{"type":"tool_use","id":"t1","name":"run_shell_command","input":{"command":"false"}}],"usage":{"input_tokens":10,"output_tokens":2}}}"#.to_string(),
            r#"{"type":"user","session_id":"q1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":"Command: false\nExit Code: 1"}]}}"#.to_string(),
            r#"{"type":"result","subtype":"success","session_id":"q1","is_error":false,"usage":{"input_tokens":10,"output_tokens":2}}"#.to_string(),
        ]
        .join("\n")
            + "\n"
    };
    for (name, init_extra, errors) in [
        ("qwen.jsonl", r#","qwen_code_version":"0.1.0""#, 1),
        ("claude.jsonl", "", 0),
    ] {
        let path = common::write_file(dir.path(), name, stream(init_extra).as_bytes());
        let stats = stats_reading(&path);
        assert_eq!(stats.calls, 1, "{name}");
        assert_eq!(stats.errors, errors, "{name}");
        assert_eq!(events_reading(&path), stats, "{name}");
        assert_eq!(gaps_tool_errors(&path), errors, "{name}");
    }
}

/// The codes of `gaps`'s findings of an input, in order.
fn gaps_codes(path: &Path) -> Vec<String> {
    json_lines("gaps", path)
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect()
}

/// The lines of a log, one a line.
fn log(lines: &[&str]) -> String {
    lines.join("\n") + "\n"
}

/// A Gemini CLI session log writes a message again, whole, when it changes: a call comes
/// in several lines, still `executing` in one and final in a later one. Each failed call is
/// one error in every command (status `error` or `cancelled`, or its output's non-zero
/// `Exit Code`), however often it is written; a call written again after it ended is not
/// opened again; a call still under way when the log ends has no result (TOOL_ORPHAN_USE,
/// as in every other agent's log).
#[test]
fn a_gemini_session_log_reads_its_rewritten_calls_alike() {
    let dir = common::tempdir();
    let meta = r#"{"sessionId":"g-1","projectHash":"811d5c72","startTime":"2026-11-24T00:47:31.758Z","lastUpdated":"2026-11-24T00:47:31.758Z","kind":"main"}"#;
    let user = r#"{"id":"u-1","timestamp":"2026-11-24T00:47:31.804Z","type":"user","content":[{"text":"Run the three commands."}]}"#;
    let head = r#""id":"m-1","timestamp":"2026-11-24T00:47:31.948Z","type":"gemini","content":"I will run them.","thoughts":[],"tokens":{"input":11566,"output":28,"cached":0,"thoughts":0,"tool":0,"total":11594},"model":"gemini-3.8-flash""#;
    let call = |id: &str, status: &str, response: &str| {
        let result = if response.is_empty() {
            String::new()
        } else {
            format!(
                r#","result":[{{"functionResponse":{{"id":"{id}","name":"run_shell_command","response":{response}}}}}]"#
            )
        };
        format!(
            r#"{{"id":"{id}","name":"run_shell_command","args":{{"command":"make {id}"}}{result},"status":"{status}","timestamp":"2026-11-24T00:47:31.995Z","displayName":"Shell"}}"#
        )
    };
    let message = |calls: &[String]| format!(r#"{{{head},"toolCalls":[{}]}}"#, calls.join(","));
    let denied = call("c1", "error", r#"{"error":"Tool execution denied."}"#);
    let failed = call(
        "c2",
        "success",
        r#"{"output":"Command: make c2\nOutput: no rule\nExit Code: 2"}"#,
    );
    let written = [
        meta.to_string(),
        user.to_string(),
        format!("{{{head}}}"),
        r#"{"$set":{"lastUpdated":"2026-11-24T00:47:31.948Z"}}"#.to_string(),
        message(&[denied.clone(), call("c3", "executing", "")]),
        message(&[
            denied.clone(),
            failed.clone(),
            call("c3", "cancelled", r#"{"error":"cancelled"}"#),
            call("c4", "executing", ""),
        ]),
        // An older copy of the message after the calls ended: none opens again.
        message(&[call("c1", "executing", ""), call("c3", "executing", "")]),
        r#"{"id":"u-2","timestamp":"2026-11-24T00:47:31.997Z","type":"user","content":[{"functionResponse":{"id":"c2","name":"run_shell_command","response":{"output":"Command: make c2\nOutput: no rule\nExit Code: 2"}}}]}"#.to_string(),
    ];
    let refs: Vec<&str> = written.iter().map(String::as_str).collect();
    let path = common::write_file(dir.path(), "session.jsonl", log(&refs).as_bytes());
    let stats = stats_reading(&path);
    assert_eq!(
        stats,
        Reading {
            calls: 4,
            errors: 3,
            sessions: 1
        }
    );
    assert_eq!(events_reading(&path), stats);
    let codes = gaps_codes(&path);
    let count = |code: &str| codes.iter().filter(|c| *c == code).count();
    assert_eq!(count("TOOL_ERROR"), 3, "{codes:?}");
    // Only c4, still executing at the end, has no result.
    assert_eq!(count("TOOL_ORPHAN_USE"), 1, "{codes:?}");
    assert_eq!(codes.len(), 4, "{codes:?}");
    let orphan = json_lines("gaps", &path)
        .into_iter()
        .find(|d| d["code"] == "TOOL_ORPHAN_USE")
        .expect("an orphan");
    assert!(
        orphan["message"].as_str().is_some_and(|m| m.contains("c4")),
        "{orphan}"
    );
    // Each result once in `events`, at the line where the call ended.
    let results: Vec<(String, u64)> = json_lines("events", &path)
        .iter()
        .filter(|e| e["kind"] == "tool_result")
        .map(|e| {
            (
                e["tool_use_id"].as_str().unwrap_or("").to_string(),
                e["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("c1".to_string(), 5),
            ("c2".to_string(), 6),
            ("c3".to_string(), 6)
        ]
    );
}

/// A Qwen Code session log: `functionCall` parts of assistant lines open calls, the
/// `functionResponse` of `tool_result` lines answers them, failed by the line's
/// `toolCallResult` (a status other than `success`, or a non-zero exit code); a call
/// unanswered when the log ends has no result (TOOL_ORPHAN_USE).
#[test]
fn a_qwen_session_log_reads_its_calls_alike() {
    let dir = common::tempdir();
    let line = |uuid: &str, parent: &str, rest: &str| {
        format!(
            r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"q-1","timestamp":"2026-11-24T00:47:54.067Z",{rest},"cwd":"/tmp/w","version":"0.24.4"}}"#
        )
    };
    let assistant = |calls: &[(&str, &str)]| {
        let parts: Vec<String> = calls
            .iter()
            .map(|(id, name)| {
                format!(r#"{{"functionCall":{{"id":"{id}","name":"{name}","args":{{}}}}}}"#)
            })
            .collect();
        format!(
            r#""type":"assistant","provenance":"assistant_output","model":"qwen3-coder-plus","message":{{"role":"model","parts":[{{"text":"I will look."}},{}]}},"usageMetadata":{{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}"#,
            parts.join(",")
        )
    };
    let result = |id: &str, name: &str, output: &str, call_result: &str| {
        format!(
            r#""type":"tool_result","provenance":"tool_result","message":{{"role":"user","parts":[{{"functionResponse":{{"id":"{id}","name":"{name}","response":{{"output":"{output}"}}}}}}]}},"toolCallResult":{{"callId":"{id}",{call_result}}}"#
        )
    };
    let written = [
        line(
            "u1",
            "null",
            r#""type":"user","provenance":"real_user","message":{"role":"user","parts":[{"text":"Build it."}]}"#,
        ),
        line(
            "a1",
            r#""u1""#,
            &assistant(&[("call_1", "run_shell_command"), ("call_2", "read_file")]),
        ),
        line(
            "r1",
            r#""a1""#,
            &result(
                "call_1",
                "run_shell_command",
                "Command: make\\nExit Code: 2",
                r#""status":"success","resultDisplay":{"type":"shell_result","exitCode":2,"output":"no rule"},"executionStatus":"success""#,
            ),
        ),
        line(
            "r2",
            r#""r1""#,
            &result(
                "call_2",
                "read_file",
                "File not found",
                r#""status":"error","resultDisplay":"File not found","executionStatus":"error""#,
            ),
        ),
        line(
            "a2",
            r#""r2""#,
            &assistant(&[("call_3", "run_shell_command")]),
        ),
    ];
    let refs: Vec<&str> = written.iter().map(String::as_str).collect();
    let path = common::write_file(dir.path(), "q-1.jsonl", log(&refs).as_bytes());
    let report = json_lines("stats", &path).pop().expect("a stats report");
    assert!(report["dialects"].get("qwen-log").is_some(), "{report}");
    let stats = stats_reading(&path);
    assert_eq!(
        stats,
        Reading {
            calls: 3,
            errors: 2,
            sessions: 1
        }
    );
    assert_eq!(events_reading(&path), stats);
    let codes = gaps_codes(&path);
    assert_eq!(
        codes,
        ["TOOL_ERROR", "TOOL_ERROR", "TOOL_ORPHAN_USE"],
        "{codes:?}"
    );
    // `filter --tool` reads the same parts: each tool's calls and their results.
    for (tool, lines) in [("run_shell_command", "a1\nr1\na2"), ("read_file", "a1\nr2")] {
        let out = ndjq_sub("filter")
            .args(["-q", "--tool", tool, "--print", "uuid"])
            .arg(&path)
            .output()
            .expect("run ndjq");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), lines, "{tool}");
    }
}

/// A Codex rollout: a web search the model ran is a tool call in every command (it has no
/// id and no output record: each is one call, never unanswered), and a local shell
/// call's output is its result in `events` too, an error by the Codex rule as in `stats`
/// and `gaps`.
#[test]
fn a_codex_rollouts_web_searches_and_local_shell_calls_are_read_alike() {
    let dir = common::tempdir();
    let at = |n: u32, ty: &str, payload: &str| {
        format!(
            r#"{{"timestamp":"2026-11-22T10:09:12.{n:03}Z","ordinal":{n},"type":"{ty}","payload":{payload}}}"#
        )
    };
    let written = [
        at(
            0,
            "session_meta",
            r#"{"id":"01a202bb-3450-7250-b216-ee5b94b6ae28","timestamp":"2026-11-22T10:09:12.788Z","cwd":"/tmp/w","originator":"codex_exec","cli_version":"0.169.0"}"#,
        ),
        at(
            5,
            "turn_context",
            r#"{"cwd":"/tmp/w","approval_policy":"never","model":"gpt-5.5","summary":"none"}"#,
        ),
        at(
            10,
            "response_item",
            r#"{"type":"web_search_call","status":"completed","action":{"type":"search","query":"ndjson spec"}}"#,
        ),
        at(
            11,
            "response_item",
            r#"{"type":"web_search_call","status":"completed","action":{"type":"search","query":"jsonl mime type"}}"#,
        ),
        at(
            12,
            "response_item",
            r#"{"type":"local_shell_call","call_id":"call_ls1","status":"completed","action":{"type":"exec","command":["bash","-lc","make"],"timeout_ms":10000}}"#,
        ),
        at(
            13,
            "response_item",
            r#"{"type":"local_shell_call_output","call_id":"call_ls1","output":"{\"output\":\"make: *** No targets.  Stop.\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}"#,
        ),
        at(
            14,
            "response_item",
            r#"{"type":"function_call","status":"completed","id":"fc_1","name":"exec_command","arguments":"{\"cmd\": \"echo hi\"}","call_id":"call_fc1"}"#,
        ),
        at(
            15,
            "response_item",
            r#"{"type":"function_call_output","id":"fco_1","call_id":"call_fc1","output":"Chunk ID: ba846f\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\nhi\n"}"#,
        ),
    ];
    let refs: Vec<&str> = written.iter().map(String::as_str).collect();
    let path = common::write_file(dir.path(), "rollout.jsonl", log(&refs).as_bytes());
    let report = json_lines("stats", &path).pop().expect("a stats report");
    assert!(report["dialects"].get("codex-log").is_some(), "{report}");
    let stats = stats_reading(&path);
    assert_eq!(
        stats,
        Reading {
            calls: 4,
            errors: 1,
            sessions: 1
        }
    );
    assert_eq!(events_reading(&path), stats);
    assert_eq!(
        stats_tool_names(&path),
        BTreeMap::from([
            ("exec_command".to_string(), 1),
            ("local_shell".to_string(), 1),
            ("web_search".to_string(), 2)
        ])
    );
    assert_eq!(events_tool_names(&path), stats_tool_names(&path));
    assert_eq!(gaps_codes(&path), ["TOOL_ERROR"]);
}

/// OpenCode prints a tool part again as its state changes (`running`, then `completed` or
/// `error`), and may print one again after it ended (twice, or a stale `running` behind
/// its end): each line states the call whole, so a failed call is one call and one error
/// in every command, and `gaps` opens it once and never again once answered (no second
/// TOOL_ERROR, no call left open at the end).
#[test]
fn an_opencode_tool_part_printed_again_is_one_call_everywhere() {
    let dir = common::tempdir();
    let part = |status: &str, extra: &str| {
        format!(
            r#"{{"type":"tool_use","timestamp":1777197446600,"sessionID":"ses_1","part":{{"id":"prt_1","callID":"call_1","tool":"bash","type":"tool","state":{{"status":"{status}","input":{{"command":"make"}}{extra}}},"messageID":"msg_1","sessionID":"ses_1"}}}}"#
        )
    };
    let lines = [
        r#"{"type":"step_start","timestamp":1777197446593,"sessionID":"ses_1","part":{"id":"prt_0","messageID":"msg_1","sessionID":"ses_1","type":"step-start"}}"#.to_string(),
        part("running", ""),
        part("error", r#","error":"make: *** no rule""#),
        part("error", r#","error":"make: *** no rule""#),
        part("running", ""),
        r#"{"type":"step_finish","timestamp":1777197446660,"sessionID":"ses_1","part":{"id":"prt_2","reason":"stop","messageID":"msg_1","sessionID":"ses_1","type":"step-finish","tokens":{"total":30,"input":20,"output":10,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}"#.to_string(),
    ];
    let path = common::write_file(
        dir.path(),
        "opencode.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let stats = stats_reading(&path);
    assert_eq!((stats.calls, stats.errors), (1, 1));
    assert_eq!(events_reading(&path), stats);
    assert_eq!(gaps_tool_errors(&path), 1);
    let gaps = json_lines("gaps", &path);
    assert!(
        gaps.iter()
            .all(|d| d["code"] != "TOOL_ORPHAN_RESULT" && d["code"] != "TOOL_ORPHAN_USE"),
        "{gaps:?}"
    );
}

/// Gemini CLI's `--output-format json` document names its tool calls only by count
/// (`stats.tools.byName`), with no record of each call: `events` shows one `tool_use` per
/// counted call, as many as `stats` counts (a real document with one shell call).
#[test]
fn a_gemini_json_document_with_a_tool_call_is_one_call_in_stats_and_events() {
    let path = testdata().join("other-agents/real-client/gemini-tool-json.ndjson");
    let stats = ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .arg(&path)
        .output()
        .expect("ndjq runs");
    assert_eq!(stats.status.code(), Some(0), "{stats:?}");
    let stats: Value = serde_json::from_slice(&stats.stdout).expect("stats JSON");
    assert_eq!(stats["tools"]["run_shell_command"]["calls"], 1, "{stats}");
    let events = ndjq_sub("events")
        .args(["-q", "-f", "json"])
        .arg(&path)
        .output()
        .expect("ndjq runs");
    let uses: Vec<Value> = events
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice::<Value>(l).expect("an event"))
        .filter(|e| e["kind"] == "tool_use")
        .collect();
    assert_eq!(uses.len(), 1, "{uses:?}");
    assert_eq!(uses[0]["name"], "run_shell_command");
}
