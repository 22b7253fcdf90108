//! `ndjq filter`: every predicate on real captures (testdata/claude, testdata/codex), with
//! the expected lines computed here from the parsed JSON wherever possible; the options
//! (-v, -c, -m, --rejects, -q); exit status; stderr; and live line-buffered output.
//! (docs/REFERENCE.md: "Input framing", "`filter` predicates", "Diagnostic codes" and
//! "Exit status".)

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;
use support::{data, lines, ndjq, ndjq_std, parse, pick, read, select, show, type_of, MIXED};

const TOOL: &str = "testdata/claude/claude-tool.ndjson";
const MULTI: &str = "testdata/claude/claude-multi_tool.ndjson";
const ERROR500: &str = "testdata/claude/claude-error500.ndjson";
const GLEAM: &str = "testdata/claude/gleam-basic_query.ndjson";
/// The Claude files in the sorted order a folder walk gives.
const CLAUDE: [&str; 4] = [ERROR500, MULTI, TOOL, GLEAM];

/// Run `ndjq filter ARGS`; return (stdout, stderr, exit code).
fn filter(args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = ndjq().arg("filter").args(args).output().expect("ndjq runs");
    (
        out.stdout,
        show(&out.stderr),
        out.status.code().expect("exit code"),
    )
}

/// Assert that `filter ARGS` prints exactly `expected` and exits 0 (or 1 when `expected` is
/// empty, like grep).
fn check(args: &[&str], expected: &[u8]) {
    let (stdout, stderr, code) = filter(args);
    assert!(
        stdout == expected,
        "ndjq filter {args:?}\n--- expected\n{}--- actual\n{}--- stderr\n{stderr}",
        show(expected),
        show(&stdout)
    );
    let want = if expected.is_empty() { 1 } else { 0 };
    assert_eq!(
        code, want,
        "exit status of ndjq filter {args:?}; stderr: {stderr}"
    );
}

/// Concatenation over several files of the lines `keep` selects.
fn select_files(files: &[&str], keep: impl Fn(&Value) -> bool) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        out.extend(select(&read(data(f)), &keep));
    }
    out
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_str()
}

