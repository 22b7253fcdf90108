//! The model-based test of `--follow`: a writer applies a random (seeded) sequence of
//! changes to a small tree (appends of whole lines and of lines split across writes,
//! renames of files and folders, a rename over another file, truncations, deletions,
//! files written again at the same path, rotations, new files in new folders, folders
//! removed, the followed root removed and made again) while
//! `stats --follow -f json`, `filter --follow` and `gaps --follow` follow it, with
//! notifications and with `--poll`. A model of the tree knows every record ever written
//! and in which file's life.
//!
//! What "read once" means when files die: a file's life ends when it is truncated,
//! deleted, replaced (written again at its path, or renamed over) — ndjq reads a truncated
//! or replaced file again from its start, as a new input. The complete lines a life held
//! when it ended were all read (the writer waits for the followers to settle after each
//! step, see below); a partial last line it held then was never complete, so never read.
//! The model keeps each ended life's complete lines as a file of an archive folder
//! outside the tree. At the end (SIGINT), what the followers wrote must equal a one-shot
//! run over the final tree and the archive together: `stats`' last report is `ndjq stats`
//! over both, `filter`'s output holds each record of both exactly once (every record the
//! writer makes is unique, so a record read twice shows), and `gaps` finds the same
//! findings (without their file names: a renamed file's findings name the name it had).
//! A renamed file is the same life, read on from its offset. A truncation is always to
//! zero and a new life is never empty: a shorter cut would be read again from its start,
//! its first records twice, as the reference documents.
//!
//! Settling: after each step the writer waits until every follower has read every
//! complete line the model holds (filter's line count, stats' `lines`, gaps' findings:
//! each record's `seq` jumps by 2, so each record after a life's first is a `SEQ_GAP`, and
//! a life's first record answers a tool call never made, a `TOOL_ORPHAN_RESULT`); more
//! than that fails at once. A step may do two things at once (rename then append,
//! truncate then write, rotate) so the followers meet those states between their looks.
//!
//! `NDJQ_FOLLOW_MODEL_SEQUENCES` (default 128 per mode) runs more sequences;
//! `NDJQ_FOLLOW_MODEL_SEED` runs one seed; `NDJQ_FOLLOW_MODEL_STEPS` (default 12) sets the
//! steps per sequence. See fuzz/README.md.

use crate::common;

use common::live::*;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// splitmix64: a small seeded generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
}

/// One life of a file: from its creation (or truncation, or being written again) to its
/// end. A rename keeps the life.
#[derive(Debug)]
struct Life {
    /// Relative to the followed root; `None` once it ended.
    path: Option<String>,
    content: Vec<u8>,
    seq: u64,
    session: String,
    open_tools: Vec<String>,
    /// The rest of a line written in part.
    pending: Vec<u8>,
}

impl Life {
    fn complete(&self) -> usize {
        self.content.iter().filter(|b| **b == b'\n').count()
    }
}

struct Model {
    root: PathBuf,
    archive: PathBuf,
    lives: Vec<Life>,
    /// Path → its life.
    alive: BTreeMap<String, usize>,
    /// Folders under the root (relative; the root is "").
    folders: BTreeSet<String>,
    rng: Rng,
    names: usize,
    records: usize,
    log: Vec<String>,
}

impl Model {
    fn new(root: PathBuf, archive: PathBuf, seed: u64) -> Model {
        let mut folders = BTreeSet::new();
        folders.insert(String::new());
        Model {
            root,
            archive,
            lives: Vec::new(),
            alive: BTreeMap::new(),
            folders,
            rng: Rng(seed),
            names: 0,
            records: 0,
            log: Vec::new(),
        }
    }

