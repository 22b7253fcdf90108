//! One thread or all threads: the output is the same, byte for byte, on generated Claude
//! streams (clean and corrupted), with overlong lines inside blocks and a line long enough
//! to end batching, for every command that reads records: validate, filter, events, stats
//! and gaps (events and gaps read in order whatever `-j` says; the test keeps it so).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Writes a generated Claude stream of about `mb` MiB (`ndjq-gen`, deterministic for a
/// seed).
fn generate(dir: &Path, name: &str, mb: u32, corrupt: &str) -> PathBuf {
    let out = dir.join(name);
    let status = Command::new(env!("CARGO_BIN_EXE_ndjq-gen"))
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
