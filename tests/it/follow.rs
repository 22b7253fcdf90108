//! `--follow`: a writer appends to files in a temporary tree while ndjq follows it; the
//! test waits (with generous timeouts, never asserting on time) for what must come, then
//! ends ndjq with a signal and checks its output and exit status.

use crate::common;

use common::live::*;
use common::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn record(n: u32) -> String {
    format!(
        "{{\"type\":\"user\",\"n\":{n},\"message\":{{\"role\":\"user\",\"content\":\"r{n}\"}}}}\n"
    )
}

/// Appends (a record split across writes), a truncation, a replacement and a new file in
/// a new subfolder, followed with notifications (`poll`: None) or by polling.
fn the_writer_scenario(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    let a = logs.join("a.jsonl");
    append(&a, record(1).as_bytes());
    append(&logs.join("b.ndjson"), record(2).as_bytes());
    let mut args = vec!["filter", "--color", "never", "--follow", "logs"];
    if let Some(secs) = poll {
        args.extend(["--poll", secs]);
    }
    let live = Live::start(dir, &args);
    let mut expected = record(1) + &record(2);
    live.wait_for("what was there", |o, _| o == expected);

    // A record written in three pieces: nothing until its newline.
    let r3 = record(3);
    let (x, rest) = r3.split_at(10);
    let (y, z) = rest.split_at(15);
    append(&a, x.as_bytes());
    append(&a, y.as_bytes());
    append(&a, z.as_bytes());
    append(&a, record(4).as_bytes());
    expected += &(r3.clone() + &record(4));
    live.wait_for("the appended records", |o, _| o == expected);

    // A new file in a new subfolder, read from its start.
    let deep = logs.join("new").join("deeper");
    std::fs::create_dir_all(&deep).expect("mkdir");
    append(&deep.join("c.jsonl"), (record(5) + &record(6)).as_bytes());
    // Not a log file's name: not read.
    append(&deep.join("notes.txt"), b"{\"type\":\"user\",\"n\":99}\n");
    live.wait_for("the new file", |o, _| o.contains(&record(6)));
    expected += &(record(5) + &record(6));
    assert_eq!(live.out(), expected);

    // Truncated: read again from its start, with a note.
    std::fs::write(&a, b"").expect("truncate");
    live.wait_for("the truncation note", |_, e| e.contains("truncated"));
    append(&a, record(7).as_bytes());
    expected += &record(7);
    live.wait_for("the record after the truncation", |o, _| o == expected);

    // Replaced (a new inode at the same name): reopened, with a note.
    let tmp_file = logs.join("b.tmp");
    std::fs::write(&tmp_file, (record(8) + &record(9)).as_bytes()).expect("write");
    std::fs::rename(&tmp_file, logs.join("b.ndjson")).expect("rename");
    expected += &(record(8) + &record(9));
    live.wait_for("the replaced file", |o, _| o == expected);

    // A partial last line is read as it stands only when the run ends.
    append(&a, b"{\"type\":\"user\",\"n\":10}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(live.out(), expected, "a partial line waits for its newline");

    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "stderr: {err}");
    expected += "{\"type\":\"user\",\"n\":10}";
    assert_eq!(out, expected);
    assert!(err.contains("note: logs/a.jsonl: truncated"), "{err}");
    assert!(err.contains("note: logs/b.ndjson: replaced"), "{err}");
    // Every record exactly once.
    for n in 1..=10 {
        assert_eq!(
            out.matches(&format!("\"n\":{n},")).count()
                + out.matches(&format!("\"n\":{n}}}")).count(),
            1,
            "record {n}"
        );
    }
}

#[test]
fn filter_follow_reads_appends_truncations_replacements_and_new_files() {
    the_writer_scenario(None);
}

#[test]
fn filter_follow_by_polling_sees_the_same() {
    the_writer_scenario(Some("0.1"));
}

/// Line numbers go on across appends; a file named on the command line is followed too;
/// SIGTERM ends it with 143.
#[test]
fn line_numbers_go_on_across_appends_and_sigterm_is_143() {
    let tmp = tempdir();
    let dir = tmp.path();
    let log = dir.join("run.jsonl");
    append(&log, b"{\"type\":\"user\"}\n{\"type\":\"user\"}\n");
    let live = Live::start(
        dir,
        &[
            "validate",
            "--color",
            "never",
            "-f",
            "json",
            "-F",
            "run.jsonl",
        ],
    );
    // Give it time to read what is there, then add a broken line 3.
    live.wait_for("the first pass", |_, _| true);
    std::thread::sleep(Duration::from_millis(200));
    append(&log, b"{\"type\":\n");
    live.wait_for("the broken record", |o, _| o.contains("\"line\":3,"));
    let (code, out, _) = live.stop("TERM");
    assert_eq!(code, 143);
    // The finding, then the final summary: one file, three records.
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("\"files\":1,"), "{out}");
    assert!(out.contains("\"records\":3,"), "{out}");
    assert!(out.contains("\"offset\":39"), "{out}");
}

