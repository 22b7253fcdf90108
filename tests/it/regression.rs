//! One test per bug that fuzzing, the property tests or the differential test found (issue
//! #8), each named after what it found (STYLE habit 11).

use crate::common;

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
fn a_line_opening_with_cr_is_judged_by_serde_json_not_taken_for_text_noise() {
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
fn counts_near_u64_max_saturate_instead_of_overflowing() {
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

// ---------------------------------------------------------------------------------------
// Hostile or unlucky inputs (own outputs, odd names, recover, big documents,
// thread counts, whole-file reads, -j identity, files cut while read).

/// Runs `cmd` with its stdout into `stdout`, killing it after `secs`: `Some(exit code)`,
/// or `None` when it had to be killed (it never ended).
fn run_into(
    mut cmd: std::process::Command,
    stdout: std::fs::File,
    secs: u64,
) -> (Option<i32>, String) {
    let mut child = cmd
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ndjq runs");
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                std::io::Read::read_to_string(&mut e, &mut err).expect("stderr");
            }
            return (status.code(), err);
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            return (None, String::new());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Case 1: the walk reached the `--rejects` file it was writing and read it back for
/// ever; `filter logs > logs/zz.jsonl` did the same with stdout.
#[test]
fn rejects_inside_walked_folder_is_skipped() {
    let dir = common::tempdir();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).expect("mkdir");
    common::write_file(
        &logs,
        "a.jsonl",
        b"{\"a\":1}\nbad one\n{\"b\":2}\nbad two\n",
    );
    for threads in ["1", "2"] {
        let rejects = logs.join("rejects.jsonl");
        let out = common::ndjq_sub("validate")
            .args(["-f", "json", "-j", threads, "--rejects"])
            .arg(&rejects)
            .arg(&logs)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "-j {threads}");
        assert_eq!(common::read_file(&rejects), b"bad one\nbad two\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("rejects.jsonl: skipped, input file is also the output"),
            "{err}"
        );
        // stdout redirected into the walked folder.
        let zz = logs.join("zz.jsonl");
        let mut cmd = common::ndjq_std("filter");
        cmd.args(["-j", threads]).arg(&logs);
        let (code, err) = run_into(cmd, std::fs::File::create(&zz).expect("create"), 20);
        assert_eq!(code, Some(0), "-j {threads}: ended");
        assert!(err.contains("zz.jsonl: skipped"), "{err}");
        // rejects.jsonl is an input of this run: its lines are read, as any log's.
        assert_eq!(common::read_file(&zz), b"{\"a\":1}\n{\"b\":2}\n");
        std::fs::remove_file(&rejects).expect("rm");
        std::fs::remove_file(&zz).expect("rm");
    }
}

/// Case 2: `validate --rejects in.jsonl in.jsonl` emptied its input before reading it.
/// Refused before anything is created, however the same file is named.
#[test]
fn rejects_named_as_input_is_a_usage_error_and_truncates_nothing() {
    let dir = common::tempdir();
    let content = b"{\"a\":1}\nbad\n";
    let input = common::write_file(dir.path(), "in.jsonl", content);
    std::os::unix::fs::symlink(&input, dir.path().join("link.jsonl")).expect("symlink");
    std::fs::hard_link(&input, dir.path().join("hard.jsonl")).expect("hard link");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let names = [
        ("in.jsonl", "in.jsonl"),
        ("link.jsonl", "in.jsonl"),
        ("in.jsonl", "hard.jsonl"),
        ("sub/../in.jsonl", "link.jsonl"),
    ];
    for (rejects, input_name) in names {
        for sub in ["validate", "filter", "stats"] {
            let out = common::ndjq_sub(sub)
                .current_dir(dir.path())
                .args(["--rejects", rejects, input_name])
                .output()
                .expect("ndjq runs");
            assert_eq!(
                out.status.code(),
                Some(2),
                "{sub} --rejects {rejects} {input_name}"
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("is the same file as --rejects"), "{err}");
            assert_eq!(common::read_file(&input), content, "{sub}: input untouched");
        }
    }
    // The same file as stdin, and as stdout.
    let out = common::ndjq_std("validate")
        .current_dir(dir.path())
        .args(["--rejects", "hard.jsonl"])
        .stdin(std::fs::File::open(&input).expect("open"))
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdin is the same file as --rejects"), "{err}");
    // A pipe as stdin and `--rejects /dev/stdin`: the rejects would be written into the
    // pipe being read (found by the adversarial pass: it never ended).
    let out = common::ndjq_sub("filter")
        .args(["--rejects", "/dev/stdin"])
        .write_stdin(b"bad\n".to_vec())
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdin is the same file as --rejects"), "{err}");
    assert_eq!(common::read_file(&input), content);
    let mut cmd = common::ndjq_std("filter");
    cmd.arg(&input);
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("hard.jsonl"))
        .expect("open");
    let (code, err) = run_into(cmd, append, 20);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is the same file as stdout"), "{err}");
    assert_eq!(common::read_file(&input), content);
}

