//! The calling thread's side of a batch run: [`Pipeline`] opens the inputs, cuts them into
//! work units and hands them to the pool.

use super::*;

impl Pipeline {
    /// Reads every source into `consumer` on a pool of `threads` workers (see the module
    /// documentation). `open` opens what the calling thread reads; `report` is told, in
    /// input order, of each input that could not be opened or read (reading goes on with the
    /// next). Only a consumer's error ends the run early ([`Error::Write`]).
    pub fn run_pooled<'a, P: Parallel>(
        &mut self,
        sources: impl Iterator<Item = Result<Source, Error>>,
        consumer: &mut P,
        threads: usize,
        open: &mut dyn FnMut(&Source) -> Result<Opened<'a>, Error>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let threads = threads.max(1);
        let options = self.options().clone();
        std::thread::scope(|scope| -> Result<(), Error> {
            // Room for every unit in flight: the calling thread blocks only in `receive`.
            let (work_tx, work_rx) = sync_channel::<Work>(threads * 8);
            let work_rx = Arc::new(Mutex::new(work_rx));
            let (done_tx, done_rx) = channel::<Done<P::Part>>();
            for started in 0..threads {
                let work_rx = Arc::clone(&work_rx);
                let done_tx = done_tx.clone();
                let shard = consumer.shard();
                let pipeline = Pipeline::new(options.clone());
                let spawned = std::thread::Builder::new()
                    .name("ndjq-worker".to_string())
                    .spawn_scoped(scope, move || {
                        work::<P>(pipeline, shard, &work_rx, &done_tx)
                    });
                // The system refused a thread (a process limit): an error, not a panic. The
                // workers already started end when the channel they wait on is dropped.
                if let Err(e) = spawned {
                    return Err(Error::Threads {
                        asked: threads,
                        started,
                        source: e,
                    });
                }
            }
            drop(done_tx);
            let mut pool = Pool {
                work: work_tx,
                done: done_rx,
                merger: Merger {
                    next: 0,
                    waiting: BTreeMap::new(),
                    free: Vec::new(),
                    stopped: false,
                    held: 0,
                    failed: None,
                },
                sent: 0,
                max_units: threads * 8,
                max_held: (threads + 2) * BLOCK_BYTES,
                max_listed: threads * 8 * BLOCK_BYTES,
            };
            let mut batch = Batch::default();
            let mut folder = input::Folder::default();
            let mut sources = sources.peekable();
            while let Some(source) = sources.next() {
                if pool.merger.stopped {
                    break;
                }
                let source = match source {
                    Ok(s) => s,
                    Err(e) => {
                        pool.send_batch(&mut batch, self, consumer, report)?;
                        pool.local(Slot::Failed(e), self, consumer, report)?;
                        continue;
                    }
                };
                let source = &source;
                // The size of a regular file, with the handle of its folder to open it by
                // name in; a pipe or device named on the command line is read by this
                // thread, one record at a time.
                let (size, dir) = match source {
                    Source::File(path) => match folder.regular_file(path) {
                        Some((size, dir)) => (Some(size), dir),
                        None => (None, None),
                    },
                    _ => (None, None),
                };
                if let (Source::File(path), Some(_)) = (source, size) {
                    let whole = size.is_some_and(|n| {
                        n <= WHOLE_FILE_BYTES
                            || (n <= MEDIUM_FILE_BYTES && sources.peek().is_some())
                            || (n <= WHOLE_STREAM_BYTES
                                && consumer.small_parts()
                                && !consumer.batchable(self.peek_dialect(path)))
                    });
                    if let (true, Some(size)) = (whole, size) {
                        let unit = WholeFile {
                            file: source.display_name(),
                            path: path.clone(),
                            dir,
                            size,
                        };
                        if batch.held + unit.held() > BATCH_BYTES {
                            pool.send_batch(&mut batch, self, consumer, report)?;
                        }
                        batch.held += unit.held();
                        batch.files.push(unit);
                        if batch.files.len() >= BATCH_FILES {
                            pool.send_batch(&mut batch, self, consumer, report)?;
                        }
                        continue;
                    }
                }
                pool.send_batch(&mut batch, self, consumer, report)?;
                if let (Source::File(path), Some(_)) = (source, size) {
                    if let Some(dialect) = self.blocks_from_start(path, consumer) {
                        match input::open_in(dir.as_deref(), path) {
                            Ok(handle) => {
                                let name = source.display_name();
                                pool.local(Slot::Begin(Arc::clone(&name)), self, consumer, report)?;
                                self.send_ranges(
                                    &name, handle, dialect, consumer, &mut pool, report,
                                )?;
                            }
                            Err(e) => pool.local(Slot::Failed(e), self, consumer, report)?,
                        }
                        continue;
                    }
                }
                // Records go straight to the consumer: everything before them first.
                pool.drain(self, consumer, report)?;
                match open(source) {
                    Ok(opened) => self.read_input(opened, consumer, &mut pool, report)?,
                    Err(e) => report(&e),
                }
            }
            pool.send_batch(&mut batch, self, consumer, report)?;
            pool.drain(self, consumer, report)
        })
    }

    /// The dialect of a file as its first records tell it (the forced one, if any), read
    /// from its head; `None` when the head does not tell (or is compressed).
    pub(super) fn peek_dialect(&mut self, path: &std::path::Path) -> Option<Dialect> {
        match self.options().dialect {
            Some(forced) => Some(forced),
            None => self.detect_in(&read_head(path)?),
        }
    }

    /// The dialect the whole lines of `head` tell, as a one-thread pass detects it.
    pub(super) fn detect_in(&mut self, head: &[u8]) -> Option<Dialect> {
        let forced = self.options().dialect;
        let end = memchr::memrchr(b'\n', head).map_or(0, |i| i + 1);
        self.use_dialect(None);
        let name: Arc<str> = Arc::from("");
        let mut pos = 0;
        while pos < end && self.classifier().dialect().is_none() {
            let next = memchr::memchr(b'\n', &head[pos..end]).map_or(end, |i| pos + i + 1);
            let frame = Frame {
                bytes: &head[pos..next],
                line: 0,
                offset: 0,
                kind: FrameKind::Complete { terminated: true },
            };
            if self.process(&name, frame, &mut Ignore).is_err() {
                break;
            }
            pos = next;
        }
        let dialect = self.classifier().dialect();
        self.use_dialect(forced);
        dialect
    }

    /// The dialect of a large regular file whose every record, its first included, can go
    /// to the workers in blocks, so the pool never waits for the calling thread to read its
    /// head: the consumer takes blocks of that dialect, the head tells the dialect, and the
    /// file is neither compressed nor one pretty-printed document (nor read with
    /// `--recover`).
    pub(super) fn blocks_from_start<P: Parallel>(
        &mut self,
        path: &std::path::Path,
        consumer: &P,
    ) -> Option<Dialect> {
        // Ranges are read with `pread`, which only Unix and Windows have.
        if self.options().recover || !cfg!(any(unix, windows)) {
            return None;
        }
        let head = read_head(path)?;
        let first_line = &head[..memchr::memchr(b'\n', &head).unwrap_or(head.len())];
        if input::is_compressed(&head) || crate::pipeline::first_line_opens_document(first_line) {
            return None;
        }
        let dialect = match self.options().dialect {
            Some(forced) => forced,
            None => self.detect_in(&head)?,
        };
        consumer.batchable(Some(dialect)).then_some(dialect)
    }

    /// Reads one input on the calling thread: its first records one at a time, the rest in
    /// blocks on the pool when it allows. The pool is drained.
    pub(super) fn read_input<P: Parallel>(
        &mut self,
        opened: Opened<'_>,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let Opened {
            name,
            reader,
            blocks,
        } = opened;
        self.use_dialect(self.options().dialect);
        consumer.begin_input(&name).map_err(Error::Write)?;
        let framer = self.framer(reader);
        let result = match self.stream(&name, framer, consumer, true) {
            Ok((flow, None)) => Ok(flow),
            Ok((_, Some(framer))) if blocks && consumer.batchable(self.classifier().dialect()) => {
                let dialect = self.classifier().dialect();
                let (line, offset) = framer.position();
                let (carry, reader) = framer.into_parts();
                let start = Start {
                    line,
                    offset,
                    carry,
                };
                return self.send_blocks(&name, dialect, start, reader, consumer, pool, report);
            }
            Ok((_, Some(framer))) => self
                .stream(&name, framer, consumer, false)
                .map(|(flow, _)| flow),
            Err(e) => Err(e),
        };
        let dialect = self.classifier().dialect();
        consumer.end_input(&name, dialect).map_err(Error::Write)?;
        settle(result, pool, report)
    }

    /// Cuts the rest of an input into blocks for the workers, read as `dialect`. The input's
    /// end (and its read error, if any) is merged after its last block; the calling thread
    /// goes on meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_blocks<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        dialect: Option<Dialect>,
        start: Start,
        mut reader: R,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let Start {
            mut line,
            mut offset,
            mut carry,
        } = start;
        let speculate = consumer.warm_up();
        // The last whole lines of the block before: the next block's warm-up.
        let mut warm: Vec<u8> = Vec::new();
        let mut eof = false;
        let mut read_error = None;
        let mut fallback = false;
        while !eof && !pool.merger.stopped {
            let mut bytes = pool.merger.free.pop().unwrap_or_default();
            let w = warm.len();
            if bytes.len() < w + carry.len() + BLOCK_BYTES {
                bytes.resize(w + carry.len() + BLOCK_BYTES, 0);
            }
            bytes[..w].copy_from_slice(&warm);
            bytes[w..w + carry.len()].copy_from_slice(&carry);
            let mut len = w + carry.len();
            // Always read a block past the carried partial line, or a long line would
            // never grow.
            let target = len + BLOCK_BYTES;
            carry.clear();
            while len < target && !eof {
                match reader.read(&mut bytes[len..]) {
                    Ok(0) => eof = true,
                    Ok(n) => len += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_error = Some(e);
                        eof = true;
                    }
                }
            }
            // At the end (or a read error) the last, unterminated line is a record too.
            let cut = if eof {
                len
            } else {
                memchr::memrchr(b'\n', &bytes[w..len]).map_or(w, |i| w + i + 1)
            };
            carry.extend_from_slice(&bytes[cut..len]);
            if cut == w {
                pool.merger.free.push(bytes);
                if read_error.is_some() {
                    break;
                }
                if carry.len() > MAX_CARRY {
                    fallback = true;
                    break;
                }
                continue;
            }
            let newlines = bytecount::count(&bytes[w..cut], b'\n') as u64;
            let lines = newlines + u64::from(bytes[cut - 1] != b'\n');
            warm.clear();
            if speculate {
                let from = cut.saturating_sub(WARM_BYTES).max(w);
                let start = if from == w {
                    w
                } else {
                    memchr::memchr(b'\n', &bytes[from..cut]).map_or(cut, |i| from + i + 1)
                };
                warm.extend_from_slice(&bytes[start..cut]);
            }
            let work = Work::Block {
                seq: pool.sent,
                file: Arc::clone(file),
                dialect,
                bytes,
                warm: w,
                len: cut,
                line,
                offset,
                speculate,
            };
            line += lines;
            offset += (cut - w) as u64;
            pool.send(work, cut, self, consumer, report)?;
        }
        if fallback && !pool.merger.stopped {
            // The rest one record at a time, straight to the consumer.
            pool.drain(self, consumer, report)?;
            let rest = io::Cursor::new(carry).chain(reader);
            return self.stream_rest(file, rest, (line, offset), dialect, consumer, pool, report);
        }
        pool.local(Slot::End(Arc::clone(file), dialect), self, consumer, report)?;
        if let Some(source) = read_error {
            let e = Error::Read {
                file: file.to_string(),
                line,
                offset: offset + carry.len() as u64,
                source,
            };
            pool.local(Slot::Failed(e), self, consumer, report)?;
        }
        Ok(())
    }

    /// Hands a large regular file to the workers as ranges of about [`BLOCK_BYTES`], each
    /// ending at a line's end, which the workers read themselves: this thread only reads
    /// around each cut to find the line's end, so it copies no records and the pool never
    /// waits for it. The file is read as `dialect` after its head block, which detects the
    /// dialect as a one-thread pass does. A line longer than [`MAX_CARRY`] (or a read error
    /// while looking for a cut) ends the ranges: the rest is read one record at a time.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_ranges<P: Parallel>(
        &mut self,
        file: &Arc<str>,
        handle: std::fs::File,
        dialect: Dialect,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let handle = Arc::new(handle);
        let lines = Arc::new(LineChain::default());
        let mut head = Some(self.options().dialect);
        let mut start = 0u64;
        let mut index = 0u64;
        let mut window = Vec::new();
        let mut long = false;
        while !pool.merger.stopped {
            let (end, last) = match next_cut(&handle, start, &mut window) {
                Cut::At(end) => (end, false),
                Cut::Last(end) => (end, true),
                Cut::Done => break,
                Cut::Long => {
                    long = true;
                    break;
                }
            };
            let len = (end - start) as usize;
            let work = Work::Range {
                seq: pool.sent,
                file: Arc::clone(file),
                handle: Arc::clone(&handle),
                start,
                len,
                index,
                lines: Arc::clone(&lines),
                dialect: head.take().unwrap_or(Some(dialect)),
                bytes: consumer
                    .warm_up()
                    .then(|| pool.merger.free.pop().unwrap_or_default()),
                speculate: consumer.warm_up(),
                anchor: consumer.warm_anchor(Some(dialect)),
            };
            pool.send(work, len, self, consumer, report)?;
            start = end;
            index += 1;
            if last {
                break;
            }
        }
        if long && !pool.merger.stopped {
            // The rest one record at a time, straight to the consumer, once the ranges sent
            // so far are merged (and their lines counted).
            pool.drain(self, consumer, report)?;
            if !pool.merger.cut_short(file) {
                // This thread only peeked at the input: its classifier starts where the
                // ranges sent so far left off.
                self.use_dialect(head.unwrap_or(Some(dialect)));
                let rest = ReadAt {
                    handle: &handle,
                    offset: start,
                };
                let at = (lines.total(), start);
                return self.stream_rest(file, rest, at, Some(dialect), consumer, pool, report);
            }
        }
        pool.local(
            Slot::End(Arc::clone(file), Some(dialect)),
            self,
            consumer,
            report,
        )
    }

    /// Reads the rest of an input (`rest`, from line `at.0 + 1` at offset `at.1`) one record
    /// at a time, straight to the consumer, and ends the input: what a line too long for
    /// blocks leaves. Everything sent to the pool before it must be merged.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stream_rest<R: Read, P: Parallel>(
        &mut self,
        file: &Arc<str>,
        rest: R,
        at: (u64, u64),
        dialect: Option<Dialect>,
        consumer: &mut P,
        pool: &mut Pool<P::Part>,
        report: &mut dyn FnMut(&Error),
    ) -> Result<(), Error> {
        let framer = self.framer(rest).starting_at(at.0, at.1);
        let result = self
            .stream(file, framer, consumer, false)
            .map(|(flow, _)| flow);
        consumer.end_input(file, dialect).map_err(Error::Write)?;
        settle(result, pool, report)
    }

    /// Runs the records of `bytes` (whole lines; the first is line `line + 1` at `offset`)
    /// into `consumer`.
    pub(super) fn process_lines(
        &mut self,
        file: &Arc<str>,
        bytes: &[u8],
        mut line: u64,
        offset: u64,
        consumer: &mut dyn Consumer,
    ) -> io::Result<Flow> {
        let max_line = self.options().max_line_bytes;
        let mut pos = 0;
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i + 1);
            let raw = &bytes[pos..end];
            let terminated = raw.last() == Some(&b'\n');
            let content_len = raw.len() - usize::from(terminated);
            line += 1;
            let kind = if content_len > max_line {
                FrameKind::Overlong
            } else {
                FrameKind::Complete { terminated }
            };
            let frame = Frame {
                bytes: raw,
                line,
                offset: offset + pos as u64,
                kind,
            };
            if self.process(file, frame, consumer)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
            pos = end;
        }
        Ok(Flow::Continue)
    }

    /// A whole small file into `shard`, as one input. `buf` is the worker's reused buffer.
    pub(super) fn read_whole<S: Consumer>(
        &mut self,
        unit: &WholeFile,
        buf: &mut Vec<u8>,
        shard: &mut S,
    ) -> Whole {
        let (file, path, size) = (&unit.file, unit.path.as_path(), unit.size);
        let mut handle = match input::open_in(unit.dir.as_deref(), path) {
            Ok(f) => input::CutCheck::new(f),
            Err(e) => return Whole::Failed(e),
        };
        // Read with the size known, in one system call and a second that finds the end
        // (a growing read would take five for 140 KB); a byte past the listed size (or the
        // limit) shows a file that grew since it was listed. The buffer keeps its length,
        // so it is not zeroed again for every file, and the bytes start at `pad`
        // ([`align_pad`]).
        let want = size.min(WHOLE_READ_LIMIT) as usize + 1;
        if buf.len() < ALIGN + want {
            buf.reserve_exact(whole_buffer_room(buf.capacity(), ALIGN + want) - buf.len());
            buf.resize(ALIGN + want, 0);
        }
        let pad = align_pad(buf, 0);
        let mut n = 0;
        let mut read_error = None;
        while n < want {
            match handle.read(&mut buf[pad + n..pad + want]) {
                Ok(0) => break,
                // Exactly the listed size, and no byte more: the file is whole as listed,
                // so the read that would find its end (and the `fstat` behind it,
                // [`input::CutCheck`]) is not made. It would only tell of a change made
                // after this read, which a read a moment earlier would not have seen
                // either. Two system calls of the six a small file cost
                // (docs/PERFORMANCE.md, "Two system calls fewer per small file, and names
                // looked up in their folder").
                Ok(k) if n + k == size as usize && n + k < want => {
                    n += k;
                    break;
                }
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
        }
        let data = &buf[pad..pad + n];
        let compressed = input::is_compressed(data);
        self.use_dialect(self.options().dialect);
        let first_line = &data[..memchr::memchr(b'\n', data).unwrap_or(n)];
        let document =
            !self.options().recover && crate::pipeline::first_line_opens_document(first_line);
        if read_error.is_none() && n == want && !compressed && !document {
            // A medium file (or one grown since it was listed): its first lines from the
            // buffer, in place, the rest through the framer, numbered on from them.
            if let Some(cut) = memchr::memrchr(b'\n', data).map(|i| i + 1) {
                return self.read_on(file, data, cut, handle, shard);
            }
        }
        if read_error.is_none() && (compressed || document || n == want) {
            // Compressed, grown since it was listed, or one pretty-printed document (read
            // whole by the stream's reassembly): through the framer, as any input.
            let rest = io::Cursor::new(data).chain(handle);
            let reader = match input::decompress(rest) {
                Ok(r) => r,
                Err(source) => {
                    return Whole::Read(Some(Error::Read {
                        file: file.to_string(),
                        line: 0,
                        offset: 0,
                        source,
                    }))
                }
            };
            return match self.run(file, reader, shard) {
                Ok(_) => Whole::Read(None),
                Err(Error::Write(e)) => Whole::WriteFailed(e),
                Err(e) => Whole::Read(Some(e)),
            };
        }
        let processed = shard.begin_input(file).and_then(|()| {
            let flow = self.process_lines(file, data, 0, 0, shard);
            let dialect = self.classifier().dialect();
            shard.end_input(file, dialect).and(flow)
        });
        if let Err(e) = processed {
            return Whole::WriteFailed(e);
        }
        Whole::Read(read_error.map(|source| Error::Read {
            file: file.to_string(),
            line: bytecount::count(data, b'\n') as u64,
            offset: n as u64,
            source,
        }))
    }

    /// [`Pipeline::read_whole`] of a file longer than what was read of it: the whole lines
    /// of `data` (up to `cut`) are read in place, as a small file's are, and the rest
    /// (`data`'s partial last line, then the file) through a framer, as one input. Copying
    /// `data` into the framer's buffer first cost 2% of `filter` on a tree of 1-4 MB files.
    pub(super) fn read_on<S: Consumer>(
        &mut self,
        file: &Arc<str>,
        data: &[u8],
        cut: usize,
        handle: input::CutCheck,
        shard: &mut S,
    ) -> Whole {
        let (whole_lines, rest) = data.split_at(cut);
        if let Err(e) = shard.begin_input(file) {
            return Whole::WriteFailed(e);
        }
        let flow = match self.process_lines(file, whole_lines, 0, 0, shard) {
            Ok(flow) => flow,
            Err(e) => return Whole::WriteFailed(e),
        };
        let mut failed = None;
        if flow == Flow::Continue {
            let lines = bytecount::count(whole_lines, b'\n') as u64;
            let reader = io::Cursor::new(rest).chain(handle);
            match self.run_part(file, reader, (lines, cut as u64), None, shard) {
                Ok(_) => {}
                Err(Error::Write(e)) => return Whole::WriteFailed(e),
                Err(e) => failed = Some(e),
            }
        }
        let dialect = self.classifier().dialect();
        match shard.end_input(file, dialect) {
            Ok(()) => Whole::Read(failed),
            Err(e) => Whole::WriteFailed(e),
        }
    }
}