    fn abs(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    /// A new record of `life`: a user or assistant message, a tool call, or the result of
    /// one left open; unique, its `seq` 2 more than the last.
    fn record(&mut self, life: usize) -> String {
        self.records += 1;
        let n = self.records;
        let roll = self.rng.below(6);
        let l = &mut self.lives[life];
        let first = l.seq == 0;
        l.seq += 2;
        let head = format!(
            "{{\"seq\":{},\"uuid\":\"u-{n}\",\"sessionId\":\"{}\",\"timestamp\":\"2025-10-01T10:{:02}:{:02}Z\"",
            l.seq,
            l.session,
            (n / 60) % 60,
            n % 60
        );
        let body = if first {
            // The result of a call never made: a TOOL_ORPHAN_RESULT when it is read.
            format!(
                ",\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_none_{n}\",\"content\":\"late {n}\"}}]}}}}"
            )
        } else if roll == 0 && !l.open_tools.is_empty() {
            let id = l.open_tools.remove(0);
            format!(
                ",\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":\"done {n}\"}}]}}}}"
            )
        } else if roll <= 1 {
            let id = format!("toolu_{n}");
            l.open_tools.push(id.clone());
            format!(
                ",\"type\":\"assistant\",\"message\":{{\"id\":\"msg_{n}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{{\"command\":\"ls {n}\"}}}}],\"usage\":{{\"input_tokens\":{},\"output_tokens\":{}}}}}}}",
                n % 97 + 3,
                n % 13 + 1
            )
        } else if roll <= 3 {
            format!(
                ",\"type\":\"assistant\",\"message\":{{\"id\":\"msg_{n}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"text\",\"text\":\"answer {n}\"}}],\"usage\":{{\"input_tokens\":{},\"output_tokens\":{}}}}}}}",
                n % 89 + 5,
                n % 11 + 2
            )
        } else {
            format!(",\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"question {n}\"}}}}")
        };
        head + &body + "\n"
    }

    fn write(&mut self, life: usize, bytes: &[u8]) {
        let path = self.lives[life].path.clone().expect("alive");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.abs(&path))
            .expect("open for append");
        f.write_all(bytes).expect("append");
        self.lives[life].content.extend_from_slice(bytes);
    }

    /// Appends `n` whole records (after the rest of a split line).
    fn append(&mut self, life: usize, n: usize) {
        let mut bytes = std::mem::take(&mut self.lives[life].pending);
        for _ in 0..n {
            bytes.extend_from_slice(self.record(life).as_bytes());
        }
        self.write(life, &bytes);
    }

    /// Appends the first part of a record; its rest comes with the next append.
    fn append_split(&mut self, life: usize) {
        self.append(life, 0);
        let r = self.record(life).into_bytes();
        let cut = 1 + self.rng.below(r.len() - 2);
        self.write(life, &r[..cut]);
        self.lives[life].pending = r[cut..].to_vec();
    }

    fn new_life(&mut self, path: &str) -> usize {
        let session = self.fresh("s-");
        self.lives.push(Life {
            path: Some(path.to_string()),
            content: Vec::new(),
            seq: 0,
            session,
            open_tools: Vec::new(),
            pending: Vec::new(),
        });
        let life = self.lives.len() - 1;
        self.alive.insert(path.to_string(), life);
        life
    }

    /// A life ends: its complete lines go to the archive.
    fn end(&mut self, life: usize) {
        let l = &mut self.lives[life];
        if let Some(p) = l.path.take() {
            self.alive.remove(&p);
        }
        let end = l
            .content
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        if end > 0 {
            std::fs::write(
                self.archive.join(format!("life{life}.jsonl")),
                &l.content[..end],
            )
            .expect("archive");
        }
    }

    fn pick_file(&mut self) -> Option<(String, usize)> {
        let n = self.alive.len();
        if n == 0 {
            return None;
        }
        let i = self.rng.below(n);
        self.alive.iter().nth(i).map(|(p, l)| (p.clone(), *l))
    }

    fn pick_folder(&mut self, but_root: bool) -> Option<String> {
        let all: Vec<&String> = self
            .folders
            .iter()
            .filter(|f| !but_root || !f.is_empty())
            .collect();
        if all.is_empty() {
            return None;
        }
        let i = self.rng.below(all.len());
        Some(all[i].clone())
    }

    fn join(folder: &str, name: &str) -> String {
        if folder.is_empty() {
            name.to_string()
        } else {
            format!("{folder}/{name}")
        }
    }

    /// A new file with `n` records (or a split one) in `folder`.
    fn new_file(&mut self, folder: &str) {
        let name = self.fresh("f") + ".jsonl";
        let path = Model::join(folder, &name);
        let life = self.new_life(&path);
        let n = 1 + self.rng.below(3);
        self.append(life, n);
        self.log.push(format!("new {path}"));
    }