/// Content blocks of `message.content` (empty when it is a string or absent).
fn blocks(v: &Value) -> Vec<&Value> {
    v.get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// Expected `--tool NAME` selection, computed from the JSON: lines holding a tool_use block
/// of that tool, and lines holding a tool_result block answering one of those tool_use ids.
fn tool_lines(bytes: &[u8], names: &[&str]) -> Vec<u8> {
    let mut ids = BTreeSet::new();
    for line in lines(bytes) {
        if let Some(v) = parse(line) {
            for b in blocks(&v) {
                if b["type"] == "tool_use" && names.iter().any(|n| b["name"] == *n) {
                    ids.insert(b["id"].as_str().expect("tool_use id").to_string());
                }
            }
        }
    }
    select(bytes, |v| {
        blocks(v).iter().any(|b| {
            (b["type"] == "tool_use" && names.iter().any(|n| b["name"] == *n))
                || (b["type"] == "tool_result"
                    && b["tool_use_id"].as_str().is_some_and(|id| ids.contains(id)))
        })
    })
}

// --- predicates ------------------------------------------------------------------------

#[test]
fn type_selects_records_of_that_type() {
    for file in CLAUDE {
        let bytes = read(data(file));
        for ty in ["system", "assistant", "user", "result"] {
            check(
                &["--type", ty, file],
                &select(&bytes, |v| type_of(v) == Some(ty)),
            );
        }
    }
    // Several types, comma-separated, are ORed; order of the input is kept.
    check(
        &["--type", "user,result", TOOL],
        &select(&read(data(TOOL)), |v| {
            matches!(type_of(v), Some("user" | "result"))
        }),
    );
    // These captures' result line has `type` near its end (testdata/corpus/SCHEMA-NOTES.md §1).
    let (out, _, _) = filter(&["--type", "result", TOOL]);
    assert_eq!(lines(&out).len(), 1);
    assert!(out.starts_with(b"{\"duration_api_ms\""));
}

#[test]
fn type_with_subtype() {
    let bytes = read(data(ERROR500));
    // `system/init` is the init line only, not the ten api_retry lines.
    check(&["--type", "system/init", ERROR500], &pick(&bytes, &[1]));
    check(
        &["--type", "system", ERROR500],
        &select(&bytes, |v| type_of(v) == Some("system")),
    );
    assert_eq!(
        lines(&select(&bytes, |v| type_of(v) == Some("system"))).len(),
        11
    );
    check(
        &["--type", "system/api_retry,result", ERROR500],
        &pick(&bytes, &[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]),
    );
}

#[test]
fn subtype_selects_records_of_that_subtype() {
    let bytes = read(data(ERROR500));
    let retries = select(&bytes, |v| v["subtype"] == "api_retry");
    assert_eq!(lines(&retries).len(), 10);
    check(&["--subtype", "api_retry", ERROR500], &retries);
    // Claude reports the API failure as a result with subtype `success` (docs/REFERENCE.md,
    // "Dialects").
    check(
        &["--subtype", "success", ERROR500],
        &select(&bytes, |v| v["subtype"] == "success"),
    );
    let all = select_files(&CLAUDE, |v| {
        matches!(v["subtype"].as_str(), Some("init" | "success"))
    });
    let mut args = vec!["--subtype", "init,success"];
    args.extend(CLAUDE);
    check(&args, &all);
}

#[test]
fn tool_selects_the_tool_use_and_the_result_answering_it() {
    let tool = read(data(TOOL));
    // The assistant tool_use line (3) and the user tool_result line (4) answering it.
    let expected = tool_lines(&tool, &["Bash"]);
    assert_eq!(expected, pick(&tool, &[3, 4]), "test data as expected");
    check(&["--tool", "Bash", TOOL], &expected);

    let multi = read(data(MULTI));
    assert_eq!(tool_lines(&multi, &["Bash"]), pick(&multi, &[3, 4]));
    assert_eq!(tool_lines(&multi, &["Read"]), pick(&multi, &[5, 6]));
    check(&["--tool", "Bash", MULTI], &tool_lines(&multi, &["Bash"]));
    check(&["--tool", "Read", MULTI], &tool_lines(&multi, &["Read"]));
    check(
        &["--tool", "Bash,Read", MULTI],
        &tool_lines(&multi, &["Bash", "Read"]),
    );
    // Across files, ids do not leak: each file's Bash pair only.
    let mut both = tool_lines(&multi, &["Bash"]);
    both.extend(tool_lines(&tool, &["Bash"]));
    check(&["--tool", "Bash", MULTI, TOOL], &both);
    // A tool that is only listed in system/init `tools` is not a tool call.
    check(&["--tool", "Write", MULTI, TOOL], &[]);
}

#[test]
fn session_selects_records_of_that_session() {
    let tool = read(data(TOOL));
    let id = str_at(&parse(lines(&tool)[0]).expect("json"), &["session_id"])
        .expect("session_id")
        .to_string();
    let mut args = vec!["--session", id.as_str()];
    args.extend(CLAUDE);
    // Every line of claude-tool carries it; no line of the other files does.
    check(&args, &select_files(&CLAUDE, |v| v["session_id"] == *id));
    check(&args, &tool);

    let other = "d5d7c6f2-2e3c-41c7-b653-926a08569655"; // claude-multi_tool
    let two = format!("{id},{other}");
    let mut args = vec!["--session", two.as_str()];
    args.extend(CLAUDE);
    check(
        &args,
        &select_files(&CLAUDE, |v| {
            v["session_id"] == *id || v["session_id"] == other
        }),
    );
    check(&["--session", "no-such-session", TOOL], &[]);
}

#[test]
fn model_selects_records_naming_that_model() {
    let names_model =
        |m: &'static str| move |v: &Value| v["model"] == m || v["message"]["model"] == m;
    for model in ["claude-opus-5-5", "claude-opus-4-5-20251101", "<synthetic>"] {
        let expected = select_files(&CLAUDE, names_model(model));
        assert!(!expected.is_empty(), "{model} is in the test data");
        let mut args = vec!["--model", model];
        args.extend(CLAUDE);
        check(&args, &expected);
    }
    check(&["--model", "claude-sonnet-4-20250514", TOOL], &[]);
}

#[test]
fn where_compares_a_dotted_path_with_a_value() {
    // A string value.
    let expected = select_files(&CLAUDE, |v| v["message"]["model"] == "claude-opus-5-5");
    assert_eq!(
        lines(&expected).len(),
        3 + 4,
        "assistant lines of tool and multi_tool"
    );
    let mut args = vec!["--where", "message.model=claude-opus-5-5"];
    args.extend(CLAUDE);
    check(&args, &expected);

    // A JSON boolean: only the error500 result (is_error true under subtype success).
    let mut args = vec!["--where", "is_error=true"];
    args.extend(CLAUDE);
    let failed = select_files(&CLAUDE, |v| v["is_error"] == true);
    assert_eq!(failed, pick(&read(data(ERROR500)), &[13]));
    check(&args, &failed);
    let mut args = vec!["--where", "is_error=false"];
    args.extend(CLAUDE);
    check(&args, &select_files(&CLAUDE, |v| v["is_error"] == false));

    // A JSON number is not the string "3".
    let bytes = read(data(ERROR500));
    check(
        &["--where", "attempt=3", ERROR500],
        &select(&bytes, |v| v["attempt"] == 3),
    );
    assert_eq!(lines(&select(&bytes, |v| v["attempt"] == 3)).len(), 1);
    check(&["--where", "attempt=\"3\"", ERROR500], &[]);

    // PATH alone: exists and is not null.
    let mut args = vec!["--where", "message.model"];
    args.extend(CLAUDE);
    check(
        &args,
        &select_files(&CLAUDE, |v| {
            v.get("message")
                .and_then(|m| m.get("model"))
                .is_some_and(|m| !m.is_null())
        }),
    );
    // parent_tool_use_id is present on these lines but always null.
    check(&["--where", "parent_tool_use_id", TOOL, MULTI], &[]);

    // Several --where are ANDed.
    let mut args = vec!["--where", "type=result", "--where", "num_turns=2"];
    args.extend(CLAUDE);
    check(
        &args,
        &select_files(&CLAUDE, |v| v["type"] == "result" && v["num_turns"] == 2),
    );
}

#[test]
fn codex_records() {
    let dir = "testdata/codex";
    let files = [
        "testdata/codex/agent-wrappers-streaming.jsonl",
        "testdata/codex/agentcmd-stream-output-2.jsonl",
        "testdata/codex/codex-failed.ndjson",
        "testdata/codex/codex-tool.ndjson",
    ];
    check(
        &["--type", "turn.completed,turn.failed", dir],
        &select_files(&files, |v| {
            matches!(type_of(v), Some("turn.completed" | "turn.failed"))
        }),
    );
    check(
        &["--type", "error", dir],
        &select_files(&files, |v| type_of(v) == Some("error")),
    );
    check(
        &["--where", "item.type=command_execution", dir],
        &select_files(&files, |v| v["item"]["type"] == "command_execution"),
    );
}

#[test]
fn no_predicate_means_every_valid_record() {
    let bytes = read(data(MIXED));
    let valid = pick(&bytes, &[1, 3, 4, 5, 6, 8, 10, 11]);
    let (out, _, code) = filter(&["-q", MIXED]);
    assert_eq!(show(&out), show(&valid));
    assert_eq!(code, 0);
    check(&["-q", "--valid", MIXED], &valid);
    check(&[TOOL], &read(data(TOOL)));
}

#[test]
fn invalid_outputs_exactly_the_bad_lines() {
    let bytes = read(data(MIXED));
    check(&["-q", "--invalid", MIXED], &pick(&bytes, &[2, 9, 12]));
    check(&["-q", "--invalid", TOOL], &[]);
}

#[test]
fn diagnostic_selects_records_carrying_that_code() {
    let bytes = read(data(MIXED));
    check(
        &["-q", "--diagnostic", "PROTO_UNKNOWN_TYPE", MIXED],
        &pick(&bytes, &[5]),
    );
    check(
        &["-q", "--diagnostic", "PROTO_SCHEMA", MIXED],
        &pick(&bytes, &[8]),
    );
    check(
        &[
            "-q",
            "--diagnostic",
            "PROTO_TEXT_NOISE,PROTO_TRUNCATED",
            MIXED,
        ],
        &pick(&bytes, &[2, 9, 12]),
    );
    check(&["-q", "--diagnostic", "PROTO_UNKNOWN_TYPE", TOOL], &[]);
}

// --- options ---------------------------------------------------------------------------

#[test]
fn invert_selects_the_complement() {
    let tool = read(data(TOOL));
    check(
        &["-v", "--type", "assistant", TOOL],
        &select(&tool, |v| type_of(v) != Some("assistant")),
    );
    // On the mixed file, selection and inversion partition the input (grep -v), bad lines
    // included.
    let bytes = read(data(MIXED));
    check(
        &["-q", "--type", "assistant", MIXED],
        &pick(&bytes, &[3, 4, 8, 10]),
    );
    check(
        &["-q", "-v", "--type", "assistant", MIXED],
        &pick(&bytes, &[1, 2, 5, 6, 7, 9, 11, 12]),
    );
}

#[test]
fn count_prints_the_number_of_selected_records() {
    let tool = read(data(TOOL));
    let n = lines(&select(&tool, |v| type_of(v) == Some("assistant"))).len();
    assert_eq!(n, 3);
    let (out, _, code) = filter(&["-c", "--type", "assistant", TOOL]);
    assert_eq!(show(&out), format!("{n}\n"));
    assert_eq!(code, 0);

    // One total over several inputs.
    let mut args = vec!["-c", "--type", "result"];
    args.extend(CLAUDE);
    let (out, _, code) = filter(&args);
    assert_eq!(show(&out), "4\n");
    assert_eq!(code, 0);

    let (out, _, code) = filter(&["-c", "--type", "nosuch", TOOL]);
    assert_eq!(show(&out), "0\n");
    assert_eq!(code, 1, "nothing selected");
}

#[test]
fn max_count_stops_after_n_records() {
    let tool = read(data(TOOL));
    check(
        &["-m", "1", "--type", "assistant", TOOL],
        &pick(&tool, &[2]),
    );
    check(
        &["--max-count", "2", "--type", "assistant,user", TOOL],
        &pick(&tool, &[2, 3]),
    );
    let (out, _, code) = filter(&["-c", "-m", "2", "--type", "assistant", TOOL]);
    assert_eq!(show(&out), "2\n");
    assert_eq!(code, 0);
}

#[test]
fn exit_1_when_nothing_is_selected() {
    let (out, stderr, code) = filter(&["--type", "nosuch", TOOL]);
    assert!(out.is_empty());
    assert_eq!(code, 1);
    assert!(
        stderr.is_empty(),
        "a clean input has nothing to report: {stderr}"
    );
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["--diagnostic", "NOPE", MIXED][..],
        &["--where", "=3", MIXED][..],
        &["--where", "a..b=3", MIXED][..],
    ] {
        let (out, stderr, code) = filter(args);
        assert_eq!(code, 2, "ndjq filter {args:?}");
        assert!(out.is_empty(), "ndjq filter {args:?}: {}", show(&out));
        assert!(
            !stderr.is_empty(),
            "ndjq filter {args:?} explains on stderr"
        );
    }
    let (_, stderr, _) = filter(&["--diagnostic", "NOPE", MIXED]);
    assert!(stderr.contains("NOPE"), "{stderr}");
}

