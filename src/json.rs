//! A read-only view of one decoded JSON value, whichever parser produced it.
//!
//! The fast path decodes with simd-json into a tape (a flat list of nodes, no per-value
//! allocation); the rare lines simd-json refuses but serde_json accepts (integers beyond
//! 64 bits) arrive as a `serde_json::Value`. [`Json`] hides the difference so dialects and
//! predicates are written once. Object lookups are last-wins, like jq, for duplicate keys.

use simd_json::{Node, StaticNode};
use std::io;

/// A borrowed JSON value.
#[derive(Debug, Clone, Copy)]
pub enum Json<'a> {
    /// A value on a simd-json tape: the slice starts at the value's node and covers it.
    Tape(&'a [Node<'a>]),
    Serde(&'a serde_json::Value),
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
fn span(node: &Node<'_>) -> usize {
    match node {
        Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
        _ => 1,
    }
}

impl<'a> Json<'a> {
    pub fn kind(&self) -> Kind {
        match self {
            Json::Tape(nodes) => match nodes.first() {
                Some(Node::String(_)) => Kind::String,
                Some(Node::Object { .. }) => Kind::Object,
                Some(Node::Array { .. }) => Kind::Array,
                Some(Node::Static(StaticNode::Bool(_))) => Kind::Bool,
                Some(Node::Static(StaticNode::Null)) | None => Kind::Null,
                Some(Node::Static(_)) => Kind::Number,
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
            Json::Tape(nodes) => match nodes.first() {
                Some(Node::String(s)) => Some(s),
                _ => None,
            },
            Json::Serde(v) => v.as_str(),
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Tape(nodes) => match nodes.first() {
                Some(Node::Static(StaticNode::Bool(b))) => Some(*b),
                _ => None,
            },
            Json::Serde(v) => v.as_bool(),
        }
    }

    /// A non-negative integer value.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Tape(nodes) => match nodes.first() {
                Some(Node::Static(StaticNode::U64(n))) => Some(*n),
                Some(Node::Static(StaticNode::I64(n))) => u64::try_from(*n).ok(),
                _ => None,
            },
            Json::Serde(v) => v.as_u64(),
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Tape(nodes) => match nodes.first() {
                Some(Node::Static(StaticNode::U64(n))) => Some(*n as f64),
                Some(Node::Static(StaticNode::I64(n))) => Some(*n as f64),
                Some(Node::Static(StaticNode::F64(n))) => Some(*n),
                _ => None,
            },
            Json::Serde(v) => v.as_f64(),
        }
    }

    /// The value of `key` in an object (the last one when a key repeats).
    pub fn get(&self, key: &str) -> Option<Json<'a>> {
        let mut found = None;
        self.for_each_entry(|k, v| {
            if k == key {
                found = Some(v);
            }
        });
        found
    }

    /// The values of several keys of an object, found in one walk over it (the last one
    /// when a key repeats, as [`Json::get`]).
    pub fn get_many<const N: usize>(&self, keys: [&str; N]) -> [Option<Json<'a>>; N] {
        let mut found = [None; N];
        self.for_each_entry(|k, v| {
            for (slot, key) in found.iter_mut().zip(keys) {
                if k == key {
                    *slot = Some(v);
                }
            }
        });
        found
    }

    /// Whether an object has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Calls `f` for every key and value of an object, in input order.
    pub fn for_each_entry(&self, mut f: impl FnMut(&'a str, Json<'a>)) {
        match self {
            Json::Tape(nodes) => {
                let Some(&Node::Object { len, .. }) = nodes.first() else {
                    return;
                };
                let mut idx = 1;
                for _ in 0..len {
                    let (Some(Node::String(k)), Some(v)) = (nodes.get(idx), nodes.get(idx + 1))
                    else {
                        return;
                    };
                    let n = span(v);
                    let Some(value) = nodes.get(idx + 1..idx + 1 + n) else {
                        return;
                    };
                    f(k, Json::Tape(value));
                    idx += 1 + n;
                }
            }
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
            Json::Tape(nodes) => {
                let Some(&Node::Array { len, .. }) = nodes.first() else {
                    return;
                };
                let mut idx = 1;
                for _ in 0..len {
                    let Some(v) = nodes.get(idx) else { return };
                    let n = span(v);
                    let Some(value) = nodes.get(idx..idx + n) else {
                        return;
                    };
                    f(Json::Tape(value));
                    idx += n;
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
        let mut cur = *self;
        for step in path {
            let step = step.as_ref();
            cur = match cur.kind() {
                Kind::Array => cur.index(step.parse().ok()?)?,
                _ => cur.get(step)?,
            };
        }
        Some(cur)
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
        let nodes = match self {
            Json::Serde(v) => return serde_json::to_writer(&mut *out, v).map_err(io::Error::from),
            Json::Tape(nodes) => nodes,
        };
        match nodes.first() {
            None | Some(Node::Static(StaticNode::Null)) => out.write_all(b"null"),
            Some(Node::Static(StaticNode::Bool(b))) => {
                out.write_all(if *b { b"true" } else { b"false" })
            }
            Some(Node::Static(StaticNode::U64(n))) => write!(out, "{n}"),
            Some(Node::Static(StaticNode::I64(n))) => write!(out, "{n}"),
            Some(Node::Static(StaticNode::F64(n))) => {
                serde_json::to_writer(&mut *out, n).map_err(io::Error::from)
            }
            Some(Node::String(s)) => serde_json::to_writer(&mut *out, s).map_err(io::Error::from),
            Some(Node::Array { .. }) => {
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
            Some(Node::Object { .. }) => {
                out.write_all(b"{")?;
                let mut result = Ok(());
                let mut first = true;
                self.for_each_entry(|k, v| {
                    if result.is_ok() {
                        let comma = if first { Ok(()) } else { out.write_all(b",") };
                        first = false;
                        result = comma
                            .and_then(|()| {
                                serde_json::to_writer(&mut *out, k).map_err(io::Error::from)
                            })
                            .and_then(|()| out.write_all(b":"))
                            .and_then(|()| v.write_compact(out));
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
        let mut bytes = text.as_bytes().to_vec();
        let tape = simd_json::to_tape(&mut bytes).expect("valid");
        f(Json::Tape(&tape.0))
    }

    #[test]
    fn tape_and_serde_views_agree() {
        let text = r#"{"type":"a","n":1,"m":{"x":[1,"two",null,true,2.5]},"type":"b"}"#;
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid");
        for_both(text, &serde, |j| {
            assert_eq!(
                j.get("type").and_then(|v| v.as_str()),
                Some("b"),
                "last wins"
            );
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

    fn for_both(text: &str, serde: &serde_json::Value, f: impl Fn(Json<'_>)) {
        with_tape(text, &f);
        f(Json::Serde(serde));
    }
}
