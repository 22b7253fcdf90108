use super::*;
use std::io::Write;

/// The whole-file buffer doubles as it grows but stops at what the largest small
/// file needs, so a buffer grown for a file near the limit is kept for the next one
/// (`work` drops a buffer past that room).
#[test]
fn whole_file_buffer_grows_to_the_limit_not_past_it() {
    let most = WHOLE_BUFFER_ROOM;
    assert_eq!(whole_buffer_room(0, 5000), 5000, "at least what is needed");
    assert_eq!(whole_buffer_room(4096, 5000), 8192, "doubled");
    assert_eq!(whole_buffer_room(4096, 100_000), 100_000);
    // 700 KB then 900 KB: doubling would give 1.4 MB, past the room kept.
    assert_eq!(whole_buffer_room(700 << 10, 900 << 10), most);
    assert_eq!(whole_buffer_room(most - 1, most), most);
    assert!(whole_buffer_room(most, most) <= most);
}

/// A merged part's buffer comes back to the next part, emptied and with its room,
/// and no more are kept than units can be in flight, nor more room than eight batches.
#[test]
fn spare_buffers_come_back_emptied_and_are_bounded() {
    let spare = SpareBuffers::default();
    let fresh = spare.next(1000);
    assert!(fresh.is_empty() && fresh.capacity() >= 1000);
    let mut used = Vec::with_capacity(1 << 20);
    used.extend_from_slice(b"merged part");
    let at = used.as_ptr();
    spare.clone().give(used);
    let again = spare.next(10);
    assert!(again.is_empty(), "emptied");
    assert_eq!(again.as_ptr(), at, "the same buffer");
    assert!(again.capacity() >= 1 << 20, "with its room");
    let kept = |spare: &SpareBuffers| {
        spare
            .0
            .lock()
            .map(|s| (s.buffers.len(), s.bytes))
            .unwrap_or_default()
    };
    for _ in 0..SpareBuffers::KEPT + 5 {
        spare.give(Vec::with_capacity(64));
    }
    assert_eq!(kept(&spare).0, SpareBuffers::KEPT);
    // Bounded in bytes too: large buffers beyond the room are let go.
    let large = SpareBuffers::default();
    for _ in 0..SpareBuffers::KEPT {
        large.give(Vec::with_capacity(3 * BATCH_BYTES));
    }
    let (count, bytes) = kept(&large);
    assert_eq!(count, SpareBuffers::KEPT_BYTES / (3 * BATCH_BYTES));
    assert!(bytes <= SpareBuffers::KEPT_BYTES);
    // Taking one frees its room for the next.
    let taken = large.next(0);
    assert_eq!(kept(&large).1, bytes - taken.capacity());
    large.give(taken);
    assert_eq!(kept(&large), (count, bytes));
}

/// Collects the line numbers and raw bytes of the records it is given.
#[derive(Default)]
struct Lines(Vec<(u64, Vec<u8>)>);

impl Consumer for Lines {
    fn record(&mut self, r: &crate::pipeline::Record<'_>) -> io::Result<Flow> {
        self.0.push((r.line, r.raw.to_vec()));
        Ok(Flow::Continue)
    }
}

impl Parallel for Lines {
    type Shard = Lines;
    type Part = Vec<(u64, Vec<u8>)>;
    fn shard(&self) -> Lines {
        Lines::default()
    }
    fn take(shard: &mut Lines) -> Self::Part {
        std::mem::take(&mut shard.0)
    }
    fn merge(&mut self, part: Self::Part) -> io::Result<Flow> {
        self.0.extend(part);
        Ok(Flow::Continue)
    }
}

