//! The quiescence search of fours at the leaves: the side to move stands pat on its static
//! evaluation or plays one of its fours, which the opponent must block; a four that leaves two
//! five points wins. Cheap where nothing is pending: a leaf without a four of the side to move
//! is its evaluation.

use super::{Searcher, MAX_PLY, WIN};
use crate::board::pattern::Class;
use crate::eval::evaluate;

/// Fours one quiescence node tries at most (in cell order).
const FOURS_PER_NODE: usize = 12;

impl Searcher<'_> {
    /// The score of a leaf at `ply` within (`alpha`, `beta`), where neither side has a five
    /// point: at most `fours` more fours of the side to move, each answered by its block; past
    /// the `first`, only fours that also make a three or two keep going.
    pub(super) fn quiesce(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        fours: u32,
        first: bool,
    ) -> i32 {
        let stand = evaluate(&self.board, &self.params.eval);
        if stand >= beta || fours == 0 || ply + 3 >= MAX_PLY {
            return stand;
        }
        let me = self.board.to_move();
        let lines = self.board.line_patterns();
        let mut list = [0u16; FOURS_PER_NODE];
        let mut n = 0;
        for i in lines.fours(me) {
            if first || lines.class(me, i) >= Class::FourPlus {
                list[n] = i as u16;
                n += 1;
                if n == FOURS_PER_NODE {
                    break;
                }
            }
        }
        let mut best = stand;
        alpha = alpha.max(stand);
        for &mv in &list[..n] {
            let p = self.pos(mv);
            if self.is_foul(p) {
                continue;
            }
            self.board.play(p);
            let score = self.after_four(alpha, beta, ply, fours);
            self.board.undo();
            if let Some(score) = score {
                if score > best {
                    best = score;
                    if score > alpha {
                        alpha = score;
                        if score >= beta {
                            break;
                        }
                    }
                }
            }
        }
        best
    }

    /// The side that was to move at `ply` has just made a four: the opponent blocks it (or
    /// cannot: a win), and the attacker's quiescence goes on. `None` where the block makes a
    /// four of its own, which this search does not follow.
    fn after_four(&mut self, alpha: i32, beta: i32, ply: usize, fours: u32) -> Option<i32> {
        let me = self.board.to_move().opp();
        let (block, double) = {
            let mut points = self.board.line_patterns().fives(me);
            (points.next()?, points.next().is_some())
        };
        if double {
            return Some(WIN - (ply as i32 + 3));
        }
        let p = self.pos(block as u16);
        if self.is_foul(p) {
            return Some(WIN - (ply as i32 + 3));
        }
        self.nodes += 1;
        self.board.play(p);
        let score = if self.board.line_patterns().has_five(me.opp()) {
            None
        } else {
            self.nodes += 1;
            Some(self.quiesce(alpha, beta, ply + 2, fours - 1, false))
        };
        self.board.undo();
        score
    }
}
