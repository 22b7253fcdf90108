//! Numbers that must be true under hostile input (merge of any split, grouped rows adding
//! up, usage written oddly, absurd price tables), `--grep`/`--print` as documented, `gaps`
//! on a cut Claude session, and `run` restarting an agent that stalled before printing
//! anything. One test per case, named after what it holds.

use crate::common;

use common::{ndjq, ndjq_sub, read_file, tempdir, write_file};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("JSON output")
}

#[test]
fn an_agent_stalling_before_printing_is_started_again() {
    let dir = tempdir();
    let log = dir.path().join("starts");
    let out = ndjq()
        .args([
            "stats",
            "--color",
            "never",
            "-f",
            "json",
            "--idle-timeout",
            "1",
        ])
        .arg("--")
        .arg(repo("tests/agents/claude"))
        .args(["-p", "fix it", "--output-format", "stream-json"])
        .env(
            "FAKE_AGENT_CAPTURE",
            repo("testdata/claude/claude-tool.ndjson"),
        )
        .env("FAKE_AGENT", "hang")
        .env("FAKE_AGENT_AGAIN", "replay")
        .env("FAKE_AGENT_LOG", &log)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let starts: Vec<Vec<String>> = String::from_utf8_lossy(&read_file(&log))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON list per start"))
        .collect();
    // The same command line twice: nothing was printed, so there was nothing to resume.
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert_eq!(starts[0], starts[1]);
    let stats = json_of(&out.stdout);
    assert_eq!(stats["diagnostics"]["PROC_STALLED"], 1, "{stats}");
    assert_eq!(stats["diagnostics"]["PROC_RESTARTED"], 1, "{stats}");
    assert!(
        stats["diagnostics"].get("PROC_GAVE_UP").is_none(),
        "{stats}"
    );
    assert!(stats["lines"].as_u64().unwrap_or(0) > 0, "{stats}");
}

