//! `ndjq-gen tree`: folders of session files as the agents leave them on disk.
//!
//! - `claude-projects`: `projects/<project>/<session-uuid>.jsonl`, one claude-log session
//!   per file (what `~/.claude` holds; `CLAUDE_CONFIG_DIR=OUT_DIR` points ccusage at it);
//! - `claude-large`: the same layout with fewer, bigger files;
//! - `claude-bimodal`: the same layout, half the files about 2 KB (a prompt and an answer)
//!   and half about 140 KB, each of those holding one tool result line of about 110 KB;
//! - `claude-long-lines`: 400 transcripts from a few KB to 3.2 MB, each one over 1.2 MB holding
//!   a tool result line of about 900 KB;
//! - `codex-sessions`: `sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` Codex rollouts
//!   (what `~/.codex` holds; `CODEX_HOME=OUT_DIR`).
//!
//! File sizes are drawn log-normal (most files small, a few large), clamped to
//! [`MIN_FILE`]..[`MAX_FILE`] ([`LONG_MAX_FILE`] for `claude-long-lines`; `claude-bimodal`
//! draws its two sizes instead) and scaled so that they add up to about the requested total;
//! a file ends at the first message boundary past its size. Each file has its own random
//! stream (from the seed and its index), so the files are generated on every core and the
//! tree is the same whatever the thread count.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::rng::Rng;
use crate::session::{Gen, Out, Totals};
use crate::text::{self, Texts};
use crate::{claude_log, codex_log};

pub const MIN_FILE: u64 = 2 << 10;
pub const MAX_FILE: u64 = 5 << 20;
/// The largest file of `claude-long-lines`.
pub const LONG_MAX_FILE: u64 = 3_200_000;
/// A `claude-long-lines` file this large holds one long line...
const LONG_FROM: u64 = 1_200_000;
/// ... of about this many bytes.
const LONG_LINE: u64 = 900_000;
/// The small files of `claude-bimodal`: about this size...
const BIMODAL_SMALL: u64 = 2_000;
/// ... and in its large ones, this much of every 140 bytes is the one long line.
const BIMODAL_LONG_OF_140: u64 = 110;
const DAY_MS: u64 = 86_400_000;

/// The kinds of tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    ClaudeProjects,
    ClaudeLarge,
    ClaudeBimodal,
    ClaudeLongLines,
    CodexSessions,
}

impl Shape {
    /// Default file count, total MiB, and the spread (sigma of ln size).
    pub fn defaults(self) -> (usize, f64, f64) {
        match self {
            Shape::ClaudeProjects => (3000, 300.0, 1.6),
            Shape::ClaudeLarge => (400, 450.0, 0.9),
            // 1,500 files of 2 KB and 1,500 of 140 KB: about 213 MB.
            Shape::ClaudeBimodal => (3000, 195.0, 0.0),
            // About 457 MB.
            Shape::ClaudeLongLines => (400, 436.0, 1.6),
            Shape::CodexSessions => (1000, 200.0, 1.6),
        }
    }

    fn top(self) -> &'static str {
        match self {
            Shape::CodexSessions => "sessions",
            _ => "projects",
        }
    }

    /// The largest file a shape draws.
    fn max_file(self) -> u64 {
        match self {
            Shape::ClaudeLongLines => LONG_MAX_FILE,
            _ => MAX_FILE,
        }
    }

    /// The length of the one long line of a file of `size` bytes, if it has one.
    fn long_line(self, rng: &mut Rng, size: u64) -> Option<usize> {
        let len = match self {
            Shape::ClaudeBimodal if size > 4 * BIMODAL_SMALL => size * BIMODAL_LONG_OF_140 / 140,
            Shape::ClaudeLongLines if size >= LONG_FROM => {
                rng.range(LONG_LINE - LONG_LINE / 20, LONG_LINE + LONG_LINE / 20)
            }
            _ => return None,
        };
        Some(len as usize)
    }
}

