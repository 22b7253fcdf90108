//! `ndjq gaps` (and the same structural findings through `validate`): constructed streams
//! where every gap kind sits at a known line, and the report names exactly those; the real
//! captures of the corpus (testdata/corpus); the cap on tracked sets.

use crate::support;

use ndjq::diagnostic::Code;
use ndjq::gaps::GapTracker;
use ndjq::pipeline::{Options, Pipeline};
use std::path::Path;
use std::sync::Arc;
use support::{corpus_dir, ndjq, parse_validate, Diag};

/// `ndjq gaps -f json FILE`: the gaps, the summary and the exit code.
fn gaps(path: &Path, extra: &[&str]) -> (Vec<Diag>, support::Summary, Option<i32>) {
    let out = ndjq()
        .arg("gaps")
        .args(["-f", "json"])
        .args(extra)
        .arg(path)
        .output()
        .expect("ndjq runs");
    let (diags, summary) = parse_validate(&out.stdout);
    (diags, summary, out.status.code())
}

fn structural(code: &str) -> bool {
    ["SEQ_", "SESS_", "TOOL_", "RPC_"]
        .iter()
        .any(|p| code.starts_with(p))
}

fn lines_and_codes(diags: &[Diag]) -> Vec<(u64, &str)> {
    diags.iter().map(|d| (d.line, d.code.as_str())).collect()
}

/// The structural findings of `ndjq validate --gaps -f json FILE`.
fn validate_gaps(path: &Path) -> Vec<Diag> {
    let out = ndjq()
        .args(["validate", "--gaps", "-f", "json"])
        .arg(path)
        .output()
        .expect("ndjq runs");
    let (diags, _) = parse_validate(&out.stdout);
    diags.into_iter().filter(|d| structural(&d.code)).collect()
}

/// Writes `text` to a scratch file; checks `gaps` reports exactly `want` (in output order)
/// and that `validate` reports the same structural findings.
fn assert_gaps(name: &str, text: &str, extra: &[&str], want: &[(u64, &str)]) -> Vec<Diag> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    let (diags, summary, code) = gaps(&path, extra);
    assert_eq!(lines_and_codes(&diags), want, "{name}: {diags:#?}");
    assert_eq!(summary.records, text.lines().count() as u64);
    let failing = diags.iter().any(|d| d.severity != "info");
    assert_eq!(code, Some(if failing { 1 } else { 0 }), "{name}");

    if extra.is_empty() {
        assert_eq!(
            validate_gaps(&path),
            diags,
            "{name}: validate finds the same gaps"
        );
    }
    diags
}

#[test]
fn claude_stream_gaps_sit_where_they_are_planted() {
    let text = concat!(
        // 1: content before any init
        r#"{"type":"assistant","session_id":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"Bash","input":{}}]}}"#,
        "\n",
        // 2: the Bash call failed (info)
        r#"{"type":"user","session_id":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"no","is_error":true}]}}"#,
        "\n",
        // 3: a call never answered
        r#"{"type":"assistant","session_id":"s","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"Read","input":{}}]}}"#,
        "\n",
        // 4: an answer to no call
        r#"{"type":"user","session_id":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","content":"?"}]}}"#,
        "\n",
        // 5: an API error under subtype success
        r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":500,"session_id":"s"}"#,
        "\n",
        // 6-7: a second session with no result
        r#"{"type":"system","subtype":"init","session_id":"s2"}"#,
        "\n",
        r#"{"type":"assistant","session_id":"s2","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"hi"}]}}"#,
        "\n",
        // 8: an error subtype in the same input is an error result too
        r#"{"type":"result","subtype":"error_max_turns","is_error":false,"session_id":"s2"}"#,
        "\n",
        r#"{"type":"system","subtype":"init","session_id":"s3"}"#,
        "\n",
    );
    let diags = assert_gaps(
        "claude.ndjson",
        text,
        &[],
        &[
            (1, "SESS_NO_INIT"),
            (2, "TOOL_ERROR"),
            (4, "TOOL_ORPHAN_RESULT"),
            (5, "SESS_ERROR_RESULT"),
            (8, "SESS_ERROR_RESULT"),
            // At the end: the open call and the session of line 9, at their lines.
            (3, "TOOL_ORPHAN_USE"),
            (9, "SESS_NO_RESULT"),
        ],
    );
    assert!(diags[5]
        .message
        .contains("toolu_B (Read) at line 3 has no result"));
    assert!(diags[3].message.contains("api_error_status 500"));
    assert!(diags[4].message.contains("error_max_turns"));
}

