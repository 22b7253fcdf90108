//! OpenCode's SQLite store as an input (docs/REFERENCE.md, "OpenCode's store"): a store the
//! real OpenCode 1.18.33 wrote (testdata/opencode-store, sources in testdata/SOURCES.md: a
//! tool call, plain text, a run that failed on HTTP 429, a second run continuing a session,
//! the last run only in the `-wal`) is read by every command, its usage counted once and
//! equal to what OpenCode recorded in its `session` rows, and its bytes never changed.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;

/// The store as OpenCode left it (`opencode.db` and its `-wal`), in a folder of its own.
fn store() -> (tempfile::TempDir, PathBuf) {
    let dir = common::tempdir();
    let data = common::testdata().join("opencode-store");
    for name in ["opencode.db", "opencode.db-wal"] {
        let bytes = common::read_data(&data.join(format!("{name}.zst")));
        std::fs::write(dir.path().join(name), bytes).expect("write the store");
    }
    let db = dir.path().join("opencode.db");
    (dir, db)
}

/// What OpenCode recorded per session (its `session` columns), from `sessions.tsv`.
#[derive(Debug, Default, Clone, PartialEq)]
struct Recorded {
    cost: f64,
    input: u64,
    output: u64,
    reasoning: u64,
    cache_read: u64,
    cache_write: u64,
}

fn recorded() -> BTreeMap<String, Recorded> {
    let text = String::from_utf8(common::read_file(
        &common::testdata().join("opencode-store/sessions.tsv"),
    ))
    .expect("utf-8");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let n = |i: usize| f[i].parse::<u64>().expect("a count");
            let r = Recorded {
                cost: f[1].parse().expect("a cost"),
                input: n(2),
                output: n(3),
                reasoning: n(4),
                cache_read: n(5),
                cache_write: n(6),
            };
            (f[0].to_string(), r)
        })
        .collect()
}

