//! A read-only view of one decoded JSON value, whichever parser produced it.
//!
//! The fast path decodes into a [`Doc`] (a flat tape of nodes pointing into the record,
//! strings unescaped only when read); the rare records the tape parser leaves to
//! serde_json arrive as a `serde_json::Value`. [`Json`] hides the difference so dialects
//! and predicates are written once. Object lookups are last-wins, like jq, for duplicate
//! keys.

use crate::tape::{Doc, Node, Tag};
use std::io;

/// Writes `s` as a JSON string, byte for byte as serde_json writes it (`\"`, `\\`, the
/// short escapes `\b \f \n \r \t`, other control characters as `\u00xx`, everything else
/// as it is). Text is checked eight bytes at a time, since most of it needs no escape.
pub fn write_str<W: io::Write + ?Sized>(out: &mut W, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    out.write_all(b"\"")?;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // The bytes to look at one by one: a word with something to escape, or the tail.
        let end = match bytes[i..].first_chunk::<8>() {
            Some(word) if !needs_escape(u64::from_le_bytes(*word)) => {
                i += 8;
                continue;
            }
            Some(_) => i + 8,
            None => bytes.len(),
        };
        while i < end {
            let b = bytes[i];
            let class = ESCAPE[usize::from(b)];
            i += 1;
            if class == 0 {
                continue;
            }
            out.write_all(&bytes[start..i - 1])?;
            start = i;
            if class == b'u' {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let esc = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ];
                out.write_all(&esc)?;
            } else {
                out.write_all(&[b'\\', class])?;
            }
        }
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// How serde_json escapes each byte: 0 not at all, `u` as `\u00xx`, else `\` and that byte.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Whether one of the eight bytes of `w` is a control character, `"` or `\\` (exact about
/// whether there is one; not about where).
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q & HIGH;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b & HIGH;
    (below_space | quote | backslash) != 0
}

/// `a == b` for object keys, which are short: compared as a few words rather than by a
/// call to `memcmp`, since every record's keys are compared with the ones asked for.
#[inline]
fn same_key(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match (a.first_chunk::<8>(), a.last_chunk::<8>()) {
        (Some(a0), Some(a1)) if a.len() <= 16 => {
            Some(a0) == b.first_chunk::<8>() && Some(a1) == b.last_chunk::<8>()
        }
        _ => match (a.first_chunk::<4>(), a.last_chunk::<4>()) {
            (Some(a0), Some(a1)) if a.len() <= 8 => {
                Some(a0) == b.first_chunk::<4>() && Some(a1) == b.last_chunk::<4>()
            }
            _ => a == b,
        },
    }
}

/// Where a value sits on its record's tape ([`Json::places_many`]), or nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place(u32);

impl Place {
    /// A key not found.
    pub(crate) const NONE: Place = Place(u32::MAX);
}

/// A borrowed JSON value.
#[derive(Debug, Clone, Copy)]
pub enum Json<'a> {
    /// A value on a tape.
    Tape(TapeValue<'a>),
    Serde(&'a serde_json::Value),
}

/// The value at node `at` of a parsed record `src`.
#[derive(Debug, Clone, Copy)]
pub struct TapeValue<'a> {
    doc: &'a Doc,
    src: &'a str,
    at: usize,
}

impl<'a> TapeValue<'a> {
    /// The whole record.
    pub fn root(doc: &'a Doc, src: &'a str) -> Self {
        TapeValue { doc, src, at: 0 }
    }