#[test]
fn codex_exec_gaps_sit_where_they_are_planted() {
    let text = concat!(
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","status":"in_progress"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","status":"completed"}}"#,
        "\n",
        r#"{"type":"error","message":"Reconnecting... 1/5"}"#,
        "\n",
        r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
        "\n",
        // 6: exec resume: a new process
        r#"{"type":"thread.started","thread_id":"t"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"sleep 9","status":"in_progress"}}"#,
        "\n",
    );
    assert_gaps(
        "codex.jsonl",
        text,
        &[],
        &[
            // Before any thread.started (the retry notice on line 4 is not a result).
            (1, "SESS_NO_INIT"),
            (5, "SESS_ERROR_RESULT"),
            // At the end: the turn of line 7 and the item of line 8 never ended.
            (7, "SESS_NO_RESULT"),
            (8, "TOOL_ORPHAN_USE"),
        ],
    );
}

#[test]
fn jsonrpc_ids_are_matched_as_values() {
    let text = concat!(
        r#"{"id":1,"method":"initialize","params":{}}"#,
        "\n",
        r#"{"id":2,"method":"thread/start","params":{}}"#,
        "\n",
        // out of order is fine
        r#"{"id":2,"result":{}}"#,
        "\n",
        // the string "1" is not the number 1
        r#"{"id":"1","result":{}}"#,
        "\n",
        r#"{"id":1,"result":{}}"#,
        "\n",
        // answered twice
        r#"{"id":1,"result":{}}"#,
        "\n",
        // a server→client request, and its id reused while open
        r#"{"id":0,"method":"item/commandExecution/requestApproval","params":{}}"#,
        "\n",
        r#"{"id":0,"method":"item/fileChange/requestApproval","params":{}}"#,
        "\n",
        r#"{"method":"turn/started","params":{}}"#,
        "\n",
    );
    let diags = assert_gaps(
        "rpc.jsonl",
        text,
        &[],
        &[
            (4, "RPC_UNMATCHED_RESPONSE"),
            (6, "RPC_UNMATCHED_RESPONSE"),
            (8, "RPC_DUPLICATE_ID"),
            (8, "RPC_UNANSWERED"),
        ],
    );
    assert!(diags[3].message.contains("item/fileChange/requestApproval"));
}

#[test]
fn sequence_numbers_and_transcript_chains() {
    let text = "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":6}\n{\"seq\":6}\n{\"seq\":4}\n{\"seq\":7}\n";
    let diags = assert_gaps(
        "seq.ndjson",
        text,
        &[],
        &[
            (3, "SEQ_GAP"),
            (4, "SEQ_DUPLICATE"),
            (5, "SEQ_OUT_OF_ORDER"),
        ],
    );
    assert!(diags[0].message.contains("missing 3-5"), "{diags:?}");
    // A named field.
    let text = "{\"n\":10}\n{\"n\":12}\n";
    let diags = assert_gaps("n.ndjson", text, &["--seq-field", "n"], &[(2, "SEQ_GAP")]);
    assert!(diags[0].message.contains("missing 11"), "{diags:?}");

    let log = |uuid: &str, parent: &str, extra: &str| {
        format!(
            "{{\"parentUuid\":{parent},\"isSidechain\":false,\"sessionId\":\"s\",\"type\":\"user\",\
             \"uuid\":\"{uuid}\",\"timestamp\":\"t\",\"message\":{{\"role\":\"user\",\"content\":\"x\"}}{extra}}}\n"
        )
    };
    let mut text = String::from("{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"zz\"}\n");
    text += &log("a", "null", "");
    text += &log("b", "\"a\"", "");
    text += &log("c", "\"gone\"", ""); // line 4: broken chain
    text += &log("d", "null", ",\"logicalParentUuid\":\"c\"");
    text += &log("e", "\"d\"", "");
    let diags = assert_gaps("chain.jsonl", &text, &[], &[(4, "SEQ_GAP")]);
    assert!(diags[0]
        .message
        .contains("parentUuid gone never appeared (broken chain)"));
    // A subagent file starts from a uuid of the main session: not a gap.
    let side = text.replace("\"isSidechain\":false", "\"isSidechain\":true");
    assert_gaps("agent-x.jsonl", &side, &[], &[]);
}

