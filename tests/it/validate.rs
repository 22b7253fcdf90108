//! `ndjq validate`: diagnostics, summary, exit status, output formats and inputs
//! (docs/REFERENCE.md: "Input framing", "Diagnostic codes", "Diagnostic output", "Exit
//! status").
//!
//! Most tests read `testdata/edge/mixed.ndjson`, a real Claude stream-json capture with bad
//! lines inserted at known places (see testdata/SOURCES.md):
//! line 2 text banner, 5 unknown type, 7 empty, 8 assistant without `message`,
//! 9 a cut line, 12 `>>> exit 1`.

use crate::support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use support::{
    assert_golden, data, lines, ndjq, parse_validate, pick, read, show, strip_ansi, Diag, MIXED,
};

/// Byte offset at which each 1-based line of `bytes` starts.
fn line_starts(bytes: &[u8]) -> Vec<u64> {
    let mut starts = vec![0];
    let mut off = 0u64;
    for l in lines(bytes) {
        off += l.len() as u64;
        starts.push(off);
    }
    starts
}

fn validate_json(args: &[&str]) -> (Vec<Diag>, support::Summary, i32) {
    let out = ndjq()
        .arg("validate")
        .args(["-f", "json"])
        .args(args)
        .output()
        .expect("ndjq runs");
    let code = out.status.code().expect("exit code");
    let (diags, summary) = parse_validate(&out.stdout);
    (diags, summary, code)
}

fn write_file(dir: &Path, rel: &str, bytes: &[u8]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, bytes).expect("write test file");
}

#[test]
fn mixed_reports_exactly_the_planted_problems() {
    let bytes = read(data(MIXED));
    let starts = line_starts(&bytes);
    let (diags, _, code) = validate_json(&[MIXED]);
    assert_eq!(
        code, 1,
        "one error (the cut line) fails with the default --fail-on error"
    );

    let got: Vec<(u64, &str, &str)> = diags
        .iter()
        .map(|d| (d.line, d.code.as_str(), d.severity.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, "PROTO_TEXT_NOISE", "warning"),
            (5, "PROTO_UNKNOWN_TYPE", "warning"),
            (7, "PROTO_EMPTY_LINE", "info"),
            (8, "PROTO_SCHEMA", "warning"),
            (9, "PROTO_TRUNCATED", "error"),
            (12, "PROTO_TEXT_NOISE", "warning"),
        ],
        "diagnostics, in input order"
    );

    for d in &diags {
        assert_eq!(d.file, MIXED, "file is the path as given: {d:?}");
        let start = starts[d.line as usize - 1];
        match d.column {
            // A column is 1-based within the line; offset is the 0-based byte offset of that
            // same position in the file.
            Some(col) => {
                assert!(col >= 1, "{d:?}");
                assert_eq!(d.offset, start + col - 1, "offset matches column: {d:?}");
            }
            // Record-level problems point at the start of the record.
            None => assert_eq!(d.offset, start, "offset is the line start: {d:?}"),
        }
    }

    let by_line = |n: u64| diags.iter().find(|d| d.line == n).expect("diagnostic");
    // Text lines are reported at their first byte, with their text as excerpt.
    assert_eq!(by_line(2).column, Some(1));
    assert!(by_line(2).excerpt.starts_with("Warning: no stdin data"));
    assert_eq!(by_line(12).column, Some(1));
    assert_eq!(by_line(12).excerpt, ">>> exit 1");
    // The unknown type and the missing field are named.
    assert!(by_line(5).message.contains("heartbeat"), "{:?}", by_line(5));
    assert!(by_line(8).message.contains("`message`"), "{:?}", by_line(8));
    // The cut line: the JSON ends at the last byte of the 180-byte line.
    let cut = by_line(9);
    assert_eq!(lines(&bytes)[8].len(), 181, "line 9 is 180 bytes + newline");
    assert_eq!(cut.column, Some(180));
    assert!(cut.excerpt.ends_with("Done: the comma"), "{cut:?}");
    assert_eq!(by_line(7).excerpt, "");
}

