//! Files have lives under `--follow`: deleted and written again at the same path, rewritten
//! in place, renamed (a file or a folder), a followed folder removed and made again, a FIFO
//! or a loop of links where a log was; two sessions written in turns; a hang-up. Each is
//! read as a one-shot run would read the final files (docs/REFERENCE.md, "Following").
//! Every test waits for what must come (generous, never asserting on time).

use crate::common;

use common::live::*;
use common::*;
use std::path::Path;
use std::time::Duration;

fn record(n: u32) -> String {
    format!(
        "{{\"type\":\"user\",\"n\":{n},\"message\":{{\"role\":\"user\",\"content\":\"r{n}\"}}}}\n"
    )
}

fn records(ns: std::ops::RangeInclusive<u32>) -> String {
    ns.map(record).collect()
}

/// `args` then `--poll SECS` when polling.
fn with_poll<'a>(args: &[&'a str], poll: Option<&'a str>) -> Vec<&'a str> {
    let mut all = args.to_vec();
    if let Some(secs) = poll {
        all.extend(["--poll", secs]);
    }
    all
}

/// Each record's count in `out` (one line each).
fn counts(out: &str) -> std::collections::BTreeMap<&str, usize> {
    let mut m = std::collections::BTreeMap::new();
    for line in out.lines() {
        *m.entry(line).or_insert(0) += 1;
    }
    m
}

/// Deleted, then a longer file written under a temporary name and moved to the same path:
/// a file system may give it the old inode at once, so only its first bytes tell it is
/// another file. It is read from its start, with the note, and nothing is misread where
/// the old offset falls.
fn deleted_and_written_again(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("d")).expect("mkdir");
    let a = dir.join("d/a.jsonl");
    append(&a, records(1..=3).as_bytes());
    let live = Live::start(
        dir,
        &with_poll(&["filter", "--color", "never", "--follow", "d"], poll),
    );
    live.wait_for("what was there", |o, _| o == records(1..=3));
    std::fs::remove_file(&a).expect("rm");
    let new = dir.join("d/a.tmp");
    std::fs::write(&new, records(11..=14)).expect("write");
    std::fs::rename(&new, &a).expect("mv");
    let want = records(1..=3) + &records(11..=14);
    live.wait_for("the new file whole", |o, _| o == want);
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    assert_eq!(out, want);
    assert!(
        err.contains("note: d/a.jsonl: replaced; reading the new file from its start"),
        "{err}"
    );
    assert!(!err.contains("PROTO_"), "{err}");
}

#[test]
fn file_rewritten_at_the_same_path_is_read_from_its_start() {
    deleted_and_written_again(None);
}

#[test]
fn file_rewritten_at_the_same_path_is_read_from_its_start_by_polling() {
    deleted_and_written_again(Some("0.05"));
}

/// Rewritten in place (the same inode, longer than what was read, other first bytes)
/// between two looks: read from its start.
#[test]
fn file_rewritten_in_place_is_read_from_its_start() {
    let tmp = tempdir();
    let dir = tmp.path();
    let a = dir.join("a.jsonl");
    append(&a, records(1..=2).as_bytes());
    let live = Live::start(
        dir,
        &[
            "filter", "--color", "never", "-F", "--poll", "0.05", "a.jsonl",
        ],
    );
    live.wait_for("what was there", |o, _| o == records(1..=2));
    // One write over the whole file: seen truncated (between the two steps) or rewritten.
    std::fs::write(&a, records(21..=25)).expect("rewrite");
    let want = records(1..=2) + &records(21..=25);
    live.wait_for("the rewritten file whole", |o, _| o == want);
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    assert_eq!(out, want);
    assert!(
        err.contains("a.jsonl: replaced") || err.contains("a.jsonl: truncated"),
        "{err}"
    );
    assert!(!err.contains("PROTO_"), "{err}");
}

fn stats_of(dir: &Path, path: &str) -> serde_json::Value {
    let out = ndjq_sub("stats")
        .current_dir(dir)
        .args(["-f", "json", path])
        .output()
        .expect("stats");
    serde_json::from_slice(&out.stdout).expect("json")
}

fn last_report(out: &str) -> Option<serde_json::Value> {
    out.lines()
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
}

/// What a stats report says of the files and records (all but its time and state).
fn counted(v: &serde_json::Value) -> serde_json::Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("taken_at");
        o.remove("state");
    }
    v
}