/// `n` file sizes adding up to about `total` bytes, log-normal with spread `sigma`, each in
/// [`MIN_FILE`]..=`max`.
pub fn sizes(rng: &mut Rng, n: usize, total: u64, sigma: f64, max: u64) -> Vec<u64> {
    if n == 0 {
        return Vec::new();
    }
    let raw: Vec<f64> = (0..n).map(|_| (sigma * rng.normal()).exp()).collect();
    let mut scale = total as f64 / raw.iter().sum::<f64>();
    let clamp = |x: f64| (x as u64).clamp(MIN_FILE, max);
    for _ in 0..30 {
        let sum: u64 = raw.iter().map(|&r| clamp(r * scale)).sum();
        if sum == 0 {
            break;
        }
        let ratio = total as f64 / sum as f64;
        if (ratio - 1.0).abs() < 0.001 {
            break;
        }
        scale *= ratio;
    }
    raw.iter().map(|&r| clamp(r * scale)).collect()
}

/// `n` file sizes adding up to about `total` bytes: every other file about
/// [`BIMODAL_SMALL`], the others sharing the rest, each within 7% of their mean.
pub fn bimodal_sizes(rng: &mut Rng, n: usize, total: u64) -> Vec<u64> {
    let large = n / 2;
    let small = n - large;
    let rest = total.saturating_sub(small as u64 * BIMODAL_SMALL);
    let mean = (rest / large.max(1) as u64).max(4 * BIMODAL_SMALL + 1);
    (0..n)
        .map(|i| {
            let (m, spread) = if i % 2 == 0 {
                (BIMODAL_SMALL, BIMODAL_SMALL / 4)
            } else {
                (mean, mean * 7 / 100)
            };
            rng.range(m - spread, m + spread + 1)
        })
        .collect()
}

/// A file being written: full once its target size is reached.
struct FileOut {
    w: BufWriter<std::fs::File>,
    bytes: u64,
    target: u64,
    error: Option<io::Error>,
}

impl Out for FileOut {
    fn record(&mut self, _ty: &str, line: &str) {
        if self.error.is_none() {
            let r = self
                .w
                .write_all(line.as_bytes())
                .and_then(|()| self.w.write_all(b"\n"));
            if let Err(e) = r {
                self.error = Some(e);
            }
        }
        self.bytes += line.len() as u64 + 1;
    }

    fn full(&self) -> bool {
        self.error.is_some() || self.bytes >= self.target
    }
}

/// What a tree holds, for the summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct Made {
    pub files: u64,
    pub bytes: u64,
    pub totals: Totals,
}

/// One project of a Claude tree: its working directory and its folder name (the cwd with
/// `/` and `.` turned into `-`, as Claude Code names it).
fn projects(rng: &mut Rng, n: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(n);
    for i in 0..n {
        let mut cwd = format!("/home/dev/{}-{}", text::word(rng), text::word(rng));
        if out.iter().any(|(c, _)| *c == cwd) {
            cwd = format!("{cwd}-{i}");
        }
        let dir = cwd.replace(['/', '.'], "-");
        out.push((cwd, dir));
    }
    out
}

/// Writes the tree under `out_dir`; `forks` percent of the odd-numbered files are forks of
/// the file before them.
pub fn make(
    shape: Shape,
    files: usize,
    total: u64,
    seed: u64,
    forks: u32,
    out_dir: &Path,
) -> io::Result<Made> {
    let top = out_dir.join(shape.top());
    if top.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is not empty: generate into an empty folder",
                top.display()
            ),
        ));
    }
    let (_, _, sigma) = shape.defaults();
    let mut rng = Rng::new(seed, 0x7ee);
    let sizes = match shape {
        Shape::ClaudeBimodal => bimodal_sizes(&mut rng, files, total),
        _ => sizes(&mut rng, files, total, sigma, shape.max_file()),
    };
    let projects = projects(&mut rng, (files / 75).max(1));
    let texts = Texts::new(seed);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let results: Vec<io::Result<Vec<(usize, Made)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&size) = sizes.get(i) else {
                            return Ok(done);
                        };
                        let at = At {
                            shape,
                            seed,
                            texts: &texts,
                            projects: &projects,
                            top: &top,
                        };
                        let parent = (i % 2 == 1
                            && Rng::new(seed, 0x2_0000 + i as u64).below(100) < u64::from(forks))
                        .then(|| sizes[i - 1]);
                        let made = file(&at, i, size, parent)?;
                        done.push((i, made));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a generator thread panicked")))
            })
            .collect()
    });
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    // Summed in file order, so the summary's float cost is the same on every run.
    all.sort_by_key(|(i, _)| *i);
    let mut made = Made::default();
    for (_, m) in all {
        made.files += m.files;
        made.bytes += m.bytes;
        made.totals.add(&m.totals);
    }
    Ok(made)
}

