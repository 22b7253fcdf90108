//! Long lines, deep nesting, numbers, odd inputs, reading and writing failures: bounded and
//! reported, never a crash.

use super::*;

#[test]
fn huge_valid_line() {
    // 300 MiB is too slow for a debug build; 20 MiB exercises the same paths.
    let big = big_record(20 * MIB as usize);
    let input = lines(&[BEFORE, &big, AFTER]);
    let dir = tempdir();
    let path = write_file(dir.path(), "big.ndjson", &input);
    let report = validate_paths(&[&path], &[]);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    assert_eq!(report.summary.valid, 3);
    assert_eq!(report.status, Some(0));
    // Through a pipe, line-buffered, so the process is alive when it has passed the line.
    let expected = input.clone();
    let held = run_holding_stdin("filter", &["--line-buffered"], input, |out| {
        out.len() >= expected.len()
    });
    assert_bytes(&held.stdout, &expected, "filter output");
    assert_eq!(held.status, Some(0), "{}", held.stderr);
    if let Some(peak) = held.peak {
        let line = big.len() as u64;
        assert!(
            // The line is held once, in the framer's buffer (grown by doubling, so up to
            // twice the line), plus stage 1's quote and backslash masks (a quarter of the
            // line): measured 2x; the bound held here is 3x. 8 MiB: the process's own
            // baseline (a debug build) and read buffers.
            peak <= 3 * line + 8 * MIB,
            "peak memory {:.1} MiB for a {:.1} MiB line (limit: 3x the line + 8 MiB)",
            peak as f64 / MIB as f64,
            line as f64 / MIB as f64
        );
    }
}

#[test]
fn over_max_line_bytes() {
    let mut long = br#"{"kind":"note","text":""#.to_vec();
    long.resize(100_000, b'x');
    long.extend_from_slice(b"\"}");
    let d = {
        let input = lines(&[BEFORE, &long, AFTER]);
        let report = validate(&input, &["--max-line-bytes", "1K"]);
        let d = report.only("PROTO_LINE_TOO_LONG", 2).clone();
        report.assert_no_diagnostics_on([1, 3]);
        assert_eq!(report.summary.valid, 2);
        assert_eq!(report.status, Some(1));
        let f = filter(&input, &["--max-line-bytes", "1K"]);
        assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
        assert_bytes(&f.rejects, &lines(&[&long]), "--rejects streams it whole");
        let inv = filter(&input, &["--max-line-bytes", "1K", "--invalid", "-q"]);
        assert_bytes(
            &inv.stdout,
            &lines(&[&long]),
            "filter --invalid streams it whole",
        );
        // Without the cap it is an ordinary valid record.
        assert_eq!(validate(&input, &[]).summary.valid, 3);
        d
    };
    assert_eq!(d.severity, "error");
    assert_eq!(d.offset, BEFORE.len() as u64 + 1);
    // The limit is in bytes, K = 1024: 1024 passes, 1025 does not.
    let fits = [&b"{\"s\":\""[..], &[b'x'; 1024 - 8], b"\"}"].concat();
    let over = [&b"{\"s\":\""[..], &[b'x'; 1025 - 8], b"\"}"].concat();
    let report = validate(&lines(&[&fits, &over]), &["--max-line-bytes", "1K"]);
    report.assert_no_diagnostics_on([1]);
    report.only("PROTO_LINE_TOO_LONG", 2);
}