    /// One random step.
    fn step(&mut self) {
        let Some((path, life)) = self.pick_file() else {
            self.new_file("");
            return;
        };
        match self.rng.below(14) {
            0..=2 => {
                let n = 1 + self.rng.below(3);
                self.append(life, n);
                self.log.push(format!("append {n} to {path}"));
            }
            3 => {
                self.append_split(life);
                self.log.push(format!("append a split line to {path}"));
            }
            4 => {
                // Renamed, into any folder, maybe over another file; maybe written to
                // at once.
                let folder = self.pick_folder(false).unwrap_or_default();
                let over = self.rng.chance(3).then(|| self.pick_file()).flatten();
                let to = match over {
                    Some((p, _)) if p != path => p,
                    _ => Model::join(&folder, &(self.fresh("r") + ".jsonl")),
                };
                std::fs::rename(self.abs(&path), self.abs(&to)).expect("rename");
                if let Some(&gone) = self.alive.get(&to) {
                    self.end(gone);
                }
                self.alive.remove(&path);
                self.alive.insert(to.clone(), life);
                self.lives[life].path = Some(to.clone());
                self.log.push(format!("rename {path} to {to}"));
                if self.rng.chance(2) {
                    self.append(life, 1);
                    self.log.push(format!("append 1 to {to}"));
                }
            }
            5 => {
                let Some(folder) = self.pick_folder(true) else {
                    return self.new_file("");
                };
                let parent = folder.rsplit_once('/').map_or("", |(p, _)| p).to_string();
                let to = Model::join(&parent, &self.fresh("dir"));
                std::fs::rename(self.abs(&folder), self.abs(&to)).expect("rename folder");
                let moved = |p: &str| {
                    p.strip_prefix(&format!("{folder}/"))
                        .map(|rest| format!("{to}/{rest}"))
                };
                self.folders = self
                    .folders
                    .iter()
                    .map(|f| {
                        if *f == folder {
                            to.clone()
                        } else {
                            moved(f).unwrap_or_else(|| f.clone())
                        }
                    })
                    .collect();
                let alive = std::mem::take(&mut self.alive);
                for (p, l) in alive {
                    let p = moved(&p).unwrap_or(p);
                    self.lives[l].path = Some(p.clone());
                    self.alive.insert(p, l);
                }
                self.log.push(format!("rename folder {folder} to {to}"));
            }
            6 => {
                // Truncated to zero and written again: a new life at once.
                std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(self.abs(&path))
                    .expect("truncate");
                self.end(life);
                let new = self.new_life(&path);
                let n = 1 + self.rng.below(2);
                self.append(new, n);
                self.log.push(format!("truncate {path}, write {n}"));
            }
            7 => {
                std::fs::remove_file(self.abs(&path)).expect("rm");
                self.end(life);
                self.log.push(format!("delete {path}"));
            }
            8 => {
                // Deleted and written again at the same path: in place, or under a
                // temporary name moved there.
                std::fs::remove_file(self.abs(&path)).expect("rm");
                self.end(life);
                let n = 1 + self.rng.below(3);
                let through_tmp = self.rng.chance(2);
                let new = self.new_life(&path);
                if through_tmp {
                    let tmp = format!("{path}.tmp");
                    self.lives[new].path = Some(tmp.clone());
                    self.append(new, n);
                    std::fs::rename(self.abs(&tmp), self.abs(&path)).expect("mv");
                    self.lives[new].path = Some(path.clone());
                } else {
                    self.append(new, n);
                }
                self.log.push(format!(
                    "delete {path} and write {n} again{}",
                    if through_tmp {
                        " through a temporary name"
                    } else {
                        ""
                    }
                ));
            }
            9 => {
                // Rotated: renamed, and a new file at its name at once.
                let to = format!("{}.{}.jsonl", path.trim_end_matches(".jsonl"), self.names);
                self.names += 1;
                std::fs::rename(self.abs(&path), self.abs(&to)).expect("rotate");
                self.alive.remove(&path);
                self.alive.insert(to.clone(), life);
                self.lives[life].path = Some(to.clone());
                let new = self.new_life(&path);
                self.append(new, 1);
                self.log.push(format!("rotate {path} to {to}, new {path}"));
            }
            10 => {
                let parent = self.pick_folder(false).unwrap_or_default();
                let mut folder = Model::join(&parent, &self.fresh("new"));
                if self.rng.chance(2) {
                    folder = Model::join(&folder, &self.fresh("deeper"));
                }
                std::fs::create_dir_all(self.abs(&folder)).expect("mkdir");
                let mut f = folder.as_str();
                loop {
                    self.folders.insert(f.to_string());
                    match f.rsplit_once('/') {
                        Some((p, _)) => f = p,
                        None => break,
                    }
                }
                self.new_file(&folder);
            }
            11 => {
                // A folder removed with all it holds; the followed root is made again at
                // once, with a new file.
                let folder = self.pick_folder(false).unwrap_or_default();
                std::fs::remove_dir_all(self.abs(&folder)).expect("rm -rf");
                let under = |p: &str| folder.is_empty() || p.starts_with(&format!("{folder}/"));
                let gone: Vec<usize> = self
                    .alive
                    .iter()
                    .filter(|(p, _)| under(p))
                    .map(|(_, l)| *l)
                    .collect();
                for l in gone {
                    self.end(l);
                }
                self.folders.retain(|f| *f != folder && !under(f));
                if folder.is_empty() {
                    std::fs::create_dir(&self.root).expect("mkdir the root again");
                    self.folders.insert(String::new());
                    self.log.push("remove the root and make it again".into());
                    self.new_file("");
                } else {
                    self.log.push(format!("remove folder {folder}"));
                }
            }
            _ => {
                let folder = self.pick_folder(false).unwrap_or_default();
                self.new_file(&folder);
            }
        }
    }

