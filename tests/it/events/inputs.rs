//! What records and inputs make of events: bad and generic records, rejects, several inputs,
//! a missing one, the default format.

use super::*;

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