#[test]
fn never_ending_line() {
    // A small one through a file: the unterminated overlong record reaches --rejects whole.
    let mut tail = br#"{"never":""#.to_vec();
    tail.resize(2 * MIB as usize, b'y');
    let input = [&lines(&[BEFORE, AFTER])[..], &tail].concat();
    let dir = tempdir();
    let path = write_file(dir.path(), "never.ndjson", &input);
    let report = validate_paths(&[&path], &["--max-line-bytes", "1K"]);
    report.only("PROTO_LINE_TOO_LONG", 3);
    assert_eq!(report.summary.valid, 2);
    let f = filter_path(&path, &["--max-line-bytes", "1K"]);
    assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
    assert_bytes(
        &f.rejects,
        &tail,
        "--rejects: the unterminated record, nothing added",
    );

    // A 64 MiB one through a pipe that stays open: memory stays bounded by the cap.
    let mut input = lines(&[BEFORE, AFTER]);
    input.extend_from_slice(br#"{"never":""#);
    input.resize(64 * MIB as usize, b'y');
    let held = run_holding_stdin(
        "validate",
        &["-f", "json", "--max-line-bytes", "1K"],
        input,
        |_| true,
    );
    if let Some(peak) = held.peak {
        assert!(
            peak < 32 * MIB,
            "peak memory {} MiB while reading a 64 MiB line capped at 1K",
            peak / MIB
        );
    }
    let report = Report::parse(held.stdout.as_slice(), held.stderr.as_bytes(), held.status);
    let d = report.only("PROTO_LINE_TOO_LONG", 3);
    assert_eq!(d.offset, (BEFORE.len() + AFTER.len() + 2) as u64);
    assert_eq!(report.summary.valid, 2);
    assert_eq!(report.summary.bytes, 64 * MIB);
    assert_eq!(report.status, Some(1));
}

#[test]
fn line_never_handed_to_the_parser() {
    // A line over 4 GiB cannot be built in a test; what matters is that an overlong line
    // is reported for its length only, never parsed: give it every other fault.
    let mut long = b"\xFF\xFE".to_vec();
    long.extend(std::iter::repeat_n(b'[', 50_000));
    long.extend(std::iter::repeat_n(b'\xFF', 50_000));
    let input = lines(&[BEFORE, &long, AFTER]);
    let report = validate(&input, &["--max-line-bytes", "1K"]);
    report.only("PROTO_LINE_TOO_LONG", 2);
    assert_eq!(report.diags.len(), 1, "{:#?}", report.diags);
    assert_eq!(report.summary.valid, 2);
    let f = filter(&input, &["--max-line-bytes", "1K"]);
    assert_bytes(&f.rejects, &lines(&[&long]), "--rejects");
    // Limits beyond 4 GiB are accepted (no 32-bit truncation of the setting).
    for limit in ["5G", "4294967297"] {
        let report = validate(&lines(&[BEFORE, AFTER]), &["--max-line-bytes", limit]);
        assert_eq!(
            report.status,
            Some(0),
            "--max-line-bytes {limit}: {}",
            report.stderr
        );
        assert_eq!(report.summary.valid, 2);
    }
}

fn nested_arrays(depth: usize) -> Vec<u8> {
    ["[".repeat(depth), "]".repeat(depth)].concat().into_bytes()
}

fn nested_objects(depth: usize) -> Vec<u8> {
    ["{\"a\":".repeat(depth), "1".into(), "}".repeat(depth)]
        .concat()
        .into_bytes()
}

#[test]
fn nesting_limit() {
    let big_int_at = |depth: usize| {
        [
            "[".repeat(depth),
            "123456789012345678901234567890".into(),
            "]".repeat(depth),
        ]
        .concat()
        .into_bytes()
    };
    // Default --max-depth 128.
    let records = [
        nested_arrays(128),
        nested_arrays(129),
        nested_objects(128),
        nested_objects(129),
        // A big integer takes the serde_json path: the same limit applies there.
        big_int_at(128),
        big_int_at(129),
    ];
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let report = validate(&lines(&refs), &[]);
    for line in [1, 3, 5] {
        assert!(
            report
                .on_line(line)
                .iter()
                .all(|d| d.code == "PROTO_NOT_OBJECT"),
            "depth 128 is allowed (line {line}): {:?}",
            report.codes_on(line)
        );
    }
    assert_eq!(report.codes_on(3), Vec::<&str>::new());
    for line in [2, 4, 6] {
        let d = report.only("PROTO_TOO_DEEP", line);
        assert_eq!(d.severity, "error");
    }
    assert_eq!(report.only("PROTO_TOO_DEEP", 2).column, Some(129));
    assert_eq!(report.summary.valid, 3);

    // --max-depth 1024.
    let records = [nested_arrays(500), nested_arrays(1024), nested_arrays(1025)];
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let report = validate(&lines(&refs), &["--max-depth", "1024"]);
    report.only("PROTO_NOT_OBJECT", 1);
    report.only("PROTO_NOT_OBJECT", 2);
    assert_eq!(report.only("PROTO_TOO_DEEP", 3).column, Some(1025));
    assert_eq!(report.summary.valid, 2);
    // And a deeper limit than the parsers support is refused as a usage error.
    let out = ndjq_sub("validate")
        .args(["-f", "json", "--max-depth", "1025"])
        .write_stdin("{}\n")
        .output()
        .expect("run ndjq");
    assert_eq!(
        out.status.code(),
        Some(2),
        "--max-depth above 1024 is a usage error"
    );
}

#[test]
fn a_million_open_brackets() {
    let arrays = "[".repeat(1_000_000).into_bytes();
    let objects = "{\"a\":".repeat(1_000_000).into_bytes();
    let input = lines(&[BEFORE, &arrays, &objects, AFTER]);
    for args in [&[][..], &["--max-depth", "1024"]] {
        let report = validate(&input, args);
        report.only("PROTO_TOO_DEEP", 2);
        report.only("PROTO_TOO_DEEP", 3);
        report.assert_no_diagnostics_on([1, 4]);
        assert_eq!(report.summary.valid, 2, "{args:?}");
        assert_eq!(report.status, Some(1), "{args:?}: {}", report.stderr);
    }
    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
    assert_bytes(&f.rejects, &lines(&[&arrays, &objects]), "--rejects");
}

#[test]
fn number_out_of_range() {
    // ndjq's choice (serde_json's verdict): a number beyond f64 is invalid JSON.
    for bad in [&b"1E400"[..], b"{\"x\":1E400}", b"{\"x\":-1e999}"] {
        let d = bad_between_good(bad, "PROTO_INVALID_JSON");
        assert!(d.message.contains("out of range"), "{d:?}");
    }
}

#[test]
fn integer_beyond_64_bits() {
    let input = lines(&[
        b"{\"n\":123456789012345678901234567890}",
        b"{\"n\":-123456789012345678901234567890}",
        b"{\"n\":18446744073709551616}",
        b"{\"n\":-9223372036854775809}",
        b"123456789012345678901234567890",
    ]);
    let report = all_valid_and_unchanged(&input);
    assert_eq!(report.summary.valid, 5);
    report.only("PROTO_NOT_OBJECT", 5);
    report.assert_no_diagnostics_on(1..=4);
}

#[test]
fn numbers_unchanged() {
    let input = lines(&[
        b"{\"a\":1e2,\"b\":-0,\"c\":1.0,\"d\":1E+2,\"e\":-0.0,\"f\":0.1e-5,\"g\":100}",
        b"{\"pi\":3.141592653589793238462643383279,\"tiny\":5e-324,\"z\":0.10}",
    ]);
    let report = all_valid_and_unchanged(&input);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
}

#[test]
fn duplicate_keys() {
    let first: &[u8] = b"{\"a\":1,\"a\":2}";
    let second: &[u8] = b"{\"a\":2,\"a\":1}";
    let nested: &[u8] = b"{\"m\":{\"k\":\"x\",\"k\":\"y\"}}";
    let input = lines(&[first, second, nested]);
    let report = all_valid_and_unchanged(&input);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    // Queries see the last value of a repeated key.
    for (predicate, want) in [
        ("a=2", first),
        ("a=1", second),
        ("m.k=y", nested),
        ("m.k=\"y\"", nested),
    ] {
        let f = filter(&input, &["--where", predicate]);
        assert_bytes(&f.stdout, &lines(&[want]), &format!("--where {predicate}"));
        assert_eq!(f.status, Some(0));
    }
    let f = filter(&input, &["--where", "m.k=x"]);
    assert_bytes(&f.stdout, b"", "--where m.k=x: the first value is shadowed");
    assert_eq!(f.status, Some(1), "nothing selected");
}

#[test]
fn not_json() {
    let bad: [(&[u8], Option<u64>); 6] = [
        (b"NaN", Some(1)),
        (b"tru", None),
        (b"'x'", Some(1)),
        (b"[1,]", Some(4)),
        (b"//c", Some(1)),
        (b"{\"a\":NaN}", Some(6)),
    ];
    let mut records = vec![BEFORE];
    records.extend(bad.iter().map(|(b, _)| *b));
    records.push(AFTER);
    let input = lines(&records);
    let report = validate(&input, &[]);
    for (i, (bytes, column)) in bad.iter().enumerate() {
        let line = i as u64 + 2;
        let on = report.on_line(line);
        assert_eq!(on.len(), 1, "{}: {on:?}", show(bytes));
        let d = on[0];
        // `tru` is also a value cut short, which PROTO_TRUNCATED names precisely.
        let accepted: &[&str] = if *bytes == b"tru" {
            &["PROTO_INVALID_JSON", "PROTO_TRUNCATED"]
        } else {
            &["PROTO_INVALID_JSON"]
        };
        assert!(
            accepted.contains(&d.code.as_str()),
            "{}: {d:?}",
            show(bytes)
        );
        assert_eq!(d.severity, "error");
        let col = d
            .column
            .unwrap_or_else(|| panic!("{}: no column: {d:?}", show(bytes)));
        assert!(col as usize <= bytes.len() + 1, "{d:?}");
        if let Some(want) = column {
            assert_eq!(col, *want, "{}: {d:?}", show(bytes));
        }
    }
    report.assert_no_diagnostics_on([1, records.len() as u64]);
    assert_eq!(report.summary.valid, 2);
    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, &lines(&[BEFORE, AFTER]), "filter output");
    let rejected: Vec<&[u8]> = bad.iter().map(|(b, _)| *b).collect();
    assert_bytes(&f.rejects, &lines(&rejected), "--rejects");
}