#[test]
fn mixed_summary_counts() {
    let bytes = read(data(MIXED));
    let (diags, s, _) = validate_json(&[MIXED]);
    assert_eq!(s.files, 1);
    assert_eq!(s.records, 12);
    assert_eq!(s.bytes, bytes.len() as u64);
    assert_eq!(s.valid, 8, "lines 1,3,4,5,6,8,10,11 are JSON objects");
    assert_eq!(s.invalid, 3, "lines 2, 9, 12");
    assert_eq!(s.empty, 1, "line 7");
    assert_eq!(s.records, s.valid + s.invalid + s.empty);
    assert_eq!((s.errors, s.warnings, s.infos), (1, 4, 1));
    assert_eq!(s.errors + s.warnings + s.infos, diags.len() as u64);
    let by_code: BTreeMap<String, u64> = [
        ("PROTO_EMPTY_LINE", 1),
        ("PROTO_SCHEMA", 1),
        ("PROTO_TEXT_NOISE", 2),
        ("PROTO_TRUNCATED", 1),
        ("PROTO_UNKNOWN_TYPE", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(s.by_code, by_code);
    assert!(!s.stopped_early);
}

#[test]
fn fail_on_decides_the_exit_status() {
    let mixed = read(data(MIXED));
    let dir = tempfile::tempdir().expect("tempdir");
    // Real lines only; plus an unknown type (warning); plus an empty line (info). Each a
    // whole session, init to result (a session cut short is a SESS_NO_RESULT warning).
    write_file(dir.path(), "clean.ndjson", &pick(&mixed, &[1, 3, 4, 6, 11]));
    write_file(
        dir.path(),
        "warning.ndjson",
        &pick(&mixed, &[1, 3, 4, 5, 6, 11]),
    );
    write_file(
        dir.path(),
        "info.ndjson",
        &pick(&mixed, &[1, 3, 7, 4, 6, 11]),
    );
    let file = |name: &str| dir.path().join(name).display().to_string();

    let cases = [
        // (input, --fail-on, expected exit)
        (MIXED.to_string(), "error", 1),
        (MIXED.to_string(), "warning", 1),
        (MIXED.to_string(), "info", 1),
        (file("warning.ndjson"), "error", 0),
        (file("warning.ndjson"), "warning", 1),
        (file("warning.ndjson"), "info", 1),
        (file("info.ndjson"), "error", 0),
        (file("info.ndjson"), "warning", 0),
        (file("info.ndjson"), "info", 1),
        (file("clean.ndjson"), "error", 0),
        (file("clean.ndjson"), "warning", 0),
        (file("clean.ndjson"), "info", 0),
    ];
    for (input, fail_on, want) in cases {
        let (diags, _, code) = validate_json(&["--fail-on", fail_on, &input]);
        assert_eq!(
            code, want,
            "validate --fail-on {fail_on} {input}: diagnostics {diags:?}"
        );
    }
    // Without --fail-on, the default is error.
    let (_, _, code) = validate_json(&[&file("warning.ndjson")]);
    assert_eq!(code, 0);
}

#[test]
fn max_errors_stops_early() {
    // Default --fail-on error: stop at the first error, the cut line 9. Lesser diagnostics
    // before it are still reported; nothing after it is read.
    let (diags, s, code) = validate_json(&["--max-errors", "1", MIXED]);
    assert_eq!(code, 1);
    let got: Vec<(u64, &str)> = diags.iter().map(|d| (d.line, d.code.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (2, "PROTO_TEXT_NOISE"),
            (5, "PROTO_UNKNOWN_TYPE"),
            (7, "PROTO_EMPTY_LINE"),
            (8, "PROTO_SCHEMA"),
            (9, "PROTO_TRUNCATED"),
        ]
    );
    assert!(s.stopped_early);
    assert_eq!(s.records, 9, "stopped right after line 9");
    assert_eq!(s.errors, 1);

    // With --fail-on warning the first warning (line 2) is the limit.
    let (diags, s, code) = validate_json(&["--max-errors", "1", "--fail-on", "warning", MIXED]);
    assert_eq!(code, 1);
    let got: Vec<(u64, &str)> = diags.iter().map(|d| (d.line, d.code.as_str())).collect();
    assert_eq!(got, vec![(2, "PROTO_TEXT_NOISE")]);
    assert!(s.stopped_early);
    assert_eq!(s.records, 2);

    // A limit that is never reached does not stop anything.
    let (diags, s, _) = validate_json(&["--max-errors", "2", MIXED]);
    assert_eq!(diags.len(), 6);
    assert!(!s.stopped_early);
    assert_eq!(s.records, 12);
}

#[test]
fn text_output_matches_golden() {
    let out = ndjq()
        .args(["validate", "-f", "text", "--color", "never", MIXED])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    assert_golden("mixed.validate.txt", &out.stdout);
    // Compiler style, as in docs/REFERENCE.md, "Diagnostic output": `file:line:col: severity[CODE]:
    // message`.
    let text = show(&out.stdout);
    assert!(text
        .contains("testdata/edge/mixed.ndjson:9:180: error[PROTO_TRUNCATED]: JSON ends mid-value"));
}

#[test]
fn csv_output_matches_golden() {
    let out = ndjq()
        .args(["validate", "-f", "csv", MIXED])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    assert_golden("mixed.validate.csv", &out.stdout);
    let text = show(&out.stdout);
    assert_eq!(
        text.lines().next(),
        Some("file,line,column,offset,code,severity,message,excerpt")
    );
    // One row per diagnostic, no summary row.
    assert_eq!(text.lines().count(), 1 + 6);
}

#[test]
fn github_output_matches_golden() {
    let out = ndjq()
        .args(["validate", "-f", "github", MIXED])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    assert_golden("mixed.validate.github.txt", &out.stdout);
    let text = show(&out.stdout);
    let annotations: Vec<&str> = text.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 6);
    assert!(annotations.contains(
        &"::error file=testdata/edge/mixed.ndjson,line=9,col=180,title=PROTO_TRUNCATED::PROTO_TRUNCATED: JSON ends mid-value (EOF while parsing a string)"
    ));
    assert!(annotations
        .iter()
        .any(|a| a.starts_with("::notice file=testdata/edge/mixed.ndjson,line=7,")));
    assert_eq!(
        annotations
            .iter()
            .filter(|a| a.starts_with("::warning "))
            .count(),
        4
    );
}

#[test]
fn default_format_on_a_pipe_is_json() {
    let out = ndjq()
        .args(["validate", MIXED])
        .output()
        .expect("ndjq runs");
    let (diags, summary) = parse_validate(&out.stdout);
    assert_eq!(diags.len(), 6);
    assert_eq!(summary.records, 12);
}

#[test]
fn folder_is_walked_recursively_in_sorted_order() {
    let mixed = read(data(MIXED));
    // Whole, clean sessions (a failed turn or a session cut short would be a gap finding).
    let codex = read(data("testdata/codex/agentcmd-stream-output-2.jsonl"));
    let dir = tempfile::tempdir().expect("tempdir");
    // Each file ends with an empty line, so each produces one PROTO_EMPTY_LINE (info) that
    // names it; the line number tells the files apart too.
    let with_blank = |mut b: Vec<u8>| {
        b.push(b'\n');
        b
    };
    let gz = {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&with_blank(codex.clone())).expect("gzip");
        enc.finish().expect("gzip")
    };
    let zst = zstd::encode_all(&with_blank(pick(&mixed, &[1, 3, 11]))[..], 3).expect("zstd");
    write_file(dir.path(), "c.jsonl", &with_blank(pick(&mixed, &[1, 11])));
    write_file(dir.path(), "a/x.jsonl.gz", &gz);
    write_file(dir.path(), "b/y.json.zst", &zst);
    write_file(
        dir.path(),
        "b/sub/z.ndjson",
        &with_blank(pick(&mixed, &[1, 3, 4, 6, 11])),
    );
    // Not an NDJSON name: must be ignored even though it is full of problems.
    write_file(dir.path(), "a/notes.txt", b"not json\n\n");
    write_file(dir.path(), "b/sub/readme.md", b"# nothing\n");

    let root = dir.path().display().to_string();
    let (diags, s, code) = validate_json(&[&root]);
    assert_eq!(code, 0, "only info diagnostics");
    let got: Vec<(String, u64, &str)> = diags
        .iter()
        .map(|d| {
            let rel = Path::new(&d.file)
                .strip_prefix(dir.path())
                .unwrap_or_else(|_| panic!("{} is under the folder given", d.file));
            (rel.display().to_string(), d.line, d.code.as_str())
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a/x.jsonl.gz".to_string(), 8, "PROTO_EMPTY_LINE"),
            ("b/sub/z.ndjson".to_string(), 6, "PROTO_EMPTY_LINE"),
            ("b/y.json.zst".to_string(), 4, "PROTO_EMPTY_LINE"),
            ("c.jsonl".to_string(), 3, "PROTO_EMPTY_LINE"),
        ],
        "files in sorted path order, compressed ones decompressed, .txt/.md ignored"
    );
    assert_eq!(s.files, 4);
    assert_eq!(s.records, 8 + 6 + 4 + 3);
    assert_eq!(s.empty, 4);
    assert_eq!(s.invalid, 0);
}

