//! Property tests (proptest) on real-shaped data: lines drawn from testdata/ (the real
//! captures under testdata/corpus included), then mutated (cut, a byte changed, CRLF, a BOM, text
//! around them, blank lines).
//!
//! - byte accounting: `filter P` and `filter P --invert` split the input's records between
//!   them, byte for byte and in order, and `--rejects` holds exactly the invalid ones;
//! - framing and verdicts do not depend on the read-buffer size (library level);
//! - `stats --merge` of a Claude stream-json input split at session boundaries equals the
//!   stats of the whole;
//! - `-j 1` and `-j 3` give the same bytes on multi-block inputs.
//!
//! Case counts are small so the suite stays fast in debug builds; `fuzz/` runs the same
//! kind of checks for hours.

use crate::common;

use ndjq::pipeline::{Consumer, Flow, Options, Pipeline, Record, Status};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

// ---------------------------------------------------------------------------------------
// Real lines

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a folder entry").path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out);
        } else if p.to_str().is_some_and(|n| {
            [".jsonl", ".ndjson", ".jsonl.zst"]
                .iter()
                .any(|e| n.ends_with(e))
        }) {
            out.push(p);
        }
    }
}

/// Every line (without `\n`, at most 8 KiB, to keep cases small) of every NDJSON file of
/// testdata/ (the corpus under it included; `.zst` files decompressed). Fails, never
/// skips, when a folder is missing.
fn pool() -> &'static [Vec<u8>] {
    static POOL: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut files = Vec::new();
        // testdata/ holds the corpus: one walk reads both, each file once.
        walk(&common::testdata(), &mut files);
        assert!(
            files.iter().any(|f| f.starts_with(common::corpus_dir())),
            "the corpus under testdata/ is missing"
        );
        assert!(
            files.len() > 20,
            "too few NDJSON files found: {}",
            files.len()
        );
        let mut lines = Vec::new();
        for f in files {
            for l in common::read_data(&f).split(|&b| b == b'\n') {
                if !l.is_empty() && l.len() <= 8 << 10 {
                    lines.push(l.to_vec());
                }
            }
        }
        lines
    })
}

/// How a real line is changed.
#[derive(Debug, Clone)]
enum Mutation {
    None,
    Cut(usize),
    Byte(usize, u8),
    Insert(usize, u8),
    Crlf,
    /// A carriage return first: JSON whitespace, and the start of a progress bar.
    CrFirst,
    Bom,
    TextAround,
    Blank,
    Spaces,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => Just(Mutation::None),
        1 => any::<usize>().prop_map(Mutation::Cut),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        1 => (any::<usize>(), prop::sample::select(&b"{}[]\",:\\ \t\r\x00\xff\x1b"[..]))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => Just(Mutation::Crlf),
        1 => Just(Mutation::CrFirst),
        1 => Just(Mutation::Bom),
        1 => Just(Mutation::TextAround),
        1 => Just(Mutation::Blank),
        1 => Just(Mutation::Spaces),
    ]
}

fn apply(line: &[u8], m: &Mutation) -> Vec<u8> {
    let mut l = line.to_vec();
    let at = |i: usize, n: usize| if n == 0 { 0 } else { i % n };
    match *m {
        Mutation::None => {}
        Mutation::Cut(i) => l.truncate(at(i, l.len())),
        Mutation::Byte(i, b) if !l.is_empty() && b != b'\n' => {
            let n = l.len();
            l[at(i, n)] = b;
        }
        Mutation::Byte(..) => {}
        Mutation::Insert(i, b) => {
            let n = l.len() + 1;
            l.insert(at(i, n), b);
        }
        Mutation::Crlf => l.push(b'\r'),
        Mutation::CrFirst => l.insert(0, b'\r'),
        Mutation::Bom => {
            l.splice(0..0, *b"\xEF\xBB\xBF");
        }
        Mutation::TextAround => {
            l.splice(0..0, *b"Warning: ");
            l.extend_from_slice(b" (done)");
        }
        Mutation::Blank => l.clear(),
        Mutation::Spaces => l = b" \t ".to_vec(),
    }
    l
}

