//! `--follow`: after reading what is there, keep reading as files grow, like `tail -F`
//! (docs/GUIDE.md, "Following live logs"; docs/DESIGN.md, "Following").
//!
//! A follow source feeds the same [`Pipeline`] and [`Consumer`] as a plain run, one part of
//! a file at a time: the bytes appended since the last part, up to the last newline (a
//! partial last line waits for its newline, and is handed out as it stands only when the
//! run ends). Per file it keeps only its name, device and inode, the offset and line
//! number reached and its dialect: no file stays open between parts, so a tree of
//! thousands of files costs a few hundred bytes each and no handle.
//!
//! What to read is told by file-system notifications (inotify, kqueue, FSEvents through
//! the `notify` crate), or with `--poll SECS` by a walk of the followed paths every SECS
//! seconds. While nothing changes the reader thread sleeps in a channel receive: no CPU.
//!
//! Consumers see inputs as in a plain run: `begin_input`, records, `end_input`. A file
//! stays the current input while only it grows; when another file's records come, the
//! current one is ended and the other begun (or resumed, with
//! [`Consumer::resume_input`], when it was read before). A truncated or replaced file is a
//! new input read from its start, with a note.

use crate::dialect::Dialect;
use crate::error::Error;
use crate::input::{is_compressed, is_log_file, Source, Walk};
use crate::pipeline::{Consumer, Flow, Pipeline};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to follow.
#[derive(Debug, Clone, Default)]
pub struct FollowOptions {
    /// Walk the followed paths every this often instead of waiting for notifications (file
    /// systems without them: NFS, some containers).
    pub poll: Option<Duration>,
    /// The files this run writes: never read, however they grow (docs/REFERENCE.md,
    /// "Own outputs").
    pub own: super::OwnOutputs,
}

/// Why following ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowEnd {
    /// SIGINT or SIGTERM arrived: its number.
    Signal(i32),
    /// The consumer needed no more (`--max-count`).
    Stopped,
}

/// What a command does between parts: called after each batch of changes has been read
/// (`changed`) and when the time it last asked for has come. It returns how long it may
/// wait at most before it is called again (`None`: only after the next change).
pub trait Tick<C> {
    fn tick(&mut self, consumer: &mut C, changed: bool) -> io::Result<Option<Duration>>;
}

/// No tick: commands that write as records come.
#[derive(Debug)]
pub struct NoTick;

impl<C> Tick<C> for NoTick {
    fn tick(&mut self, _: &mut C, _: bool) -> io::Result<Option<Duration>> {
        Ok(None)
    }
}

/// One followed file: where reading it got to.
#[derive(Debug)]
struct Followed {
    name: Arc<str>,
    dev: u64,
    ino: u64,
    /// Bytes read: through the last newline seen.
    offset: u64,
    /// The number of the last record read.
    line: u64,
    dialect: Option<Dialect>,
    /// Consumers were told of this input (later parts resume it).
    begun: bool,
    /// A compressed file: read whole once, not followed (appending to one makes no
    /// sense); read again only if it is replaced.
    whole: bool,
}

/// A path named on the command line: where it is (absolute, for notification paths) and
/// how it was written (for file names in the output).
#[derive(Debug)]
struct Named {
    abs: PathBuf,
    shown: PathBuf,
}

enum Msg {
    Fs(notify::Result<notify::Event>),
    Signal,
}

