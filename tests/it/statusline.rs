//! `ndjq statusline` (docs/GUIDE.md, "Claude Code's status line") and the incremental
//! cache it answers from (`stats --cache`): each test runs the real binary in a scratch
//! home (HOME, XDG_CACHE_HOME and TZ set, nothing else of the caller's environment), with
//! Claude Code transcripts written there with the current time, so "today" is the day the
//! test runs.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A scratch home: `~/.claude/projects/-w/` holds the transcripts, `~/.codex/sessions/` a
/// Codex rollout, and the cache is in `cache/`.
struct Home {
    dir: tempfile::TempDir,
}

/// The session the status line is asked about.
const SESSION: &str = "5e551a1e-0000-4000-8000-000000000001";

impl Home {
    fn new() -> Home {
        let home = Home { dir: tempdir() };
        std::fs::create_dir_all(home.projects()).expect("mkdir projects");
        let codex = home.path().join(".codex/sessions/2025/06/01");
        std::fs::create_dir_all(&codex).expect("mkdir codex");
        std::fs::copy(
            testdata().join("codex-log/codex-tool.session-log.jsonl"),
            codex.join("rollout-codex-tool.jsonl"),
        )
        .expect("copy the rollout");
        std::fs::copy(
            testdata().join("claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl"),
            home.projects()
                .join("d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl"),
        )
        .expect("copy the transcript");
        home.append(&format!("{SESSION}.jsonl"), &[assistant(SESSION, 1)]);
        home
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn projects(&self) -> PathBuf {
        self.path().join(".claude/projects/-w")
    }

    fn cache(&self) -> PathBuf {
        self.path().join("cache/ndjq")
    }

    /// Appends lines to a transcript of `~/.claude/projects/-w/`.
    fn append(&self, name: &str, lines: &[String]) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.projects().join(name))
            .expect("open a transcript");
        for l in lines {
            f.write_all(l.as_bytes()).expect("append");
        }
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut cmd = ndjq();
        cmd.env("HOME", self.path())
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env("TZ", "UTC");
        cmd
    }

    /// `ndjq statusline ARGS` with `stdin`: its stdout and stderr; it must exit 0.
    fn line(&self, stdin: &str, args: &[&str]) -> (String, String) {
        let out = self
            .cmd()
            .arg("statusline")
            .args(args)
            .write_stdin(stdin)
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        (
            String::from_utf8(out.stdout).expect("UTF-8"),
            String::from_utf8(out.stderr).expect("UTF-8"),
        )
    }

    /// The figures from the logs (session and today's cost), through the cache and
    /// without it: they must be the same.
    fn figures(&self) -> String {
        let stdin = format!("{{\"session_id\":\"{SESSION}\"}}");
        let args = [
            "--color",
            "never",
            "--format",
            "{session_cost} {today_cost}",
        ];
        let (cached, _) = self.line(&stdin, &args);
        let (plain, _) = self.line(&stdin, &[&args[..], &["--no-cache"]].concat());
        assert_eq!(
            cached, plain,
            "the cached line is the line without the cache"
        );
        cached
    }

    /// `stats -f json --by session` on the home's folders, with ARGS.
    fn stats(&self, args: &[&str]) -> serde_json::Value {
        let out = self
            .cmd()
            .args(["stats", "-q", "-f", "json", "--by", "session"])
            .args(args)
            .arg(self.path().join(".claude/projects"))
            .arg(self.path().join(".codex/sessions"))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("JSON stats")
    }
}

/// A Claude Code transcript line: an assistant message `n` of `session`, now, that used
/// 100,000 input and 50,000 output tokens of Sonnet 4.5 ($1.05 at its list price).
fn assistant(session: &str, n: u32) -> String {
    let now = jiff::Timestamp::now();
    format!(
        "{{\"type\":\"assistant\",\"timestamp\":\"{now}\",\"sessionId\":\"{session}\",\
         \"cwd\":\"/w\",\"uuid\":\"u-{session}-{n}\",\"requestId\":\"req_{session}_{n}\",\
         \"message\":{{\"id\":\"msg_{session}_{n}\",\"type\":\"message\",\"role\":\"assistant\",\
         \"model\":\"claude-sonnet-4-5-20250929\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}],\
         \"usage\":{{\"input_tokens\":100000,\"output_tokens\":50000,\
         \"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0}}}}}}\n"
    )
}