/// `report -o d/a.jsonl d` wrote its page over a.jsonl and said "skipped": the log was
/// gone and never counted. An output that a named folder's walk would read is refused
/// before anything is written, however it is named (a symlink, a hard link outside).
#[test]
fn report_output_that_is_an_input_log_is_refused_and_the_log_is_untouched() {
    let dir = common::tempdir();
    let d = dir.path().join("d");
    std::fs::create_dir(&d).expect("mkdir");
    let log = common::read_file(&common::testdata().join("claude/claude-tool.ndjson"));
    let a = common::write_file(&d, "a.jsonl", &log);
    std::os::unix::fs::symlink(&a, dir.path().join("link.html")).expect("symlink");
    std::fs::hard_link(&a, dir.path().join("hard.html")).expect("hard link");
    for output in ["d/a.jsonl", "link.html", "hard.html", "d/../d/a.jsonl"] {
        let out = common::ndjq_sub("report")
            .current_dir(dir.path())
            .args(["-o", output, "d"])
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(2), "report -o {output} d");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "input d/a.jsonl (found in folder d) is the same file as -o {output}"
            )),
            "{err}"
        );
        assert!(out.stdout.is_empty());
        assert_eq!(
            common::read_file(&a),
            log,
            "-o {output}: the log is untouched"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&d).expect("ls").collect();
    assert_eq!(left.len(), 1, "no page or temporary file beside the log");
}

/// `validate --rejects d/b.jsonl d` truncated b.jsonl, wrote the rejects into it and said
/// "skipped"; `filter d >> d/b.jsonl` skipped the log it appended to. Both are refused
/// before reading (and under `--follow` too), and b.jsonl keeps its records.
#[test]
fn rejects_or_stdout_that_is_a_log_in_a_walked_folder_is_refused_and_the_log_is_untouched() {
    let dir = common::tempdir();
    let d = dir.path().join("d");
    std::fs::create_dir_all(d.join("sub")).expect("mkdir");
    common::write_file(&d, "a.jsonl", b"{\"a\":1}\nbad a\n");
    let content = b"{\"b\":2}\nbad b\n";
    let b = common::write_file(&d.join("sub"), "b.jsonl", content);
    std::fs::hard_link(&b, dir.path().join("hard.txt")).expect("hard link");
    for rejects in ["d/sub/b.jsonl", "hard.txt"] {
        for (sub, extra) in [
            ("validate", &["-j", "1"][..]),
            ("filter", &["-j", "2"][..]),
            ("stats", &[][..]),
            ("validate", &["--follow"][..]),
        ] {
            let out = common::ndjq_sub(sub)
                .current_dir(dir.path())
                .args(extra)
                .args(["--rejects", rejects, "d"])
                .timeout(std::time::Duration::from_secs(20))
                .output()
                .expect("ndjq runs");
            assert_eq!(
                out.status.code(),
                Some(2),
                "{sub} {extra:?} --rejects {rejects}"
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!(
                    "input d/sub/b.jsonl (found in folder d) is the same file as --rejects {rejects}"
                )),
                "{err}"
            );
            assert!(out.stdout.is_empty(), "nothing read");
            assert_eq!(
                common::read_file(&b),
                content,
                "{sub}: the log is untouched"
            );
        }
    }
    // A log there that is empty is a log there all the same.
    common::write_file(&d, "empty.jsonl", b"");
    let out = common::ndjq_sub("validate")
        .current_dir(dir.path())
        .args(["--rejects", "d/empty.jsonl", "d"])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_file(d.join("empty.jsonl")).expect("rm");
    // stdout appended to a log of the folder: refused without reading.
    let mut cmd = common::ndjq_std("filter");
    cmd.current_dir(dir.path()).arg("d");
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&b)
        .expect("open");
    let (code, err) = run_into(cmd, append, 20);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("input d/sub/b.jsonl (found in folder d) is the same file as stdout"),
        "{err}"
    );
    assert_eq!(common::read_file(&b), content);
    // An output there that holds nothing yet (`> d/all.jsonl` just made it) is the run's
    // own: skipped with its note, and the run goes on.
    let all = d.join("all.jsonl");
    let mut cmd = common::ndjq_std("filter");
    cmd.current_dir(dir.path()).arg("d");
    let (code, err) = run_into(cmd, std::fs::File::create(&all).expect("create"), 20);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("all.jsonl: skipped, input file is also the output"),
        "{err}"
    );
    assert_eq!(common::read_file(&all), b"{\"a\":1}\n{\"b\":2}\n");
}

