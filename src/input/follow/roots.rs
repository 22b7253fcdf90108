//! The paths named on the command line: followed folders that go away and come back
//! (watched again), how a path under a folder is shown, and the walk of a folder.
use super::Follower;
use crate::error::Error;
use crate::input::{Source, Walk};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A path named on the command line: where it is (absolute, for notification paths) and
/// how it was written (for file names in the output).
#[derive(Debug)]
pub(super) struct Named {
    pub(super) abs: PathBuf,
    pub(super) shown: PathBuf,
    /// A followed folder that went away (noted once; taken up again when it comes back).
    pub(super) gone: bool,
    /// A followed folder's device, inode and birth time: another one is the folder made
    /// again.
    pub(super) id: Option<FolderId>,
    /// A notification said the followed folder was removed or renamed away: what is at
    /// its path is another folder, to watch again.
    pub(super) lost: bool,
}

/// What tells a folder from one made again at its path: device, inode and birth time
/// (where the file system keeps one; an inode is often given again at once).
pub(super) type FolderId = (u64, u64, Option<std::time::SystemTime>);

pub(super) fn folder_id(m: &fs::Metadata) -> FolderId {
    (m.dev(), m.ino(), m.created().ok())
}

/// When a new folder is walked again after its notification.
pub(super) const NEW_FOLDER_AGAIN: [Duration; 2] =
    [Duration::from_millis(100), Duration::from_secs(1)];

impl Follower<'_> {
    /// Whether `p` is a followed folder or inside one (watched with it).
    pub(super) fn in_a_folder(&self, p: &Path) -> bool {
        self.folders.iter().any(|f| p.starts_with(&f.abs))
    }

    pub(super) fn is_named(&self, abs: &Path) -> bool {
        self.named.iter().any(|n| n.abs == abs)
    }

    /// Whether the followed folder `i` is there (its name as shown, if so). One that has
    /// gone away is noted once; one that comes back is noted and watched again.
    pub(super) fn folder_here(
        &mut self,
        i: usize,
        report: &mut dyn FnMut(&Error),
    ) -> Option<PathBuf> {
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
    pub(super) fn shown_under_folder(&self, abs: &Path) -> Option<PathBuf> {
        self.folders.iter().find_map(|folder| {
            abs.strip_prefix(&folder.abs)
                .ok()
                .map(|rest| folder.shown.join(rest))
        })
    }

    /// The files the walk takes under a folder, onto `found`; the walk's notes reported.
    pub(super) fn walk_into(
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
}
