//! What wakes the follow up: file-system notifications (the watches set on the followed
//! paths), and SIGINT, SIGTERM or SIGHUP, which end it (docs/DESIGN.md, "Following").
use super::roots::Named;
use super::Follower;
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{Receiver, Sender};

pub(super) enum Msg {
    Fs(notify::Result<notify::Event>),
    Signal,
}

/// The signal that ended following (0: none yet).
pub(super) static SIGNALLED: AtomicI32 = AtomicI32::new(0);

pub(super) fn signalled() -> Option<i32> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// SIGINT, SIGTERM and SIGHUP (a closed terminal or ssh session) end following: the signal
/// is noted and the reader woken up. Once registered, a second signal no longer kills the
/// process outright: it ends as soon as the reader sees it, after the output is flushed.
pub(super) fn listen_for_signals(tx: Sender<Msg>) -> io::Result<()> {
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

/// The messages waiting, `first` and all that came with it, as one batch: the paths they
/// name (accesses left out) and whether everything must be looked at (a lost event). A
/// followed folder removed or renamed away is marked `lost`.
pub(super) fn batch(
    first: Option<Msg>,
    rx: &Receiver<Msg>,
    folders: &mut [Named],
) -> (BTreeSet<PathBuf>, bool) {
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
                    for folder in folders.iter_mut() {
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
    (dirty, rescan)
}

impl Follower<'_> {
    /// Watches every followed folder (recursively: new subfolders too), the folder of
    /// every followed file (a replaced file is a new entry there) and the folder of every
    /// followed folder (a followed folder that goes away and comes back is one), where no
    /// followed folder watches them already.
    pub(super) fn watch(&self, tx: Sender<Msg>) -> notify::Result<notify::RecommendedWatcher> {
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
}
