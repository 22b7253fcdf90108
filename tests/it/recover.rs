//! `--recover` (docs/REFERENCE.md, "`--recover`"): objects embedded in text
//! lines and pretty-printed objects, with exact line numbers, and the same inputs without the flag.

use crate::common;

use common::{ndjq_sub, tempdir, write_file};
use serde_json::Value;

/// `validate -f json [--recover]` on `input` (read from a file, with several threads asked
/// for, so the one-thread rule of `--recover` is exercised): (line, code, message) of each
/// diagnostic, and the summary.
fn validate(input: &[u8], recover: bool) -> (Vec<(u64, String, String)>, Value) {
    let dir = tempdir();
    let path = write_file(dir.path(), "in.ndjson", input);
    let mut cmd = ndjq_sub("validate");
    cmd.args(["-f", "json", "-j", "4", "--fail-on", "info"]);
    if recover {
        cmd.arg("--recover");
    }
    let out = cmd.arg(&path).output().expect("ndjq runs");
    let mut diags = Vec::new();
    let mut summary = Value::Null;
    for line in String::from_utf8(out.stdout).expect("utf-8").lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        if let Some(s) = v.get("summary") {
            summary = s.clone();
            continue;
        }
        diags.push((
            v["line"].as_u64().expect("line"),
            v["code"].as_str().expect("code").to_string(),
            v["message"].as_str().expect("message").to_string(),
        ));
    }
    (diags, summary)
}

fn codes(diags: &[(u64, String, String)]) -> Vec<(u64, &str)> {
    diags.iter().map(|(l, c, _)| (*l, c.as_str())).collect()
}

/// `filter --recover ARGS` on `input` from a file: stdout.
fn filter(input: &[u8], args: &[&str]) -> Vec<u8> {
    let dir = tempdir();
    let path = write_file(dir.path(), "in.ndjson", input);
    let out = ndjq_sub("filter")
        .args(["-j", "4", "--recover"])
        .args(args)
        .arg(&path)
        .output()
        .expect("ndjq runs");
    out.stdout
}

const PRETTY: &[u8] = b"{\"type\":\"user\",\"n\":1}\n\
{\"type\":\"user\",\"n\":2}\n\
{\n  \"type\": \"assistant\",\n  \"n\": 3,\n  \"list\": [1, 2]\n}\n\
{\"type\":\"user\",\"n\":4}\n";
const PRETTY_OBJECT: &[u8] = b"{\n  \"type\": \"assistant\",\n  \"n\": 3,\n  \"list\": [1, 2]\n}\n";

#[test]
fn banner_line_stays_text_noise_and_json_lines_keep_their_numbers() {
    let input = b"Starting session v1.2\n{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n";
    let (diags, summary) = validate(input, true);
    assert_eq!(codes(&diags), [(1, "PROTO_TEXT_NOISE")]);
    assert_eq!(summary["records"], 3);
    assert_eq!(summary["valid"], 2);
}

#[test]
fn object_inside_ansi_colour_is_recovered() {
    let input =
        b"{\"type\":\"user\"}\n\x1b[32m{\"type\":\"user\",\"k\":2}\x1b[0m\n{\"type\":\"user\"}\n";
    let (diags, summary) = validate(input, true);
    assert_eq!(codes(&diags), [(2, "PROTO_TEXT_NOISE")]);
    assert!(diags[0].2.contains("recovered"), "{}", diags[0].2);
    assert_eq!(summary["valid"], 3);
    assert_eq!(summary["invalid"], 0);
    assert_eq!(
        filter(input, &[]),
        b"{\"type\":\"user\"}\n{\"type\":\"user\",\"k\":2}\n{\"type\":\"user\"}\n"
    );
}

#[test]
fn filter_by_type_outputs_the_embedded_object_and_a_newline() {
    let input =
        b"Warning: x {\"type\":\"user\",\"a\":{\"b\":\"}\"}} (retrying)\n{\"type\":\"system\"}\n";
    assert_eq!(
        filter(input, &["--type", "user"]),
        b"{\"type\":\"user\",\"a\":{\"b\":\"}\"}}\n"
    );
}

#[test]
fn pretty_printed_object_is_one_record_named_by_its_lines() {
    let (diags, summary) = validate(PRETTY, true);
    assert_eq!(codes(&diags), [(3, "PROTO_TEXT_NOISE")]);
    assert_eq!(
        diags[0].2,
        "lines 3-7: a JSON object pretty-printed over 5 lines, reassembled"
    );
    assert_eq!(summary["records"], 4);
    assert_eq!(summary["valid"], 4);
    // Raw bytes of the reassembled record are its five lines, byte for byte.
    assert_eq!(filter(PRETTY, &["--type", "assistant"]), PRETTY_OBJECT);
    assert_eq!(filter(PRETTY, &[]), PRETTY);
}

#[test]
fn later_lines_keep_their_physical_numbers() {
    let mut input = PRETTY.to_vec();
    input.extend_from_slice(b"not json\n");
    let (diags, _) = validate(&input, true);
    assert_eq!(
        codes(&diags),
        [(3, "PROTO_TEXT_NOISE"), (9, "PROTO_TEXT_NOISE")]
    );
}