/// The numbers of the final stderr line
/// `ndjq: N records: S selected, U not selected; I invalid, E empty; ...`, by label.
fn final_counts(stderr: &str) -> BTreeMap<String, usize> {
    let last = stderr.lines().last().expect("a final line on stderr");
    let body = last
        .strip_prefix("ndjq: ")
        .unwrap_or_else(|| panic!("final count line: {last}"));
    let mut counts = BTreeMap::new();
    for part in body.split([',', ';', ':']) {
        let part = part.trim();
        if let Some((n, label)) = part.split_once(' ') {
            if let Ok(n) = n.parse::<usize>() {
                counts.insert(label.to_string(), n);
            }
        }
    }
    for label in ["records", "selected", "not selected", "invalid", "empty"] {
        assert!(
            counts.contains_key(label),
            "`{label}` in final line: {last}"
        );
    }
    counts
}

#[test]
fn rejects_selected_and_not_selected_account_for_every_record() {
    let bytes = read(data(MIXED));
    let total = lines(&bytes).len();
    let dir = tempfile::tempdir().expect("tempdir");
    let rejects = dir.path().join("rejects.ndjson");
    let rejects_arg = rejects.display().to_string();
    let (out, stderr, code) = filter(&["--type", "assistant", "--rejects", &rejects_arg, MIXED]);
    assert_eq!(code, 0);
    let saved = read(&rejects);
    assert_eq!(show(&saved), show(&pick(&bytes, &[2, 9, 12])));

    let counts = final_counts(&stderr);
    assert_eq!(counts["records"], total);
    assert_eq!(counts["selected"], lines(&out).len());
    assert_eq!(counts["selected"] + counts["not selected"], total);
    assert_eq!(counts["invalid"], lines(&saved).len());
    assert_eq!(counts["empty"], 1);
    if let Some(&n) = counts.get("saved to --rejects") {
        assert_eq!(n, lines(&saved).len());
    }
    // The complement, run separately, covers the rest.
    let (inverted, _, _) = filter(&["-q", "-v", "--type", "assistant", MIXED]);
    assert_eq!(lines(&out).len() + lines(&inverted).len(), total);
}