/// `report -o page.html` truncated the page and wrote the new one into it: a run that
/// failed midway left half a page. The page is written beside its target and renamed
/// into place: another name of the old page still holds the old page, the new one keeps
/// the old one's permissions, and nothing is left beside it.
#[test]
fn report_page_is_renamed_into_place_never_written_over() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::tempdir();
    let d = dir.path().join("d");
    std::fs::create_dir(&d).expect("mkdir");
    std::fs::copy(
        common::testdata().join("claude/claude-tool.ndjson"),
        d.join("a.jsonl"),
    )
    .expect("copy");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let page = common::write_file(&out_dir, "page.html", b"the old page");
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    std::fs::hard_link(&page, dir.path().join("old.html")).expect("hard link");
    let out = common::ndjq_sub("report")
        .arg("-o")
        .arg(&page)
        .arg(&d)
        .output()
        .expect("ndjq runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let new = String::from_utf8(common::read_file(&page)).expect("UTF-8");
    assert!(new.starts_with("<!DOCTYPE html>") && new.trim_end().ends_with("</html>"));
    assert_eq!(
        common::read_file(&dir.path().join("old.html")),
        b"the old page"
    );
    let mode = std::fs::metadata(&page).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    let names: Vec<_> = std::fs::read_dir(&out_dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["page.html"]);
    // What is not a regular file is written as it is, never replaced (`-o /dev/null`
    // once replaced the device): a FIFO stays the FIFO, and /dev/stdout is stdout.
    use std::os::unix::fs::FileTypeExt;
    let fifo = out_dir.join("page.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).expect("read the FIFO"))
    };
    let out = common::ndjq_sub("report")
        .arg("-o")
        .arg(&fifo)
        .arg(&d)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    let kind = std::fs::symlink_metadata(&fifo).expect("stat").file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced");
    assert!(reader
        .join()
        .expect("reader")
        .starts_with(b"<!DOCTYPE html>"));
    let out = common::ndjq_sub("report")
        .args(["-o", "/dev/stdout"])
        .arg(&d)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.starts_with(b"<!DOCTYPE html>"));
    // A page that cannot be written (its folder is gone) leaves nothing behind.
    let out = common::ndjq_sub("report")
        .arg("-o")
        .arg(dir.path().join("none/page.html"))
        .arg(&d)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("none").exists());
}

