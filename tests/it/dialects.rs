//! The dialects of the other agents (docs/REFERENCE.md, "Dialects"): Gemini CLI (`gemini`,
//! `gemini-log`), Qwen Code (`qwen`, `qwen-log`), Cursor (`cursor`), OpenCode (`opencode`) and
//! GitHub Copilot CLI (`copilot`), over every capture in `testdata/other-agents/` (copies of
//! the project's collection of other agents' captures, see testdata/SOURCES.md).
//!
//! - Each capture is detected as its dialect, and validates with no `PROTO_UNKNOWN_TYPE`,
//!   no `PROTO_SCHEMA`, and nothing else either: they are what the CLIs really print.
//! - Gemini's `-o json` document (one pretty-printed object) is read whole as one record.
//! - `ndjq events -f text` reads as a transcript: golden files under
//!   `testdata/expected/other-agents/` (written by the binary and read by hand; run with
//!   `NDJQ_BLESS=1` to write them again after a deliberate change).

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use support::{data, is_ndjson_name, ndjq, parse_validate, read, show, walk};

const DIR: &str = "testdata/other-agents";

/// The dialect each capture is in, from its folder and name (see the SOURCES.md rows).
fn expected_dialect(rel: &str) -> &'static str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.starts_with("real-client/transcripts/") {
        return if name.starts_with("gemini-") {
            "gemini-log"
        } else {
            "qwen-log"
        };
    }
    for (prefix, dialect) in [
        ("gemini", "gemini"),
        ("qwen", "qwen"),
        ("opencode", "opencode"),
        ("cursor", "cursor"),
        ("copilot", "copilot"),
    ] {
        if rel.starts_with(&format!("{prefix}/"))
            || rel.starts_with(&format!("real-client/{prefix}-"))
        {
            return dialect;
        }
    }
    panic!("no expected dialect for {rel}")
}

/// Every capture, relative to [`DIR`] and as a path from the package root.
fn captures() -> Vec<(String, String)> {
    let dir = data(DIR);
    let files: Vec<(String, String)> = walk(&dir)
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&dir)
                .expect("under the folder")
                .to_string_lossy()
                .replace('\\', "/");
            is_ndjson_name(&rel).then(|| (rel.clone(), format!("{DIR}/{rel}")))
        })
        .collect();
    assert!(files.len() >= 30, "captures missing: {}", files.len());
    files
}

#[derive(Debug, Deserialize)]
struct Stats {
    lines: u64,
    valid: u64,
    dialects: BTreeMap<String, u64>,
    diagnostics: BTreeMap<String, u64>,
}

fn stats(path: &str) -> Stats {
    let out = ndjq()
        .args(["stats", "-f", "json", path])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{path}: {}", show(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stats json")
}

#[test]
fn every_capture_is_detected_as_its_dialect_and_validates_clean() {
    for (rel, path) in captures() {
        let s = stats(&path);
        let want = expected_dialect(&rel);
        assert_eq!(
            s.dialects,
            BTreeMap::from([(want.to_string(), s.lines)]),
            "{rel}: every record in {want}"
        );
        assert_eq!(s.valid, s.lines, "{rel}: every record valid");
        let out = ndjq()
            .args(["validate", "-f", "json", "--fail-on", "info", &path])
            .output()
            .expect("runs");
        let (diags, summary) = parse_validate(&out.stdout);
        assert!(diags.is_empty(), "{rel}: {diags:?}");
        assert_eq!(
            summary.warnings + summary.errors + summary.infos,
            0,
            "{rel}"
        );
        assert!(out.status.success(), "{rel}");
    }
}

