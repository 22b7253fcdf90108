//! Framing and decoding on arbitrary bytes, read in arbitrary pieces: no panic, every byte
//! in exactly one record, the same records whatever the read boundaries, and each line's
//! verdict equal to serde_json's under the framing rules of docs/REFERENCE.md; for a valid
//! line, the value ndjq reads (keys, unescaped strings, numbers) equal to serde_json's, and
//! its strings written back byte for byte as serde_json writes them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndjq::pipeline::Options;
use ndjq_fuzz::{check_accounting, oracle, oracle_value, run, ChunkReader};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (head, input) = data.split_at(4);
    let max_line = if head[0] & 1 == 1 {
        1 + head[1] as usize % 96
    } else {
        1 << 20
    };
    let max_depth = if head[0] & 2 == 2 {
        1 + (head[1] >> 4) as usize
    } else {
        128
    };
    let read_size = 1 + head[2] as usize % 64;
    let sizes: Vec<usize> = (1..=5)
        .map(|k| 1 + (head[3] as usize * k * 7 + k) % 29)
        .collect();
    let options = Options {
        max_line_bytes: max_line,
        max_depth,
        read_size,
        ..Options::default()
    };
    let pieces = run(options.clone(), ChunkReader::new(input, sizes));
    check_accounting(input, &pieces);
    let whole = run(
        Options {
            // One read for the whole input (the default 1 MiB buffer would cost more
            // than the run).
            read_size: input.len().max(1),
            ..options
        },
        input,
    );
    assert_eq!(pieces, whole, "records do not depend on read boundaries");
    for r in &whole {
        let content_len = r.raw.len() - usize::from(r.raw.last() == Some(&b'\n'));
        assert_eq!(
            r.overlong,
            content_len > max_line,
            "line {}: overlong",
            r.line
        );
        assert_eq!(
            r.status,
            oracle(&r.raw, max_line, max_depth),
            "line {}: verdict differs from serde_json's on {:?} ({:?})",
            r.line,
            String::from_utf8_lossy(&r.raw),
            r.messages
        );
        if r.status == ndjq::pipeline::Status::Valid {
            assert_eq!(
                r.value,
                oracle_value(&r.raw),
                "line {}: the value differs from serde_json's on {:?}",
                r.line,
                String::from_utf8_lossy(&r.raw)
            );
            assert!(
                r.strings_as_serde,
                "line {}: a string written otherwise than serde_json writes it, on {:?}",
                r.line,
                String::from_utf8_lossy(&r.raw)
            );
        }
        assert_eq!(
            r.codes
                .iter()
                .filter(|c| matches!(
                    **c,
                    "PROTO_INVALID_UTF8"
                        | "PROTO_INVALID_JSON"
                        | "PROTO_TRUNCATED"
                        | "PROTO_TEXT_NOISE"
                        | "PROTO_LINE_TOO_LONG"
                        | "PROTO_TOO_DEEP"
                ))
                .count(),
            usize::from(r.status == ndjq::pipeline::Status::Invalid),
            "line {}: an invalid record has exactly one verdict code: {:?}",
            r.line,
            r.codes
        );
    }
});
