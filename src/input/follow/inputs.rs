//! The inputs consumers see: one current at a time, the others paused, resumed when their
//! records come, ended when their file is replaced or the run ends.
use super::Follower;
use crate::dialect::Dialect;
use crate::error::Error;
use crate::pipeline::Consumer;
use std::path::Path;

impl Follower<'_> {
    /// Makes `abs` the current input (pausing the one before, beginning or resuming this
    /// one); `Some(dialect)` when the pipeline must start it again with that dialect.
    pub(super) fn enter<C: Consumer>(
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

    /// The current input pauses: another file's records come.
    pub(super) fn pause_current<C: Consumer>(&mut self, consumer: &mut C) -> Result<(), Error> {
        if let Some(prev) = self.current.take() {
            if let Some(p) = self.files.get(&prev) {
                consumer
                    .pause_input(&p.name, p.dialect)
                    .map_err(Error::Write)?;
            }
        }
        Ok(())
    }

    /// The current input ends.
    pub(super) fn end_current<C: Consumer>(&mut self, consumer: &mut C) -> Result<(), Error> {
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

    /// The input of the file at `abs` ends (it was truncated, replaced, or the run ends):
    /// the current one at once, a paused one resumed and ended.
    pub(super) fn end_life<C: Consumer>(
        &mut self,
        abs: &Path,
        consumer: &mut C,
    ) -> Result<(), Error> {
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
}
