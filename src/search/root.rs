//! The root of the search: forced answers, the threat searches, then iterative deepening with
//! aspiration windows, reporting each finished iteration.

use super::*;
use crate::board::threat::is_five_point;

impl Searcher<'_> {
    /// The principal variation: the best move, then the table's best replies.
    fn principal_variation(&mut self, first: u16, max_len: usize) -> Vec<Pos> {
        let mut pv = vec![self.pos(first)];
        self.board.play(self.pos(first));
        while pv.len() < max_len {
            let Some(mv) = self.tt.probe(self.key()).and_then(|e| e.mv) else {
                break;
            };
            let p = self.pos(mv);
            if !self.board.is_empty_at(p) {
                break;
            }
            self.board.play(p);
            pv.push(p);
        }
        for _ in 0..pv.len() {
            self.board.undo();
        }
        pv
    }

    /// Step 0 of every search: the root. Returns at once when the answer is forced.
    pub(super) fn iterate(&mut self, observer: &mut dyn Observer) -> Outcome {
        let dims = self.board.dims();
        if self.board.stone_count() == 0 {
            // No stones of either side yet (blocked cells aside): take the centre or near it.
            if let Some(p) = self.opening_move() {
                return self.single(p, 0);
            }
        }
        let mut moves = Vec::new();
        let kind = self.classify::<true>(&mut moves);
        match kind {
            NodeKind::Win(i) => return self.single(self.pos(i), WIN - 1),
            NodeKind::Forced(i) => {
                // The block is forced; a VCF that starts with it is still worth announcing.
                let budget = self.root_budget(self.params.root_vcf_nodes);
                if let Some(plies) = self.solver.vcf(&mut self.board, 120, budget) {
                    return self.announce(plies, observer);
                }
                return self.single(self.pos(i), 0);
            }
            NodeKind::Lost | NodeKind::Quiet => {}
        }
        moves.sort_unstable_by(super::better);
        let mut root: Vec<u16> = Vec::new();
        for &(_, mv) in &moves {
            if !self.is_foul(self.pos(mv)) {
                root.push(mv);
            }
        }
        if root.is_empty() {
            // Nothing near the stones is legal: any legal empty cell.
            let any = (0..dims.cells())
                .map(|i| dims.pos(i))
                .find(|&p| self.board.is_empty_at(p) && !self.is_foul(p));
            return Outcome {
                best: any,
                score: 0,
                depth: 0,
                nodes: self.nodes,
                pv: any.into_iter().collect(),
            };
        }
        if matches!(kind, NodeKind::Lost) {
            // The opponent has a five we cannot stop: every move loses. Block one of its five
            // points that we may play (the loss is then at least not certain against a
            // careless opponent), else play the best-ordered legal move; never a foul.
            let opp = self.board.to_move().opp();
            let rule = self.rule;
            let block = root
                .iter()
                .copied()
                .find(|&mv| is_five_point(&self.board, rule, opp, mv as usize))
                .unwrap_or(root[0]);
            return self.single(self.pos(block), -(WIN - 2));
        }
        if root.len() == 1 {
            return self.single(self.pos(root[0]), 0);
        }

        // Step 1. Threat search: a forced win by fours, then by fours and threes, is played at
        // once. Only when the opponent has no five point (then the block is forced anyway).
        if matches!(kind, NodeKind::Quiet) {
            if let Some(out) = self.root_threats(observer) {
                return out;
            }
        }

        // Step 2. Iterative deepening with aspiration windows around the last score.
        let max_depth = self.limits.max_depth.unwrap_or(DEFAULT_MAX_DEPTH).max(1);
        let mut best = Outcome {
            best: Some(self.pos(root[0])),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: vec![self.pos(root[0])],
        };
        for depth in 1..=max_depth {
            let mut delta = self.params.aspiration;
            let aspire = self.params.aspiration > 0 && depth >= 3;
            let (mut lo, mut hi) = if aspire && best.score.abs() < MATE_BOUND {
                (best.score - delta, best.score + delta)
            } else {
                (-INF, INF)
            };
            let mut score;
            loop {
                score = self.root_iteration(&mut root, depth, lo, hi);
                if self.aborted {
                    break;
                }
                if score <= lo && lo > -INF {
                    lo = (lo - delta).max(-INF);
                } else if score >= hi && hi < INF {
                    hi = (hi + delta).min(INF);
                } else {
                    break;
                }
                delta *= 4;
                if delta > 4 * EVAL_BOUND {
                    (lo, hi) = (-INF, INF);
                }
            }
            if self.aborted {
                // A move that beat the previous best in the unfinished iteration stands.
                if self.root_changed && depth > 1 {
                    best.best = Some(self.pos(root[0]));
                    best.pv = vec![self.pos(root[0])];
                }
                break;
            }
            let pv = self.principal_variation(root[0], depth as usize);
            best = Outcome {
                best: Some(self.pos(root[0])),
                score,
                depth,
                nodes: self.total_nodes(),
                pv,
            };
            observer.iteration(&Report {
                depth,
                score,
                nodes: self.total_nodes(),
                elapsed_ms: self.clock.elapsed_ms(),
                pv: best.pv.clone(),
            });
            let proven = score.abs() >= MATE_BOUND && WIN - score.abs() <= depth;
            let soft_out = self
                .limits
                .soft_ms
                .is_some_and(|s| self.clock.elapsed_ms() >= s);
            if proven || soft_out {
                break;
            }
        }
        best.nodes = self.total_nodes();
        best
    }

    /// One pass over the root moves with the window (`lo`, `hi`); the best move goes first.
    /// Returns the best score (a bound when it falls outside the window).
    fn root_iteration(&mut self, root: &mut Vec<u16>, depth: i32, lo: i32, hi: i32) -> i32 {
        let mut alpha = lo;
        let mut best = -INF;
        let mut best_here = None;
        self.root_changed = false;
        for (k, &mv) in root.iter().enumerate() {
            let p = self.pos(mv);
            self.board.play(p);
            let mut score;
            if k == 0 {
                score = -self.negamax(depth - 1, -hi, -alpha, 1, true);
            } else {
                score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1, false);
                if score > alpha && score < hi && !self.aborted {
                    score = -self.negamax(depth - 1, -hi, -alpha, 1, true);
                }
            }
            self.board.undo();
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_here = Some(k);
                    if score >= hi {
                        break;
                    }
                }
            }
        }
        if let Some(k) = best_here {
            // Best move first for the next pass; the rest keep their order.
            let mv = root.remove(k);
            root.insert(0, mv);
            self.root_changed = k > 0 || self.aborted;
        }
        best
    }

    /// The root VCF, then the root VCT, each within its node budget. A win found is returned
    /// as the outcome (and reported as an iteration, so the GUI shows `+M`).
    fn root_threats(&mut self, observer: &mut dyn Observer) -> Option<Outcome> {
        let budgets = [
            (false, self.params.root_vcf_nodes),
            (true, self.params.root_vct_nodes),
        ];
        for (vct, budget) in budgets {
            let budget = self.root_budget(budget);
            let found = if vct {
                self.solver
                    .vct(&mut self.board, self.params.root_vct_threats, budget)
            } else {
                self.solver.vcf(&mut self.board, 120, budget)
            };
            self.solver.cap_ms = None;
            if let Some(plies) = found {
                return Some(self.announce(plies, observer));
            }
        }
        None
    }

    /// The node budget of a root threat search, and its time cap: a node limit bounds it to a
    /// quarter of that; a timed search to a share of the soft limit; an untimed one (bench,
    /// depth limits) to `budget`.
    fn root_budget(&mut self, budget: u64) -> u64 {
        self.solver.cap_ms = None;
        match (self.limits.max_nodes, self.limits.soft_ms) {
            (Some(n), _) => budget.min(n / 4),
            (None, Some(soft)) => {
                self.solver.cap_ms = Some(soft * self.params.root_threat_share / 100);
                u64::MAX / 2
            }
            (None, None) => budget,
        }
    }

    /// The outcome of a threat search's win in `plies`, reported as an iteration so that the
    /// GUI shows `+M`.
    fn announce(&mut self, plies: i32, observer: &mut dyn Observer) -> Outcome {
        self.solver.cap_ms = None;
        let pv = self.solver.line(&self.board);
        let score = WIN - plies;
        observer.iteration(&Report {
            depth: plies,
            score,
            nodes: self.total_nodes(),
            elapsed_ms: self.clock.elapsed_ms(),
            pv: pv.clone(),
        });
        Outcome {
            best: pv.first().copied(),
            score,
            depth: plies,
            nodes: self.total_nodes(),
            pv,
        }
    }

    /// The first stone of the game: the centre, or the legal cell nearest to it.
    fn opening_move(&mut self) -> Option<Pos> {
        let dims = self.board.dims();
        let c = dims.centre();
        (0..dims.cells())
            .map(|i| dims.pos(i))
            .filter(|&p| self.board.is_empty_at(p))
            .min_by_key(|p| {
                let dx = p.x as i32 - c.x as i32;
                let dy = p.y as i32 - c.y as i32;
                (dx * dx + dy * dy, p.y, p.x)
            })
    }

    fn single(&mut self, p: Pos, score: i32) -> Outcome {
        Outcome {
            best: Some(p),
            score,
            depth: 0,
            nodes: self.nodes,
            pv: vec![p],
        }
    }
}
