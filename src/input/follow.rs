//! `--follow`: after reading what is there, keep reading as files grow, like `tail -F`
//! (docs/GUIDE.md, "Following live logs"; docs/REFERENCE.md, "Following"; docs/DESIGN.md,
//! "Following").
//!
//! A follow source feeds the same [`Pipeline`] and [`Consumer`] as a plain run, one part of
//! a file at a time: the bytes appended since the last part, up to the last newline (a
//! partial last line waits for its newline, and is handed out as it stands only when the
//! run ends). Per file it keeps only its name, device and inode, a fingerprint of its
//! first bytes ([`Head`]), the offset and line number reached and its dialect: no file
//! stays open between parts, so a tree of thousands of files costs a few hundred bytes
//! each and no handle.
//!
//! A file is its device, inode and head together. The same three under another name is
//! the same file renamed: read on from its offset, under the new name, as the same input
//! ([`Consumer::rename_input`]). Another device or inode at a followed name, or the same
//! inode whose first bytes changed (a file system hands a deleted file's inode to the next
//! file at once), is a replacement: a new input read from its start, with a note; a file
//! shorter than what was read of it is truncated: the same. Either way the old input ends.
//!
//! What to read is told by file-system notifications (inotify, kqueue, FSEvents through
//! the `notify` crate), or with `--poll SECS` by a walk of the followed paths every SECS
//! seconds. While nothing changes the reader thread sleeps in a channel receive: no CPU.
//! A followed folder that goes away is noted, and taken up again when it comes back (its
//! parent folder is watched for that).
//!
//! Consumers see inputs as in a plain run: `begin_input`, records, `end_input`. A file
//! stays the current input while only it grows; when another file's records come, the
//! current one is paused ([`Consumer::pause_input`]) and the other begun (or resumed, with
//! [`Consumer::resume_input`], when it was read before). When the run ends, the current
//! input ends, then every paused one (resumed and ended), in the order of their paths.
//!
//! Nothing that could block is opened: files are opened without waiting and read only
//! when the opened handle is a regular file. A FIFO, device, loop of links or folder
//! where a log file was gets the note a plain run prints, once.

use crate::dialect::Dialect;
use crate::error::Error;
use crate::input::head::{Head, HEAD_MAX};
use crate::input::{is_compressed, is_log_file, kind_name, Source, Walk};
use crate::pipeline::{Consumer, Flow, Pipeline};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
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
    /// SIGINT, SIGTERM or SIGHUP arrived: its number.
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
    /// The fingerprint of the first bytes read (see the module documentation).
    head: Head,
    /// Its size and times when last looked at: while they stay, its head is not read again.
    look: Look,
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

/// What a look at a file's metadata saw: its size, modification and change times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Look(u64, i64, i64, i64, i64);

