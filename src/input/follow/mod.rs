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

mod files;
mod inputs;
mod look;
mod part;
mod roots;
mod stores;
mod watch;

use crate::error::Error;
use crate::input::{Source, Walk};
use crate::pipeline::{Consumer, Flow, Pipeline};
use files::{head_still, Followed};
use part::Upto;
use roots::{folder_id, Named};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use watch::{listen_for_signals, signalled};

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
        recheck_late: false,
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
            // A store: followed by its rows (stores.rs).
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
        let (dirty, mut rescan) = watch::batch(first, &rx, &mut f.folders);
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
    /// The stores followed, by the absolute path of their `.db` (each also in
    /// `files`, for its name, line and dialect, as a file never read as lines).
    stores: BTreeMap<PathBuf, crate::dialect::store::StoreReader>,
    /// When to look at the stores again after a change of a `-wal` ([`STORE_RECHECK`]).
    recheck: Option<Instant>,
    /// A look after a change that found nothing new is followed by one more, later
    /// ([`STORE_LATE_RECHECK`](stores::STORE_LATE_RECHECK)): on a loaded machine a commit
    /// can show later than [`STORE_RECHECK`](stores::STORE_RECHECK) after its last write.
    recheck_late: bool,
}

impl Follower<'_> {
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
            // The stores: their unfinished messages, as they stand.
            self.finish_stores(consumer, report)?;
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