#[test]
fn truncated_line_never_eats_the_valid_lines_after_it() {
    let input =
        b"{\"type\":\"user\"}\n{\"a\":\n{\"type\":\"user\",\"n\":3}\n{\"type\":\"user\",\"n\":4}\n";
    let (diags, summary) = validate(input, true);
    assert_eq!(codes(&diags), [(2, "PROTO_TRUNCATED")]);
    assert_eq!(summary["records"], 4);
    assert_eq!(summary["valid"], 3);
    assert_eq!(
        filter(input, &["--type", "user"]),
        b"{\"type\":\"user\"}\n{\"type\":\"user\",\"n\":3}\n{\"type\":\"user\",\"n\":4}\n"
    );
}

#[test]
fn truncated_last_line_is_released_at_the_end() {
    let input = b"{\"type\":\"user\"}\n{\"a\":\n  \"b\":";
    let (diags, summary) = validate(input, true);
    assert_eq!(
        codes(&diags),
        [(2, "PROTO_TRUNCATED"), (3, "PROTO_INVALID_JSON")]
    );
    assert_eq!(summary["records"], 3);
}

#[test]
fn without_recover_every_line_gets_its_own_verdict() {
    let (diags, summary) = validate(PRETTY, false);
    let pretty_lines: Vec<u64> = diags.iter().map(|d| d.0).collect();
    assert_eq!(pretty_lines, [3, 4, 5, 6, 7], "one error per line");
    assert_eq!(summary["records"], 8);
    let input = b"\x1b[32m{\"type\":\"user\"}\x1b[0m\nWarning: x {\"type\":\"user\"}\n";
    let (diags, _) = validate(input, false);
    assert_eq!(
        codes(&diags),
        [(1, "PROTO_TEXT_NOISE"), (2, "PROTO_TEXT_NOISE")]
    );
}

#[test]
fn reassembly_is_capped_and_then_swallows_nothing() {
    let mut input = b"{\n".to_vec();
    for _ in 0..69 {
        input.extend_from_slice(b"  \"k\": 1,\n");
    }
    input.extend_from_slice(b"}\n{\"type\":\"user\"}\n");
    let (diags, summary) = validate(&input, true);
    let lines: Vec<u64> = diags.iter().map(|d| d.0).collect();
    assert_eq!(
        lines,
        (1..=71).collect::<Vec<u64>>(),
        "one verdict per line"
    );
    assert_eq!(diags[0].1, "PROTO_TRUNCATED");
    assert_eq!(summary["records"], 72);
    assert_eq!(summary["valid"], 1);
}

/// `--recover` takes the object out of a line whatever the line starts with
/// (`[log] {...} (done)`, `2025-01-01T00:00:00Z INFO {...}`, ANSI colour, `[date] [INFO]`),
/// on a real capture wrapped that way: every object comes back byte for byte, each line
/// keeps a PROTO_TEXT_NOISE, and stats counts the records as in the clean capture.
#[test]
fn regression_16_objects_after_any_prefix_are_recovered_and_counted() {
    const MIXED_LOG: &str = "testdata/filter/recover-mixed.log";
    const CLEAN: &str = "testdata/claude/claude-tool.ndjson";
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let input = common::read_file(&root.join(MIXED_LOG));
    let clean = common::read_file(&root.join(CLEAN));

    assert_eq!(
        filter(&input, &["-q"]),
        clean,
        "every object, byte for byte"
    );

    let (diags, summary) = validate(&input, true);
    let lines: Vec<u64> = diags.iter().map(|d| d.0).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 6, 7]);
    assert!(diags.iter().all(|d| d.1 == "PROTO_TEXT_NOISE"), "{diags:?}");
    assert!(
        diags[0].2.contains("plain text"),
        "the banner has no object"
    );
    assert!(
        diags[1..].iter().all(|d| d.2.contains("recovered")),
        "{diags:?}"
    );
    assert_eq!(summary["valid"], 6);
    assert_eq!(summary["invalid"], 1, "the banner");

    // Without --recover the objects are lost.
    let (_, summary) = validate(&input, false);
    assert_eq!(summary["valid"], 0);

    let stats = |path: &str, recover: bool| -> Value {
        let mut cmd = ndjq_sub("stats");
        cmd.args(["-f", "json", "-q"]);
        if recover {
            cmd.arg("--recover");
        }
        let out = cmd.arg(root.join(path)).output().expect("ndjq runs");
        serde_json::from_slice(&out.stdout).expect("stats JSON")
    };
    let mixed = stats(MIXED_LOG, true);
    let plain = stats(CLEAN, false);
    assert_eq!(mixed["valid"], 6);
    for key in ["tokens", "types", "sessions", "cost_usd", "tools"] {
        assert_eq!(mixed[key], plain[key], "{key}");
    }
    assert_eq!(mixed["diagnostics"]["PROTO_TEXT_NOISE"], 7);
    // Every byte read is counted, the text around the objects too.
    assert_eq!(mixed["bytes"].as_u64(), Some(input.len() as u64));
    let (_, summary) = validate(&input, true);
    assert_eq!(summary["bytes"].as_u64(), Some(input.len() as u64));
}
