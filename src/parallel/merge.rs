//! Putting the units' results back in input order.

use super::*;

/// Puts the units' results back in input order.
pub(super) struct Merger<T> {
    pub(super) next: u64,
    pub(super) waiting: BTreeMap<u64, Slot<T>>,
    pub(super) free: Vec<Vec<u8>>,
    /// The consumer asked to stop: later parts are dropped, inputs' ends still told.
    pub(super) stopped: bool,
    /// Bytes of input in flight.
    pub(super) held: usize,
    /// An input whose reading a range's read error (or a range read short: the file shrank)
    /// ended, with that error: its later ranges are dropped, and the error is reported
    /// after its end.
    pub(super) failed: Option<(Arc<str>, Option<Error>)>,
}

impl<T> Merger<T> {
    /// Whether a read error ended reading `file`'s ranges.
    pub(super) fn cut_short(&self, file: &Arc<str>) -> bool {
        self.failed
            .as_ref()
            .is_some_and(|(f, _)| Arc::ptr_eq(f, file))
    }

    pub(super) fn accept<P: Parallel<Part = T>>(
        &mut self,
        done: Done<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        self.held = self.held.saturating_sub(done.held);
        self.waiting.insert(done.seq, done.slot);
        while let Some(slot) = self.waiting.remove(&self.next) {
            self.next += 1;
            self.apply(slot, pipeline, consumer, report)?;
        }
        Ok(())
    }

    /// Merges one unit's result, the next in input order.
    pub(super) fn apply<P: Parallel<Part = T>>(
        &mut self,
        slot: Slot<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        match slot {
            Slot::Batch(slots) => {
                for slot in slots {
                    self.apply(slot, pipeline, consumer, report)?;
                }
            }
            Slot::Begin(file) => consumer.begin_input(&file).map_err(Error::Write)?,
            Slot::End(file, dialect) => {
                consumer.end_input(&file, dialect).map_err(Error::Write)?;
                if self.cut_short(&file) {
                    if let Some((_, Some(e))) = self.failed.take() {
                        report(&e);
                    }
                }
            }
            Slot::Block { bytes, .. } if self.stopped => self.free.push(bytes),
            Slot::Block { bytes, file, .. } if self.cut_short(&file) => self.free.push(bytes),
            _ if self.stopped => {}
            Slot::Block {
                part,
                bytes,
                file,
                dialect,
                warm,
                len,
                line,
                offset,
                failed,
                shrunk,
            } => {
                let part = part.map_err(Error::Write)?;
                let flow = if consumer.fits(&part) {
                    consumer.merge(part)
                } else {
                    // The guess was wrong: the records again, in order, as one pass.
                    drop(part);
                    pipeline.use_dialect(dialect);
                    pipeline.process_lines(&file, &bytes[warm..len], line, offset, consumer)
                };
                self.free.push(bytes);
                if flow.map_err(Error::Write)? == Flow::Stop {
                    self.stopped = true;
                }
                if failed.is_some() || shrunk {
                    self.failed = Some((file, failed));
                }
            }
            Slot::Part(part, error) => {
                let part = part.map_err(Error::Write)?;
                if consumer.merge(part).map_err(Error::Write)? == Flow::Stop {
                    self.stopped = true;
                }
                if let Some(e) = error {
                    report(&e);
                }
            }
            Slot::Failed(e) => report(&e),
        }
        Ok(())
    }
}