/// Claude Code's status line JSON, every field there, with or without `rate_limits`.
fn full_json(rate_limits: bool) -> String {
    let resets = jiff::Timestamp::now().as_second() + 2 * 3600 + 600;
    let limits = format!(
        ",\"rate_limits\":{{\"five_hour\":{{\"used_percentage\":42.4,\"resets_at\":{resets}}},\
         \"seven_day\":{{\"used_percentage\":15,\"resets_at\":{}}}}}",
        resets + 86400
    );
    format!(
        "{{\"hook_event_name\":\"Status\",\"session_id\":\"{SESSION}\",\
         \"transcript_path\":\"/home/me/.claude/projects/-w/{SESSION}.jsonl\",\"cwd\":\"/w\",\
         \"model\":{{\"id\":\"claude-opus-4-5\",\"display_name\":\"Opus 4.5\"}},\
         \"workspace\":{{\"current_dir\":\"/w\",\"project_dir\":\"/w\"}},\"version\":\"2.1.30\",\
         \"cost\":{{\"total_cost_usd\":0.4251,\"total_duration_ms\":45000}},\
         \"context_window\":{{\"used_percentage\":37.2,\"remaining_percentage\":62.8,\
         \"context_window_size\":200000}}{}}}",
        if rate_limits { limits.as_str() } else { "" }
    )
}

#[test]
fn the_line_shows_model_costs_the_plans_window_and_context() {
    let home = Home::new();
    let (line, _) = home.line(&full_json(true), &["--color", "never"]);
    assert_eq!(line.lines().count(), 1, "{line}");
    let parts: Vec<&str> = line.trim_end().split(" · ").collect();
    assert_eq!(parts[0], "Opus 4.5", "{line}");
    assert_eq!(
        parts[1], "$0.43 session",
        "Claude Code's own figure: {line}"
    );
    assert_eq!(parts[2], "$1.05 today", "{line}");
    assert!(parts[3].starts_with("5h 42% resets "), "{line}");
    assert!(
        parts[3].ends_with(" (2h10m)") || parts[3].ends_with(" (2h09m)"),
        "{line}"
    );
    assert_eq!(parts[4], "ctx 37%", "{line}");
    let (line, _) = home.line(
        &full_json(true),
        &["--color", "never", "--format", "{seven_day}|{dir}|{{x}}"],
    );
    assert_eq!(line, "7d 15%|w|{x}\n");
}

#[test]
fn without_rate_limits_the_window_is_ndjqs_own_block() {
    let home = Home::new();
    let (line, _) = home.line(&full_json(false), &["--color", "never"]);
    let parts: Vec<&str> = line.trim_end().split(" · ").collect();
    assert_eq!(parts.len(), 5, "{line}");
    // The block of the message written now: its cost and the time left in it.
    assert!(parts[3].starts_with("block $1.05 "), "{line}");
    assert!(parts[3].contains(" left"), "{line}");
    // With no log of the last five hours, there is no block.
    let empty = Home::new();
    std::fs::remove_file(empty.projects().join(format!("{SESSION}.jsonl"))).expect("rm");
    let (line, _) = empty.line(&full_json(false), &["--color", "never"]);
    assert!(line.contains(" · no block · "), "{line}");
    assert!(line.contains("$0.00 today"), "{line}");
}