/// A file truncated after its ranges were cut (logrotate's
/// copytruncate). The worker whose range reads short says so, its cut line is the
/// input's unterminated last line, and the merge drops the ranges after it, which a
/// worker may have read before the file shrank: every `-j` sees the same prefix.
#[test]
fn a_range_read_short_ends_its_input_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("log.jsonl");
    let first = b"{\"n\":1}\n{\"n\":2}\n{\"n\":3,\"pad\":\"xxxxxxxx\"}\n";
    let second = b"{\"n\":4}\n";
    std::fs::write(&path, [&first[..], &second[..]].concat()).expect("write");
    let handle = Arc::new(std::fs::File::open(&path).expect("open"));
    let file: Arc<str> = Arc::from("log.jsonl");
    let lines = Arc::new(LineChain::default());
    let range = |index: u64, start: u64, len: usize| Work::Range {
        seq: index,
        file: Arc::clone(&file),
        handle: Arc::clone(&handle),
        start,
        len,
        index,
        lines: Arc::clone(&lines),
        dialect: None,
        bytes: Some(Vec::new()),
        speculate: false,
        anchor: None,
    };
    let (work_tx, work_rx) = sync_channel::<Work>(4);
    let (done_tx, done_rx) = channel::<Done<Vec<(u64, Vec<u8>)>>>();
    let work_rx = Mutex::new(work_rx);
    // The file shrinks after the ranges were cut, in the middle of line 3.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(first.len() as u64 - 10))
        .expect("truncate");
    work_tx.send(range(0, 0, first.len())).expect("send");
    drop(work_tx);
    work::<Lines>(
        Pipeline::new(crate::pipeline::Options::default()),
        Lines::default(),
        &work_rx,
        &done_tx,
    );
    let done = done_rx.recv().expect("a result");
    let Slot::Block { shrunk, .. } = &done.slot else {
        panic!("a range gives a block");
    };
    assert!(*shrunk, "the short read is seen");
    // The merge: the short range, then a range read before the file shrank.
    let later = Done {
        seq: 1,
        slot: Slot::Block {
            part: Ok(vec![(4, second.to_vec())]),
            bytes: Vec::new(),
            file: Arc::clone(&file),
            dialect: None,
            warm: 0,
            len: 0,
            line: 3,
            offset: first.len() as u64,
            failed: None,
            shrunk: false,
        },
        held: 0,
    };
    let mut merger = Merger {
        next: 0,
        waiting: BTreeMap::new(),
        free: Vec::new(),
        stopped: false,
        held: 0,
        failed: None,
    };
    let mut pipeline = Pipeline::new(crate::pipeline::Options::default());
    let mut all = Lines::default();
    let mut reported = Vec::new();
    let mut report = |e: &Error| reported.push(e.to_string());
    let end = Done {
        seq: 2,
        slot: Slot::End(Arc::clone(&file), None),
        held: 0,
    };
    for d in [done, later, end] {
        merger
            .accept(d, &mut pipeline, &mut all, &mut report)
            .expect("merged");
    }
    let seen: Vec<u64> = all.0.iter().map(|(l, _)| *l).collect();
    assert_eq!(seen, [1, 2, 3], "nothing after the cut");
    assert!(
        all.0[2].1.last() != Some(&b'\n'),
        "the cut line is unterminated"
    );
    // Reported after the input's end, as a read error.
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(
        reported[0].starts_with("log.jsonl: read error after line 3 (byte ")
            && reported[0].contains("the file shrank to"),
        "{reported:?}"
    );
}

fn file_of(bytes: &[u8]) -> std::fs::File {
    let mut f = tempfile::tempfile().expect("temp file");
    f.write_all(bytes).expect("write");
    f
}

#[test]
fn the_anchor_is_the_last_marked_line_before_the_warm_up_with_its_place() {
    let lines: [&[u8]; 5] = [
        b"{\"type\":\"assistant\",\"n\":1}\n",
        b"{\"type\":\"user\"}\n",
        b"{\"type\":\"assistant\",\"n\":2}\n",
        b"{\"type\":\"user\",\"long\":\"xxxxxxxx\"}\n",
        b"{\"type\":\"user\"}\n",
    ];
    let all = lines.concat();
    let f = file_of(&all);
    let mut back = Vec::new();
    // The warm-up starts at the fifth line: two lines after the second assistant line.
    let end = (all.len() - lines[4].len()) as u64;
    let a = find_anchor(&f, end, b"\"assistant\"", &mut back).expect("found");
    assert_eq!(a.line, lines[2]);
    assert_eq!(a.lines_after, 1);
    assert_eq!(
        a.bytes_before_warm,
        (lines[2].len() + lines[3].len()) as u64
    );
    // Before the second assistant line: the first, at the file's start.
    let end = (lines[0].len() + lines[1].len()) as u64;
    let a = find_anchor(&f, end, b"\"assistant\"", &mut back).expect("found");
    assert_eq!(a.line, lines[0]);
    assert_eq!(a.lines_after, 1);
    assert_eq!(a.bytes_before_warm, end);
    // No marked line before the warm-up.
    assert!(find_anchor(&f, end, b"\"result\"", &mut back).is_none());
    assert!(find_anchor(&f, 0, b"\"assistant\"", &mut back).is_none());
}

