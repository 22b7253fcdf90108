//! `ndjq events` and `ndjq filter --normalize` (docs/REFERENCE.md, "Normalized events"): golden
//! text and CSV output for one capture per dialect, and the JSON output deserialized into a typed
//! struct and checked field by field against values computed here from the input files.
//!
//! The golden files under `testdata/expected/*.events.{txt,csv}` were generated with the
//! binary and read by hand; run with `NDJQ_BLESS=1` to write them again after a deliberate
//! change (and read the diff).

use crate::support;

use support::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use support::{data, lines, parse, read, show, type_of, MIXED};

const CLAUDE_TOOL: &str = "testdata/claude/claude-tool.ndjson";
const CLAUDE_MULTI: &str = "testdata/claude/claude-multi_tool.ndjson";
const CLAUDE_ERROR: &str = "testdata/claude/claude-error500.ndjson";
const CLAUDE_LOG: &str = "testdata/claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl";
const CODEX: &str = "testdata/codex/agentcmd-stream-output-2.jsonl";
const CODEX_FAILED: &str = "testdata/codex/codex-failed.ndjson";
const CODEX_LOG: &str = "testdata/codex-log/codex-tool.session-log.jsonl";
const JSONRPC: &str = "testdata/jsonrpc/app-server.jsonl";

/// One event of `ndjq events -f json`. Unknown keys are refused: docs/REFERENCE.md ("Normalized
/// events") lists the keys of each kind (plus `message` for system and `text` for result, see
/// src/event/).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Event {
    line: u64,
    file: String,
    session: Option<String>,
    kind: String,
    uuid: Option<String>,
    message_id: Option<String>,
    id: Option<Value>,
    tool_use_id: Option<String>,
    name: Option<String>,
    model: Option<String>,
    cwd: Option<String>,
    tools: Option<Vec<String>>,
    permission_mode: Option<String>,
    text: Option<String>,
    input: Option<Value>,
    is_error: Option<bool>,
    content: Option<Value>,
    output: Option<u64>,
    cache_creation: Option<u64>,
    cache_read: Option<u64>,
    success: Option<bool>,
    subtype: Option<String>,
    cost_usd: Option<f64>,
    duration_ms: Option<u64>,
    turns: Option<u64>,
    message: Option<String>,
    method: Option<String>,
    direction: Option<String>,
    error: Option<Value>,
    #[serde(rename = "type")]
    ty: Option<String>,
    raw: Option<Value>,
}

impl Event {
    fn id_str(&self) -> Option<&str> {
        self.id.as_ref().and_then(Value::as_str)
    }
}

/// The keys of a JSON object in the order they are written.
struct KeyOrder(Vec<String>);

impl<'de> Deserialize<'de> for KeyOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = KeyOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(KeyOrder(keys))
            }
        }
        d.deserialize_map(Keys)
    }
}

/// The keys of each kind, in the documented order, after line, file, session and kind.
fn spec_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "init" => &["model", "cwd", "tools", "permission_mode"],
        "user" => &["uuid", "text"],
        "text" => &["uuid", "message_id", "text"],
        "thinking" => &["text"],
        "tool_use" => &["id", "name", "input"],
        "tool_result" => &["tool_use_id", "is_error", "content"],
        "usage" => &[
            "message_id",
            "model",
            "input",
            "output",
            "cache_creation",
            "cache_read",
        ],
        "result" => &[
            "success",
            "is_error",
            "subtype",
            "cost_usd",
            "duration_ms",
            "turns",
            "input",
            "output",
            "text",
        ],
        "system" => &["subtype", "message", "model"],
        "rpc" => &["id", "method", "direction", "error"],
        "unknown" => &["type", "raw"],
        other => panic!("kind `{other}` is not in docs/REFERENCE.md, \"Normalized events\""),
    }
}

/// `ndjq SUBCOMMAND --color never ARGS` in a clean environment: (stdout, stderr, status).
fn run(subcommand: &str, args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = common::ndjq_sub(subcommand)
        .args(args)
        .output()
        .expect("ndjq runs");
    (
        out.stdout,
        show(&out.stderr),
        out.status.code().expect("exit code"),
    )
}

/// Parses NDJSON events, checking the key order of every line on the way.
fn parse_events(stdout: &[u8]) -> Vec<Event> {
    let text = std::str::from_utf8(stdout).expect("events are UTF-8");
    text.lines()
        .map(|l| {
            let event: Event =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("not an event ({e}): {l}"));
            let KeyOrder(keys) = serde_json::from_str(l).expect("an object");
            let head: Vec<&str> = keys.iter().take(4).map(String::as_str).collect();
            let want_head: &[&str] = if event.session.is_some() {
                &["line", "file", "session", "kind"]
            } else {
                &["line", "file", "kind"]
            };
            assert_eq!(head[..want_head.len()], *want_head, "key order of {l}");
            let rest: Vec<&str> = keys[want_head.len()..].iter().map(String::as_str).collect();
            let spec = spec_keys(&event.kind);
            let order: Vec<&str> = spec.iter().copied().filter(|k| rest.contains(k)).collect();
            assert_eq!(
                rest, order,
                "keys of a {} event, in the documented order: {l}",
                event.kind
            );
            event
        })
        .collect()
}

