//! The same figures however the inputs are given: a file twice, a folder, random splits
//! merged, threads, the compact store.

use super::*;

#[test]
fn same_file_twice_counts_sessions_tokens_cost_and_tools_once() {
    let mut d = Vec::new();
    for f in [
        "real-client/claude-tool.ndjson",
        "real-client/claude-multi_tool.ndjson",
        "automagik/manual_test_output.jsonl",
        "spotter/tool_heavy.jsonl",
        "agentcmd/claude-transcript/full-session-four.jsonl",
        "real-client/codex-tool.session-log.jsonl",
        "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
    ] {
        d.extend(twice_diffs(&corpus_file(f)));
    }
    assert_no_diffs("the same file twice", &d);
}

#[test]
fn same_codex_exec_file_twice_counts_its_session_once() {
    // The stats rule "the same session logged twice is counted once" — also for codex exec,
    // whose usage lives on turn.completed lines.
    let mut d = Vec::new();
    for f in [
        "real-client/codex-tool.ndjson",
        "agentcmd/codex-exec/stream-output-5.jsonl",
    ] {
        d.extend(twice_diffs(&corpus_file(f)));
    }
    assert_no_diffs("the same codex exec file twice", &d);
}

#[test]
fn folder_input_equals_its_files() {
    // A small folder: the same report as its files listed in the walk order.
    let dir = corpus().join("real-client");
    let files = walk(&dir);
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let folder = stats_json(&[&dir]);
    // README.md, *.rc and *.stderr are not NDJSON files: only the 12 captures are read.
    assert_eq!(folder.files, 12);
    assert_eq!(folder.files, files.len() as u64);
    assert_no_diffs(
        "real-client as a folder vs as a list of files",
        &report_diffs(&stats_json(&refs), &folder, true),
    );
    assert_no_diffs(
        "real-client as a folder vs the documented rules",
        &spec_diffs(&expected("real-client", &refs), &folder),
    );
    // The whole corpus as one run: sessions, messages and tool ids shared between files
    // (a transcript and its subagents, a capture and its session log) count once.
    let dir = corpus();
    let files = corpus_files();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let folder = stats_json(&[&dir]);
    assert_eq!(folder.files, files.len() as u64);
    assert_no_diffs(
        "the corpus as a folder vs the documented rules",
        &spec_diffs(&expected("corpus", &refs), &folder),
    );
}

// ---------------------------------------------------------------------------------------
// 4. Merge
// ---------------------------------------------------------------------------------------

/// xorshift64: a small deterministic PRNG, so every failure can be replayed by its seed.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Splits `bytes` at 1 to 4 random line boundaries: 2 to 5 non-empty parts (fewer when
/// the file has fewer lines).
/// Where a file may be cut: after any line, or only where a Codex session starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cuts {
    AnyLine,
    SessionStarts,
}

/// Byte offsets where a part may begin.
fn cut_points(bytes: &[u8], cuts: Cuts) -> Vec<usize> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let ok = match cuts {
            Cuts::AnyLine => true,
            Cuts::SessionStarts => serde_json::from_slice::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
                .is_some_and(|t| t == "thread.started" || t == "session_meta"),
        };
        if ok && start > 0 {
            out.push(start);
        }
        start += line.len();
    }
    out
}

