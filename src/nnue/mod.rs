//! The network evaluation, step by step: training data made by self-play (`data`, the format
//! and its streaming reader; `selfplay`, the games), the inputs read from the board's line
//! patterns (`features`), and the network in floating point with its trainer's optimiser
//! (`model`). The engine's integer inference comes with the first network that wins games.

use std::sync::OnceLock;

use crate::board::Board;
use model::{Inputs, Model};

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

static EXPERIMENT: OnceLock<Option<Model>> = OnceLock::new();

/// The network of an experiment (`INFO wuzi_nnue 1`): the float weights file named by the
/// environment variable `WUZI_NNUE`, read once; `None` when unset or unreadable (the classical
/// evaluation then stays).
pub fn experimental() -> Option<&'static Model> {
    EXPERIMENT
        .get_or_init(|| {
            let path = std::env::var_os("WUZI_NNUE")?;
            let mut file = std::fs::File::open(path).ok()?;
            Model::load(&mut file).ok().map(|(m, _)| m)
        })
        .as_ref()
}

/// The position for the side to move by `net`, in the search's units: the win chance's
/// log-odds times 200, the scale of the protocol's win rate. Recomputes the inputs (the
/// experiment's cost; the engine's version will keep accumulators up to date).
pub fn evaluate(net: &Model, board: &Board) -> i32 {
    thread_local! {
        static INPUTS: std::cell::RefCell<Inputs> = std::cell::RefCell::new(Inputs::default());
    }
    INPUTS.with(|x| {
        let mut x = x.borrow_mut();
        let me = board.to_move();
        features::active(board, me, &mut x.own);
        features::active(board, me.opp(), &mut x.opp);
        (net.logit(&x) * 200.0) as i32
    })
}
