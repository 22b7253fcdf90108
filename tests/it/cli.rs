//! The command line as a whole: the committed man pages and completion scripts are what the
//! binary generates; the help texts teach (every flag described, every command's help ends
//! with examples, and every example is run here and its output checked); the common
//! mistakes get clear messages; colour never reaches a pipe or a file.

use crate::common;

use common::{ndjq, ndjq_path, tempdir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The package root: where man/, completions/ and testdata/ are.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every command of `ndjq --help`, in order, with the `help` clap adds.
const COMMANDS: &[&str] = &[
    "validate",
    "gaps",
    "filter",
    "events",
    "stats",
    "report",
    "run",
    "statusline",
    "man",
    "completions",
    "help",
];

fn stdout_of(args: &[&str]) -> String {
    let out = ndjq().args(args).output().expect("ndjq runs");
    assert!(
        out.status.success(),
        "ndjq {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

// ---- generated files: the committed ones must be what the binary generates ----

/// The files of a folder, by name.
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a folder entry").path();
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, common::read_file(&path))
        })
        .collect()
}

/// Generates into a scratch folder with `ndjq ARGS --dir TMP` and compares it with the
/// committed folder, file by file.
fn assert_committed_is_generated(folder: &str, args: &[&str], regenerate: &str) {
    let tmp = tempdir();
    ndjq()
        .args(args)
        .arg("--dir")
        .arg(tmp.path())
        .assert()
        .success();
    let fresh = files_of(tmp.path());
    let committed = files_of(&root().join(folder));
    let fix = format!("regenerate with `{regenerate}` and commit the result");
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&committed),
        names(&fresh),
        "{folder}/ does not hold exactly the generated files (delete the stale ones); {fix}"
    );
    for (name, bytes) in &fresh {
        assert!(
            committed[name] == *bytes,
            "{folder}/{name} differs from what the binary generates; {fix}"
        );
    }
}

#[test]
fn committed_man_pages_are_what_ndjq_man_generates() {
    assert_committed_is_generated("man", &["man"], "cargo run -- man --dir man");
    // `ndjq man` alone prints the main page.
    let page = stdout_of(&["man"]);
    assert_eq!(
        page.as_bytes(),
        common::read_file(&root().join("man/ndjq.1")),
        "`ndjq man` prints man/ndjq.1"
    );
}

#[test]
fn committed_completions_are_what_ndjq_completions_generates() {
    assert_committed_is_generated(
        "completions",
        &["completions"],
        "cargo run -- completions --dir completions",
    );
    let bash = stdout_of(&["completions", "bash"]);
    assert_eq!(
        bash.as_bytes(),
        common::read_file(&root().join("completions/ndjq.bash")),
        "`ndjq completions bash` prints completions/ndjq.bash"
    );
}

#[test]
fn the_bash_completion_script_parses() {
    // bash is everywhere; zsh and fish are not in CI, so their scripts are only checked
    // against a fresh generation (above). By hand: `zsh -n completions/_ndjq`,
    // `fish --no-execute completions/ndjq.fish`.
    let out = Command::new("bash")
        .arg("-n")
        .arg(root().join("completions/ndjq.bash"))
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_man_pages_cover_every_command_with_examples() {
    let main = stdout_of(&["man"]);
    assert!(main.contains(".TH NDJQ 1"), "{main}");
    for section in [
        "SYNOPSIS",
        "SUBCOMMANDS",
        "EXAMPLES",
        "\"EXIT STATUS\"",
        "ENVIRONMENT",
    ] {
        assert!(
            main.contains(&format!(".SH {section}")),
            "ndjq.1 lacks {section}"
        );
    }
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        assert!(
            main.contains(&format!("ndjq\\-{command}(1)")),
            "ndjq.1 names ndjq-{command}(1)"
        );
        let page = String::from_utf8(common::read_file(
            &root().join(format!("man/ndjq-{command}.1")),
        ))
        .expect("UTF-8 page");
        assert!(
            page.contains(".SH EXAMPLES"),
            "ndjq-{command}.1 has examples"
        );
        assert!(
            page.contains("ndjq(1)"),
            "ndjq-{command}.1 refers to ndjq(1)"
        );
    }
}