/// An input of real lines, mutated, each ended by `\n` except perhaps the last.
fn input(max_lines: usize) -> impl Strategy<Value = Vec<u8>> {
    let n = pool().len();
    (
        prop::collection::vec((0..n, mutation()), 0..max_lines),
        any::<bool>(),
    )
        .prop_map(|(picks, last_newline)| {
            let p = pool();
            let mut out = Vec::new();
            for (i, m) in &picks {
                out.extend_from_slice(&apply(&p[*i], m));
                out.push(b'\n');
            }
            if !last_newline && out.last() == Some(&b'\n') {
                out.pop();
            }
            out
        })
}

/// The verdict docs/REFERENCE.md promises for one line (with its `\n`), computed with
/// serde_json: a `\r` before the `\n` and a BOM at the start are ignored, blanks only is
/// empty, nesting beyond 128 is invalid, otherwise serde_json decides.
fn oracle(line: &[u8]) -> Status {
    let c = line.strip_suffix(b"\n").unwrap_or(line);
    let c = c.strip_suffix(b"\r").unwrap_or(c);
    let c = c.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(c);
    if c.iter().all(|b| matches!(b, b' ' | b'\t')) {
        return Status::Empty;
    }
    if common::nesting(c) > 128 {
        return Status::Invalid;
    }
    match serde_json::from_slice::<Value>(c) {
        Ok(_) => Status::Valid,
        Err(_) => Status::Invalid,
    }
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// A runner with a fixed seed: CI sees the same cases on every run, so a failure can be
/// replayed exactly (a wider search is `cases` raised by hand, locally).
fn runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}

// ---------------------------------------------------------------------------------------
// Byte accounting across filter, filter --invert and --rejects

/// `filter ARGS --rejects FILE` on `input`: stdout and the rejects file.
fn filter(input: &[u8], args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let dir = common::tempdir();
    let rejects = dir.path().join("rejects");
    let out = common::ndjq_sub("filter")
        .args(args)
        .arg("--rejects")
        .arg(&rejects)
        .arg("-q")
        .write_stdin(input.to_vec())
        .output()
        .expect("ndjq runs");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "filter {args:?}: {:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let rejects = std::fs::read(&rejects).unwrap_or_default();
    (out.stdout, rejects)
}

#[test]
fn filter_invert_and_rejects_account_for_every_byte() {
    let predicates: &[&[&str]] = &[
        &["--type", "assistant"],
        &["--type", "user,result"],
        &["--tool", "Bash"],
        &["-w", "message.role=assistant"],
        &["--valid"],
    ];
    runner(16)
        .run(
            &(input(40), prop::sample::select(predicates)),
            |(input, pred)| {
                let (selected, rejects) = filter(&input, pred);
                let mut inverted_args = pred.to_vec();
                inverted_args.push("--invert");
                let (inverted, rejects2) = filter(&input, &inverted_args);
                let (cleaned, rejects3) = filter(&input, &[]);
                prop_assert_eq!(
                    &rejects,
                    &rejects2,
                    "--rejects does not depend on the predicate"
                );
                prop_assert_eq!(&rejects, &rejects3);

                let (sel, inv) = (lines(&selected), lines(&inverted));
                let (mut i, mut j) = (0, 0);
                let (mut want_rejects, mut want_clean) = (Vec::new(), Vec::new());
                for (n, line) in lines(&input).into_iter().enumerate() {
                    let verdict = oracle(line);
                    match verdict {
                        Status::Invalid => want_rejects.extend_from_slice(line),
                        Status::Valid => want_clean.extend_from_slice(line),
                        Status::Empty => {}
                    }
                    if sel.get(i) == Some(&line) && verdict == Status::Valid {
                        i += 1;
                    } else if inv.get(j) == Some(&line) {
                        j += 1;
                    } else {
                        prop_assert!(
                            false,
                            "line {} ({:?}) is neither selected nor inverted",
                            n + 1,
                            String::from_utf8_lossy(line)
                        );
                    }
                }
                prop_assert_eq!(i, sel.len(), "filter wrote bytes that are not a record");
                prop_assert_eq!(
                    j,
                    inv.len(),
                    "filter --invert wrote bytes that are not a record"
                );
                prop_assert_eq!(rejects, want_rejects, "--rejects holds the invalid records");
                prop_assert_eq!(
                    cleaned,
                    want_clean,
                    "filter with no predicate: the valid records"
                );
                Ok(())
            },
        )
        .expect("byte accounting");
}

