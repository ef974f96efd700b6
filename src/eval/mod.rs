//! Static evaluation and per-cell move scores: the learned pattern evaluation (weights in the
//! generated `weights.rs`), and the older window-sum evaluation read from the win-count table.

pub mod order_tune;
pub mod tune;

use crate::board::lines::Tally;
use crate::board::pattern::threat_level;
use crate::board::weights::{pattern_weights, ORDER_UNIT, WEIGHT_UNIT};
use crate::board::wincount::CellSums;
use crate::board::{Board, Color};
use crate::rules::Rule;

/// The evaluation's and move scores' switches and weights: part of the search's tunables
/// (`Params::eval`), settable by `INFO wuzi_<name>` like the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalParams {
    /// Window-sum evaluation: weight of own windows, in 16ths.
    pub eval_own: i32,
    /// Window-sum evaluation: weight of the opponent's windows, in 16ths.
    pub eval_opp: i32,
    /// Window-sum move scores: weight of own gains, in 16ths.
    pub attack: i32,
    /// Window-sum move scores: weight of the opponent's gains, in 16ths.
    pub defence: i32,
    /// The learned pattern evaluation (off: the window sums).
    pub pattern_eval: bool,
    /// The threat-level term of the pattern evaluation.
    pub threat_eval: bool,
    /// Move scores from the threat classes (off: the window gains).
    pub pattern_order: bool,
    /// Move scores from the learned move-ordering table (`board::weights::ORDER`), this many
    /// score units a logit, in place of the threat classes' hand-set scores (0: those). 450
    /// keeps the quiet cells within about 1500 of each other, about the killers' and the
    /// history's bonuses: at 1000 the table won at 100 k nodes and gained nothing at 1 s; 450
    /// won over 300 at 100 k nodes and at 1 s.
    pub order_scale: i32,
    /// The network (`crate::nnue::network`: the embedded one, or the file `WUZI_NNUE` names)
    /// evaluates instead, from the accumulators the board keeps once the search asks for them.
    pub nnue: bool,
    /// A search decides `nnue` by its rule: the network under freestyle, renju and standard,
    /// where games at equal time say it wins, the classical evaluation under caro. Setting `nnue`
    /// (`INFO wuzi_nnue`) turns this off.
    pub nnue_auto: bool,
    /// With `nnue`, the network's share of the evaluation in percent; the classical one has
    /// the rest (100: the network alone). A residual network's correction is added to the
    /// whole classical evaluation, scaled by it.
    pub nnue_mix: i32,
    /// With `nnue`, the count network counts only where both sides' threat levels
    /// (`threat_level`) are below this; elsewhere the classical evaluation alone (7: always).
    pub nnue_calm: i32,
    /// With `nnue` blended (`nnue_mix` below 100), the classical threat table's term stays
    /// whole: only the pattern sums are blended with the network.
    pub nnue_threats: bool,
    /// With `nnue` and a spatial network (`WUZI_SPATIAL`, an experiment), its move policy
    /// orders the moves in place of the learned table, `order_scale` units a logit.
    pub nnue_policy: bool,
}

impl Default for EvalParams {
    fn default() -> EvalParams {
        EvalParams {
            eval_own: 20,
            eval_opp: 16,
            attack: 16,
            defence: 14,
            pattern_eval: true,
            threat_eval: true,
            pattern_order: true,
            order_scale: 450,
            nnue: false,
            nnue_auto: true,
            nnue_mix: 50,
            nnue_calm: 7,
            nnue_threats: false,
            nnue_policy: false,
        }
    }
}

impl EvalParams {
    /// Decides `nnue` for a search under `rule`, where `nnue_auto` says so.
    pub fn decide_network(&mut self, rule: Rule) {
        if self.nnue_auto {
            self.nnue = matches!(rule, Rule::Freestyle | Rule::Renju | Rule::Standard);
        }
    }
}

/// Scores strictly inside this bound are evaluations; beyond it they are proven wins or losses.
pub const EVAL_BOUND: i32 = 10_000_000;