/// A file renamed, then a folder renamed, each written to again: `stats --follow` counts
/// every file, line and byte once (its last report is `stats` over the final tree) and
/// `filter --follow` writes every record once.
fn renamed_files_and_folders(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("d/sub")).expect("mkdir");
    let session = read_file(&testdata().join("claude/claude-multi_tool.ndjson"));
    let cut = session.len() / 2;
    let cut = session[..cut]
        .iter()
        .rposition(|b| *b == b'\n')
        .expect("a line")
        + 1;
    append(&dir.join("d/a.jsonl"), &session[..cut]);
    append(&dir.join("d/sub/c.jsonl"), records(1..=2).as_bytes());
    let stats = Live::start(
        dir,
        &with_poll(
            &[
                "stats",
                "--color",
                "never",
                "-f",
                "json",
                "-F",
                "--interval",
                "0.05",
                "d",
            ],
            poll,
        ),
    );
    let filter = Live::start(
        dir,
        &with_poll(&["filter", "--color", "never", "-F", "d"], poll),
    );
    let want_now = stats_of(dir, "d");
    stats.wait_for("the first report", |o, _| {
        last_report(o).is_some_and(|v| counted(&v) == counted(&want_now))
    });
    let first = session[..cut].iter().filter(|b| **b == b'\n').count();
    filter.wait_for("what was there", |o, _| o.lines().count() == first + 2);

    std::fs::rename(dir.join("d/a.jsonl"), dir.join("d/b.jsonl")).expect("mv file");
    append(&dir.join("d/b.jsonl"), &session[cut..]);
    std::fs::rename(dir.join("d/sub"), dir.join("d/sub2")).expect("mv folder");
    append(&dir.join("d/sub2/c.jsonl"), records(3..=4).as_bytes());

    let want = stats_of(dir, "d");
    stats.wait_for("a report of the final tree", |o, _| {
        last_report(o).is_some_and(|v| counted(&v)["lines"] == want["lines"])
    });
    filter.wait_for("the appended records", |o, _| o.contains(&record(4)));
    let (code, out, err) = stats.stop("INT");
    assert_eq!(code, 130, "{err}");
    let last = last_report(&out).expect("a report");
    assert_eq!(counted(&last), counted(&want), "{err}");
    assert_eq!(last["files"], 2);
    let (code, out, err) = filter.stop("INT");
    assert_eq!(code, 130, "{err}");
    let lines = out.lines().count();
    let c = counts(&out);
    assert_eq!(c.len(), lines, "a record written twice:\n{out}");
    assert_eq!(lines, session.split(|b| *b == b'\n').count() - 1 + 4);
    assert!(
        !err.contains("replaced") && !err.contains("truncated"),
        "{err}"
    );
}

#[test]
fn renamed_file_is_counted_once() {
    renamed_files_and_folders(None);
}

#[test]
fn renamed_file_is_counted_once_by_polling() {
    renamed_files_and_folders(Some("0.05"));
}

/// Each line of `text` with `"seq":N` first, N going up by 2 (so every line after the
/// first is a `SEQ_GAP` finding at its own line: what `gaps` read shows).
fn with_seq(text: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(text)
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{{\"seq\":{},{}\n", 2 * i + 2, &l[1..]))
        .collect()
}

/// The findings of `gaps -f json` output, without the summary, sorted.
fn findings(out: &str) -> Vec<String> {
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| !l.starts_with("{\"summary\""))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Two Claude sessions (tool calls and their results, starts and results) appended a line
/// at a time, in turns, each line read before the next is written: each file's trackers
/// wait while the other is read, so `gaps --follow` finds what `gaps` finds on the final
/// files.
fn two_sessions_in_turns(command: &[&str], poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("d")).expect("mkdir");
    let a = with_seq(&read_file(&testdata().join("claude/claude-tool.ndjson")));
    let b = with_seq(&read_file(
        &testdata().join("claude/claude-multi_tool.ndjson"),
    ));
    let (pa, pb) = (dir.join("d/a.jsonl"), dir.join("d/b.jsonl"));
    append(&pa, a[0].as_bytes());
    append(&pb, b[0].as_bytes());
    let mut args = command.to_vec();
    args.extend(["--color", "never", "-f", "json", "-F", "d"]);
    let live = Live::start(dir, &with_poll(&args, poll));
    for i in 1..a.len().max(b.len()) {
        for (path, lines, name) in [(&pa, &a, "d/a.jsonl"), (&pb, &b, "d/b.jsonl")] {
            if let Some(line) = lines.get(i) {
                append(path, line.as_bytes());
                let at = format!("\"file\":\"{name}\",\"line\":{}", i + 1);
                live.wait_for(&at, |o, _| o.contains(&at));
            }
        }
    }
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    let once = ndjq_sub(command[0])
        .current_dir(dir)
        .args(&command[1..])
        .args(["-f", "json", "d"])
        .output()
        .expect("one-shot run");
    let once = String::from_utf8_lossy(&once.stdout).into_owned();
    assert_eq!(findings(&out), findings(&once), "{err}");
    assert!(!out.contains("TOOL_ORPHAN"), "{out}");
}

