//! Static evaluation and per-cell move scores, read from the win-count table.

use crate::board::Board;
use crate::search::params::Params;

/// Scores strictly inside this bound are evaluations; beyond it they are proven wins or losses.
pub const EVAL_BOUND: i32 = 10_000_000;

/// The position from the side to move's point of view: its live windows minus the opponent's,
/// each window worth more the more stones it holds.
pub fn evaluate(board: &Board, params: &Params) -> i32 {
    let me = board.to_move();
    let wc = board.wincount();
    let score = (wc.total(me) * params.eval_own - wc.total(me.opp()) * params.eval_opp) / 16;
    score.clamp(-EVAL_BOUND + 1, EVAL_BOUND - 1)
}

/// How promising cell index `i` is for the side to move: what a stone there gains it (attack)
/// plus what it takes from the opponent (defence).
pub fn move_score(board: &Board, i: usize, params: &Params) -> i32 {
    let me = board.to_move();
    let attack = board.gain(me, i) as i64 * params.attack as i64;
    let defence = board.gain(me.opp(), i) as i64 * params.defence as i64;
    ((attack + defence) / 16).min(i32::MAX as i64 / 2) as i32
}
