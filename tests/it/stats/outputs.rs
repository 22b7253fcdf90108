//! The report's groupings and formats, prices, and what `--merge` refuses.

use super::*;

#[test]
fn by_session_groups() {
    let got = stats_json(&["--by", "session", "testdata/stats/claude-rules.ndjson"]);
    assert_eq!(got.by.as_deref(), Some("session"));
    let zero = Tokens::default();
    // s-one: lines 1-14; its result's billed usage (see claude_rules_file_by_hand); its
    // last cost 0.03; Read and Bash, Bash failed (toolu_9's error has no call, so no
    // session). s-three: its result line (costUSD 0.25). s-two: init, result (cost_usd
    // 0.5, usage 1/2/3/4), system.
    let t = |input, output, cache_creation, cache_read| Tokens {
        input,
        output,
        cache_creation,
        cache_read,
        reasoning_output: 0,
        cache_creation_1h: 0,
    };
    let want = Some(vec![
        group("s-one", 14, t(200, 50, 10, 2000), Some(0.03), 2, 1),
        group("s-three", 1, zero, Some(0.25), 0, 0),
        group("s-two", 3, t(1, 2, 3, 4), Some(0.5), 0, 0),
    ]);
    let mut d = Vec::new();
    groups_diffs(&mut d, &want, &got.groups);
    assert_no_diffs("--by session", &d);
}

#[test]
fn by_tool_groups() {
    let got = stats_json(&["--by", "tool", "testdata/stats/codex-exec-tools.jsonl"]);
    assert_eq!(got.by.as_deref(), Some("tool"));
    let zero = Tokens::default();
    let want = Some(vec![
        group("command_execution", 0, zero, None, 4, 1),
        group("fetch", 0, zero, None, 1, 0),
        group("file_change", 0, zero, None, 1, 1),
        group("search", 0, zero, None, 1, 1),
        group("web_search", 0, zero, None, 1, 0),
    ]);
    let mut d = Vec::new();
    groups_diffs(&mut d, &want, &got.groups);
    assert_no_diffs("--by tool", &d);
}

#[test]
fn csv_by_model() {
    let got = stats_stdout(&[
        "-q",
        "-f",
        "csv",
        "--by",
        "model",
        "testdata/stats/claude-rules.ndjson",
    ]);
    // claude-test-priced: msg_1 (both requests) and the two id-less lines:
    //   input 100+100+2+2, output 30+5+2+2, cache_creation 10, cache_read 1000+1100,
    //   then s-one's result difference (-11 / +2 / 0 / -100, s-one's last model);
    //   Read and Bash were called from its messages, Bash failed; s-one's reported
    //   cost 0.03 (a reported cost goes to its session's last model).
    // claude-test-unpriced: msg_2's last snapshot.
    // (none): s-two's result usage, with no message and so no model; the reported costs
    //   of s-two (0.5) and s-three (0.25), which have no model either.
    let want = "\
key,records,input,output,cache_creation,cache_read,reasoning_output,cost_usd,cost_usd_estimated,tool_calls,tool_errors
(none),0,1,2,3,4,0,0.75,,0,0
claude-test-priced,0,193,41,10,2000,0,0.03,,2,1
claude-test-unpriced,0,7,9,0,0,0,,,0,0
";
    assert_eq!(got, want);
}

#[test]
fn text_golden() {
    let golden = data("claude-rules.by-session.txt");
    let want = std::fs::read_to_string(&golden).expect("read the golden file");
    let got = stats_stdout(&[
        "-q",
        "-f",
        "text",
        "--by",
        "session",
        "testdata/stats/claude-rules.ndjson",
    ]);
    assert!(
        got == want,
        "text output differs from {}:\n--- expected\n{want}\n--- got\n{got}",
        golden.display()
    );
}

// ---------------------------------------------------------------------------------------
// 7. --pricing
// ---------------------------------------------------------------------------------------