/// `ndjq events -f json FILES...`, parsed; it must succeed.
fn events(files: &[&str]) -> Vec<Event> {
    let mut args = vec!["-f", "json"];
    args.extend_from_slice(files);
    let (stdout, stderr, code) = run("events", &args);
    assert_eq!(code, 0, "ndjq events {files:?}: {stderr}");
    parse_events(&stdout)
}

/// The parsed records of a file with their 1-based line numbers (lines that do not parse
/// are left out).
fn records(file: &str) -> Vec<(u64, Value)> {
    lines(&read(data(file)))
        .iter()
        .enumerate()
        .filter_map(|(i, l)| parse(l).map(|v| (i as u64 + 1, v)))
        .collect()
}

fn of_kind<'e>(events: &'e [Event], kind: &str) -> Vec<&'e Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

/// Compares with a golden file, or writes it when `NDJQ_BLESS` is set.
fn golden(name: &str, actual: &[u8]) {
    if std::env::var_os("NDJQ_BLESS").is_some() {
        let path = data(&format!("testdata/expected/{name}"));
        std::fs::write(&path, actual).expect("write golden file");
    }
    support::assert_golden(name, actual);
}

/// The text and CSV output of `file` equal their golden files.
fn check_goldens(file: &str, name: &str) {
    for (format, ext) in [("text", "txt"), ("csv", "csv")] {
        let (stdout, stderr, code) = run("events", &["-f", format, file]);
        assert_eq!(code, 0, "ndjq events -f {format} {file}: {stderr}");
        assert_eq!(stderr, "", "a clean capture has no diagnostics");
        golden(&format!("{name}.events.{ext}"), &stdout);
        if format == "csv" {
            check_csv_shape(&stdout);
        }
    }
}

/// Every CSV row has the header's columns, and the header is the fixed list.
fn check_csv_shape(bytes: &[u8]) {
    let mut reader = csv::Reader::from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .expect("a header row")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header[..4], ["line", "file", "session", "kind"]);
    assert_eq!(header.len(), 31, "{header:?}");
    for row in reader.records() {
        let row = row.expect("a CSV row");
        assert_eq!(row.len(), header.len());
    }
}

// --- golden files: one capture per dialect ----------------------------------------------

#[test]
fn golden_claude_stream_json() {
    check_goldens(CLAUDE_TOOL, "claude-tool");
}

#[test]
fn golden_claude_session_log() {
    check_goldens(CLAUDE_LOG, "claude-log-hook-stop");
}

#[test]
fn golden_codex_exec() {
    check_goldens(CODEX, "codex-stream-output-2");
}

#[test]
fn golden_codex_session_log() {
    check_goldens(CODEX_LOG, "codex-log-tool");
}

#[test]
fn golden_jsonrpc_app_server() {
    check_goldens(JSONRPC, "jsonrpc-app-server");
}

// --- Claude stream-json ------------------------------------------------------------------

/// Per message id, in order of first appearance: the last usage snapshot and its line.
fn last_usage_per_message(file: &str) -> Vec<(String, u64, Value)> {
    let mut order = Vec::new();
    let mut last: BTreeMap<String, (u64, Value)> = BTreeMap::new();
    for (line, v) in records(file) {
        if type_of(&v) != Some("assistant") {
            continue;
        }
        let id = v["message"]["id"].as_str().expect("message id").to_string();
        if !last.contains_key(&id) {
            order.push(id.clone());
        }
        last.insert(id, (line, v["message"]["usage"].clone()));
    }
    order
        .into_iter()
        .map(|id| {
            let (line, usage) = last[&id].clone();
            (id, line, usage)
        })
        .collect()
}

#[test]
fn claude_usage_is_one_event_per_message_with_the_last_snapshot() {
    for file in [CLAUDE_TOOL, CLAUDE_MULTI, CLAUDE_ERROR] {
        let evs = events(&[file]);
        let usage = of_kind(&evs, "usage");
        let want = last_usage_per_message(file);
        assert_eq!(usage.len(), want.len(), "{file}: one usage per message id");
        for (got, (id, line, u)) in usage.iter().zip(&want) {
            assert_eq!(got.message_id.as_deref(), Some(id.as_str()), "{file}");
            assert_eq!(got.line, *line, "{file}: the line of the last snapshot");
            assert_eq!(got.input, Some(u["input_tokens"].clone()), "{file}");
            assert_eq!(got.output, u["output_tokens"].as_u64(), "{file}");
            assert_eq!(
                got.cache_creation,
                u["cache_creation_input_tokens"].as_u64(),
                "{file}"
            );
            assert_eq!(
                got.cache_read,
                u["cache_read_input_tokens"].as_u64(),
                "{file}"
            );
            assert!(got.model.is_some(), "{file}: usage names its model");
        }
        // Held usage is emitted before the result that ends the session.
        let result_pos = evs.iter().position(|e| e.kind == "result").expect("result");
        assert!(
            evs[..result_pos]
                .iter()
                .filter(|e| e.kind == "usage")
                .count()
                == want.len()
        );
    }
}

