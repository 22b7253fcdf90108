//! The incremental stats cache (`ndjq statusline`, `stats --cache`; docs/DESIGN.md, "The
//! stats cache"): per log file, where reading it got to and the mergeable stats of what was
//! read, so that the next run reads only the bytes appended since.
//!
//! It lives in one folder (`$XDG_CACHE_HOME/ndjq`, else `~/.cache/ndjq`): an index per
//! configuration (`index-<hash>`: the time zone, range and reading options the states were
//! made with) naming, for each file in walk order, its device, inode, size, change times,
//! a fingerprint of its head, the offset read to (always just after a newline) and where
//! its stats up to there are: a slice of a pack (`states/<hash>.pack`), the states one run
//! made one after the other, each the JSON a `stats -f json --mergeable` run writes, read
//! back through [`Stats::from_report`]. One pack per run, not one file per log: a cold run
//! over 400 logs creates one file, not 400.
//!
//! Nothing in it is trusted: an index of another version or configuration, cut short or
//! damaged (its body carries its own hash), a state whose hash is not the one the index
//! names, a file that shrank, was replaced (another inode) or whose head changed, are all
//! read again from their start. A file's partial last line (no newline yet) is read for the
//! answer but never cached as read. Every write is a temporary file renamed over the old
//! one, so two runs at once each leave a whole index naming whole packs; the last one wins.
//!
//! The stats of the files are combined with [`Stats::merge`], in walk order, as a plain
//! run combines its workers' parts; a file that grew is its cached state merged with the
//! stats of the appended lines, which is exact for the agents whose records do not inherit
//! context from earlier ones ([`Stats::counts_in_blocks`], as a large file's blocks are
//! counted); a file of another agent that grew is read again whole.

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::error::Error;
use crate::input::head::{Head, HEAD_MAX};
use crate::input::{self, Source};
use crate::pipeline::{Consumer, Flow, Pipeline, Record};
use crate::stats::{Clock, CostMode, Pricing, Report, Stats};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{self, File};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The version of the cache's layout: an index of another version is ignored. The
/// version of ndjq is part of the check too, since the state it holds may change.
const FORMAT: &str = "ndjq-stats-cache 2";

/// The bytes of a file's head its fingerprint covers.
pub const HEAD_BYTES: usize = HEAD_MAX as usize;

/// Packs and temporary files no index names are removed once this old (a run going on at
/// the same time may be about to name the pack it just wrote).
const STALE_AFTER: Duration = Duration::from_secs(600);

/// The folder of the cache: `$XDG_CACHE_HOME/ndjq`, else `$HOME/.cache/ndjq`.
pub fn default_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .map(|p| p.join("ndjq"))
        .or_else(|| set("HOME").map(|h| h.join(".cache").join("ndjq")))
}

/// A fingerprint of a file's head: the first 64 bits of the [`Head`] `--follow` takes of
/// its first `len` bytes (at most [`HEAD_BYTES`]), so both know a file the same way. A file
/// written again at the same path (ext4 gives the new one the old inode at once) or
/// rewritten in place has another head, so it is read from its start; a file now shorter
/// than `len` has none.
pub fn head_fingerprint(file: &File, len: u64) -> io::Result<u64> {
    let head = Head::of(file, len)?;
    if head.len < len.min(HEAD_BYTES as u64) {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let mut first = [0u8; 8];
    first.copy_from_slice(&head.hash[..8]);
    Ok(u64::from_le_bytes(first))
}

/// A hash of `bytes` that stays the same from run to run (a fixed seed).
fn hash(bytes: &[u8]) -> u64 {
    let mut h = foldhash::quality::FixedState::with_seed(0x6e64_6a71_6361_6368).build_hasher();
    h.write(bytes);
    h.write_usize(bytes.len());
    h.finish()
}

/// What the cache knows of one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// The path as walked (a path that is not UTF-8 is not cached: it is read each time).
    path: String,
    /// The file as it was when this entry was written: what tells that nothing changed.
    seen: Seen,
    /// Bytes read into the state: just after a newline (or the whole of a compressed file).
    offset: u64,
    /// Lines read into the state.
    line: u64,
    /// The file's agent, as its first records told (`None`: not known yet).
    dialect: Option<String>,
    /// The fingerprint of the first `head_len` bytes.
    head: u64,
    head_len: u64,
    /// The pack holding the state (`states/NAME`), where in it, its length and hash.
    state: String,
    state_at: u64,
    state_len: u64,
    state_hash: u64,
    /// A gzip or zstd file: read whole whenever it changes.
    compressed: bool,
}