#[test]
fn missing_file_is_an_io_error_but_the_others_are_validated() {
    let out = ndjq()
        .args([
            "validate",
            "-f",
            "json",
            "testdata/edge/does-not-exist.ndjson",
            MIXED,
        ])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2), "I/O error wins over findings");
    let stderr = show(&out.stderr);
    assert!(
        stderr.contains("does-not-exist.ndjson"),
        "stderr names the missing file: {stderr}"
    );
    let (diags, s) = parse_validate(&out.stdout);
    assert_eq!(diags.len(), 6, "mixed.ndjson after it is still validated");
    assert!(diags.iter().all(|d| d.file == MIXED));
    assert_eq!(s.files, 1);
    assert_eq!(s.records, 12);
}

#[test]
fn stdin_twice_is_a_usage_error() {
    let out = ndjq()
        .args(["validate", "-f", "json", "-", "-"])
        .write_stdin(read(data(MIXED)))
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = show(&out.stderr);
    assert!(stderr.contains("stdin"), "stderr explains: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "nothing validated: {}",
        show(&out.stdout)
    );
}

#[test]
fn stdin_is_read_without_arguments_or_with_dash() {
    let bytes = read(data(MIXED));
    for args in [&[][..], &["-"][..]] {
        let out = ndjq()
            .args(["validate", "-f", "json"])
            .args(args)
            .write_stdin(bytes.clone())
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(1));
        let (diags, s) = parse_validate(&out.stdout);
        let got: Vec<(&str, u64, &str)> = diags
            .iter()
            .map(|d| (d.file.as_str(), d.line, d.code.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("-", 2, "PROTO_TEXT_NOISE"),
                ("-", 5, "PROTO_UNKNOWN_TYPE"),
                ("-", 7, "PROTO_EMPTY_LINE"),
                ("-", 8, "PROTO_SCHEMA"),
                ("-", 9, "PROTO_TRUNCATED"),
                ("-", 12, "PROTO_TEXT_NOISE"),
            ]
        );
        assert_eq!(s.records, 12);
    }
}