#[test]
fn form_feed_is_not_whitespace() {
    for (bad, column) in [
        (&b"\x0C{\"a\":1}"[..], 1),
        (b"{\"a\":\x0C1}", 6),
        (b"{\"a\":1}\x0C", 8),
    ] {
        let d = bad_between_good(bad, "PROTO_INVALID_JSON");
        assert_eq!(d.column, Some(column), "{}: {d:?}", show(bad));
    }
}

#[test]
fn record_separator() {
    let input = lines(&[b"\x1E{\"a\":1}", b"{\"b\":2}", b"\x1E{\"c\":3}"]);
    let report = validate(&input, &[]);
    for line in [1, 3] {
        let on = report.on_line(line);
        assert!(
            on.len() == 1 && on[0].severity == "error",
            "an error on RS line {line}: {on:?}"
        );
    }
    report.assert_no_diagnostics_on([2]);
    assert_eq!(report.summary.valid, 1);
    assert_eq!(report.status, Some(1));
    let f = filter(&input, &[]);
    assert_bytes(&f.stdout, b"{\"b\":2}\n", "the plain record still passes");
    assert_bytes(
        &f.rejects,
        &lines(&[b"\x1E{\"a\":1}", b"\x1E{\"c\":3}"]),
        "--rejects",
    );
    // All RS: empty output is never silent.
    let all_rs = lines(&[b"\x1E{\"a\":1}", b"\x1E{\"c\":3}"]);
    let f = filter(&all_rs, &[]);
    assert_bytes(&f.stdout, b"", "nothing parses");
    assert_eq!(f.status, Some(1), "nothing selected");
    assert!(
        f.stderr.contains("error") && f.stderr.contains(":1:"),
        "filter says why its output is empty, got: {:?}",
        f.stderr
    );
}