#[test]
fn pricing_estimates_cost_and_lists_unpriced_models() {
    let got = stats_json(&[
        "--pricing",
        "testdata/stats/prices.json",
        "--cost",
        "estimated",
        "testdata/stats/claude-rules.ndjson",
    ]);
    // Every session estimated (--cost estimated). claude-test-priced: input 204, output
    // 39, cache_creation 10, cache_read 2100, plus s-one's result difference (see
    // claude_rules_file_by_hand) at 3e-6 / 1.5e-5 / 3.75e-6 / 3e-7 per token.
    let priced = &got.models["claude-test-priced"];
    let want = priced.input as f64 * 3e-6
        + priced.output as f64 * 1.5e-5
        + priced.cache_creation as f64 * 3.75e-6
        + priced.cache_read as f64 * 3e-7;
    assert!(
        close(got.cost_usd_estimated, Some(want)),
        "{:?} != {want}",
        got.cost_usd_estimated
    );
    // claude-test-unpriced (7 in, 9 out) is not in the table, and named.
    // s-two's result usage (1/2/3/4) comes with no message, so no model: "(none)".
    assert_eq!(
        got.unpriced_models,
        vec!["(none)".to_string(), "claude-test-unpriced".to_string()]
    );
    assert_eq!(got.cost_usd_reported, None);
    assert!(close(got.cost_usd, got.cost_usd_estimated));
    assert_eq!(got.pricing.as_deref(), Some("testdata/stats/prices.json"));
    // --cost reported: the reported costs only, no estimate, nothing unpriced.
    let plain = stats_json(&["--cost", "reported", "testdata/stats/claude-rules.ndjson"]);
    assert!(close(plain.cost_usd, Some(0.78)));
    assert!(close(plain.cost_usd_reported, Some(0.78)));
    assert_eq!(plain.cost_usd_estimated, None);
    assert!(plain.unpriced_models.is_empty());
    // auto: every session of this file reports a cost, so nothing is estimated.
    let auto = stats_json(&["testdata/stats/claude-rules.ndjson"]);
    assert!(close(auto.cost_usd, Some(0.78)));
    assert_eq!(auto.cost_usd_estimated, None);
}

/// A model named `foo/`, `x//`, `/` or `a/b` was priced as an arbitrary model: the text
/// after its last `/`, empty or one letter, is inside every table name. A price is found
/// by a whole name or whole `/`-segments of it; these are unpriced, and named.
#[test]
fn model_named_with_a_trailing_slash_is_unpriced() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let models = [
        "foo/",
        "x//",
        "/",
        "a/b",
        "openai/g",
        "anthropic/claude-sonnet-4-20250514",
    ];
    let mut log = String::new();
    for (i, model) in models.iter().enumerate() {
        log.push_str(&format!(
            "{{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{{\"id\":\"msg_{i}\",\
             \"role\":\"assistant\",\"model\":\"{model}\",\"content\":[],\"usage\":\
             {{\"input_tokens\":1000,\"output_tokens\":100}}}}}}\n"
        ));
    }
    let file = tmp.path().join("models.jsonl");
    std::fs::write(&file, log).expect("write");
    let got = stats_json(&[
        std::ffi::OsStr::new("--cost"),
        "estimated".as_ref(),
        file.as_os_str(),
    ]);
    let mut want: Vec<String> = models[..5].iter().map(|m| m.to_string()).collect();
    want.sort();
    assert_eq!(got.unpriced_models, want);
    // Only the real model is priced: 1000 input at $3/M and 100 output at $15/M.
    assert!(
        close(got.cost_usd_estimated, Some(1000.0 * 3e-6 + 100.0 * 1.5e-5)),
        "{:?}",
        got.cost_usd_estimated
    );
}

// ---------------------------------------------------------------------------------------
// 8. Errors
// ---------------------------------------------------------------------------------------

fn failure(args: &[&str]) -> String {
    let out = ndjq_stats().args(args).output().expect("run ndjq stats");
    assert_eq!(
        out.status.code(),
        Some(2),
        "ndjq stats {args:?} should exit 2; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn merge_rejects_what_is_not_stats_json() {
    let err = failure(&["--merge", "testdata/stats/claude-rules.ndjson"]);
    assert!(
        err.contains("testdata/stats/claude-rules.ndjson")
            && err.contains("not the JSON output of `ndjq stats -f json --mergeable`"),
        "{err}"
    );
    // A report of another schema version.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let report = stats_stdout(&[
        "-q",
        "-f",
        "json",
        "--mergeable",
        "testdata/stats/claude-rules.ndjson",
    ]);
    let other = tmp.path().join("other.json");
    std::fs::write(&other, report.replace("ndjq.stats/2", "ndjq.stats/9")).expect("write");
    let err = failure(&["--merge", other.to_str().expect("UTF-8 path")]);
    assert!(
        err.contains("ndjq.stats/9") && err.contains("ndjq.stats/2"),
        "{err}"
    );
    // A report of schema 1, whose Codex `input` held the cached tokens too: refused, not
    // mixed with version 2's meaning.
    std::fs::write(&other, report.replace("ndjq.stats/2", "ndjq.stats/1")).expect("write");
    let err = failure(&["--merge", other.to_str().expect("UTF-8 path")]);
    assert!(
        err.contains("ndjq.stats/1") && err.contains("compute it again"),
        "{err}"
    );
}