#[test]
fn compressed_stdin_is_detected_by_magic_bytes() {
    let bytes = read(data(MIXED));
    let gz = {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&bytes).expect("gzip");
        enc.finish().expect("gzip")
    };
    let zst = zstd::encode_all(&bytes[..], 3).expect("zstd");
    for input in [gz, zst] {
        let (diags, s, code) = {
            let out = ndjq()
                .args(["validate", "-f", "json"])
                .write_stdin(input)
                .output()
                .expect("ndjq runs");
            let (d, s) = parse_validate(&out.stdout);
            (d, s, out.status.code())
        };
        assert_eq!(code, Some(1));
        assert_eq!(diags.len(), 6);
        assert_eq!(s.records, 12);
        assert_eq!(
            s.bytes,
            bytes.len() as u64,
            "bytes counts decompressed input"
        );
    }
}

#[test]
fn rejects_gets_the_invalid_records_byte_for_byte() {
    let bytes = read(data(MIXED));
    let dir = tempfile::tempdir().expect("tempdir");
    let rejects = dir.path().join("rejects.ndjson");
    let out = ndjq()
        .args(["validate", "-f", "json", "--rejects"])
        .arg(&rejects)
        .arg(MIXED)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        show(&read(&rejects)),
        show(&pick(&bytes, &[2, 9, 12])),
        "the banner, the cut line and the recorder line"
    );
}

