//! The move picker: which moves a node has (fives, fours, the opponent's threats), the
//! defences a threat forces, move order with killers and the history, and what a cutoff
//! teaches them.

use super::params::divide;
use super::{NodeKind, Searcher};
use crate::board::pattern::Class;
use crate::board::threat::{classify as classify_threat, fours_made, Threat};
use crate::board::wincount::line_count;
use crate::eval::{learned_move_score, move_score, pattern_move_score};

/// What restricting a node to its defences did (`Searcher::restrict_to_defences`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Defence {
    /// No threat to defend: every move stays.
    None,
    /// Against a point giving two five points: every move it removed loses at once.
    Complete,
    /// Against a four-three point: the removed moves may still defend.
    Partial,
}

impl Searcher<'_> {
    /// What a node has: own fives, the opponent's fives, every candidate's move score, the
    /// side to move's fours (into `self.fours`), and the opponent's threat points (into
    /// `self.threats`: points giving it two five points; `self.threats43`: four-three points).
    /// At a leaf (`SCORE` false) the move scores and the opponent's threats are not needed:
    /// `moves` then gets the candidates unscored, and the threat lists stay empty.
    pub(super) fn classify<const SCORE: bool>(&mut self, moves: &mut Vec<(i32, u16)>) -> NodeKind {
        moves.clear();
        self.fours.clear();
        self.threats.clear();
        self.threats43.clear();
        let me = self.board.to_move();
        let opp = me.opp();
        let mut opp_five = None;
        let mut opp_fives = 0;
        if self.params.pattern_moves {
            // The threat classes of the line patterns: exact fives and fours on every line.
            // The cells where a side makes a five or a four are kept as bit sets, so only the
            // move scores need a walk over the candidates (every four point lies within the
            // candidates' radius of the stones; the candidate test does not rely on it).
            let board = &self.board;
            let lines = board.line_patterns();
            if lines.has_five(me) {
                return NodeKind::Win;
            }
            for i in lines.fives(opp).filter(|&i| board.is_candidate(i)) {
                opp_fives += 1;
                opp_five = Some(i as u16);
            }
            self.fours.extend(
                lines
                    .fours(me)
                    .filter(|&i| board.is_candidate(i))
                    .map(|i| i as u16),
            );
            if !SCORE {
                moves.extend(board.candidates().map(|i| (0, i as u16)));
            } else {
                for i in lines.fours(opp).filter(|&i| board.is_candidate(i)) {
                    let theirs = lines.class(opp, i);
                    if theirs >= Class::OpenFour {
                        self.threats.push(i as u16);
                    } else if theirs == Class::FourThree {
                        self.threats43.push(i as u16);
                    }
                }
                // The learned scores (the default) in a loop of their own: this walk is hot.
                let eval = &self.params.eval;
                let scale = eval.order_scale;
                let policy = (eval.nnue && eval.nnue_policy)
                    .then(crate::nnue::spatial)
                    .flatten();
                if let (Some(net), true) = (policy, scale > 0) {
                    let logits = net.move_logits(board);
                    let score = |i: usize| (logits[i] * scale as f32) as i32;
                    moves.extend(board.candidates().map(|i| (score(i), i as u16)));
                } else if scale > 0 {
                    let score = |i| learned_move_score(board, i, me, scale);
                    moves.extend(board.candidates().map(|i| (score(i), i as u16)));
                } else {
                    moves.extend(board.candidates().map(|i| {
                        let score = if eval.pattern_order {
                            pattern_move_score(board, i, me)
                        } else {
                            move_score(board, i, &board.cell_sums(i), me, eval)
                        };
                        (score, i as u16)
                    }));
                }
            }
        } else {
            let (m, o) = (me.index(), opp.index());
            let dims = self.board.dims();
            let five = crate::board::wincount::FIVE_GAIN;
            for i in self.board.candidates() {
                let sums = self.board.cell_sums(i);
                if sums.gain[m] >= five && self.rule.wins_at(self.board.grid(), dims.pos(i), me) {
                    return NodeKind::Win;
                }
                if sums.gain[o] >= five && self.rule.wins_at(self.board.grid(), dims.pos(i), opp) {
                    opp_fives += 1;
                    opp_five = Some(i as u16);
                }
                if line_count(sums.lines[m], 3) > 0 {
                    self.fours.push(i as u16);
                }
                if !SCORE {
                    moves.push((0, i as u16));
                    continue;
                }
                if line_count(sums.lines[o], 3) >= 2 {
                    self.threats.push(i as u16);
                }
                moves.push((
                    move_score(&self.board, i, &sums, me, &self.params.eval),
                    i as u16,
                ));
            }
        }
        match opp_five {
            Some(i) if opp_fives == 1 => {
                if self.is_foul(self.pos(i)) {
                    NodeKind::Lost
                } else {
                    NodeKind::Forced(i)
                }
            }
            Some(_) => NodeKind::Lost,
            None => NodeKind::Quiet,
        }
    }

    /// What the five points alone say of a search node, read from the patterns' bit sets
    /// without looking at the candidates: a win (our five), a loss (two of the opponent's, or
    /// one that is a renju foul for us to take) or the one forced block; `None` where neither
    /// side has a five point (or the patterns are off) and `classify` must look.
    pub(super) fn five_kind(&mut self) -> Option<NodeKind> {
        if !self.params.pattern_moves {
            return None;
        }
        let me = self.board.to_move();
        let lines = self.board.line_patterns();
        if lines.has_five(me) {
            return Some(NodeKind::Win);
        }
        let (block, more) = {
            let mut fives = lines.fives(me.opp());
            (fives.next()? as u16, fives.next().is_some())
        };
        if more || self.is_foul(self.pos(block)) {
            return Some(NodeKind::Lost);
        }
        Some(NodeKind::Forced(block))
    }

    /// Scores the moves for ordering and keeps the best `keep` of them; `pick` then brings
    /// them to the front one at a time (most nodes cut off after a few moves).
    pub(super) fn order(
        &self,
        moves: &mut Vec<(i32, u16)>,
        tt_move: Option<u16>,
        ply: usize,
        keep: usize,
    ) {
        let history = &self.history[self.board.to_move().index()];
        let killers = self.killers[ply];
        let counter = self.counter_move();
        let cont = self.cont_base();
        for m in moves.iter_mut() {
            if Some(m.1) == tt_move {
                m.0 = i32::MAX;
            } else if m.1 == killers[0] || m.1 == killers[1] {
                m.0 = m.0.saturating_add(self.params.killer_bonus);
            } else if m.1 == counter {
                m.0 = m.0.saturating_add(self.params.counter_bonus);
            } else {
                m.0 =
                    m.0.saturating_add(divide(history[m.1 as usize], self.params.history_divisor));
                if let (Some(base), true) = (cont, self.params.cont_divisor > 0) {
                    let c = self.cont[base + m.1 as usize] as i32;
                    m.0 = m.0.saturating_add(divide(c, self.params.cont_divisor));
                }
            }
        }
        if keep < moves.len() {
            moves.select_nth_unstable_by(keep, better);
            moves.truncate(keep);
        }
    }

    /// Where the continuation history of the side to move after the opponent's last move
    /// starts (`None`: it is off, or there is no last move).
    pub(super) fn cont_base(&self) -> Option<usize> {
        if self.cont.is_empty() {
            return None;
        }
        let last = self.board.last_move()?;
        let cells = self.board.dims().cells();
        Some((self.board.to_move().index() * cells + self.board.dims().index(last)) * cells)
    }

    /// The history of `mv` for the side to move, with its continuation history when that is on.
    pub(super) fn move_history(&self, mv: u16) -> i32 {
        let h = self.history[self.board.to_move().index()][mv as usize];
        match self.cont_base() {
            Some(base) => h + self.cont[base + mv as usize] as i32,
            None => h,
        }
    }

    /// The counter move to the opponent's last move (`NONE` if none, or counters are off).
    fn counter_move(&self) -> u16 {
        match self.board.last_move() {
            Some(p) if self.params.counter_bonus != 0 => {
                self.counters[self.board.to_move().index()][self.board.dims().index(p)]
            }
            _ => super::NONE,
        }
    }

    /// Whether the empty cell `mv` neither makes a threat for the side to move (at least a
    /// closed three) nor takes one from the opponent (at least an open three): such moves are
    /// the ones threat pruning limits.
    pub(super) fn is_quiet(&self, mv: u16) -> bool {
        let me = self.board.to_move();
        let lines = self.board.line_patterns();
        lines.class(me, mv as usize) < Class::ClosedThree
            && lines.class(me.opp(), mv as usize) < Class::Three
    }

    /// A move that caused a cutoff becomes a killer of its ply and gains history; with
    /// `history_malus`, the history is bounded by gravity and the moves searched before it
    /// (`failed`) lose as much.
    pub(super) fn reward(&mut self, ply: usize, mv: u16, depth: i32, failed: &[u16]) {
        if self.killers[ply][0] != mv {
            self.killers[ply] = [mv, self.killers[ply][0]];
        }
        if self.params.counter_bonus != 0 {
            if let Some(last) = self.board.last_move() {
                let last = self.board.dims().index(last);
                self.counters[self.board.to_move().index()][last] = mv;
            }
        }
        let max = self.params.history_max;
        let bonus = (32 * depth * depth + 64 * depth).min(max / 2);
        if let Some(base) = self.cont_base() {
            // The continuation history is always signed, with gravity and malus.
            let cont = &mut self.cont[base..];
            for (m, b) in std::iter::once((mv, bonus)).chain(failed.iter().map(|&m| (m, -bonus))) {
                let h = &mut cont[m as usize];
                *h = gravity(*h as i32, b, max.min(i16::MAX as i32)) as i16;
            }
        }
        let history = &mut self.history[self.board.to_move().index()];
        if !self.params.history_malus {
            let h = &mut history[mv as usize];
            *h = (*h + depth * depth).min(max);
            return;
        }
        let mut add = |m: u16, b: i32| {
            let h = &mut history[m as usize];
            *h = gravity(*h, b, max);
        };
        add(mv, bonus);
        for &m in failed {
            add(m, -bonus);
        }
    }

    /// When the opponent threatens two five points next move (an open three, a double four
    /// point), or a four-three, keeps only the moves that stop every such threat and the side
    /// to move's own fours. Returns whether it restricted, and whether the set is complete
    /// (against a double-threat point every other move loses at once) or partial (against a
    /// four-three point: indirect defences are left out, and go into `left_out` when
    /// `defend_widen` asks for them).
    pub(super) fn restrict_to_defences(
        &mut self,
        moves: &mut Vec<(i32, u16)>,
        left_out: &mut Vec<(i32, u16)>,
    ) -> Defence {
        left_out.clear();
        let mut defences = std::mem::take(&mut self.defences);
        let kind = if self
            .solver
            .must_defend(&mut self.board, &self.threats, &mut defences)
        {
            Defence::Complete
        } else if self.params.pattern_moves && self.four_three_defences(&mut defences) {
            Defence::Partial
        } else {
            self.defences = defences;
            return Defence::None;
        };
        // Only a partial set keeps the moves it leaves out, for `defend_widen`.
        let keep_rest = kind == Defence::Partial && self.params.defend_widen > 0;
        let me = self.board.to_move();
        let rule = self.rule;
        let patterns = self.params.pattern_moves;
        let board = &mut self.board;
        let mask = &mut self.defence_mask;
        for &d in &defences {
            mask[d as usize / 64] |= 1 << (d % 64);
        }
        if patterns {
            // The side's four points are a bit set too: one test of both sets a move.
            let fours = board.line_patterns().four_words(me);
            let mut kept = 0;
            for j in 0..moves.len() {
                let i = moves[j].1 as usize;
                if (mask[i / 64] | fours[i / 64]) >> (i % 64) & 1 != 0 {
                    moves[kept] = moves[j];
                    kept += 1;
                } else if keep_rest {
                    left_out.push(moves[j]);
                }
            }
            moves.truncate(kept);
        } else {
            moves.retain(|&(_, mv)| {
                let i = mv as usize;
                mask[i / 64] & (1 << (i % 64)) != 0
                    || (board.has_line(me, i, 3) && fours_made(board, rule, me, i) > 0)
            });
        }
        for &d in &defences {
            mask[d as usize / 64] = 0;
        }
        self.defences = defences;
        kind
    }

    /// The opponent's four-three points (`self.threats43`, confirmed by the exact threat code:
    /// under renju its three must be real and the point no foul) and the cells that spoil
    /// them, into `out`: each point, and the empty cells of every window through it that holds
    /// two or more of the opponent's stones and none of ours. Whether there was such a point.
    pub(super) fn four_three_defences(&mut self, out: &mut Vec<u16>) -> bool {
        out.clear();
        let opp = self.board.to_move().opp();
        let dims = self.board.dims();
        // The patterns' class is exact but for renju's fouls: only black's points under renju
        // need the threat code (tests/patterns.rs checks the classes against it).
        let exact = self.board.line_patterns().rule() == self.rule && !self.rule.has_fouls(opp);
        for &f in &self.threats43 {
            let p = dims.pos(f as usize);
            if !exact
                && classify_threat(self.board.grid_mut(), self.rule, p, opp) != Threat::FourThree
            {
                continue;
            }
            out.push(f);
            let windows = self.board.windows();
            for &w in windows.through(f as usize) {
                let counts = self.board.wincount().counts(w as usize);
                if counts[opp.index()] < 2 || counts[opp.opp().index()] != 0 {
                    continue;
                }
                for &e in windows.cells(w as usize) {
                    if self.board.is_empty_index(e as usize) {
                        out.push(e);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        !out.is_empty()
    }
}

/// A move's place in the move order as one number, largest first: the score above, the cell's
/// index complemented below it (higher score first, then lower cell index; never hash or
/// insertion order).
#[inline(always)]
fn order_key(m: &(i32, u16)) -> i64 {
    (m.0 as i64) << 16 | i64::from(!m.1)
}

/// Move order (see `order_key`): `Less` when `a` comes first.
pub(super) fn better(a: &(i32, u16), b: &(i32, u16)) -> std::cmp::Ordering {
    order_key(b).cmp(&order_key(a))
}

/// Swaps the best of `moves[k..]` (by `better`) into place `k`, with one comparison a move.
pub(super) fn pick(moves: &mut [(i32, u16)], k: usize) {
    let mut best = k;
    let mut best_key = i64::MIN;
    for (j, m) in moves.iter().enumerate().skip(k) {
        let key = order_key(m);
        if key > best_key {
            best = j;
            best_key = key;
        }
    }
    moves.swap(k, best);
}

/// A history score `h` moved by `bonus` (negative: a malus) with gravity: the closer `h` is to
/// `max` on the bonus's side, the less it moves, so that it stays within `±max`.
fn gravity(h: i32, bonus: i32, max: i32) -> i32 {
    h + bonus - (h as i64 * bonus.abs() as i64 / max as i64) as i32
}
