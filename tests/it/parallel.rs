//! One thread or all threads: the output is the same, byte for byte, on generated Claude
//! streams (clean and corrupted), with overlong lines inside blocks and a line long enough
//! to end batching, for every command that reads records: validate, filter, events, stats
//! and gaps, on single streams and on a tree of captures of every dialect (many small files
//! read whole by the workers, large ones cut into blocks or read in order).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Writes a generated Claude stream of about `mb` MiB (`ndjq-gen`, deterministic for a
/// seed).
fn generate(dir: &Path, name: &str, mb: u32, corrupt: &str) -> PathBuf {
    let out = dir.join(name);
    let status = Command::new(crate::common::ndjq_gen_path())
        .args([
            "stream",
            "--dialect",
            "claude",
            "--size-mb",
            &mb.to_string(),
            "--seed",
            "7",
            "--corrupt-rate",
            corrupt,
        ])
        .arg("-o")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("ndjq-gen runs");
    assert!(status.success());
    out
}

fn run(args: &[&str], threads: &str, rejects: &Path) -> (Output, Vec<u8>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ndjq"));
    cmd.env_clear()
        .args(args)
        .args(["--color", "never", "-j", threads])
        .arg("--rejects")
        .arg(rejects);
    let out = cmd.output().expect("ndjq runs");
    let rejected = std::fs::read(rejects).expect("rejects written");
    (out, rejected)
}

fn assert_same_with_any_thread_count(cmd: &[&str], file: &Path) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args: Vec<&str> = cmd.to_vec();
    let path = file.to_str().expect("utf-8 path");
    args.push(path);
    let (one, rejects_one) = run(&args, "1", &dir.path().join("r1"));
    for threads in ["2", "3"] {
        let (many, rejects_many) = run(&args, threads, &dir.path().join("rn"));
        assert_eq!(
            one.status.code(),
            many.status.code(),
            "{cmd:?} -j {threads}"
        );
        assert!(
            one.stdout == many.stdout,
            "{cmd:?} -j {threads}: stdout differs"
        );
        assert!(
            one.stderr == many.stderr,
            "{cmd:?} -j {threads}: stderr differs"
        );
        assert!(
            rejects_one == rejects_many,
            "{cmd:?} -j {threads}: rejects differ"
        );
    }
    assert!(!one.stdout.is_empty(), "{cmd:?} printed nothing");
}

#[test]
fn thread_count_does_not_change_output_on_generated_streams() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clean = generate(dir.path(), "clean.ndjson", 6, "0");
    let corrupt = generate(dir.path(), "corrupt.ndjson", 6, "0.01");
    for file in [&clean, &corrupt] {
        assert_same_with_any_thread_count(&["validate", "-f", "json"], file);
        assert_same_with_any_thread_count(&["validate", "-f", "text"], file);
        assert_same_with_any_thread_count(&["validate", "-f", "csv"], file);
        assert_same_with_any_thread_count(&["filter", "--type", "assistant"], file);
        assert_same_with_any_thread_count(&["filter", "-v", "--type", "user"], file);
        assert_same_with_any_thread_count(&["filter", "-c", "--where", "message.role=user"], file);
        // Records over the limit land inside blocks: same diagnostics, same bytes.
        assert_same_with_any_thread_count(
            &["validate", "-f", "json", "--max-line-bytes", "4K"],
            file,
        );
        assert_same_with_any_thread_count(&["filter", "--invalid", "--max-line-bytes", "4K"], file);
        for format in ["json", "text"] {
            assert_same_with_any_thread_count(&["events", "-f", format], file);
            assert_same_with_any_thread_count(&["gaps", "-f", format], file);
        }
        // The JSON report holds every total, breakdown and the merge state.
        assert_same_with_any_thread_count(&["stats", "-f", "json"], file);
        for by in ["session", "model", "tool", "day"] {
            assert_same_with_any_thread_count(&["stats", "-f", "json", "--by", by], file);
        }
        assert_same_with_any_thread_count(&["stats", "-f", "csv", "--by", "type"], file);
    }
    // The corrupted stream really has bad records, so the comparison covered them.
    let (out, rejects) = run(
        &["validate", "-f", "json", corrupt.to_str().expect("path")],
        "2",
        &dir.path().join("r"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!rejects.is_empty());
}