    fn node(&self) -> Option<&'a Node> {
        self.doc.nodes.get(self.at)
    }

    fn at(&self, at: usize) -> Self {
        TapeValue { at, ..*self }
    }

    fn text(&self, node: &Node) -> &'a str {
        self.doc.text(self.src, node)
    }

    /// Writes string node `node` as serde_json writes its value: the record's own text
    /// between the quotes when that is already it (most strings), else unescaped and
    /// escaped again.
    fn write_string<W: io::Write + ?Sized>(&self, out: &mut W, node: &Node) -> io::Result<()> {
        match self.doc.canonical_raw(self.src, node) {
            Some(raw) => {
                out.write_all(b"\"")?;
                out.write_all(raw.as_bytes())?;
                out.write_all(b"\"")
            }
            None => write_str(out, self.text(node)),
        }
    }

    /// Calls `f` with the key node and the value of every entry of an object, in order.
    fn entries(&self, mut f: impl FnMut(&'a Node, TapeValue<'a>)) {
        let Some(node) = self.node().filter(|n| n.tag == Tag::Object) else {
            return;
        };
        let mut idx = self.at + 1;
        for _ in 0..node.a {
            let (Some(k), Some(v)) = (self.doc.nodes.get(idx), self.doc.nodes.get(idx + 1)) else {
                return;
            };
            f(k, self.at(idx + 1));
            idx += 1 + span(v);
        }
    }

    /// A number's text.
    fn number(&self) -> Option<&'a str> {
        match self.node() {
            Some(n) if n.tag == Tag::Number => self.src.get(n.a as usize..n.b as usize),
            _ => None,
        }
    }
}