/// The last object `stats --follow -f json` writes equals `stats` over the final tree.
#[test]
fn stats_follow_json_ends_equal_to_stats_over_the_final_tree() {
    let tmp = tempdir();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    let source = read_file(&testdata().join("claude/claude-multi_tool.ndjson"));
    let other = read_file(&testdata().join("claude/claude-tool.ndjson"));
    let cut = source.len() / 2;
    let first = &source[..cut];
    append(&logs.join("s1.jsonl"), first);
    let live = Live::start(
        dir,
        &[
            "stats",
            "--color",
            "never",
            "-f",
            "json",
            "--follow",
            "--interval",
            "0.2",
            "logs",
        ],
    );
    live.wait_for("a first snapshot", |o, _| o.lines().count() >= 1);
    // The rest of the session in two writes (the first ends in the middle of a line),
    // then a second session in a new subfolder.
    let mid = cut + (source.len() - cut) / 2;
    append(&logs.join("s1.jsonl"), &source[cut..mid]);
    append(&logs.join("s1.jsonl"), &source[mid..]);
    std::fs::create_dir_all(logs.join("sub")).expect("mkdir");
    append(&logs.join("sub/s2.jsonl"), &other);
    let want = stats_of(dir);
    live.wait_for("a snapshot of the whole tree", |o, _| {
        o.lines()
            .last()
            .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .is_some_and(|v| same_totals(&v, &want))
    });
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    let last: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a line")).expect("json");
    assert!(same_totals(&last, &want), "{last}\n{want}");
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one object per line");
        assert_eq!(v["schema"], want["schema"]);
        let at = v["taken_at"].as_str().expect("taken_at");
        assert!(at.parse::<jiff::Timestamp>().is_ok(), "{at}");
    }
    // Written when the totals changed: no two lines alike but for the time.
    let bodies: Vec<String> = out
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            v.as_object_mut().map(|o| o.remove("taken_at"));
            v.to_string()
        })
        .collect();
    for pair in bodies.windows(2) {
        assert_ne!(pair[0], pair[1]);
    }
}

fn stats_of(dir: &Path) -> serde_json::Value {
    let out = ndjq_sub("stats")
        .current_dir(dir)
        .args(["-f", "json", "logs"])
        .output()
        .expect("stats");
    serde_json::from_slice(&out.stdout).expect("json")
}

fn same_totals(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    [
        "lines", "sessions", "tokens", "tools", "cost_usd", "models", "types",
    ]
    .iter()
    .all(|k| a[k] == b[k])
}

/// Every reading command follows, and ends on SIGINT with its final output and 130.
#[test]
fn events_gaps_and_stats_csv_follow_and_end_with_their_summary() {
    let tmp = tempdir();
    let dir = tmp.path();
    let log = dir.join("s.jsonl");
    let session = read_file(&testdata().join("claude/claude-tool.ndjson"));
    let cut = session
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .nth(2)
        .expect("three lines");
    append(&log, &session[..cut]);
    for (args, done) in [
        (&["events", "-f", "json"][..], "\"result\""),
        (&["gaps", "-f", "json"][..], "\"summary\""),
        (&["stats", "-f", "csv"][..], "files,lines"),
    ] {
        std::fs::write(&log, &session[..cut]).expect("rewrite");
        let mut all = vec![args[0], "--color", "never"];
        all.extend(&args[1..]);
        all.extend(["--follow", "s.jsonl"]);
        let live = Live::start(dir, &all);
        std::thread::sleep(Duration::from_millis(300));
        append(&log, &session[cut..]);
        if args[0] == "events" {
            live.wait_for("the session's result event", |o, _| o.contains(done));
        } else {
            std::thread::sleep(Duration::from_millis(300));
        }
        let (code, out, err) = live.stop("INT");
        assert_eq!(code, 130, "{args:?}: {err}");
        assert!(out.contains(done), "{args:?}: {out}");
    }
}