#[test]
fn claude_usage_keeps_the_last_of_snapshots_that_differ() {
    // Transcripts repeat a message's usage, output growing (testdata/corpus/SCHEMA-NOTES.md §2).
    let dir = common::tempdir();
    let line = |output: u64, block: &str| {
        format!(
            r#"{{"parentUuid":null,"sessionId":"s1","type":"assistant","uuid":"u{output}","message":{{"id":"msg_1","model":"m","content":[{block}],"usage":{{"input_tokens":3,"output_tokens":{output},"cache_creation_input_tokens":0,"cache_read_input_tokens":7}}}}}}"#
        )
    };
    let text = format!(
        "{}\n{}\n{}\n",
        line(2, r#"{"type":"thinking","thinking":"","signature":"abc"}"#),
        line(5, r#"{"type":"text","text":"hi"}"#),
        line(
            40,
            r#"{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/x"}}"#
        ),
    );
    let path = common::write_file(dir.path(), "t.jsonl", text.as_bytes());
    let evs = events(&[path.to_str().expect("utf-8 path")]);
    let kinds: Vec<&str> = evs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["thinking", "text", "tool_use", "usage"]);
    assert_eq!(
        evs[0].text.as_deref(),
        Some(""),
        "a thinking block with only a signature"
    );
    let usage = &evs[3];
    assert_eq!(
        (usage.line, usage.output, usage.input.clone()),
        (3, Some(40), Some(Value::from(3)))
    );
    assert!(evs.iter().all(|e| e.session.as_deref() == Some("s1")));
}

#[test]
fn claude_tool_uses_and_results_pair_up() {
    for file in [CLAUDE_TOOL, CLAUDE_MULTI, CLAUDE_LOG] {
        let evs = events(&[file]);
        let uses: Vec<&str> = of_kind(&evs, "tool_use")
            .iter()
            .map(|e| e.id_str().expect("tool_use id"))
            .collect();
        let results: Vec<&str> = of_kind(&evs, "tool_result")
            .iter()
            .map(|e| e.tool_use_id.as_deref().expect("tool_use_id"))
            .collect();
        assert!(!uses.is_empty(), "{file} has tool calls");
        assert_eq!(uses, results, "{file}: each call answered, in order");
        // Expected from the JSON: the tool_use blocks of the assistant lines.
        let mut want = Vec::new();
        for (line, v) in records(file) {
            for block in v["message"]["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_use" {
                    want.push((
                        line,
                        block["id"].clone(),
                        block["name"].clone(),
                        block["input"].clone(),
                    ));
                }
            }
        }
        let got: Vec<(u64, Value, Value, Value)> = of_kind(&evs, "tool_use")
            .iter()
            .map(|e| {
                (
                    e.line,
                    e.id.clone().expect("id"),
                    Value::from(e.name.clone().expect("name")),
                    e.input.clone().expect("input"),
                )
            })
            .collect();
        assert_eq!(got, want, "{file}");
        for r in of_kind(&evs, "tool_result") {
            assert_eq!(
                r.is_error,
                Some(false),
                "{file}: is_error absent means false"
            );
            assert!(r.content.as_ref().is_some_and(Value::is_string));
        }
    }
}

#[test]
fn claude_init_text_and_result_carry_their_fields() {
    let evs = events(&[CLAUDE_TOOL]);
    let recs = records(CLAUDE_TOOL);
    let session = recs[0].1["session_id"]
        .as_str()
        .expect("session")
        .to_string();
    assert!(evs.iter().all(|e| e.session.as_deref() == Some(&session)));
    assert!(evs.iter().all(|e| e.file == CLAUDE_TOOL));

    let init = &evs[0];
    assert_eq!(init.kind, "init");
    assert_eq!(init.model.as_deref(), recs[0].1["model"].as_str());
    assert_eq!(init.cwd.as_deref(), recs[0].1["cwd"].as_str());
    assert_eq!(init.permission_mode.as_deref(), Some("default"));
    let tools: Vec<String> = serde_json::from_value(recs[0].1["tools"].clone()).expect("tools");
    assert_eq!(init.tools.as_ref(), Some(&tools));

    let texts = of_kind(&evs, "text");
    let want: Vec<(u64, &str, &str)> = recs
        .iter()
        .filter(|(_, v)| type_of(v) == Some("assistant"))
        .flat_map(|(line, v)| {
            v["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "text")
                .map(move |b| {
                    (
                        *line,
                        v["uuid"].as_str().expect("uuid"),
                        b["text"].as_str().expect("text"),
                    )
                })
        })
        .collect();
    let got: Vec<(u64, &str, &str)> = texts
        .iter()
        .map(|e| {
            (
                e.line,
                e.uuid.as_deref().expect("uuid"),
                e.text.as_deref().expect("text"),
            )
        })
        .collect();
    assert_eq!(got, want);

    let (line, result) = recs.last().expect("result line");
    let r = evs.last().expect("events");
    assert_eq!((r.kind.as_str(), r.line), ("result", *line));
    assert_eq!(r.success, Some(true));
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.subtype.as_deref(), Some("success"));
    assert_eq!(r.cost_usd, result["total_cost_usd"].as_f64());
    assert_eq!(r.duration_ms, result["duration_ms"].as_u64());
    assert_eq!(r.turns, result["num_turns"].as_u64());
    assert_eq!(r.input, Some(result["usage"]["input_tokens"].clone()));
    assert_eq!(r.output, result["usage"]["output_tokens"].as_u64());
}

#[test]
fn claude_api_failure_reported_as_success_subtype_is_an_error_result() {
    let evs = events(&[CLAUDE_ERROR]);
    let results = of_kind(&evs, "result");
    assert_eq!(results.len(), 1);
    let r = results[0];
    assert_eq!(r.subtype.as_deref(), Some("success"));
    assert_eq!(r.is_error, Some(true));
    assert_eq!(r.success, Some(false), "is_error wins over the subtype");
    assert!(r
        .text
        .as_deref()
        .is_some_and(|t| t.starts_with("API Error: 500")));
    let retries = of_kind(&evs, "system");
    assert_eq!(retries.len(), 10);
    assert!(retries
        .iter()
        .all(|e| e.subtype.as_deref() == Some("api_retry")
            && e.message.as_deref() == Some("server_error")));

    // The text transcript shows it in words.
    let (stdout, _, code) = run("events", &["-f", "text", CLAUDE_ERROR]);
    assert_eq!(code, 0);
    let text = show(&stdout);
    assert!(
        text.contains("result    ✗ error (subtype success)"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "· 1 error · tokens 0 in, 0 out, 0 cache read, 0 cache write · cost $0.0000\n"
        ),
        "{text}"
    );
}

// --- Codex exec --------------------------------------------------------------------------

#[test]
fn codex_items_map_to_tool_calls_text_and_a_result() {
    let evs = events(&[CODEX]);
    let recs = records(CODEX);
    let thread = recs[0].1["thread_id"].as_str().expect("thread id");
    assert!(evs.iter().all(|e| e.session.as_deref() == Some(thread)));
    let kinds: Vec<&str> = evs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "init",
            "thinking",
            "tool_use",
            "tool_result",
            "text",
            "usage",
            "result"
        ]
    );
    // The tool_use comes at item.started, once; its result at item.completed.
    let (started, completed) = (&recs[3], &recs[4]);
    assert_eq!(evs[2].line, started.0);
    assert_eq!(evs[2].id_str(), started.1["item"]["id"].as_str());
    assert_eq!(evs[2].name.as_deref(), Some("command_execution"));
    assert_eq!(
        evs[2].input,
        Some(serde_json::json!({"command": started.1["item"]["command"]}))
    );
    assert_eq!(evs[3].line, completed.0);
    assert_eq!(
        evs[3].tool_use_id.as_deref(),
        completed.1["item"]["id"].as_str()
    );
    assert_eq!(evs[3].is_error, Some(false));
    assert_eq!(
        evs[3].content,
        Some(completed.1["item"]["aggregated_output"].clone())
    );
    assert_eq!(evs[4].text.as_deref(), recs[5].1["item"]["text"].as_str());

    // `input` is the part not read from cache, as for every agent (Codex's input_tokens
    // includes its cached part).
    let usage = &recs[6].1["usage"];
    let cached = usage["cached_input_tokens"].as_u64().expect("cached");
    assert!(cached > 0, "the capture reads from cache");
    let input = usage["input_tokens"].as_u64().expect("input") - cached;
    assert_eq!(evs[5].input, Some(serde_json::json!(input)));
    assert_eq!(evs[5].output, usage["output_tokens"].as_u64());
    assert_eq!(evs[5].cache_read, usage["cached_input_tokens"].as_u64());
    assert_eq!((evs[6].success, evs[6].is_error), (Some(true), Some(false)));
    assert_eq!(evs[6].output, usage["output_tokens"].as_u64());
}