/// Whether a number's text is an integer (no fraction, no exponent).
fn is_integer(text: &str) -> bool {
    !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// What a JSON value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

/// Nodes a tape value spans, itself included.
fn span(node: &Node) -> usize {
    match node.tag {
        Tag::Object | Tag::Array => node.b as usize + 1,
        _ => 1,
    }
}

impl<'a> Json<'a> {
    pub fn kind(&self) -> Kind {
        match self {
            Json::Tape(t) => match t.node().map(|n| n.tag) {
                Some(Tag::Str | Tag::Escaped) => Kind::String,
                Some(Tag::Object) => Kind::Object,
                Some(Tag::Array) => Kind::Array,
                Some(Tag::True | Tag::False) => Kind::Bool,
                Some(Tag::Null) | None => Kind::Null,
                Some(Tag::Number) => Kind::Number,
            },
            Json::Serde(v) => match v {
                serde_json::Value::Null => Kind::Null,
                serde_json::Value::Bool(_) => Kind::Bool,
                serde_json::Value::Number(_) => Kind::Number,
                serde_json::Value::String(_) => Kind::String,
                serde_json::Value::Array(_) => Kind::Array,
                serde_json::Value::Object(_) => Kind::Object,
            },
        }
    }

    pub fn is_object(&self) -> bool {
        self.kind() == Kind::Object
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Json::Tape(t) => match t.node() {
                Some(n) if matches!(n.tag, Tag::Str | Tag::Escaped) => Some(t.text(n)),
                _ => None,
            },
            Json::Serde(v) => v.as_str(),
        }
    }

    /// A string with escapes, as the record writes it (between the quotes, escapes and
    /// all), before [`Json::as_str`] unescapes it: a reader can look at it first and leave
    /// it escaped when it has no use for the text. `None` for a string without escapes
    /// (its `as_str` is already the record's own bytes), for anything but a string, and
    /// for a value serde_json decoded (its raw text is gone).
    pub fn escaped_raw(&self) -> Option<&'a str> {
        match self {
            Json::Tape(t) => match t.node() {
                Some(n) if n.tag == Tag::Escaped => t.src.get(n.a as usize..n.b as usize),
                _ => None,
            },
            Json::Serde(_) => None,
        }
    }

    /// Where a string's text lies in its record (the bytes between its quotes) when that
    /// text is already what serde_json writes for the value (`Doc::canonical_raw`).
    pub(crate) fn canonical_span(&self) -> Option<(usize, usize)> {
        match self {
            Json::Tape(t) => {
                let n = t.node()?;
                t.doc.canonical_raw(t.src, n)?;
                Some((n.a as usize, n.b as usize))
            }
            Json::Serde(_) => None,
        }
    }

    /// A string as the record writes it between the quotes, when none of its escapes is a
    /// `\u` one. Then each character of the value is in that text either as itself or as
    /// one of the two-byte escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`),
    /// so a reader can find a word without `"`, `\` or control characters in it without
    /// unescaping the string. `None` for a string with a `\u` escape, for anything but a
    /// string, and for a value serde_json decoded.
    pub fn raw_str(&self) -> Option<&'a str> {
        match self {
            Json::Tape(t) => match t.node() {
                Some(n) if matches!(n.tag, Tag::Str | Tag::Escaped) => {
                    if t.doc.has_unicode_escape(n) {
                        return None;
                    }
                    t.src.get(n.a as usize..n.b as usize)
                }
                _ => None,
            },
            Json::Serde(_) => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Tape(t) => match t.node().map(|n| n.tag) {
                Some(Tag::True) => Some(true),
                Some(Tag::False) => Some(false),
                _ => None,
            },
            Json::Serde(v) => v.as_bool(),
        }
    }

    /// A non-negative integer value.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            // An integer's text, as serde_json reads it: `-0` is a float, not 0.
            Json::Tape(t) => t.number().and_then(|text| text.parse().ok()),
            Json::Serde(v) => v.as_u64(),
        }
    }

    /// A count (tokens, turns): a non-negative integer below 2^64, however it is written:
    /// `1000`, `1e3` and `1000.0` are all 1000. A string, a negative, fractional or
    /// too-large number is not a count (`None`); the dialect checks report it as
    /// PROTO_SCHEMA (docs/REFERENCE.md).
    pub fn as_count(&self) -> Option<u64> {
        if let Some(n) = self.as_u64() {
            return Some(n);
        }
        if self.kind() != Kind::Number {
            return None;
        }
        // 2^64 as a float: the first value a u64 cannot hold.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        self.as_f64()
            .filter(|f| *f >= 0.0 && *f < LIMIT && f.fract() == 0.0)
            .map(|f| f as u64)
    }

    /// A cost in USD: a finite number, not negative. A negative cost would take money
    /// off the total; the dialect checks report it as PROTO_SCHEMA.
    pub fn as_cost(&self) -> Option<f64> {
        self.as_f64().filter(|c| c.is_finite() && *c >= 0.0)
    }

    /// An integer value, negative or not.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            // `-0` is a float to serde_json.
            Json::Tape(t) => t
                .number()
                .filter(|text| *text != "-0")
                .and_then(|text| text.parse().ok()),
            Json::Serde(v) => v.as_i64(),
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            // Correctly rounded, so an integer reads as `n as f64` would give.
            Json::Tape(t) => t.number().and_then(|text| text.parse().ok()),
            Json::Serde(v) => v.as_f64(),
        }
    }

    /// The value of `key` in an object (the last one when a key repeats).
    pub fn get(&self, key: &str) -> Option<Json<'a>> {
        let mut found = None;
        self.for_each_key(|k, v| {
            if same_key(k, key.as_bytes()) {
                found = Some(v);
            }
        });
        found
    }

    /// The string value of `key` in an object (`None`: no such key, or not a string).
    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(|v| v.as_str())
    }

    /// The count (see [`Json::as_count`]) under `key` in an object.
    pub fn count(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(|v| v.as_count())
    }

    /// The values of several keys of an object, found in one walk over it (the last one
    /// when a key repeats, as [`Json::get`]).
    pub fn get_many<const N: usize>(&self, keys: [&str; N]) -> [Option<Json<'a>>; N] {
        let mut found = [None; N];
        self.each_wanted(keys, |slot, v| {
            if let Some(slot) = found.get_mut(slot) {
                *slot = Some(v);
            }
        });
        found
    }

    /// [`Json::get_many`] as the values' places on the record's tape, read back with
    /// [`Json::at_place`]: four bytes a key rather than a whole `Json`, so that what the
    /// classifier's walk found can travel with the record (docs/DESIGN.md, "One walk over
    /// a record's top level"). `None` for a value that is not on a tape.
    pub(crate) fn places_many<const N: usize>(&self, keys: [&str; N]) -> Option<[Place; N]> {
        if !matches!(self, Json::Tape(_)) {
            return None;
        }
        let mut found = [Place::NONE; N];
        self.each_wanted(keys, |slot, v| {
            if let (Some(slot), Json::Tape(t)) = (found.get_mut(slot), v) {
                // Node indices fit: a tape has fewer nodes than its record has bytes,
                // and records are under 4 GiB.
                *slot = Place(t.at as u32);
            }
        });
        Some(found)
    }

    /// The value at `place` on this value's tape (one [`Json::places_many`] found in it
    /// or in the record it belongs to).
    pub(crate) fn at_place(&self, place: Place) -> Option<Json<'a>> {
        match self {
            Json::Tape(t) if place != Place::NONE => Some(Json::Tape(t.at(place.0 as usize))),
            _ => None,
        }
    }

    /// Calls `hit(i, value)` for every entry of an object whose key is `keys[i]`, in input
    /// order (so the last of a repeated key is the last call).
    #[inline]
    fn each_wanted<const N: usize>(&self, keys: [&str; N], mut hit: impl FnMut(usize, Json<'a>)) {
        // The lengths asked for, as bits: most of an object's keys have none of them and
        // are passed over with one test rather than N comparisons (the gap readers look
        // for up to seven keys in every record).
        let lengths = keys.iter().fold(0u64, |m, k| m | 1 << (k.len() % 64));
        self.for_each_key(|k, v| {
            if lengths & 1 << (k.len() % 64) == 0 {
                return;
            }
            for (i, key) in keys.iter().enumerate() {
                if same_key(k, key.as_bytes()) {
                    hit(i, v);
                }
            }
        });
    }

    /// [`Json::for_each_entry`] for lookups: a key without escapes is its bytes in the
    /// record, with no `str` made of it (which would check its ends are char boundaries).
    fn for_each_key(&self, mut f: impl FnMut(&'a [u8], Json<'a>)) {
        let Json::Tape(t) = self else {
            return self.for_each_entry(|k, v| f(k.as_bytes(), v));
        };
        let src = t.src.as_bytes();
        t.entries(|k, v| {
            let key = match k.tag {
                Tag::Str => src.get(k.a as usize..k.b as usize).unwrap_or_default(),
                _ => t.text(k).as_bytes(),
            };
            f(key, Json::Tape(v));
        });
    }

    /// Whether an object has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Calls `f` for every key and value of an object, in input order.
    pub fn for_each_entry(&self, mut f: impl FnMut(&'a str, Json<'a>)) {
        match self {
            Json::Tape(t) => t.entries(|k, v| f(t.text(k), Json::Tape(v))),
            Json::Serde(serde_json::Value::Object(map)) => {
                for (k, v) in map {
                    f(k.as_str(), Json::Serde(v));
                }
            }
            Json::Serde(_) => {}
        }
    }

    /// Calls `f` for every element of an array, in order.
    pub fn for_each_element(&self, mut f: impl FnMut(Json<'a>)) {
        match self {
            Json::Tape(t) => {
                let Some(node) = t.node().filter(|n| n.tag == Tag::Array) else {
                    return;
                };
                let mut idx = t.at + 1;
                for _ in 0..node.a {
                    let Some(v) = t.doc.nodes.get(idx) else {
                        return;
                    };
                    f(Json::Tape(t.at(idx)));
                    idx += span(v);
                }
            }
            Json::Serde(serde_json::Value::Array(items)) => {
                for v in items {
                    f(Json::Serde(v));
                }
            }
            Json::Serde(_) => {}
        }
    }

    /// The i-th element of an array.
    pub fn index(&self, i: usize) -> Option<Json<'a>> {
        let mut n = 0;
        let mut found = None;
        self.for_each_element(|v| {
            if n == i {
                found = Some(v);
            }
            n += 1;
        });
        found
    }

    /// Follows a path of object keys and array indexes.
    /// A numeric step indexes arrays (`message.content.0.type`).
    pub fn path<S: AsRef<str>>(&self, path: &[S]) -> Option<Json<'a>> {
        path.iter()
            .try_fold(*self, |cur, step| cur.step(step.as_ref()))
    }

    /// [`Json::path`] written with dots (`message.content.0.type`), without allocating.
    pub fn dotted(&self, path: &str) -> Option<Json<'a>> {
        path.split('.').try_fold(*self, |cur, step| cur.step(step))
    }

    /// One step of a path: an array's element when the step is a number, else an
    /// object's key (`None` on a scalar). Every path ndjq follows (a record's fields, the
    /// schema checks, `--where` and `--print`) steps with this.
    pub fn step(&self, step: &str) -> Option<Json<'a>> {
        match self.kind() {
            Kind::Array => self.index(step.parse().ok()?),
            Kind::Object => self.get(step),
            _ => None,
        }
    }

    /// Equality with a JSON value given on the command line: numbers compare by value
    /// (`1` equals `1.0`), objects regardless of key order.
    pub fn equals(&self, other: &serde_json::Value) -> bool {
        use serde_json::Value as V;
        match (self.kind(), other) {
            (Kind::Null, V::Null) => true,
            (Kind::Bool, V::Bool(b)) => self.as_bool() == Some(*b),
            (Kind::String, V::String(s)) => self.as_str() == Some(s.as_str()),
            (Kind::Number, V::Number(n)) => match (self, n.as_u64(), n.as_i64()) {
                (Json::Serde(V::Number(m)), _, _) if m == n => true,
                (_, Some(u), _) if self.as_u64() == Some(u) => true,
                _ => match (self.as_f64(), n.as_f64()) {
                    (Some(a), Some(b)) => a == b,
                    _ => {
                        // Integers beyond 64 bits only come through serde: compare text.
                        matches!(self, Json::Serde(V::Number(m)) if m.to_string() == n.to_string())
                    }
                },
            },
            (Kind::Array, V::Array(items)) => {
                let mut i = 0;
                let mut same = true;
                self.for_each_element(|v| {
                    same &= items.get(i).is_some_and(|o| v.equals(o));
                    i += 1;
                });
                same && i == items.len()
            }
            (Kind::Object, V::Object(map)) => {
                let mut keys = 0;
                let mut same = true;
                // Count distinct keys: a duplicated key is compared by its last value.
                let mut seen: Vec<&str> = Vec::new();
                self.for_each_entry(|k, _| {
                    if !seen.contains(&k) {
                        seen.push(k);
                        keys += 1;
                    }
                });
                for k in &seen {
                    same &= match (self.get(k), map.get(*k)) {
                        (Some(a), Some(b)) => a.equals(b),
                        _ => false,
                    };
                }
                same && keys == map.len()
            }
            _ => false,
        }
    }
}