/// A FIFO named on the command line is read to its end, as without --follow, while the
/// files beside it are followed.
#[test]
fn a_named_fifo_is_read_to_its_end_and_files_are_followed() {
    let tmp = tempdir();
    let dir = tmp.path();
    let fifo = dir.join("pipe.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    append(&dir.join("file.jsonl"), record(1).as_bytes());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, record(2)).expect("write the fifo"))
    };
    let live = Live::start(
        dir,
        &[
            "filter",
            "--color",
            "never",
            "-F",
            "pipe.jsonl",
            "file.jsonl",
        ],
    );
    let expected = record(2) + &record(1);
    live.wait_for("both inputs", |o, _| o == expected);
    writer.join().expect("writer");
    append(&dir.join("file.jsonl"), record(3).as_bytes());
    live.wait_for("the append", |o, _| o.contains(&record(3)));
    let (code, out, _) = live.stop("INT");
    assert_eq!(code, 130);
    assert_eq!(out, expected + &record(3));
}

/// Two Codex sessions written in turns: each file pauses while the other grows and resumes
/// with its thread, so `stats --by session` comes out as over the finished files.
#[test]
fn interleaved_codex_sessions_keep_their_threads() {
    let tmp = tempdir();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    let a = read_file(&testdata().join("codex/codex-tool.ndjson"));
    let b = read_file(&testdata().join("codex/codex-failed.ndjson"));
    let halves = |v: &[u8]| {
        let cut = v
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .nth(1)
            .expect("two lines");
        (v[..cut].to_vec(), v[cut..].to_vec())
    };
    let ((a1, a2), (b1, b2)) = (halves(&a), halves(&b));
    append(&logs.join("a.jsonl"), &a1);
    append(&logs.join("b.jsonl"), &b1);
    let live = Live::start(
        dir,
        &[
            "stats",
            "--color",
            "never",
            "-f",
            "json",
            "--by",
            "session",
            "-F",
            "--interval",
            "0.1",
            "logs",
        ],
    );
    live.wait_for("a first snapshot", |o, _| !o.is_empty());
    append(&logs.join("a.jsonl"), &a2);
    std::thread::sleep(Duration::from_millis(300));
    append(&logs.join("b.jsonl"), &b2);
    let want = {
        let out = ndjq_sub("stats")
            .current_dir(dir)
            .args(["-f", "json", "--by", "session", "logs"])
            .output()
            .expect("stats");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    let last: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a line")).expect("json");
    for k in ["sessions", "tokens", "tools", "groups", "lines"] {
        assert_eq!(last[k], want[k], "{k}");
    }
}

/// Under `--follow`, what the run writes into the folder it follows (the
/// `--rejects` file, stdout redirected to a file there) is never read back, however it
/// grows, or the run would feed itself without end.
#[test]
fn own_outputs_in_a_followed_folder_are_never_read() {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("logs")).expect("mkdir");
    let log = dir.join("logs/a.jsonl");
    append(&log, record(1).as_bytes());
    let out_file = std::fs::File::create(dir.join("logs/all.jsonl")).expect("create");
    let mut cmd = ndjq_bare_std();
    cmd.args([
        "filter",
        "--color",
        "never",
        "-F",
        "--rejects",
        "logs/rej.jsonl",
        "logs",
    ])
    .current_dir(dir)
    .stdin(Stdio::null())
    .stdout(out_file)
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start ndjq");
    let err = collect(child.stderr.take().expect("stderr"));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let wait = |what: &str, done: &dyn Fn() -> bool| {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < PATIENCE, "waited in vain for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait("the first record", &|| read("logs/all.jsonl") == record(1));
    append(&log, b"{\"type\":\n");
    append(&log, record(2).as_bytes());
    wait("the second record", &|| {
        read("logs/all.jsonl") == record(1) + &record(2)
    });
    // Time for a run that reads its own output to show it.
    std::thread::sleep(Duration::from_millis(500));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let code = child.wait().expect("wait").code();
    assert_eq!(code, Some(130));
    assert_eq!(read("logs/all.jsonl"), record(1) + &record(2));
    assert_eq!(read("logs/rej.jsonl"), "{\"type\":\n");
    let err = String::from_utf8_lossy(&err.lock().expect("lock")).into_owned();
    // Skipped with a note, never read: no finding on them.
    assert!(
        err.contains("rej.jsonl: skipped, input file is also the output"),
        "{err}"
    );
    assert!(!err.contains("rej.jsonl:1"), "{err}");
    assert!(!err.contains("all.jsonl:1"), "{err}");
}

/// OpenCode's store, followed: a message shows once it is finished, with its parts as they
/// end (a text part streamed into its row shows once, whole), and what is left unfinished
/// when the follow ends shows then; the last stats equal a run on the final store.
#[test]
fn a_followed_opencode_store_shows_messages_as_opencode_finishes_them() {
    let tmp = tempdir();
    let dir = tmp.path();
    for name in ["opencode.db", "opencode.db-wal"] {
        let bytes = read_data(&testdata().join(format!("opencode-store/{name}.zst")));
        std::fs::write(dir.join(name), bytes).expect("write the store");
    }
    let live = Live::start(
        dir,
        &[
            "events",
            "--color",
            "never",
            "-f",
            "json",
            "--follow",
            "opencode.db",
        ],
    );
    live.wait_for("the store as it is", |o, _| {
        o.contains("Rate limit reached")
    });
    // OpenCode's writes, each its own transaction, as OpenCode commits them.
    let db = rusqlite::Connection::open(dir.join("opencode.db")).expect("open the store");
    let write = |sql: &str| db.execute_batch(sql).expect("write to the store");
    let s = "ses_ddf1f3e42ffekxF3dkfuqYdfR8";
    write(&format!(
        "INSERT INTO message VALUES ('msg_live1', '{s}', 1795848000000, 1795848000000, \
         '{{\"role\":\"user\",\"time\":{{\"created\":1795848000000}}}}');
         INSERT INTO part VALUES ('prt_live1', 'msg_live1', '{s}', 1795848000001, 1795848000001, \
         '{{\"type\":\"text\",\"text\":\"Try again.\"}}');"
    ));
    live.wait_for("the new prompt", |o, _| o.contains("Try again."));
    write(&format!(
        "INSERT INTO message VALUES ('msg_live2', '{s}', 1795848000100, 1795848000100, \
         '{{\"role\":\"assistant\",\"time\":{{\"created\":1795848000100}}}}');
         INSERT INTO part VALUES ('prt_live2', 'msg_live2', '{s}', 1795848000101, 1795848000101, \
         '{{\"type\":\"text\",\"text\":\"Six\",\"time\":{{\"start\":1795848000101}}}}');"
    ));
    write(
        "UPDATE part SET time_updated = 1795848000200, data = \
         '{\"type\":\"text\",\"text\":\"Six is the answer.\",\"time\":{\"start\":1795848000101,\"end\":1795848000200}}' \
         WHERE id = 'prt_live2';",
    );
    write(
        "UPDATE message SET time_updated = 1795848000300, data = \
         '{\"role\":\"assistant\",\"modelID\":\"fake-model\",\"time\":{\"created\":1795848000100,\"completed\":1795848000300},\
         \"tokens\":{\"input\":40,\"output\":5,\"reasoning\":0,\"cache\":{\"read\":0,\"write\":0}},\"cost\":0.0002,\"finish\":\"stop\"}' \
         WHERE id = 'msg_live2';",
    );
    live.wait_for("the finished answer", |o, _| {
        o.contains("Six is the answer.")
    });
    // Left unfinished: shown as it stands when the follow ends.
    write(&format!(
        "INSERT INTO message VALUES ('msg_live3', '{s}', 1795848000400, 1795848000400, \
         '{{\"role\":\"assistant\",\"time\":{{\"created\":1795848000400}},\
         \"tokens\":{{\"input\":0,\"output\":0,\"reasoning\":0,\"cache\":{{\"read\":0,\"write\":0}}}}}}');"
    ));
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    let events: Vec<serde_json::Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let texts: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "text")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(texts.contains(&"Six is the answer."), "{texts:?}");
    assert!(
        !texts.contains(&"Six"),
        "a part is shown once, whole: {texts:?}"
    );
    let usage: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["kind"] == "usage" && e["message_id"] == "msg_live2")
        .collect();
    assert_eq!(usage.len(), 1, "{usage:?}");
    assert_eq!(usage[0]["input"], 40);
    assert!(
        events.iter().any(|e| e["message_id"] == "msg_live3"),
        "the unfinished message at the end: {out}"
    );
    // The same as a run on the final store.
    let once = ndjq_sub("events")
        .current_dir(dir)
        .args(["-f", "json", "opencode.db"])
        .output()
        .expect("events");
    let once = String::from_utf8_lossy(&once.stdout);
    assert_eq!(
        out.lines().count(),
        once.lines().count(),
        "{out}\n---\n{once}"
    );
}