#[test]
fn framing_edge_cases() {
    // CRLF and a BOM inside the stream are tolerated (info); a last line without newline
    // that does not parse is PROTO_TRUNCATED; a last line without newline that parses is a
    // normal record.
    let input = b"{\"type\":\"turn.started\"}\r\n\xef\xbb\xbf{\"type\":\"turn.started\"}\n{\"type\":\"turn.completed\",\"usage\":{}";
    let out = ndjq()
        .args(["validate", "-f", "json"])
        .write_stdin(&input[..])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    let (diags, s) = parse_validate(&out.stdout);
    let got: Vec<(u64, &str, &str)> = diags
        .iter()
        .map(|d| (d.line, d.code.as_str(), d.severity.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "PROTO_CRLF", "info"),
            (2, "PROTO_BOM", "info"),
            (3, "PROTO_TRUNCATED", "error"),
        ]
    );
    assert_eq!((s.records, s.valid, s.invalid), (3, 2, 1));

    let out = ndjq()
        .args(["validate", "-f", "json"])
        .write_stdin(&b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}"[..])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    let (diags, s) = parse_validate(&out.stdout);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!((s.records, s.valid), (1, 1));

    // An empty input is zero records and a success.
    let out = ndjq()
        .args(["validate", "-f", "json"])
        .write_stdin(Vec::new())
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    let (diags, s) = parse_validate(&out.stdout);
    assert!(diags.is_empty());
    assert_eq!((s.records, s.bytes), (0, 0));
}

