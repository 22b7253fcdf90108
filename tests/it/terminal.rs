//! What a person at a terminal sees:
//! - with no PATH and stdin a terminal (a real pseudo-terminal here), every reading command
//!   reads the agents' log folders that exist, names them on stderr, and says where it
//!   looked when there is none; `-` still reads stdin;
//! - text tables line up in colour and with wide characters (golden files under
//!   `testdata/expected/`, written again with `NDJQ_BLESS=1`);
//! - `stats -f json` is the report alone unless `--mergeable`, and `--merge` refuses a
//!   report without its state;
//! - `--by KEY` in text is the header lines and that table; unrecorded fields are left out;
//! - strings from a log never reach the terminal raw.

use crate::common;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use unicode_width::UnicodeWidthStr;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------
// Default folders
// ---------------------------------------------------------------------------------------

/// A pseudo-terminal: its controlling side (kept open while the child runs) and the
/// terminal the child gets as stdin.
struct Terminal {
    master: File,
    slave: File,
}

fn terminal() -> Terminal {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master: OwnedFd = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let path = Path::new(OsStr::from_bytes(name.as_bytes()));
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open the terminal");
    Terminal {
        master: File::from(master),
        slave,
    }
}

/// `ndjq ARGS` with `home` as HOME, `env` set, and stdin a terminal.
fn on_terminal(home: &Path, env: &[(&str, &OsStr)], args: &[&str]) -> Output {
    let tty = terminal();
    let mut cmd = common::ndjq_bare_std();
    cmd.env("HOME", home).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .stdin(tty.slave.try_clone().expect("dup"))
        .output()
        .expect("ndjq runs");
    drop(tty);
    out
}

fn copy_in(dest: &Path, from: &str) {
    std::fs::create_dir_all(dest.parent().expect("a parent")).expect("mkdir");
    std::fs::copy(root().join(from), dest).expect("copy a capture");
}

const CLAUDE: &str = "testdata/claude/claude-tool.ndjson";
const CODEX: &str = "testdata/codex-log/codex-tool.session-log.jsonl";
const GEMINI: &str = "testdata/other-agents/real-client/transcripts/gemini-tool.2.jsonl";

fn stats_of(out: &Output) -> Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stats json")
}

/// The one line that names the folders read.
fn reading_line(out: &Output) -> String {
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ndjq: reading "))
        .collect();
    assert_eq!(lines.len(), 1, "one line names the folders: {stderr}");
    lines[0].to_string()
}