fn split_lines(bytes: &[u8], rng: &mut XorShift, cuts: Cuts) -> Vec<Vec<u8>> {
    let ends = cut_points(bytes, cuts);
    assert!(!ends.is_empty(), "nowhere to split");
    let parts = (2 + rng.below(4)).min(ends.len() + 1);
    let mut cuts: Vec<usize> = Vec::new();
    while cuts.len() + 1 < parts {
        let c = ends[rng.below(ends.len())];
        if !cuts.contains(&c) {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        out.push(bytes[start..c].to_vec());
        start = c;
    }
    out
}

const BYS: [Option<&str>; 9] = [
    None,
    Some("session"),
    Some("model"),
    Some("tool"),
    Some("type"),
    Some("day"),
    Some("week"),
    Some("project"),
    Some("block"),
];

fn by_args(by: Option<&str>) -> Vec<String> {
    by.map(|b| vec!["--by".to_string(), b.to_string()])
        .unwrap_or_default()
}

/// Writes each part and its `stats -f json` (with `--by`); returns the part files and the
/// stats files.
fn part_stats(dir: &Path, parts: &[Vec<u8>], by: Option<&str>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let tag = by.unwrap_or("none");
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let input = dir.join(format!("part{i}.ndjson"));
        std::fs::write(&input, part).expect("write a part");
        let mut args = vec![
            "-q".to_string(),
            "-f".into(),
            "json".into(),
            "--mergeable".into(),
        ];
        args.extend(by_args(by));
        args.push(input.display().to_string());
        let output = dir.join(format!("part{i}.{tag}.json"));
        std::fs::write(&output, stats_stdout(&args)).expect("write part stats");
        inputs.push(input);
        outputs.push(output);
    }
    (inputs, outputs)
}

fn merge_json(files: &[PathBuf], by: Option<&str>) -> String {
    // Mergeable itself: merges of merges (`merge_is_associative`).
    let mut args = vec![
        "--merge".to_string(),
        "-f".into(),
        "json".into(),
        "--mergeable".into(),
    ];
    args.extend(by_args(by));
    args.extend(files.iter().map(|f| f.display().to_string()));
    stats_stdout(&args)
}

/// What `against` the merged stats of random splits of `file` are compared with.
#[derive(Clone, Copy)]
enum Against {
    /// `ndjq stats WHOLE` (STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b)).
    Whole,
    /// `ndjq stats PART1 PART2 ...` (the rule of `--merge`: "the same result as one run over all
    /// inputs"; docs/GUIDE.md, "Scaling out: `stats --merge`").
    Parts,
}

/// Splits `file` at random (one split per seed), runs `stats -f json` on each part and
/// merges the parts' stats with each `--by`. A merge computes the groups from the merged
/// state, not from the parts' groups, so each seed runs its parts with one `--by` (turn
/// about) and merges them with all of them.
fn merge_split_diffs(file: &Path, seeds: u64, against: Against, cuts: Cuts) -> Vec<String> {
    let bytes = common::read_data(file);
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut diffs = Vec::new();
    let whole: Vec<Report> = match against {
        Against::Whole => BYS
            .iter()
            .map(|&by| {
                let mut args = by_args(by);
                args.push(file.display().to_string());
                stats_json(&args)
            })
            .collect(),
        Against::Parts => Vec::new(),
    };
    for seed in 1..=seeds {
        let mut rng = XorShift::new(seed);
        let parts = split_lines(&bytes, &mut rng, cuts);
        assert_eq!(parts.concat(), bytes, "a split loses no byte");
        let part_by = BYS[seed as usize % BYS.len()];
        let (inputs, outputs) = part_stats(tmp.path(), &parts, part_by);
        for (i, by) in BYS.iter().enumerate() {
            let merged = parse_report(&merge_json(&outputs, *by));
            let want = match against {
                Against::Whole => whole[i].clone(),
                Against::Parts => {
                    let mut args = by_args(*by);
                    args.extend(inputs.iter().map(|p| p.display().to_string()));
                    stats_json(&args)
                }
            };
            let mut d = Vec::new();
            check(&mut d, "files", parts.len() as u64, merged.files);
            d.extend(report_diffs(&want, &merged, false));
            diffs.extend(d.into_iter().map(|d| {
                format!(
                    "{} seed {seed} ({} parts) --by {}: {d}",
                    rel(file),
                    parts.len(),
                    by.unwrap_or("-")
                )
            }));
        }
    }
    diffs
}

fn merge_splits(files: &[&str], seeds: u64, against: Against, cuts: Cuts) -> Vec<String> {
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            if let Some(name) = f.strip_prefix("testdata/stats/") {
                data(name)
            } else {
                corpus_file(f)
            }
        })
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .iter()
            .map(|p| s.spawn(move || merge_split_diffs(p, seeds, against, cuts)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a merge thread"))
            .collect()
    })
}