impl Look {
    fn of(m: &fs::Metadata) -> Look {
        Look(
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    }
}

/// A path named on the command line: where it is (absolute, for notification paths) and
/// how it was written (for file names in the output).
#[derive(Debug)]
struct Named {
    abs: PathBuf,
    shown: PathBuf,
    /// A followed folder that went away (noted once; taken up again when it comes back).
    gone: bool,
    /// A followed folder's device, inode and birth time: another one is the folder made
    /// again.
    id: Option<FolderId>,
    /// A notification said the followed folder was removed or renamed away: what is at
    /// its path is another folder, to watch again.
    lost: bool,
}

/// What tells a folder from one made again at its path: device, inode and birth time
/// (where the file system keeps one; an inode is often given again at once).
type FolderId = (u64, u64, Option<std::time::SystemTime>);

fn folder_id(m: &fs::Metadata) -> FolderId {
    (m.dev(), m.ino(), m.created().ok())
}

enum Msg {
    Fs(notify::Result<notify::Event>),
    Signal,
}

/// The signal that ended following (0: none yet).
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// Follows `paths` (files and folders, as the command line resolved them; `-` is skipped:
/// the caller reads stdin) until SIGINT, SIGTERM or SIGHUP, feeding `consumer`. Errors opening or
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
        ids: HashMap::new(),
        folders: Vec::new(),
        named: Vec::new(),
        current: None,
        own: options.own.clone(),
        watcher: None,
        parts: 0,
        later: Vec::new(),
        stores: BTreeMap::new(),
        recheck: None,
    };
    for p in paths.iter().filter(|p| p.as_os_str() != "-") {
        let named = Named {
            abs: std::path::absolute(p).unwrap_or_else(|_| p.clone()),
            shown: p.clone(),
            gone: false,
            id: fs::metadata(p).ok().map(|m| folder_id(&m)),
            lost: false,
        };
        if p.is_dir() {
            f.folders.push(named);
        } else {
            f.named.push(named);
        }
    }
    // Watching starts before the first read: what is written meanwhile is seen.
    let mut poll = options.poll;
    f.watcher = match poll {
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
        let deadline = [
            next_tick,
            next_poll,
            f.recheck,
            f.later.iter().map(|l| l.0).min(),
        ]
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
                    if matches!(
                        event.kind,
                        notify::EventKind::Remove(_)
                            | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
                    ) {
                        // A followed folder removed or renamed away: its watch went with
                        // it, whatever is at its path when it is looked at (a folder made
                        // again may have the same inode).
                        for folder in f.folders.iter_mut() {
                            folder.lost |= event.paths.contains(&folder.abs);
                        }
                    }
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
        let (flow, c) = f.look_at(&dirty, rescan, consumer, report)?;
        changed |= c;
        if flow == Flow::Stop {
            return f.finish(consumer, report, FollowEnd::Stopped);
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

/// SIGINT, SIGTERM and SIGHUP (a closed terminal or ssh session) end following: the signal
/// is noted and the reader woken up. Once registered, a second signal no longer kills the
/// process outright: it ends as soon as the reader sees it, after the output is flushed.
fn listen_for_signals(tx: Sender<Msg>) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
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
    /// (device, inode) → the path of the file last known by them: where a file that turns
    /// up under a new name may have been before.
    ids: HashMap<(u64, u64), PathBuf>,
    folders: Vec<Named>,
    named: Vec<Named>,
    /// The file consumers are reading now (begun or resumed, not paused or ended).
    current: Option<PathBuf>,
    own: super::OwnOutputs,
    /// The notifications (none with `--poll`): a followed folder that comes back is
    /// watched again.
    watcher: Option<notify::RecommendedWatcher>,
    /// Parts read so far (what tells that something was read).
    parts: u64,
    /// New folders to walk again, and when: a file written into a new folder before its
    /// watch was set (the watch is set after the folder's notification) has no
    /// notification of its own. Also a file whose part could not be read as it changed.
    later: Vec<(Instant, PathBuf)>,
    /// OpenCode's stores followed, by the absolute path of their `.db` (each also in
    /// `files`, for its name, line and dialect, as a file never read as lines).
    stores: BTreeMap<PathBuf, crate::dialect::store::StoreReader>,
    /// When to look at the stores again after a change of a `-wal` ([`STORE_RECHECK`]).
    recheck: Option<Instant>,
}

/// How soon after a change of a store's `-wal` it is looked at again: SQLite makes a
/// commit visible (in the `-shm`, which is not watched: its readers write it too) just
/// after the commit's last write to the `-wal`.
const STORE_RECHECK: Duration = Duration::from_millis(100);

/// The largest appended part read whole before it is handed on (see
/// [`Follower::read_part`]); a larger one is read as it streams.
const BUFFERED_PART: u64 = 8 << 20;

/// When a new folder is walked again after its notification.
const NEW_FOLDER_AGAIN: [Duration; 2] = [Duration::from_millis(100), Duration::from_secs(1)];

/// How to read a part: up to the last newline, or everything (the end of the run).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Upto {
    LastNewline,
    End,
}

/// Opens `path` for reading without waiting (opening a FIFO waits for a writer) and keeps
/// it only when the handle is a regular file (`None` otherwise).
fn open_regular(path: &Path) -> io::Result<Option<(File, fs::Metadata)>> {
    let nonblock = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblock)
        .open(path)?;
    let meta = file.metadata()?;
    Ok(meta.is_file().then_some((file, meta)))
}