#[test]
fn a_line_longer_than_a_batch_ends_batching_without_losing_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = generate(dir.path(), "base.ndjson", 3, "0");
    let mut bytes = std::fs::read(&base).expect("read");
    // A valid 6 MiB record in the middle, then the rest of the stream.
    let mid = bytes.len() / 2;
    let nl = mid
        + bytes[mid..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("newline");
    let big = format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
        "x".repeat(6 << 20)
    );
    bytes.splice(nl + 1..nl + 1, big.bytes());
    let file = dir.path().join("with-big-line.ndjson");
    std::fs::write(&file, &bytes).expect("write");
    assert_same_with_any_thread_count(&["validate", "-f", "json"], &file);
    assert_same_with_any_thread_count(&["filter", "--type", "user"], &file);
    assert_same_with_any_thread_count(&["filter", "--invalid", "--max-line-bytes", "1M"], &file);
    assert_same_with_any_thread_count(&["stats", "-f", "json", "--by", "session"], &file);
    // Everything passes through: -v of nothing-selected gives back every byte.
    let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
        .args(["filter", "-j", "2", "--valid"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        out.stdout == bytes,
        "valid records pass through byte for byte"
    );
}

#[test]
fn events_keep_a_usage_held_across_tool_results_longer_than_the_warm_up() {
    // Each assistant message's usage is held until the next message; the tool result
    // after it (100 KiB) is longer than a block's warm-up, so a block starting after it
    // rebuilds the held usage from the assistant line further back.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("long-results.ndjson");
    let mut text = String::new();
    for i in 0..48 {
        text.push_str(&format!(
            concat!(
                r#"{{"type":"assistant","session_id":"s1","message":{{"id":"msg_{i}","#,
                r#""model":"claude-sonnet-4-5-20250929","role":"assistant","content":"#,
                r#"[{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{}}}}],"#,
                r#""usage":{{"input_tokens":{i},"output_tokens":7,"#,
                r#""cache_read_input_tokens":100,"cache_creation_input_tokens":0}}}}}}"#,
                "\n",
                r#"{{"type":"user","session_id":"s1","message":{{"role":"user","content":"#,
                r#"[{{"type":"tool_result","tool_use_id":"toolu_{i}","content":"{pad}"}}]}}}}"#,
                "\n"
            ),
            i = i,
            pad = "z".repeat(100 << 10)
        ));
    }
    std::fs::write(&file, &text).expect("write");
    for format in ["json", "text", "csv"] {
        assert_same_with_any_thread_count(&["events", "-f", format], &file);
    }
    // Every message's usage comes out once, with its own figures.
    let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
        .args(["events", "-f", "json", "-j", "2"])
        .arg(&file)
        .output()
        .expect("runs");
    let usages: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(r#""kind":"usage""#))
        .map(str::to_string)
        .collect();
    assert_eq!(usages.len(), 48, "one usage per message");
    for (i, u) in usages.iter().enumerate() {
        assert!(u.contains(&format!(r#""message_id":"msg_{i}""#)), "{u}");
        assert!(u.contains(&format!(r#""input":{i},"#)), "{u}");
    }
}

#[test]
fn a_large_file_ending_without_a_newline_or_in_a_long_line_keeps_its_last_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = generate(dir.path(), "base.ndjson", 3, "0.01");
    let bytes = std::fs::read(&base).expect("read");
    // The last record unterminated; then a long unterminated record last (its cut is never
    // found: the rest is read one record at a time); then the file cut mid-record.
    let unterminated = &bytes[..bytes.len() - 1];
    let long_last = [
        &bytes[..],
        format!("{{\"type\":\"user\",\"pad\":\"{}\"}}", "y".repeat(5 << 20)).as_bytes(),
    ]
    .concat();
    let cut = &bytes[..bytes.len() * 2 / 3];
    for (name, content) in [
        ("unterminated.ndjson", unterminated),
        ("long-last.ndjson", &long_last[..]),
        ("cut.ndjson", cut),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, content).expect("write");
        assert_same_with_any_thread_count(&["validate", "-f", "json"], &file);
        assert_same_with_any_thread_count(&["stats", "-f", "json"], &file);
        let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
            .args(["filter", "-j", "2", "--valid", "--max-line-bytes", "8M"])
            .arg(&file)
            .output()
            .expect("runs");
        let valid = Command::new(env!("CARGO_BIN_EXE_ndjq"))
            .args(["filter", "-j", "1", "--valid", "--max-line-bytes", "8M"])
            .arg(&file)
            .output()
            .expect("runs");
        assert!(out.stdout == valid.stdout, "{name}: filter --valid differs");
        let (all, _) = run(
            &[
                "filter",
                "--max-line-bytes",
                "8M",
                "-v",
                "--type",
                "none",
                file.to_str().expect("path"),
            ],
            "2",
            &dir.path().join("r"),
        );
        assert!(all.stdout == content, "{name}: every byte comes through");
    }
}

/// A folder of real captures, as a session tree holds them: many small files of every
/// dialect in nested folders, large ones cut into blocks (whose records carry context from
/// block to block for events and stats), a compressed one, a broken one, an empty one.
fn capture_tree(root: &Path) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let read = |rel: &str| std::fs::read(data.join(rel)).expect("capture");
    let write = |rel: &str, bytes: &[u8]| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    };
    let claude_log = read("claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl");
    let codex_log = read("codex-log/codex-tool.session-log.jsonl");
    let small = [
        "claude/claude-tool.ndjson",
        "claude/claude-multi_tool.ndjson",
        "claude/claude-error500.ndjson",
        "codex/codex-tool.ndjson",
        "codex/codex-failed.ndjson",
        "codex/agentcmd-stream-output-2.jsonl",
        "jsonrpc/app-server.jsonl",
        "edge/mixed.ndjson",
        "stats/claude-rules.ndjson",
    ];
    for project in 0..6 {
        for (i, rel) in small.iter().enumerate() {
            let name = Path::new(rel).file_name().expect("name").to_string_lossy();
            write(&format!("p{project}/s{i}/{name}"), &read(rel));
        }
        write(&format!("p{project}/t{project}.jsonl"), &claude_log);
        write(&format!("p{project}/r{project}.jsonl"), &codex_log);
    }
    write("p2/empty.jsonl", b"");
    write("p3/notes.txt", b"not a log file\n");
    // Larger than a block. In a tree a file of up to 4 MiB is read whole by a worker
    // like a small one; a larger one is cut into ranges (and so is a medium file when it
    // is the last input: `big_files_alone_are_cut_into_ranges` below).
    write("p1/big-transcript.jsonl", &claude_log.repeat(320));
    write("p1/medium-transcript.jsonl", &claude_log.repeat(200));
    // A medium file with broken records all through it: those past its first MiB (read
    // in place) come through the framer, numbered on from it.
    std::fs::create_dir_all(root.join("p2")).expect("mkdir");
    generate(&root.join("p2"), "medium-corrupt.jsonl", 3, "0.01");
    // Medium files whose first MiB holds no line end (one 1.5 MB record first), or whose
    // lines end in CRLF after a byte-order mark.
    let mut long_first = format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
        "w".repeat(3 << 19)
    )
    .into_bytes();
    long_first.extend(claude_log.repeat(10));
    write("p3/medium-long-first.jsonl", &long_first);
    let mut crlf = b"\xef\xbb\xbf".to_vec();
    for line in claude_log.repeat(120).split_inclusive(|&b| b == b'\n') {
        crlf.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
        crlf.extend_from_slice(b"\r\n");
    }
    write("p3/medium-crlf.jsonl", &crlf);
    write("p4/big-rollout.jsonl", &codex_log.repeat(60));
    // Context across blocks: codex items started and completed, JSON-RPC requests and their
    // responses, sessions carried.
    let mut codex = read("codex/codex-tool.ndjson");
    codex.extend(read("codex/agentcmd-stream-output-2.jsonl"));
    write("p4/big-codex.jsonl", &codex.repeat(800));
    write(
        "p5/big-rpc.jsonl",
        &read("jsonrpc/app-server.jsonl").repeat(400),
    );
    // A large file whose head does not tell its dialect at once: the head block detects it
    // on a worker, as one pass does.
    // (A type no dialect knows is no warning before the dialect is known.)
    let mut late = b"not json\n\n{\"type\":\"mystery\"}\n{\"cut\": \n[1, 2]\n".to_vec();
    late.extend(claude_log.repeat(150));
    write("p0/big-late-dialect.jsonl", &late);
    // A link to nothing among small files: its error is reported in its place, between
    // the files read before and after it.
    #[cfg(unix)]
    {
        let link = root.join("p3/s4/dangling.jsonl");
        std::os::unix::fs::symlink(root.join("nowhere.jsonl"), link).expect("symlink");
    }
    // Every other agent's session many times over, some cut short and some missing their
    // second record, so gaps open in one block and close (or never do) in another.
    let agents = [
        ("gemini", "jnarowski__agentcmd__gemini.md.L635.jsonl", 700),
        ("copilot", "sortie-ai__sortie__tool_use_session.jsonl", 400),
        (
            "opencode",
            "sortie-ai__sortie__opencode-adapter-notes.md.L313-315.jsonl",
            1100,
        ),
        (
            "cursor",
            "arockwell__emdx__cursor-vs-claude-cli-examples.md.L398-401.jsonl",
            1500,
        ),
    ];
    for (agent, file, copies) in agents {
        let session = read(&format!("other-agents/{agent}/{file}"));
        let lines: Vec<&[u8]> = session.split_inclusive(|&b| b == b'\n').collect();
        let mut big = Vec::new();
        for copy in 0..copies {
            for (i, line) in lines.iter().enumerate() {
                let cut = copy % 7 == 3 && i == lines.len() - 1;
                // (Copilot's second record is no gap; its tool start is.)
                let gap = copy % 11 == 5 && i == if agent == "copilot" { 3 } else { 1 };
                if agent == "cursor" && copy % 11 == 5 && i == lines.len() - 1 {
                    // A result that is an error.
                    let line = String::from_utf8_lossy(line);
                    big.extend(
                        line.replace(r#""is_error":false"#, r#""is_error":true"#)
                            .bytes(),
                    );
                } else if !cut && !gap {
                    big.extend_from_slice(line);
                }
            }
            if agent == "opencode" && copy % 9 == 4 {
                // OpenCode's own failure record ends its run in an error.
                big.extend_from_slice(
                    br#"{"type":"error","timestamp":1777197446700,"sessionID":"ses_236c713fcffel8QozOz4ca0AYK","error":{"name":"APIError","data":{"message":"rate limited"}}}"#,
                );
                big.push(b'\n');
            }
        }
        write(&format!("p5/big-{agent}.jsonl"), &big);
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &claude_log.repeat(3)).expect("gzip");
    write("p5/packed.jsonl.gz", &gz.finish().expect("gzip"));
}

#[test]
fn thread_count_does_not_change_output_on_a_tree_of_captures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    capture_tree(&tree);
    let commands: &[&[&str]] = &[
        &["validate", "-f", "json"],
        &["validate", "-f", "text"],
        &["validate", "--gaps", "-f", "json"],
        &["validate", "-f", "json", "--max-line-bytes", "2K"],
        &["filter", "--type", "assistant"],
        &["filter", "--invalid"],
        &["stats", "-f", "json"],
        &["stats", "-f", "json", "--by", "session"],
        &["stats", "-f", "csv", "--by", "file"],
        &["gaps", "-f", "json"],
        &["gaps", "-f", "text"],
        &["events", "-f", "json"],
        &["events", "-f", "text"],
        &["events", "-f", "csv"],
    ];
    for cmd in commands {
        assert_same_with_any_thread_count(cmd, &tree);
    }
    // The tree really has broken records, gaps and several dialects.
    let (out, rejects) = run(
        &["stats", "-f", "json", tree.to_str().expect("path")],
        "2",
        &dir.path().join("r"),
    );
    assert!(!rejects.is_empty());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    assert_eq!(report["files"], 6 * 11 + 15);
    assert_eq!(out.status.code(), Some(2), "the dangling link is an error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("dangling.jsonl"));
    // Gaps were found in the other agents' large files.
    let (gaps, _) = run(
        &["gaps", "-f", "json", tree.to_str().expect("path")],
        "2",
        &dir.path().join("r"),
    );
    let gaps = String::from_utf8_lossy(&gaps.stdout);
    for agent in ["gemini", "copilot", "opencode", "cursor"] {
        let file = format!("big-{agent}.jsonl");
        let found = gaps.lines().filter(|l| l.contains(&file)).count();
        assert!(found > 10, "{found} gaps in {file}");
    }
    let dialects = report["dialects"].as_object().expect("dialects");
    for d in [
        "claude",
        "claude-log",
        "codex",
        "codex-log",
        "jsonrpc",
        "gemini",
        "copilot",
        "opencode",
        "cursor",
    ] {
        assert!(dialects.contains_key(d), "{d} in {dialects:?}");
    }
}

#[test]
fn big_files_alone_are_cut_into_ranges() {
    // In the tree above the files of up to 4 MiB are read whole, one per worker; the last
    // input (here the only one) is cut into ranges whatever its size, so every dialect's
    // context across ranges (sessions, open tool calls, requests and responses) is read
    // the same on every thread count.
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    capture_tree(&tree);
    let mut big: Vec<PathBuf> = walk(&tree)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let large = std::fs::metadata(p).is_ok_and(|m| m.len() > 1 << 20);
            large && name.is_some_and(|n| n.starts_with("big-") || n.starts_with("medium-"))
        })
        .collect();
    big.sort();
    assert!(big.len() >= 8, "{big:?}");
    for file in &big {
        for cmd in [
            &["validate", "-f", "json"][..],
            &["gaps", "-f", "json"],
            &["events", "-f", "json"],
            &["stats", "-f", "json"],
        ] {
            assert_same_with_any_thread_count(cmd, file);
        }
    }
}

#[test]
fn a_time_range_counts_the_same_records_on_every_thread_count() {
    // A record without a time of its own (a transcript's summary line) takes its input's
    // last time under --since/--until: blocks cannot know it, so the input is read in
    // order. The summaries sit between every two records, so some start a block.
    let dir = tempfile::tempdir().expect("tempdir");
    let status = Command::new(crate::common::ndjq_gen_path())
        .args([
            "tree",
            "--shape",
            "claude-large",
            "--files",
            "2",
            "--total-mb",
            "8",
        ])
        .args(["--seed", "3"])
        .arg(dir.path().join("tree"))
        .stderr(std::process::Stdio::null())
        .status()
        .expect("ndjq-gen runs");
    assert!(status.success());
    let mut files: Vec<PathBuf> = walk(&dir.path().join("tree"));
    files.sort_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0));
    let text = std::fs::read_to_string(files.last().expect("a file")).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let time_at = |i: usize| {
        let v: serde_json::Value = serde_json::from_str(lines[i]).expect("json");
        v["timestamp"].as_str().expect("a timestamp").to_string()
    };
    let (since, until) = (time_at(lines.len() / 3), time_at(lines.len() * 2 / 3));
    let mut mixed = String::new();
    for (i, line) in lines.iter().enumerate() {
        mixed.push_str(line);
        mixed.push('\n');
        mixed.push_str(&format!(
            "{{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"u{i}\"}}\n"
        ));
    }
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(&file, mixed).expect("write");
    let cmd = ["stats", "-f", "json", "--since", &since, "--until", &until];
    assert_same_with_any_thread_count(&cmd, &file);
    // The range really cut records out, summaries included.
    let out = Command::new(env!("CARGO_BIN_EXE_ndjq"))
        .args(cmd)
        .arg(&file)
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let summaries = report["types"]["summary"]
        .as_u64()
        .expect("summaries counted");
    assert!(
        summaries > 0 && summaries < lines.len() as u64 / 2,
        "{summaries}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
