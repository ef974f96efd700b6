//! Every tunable of the search and evaluation, with its default.

/// Search and evaluation tunables. Weights are in sixteenths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Weight of the side to move's own window values in the evaluation.
    pub eval_own: i32,
    /// Weight of the opponent's window values in the evaluation.
    pub eval_opp: i32,
    /// Weight of a cell's gain for the side to move when ordering moves.
    pub attack: i32,
    /// Weight of a cell's gain for the opponent when ordering moves.
    pub defence: i32,
    /// Moves searched at an interior node at most (the best-scored ones).
    pub beam: usize,
    /// Extra moves allowed per remaining depth at an interior node.
    pub beam_per_depth: usize,
    /// Nodes between two looks at the clock and the stop flag.
    pub poll_interval: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            eval_own: 20,
            eval_opp: 16,
            attack: 16,
            defence: 14,
            beam: 12,
            beam_per_depth: 2,
            poll_interval: 1024,
        }
    }
}

impl Params {
    /// How many ordered moves an interior node with `depth` plies left searches.
    pub fn beam_width(&self, depth: i32) -> usize {
        self.beam + self.beam_per_depth * depth.max(0) as usize
    }
}