#[test]
fn each_field_missing_or_of_the_wrong_type_leaves_its_part_out() {
    let home = Home::new();
    let full: serde_json::Value = serde_json::from_str(&full_json(true)).expect("JSON");
    let odd = [
        serde_json::json!(null),
        serde_json::json!(42),
        serde_json::json!("text"),
        serde_json::json!([1, 2]),
        serde_json::json!({}),
        serde_json::json!({"used_percentage": "37", "display_name": 7, "total_cost_usd": "1",
            "five_hour": 3, "current_dir": false}),
    ];
    for field in [
        "session_id",
        "transcript_path",
        "model",
        "workspace",
        "cost",
        "context_window",
        "rate_limits",
    ] {
        // Missing.
        let mut v = full.clone();
        v.as_object_mut().expect("object").remove(field);
        let (line, _) = home.line(&v.to_string(), &["--color", "never"]);
        assert_eq!(line.lines().count(), 1, "{field} missing: {line}");
        assert!(line.contains("$1.05 today"), "{field} missing: {line}");
        // Of another type.
        for o in &odd {
            let mut v = full.clone();
            v[field] = o.clone();
            let (line, _) = home.line(&v.to_string(), &["--color", "never"]);
            assert_eq!(line.lines().count(), 1, "{field} = {o}: {line}");
            assert!(line.contains("$1.05 today"), "{field} = {o}: {line}");
        }
    }
    // What each part falls back to.
    let (line, _) = home.line(
        &format!("{{\"session_id\":\"{SESSION}\",\"model\":{{\"id\":\"claude-x\"}}}}"),
        &["--color", "never"],
    );
    assert!(
        line.starts_with("claude-x · $1.05 session · $1.05 today · block $1.05 "),
        "{line}"
    );
    assert!(!line.contains("ctx"), "{line}");
    let (line, _) = home.line(
        "{\"context_window\":{\"remaining_percentage\":20}}",
        &["--color", "never"],
    );
    assert!(line.trim_end().ends_with(" · ctx 80%"), "{line}");
    let (line, _) = home.line(
        "{\"context_window\":{\"context_window_size\":200000,\"current_usage\":\
         {\"input_tokens\":1000,\"cache_read_input_tokens\":49000,\"output_tokens\":5}}}",
        &["--color", "never"],
    );
    assert!(line.trim_end().ends_with(" · ctx 25%"), "{line}");
}

