//! A followed file's life: what is kept of it, new parts read as it grows, a file truncated
//! or replaced at its name (a new input), a file renamed (the same input, under its new
//! name).
use super::part::{open_regular, Upto};
use super::Follower;
use crate::dialect::Dialect;
use crate::error::Error;
use crate::input::head::Head;
use crate::input::kind_name;
use crate::pipeline::{Consumer, Flow};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One followed file: where reading it got to.
#[derive(Debug)]
pub(super) struct Followed {
    pub(super) name: Arc<str>,
    pub(super) dev: u64,
    pub(super) ino: u64,
    /// The fingerprint of the first bytes read (see the module documentation).
    pub(super) head: Head,
    /// Its size and times when last looked at: while they stay, its head is not read again.
    pub(super) look: Look,
    /// Bytes read: through the last newline seen.
    pub(super) offset: u64,
    /// The number of the last record read.
    pub(super) line: u64,
    pub(super) dialect: Option<Dialect>,
    /// Consumers were told of this input (later parts resume it).
    pub(super) begun: bool,
    /// A compressed file: read whole once, not followed (appending to one makes no
    /// sense); read again only if it is replaced.
    pub(super) whole: bool,
}

/// What a look at a file's metadata saw: its size, modification and change times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Look(u64, i64, i64, i64, i64);

impl Look {
    pub(super) fn of(m: &fs::Metadata) -> Look {
        Look(
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    }
}

impl Follower<'_> {
    /// Reads what was appended to a file since the last part, through its last newline;
    /// starts it again from the start when it was truncated or replaced (a file renamed
    /// here was found by [`Follower::adopt_renamed`] before).
    pub(super) fn catch_up<C: Consumer>(
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
                    name: Arc::from(crate::input::path_name(shown)),
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

    /// The files of `found` that are followed files renamed: each goes on under its new
    /// name. New names first, then followed names that hold another file now (whose own
    /// file may just have been found elsewhere).
    pub(super) fn adopt_renamed<C: Consumer>(
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

    /// The path of a followed file that `abs` (a file with `id`, `len` bytes long) is,
    /// renamed: one known by the same device and inode, no longer under its old name, at
    /// least as long as what was read of it and starting with the same bytes.
    pub(super) fn renamed_from(&self, abs: &Path, id: (u64, u64), len: u64) -> Option<PathBuf> {
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
    pub(super) fn find_moved(&self, abs: &Path) -> Option<(PathBuf, PathBuf)> {
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
    pub(super) fn rename<C: Consumer>(
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
        let old = std::mem::replace(&mut f.name, Arc::from(crate::input::path_name(shown)));
        if f.begun {
            consumer.rename_input(&old, &f.name).map_err(Error::Write)?;
        }
        self.ids.insert((f.dev, f.ino), to.to_path_buf());
        self.files.insert(to.to_path_buf(), f);
        Ok(())
    }

    /// The file at `abs` is a new input from now on: the old one ends.
    pub(super) fn restart<C: Consumer>(
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
}

/// Whether the file at `path` still starts with the bytes `head` was taken of (true when
/// it cannot be opened now: the read that follows tells).
pub(super) fn head_still(path: &Path, head: &Head) -> bool {
    match open_regular(path) {
        Ok(Some((file, _))) => head.matches(&file).unwrap_or(true),
        _ => true,
    }
}

pub(super) fn f_line(files: &BTreeMap<PathBuf, Followed>, abs: &Path) -> u64 {
    files.get(abs).map_or(0, |f| f.line)
}