#[test]
fn valid_oddities() {
    let input = lines(&[
        "{\"a\":\"line\u{2028}separator\u{2029}here\"}".as_bytes(),
        b"{\"a\":\"\\u0000\"}",
        b"1",
    ]);
    let report = all_valid_and_unchanged(&input);
    assert_eq!(report.summary.valid, 3);
    report.assert_no_diagnostics_on([1, 2]);
    let d = report.only("PROTO_NOT_OBJECT", 3);
    assert_eq!(d.severity, "warning");
}

#[test]
fn empty_input() {
    let report = validate(b"", &[]);
    assert!(report.diags.is_empty(), "{:#?}", report.diags);
    assert_eq!((report.summary.records, report.summary.bytes), (0, 0));
    assert_eq!(report.status, Some(0), "an empty input is a success");
    let dir = tempdir();
    let empty = write_file(dir.path(), "empty.ndjson", b"");
    let report = validate_paths(&[&empty], &[]);
    assert!(report.diags.is_empty());
    assert_eq!((report.summary.files, report.summary.records), (1, 0));
    assert_eq!(report.status, Some(0));
    for f in [filter(b"", &[]), filter_path(&empty, &[])] {
        assert_bytes(&f.stdout, b"", "filter output");
        assert_bytes(&f.rejects, b"", "--rejects");
        // An empty input is a success, and `filter` exits 1 when nothing
        // is selected (like grep; docs/REFERENCE.md, "Exit status"): either, but never an error.
        assert!(matches!(f.status, Some(0 | 1)), "{f:?}");
        assert!(!f.stderr.contains("error"), "{f:?}");
    }
}