// ---------------------------------------------------------------------------------------
// Framing whatever the read-buffer size

#[derive(Debug, PartialEq)]
struct Seen {
    line: u64,
    offset: u64,
    raw: Vec<u8>,
    status: Status,
    codes: Vec<&'static str>,
}

#[derive(Default)]
struct Collect(Vec<Seen>);

impl Consumer for Collect {
    fn record(&mut self, r: &Record<'_>) -> io::Result<Flow> {
        self.0.push(Seen {
            line: r.line,
            offset: r.offset,
            raw: r.raw.to_vec(),
            status: r.status,
            codes: r.diagnostics.iter().map(|d| d.code.as_str()).collect(),
        });
        Ok(Flow::Continue)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(last) = self.0.last_mut() {
            last.raw.extend_from_slice(bytes);
        }
        Ok(())
    }
}

/// A reader handing out at most `n` bytes per call.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn records(input: &[u8], options: Options, trickle: usize) -> Vec<Seen> {
    let mut c = Collect::default();
    let file: Arc<str> = Arc::from("-");
    Pipeline::new(options)
        .run(&file, Trickle(input, trickle), &mut c)
        .expect("reading memory");
    c.0
}

#[test]
fn framing_and_verdicts_do_not_depend_on_the_read_size() {
    runner(128)
        .run(
            &(
                input(24),
                1usize..64,
                1usize..64,
                prop::option::of(8usize..200),
            ),
            |(input, read_size, trickle, max_line)| {
                let max_line = max_line.unwrap_or(1 << 20);
                let base = Options {
                    max_line_bytes: max_line,
                    ..Options::default()
                };
                let whole = records(&input, base.clone(), usize::MAX);
                let small = Options { read_size, ..base };
                let pieces = records(&input, small, trickle);
                prop_assert_eq!(&whole, &pieces);
                // Every byte in exactly one record, in order, numbered 1, 2, ...
                let mut offset = 0;
                for (n, r) in whole.iter().enumerate() {
                    prop_assert_eq!(r.line, n as u64 + 1);
                    prop_assert_eq!(r.offset, offset as u64);
                    prop_assert_eq!(&input[offset..offset + r.raw.len()], &r.raw[..]);
                    offset += r.raw.len();
                    let content = r.raw.len() - usize::from(r.raw.ends_with(b"\n"));
                    let want = if content > max_line {
                        Status::Invalid
                    } else {
                        oracle(&r.raw)
                    };
                    prop_assert_eq!(r.status, want, "line {}: {:?}", r.line, r.codes);
                }
                prop_assert_eq!(offset, input.len());
                Ok(())
            },
        )
        .expect("framing independent of the read size");
}

// ---------------------------------------------------------------------------------------
// merge(split) = whole

/// The Claude stream-json captures: each file is one session, from `system/init` to
/// `result`.
fn claude_sessions() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        root.join("testdata/claude/claude-tool.ndjson"),
        root.join("testdata/claude/claude-multi_tool.ndjson"),
        root.join("testdata/claude/claude-error500.ndjson"),
        root.join("testdata/stats/claude-rules.ndjson"),
        common::corpus_dir().join("real-client/claude-thinking.ndjson"),
        common::corpus_dir().join("real-client/claude-tool-partial.ndjson"),
        common::corpus_dir().join("gleam-sdk/basic_query.ndjson"),
        // Resumed and forked runs: their results repeat the runs before them.
        root.join("testdata/lineage/claude-resume-sonnet/step1.ndjson"),
        root.join("testdata/lineage/claude-resume-sonnet/step2.ndjson"),
        root.join("testdata/lineage/claude-fork-sonnet/step1.ndjson"),
        root.join("testdata/lineage/claude-fork-sonnet/step2.ndjson"),
    ];
    files.iter().map(|f| common::read_file(f)).collect()
}

/// Codex exec runs, each a `thread.started` to its last turn; resumed and forked runs
/// repeat the usage of the runs before them.
fn codex_runs() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        root.join("testdata/codex/codex-tool.ndjson"),
        root.join("testdata/lineage/codex-resume/step1.ndjson"),
        root.join("testdata/lineage/codex-resume/step2.ndjson"),
        root.join("testdata/lineage/codex-execfork/step1.ndjson"),
        root.join("testdata/lineage/codex-execfork/step2.ndjson"),
    ];
    files.iter().map(|f| common::read_file(f)).collect()
}