#[test]
fn with_no_path_on_a_terminal_the_agents_folders_of_home_are_read() {
    let home = common::tempdir();
    let h = home.path();
    copy_in(&h.join(".claude/projects/-work-app/one.jsonl"), CLAUDE);
    copy_in(
        &h.join(".config/claude/projects/-work-lib/two.jsonl"),
        CLAUDE,
    );
    copy_in(&h.join(".codex/sessions/2025/10/21/rollout.jsonl"), CODEX);
    copy_in(&h.join(".gemini/tmp/abc123/chats/session-1.jsonl"), GEMINI);
    // Not a chat: Gemini keeps other JSON in its project folders.
    std::fs::write(h.join(".gemini/tmp/abc123/logs.json"), "[\n{\"a\": 1}\n]\n").expect("write");
    // An agent folder with no log in it is not named.
    std::fs::create_dir_all(h.join(".copilot/session-state")).expect("mkdir");

    let out = on_terminal(h, &[], &["stats", "-f", "json"]);
    let stats = stats_of(&out);
    assert_eq!(stats["files"], 4, "{stats}");
    assert_eq!(stats["dialects"]["claude"].as_u64(), Some(12));
    assert!(stats["dialects"]["codex-log"].as_u64() > Some(0));
    assert!(stats["dialects"]["gemini-log"].as_u64() > Some(0));
    assert_eq!(
        reading_line(&out),
        "ndjq: reading ~/.config/claude/projects, ~/.claude/projects, ~/.codex/sessions, \
         ~/.gemini/tmp/*/chats"
    );

    // Every reading command: the same files.
    let valid = stats["valid"].as_u64().expect("valid");
    let out = on_terminal(h, &[], &["filter"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        out.stdout.iter().filter(|&&b| b == b'\n').count() as u64,
        valid
    );
    for args in [
        &["validate", "-f", "json"][..],
        &["gaps", "-f", "json"],
        &["events", "-f", "json"],
    ] {
        let out = on_terminal(h, &[], args);
        assert!(
            out.status.code() != Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{args:?} wrote nothing");
        reading_line(&out);
    }
    // -q: not named.
    let out = on_terminal(h, &[], &["stats", "-q", "-f", "json"]);
    assert_eq!(stats_of(&out)["files"], 4);
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn claude_config_dir_a_comma_list_replaces_the_default_claude_folders() {
    let home = common::tempdir();
    let h = home.path();
    copy_in(&h.join(".claude/projects/p/not-read.jsonl"), CLAUDE);
    let (a, b) = (h.join("work-claude"), h.join("other claude"));
    copy_in(&a.join("projects/p/a.jsonl"), CLAUDE);
    copy_in(&b.join("projects/q/b.jsonl"), CLAUDE);
    let list = format!("{}, {},", a.display(), b.display());
    let out = on_terminal(
        h,
        &[("CLAUDE_CONFIG_DIR", OsStr::new(&list))],
        &["stats", "-f", "json", "--by", "file"],
    );
    let stats = stats_of(&out);
    let files: Vec<&str> = stats["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| g["key"].as_str().expect("a key"))
        .collect();
    // Groups are sorted by key.
    assert_eq!(
        files,
        [
            b.join("projects/q/b.jsonl").display().to_string(),
            a.join("projects/p/a.jsonl").display().to_string(),
        ]
    );
    assert_eq!(
        reading_line(&out),
        "ndjq: reading ~/work-claude/projects, ~/other claude/projects"
    );
}

/// With no PATH on a terminal, the agents' folders are the inputs: stdout appended to a
/// log there is refused before anything is read, as for a folder named on the command
/// line, and the log keeps its records.
#[test]
fn an_agent_log_that_is_stdout_is_refused_when_no_path_is_given() {
    let home = common::tempdir();
    let h = home.path();
    let log = h.join(".claude/projects/-work-app/one.jsonl");
    copy_in(&log, CLAUDE);
    let before = std::fs::read(&log).expect("read");
    let tty = terminal();
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open");
    let out = common::ndjq_bare_std()
        .env("HOME", h)
        .args(["stats", "-f", "json"])
        .stdin(tty.slave.try_clone().expect("dup"))
        .stdout(append)
        .stderr(Stdio::piped())
        .output()
        .expect("ndjq runs");
    drop(tty);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("one.jsonl (found in folder ")
            && text(&out.stderr).contains("is the same file as stdout"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&log).expect("read"), before);
}

#[test]
fn codex_home_replaces_the_default_codex_folder() {
    let home = common::tempdir();
    let h = home.path();
    copy_in(&h.join(".codex/sessions/2025/not-read.jsonl"), CODEX);
    let codex_home = common::tempdir();
    copy_in(&codex_home.path().join("sessions/2025/r.jsonl"), CODEX);
    let out = on_terminal(
        h,
        &[("CODEX_HOME", codex_home.path().as_os_str())],
        &["stats", "-f", "json"],
    );
    assert_eq!(stats_of(&out)["files"], 1);
    assert_eq!(
        reading_line(&out),
        format!("ndjq: reading {}/sessions", codex_home.path().display())
    );
}

/// OpenCode's store, as the real OpenCode left it, at `dir/name` (with its `-wal`).
fn opencode_store_in(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for (from, to) in [
        ("opencode.db", name.to_string()),
        ("opencode.db-wal", format!("{name}-wal")),
    ] {
        let bytes = common::read_data(&root().join(format!("testdata/opencode-store/{from}.zst")));
        std::fs::write(dir.join(to), bytes).expect("write the store");
    }
}

#[test]
fn with_no_path_on_a_terminal_opencodes_stores_are_read_too() {
    let home = common::tempdir();
    let h = home.path();
    copy_in(&h.join(".claude/projects/-work-app/one.jsonl"), CLAUDE);
    let data = h.join(".local/share/opencode");
    opencode_store_in(&data, "opencode.db");
    opencode_store_in(&data, "opencode-next.db");
    let out = on_terminal(h, &[], &["stats", "-f", "json"]);
    let stats = stats_of(&out);
    assert_eq!(stats["files"], 3, "{stats}");
    assert_eq!(stats["dialects"]["opencode"], 52, "{stats}");
    assert_eq!(
        reading_line(&out),
        "ndjq: reading ~/.claude/projects, ~/.local/share/opencode/opencode-next.db, \
         ~/.local/share/opencode/opencode.db"
    );
    // $XDG_DATA_HOME moves the folder; $OPENCODE_DB names the one store read.
    let xdg = common::tempdir();
    opencode_store_in(&xdg.path().join("opencode"), "opencode.db");
    let out = on_terminal(
        h,
        &[("XDG_DATA_HOME", xdg.path().as_os_str())],
        &["stats", "-f", "json"],
    );
    assert_eq!(stats_of(&out)["files"], 2);
    let one = data.join("opencode-next.db");
    let out = on_terminal(
        h,
        &[("OPENCODE_DB", one.as_os_str())],
        &["stats", "-f", "json"],
    );
    assert_eq!(stats_of(&out)["files"], 2);
    assert_eq!(
        reading_line(&out),
        "ndjq: reading ~/.claude/projects, ~/.local/share/opencode/opencode-next.db"
    );
    // OpenCode before 1.2: its JSON storage, where there is no database.
    let old = common::tempdir();
    let storage = old.path().join(".local/share/opencode/storage");
    std::fs::create_dir_all(storage.parent().expect("a parent")).expect("mkdir");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(root().join("testdata/opencode-legacy/storage"))
        .arg(&storage)
        .status()
        .expect("cp");
    assert!(status.success());
    let out = on_terminal(old.path(), &[], &["stats", "-f", "json"]);
    assert_eq!(stats_of(&out)["dialects"]["opencode"], 26);
    assert_eq!(
        reading_line(&out),
        "ndjq: reading ~/.local/share/opencode/storage"
    );
}

#[test]
fn with_no_agent_folder_it_is_a_usage_error_that_says_where_it_looked() {
    let home = common::tempdir();
    for cmd in ["stats", "validate", "filter", "events", "gaps"] {
        let out = on_terminal(home.path(), &[], &[cmd]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(out.stdout.is_empty(), "{cmd}");
        let err = text(&out.stderr);
        for place in [
            "~/.config/claude/projects",
            "~/.claude/projects",
            "~/.codex/sessions",
            "~/.gemini/tmp/*/chats",
            "~/.qwen/projects/*/chats",
            "~/.copilot/session-state",
            "~/.local/share/opencode/opencode*.db",
            "`-` to read stdin",
        ] {
            assert!(err.contains(place), "{cmd}: {place} not in: {err}");
        }
    }
    // --merge reads stats, never the agents' logs.
    let out = on_terminal(home.path(), &[], &["stats", "--merge"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--merge combines the JSON stats named"));
}

#[test]
fn dash_still_reads_stdin_on_a_terminal() {
    let home = common::tempdir();
    copy_in(&home.path().join(".claude/projects/p/a.jsonl"), CLAUDE);
    let mut tty = terminal();
    let child = common::ndjq_bare_std()
        .env("HOME", home.path())
        .args(["stats", "-f", "json", "-"])
        .stdin(tty.slave.try_clone().expect("dup"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndjq runs");
    // One line typed, then end of input (^D at the start of a line).
    tty.master
        .write_all(b"{\"type\":\"user\",\"session_id\":\"typed\"}\n\x04")
        .expect("type");
    let out = child.wait_with_output().expect("ndjq ends");
    let stats = stats_of(&out);
    assert_eq!(
        (stats["files"].as_u64(), stats["lines"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(!text(&out.stderr).contains("ndjq: reading"));
}

// ---------------------------------------------------------------------------------------
// Tables in colour
// ---------------------------------------------------------------------------------------

const WIDE: &str = "testdata/stats/wide-tools.ndjson";

fn stats_text(color: &str, extra: &[&str]) -> String {
    let out = common::ndjq()
        .env("COLUMNS", "100")
        .args([
            "stats",
            "-q",
            "-f",
            "text",
            "--timezone",
            "UTC",
            "--color",
            color,
        ])
        .args(extra)
        .arg(WIDE)
        .output()
        .expect("ndjq runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn golden(name: &str, actual: &str) {
    let path = root().join("testdata/expected").join(name);
    if std::env::var_os("NDJQ_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
    }
    let want = std::fs::read_to_string(&path).expect("read golden file");
    assert!(
        actual == want,
        "output differs from {}:\n--- expected\n{want}\n--- actual\n{actual}",
        path.display()
    );
}

/// The text without the colour codes ndjq writes (SGR: ESC `[` digits and `;`, then `m`);
/// any other escape sequence is left in.
fn strip_colour(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let params = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[params..].starts_with('m') {
            rest = &after[params + 1..];
        } else {
            out.push_str("\u{1b}[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Each table (a block after a blank line) whose last column is right-aligned: every line
/// as wide on the terminal as its header (the rule line too).
fn assert_tables_line_up(plain: &str) {
    for block in plain.split("\n\n").skip(1) {
        let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with('*')).collect();
        let width = lines[0].width();
        for l in &lines {
            assert_eq!(l.width(), width, "out of line in:\n{block}\nline: {l}");
        }
    }
}

#[test]
fn coloured_tables_with_errors_and_wide_names_line_up() {
    for (name, extra) in [
        ("wide-tools.stats.color.txt", &[][..]),
        ("wide-tools.stats.by-tool.color.txt", &["--by", "tool"]),
        ("wide-tools.stats.by-day.color.txt", &["--by", "day"]),
    ] {
        let coloured = stats_text("always", extra);
        assert!(coloured.contains("\u{1b}[31m"), "errors in red: {coloured}");
        golden(name, &coloured);
        // Colour is added after layout: the same table as without colour.
        let plain = stats_text("never", extra);
        assert_eq!(strip_colour(&coloured), plain, "{name}");
        // The day table's bar column is left-aligned: its lines end where their bars do.
        if extra != ["--by", "day"] {
            assert!(plain.contains("検索") && plain.contains("🔧fix"));
            assert_tables_line_up(&plain);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lean JSON and --mergeable
// ---------------------------------------------------------------------------------------

fn stats_stdout(args: &[&str]) -> Output {
    common::ndjq_sub("stats")
        .args(["-q"])
        .args(args)
        .output()
        .expect("ndjq runs")
}

#[test]
fn json_is_the_report_alone_unless_mergeable_and_merge_needs_the_state() {
    let dir = common::tempdir();
    let lean = stats_stdout(&["-f", "json", CLAUDE]);
    let lean_json: Value = serde_json::from_slice(&lean.stdout).expect("JSON");
    assert!(lean_json.get("state").is_none(), "{lean_json}");
    assert_eq!(lean_json["schema"], "ndjq.stats/2");
    let full = stats_stdout(&["-f", "json", "--mergeable", CLAUDE]);
    let mut full_json: Value = serde_json::from_slice(&full.stdout).expect("JSON");
    assert!(full_json["state"]["strings"]
        .as_array()
        .is_some_and(|s| !s.is_empty()));
    assert!(lean.stdout.len() < full.stdout.len());
    // The report is the same, state aside.
    full_json
        .as_object_mut()
        .expect("an object")
        .remove("state");
    assert_eq!(full_json, lean_json);

    // --merge of mergeable reports works; of a lean one, it says how to make one.
    let a = common::write_file(dir.path(), "a.json", &full.stdout);
    let b = common::write_file(dir.path(), "b.json", &lean.stdout);
    let merged = stats_stdout(&["--merge", "-f", "json", a.to_str().expect("UTF-8")]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    let merged: Value = serde_json::from_slice(&merged.stdout).expect("JSON");
    assert_eq!(merged, lean_json);
    let refused = stats_stdout(&[
        "--merge",
        "-f",
        "json",
        a.to_str().expect("UTF-8"),
        b.to_str().expect("UTF-8"),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let err = text(&refused.stderr);
    assert!(
        err.contains("b.json: a report without its merge state")
            && err.contains("ndjq stats -f json --mergeable"),
        "{err}"
    );
    // A merge can itself be mergeable (merges of merges).
    let again = stats_stdout(&[
        "--merge",
        "--mergeable",
        a.to_str().expect("UTF-8"),
        a.to_str().expect("UTF-8"),
    ]);
    let again: Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert!(again["state"].is_object());
    // --mergeable is JSON only.
    let out = stats_stdout(&["-f", "text", "--mergeable", CLAUDE]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--mergeable writes the merge state in JSON"));
}

// ---------------------------------------------------------------------------------------
// --by in text, fields not recorded
// ---------------------------------------------------------------------------------------

#[test]
fn by_key_in_text_is_the_header_and_that_table_only() {
    let by = stats_text("never", &["--by", "model"]);
    let tables: Vec<&str> = by
        .lines()
        .filter(|l| {
            ["tool ", "model ", "type ", "diagnostic "]
                .iter()
                .any(|h| l.starts_with(h))
        })
        .collect();
    assert_eq!(tables.len(), 1, "{by}");
    assert!(tables[0].starts_with("model  ") && tables[0].contains("total_tokens"));
    assert!(by.starts_with("records   10 in 1 file"), "{by}");
    // Without --by, every breakdown.
    let all = stats_text("never", &[]);
    for head in ["tool ", "model ", "type "] {
        assert!(all.lines().any(|l| l.starts_with(head)), "{head}: {all}");
    }
    // JSON with --by keeps every breakdown.
    let json: Value = common::stats_json(&["--by", "model"], &[root().join(WIDE)]);
    assert!(json["tools"].is_object() && json["types"].is_object() && json["groups"].is_array());
}

#[test]
fn what_an_agent_does_not_record_is_left_out_of_the_text() {
    // A transcript records no turns and no duration.
    let transcript = "testdata/claude-log";
    let dir = root().join(transcript);
    let any = std::fs::read_dir(&dir)
        .expect("claude-log captures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a transcript");
    let out = common::ndjq_sub("stats")
        .args(["-q", "-f", "text"])
        .arg(&any)
        .output()
        .expect("ndjq runs");
    let report = text(&out.stdout);
    let json: Value = common::stats_json(&[], &[&any]);
    assert_eq!(
        (json["turns"].as_u64(), json["duration_ms"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(
        !report.contains("turns") && !report.contains("duration"),
        "{report}"
    );
    // A stream-json result records both.
    let report = stats_text("never", &[]);
    assert!(report.contains("turns     4  duration 2.5 s"), "{report}");
}

#[test]
fn the_top_level_help_names_every_agent_ndjq_reads() {
    let out = common::ndjq().arg("--help").output().expect("ndjq runs");
    let help = text(&out.stdout);
    for agent in [
        "Claude Code",
        "Codex",
        "Gemini CLI",
        "Qwen Code",
        "Cursor",
        "OpenCode",
        "Copilot",
        "JSON-RPC",
    ] {
        assert!(help.contains(agent), "{agent} not in --help:\n{help}");
    }
}

// ---------------------------------------------------------------------------------------
// Strings from a log, escaped in every text output
// ---------------------------------------------------------------------------------------

const EVIL: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\nFAKE 99999";

/// `stats -f text` printed keys raw: a type, model or tool from a log could retitle the
/// window, clear the screen and forge a table row. Every text output escapes them now.
#[test]
fn log_strings_are_escaped_in_every_text_output() {
    let evil = serde_json::to_string(EVIL).expect("JSON string");
    let lines = [
        format!(r#"{{"type":{evil},"session_id":{evil}}}"#),
        format!(
            r#"{{"type":"assistant","session_id":{evil},"message":{{"model":{evil},"usage":{{"input_tokens":1,"output_tokens":1}},"content":[{{"type":"tool_use","id":"t1","name":{evil},"input":{{}}}}]}}}}"#
        ),
        format!(
            r#"{{"type":"user","session_id":{evil},"message":{{"content":[{{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"x"}}]}}}}"#
        ),
        "\u{1b}]0;pwned\u{7} not JSON".to_string(),
    ];
    let dir = common::tempdir();
    let input = common::write_file(
        dir.path(),
        "evil\u{1b}[2J.ndjson",
        lines.join("\n").as_bytes(),
    );
    let mut runs: Vec<Vec<&str>> = vec![
        vec!["stats", "-f", "text"],
        vec!["validate", "-f", "text"],
        vec!["gaps", "-f", "text"],
        vec!["events", "-f", "text"],
    ];
    for by in ["type", "session", "model", "tool", "file", "project", "day"] {
        runs.push(vec!["stats", "-f", "text", "--by", by]);
    }
    for args in runs {
        for color in ["never", "always"] {
            let out = common::ndjq()
                .args(&args)
                .args(["--color", color])
                .arg(&input)
                .output()
                .expect("ndjq runs");
            let all = text(&out.stdout) + &text(&out.stderr);
            let shown = strip_colour(&all);
            assert!(
                !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
                "{args:?}: a control character reached the terminal:\n{all:?}"
            );
            assert!(
                !all.lines().any(|l| strip_colour(l).starts_with("FAKE")),
                "{args:?}: a forged line:\n{all}"
            );
        }
    }
    // The text still names the tool, escaped as events -f text escapes it.
    let out = common::ndjq_sub("stats")
        .args(["-f", "text"])
        .arg(&input)
        .output()
        .expect("ndjq runs");
    assert!(text(&out.stdout).contains(r"\e]0;pwned\u{7}\e[2J\nFAKE 99999"));
}

// ---------------------------------------------------------------------------------------
// The live view in a terminal; invisible characters
// ---------------------------------------------------------------------------------------

/// `stats --follow -f text` with its stdout on a pseudo-terminal of `cols` × `rows`: the
/// child, the terminal (to resize it) and what it has written so far.
struct LiveView {
    child: std::process::Child,
    tty: Terminal,
    shown: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl LiveView {
    fn start(dir: &Path, cols: u16, rows: u16, extra: &[&str]) -> LiveView {
        let tty = terminal();
        resize(&tty, cols, rows);
        let mut cmd = common::ndjq_bare_std();
        cmd.args(["stats", "--follow", "-f", "text", "--color", "never", "d"])
            .args(extra)
            .current_dir(dir)
            .env("TZ", "UTC")
            .stdin(Stdio::null())
            .stdout(tty.slave.try_clone().expect("dup"))
            .stderr(Stdio::null());
        let child = cmd.spawn().expect("ndjq runs");
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut master = tty.master.try_clone().expect("dup");
        let sink = std::sync::Arc::clone(&shown);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = std::io::Read::read(&mut master, &mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        LiveView { child, tty, shown }
    }

    /// The last whole frame that `done` accepts, as plain lines (escapes and `\r` taken
    /// out), waiting for one for at most 30 seconds.
    fn frame_where(&self, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let start = std::time::Instant::now();
        loop {
            let bytes = self.shown.lock().expect("lock").clone();
            let all = text(&bytes);
            // A frame: cursor home, its lines, then "clear below".
            let frames: Vec<&str> = all
                .split("\u{1b}[H")
                .filter(|f| f.contains("\u{1b}[J"))
                .collect();
            if let Some(last) = frames.last() {
                let lines = plain_lines(last);
                if done(&lines) {
                    return lines;
                }
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "no such frame came: {all:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: &str) {
        let ok = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &self.child.id().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{sig}");
    }

    fn stop(mut self) {
        self.signal("INT");
        let status = self.child.wait().expect("wait");
        assert_eq!(status.code(), Some(130));
        drop(self.tty);
    }
}

fn resize(tty: &Terminal, cols: u16, rows: u16) {
    let size = rustix::termios::Winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&tty.master, size).expect("set the terminal's size");
}

/// A frame's lines as the terminal shows them: every escape sequence (CSI) and `\r` out.
fn plain_lines(frame: &str) -> Vec<String> {
    let mut out = String::new();
    let mut chars = frame.chars();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out.lines().map(str::to_string).collect()
}

/// Claude lines of `session` now, one per model, each with its own message.
fn live_log(session: &str, models: &[&str]) -> String {
    let now = jiff::Timestamp::now();
    let mut log = String::new();
    for (i, model) in models.iter().enumerate() {
        let record = serde_json::json!({
            "type": "assistant",
            "session_id": session,
            "timestamp": now.to_string(),
            "message": {
                "id": format!("msg_{session}_{i}"),
                "role": "assistant",
                "model": model,
                "content": [],
                "usage": {"input_tokens": 1000 * (i + 1), "output_tokens": 100},
            },
        });
        log.push_str(&record.to_string());
        log.push('\n');
    }
    log
}

/// The live view wrapped a 500-character model name over five lines a row, so the header
/// scrolled off; a CJK name put the numbers out of line; a resized terminal was not drawn
/// again. Names are cut to their column with `…`, no line is wider than the terminal, no
/// frame taller, and SIGWINCH draws it again at the new size.
#[test]
fn live_view_never_wraps_and_is_redrawn_at_a_new_size() {
    let dir = common::tempdir();
    std::fs::create_dir(dir.path().join("d")).expect("mkdir");
    let long = "m".repeat(500);
    let cjk = "検索モデル".repeat(20);
    std::fs::write(
        dir.path().join("d/セッション-of-a-long-session-name.jsonl"),
        live_log("s1", &[&long, &cjk, "claude-sonnet-4-20250514"]),
    )
    .expect("write");
    // Drawn once an hour: a frame after the first is SIGWINCH's.
    let view = LiveView::start(dir.path(), 80, 30, &["--interval", "3600"]);
    let frame = view.frame_where(|l| l.iter().any(|l| l.starts_with("Today")));
    for line in &frame {
        assert!(line.width() <= 80, "wider than the terminal: {line:?}");
    }
    let rows: Vec<&String> = frame
        .iter()
        .skip_while(|l| !l.starts_with("Model"))
        .take(4)
        .collect();
    assert!(rows[0].starts_with("Model "), "{frame:#?}");
    // Every row of the table as wide, the figures in line; the long names cut.
    for row in &rows[1..] {
        assert_eq!(row.width(), rows[0].width(), "{rows:#?}");
    }
    assert!(
        rows.iter()
            .any(|r| r.starts_with("mmmm") && r.contains('…')),
        "{rows:#?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("検索") && r.contains('…')),
        "{rows:#?}"
    );
    assert!(frame[0].starts_with("ndjq stats --follow"), "{frame:#?}");
    // Resized: drawn again, at most 50 cells wide and 12 lines tall.
    resize(&view.tty, 50, 12);
    view.signal("WINCH");
    let frame = view.frame_where(|l| {
        l.len() <= 12 && l.iter().all(|l| l.width() <= 50) && l.iter().any(|l| l.contains('…'))
    });
    assert!(frame[0].starts_with("ndjq stats --follow"), "{frame:#?}");
    view.stop();
    // With --by, the key column gives up what the figures need: every column on screen.
    let view = LiveView::start(dir.path(), 120, 30, &["--by", "model"]);
    let frame = view.frame_where(|l| l.iter().any(|l| l.starts_with("total")));
    for line in &frame {
        assert!(line.width() <= 120, "wider than the terminal: {line:?}");
    }
    let head = frame
        .iter()
        .find(|l| l.starts_with("model "))
        .expect("the table's header");
    assert!(head.ends_with("errors"), "{frame:#?}");
    assert!(
        frame
            .iter()
            .any(|l| l.starts_with("mmmm") && l.contains("… ") && l.ends_with('0')),
        "{frame:#?}"
    );
    view.stop();
}

/// The characters that reorder or hide text in a terminal (BiDi overrides and isolates,
/// zero-width characters, line separators, the BOM) reached it raw: a model named with
/// U+202E reversed the rest of its row, numbers included; U+200B made two names look
/// alike. Every text output shows them escaped (`\u{202E}`), and the live view shows a
/// file name that is not UTF-8 with `\xFF`, as everywhere else.
#[test]
fn bidi_controls_in_a_model_name_are_escaped_in_every_text_output() {
    const HIDDEN: [char; 15] = [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2069}',
        '\u{200B}', '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{2028}', '\u{2029}',
        '\u{FEFF}',
    ];
    let model = "claude-\u{202E}4-tennos\u{200B}";
    let dir = common::tempdir();
    std::fs::create_dir(dir.path().join("d")).expect("mkdir");
    let all_hidden: String = HIDDEN.iter().collect();
    let mut log = live_log(&format!("s\u{202E}1{all_hidden}"), &[model]);
    log.push_str(&format!(
        "{}\n",
        serde_json::json!({
            "type": "assistant",
            "session_id": "s\u{202E}1",
            "message": {
                "id": "m2", "role": "assistant", "model": all_hidden,
                "content": [{"type": "tool_use", "id": "t\u{2066}1", "name": "Ba\u{202E}sh", "input": {"c": "\u{202E}x"}}],
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        })
    ));
    log.push_str("not JSON \u{202E} at all\n");
    let input = common::write_file(&dir.path().join("d"), "a\u{202E}.jsonl", log.as_bytes());
    let mut runs: Vec<Vec<&str>> = vec![
        vec!["stats", "-f", "text"],
        vec!["validate", "-f", "text"],
        vec!["gaps", "-f", "text"],
        vec!["events", "-f", "text"],
        vec!["filter", "--normalize", "-f", "text"],
    ];
    for by in ["session", "model", "tool", "file"] {
        runs.push(vec!["stats", "-f", "text", "--by", by]);
    }
    let raw = |s: &str| s.chars().any(|c| HIDDEN.contains(&c));
    for args in &runs {
        let out = common::ndjq()
            .args(args)
            .args(["--color", "never"])
            .arg(&input)
            .output()
            .expect("ndjq runs");
        let all = text(&out.stdout) + &text(&out.stderr);
        assert!(
            !raw(&all),
            "{args:?}: an invisible character reached the terminal:\n{all}"
        );
        assert!(all.contains(r"\u{202E}"), "{args:?}: {all}");
    }
    let out = common::ndjq_sub("stats")
        .args(["-f", "text"])
        .arg(&input)
        .output()
        .expect("ndjq runs");
    let shown = text(&out.stdout);
    assert!(
        shown.contains(r"claude-\u{202E}4-tennos\u{200B}"),
        "{shown}"
    );
    let every = r"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2069}\u{200B}\u{200C}\u{200D}\u{200E}\u{200F}\u{2028}\u{2029}\u{FEFF}";
    assert!(shown.contains(every), "{shown}");
    // A message on stderr naming a path.
    let out = common::ndjq_sub("stats")
        .arg(dir.path().join("gone\u{202E}.jsonl"))
        .output()
        .expect("ndjq runs");
    let err = text(&out.stderr);
    assert!(!raw(&err) && err.contains(r"gone\u{202E}.jsonl"), "{err}");
    // The live view, with a file name that is not UTF-8 beside.
    std::fs::write(
        dir.path()
            .join("d")
            .join(OsStr::from_bytes(b"inv\xff.jsonl")),
        live_log("s2", &["claude-sonnet-4-20250514"]),
    )
    .expect("write");
    let view = LiveView::start(dir.path(), 120, 40, &[]);
    let frame = view.frame_where(|l| l.iter().any(|l| l.starts_with("Today")));
    let all = frame.join("\n");
    assert!(!raw(&all), "{all}");
    assert!(all.contains(r"claude-\u{202E}4-tennos\u{200B}"), "{all}");
    assert!(all.contains(r"inv\xFF"), "{all}");
    assert!(!all.contains('\u{FFFD}'), "{all}");
    view.stop();
}