#[test]
fn generated_seq_gaps_match_the_manifest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("f.ndjson");
    let manifest = dir.path().join("m.jsonl");
    let ok = std::process::Command::new(crate::common::ndjq_gen_path())
        // One gap in about 2000 lines: 8 MB holds some.
        .args([
            "stream",
            "--dialect",
            "claude",
            "--seq",
            "--size-mb",
            "8",
            "--manifest",
        ])
        .arg(&manifest)
        .arg("-o")
        .arg(&data)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("ndjq-gen runs")
        .success();
    assert!(ok, "ndjq-gen failed");
    let want: Vec<(u64, String)> = String::from_utf8(support::read(&manifest))
        .expect("UTF-8")
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("manifest JSON");
            (v["kind"] == "seq_gap").then(|| {
                let line = v["line"].as_u64().expect("line");
                let missing = v["missing"].as_u64().expect("missing");
                (line, format!("{missing}"))
            })
        })
        .collect();
    assert!(!want.is_empty(), "the generator planted seq gaps");
    let (diags, _, _) = gaps(&data, &["--seq-field", "seq"]);
    let got: Vec<(u64, String)> = diags
        .iter()
        .filter(|d| d.code == "SEQ_GAP")
        .map(|d| {
            // "seq jumps from A to B: ..." → B - A - 1 numbers missing
            let nums: Vec<u64> = d
                .message
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            (d.line, format!("{}", nums[1] - nums[0] - 1))
        })
        .collect();
    assert_eq!(got, want);
    assert!(diags
        .iter()
        .all(|d| d.code != "SEQ_DUPLICATE" && d.code != "SEQ_OUT_OF_ORDER"));
}

#[test]
fn the_truncated_codex_capture_has_no_result_and_nothing_else() {
    let path = corpus_dir().join("agentcmd/codex-exec/stream-output-multi-1.jsonl");
    let (diags, _, code) = gaps(&path, &[]);
    assert_eq!(lines_and_codes(&diags), [(2, "SESS_NO_RESULT")]);
    assert_eq!(code, Some(1));
}

#[test]
fn the_corpus_has_only_its_real_gaps() {
    // At warning or above: exactly the real properties of the captures (see real_gaps in
    // tests/it/corpus.rs, which checks the same through validate, TOOL_ERROR infos included).
    let dir = corpus_dir();
    let (diags, summary, code) = gaps(&dir, &[]);
    assert!(summary.files >= 40);
    let got: Vec<(String, u64, &str)> = diags
        .iter()
        .filter(|d| d.severity != "info")
        .map(|d| {
            let rel = Path::new(&d.file)
                .strip_prefix(&dir)
                .expect("under the corpus")
                .display()
                .to_string();
            (rel, d.line, d.code.as_str())
        })
        .collect();
    let want = [
        // Ends on an ExitPlanMode call waiting for the user's approval.
        (
            "agentcmd/claude-transcript/06381696-0074-49f8-863e-6ad4fac507f9.jsonl",
            14,
            "TOOL_ORPHAN_USE",
        ),
        // Copied while its last three tool calls were running.
        (
            "agentcmd/claude-transcript/full-session.jsonl",
            47,
            "TOOL_ORPHAN_USE",
        ),
        (
            "agentcmd/claude-transcript/full-session.jsonl",
            48,
            "TOOL_ORPHAN_USE",
        ),
        (
            "agentcmd/claude-transcript/full-session.jsonl",
            49,
            "TOOL_ORPHAN_USE",
        ),
        // Truncated after turn.started.
        (
            "agentcmd/codex-exec/stream-output-multi-1.jsonl",
            2,
            "SESS_NO_RESULT",
        ),
        // The API failed: is_error true and api_error_status 500 under subtype success.
        (
            "real-client/claude-error500.ndjson",
            13,
            "SESS_ERROR_RESULT",
        ),
        // turn.failed after six retry notices.
        ("real-client/codex-failed.ndjson", 9, "SESS_ERROR_RESULT"),
    ];
    let want: Vec<(String, u64, &str)> = want
        .iter()
        .map(|(f, l, c)| (f.to_string(), *l, *c))
        .collect();
    assert_eq!(got, want);
    assert!(diags
        .iter()
        .filter(|d| d.severity == "info")
        .all(|d| d.code == "TOOL_ERROR"));
    assert_eq!(code, Some(1));
}