#[test]
fn stderr_reports_diagnostics_and_a_final_count_unless_quiet() {
    let (_, stderr, _) = filter(&["--type", "assistant", MIXED]);
    let last = stderr.lines().last().expect("stderr");
    assert!(
        last.starts_with("ndjq: 12 records: 4 selected, 8 not selected; 3 invalid"),
        "{stderr}"
    );
    let counts = final_counts(&stderr);
    assert_eq!(counts["empty"], 1);
    for code in [
        "PROTO_TEXT_NOISE",
        "PROTO_UNKNOWN_TYPE",
        "PROTO_SCHEMA",
        "PROTO_TRUNCATED",
    ] {
        assert!(stderr.contains(code), "{code} on stderr: {stderr}");
    }
    let (out, stderr, code) = filter(&["-q", "--type", "assistant", MIXED]);
    assert_eq!(stderr, "", "-q: nothing on stderr");
    assert_eq!(lines(&out).len(), 4);
    assert_eq!(code, 0);
}

#[test]
fn stderr_diagnostics_are_rate_limited() {
    let input: String = (1..=30).map(|i| format!("junk {i}\n")).collect();
    let out = ndjq()
        .args(["filter", "--type", "assistant"])
        .write_stdin(input)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = show(&out.stderr);
    let shown = stderr
        .lines()
        .filter(|l| l.contains("[PROTO_TEXT_NOISE]"))
        .count();
    assert_eq!(
        shown, 20,
        "the first 20 diagnostics, then a count: {stderr}"
    );
    assert!(stderr.contains("10 more"), "{stderr}");
    let counts = final_counts(&stderr);
    assert_eq!(
        (
            counts["records"],
            counts["selected"],
            counts["not selected"],
            counts["invalid"]
        ),
        (30, 0, 30, 30)
    );
}