#[test]
fn a_gemini_json_document_is_read_whole_as_one_record() {
    let path = format!("{DIR}/real-client/gemini-text-json.ndjson");
    let bytes = read(data(&path));
    assert!(bytes.iter().filter(|&&b| b == b'\n').count() > 80);
    assert!(!bytes.ends_with(b"\n"), "the CLI prints no final newline");
    let s = stats(&path);
    assert_eq!((s.lines, s.valid), (1, 1));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    // filter passes the document through byte for byte.
    let out = ndjq().args(["filter", &path]).output().expect("runs");
    assert!(out.status.success());
    assert_eq!(out.stdout, bytes);
    // From stdin too; `--where` sees the document's fields.
    let out = ndjq()
        .args([
            "filter",
            "--where",
            "response=Hello from the fake Gemini server. 2 + 2 = 4.",
        ])
        .write_stdin(bytes.clone())
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", show(&out.stderr));
    assert_eq!(out.stdout, bytes);
}

#[test]
fn a_cut_document_and_a_stream_starting_with_a_brace_line_keep_their_line_verdicts() {
    // The document ends early: each line gets its own verdict, as without the rule.
    let cut = "{\n  \"session_id\": \"s\",\n  \"response\": \"hi\"\n";
    let out = ndjq()
        .args(["validate", "-f", "json"])
        .write_stdin(cut)
        .output()
        .expect("runs");
    let (diags, summary) = parse_validate(&out.stdout);
    assert_eq!(summary.records, 3);
    assert_eq!(summary.invalid, 3, "{diags:?}");
    // Only the first line of an input opens a document: later `{` lines are plain errors.
    let later = "{\"type\":\"x\"}\n{\n\"a\":1}\n";
    let out = ndjq()
        .args(["validate", "-f", "json"])
        .write_stdin(later)
        .output()
        .expect("runs");
    let (_, summary) = parse_validate(&out.stdout);
    assert_eq!((summary.valid, summary.invalid), (1, 2));
    // A document whose inner lines parse alone (`{}`) is still one record.
    let inner = "{\n  \"session_id\": \"s\",\n  \"response\": \"ok\",\n  \"stats\": {\"models\":\n{}\n}\n}\n";
    let out = ndjq()
        .args(["stats", "-f", "json"])
        .write_stdin(inner)
        .output()
        .expect("runs");
    let s: Stats = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!((s.lines, s.valid), (1, 1));
    assert_eq!(s.dialects, BTreeMap::from([("gemini".to_string(), 1)]));
}

#[test]
fn schema_problems_name_the_field_path_in_each_dialect() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "gemini",
            r#"{"type":"tool_use","timestamp":"2026-01-01T00:00:00Z","tool_id":"t","parameters":[]}"#,
            "tool_name,parameters",
        ),
        (
            "gemini-log",
            r#"{"type":"gemini","id":"m","timestamp":"t","tokens":{"input":"many"}}"#,
            "tokens.input",
        ),
        (
            "opencode",
            r#"{"type":"tool_use","timestamp":1,"sessionID":"ses_a","part":{"tool":"bash","state":{}}}"#,
            "part.state.status",
        ),
        (
            "copilot",
            r#"{"type":"tool.execution_complete","data":{},"id":"e","timestamp":"t"}"#,
            "data.toolCallId",
        ),
        (
            "cursor",
            r#"{"type":"tool_call","subtype":"started","session_id":"s"}"#,
            "tool_call",
        ),
        (
            "qwen",
            r#"{"type":"assistant","session_id":"s","message":{"content":"x"}}"#,
            "message.content",
        ),
        (
            "qwen-log",
            r#"{"type":"assistant","uuid":"u","sessionId":"s","timestamp":"t","message":{"role":"model"}}"#,
            "message.parts",
        ),
    ];
    for (dialect, line, paths) in cases {
        let out = ndjq()
            .args(["validate", "-f", "json", "--dialect", dialect])
            .write_stdin(format!("{line}\n"))
            .output()
            .expect("runs");
        let (diags, _) = parse_validate(&out.stdout);
        let got: Vec<String> = diags
            .iter()
            .filter(|d| d.code == "PROTO_SCHEMA")
            .map(|d| {
                d.message
                    .split('`')
                    .nth(3)
                    .expect("the message names the field")
                    .to_string()
            })
            .collect();
        assert_eq!(got.join(","), *paths, "{dialect}: {diags:?}");
    }
}

