//! The calling thread's side of the pool: what it sent and what came back.

use super::*;

/// The calling thread's side of the pool: what it sent, and the merger.
pub(super) struct Pool<T> {
    pub(super) work: std::sync::mpsc::SyncSender<Work>,
    pub(super) done: Receiver<Done<T>>,
    pub(super) merger: Merger<T>,
    pub(super) sent: u64,
    /// At most this many units, and this many bytes of input, are in flight: `max_held`
    /// of blocks the calling thread read (and of ranges read into buffers the merge gets
    /// back), `max_listed` of files and ranges the workers read into buffers of their own.
    /// Those are only queued until a worker takes them, so the queue is kept long enough
    /// that the workers do not run dry while this thread waits for a core: with both cores
    /// busy, it can wait a whole time slice after a unit is done (docs/PERFORMANCE.md).
    pub(super) max_units: usize,
    pub(super) max_held: usize,
    pub(super) max_listed: usize,
}

impl<T> Pool<T> {
    /// Sends a unit to the workers, first merging what came back while too much is in
    /// flight.
    pub(super) fn send<P: Parallel<Part = T>>(
        &mut self,
        work: Work,
        held: usize,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let max_held = match &work {
            Work::Block { .. } | Work::Range { bytes: Some(_), .. } => self.max_held,
            Work::Range { bytes: None, .. } | Work::Files { .. } => self.max_listed,
        };
        while self.merger.next < self.sent
            && ((self.sent - self.merger.next) as usize >= self.max_units
                || self.merger.held + held > max_held)
        {
            self.receive(pipeline, consumer, report)?;
        }
        self.merger.held += held;
        self.sent += 1;
        if self.work.send(work).is_err() {
            // The workers are gone (a panic): nothing more can be read.
            self.merger.stopped = true;
        }
        Ok(())
    }

    /// Sends the small files waiting in `batch` as one unit, if there are any.
    pub(super) fn send_batch<P: Parallel<Part = T>>(
        &mut self,
        batch: &mut Batch,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        if batch.files.is_empty() {
            return Ok(());
        }
        let Batch { files, held } = std::mem::take(batch);
        let work = Work::Files {
            seq: self.sent,
            files,
        };
        self.send(work, held, pipeline, consumer, report)
    }

    /// A slot made by the calling thread, merged in its place.
    pub(super) fn local<P: Parallel<Part = T>>(
        &mut self,
        slot: Slot<T>,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let seq = self.sent;
        self.sent += 1;
        self.merger
            .accept(Done { seq, slot, held: 0 }, pipeline, consumer, report)
    }

    pub(super) fn receive<P: Parallel<Part = T>>(
        &mut self,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        match self.done.recv() {
            Ok(done) => self.merger.accept(done, pipeline, consumer, report),
            Err(_) => {
                // Every worker is gone: what they held never comes.
                self.merger.next = self.sent;
                self.merger.stopped = true;
                Ok(())
            }
        }
    }

    /// Merges everything sent so far.
    pub(super) fn drain<P: Parallel<Part = T>>(
        &mut self,
        pipeline: &mut Pipeline,
        consumer: &mut P,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        while self.merger.next < self.sent {
            self.receive(pipeline, consumer, report)?;
        }
        Ok(())
    }
}