fn stats_json(paths: &[&Path], extra: &[&str]) -> Value {
    let out = common::ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .args(extra)
        .args(paths)
        .output()
        .expect("ndjq runs");
    assert!(
        out.status.success(),
        "stats {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stats -f json is JSON")
}

/// The report without what legitimately differs between one run and a merge: the number of
/// inputs and the merge state's inner layout.
fn comparable(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("files");
        m.remove("state");
        // File names differ (whole.ndjson vs part files); the rest of the groups must not.
        if m.get("by").and_then(Value::as_str) == Some("file") {
            m.remove("groups");
        }
    }
    v
}

#[test]
fn stats_merge_of_a_split_at_session_boundaries_equals_the_whole() {
    merge_of_a_split_equals_the_whole(&claude_sessions(), true);
}

#[test]
fn stats_merge_of_codex_runs_split_between_resumes_equals_the_whole() {
    // In one Codex exec input a thread started again is a resumed run of its own, while
    // the same run in two parts is the same run seen twice: runs are taken once each, in
    // their order (a resumed run after the run it resumes).
    merge_of_a_split_equals_the_whole(&codex_runs(), false);
}

/// Sessions (or runs) picked from `sessions` (with `repeats`, a session may come again),
/// some lines dropped, cut into parts between them: `--merge` of the parts' stats equals
/// the stats of the whole.
fn merge_of_a_split_equals_the_whole(sessions: &[Vec<u8>], repeats: bool) {
    let n = sessions.len();
    runner(8)
        .run(
            &(
                prop::collection::vec((0..n, prop::collection::vec(any::<bool>(), 0..4)), 2..6),
                prop::collection::vec(any::<bool>(), 6),
                prop::sample::select(&[None, Some("session"), Some("model"), Some("tool")][..]),
            ),
            |(mut picks, cut_after, by)| {
                if !repeats {
                    picks.sort_by_key(|(i, _)| *i);
                    picks.dedup_by_key(|(i, _)| *i);
                    // A run keeps its `thread.started`: without it its records go on in
                    // the run before (another thread), which a part cannot know.
                    for (_, drops) in picks.iter_mut() {
                        if let Some(first) = drops.first_mut() {
                            *first = false;
                        }
                    }
                }
                let dir = common::tempdir();
                // Sessions (a repeated one is the same session seen twice: counted once),
                // some with a few lines dropped.
                let parts: Vec<Vec<u8>> = picks
                    .iter()
                    .map(|(i, drops)| {
                        let ls = lines(&sessions[*i]);
                        let mut s = Vec::new();
                        for (k, l) in ls.iter().enumerate() {
                            if !drops.get(k).copied().unwrap_or(false) {
                                s.extend_from_slice(l);
                            }
                        }
                        s
                    })
                    .collect();
                let whole: Vec<u8> = parts.concat();
                let whole_path = common::write_file(dir.path(), "whole.ndjson", &whole);
                // Cut between sessions where `cut_after` says so.
                let mut chunks: Vec<Vec<u8>> = vec![Vec::new()];
                for (k, p) in parts.iter().enumerate() {
                    chunks.last_mut().expect("a chunk").extend_from_slice(p);
                    if k + 1 < parts.len() && cut_after[k % cut_after.len()] {
                        chunks.push(Vec::new());
                    }
                }
                let by_args: Vec<&str> = by.map(|b| vec!["--by", b]).unwrap_or_default();
                let mut stats_files = Vec::new();
                for (k, c) in chunks.iter().enumerate() {
                    let p = common::write_file(dir.path(), &format!("part{k}.ndjson"), c);
                    let mut part_args = vec!["--mergeable"];
                    part_args.extend(&by_args);
                    let v = stats_json(&[&p], &part_args);
                    let s = common::write_file(
                        dir.path(),
                        &format!("part{k}.json"),
                        &serde_json::to_vec(&v).expect("JSON"),
                    );
                    stats_files.push(s);
                }
                let refs: Vec<&Path> = stats_files.iter().map(PathBuf::as_path).collect();
                let mut merge_args = vec!["--merge"];
                merge_args.extend(&by_args);
                let merged = stats_json(&refs, &merge_args);
                let one = stats_json(&[&whole_path], &by_args);
                prop_assert_eq!(merged["files"].as_u64(), Some(chunks.len() as u64));
                prop_assert_eq!(comparable(merged), comparable(one));
                Ok(())
            },
        )
        .expect("merge(split) = whole");
}

