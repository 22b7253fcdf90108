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

mod inputs;

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
