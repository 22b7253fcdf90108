//! What every dialect's session writer shares: the [`Out`] it writes records into, and the
//! [`Gen`] state it draws from (random stream, texts, clock, running totals).

use crate::rng::Rng;
use crate::text::{self, Texts};

/// Where a session writer puts its records.
pub trait Out {
    /// One record, without its newline; `ty` is its top-level `type` (for the summary).
    fn record(&mut self, ty: &str, line: &str);
    /// True once the target size or record count is reached: the session in progress then
    /// ends at its next message boundary, with its closing records.
    fn full(&self) -> bool;
}

/// Token totals, counted once per API message (the figures a correct reader reports).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Totals {
    pub sessions: u64,
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub cost_usd: f64,
}

impl Totals {
    pub fn add(&mut self, other: &Totals) {
        self.sessions += other.sessions;
        self.input += other.input;
        self.output += other.output;
        self.cache_creation += other.cache_creation;
        self.cache_read += other.cache_read;
        self.cost_usd += other.cost_usd;
    }
}

/// The state session writers draw from.
#[derive(Debug)]
pub struct Gen<'t> {
    pub rng: Rng,
    pub texts: &'t Texts,
    /// Milliseconds since the epoch: the next record's timestamp.
    pub clock: u64,
    /// The longest tool output or file body, so that small files of a tree stay small.
    pub max_piece: usize,
    /// One very long tool result still to write: how many tool results come before it,
    /// and its length in bytes (trees of files with one long line, `tree`).
    pub long_piece: Option<(u64, usize)>,
    pub totals: Totals,
}

impl<'t> Gen<'t> {
    pub fn new(rng: Rng, texts: &'t Texts) -> Gen<'t> {
        Gen {
            rng,
            texts,
            clock: text::EPOCH_MS,
            max_piece: usize::MAX,
            long_piece: None,
            totals: Totals::default(),
        }
    }

    pub fn word(&mut self) -> &'static str {
        text::word(&mut self.rng)
    }

    pub fn log_uniform(&mut self, lo: u64, hi: u64) -> usize {
        self.rng.log_uniform(lo, hi) as usize
    }

    /// A length for a piece of text: log-uniform in `lo..hi`, at most `max_piece`.
    pub fn len(&mut self, lo: u64, hi: u64) -> usize {
        self.log_uniform(lo, hi).min(self.max_piece)
    }

    pub fn uuid(&mut self) -> String {
        text::uuid(&mut self.rng)
    }

    /// Advances the clock by `lo..hi` milliseconds and returns the new time as ISO 8601.
    pub fn tick(&mut self, lo: u64, hi: u64) -> String {
        self.clock += self.rng.range(lo, hi);
        text::iso(self.clock)
    }

    /// The length of the long tool result when it is this one's turn (see `long_piece`);
    /// counts one tool result otherwise. Draws nothing from the random stream.
    pub fn take_long(&mut self) -> Option<usize> {
        match self.long_piece {
            Some((0, len)) => {
                self.long_piece = None;
                Some(len)
            }
            Some((before, len)) => {
                self.long_piece = Some((before - 1, len));
                None
            }
            None => None,
        }
    }

    /// Whether the long tool result is still to come: a file is not ended before it.
    pub fn long_pending(&self) -> bool {
        self.long_piece.is_some()
    }

    /// The size of a tool result, in bytes: mostly small, a few very large.
    pub fn result_len(&mut self) -> usize {
        let r = self.rng.unit();
        let n = if r < 0.0004 {
            self.log_uniform(200_000, 1_000_000)
        } else if r < 0.40 {
            self.log_uniform(40, 600)
        } else if r < 0.78 {
            self.log_uniform(600, 6000)
        } else if r < 0.97 {
            self.log_uniform(6000, 30_000)
        } else {
            self.log_uniform(30_000, 50_000)
        };
        n.min(self.max_piece)
    }
}