impl Json<'_> {
    /// Writes the value as compact JSON, keys in input order and repeated keys kept, so a
    /// nested part of a record (a tool's input, a whole record) can be copied into other
    /// output exactly, without a detour through a map that would sort its keys.
    pub fn write_compact<W: io::Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let t = match self {
            Json::Serde(v) => return serde_json::to_writer(&mut *out, v).map_err(io::Error::from),
            Json::Tape(t) => t,
        };
        let Some(node) = t.node() else {
            return out.write_all(b"null");
        };
        match node.tag {
            Tag::Null => out.write_all(b"null"),
            Tag::True => out.write_all(b"true"),
            Tag::False => out.write_all(b"false"),
            Tag::Number => write_number(out, t.number().unwrap_or("0")),
            Tag::Str | Tag::Escaped => t.write_string(out, node),
            Tag::Array => {
                out.write_all(b"[")?;
                let mut result = Ok(());
                let mut first = true;
                self.for_each_element(|v| {
                    if result.is_ok() {
                        let comma = if first { Ok(()) } else { out.write_all(b",") };
                        first = false;
                        result = comma.and_then(|()| v.write_compact(out));
                    }
                });
                result?;
                out.write_all(b"]")
            }
            Tag::Object => {
                out.write_all(b"{")?;
                let mut result = Ok(());
                let mut first = true;
                t.entries(|k, v| {
                    if result.is_ok() {
                        let comma = if first { Ok(()) } else { out.write_all(b",") };
                        first = false;
                        result = comma
                            .and_then(|()| t.write_string(out, k))
                            .and_then(|()| out.write_all(b":"))
                            .and_then(|()| Json::Tape(v).write_compact(out));
                    }
                });
                result?;
                out.write_all(b"}")
            }
        }
    }

    /// The value as compact JSON text (see [`Json::write_compact`]).
    pub fn to_compact_string(&self) -> String {
        let mut buf = Vec::new();
        // Writing into a Vec cannot fail, and the output of write_compact is UTF-8.
        let _ = self.write_compact(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// Writes a number as serde_json writes the value it reads from `text`: an integer that
/// fits 64 bits as it is, anything else (fractions, exponents, `-0`, bigger integers)
/// as the f64 it rounds to.
fn write_number<W: io::Write + ?Sized>(out: &mut W, text: &str) -> io::Result<()> {
    // JSON's grammar allows no leading zero or `+`: an integer's text is how it prints.
    if is_integer(text)
        && (text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok_and(|n| n != 0))
    {
        return out.write_all(text.as_bytes());
    }
    let n: f64 = text.parse().unwrap_or(0.0);
    serde_json::to_writer(&mut *out, &n).map_err(io::Error::from)
}

/// Parses a dotted path `a.b.0.c` into its steps. Empty steps are refused.
pub fn parse_path(s: &str) -> Option<Vec<String>> {
    s.split('.')
        .map(|p| (!p.is_empty()).then(|| p.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_tape<T>(text: &str, f: impl FnOnce(Json<'_>) -> T) -> T {
        let mut doc = Doc::new();
        assert!(doc.parse(text, 128), "valid");
        f(Json::Tape(TapeValue::root(&doc, text)))
    }

    #[test]
    fn integers_read_as_serde_json_reads_them() {
        for text in [
            "0",
            "-0",
            "-1",
            "7",
            "1.0",
            "1e2",
            "-9223372036854775808",
            "9223372036854775808",
        ] {
            let serde: serde_json::Value = serde_json::from_str(text).expect("json");
            let ours = with_tape(text, |v| v.as_i64());
            assert_eq!(ours, serde.as_i64(), "{text}");
        }
    }

    #[test]
    fn tape_and_serde_views_agree() {
        let text = r#"{"type":"a","n":1,"m":{"x":[1,"two",null,true,2.5]},"type":"b"}"#;
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid");
        for_both(text, &serde, |j| {
            assert_eq!(j.str("type"), Some("b"), "last wins");
            assert_eq!(j.get("n").and_then(|v| v.as_u64()), Some(1));
            let p = parse_path("m.x.1").expect("path");
            assert_eq!(j.path(&p).and_then(|v| v.as_str()), Some("two"));
            let p = parse_path("m.x.4").expect("path");
            assert_eq!(j.path(&p).and_then(|v| v.as_f64()), Some(2.5));
            assert_eq!(j.get("missing").map(|v| v.kind()), None);
            let expect: serde_json::Value =
                serde_json::from_str(r#"{"x":[1.0,"two",null,true,2.5]}"#).expect("valid");
            assert!(j.get("m").expect("m").equals(&expect));
            assert!(!j.get("m").expect("m").equals(&serde_json::json!({"x": []})));
        });
    }

    #[test]
    fn escaped_raw_is_the_text_before_unescaping() {
        let text = r#"{"plain":"abc","esc":"a\"b\n\u00e9","n":1}"#;
        with_tape(text, |j| {
            assert_eq!(j.get("plain").and_then(|v| v.escaped_raw()), None);
            let esc = j.get("esc").expect("esc");
            assert_eq!(esc.escaped_raw(), Some(r#"a\"b\n\u00e9"#));
            assert_eq!(esc.as_str(), Some("a\"b\né"));
            assert_eq!(j.get("n").and_then(|v| v.escaped_raw()), None);
        });
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid");
        assert_eq!(
            Json::Serde(&serde).get("esc").and_then(|v| v.escaped_raw()),
            None
        );
    }

    #[test]
    fn compact_writing_keeps_key_order_and_repeated_keys() {
        let text =
            r#"{ "z": 1, "a": [true, null, -2, 2.5, "q\"\u00e9"], "z": {"k": {}} , "e": []}"#;
        let expect = r#"{"z":1,"a":[true,null,-2,2.5,"q\"é"],"z":{"k":{}},"e":[]}"#;
        with_tape(text, |j| assert_eq!(j.to_compact_string(), expect));
        let serde: serde_json::Value =
            serde_json::from_str(r#"{"n": 18446744073709551616, "s": "x"}"#).expect("valid");
        assert_eq!(
            Json::Serde(&serde).to_compact_string(),
            r#"{"n":1.8446744073709552e+19,"s":"x"}"#
        );
    }

    /// A number written back from the tape reads as serde_json reads the original text.
    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        let cases = [
            "0",
            "-0",
            "-0.0",
            "1",
            "-1",
            "1.0",
            "1.5e3",
            "1E2",
            "2.5",
            "-7.25e-3",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "1e308",
            "1e-400",
            "0.1",
            "4.35",
            "9007199254740993",
        ];
        for text in cases {
            let theirs: serde_json::Value = serde_json::from_str(text).expect("valid");
            let ours = with_tape(text, |j| j.to_compact_string());
            let back: serde_json::Value = serde_json::from_str(&ours).expect("valid");
            assert_eq!(back, theirs, "{text} written as {ours}");
            with_tape(text, |j| {
                assert_eq!(j.as_u64(), theirs.as_u64(), "{text} as u64");
                assert_eq!(j.as_f64(), theirs.as_f64(), "{text} as f64");
            });
        }
    }

    /// Compact writing copies a string's own text where it can (see
    /// `Doc::canonical_raw`): over random strings made of every kind of escape, at every
    /// offset of stage 1's 64-byte blocks, as values and as keys, the bytes written are
    /// serde_json's for the decoded string.
    #[test]
    fn compact_strings_are_written_as_serde_json_writes_them() {
        let pieces = [
            "a",
            "é",
            "😀",
            "\u{7f}",
            "/",
            r#"\""#,
            r"\\",
            r"\/",
            r"\b",
            r"\f",
            r"\n",
            r"\r",
            r"\t",
            r"\u0000",
            r"\u001f",
            r"\u001F",
            r"\u0008",
            r"\u000a",
            r"\u00e9",
            r"\u00E9",
            r"\u0041",
            r"\u2028",
            r"\ud83d\ude00",
            r"\\u0001",
        ];
        let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| rng.below(n);
        let mut copied = 0;
        for _ in 0..3000 {
            let pad = " ".repeat(next(64));
            let literal: String = (0..next(30)).map(|_| pieces[next(pieces.len())]).collect();
            let other: String = (0..next(4)).map(|_| pieces[next(pieces.len())]).collect();
            let text = format!(r#"{pad}[{{"{literal}":"{other}","k":"{literal}"}},"{literal}"]"#);
            let value: serde_json::Value = serde_json::from_str(&text).expect("valid");
            let (s, o) = (value[1].as_str().expect("a string"), other.as_str());
            let o: String = serde_json::from_str(&format!("\"{o}\"")).expect("valid");
            let q = |s: &str| serde_json::to_string(s).expect("serde_json writes");
            let expect = format!("[{{{}:{},\"k\":{}}},{}]", q(s), q(&o), q(s), q(s));
            let ours = with_tape(&text, |j| j.to_compact_string());
            assert_eq!(ours, expect, "{text}");
            copied += usize::from(q(s) == format!("\"{literal}\""));
        }
        assert!(copied > 100, "the raw copy was taken: {copied}");
    }

    fn for_both(text: &str, serde: &serde_json::Value, f: impl Fn(Json<'_>)) {
        with_tape(text, &f);
        f(Json::Serde(serde));
    }

    /// Keys of every length up to 20 compare as their bytes do, whichever byte differs.
    #[test]
    fn keys_compare_as_bytes() {
        let words: Vec<Vec<u8>> = (0..=20)
            .flat_map(|n| {
                let base: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
                let mut out = vec![base.clone()];
                for at in 0..n {
                    let mut w = base.clone();
                    w[at] = b'Z';
                    out.push(w);
                }
                out
            })
            .collect();
        for a in &words {
            for b in &words {
                assert_eq!(same_key(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    /// The same bytes as serde_json for every ASCII and control character alone, at every
    /// position of an 8-byte word, and for text mixing multi-byte characters and escapes.
    #[test]
    fn write_str_matches_serde_json() {
        let mut cases: Vec<String> = Vec::new();
        for c in (0u8..0x80)
            .map(char::from)
            .chain(['é', '\u{2028}', '😀', '\u{7f}'])
        {
            for pad in 0..10 {
                cases.push(format!("{}{c}{}", "a".repeat(pad), "b".repeat(9 - pad)));
            }
        }
        cases.push(String::new());
        cases.push("line one\nline \"two\"\t\\ done\r\n\u{1}\u{1f} é 😀".repeat(7));
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let s: String = (0..40)
                .map(|_| {
                    let x = rng.next_u64();
                    let pool = [
                        'a', ' ', '"', '\\', '\n', '\u{0}', '\u{1b}', 'ß', '€', '😀', '/', '~',
                    ];
                    pool[(x % pool.len() as u64) as usize]
                })
                .collect();
            cases.push(s);
        }
        for case in &cases {
            let mut ours = Vec::new();
            write_str(&mut ours, case).expect("writes to a Vec");
            let theirs = serde_json::to_vec(case).expect("serde_json writes");
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{case:?}"
            );
        }
    }
}