/// Compares with a golden file, or writes it when `NDJQ_BLESS` is set.
fn golden(name: &str, actual: &[u8]) {
    let path = data(&format!("testdata/expected/other-agents/{name}"));
    if std::env::var_os("NDJQ_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    support::assert_golden(&format!("other-agents/{name}"), actual);
}

#[test]
fn events_read_as_a_transcript_for_each_agent() {
    let files = [
        "real-client/gemini-text.ndjson",
        "real-client/gemini-tool.ndjson",
        "real-client/gemini-error500-long.ndjson",
        "real-client/gemini-text-json.ndjson",
        "real-client/transcripts/gemini-tool.2.jsonl",
        "real-client/qwen-tool.ndjson",
        "real-client/qwen-tool-partial.ndjson",
        "real-client/qwen-error500.ndjson",
        "real-client/transcripts/qwen-tool.1.jsonl",
        "real-client/opencode-tool.ndjson",
        "real-client/opencode-error500.ndjson",
        "cursor/jnarowski__agentcmd__cursor-agent.md.L182.jsonl",
        "copilot/sortie-ai__sortie__tool_use_session.jsonl",
        "gemini/jnarowski__agentcmd__gemini.md.L635.jsonl",
    ];
    for rel in files {
        let path = format!("{DIR}/{rel}");
        let out = ndjq()
            .args(["events", "-f", "text", "--color", "never", &path])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{rel}: {}", show(&out.stderr));
        let name = Path::new(rel)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .split(".md.")
            .next()
            .expect("stem")
            .trim_end_matches(".ndjson")
            .trim_end_matches(".jsonl")
            .to_string();
        golden(&format!("{name}.events.txt"), &out.stdout);
    }
}

/// The JSON events of a file.
fn events(path: &str) -> Vec<Value> {
    let out = ndjq()
        .args(["events", "-f", "json", path])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{path}");
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("event json"))
        .collect()
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["kind"].as_str().expect("kind"))
        .collect()
}

#[test]
fn gemini_deltas_are_one_text_per_assistant_turn() {
    let ev = events(&format!("{DIR}/real-client/gemini-tool.ndjson"));
    assert_eq!(
        kinds(&ev),
        [
            "init",
            "user",
            "text",
            "tool_use",
            "tool_result",
            "text",
            "usage",
            "usage",
            "result"
        ]
    );
    // Three deltas each, joined, at the line of the first.
    assert_eq!(ev[2]["text"], "I will run the command.");
    assert_eq!(ev[2]["line"], 3);
    assert_eq!(ev[5]["text"], "The command ran and printed: hello");
    assert_eq!(ev[5]["line"], 8);
    assert_eq!(ev[3]["name"], "run_shell_command");
    assert_eq!(ev[3]["input"]["command"], "echo hello");
    assert_eq!(ev[4]["tool_use_id"], ev[3]["id"]);
    assert_eq!(ev[4]["is_error"], false);
    // Every event carries the session of the init.
    assert!(ev
        .iter()
        .all(|e| e["session"] == "8dc0522a-bcfd-4cd2-83b7-c01912673b85"));
    // The real models come from stats.models, not the `auto` alias of the init.
    assert_eq!(ev[0]["model"], "auto");
    assert_eq!(ev[6]["model"], "gemini-3.5-flash-lite");
    assert_eq!(ev[7]["model"], "gemini-3.8-flash");
    assert_eq!(ev[7]["input"], 13021);
    assert_eq!(ev[7]["cache_read"], 10240);
}

