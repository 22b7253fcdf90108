//! A look at what changed: the paths a batch of notifications named (or, at a rescan,
//! everything followed), taken to the files they stand for, renamed files first.
use super::roots::NEW_FOLDER_AGAIN;
use super::Follower;
use crate::error::Error;
use crate::input::is_log_file;
use crate::pipeline::{Consumer, Flow};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

impl Follower<'_> {
    /// Looks at what changed: the paths notifications named, or (`rescan`) everything
    /// followed. The files found there are taken in two passes: first the ones that are
    /// followed files under a new name (a rename: `mv a.jsonl a.1.jsonl; touch a.jsonl`
    /// is seen at once, and the renamed file must be found before the new one takes its
    /// old name), then every file is read on.
    pub(super) fn look_at<C: Consumer>(
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
            if let Some((flow, c)) = self.store_change(path, consumer, report)? {
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
    pub(super) fn candidates(
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

    /// [`Follower::catch_up`], and whether anything was read.
    pub(super) fn catch_up_changed<C: Consumer>(
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
            // A store that came after the follow began (its agent's first start); under
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
}