/// `--merge` trusted the indexes inside a state: a message whose model pointed past the
/// string table merged into `(none)`, a session index of 4294967295 was counted as a
/// second session, both with exit 0. Each is refused (exit 2) naming its field.
#[test]
fn merge_refuses_a_state_whose_model_index_is_out_of_range() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let text = stats_stdout(&[
        "-q",
        "-f",
        "json",
        "--mergeable",
        "testdata/stats/claude-rules.ndjson",
    ]);
    let good: Value = serde_json::from_str(&text).expect("JSON");
    let strings = good["state"]["strings"].as_array().expect("strings").len() as u64;
    let attrs = good["state"]["attrs"].as_array().expect("attrs").len() as u64;
    assert!(good["state"]["tool_calls"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    type Change = fn(&mut Value, u64, u64);
    let cases: [(&str, Change, &str); 6] = [
        (
            "model",
            |v, strings, _| v["state"]["attrs"][0]["model"] = strings.into(),
            "state.attrs[0].model is",
        ),
        (
            "session",
            |v, _, _| {
                v["state"]["sessions"]
                    .as_array_mut()
                    .expect("sessions")
                    .push(4294967295u64.into())
            },
            "state.sessions[",
        ),
        (
            "attribution",
            |v, _, attrs| v["state"]["messages"][0][2] = attrs.into(),
            "state.messages[0] attribution is",
        ),
        (
            "tool",
            |v, strings, _| v["state"]["tool_calls"][0][1] = (strings + 7).into(),
            "state.tool_calls[0] tool name is",
        ),
        (
            "records_by",
            |v, _, _| v["state"]["records_by"][0][1] = 4294967293u64.into(),
            "state.records_by[0] index is 4294967293",
        ),
        (
            "repeated string",
            |v, _, _| {
                let first = v["state"]["strings"][0].clone();
                v["state"]["strings"]
                    .as_array_mut()
                    .expect("strings")
                    .push(first)
            },
            "state.strings[",
        ),
    ];
    let part = tmp.path().join("part.json");
    for (what, change, field) in cases {
        let mut v = good.clone();
        change(&mut v, strings, attrs);
        std::fs::write(&part, serde_json::to_vec(&v).expect("JSON")).expect("write");
        let err = failure(&["--merge", part.to_str().expect("UTF-8 path")]);
        assert!(
            err.contains("part.json: ") && err.contains(field),
            "{what}: {err}"
        );
    }
    // The report as written merges.
    std::fs::write(&part, &text).expect("write");
    let merged = stats_json(&["--merge", part.to_str().expect("UTF-8 path")]);
    assert_eq!(
        merged.sessions,
        good["sessions"].as_u64().expect("sessions")
    );
}

#[test]
fn missing_files_exit_2() {
    let err = failure(&["-q", "-f", "json", "testdata/stats/no-such-file.ndjson"]);
    assert!(err.contains("testdata/stats/no-such-file.ndjson"), "{err}");
    let err = failure(&["--merge", "testdata/stats/no-such-file.json"]);
    assert!(err.contains("testdata/stats/no-such-file.json"), "{err}");
    let err = failure(&[
        "--pricing",
        "testdata/stats/no-such-prices.json",
        "testdata/stats/claude-rules.ndjson",
    ]);
    assert!(err.contains("testdata/stats/no-such-prices.json"), "{err}");
}

/// The report's `state` is written by hand (its large lists on other threads): byte for
/// byte what serde writes for the same report, on one thread and on several.
#[test]
fn the_json_report_is_what_serde_writes_for_it() {
    for j in ["1", "2"] {
        let text = stats_stdout(&[
            "-q",
            "-f",
            "json",
            "--mergeable",
            "-j",
            j,
            "testdata/corpus",
        ]);
        let value: Value = serde_json::from_str(&text).expect("JSON");
        for list in ["messages", "tool_calls", "strings", "records_by"] {
            let n = value["state"][list].as_array().map_or(0, Vec::len);
            assert!(n > 10, "-j {j}: state.{list} has {n} entries");
        }
        let report = parse_report(&text);
        let again = serde_json::to_string(&report).expect("serialize");
        assert!(
            text.trim_end() == again,
            "-j {j}: the report differs from serde's serialization of it"
        );
    }
}