#[test]
fn a_failing_command_is_an_error_even_when_gemini_says_success() {
    // Gemini CLI reports a failed shell command with status success; the output tells.
    let stream = concat!(
        r#"{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"s","model":"auto"}"#,
        "\n",
        r#"{"type":"tool_use","timestamp":"2026-01-01T00:00:01Z","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"false"}}"#,
        "\n",
        r#"{"type":"tool_result","timestamp":"2026-01-01T00:00:02Z","tool_id":"t1","status":"success","output":"Command exited with code: 1"}"#,
        "\n",
        r#"{"type":"tool_use","timestamp":"2026-01-01T00:00:03Z","tool_name":"read_file","tool_id":"t2","parameters":{}}"#,
        "\n",
        r#"{"type":"tool_result","timestamp":"2026-01-01T00:00:04Z","tool_id":"t2","status":"error","error":{"type":"x","message":"no such file"}}"#,
        "\n",
    );
    let out = ndjq()
        .args(["events", "-f", "json"])
        .write_stdin(stream)
        .output()
        .expect("runs");
    let ev: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("json"))
        .collect();
    let results: Vec<(&Value, &Value)> = ev
        .iter()
        .filter(|e| e["kind"] == "tool_result")
        .map(|e| (&e["is_error"], &e["content"]))
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, true);
    assert_eq!(
        results[1],
        (&Value::Bool(true), &Value::from("no such file"))
    );
}

// ---- stats (docs/REFERENCE.md, "Stats of the other agents") ----

/// `ndjq stats -f json` of files, or of bytes on stdin.
fn stats_json(paths: &[&str], stdin: Option<Vec<u8>>) -> Value {
    let mut cmd = ndjq();
    cmd.args(["stats", "-f", "json"]).args(paths);
    if let Some(bytes) = stdin {
        cmd.write_stdin(bytes);
    }
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{}", show(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stats json")
}

fn rc(name: &str) -> String {
    format!("{DIR}/real-client/{name}")
}