/// A file's identity and the size and times that change when it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Seen {
    fn of(m: &fs::Metadata) -> Seen {
        Seen {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// An index: the configuration its states were made with, its files (those of the last
/// walk in walk order, then those other walks read that are still there), and what a
/// command derived from the files of one walk (valid while none of them changes).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    key: String,
    files: Vec<Entry>,
    #[serde(default)]
    derived: Option<serde_json::Value>,
    /// The hash of the paths and [`Seen`]s of the walk `derived` was made from.
    #[serde(default)]
    derived_over: u64,
}

/// What a cache is made for: the states of one time zone, time range and way of reading
/// (`statusline` and `stats --cache` on the same settings share them).
pub fn config_key(clock: &Clock, options: &crate::pipeline::Options) -> String {
    format!("{:?} {:?} {:?}", clock.tz, clock.range, options)
}

/// A hash of the files of a walk as they are: paths, identities, sizes and times.
fn walk_hash(files: &[(PathBuf, fs::Metadata)]) -> u64 {
    let mut h = foldhash::quality::FixedState::with_seed(0x7761_6c6b).build_hasher();
    for (path, meta) in files {
        h.write(path.as_os_str().as_encoded_bytes());
        h.write_u8(0);
        let seen = Seen::of(meta);
        for n in [seen.dev, seen.ino, seen.size] {
            h.write_u64(n);
        }
        for (a, b) in [seen.mtime, seen.ctime] {
            h.write_i64(a);
            h.write_i64(b);
        }
    }
    h.write_usize(files.len());
    h.finish()
}

/// How a refresh went (`stats --cache` says it on stderr).
#[derive(Debug, Default, Clone, Copy)]
pub struct Refreshed {
    /// Files answered from the cache without reading a byte.
    pub unchanged: u64,
    /// Files of which only the appended bytes were read.
    pub appended: u64,
    /// Files read from their start (new, replaced, shrunk, or their cache unusable).
    pub read_whole: u64,
    /// Bytes read from the logs.
    pub bytes_read: u64,
}

impl Refreshed {
    fn add(&mut self, other: Refreshed) {
        self.unchanged += other.unchanged;
        self.appended += other.appended;
        self.read_whole += other.read_whole;
        self.bytes_read += other.bytes_read;
    }
}

/// The cache of one configuration, loaded.
#[derive(Debug)]
pub struct StatsCache {
    dir: PathBuf,
    key: String,
    index: Index,
    /// The index as loaded names the same files, unchanged, as the last walk found.
    unchanged: bool,
    /// The index changed since it was read: it is written by [`StatsCache::save`].
    dirty: bool,
    /// The [`walk_hash`] of the last refresh's files.
    over: u64,
    /// The packs the index names, read whole (a refresh reads them once).
    packs: HashMap<String, Vec<u8>>,
}

/// One file's outcome: its entry for the index, and the state's bytes when they are new
/// (to be written into this run's pack).
type Stored = Option<(Entry, Option<Vec<u8>>)>;

impl StatsCache {
    /// Loads the index of configuration `key` from `dir`; a missing, damaged or other
    /// version's index is an empty one.
    pub fn open(dir: &Path, key: &str) -> StatsCache {
        let key = format!(
            "{FORMAT} ndjq {} {:016x}",
            env!("CARGO_PKG_VERSION"),
            hash(key.as_bytes())
        );
        let index = read_index(&index_path(dir, &key))
            .filter(|i| i.key == key)
            .unwrap_or_default();
        StatsCache {
            dir: dir.to_path_buf(),
            key,
            index,
            unchanged: false,
            dirty: false,
            over: 0,
            packs: HashMap::new(),
        }
    }

    /// What a command derived from the files last time, if none of `files` (in walk
    /// order) changed since: the same paths, each with the same identity, size and times.
    pub fn derived_if_unchanged(
        &self,
        files: &[(PathBuf, fs::Metadata)],
    ) -> Option<&serde_json::Value> {
        let derived = self.index.derived.as_ref()?;
        (self.index.derived_over == walk_hash(files)).then_some(derived)
    }

    /// Keeps what a command derived from the stats of the files of the last refresh, for
    /// [`StatsCache::derived_if_unchanged`]; written by [`StatsCache::save`].
    pub fn set_derived(&mut self, value: serde_json::Value) {
        self.index.derived = Some(value);
        self.index.derived_over = self.over;
        self.dirty = true;
    }

    /// The stats of `files` (in walk order, each with its metadata), with `clock`, read
    /// through `options` on `threads` workers: from the cache where a file did not
    /// change, from the appended bytes where it grew, from its start otherwise. The files'
    /// stats are merged in walk order. Errors reading a file go to `report` and the file
    /// is left out, as a plain run does.
    pub fn refresh(
        &mut self,
        files: &[(PathBuf, fs::Metadata)],
        clock: &Clock,
        options: &crate::pipeline::Options,
        threads: usize,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Stats, Refreshed), Error> {
        let mut old: HashMap<String, Entry> = std::mem::take(&mut self.index.files)
            .into_iter()
            .map(|e| (e.path.clone(), e))
            .collect();
        self.over = walk_hash(files);
        let mut all_same = true;
        let jobs: Vec<(&PathBuf, &fs::Metadata, Option<Entry>)> = files
            .iter()
            .map(|(path, meta)| {
                let prior = path.to_str().and_then(|k| old.remove(k));
                all_same &= prior.as_ref().is_some_and(|e| e.seen == Seen::of(meta));
                (path, meta, prior)
            })
            .collect();
        for e in jobs.iter().filter_map(|j| j.2.as_ref()) {
            if !self.packs.contains_key(&e.state) {
                if let Ok(bytes) = fs::read(self.dir.join("states").join(&e.state)) {
                    self.packs.insert(e.state.clone(), bytes);
                }
            }
        }
        // The files other walks read (another set of folders on the same settings) are
        // kept while they are there.
        let others_before = old.len();
        let mut others: Vec<Entry> = old
            .into_values()
            .filter(|e| fs::symlink_metadata(&e.path).is_ok())
            .collect();
        others.sort_by(|a, b| a.path.cmp(&b.path));
        all_same &= others.len() == others_before;
        let mut total = Stats::with_clock(clock.clone());
        let mut done = Refreshed::default();
        let mut entries: Vec<Entry> = Vec::with_capacity(files.len());
        // The new states, one after the other: this run's pack.
        let mut pack: Vec<u8> = Vec::new();
        let mut packed: Vec<usize> = Vec::new();
        let mut take = |result: Result<(Stored, Stats, Refreshed), Error>| {
            match result {
                Ok((stored, stats, counts)) => {
                    if let Some((mut entry, bytes)) = stored {
                        if let Some(bytes) = bytes {
                            entry.state_at = pack.len() as u64;
                            pack.extend_from_slice(&bytes);
                            packed.push(entries.len());
                        }
                        entries.push(entry);
                    }
                    total.merge(stats);
                    done.add(counts);
                }
                Err(e @ Error::Write(_)) => return Err(e),
                Err(e) => {
                    all_same = false;
                    report(&e);
                }
            }
            Ok(())
        };
        let this = &*self;
        let run = |pipeline: &mut Pipeline, job: &(&PathBuf, &fs::Metadata, Option<Entry>)| {
            let mut counts = Refreshed::default();
            this.one_file(pipeline, job.0, job.1, job.2.clone(), clock, &mut counts)
                .map(|(entry, stats)| (entry, stats, counts))
        };
        let threads = threads.clamp(1, jobs.len().max(1));
        if threads == 1 {
            let mut pipeline = Pipeline::new(options.clone());
            for job in &jobs {
                take(run(&mut pipeline, job))?;
            }
        } else {
            // Workers take the next file; this thread merges their results in walk order.
            let next = AtomicU64::new(0);
            std::thread::scope(|scope| -> Result<(), Error> {
                let (tx, rx) = std::sync::mpsc::channel();
                for _ in 0..threads {
                    let tx = tx.clone();
                    let (next, jobs, run) = (&next, &jobs, &run);
                    scope.spawn(move || {
                        let mut pipeline = Pipeline::new(options.clone());
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                            let Some(job) = jobs.get(i) else { break };
                            if tx.send((i, run(&mut pipeline, job))).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(tx);
                let mut pending = std::collections::BTreeMap::new();
                let mut want = 0;
                for (i, result) in rx {
                    pending.insert(i, result);
                    while let Some(result) = pending.remove(&want) {
                        take(result)?;
                        want += 1;
                    }
                }
                Ok(())
            })?;
        }
        if !packed.is_empty() {
            let name = format!("{:016x}.pack", hash(&pack));
            let states = self.dir.join("states");
            let written =
                fs::create_dir_all(&states).and_then(|()| write_atomic(&states.join(&name), &pack));
            if written.is_ok() {
                for &i in &packed {
                    entries[i].state.clone_from(&name);
                }
                self.packs.insert(name, pack);
            } else {
                // Not written: those files are read again next time.
                let mut i = 0;
                entries.retain(|_| {
                    i += 1;
                    !packed.contains(&(i - 1))
                });
            }
        }
        self.unchanged = all_same;
        if !self.unchanged {
            self.index.derived = None;
            self.dirty = true;
        }
        entries.extend(others);
        self.index.files = entries;
        Ok((total, done))
    }

    /// One file's stats (for the total) and its entry (for the index; `None` when it
    /// could not be cached).
    fn one_file(
        &self,
        pipeline: &mut Pipeline,
        path: &Path,
        meta: &fs::Metadata,
        prior: Option<Entry>,
        clock: &Clock,
        done: &mut Refreshed,
    ) -> Result<(Stored, Stats), Error> {
        let name: Arc<str> = Source::File(path.to_path_buf()).display_name();
        let seen = Seen::of(meta);
        if let Some(e) = prior
            .as_ref()
            .filter(|e| e.seen == seen && e.offset == seen.size)
        {
            if let Some(stats) = self.load_state(e, clock) {
                done.unchanged += 1;
                return Ok((prior.map(|e| (e, None)), stats));
            }
        }
        let file = input::open_file(path)?;
        // What the file is now: the metadata of the opened file (it may have been
        // replaced since the walk looked).
        let meta = file.metadata().map_err(|e| read_error(&name, e))?;
        let seen = Seen::of(&meta);
        let mut head = [0u8; 4];
        let head_n = file
            .read_at(&mut head, 0)
            .map_err(|e| read_error(&name, e))?;
        if input::is_compressed(&head[..head_n]) {
            return self.whole_compressed(pipeline, file, &name, path, seen, clock, done);
        }
        // Where to start: the cached offset when the file only grew.
        let mut base: Option<(Stats, &Entry)> = None;
        if let Some(e) = prior.as_ref() {
            let dialect = e.dialect.as_deref().and_then(Dialect::parse);
            // Only grown (or left as it was, with a partial last line): the same file,
            // not smaller, and if as large, not written since.
            let grew = e.seen.dev == seen.dev
                && e.seen.ino == seen.ino
                && !e.compressed
                && (seen.size > e.seen.size || seen == e.seen)
                && dialect.is_some_and(|d| Stats::counts_in_blocks(Some(d)));
            let continues = grew && head_fingerprint(&file, e.head_len).ok() == Some(e.head);
            if continues {
                if let Some(stats) = self.load_state(e, clock) {
                    base = Some((stats, e));
                }
            }
        }
        let size = seen.size;
        let (start, line, dialect) = match &base {
            Some((_, e)) => (
                e.offset,
                e.line,
                e.dialect.as_deref().and_then(Dialect::parse),
            ),
            None => (0, 0, None),
        };
        let cut = match crate::input::last_newline(&file, start, size)
            .map_err(|e| read_error(&name, e))?
        {
            Some(nl) => nl + 1,
            None => start,
        };
        // Nothing complete was added since the cached state (only a partial line, or a
        // file left as it was with one): the state stays as it is.
        let nothing_new = cut == start && base.is_some();
        let (mut stats, line, dialect) = match base {
            Some((stats, _)) if nothing_new => {
                done.unchanged += 1;
                (stats, line, dialect)
            }
            base => {
                // The complete lines from `start` to `cut`: cached.
                let mut part = Stats::with_clock(clock.clone());
                part.begin_input(&name);
                let (line, dialect) = {
                    let reader = ranged(&file, start, cut).map_err(|e| read_error(&name, e))?;
                    let mut sink = Collect(&mut part);
                    let (_, line, _) = pipeline.run_part(
                        &name,
                        reader,
                        (line, start),
                        Some(dialect),
                        &mut sink,
                    )?;
                    (line, pipeline.dialect().or(dialect))
                };
                part.end_input(dialect);
                done.bytes_read += cut - start;
                let stats = match base {
                    Some((mut stats, _)) => {
                        part.summary.files = 0;
                        stats.merge(part);
                        done.appended += 1;
                        stats
                    }
                    None => {
                        done.read_whole += 1;
                        part
                    }
                };
                (stats, line, dialect)
            }
        };
        let head_len = size.min(HEAD_BYTES as u64);
        let kept = prior
            .as_ref()
            .filter(|_| nothing_new)
            .map(|e| (Entry { seen, ..e.clone() }, None));
        let entry = kept.or_else(|| {
            encode_state(&stats).and_then(|bytes| {
                let e = Entry {
                    path: path.to_str()?.to_string(),
                    seen,
                    offset: cut,
                    line,
                    dialect: dialect.map(|d| d.name().to_string()),
                    head: head_fingerprint(&file, head_len).ok()?,
                    head_len,
                    state: String::new(),
                    state_at: 0,
                    state_len: bytes.len() as u64,
                    state_hash: hash(&bytes),
                    compressed: false,
                };
                Some((e, Some(bytes)))
            })
        });
        if cut < size {
            // A partial last line: in the answer, never in the cache.
            done.bytes_read += size - cut;
            if dialect.is_some_and(|d| Stats::counts_in_blocks(Some(d))) {
                let mut tail = Stats::with_clock(clock.clone());
                tail.begin_input(&name);
                let reader = ranged(&file, cut, size).map_err(|e| read_error(&name, e))?;
                pipeline.run_part(
                    &name,
                    reader,
                    (line, cut),
                    Some(dialect),
                    &mut Collect(&mut tail),
                )?;
                tail.end_input(dialect);
                tail.summary.files = 0;
                stats.merge(tail);
            } else {
                // Its records may lean on the ones before: the whole file in one pass.
                stats = Stats::with_clock(clock.clone());
                let reader = ranged(&file, 0, size).map_err(|e| read_error(&name, e))?;
                pipeline.run(&name, reader, &mut Collect(&mut stats))?;
                done.bytes_read += size;
            }
        }
        Ok((entry, stats))
    }

    /// A gzip or zstd file, read whole.
    #[allow(clippy::too_many_arguments)]
    fn whole_compressed(
        &self,
        pipeline: &mut Pipeline,
        file: File,
        name: &Arc<str>,
        path: &Path,
        seen: Seen,
        clock: &Clock,
        done: &mut Refreshed,
    ) -> Result<(Stored, Stats), Error> {
        let head_len = seen.size.min(HEAD_BYTES as u64);
        let head = head_fingerprint(&file, head_len).map_err(|e| read_error(name, e))?;
        let reader =
            input::decompress(ranged(&file, 0, seen.size).map_err(|e| read_error(name, e))?)
                .map_err(|e| read_error(name, e))?;
        let mut stats = Stats::with_clock(clock.clone());
        pipeline.run(name, reader, &mut Collect(&mut stats))?;
        done.read_whole += 1;
        done.bytes_read += seen.size;
        let entry = encode_state(&stats).and_then(|bytes| {
            let e = Entry {
                path: path.to_str()?.to_string(),
                seen,
                offset: seen.size,
                line: 0,
                dialect: pipeline.dialect().map(|d| d.name().to_string()),
                head,
                head_len,
                state: String::new(),
                state_at: 0,
                state_len: bytes.len() as u64,
                state_hash: hash(&bytes),
                compressed: true,
            };
            Some((e, Some(bytes)))
        });
        Ok((entry, stats))
    }

    /// The stats an entry's state holds, if its pack was read and the state is whole and
    /// what the index says.
    fn load_state(&self, e: &Entry, clock: &Clock) -> Option<Stats> {
        let pack = self.packs.get(&e.state)?;
        let at = usize::try_from(e.state_at).ok()?;
        let bytes = pack.get(at..at.checked_add(usize::try_from(e.state_len).ok()?)?)?;
        if hash(bytes) != e.state_hash {
            return None;
        }
        let report: Report = serde_json::from_slice(bytes).ok()?;
        if report.schema != crate::stats::SCHEMA {
            return None;
        }
        let parsed = Stats::from_report(report).ok()?;
        let mut stats = Stats::with_clock(clock.clone());
        stats.merge(parsed);
        // Not a part priced elsewhere: the states carry no prices.
        stats.parts_pricing.clear();
        Some(stats)
    }

    /// Writes the index (a temporary file renamed over the old one) if it changed, then
    /// removes the packs no index names.
    pub fn save(&mut self) -> io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        fs::create_dir_all(&self.dir)?;
        self.index.key.clone_from(&self.key);
        let body = serde_json::to_vec(&self.index)?;
        let mut bytes = format!("{FORMAT}\n{:016x} {}\n", hash(&body), body.len()).into_bytes();
        bytes.extend_from_slice(&body);
        write_atomic(&index_path(&self.dir, &self.key), &bytes)?;
        self.dirty = false;
        self.collect_garbage();
        Ok(())
    }

    /// Removes packs and temporary files that no index names and that are older than
    /// [`STALE_AFTER`].
    fn collect_garbage(&self) {
        let mut named = std::collections::HashSet::new();
        let Ok(list) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let stale = |p: &Path| {
            fs::metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d > STALE_AFTER))
        };
        for entry in list.flatten() {
            let file_name = entry.file_name();
            let n = file_name.to_string_lossy();
            if n.starts_with("index-") {
                if let Some(index) = read_index(&entry.path()) {
                    named.extend(index.files.into_iter().map(|e| e.state));
                }
            } else if n.starts_with(".tmp-") && stale(&entry.path()) {
                let _ = fs::remove_file(entry.path());
            }
        }
        let Ok(states) = fs::read_dir(self.dir.join("states")) else {
            return;
        };
        for entry in states.flatten() {
            let n = entry.file_name().to_string_lossy().into_owned();
            if !named.contains(&n) && stale(&entry.path()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// `stats`' merge state as the JSON of `stats -f json --mergeable` (no prices: the costs
/// are worked out when a report is made).
fn encode_state(stats: &Stats) -> Option<Vec<u8>> {
    let pricing = Pricing {
        mode: CostMode::Reported,
        ..Pricing::default()
    };
    let (report, state) = stats.json_report(None, &pricing, false).ok()?;
    let mut bytes = Vec::new();
    crate::sink::stats::write_json_with_state(&mut bytes, &report, &state).ok()?;
    Some(bytes)
}

/// The index file of configuration `key`.
fn index_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("index-{:016x}", hash(key.as_bytes())))
}

/// An index file's content, if it is whole: its first line the format, its second the
/// hash and length of the body, then the body.
fn read_index(path: &Path) -> Option<Index> {
    let bytes = fs::read(path).ok()?;
    let rest = bytes.strip_prefix(FORMAT.as_bytes())?.strip_prefix(b"\n")?;
    let nl = memchr::memchr(b'\n', rest)?;
    let (head, body) = (std::str::from_utf8(&rest[..nl]).ok()?, &rest[nl + 1..]);
    let (h, len) = head.split_once(' ')?;
    if u64::from_str_radix(h, 16).ok()? != hash(body) || len.parse::<usize>().ok()? != body.len() {
        return None;
    }
    serde_json::from_slice(body).ok()
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`: a
/// reader sees the old file or the new one, whole.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".tmp-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create(&tmp).and_then(|mut f| f.write_all(bytes));
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// The bytes `start..end` of `file`.
fn ranged(file: &File, start: u64, end: u64) -> io::Result<impl Read> {
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(start))?;
    Ok(f.take(end.saturating_sub(start)))
}

fn read_error(name: &str, source: io::Error) -> Error {
    Error::Read {
        file: name.to_string(),
        line: 0,
        offset: 0,
        source,
    }
}

/// The consumer that adds records to a [`Stats`]; diagnostics are counted, not shown.
struct Collect<'a>(&'a mut Stats);

impl Consumer for Collect<'_> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.0.begin_input(file);
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        self.0.add(record);
        Ok(Flow::Continue)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.add_bytes(bytes.len());
        Ok(())
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.0.end_input(dialect);
        Ok(())
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.0.summary.add_diagnostic(d);
        Ok(())
    }
}