/// A network's `score` of a position whose empty cells add up to `tally`, `me` to move,
/// blended with the classical evaluation by `nnue_mix` (or added to it, `residual`).
pub fn blend_network(
    rule: Rule,
    me: Color,
    tally: &Tally,
    score: i32,
    residual: bool,
    params: &EvalParams,
) -> i32 {
    let calm = |c: Color| (threat_level(tally.class_counts(c)) as i32) < params.nnue_calm;
    let mix = if params.nnue_calm < 7 && !(calm(me) && calm(me.opp())) {
        0
    } else {
        params.nnue_mix
    };
    let score = if mix >= 100 && !residual {
        score
    } else {
        let classical = evaluate_tally(rule, me, tally, params);
        if residual {
            classical + score * mix / 100
        } else if params.nnue_threats && params.threat_eval {
            let threats = threat_weight(rule, me, tally) / WEIGHT_UNIT;
            threats + (score * mix + (classical - threats) * (100 - mix)) / 100
        } else {
            (score * mix + classical * (100 - mix)) / 100
        }
    };
    score.clamp(-EVAL_BOUND + 1, EVAL_BOUND - 1)
}

/// The position from the side to move's point of view: the learned pattern evaluation, or with
/// `pattern_eval` off the window sums (each side's live windows, worth more the more stones
/// they hold).
pub fn evaluate(board: &Board, params: &EvalParams) -> i32 {
    let me = board.to_move();
    if params.nnue {
        let lines = board.line_patterns();
        if let Some(score) = lines.conv_score(me).or_else(|| lines.network_score(me)) {
            let residual = lines.network().is_some_and(|n| n.residual);
            return blend_network(board.rule(), me, lines.tally(), score, residual, params);
        }
    }
    if params.pattern_eval {
        return evaluate_tally(board.rule(), me, board.line_patterns().tally(), params);
    }
    let wc = board.wincount();
    let score = (wc.total(me) * params.eval_own - wc.total(me.opp()) * params.eval_opp) / 16;
    score.clamp(-EVAL_BOUND + 1, EVAL_BOUND - 1)
}

/// The threat table's weight for `mover` to move with the threat levels of `tally`, in
/// weight units (`WEIGHT_UNIT`s of an evaluation unit).
fn threat_weight(rule: Rule, mover: Color, tally: &Tally) -> i32 {
    let mine = threat_level(tally.class_counts(mover));
    let theirs = threat_level(tally.class_counts(mover.opp()));
    pattern_weights(rule, mover).threats[mine][theirs] as i32
}

/// The learned pattern evaluation of `tally` for `mover`, the side to move.
pub fn evaluate_tally(rule: Rule, mover: Color, tally: &Tally, params: &EvalParams) -> i32 {
    let w = pattern_weights(rule, mover);
    let mut sum = tally.evaluate(mover) + w.tempo as i32;
    if params.threat_eval {
        sum += threat_weight(rule, mover, tally);
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

/// The move score of the empty cell `i` for `me` with `pattern_order` on: the threat classes
/// both sides make there, and the cell's evaluation weights.
#[inline]
pub fn pattern_move_score(board: &Board, i: usize, me: Color) -> i32 {
    let lines = board.line_patterns();
    let (mine, theirs) = (lines.class(me, i), lines.class(me.opp(), i));
    ATTACK[mine as usize] + DEFENCE[theirs as usize] + lines.worth(me, i)
}

/// The learned move score of the empty cell `i` for `me`, `scale` units a logit.
#[inline]
pub fn learned_move_score(board: &Board, i: usize, me: Color, scale: i32) -> i32 {
    board.line_patterns().order_score(me, i) * scale / ORDER_UNIT
}

/// How promising the empty cell `i` is for `me`: its threat classes for both sides (what a
/// stone there makes, what it takes from the opponent) and their learned worth; with
/// `pattern_order` off, the win-count gains (`sums`) instead.
pub fn move_score(board: &Board, i: usize, sums: &CellSums, me: Color, params: &EvalParams) -> i32 {
    if params.order_scale > 0 {
        return learned_move_score(board, i, me, params.order_scale);
    }
    if params.pattern_order {
        return pattern_move_score(board, i, me);
    }
    let attack = sums.gain[me.index()] as i64 * params.attack as i64;
    let defence = sums.gain[me.opp().index()] as i64 * params.defence as i64;
    ((attack + defence) / 16).min(i32::MAX as i64 / 2) as i32
}