#[test]
fn empty_or_garbage_stdin_prints_a_short_line_and_exits_0() {
    let home = Home::new();
    for (stdin, short) in [
        ("", "ndjq: no status input\n"),
        ("  \n", "ndjq: no status input\n"),
        ("not json at all", "ndjq: status input unreadable\n"),
        ("{\"model\":", "ndjq: status input unreadable\n"),
        ("[1,2]", "ndjq: status input unreadable\n"),
        ("\u{1b}[2J\u{0}\u{ff}", "ndjq: status input unreadable\n"),
    ] {
        let (line, err) = home.line(stdin, &[]);
        assert_eq!(line, short, "stdin {stdin:?}");
        assert!(
            err.starts_with("ndjq statusline: "),
            "the details on stderr: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_record_appended_to_todays_session_shows_in_the_next_line() {
    let home = Home::new();
    assert_eq!(home.figures(), "$1.05 $1.05\n");
    home.append(&format!("{SESSION}.jsonl"), &[assistant(SESSION, 2)]);
    assert_eq!(home.figures(), "$2.10 $2.10\n");
    // Another session of today counts today, not in this session.
    home.append("other.jsonl", &[assistant("0the7", 1)]);
    assert_eq!(home.figures(), "$2.10 $3.15\n");
    // Nothing changed: the same line, from the cache.
    assert_eq!(home.figures(), "$2.10 $3.15\n");
}

#[test]
fn a_partial_last_line_is_never_cached_as_read() {
    let home = Home::new();
    let name = format!("{SESSION}.jsonl");
    let record = assistant(SESSION, 2);
    let (head, tail) = record.split_at(record.len() / 2);
    home.append(&name, &[head.to_string()]);
    assert_eq!(home.figures(), "$1.05 $1.05\n");
    home.append(&name, &[tail.to_string()]);
    assert_eq!(home.figures(), "$2.10 $2.10\n");
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
}

#[test]
fn replaced_truncated_and_renamed_files_give_the_line_of_a_cacheless_run() {
    let home = Home::new();
    let name = format!("{SESSION}.jsonl");
    home.append(&name, &[assistant(SESSION, 2), assistant(SESSION, 3)]);
    assert_eq!(home.figures(), "$3.15 $3.15\n");
    // Replaced: written again at the same path, as large, another head.
    let path = home.projects().join(&name);
    let again = [
        assistant(SESSION, 7),
        assistant(SESSION, 8),
        assistant(SESSION, 9),
    ]
    .concat();
    std::fs::remove_file(&path).expect("rm");
    // 200,000 input tokens each: $1.35 a message.
    std::fs::write(&path, again.replace("100000", "200000")).expect("write");
    assert_eq!(home.figures(), "$4.05 $4.05\n");
    // Truncated to its first record.
    let first = std::fs::read_to_string(&path).expect("read");
    let first = first
        .split_inclusive('\n')
        .next()
        .expect("a line")
        .to_string();
    std::fs::write(&path, &first).expect("truncate");
    assert_eq!(home.figures(), "$1.35 $1.35\n");
    // Renamed (its folder too): the same records under another name.
    std::fs::rename(&path, home.projects().join("renamed.jsonl")).expect("rename");
    assert_eq!(
        home.figures(),
        "$1.35 $1.35\n",
        "the session is named in its records"
    );
    std::fs::rename(home.projects(), home.path().join(".claude/projects/-moved")).expect("mv");
    let stdin = format!("{{\"session_id\":\"{SESSION}\"}}");
    let (line, _) = home.line(&stdin, &["--color", "never", "--format", "{today_cost}"]);
    assert_eq!(line, "$1.35\n");
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
}

/// What a test does to a cache file's bytes.
type Damage = dyn Fn(&[u8]) -> Vec<u8>;

#[test]
fn a_damaged_cache_is_rebuilt_never_trusted() {
    let home = Home::new();
    assert_eq!(home.figures(), "$1.05 $1.05\n");
    let files_in = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let indexes = || {
        files_in(&home.cache())
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("index-"))
            })
            .collect::<Vec<_>>()
    };
    assert!(
        !indexes().is_empty(),
        "an index in {}",
        home.cache().display()
    );
    let damage: [(&str, &Damage); 4] = [
        ("cut short", &|b| b[..b.len() / 2].to_vec()),
        ("garbage", &|_| b"\x00\xffnot a cache at all\n".to_vec()),
        ("another version", &|b| {
            String::from_utf8_lossy(b)
                .replacen("ndjq-stats-cache 2", "ndjq-stats-cache 0", 1)
                .into_bytes()
        }),
        ("a changed figure", &|b| {
            String::from_utf8_lossy(b)
                .replacen("\"offset\":", "\"offset\":1", 1)
                .into_bytes()
        }),
    ];
    for (n, (what, damage)) in damage.into_iter().enumerate() {
        // The index, and every state file, damaged; then a record appended.
        for file in indexes()
            .into_iter()
            .chain(files_in(&home.cache().join("states")))
        {
            let bytes = read_file(&file);
            std::fs::write(&file, damage(&bytes)).expect("damage");
        }
        let before = home.figures();
        home.append(
            &format!("{SESSION}.jsonl"),
            &[assistant(SESSION, 100 + n as u32)],
        );
        let after = home.figures();
        assert_ne!(before, after, "{what}");
        assert_eq!(home.stats(&["--cache"]), home.stats(&[]), "{what}");
    }
    // State files damaged alone (the index whole).
    for file in files_in(&home.cache().join("states")) {
        let bytes = read_file(&file);
        std::fs::write(&file, &bytes[..bytes.len() - 3]).expect("damage");
    }
    home.append(&format!("{SESSION}.jsonl"), &[assistant(SESSION, 999)]);
    home.figures();
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
}