fn text_output(color: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = ndjq();
    cmd.args(["validate", "-f", "text", "--color", color, MIXED]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn color_flag_and_environment() {
    let golden = show(&read(data("testdata/expected/mixed.validate.txt")));
    let has_ansi = |s: &str| s.contains('\u{1b}');

    let always = text_output("always", &[]);
    assert!(has_ansi(&always), "--color always colours text output");
    assert_eq!(strip_ansi(&always), golden, "colour only adds escapes");

    assert!(!has_ansi(&text_output("never", &[])));
    // stdout is a pipe here, so auto means no colour...
    assert_eq!(text_output("auto", &[]), golden);
    assert_eq!(text_output("auto", &[("NO_COLOR", "1")]), golden);
    // ...unless CLICOLOR_FORCE forces it.
    let forced = text_output("auto", &[("CLICOLOR_FORCE", "1")]);
    assert!(
        has_ansi(&forced),
        "CLICOLOR_FORCE=1 forces colour with auto"
    );
    assert_eq!(strip_ansi(&forced), golden);
    // An explicit flag beats the environment.
    assert!(!has_ansi(&text_output("never", &[("CLICOLOR_FORCE", "1")])));
    assert!(has_ansi(&text_output("always", &[("NO_COLOR", "1")])));

    // Machine formats are never coloured.
    for format in ["json", "csv"] {
        let out = ndjq()
            .args(["validate", "-f", format, "--color", "always", MIXED])
            .output()
            .expect("ndjq runs");
        assert!(
            !out.stdout.contains(&0x1b),
            "-f {format} --color always: {}",
            show(&out.stdout)
        );
    }
}

#[test]
fn error_taxonomy_codes_and_locations() {
    // One record per problem (docs/REFERENCE.md, "Diagnostic output"), with small limits so that
    // lines 5 and 6 hit them.
    let input: &[u8] = b"{\"type\":\"turn.started\"}\n\
{\"type\":\"x\xff\"}\n\
[1,2]\n\
{\"type\": tru}\n\
{\"a\":[[[[1]]]]}\n\
{\"type\":\"turn.started\",\"pad\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n\
\"str\"\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("taxonomy.ndjson");
    std::fs::write(&file, input).expect("write");
    let rejects = dir.path().join("rejects.ndjson");
    let file_arg = file.display().to_string();
    let rejects_arg = rejects.display().to_string();
    let (diags, s, code) = validate_json(&[
        "--max-depth",
        "3",
        "--max-line-bytes",
        "60",
        "--rejects",
        &rejects_arg,
        &file_arg,
    ]);
    assert_eq!(code, 1);
    let got: Vec<(u64, Option<u64>, u64, &str, &str)> = diags
        .iter()
        .map(|d| {
            (
                d.line,
                d.column,
                d.offset,
                d.code.as_str(),
                d.severity.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            // The 0xFF byte is the 11th of line 2, which starts at offset 24.
            (2, Some(11), 34, "PROTO_INVALID_UTF8", "error"),
            (3, Some(1), 38, "PROTO_NOT_OBJECT", "warning"),
            // `tru}`: the parser notices at the `}` (column 13).
            (4, Some(13), 56, "PROTO_INVALID_JSON", "error"),
            // The fourth opening bracket, at column 8, is one level too deep.
            (5, Some(8), 65, "PROTO_TOO_DEEP", "error"),
            (6, None, 74, "PROTO_LINE_TOO_LONG", "error"),
            (7, Some(1), 179, "PROTO_NOT_OBJECT", "warning"),
        ]
    );
    assert_eq!((s.records, s.valid, s.invalid), (7, 3, 4));
    // Every invalid record, the over-long one included, reaches --rejects intact.
    assert_eq!(read(&rejects), pick(input, &[2, 4, 5, 6]));
}

#[test]
fn input_text_cannot_break_or_colour_text_output() {
    // A record whose unknown `type` holds an escape sequence and a line break (decoded
    // from JSON escapes). Text output is one diagnostic line (plus its excerpt line) like a
    // compiler, and `--color never` means no escape sequences, whatever the input holds:
    // control characters taken from the input must be escaped when printed.
    let mixed = read(data(MIXED));
    let mut input = pick(&mixed, &[1]);
    input.extend_from_slice(b"{\"type\":\"evil\\u001b[31mred\\r\\nsecond\"}\n");
    // The result: a whole session, so the unknown type is the only finding.
    input.extend_from_slice(&pick(&mixed, &[11]));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("evil.ndjson");
    std::fs::write(&file, &input).expect("write");
    let file_arg = file.display().to_string();

    let (diags, _, _) = validate_json(&[&file_arg]);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, "PROTO_UNKNOWN_TYPE");

    let out = ndjq()
        .args(["validate", "-f", "text", "--color", "never", &file_arg])
        .output()
        .expect("ndjq runs");
    let text = show(&out.stdout);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\r'),
        "raw control characters from the input in text output: {text:?}"
    );
    let body: Vec<&str> = text.lines().collect();
    let (summary, diag_lines) = body.split_last().expect("summary line");
    assert!(summary.starts_with("3 records in 1 file"), "{summary:?}");
    assert_eq!(
        diag_lines.len(),
        2,
        "one diagnostic line and its excerpt: {text:?}"
    );
    assert!(diag_lines[0].starts_with(&format!("{file_arg}:2: warning[PROTO_UNKNOWN_TYPE]")));
    assert!(diag_lines[1].starts_with("    | "));
}
