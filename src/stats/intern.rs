//! The string table and the attributions: every session id, model, file, hour and tool
//! name is stored once and named by its index, and every distinct (session, model, file,
//! hour) by the index of an [`Attr`], so an entry per message or tool call is a few
//! integers (docs/PERFORMANCE.md).

use super::store::{Key, KeyPrefix};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Where something is attributed: indexes into the string table, [`NONE`] when unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(super) struct Attr {
    pub(super) session: u32,
    pub(super) model: u32,
    pub(super) file: u32,
    pub(super) day: u32,
}

pub(crate) const NONE: u32 = u32::MAX;

/// The session (or model) an input's records have before the input names one: unknown
/// here, and, when `--merge` adds a part that continues the part before it (a rollout
/// split mid-session), that part's last session (or model): see [`Stats::merge_continued`].
/// Shown as `(none)`, like [`NONE`].
pub(super) const INHERIT: u32 = u32::MAX - 1;

pub(super) const NO_ATTR: Attr = Attr {
    session: NONE,
    model: NONE,
    file: NONE,
    day: NONE,
};

/// The distinct attributions, each stored once: entries refer to one by its index.
#[derive(Debug, Clone, Default)]
pub(super) struct Attrs {
    pub(super) list: Vec<Attr>,
    pub(super) index: IdMap<Attr, u32>,
    /// The last one asked for: consecutive records mostly share it.
    pub(super) last: Option<(Attr, u32)>,
}

impl Attrs {
    pub(super) fn id(&mut self, a: Attr) -> u32 {
        if let Some((last, i)) = self.last {
            if last == a {
                return i;
            }
        }
        let next = u32::try_from(self.list.len()).unwrap_or(NONE);
        let i = *self.index.entry(a).or_insert(next);
        if i == next {
            self.list.push(a);
        }
        self.last = Some((a, i));
        i
    }

    /// An index nothing lists (a hand-made report) reads as unattributed.
    pub(super) fn get(&self, i: u32) -> Attr {
        self.list.get(i as usize).copied().unwrap_or(NO_ATTR)
    }
}

/// Strings shared by attributions (sessions, models, files, days, tool names). Each is
/// stored once, shared by the list and the index: a distinct session id costs its length
/// plus about 60 bytes here (docs/PERFORMANCE.md).
#[derive(Debug, Clone, Default)]
pub(super) struct Strings {
    pub(super) names: Vec<std::sync::Arc<str>>,
    /// foldhash, seeded per process: much faster than SipHash on the paths and ids of
    /// every part a merge re-indexes, and still not predictable from the input.
    pub(super) index: HashMap<std::sync::Arc<str>, u32, foldhash::fast::RandomState>,
}

impl Strings {
    pub(super) fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(NONE - 2);
        let name: std::sync::Arc<str> = std::sync::Arc::from(s);
        self.names.push(name.clone());
        self.index.insert(name, i);
        i
    }

    /// [`Strings::id`] of a string another table holds: a new one is shared with that
    /// table, not copied (a merge takes every string of every part).
    pub(super) fn id_shared(&mut self, s: &std::sync::Arc<str>) -> u32 {
        let next = u32::try_from(self.names.len()).unwrap_or(NONE - 2);
        // One hash: the key is a reference count, not a copy, so it is cheap to offer.
        let i = *self.index.entry(s.clone()).or_insert(next);
        if i == next {
            self.names.push(s.clone());
        }
        i
    }

    pub(super) fn get(&self, i: u32) -> Option<&str> {
        self.names.get(i as usize).map(|s| &**s)
    }

    /// The string at `i`, shared (no copy): for a caller that goes on changing the table.
    pub(super) fn shared(&self, i: u32) -> Option<std::sync::Arc<str>> {
        self.names.get(i as usize).cloned()
    }

    /// [`Strings::id`] through `recent`, the last string a call site interned: the
    /// records of an input name the same session, directory and model line after line,
    /// and comparing with the last one costs less than hashing and looking up (the
    /// "stats per record" profile in docs/PERFORMANCE.md).
    pub(super) fn id_via(&mut self, recent: &mut Recent, s: &str) -> u32 {
        if let Some(id) = recent.get(s) {
            return id;
        }
        let id = self.id(s);
        recent.set(s, id);
        id
    }
}

/// What the last records named, for the call sites that see the same ids line after
/// line (see [`Recent`]).
#[derive(Debug, Clone, Default)]
pub(super) struct RecentIds {
    /// The last session interned (and so in `Stats::sessions`).
    pub(super) session: Recent,
    /// The last working directory set, and for which session.
    pub(super) cwd: Recent,
    pub(super) cwd_session: u32,
    pub(super) model: Recent,
    /// The last API message's id and request id, and their key: Claude repeats a
    /// message on each of its content-block lines.
    message: Option<(String, String, Key)>,
    /// The last session whose responses were keyed, and the digest of its prefix.
    pub(super) response_prefix: Option<(u32, KeyPrefix)>,
}

impl RecentIds {
    /// `Key::of(&[id, req])`, hashed only when the message is not the last one's.
    pub(super) fn message_key(&mut self, id: &str, req: &str) -> Key {
        match &mut self.message {
            Some((i, r, key)) if i == id && r == req => *key,
            Some((i, r, key)) => {
                i.clear();
                i.push_str(id);
                r.clear();
                r.push_str(req);
                *key = Key::of(&[id, req]);
                *key
            }
            None => {
                let key = Key::of(&[id, req]);
                self.message = Some((id.to_string(), req.to_string(), key));
                key
            }
        }
    }
}

/// The last string a call site interned and its index (see [`Strings::id_via`]). It only
/// saves work: a table never forgets a string, so the index stays right for as long as
/// the [`Strings`] it came from lives, and a fresh one (a new part) starts empty.
#[derive(Debug, Clone, Default)]
pub(super) struct Recent {
    text: String,
    id: Option<u32>,
}

impl Recent {
    pub(super) fn get(&self, s: &str) -> Option<u32> {
        self.id.filter(|_| self.text == s)
    }

    pub(super) fn set(&mut self, s: &str, id: u32) {
        self.text.clear();
        self.text.push_str(s);
        self.id = Some(id);
    }
}

/// The hasher of maps keyed by small numbers (string and attribution indexes), updated
/// for every record: FxHash's multiply and rotate, where the standard SipHash (made to
/// resist keys chosen by an attacker, which indexes are not) cost more than the counting.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct IdHasher(u64);

/// A map keyed by indexes (see [`IdHasher`]).
pub(super) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

impl IdHasher {
    pub(super) fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
