//! Static evaluation and per-cell move scores, read from the win-count table.

use crate::board::wincount::CellSums;
use crate::board::{Board, Color};
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

/// How promising a cell is for colour `me`, from the cell's sums on the win-count table: what a
/// stone there gains it (attack) plus what it takes from the opponent (defence).
pub fn move_score(sums: &CellSums, me: Color, params: &Params) -> i32 {
    let attack = sums.gain[me.index()] as i64 * params.attack as i64;
    let defence = sums.gain[me.opp().index()] as i64 * params.defence as i64;
    ((attack + defence) / 16).min(i32::MAX as i64 / 2) as i32
}