#[test]
fn rows_by_time_add_up_to_the_lines_and_tokens() {
    let dir = tempdir();
    let input = write_file(
        dir.path(),
        "d.jsonl",
        br#"{"type":"assistant","session_id":"s1","timestamp":"2025-01-01T10:00:00Z","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":100,"output_tokens":10}}}
{"type":"assistant","session_id":"s1","message":{"id":"m2","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":200,"output_tokens":20}}}
not json
{"type":"result","session_id":"s1","subtype":"success"}
{"type":"assistant","session_id":"s1","timestamp":"2025-02-03T12:00:00Z","message":{"id":"m3","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}
"#,
    );
    for by in ["day", "week", "month", "block"] {
        let out = ndjq_sub("stats")
            .args(["-f", "json", "--by", by])
            .arg(&input)
            .output()
            .expect("stats");
        let stats = json_of(&out.stdout);
        let groups = stats["groups"].as_array().expect("groups");
        let records: u64 = groups
            .iter()
            .map(|g| g["records"].as_u64().unwrap_or(0))
            .sum();
        let input_tokens: u64 = groups
            .iter()
            .map(|g| g["tokens"]["input"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(
            records,
            stats["lines"].as_u64().unwrap_or(0),
            "--by {by}: {groups:?}"
        );
        assert_eq!(
            input_tokens,
            stats["tokens"]["input"].as_u64().unwrap_or(0),
            "--by {by}"
        );
        let none = groups
            .iter()
            .find(|g| g["key"] == "(none)")
            .expect("a (none) row");
        // The record without a time, the text line and the result: three, holding m2's 200.
        assert_eq!(none["records"], 3, "--by {by}: {none}");
        assert_eq!(none["tokens"]["input"], 200, "--by {by}: {none}");
    }
}

#[test]
fn usage_written_oddly_is_counted_or_named_in_a_warning() {
    let dir = tempdir();
    let input = write_file(
        dir.path(),
        "u.jsonl",
        br#"{"type":"assistant","session_id":"s1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1e3,"output_tokens":100.0}}}
{"type":"assistant","session_id":"s1","message":{"id":"m2","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":"100","output_tokens":-5}}}
{"type":"assistant","session_id":"s1","message":{"id":"m3","model":"claude-sonnet-4-5","content":[],"usage":{"cache_read_input_tokens":18446744073709551616,"cache_creation_input_tokens":1.5}}}
"#,
    );
    let out = ndjq_sub("stats")
        .args(["-f", "json"])
        .arg(&input)
        .output()
        .expect("stats");
    let stats = json_of(&out.stdout);
    assert_eq!(stats["tokens"]["input"], 1000, "{stats}");
    assert_eq!(stats["tokens"]["output"], 100, "{stats}");
    assert_eq!(stats["diagnostics"]["PROTO_SCHEMA"], 4, "{stats}");
    let out = ndjq_sub("validate").arg(&input).output().expect("validate");
    let stderr = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for field in [
        "message.usage.input_tokens` should be a count",
        "message.usage.output_tokens` should be a count",
        "message.usage.cache_read_input_tokens` should be a count",
        "message.usage.cache_creation_input_tokens` should be a count",
    ] {
        assert!(stderr.contains(field), "{field}: {stderr}");
    }
    assert!(stderr.contains("found string"), "{stderr}");
    // Codex exec: `2E2` is 200; a string count is named too.
    let codex = write_file(
        dir.path(),
        "c.jsonl",
        br#"{"type":"thread.started","thread_id":"t1"}
{"type":"turn.started"}
{"type":"turn.completed","usage":{"input_tokens":2E2,"cached_input_tokens":"7","output_tokens":3}}
"#,
    );
    let out = ndjq_sub("stats")
        .args(["-f", "json"])
        .arg(&codex)
        .output()
        .expect("stats");
    let stats = json_of(&out.stdout);
    assert_eq!(stats["tokens"]["input"], 200, "{stats}");
    assert_eq!(stats["diagnostics"]["PROTO_SCHEMA"], 1, "{stats}");
}

#[test]
fn grep_takes_a_comma_literally_and_print_splits_outside_brackets() {
    let dir = tempdir();
    let input = write_file(
        dir.path(),
        "p.jsonl",
        br#"{"type":"user","session_id":"s","message":{"role":"user","content":"an error,fail here"},"a,b":1,"c":2}
{"type":"user","session_id":"s","message":{"role":"user","content":"an error only"},"a,b":3,"c":4}
"#,
    );
    // --grep: a regex, commas and all (docs/REFERENCE.md); repeat it for several.
    let out = ndjq_sub("filter")
        .args(["-c", "--grep", "error,fail"])
        .arg(&input)
        .output()
        .expect("filter");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
    let out = ndjq_sub("filter")
        .args(["-c", "--grep", "only", "--grep", "fail"])
        .arg(&input)
        .output()
        .expect("filter");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
    for doc in ["docs/REFERENCE.md", "docs/GUIDE.md"] {
        let text = String::from_utf8_lossy(&read_file(&repo(doc))).to_string();
        assert!(!text.contains("repeat or comma-list"), "{doc}");
    }
    // --print: a comma inside brackets is part of the key.
    let out = ndjq_sub("filter")
        .args(["--print", r#"["a,b"],c"#])
        .arg(&input)
        .output()
        .expect("filter");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\t2\n3\t4\n");
    // An error quotes the whole expression, the caret under the fault in it.
    let out = ndjq_sub("filter")
        .args(["--print", "c,x..y"])
        .arg(&input)
        .output()
        .expect("filter");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("\"c,x..y\""), "{stderr}");
    assert!(stderr.contains("\n    c,x..y\n        ^"), "{stderr}");
}

#[test]
fn a_claude_session_cut_off_by_another_init_has_no_result() {
    let dir = tempdir();
    let input = write_file(
        dir.path(),
        "g.jsonl",
        br#"{"type":"system","subtype":"init","session_id":"A"}
{"type":"assistant","session_id":"A","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}
{"type":"system","subtype":"init","session_id":"B"}
{"type":"result","subtype":"success","session_id":"B"}
{"type":"system","subtype":"init","session_id":"C"}
{"type":"system","subtype":"init","session_id":"C"}
{"type":"result","subtype":"success","session_id":"C"}
"#,
    );
    let out = ndjq_sub("gaps")
        .args(["-f", "json"])
        .arg(&input)
        .output()
        .expect("gaps");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let found: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("code").is_some())
        .collect();
    // Only A is cut off: C's second init is the same session again.
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!(found[0]["code"], "SESS_NO_RESULT");
    assert_eq!(found[0]["line"], 1);
}

#[test]
fn restart_cmd_help_names_the_agents_resumed_built_in() {
    let out = ndjq().args(["run", "--help"]).output().expect("help");
    let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!help.contains("other than claude and codex"), "{help}");
    assert!(
        help.contains(
            "claude, codex, gemini, qwen, cursor-agent and opencode are resumed built in"
        ),
        "{help}"
    );
    let guide = String::from_utf8_lossy(&read_file(&repo("docs/GUIDE.md"))).to_string();
    assert!(
        !guide.contains("anything else with\n`--restart-cmd"),
        "GUIDE.md"
    );
    assert!(guide.contains("Gemini CLI, Qwen Code and Cursor with `--resume <id>`"));
}

/// `stats -f json` of `paths` (with `extra` flags), as JSON.
fn stats_json_of(paths: &[PathBuf], extra: &[&str]) -> Value {
    let out = ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .args(extra)
        .args(paths)
        .output()
        .expect("stats");
    json_of(&out.stdout)
}

/// What a merge must keep of the whole: tokens, cost, models, sessions, tools.
fn merge_key(v: &Value) -> Value {
    serde_json::json!({
        "tokens": v["tokens"], "cost_usd": v["cost_usd"], "models": v["models"],
        "sessions": v["sessions"], "tools": v["tools"], "turns": v["turns"],
    })
}

/// `stats --merge` of the parts of `bytes` cut at `cuts` (line indexes), each part's
/// stats made with `extra`.
fn merged_parts(dir: &Path, lines: &[&[u8]], cuts: &[usize], extra: &[&str]) -> Value {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(lines.len());
    let mut reports = Vec::new();
    for (n, w) in bounds.windows(2).enumerate() {
        let part = write_file(dir, &format!("part{n}.jsonl"), &lines[w[0]..w[1]].concat());
        let report = stats_json_of(&[part], &[extra, &["--mergeable"]].concat());
        reports.push(write_file(
            dir,
            &format!("part{n}.json"),
            report.to_string().as_bytes(),
        ));
    }
    stats_json_of(&reports, &["--merge"])
}

#[test]
fn merge_of_a_split_codex_rollout_keeps_model_and_cost() {
    let dir = tempdir();
    // A rollout of two sessions (the real capture, then it again under another id):
    // cumulative token counts in both, each session's model in its turn_context.
    let one = read_file(&repo("testdata/codex-log/codex-tool.session-log.jsonl"));
    let first: Value = serde_json::from_slice(one.split(|b| *b == b'\n').next().expect("a line"))
        .expect("session_meta");
    let id = first["payload"]["id"]
        .as_str()
        .expect("session id")
        .to_string();
    let other = String::from_utf8_lossy(&one).replace(&id, "11111111-2222-3333-4444-555555555555");
    let mut both = one.clone();
    both.extend_from_slice(other.as_bytes());
    let whole_path = write_file(dir.path(), "rollout.jsonl", &both);
    let whole = stats_json_of(&[whole_path], &[]);
    assert_eq!(whole["sessions"], 2);
    assert!(
        whole["cost_usd"].as_f64().is_some_and(|c| c > 0.0),
        "{whole}"
    );
    let lines: Vec<&[u8]> = both.split_inclusive(|b| *b == b'\n').collect();
    for cut in 1..lines.len() {
        let merged = merged_parts(dir.path(), &lines, &[cut], &[]);
        assert_eq!(merge_key(&merged), merge_key(&whole), "split at line {cut}");
    }
    for cuts in [[3, 30], [10, 25], [21, 22], [5, 12], [25, 30]] {
        let merged = merged_parts(dir.path(), &lines, &cuts, &[]);
        assert_eq!(merge_key(&merged), merge_key(&whole), "split at {cuts:?}");
    }
}

#[test]
fn merge_of_any_split_of_the_real_captures_equals_the_whole() {
    let dir = tempdir();
    let mut files: Vec<PathBuf> = Vec::new();
    for folder in [
        "testdata/claude-log",
        "testdata/other-agents/real-client",
        "testdata/other-agents/copilot",
        "testdata/other-agents/cursor",
        "testdata/other-agents/gemini",
        "testdata/other-agents/opencode",
    ] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(repo(folder))
            .expect("folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "ndjson"))
            .collect();
        found.sort();
        files.extend(found);
    }
    assert!(files.len() >= 20, "{files:?}");
    for file in files {
        let bytes = read_file(&file);
        let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
        // A pretty-printed document (Gemini's `-o json`) is one record: no line splits it.
        if lines.first().is_some_and(|l| l.trim_ascii() == b"{") {
            continue;
        }
        // A Qwen stream's lines after its init look like Claude's: a part without the
        // init needs the dialect named (docs/REFERENCE.md, stats --merge).
        let name = file.display().to_string();
        let extra: &[&str] = if name.contains("qwen") {
            &["--dialect", "qwen"]
        } else {
            &[]
        };
        let whole = stats_json_of(std::slice::from_ref(&file), extra);
        // Every line boundary of a short capture, a few of a long one.
        let cuts: Vec<usize> = if lines.len() <= 30 {
            (1..lines.len()).collect()
        } else {
            vec![1, lines.len() / 3, lines.len() / 2, lines.len() - 1]
        };
        for cut in cuts {
            let merged = merged_parts(dir.path(), &lines, &[cut], extra);
            assert_eq!(
                merge_key(&merged),
                merge_key(&whole),
                "{name} split at {cut}"
            );
        }
    }
}

#[test]
fn absurd_price_tables_are_refused_and_a_merge_across_tables_is_noted() {
    let dir = tempdir();
    let input = repo("testdata/codex-log/codex-tool.session-log.jsonl");
    for (name, entry, field) in [
        (
            "huge",
            r#"{"input_cost_per_token":1e308,"output_cost_per_token":1e-6}"#,
            "input_cost_per_token",
        ),
        (
            "negative",
            r#"{"input_cost_per_token":1e-6,"output_cost_per_token":-1e-6}"#,
            "output_cost_per_token",
        ),
        (
            "absurd",
            r#"{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6,"cache_read_input_token_cost":0.5}"#,
            "cache_read_input_token_cost",
        ),
        (
            "text",
            r#"{"input_cost_per_token":"0.000001","output_cost_per_token":1e-6}"#,
            "input_cost_per_token",
        ),
    ] {
        let table = write_file(
            dir.path(),
            &format!("{name}.json"),
            format!(r#"{{"gpt-5.5":{entry}}}"#).as_bytes(),
        );
        let out = ndjq_sub("stats")
            .args(["-f", "json", "--pricing"])
            .arg(&table)
            .arg(&input)
            .output()
            .expect("stats");
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("model `gpt-5.5`"), "{name}: {stderr}");
        assert!(stderr.contains(&format!("`{field}`")), "{name}: {stderr}");
    }
    // A part priced with another table: the merge prices it again, and says so.
    let table = write_file(
        dir.path(),
        "mine.json",
        br#"{"gpt-5.5":{"input_cost_per_token":2e-6,"output_cost_per_token":1e-5}}"#,
    );
    let out = ndjq_sub("stats")
        .args(["-f", "json", "--mergeable", "--pricing"])
        .arg(&table)
        .arg(&input)
        .output()
        .expect("stats");
    let part = write_file(dir.path(), "part.json", &out.stdout);
    let out = ndjq_sub("stats")
        .args(["-f", "json", "--merge"])
        .arg(&part)
        .output()
        .expect("merge");
    let merged = json_of(&out.stdout);
    let parts_pricing = merged["parts_pricing"].as_array().expect("parts_pricing");
    assert_eq!(parts_pricing.len(), 1, "{merged}");
    assert!(parts_pricing[0]
        .as_str()
        .is_some_and(|p| p.ends_with("mine.json")));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: parts priced with") && stderr.contains("mine.json"),
        "{stderr}"
    );
    // The same table: nothing to note.
    let out = ndjq_sub("stats")
        .args(["-f", "json", "--merge", "--pricing"])
        .arg(&table)
        .arg(&part)
        .output()
        .expect("merge");
    assert!(json_of(&out.stdout).get("parts_pricing").is_none());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("note:"));
}