#[test]
fn gaps_follow_keeps_each_files_trackers_while_another_is_read() {
    two_sessions_in_turns(&["gaps"], None);
}

#[test]
fn gaps_follow_keeps_each_files_trackers_while_another_is_read_by_polling() {
    two_sessions_in_turns(&["gaps"], Some("0.05"));
}

#[test]
fn validate_gaps_follow_keeps_each_files_trackers_while_another_is_read() {
    two_sessions_in_turns(&["validate", "--gaps"], None);
}

/// A followed folder removed and made again: a note when it goes, another when it comes
/// back, and its new files are read.
fn root_removed_and_made_again(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("d/x")).expect("mkdir");
    append(&dir.join("d/x/a.jsonl"), records(1..=1).as_bytes());
    let live = Live::start(
        dir,
        &with_poll(&["filter", "--color", "never", "-F", "d/x"], poll),
    );
    live.wait_for("what was there", |o, _| o == record(1));
    std::fs::remove_dir_all(dir.join("d/x")).expect("rm -rf");
    live.wait_for("the note that it is gone", |_, e| {
        e.contains("d/x: the followed folder is gone")
    });
    std::fs::create_dir(dir.join("d/x")).expect("mkdir again");
    append(&dir.join("d/x/c.jsonl"), record(2).as_bytes());
    live.wait_for("the new file", |o, _| o.contains(&record(2)));
    append(&dir.join("d/x/c.jsonl"), record(3).as_bytes());
    live.wait_for("its append", |o, _| o.contains(&record(3)));
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    assert_eq!(out, records(1..=3));
    assert!(err.contains("d/x: the followed folder is back"), "{err}");
}

#[test]
fn followed_folder_removed_and_made_again_is_read_again() {
    root_removed_and_made_again(None);
}

#[test]
fn followed_folder_removed_and_made_again_is_read_again_by_polling() {
    root_removed_and_made_again(Some("0.05"));
}

/// SIGHUP (a closed terminal or ssh session) ends a follow as SIGTERM does: the partial
/// last line read, the final report or summary written, exit 129.
#[test]
fn sighup_ends_follow_with_its_final_report() {
    let tmp = tempdir();
    let dir = tmp.path();
    let a = dir.join("a.jsonl");
    append(&a, records(1..=2).as_bytes());
    let stats = Live::start(
        dir,
        &["stats", "--color", "never", "-f", "json", "-F", "a.jsonl"],
    );
    let gaps = Live::start(
        dir,
        &["gaps", "--color", "never", "-f", "json", "-F", "a.jsonl"],
    );
    let filter = Live::start(dir, &["filter", "--color", "never", "-F", "a.jsonl"]);
    stats.wait_for("a first report", |o, _| o.contains("\"lines\":2,"));
    filter.wait_for("what was there", |o, _| o == records(1..=2));
    // A last line without its newline: read as it stands at the end.
    append(&a, b"{\"type\":\"user\",\"n\":3}");
    std::thread::sleep(Duration::from_millis(200));
    let (code, out, err) = stats.stop("HUP");
    assert_eq!(code, 129, "{err}");
    let last = last_report(&out).expect("a final report");
    assert_eq!(last["lines"], 3, "{out}");
    let (code, out, err) = gaps.stop("HUP");
    assert_eq!(code, 129, "{err}");
    assert!(out.contains("{\"summary\""), "{out}");
    assert!(out.contains("\"records\":3,"), "{out}");
    let (code, out, err) = filter.stop("HUP");
    assert_eq!(code, 129, "{err}");
    assert_eq!(out, records(1..=2) + "{\"type\":\"user\",\"n\":3}");
}

