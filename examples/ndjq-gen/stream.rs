//! The writer behind `ndjq-gen stream`: takes the records a session writer makes, adds a
//! leading `seq` field (`--seq`, with occasional gaps), damages lines at the requested rate
//! (`--corrupt-rate`), writes them, and lists every damaged line and sequence gap in the
//! manifest (`--manifest`), one JSON object per line:
//!
//! ```text
//! {"line":N,"kind":"truncated"|"bad_utf8"|"noise"|"unknown_type"|"missing_field"|"blank"|"crlf"|"merged"|"nul"}
//! {"line":N,"kind":"seq_gap","missing":M}
//! ```
//!
//! `line` is 1-based in the written output. `noise` and `blank` are extra lines inserted
//! before an intact record; `merged` is a record written with the next one on the same line
//! (the manifest names the line holding both, by the second record's damage if it has one);
//! a last record left waiting for a partner is written alone and intact. The summary's
//! counts are the manifest's.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::rng::Rng;
use crate::session::Out;
use crate::words::NOISE_LINES;

/// Damage kinds and their weights.
const KINDS: &[(&str, u64)] = &[
    ("truncated", 25),
    ("bad_utf8", 20),
    ("noise", 15),
    ("unknown_type", 10),
    ("missing_field", 10),
    ("blank", 5),
    ("crlf", 5),
    ("merged", 5),
    ("nul", 5),
];
const BAD_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xc3\x28",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xfe\xfe",
    b"\x80",
];

/// When a stream stops.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Bytes(u64),
    Records(u64),
}

/// What to do to the records.
#[derive(Debug, Clone)]
pub struct Damage {
    pub rate: f64,
    pub seq: bool,
    /// Type names no dialect of the stream knows, for `unknown_type`.
    pub unknown_types: &'static [&'static str],
}

/// The stream writer (see the module docs).
#[derive(Debug)]
pub struct StreamOut<W: Write, M: Write> {
    out: W,
    manifest: Option<M>,
    target: Target,
    damage: Damage,
    /// Corruption decisions: their own stream, so a rate does not change the records.
    crng: Rng,
    /// Sequence gaps: their own stream too.
    srng: Rng,
    pub bytes: u64,
    pub lines: u64,
    seq: u64,
    pending_merge: Option<Vec<u8>>,
    pub types: BTreeMap<String, u64>,
    pub corrupt: BTreeMap<&'static str, u64>,
    error: Option<io::Error>,
}