fn json_of(args: &[&str]) -> Value {
    let out = common::ndjq().args(args).output().expect("ndjq runs");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn stats_of_the_store_equal_what_opencode_recorded_per_session_and_in_total() {
    let (_dir, db) = store();
    stats_equal_what_opencode_recorded(db.to_str().expect("utf-8 path"));
}

/// The same sessions in the JSON files OpenCode kept before 1.2 (`storage/`, one file per
/// message and per part) give the same figures, read as one input.
#[test]
fn opencodes_json_storage_of_before_1_2_gives_the_same_figures() {
    let storage = common::testdata().join("opencode-legacy/storage");
    stats_equal_what_opencode_recorded(storage.to_str().expect("utf-8 path"));
    let folder = common::testdata().join("opencode-legacy");
    let stats = json_of(&["stats", "-f", "json", folder.to_str().expect("utf-8")]);
    assert_eq!(stats["files"], 1, "{stats}");
    assert_eq!(stats["dialects"]["opencode"], 26, "{stats}");
    let out = common::ndjq()
        .args(["gaps", "-f", "text", storage.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("storage:message:msg_220e0cc540018qDRFl48MkO8S3: error[SESS_ERROR_RESULT]"),
        "{text}"
    );
}

/// `ndjq stats` of `db` equals the session columns OpenCode recorded, in total, by model
/// and by session.
fn stats_equal_what_opencode_recorded(db: &str) {
    let want = recorded();
    let stats = json_of(&["stats", "-f", "json", db]);
    assert_eq!(stats["dialects"]["opencode"], 26, "{stats}");
    assert_eq!(stats["invalid"], 0);
    assert_eq!(stats["sessions"].as_u64(), Some(want.len() as u64));
    let sum = |f: fn(&Recorded) -> u64| want.values().map(f).sum::<u64>();
    let t = &stats["tokens"];
    assert_eq!(t["input"].as_u64(), Some(sum(|r| r.input)));
    assert_eq!(t["output"].as_u64(), Some(sum(|r| r.output + r.reasoning)));
    assert_eq!(t["reasoning_output"].as_u64(), Some(sum(|r| r.reasoning)));
    assert_eq!(t["cache_read"].as_u64(), Some(sum(|r| r.cache_read)));
    assert_eq!(t["cache_creation"].as_u64(), Some(sum(|r| r.cache_write)));
    let cost: f64 = want.values().map(|r| r.cost).sum();
    assert!(
        close(stats["cost_usd"].as_f64().expect("cost"), cost),
        "{stats}"
    );
    assert!(close(
        stats["cost_usd_reported"].as_f64().expect("cost"),
        cost
    ));
    // One tool call (bash), in the first session; the model is the one OpenCode named.
    assert_eq!(stats["tools"]["bash"]["calls"], 1, "{stats}");
    assert!(stats["models"]["fake-model"].is_object(), "{stats}");

    // By model: tokens and cost under the model OpenCode named, none under `(none)`.
    let by = json_of(&["stats", "-f", "json", "--by", "model", db]);
    let groups = by["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{by}");
    assert_eq!(groups[0]["key"], "fake-model");
    assert!(
        close(groups[0]["cost_usd"].as_f64().unwrap_or(0.0), cost),
        "{by}"
    );

    // By project: the working directory its assistant messages name.
    let by = json_of(&["stats", "-f", "json", "--by", "project", db]);
    let groups = by["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{by}");
    assert_eq!(groups[0]["key"], "/root/occase/c1/work");

    let by = json_of(&["stats", "-f", "json", "--by", "session", db]);
    let groups = by["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), want.len());
    for g in groups {
        let key = g["key"].as_str().expect("a session");
        let r = &want[key];
        let t = &g["tokens"];
        assert_eq!(t["input"].as_u64(), Some(r.input), "{key}");
        assert_eq!(t["output"].as_u64(), Some(r.output + r.reasoning), "{key}");
        assert_eq!(t["cache_read"].as_u64(), Some(r.cache_read), "{key}");
        assert_eq!(t["cache_creation"].as_u64(), Some(r.cache_write), "{key}");
        assert!(
            close(g["cost_usd"].as_f64().unwrap_or(0.0), r.cost),
            "{key}: {g}"
        );
        // The one tool call was run 1's, the first session (testdata/SOURCES.md).
        let calls = u64::from(key == "ses_ddf1f7dd6ffexS6jagEzzoxEVT");
        assert_eq!(g["tool_calls"], calls, "{key}: {g}");
    }
}

#[test]
fn the_rows_still_in_the_wal_are_read() {
    let (dir, db) = store();
    let alone = common::tempdir();
    std::fs::copy(&db, alone.path().join("opencode.db")).expect("copy");
    let with_wal = json_of(&["stats", "-f", "json", db.to_str().expect("utf-8")]);
    let without = json_of(&[
        "stats",
        "-f",
        "json",
        alone.path().join("opencode.db").to_str().expect("utf-8"),
    ]);
    // The last run (session B's second) lives only in the -wal.
    assert_eq!(with_wal["lines"], 26);
    assert_eq!(without["lines"], 20);
    drop(dir);
}

#[test]
fn events_show_each_tool_call_once_and_the_failed_run_as_a_failed_result() {
    let (_dir, db) = store();
    let out = common::ndjq()
        .args(["events", "-f", "json", db.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("an event"))
        .collect();
    let kind = |k: &str| events.iter().filter(|e| e["kind"] == k).count();
    assert_eq!(kind("tool_use"), 1);
    assert_eq!(kind("tool_result"), 1);
    // One usage event per assistant message (5), none from the step-finish parts.
    assert_eq!(kind("usage"), 5);
    // The three prompts are the user's, not the assistant's text.
    assert_eq!(kind("user"), 4);
    let failed: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "result" && e["is_error"] == true)
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Rate limit reached")));
}

#[test]
fn gaps_report_the_failed_run_and_nothing_else() {
    let (_dir, db) = store();
    let out = common::ndjq()
        .args(["gaps", "-f", "json", db.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let codes: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|d| d["code"].as_str().map(String::from))
        .collect();
    assert_eq!(codes, ["SESS_ERROR_RESULT"], "{text}");
    // In text, the row stands where a file's line would.
    let out = common::ndjq()
        .args(["gaps", "-f", "text", db.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    let want = format!(
        "{}:message:msg_220e0cc540018qDRFl48MkO8S3: error[SESS_ERROR_RESULT]",
        db.display()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with(&want), "{text}");
}

fn sha256(path: &Path) -> String {
    let digest = Sha256::digest(common::read_file(path));
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn no_command_changes_the_store_or_its_wal() {
    let (dir, db) = store();
    let wal = dir.path().join("opencode.db-wal");
    let before = (sha256(&db), sha256(&wal));
    let out_dir = common::tempdir();
    let page = out_dir.path().join("report.html");
    let db_s = db.to_str().expect("utf-8");
    let folder = dir.path().to_str().expect("utf-8");
    let runs: Vec<Vec<&str>> = vec![
        vec!["stats", db_s],
        vec!["stats", "--by", "session", folder],
        vec!["events", db_s],
        vec!["gaps", db_s],
        vec!["filter", db_s],
        vec!["filter", "--type", "tool", folder],
        vec!["validate", db_s],
        vec!["report", "-o", page.to_str().expect("utf-8"), db_s],
    ];
    for args in runs {
        let out = common::ndjq().args(&args).output().expect("ndjq runs");
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty() || args[0] == "report", "{args:?}");
        assert_eq!(
            (sha256(&db), sha256(&wal)),
            before,
            "{args:?} changed the store"
        );
    }
    let html = String::from_utf8(common::read_file(&page)).expect("utf-8");
    assert!(
        html.contains("ses_ddf1f7dd6ffexS6jagEzzoxEVT"),
        "the page names the sessions"
    );
}

#[test]
fn filter_passes_each_row_through_as_the_json_the_database_holds() {
    let (_dir, db) = store();
    let out = common::ndjq()
        .args(["filter", "--type", "tool", db.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    assert!(out.status.success());
    let line: Value = serde_json::from_slice(&out.stdout).expect("one record");
    assert_eq!(line["type"], "tool");
    assert_eq!(line["sessionID"], "ses_ddf1f7dd6ffexS6jagEzzoxEVT");
    let part = &line["part"];
    assert_eq!(part["id"], "prt_220e08d7a001U3NrKmHE8TMCjR");
    assert_eq!(part["messageID"], "msg_220e089a6001PGgmqYvTrw8dv6");
    assert_eq!(part["tool"], "bash");
    assert_eq!(part["state"]["output"], "hello\n");
    // The predicates read the store's records: its tool parts by tool, its assistant
    // messages by the model they name.
    for (args, records) in [
        (&["--tool", "bash"][..], 1),
        (&["--model", "fake-model"], 5),
        (
            &[
                "--session",
                "ses_ddf1f61b6ffebxNd1bLguzsaWK",
                "--type",
                "assistant",
            ],
            2,
        ),
    ] {
        let out = common::ndjq()
            .arg("filter")
            .args(args)
            .arg(db.to_str().expect("utf-8"))
            .output()
            .expect("ndjq runs");
        assert_eq!(
            out.stdout
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count(),
            records,
            "{args:?}"
        );
    }
}

#[test]
fn a_store_is_found_in_a_walked_folder_by_its_name() {
    let (dir, _db) = store();
    // Beside it, an NDJSON log: both are read; the -wal and -shm are not inputs.
    std::fs::copy(
        common::testdata().join("claude/claude-tool.ndjson"),
        dir.path().join("claude.ndjson"),
    )
    .expect("copy");
    let stats = json_of(&["stats", "-f", "json", dir.path().to_str().expect("utf-8")]);
    assert_eq!(stats["files"], 2, "{stats}");
    assert_eq!(stats["dialects"]["opencode"], 26, "{stats}");
    assert!(stats["dialects"]["claude"].as_u64() > Some(0), "{stats}");
}

#[test]
fn the_wal_and_shm_named_beside_the_store_are_notes_and_the_store_is_read_once() {
    let (dir, db) = store();
    // A first read makes the -shm, as OpenCode's own connection does.
    json_of(&["stats", "-f", "json", db.to_str().expect("utf-8")]);
    let mut args = vec!["stats".to_string(), "-f".into(), "json".into()];
    for name in ["opencode.db", "opencode.db-shm", "opencode.db-wal"] {
        args.push(dir.path().join(name).display().to_string());
    }
    let out = common::ndjq().args(&args).output().expect("ndjq runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("opencode.db-wal: the wal file of the SQLite database"),
        "{stderr}"
    );
    assert!(stderr.contains("opencode.db-shm: the shm file"), "{stderr}");
    let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stats["lines"], 26);
    assert_eq!(stats["invalid"], 0);
}

/// An SQLite database at `path` made of the `sql` statements.
fn database(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).expect("create a database");
    conn.execute_batch(sql).expect("fill it");
}

#[test]
fn a_database_of_another_application_is_a_note_and_nothing_is_read() {
    let dir = common::tempdir();
    let other = dir.path().join("places.sqlite");
    database(&other, "CREATE TABLE moz_places (id INTEGER, url TEXT);");
    let newer = dir.path().join("opencode-next.db");
    database(
        &newer,
        "CREATE TABLE session_message (id TEXT, session_id TEXT, data TEXT);",
    );
    // Both layouts' tables, the messages only in the newer one.
    let moved = dir.path().join("opencode-v2.db");
    database(
        &moved,
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER,
             time_updated INTEGER, data TEXT);
         CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, time_created INTEGER,
             time_updated INTEGER, data TEXT);
         CREATE TABLE session_message (id TEXT, session_id TEXT, data TEXT);
         INSERT INTO session_message VALUES ('m', 'ses_a', '{}');",
    );
    for (db, says) in [
        (&other, "not OpenCode's store"),
        (&newer, "a newer layout"),
        (&moved, "a newer layout"),
    ] {
        let out = common::ndjq()
            .args(["stats", "-f", "json", db.to_str().expect("utf-8")])
            .output()
            .expect("ndjq runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("note: ") && stderr.contains(says),
            "{stderr}"
        );
        let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(stats["lines"], 0);
    }
}

#[test]
fn a_row_that_is_not_json_is_reported_like_a_bad_line() {
    let (_dir, db) = store();
    database(
        &db,
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES \
         ('msg_zzz', 'ses_ddf1f7dd6ffexS6jagEzzoxEVT', 1795847999999, 1795847999999, 'not json');",
    );
    let out = common::ndjq()
        .args(["validate", "-f", "json", db.to_str().expect("utf-8")])
        .output()
        .expect("ndjq runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let bad: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(bad.len(), 1, "{text}");
    assert!(bad[0]["code"] == "PROTO_INVALID_JSON", "{text}");
    // Its row is named; its line is its place in its session, after the first
    // session's 11 records.
    assert_eq!(bad[0]["record"], "message:msg_zzz", "{text}");
    assert_eq!(bad[0]["line"], 12, "{text}");
}

#[test]
fn a_database_on_stdin_is_an_error_that_says_to_name_its_file() {
    let (_dir, db) = store();
    let out = common::ndjq()
        .args(["stats", "-f", "json"])
        .write_stdin(common::read_file(&db))
        .output()
        .expect("ndjq runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("an SQLite database, not NDJSON: name its file"),
        "{stderr}"
    );
}