/// The tokens of an `events -f text` closing line: in, out, cache read, cache write.
fn summary_tokens(text: &str) -> [u64; 4] {
    let last = text.lines().last().unwrap_or_default();
    let part = last
        .split(" · ")
        .find(|p| p.starts_with("tokens "))
        .unwrap_or_else(|| panic!("no tokens in {last:?}"));
    let numbers: Vec<u64> = part
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter(|w| !w.is_empty() && *w != ",")
        .map(|w| w.replace(',', "").parse().expect("a number"))
        .collect();
    [numbers[0], numbers[1], numbers[2], numbers[3]]
}

/// A Claude stream of `n` assistant lines, message `shared` repeated every `every` lines
/// with a growing snapshot (the last one is what counts).
fn claude_stream(n: usize, every: usize, session: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let pad = "x".repeat(300);
    for i in 0..n {
        let (id, input) = if i % every == 0 {
            ("msg_shared".to_string(), 100 + i as u64)
        } else {
            (format!("msg_{session}_{i}"), 3)
        };
        out.extend_from_slice(
            format!(
                r#"{{"type":"assistant","session_id":"{session}","message":{{"id":"{id}","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"{pad}"}}],"usage":{{"input_tokens":{input},"output_tokens":2,"cache_read_input_tokens":5}}}}}}"#
            )
            .as_bytes(),
        );
        out.push(b'\n');
    }
    out
}