#[test]
fn two_status_lines_at_once_leave_a_valid_cache() {
    let home = Home::new();
    for n in 0..20 {
        home.append(&format!("s{n}.jsonl"), &[assistant(&format!("s{n}"), 1)]);
    }
    let stdin = format!("{{\"session_id\":\"{SESSION}\"}}");
    for round in 0..3 {
        home.append(
            &format!("s{round}.jsonl"),
            &[assistant(&format!("s{round}"), 2)],
        );
        let children: Vec<std::process::Child> = (0..4)
            .map(|_| {
                let mut cmd = ndjq_bare_std();
                cmd.env("HOME", home.path())
                    .env("XDG_CACHE_HOME", home.path().join("cache"))
                    .env("TZ", "UTC")
                    .args(["statusline", "--color", "never", "--format", "{today_cost}"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut child = cmd.spawn().expect("ndjq starts");
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(stdin.as_bytes())
                    .expect("write stdin");
                child
            })
            .collect();
        let lines: Vec<String> = children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().expect("ndjq ends");
                assert_eq!(out.status.code(), Some(0), "{out:?}");
                assert!(
                    out.stderr.is_empty(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8(out.stdout).expect("UTF-8")
            })
            .collect();
        let want = format!("${:.2}\n", 1.05 * f64::from(22 + round));
        assert!(lines.iter().all(|l| *l == want), "{lines:?}, want {want}");
        // The cache they left: whole, and what it answers is a plain run's.
        let (cached, _) = home.line(&stdin, &["--color", "never", "--format", "{today_cost}"]);
        assert_eq!(cached, want);
        assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
    }
    let leftovers: Vec<_> = std::fs::read_dir(home.cache())
        .expect("the cache folder")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file left: {leftovers:?}"
    );
}

#[test]
fn stats_with_the_cache_equals_stats() {
    let home = Home::new();
    let plain = home.stats(&[]);
    assert_eq!(home.stats(&["--cache"]), plain, "cold");
    assert_eq!(home.stats(&["--cache"]), plain, "warm");
    home.append(&format!("{SESSION}.jsonl"), &[assistant(SESSION, 2)]);
    let plain = home.stats(&[]);
    assert_ne!(plain["cost_usd"], serde_json::Value::Null);
    assert_eq!(home.stats(&["--cache"]), plain, "after an append");
    assert_eq!(home.stats(&["--cache", "-j", "1"]), plain, "one thread");
    assert_eq!(home.stats(&["--no-cache"]), plain);
    // A Codex rollout that grows (its records lean on the ones before: read whole).
    let rollout = home
        .path()
        .join(".codex/sessions/2025/06/01/rollout-codex-tool.jsonl");
    let text = std::fs::read_to_string(&rollout).expect("read");
    let last = text.lines().last().expect("a line").to_string();
    std::fs::write(&rollout, format!("{text}{last}\n")).expect("append");
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]), "a grown rollout");
}

#[test]
fn colour_is_on_by_default_and_off_with_no_color() {
    let home = Home::new();
    let (line, _) = home.line(&full_json(true), &[]);
    assert!(line.contains("\u{1b}[36;1mOpus 4.5\u{1b}[0m"), "{line:?}");
    let out = home
        .cmd()
        .arg("statusline")
        .env("NO_COLOR", "1")
        .write_stdin(full_json(true))
        .output()
        .expect("ndjq runs");
    let line = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!line.contains('\u{1b}'), "{line:?}");
    assert!(line.starts_with("Opus 4.5 · "), "{line:?}");
    let (line, _) = home.line(&full_json(true), &["--color", "never"]);
    assert!(!line.contains('\u{1b}'), "{line:?}");
}

#[test]
fn escape_and_bidi_characters_in_names_are_shown_escaped() {
    let home = Home::new();
    let stdin = serde_json::json!({
        "model": {"display_name": "Op\u{1b}[31mus\u{202e}evil\u{2066}\n2"},
        "workspace": {"current_dir": "/w/\u{7}bell"},
    })
    .to_string();
    let (line, _) = home.line(&stdin, &["--color", "never", "--format", "{model} {dir}"]);
    assert_eq!(line, "Op\\e[31mus\\u{202E}evil\\u{2066}\\n2 \\u{7}bell\n");
}

#[test]
fn clear_cache_removes_the_cache_folder() {
    let home = Home::new();
    home.figures();
    assert!(home.cache().is_dir());
    home.cmd()
        .args(["statusline", "--clear-cache"])
        .assert()
        .success();
    assert!(!home.cache().exists());
    assert_eq!(home.figures(), "$1.05 $1.05\n");
}