// ---------------------------------------------------------------------------------------
// -j 1 = -j N

/// Output, rejects and status of `ndjq SUB ARGS -j THREADS FILE`.
fn run_threads(
    sub: &str,
    args: &[&str],
    threads: &str,
    file: &Path,
) -> (Vec<u8>, Vec<u8>, Vec<u8>, Option<i32>) {
    let dir = common::tempdir();
    let rejects = dir.path().join("rejects");
    let mut cmd = common::ndjq_std(sub);
    cmd.args(args).args(["-j", threads]).arg(file);
    if sub == "filter" {
        cmd.arg("--rejects").arg(&rejects);
    }
    let out = cmd.output().expect("ndjq runs");
    let rejects = std::fs::read(&rejects).unwrap_or_default();
    (out.stdout, out.stderr, rejects, out.status.code())
}

#[test]
fn one_thread_and_three_threads_write_the_same_bytes() {
    runner(4)
        .run(&(input(60), 1100usize..1700), |(unit, kib)| {
            // Repeat the generated lines past several 1 MiB batch blocks.
            let mut big = Vec::with_capacity(kib << 10);
            let unit = if unit.is_empty() {
                b"{}\n".to_vec()
            } else {
                unit
            };
            while big.len() < kib << 10 {
                big.extend_from_slice(&unit);
                if big.last() != Some(&b'\n') {
                    big.push(b'\n');
                }
            }
            let dir = common::tempdir();
            let file = common::write_file(dir.path(), "big.ndjson", &big);
            for (sub, args) in [
                ("validate", &["-f", "json"][..]),
                ("filter", &["--type", "assistant,user"][..]),
                ("stats", &["-f", "json", "--by", "type"][..]),
            ] {
                let one = run_threads(sub, args, "1", &file);
                let three = run_threads(sub, args, "3", &file);
                prop_assert!(one == three, "{} {:?}: -j 1 and -j 3 differ", sub, args);
            }
            Ok(())
        })
        .expect("-j 1 = -j 3");
}

/// Many small files, each without a final newline (its last record
/// unterminated), read whole in batches: `-j 1`, `-j 2` and `-j 8` write the same bytes,
/// output and `--rejects` alike, and a big file without one too.
#[test]
fn threads_agree_on_files_without_a_final_newline() {
    runner(2)
        .run(&(input(12), 100usize..160), |(unit, files)| {
            let dir = common::tempdir();
            let logs = dir.path().join("logs");
            std::fs::create_dir(&logs).expect("mkdir");
            let mut unit = if unit.is_empty() { b"x".to_vec() } else { unit };
            while unit.last() == Some(&b'\n') {
                unit.pop();
            }
            for i in 0..files {
                let mut body = format!("{{\"type\":\"user\",\"i\":{i}}}\n").into_bytes();
                body.extend_from_slice(&unit);
                common::write_file(&logs, &format!("f{i:04}.jsonl"), &body);
            }
            let mut big = Vec::new();
            while big.len() < 1200 << 10 {
                big.extend_from_slice(&unit);
                big.push(b'\n');
            }
            big.pop();
            let big = common::write_file(dir.path(), "big.ndjson", &big);
            for input in [logs.as_path(), big.as_path()] {
                for (sub, args) in [("filter", &[][..]), ("validate", &["-f", "json"][..])] {
                    let one = run_threads(sub, args, "1", input);
                    for threads in ["2", "8"] {
                        let many = run_threads(sub, args, threads, input);
                        prop_assert!(
                            one == many,
                            "{} {:?} {}: -j 1 and -j {} differ",
                            sub,
                            args,
                            input.display(),
                            threads
                        );
                    }
                }
            }
            Ok(())
        })
        .expect("-j 1 = -j 2 = -j 8 without final newlines");
}
