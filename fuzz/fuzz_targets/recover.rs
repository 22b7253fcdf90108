//! `--recover` on mixed text and JSON: no panic; the records cover the input in order
//! without overlap (a record is a run of whole lines, or an object taken out of one line);
//! a line that is a JSON object on its own is never swallowed; a single-line record keeps
//! the verdict it has without `--recover`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndjq::pipeline::{Options, Status};
use ndjq_fuzz::{oracle, run, ChunkReader};

/// Whether `line` (with its `\n`) is a JSON object on its own, by serde_json.
fn object_alone(line: &[u8], max_line: usize) -> bool {
    let content = line.strip_suffix(b"\n").unwrap_or(line);
    if content.len() > max_line {
        return false;
    }
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    ndjq_fuzz::serde_json_verdict(content, 128)
        && serde_json::from_slice::<serde_json::Value>(content).is_ok_and(|v| v.is_object())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (head, input) = data.split_at(2);
    let max_line = if head[0] & 1 == 1 {
        16 + head[1] as usize
    } else {
        1 << 20
    };
    let options = Options {
        recover: true,
        max_line_bytes: max_line,
        read_size: 1 + (head[0] >> 1) as usize,
        ..Options::default()
    };
    let sizes = vec![1 + head[1] as usize % 17, 3, 1 + head[0] as usize % 5];
    let seen = run(options.clone(), ChunkReader::new(input, sizes));
    let again = run(
        Options {
            // One read for the whole input (the default 1 MiB buffer would cost more
            // than the run).
            read_size: input.len().max(1),
            ..options
        },
        input,
    );
    assert_eq!(seen, again, "records do not depend on read boundaries");

    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let mut starts = Vec::with_capacity(lines.len());
    let mut at = 0usize;
    for l in &lines {
        starts.push(at);
        at += l.len();
    }
    let mut next = 0usize; // index of the next line no record has covered yet
    for r in &seen {
        assert!(next < lines.len(), "record {} past the last line", r.line);
        assert_eq!(r.line, next as u64 + 1, "records follow the lines in order");
        assert_eq!(r.offset, starts[next] as u64, "record {} offset", r.line);
        let start = starts[next];
        let end = start + r.raw.len();
        let whole_lines = end <= input.len()
            && input[start..end] == r.raw[..]
            && (end == input.len() || input[end - 1] == b'\n');
        if whole_lines {
            let covered = r.raw.split_inclusive(|&b| b == b'\n').count();
            if covered == 1 {
                assert_eq!(
                    r.status,
                    oracle(&r.raw, max_line, 128),
                    "line {}: a line alone keeps its own verdict",
                    r.line
                );
            } else {
                assert_eq!(r.status, Status::Valid, "a reassembly is one JSON value");
                assert!(r.codes.contains(&"PROTO_TEXT_NOISE"));
                for (i, l) in lines[next..next + covered].iter().enumerate().skip(1) {
                    assert!(
                        !object_alone(l, max_line),
                        "line {} is a JSON object on its own but was swallowed by the reassembly at line {}",
                        next + i + 1,
                        r.line
                    );
                }
            }
            next += covered;
        } else {
            // An object taken out of a text line: its bytes and a newline.
            let line = lines[next];
            let object = r
                .raw
                .strip_suffix(b"\n")
                .expect("a recovered object ends with \\n");
            assert!(!object.is_empty());
            assert!(
                line.windows(object.len()).any(|w| w == object),
                "line {}: the recovered object is part of the line",
                r.line
            );
            assert_eq!(r.status, Status::Valid, "a recovered object is valid");
            assert!(r.codes.contains(&"PROTO_TEXT_NOISE"));
            assert!(
                !object_alone(line, max_line),
                "line {}: a valid object line is never cut",
                r.line
            );
            next += 1;
        }
    }
    assert_eq!(next, lines.len(), "every line is in a record");
});