/// The session a file holds.
enum Place {
    Claude(claude_log::Place),
    Codex(codex_log::Place),
}

/// What every file of a tree is made from.
struct At<'a> {
    shape: Shape,
    seed: u64,
    texts: &'a Texts,
    projects: &'a [(String, String)],
    top: &'a Path,
}

/// File `i`'s generator, path and session, before anything is written.
fn prepare<'t>(at: &At<'t>, i: usize, size: u64) -> (Gen<'t>, std::path::PathBuf, Place) {
    let (shape, projects, top) = (at.shape, at.projects, at.top);
    let mut rng = Rng::new(at.seed, 0x1_0000 + i as u64);
    // A few projects hold most sessions.
    let p = ((projects.len() as f64) * rng.unit().powi(2)) as usize;
    let start = text::EPOCH_MS + rng.below(90 * DAY_MS);
    let mut g = Gen::new(rng, at.texts);
    g.clock = start;
    g.max_piece = (size / 3).max(400) as usize;
    if let Some(len) = shape.long_line(&mut g.rng, size) {
        // The long line comes after a few of the file's other tool results.
        let rest = size.saturating_sub(len as u64);
        let before = g.rng.below((rest / 16000).max(1));
        g.long_piece = Some((before, len));
        g.max_piece = (rest / 3).max(400) as usize;
    }
    let (path, place) = match shape {
        Shape::CodexSessions => {
            let sid = text::uuid7(&mut g.rng, start);
            let (y, mo, d, h, mi, s, _) = text::parts(start);
            let dir = top.join(format!("{y:04}/{mo:02}/{d:02}"));
            let name = format!("rollout-{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{s:02}-{sid}.jsonl");
            let place = codex_log::Place {
                cwd: projects[p.min(projects.len() - 1)].0.clone(),
                session_id: sid,
                forked_from: None,
            };
            (dir.join(name), Place::Codex(place))
        }
        _ => {
            let sid = g.uuid();
            let (cwd, dir) = &projects[p.min(projects.len() - 1)];
            let path = top.join(dir).join(format!("{sid}.jsonl"));
            let place = claude_log::Place {
                cwd: cwd.clone(),
                session_id: sid,
            };
            (path, Place::Claude(place))
        }
    };
    (g, path, place)
}

/// The lines of a session, kept in memory (a fork's parent, made again).
struct Lines {
    lines: Vec<String>,
    bytes: u64,
    target: u64,
}

impl Out for Lines {
    fn record(&mut self, _ty: &str, line: &str) {
        self.bytes += line.len() as u64 + 1;
        self.lines.push(line.to_string());
    }

    fn full(&self) -> bool {
        self.bytes >= self.target
    }
}