    /// Every complete line of every life.
    fn lines(&self) -> usize {
        self.lives.iter().map(Life::complete).sum()
    }
}

/// The `lines` of the last complete stats report in `out`.
fn last_lines(out: &str) -> Option<u64> {
    let last = out.rsplit_terminator('\n').next()?;
    if !out.ends_with('\n') {
        return None;
    }
    serde_json::from_str::<serde_json::Value>(last).ok()?["lines"].as_u64()
}

/// The three followers of one sequence.
struct Followers {
    stats: Live,
    filter: Live,
    gaps: Live,
}

/// What the followers have read so far: (filter's lines, stats' lines, gaps' SEQ_GAPs).
fn progress(f: &Followers) -> (usize, Option<u64>, usize) {
    let filter = f.filter.out().matches('\n').count();
    let stats = last_lines(&f.stats.out());
    let out = f.gaps.out();
    let gaps = out.matches("\"code\":\"SEQ_GAP\"").count()
        + out.matches("\"code\":\"TOOL_ORPHAN_RESULT\"").count();
    (filter, stats, gaps)
}

/// One sequence: `Err` with what went wrong.
fn sequence(seed: u64, poll: Option<&str>, steps: usize) -> Result<(), String> {
    let tmp = tempdir();
    let dir = tmp.path();
    let root = dir.join("t");
    let archive = dir.join("archive");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::create_dir_all(&archive).expect("mkdir");
    let mut m = Model::new(root, archive, seed);
    // Something there before the followers start.
    let first = 1 + m.rng.below(2);
    for _ in 0..first {
        m.new_file("");
    }
    let with = |args: &[&'static str]| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        if let Some(p) = poll {
            all.extend(["--poll".to_string(), p.to_string()]);
        }
        all.push("t".into());
        all
    };
    let start = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        Live::start(dir, &refs)
    };
    let f = Followers {
        stats: start(with(&[
            "stats",
            "--color",
            "never",
            "-f",
            "json",
            "-F",
            "--interval",
            "0.01",
        ])),
        filter: start(with(&["filter", "--color", "never", "-F"])),
        gaps: start(with(&["gaps", "--color", "never", "-f", "json", "-F"])),
    };
    let settle = |m: &Model, f: &Followers| -> Result<(), String> {
        let want = (m.lines(), m.lines() as u64, m.lines());
        let since = Instant::now();
        loop {
            let (filter, stats, gaps) = progress(f);
            if filter > want.0 || stats.is_some_and(|s| s > want.1) || gaps > want.2 {
                return Err(format!(
                    "read more than was written: filter {filter} lines, stats {stats:?}, gaps {gaps} findings; the model: {want:?}"
                ));
            }
            if (filter, stats, gaps) == (want.0, Some(want.1), want.2) {
                return Ok(());
            }
            if since.elapsed() > PATIENCE {
                return Err(format!(
                    "waited in vain: filter {filter} lines, stats {stats:?}, gaps {gaps} findings; the model: {want:?}\nstats stderr: {}",
                    f.stats.err()
                ));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    };
    let mut result = settle(&m, &f);
    for _ in 0..steps {
        if result.is_err() {
            break;
        }
        m.step();
        result = settle(&m, &f);
    }
    let Followers {
        stats,
        filter,
        gaps,
    } = f;
    for live in [&stats, &filter, &gaps] {
        live.signal("INT");
    }
    let (s_code, s_out, s_err) = stats.end();
    let (f_code, f_out, f_err) = filter.end();
    let (g_code, g_out, g_err) = gaps.end();
    let fail = |what: String| {
        Err(format!(
            "{what}\nsteps:\n  {}\nstats stderr:\n{s_err}\nfilter stderr:\n{f_err}\ngaps stderr:\n{g_err}",
            m.log.join("\n  ")
        ))
    };
    if let Err(e) = result {
        return fail(e);
    }
    if (s_code, f_code, g_code) != (130, 130, 130) {
        return fail(format!("exit statuses {s_code}, {f_code}, {g_code}"));
    }
    let once = |cmd: &str, args: &[&str]| -> String {
        let out = ndjq_sub(cmd)
            .current_dir(dir)
            .args(args)
            .args(["t", "archive"])
            .output()
            .expect("one-shot run");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    // stats: the last report is one over the final tree and the archive.
    let want: serde_json::Value =
        serde_json::from_str(&once("stats", &["-f", "json"])).expect("stats json");
    let Some(got) = s_out
        .lines()
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    else {
        return fail(format!("no stats report: {s_out}"));
    };
    for k in [
        "files",
        "lines",
        "bytes",
        "valid",
        "invalid",
        "empty",
        "dialects",
        "types",
        "diagnostics",
        "sessions",
        "tokens",
        "cost_usd",
        "models",
        "tools",
    ] {
        if got[k] != want[k] {
            return fail(format!(
                "stats {k}: followed {} , one-shot {}",
                got[k], want[k]
            ));
        }
    }

    // filter: every record once.
    let mut followed: Vec<&str> = f_out.lines().collect();
    followed.sort_unstable();
    if let Some(w) = followed.windows(2).find(|w| w[0] == w[1]) {
        return fail(format!("filter wrote a record twice: {}", w[0]));
    }
    let once_filter = once("filter", &[]);
    let mut all: Vec<&str> = once_filter.lines().collect();
    all.sort_unstable();
    if followed != all {
        let a: BTreeSet<&str> = followed.iter().copied().collect();
        let b: BTreeSet<&str> = all.iter().copied().collect();
        return fail(format!(
            "filter: {} records followed, {} one-shot; only followed: {:?}; only one-shot: {:?}",
            followed.len(),
            all.len(),
            a.difference(&b).take(3).collect::<Vec<_>>(),
            b.difference(&a).take(3).collect::<Vec<_>>()
        ));
    }

    // gaps: the same findings (without file names) and summary.
    let findings = |out: &str| -> Vec<String> {
        let mut v: Vec<String> = out
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|mut v| {
                if let Some(o) = v.as_object_mut() {
                    o.remove("file");
                }
                v.to_string()
            })
            .collect();
        v.sort();
        v
    };
    let (g_followed, g_once) = (findings(&g_out), findings(&once("gaps", &["-f", "json"])));
    if g_followed != g_once {
        let a: BTreeSet<&String> = g_followed.iter().collect();
        let b: BTreeSet<&String> = g_once.iter().collect();
        return fail(format!(
            "gaps: only followed: {:?}\nonly one-shot: {:?}",
            a.difference(&b).take(4).collect::<Vec<_>>(),
            b.difference(&a).take(4).collect::<Vec<_>>()
        ));
    }
    Ok(())
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs the sequences (seeds `base..base + n`, or the one of `NDJQ_FOLLOW_MODEL_SEED`).
fn run(poll: Option<&str>, base: u64) {
    let steps = env_number("NDJQ_FOLLOW_MODEL_STEPS", 12) as usize;
    let seeds: Vec<u64> = match std::env::var("NDJQ_FOLLOW_MODEL_SEED") {
        Ok(s) => vec![s.parse().expect("NDJQ_FOLLOW_MODEL_SEED is a number")],
        Err(_) => (base..base + env_number("NDJQ_FOLLOW_MODEL_SEQUENCES", 128)).collect(),
    };
    for seed in seeds {
        if let Err(e) = sequence(seed, poll, steps) {
            panic!(
                "seed {seed} ({}) failed; run it alone with NDJQ_FOLLOW_MODEL_SEED={seed}:\n{e}",
                poll.map_or("notifications".to_string(), |p| format!("--poll {p}"))
            );
        }
    }
}

#[test]
fn follow_matches_a_one_shot_run_over_random_file_lives() {
    run(None, 1);
}

#[test]
fn follow_by_polling_matches_a_one_shot_run_over_random_file_lives() {
    run(Some("0.01"), 1_000_001);
}