#[test]
fn completions_print_one_shell_or_write_them_all() {
    assert!(stdout_of(&["completions", "zsh"]).starts_with("#compdef ndjq"));
    assert!(stdout_of(&["completions", "fish"]).contains("complete -c ndjq"));
    let tmp = tempdir();
    ndjq()
        .args(["completions", "fish", "--dir"])
        .arg(tmp.path())
        .assert()
        .success();
    assert_eq!(
        files_of(tmp.path()).into_keys().collect::<Vec<_>>(),
        ["ndjq.fish"]
    );
    // Neither a shell nor a folder: a usage error naming what is missing.
    let out = ndjq().arg("completions").output().expect("ndjq runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<SHELL>"));
}

// ---- help texts ----

#[test]
fn version_prints_the_package_version() {
    for flag in ["--version", "-V"] {
        assert_eq!(
            stdout_of(&[flag]),
            format!("ndjq {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn top_level_help_lists_every_command_on_one_line() {
    let help = stdout_of(&["--help"]);
    let section: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    let names: Vec<&str> = section
        .iter()
        .map(|l| {
            assert!(
                l.starts_with("  ") && !l.starts_with("   "),
                "a continuation line in the command list: {l:?}"
            );
            let (name, about) = l.trim_start().split_once("  ").expect("name, then about");
            assert!(
                !about.trim().is_empty(),
                "`{name}` has a one-line description"
            );
            name
        })
        .collect();
    assert_eq!(names, COMMANDS);
}

/// Every option and argument line of a help text has a description after it.
#[test]
fn every_flag_of_every_command_is_described() {
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        // `-h` is the short help: one line per flag (its first sentence after the flag).
        let help = stdout_of(&[command, "-h"]);
        let mut in_list = false;
        for line in help.lines() {
            if line == "Options:" || line == "Arguments:" {
                in_list = true;
                continue;
            }
            if line.is_empty() {
                in_list = false;
            }
            // Flag lines start at column 2 (`-x`, `--long` or `[ARG]`); the rest are the
            // wrapped descriptions, further in.
            let starts_flag = line.starts_with("  -")
                || line.starts_with("      --")
                || line.starts_with("  [")
                || line.starts_with("  <");
            if in_list && starts_flag {
                let words: Vec<&str> = line.trim().split("  ").filter(|w| !w.is_empty()).collect();
                assert!(
                    words.len() >= 2,
                    "ndjq {command}: `{}` has no description",
                    line.trim()
                );
            }
        }
    }
}

/// One example of a help text: its comment and its command lines.
#[derive(Debug, Clone)]
struct Example {
    does: String,
    run: String,
}

/// The examples closing a help text (`Examples:`, then `# what` and command lines).
fn examples_in(help: &str) -> Vec<Example> {
    let (_, tail) = help
        .split_once("\nExamples:\n")
        .expect("an Examples section");
    let mut out: Vec<Example> = Vec::new();
    for line in tail.lines() {
        if let Some(does) = line.strip_prefix("  # ") {
            out.push(Example {
                does: does.to_string(),
                run: String::new(),
            });
        } else if let Some(cmd) = line.strip_prefix("  ") {
            let ex = out.last_mut().expect("a comment opens each example");
            if !ex.run.is_empty() {
                ex.run.push('\n');
            }
            ex.run.push_str(cmd);
        } else {
            assert!(line.is_empty(), "the examples end the help: {line:?}");
        }
    }
    out
}

#[test]
fn every_help_ends_with_two_or_three_examples() {
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        for flag in ["-h", "--help"] {
            let examples = examples_in(&stdout_of(&[command, flag]));
            assert!(
                (2..=3).contains(&examples.len()),
                "ndjq {command} {flag}: {} examples",
                examples.len()
            );
            for ex in &examples {
                assert!(!ex.run.is_empty(), "`{}` has a command", ex.does);
                assert!(ex.run.contains("ndjq "), "`{}` runs ndjq", ex.run);
            }
        }
    }
    assert_eq!(examples_in(&stdout_of(&["--help"])).len(), 3);
}

// ---- every example of every help, run ----

/// A scratch home where the examples run exactly as written: the files they name exist
/// (copies of testdata), `~` is this folder, and `claude` is a stand-in that prints a
/// recorded Claude Code stream-json capture (the real one needs an account and the
/// network; what the example shows is what ndjq does with the stream).
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempdir();
        let home = dir.path();
        let copy = |from: &str, to: &str| {
            let to = home.join(to);
            std::fs::create_dir_all(to.parent().expect("a parent folder")).expect("mkdir");
            std::fs::copy(root().join(from), &to).unwrap_or_else(|e| panic!("copy {from}: {e}"));
        };
        copy("testdata/edge/mixed.ndjson", "run.ndjson");
        // A Claude Code transcript with timestamps and tool calls, for the filter examples.
        copy("testdata/filter/full-session.jsonl", "session.jsonl");
        for name in [
            "claude-error500.ndjson",
            "claude-multi_tool.ndjson",
            "claude-tool.ndjson",
            "gleam-basic_query.ndjson",
        ] {
            copy(&format!("testdata/claude/{name}"), &format!("logs/{name}"));
            copy(
                &format!("testdata/claude/{name}"),
                &format!("shard1/{name}"),
            );
        }
        for name in [
            "agent-wrappers-streaming.jsonl",
            "agentcmd-stream-output-2.jsonl",
            "codex-failed.ndjson",
        ] {
            copy(&format!("testdata/codex/{name}"), &format!("shard2/{name}"));
        }
        copy(
            "testdata/claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl",
            ".claude/projects/-home-me-demo/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl",
        );
        copy(
            "testdata/codex-log/codex-tool.session-log.jsonl",
            ".codex/sessions/2025/06/01/rollout-codex-tool.jsonl",
        );
        // A stream numbered by its own field `n`: 3 and 4 lost, 5 written twice.
        std::fs::write(
            home.join("events.ndjson"),
            "{\"n\":1,\"msg\":\"a\"}\n{\"n\":2,\"msg\":\"b\"}\n{\"n\":5,\"msg\":\"c\"}\n\
             {\"n\":5,\"msg\":\"c\"}\n{\"n\":6,\"msg\":\"d\"}\n",
        )
        .expect("write events.ndjson");
        for folder in [
            "bin",
            ".local/share/bash-completion/completions",
            ".zfunc",
            ".config/fish/completions",
        ] {
            std::fs::create_dir_all(home.join(folder)).expect("mkdir");
        }
        // `codex exec --json` prints a recorded capture the same way.
        let codex = home.join("bin/codex");
        std::fs::write(
            &codex,
            format!(
                "#!/bin/sh\nexec cat '{}'\n",
                root().join("testdata/codex/codex-tool.ndjson").display()
            ),
        )
        .expect("write the codex stand-in");
        let capture = root().join("testdata/claude/claude-tool.ndjson");
        let claude = home.join("bin/claude");
        std::fs::write(
            &claude,
            format!("#!/bin/sh\nexec cat '{}'\n", capture.display()),
        )
        .expect("write the claude stand-in");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the claude stand-in");
        std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the codex stand-in");
        // The system's opener (`report --open`) notes what it was given.
        for opener in ["xdg-open", "open"] {
            let path = home.join("bin").join(opener);
            std::fs::write(&path, "#!/bin/sh\necho \"$1\" > \"$HOME/opened.txt\"\n")
                .expect("write the opener stand-in");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("chmod the opener stand-in");
        }
        std::fs::create_dir_all(home.join("tmp")).expect("mkdir tmp");
        Home { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs an example's lines with `sh`, from this home, with this build's ndjq and the
    /// stand-ins first on PATH and nothing else of the caller's environment.
    fn run(&self, script: &str) -> Output {
        let bin_dir = ndjq_path().parent().expect("binary folder").to_path_buf();
        let path = format!(
            "{}:{}:{}",
            bin_dir.display(),
            self.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(self.path())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path())
            .env("TMPDIR", self.path().join("tmp"))
            .output()
            .expect("sh runs")
    }

    fn read(&self, rel: &str) -> String {
        String::from_utf8(common::read_file(&self.path().join(rel))).expect("UTF-8 file")
    }
}

/// NDJSON lines as JSON values.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Checks what one example did. Every example of every help must have a check here.
fn check_example(example: &str, home: &Home, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    let context = format!("example `{example}`\nstdout:\n{stdout}\nstderr:\n{stderr}");
    // A pipe never gets colour (but the status line, which Claude Code shows in colour).
    assert!(
        (!stdout.contains('\u{1b}') || example.ends_with("| ndjq statusline"))
            && !stderr.contains('\u{1b}'),
        "{context}"
    );
    match example {
        "ndjq validate run.ndjson" => {
            // run.ndjson holds a truncated line: an error, so exit status 1.
            assert_eq!(code, Some(1), "{context}");
            let lines = json_lines(&stdout);
            assert!(
                lines.iter().any(|d| d["code"] == "PROTO_TRUNCATED" && d["line"] == 9),
                "{context}"
            );
            let summary = &lines.last().expect("a summary line")["summary"];
            assert_eq!(summary["errors"], 1, "{context}");
        }
        "ndjq validate -f github run.ndjson" => {
            assert_eq!(code, Some(1), "{context}");
            assert!(
                stdout.contains("::error file=run.ndjson,line=9,col=180,title=PROTO_TRUNCATED::"),
                "{context}"
            );
        }
        "ndjq validate --fail-on warning ~/.claude/projects" => {
            // The session log is clean: not even a warning.
            assert_eq!(code, Some(0), "{context}");
            let lines = json_lines(&stdout);
            let summary = &lines.last().expect("a summary line")["summary"];
            assert_eq!(summary["files"], 1, "{context}");
            assert_eq!(summary["warnings"], 0, "{context}");
        }
        "ndjq gaps run.ndjson" => {
            // run.ndjson's broken lines are validate's business (stderr here); as a stream it
            // is whole: init, the Bash call answered, a result.
            assert_eq!(code, Some(0), "{context}");
            let lines = json_lines(&stdout);
            assert_eq!(lines.len(), 1, "only the summary: {context}");
            let summary = &lines[0]["summary"];
            assert_eq!(summary["records"], 12, "{context}");
            assert_eq!(summary["errors"], 0, "{context}");
            assert_eq!(summary["warnings"], 0, "{context}");
            assert!(stderr.contains("PROTO_TRUNCATED"), "{context}");
        }
        "ndjq gaps -f github logs/" => {
            // claude-error500.ndjson ends in an API error disguised as subtype success.
            assert_eq!(code, Some(1), "{context}");
            let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
            assert_eq!(
                annotations,
                ["::error file=logs/claude-error500.ndjson,line=13,title=SESS_ERROR_RESULT::\
                  SESS_ERROR_RESULT: the session ended in an error: is_error true (subtype \
                  `success`), api_error_status 500"],
                "{context}"
            );
        }
        "ndjq gaps --seq-field n -f text events.ndjson" => {
            assert_eq!(code, Some(1), "{context}");
            let lines: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("    |")).collect();
            assert_eq!(
                lines[..2],
                [
                    "events.ndjson:3: error[SEQ_GAP]: n jumps from 2 to 5: missing 3-4",
                    "events.ndjson:4: warning[SEQ_DUPLICATE]: n 5 repeated",
                ],
                "{context}"
            );
            assert!(lines[2].starts_with("5 records in 1 file"), "{context}");
        }
        "ndjq filter --type assistant run.ndjson" => {
            assert_eq!(code, Some(0), "{context}");
            assert_eq!(stdout.lines().count(), 4, "{context}");
            assert!(
                stdout.lines().all(|l| l.starts_with(r#"{"type":"assistant""#)),
                "{context}"
            );
        }
        "claude -p \"fix it\" --output-format stream-json --verbose | ndjq filter --type assistant" => {
            assert_eq!(code, Some(0), "{context}");
            let records = json_lines(&stdout);
            assert!(!records.is_empty(), "{context}");
            assert!(records.iter().all(|r| r["type"] == "assistant"), "{context}");
        }
        // The filter predicates, each against what the capture holds.
        "ndjq filter --where 'message.usage.output_tokens>100' \\\n  --print timestamp,message.usage.output_tokens,message.content.*.name session.jsonl" => {
            assert_eq!(code, Some(0), "{context}");
            assert_eq!(
                stdout,
                "2025-10-21T03:22:13.461Z\t210\t[\"Bash\"]\n\
                 2025-10-21T03:22:19.330Z\t294\t[\"Read\"]\n\
                 2025-10-21T03:22:58.789Z\t246\t[\"Read\"]\n",
                "{context}"
            );
        }
        "ndjq filter -i --grep 'error|fail' \\\n  --since 2025-10-21T03:20:00Z --until 2025-10-21T03:30:00Z session.jsonl" => {
            assert_eq!(code, Some(0), "{context}");
            let records = json_lines(&stdout);
            assert_eq!(records.len(), 2, "{context}");
            for r in &records {
                let text = r["message"]["content"].to_string().to_lowercase();
                assert!(text.contains("error") || text.contains("fail"), "{context}");
                let t = r["timestamp"].as_str().expect("a timestamp");
                assert!(t.starts_with("2025-10-21T03:2"), "{context}");
            }
        }
        "ndjq events run.ndjson" => {
            assert_eq!(code, Some(0), "{context}");
            let events = json_lines(&stdout);
            for kind in ["init", "text", "tool_use", "tool_result", "usage", "result"] {
                assert!(events.iter().any(|e| e["kind"] == kind), "{kind}: {context}");
            }
        }
        "ndjq events -f csv ~/.codex/sessions > events.csv" => {
            assert_eq!(code, Some(0), "{context}");
            let csv = home.read("events.csv");
            let mut rows = csv::Reader::from_reader(csv.as_bytes());
            let headers = rows.headers().expect("a header").clone();
            let first: Vec<&str> = headers.iter().take(4).collect();
            assert_eq!(first, ["line", "file", "session", "kind"]);
            let kinds: Vec<String> = rows
                .records()
                .map(|r| r.expect("a CSV row")[3].to_string())
                .collect();
            assert!(kinds.len() > 5, "{csv}");
            assert!(kinds.iter().any(|k| k == "tool_use"), "{csv}");
        }
        "claude -p \"hi\" --output-format stream-json --verbose | ndjq events -f text" => {
            assert_eq!(code, Some(0), "{context}");
            let lines: Vec<&str> = stdout.lines().collect();
            assert!(lines.iter().any(|l| l.starts_with("assistant ")), "{context}");
            assert!(lines.iter().any(|l| l.starts_with("tool      Bash ")), "{context}");
            let last = lines.last().expect("a summary line");
            assert!(last.starts_with("── ") && last.contains("1 tool call"), "{context}");
        }
        "ndjq stats run.ndjson" | "ndjq stats ~/.claude/projects" => {
            assert_eq!(code, Some(0), "{context}");
            let stats = json(&stdout);
            assert_eq!(stats["schema"], "ndjq.stats/2", "{context}");
            assert_eq!(stats["files"], 1, "{context}");
            assert!(stats["tokens"]["input"].as_u64() > Some(0), "{context}");
        }
        "ndjq stats --by model ~/.claude/projects" => {
            assert_eq!(code, Some(0), "{context}");
            let stats = json(&stdout);
            let groups = stats["groups"].as_array().expect("a groups list");
            assert!(!groups.is_empty(), "{context}");
        }
        "ndjq stats -f json --mergeable shard1/ > a.json\n\
         ndjq stats -f json --mergeable shard2/ > b.json\n\
         ndjq stats --merge a.json b.json" => {
            assert_eq!(code, Some(0), "{context}");
            // What the example promises: the same as one run over both.
            let one = home.run("ndjq stats -f json shard1/ shard2/");
            assert!(one.status.success());
            assert_eq!(
                json(&stdout),
                json(&String::from_utf8_lossy(&one.stdout)),
                "{context}"
            );
        }
        "ndjq report --open ~/.claude/projects" => {
            assert_eq!(code, Some(0), "{context}");
            // Not HTML on stdout: the path of a new file in the temporary folder, opened.
            let path = stdout.trim();
            assert!(path.starts_with(&format!("{}/tmp/ndjq-report-", home.path().display())));
            assert!(std::fs::read_to_string(path)
                .expect("the page")
                .starts_with("<!DOCTYPE html>"));
            // The opener runs in the background: wait for its note.
            let mut opened = String::new();
            for _ in 0..100 {
                opened = std::fs::read_to_string(home.path().join("opened.txt")).unwrap_or_default();
                if !opened.is_empty() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            assert_eq!(opened.trim(), path, "{context}");
        }
        "ndjq report --since 2026-11-01 --until 2026-11-30 --transcripts \\\n  -o november.html ~/.codex/sessions" => {
            assert_eq!(code, Some(0), "{context}");
            assert!(stdout.is_empty(), "{context}");
            let page = home.read("november.html");
            assert!(page.contains("<article class=\"transcript\""), "{context}");
            assert!(page.contains("2026-11-22"), "{context}");
        }
        "ndjq report -o session.html session.jsonl" => {
            assert_eq!(code, Some(0), "{context}");
            let page = home.read("session.html");
            assert_eq!(page.matches("<article class=\"transcript\"").count(), 1, "{context}");
        }
        "ndjq run -- claude -p \"fix it\" --output-format stream-json --verbose" => {
            assert_eq!(code, Some(0), "{context}");
            let capture = common::read_file(&root().join("testdata/claude/claude-tool.ndjson"));
            assert_eq!(stdout.as_bytes(), &capture[..], "{context}");
        }
        "ndjq run -f text --idle-timeout 300 -- claude -p \"fix it\" --output-format stream-json --verbose" => {
            assert_eq!(code, Some(0), "{context}");
            assert!(stdout.lines().any(|l| l.starts_with("tool      Bash ")), "{context}");
            assert!(stdout.lines().last().is_some_and(|l| l.starts_with("── ")), "{context}");
        }
        "ndjq stats --tee run.ndjson -- codex exec --json \"fix it\"" => {
            assert_eq!(code, Some(0), "{context}");
            let stats = json(&stdout);
            assert_eq!(stats["sessions"], 1, "{context}");
            assert!(stats["tools"]["command_execution"]["calls"].as_u64() > Some(0), "{context}");
            let capture = common::read_file(&root().join("testdata/codex/codex-tool.ndjson"));
            assert_eq!(home.read("run.ndjson").as_bytes(), &capture[..], "{context}");
        }
        "echo '{\"model\":{\"display_name\":\"Opus\"},\"cost\":{\"total_cost_usd\":0.42}}' \\\n  | ndjq statusline" => {
            assert_eq!(code, Some(0), "{context}");
            // Coloured, as Claude Code shows it, on one line.
            assert_eq!(stdout.lines().count(), 1, "{context}");
            assert!(stdout.contains("\x1b["), "{context}");
            assert!(stdout.contains("Opus") && stdout.contains("$0.42"), "{context}");
            assert!(stdout.contains(" today"), "{context}");
        }
        "echo '{\"context_window\":{\"used_percentage\":37}}' \\\n  | ndjq statusline --color never --format '{today_cost} today, context {context}'" => {
            assert_eq!(code, Some(0), "{context}");
            assert!(!stdout.contains('\x1b'), "{context}");
            assert!(stdout.ends_with(" today, context ctx 37%\n"), "{context}");
            assert!(stdout.starts_with('$'), "{context}");
        }
        "ndjq stats --cache ~/.claude/projects" => {
            assert_eq!(code, Some(0), "{context}");
            let plain = home.run("ndjq stats ~/.claude/projects");
            assert_eq!(
                json(&stdout),
                json(&String::from_utf8_lossy(&plain.stdout)),
                "{context}"
            );
            assert!(home.path().join(".cache/ndjq").is_dir(), "{context}");
        }
        "ndjq man | man -l -" => {
            // man(1) may be missing (CI): then only ndjq's half can be checked.
            if code == Some(127) || stderr.contains("not found") {
                let page = home.run("ndjq man");
                assert!(String::from_utf8_lossy(&page.stdout).starts_with(".ie"));
            } else {
                assert_eq!(code, Some(0), "{context}");
                assert!(stdout.contains("NDJQ(1)") && stdout.contains("EXAMPLES"), "{context}");
            }
        }
        "ndjq man --dir ~/.local/share/man/man1" => {
            assert_eq!(code, Some(0), "{context}");
            let pages = files_of(&home.path().join(".local/share/man/man1"));
            assert_eq!(pages, files_of(&root().join("man")), "the committed pages");
        }
        "ndjq completions bash > ~/.local/share/bash-completion/completions/ndjq" => {
            assert_eq!(code, Some(0), "{context}");
            let path = home.path().join(".local/share/bash-completion/completions/ndjq");
            let parse = Command::new("bash").arg("-n").arg(&path).status();
            assert!(parse.expect("bash runs").success(), "bash -n {}", path.display());
        }
        "ndjq completions zsh > ~/.zfunc/_ndjq" => {
            assert_eq!(code, Some(0), "{context}");
            assert!(home.read(".zfunc/_ndjq").starts_with("#compdef ndjq"));
        }
        "ndjq completions fish > ~/.config/fish/completions/ndjq.fish" => {
            assert_eq!(code, Some(0), "{context}");
            assert!(home
                .read(".config/fish/completions/ndjq.fish")
                .contains("complete -c ndjq"));
        }
        other => panic!("no check for the help example `{other}`: add one to check_example"),
    }
}

#[test]
fn every_help_example_runs_and_does_what_it_says() {
    let mut helps = vec![stdout_of(&["--help"])];
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        helps.push(stdout_of(&[command, "--help"]));
    }
    let mut ran = 0;
    for help in &helps {
        for ex in examples_in(help) {
            let home = Home::new();
            let out = home.run(&ex.run);
            check_example(&ex.run, &home, &out);
            ran += 1;
        }
    }
    assert_eq!(
        ran, 32,
        "3 top-level examples, 3 for each command but man's 2"
    );
}

// ---- helpful errors ----

/// (stderr, exit code) of `ndjq ARGS`, with `stdin` on standard input.
fn fails(args: &[&str], stdin: &str) -> (String, Option<i32>) {
    let out = ndjq()
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("ndjq runs");
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn a_file_that_does_not_exist_is_named_with_the_reason() {
    let (stderr, code) = fails(&["filter", "--color", "never", "no-such.ndjson"], "");
    assert_eq!(stderr, "ndjq: no-such.ndjson: No such file or directory\n");
    assert_eq!(code, Some(2));
    // The other inputs are still read (like grep): the error only sets the status.
    let out = ndjq()
        .args(["filter", "-c", "--color", "never", "no-such.ndjson"])
        .arg("testdata/claude/claude-tool.ndjson")
        .output()
        .expect("ndjq runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6\n");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_folder_with_no_logs_says_what_was_looked_for() {
    let tmp = tempdir();
    common::write_file(tmp.path(), "notes.txt", b"not a log\n");
    let dir = tmp.path().display().to_string();
    let (stderr, code) = fails(&["stats", "--color", "never", &dir], "");
    assert_eq!(
        stderr,
        format!("ndjq: {dir}: no *.jsonl, *.ndjson or *.json files (or .gz/.zst) in this folder\n")
    );
    assert_eq!(code, Some(2));
}

#[test]
fn a_type_no_dialect_knows_gets_the_closest_suggested_and_filtering_goes_on() {
    let out = ndjq()
        .args(["filter", "--color", "never", "--type", "asistant"])
        .arg("testdata/claude/claude-tool.ndjson")
        .output()
        .expect("ndjq runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ndjq: warning: no dialect knows type `asistant`; did you mean `assistant`?\n"
    );
    // It still ran: nothing has that type, as in grep, status 1.
    assert!(out.stdout.is_empty());
    assert_eq!(out.status.code(), Some(1));
    // A type of some other stream, close to no known one, is taken as meant, silently.
    let (stderr, code) = fails(
        &["filter", "--color", "never", "--type", "heartbeat"],
        "{\"type\":\"heartbeat\"}\n",
    );
    assert_eq!((stderr.as_str(), code), ("", Some(0)));
    // -q: no warning either.
    let (stderr, _) = fails(
        &[
            "filter",
            "-q",
            "--type",
            "reslt",
            "testdata/claude/claude-tool.ndjson",
        ],
        "",
    );
    assert_eq!(stderr, "");
}

#[test]
fn stdin_given_twice_is_refused() {
    let (stderr, code) = fails(&["validate", "-", "-"], "{}\n");
    assert_eq!(
        stderr,
        "ndjq: `-` (stdin) is given 2 times; stdin can be read only once\n"
    );
    assert_eq!(code, Some(2));
}

#[test]
fn incompatible_flags_are_named_both() {
    for (args, message) in [
        (
            &["filter", "--valid", "--invalid"][..],
            "error: the argument '--valid' cannot be used with '--invalid'",
        ),
        (
            &["filter", "--count", "--normalize"][..],
            "error: the argument '--count' cannot be used with '--normalize'",
        ),
        (
            &["filter", "-f", "csv"][..],
            "error: the following required arguments were not provided:\n  --normalize",
        ),
        (
            &["completions", "tcsh"][..],
            "error: invalid value 'tcsh' for '[SHELL]'\n  [possible values: bash, elvish, fish, powershell, zsh]",
        ),
    ] {
        let (stderr, code) = fails(args, "");
        assert!(stderr.starts_with(message), "ndjq {args:?}:\n{stderr}");
        assert!(stderr.contains("try '--help'"), "ndjq {args:?}:\n{stderr}");
        assert_eq!(code, Some(2), "ndjq {args:?}");
    }
}

// The wrapped command's "command not found" (`ndjq run -- CMD`, docs/GUIDE.md, "`ndjq run`:
// supervise a live agent") is tested in tests/it/run.rs.

// ---- colour ----

#[test]
fn no_colour_codes_in_pipes_or_files_unless_forced() {
    let commands = [
        "ndjq validate -f text run.ndjson",
        "ndjq filter --type assistant run.ndjson",
        "ndjq events -f text run.ndjson",
        "ndjq stats -f text run.ndjson",
    ];
    let home = Home::new();
    for command in commands {
        // --color auto (the default), stdout and stderr pipes.
        let out = home.run(command);
        let all = [out.stdout, out.stderr].concat();
        assert!(!all.is_empty(), "{command} printed something");
        assert!(!all.contains(&0x1b), "{command}: colour in a pipe");
        // Both into files.
        let out = home.run(&format!("{command} > out.txt 2> err.txt"));
        assert!(out.status.code().is_some());
        let files = [home.read("out.txt"), home.read("err.txt")].concat();
        assert!(!files.contains('\u{1b}'), "{command}: colour in a file");
    }
    // CLICOLOR_FORCE turns colour on where it would be off: the check above can fail.
    let forced = home.run("CLICOLOR_FORCE=1 ndjq events -f text run.ndjson 2>&1");
    assert!(
        forced.stdout.contains(&0x1b),
        "CLICOLOR_FORCE colours a pipe"
    );
}
