//! Correction history: what this move's search has found the static evaluation to miss, by
//! the threat profile of the position (each side's number of empty cells where a stone makes
//! an open three, a four, two open twos or an open two), learned from the nodes' results as
//! the search goes and added to the evaluation (`corr_weight`).

use super::{Searcher, MATE_BOUND, NONE, NO_EVAL};
use crate::board::lines::Tally;
use crate::board::pattern::{Class, CLASSES};
use crate::board::Color;
use crate::eval::evaluate;

/// Entries of the table: the side to move, then 8 bits of profile for each colour.
pub(super) const CORR_SIZE: usize = 2 << 16;
/// An entry's bound, in 16ths of an evaluation unit (±128 units).
const CORR_LIMIT: i32 = 2048;

/// One colour's threat profile, 8 bits: cells that make an open three (0–3), a four (0–3), two
/// open twos (0–3), and an open two (0–1, 2–4, 5–8, 9 or more).
fn profile(counts: &[u16; CLASSES]) -> usize {
    let n = |k: Class| counts[k as usize] as usize;
    let threes = (n(Class::Three) + n(Class::ThreePlus) + n(Class::DoubleThree)).min(3);
    let fours =
        (n(Class::Four) + n(Class::FourPlus) + n(Class::FourThree) + n(Class::OpenFour)).min(3);
    let twos_plus = n(Class::TwoPlus).min(3);
    let twos = match n(Class::OpenTwo) {
        0..=1 => 0,
        2..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    threes | fours << 2 | twos_plus << 4 | twos << 6
}

/// The table entry of a position whose empty cells add up to `tally`, `me` to move.
pub(super) fn index(tally: &Tally, me: Color) -> usize {
    me.index() << 16 | profile(tally.class_counts(me)) << 8 | profile(tally.class_counts(me.opp()))
}

impl Searcher<'_> {
    /// The static evaluation of the position on the board, corrected.
    #[inline]
    pub(super) fn static_eval(&self) -> i32 {
        let eval = evaluate(&self.board, &self.params.eval);
        let lines = self.board.line_patterns();
        self.corrected(eval, lines.tally(), self.board.to_move())
    }

    /// `eval`, the static evaluation of a position whose empty cells add up to `tally` with
    /// `me` to move, corrected by what the search has learned of such positions.
    #[inline]
    pub(super) fn corrected(&self, eval: i32, tally: &Tally, me: Color) -> i32 {
        if self.params.corr_weight == 0 {
            return eval;
        }
        self.correct_at(eval, index(tally, me))
    }

    /// `eval` corrected by the table's entry `at` (an `index`).
    #[inline]
    pub(super) fn correct_at(&self, eval: i32, at: usize) -> i32 {
        if self.params.corr_weight == 0 {
            return eval;
        }
        let entry = self.corr[at] as i32;
        eval + entry * self.params.corr_weight / (16 * 100)
    }

    /// Learns from the result `best` of the node at `ply`, searched `depth` plies with the
    /// window (`alpha0`, `beta`): the entry moves towards the gap between the result and the
    /// node's (corrected) evaluation, where the result's bound says which way the gap lies.
    pub(super) fn learn_correction(
        &mut self,
        ply: usize,
        depth: i32,
        best: i32,
        alpha0: i32,
        beta: i32,
    ) {
        let eval = self.evals[ply];
        if self.params.corr_weight == 0
            || eval == NO_EVAL
            || best.abs() >= MATE_BOUND
            || self.excluded[ply] != NONE
        {
            return;
        }
        if (best >= beta && best <= eval) || (best <= alpha0 && best >= eval) {
            return;
        }
        let i = index(self.board.line_patterns().tally(), self.board.to_move());
        self.corr[i] = updated(self.corr[i], best - eval, depth);
    }
}

/// An entry after a node `depth` plies deep found its result `gap` evaluation units above its
/// corrected evaluation (below, if negative): a step towards the gap, larger for a deeper
/// node, at most a quarter of the bound, and smaller as the entry nears the bound (gravity),
/// so that it never passes it.
fn updated(entry: i16, gap: i32, depth: i32) -> i16 {
    let bonus = (gap * 2 * depth).clamp(-CORR_LIMIT / 4, CORR_LIMIT / 4);
    let entry = entry as i32;
    (entry + bonus - entry * bonus.abs() / CORR_LIMIT) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_follows_the_gaps_and_stays_within_its_bound() {
        let mut e = 0;
        for _ in 0..1000 {
            e = updated(e, 500, 20);
            assert!((0..=CORR_LIMIT as i16).contains(&e));
        }
        assert!(e as i32 > CORR_LIMIT * 9 / 10, "{e}");
        // Results below the evaluation bring it back down, past zero.
        for _ in 0..1000 {
            e = updated(e, -500, 20);
            assert!(e as i32 >= -CORR_LIMIT);
        }
        assert!((e as i32) < -CORR_LIMIT * 9 / 10, "{e}");
        // A small gap at a shallow node moves it a little.
        assert_eq!(updated(0, 10, 1), 20);
        assert_eq!(updated(0, 0, 9), 0);
    }

    #[test]
    fn profiles_tell_the_threats_apart_and_the_table_holds_every_index() {
        let mut counts = [0u16; CLASSES];
        let quiet = profile(&counts);
        counts[Class::Three as usize] = 1;
        let three = profile(&counts);
        counts[Class::Four as usize] = 5;
        let four = profile(&counts);
        counts[Class::OpenTwo as usize] = 40;
        counts[Class::TwoPlus as usize] = 9;
        let most = profile(&counts);
        assert_eq!(quiet, 0);
        assert!(quiet != three && three != four && four != most);
        assert!(most < 256);
        assert!(Color::White.index() << 16 | most << 8 | most < CORR_SIZE);
    }
}