/// The records of a capture.
fn records(path: &str) -> Vec<Value> {
    read(data(path))
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The documented tokens (docs/REFERENCE.md, "Token and cost rules") from the totals a CLI printed:
/// (input non-cached, output, cache_read).
fn spec_tokens(input: u64, output: u64, cache_read: u64) -> Value {
    serde_json::json!({"input": input, "output": output, "cache_creation": 0,
                       "cache_read": cache_read, "reasoning_output": 0})
}

/// A model's tokens in a stats report: `models` leaves out a model that billed nothing.
fn model_tokens(s: &Value, model: &str) -> Value {
    match s["models"].get(model) {
        Some(t) => t.clone(),
        None => spec_tokens(0, 0, 0),
    }
}

#[test]
fn stats_tokens_are_each_cli_own_totals_in_one_meaning() {
    // Gemini: result.stats, whose `input` is the non-cached part of `input_tokens`.
    for name in [
        "gemini-text.ndjson",
        "gemini-tool.ndjson",
        "gemini-error500-long.ndjson",
    ] {
        let path = rc(name);
        let result = records(&path).pop().expect("a result last");
        let st = &result["stats"];
        assert_eq!(n(&st["input"]), n(&st["input_tokens"]) - n(&st["cached"]));
        let s = stats_json(&[&path], None);
        assert_eq!(s["sessions"], 1, "{name}");
        assert_eq!(
            s["tokens"],
            spec_tokens(n(&st["input"]), n(&st["output_tokens"]), n(&st["cached"])),
            "{name}"
        );
        // Per model from stats.models, not the `auto` alias of the init.
        for (model, m) in st["models"].as_object().expect("models") {
            assert_eq!(
                model_tokens(&s, model),
                spec_tokens(n(&m["input"]), n(&m["output_tokens"]), n(&m["cached"])),
                "{name} {model}"
            );
        }
        assert!(s["models"].get("auto").is_none());
    }
    // Qwen: result.usage, whose input_tokens includes cache_read_input_tokens. In the text
    // run it counts a memory-extraction call no assistant message shows: the session's
    // tokens are still the result's, the rest on its model.
    for name in [
        "qwen-text.ndjson",
        "qwen-tool.ndjson",
        "qwen-tool-partial.ndjson",
        "qwen-error500.ndjson",
    ] {
        let path = rc(name);
        let u = records(&path).pop().expect("a result last")["usage"].clone();
        let cached = n(&u["cache_read_input_tokens"]);
        let want = spec_tokens(
            n(&u["input_tokens"]) - cached,
            n(&u["output_tokens"]),
            cached,
        );
        let s = stats_json(&[&path], None);
        assert_eq!(s["sessions"], 1, "{name}");
        assert_eq!(s["tokens"], want, "{name}");
        assert_eq!(s["result_tokens"], want, "{name}");
        assert_eq!(model_tokens(&s, "qwen3-coder-plus"), want, "{name}");
    }
    // OpenCode: the sum of step_finish tokens (input already non-cached), cost reported.
    for name in [
        "opencode-text.ndjson",
        "opencode-tool.ndjson",
        "opencode-error500.ndjson",
    ] {
        let path = rc(name);
        let (mut input, mut output, mut cache_read) = (0, 0, 0);
        for r in records(&path).iter().filter(|r| r["type"] == "step_finish") {
            let t = &r["part"]["tokens"];
            input += n(&t["input"]);
            output += n(&t["output"]) + n(&t["reasoning"]);
            cache_read += n(&t["cache"]["read"]);
        }
        let s = stats_json(&[&path], None);
        assert_eq!(s["sessions"], 1, "{name}");
        assert_eq!(
            s["tokens"],
            spec_tokens(input, output, cache_read),
            "{name}"
        );
    }
    let s = stats_json(&[&rc("opencode-tool.ndjson")], None);
    assert_eq!(s["cost_usd"], 0.0, "OpenCode reports its cost, here 0");
}

#[test]
fn stats_attribute_a_whole_run_to_its_session() {
    // Gemini names its session on the init only: every later record inherits it (the
    // input is read in order, not in parallel blocks).
    for (name, session) in [
        ("gemini-tool.ndjson", "8dc0522a-bcfd-4cd2-83b7-c01912673b85"),
        ("qwen-text.ndjson", "90d3c692-0bb5-4118-a1fb-15e46d6b6eec"),
        ("opencode-tool.ndjson", "ses_df4f95d7affeGeChnxe4WLoseQ"),
    ] {
        let path = rc(name);
        let out = ndjq()
            .args(["stats", "-f", "json", "--by", "session", &path])
            .output()
            .expect("runs");
        let s: Value = serde_json::from_slice(&out.stdout).expect("json");
        let groups = s["groups"].as_array().expect("groups");
        assert_eq!(groups.len(), 1, "{name}: {groups:?}");
        assert_eq!(groups[0]["key"], session, "{name}");
        assert_eq!(groups[0]["tokens"], s["tokens"], "{name}");
        assert_eq!(groups[0]["records"], s["lines"], "{name}");
    }
}

#[test]
fn stats_count_the_tool_calls_of_each_run() {
    let cases = [
        ("gemini-tool.ndjson", "run_shell_command"),
        ("qwen-tool.ndjson", "run_shell_command"),
        ("qwen-tool-partial.ndjson", "run_shell_command"),
        ("opencode-tool.ndjson", "bash"),
    ];
    for (name, tool) in cases {
        let s = stats_json(&[&rc(name)], None);
        assert_eq!(
            s["tools"],
            serde_json::json!({tool: {"calls": 1, "errors": 0}}),
            "{name}"
        );
    }
    for name in [
        "gemini-text.ndjson",
        "qwen-text.ndjson",
        "opencode-text.ndjson",
    ] {
        let s = stats_json(&[&rc(name)], None);
        assert_eq!(s["tools"], serde_json::json!({}), "{name}");
    }
}

/// A capture with one text replaced (the test asserts the text is there).
fn edited(path: &str, from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(read(data(path))).expect("UTF-8");
    assert!(text.contains(from), "{path} lacks {from:?}");
    text.replacen(from, to, 1).into_bytes()
}

#[test]
fn a_failing_command_is_a_tool_error_in_every_agent() {
    let error = |bytes: Vec<u8>, tool: &str| {
        let s = stats_json(&[], Some(bytes));
        assert_eq!(
            s["tools"][tool],
            serde_json::json!({"calls": 1, "errors": 1})
        );
    };
    // Gemini's stream says status success; a command that printed nothing shows its exit
    // code in the output (a command that printed something does not: see the draft doc).
    error(
        edited(
            &rc("gemini-tool.ndjson"),
            r#""status":"success","output":"hello""#,
            r#""status":"success","output":"Command exited with code: 1""#,
        ),
        "run_shell_command",
    );
    // Its session log keeps the exit code in the function response.
    error(
        edited(
            &rc("transcripts/gemini-tool.2.jsonl"),
            r#""response":{"output":"<untrusted_context>\nOutput: hello\nProcess"#,
            r#""response":{"output":"<untrusted_context>\nOutput: (empty)\nExit Code: 2\nProcess"#,
        ),
        "run_shell_command",
    );
    // OpenCode: the tool completes; its metadata says exit 1.
    error(
        edited(&rc("opencode-tool.ndjson"), r#""exit":0"#, r#""exit":1"#),
        "bash",
    );
    // Qwen: the stream's tool_result (is_error, or an exit code in its text), the log's
    // toolCallResult.
    error(
        edited(
            &rc("qwen-tool.ndjson"),
            r#""is_error":false"#,
            r#""is_error":true"#,
        ),
        "run_shell_command",
    );
    error(
        edited(
            &rc("qwen-tool.ndjson"),
            r#""content":"hello""#,
            r#""content":"Command: false\nOutput: (empty)\nExit Code: 1""#,
        ),
        "run_shell_command",
    );
    error(
        edited(
            &rc("transcripts/qwen-tool.1.jsonl"),
            r#""exitCode":0"#,
            r#""exitCode":1"#,
        ),
        "run_shell_command",
    );
}

#[test]
fn a_stream_and_its_session_log_give_the_same_numbers() {
    // Gemini: the log has the main model's messages; the stream's totals also count the
    // routing model's call (gemini-3.5-flash-lite), which the log does not record.
    let stream = rc("gemini-tool.ndjson");
    let log = rc("transcripts/gemini-tool.2.jsonl");
    let (s, l) = (stats_json(&[&stream], None), stats_json(&[&log], None));
    assert_eq!(
        l["models"]["gemini-3.8-flash"],
        s["models"]["gemini-3.8-flash"]
    );
    assert_eq!(l["tools"], s["tools"]);
    assert!(l["models"].get("gemini-3.5-flash-lite").is_none());
    // Thoughts are output, and told apart (the message is written twice: counted once).
    let text = String::from_utf8(read(data(&log))).expect("UTF-8");
    let from = r#""output":28,"cached":0,"thoughts":0"#;
    assert_eq!(text.matches(from).count(), 2);
    let thinking = text.replace(from, r#""output":28,"cached":0,"thoughts":7"#);
    let t = stats_json(&[], Some(thinking.into_bytes()));
    assert_eq!(
        t["models"]["gemini-3.8-flash"],
        serde_json::json!({"input": 13021, "output": 37 + 7, "cache_creation": 0,
                           "cache_read": 10240, "reasoning_output": 7})
    );
    for text in ["gemini-text", "gemini-text-json"] {
        let s = stats_json(&[&rc(&format!("{text}.ndjson"))], None);
        let l = stats_json(&[&rc(&format!("transcripts/{text}.2.jsonl"))], None);
        assert_eq!(
            l["models"]["gemini-3.8-flash"], s["models"]["gemini-3.8-flash"],
            "{text}"
        );
    }
    // Read together: one session, one call (the same ids).
    let both = stats_json(&[&stream, &log], None);
    assert_eq!(both["sessions"], 1);
    assert_eq!(both["tools"]["run_shell_command"]["calls"], 1);
    // Qwen: with a tool the session's calls are all messages, and the numbers agree.
    let s = stats_json(&[&rc("qwen-tool.ndjson")], None);
    let l = stats_json(&[&rc("transcripts/qwen-tool.1.jsonl")], None);
    assert_eq!(l["tokens"], s["tokens"]);
    assert_eq!(l["tools"], s["tools"]);
    assert_eq!(l["sessions"], 1);
    // After a text-only turn Qwen makes a memory-extraction call that only result.usage
    // (and its usage summary beside the chats) counts: the log has the answer's message.
    let s = stats_json(&[&rc("qwen-text.ndjson")], None);
    let l = stats_json(&[&rc("transcripts/qwen-text.1.jsonl")], None);
    let summary = records(&rc("transcripts/qwen-text.4.jsonl")).remove(0);
    let m = &summary["models"]["qwen3-coder-plus"];
    assert_eq!(
        s["tokens"]["input"],
        n(&m["inputTokens"]) - n(&m["cachedTokens"])
    );
    assert_eq!(s["tokens"]["output"], m["outputTokens"]);
    assert!(n(&l["tokens"]["input"]) < n(&s["tokens"]["input"]));
}

#[test]
fn stats_of_the_gemini_document_copilot_and_cursor() {
    // -o json: per model tokens {prompt (whole), cached, candidates, thoughts}.
    let s = stats_json(&[&rc("gemini-text-json.ndjson")], None);
    assert_eq!(s["sessions"], 1);
    assert_eq!(s["models"]["gemini-3.8-flash"], spec_tokens(11571, 12, 0));
    assert_eq!(
        s["models"]["gemini-3.5-flash-lite"],
        spec_tokens(871, 14, 0)
    );
    // Copilot prints output tokens per message and the model apart.
    let s = stats_json(
        &[&format!(
            "{DIR}/copilot/sortie-ai__sortie__simple_session.jsonl"
        )],
        None,
    );
    assert_eq!(s["sessions"], 1);
    assert_eq!(s["models"]["claude-opus-4.6"], spec_tokens(0, 6, 0));
    let s = stats_json(
        &[&format!(
            "{DIR}/copilot/sortie-ai__sortie__tool_use_session.jsonl"
        )],
        None,
    );
    assert_eq!(s["tokens"]["output"], 102 + 20);
    assert_eq!(
        s["tools"],
        serde_json::json!({"view": {"calls": 1, "errors": 0}})
    );
    // Cursor: usage on the result in newer versions (camel case).
    let line = concat!(
        r#"{"type":"system","subtype":"init","session_id":"c1","apiKeySource":"login","model":"Auto","cwd":"/w"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"started","call_id":"t1","session_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"false"}}}}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"completed","call_id":"t1","session_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"false"},"result":{"success":{"exitCode":1,"stdout":""}}}}}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"c1","request_id":"r1","usage":{"inputTokens":120,"outputTokens":30,"cacheReadTokens":500,"cacheWriteTokens":40}}"#,
        "\n",
    );
    let s = stats_json(&[], Some(line.as_bytes().to_vec()));
    assert_eq!(s["dialects"]["cursor"], 4);
    assert_eq!(
        s["tokens"],
        serde_json::json!({"input": 120, "output": 30, "cache_creation": 40, "cache_read": 500,
                           "reasoning_output": 0})
    );
    assert_eq!(
        s["tools"],
        serde_json::json!({"shell": {"calls": 1, "errors": 1}})
    );
}

#[test]
fn filter_finds_the_tool_calls_and_sessions_of_each_agent() {
    let count = |args: &[&str], path: &str| -> String {
        let out = ndjq()
            .args(["filter", "-c"])
            .args(args)
            .arg(path)
            .output()
            .expect("runs");
        show(&out.stdout).trim().to_string()
    };
    let tool = |name: &str, path: &str| count(&["--tool", name], path);
    // The call and its result (Gemini's result names only the call id).
    assert_eq!(tool("run_shell_command", &rc("gemini-tool.ndjson")), "2");
    assert_eq!(tool("run_shell_command", &rc("qwen-tool.ndjson")), "2");
    // One line holds both the call and its completed result.
    assert_eq!(tool("bash", &rc("opencode-tool.ndjson")), "1");
    assert_eq!(
        tool("run_shell_command", &rc("transcripts/gemini-tool.2.jsonl")),
        "1"
    );
    let copilot = format!("{DIR}/copilot/sortie-ai__sortie__tool_use_session.jsonl");
    assert_eq!(tool("view", &copilot), "2");
    assert_eq!(tool("bash", &rc("gemini-tool.ndjson")), "0");
    // OpenCode spells it sessionID.
    let opencode = rc("opencode-tool.ndjson");
    assert_eq!(
        count(&["--session", "ses_df4f95d7affeGeChnxe4WLoseQ"], &opencode),
        "7"
    );
}

/// `ndjq stats -f json --merge` of the stats of `parts` (each read from stdin).
fn merged(parts: &[Vec<u8>]) -> Value {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut cmd = ndjq();
    cmd.args(["stats", "-f", "json", "--merge"]);
    for (i, part) in parts.iter().enumerate() {
        let s = stats_json(&["--mergeable"], Some(part.clone()));
        let path = tmp.path().join(format!("part{i}.json"));
        std::fs::write(&path, s.to_string()).expect("write part stats");
        cmd.arg(&path);
    }
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{}", show(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stats json")
}

#[test]
fn reported_step_costs_and_billed_results_are_kept_through_a_merge() {
    // OpenCode's step costs are its reported cost: summed per session, never estimated.
    let path = rc("opencode-tool.ndjson");
    let text = String::from_utf8(read(data(&path))).expect("UTF-8");
    assert_eq!(text.matches(r#""cost":0}"#).count(), 2);
    let costly = text
        .replacen(r#""cost":0}"#, r#""cost":0.0125}"#, 1)
        .replacen(r#""cost":0}"#, r#""cost":0.0031}"#, 1);
    let whole = stats_json(&[], Some(costly.clone().into_bytes()));
    let cost = |s: &Value, k: &str| s[k].as_f64().unwrap_or(f64::NAN);
    assert!(
        (cost(&whole, "cost_usd_reported") - 0.0156).abs() < 1e-9,
        "{whole}"
    );
    assert_eq!(whole["cost_usd"], whole["cost_usd_reported"]);
    assert_eq!(whole["cost_usd_estimated"], Value::Null);
    // Split at every line (each OpenCode line names its session), the stats of the parts
    // merged are those of the whole. Qwen's result holds the billed totals (the
    // memory-extraction call no message shows): merged by file (a Qwen stream is told
    // from Claude's by its init).
    let qwen = [rc("qwen-text.ndjson"), rc("qwen-tool.ndjson")];
    let mut cases: Vec<(Value, Vec<Vec<u8>>)> = Vec::new();
    let lines: Vec<&str> = costly.split_inclusive('\n').collect();
    for cut in 1..lines.len() {
        cases.push((
            whole.clone(),
            vec![
                lines[..cut].concat().into_bytes(),
                lines[cut..].concat().into_bytes(),
            ],
        ));
    }
    cases.push((
        stats_json(&[&qwen[0], &qwen[1]], None),
        qwen.iter().map(|p| read(data(p))).collect(),
    ));
    for (i, (whole, parts)) in cases.iter().enumerate() {
        let m = merged(parts);
        for k in [
            "sessions",
            "tokens",
            "result_tokens",
            "models",
            "tools",
            "cost_usd",
            "cost_usd_reported",
            "cost_usd_estimated",
            "unpriced_models",
        ] {
            assert_eq!(m[k], whole[k], "{k}, case {i}");
        }
    }
    // Older Gemini streams have no per-model stats: the init's model names (and prices)
    // the result's totals.
    let s = stats_json(
        &[&format!(
            "{DIR}/gemini/jnarowski__agentcmd__gemini.md.L378.jsonl"
        )],
        None,
    );
    assert_eq!(model_tokens(&s, "gemini-2.5-pro"), spec_tokens(7352, 16, 0));
    assert_eq!(s["unpriced_models"], serde_json::json!([]));
    assert!(cost(&s, "cost_usd_estimated") > 0.0, "{s}");
}