#[test]
fn a_full_tracked_set_drops_its_oldest_and_says_so_once() {
    // 10 calls opened, 2 answered; a cap of 4.
    let mut text = String::new();
    for i in 0..10 {
        text += &format!(
            "{{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{{\"id\":\"m{i}\",\"role\":\"assistant\",\
             \"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"Bash\",\"input\":{{}}}}]}}}}\n"
        );
    }
    for i in [0, 9] {
        text += &format!(
            "{{\"type\":\"user\",\"session_id\":\"s\",\"message\":{{\"role\":\"user\",\
             \"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{i}\",\"content\":\"\"}}]}}}}\n"
        );
    }
    let mut pipeline = Pipeline::new(Options::default());
    let mut tracker = GapTracker::with_cap(None, 4);
    let name: Arc<str> = Arc::from("capped");
    pipeline
        .run(&name, text.as_bytes(), &mut tracker)
        .expect("reads");
    let found = tracker.take_found();
    let got: Vec<(u64, Code)> = found.iter().map(|d| (d.line, d.code)).collect();
    assert_eq!(
        got,
        [
            (1, Code::SessNoInit),
            // The fifth call fills the set: said once.
            (5, Code::ToolOrphanUse),
            // At the end, by line: the session never got its result; toolu_0 was dropped,
            // so its answer is not called an orphan (it may be one of the dropped);
            // toolu_9 is answered. Left open: 6, 7, 8.
            (1, Code::SessNoResult),
            (7, Code::ToolOrphanUse),
            (8, Code::ToolOrphanUse),
            (9, Code::ToolOrphanUse),
        ]
    );
    assert!(found[1].message.contains("more than 4 open tool calls"));
}

#[test]
fn rejects_keeps_the_invalid_records_byte_for_byte() {
    let dir = support::common::tempdir();
    let rejects = dir.path().join("bad.ndjson");
    let out = support::common::ndjq_sub("gaps")
        .args(["-f", "json", "--rejects"])
        .arg(&rejects)
        .arg("testdata/edge/mixed.ndjson")
        .output()
        .expect("ndjq runs");
    assert!(out.status.code().is_some());
    let input = support::common::read_file(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/edge/mixed.ndjson"
    )));
    // What serde_json refuses, line by line, in order (the last line has no newline).
    let expected: Vec<u8> = input
        .split_inclusive(|b| *b == b'\n')
        .filter(|line| {
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            !text.iter().all(|b| matches!(b, b' ' | b'\t'))
                && serde_json::from_slice::<serde_json::Value>(text).is_err()
        })
        .flat_map(|l| l.to_vec())
        .collect();
    assert!(!expected.is_empty());
    let saved = support::common::read_file(&rejects);
    let saved_lines: Vec<&[u8]> = saved.split_inclusive(|b| *b == b'\n').collect();
    let expected_lines: Vec<&[u8]> = expected.split_inclusive(|b| *b == b'\n').collect();
    assert_eq!(saved_lines.len(), expected_lines.len());
    for (s, e) in saved_lines.iter().zip(&expected_lines) {
        assert_eq!(
            s.strip_suffix(b"\n").unwrap_or(s),
            e.strip_suffix(b"\n").unwrap_or(e)
        );
    }
}