/// A FIFO, a loop of links and a link to a device with log names, and followed files
/// replaced by a folder and by a FIFO: the notes a one-shot run prints, once each, and
/// nothing blocks (a later append is still read).
fn special_entries(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("d")).expect("mkdir");
    append(&dir.join("d/a.jsonl"), record(1).as_bytes());
    append(&dir.join("d/b.jsonl"), record(2).as_bytes());
    append(&dir.join("d/c.jsonl"), record(3).as_bytes());
    let live = Live::start(
        dir,
        &with_poll(&["filter", "--color", "never", "-F", "d"], poll),
    );
    live.wait_for("what was there", |o, _| o.lines().count() == 3);
    let mkfifo = |p: &Path| {
        let made = std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .expect("mkfifo");
        assert!(made.success());
    };
    mkfifo(&dir.join("d/f.jsonl"));
    std::os::unix::fs::symlink("loop.jsonl", dir.join("d/loop.jsonl")).expect("ln");
    std::os::unix::fs::symlink("/dev/zero", dir.join("d/z.jsonl")).expect("ln");
    std::fs::remove_file(dir.join("d/a.jsonl")).expect("rm");
    std::fs::create_dir(dir.join("d/a.jsonl")).expect("mkdir");
    std::fs::remove_file(dir.join("d/b.jsonl")).expect("rm");
    mkfifo(&dir.join("d/b.jsonl"));
    let notes = [
        "note: d/f.jsonl: skipped, a FIFO",
        "d/loop.jsonl: Too many levels of symbolic links",
        "note: d/z.jsonl: skipped, a device",
        "note: d/b.jsonl: skipped, a FIFO",
    ];
    live.wait_for("the notes", |_, e| notes.iter().all(|n| e.contains(n)));
    // Touched again, and (polling) looked at again: no second note.
    append(&dir.join("d/c.jsonl"), record(4).as_bytes());
    live.wait_for("the append", |o, _| o.contains(&record(4)));
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    assert_eq!(out, records(1..=4), "{err}");
    for n in notes {
        assert_eq!(err.matches(n).count(), 1, "{n}:\n{err}");
    }
    // The same notes as a one-shot run's.
    let once = ndjq_sub("filter")
        .current_dir(dir)
        .arg("d")
        .output()
        .expect("filter");
    let once = String::from_utf8_lossy(&once.stderr).into_owned();
    for n in notes {
        assert!(once.contains(n), "{n}:\n{once}");
    }
}

#[test]
fn special_entries_under_follow_get_the_one_shot_notes_once() {
    special_entries(None);
}

#[test]
fn special_entries_under_follow_get_the_one_shot_notes_once_by_polling() {
    special_entries(Some("0.05"));
}

/// Rotated as log rotators do (`mv a.jsonl a.1.jsonl`, a new `a.jsonl` at once): the
/// renamed file goes on where it was, the new one is read from its start, each record
/// once.
fn rotated(poll: Option<&str>) {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("d")).expect("mkdir");
    let a = dir.join("d/a.jsonl");
    append(&a, records(1..=2).as_bytes());
    let live = Live::start(
        dir,
        &with_poll(&["filter", "--color", "never", "-F", "d"], poll),
    );
    live.wait_for("what was there", |o, _| o == records(1..=2));
    std::fs::rename(&a, dir.join("d/a.1.jsonl")).expect("mv");
    append(&a, records(5..=6).as_bytes());
    append(&dir.join("d/a.1.jsonl"), record(3).as_bytes());
    live.wait_for("both files", |o, _| {
        o.contains(&record(3)) && o.contains(&record(6))
    });
    append(&a, record(7).as_bytes());
    live.wait_for("the new file's append", |o, _| o.contains(&record(7)));
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    let c = counts(&out);
    assert_eq!(c.len(), out.lines().count(), "a record twice:\n{out}");
    let mut want: Vec<String> = [1, 2, 3, 5, 6, 7]
        .map(|n| record(n).trim_end().to_string())
        .to_vec();
    want.sort();
    let mut got: Vec<String> = out.lines().map(str::to_string).collect();
    got.sort();
    assert_eq!(got, want, "{err}");
}

#[test]
fn rotated_file_is_read_on_and_the_new_one_from_its_start() {
    rotated(None);
}

#[test]
fn rotated_file_is_read_on_and_the_new_one_from_its_start_by_polling() {
    rotated(Some("0.05"));
}

/// A followed folder removed and made again at once (its watch went with the old one):
/// seen as made again, and its new files are read.
#[test]
fn followed_folder_removed_and_made_again_at_once_is_read_again() {
    let tmp = tempdir();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("d/x")).expect("mkdir");
    append(&dir.join("d/x/a.jsonl"), record(1).as_bytes());
    let live = Live::start(dir, &["filter", "--color", "never", "-F", "d/x"]);
    live.wait_for("what was there", |o, _| o == record(1));
    for n in 2..=3 {
        std::fs::remove_dir_all(dir.join("d/x")).expect("rm -rf");
        std::fs::create_dir(dir.join("d/x")).expect("mkdir again");
        append(&dir.join(format!("d/x/c{n}.jsonl")), record(n).as_bytes());
        live.wait_for("the new file", |o, _| o.contains(&record(n)));
    }
    append(&dir.join("d/x/c3.jsonl"), record(4).as_bytes());
    live.wait_for("its append", |o, _| o.contains(&record(4)));
    let (code, out, err) = live.stop("INT");
    assert_eq!(code, 130, "{err}");
    assert_eq!(out, records(1..=4));
    assert_eq!(
        err.matches("d/x: the followed folder is back").count(),
        2,
        "{err}"
    );
}