#[test]
fn stats_cache_on_some_of_the_folders_shares_the_status_lines_cache() {
    let home = Home::new();
    assert_eq!(home.figures(), "$1.05 $1.05\n");
    // `stats --cache` on the Claude folder alone: the same settings, the same cache.
    let claude_only = |args: &[&str]| -> serde_json::Value {
        let out = home
            .cmd()
            .args(["stats", "-q", "-f", "json"])
            .args(args)
            .arg(home.path().join(".claude/projects"))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("JSON stats")
    };
    assert_eq!(claude_only(&["--cache"]), claude_only(&[]));
    let indexes = std::fs::read_dir(home.cache())
        .expect("the cache folder")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index-"))
        .count();
    assert_eq!(indexes, 1, "one index for both");
    home.append(&format!("{SESSION}.jsonl"), &[assistant(SESSION, 2)]);
    assert_eq!(claude_only(&["--cache"]), claude_only(&[]));
    // The status line still counts the Codex rollout the other walk did not see.
    assert_eq!(home.figures(), "$2.10 $2.10\n");
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
}

#[test]
fn the_cache_reads_only_what_was_appended() {
    let home = Home::new();
    let note = |home: &Home| -> String {
        let out = home
            .cmd()
            .args(["stats", "--cache", "-f", "json"])
            .arg(home.path().join(".claude/projects"))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let err = String::from_utf8(out.stderr).expect("UTF-8");
        err.lines()
            .find(|l| l.starts_with("ndjq: cache: "))
            .unwrap_or_else(|| panic!("a cache note: {err}"))
            .to_string()
    };
    let first = note(&home);
    assert!(
        first.contains("files unchanged 0, read on from their offset 0, read from their start 2;"),
        "{first}"
    );
    assert!(note(&home).contains(
        "files unchanged 2, read on from their offset 0, read from their start 0; bytes read 0"
    ));
    let line = assistant(SESSION, 2);
    home.append(&format!("{SESSION}.jsonl"), std::slice::from_ref(&line));
    let after = note(&home);
    assert!(
        after.ends_with(&format!(
            "files unchanged 1, read on from their offset 1, read from their start 0; bytes read {}",
            line.len()
        )),
        "{after}"
    );
}

#[test]
fn a_file_written_again_in_place_with_another_head_is_read_from_its_start() {
    let home = Home::new();
    let path = home.projects().join(format!("{SESSION}.jsonl"));
    assert_eq!(home.figures(), "$1.05 $1.05\n");
    // The same inode, longer than before, another first record: not an append.
    let other = [
        assistant("0ther", 1),
        assistant(SESSION, 5),
        assistant(SESSION, 6),
    ]
    .concat();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .expect("open in place");
    std::io::Write::write_all(&mut f, other.as_bytes()).expect("write");
    drop(f);
    assert_eq!(home.figures(), "$2.10 $3.15\n");
    assert_eq!(home.stats(&["--cache"]), home.stats(&[]));
}

/// An OpenCode SQLite store among the default folders (testdata/opencode-store, written by
/// the real OpenCode) is not a log that grows at its end: the cached status line and `stats
/// --cache` read it whole each time and still equal a run without the cache.
#[test]
fn an_opencode_store_among_the_inputs_gives_the_figures_of_a_cacheless_run() {
    let home = Home::new();
    let store = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(&store).expect("mkdir the store's folder");
    for name in ["opencode.db", "opencode.db-wal"] {
        let bytes = read_data(&testdata().join(format!("opencode-store/{name}.zst")));
        std::fs::write(store.join(name), bytes).expect("write the store");
    }
    home.figures();
    home.figures();
    let with_store = |args: &[&str]| {
        let out = home
            .cmd()
            .args(["stats", "-q", "-f", "json", "--by", "session"])
            .args(args)
            .arg(home.path().join(".claude/projects"))
            .arg(store.join("opencode.db"))
            .output()
            .expect("ndjq runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON stats")
    };
    let plain = with_store(&[]);
    assert!(
        plain["dialects"]["opencode"].as_u64().unwrap_or(0) > 0,
        "the store is read: {plain}"
    );
    assert_eq!(with_store(&["--cache"]), plain, "cold");
    assert_eq!(with_store(&["--cache"]), plain, "warm");
}