#[test]
fn a_message_id_shared_across_a_block_boundary_counts_once_on_every_j() {
    let dir = tempdir();
    // ~2.4 MiB each: blocks of 1 MiB cut both; the shared id is on both sides of each cut
    // and in both inputs.
    let a = write_file(dir.path(), "a.jsonl", &claude_stream(5000, 700, "s1"));
    let b = write_file(dir.path(), "b.jsonl", &claude_stream(5000, 900, "s2"));
    let stats = stats_json_of(&[a.clone(), b.clone()], &[]);
    let want = [
        stats["tokens"]["input"].as_u64().expect("input"),
        stats["tokens"]["output"].as_u64().expect("output"),
        stats["tokens"]["cache_read"].as_u64().expect("cache_read"),
        stats["tokens"]["cache_creation"]
            .as_u64()
            .expect("cache_creation"),
    ];
    let cost = stats["cost_usd"].as_f64().expect("a cost");
    for j in ["1", "2", "4"] {
        let out = ndjq_sub("events")
            .args(["-q", "-f", "text", "-j", j])
            .arg(&a)
            .arg(&b)
            .output()
            .expect("events");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(summary_tokens(&text), want, "-j {j}");
        let last = text.lines().last().unwrap_or_default();
        assert!(last.contains(&format!("cost ${cost:.4}")), "-j {j}: {last}");
    }
}