#[test]
fn read_error_mid_stream() {
    use flate2::{read::GzDecoder, write::GzEncoder, Compression};
    let mut records = Vec::new();
    for n in 0..20_000 {
        records.push(format!(
            "{{\"kind\":\"line\",\"n\":{n},\"text\":\"record {n} of a log cut in the middle\"}}"
        ));
    }
    let refs: Vec<&[u8]> = records.iter().map(|r| r.as_bytes()).collect();
    let plain = lines(&refs);
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(&plain).expect("gzip");
    let gz = enc.finish().expect("gzip");
    let cut = &gz[..gz.len() / 2];
    // What a decompressor delivers before the error: the records to expect.
    let mut delivered = Vec::new();
    let err = GzDecoder::new(cut)
        .read_to_end(&mut delivered)
        .expect_err("a cut gzip stream is a read error");
    assert!(!delivered.is_empty(), "{err}");
    let last_nl = delivered
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("whole records before the cut");
    let (complete, partial) = delivered.split_at(last_nl + 1);
    let complete_records = complete.iter().filter(|&&b| b == b'\n').count() as u64;

    let dir = tempdir();
    let path = write_file(dir.path(), "cut.ndjson.gz", cut);
    let report = validate_paths(&[&path], &[]);
    assert_eq!(
        report.status,
        Some(2),
        "a read error exits 2: {}",
        report.stderr
    );
    assert!(
        report.stderr.contains("cut.ndjson.gz"),
        "the error names the file: {}",
        report.stderr
    );
    assert_eq!(
        report.summary.valid, complete_records,
        "every whole record before the error: {:?}",
        report.summary
    );

    let f = filter_path(&path, &[]);
    assert_eq!(f.status, Some(2), "{}", f.stderr);
    assert_bytes(
        &f.stdout,
        complete,
        "every record read before the error, flushed",
    );

    // The same through stdin.
    let out = ndjq_sub("filter")
        .write_stdin(cut.to_vec())
        .output()
        .expect("run ndjq");
    assert_eq!(out.status.code(), Some(2));
    assert_bytes(&out.stdout, complete, "filter output from stdin");
    // The bytes read after the last newline were a record cut by the error: they are
    // reported and kept like any cut record, never dropped.
    assert_bytes(&f.rejects, partial, "--rejects holds the cut record");
}