#[test]
fn codex_failed_turn_is_an_unsuccessful_result_after_retry_notices() {
    let evs = events(&[CODEX_FAILED]);
    let recs = records(CODEX_FAILED);
    let errors: Vec<(u64, &str)> = recs
        .iter()
        .filter(|(_, v)| type_of(v) == Some("error"))
        .map(|(l, v)| (*l, v["message"].as_str().expect("message")))
        .collect();
    let got: Vec<(u64, &str)> = of_kind(&evs, "system")
        .iter()
        .map(|e| {
            assert_eq!(e.subtype.as_deref(), Some("error"));
            (e.line, e.message.as_deref().expect("message"))
        })
        .collect();
    assert_eq!(got, errors, "every retry notice, none of them the end");
    let r = evs.last().expect("events");
    assert_eq!(r.kind, "result");
    assert_eq!((r.success, r.is_error), (Some(false), Some(true)));
    assert_eq!(
        r.text.as_deref(),
        recs.last().expect("last").1["error"]["message"].as_str()
    );
    assert!(
        of_kind(&evs, "usage").is_empty(),
        "a failed turn has no usage"
    );
}

#[test]
fn codex_tool_use_without_a_start_comes_at_completion_and_ids_restart_per_thread() {
    let dir = common::tempdir();
    let text = concat!(
        r#"{"type":"thread.started","thread_id":"t1"}"#,
        "\n",
        r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","status":"in_progress"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":1,"status":"failed"}}"#,
        "\n",
        r#"{"type":"thread.started","thread_id":"t2"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"a.rs","kind":"add"}],"status":"completed"}}"#,
        "\n",
    );
    let path = common::write_file(dir.path(), "c.jsonl", text.as_bytes());
    let evs = events(&[path.to_str().expect("utf-8 path")]);
    let got: Vec<(u64, &str, Option<&str>)> = evs
        .iter()
        .map(|e| (e.line, e.kind.as_str(), e.session.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (1, "init", Some("t1")),
            (2, "tool_use", Some("t1")),
            (3, "tool_result", Some("t1")),
            (4, "init", Some("t2")),
            (5, "tool_use", Some("t2")),
            (5, "tool_result", Some("t2")),
        ]
    );
    assert_eq!(evs[2].is_error, Some(true), "status failed and exit code 1");
    assert_eq!(evs[4].name.as_deref(), Some("file_change"));
    assert_eq!(
        evs[4].input,
        Some(serde_json::json!([{"path":"a.rs","kind":"add"}]))
    );
    assert_eq!(evs[5].is_error, Some(false));
}

