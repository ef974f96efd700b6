//! Static evaluation and per-cell move scores: the learned pattern evaluation (weights in the
//! generated `weights.rs`), and the older window-sum evaluation read from the win-count table.

pub mod tune;
pub mod weights;

use std::sync::OnceLock;

use crate::board::lines::Tally;
use crate::board::pattern::{
    pcode_of_index, threat_level, INDEX_SPAN, LEVELS, PCODES, SHAPE_INDICES,
};
use crate::board::wincount::CellSums;
use crate::board::{Board, Color};
use crate::rules::Rule;
use crate::search::params::Params;

/// What each pattern code of one colour's empty cells is worth, summed over the board: to the
/// side to move (`mover`) and to the side that just moved (`waiter`), in `WEIGHT_UNIT`ths of
/// an evaluation unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternWeights {
    pub mover: [i16; PCODES],
    pub waiter: [i16; PCODES],
    /// Added for the side to move when this colour is to move.
    pub tempo: i16,
    /// `threats[mine][theirs]`: added for the side to move when this colour is to move, by its
    /// threat level and the other side's (`pattern::threat_level`).
    pub threats: [[i16; LEVELS]; LEVELS],
}

/// Where the rules differ, the weights do: freestyle (and caro), standard, and renju for each
/// colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Freestyle,
    Standard,
    RenjuBlack,
    RenjuWhite,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Freestyle,
        Variant::Standard,
        Variant::RenjuBlack,
        Variant::RenjuWhite,
    ];

    pub fn of(rule: Rule, c: Color) -> Variant {
        match (rule, c) {
            (Rule::Standard, _) => Variant::Standard,
            (Rule::Renju, Color::Black) => Variant::RenjuBlack,
            (Rule::Renju, Color::White) => Variant::RenjuWhite,
            (Rule::Freestyle | Rule::Caro | Rule::CaroExact, _) => Variant::Freestyle,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Variant::Freestyle => "freestyle",
            Variant::Standard => "standard",
            Variant::RenjuBlack => "renju-black",
            Variant::RenjuWhite => "renju-white",
        }
    }
}

/// The weights the evaluation uses for `c`'s cells under `rule`.
pub fn pattern_weights(rule: Rule, c: Color) -> &'static PatternWeights {
    &weights::WEIGHTS[Variant::of(rule, c) as usize]
}

/// `PatternWeights` spread over shape indices (see `pattern::SHAPE_INDICES`), so that the
/// board reads a cell's worth without computing its pattern code.
#[derive(Debug)]
pub struct IndexWeights {
    pub mover: Box<[i16; INDEX_SPAN]>,
    pub waiter: Box<[i16; INDEX_SPAN]>,
}

static INDEX_WEIGHTS: [OnceLock<IndexWeights>; 4] = [const { OnceLock::new() }; 4];

/// The weights for `c`'s cells under `rule`, by shape index.
pub fn index_weights(rule: Rule, c: Color) -> &'static IndexWeights {
    let v = Variant::of(rule, c) as usize;
    INDEX_WEIGHTS[v].get_or_init(|| {
        let w = &weights::WEIGHTS[v];
        let spread = |t: &[i16; PCODES]| {
            let mut s = Box::new([0i16; INDEX_SPAN]);
            for i in 0..SHAPE_INDICES {
                s[i] = t[pcode_of_index(i as u16) as usize];
            }
            s
        };
        IndexWeights {
            mover: spread(&w.mover),
            waiter: spread(&w.waiter),
        }
    })
}

/// Scores strictly inside this bound are evaluations; beyond it they are proven wins or losses.
pub const EVAL_BOUND: i32 = 10_000_000;

/// Pattern weights are stored in these fractions of an evaluation unit (for precision: a sum
/// over hundreds of cells must not pile up rounding).
pub const WEIGHT_UNIT: i32 = 4;

/// The position from the side to move's point of view: the learned pattern evaluation, or with
/// `pattern_eval` off the window sums (each side's live windows, worth more the more stones
/// they hold).
pub fn evaluate(board: &Board, params: &Params) -> i32 {
    let me = board.to_move();
    if params.pattern_eval {
        return evaluate_tally(board.rule(), me, board.line_patterns().tally(), params);
    }
    let wc = board.wincount();
    let score = (wc.total(me) * params.eval_own - wc.total(me.opp()) * params.eval_opp) / 16;
    score.clamp(-EVAL_BOUND + 1, EVAL_BOUND - 1)
}

/// The learned pattern evaluation of `tally` for `mover`, the side to move.
pub fn evaluate_tally(rule: Rule, mover: Color, tally: &Tally, params: &Params) -> i32 {
    let w = pattern_weights(rule, mover);
    let mut sum = tally.evaluate(mover) + w.tempo as i32;
    if params.threat_eval {
        let mine = threat_level(tally.class_counts(mover));
        let theirs = threat_level(tally.class_counts(mover.opp()));
        sum += w.threats[mine][theirs] as i32;
    }
    (sum / WEIGHT_UNIT).clamp(-EVAL_BOUND + 1, EVAL_BOUND - 1)
}

/// Ordering score of a threat class for the side that makes it (attack) and for the side that
/// takes the cell from the opponent who would make it (defence).
const ATTACK: [i32; 14] = [
    0, 20, 100, 300, 400, 1_000, 3_000, 5_000, 50_000, 10_000, 20_000, 200_000, 500_000, 10_000_000,
];
const DEFENCE: [i32; 14] = [
    0, 10, 50, 150, 250, 600, 1_500, 3_000, 30_000, 5_000, 8_000, 100_000, 200_000, 5_000_000,
];

/// How promising the empty cell `i` is for `me`: its threat classes for both sides (what a
/// stone there makes, what it takes from the opponent) and their learned worth; with
/// `pattern_order` off, the win-count gains (`sums`) instead.
pub fn move_score(board: &Board, i: usize, sums: &CellSums, me: Color, params: &Params) -> i32 {
    if params.pattern_order {
        let lines = board.line_patterns();
        let (mine, theirs) = (lines.class(me, i), lines.class(me.opp(), i));
        return ATTACK[mine as usize] + DEFENCE[theirs as usize] + lines.worth(me, i);
    }
    let attack = sums.gain[me.index()] as i64 * params.attack as i64;
    let defence = sums.gain[me.opp().index()] as i64 * params.defence as i64;
    ((attack + defence) / 16).min(i32::MAX as i64 / 2) as i32
}
