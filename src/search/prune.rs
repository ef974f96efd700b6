//! Pruning, reductions and extensions that follow the position: reverse futility with
//! "improving", razoring, null move, late-move reductions by formula, singular extension.
//! Their margins and counts are tunables of `params`.

use super::node::score_from_tt;
use super::params::divide;
use super::tt::{Bound, Entry};
use super::{Searcher, MATE_BOUND, NONE, NO_EVAL};
use crate::board::lines::Tally;
use crate::board::pattern::Class;
use crate::board::Color;
use crate::rules::Rule;

impl Searcher<'_> {
    /// Steps 3c and 3d, at an open non-PV node whose static evaluation is `eval`: razoring (far
    /// below alpha near the horizon, the quiescence search decides) and null-move pruning
    /// (far above beta, even a pass keeps it there).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prune_open(
        &mut self,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
        eval: i32,
    ) -> Option<i32> {
        let p = &self.params;
        if pv || beta.abs() >= MATE_BOUND || alpha.abs() >= MATE_BOUND {
            return None;
        }
        // Step 3c. Razoring.
        if depth <= p.razor_depth && eval + p.razor_margin * depth < alpha {
            let score = self.quiesce(alpha, alpha + 1, ply, p.razor_fours, true);
            if score <= alpha {
                return Some(score);
            }
        }
        // Step 3d. Null move: the opponent moves twice, at a reduced depth; only where it has
        // no open three, four-three or double three to play on.
        let p = &self.params;
        if p.nmp_depth > 0 && depth >= p.nmp_depth && eval >= beta + p.nmp_margin {
            let me = self.board.to_move();
            let theirs = self.board.line_patterns().class_counts(me.opp());
            if theirs[Class::DoubleThree as usize] == 0 {
                let reduced = depth - 1 - p.nmp_reduce - depth / p.nmp_divisor.max(1);
                self.board.set_to_move(me.opp());
                self.doubles[ply + 1] = self.doubles[ply];
                self.credit[ply + 1] = self.credit[ply];
                let score = -self.negamax(reduced, -beta, -beta + 1, ply + 1, false, !cut);
                self.board.set_to_move(me);
                if self.aborted {
                    return Some(0);
                }
                if score >= beta {
                    return Some(if score >= MATE_BOUND { beta } else { score });
                }
            }
        }
        None
    }

    /// Whether the node at `ply`, with static evaluation `eval`, scores better than the
    /// node two plies before on the same line.
    pub(super) fn improving(&self, ply: usize, eval: i32) -> bool {
        eval != NO_EVAL && ply >= 2 && {
            let before = self.evals[ply - 2];
            before != NO_EVAL && eval > before
        }
    }

    /// The singular-extension test of the table's move at an open node (step 3f): the node
    /// searched without that move at half depth, against a bound just below the table's score.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn singular(
        &mut self,
        depth: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
        key: u64,
        tt_entry: Option<Entry>,
    ) -> Singular {
        let p = &self.params;
        let Some(e) = tt_entry else {
            return Singular::Extend(0);
        };
        let score = score_from_tt(e.score, ply);
        let mv = e.mv.unwrap_or(NONE);
        if p.se_depth == 0
            || depth < p.se_depth
            || mv == NONE
            || self.excluded[ply] != NONE
            || e.bound == Bound::Upper
            || e.depth < depth - 3
            || score.abs() >= MATE_BOUND
            || beta.abs() >= MATE_BOUND
        {
            return Singular::Extend(0);
        }
        let s_beta = score - p.se_margin * depth;
        self.excluded[ply] = mv;
        let v = self.expand(
            depth / 2,
            s_beta - 1,
            s_beta,
            ply,
            false,
            cut,
            key,
            None,
            true,
        );
        self.excluded[ply] = NONE;
        if self.aborted {
            Singular::Cut(0)
        } else if v < s_beta {
            let p = &self.params;
            let double = p.se_double > 0
                && !pv
                && v < s_beta - p.se_double
                && self.doubles[ply] < p.se_double_max;
            Singular::Extend(1 + i32::from(double))
        } else if s_beta >= beta {
            Singular::Cut(s_beta)
        } else if score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// Step 2a. `pattern_win` at a node where neither side has a five point, if `quick_win`.
    pub(super) fn quick_win(&self, tally: &Tally, me: Color) -> Option<i32> {
        if !self.params.quick_win {
            return None;
        }
        pattern_win(self.rule, tally, me)
    }

    /// Reverse futility at a quiet node (no forced reply, no threat to defend): whether a
    /// non-PV node at `ply` with `depth` plies left, whose static evaluation `eval` beats beta
    /// by a margin per remaining ply (a ply less where it is improving), fails high with it.
    pub(super) fn futile(&self, depth: i32, beta: i32, pv: bool, eval: i32, ply: usize) -> bool {
        if pv || depth > self.params.rfp_depth || beta.abs() >= MATE_BOUND {
            return false;
        }
        if self.params.rfp_attack && ply >= 3 && self.four_move[ply - 1] && self.four_move[ply - 3]
        {
            return false;
        }
        let improving = self.params.rfp_improving && self.improving(ply, eval);
        let plies = depth - self.params.rfp_offset - i32::from(improving);
        eval - self.params.rfp_margin * plies >= beta
    }

    /// The `lmr_log` reduction, in plies, of `mv`, the move after `searched` others at a quiet
    /// or defending node with `depth` plies left: the formula, less on the principal variation, for a move
    /// with a good history or one that makes an open three, more at an expected cut node, and
    /// `extra` 1024ths of a ply more (where the evaluation is not improving, at a defending
    /// node). The reduced search keeps at least one ply.
    pub(super) fn log_reduction(
        &self,
        depth: i32,
        searched: usize,
        mv: u16,
        pv: bool,
        cut: bool,
        extra: i32,
    ) -> i32 {
        let p = &self.params;
        if depth < p.lmr_depth || searched < p.lmr_after {
            return 0;
        }
        let me = self.board.to_move();
        let mut r = p.log_reduction_1024(depth, searched);
        if pv {
            r -= p.lmr_pv;
        }
        if cut {
            r += p.lmr_cut;
        }
        r += extra;
        if p.lmr_history > 0 {
            let h = if p.cont_lmr {
                self.move_history(mv)
            } else {
                self.history[me.index()][mv as usize]
            } - p.lmr_history_offset;
            r -= divide(h * 1024, p.lmr_history);
        }
        if self.board.line_patterns().class(me, mv as usize) >= Class::Three {
            r -= p.lmr_threat;
        }
        ((r + 512) >> 10).min(depth - 1 - p.lmr_floor).max(0)
    }
}

/// What the singular-extension test says of a table move.
pub(super) enum Singular {
    /// The node fails high without it (multi-cut), or the search stopped: return this.
    Cut(i32),
    /// Search it this many plies deeper (negative: shallower).
    Extend(i32),
}

/// A win the patterns show without a search, for `me` to move where neither side has a five
/// point (`tally`: the empty cells'): the plies to its five if it has a move that makes two five
/// points (3), or one that makes a four and an open three, or two open threes, while the
/// opponent has no move that makes a four (5: the one reply stops one threat, and the opponent's
/// fours come too late). `None` where `rule` does not let two five points win for sure
/// (`Rule::two_fives_win`).
pub fn pattern_win(rule: Rule, tally: &Tally, me: Color) -> Option<i32> {
    if !rule.two_fives_win(me) {
        return None;
    }
    let mine = tally.class_counts(me);
    if mine[Class::OpenFour as usize] > 0 {
        return Some(3);
    }
    let threats = mine[Class::FourThree as usize] + mine[Class::DoubleThree as usize];
    let theirs = &tally.class_counts(me.opp())[Class::Four as usize..];
    if threats > 0 && theirs.iter().all(|&n| n == 0) {
        return Some(5);
    }
    None
}