// --- Codex session log -------------------------------------------------------------------

#[test]
fn codex_log_reads_the_conversation_from_response_items() {
    let evs = events(&[CODEX_LOG]);
    let recs = records(CODEX_LOG);
    let meta = &recs[0].1;
    let session = meta["payload"]["id"].as_str().expect("session id");
    assert!(evs.iter().all(|e| e.session.as_deref() == Some(session)));
    assert_eq!(evs[0].kind, "init");
    assert_eq!(evs[0].cwd.as_deref(), meta["payload"]["cwd"].as_str());

    // Usage: one per token_count with info, from last_token_usage.
    let want: Vec<(u64, Value)> = recs
        .iter()
        .filter(|(_, v)| v["payload"]["type"] == "token_count" && !v["payload"]["info"].is_null())
        .map(|(l, v)| (*l, v["payload"]["info"]["last_token_usage"].clone()))
        .collect();
    let usage = of_kind(&evs, "usage");
    assert_eq!(usage.len(), want.len());
    for (e, (line, u)) in usage.iter().zip(&want) {
        assert_eq!(e.line, *line);
        let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
        let input = u["input_tokens"].as_u64().expect("input") - cached;
        assert_eq!(
            e.input,
            Some(serde_json::json!(input)),
            "input without the cached part"
        );
        assert_eq!(e.output, u["output_tokens"].as_u64());
        assert_eq!(e.cache_read, u["cached_input_tokens"].as_u64());
        assert_eq!(
            e.model.as_deref(),
            Some("gpt-5.5"),
            "the turn_context model"
        );
    }

    // Tool call: function_call → tool_use with parsed arguments; its output → tool_result.
    let calls: Vec<&(u64, Value)> = recs
        .iter()
        .filter(|(_, v)| v["payload"]["type"] == "function_call")
        .collect();
    let uses = of_kind(&evs, "tool_use");
    assert_eq!(uses.len(), calls.len());
    for (e, (line, v)) in uses.iter().zip(&calls) {
        let p = &v["payload"];
        assert_eq!(e.line, *line);
        assert_eq!(e.id_str(), p["call_id"].as_str());
        assert_eq!(e.name.as_deref(), p["name"].as_str());
        let args: Value =
            serde_json::from_str(p["arguments"].as_str().expect("string")).expect("JSON");
        assert_eq!(e.input.as_ref(), Some(&args));
    }
    let results = of_kind(&evs, "tool_result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].tool_use_id, uses[0].id_str().map(str::to_string));
    assert_eq!(results[0].is_error, Some(false));

    // The user's prompt appears once, though the log repeats it in an event_msg.
    let prompt = "Run `echo hi` in a shell and tell me what it printed.";
    let users: Vec<&Event> = of_kind(&evs, "user")
        .into_iter()
        .filter(|e| e.text.as_deref() == Some(prompt))
        .collect();
    assert_eq!(users.len(), 1);
    let texts = of_kind(&evs, "text");
    assert_eq!(texts.len(), 1, "the assistant message once");
    let r = evs.last().expect("events");
    assert_eq!((r.kind.as_str(), r.success), ("result", Some(true)));
}

// --- JSON-RPC ----------------------------------------------------------------------------

#[test]
fn jsonrpc_messages_are_requests_responses_and_notifications() {
    let evs = events(&[JSONRPC]);
    let recs = records(JSONRPC);
    assert_eq!(evs.len(), recs.len(), "one rpc event per message");
    let mut pending: BTreeMap<String, String> = BTreeMap::new();
    for (e, (line, v)) in evs.iter().zip(&recs) {
        assert_eq!((e.kind.as_str(), e.line), ("rpc", *line));
        let method = v["method"].as_str();
        let want_direction = match (method, v.get("id")) {
            (Some(_), Some(_)) => "request",
            (Some(_), None) => "notification",
            (None, Some(_)) => "response",
            (None, None) => panic!("not JSON-RPC: {v}"),
        };
        assert_eq!(e.direction.as_deref(), Some(want_direction), "line {line}");
        assert_eq!(e.id.as_ref(), v.get("id"), "line {line}: the id as JSON");
        assert_eq!(e.error.as_ref(), v.get("error"), "line {line}");
        let thread = v["params"]["threadId"]
            .as_str()
            .or(v["params"]["thread"]["id"].as_str())
            .or(v["result"]["thread"]["id"].as_str());
        assert_eq!(e.session.as_deref(), thread, "line {line}");
        let key = v.get("id").map(Value::to_string);
        match want_direction {
            "request" => {
                pending.insert(key.expect("id"), method.expect("method").to_string());
                assert_eq!(e.method.as_deref(), method);
            }
            "response" => {
                let asked = pending.remove(&key.expect("id"));
                assert_eq!(e.method, asked, "line {line}: the method of its request");
            }
            _ => assert_eq!(e.method.as_deref(), method),
        }
    }
    let errors: Vec<&Event> = evs.iter().filter(|e| e.error.is_some()).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].error.as_ref().expect("error")["code"], -32600);
}