/// Case 3: a log file whose name is not UTF-8 was skipped by the walk, and `--by file`
/// merged such names into one row.
#[test]
fn non_utf8_file_names_are_read_and_kept_apart() {
    use std::os::unix::ffi::OsStrExt;
    let dir = common::tempdir();
    let name = |b: &[u8]| dir.path().join(std::ffi::OsStr::from_bytes(b));
    std::fs::write(name(b"inv\xff.jsonl"), b"{\"type\":\"a\"}\n").expect("write");
    std::fs::write(
        name(b"inv\xfe.jsonl"),
        b"{\"type\":\"b\"}\n{\"type\":\"b\"}\n",
    )
    .expect("write");
    let out = common::ndjq_sub("stats")
        .args(["-f", "csv", "--by", "file"])
        .arg(dir.path())
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let shown = |esc: &str, n: u64| format!("{}/inv\\x{esc}.jsonl,{n},", dir.path().display());
    assert!(text.contains(&shown("FF", 1)), "{text}");
    assert!(text.contains(&shown("FE", 2)), "{text}");
    // Named directly, and in a diagnostic.
    std::fs::write(name(b"bad\xff.jsonl"), b"oops\n").expect("write");
    let out = common::ndjq_sub("validate")
        .args(["-f", "text"])
        .arg(name(b"bad\xff.jsonl"))
        .output()
        .expect("ndjq runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(text.contains("bad\\xFF.jsonl:1:1:"), "{text}");
}

/// Case 4: with `--recover --rejects`, the text around a recovered object (and a second
/// object on the same line) was in neither output.
#[test]
fn recover_sends_the_text_around_an_object_to_rejects() {
    let dir = common::tempdir();
    let rejects = dir.path().join("rej");
    let input = b"Warning: x {\"type\":\"a\"} tail\n\
                  pre {\"a\":1} mid {\"b\":2} post\r\n\
                  {\"ok\":1}\n\
                  plain text\n";
    let out = common::ndjq_sub("filter")
        .args(["--recover", "--rejects"])
        .arg(&rejects)
        .write_stdin(input.to_vec())
        .output()
        .expect("ndjq runs");
    assert_eq!(out.stdout, b"{\"type\":\"a\"}\n{\"a\":1}\n{\"ok\":1}\n");
    assert_eq!(
        common::read_file(&rejects),
        b"Warning: x  tail\npre  mid {\"b\":2} post\r\nplain text\n"
    );
}

/// A pretty-printed document of about `kib` KiB: `{"type": "result", "items": [...]}`.
fn pretty_document(kib: usize) -> Vec<u8> {
    let mut doc = String::from("{\n  \"type\": \"result\",\n  \"items\": [\n");
    let mut i = 0;
    while doc.len() < kib << 10 {
        if i > 0 {
            doc.push_str(",\n");
        }
        doc.push_str(&format!(
            "    {{\n      \"k\": {i},\n      \"v\": \"xxxxxxxxxxxxxxxxxxxx\",\n      \"sub\": {{\n        \"a\": [\n          1,\n          2\n        ]\n      }}\n    }}"
        ));
        i += 1;
    }
    doc.push_str("\n  ]\n}\n");
    doc.into_bytes()
}

/// Case 5: a pretty-printed document took time quadratic in its size (980 KB: 51 s),
/// parsed again at every line. A 2 MiB one, whole and cut short, in one linear pass: as
/// one record, and cut, as its lines.
#[test]
fn pretty_document_is_read_in_linear_time() {
    let dir = common::tempdir();
    let doc = pretty_document(2048);
    let whole = common::write_file(dir.path(), "doc.json", &doc);
    let cut = common::write_file(dir.path(), "cut.json", &doc[..doc.len() - 100]);
    let lines = |b: &[u8]| bytecount_lines(b);
    for threads in ["1", "2"] {
        let v: Value = common::stats_json(&["-j", threads], &[whole.as_path()]);
        assert_eq!(v["valid"], 1, "-j {threads}: one record");
        assert_eq!(v["types"]["result"], 1);
        let v: Value = common::stats_json(&["-j", threads], &[cut.as_path()]);
        assert_eq!(v["lines"], lines(&doc[..doc.len() - 100]), "-j {threads}");
        assert!(
            v["types"].get("result").is_none(),
            "a cut document is no record"
        );
    }
    // With --recover (not a document then: pretty objects of at most 64 lines), linear too.
    let small = pretty_document(256);
    let file = common::write_file(dir.path(), "small.json", &small);
    let v: Value = common::stats_json(&["--recover"], &[file.as_path()]);
    assert_eq!(v["bytes"], small.len() as u64, "every byte read");
    assert!(
        v["valid"].as_u64().is_some_and(|n| n > 0),
        "objects reassembled"
    );
}

fn bytecount_lines(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64 + u64::from(b.last() != Some(&b'\n'))
}

/// Case 6: `-j 100000` panicked spawning threads, `-j 4294967296` aborted on a 1 TB
/// allocation. A bound (1024) and a usage error past it.
#[test]
fn thread_count_above_the_bound_is_a_usage_error() {
    let dir = common::tempdir();
    let file = common::write_file(dir.path(), "a.jsonl", b"{\"a\":1}\n");
    for n in ["100000", "4294967296", "1025", "99999999999999999999999"] {
        let out = common::ndjq_sub("filter")
            .args(["-j", n])
            .arg(&file)
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(2), "-j {n}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("1024"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = common::ndjq_sub("filter")
        .args(["-j", "1024"])
        .arg(&file)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"{\"a\":1}\n");
}

/// Case 7: `--pricing /dev/zero` and `--merge /dev/zero` read without end into memory.
#[test]
fn whole_file_reads_are_capped() {
    let dir = common::tempdir();
    let file = common::write_file(dir.path(), "a.jsonl", b"{\"a\":1}\n");
    let out = common::ndjq_sub("stats")
        .args(["-f", "json", "--pricing", "/dev/zero"])
        .arg(&file)
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--pricing file /dev/zero is larger than 256 MiB"),
        "{err}"
    );
    let out = common::ndjq_sub("stats")
        .args(["-f", "json", "--merge", "/dev/zero"])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--merge input /dev/zero is larger than 256 MiB"),
        "{err}"
    );
}