const CLAUDE_MERGE_FILES: [&str; 8] = [
    "real-client/claude-tool-partial.ndjson",
    "testdata/stats/claude-model-usage.ndjson",
    "testdata/stats/claude-log-costusd.jsonl",
    "automagik/manual_test_output.jsonl",
    "spotter/tool_heavy.jsonl",
    "spotter/subagent.jsonl",
    "agentcmd/claude-transcript/full-session-four.jsonl",
    "testdata/stats/claude-rules.ndjson",
];

const CODEX_MERGE_FILES: [&str; 4] = [
    "agentcmd/codex-exec/stream-output-5.jsonl",
    "real-client/codex-tool.session-log.jsonl",
    "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
    "testdata/stats/codex-exec-tools.jsonl",
];

#[test]
fn merge_of_random_splits_equals_the_whole_claude() {
    // STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b), with every `--by`.
    let d = merge_splits(&CLAUDE_MERGE_FILES, 3, Against::Whole, Cuts::AnyLine);
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_of_splits_at_session_starts_equals_the_whole_codex() {
    // STYLE habit 12: merge(stats(a), stats(b)) = stats(a ++ b). Codex records take their
    // thread (exec) or session and model (rollouts) from earlier records of the same input,
    // and every input starts with no context (dialects and sessions are per input:
    // docs/REFERENCE.md, "Dialects"), so for Codex the parts must begin where a session begins: at
    // `thread.started` or `session_meta`. Streams of several sessions are made by concatenating
    // captures.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let concat = |name: &str, files: &[&str]| -> PathBuf {
        let mut bytes = Vec::new();
        for f in files {
            bytes.extend(common::read_data(&corpus_file(f)));
        }
        let out = tmp.path().join(name);
        std::fs::write(&out, bytes).expect("write");
        out
    };
    let exec = concat(
        "exec.jsonl",
        &[
            "agentcmd/codex-exec/stream-output-5.jsonl",
            "real-client/codex-tool.ndjson",
            "agentcmd/codex-exec/stream-output-2.jsonl",
            "real-client/codex-failed.ndjson",
        ],
    );
    let rollouts = concat(
        "rollouts.jsonl",
        &[
            "real-client/codex-tool.session-log.jsonl",
            "agentcmd/codex-rollout/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
        ],
    );
    let mut d = Vec::new();
    for file in [
        exec.as_path(),
        rollouts.as_path(),
        data("codex-exec-tools.jsonl").as_path(),
    ] {
        d.extend(merge_split_diffs(
            file,
            3,
            Against::Whole,
            Cuts::SessionStarts,
        ));
    }
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_of_random_splits_equals_one_run_over_the_parts() {
    // `--merge` (docs/GUIDE.md, "Scaling out: `stats --merge`") "combines partial JSON stats into
    // the same result as one run over all inputs": here the inputs are the parts themselves.
    let mut d = merge_splits(&CLAUDE_MERGE_FILES[..2], 2, Against::Parts, Cuts::AnyLine);
    // A Codex part cut mid-session: `--merge` reads it as continuing the part before (so
    // the merge equals the whole), while one run over the part files
    // reads it as an input of its own with no session or model yet. Where each part
    // begins a session, both agree.
    d.extend(merge_splits(
        &["testdata/stats/codex-exec-tools.jsonl"],
        2,
        Against::Parts,
        Cuts::SessionStarts,
    ));
    assert_no_diffs("merge of the parts != one run over the parts", &d);
}

#[test]
fn merge_of_random_splits_equals_the_whole_codex() {
    // A Codex part cut anywhere continues the part before it. (Not
    // codex-exec-tools.jsonl: a part that begins with its `error` line, which no dialect
    // claims, counts that line before the dialect is known, under no session.)
    let d = merge_splits(&CODEX_MERGE_FILES[..3], 3, Against::Whole, Cuts::AnyLine);
    assert_no_diffs("merge of the parts != stats of the whole", &d);
}

#[test]
fn merge_is_associative() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    for (f, seed) in [
        ("spotter/tool_heavy.jsonl", 7),
        ("real-client/claude-multi_tool.ndjson", 8),
        ("agentcmd/claude-transcript/full-session-two.jsonl", 9),
    ] {
        let bytes = common::read_data(&corpus_file(f));
        let mut rng = XorShift::new(seed);
        // Exactly three parts: cut the file twice.
        let mut parts = split_lines(&bytes, &mut rng, Cuts::AnyLine);
        while parts.len() != 3 {
            parts = split_lines(&bytes, &mut rng, Cuts::AnyLine);
        }
        for by in [None, Some("session"), Some("day")] {
            let (_, p) = part_stats(tmp.path(), &parts, by);
            let ab = tmp.path().join("ab.json");
            std::fs::write(&ab, merge_json(&p[..2], by)).expect("write");
            let bc = tmp.path().join("bc.json");
            std::fs::write(&bc, merge_json(&p[1..], by)).expect("write");
            let left = parse_report(&merge_json(&[ab, p[2].clone()], by));
            let right = parse_report(&merge_json(&[p[0].clone(), bc], by));
            let flat = parse_report(&merge_json(&p, by));
            let what = format!("{f} --by {}", by.unwrap_or("-"));
            assert_eq!(flat.files, 3, "{what}");
            assert_no_diffs(
                &format!("{what}: merge(merge(a,b),c) != merge(a,b,c)"),
                &report_diffs(&flat, &left, true),
            );
            assert_no_diffs(
                &format!("{what}: merge(a,merge(b,c)) != merge(a,b,c)"),
                &report_diffs(&flat, &right, true),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// 5. Threads
// ---------------------------------------------------------------------------------------

fn same_output_with_threads(file: &Path, bys: &[Option<&str>]) {
    for &by in bys {
        let run = |j: &str| {
            let mut args = vec!["-q".to_string(), "-f".into(), "json".into(), "-j".into()];
            args.push(j.to_string());
            args.extend(by_args(by));
            args.push(file.display().to_string());
            stats_stdout(&args)
        };
        let one = run("1");
        let two = run("2");
        assert!(
            one == two,
            "{} --by {}: -j 1 and -j 2 differ",
            rel(file),
            by.unwrap_or("-")
        );
    }
}

#[test]
fn threads_do_not_change_the_output_of_a_big_transcript() {
    // 2.7 MB: three 1 MiB blocks for the workers. Stored compressed; decompressed here so
    // that the workers read the plain file, as they would a transcript on disk.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let stored = corpus_file("spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.zst");
    let file = common::plain_file(&stored, tmp.path());
    assert!(std::fs::metadata(&file).expect("stat").len() > 2 << 20);
    same_output_with_threads(&file, &[None, Some("session"), Some("model"), Some("day")]);
}

#[test]
fn threads_do_not_change_the_output_of_a_generated_stream() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    // Seed 8 at a 2% rate damages lines in all nine ways (ndjq-gen's summary says so).
    let streams = [("clean.ndjson", "0"), ("corrupt.ndjson", "0.02")];
    for (name, corrupt) in streams {
        let status = std::process::Command::new(crate::common::ndjq_gen_path())
            .args(["stream", "--dialect", "claude", "--seed", "8"])
            .args(["--size-mb", "4"])
            .args(["--corrupt-rate", corrupt, "-o"])
            .arg(tmp.path().join(name))
            .stderr(std::process::Stdio::null())
            .status()
            .expect("ndjq-gen runs");
        assert!(status.success(), "ndjq-gen failed");
    }
    for (name, corrupt) in streams {
        let file = tmp.path().join(name);
        same_output_with_threads(&file, &[None, Some("session")]);
        // The generated stream (with blank, CRLF, non-UTF-8, truncated and merged lines
        // when corrupt) also follows the documented rules.
        // The generator is deterministic: the oracle's figures for it are committed.
        let label = format!(
            "ndjq-gen-claude-4mib-seed8-{}",
            name.trim_end_matches(".ndjson")
        );
        let want = expected(&label, &[&file]);
        let got = stats_json(&[&file]);
        assert_no_diffs(&format!("generated {name}"), &spec_diffs(&want, &got));
        if corrupt != "0" {
            assert!(got.invalid > 0 && got.empty > 0, "the corruption shows");
        }
    }
}

/// A Claude stream-json file with `n` distinct messages, each seen twice: a first
/// snapshot (output 1) and, `lag` lines later, the last one, by which time the stats store
/// has folded its pending entries many times. Every message has a tool call; every 7th
/// call fails. Message 5's last snapshot reads more than 32 bits of cache tokens, and
/// message 6's first one does (its last one does not): the exact side table is used and
/// left behind. Returns the file and, from a plain map, the expected output tokens, cache
/// reads and tool errors.
fn many_messages(dir: &Path, n: u64, lag: u64) -> (PathBuf, u64, u64, u64) {
    use std::fmt::Write as _;
    let mut text = String::new();
    let mut last: HashMap<u64, (u64, u64)> = HashMap::new();
    let line = |text: &mut String, i: u64, out: u64, cache: u64, session: u64| {
        let _ = writeln!(
            text,
            r#"{{"type":"assistant","session_id":"s{session}","message":{{"id":"msg_{i}","model":"m{}","content":[{{"type":"tool_use","id":"toolu_{i}","name":"T{}","input":{{}}}}],"usage":{{"input_tokens":3,"output_tokens":{out},"cache_creation_input_tokens":0,"cache_read_input_tokens":{cache}}}}}}}"#,
            i % 3,
            i % 5
        );
    };
    let mut errors = 0;
    for step in 0..n + lag {
        if step < n {
            let cache = if step == 6 { 9_000_000_000 } else { 7 };
            line(&mut text, step, 1, cache, step / 1000);
            last.insert(step, (1, cache));
        }
        if step >= lag {
            let i = step - lag;
            let (out, cache) = (10 + i % 1000, if i == 5 { 5_000_000_000 } else { 7 });
            line(&mut text, i, out, cache, i / 1000);
            last.insert(i, (out, cache));
            if i.is_multiple_of(7) {
                let _ = writeln!(
                    text,
                    r#"{{"type":"user","session_id":"s{}","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_{i}","is_error":true}}]}}}}"#,
                    i / 1000
                );
                errors += 1;
            }
        }
    }
    let path = dir.join("many.ndjson");
    std::fs::write(&path, text).expect("write the generated stream");
    let output = last.values().map(|v| v.0).sum();
    let cache = last.values().map(|v| v.1).sum();
    (path, output, cache, errors)
}

#[test]
fn many_messages_stay_exact_through_the_compact_store() {
    // More distinct messages and tool calls than the store keeps pending (2^15), so its
    // sorted vector is folded into many times while snapshots are still being replaced.
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let (n, lag) = (40_000, 36_000);
    let (file, output, cache, errors) = many_messages(tmp.path(), n, lag);
    let got = stats_json(&[&file]);
    assert_eq!(got.tokens.input, 3 * n);
    assert_eq!(got.tokens.output, output);
    assert_eq!(got.tokens.cache_read, cache);
    let calls: u64 = got.tools.values().map(|t| t.calls).sum();
    let errs: u64 = got.tools.values().map(|t| t.errors).sum();
    assert_eq!((calls, errs), (n, errors));
    assert_eq!(got.sessions, n.div_ceil(1000));
    // The second implementation agrees, and so do threads and merges of splits.
    assert_no_diffs(
        "many messages",
        &spec_diffs(
            &expected(&format!("many-messages-{n}-{lag}"), &[&file]),
            &got,
        ),
    );
    same_output_with_threads(&file, &[None]);
    let bytes = std::fs::read(&file).expect("read the generated stream");
    let parts = split_lines(&bytes, &mut XorShift::new(7), Cuts::AnyLine);
    let (_, outputs) = part_stats(tmp.path(), &parts, None);
    let merged = parse_report(&merge_json(&outputs, None));
    let d = report_diffs(&got, &merged, false);
    assert_no_diffs("many messages: merge of the parts != the whole", &d);
}

// ---------------------------------------------------------------------------------------
// 6. Breakdowns and human output
// ---------------------------------------------------------------------------------------