/// The signal that ended following (0: none yet).
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// Follows `paths` (files and folders, as the command line resolved them; `-` is skipped:
/// the caller reads stdin) until SIGINT or SIGTERM, feeding `consumer`. Errors opening or
/// reading a file are handed to `report` and following goes on; a write error ends it.
pub fn follow<C: Consumer>(
    pipeline: &mut Pipeline,
    paths: &[PathBuf],
    options: &FollowOptions,
    consumer: &mut C,
    report: &mut dyn FnMut(&Error),
    tick: &mut dyn Tick<C>,
) -> Result<FollowEnd, Error> {
    let (tx, rx) = mpsc::channel();
    listen_for_signals(tx.clone()).map_err(Error::Write)?;
    // A file that cannot be read, or a FIFO in a folder, is reported once, not at every
    // look (`--poll` looks every few seconds); notes about truncations always.
    let mut said = BTreeSet::new();
    let mut report = |e: &Error| {
        if matches!(e, Error::FollowNote(_)) || said.insert(e.to_string()) {
            report(e);
        }
    };
    let report: &mut dyn FnMut(&Error) = &mut report;
    let mut f = Follower {
        pipeline,
        files: BTreeMap::new(),
        folders: Vec::new(),
        named: Vec::new(),
        current: None,
        own: options.own.clone(),
        stores: BTreeMap::new(),
        recheck: None,
    };
    for p in paths.iter().filter(|p| p.as_os_str() != "-") {
        let named = Named {
            abs: std::path::absolute(p).unwrap_or_else(|_| p.clone()),
            shown: p.clone(),
        };
        if p.is_dir() {
            f.folders.push(named);
        } else {
            f.named.push(named);
        }
    }
    // Watching starts before the first read: what is written meanwhile is seen.
    let mut poll = options.poll;
    let _watcher = match poll {
        Some(_) => None,
        None => match f.watch(tx) {
            Ok(w) => Some(w),
            Err(e) => {
                let every = Duration::from_secs(1);
                report(&Error::FollowNote(format!(
                    "file-system notifications are not available ({e}); checking every {} s",
                    every.as_secs()
                )));
                poll = Some(every);
                None
            }
        },
    };
    // What is there, in the order a plain run reads it (never what this run writes).
    for source in Walk::excluding(paths, options.own.clone()) {
        if let Some(sig) = signalled() {
            return f.finish(consumer, report, FollowEnd::Signal(sig));
        }
        let path = match source {
            Ok(Source::File(p)) => p,
            Ok(Source::Stdin) => continue,
            // OpenCode's store: followed by its rows (docs/REFERENCE.md, "OpenCode's store").
            Ok(Source::Store(p)) => {
                if f.read_store(&p, consumer, report)? == Flow::Stop {
                    return f.finish(consumer, report, FollowEnd::Stopped);
                }
                continue;
            }
            // A folder may be empty yet: its files are read when they come.
            Err(Error::NoLogs { .. }) => continue,
            Err(e) => {
                report(&e);
                continue;
            }
        };
        if fs::metadata(&path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            // A FIFO or device named on the command line: read to its end, as without
            // --follow (it has no size or offset to follow).
            if f.read_stream(&path, consumer, report)? == Flow::Stop {
                return f.finish(consumer, report, FollowEnd::Stopped);
            }
            continue;
        }
        let abs = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        if f.catch_up(&abs, &path, consumer, report)? == Flow::Stop {
            return f.finish(consumer, report, FollowEnd::Stopped);
        }
    }
    let mut next_tick = after(tick.tick(consumer, true).map_err(Error::Write)?);
    let mut next_poll = poll.map(|p| Instant::now() + p);
    loop {
        let deadline = [next_tick, next_poll, f.recheck]
            .into_iter()
            .flatten()
            .min();
        let first = match deadline {
            None => rx.recv().ok(),
            Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::Write(io::ErrorKind::BrokenPipe.into()))
                }
            },
        };
        // Everything that is waiting, at once: a burst of writes is one batch.
        let mut dirty = BTreeSet::new();
        let mut rescan = false;
        for msg in first
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            match msg {
                Msg::Signal => {}
                Msg::Fs(Ok(event)) => {
                    rescan |= event.need_rescan();
                    if !matches!(event.kind, notify::EventKind::Access(_)) {
                        dirty.extend(event.paths);
                    }
                }
                // A lost event (an overflowed queue): look at everything.
                Msg::Fs(Err(_)) => rescan = true,
            }
        }
        if let Some(sig) = signalled() {
            return f.finish(consumer, report, FollowEnd::Signal(sig));
        }
        let now = Instant::now();
        if next_poll.is_some_and(|t| t <= now) {
            rescan = true;
            next_poll = poll.map(|p| now + p);
        }
        let mut changed = false;
        if f.recheck.is_some_and(|t| t <= now) {
            f.recheck = None;
            let (flow, c) = f.recheck_stores(consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return f.finish(consumer, report, FollowEnd::Stopped);
            }
        }
        if rescan {
            let (flow, c) = f.rescan(consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return f.finish(consumer, report, FollowEnd::Stopped);
            }
        }
        for path in dirty {
            let (flow, c) = f.touch(&path, consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return f.finish(consumer, report, FollowEnd::Stopped);
            }
        }
        if changed || next_tick.is_some_and(|t| t <= Instant::now()) {
            next_tick = after(tick.tick(consumer, changed).map_err(Error::Write)?);
        }
    }
}