#[test]
fn the_transcript_summary_is_the_billing_of_stats() {
    // A restarted agent's replay, a result with the session's billed totals and a Codex
    // rollout: the closing line says what `stats` says.
    let inputs = [
        repo("testdata/claude/claude-tool.ndjson"),
        repo("testdata/codex-log/codex-tool.session-log.jsonl"),
        repo("testdata/claude-log/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl"),
    ];
    let stats = stats_json_of(&inputs, &[]);
    let out = ndjq_sub("events")
        .args(["-q", "-f", "text"])
        .args(&inputs)
        .output()
        .expect("events");
    let text = String::from_utf8_lossy(&out.stdout);
    let got = summary_tokens(&text);
    assert_eq!(
        got[0],
        stats["tokens"]["input"].as_u64().unwrap_or(0),
        "{text}"
    );
    assert_eq!(got[1], stats["tokens"]["output"].as_u64().unwrap_or(0));
    assert_eq!(got[2], stats["tokens"]["cache_read"].as_u64().unwrap_or(0));
    assert_eq!(
        got[3],
        stats["tokens"]["cache_creation"].as_u64().unwrap_or(0)
    );
    let cost = stats["cost_usd"].as_f64().expect("a cost");
    assert!(text.contains(&format!("cost ${cost:.4}")), "{text}");
}

#[test]
fn adversarial_a_negative_reported_cost_is_not_taken_off_the_total() {
    let dir = tempdir();
    let input = write_file(
        dir.path(),
        "neg.jsonl",
        br#"{"type":"result","subtype":"success","session_id":"s1","total_cost_usd":2.5,"usage":{"input_tokens":1,"output_tokens":1}}
{"type":"result","subtype":"success","session_id":"s2","total_cost_usd":-5,"usage":{"input_tokens":1,"output_tokens":1}}
"#,
    );
    let stats = stats_json_of(&[input], &["--cost", "reported"]);
    assert_eq!(stats["cost_usd_reported"], 2.5, "{stats}");
    assert_eq!(stats["diagnostics"]["PROTO_SCHEMA"], 1, "{stats}");
}