#[test]
fn stdin_and_compressed_inputs() {
    let tool = read(data(TOOL));
    let expected = select(&tool, |v| type_of(v) == Some("assistant"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tool).expect("gzip");
    let gz = gz.finish().expect("gzip");
    for input in [tool.clone(), gz] {
        let out = ndjq()
            .args(["filter", "--type", "assistant"])
            .write_stdin(input)
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            show(&out.stdout),
            show(&expected),
            "decompressed, byte-exact"
        );
    }
}

#[test]
fn folder_input_in_sorted_order() {
    let expected = select_files(&CLAUDE, |v| type_of(v) == Some("result"));
    check(&["--type", "result", "testdata/claude"], &expected);
}

// --- streaming -------------------------------------------------------------------------

#[test]
fn live_pipe_output_is_line_buffered() {
    let tool = read(data(TOOL));
    let user_line = b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"},\"session_id\":\"s\"}\n";
    let assistant_line = lines(&tool)[1].to_vec();
    assert!(assistant_line.starts_with(b"{\"type\":\"assistant\""));

    let mut child = ndjq_std()
        .args(["filter", "--type", "assistant"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");

    // Read the first output line on another thread, so a missing flush shows up as a
    // timeout instead of a hung test.
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

    stdin.write_all(user_line).expect("write");
    stdin.write_all(&assistant_line).expect("write");
    stdin.flush().expect("flush");
    let first = rx.recv_timeout(Duration::from_secs(5));

    // Close stdin whatever happened, so the child ends and the test cannot hang.
    drop(stdin);
    let status = child.wait().expect("wait");
    let rest = reader.join().expect("reader thread");

    let first = first
        .expect("the assistant line came out before stdin was closed (line-buffered)")
        .expect("read stdout");
    assert_eq!(show(&first), show(&assistant_line));
    assert!(rest.is_empty(), "nothing else selected: {}", show(&rest));
    assert_eq!(status.code(), Some(0));
}

#[test]
fn closed_stdout_ends_quietly_with_0() {
    // Far more output than a pipe buffer holds, and a reader that goes away at once
    // (`ndjq filter ... | head -c0`).
    let tool = read(data(TOOL));
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("big.ndjson");
    let mut f = std::fs::File::create(&big).expect("create");
    for _ in 0..300 {
        f.write_all(&tool).expect("write");
    }
    drop(f);

    let mut child = ndjq_std()
        .arg("filter")
        .arg(&big)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn max_count_on_a_live_pipe_exits_without_waiting_for_eof() {
    // `agent | ndjq filter -m 1 --type assistant` ends at the first match, like grep -m 1,
    // even though the agent keeps its end of the pipe open.
    let tool = read(data(TOOL));
    let assistant_line = lines(&tool)[1].to_vec();
    let mut child = ndjq_std()
        .args(["filter", "-m", "1", "--type", "assistant"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(&assistant_line).expect("write");
    stdin.flush().expect("flush");

    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let status = match status {
        Some(s) => s,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ndjq filter -m 1 still running 5 s after its first match");
        }
    };
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    assert_eq!(status.code(), Some(0));
    assert_eq!(show(&out), show(&assistant_line));
}