/// A big valid input in a file; with `crlf` every record also draws a (info) diagnostic,
/// so that `validate` writes all along.
fn big_input(dir: &Path, records: usize, crlf: bool) -> (std::path::PathBuf, Vec<u8>) {
    let end = if crlf { "\r\n" } else { "\n" };
    let mut input = Vec::new();
    for n in 0..records {
        input.extend_from_slice(
            format!(
                "{{\"kind\":\"line\",\"n\":{n},\"text\":\"{}\"}}{end}",
                "z".repeat(90)
            )
            .as_bytes(),
        );
    }
    (write_file(dir, "big.ndjson", &input), input)
}

#[test]
fn downstream_closes() {
    let dir = tempdir();
    // LF records for `filter` (no diagnostics at all); CRLF ones for `validate`, so that it
    // writes a diagnostic per record and meets the closed pipe early.
    let lf = big_input(dir.path(), 100_000, false);
    let crlf_dir = tempdir();
    let crlf = big_input(crlf_dir.path(), 100_000, true);
    for (args, (path, input)) in [
        (&["filter"][..], &lf),
        (&["validate", "-f", "json"][..], &crlf),
    ] {
        let first_line = &input[..=input.iter().position(|&b| b == b'\n').expect("a line")];
        for via_pipe in [false, true] {
            let mut cmd = ndjq_std(args[0]);
            cmd.args(&args[1..])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if via_pipe {
                cmd.stdin(Stdio::piped());
            } else {
                cmd.arg(path).stdin(Stdio::null());
            }
            let mut child = cmd.spawn().expect("spawn ndjq");
            let writer = child.stdin.take().map(|mut stdin| {
                let input = input.clone();
                // Fails with EPIPE once ndjq has gone: that is the point.
                std::thread::spawn(move || {
                    let _ = stdin.write_all(&input);
                })
            });
            let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
            let mut stderr = child.stderr.take().expect("stderr");
            let mut line = Vec::new();
            stdout.read_until(b'\n', &mut line).expect("read one line");
            drop(stdout); // like `| head -1`
            let mut err = String::new();
            stderr.read_to_string(&mut err).expect("read stderr");
            let status = child.wait().expect("wait for ndjq");
            if let Some(w) = writer {
                w.join().expect("writer thread");
            }
            let what = format!("{args:?} via_pipe={via_pipe}");
            if args[0] == "filter" {
                assert_bytes(&line, first_line, &what);
            } else {
                let d: Diag = serde_json::from_slice(&line).expect("a diagnostic line");
                assert_eq!((d.line, d.code.as_str()), (1, "PROTO_CRLF"), "{what}");
            }
            assert_eq!(
                status.code(),
                Some(0),
                "{what}: quiet exit 0, got {status:?}"
            );
            assert_eq!(err, "", "{what}: no message on a closed stdout");
        }
    }
}

#[test]
fn slow_consumer() {
    let dir = tempdir();
    let (path, input) = big_input(dir.path(), 300_000, false); // about 32 MiB
    let mut child = ndjq_std("filter")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndjq");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut out = Vec::with_capacity(input.len());
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..5 {
        let n = stdout.read(&mut buf).expect("read");
        out.extend_from_slice(&buf[..n]);
        std::thread::sleep(Duration::from_millis(40));
    }
    // The reader stalls: ndjq must wait for it, not buffer the input.
    if let Some(peak) = peak_rss(pid) {
        assert!(
            peak < input.len() as u64,
            "peak memory {} MiB with a stalled reader of a {} MiB input",
            peak / MIB,
            input.len() as u64 / MIB
        );
    }
    stdout.read_to_end(&mut out).expect("read the rest");
    let status = child.wait().expect("wait");
    let err = err_reader.join().expect("stderr thread");
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(err, "");
    assert_bytes(&out, &input, "a slow reader still gets every byte");
}

