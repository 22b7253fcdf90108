//! One test per bug that fuzzing, the property tests or the differential test found (issue
//! #8), each named after what it found (STYLE habit 11).

mod common;

use serde_json::Value;

/// `validate -f json` on `input`: (line, code) of every diagnostic, and the summary.
fn validate(input: &[u8]) -> (Vec<(u64, String)>, Value) {
    let out = common::ndjq_sub("validate")
        .args(["-f", "json"])
        .write_stdin(input.to_vec())
        .output()
        .expect("ndjq runs");
    let mut diags = Vec::new();
    let mut summary = Value::Null;
    for l in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(l).expect("validate -f json writes JSON lines");
        match v.get("summary") {
            Some(s) => summary = s.clone(),
            None => diags.push((
                v["line"].as_u64().unwrap_or(0),
                v["code"].as_str().unwrap_or("").to_string(),
            )),
        }
    }
    (diags, summary)
}

/// Found by the differential reference (serde_json): a line opening with `\r`, which JSON
/// counts as whitespace, was called text noise before serde_json was asked, whenever
/// simd-json refused it (an integer beyond 64 bits). `\r1` was valid, `\r` followed by a
/// big integer was invalid; serde_json accepts both.
#[test]
fn issue_8_a_line_opening_with_cr_is_judged_by_serde_json_not_taken_for_text_noise() {
    let input = b"\r123456789012345678901234567890\n\
                  \r[123456789012345678901234567890]\n\
                  \r{\"type\":\"user\",\"n\":123456789012345678901234567890}\n\
                  \rWarning: a progress bar\n";
    let (diags, summary) = validate(input);
    assert_eq!(
        diags,
        [
            (1, "PROTO_NOT_OBJECT".to_string()),
            (2, "PROTO_NOT_OBJECT".to_string()),
            (4, "PROTO_TEXT_NOISE".to_string()),
        ]
    );
    assert_eq!(
        (summary["valid"].as_u64(), summary["invalid"].as_u64()),
        (Some(3), Some(1))
    );
    // And the valid ones pass through unchanged.
    let out = common::ndjq_sub("filter")
        .arg("-q")
        .write_stdin(input.to_vec())
        .output()
        .expect("ndjq runs");
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(out.stdout, lines[..3].concat());
}

/// The JSON report of a `stats` run that must succeed.
fn stats_report(cmd: &mut assert_cmd::Command) -> Value {
    let out = cmd.output().expect("ndjq runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stats -f json is JSON")
}

/// `ndjq stats -f json -q` of `input` (stdin), parsed.
/// With the merge state: some of these reports are merged again.
fn stats(input: &[u8]) -> Value {
    stats_report(
        common::ndjq_sub("stats")
            .args(["-q", "-f", "json", "--mergeable"])
            .write_stdin(input.to_vec()),
    )
}

/// Found while writing the `stats_merge` fuzz target: counts read from the input (token
/// usage, `num_turns`, `duration_ms`) and from partial stats were added with `+`, so two
/// sessions near `u64::MAX` panicked with overflow checks (debug builds, the fuzzer) and
/// wrapped to a wrong small total in release. They saturate now.
#[test]
fn issue_8_counts_near_u64_max_saturate_instead_of_overflowing() {
    let max = u64::MAX;
    let input = format!(
        "{}\n{}\n",
        format_args!(
            r#"{{"type":"result","subtype":"success","session_id":"a","num_turns":{max},"duration_ms":{max},"usage":{{"input_tokens":{max},"output_tokens":1}}}}"#
        ),
        format_args!(
            r#"{{"type":"result","subtype":"success","session_id":"b","num_turns":{max},"duration_ms":{max},"usage":{{"input_tokens":{max},"output_tokens":1}}}}"#
        ),
    );
    let report = stats(input.as_bytes());
    assert_eq!(report["turns"].as_u64(), Some(max));
    assert_eq!(report["duration_ms"].as_u64(), Some(max));
    assert_eq!(report["result_tokens"]["input"].as_u64(), Some(max));
    assert_eq!(report["result_tokens"]["output"].as_u64(), Some(2));

    // Partial stats whose counters are near the limit merge without panicking.
    let mut part = stats(b"{\"type\":\"user\",\"session_id\":\"s\"}\n");
    for key in ["lines", "valid", "bytes"] {
        part[key] = Value::from(max);
    }
    part["types"]["user"] = Value::from(max);
    let dir = common::tempdir();
    let path = common::write_file(
        dir.path(),
        "part.json",
        &serde_json::to_vec(&part).expect("JSON"),
    );
    let merged = stats_report(
        common::ndjq_sub("stats")
            .args(["--merge", "-f", "json"])
            .arg(&path)
            .arg(&path),
    );
    assert_eq!(merged["lines"].as_u64(), Some(max));
    assert_eq!(merged["types"]["user"].as_u64(), Some(max));
    assert_eq!(merged["files"].as_u64(), Some(2));
}
