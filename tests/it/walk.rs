//! Folder walks that meet what is not a plain log file (docs/GUIDE.md, "Inputs"): a FIFO,
//! a file that cannot be read, a symlink loop. Each is reported in its place and the rest of
//! the folder is still read, on one thread and on several. A FIFO found in a folder is never
//! opened (opening one blocks until a writer comes); one named on the command line is read.

use crate::common;

use common::{ndjq_sub, tempdir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const CLAUDE_LOG: &str = "testdata/claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl";

fn capture() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(CLAUDE_LOG)).expect("capture")
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// `stats -f json` over `dir`: exit code, the report, stderr.
fn stats(dir: &Path, threads: &str) -> (Option<i32>, Value, String) {
    let out = ndjq_sub("stats")
        .args(["-f", "json", "-j", threads])
        .arg(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("ndjq runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    (
        out.status.code(),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_fifo_in_a_folder_is_skipped_with_a_note_and_the_rest_is_read() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a.jsonl"), capture()).expect("write");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/b.jsonl"), capture()).expect("write");
    mkfifo(&dir.path().join("pipe.jsonl"));
    // Not a log file's name: not even a note.
    mkfifo(&dir.path().join("other-pipe"));
    for threads in ["1", "2"] {
        let (code, report, stderr) = stats(dir.path(), threads);
        // A note does not change the exit status.
        assert_eq!(code, Some(0), "-j {threads}: {stderr}");
        assert_eq!(report["files"], 2, "-j {threads}");
        assert_eq!(report["dialects"]["claude-log"], report["lines"]);
        let notes: Vec<&str> = stderr.lines().filter(|l| l.contains("note:")).collect();
        assert_eq!(notes.len(), 1, "-j {threads}: {stderr}");
        assert!(notes[0].contains("pipe.jsonl") && notes[0].contains("FIFO"));
        assert!(!stderr.contains("other-pipe"));

        let out = ndjq_sub("validate")
            .args(["-f", "json", "-j", threads])
            .arg(dir.path())
            .timeout(Duration::from_secs(60))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "validate -j {threads}");
        let summary: Value = serde_json::from_slice(&out.stdout).expect("summary");
        assert_eq!(summary["summary"]["files"], 2);
    }
}

#[test]
fn a_fifo_named_on_the_command_line_is_read() {
    let dir = tempdir();
    let fifo = dir.path().join("live.jsonl");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, capture()).expect("write to FIFO"))
    };
    let out = ndjq_sub("stats")
        .args(["-f", "json", "-j", "2"])
        .arg(&fifo)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("ndjq runs");
    writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    let lines = capture().iter().filter(|&&b| b == b'\n').count();
    assert_eq!(report["lines"], lines);
}

#[test]
fn unreadable_files_are_reported_and_the_rest_is_read() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a.jsonl"), capture()).expect("write");
    std::fs::write(dir.path().join("c.jsonl"), capture()).expect("write");
    // A link to nothing: it cannot be opened, whoever runs the test.
    std::os::unix::fs::symlink("nowhere.jsonl", dir.path().join("b-gone.jsonl")).expect("ln");
    // Unreadable by mode, unless the tests run as root (who reads anything).
    let locked = dir.path().join("d-locked.jsonl");
    std::fs::write(&locked, capture()).expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let locked_out = std::fs::File::open(&locked).is_err();
    for threads in ["1", "2"] {
        let (code, report, stderr) = stats(dir.path(), threads);
        assert_eq!(code, Some(2), "-j {threads}: {stderr}");
        assert!(stderr.contains("b-gone.jsonl"), "{stderr}");
        let expected_files = if locked_out {
            assert!(stderr.contains("d-locked.jsonl"), "{stderr}");
            2
        } else {
            3
        };
        assert_eq!(report["files"], expected_files, "-j {threads}: {stderr}");
        // Errors come in input order, between the files around them.
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ndjq:")).collect();
        assert!(errors[0].contains("b-gone.jsonl"), "{stderr}");
    }
}

#[test]
fn symlink_loops_are_reported_and_the_rest_is_read() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a.jsonl"), capture()).expect("write");
    // Two links pointing at each other: following them never ends.
    std::os::unix::fs::symlink("loop-b.jsonl", dir.path().join("loop-a.jsonl")).expect("ln");
    std::os::unix::fs::symlink("loop-a.jsonl", dir.path().join("loop-b.jsonl")).expect("ln");
    // A folder link back up the tree: not followed, so the walk ends.
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/z.jsonl"), capture()).expect("write");
    std::os::unix::fs::symlink("..", dir.path().join("sub/up")).expect("ln");
    // A link to a log file is read like the file.
    std::os::unix::fs::symlink("../a.jsonl", dir.path().join("sub/y-link.jsonl")).expect("ln");
    for threads in ["1", "2"] {
        let (code, report, stderr) = stats(dir.path(), threads);
        assert_eq!(code, Some(2), "-j {threads}: {stderr}");
        for name in ["loop-a.jsonl", "loop-b.jsonl"] {
            let line = stderr
                .lines()
                .find(|l| l.contains(name))
                .unwrap_or_else(|| panic!("{name} not reported: {stderr}"));
            assert!(line.to_lowercase().contains("symbolic links"), "{line}");
        }
        assert_eq!(report["files"], 3, "-j {threads}: {stderr}");
    }
}

#[test]
fn a_folder_is_read_in_the_byte_order_of_its_paths_folders_in_their_place() {
    // Names ordered byte by byte: `B` before `a`; the folder `a` before `a-b.jsonl` (a
    // prefix comes first), `-` before `.`; a folder's files where its name sorts.
    let dir = tempdir();
    let root = dir.path();
    std::fs::create_dir(root.join("a")).expect("mkdir");
    for (i, name) in ["a.jsonl", "a-b.jsonl", "a/x.jsonl", "B.jsonl", "a/y.ndjson"]
        .iter()
        .enumerate()
    {
        let line = format!("{{\"type\":\"user\",\"name\":\"{name}\",\"i\":{i}}}\n");
        std::fs::write(root.join(name), line).expect("write");
    }
    for threads in ["1", "2"] {
        let out = ndjq_sub("filter")
            .args(["-q", "-j", threads])
            .arg(root)
            .output()
            .expect("ndjq runs");
        let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("JSON line");
                v["name"].as_str().expect("name").to_string()
            })
            .collect();
        assert_eq!(
            names,
            ["B.jsonl", "a/x.jsonl", "a/y.ndjson", "a-b.jsonl", "a.jsonl"],
            "-j {threads}"
        );
    }
}