/// Case 9: 200 files without a final newline: `-j 2` put blank lines between batches
/// (a shard's next block began with the `\n` the last one lacked) and changed from run to
/// run; `--rejects` differed by a few bytes.
#[test]
fn files_without_final_newline_same_for_every_j() {
    let dir = common::tempdir();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).expect("mkdir");
    for i in 0..200 {
        let body = format!("{{\"n\":{i}}}\nbad {i}\n{{\"m\":{i}}}");
        common::write_file(&logs, &format!("f{i:03}.jsonl"), body.as_bytes());
    }
    let run = |threads: &str| {
        let rejects = dir.path().join(format!("rej{threads}"));
        let out = common::ndjq_sub("filter")
            .args(["-j", threads, "--rejects"])
            .arg(&rejects)
            .arg(&logs)
            .output()
            .expect("ndjq runs");
        (out.stdout, common::read_file(&rejects))
    };
    let one = run("1");
    assert!(!one.0.windows(2).any(|w| w == b"\n\n"), "no blank line");
    assert_eq!(one.0.iter().filter(|&&b| b == b'\n').count(), 399);
    for threads in ["2", "8", "2", "8"] {
        assert!(run(threads) == one, "-j {threads} differs from -j 1");
    }
}

/// Case 11: a file cut while it is read (copytruncate): a large file is truncated in the
/// middle of a line, or to nothing, while `-j 1` or `-j 2` reads it. Whatever the
/// interleaving, what is written is the file's first lines with no gap, a line reported
/// cut short is the next one, and a cut under the reader is a read error saying so.
#[test]
fn file_truncated_while_read_gives_a_prefix() {
    let dir = common::tempdir();
    let mut big = Vec::new();
    let mut n = 0u64;
    while big.len() < 24 << 20 {
        big.extend_from_slice(
            format!(
                "{{\"type\":\"x\",\"n\":{n},\"pad\":\"{}\"}}\n",
                "p".repeat(80)
            )
            .as_bytes(),
        );
        n += 1;
    }
    for (attempt, threads) in [(0u64, "2"), (1, "1"), (2, "2"), (3, "1")] {
        let path = common::write_file(dir.path(), "log.jsonl", &big);
        let out_path = dir.path().join("out");
        let mut cmd = common::ndjq_std("filter");
        cmd.args(["-j", threads]).arg(&path);
        let child_out = std::fs::File::create(&out_path).expect("create");
        // Mid-line, or (copytruncate) to nothing.
        let cut_at = if attempt >= 2 {
            0
        } else {
            big.len() as u64 / 3 + 17 + attempt * 1000
        };
        let cutter = std::thread::spawn({
            let path = path.clone();
            move || {
                std::thread::sleep(std::time::Duration::from_millis(5 + 20 * attempt));
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_len(cut_at))
                    .expect("truncate");
            }
        });
        let (code, err) = run_into(cmd, child_out, 60);
        cutter.join().expect("cutter");
        assert!(code.is_some(), "ended");
        let out = common::read_file(&out_path);
        // The lines written are lines 0..k of the file, in order, with no gap.
        let written: Vec<&[u8]> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        for (i, line) in written.iter().enumerate() {
            let want = format!("\"n\":{i},");
            assert!(
                line.windows(want.len()).any(|w| w == want.as_bytes()),
                "line {} is not the file's line {}",
                i + 1,
                i + 1
            );
        }
        // A file cut under the reader is a read error (exit 2) naming the cut, whatever -j.
        assert_eq!(
            code == Some(2),
            err.contains("the file shrank to"),
            "-j {threads}: {err}"
        );
        // A cut line, if any, is the one right after them.
        if let Some(at) = err.find("PROTO_TRUNCATED") {
            let cut_line = written.len() + 1;
            let before = &err[..at];
            assert!(
                before.contains(&format!(":{cut_line}:")),
                "the cut line is line {cut_line}: {err}"
            );
        }
    }
}