// --- unknown types, generic input, bad records ---------------------------------------------

#[test]
fn bad_records_make_no_events_and_unknown_types_come_whole() {
    let (stdout, stderr, code) = run("events", &["-f", "json", MIXED]);
    assert_eq!(code, 0, "bad records are not a failure of events: {stderr}");
    let evs = parse_events(&stdout);
    let lines_with_events: BTreeSet<u64> = evs.iter().map(|e| e.line).collect();
    for bad in [2, 7, 9, 12] {
        assert!(
            !lines_with_events.contains(&bad),
            "line {bad} is not valid JSON"
        );
    }
    let unknown = of_kind(&evs, "unknown");
    assert_eq!(unknown.len(), 1);
    let mixed = read(data(MIXED));
    let raw_line = lines(&mixed)[4];
    assert_eq!(unknown[0].line, 5);
    assert_eq!(unknown[0].ty.as_deref(), Some("heartbeat"));
    assert_eq!(unknown[0].raw.as_ref(), parse(raw_line).as_ref());
    // The raw record keeps its key order: it is copied, not rebuilt through a map.
    let text = show(&stdout);
    let trimmed = show(raw_line.strip_suffix(b"\n").expect("a full line"));
    assert!(text.contains(&format!("\"raw\":{trimmed}}}")), "{text}");

    assert!(stderr.contains("error[PROTO_TRUNCATED]"), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "ndjq: 12 records: {} events; 3 invalid, 1 empty; 1 error, 4 warnings\n",
            evs.len()
        )),
        "{stderr}"
    );
    let (_, quiet, code) = run("events", &["-q", "-f", "json", MIXED]);
    assert_eq!((quiet.as_str(), code), ("", 0));
}

#[test]
fn rejects_saves_the_invalid_records_byte_for_byte() {
    let dir = common::tempdir();
    let rejects = dir.path().join("bad.ndjson");
    let (_, _, code) = run(
        "events",
        &["-q", "--rejects", rejects.to_str().expect("utf-8"), MIXED],
    );
    assert_eq!(code, 0);
    let mixed = read(data(MIXED));
    assert_eq!(
        show(&common::read_file(&rejects)),
        show(&support::pick(&mixed, &[2, 9, 12]))
    );
}