fn after(wait: Option<Duration>) -> Option<Instant> {
    wait.map(|d| Instant::now() + d)
}

fn signalled() -> Option<i32> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// SIGINT and SIGTERM end following: the signal is noted and the reader woken up. Once
/// registered, a second signal no longer kills the process outright: it ends as soon as
/// the reader sees it, after the output is flushed.
fn listen_for_signals(tx: Sender<Msg>) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("ndjq-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                let _ = SIGNALLED.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
                if tx.send(Msg::Signal).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

struct Follower<'p> {
    pipeline: &'p mut Pipeline,
    /// By absolute path (notification paths are absolute).
    files: BTreeMap<PathBuf, Followed>,
    folders: Vec<Named>,
    named: Vec<Named>,
    /// The file consumers are reading now (begun or resumed, not ended).
    current: Option<PathBuf>,
    own: super::OwnOutputs,
    /// OpenCode's stores followed, by the absolute path of their `.db` (each also in
    /// `files`, for its name, line and dialect, as a file never read as lines).
    stores: BTreeMap<PathBuf, crate::input::opencode_store::StoreReader>,
    /// When to look at the stores again after a change of a `-wal` ([`STORE_RECHECK`]).
    recheck: Option<Instant>,
}

/// How soon after a change of a store's `-wal` it is looked at again: SQLite makes a
/// commit visible (in the `-shm`, which is not watched: its readers write it too) just
/// after the commit's last write to the `-wal`.
const STORE_RECHECK: Duration = Duration::from_millis(100);

/// How to read a part: up to the last newline, or everything (the end of the run).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Upto {
    LastNewline,
    End,
}