/// Writes file `i` of the tree; `parent` (the size of file `i - 1`) makes it a fork of
/// file `i - 1`, which is made again in memory: a Claude fork copies its messages first
/// (`sessionId` rewritten, `requestSessionId` naming the parent), a Codex fork starts its
/// totals from the parent's.
fn file(at: &At<'_>, i: usize, size: u64, parent: Option<u64>) -> io::Result<Made> {
    let (mut g, path, mut place) = prepare(at, i, size);
    let mut copies: Vec<String> = Vec::new();
    if let Some(parent_size) = parent {
        let (mut pg, _, parent_place) = prepare(at, i - 1, parent_size);
        let mut mem = Lines {
            lines: Vec::new(),
            bytes: 0,
            target: parent_size,
        };
        match (&parent_place, &mut place) {
            (Place::Claude(pp), Place::Claude(me)) => {
                claude_log::session(&mut pg, &mut mem, pp, true);
                let from = format!("\"sessionId\":\"{}\"", pp.session_id);
                let to = format!("\"sessionId\":\"{}\"", me.session_id);
                for line in &mem.lines {
                    let line = line.replace(&from, &to);
                    copies.push(if line.contains("\"type\":\"assistant\"") {
                        format!(
                            "{{\"requestSessionId\":\"{}\",{}",
                            pp.session_id,
                            &line[1..]
                        )
                    } else {
                        line
                    });
                }
            }
            (Place::Codex(pp), Place::Codex(me)) => {
                let base = codex_log::session(&mut pg, &mut mem, pp, true);
                me.forked_from = Some((pp.session_id.clone(), base));
            }
            _ => {}
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = FileOut {
        w: BufWriter::with_capacity(1 << 16, std::fs::File::create(&path)?),
        bytes: 0,
        target: size,
        error: None,
    };
    for line in &copies {
        out.record("copy", line);
    }
    // The fork's own session is as large as the file would be without the copies.
    out.target = out.target.saturating_add(out.bytes);
    match &place {
        Place::Claude(p) => claude_log::session(&mut g, &mut out, p, true),
        Place::Codex(p) => {
            codex_log::session(&mut g, &mut out, p, true);
        }
    }
    if let Some(e) = out.error.take() {
        return Err(e);
    }
    out.w.flush()?;
    Ok(Made {
        files: 1,
        bytes: out.bytes,
        totals: g.totals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_add_up_and_stay_in_bounds() {
        let mut rng = Rng::new(1, 2);
        let s = sizes(&mut rng, 3000, 300 << 20, 1.6, MAX_FILE);
        let sum: u64 = s.iter().sum();
        assert!(
            (sum as f64 / (300u64 << 20) as f64 - 1.0).abs() < 0.01,
            "{sum}"
        );
        assert!(s.iter().all(|&x| (MIN_FILE..=MAX_FILE).contains(&x)));
        let mut sorted = s.clone();
        sorted.sort_unstable();
        assert!(
            sorted[1500] < sum / 3000,
            "most files are smaller than the mean"
        );
        assert!(sorted[2999] > 20 * sorted[1500], "a few are much larger");
    }

    #[test]
    fn bimodal_sizes_are_half_small_half_large() {
        let mut rng = Rng::new(1, 2);
        let total = 195u64 << 20;
        let s = bimodal_sizes(&mut rng, 3000, total);
        let sum: u64 = s.iter().sum();
        assert!((sum as f64 / total as f64 - 1.0).abs() < 0.01, "{sum}");
        let small = s.iter().filter(|&&x| x <= 2 * BIMODAL_SMALL).count();
        assert_eq!(small, 1500);
        assert!(s
            .iter()
            .all(|&x| x <= 2 * BIMODAL_SMALL || (120_000..150_000).contains(&x)));
    }

    #[test]
    fn long_lines_sizes_span_2_kb_to_3_2_mb() {
        let mut rng = Rng::new(1, 0x7ee);
        let (n, mb, sigma) = Shape::ClaudeLongLines.defaults();
        let s = sizes(&mut rng, n, (mb * 1048576.0) as u64, sigma, LONG_MAX_FILE);
        assert!(s.iter().min().is_some_and(|&x| x < 16 << 10));
        assert_eq!(s.iter().max(), Some(&LONG_MAX_FILE));
        let long = s.iter().filter(|&&x| x >= LONG_FROM).count();
        assert!(long > 50, "{long} files with a long line");
    }
}
