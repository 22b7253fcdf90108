//! The unit tests' source of random inputs: xorshift64, deterministic for a seed, so a
//! failing case comes back on every run.

pub(crate) struct Rng(u64);

impl Rng {
    /// A generator started at `seed` (not 0: xorshift stays at 0).
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number below `n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