impl Follower<'_> {
    /// Watches every followed folder (recursively: new subfolders too) and the folder of
    /// every followed file (a replaced file is a new entry there).
    fn watch(&self, tx: Sender<Msg>) -> notify::Result<notify::RecommendedWatcher> {
        use notify::{RecursiveMode, Watcher};
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = tx.send(Msg::Fs(event));
        })?;
        for folder in &self.folders {
            watcher.watch(&folder.abs, RecursiveMode::Recursive)?;
        }
        let parents: BTreeSet<&Path> = self.named.iter().filter_map(|n| n.abs.parent()).collect();
        for parent in parents {
            watcher.watch(parent, RecursiveMode::NonRecursive)?;
        }
        Ok(watcher)
    }

    /// A path a notification named: a followed file, a new one, or a new folder.
    fn touch<C: Consumer>(
        &mut self,
        abs: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        // The JSON files of OpenCode's storage of before 1.2 are read with it, once.
        if self.stores.keys().any(|s| abs.starts_with(s) && abs != s) {
            return Ok((Flow::Continue, false));
        }
        // OpenCode's store: a change of its `.db` or `-wal` (never its `-shm`, which its
        // readers write, this one included).
        let store = abs
            .to_str()
            .and_then(|p| p.strip_suffix("-wal"))
            .map(PathBuf::from);
        if let Some(db) = store.filter(|db| self.stores.contains_key(db)) {
            // A commit shows in the `-shm` just after its last `-wal` write: look again
            // shortly, or the end of a burst of writes would wait for the next one.
            self.recheck
                .get_or_insert_with(|| Instant::now() + STORE_RECHECK);
            return self.store_part(&db, consumer, report);
        }
        if let Some(f) = self.files.get(abs) {
            let shown = PathBuf::from(&*f.name);
            return self.catch_up_changed(abs, &shown, consumer, report);
        }
        if let Some(n) = self.named.iter().find(|n| n.abs == abs) {
            let shown = n.shown.clone();
            return self.catch_up_changed(abs, &shown, consumer, report);
        }
        let Some(shown) = self.shown_under_folder(abs) else {
            return Ok((Flow::Continue, false));
        };
        let Ok(meta) = fs::symlink_metadata(abs) else {
            return Ok((Flow::Continue, false));
        };
        if meta.is_dir() {
            // A new subfolder: files may be in it before its watch was set.
            return self.walk_in(&shown, consumer, report);
        }
        if crate::input::opencode_store::is_store_name(abs) {
            return self.catch_up_changed(abs, &shown, consumer, report);
        }
        if is_log_file(abs) {
            // What the walk would take: regular files, and links to them.
            if fs::metadata(abs).is_ok_and(|m| m.is_file()) {
                return self.catch_up_changed(abs, &shown, consumer, report);
            }
        }
        Ok((Flow::Continue, false))
    }

    /// How a path under a followed folder is written in the output: the folder as given on
    /// the command line, then the rest.
    fn shown_under_folder(&self, abs: &Path) -> Option<PathBuf> {
        self.folders.iter().find_map(|folder| {
            abs.strip_prefix(&folder.abs)
                .ok()
                .map(|rest| folder.shown.join(rest))
        })
    }

    /// Reads the new files under a folder (and the new parts of known ones).
    fn walk_in<C: Consumer>(
        &mut self,
        shown: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        let mut changed = false;
        for source in Walk::excluding(&[shown.to_path_buf()], self.own.clone()) {
            match source {
                Ok(Source::File(p)) => {
                    let abs = std::path::absolute(&p).unwrap_or_else(|_| p.clone());
                    let (flow, c) = self.catch_up_changed(&abs, &p, consumer, report)?;
                    changed |= c;
                    if flow == Flow::Stop {
                        return Ok((flow, changed));
                    }
                }
                Ok(Source::Store(p)) => {
                    let abs = std::path::absolute(&p).unwrap_or_else(|_| p.clone());
                    let (flow, c) = if self.stores.contains_key(&abs) {
                        self.store_part(&abs, consumer, report)?
                    } else {
                        let before = self.stores.len();
                        let flow = self.read_store(&p, consumer, report)?;
                        (flow, self.stores.len() > before)
                    };
                    changed |= c;
                    if flow == Flow::Stop {
                        return Ok((flow, changed));
                    }
                }
                Ok(Source::Stdin) | Err(Error::NoLogs { .. }) => {}
                Err(e) => report(&e),
            }
        }
        Ok((Flow::Continue, changed))
    }

    /// Looks at everything followed again: `--poll`, or after lost notifications.
    fn rescan<C: Consumer>(
        &mut self,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        let mut changed = false;
        let folders: Vec<PathBuf> = self.folders.iter().map(|f| f.shown.clone()).collect();
        for shown in folders {
            let (flow, c) = self.walk_in(&shown, consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return Ok((flow, changed));
            }
        }
        let named: Vec<(PathBuf, PathBuf)> = self
            .named
            .iter()
            .map(|n| (n.abs.clone(), n.shown.clone()))
            .collect();
        for (abs, shown) in named {
            let (flow, c) = self.catch_up_changed(&abs, &shown, consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return Ok((flow, changed));
            }
        }
        Ok((Flow::Continue, changed))
    }

    /// [`Follower::catch_up`], and whether anything was read.
    fn catch_up_changed<C: Consumer>(
        &mut self,
        abs: &Path,
        shown: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        if self.stores.contains_key(abs) {
            return self.store_part(abs, consumer, report);
        }
        use crate::input::opencode_store::{is_sqlite, is_store_name};
        let store_like = is_store_name(abs) || (!is_log_file(abs) && is_sqlite(abs));
        if !self.files.contains_key(abs) && store_like {
            // A store that came after the follow began (OpenCode's first start); under
            // its name, not a database yet, it is waited for.
            if !is_sqlite(abs) {
                return Ok((Flow::Continue, false));
            }
            let flow = self.read_store(shown, consumer, report)?;
            return Ok((flow, self.stores.contains_key(abs)));
        }
        if !self.files.contains_key(abs) && self.own.holds_path(abs) {
            // What this run writes into a followed folder (`filter -F logs >
            // logs/all.jsonl`): read, it would feed itself forever.
            return Ok((Flow::Continue, false));
        }
        let before = self.files.get(abs).map(|f| (f.ino, f.offset, f.line));
        let flow = self.catch_up(abs, shown, consumer, report)?;
        let after = self.files.get(abs).map(|f| (f.ino, f.offset, f.line));
        Ok((flow, before != after))
    }

    /// Reads what was appended to a file since the last part, through its last newline;
    /// starts it again from the start when it was truncated or replaced.
    fn catch_up<C: Consumer>(
        &mut self,
        abs: &Path,
        shown: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let meta = match fs::metadata(abs) {
            Ok(m) => m,
            // Gone for now: if it comes back, it is a replacement.
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.files.contains_key(abs) => {
                return Ok(Flow::Continue)
            }
            Err(source) => {
                report(&Error::Open {
                    path: shown.to_path_buf(),
                    source,
                });
                return Ok(Flow::Continue);
            }
        };
        if !meta.is_file() {
            return Ok(Flow::Continue);
        }
        let (dev, ino, len) = (meta.dev(), meta.ino(), meta.len());
        let known = self.files.contains_key(abs);
        if !known {
            self.files.insert(
                abs.to_path_buf(),
                Followed {
                    name: Arc::from(super::path_name(shown)),
                    dev,
                    ino,
                    offset: 0,
                    line: 0,
                    dialect: None,
                    begun: false,
                    whole: false,
                },
            );
        }
        let Some(f) = self.files.get(abs) else {
            return Ok(Flow::Continue);
        };
        let restart = if (f.dev, f.ino) != (dev, ino) {
            Some("replaced; reading the new file from its start")
        } else if len < f.offset {
            Some("truncated; reading it again from its start")
        } else {
            None
        };
        if let Some(what) = restart {
            report(&Error::FollowNote(format!("{}: {what}", f.name)));
            self.restart(abs, dev, ino, consumer)?;
        }
        self.read_part(abs, len, Upto::LastNewline, consumer, report)
    }

    /// Reads a file that is not a regular file (a FIFO) whole, as one input.
    fn read_stream<C: Consumer>(
        &mut self,
        path: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        self.end_current(consumer)?;
        let name: Arc<str> = Arc::from(super::path_name(path));
        let result = crate::input::open_file(path).and_then(|file| {
            let reader = crate::input::decompress(file).map_err(|source| Error::Read {
                file: name.to_string(),
                line: 0,
                offset: 0,
                source,
            })?;
            self.pipeline.run(&name, reader, consumer)
        });
        match result {
            Ok(flow) => Ok(flow),
            Err(e @ Error::Write(_)) => Err(e),
            Err(e) => {
                report(&e);
                Ok(Flow::Continue)
            }
        }
    }

    /// Begins following OpenCode's store at `path`: the messages finished so far are read
    /// now, later ones as OpenCode writes them ([`Follower::store_part`]).
    fn read_store<C: Consumer>(
        &mut self,
        path: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let reader = match crate::input::opencode_store::open_live(path) {
            Ok(r) => r,
            Err(e) => {
                report(&e);
                return Ok(Flow::Continue);
            }
        };
        let meta = fs::metadata(&abs).ok();
        self.files.insert(
            abs.clone(),
            Followed {
                name: Arc::from(crate::input::path_name(path)),
                dev: meta.as_ref().map_or(0, |m| m.dev()),
                ino: meta.as_ref().map_or(0, |m| m.ino()),
                offset: 0,
                line: 0,
                dialect: None,
                begun: false,
                // Its bytes are never read as lines.
                whole: true,
            },
        );
        self.stores.insert(abs.clone(), reader);
        Ok(self.store_part(&abs, consumer, report)?.0)
    }

    /// Looks at every followed store again ([`STORE_RECHECK`]); when one had something new,
    /// looks again later.
    fn recheck_stores<C: Consumer>(
        &mut self,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        let mut changed = false;
        let stores: Vec<PathBuf> = self.stores.keys().cloned().collect();
        for abs in stores {
            let (flow, c) = self.store_part(&abs, consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return Ok((flow, changed));
            }
        }
        if changed {
            self.recheck = Some(Instant::now() + STORE_RECHECK);
        }
        Ok((Flow::Continue, changed))
    }

    /// Reads what OpenCode's store at `abs` has that was not read (messages finished since
    /// it last looked), and whether there was anything.
    fn store_part<C: Consumer>(
        &mut self,
        abs: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        let Some(reader) = self.stores.get_mut(abs) else {
            return Ok((Flow::Continue, false));
        };
        let name = self.files.get(abs).map(|f| f.name.clone());
        let Some(name) = name else {
            return Ok((Flow::Continue, false));
        };
        match reader.more() {
            Ok(true) => {}
            Ok(false) => return Ok((Flow::Continue, false)),
            Err(source) => {
                report(&Error::Read {
                    file: name.to_string(),
                    line: f_line(&self.files, abs),
                    offset: 0,
                    source,
                });
                return Ok((Flow::Continue, false));
            }
        }
        let switch_to = self.enter(abs, consumer)?;
        let at = self.files.get(abs).map_or((0, 0), |f| (f.line, f.offset));
        let Some(reader) = self.stores.get_mut(abs) else {
            return Ok((Flow::Continue, false));
        };
        let result = self
            .pipeline
            .run_part(&name, reader, at, switch_to, consumer);
        let dialect = self.pipeline.dialect();
        let Some(f) = self.files.get_mut(abs) else {
            return Ok((Flow::Continue, false));
        };
        f.dialect = dialect.or(f.dialect);
        match result {
            Ok((flow, line, offset)) => {
                f.line = line;
                f.offset = offset;
                Ok((flow, true))
            }
            Err(e @ Error::Write(_)) => Err(e),
            Err(e) => {
                report(&e);
                Ok((Flow::Continue, true))
            }
        }
    }

    /// The file at `abs` is a new input from now on.
    fn restart<C: Consumer>(
        &mut self,
        abs: &Path,
        dev: u64,
        ino: u64,
        consumer: &mut C,
    ) -> Result<(), Error> {
        if self.current.as_deref() == Some(abs) {
            self.end_current(consumer)?;
        }
        if let Some(f) = self.files.get_mut(abs) {
            f.dev = dev;
            f.ino = ino;
            f.offset = 0;
            f.line = 0;
            f.dialect = None;
            f.begun = false;
            f.whole = false;
        }
        Ok(())
    }

    fn end_current<C: Consumer>(&mut self, consumer: &mut C) -> Result<(), Error> {
        if let Some(prev) = self.current.take() {
            if let Some(p) = self.files.get(&prev) {
                consumer
                    .end_input(&p.name, p.dialect)
                    .map_err(Error::Write)?;
            }
        }
        Ok(())
    }

    /// Reads the file from where it got to, through its last newline (or to `len`).
    fn read_part<C: Consumer>(
        &mut self,
        abs: &Path,
        len: u64,
        upto: Upto,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let Some(f) = self.files.get(abs) else {
            return Ok(Flow::Continue);
        };
        if f.whole || len <= f.offset {
            return Ok(Flow::Continue);
        }
        let (name, start) = (f.name.clone(), f.offset);
        let read_error = |source| Error::Read {
            file: name.to_string(),
            line: 0,
            offset: start,
            source,
        };
        let mut file = match File::open(abs) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Flow::Continue),
            Err(source) => {
                report(&Error::Open {
                    path: PathBuf::from(&*name),
                    source,
                });
                return Ok(Flow::Continue);
            }
        };
        let compressed = start == 0 && {
            let mut head = [0u8; 4];
            let n = file.read_at(&mut head, 0).unwrap_or(0);
            is_compressed(&head[..n])
        };
        let end = match (compressed, upto) {
            (true, _) | (_, Upto::End) => len,
            (false, Upto::LastNewline) => match last_newline(&file, start, len) {
                Ok(Some(nl)) => nl + 1,
                // A partial line waits for its newline.
                Ok(None) => return Ok(Flow::Continue),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            },
        };
        if let Err(e) = file.seek(SeekFrom::Start(start)) {
            report(&read_error(e));
            return Ok(Flow::Continue);
        }
        let switch_to = self.enter(abs, consumer)?;
        let result = if compressed {
            match crate::input::decompress(file) {
                Ok(reader) => self
                    .pipeline
                    .run_part(&name, reader, (0, 0), switch_to, consumer),
                Err(e) => Err(read_error(e)),
            }
        } else {
            self.pipeline.run_part(
                &name,
                file.take(end - start),
                (f_line(&self.files, abs), start),
                switch_to,
                consumer,
            )
        };
        let dialect = self.pipeline.dialect();
        let Some(f) = self.files.get_mut(abs) else {
            return Ok(Flow::Continue);
        };
        f.dialect = dialect.or(f.dialect);
        match result {
            Ok((flow, line, offset)) => {
                f.line = line;
                f.offset = if compressed { len } else { offset };
                f.whole = compressed;
                Ok(flow)
            }
            Err(e @ Error::Write(_)) => Err(e),
            Err(e) => {
                // Read no further than what was read well; the rest is tried again.
                report(&e);
                Ok(Flow::Continue)
            }
        }
    }

    /// Makes `abs` the current input (ending the one before, beginning or resuming this
    /// one); `Some(dialect)` when the pipeline must start it again with that dialect.
    fn enter<C: Consumer>(
        &mut self,
        abs: &Path,
        consumer: &mut C,
    ) -> Result<Option<Option<Dialect>>, Error> {
        if self.current.as_deref() == Some(abs) {
            return Ok(None);
        }
        self.end_current(consumer)?;
        let Some(f) = self.files.get_mut(abs) else {
            return Ok(None);
        };
        if f.begun {
            consumer.resume_input(&f.name).map_err(Error::Write)?;
        } else {
            consumer.begin_input(&f.name).map_err(Error::Write)?;
            f.begun = true;
        }
        self.current = Some(abs.to_path_buf());
        Ok(Some(f.dialect))
    }

    /// Ends following: a partial last line still waiting is read as it stands (as a
    /// plain run reads it), and the current input ends.
    fn finish<C: Consumer>(
        &mut self,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
        end: FollowEnd,
    ) -> Result<FollowEnd, Error> {
        if end != FollowEnd::Stopped {
            // OpenCode's stores: their unfinished messages, as they stand.
            let stores: Vec<PathBuf> = self.stores.keys().cloned().collect();
            for abs in stores {
                if let Some(r) = self.stores.get_mut(&abs) {
                    r.take_the_rest();
                }
                if self.store_part(&abs, consumer, report)?.0 == Flow::Stop {
                    break;
                }
            }
            let pending: Vec<PathBuf> = self.files.keys().cloned().collect();
            for abs in pending {
                let Ok(meta) = fs::metadata(&abs) else {
                    continue;
                };
                let same = self
                    .files
                    .get(&abs)
                    .is_some_and(|f| (f.dev, f.ino) == (meta.dev(), meta.ino()));
                if same
                    && self.read_part(&abs, meta.len(), Upto::End, consumer, report)? == Flow::Stop
                {
                    break;
                }
            }
        }
        self.end_current(consumer)?;
        Ok(end)
    }
}

fn f_line(files: &BTreeMap<PathBuf, Followed>, abs: &Path) -> u64 {
    files.get(abs).map_or(0, |f| f.line)
}

/// The offset of the last `\n` in `file` between `start` and `len`, reading backwards.
fn last_newline(file: &File, start: u64, len: u64) -> io::Result<Option<u64>> {
    let mut buf = vec![0u8; 64 << 10];
    let mut end = len;
    while end > start {
        let from = end.saturating_sub(buf.len() as u64).max(start);
        let chunk = &mut buf[..(end - from) as usize];
        file.read_exact_at(chunk, from)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(Some(from + i as u64));
        }
        end = from;
    }
    Ok(None)
}
