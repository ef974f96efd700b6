//! The network evaluation, step by step: training data made by self-play (`data`, the format
//! and its streaming reader; `selfplay`, the games), the inputs read from the board's line
//! patterns (`features`), and the network in floating point with its trainer's optimiser
//! (`model`). The engine's integer inference comes with the first network that wins games.

pub mod data;
pub mod features;
pub mod model;
pub mod selfplay;

/// SplitMix64: the deterministic random numbers of self-play, initial weights and shuffles.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}