/// Framing does not depend on how the input arrives: a file, one write to a pipe, or a
/// trickle of tiny writes that cut CRLFs, BOMs and multibyte characters apart.
#[test]
fn framing_is_independent_of_chunking() {
    let input = [
        BOM,
        b"{\"kind\":\"note\",\"text\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"}\r\n",
        b"\n",
        b"{\"a\":1}\n",
        BOM,
        b"{\"b\":2}\n",
        b"Banner text\n",
        b"{\"c\":\"\xFF\"}\n",
        b"{\"d\":\n",
        b"\r\n",
        b"[1,2,3]\n",
        b"{\"e\":\"\xE2\x80\xA8\"}\r\n",
        b"{\"f\":",
    ]
    .concat();
    let dir = tempdir();
    let path = write_file(dir.path(), "mixed.ndjson", &input);
    let from_file = validate_paths(&[&path], &[]);
    assert!(from_file.diags.len() >= 6, "{:#?}", from_file.diags);
    let from_pipe = validate(&input, &[]);

    let trickled = {
        let mut child = ndjq_std("validate")
            .args(["-f", "json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ndjq");
        let mut stdin = child.stdin.take().expect("stdin");
        let data = input.clone();
        let writer = std::thread::spawn(move || {
            let mut i = 0;
            let mut size = 1;
            while i < data.len() {
                let end = (i + size).min(data.len());
                stdin.write_all(&data[i..end]).expect("write");
                stdin.flush().expect("flush");
                std::thread::sleep(Duration::from_micros(300));
                i = end;
                size = size % 5 + 1;
            }
        });
        let out = child.wait_with_output();
        writer.join().expect("writer");
        let out = out.expect("ndjq output");
        Report::parse(&out.stdout, &out.stderr, out.status.code())
    };

    let gz = {
        use flate2::{write::GzEncoder, Compression};
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(&input).expect("gzip");
        let gz = enc.finish().expect("gzip");
        let path = write_file(dir.path(), "mixed.ndjson.gz", &gz);
        validate_paths(&[&path], &[])
    };

    let strip = |r: &Report| -> (Vec<Diag>, Summary, Option<i32>) {
        let diags = r
            .diags
            .iter()
            .map(|d| Diag {
                file: String::new(),
                ..d.clone()
            })
            .collect();
        (diags, r.summary.clone(), r.status)
    };
    let want = strip(&from_file);
    assert_eq!(strip(&from_pipe), want, "one write to a pipe");
    assert_eq!(strip(&trickled), want, "tiny writes");
    assert_eq!(strip(&gz), want, "gzip");

    // And filter passes the same bytes whatever the source.
    let f_file = filter_path(&path, &[]);
    let f_pipe = filter(&input, &[]);
    assert_bytes(
        &f_pipe.stdout,
        &f_file.stdout,
        "filter output, pipe vs file",
    );
    assert_bytes(&f_pipe.rejects, &f_file.rejects, "--rejects, pipe vs file");
    let mut all = f_file.stdout.clone();
    all.extend_from_slice(&f_file.rejects);
    // Only the two empty lines ("\n" and "\r\n", 3 bytes) are neither passed nor rejected.
    assert_eq!(
        all.len() + 3,
        input.len(),
        "every byte is selected, rejected, or an empty line"
    );
}

#[test]
fn reading_a_missing_file_is_an_io_error() {
    // Keeps exit 2 for I/O errors distinct from exit 1 for findings (docs/REFERENCE.md, "Exit
    // status").
    let dir = tempdir();
    let missing = dir.path().join("missing.ndjson");
    let out = ndjq_sub("validate")
        .args(["-f", "json"])
        .arg(&missing)
        .output()
        .expect("run ndjq");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.ndjson"));
}
