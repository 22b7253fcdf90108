//! The dialects of the other agents (SPEC section 2): Gemini CLI (`gemini`, `gemini-log`),
//! Qwen Code (`qwen`, `qwen-log`), Cursor (`cursor`), OpenCode (`opencode`) and GitHub
//! Copilot CLI (`copilot`), over every capture in `testdata/other-agents/` (copies of
//! `../shared/other-agents`, see testdata/SOURCES.md).
//!
//! - Each capture is detected as its dialect, and validates with no `PROTO_UNKNOWN_TYPE`,
//!   no `PROTO_SCHEMA`, and nothing else either: they are what the CLIs really print.
//! - Gemini's `-o json` document (one pretty-printed object) is read whole as one record.
//! - `ndjq events -f text` reads as a transcript: golden files under
//!   `testdata/expected/other-agents/` (written by the binary and read by hand; run with
//!   `NDJQ_BLESS=1` to write them again after a deliberate change).

mod support;

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