#[test]
fn generic_records_are_unknown_events_with_their_type_field() {
    let dir = common::tempdir();
    let path = common::write_file(
        dir.path(),
        "g.jsonl",
        b"{\"z\":1,\"ev\":{\"kind\":\"tick\"},\"a\":[2,3],\"session_id\":\"s9\"}\n[1]\n",
    );
    let path = path.to_str().expect("utf-8 path");
    let (stdout, _, code) = run(
        "events",
        &[
            "-f",
            "json",
            "--dialect",
            "generic",
            "--type-field",
            "ev.kind",
            path,
        ],
    );
    assert_eq!(code, 0);
    let evs = parse_events(&stdout);
    assert_eq!(evs.len(), 2);
    assert_eq!(evs[0].ty.as_deref(), Some("tick"));
    assert_eq!(evs[0].session.as_deref(), Some("s9"));
    assert_eq!(evs[1].ty, None);
    assert_eq!(evs[1].raw, Some(serde_json::json!([1])));
    assert!(
        show(&stdout).contains(r#""raw":{"z":1,"ev":{"kind":"tick"},"a":[2,3],"session_id":"s9"}"#)
    );
}

#[test]
fn missing_input_is_exit_2_and_the_other_inputs_still_come_out() {
    let (stdout, stderr, code) = run("events", &["-f", "json", "no/such/file.jsonl", CODEX]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no/such/file.jsonl"), "{stderr}");
    assert_eq!(parse_events(&stdout), events(&[CODEX]));
}

#[test]
fn several_inputs_keep_their_own_sessions_and_usage() {
    let both = events(&[CLAUDE_TOOL, CODEX]);
    let mut one_by_one = events(&[CLAUDE_TOOL]);
    one_by_one.extend(events(&[CODEX]));
    assert_eq!(
        both, one_by_one,
        "nothing carries over from one input to the next"
    );
}

// --- formats and options -----------------------------------------------------------------

#[test]
fn default_format_off_a_terminal_is_json_and_stdin_works() {
    let input = read(data(CODEX));
    let out = common::ndjq_sub("events")
        .write_stdin(input)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    let evs = parse_events(&out.stdout);
    assert_eq!(evs.len(), 7);
    assert!(evs.iter().all(|e| e.file == "-"));
}

#[test]
fn text_is_coloured_only_when_asked_and_never_passes_control_characters_through() {
    let dir = common::tempdir();
    // A transcript system line whose content holds ANSI escapes (Claude Code 1.0.72).
    let path = common::write_file(
        dir.path(),
        "ansi.jsonl",
        b"{\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"system\",\"content\":\"\\u001b[1mStop\\u001b[22m hook ran\",\"level\":\"info\"}\n",
    );
    let path = path.to_str().expect("utf-8 path");
    let (plain, _, _) = run("events", &["-f", "text", path]);
    let plain = show(&plain);
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    assert!(
        plain.contains("system    system: \\e[1mStop\\e[22m hook ran"),
        "{plain}"
    );

    let out = common::ndjq()
        .args(["events", "--color", "always", "-f", "text", CLAUDE_TOOL])
        .output()
        .expect("ndjq runs");
    let coloured = show(&out.stdout);
    assert!(coloured.contains("\u{1b}["), "colour was asked for");
    let (never, _, _) = run("events", &["-f", "text", CLAUDE_TOOL]);
    assert_eq!(support::strip_ansi(&coloured), show(&never));
}

#[test]
fn text_summary_counts_events_tools_errors_tokens_and_cost() {
    let (stdout, _, code) = run("events", &["-f", "text", CLAUDE_MULTI]);
    assert_eq!(code, 0);
    let text = show(&stdout);
    let evs = events(&[CLAUDE_MULTI]);
    let usage = of_kind(&evs, "usage");
    let sum = |f: fn(&Event) -> Option<u64>| usage.iter().map(|e| f(e).unwrap_or(0)).sum::<u64>();
    let result = &of_kind(&evs, "result")[0];
    let cost = result.cost_usd.expect("cost");
    // Input and output are the result's (the billed totals: the usage events carry the
    // early per-message snapshots, output 1 each); the cache counts are the usage sums.
    let result_input = result
        .input
        .as_ref()
        .and_then(Value::as_u64)
        .expect("input");
    let result_output = result.output.expect("output");
    assert!(result_output > sum(|e| e.output), "the snapshots are early");
    let want = format!(
        "── {} events · 2 tool calls · 0 errors · tokens {} in, {} out, {} cache read, {} cache write · cost ${cost:.4}\n",
        evs.len(),
        group(result_input),
        group(result_output),
        group(sum(|e| e.cache_read)),
        group(sum(|e| e.cache_creation)),
    );
    assert!(text.ends_with(&want), "{text}\nwant: {want}");
}

#[test]
fn text_summary_of_a_codex_stream_adds_up_every_turn() {
    // Two turns: each turn.completed's usage is that turn's, so the summary is their sum,
    // the figures `stats` reports, not the last turn's.
    let file = "testdata/stats/codex-exec-tools.jsonl";
    let (stdout, _, code) = run("events", &["-f", "text", file]);
    assert_eq!(code, 0);
    let evs = events(&[file]);
    let usage = of_kind(&evs, "usage");
    assert_eq!(usage.len(), 2, "one usage per turn");
    let input: u64 = usage
        .iter()
        .map(|e| e.input.as_ref().and_then(Value::as_u64).unwrap_or(0))
        .sum();
    let output: u64 = usage.iter().map(|e| e.output.unwrap_or(0)).sum();
    let (stats, _, _) = run("stats", &["-f", "json", file]);
    let stats: Value = serde_json::from_slice(&stats).expect("stats JSON");
    assert_eq!(stats["tokens"]["input"].as_u64(), Some(input));
    assert_eq!(stats["tokens"]["output"].as_u64(), Some(output));
    let text = show(&stdout);
    let want = format!(" · tokens {} in, {} out, ", group(input), group(output));
    assert!(text.contains(&want), "{text}\nwant: {want}");
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// --- filter --normalize ------------------------------------------------------------------

#[test]
fn filter_normalize_gives_the_events_of_the_selected_records() {
    for file in [CLAUDE_TOOL, CLAUDE_MULTI, MIXED] {
        let (stdout, stderr, code) = run(
            "filter",
            &["-q", "--normalize", "--type", "assistant", file],
        );
        assert_eq!(code, 0, "{stderr}");
        let assistant_lines: BTreeSet<u64> = records(file)
            .into_iter()
            .filter(|(_, v)| type_of(v) == Some("assistant"))
            .map(|(l, _)| l)
            .collect();
        let want: Vec<Event> = events(&[file])
            .into_iter()
            .filter(|e| assistant_lines.contains(&e.line))
            .collect();
        assert!(!want.is_empty());
        assert_eq!(parse_events(&stdout), want, "{file}");
    }
}

#[test]
fn filter_normalize_keeps_the_session_of_records_it_does_not_select() {
    let (stdout, _, code) = run(
        "filter",
        &["--normalize", "--type", "item.completed", CODEX],
    );
    assert_eq!(code, 0);
    let evs = parse_events(&stdout);
    let thread = records(CODEX)[0].1["thread_id"]
        .as_str()
        .expect("thread")
        .to_string();
    assert_eq!(
        evs.len(),
        4,
        "reasoning, tool call and result, message: {evs:?}"
    );
    assert!(evs.iter().all(|e| e.session.as_deref() == Some(&thread)));
}

#[test]
fn filter_normalize_formats() {
    let (csv, _, code) = run(
        "filter",
        &["--normalize", "-f", "csv", "--type", "result", CLAUDE_TOOL],
    );
    assert_eq!(code, 0);
    check_csv_shape(&csv);
    let rows: Vec<&[u8]> = lines(&csv);
    assert_eq!(rows.len(), 2, "the header and the result: {}", show(&csv));
    assert!(rows[1].starts_with(format!("6,{CLAUDE_TOOL},").as_bytes()));

    let (text, _, code) = run(
        "filter",
        &["--normalize", "-f", "text", "--type", "result", CLAUDE_TOOL],
    );
    assert_eq!(code, 0);
    assert!(show(&text).starts_with(&format!("── {CLAUDE_TOOL}\nresult    ✓ success")));

    // Nothing selected: no event and exit 1, like grep.
    let (none, _, code) = run("filter", &["--normalize", "--type", "nothing", CLAUDE_TOOL]);
    assert_eq!((none.len(), code), (0, 1));
    // --format needs --normalize; --normalize and --count exclude each other.
    assert_eq!(run("filter", &["-f", "csv", CLAUDE_TOOL]).2, 2);
    assert_eq!(run("filter", &["--normalize", "-c", CLAUDE_TOOL]).2, 2);
}

// --- streaming -----------------------------------------------------------------------------

#[test]
fn live_pipe_events_come_out_as_records_arrive() {
    let tool = read(data(CLAUDE_TOOL));
    let init = lines(&tool)[0].to_vec();
    let mut child = common::ndjq_std("events")
        .args(["-f", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        let mut line = Vec::new();
        let res = stdout.read_until(b'\n', &mut line).map(|_| line);
        let _ = tx.send(res);
        let mut rest = Vec::new();
        let _ = stdout.read_to_end(&mut rest);
        rest
    });
    stdin.write_all(&init).expect("write");
    stdin.flush().expect("flush");
    let first = rx.recv_timeout(Duration::from_secs(5));
    drop(stdin);
    let status = child.wait().expect("wait");
    let rest = reader.join().expect("reader thread");
    let first = first
        .expect("the init event came out before stdin was closed (line-buffered)")
        .expect("read stdout");
    let evs = parse_events(&first);
    assert_eq!(evs[0].kind, "init");
    assert!(rest.is_empty(), "{}", show(&rest));
    assert_eq!(status.code(), Some(0));
}

/// Codex's older outputs are a JSON document in a string, `{"output": …, "metadata": …}`;
/// the event's content is that document's `output` string, written exactly as serde_json
/// writes it. Most are copied from the record as they are (`tool_output::document_output`
/// in src/dialect/codex_log/); a string serde_json would write otherwise (a `\u` or `\/`
/// escape), a repeated key, an `output` that is not a string, a document nested deeper than
/// ndjq reads (130 levels), or one that is not JSON, each come out as serde_json reads them.
#[test]
fn codex_document_outputs_come_out_as_serde_json_writes_them() {
    let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    let deeper = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    let documents: Vec<String> = vec![
        serde_json::json!({"output": "line1\nline2 \"quoted\" \\ back\ttab \u{1} é 😀", "metadata": {"exit_code": 0}}).to_string(),
        r#"{"output":"caf\u00e9 \/ slash","metadata":{"exit_code":1}}"#.to_string(),
        r#"{"output":"first","output":"second\nline","metadata":{"exit_code":0}}"#.to_string(),
        r#"{"output":"a string","output":5}"#.to_string(),
        format!(r#"{{"output":"under a deep one","metadata":{{"exit_code":0,"deep":{deep}}}}}"#),
        format!(r#"{{"output":"under one too deep","metadata":{{"deep":{deeper}}}}}"#),
        r#"{"output":"not closed","metadata":{"#.to_string(),
        "plain text, no document".to_string(),
    ];
    let dir = common::tempdir();
    let path = dir.path().join("rollout.jsonl");
    let mut text = String::from(concat!(
        r#"{"timestamp":"2025-11-23T09:46:47.164Z","type":"session_meta","#,
        r#""payload":{"id":"s-1","timestamp":"2025-11-23T09:46:47.164Z","cwd":"/w"}}"#,
        "\n"
    ));
    for (i, doc) in documents.iter().enumerate() {
        let line = serde_json::json!({
            "timestamp": "2025-11-23T09:46:48.000Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("c{i}"), "output": doc},
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&path, &text).expect("write the rollout");
    let file = path.to_str().expect("a UTF-8 path");
    let (stdout, stderr, code) = run("events", &["-f", "json", file]);
    assert_eq!(code, 0, "{stderr}");
    let out = String::from_utf8(stdout).expect("UTF-8");
    let results: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(r#""kind":"tool_result""#))
        .collect();
    assert_eq!(results.len(), documents.len(), "{out}");
    for (doc, line) in documents.iter().zip(&results) {
        // What serde_json makes of the document: its `output` when that is a string,
        // else the whole text.
        let want = match serde_json::from_str::<Value>(doc) {
            Ok(Value::Object(mut m)) => match m.remove("output") {
                Some(Value::String(s)) => s,
                _ => doc.clone(),
            },
            _ => doc.clone(),
        };
        let written = format!(
            r#""content":{}"#,
            serde_json::to_string(&want).expect("JSON")
        );
        assert!(line.contains(&written), "want {written} in {line}");
    }
    assert!(
        results[2].contains(r#""content":"second\nline""#),
        "the last key wins"
    );
    assert!(
        results[1].contains(r#""content":"café / slash""#),
        "{}",
        results[1]
    );
    // Read as text (the text and CSV views), a copied string is its value, unescaped.
    let (stdout, stderr, code) = run("events", &["-f", "text", file]);
    assert_eq!(code, 0, "{stderr}");
    let shown = String::from_utf8_lossy(&stdout);
    assert!(shown.contains("line2 \"quoted\" \\ back"), "{shown}");
    let (stdout, stderr, code) = run("events", &["-f", "csv", file]);
    assert_eq!(code, 0, "{stderr}");
    let csv = String::from_utf8_lossy(&stdout);
    assert!(csv.contains("line2 \"\"quoted\"\" \\ back\ttab"), "{csv}");
}