impl Follower<'_> {
    /// Watches every followed folder (recursively: new subfolders too), the folder of
    /// every followed file (a replaced file is a new entry there) and the folder of every
    /// followed folder (a followed folder that goes away and comes back is one), where no
    /// followed folder watches them already.
    fn watch(&self, tx: Sender<Msg>) -> notify::Result<notify::RecommendedWatcher> {
        use notify::{RecursiveMode, Watcher};
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = tx.send(Msg::Fs(event));
        })?;
        for folder in &self.folders {
            watcher.watch(&folder.abs, RecursiveMode::Recursive)?;
        }
        let parents: BTreeSet<&Path> = self
            .named
            .iter()
            .filter_map(|n| n.abs.parent())
            .filter(|p| !self.in_a_folder(p))
            .collect();
        for parent in &parents {
            watcher.watch(parent, RecursiveMode::NonRecursive)?;
        }
        let roots: BTreeSet<&Path> = self
            .folders
            .iter()
            .filter_map(|n| n.abs.parent())
            .filter(|p| !self.in_a_folder(p) && !parents.contains(p))
            .collect();
        for parent in roots {
            // Without it, a folder that goes away is only taken up again by a rescan.
            let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
        }
        Ok(watcher)
    }

    /// Whether `p` is a followed folder or inside one (watched with it).
    fn in_a_folder(&self, p: &Path) -> bool {
        self.folders.iter().any(|f| p.starts_with(&f.abs))
    }

    fn is_named(&self, abs: &Path) -> bool {
        self.named.iter().any(|n| n.abs == abs)
    }

    /// Looks at what changed: the paths notifications named, or (`rescan`) everything
    /// followed. The files found there are taken in two passes: first the ones that are
    /// followed files under a new name (a rename: `mv a.jsonl a.1.jsonl; touch a.jsonl`
    /// is seen at once, and the renamed file must be found before the new one takes its
    /// old name), then every file is read on.
    fn look_at<C: Consumer>(
        &mut self,
        dirty: &BTreeSet<PathBuf>,
        rescan: bool,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(Flow, bool), Error> {
        let mut found = Vec::new();
        let now = Instant::now();
        let due: Vec<PathBuf> = self
            .later
            .iter()
            .filter(|l| l.0 <= now)
            .map(|l| l.1.clone())
            .collect();
        self.later.retain(|l| l.0 > now);
        for shown in due {
            self.walk_into(&shown, &mut found, report);
        }
        if rescan {
            for i in 0..self.folders.len() {
                if let Some(shown) = self.folder_here(i, report) {
                    self.walk_into(&shown, &mut found, report);
                }
            }
            found.extend(self.named.iter().map(|n| (n.abs.clone(), n.shown.clone())));
        }
        let mut changed = false;
        for path in dirty {
            // The JSON files of OpenCode's storage of before 1.2 are read with it, once.
            if self.stores.keys().any(|s| path.starts_with(s) && path != s) {
                continue;
            }
            // OpenCode's store: a change of its `-wal` (never its `-shm`, which its
            // readers write, this one included).
            let store = path
                .to_str()
                .and_then(|p| p.strip_suffix("-wal"))
                .map(PathBuf::from);
            if let Some(db) = store.filter(|db| self.stores.contains_key(db)) {
                // A commit shows in the `-shm` just after its last `-wal` write: look again
                // shortly, or the end of a burst of writes would wait for the next one.
                self.recheck
                    .get_or_insert_with(|| Instant::now() + STORE_RECHECK);
                let (flow, c) = self.store_part(&db, consumer, report)?;
                changed |= c;
                if flow == Flow::Stop {
                    return Ok((flow, changed));
                }
                continue;
            }
            self.candidates(path, &mut found, report);
        }
        let mut seen = BTreeSet::new();
        found.retain(|(abs, _)| seen.insert(abs.clone()));
        self.adopt_renamed(&found, consumer)?;
        for (abs, shown) in found {
            let (flow, c) = self.catch_up_changed(&abs, &shown, consumer, report)?;
            changed |= c;
            if flow == Flow::Stop {
                return Ok((flow, changed));
            }
        }
        Ok((Flow::Continue, changed))
    }

    /// The files a path a notification named stands for, as (absolute path, name shown):
    /// a followed file, a new one, the files of a new (or renamed) folder, or of a
    /// followed folder that came back.
    fn candidates(
        &mut self,
        abs: &Path,
        found: &mut Vec<(PathBuf, PathBuf)>,
        report: &mut dyn FnMut(&Error),
    ) {
        if let Some(i) = self.folders.iter().position(|f| f.abs == abs) {
            if let Some(shown) = self.folder_here(i, report) {
                self.walk_into(&shown, found, report);
            }
            return;
        }
        let under = self.shown_under_folder(abs);
        let shown = match self.files.get(abs) {
            Some(f) => Some(PathBuf::from(&*f.name)),
            None => self
                .named
                .iter()
                .find(|n| n.abs == abs)
                .map(|n| n.shown.clone())
                .or_else(|| under.clone()),
        };
        let Some(shown) = shown else {
            return;
        };
        let Ok(meta) = fs::symlink_metadata(abs) else {
            // Gone: a followed file waits to come back, or to turn up renamed.
            return;
        };
        if meta.is_dir() {
            if let Some(under) = under {
                // A new subfolder (files may be in it before its watch was set), one
                // renamed here, or a folder where a file was; walked again a little
                // later when notifications are used.
                self.walk_into(&under, found, report);
                if self.watcher.is_some() {
                    let now = Instant::now();
                    self.later.retain(|l| l.1 != under);
                    self.later
                        .extend(NEW_FOLDER_AGAIN.iter().map(|d| (now + *d, under.clone())));
                }
                return;
            }
        }
        if self.files.contains_key(abs)
            || self.is_named(abs)
            || is_log_file(abs)
            || crate::dialect::store::is_store_name(abs)
        {
            found.push((abs.to_path_buf(), shown));
        }
    }

    /// Whether the followed folder `i` is there (its name as shown, if so). One that has
    /// gone away is noted once; one that comes back is noted and watched again.
    fn folder_here(&mut self, i: usize, report: &mut dyn FnMut(&Error)) -> Option<PathBuf> {
        let folder = self.folders.get_mut(i)?;
        let here = fs::metadata(&folder.abs)
            .ok()
            .filter(|m| m.is_dir())
            .map(|m| folder_id(&m));
        let shown = folder.shown.clone();
        let note = |report: &mut dyn FnMut(&Error), what: &str| {
            report(&Error::FollowNote(format!(
                "{}: the followed folder {what}",
                crate::input::path_name(&shown)
            )))
        };
        let Some(id) = here else {
            if !folder.gone {
                folder.gone = true;
                note(report, "is gone; it is read again if it comes back");
            }
            return None;
        };
        let made_again = folder.id != Some(id);
        if folder.gone || folder.lost || made_again {
            // Back, or removed (or renamed away) and made again between two looks: the
            // watch went with the old folder.
            if !folder.gone && made_again {
                note(report, "is gone; it is read again if it comes back");
            }
            if folder.gone || made_again {
                note(report, "is back; reading it");
            }
            folder.gone = false;
            folder.lost = false;
            folder.id = Some(id);
            let abs = folder.abs.clone();
            if let Some(w) = self.watcher.as_mut() {
                use notify::Watcher;
                let _ = w.watch(&abs, notify::RecursiveMode::Recursive);
                // What was written into it before the watch was set.
                let now = Instant::now();
                self.later
                    .extend(NEW_FOLDER_AGAIN.iter().map(|d| (now + *d, shown.clone())));
            }
        }
        Some(shown)
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

    /// The files the walk takes under a folder, onto `found`; the walk's notes reported.
    fn walk_into(
        &self,
        shown: &Path,
        found: &mut Vec<(PathBuf, PathBuf)>,
        report: &mut dyn FnMut(&Error),
    ) {
        for source in Walk::excluding(&[shown.to_path_buf()], self.own.clone()) {
            match source {
                Ok(Source::File(p)) | Ok(Source::Store(p)) => {
                    let abs = std::path::absolute(&p).unwrap_or_else(|_| p.clone());
                    found.push((abs, p));
                }
                Ok(Source::Stdin) | Err(Error::NoLogs { .. }) => {}
                Err(e) => report(&e),
            }
        }
    }

    /// The files of `found` that are followed files renamed: each goes on under its new
    /// name. New names first, then followed names that hold another file now (whose own
    /// file may just have been found elsewhere).
    fn adopt_renamed<C: Consumer>(
        &mut self,
        found: &[(PathBuf, PathBuf)],
        consumer: &mut C,
    ) -> Result<(), Error> {
        let (new, known): (Vec<_>, Vec<_>) = found
            .iter()
            .partition(|(abs, _)| !self.files.contains_key(abs));
        for (abs, shown) in new.into_iter().chain(known) {
            let Ok(meta) = fs::metadata(abs) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let id = (meta.dev(), meta.ino());
            if self.files.get(abs).is_some_and(|f| (f.dev, f.ino) == id) {
                continue;
            }
            if let Some(from) = self.renamed_from(abs, id, meta.len()) {
                // The file that was here (if one was) is gone: its input ends.
                if self.files.contains_key(abs) {
                    self.end_life(abs, consumer)?;
                    self.files.remove(abs);
                }
                self.rename(&from, abs, shown, consumer)?;
            }
        }
        Ok(())
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
        use crate::dialect::store::{is_sqlite, is_store_name};
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
        let before = self.parts;
        let flow = self.catch_up(abs, shown, consumer, report)?;
        Ok((flow, before != self.parts))
    }

    /// Reads what was appended to a file since the last part, through its last newline;
    /// starts it again from the start when it was truncated or replaced (a file renamed
    /// here was found by [`Follower::adopt_renamed`] before).
    fn catch_up<C: Consumer>(
        &mut self,
        abs: &Path,
        shown: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let meta = match fs::metadata(abs) {
            Ok(m) => m,
            // Gone for now (or gone before it was read: it is not there to read).
            Err(e)
                if e.kind() == io::ErrorKind::NotFound
                    && (self.files.contains_key(abs) || !self.is_named(abs)) =>
            {
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
            // A folder under a followed folder is walked (`candidates`); anything else that is
            // not a regular file is never opened: the walk's note, once.
            if !meta.is_dir() {
                report(&Error::NotRegular {
                    path: shown.to_path_buf(),
                    kind: kind_name(meta.file_type()),
                });
            } else if self.is_named(abs) {
                report(&Error::NotRegular {
                    path: shown.to_path_buf(),
                    kind: "folder",
                });
            }
            return Ok(Flow::Continue);
        }
        let id = (meta.dev(), meta.ino());
        if self.files.get(abs).is_some_and(|f| (f.dev, f.ino) != id) {
            // Another file at a followed name: the followed one may have been renamed
            // before (a rotation whose two changes were seen in this order).
            if let Some((to, to_shown)) = self.find_moved(abs) {
                self.rename(abs, &to, &to_shown, consumer)?;
            }
        }
        if self.files.get(abs).is_none_or(|f| (f.dev, f.ino) != id) {
            // A followed file renamed here since the first pass looked (renamed twice
            // in a row, or over another followed file).
            if let Some(from) = self.renamed_from(abs, id, meta.len()) {
                if self.files.contains_key(abs) {
                    self.end_life(abs, consumer)?;
                    self.files.remove(abs);
                }
                self.rename(&from, abs, shown, consumer)?;
            }
        }
        let look = Look::of(&meta);
        let Some(f) = self.files.get(abs) else {
            self.files.insert(
                abs.to_path_buf(),
                Followed {
                    name: Arc::from(super::path_name(shown)),
                    dev: id.0,
                    ino: id.1,
                    head: Head::default(),
                    look,
                    offset: 0,
                    line: 0,
                    dialect: None,
                    begun: false,
                    whole: false,
                },
            );
            self.ids.insert(id, abs.to_path_buf());
            if meta.len() == 0 {
                return Ok(Flow::Continue);
            }
            return self.read_part(abs, Upto::LastNewline, consumer, report);
        };
        let restart = if (f.dev, f.ino) != id {
            Some("replaced; reading the new file from its start")
        } else if meta.len() < f.offset {
            Some("truncated; reading it again from its start")
        } else if f.look != look && !head_still(abs, &f.head) {
            // The same inode with other first bytes: deleted and written again (the
            // file system reused the inode), or rewritten in place.
            Some("replaced; reading the new file from its start")
        } else {
            None
        };
        if let Some(what) = restart {
            report(&Error::FollowNote(format!("{}: {what}", f.name)));
            self.restart(abs, id, consumer)?;
        }
        match self.files.get_mut(abs) {
            Some(f) => {
                f.look = look;
                if f.whole || meta.len() <= f.offset {
                    // Nothing new: not even opened.
                    return Ok(Flow::Continue);
                }
            }
            None => return Ok(Flow::Continue),
        }
        self.read_part(abs, Upto::LastNewline, consumer, report)
    }

    /// The path of a followed file that `abs` (a file with `id`, `len` bytes long) is,
    /// renamed: one known by the same device and inode, no longer under its old name, at
    /// least as long as what was read of it and starting with the same bytes.
    fn renamed_from(&self, abs: &Path, id: (u64, u64), len: u64) -> Option<PathBuf> {
        let from = self.ids.get(&id)?;
        if from == abs {
            return None;
        }
        let f = self.files.get(from)?;
        if (f.dev, f.ino) != id || len < f.offset {
            return None;
        }
        if fs::metadata(from).is_ok_and(|m| (m.dev(), m.ino()) == id) {
            // Still there: a second link to the same file.
            return None;
        }
        head_still(abs, &f.head).then(|| from.clone())
    }

    /// Where the file followed at `abs` went, when another file took its name: a walk of
    /// every followed folder (and the files named) for a log file with its device and
    /// inode, not followed under that name already, at least as long as what was read
    /// of it and starting with the same bytes. A walk of the tree per replaced file: rare.
    fn find_moved(&self, abs: &Path) -> Option<(PathBuf, PathBuf)> {
        let f = self.files.get(abs)?;
        let id = (f.dev, f.ino);
        let mut found = Vec::new();
        let mut quiet = |_: &Error| {};
        for folder in &self.folders {
            if !folder.gone {
                self.walk_into(&folder.shown, &mut found, &mut quiet);
            }
        }
        found.extend(self.named.iter().map(|n| (n.abs.clone(), n.shown.clone())));
        found.into_iter().find(|(p, _)| {
            p != abs
                && fs::metadata(p)
                    .is_ok_and(|m| (m.dev(), m.ino()) == id && m.is_file() && m.len() >= f.offset)
                && self.files.get(p).is_none_or(|g| (g.dev, g.ino) != id)
                && head_still(p, &f.head)
        })
    }

    /// The followed file at `from` is at `to` now, under the name `shown`: the same input.
    fn rename<C: Consumer>(
        &mut self,
        from: &Path,
        to: &Path,
        shown: &Path,
        consumer: &mut C,
    ) -> Result<(), Error> {
        if self.current.as_deref() == Some(from) {
            self.pause_current(consumer)?;
        }
        if from != to && self.files.contains_key(to) {
            // What was followed under the new name is gone: its input ends.
            self.end_life(to, consumer)?;
            self.files.remove(to);
        }
        let Some(mut f) = self.files.remove(from) else {
            return Ok(());
        };
        let old = std::mem::replace(&mut f.name, Arc::from(super::path_name(shown)));
        if f.begun {
            consumer.rename_input(&old, &f.name).map_err(Error::Write)?;
        }
        self.ids.insert((f.dev, f.ino), to.to_path_buf());
        self.files.insert(to.to_path_buf(), f);
        Ok(())
    }

    /// Reads a file that is not a regular file (a FIFO) whole, as one input.
    fn read_stream<C: Consumer>(
        &mut self,
        path: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        self.pause_current(consumer)?;
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
        let reader = match crate::dialect::store::open_live(path) {
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
                head: Head::default(),
                look: meta.as_ref().map(Look::of).unwrap_or_default(),
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

    /// The file at `abs` is a new input from now on: the old one ends.
    fn restart<C: Consumer>(
        &mut self,
        abs: &Path,
        id: (u64, u64),
        consumer: &mut C,
    ) -> Result<(), Error> {
        self.end_life(abs, consumer)?;
        if let Some(f) = self.files.get_mut(abs) {
            f.dev = id.0;
            f.ino = id.1;
            f.head = Head::default();
            f.offset = 0;
            f.line = 0;
            f.dialect = None;
            f.begun = false;
            f.whole = false;
        }
        self.ids.insert(id, abs.to_path_buf());
        Ok(())
    }

    /// The input of the file at `abs` ends (it was truncated, replaced, or the run ends):
    /// the current one at once, a paused one resumed and ended.
    fn end_life<C: Consumer>(&mut self, abs: &Path, consumer: &mut C) -> Result<(), Error> {
        if self.current.as_deref() == Some(abs) {
            return self.end_current(consumer);
        }
        if self.files.get(abs).is_some_and(|f| f.begun) {
            // Consumers hold one input at a time: the current one waits.
            self.pause_current(consumer)?;
        }
        if let Some(f) = self.files.get_mut(abs) {
            if f.begun {
                f.begun = false;
                consumer.resume_input(&f.name).map_err(Error::Write)?;
                consumer
                    .end_input(&f.name, f.dialect)
                    .map_err(Error::Write)?;
            }
        }
        Ok(())
    }

    /// The current input ends.
    fn end_current<C: Consumer>(&mut self, consumer: &mut C) -> Result<(), Error> {
        if let Some(prev) = self.current.take() {
            if let Some(p) = self.files.get_mut(&prev) {
                p.begun = false;
                consumer
                    .end_input(&p.name, p.dialect)
                    .map_err(Error::Write)?;
            }
        }
        Ok(())
    }

    /// The current input pauses: another file's records come.
    fn pause_current<C: Consumer>(&mut self, consumer: &mut C) -> Result<(), Error> {
        if let Some(prev) = self.current.take() {
            if let Some(p) = self.files.get(&prev) {
                consumer
                    .pause_input(&p.name, p.dialect)
                    .map_err(Error::Write)?;
            }
        }
        Ok(())
    }

    /// Reads the file from where it got to, through its last newline (or to its end).
    fn read_part<C: Consumer>(
        &mut self,
        abs: &Path,
        upto: Upto,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Flow, Error> {
        let Some(f) = self.files.get(abs) else {
            return Ok(Flow::Continue);
        };
        if f.whole {
            return Ok(Flow::Continue);
        }
        let (name, start) = (f.name.clone(), f.offset);
        let read_error = |source| Error::Read {
            file: name.to_string(),
            line: 0,
            offset: start,
            source,
        };
        let (mut file, len) = match open_regular(abs) {
            Ok(Some((file, meta))) if (meta.dev(), meta.ino()) == (f.dev, f.ino) => {
                (file, meta.len())
            }
            // Replaced since it was looked at, or not a file now: the next look tells.
            Ok(_) => return Ok(Flow::Continue),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Flow::Continue),
            Err(source) => {
                report(&Error::Open {
                    path: PathBuf::from(&*name),
                    source,
                });
                return Ok(Flow::Continue);
            }
        };
        if len <= start {
            return Ok(Flow::Continue);
        }
        let compressed = start == 0 && {
            let mut head = [0u8; 4];
            let n = file.read_at(&mut head, 0).unwrap_or(0);
            is_compressed(&head[..n])
        };
        let end = match (compressed, upto) {
            (true, _) | (_, Upto::End) => len,
            (false, Upto::LastNewline) => match crate::input::last_newline(&file, start, len) {
                Ok(Some(nl)) => nl + 1,
                // A partial line waits for its newline.
                Ok(None) => return Ok(Flow::Continue),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            },
        };
        // A part (small, as appended parts are) is read whole first, with the file's
        // first bytes when the fingerprint covers them or grows: the part, the check that
        // the file is still the one read so far, and the grown fingerprint all come of
        // the same bytes. A file truncated and written again while it is read would give
        // bytes of two files; then nothing is read now and the next look starts it again.
        let from = if start < HEAD_MAX { 0 } else { start };
        let mut head = None;
        let part = if !compressed && end - from <= BUFFERED_PART {
            let mut buf = vec![0u8; (end - from) as usize];
            match file.read_exact_at(&mut buf, from) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Flow::Continue),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            }
            let same = if from == 0 {
                let old = f.head;
                old.len == 0
                    || buf
                        .get(..old.len as usize)
                        .is_some_and(|b| Head::of_bytes(b) == old)
            } else {
                f.head.matches(&file).unwrap_or(false)
            };
            if !same {
                // Looked at again soon: the look then sees the change.
                if let Some(f) = self.files.get_mut(abs) {
                    f.look = Look::default();
                }
                let soon = Instant::now() + NEW_FOLDER_AGAIN[0];
                self.later.push((soon, PathBuf::from(&*name)));
                return Ok(Flow::Continue);
            }
            if from == 0 && f.head.grows_to(end) {
                head = Some(Head::of_bytes(&buf));
            }
            buf.drain(..(start - from) as usize);
            Some(buf)
        } else {
            None
        };
        // A large part streams; the fingerprint grows with what is read, up to its most.
        if part.is_none() && f.head.grows_to(end) {
            match Head::of(&file, end) {
                Ok(h) => head = Some(h),
                Err(e) => {
                    report(&read_error(e));
                    return Ok(Flow::Continue);
                }
            }
        }
        if let Err(e) = file.seek(SeekFrom::Start(start)) {
            report(&read_error(e));
            return Ok(Flow::Continue);
        }
        let switch_to = self.enter(abs, consumer)?;
        self.parts += 1;
        let at = (f_line(&self.files, abs), start);
        let result = match (compressed, part) {
            (true, _) => match crate::input::decompress(file) {
                Ok(reader) => self
                    .pipeline
                    .run_part(&name, reader, (0, 0), switch_to, consumer),
                Err(e) => Err(read_error(e)),
            },
            (false, Some(buf)) => self
                .pipeline
                .run_part(&name, &buf[..], at, switch_to, consumer),
            (false, None) => {
                self.pipeline
                    .run_part(&name, file.take(end - start), at, switch_to, consumer)
            }
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
                if let Some(h) = head {
                    f.head = h;
                }
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

    /// Makes `abs` the current input (pausing the one before, beginning or resuming this
    /// one); `Some(dialect)` when the pipeline must start it again with that dialect.
    fn enter<C: Consumer>(
        &mut self,
        abs: &Path,
        consumer: &mut C,
    ) -> Result<Option<Option<Dialect>>, Error> {
        if self.current.as_deref() == Some(abs) {
            return Ok(None);
        }
        self.pause_current(consumer)?;
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

    /// Ends following: one last look at everything followed (what was written, renamed
    /// or made before the signal is read, whether or not its notification came yet); a
    /// partial last line still waiting is read as it stands (as a plain run reads it);
    /// the current input ends, then every paused one.
    fn finish<C: Consumer>(
        &mut self,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
        end: FollowEnd,
    ) -> Result<FollowEnd, Error> {
        if end != FollowEnd::Stopped
            && self.look_at(&BTreeSet::new(), true, consumer, report)?.0 == Flow::Stop
        {
            return self
                .finish(consumer, report, FollowEnd::Stopped)
                .map(|_| end);
        }
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
                if self.stores.contains_key(&abs) {
                    continue;
                }
                let Ok(meta) = fs::metadata(&abs) else {
                    continue;
                };
                let same = self.files.get(&abs).is_some_and(|f| {
                    (f.dev, f.ino) == (meta.dev(), meta.ino())
                        && meta.len() >= f.offset
                        && head_still(&abs, &f.head)
                });
                if same && self.read_part(&abs, Upto::End, consumer, report)? == Flow::Stop {
                    break;
                }
            }
        }
        self.end_current(consumer)?;
        let paused: Vec<PathBuf> = self.files.keys().cloned().collect();
        for abs in paused {
            self.end_life(&abs, consumer)?;
        }
        Ok(end)
    }
}

/// Whether the file at `path` still starts with the bytes `head` was taken of (true when
/// it cannot be opened now: the read that follows tells).
fn head_still(path: &Path, head: &Head) -> bool {
    match open_regular(path) {
        Ok(Some((file, _))) => head.matches(&file).unwrap_or(true),
        _ => true,
    }
}

fn f_line(files: &BTreeMap<PathBuf, Followed>, abs: &Path) -> u64 {
    files.get(abs).map_or(0, |f| f.line)
}