#[test]
fn thousands_of_open_calls_at_the_end_come_out_in_line_order() {
    // More open calls than one chunk of end findings (1,024): every one is reported, in
    // line order, after the session without a result that began on the same first line.
    let mut text = String::new();
    let mut want = vec![(1, "SESS_NO_RESULT")];
    for i in 0..2500u64 {
        text.push_str(&format!(
            r#"{{"type":"assistant","session_id":"s","message":{{"id":"m{i}","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{}}}}]}}}}"#
        ));
        text.push('\n');
        want.push((i + 1, "TOOL_ORPHAN_USE"));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("open.ndjson");
    std::fs::write(&path, &text).expect("write");
    let (diags, _, code) = gaps(&path, &[]);
    let found: Vec<(u64, &str)> = lines_and_codes(&diags)
        .into_iter()
        .filter(|(_, c)| *c != "SESS_NO_INIT")
        .collect();
    assert_eq!(found.len(), want.len());
    assert!(
        found == want,
        "first difference at {:?}",
        found.iter().zip(&want).position(|(a, b)| a != b)
    );
    assert_eq!(code, Some(1));
    assert_eq!(validate_gaps(&path), diags, "validate finds the same gaps");
}

/// A failed Codex tool is a TOOL_ERROR in `gaps` as in `stats` and `events`: an
/// exec item (status failed, a non-zero exit code, an MCP error), once per item even when
/// its line is repeated, and ids start again with each thread.
#[test]
fn failed_codex_exec_items_are_tool_errors_once_each() {
    let text = concat!(
        r#"{"type":"thread.started","thread_id":"th-a"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"cat x","aggregated_output":"","exit_code":1,"status":"completed"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"d","tool":"search","arguments":{},"result":null,"error":{"message":"down"},"status":"failed"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"d","tool":"search","arguments":{},"result":null,"error":{"message":"down"},"status":"failed"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"done","status":"failed"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}"#,
        "\n",
        r#"{"type":"thread.started","thread_id":"th-b"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[],"status":"failed"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}"#,
        "\n",
    );
    assert_gaps(
        "codex-failed-items.jsonl",
        text,
        &[],
        &[(4, "TOOL_ERROR"), (5, "TOOL_ERROR"), (11, "TOOL_ERROR")],
    );
}

/// In a Codex rollout, a function call whose output reports a failure (a
/// non-zero `metadata.exit_code`, `Exit code: N`, a sandbox refusal) is a TOOL_ERROR; a
/// call never answered is an orphan, as in every other agent.
#[test]
fn failed_codex_rollout_calls_are_tool_errors() {
    let call = |id: &str| {
        format!(
            r#"{{"timestamp":"2025-09-24T19:22:20Z","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{}}","call_id":"{id}"}}}}"#
        )
    };
    let output = |id: &str, out: &str| {
        format!(
            r#"{{"timestamp":"2025-09-24T19:22:21Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"{id}","output":{out}}}}}"#
        )
    };
    let lines = [
        r#"{"timestamp":"2025-09-24T19:22:19Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}"#.to_string(),
        call("c1"),
        output("c1", r#""{\"output\":\"ok\",\"metadata\":{\"exit_code\":0}}""#),
        call("c2"),
        output("c2", r#""{\"output\":\"no\",\"metadata\":{\"exit_code\":2}}""#),
        call("c3"),
        output("c3", r#""Exit code: 1\nWall time: 0.1 seconds\nOutput:\nboom\n""#),
        call("c4"),
        output("c4", r#""failed in sandbox MacosSeatbelt with execution error: denied""#),
        call("c5"),
    ];
    let text = lines.join("\n") + "\n";
    assert_gaps(
        "rollout-failures.jsonl",
        &text,
        &[],
        &[
            (5, "TOOL_ERROR"),
            (7, "TOOL_ERROR"),
            (9, "TOOL_ERROR"),
            (10, "TOOL_ORPHAN_USE"),
        ],
    );
}

/// Claude repeats a tool_result block; its error is reported once, as `stats`
/// counts it once (an answer on a later line to a call no longer open is still an orphan).
#[test]
fn a_repeated_error_result_is_one_tool_error() {
    let text = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#,
        "\n",
        r#"{"type":"assistant","session_id":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}"#,
        "\n",
        r#"{"type":"user","session_id":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"x"},{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"x"}]}}"#,
        "\n",
        r#"{"type":"user","session_id":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"x"}]}}"#,
        "\n",
        r#"{"type":"result","subtype":"success","session_id":"s","is_error":false}"#,
        "\n",
    );
    assert_gaps(
        "claude-repeated.jsonl",
        text,
        &[],
        &[(3, "TOOL_ERROR"), (4, "TOOL_ORPHAN_RESULT")],
    );
}