#[test]
fn an_anchor_line_starting_before_what_is_read_is_not_taken() {
    // A marked line longer than the look-back: its start is not read, so its line
    // number cannot be known.
    let mut all = b"{\"type\":\"user\"}\n{\"type\":\"assistant\",\"text\":\"".to_vec();
    all.extend(std::iter::repeat_n(b'x', ANCHOR_BYTES));
    all.extend_from_slice(b"\"}\n");
    let f = file_of(&all);
    let mut back = Vec::new();
    assert!(find_anchor(&f, all.len() as u64, b"\"assistant\"", &mut back).is_none());
    // With its start in reach, it is found.
    let short = b"{\"type\":\"user\"}\n{\"type\":\"assistant\",\"text\":\"x\"}\n";
    let f = file_of(short);
    let a = find_anchor(&f, short.len() as u64, b"\"assistant\"", &mut back).expect("found");
    assert_eq!(a.line, &short[16..]);
    assert_eq!(a.lines_after, 0);
}

/// A line of `len` bytes with its newline.
fn line(len: usize) -> Vec<u8> {
    let mut l = vec![b'x'; len - 1];
    l.push(b'\n');
    l
}

#[test]
fn a_range_ends_after_the_line_at_its_size_or_before_a_long_one() {
    let mut window = Vec::new();
    // Lines of 1,000 bytes: the cut is after the line holding the block's last byte.
    let short: Vec<u8> = (0..2000).flat_map(|_| line(1000)).collect();
    let f = file_of(&short);
    let end = (BLOCK_BYTES / 1000 + 1) * 1000;
    assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == end as u64));
    // A 300 KB line from just before the block's end: the range ends before it, and
    // the next one holds it whole.
    let head = BLOCK_BYTES - 4000;
    let mut long = line(head);
    long.extend(line(300_000));
    long.extend((0..1000).flat_map(|_| line(1000)));
    let f = file_of(&long);
    assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == head as u64));
    let next = head as u64;
    match next_cut(&f, next, &mut window) {
        Cut::At(c) => assert!(c > next + 300_000, "{c}"),
        _ => panic!("a cut past the long line"),
    }
    // A line longer than the window on both sides of the block's end: read to its end.
    let mut huge = line(BLOCK_BYTES - 40_000);
    huge.extend(line(200_000));
    huge.extend(line(10));
    let f = file_of(&huge);
    let at = (BLOCK_BYTES - 40_000 + 200_000) as u64;
    assert!(matches!(next_cut(&f, 0, &mut window), Cut::At(c) if c == at));
    // The end of the file: within the block, within the line, or nothing left.
    let f = file_of(&line(5000));
    assert!(matches!(next_cut(&f, 0, &mut window), Cut::Last(5000)));
    assert!(matches!(next_cut(&f, 5000, &mut window), Cut::Done));
    let mut open = line(BLOCK_BYTES - 100);
    open.extend(vec![b'x'; 1000]);
    let f = file_of(&open);
    let len = open.len() as u64;
    assert!(matches!(next_cut(&f, 0, &mut window), Cut::Last(l) if l == len));
}

#[test]
fn reads_land_where_address_and_offset_agree() {
    let buf = vec![0u8; 4096];
    for offset in [0u64, 1, 16, 63, 64, 4095, 1 << 20, 123_456_789] {
        let pad = align_pad(&buf, offset);
        assert!(pad < ALIGN);
        let addr = buf.as_ptr() as usize + pad;
        assert_eq!(addr % ALIGN, offset as usize % ALIGN, "{offset}");
    }
}
