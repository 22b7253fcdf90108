//! The [`Tokens`] type: what the API billed, in one meaning for every agent
//! (docs/REFERENCE.md "Token and cost rules"), the packed form a message entry stores;
//! each agent's mapping of its usage fields into it is in its dialect module.

use crate::pricing::Billed;
use serde::{Deserialize, Serialize};
use std::ops::AddAssign;

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens not read from cache.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// The reasoning part of `output`, where the agent reports it (Codex, Gemini
    /// `thoughts`, OpenCode `reasoning`, Qwen's log).
    #[serde(default)]
    pub reasoning_output: u64,
    /// The part of `cache_creation` written to Claude's 1-hour cache (priced higher than
    /// the 5-minute one); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_1h: u64,
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Counts come from the input (and from partial stats): they saturate rather than wrap or
/// panic when a hand-made or corrupt record carries values near `u64::MAX`.
impl AddAssign for Tokens {
    fn add_assign(&mut self, o: Tokens) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_creation = self.cache_creation.saturating_add(o.cache_creation);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.reasoning_output = self.reasoning_output.saturating_add(o.reasoning_output);
        self.cache_creation_1h = self.cache_creation_1h.saturating_add(o.cache_creation_1h);
    }
}

impl Tokens {
    /// Whether every count is zero.
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }

    /// The counts a price applies to.
    pub(super) fn billed(&self) -> Billed {
        Billed {
            input: self.input,
            output: self.output,
            cache_creation: self.cache_creation,
            cache_read: self.cache_read,
            cache_creation_1h: self.cache_creation_1h,
        }
    }
}

/// Token counts as a message entry stores them: `u32` each, or [`BIG`] when one does not
/// fit, the exact counts then being in `Stats::big_tokens`. No API message comes near 4
/// billion tokens, but a count is never cut.
pub(super) type Packed = [u32; 6];
pub(super) const BIG: Packed = [u32::MAX; 6];

pub(super) fn pack(t: Tokens) -> Packed {
    let f = |v: u64| u32::try_from(v).ok().filter(|&v| v != u32::MAX);
    match (
        f(t.input),
        f(t.output),
        f(t.cache_creation),
        f(t.cache_read),
        f(t.reasoning_output),
        f(t.cache_creation_1h),
    ) {
        (Some(a), Some(b), Some(c), Some(d), Some(e), Some(g)) => [a, b, c, d, e, g],
        _ => BIG,
    }
}
