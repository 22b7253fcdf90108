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