impl<W: Write, M: Write> StreamOut<W, M> {
    pub fn new(
        out: W,
        manifest: Option<M>,
        target: Target,
        damage: Damage,
        seed: u64,
    ) -> StreamOut<W, M> {
        StreamOut {
            out,
            manifest,
            target,
            damage,
            crng: Rng::new(seed, 0xc0_7707),
            srng: Rng::new(seed, 0x5e9),
            bytes: 0,
            lines: 0,
            seq: 0,
            pending_merge: None,
            types: BTreeMap::new(),
            corrupt: BTreeMap::new(),
            error: None,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
        self.bytes += bytes.len() as u64;
        self.lines += 1;
    }

    fn note(&mut self, entry: String) {
        if let Some(m) = self.manifest.as_mut() {
            if self.error.is_none() {
                if let Err(e) = writeln!(m, "{entry}") {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Lists damaged line `line` in the manifest and counts it in the summary.
    fn listed(&mut self, line: u64, kind: &'static str) {
        self.note(format!("{{\"line\":{line},\"kind\":\"{kind}\"}}"));
        *self.corrupt.entry(kind).or_default() += 1;
    }

    /// Writes what is still pending and flushes; the first I/O error, if any.
    pub fn finish(mut self) -> io::Result<(W, Option<M>)> {
        if let Some(mut b) = self.pending_merge.take() {
            b.push(b'\n');
            self.write(&b);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        if let Some(m) = self.manifest.as_mut() {
            m.flush()?;
        }
        Ok((self.out, self.manifest))
    }

    fn pick_kind(&mut self) -> &'static str {
        let total: u64 = KINDS.iter().map(|(_, w)| w).sum();
        let mut k = self.crng.below(total);
        for (name, w) in KINDS {
            if k < *w {
                return name;
            }
            k -= w;
        }
        KINDS[0].0
    }
}

impl<W: Write, M: Write> Out for StreamOut<W, M> {
    fn record(&mut self, ty: &str, line: &str) {
        *self.types.entry(ty.to_string()).or_default() += 1;
        let mut b = line.as_bytes().to_vec();
        if self.damage.seq {
            if self.srng.one_in(2000) {
                let gap = self.srng.range(1, 6);
                self.seq += gap;
                let entry = format!(
                    "{{\"line\":{},\"kind\":\"seq_gap\",\"missing\":{gap}}}",
                    self.lines + 1
                );
                self.note(entry);
            }
            let mut with = format!("{{\"seq\":{},", self.seq).into_bytes();
            with.extend_from_slice(&b[1..]);
            b = with;
            self.seq += 1;
        }
        let mut kind: Option<&'static str> = None;
        if self.damage.rate > 0.0 && self.crng.unit() < self.damage.rate {
            let k = self.pick_kind();
            kind = Some(k);
            match k {
                "truncated" => {
                    let lo = (b.len() / 10).max(1) as u64;
                    let hi = (b.len() * 9 / 10).max(2) as u64;
                    let cut = self.crng.range(lo, hi.max(lo + 1)) as usize;
                    b.truncate(cut.min(b.len()));
                }
                "bad_utf8" => {
                    let p = insertion_point(&b);
                    let bad = *self.crng.pick(BAD_UTF8);
                    b.splice(p..p, bad.iter().copied());
                }
                "nul" => {
                    let p = insertion_point(&b);
                    b.insert(p, 0);
                }
                "noise" => {
                    let mut n = self.crng.pick(NOISE_LINES).as_bytes().to_vec();
                    n.push(b'\n');
                    self.write(&n);
                    self.listed(self.lines, "noise");
                    kind = None; // the record itself stays intact
                }
                "blank" => {
                    self.write(b"\n");
                    self.listed(self.lines, "blank");
                    kind = None;
                }
                "unknown_type" => {
                    if let Some(m) = json::top_member(&b, b"type") {
                        if b.get(m.value) == Some(&b'"') {
                            let name = *self.crng.pick(self.damage.unknown_types);
                            b.splice(m.value + 1..m.end - 1, name.bytes());
                        }
                    }
                }
                "missing_field" => {
                    let usage = memfind(&b, b"\"usage\":{");
                    match usage {
                        Some(p) if self.crng.one_in(2) => {
                            let v = p + b"\"usage\":".len();
                            let end = json::value_end(&b, v);
                            b.splice(v..end, b"null".iter().copied());
                        }
                        _ => {
                            if let Some(m) = json::top_member(&b, b"type") {
                                let (from, to) = if b.get(m.end) == Some(&b',') {
                                    (m.start, m.end + 1)
                                } else {
                                    (m.comma_before.unwrap_or(m.start), m.end)
                                };
                                b.drain(from..to);
                            }
                        }
                    }
                }
                "crlf" => b.push(b'\r'),
                _ => {
                    // merged: written together with the next record, on one line.
                    self.pending_merge = Some(b);
                    return;
                }
            }
        }
        if let Some(mut first) = self.pending_merge.take() {
            first.extend_from_slice(&b);
            b = first;
            kind = kind.or(Some("merged"));
        }
        b.push(b'\n');
        self.write(&b);
        if let Some(k) = kind {
            self.listed(self.lines, k);
        }
    }

    fn full(&self) -> bool {
        self.error.is_some()
            || match self.target {
                Target::Bytes(n) => self.bytes >= n,
                Target::Records(n) => self.lines >= n,
            }
    }
}

/// Where bad bytes go: inside the last `uuid`, `timestamp` or `thread_id` string, else
/// inside the top-level `type` string, else at the end of the line.
fn insertion_point(b: &[u8]) -> usize {
    for key in [
        &b"\"uuid\":\""[..],
        b"\"timestamp\":\"",
        b"\"thread_id\":\"",
    ] {
        if let Some(p) = memrfind(b, key) {
            return p + key.len();
        }
    }
    match json::top_member(b, b"type") {
        Some(m) if b.get(m.value) == Some(&b'"') => m.value + 1,
        _ => b.len(),
    }
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn memrfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Just enough JSON scanning to find a top-level member of a generated (valid) record.
mod json {
    /// A top-level member: where its key starts, where its value starts and ends, and the
    /// comma before it (if any).
    #[derive(Debug, Clone, Copy)]
    pub struct Member {
        pub start: usize,
        pub value: usize,
        pub end: usize,
        pub comma_before: Option<usize>,
    }

    fn ws(b: &[u8], mut i: usize) -> usize {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    }

    /// The index after the string starting at `i` (a `"`).
    fn string_end(b: &[u8], mut i: usize) -> usize {
        i += 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        b.len()
    }

    /// The index after the value starting at `i`.
    pub fn value_end(b: &[u8], i: usize) -> usize {
        match b.get(i) {
            Some(b'"') => string_end(b, i),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                let mut j = i;
                while j < b.len() {
                    match b[j] {
                        b'"' => {
                            j = string_end(b, j);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                b.len()
            }
            _ => {
                let mut j = i;
                while j < b.len() && !matches!(b[j], b',' | b'}' | b']') {
                    j += 1;
                }
                j
            }
        }
    }

    /// The top-level member named `key` of the object `b`.
    pub fn top_member(b: &[u8], key: &[u8]) -> Option<Member> {
        let mut i = ws(b, 0);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i += 1;
        let mut comma_before = None;
        loop {
            i = ws(b, i);
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let start = i;
            let key_end = string_end(b, i);
            i = ws(b, key_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            let value = ws(b, i + 1);
            let end = value_end(b, value);
            if b.get(start + 1..key_end - 1) == Some(key) {
                return Some(Member {
                    start,
                    value,
                    end,
                    comma_before,
                });
            }
            i = ws(b, end);
            if b.get(i) != Some(&b',') {
                return None;
            }
            comma_before = Some(i);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_members_are_found_past_nested_ones() {
        let b = br#"{"message":{"type":"message","x":"}\""},"type":"assistant","n":1}"#;
        let m = json::top_member(b, b"type").expect("found");
        assert_eq!(&b[m.value..m.end], br#""assistant""#);
        let n = json::top_member(b, b"n").expect("found");
        assert_eq!(&b[n.value..n.end], b"1");
        assert!(json::top_member(b, b"nope").is_none());
    }

    fn damaged(rate: f64, seq: bool) -> (Vec<u8>, Vec<u8>) {
        let mut out = StreamOut::new(
            Vec::new(),
            Some(Vec::new()),
            Target::Records(u64::MAX),
            Damage {
                rate,
                seq,
                unknown_types: &["telemetry"],
            },
            5,
        );
        for i in 0..3000 {
            out.record(
                "assistant",
                &format!(r#"{{"type":"assistant","message":{{"id":"m{i}","usage":{{"input_tokens":1,"cache_creation":{{"x":1}}}}}},"uuid":"u{i}"}}"#),
            );
        }
        let (data, manifest) = out.finish().expect("in memory");
        (data, manifest.expect("a manifest"))
    }

    #[test]
    fn every_damaged_line_is_in_the_manifest_and_the_others_are_intact() {
        let (data, manifest) = damaged(0.2, false);
        let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        let manifest = String::from_utf8(manifest).expect("UTF-8");
        let mut listed = BTreeMap::new();
        for l in manifest.lines() {
            let v: serde_json::Value = serde_json::from_str(l).expect("manifest JSON");
            let line = v["line"].as_u64().expect("line") as usize;
            listed.insert(line, v["kind"].as_str().expect("kind").to_string());
        }
        let mut kinds = std::collections::BTreeSet::new();
        for (i, l) in lines.iter().enumerate().take(lines.len() - 1) {
            let parsed = serde_json::from_slice::<serde_json::Value>(l).ok();
            let intact = parsed
                .as_ref()
                .is_some_and(|v| v["type"] == "assistant" && v["message"]["usage"].is_object());
            match listed.get(&(i + 1)) {
                Some(kind) => {
                    kinds.insert(kind.clone());
                    assert!(
                        !intact || kind == "crlf",
                        "line {} listed as {kind} but intact",
                        i + 1
                    );
                }
                None => assert!(intact, "line {} damaged but not listed", i + 1),
            }
        }
        assert_eq!(kinds.len(), KINDS.len(), "every kind shows: {kinds:?}");
    }

    #[test]
    fn sequence_gaps_are_listed() {
        let (data, manifest) = damaged(0.0, true);
        let manifest = String::from_utf8(manifest).expect("UTF-8");
        let mut expected = 0u64;
        let gaps: BTreeMap<u64, u64> = manifest
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
                (
                    v["line"].as_u64().expect("line"),
                    v["missing"].as_u64().expect("missing"),
                )
            })
            .collect();
        assert!(!gaps.is_empty());
        for (i, l) in data
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            let v: serde_json::Value = serde_json::from_slice(l).expect("JSON");
            expected += gaps.get(&(i as u64 + 1)).copied().unwrap_or(0);
            assert_eq!(v["seq"].as_u64(), Some(expected));
            expected += 1;
        }
    }
}
