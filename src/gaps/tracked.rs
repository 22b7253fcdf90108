//! What the trackers keep of what is open: the tracked sets (the shared capped set,
//! `src/capped.rs`, of entries that say where each thing was opened) and the labels those
//! entries share.

use crate::capped::{Capped, Hasher};
use std::collections::HashSet;
use std::sync::Arc;

/// A set of open things (tool calls, items, requests, uuids seen) with a cap: when it is
/// full the oldest is dropped, and the first insertion that drops one says so.
pub(super) type Tracked<V = Opened> = Capped<V>;

/// Where something was opened.
#[derive(Debug, Clone)]
pub(super) struct Opened {
    pub(super) line: u64,
    pub(super) offset: u64,
    /// What it is, for the message: a tool's name, a method, an item type (interned: a
    /// stream names a handful of tools a million times).
    pub(super) label: Arc<str>,
}

/// Labels shared by the entries that carry them; a bounded table, so a stream of ever new
/// names cannot grow it without end (past the bound, a label is just not shared).
#[derive(Debug)]
pub(super) struct Labels(HashSet<Arc<str>, Hasher>, Arc<str>, Option<Arc<str>>);

impl Default for Labels {
    fn default() -> Self {
        Labels(HashSet::default(), Arc::from(""), None)
    }
}

impl Labels {
    const MAX: usize = 4096;

    pub(super) fn get(&mut self, s: &str) -> Arc<str> {
        // The empty label (a session, a uuid) is most of them: no lookup.
        if s.is_empty() {
            return Arc::clone(&self.1);
        }
        // The one asked for last (a tool called again), without hashing it.
        if let Some(l) = self.2.as_ref().filter(|l| ***l == *s) {
            return Arc::clone(l);
        }
        if let Some(l) = self.0.get(s) {
            let l = Arc::clone(l);
            self.2 = Some(Arc::clone(&l));
            return l;
        }
        let l: Arc<str> = Arc::from(s);
        if self.0.len() < Self::MAX {
            self.0.insert(Arc::clone(&l));
        }
        l
    }
}
