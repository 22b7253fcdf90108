//! Stores under follow (docs/REFERENCE.md, "OpenCode's store"): read by their rows, looked
//! at again when their `-wal` changes, their unfinished rows taken as they stand at the end.
use super::files::{f_line, Followed, Look};
use super::Follower;
use crate::error::Error;
use crate::input::head::Head;
use crate::pipeline::{Consumer, Flow};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How soon after a change of a store's `-wal` it is looked at again: SQLite makes a
/// commit visible (in the `-shm`, which is not watched: its readers write it too) just
/// after the commit's last write to the `-wal`.
pub(super) const STORE_RECHECK: Duration = Duration::from_millis(100);

/// How long after a look that found nothing new the stores are looked at once more.
pub(super) const STORE_LATE_RECHECK: Duration = Duration::from_secs(1);

impl Follower<'_> {
    /// Begins following the store at `path`: the messages finished so far are read
    /// now, later ones as its agent writes them ([`Follower::store_part`]).
    pub(super) fn read_store<C: Consumer>(
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
    pub(super) fn recheck_stores<C: Consumer>(
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
            self.recheck_late = true;
        } else if std::mem::take(&mut self.recheck_late) {
            self.recheck = Some(Instant::now() + STORE_LATE_RECHECK);
        }
        Ok((Flow::Continue, changed))
    }

    /// Reads what the store at `abs` has that was not read (messages finished since
    /// it last looked), and whether there was anything.
    pub(super) fn store_part<C: Consumer>(
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

    /// A path a notification named that belongs to a followed store: what reading the
    /// store then gave (`None`: not a store's).
    pub(super) fn store_change<C: Consumer>(
        &mut self,
        path: &Path,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<Option<(Flow, bool)>, Error> {
        // The JSON files of a legacy storage folder are read with it, once.
        if self.stores.keys().any(|s| path.starts_with(s) && path != s) {
            return Ok(Some((Flow::Continue, false)));
        }
        // A store: a change of its `-wal` (never its `-shm`, which its
        // readers write, this one included).
        let store = path
            .to_str()
            .and_then(|p| p.strip_suffix("-wal"))
            .map(PathBuf::from);
        let Some(db) = store.filter(|db| self.stores.contains_key(db)) else {
            return Ok(None);
        };
        // A commit shows in the `-shm` just after its last `-wal` write: look again
        // shortly, or the end of a burst of writes would wait for the next one.
        self.recheck
            .get_or_insert_with(|| Instant::now() + STORE_RECHECK);
        self.recheck_late = true;
        self.store_part(&db, consumer, report).map(Some)
    }

    /// The follow ends: every store's unfinished messages, as they stand.
    pub(super) fn finish_stores<C: Consumer>(
        &mut self,
        consumer: &mut C,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let stores: Vec<PathBuf> = self.stores.keys().cloned().collect();
        for abs in stores {
            if let Some(r) = self.stores.get_mut(&abs) {
                r.take_the_rest();
            }
            if self.store_part(&abs, consumer, report)?.0 == Flow::Stop {
                break;
            }
        }
        Ok(())
    }
}
