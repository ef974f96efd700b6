//! The root of the search: forced answers, the threat searches, then iterative deepening with
//! aspiration windows over one or several lines (multi-PV), reporting each finished line and
//! iteration, live root progress, and (defend mode) the root moves proven to lose.

use super::*;
use crate::board::threat::is_five_point;
use crate::time;

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

    /// Every candidate cell with its move score, in cell order.
    fn all_candidates(&self, moves: &mut Vec<(i32, u16)>) {
        let me = self.board.to_move();
        moves.clear();
        moves.extend(self.board.candidates().map(|i| {
            let sums = self.board.cell_sums(i);
            (
                move_score(&self.board, i, &sums, me, &self.params.eval),
                i as u16,
            )
        }));
    }

    /// Nodes for reports: every thread's when several search.
    fn reported_nodes(&self) -> u64 {
        let mine = self.total_nodes();
        match self.shared_nodes {
            Some(shared) => shared.load(Ordering::Relaxed) + mine - self.unshared,
            None => mine,
        }
    }

    fn excluded(&self, mv: u16) -> bool {
        self.options.excluded.contains(&self.pos(mv))
    }

    fn report(&self, depth: i32, score: i32, pv: Vec<Pos>) -> Report {
        Report {
            depth,
            seldepth: self.seldepth as i32,
            score,
            nodes: self.reported_nodes(),
            elapsed_ms: self.clock.elapsed_ms(),
            pv,
        }
    }

    /// The search from the root; the main thread marks its answer as the best move last.
    pub(super) fn iterate(&mut self, observer: &mut dyn Observer) -> Outcome {
        let out = self.root_search(observer);
        if let (0, Some(p), true) = (self.helper, out.best, observer.wants_realtime()) {
            observer.realtime(Realtime::Best(p), self.clock.elapsed_ms());
        }
        out
    }

    /// Step 0 of every search: the root. Returns at once when the answer is forced.
    fn root_search(&mut self, observer: &mut dyn Observer) -> Outcome {
        let dims = self.board.dims();
        if self.board.stone_count() == 0 {
            // No stones of either side yet (blocked cells aside): take the centre or near it.
            if let Some(p) = self.opening_move() {
                return self.single(p, 0);
            }
        }
        let mut moves = Vec::new();
        let mut kind = self.classify::<true>(&mut moves);
        if self.options.decided_lines && self.options.lines > 1 && !matches!(kind, NodeKind::Quiet)
        {
            // Several lines asked for (`YXNBEST`): a win, a forced block or a lost position is
            // searched as any other, over every candidate, so that each line has its score.
            self.all_candidates(&mut moves);
            kind = NodeKind::Quiet;
        }
        if let NodeKind::Win = kind {
            // `classify` stops at the first winning cell: take the first one we may play, and
            // see every candidate when all of them are excluded.
            self.all_candidates(&mut moves);
            let me = self.board.to_move();
            let win = moves.iter().map(|&(_, mv)| mv).find(|&mv| {
                !self.excluded(mv) && self.rule.wins_at(self.board.grid(), self.pos(mv), me)
            });
            if let Some(i) = win {
                return self.single(self.pos(i), WIN - 1);
            }
        }
        moves.sort_unstable_by(super::better);
        let mut root: Vec<u16> = Vec::new();
        for &(_, mv) in &moves {
            if !self.excluded(mv) && !self.is_foul(self.pos(mv)) {
                root.push(mv);
            }
        }
        if root.is_empty() {
            // Nothing near the stones may be played: any legal empty cell, the excluded ones
            // last (a move must be given).
            let legal = |s: &mut Self, p: Pos, skip: bool| {
                s.board.is_empty_at(p)
                    && !(skip && s.excluded(dims.index(p) as u16))
                    && !s.is_foul(p)
            };
            let any = (0..dims.cells())
                .map(|i| dims.pos(i))
                .find(|&p| legal(self, p, true))
                .or_else(|| {
                    (0..dims.cells())
                        .map(|i| dims.pos(i))
                        .find(|&p| legal(self, p, false))
                });
            return match any {
                Some(p) => self.single(p, 0),
                None => self.outcome(None, 0, 0, Vec::new()),
            };
        }
        match kind {
            NodeKind::Forced(i) if root.contains(&i) => {
                // The block is forced; a VCF that starts with it is still worth announcing.
                if self.helper == 0 && self.options.lines == 1 {
                    let budget = self.root_budget(self.params.root_vcf_nodes);
                    if let Some(plies) = self.solver.vcf(&mut self.board, 120, budget) {
                        return self.announce(plies, observer);
                    }
                }
                return self.single(self.pos(i), 0);
            }
            NodeKind::Lost | NodeKind::Forced(_) => {
                // The opponent has a five we cannot stop: every move loses. Block one of its
                // five points that we may play (the loss is then at least not certain against
                // a careless opponent), else play the best-ordered legal move; never a foul.
                let opp = self.board.to_move().opp();
                let rule = self.rule;
                let block = root
                    .iter()
                    .copied()
                    .find(|&mv| is_five_point(&self.board, rule, opp, mv as usize))
                    .unwrap_or(root[0]);
                return self.single(self.pos(block), -(WIN - 2));
            }
            NodeKind::Win | NodeKind::Quiet => {}
        }
        if root.len() == 1 {
            return self.single(self.pos(root[0]), 0);
        }

        // Step 1. Threat search: a forced win by fours, then by fours and threes, is played at
        // once. Only when the opponent has no five point (then the block is forced anyway).
        let plain = self.options.lines == 1 && !self.options.defend;
        if self.helper == 0 && plain && matches!(kind, NodeKind::Quiet) {
            if let Some(out) = self.root_threats(observer) {
                if out
                    .best
                    .is_some_and(|p| root.contains(&(dims.index(p) as u16)))
                {
                    return out;
                }
            }
        }

        // Step 3 (the guard, below) keeps a share of the time or node limit back: iterative
        // deepening stops that much earlier.
        let guarding = self.helper == 0 && plain && self.params.guard_share > 0;
        let full_limits = self.limits.clone();
        if guarding {
            let keep = |v: u64| v - v * self.params.guard_share / 100;
            self.limits.max_nodes = self.limits.max_nodes.map(keep);
            self.limits.hard_ms = self.limits.hard_ms.map(keep);
            if let (Some(s), Some(h)) = (self.limits.soft_ms, self.limits.hard_ms) {
                self.limits.soft_ms = Some(s.min(h));
            }
        }

        // Step 2. Iterative deepening over the lines, with aspiration windows around each
        // line's last score.
        let max_depth = self.limits.max_depth.unwrap_or(DEFAULT_MAX_DEPTH).max(1);
        let mut best = self.outcome(Some(self.pos(root[0])), 0, 0, vec![self.pos(root[0])]);
        let mut scores: Vec<i32> = Vec::new();
        let mut losing: Vec<Pos> = Vec::new();
        let (mut instability, mut last_best, mut last_score) = (0.0, None, 0i32);
        for depth in 1..=max_depth {
            if self.helper > 0 && (depth as usize + self.helper) % 2 == 0 && depth > 1 {
                continue; // helpers skip every other depth, to search apart from the main thread
            }
            self.seldepth = 0;
            let n = self.options.lines.clamp(1, root.len());
            scores.resize(n, 0);
            let mut lines: Vec<Line> = Vec::with_capacity(n);
            for idx in 0..n {
                let score = self.aspire(&mut root, idx, depth, scores[idx], observer);
                if self.aborted {
                    break;
                }
                scores[idx] = score;
                let pv = self.principal_variation(root[idx], depth as usize);
                if self.helper == 0 {
                    if observer.wants_realtime() && (n == 1 || idx == 0) {
                        // One line: its marks start afresh. Several: the observer marks them
                        // all once the iteration is complete.
                        let t = self.clock.elapsed_ms();
                        if n == 1 {
                            observer.realtime(Realtime::Refresh, t);
                        }
                        observer.realtime(Realtime::Best(self.pos(root[0])), t);
                    }
                    observer.line(&LineReport {
                        index: idx,
                        lines: n,
                        report: self.report(depth, score, pv.clone()),
                    });
                }
                lines.push(Line { score, pv });
            }
            if self.aborted {
                if let Some(first) = lines.first() {
                    // The best line of the unfinished iteration is complete: it stands.
                    best = self.outcome(Some(first.pv[0]), first.score, depth, first.pv.clone());
                } else if self.root_changed && depth > 1 {
                    // A move that beat the previous best in the unfinished iteration stands.
                    best.best = Some(self.pos(root[0]));
                    best.pv = vec![self.pos(root[0])];
                }
                break;
            }
            // Lines of one iteration may come out of order (each searched without the ones
            // before it): best first, ties by the order found.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&k| -lines[k].score);
            let head: Vec<u16> = order.iter().map(|&k| root[k]).collect();
            root[..n].copy_from_slice(&head);
            let lines: Vec<Line> = order.iter().map(|&k| lines[k].clone()).collect();
            scores = lines.iter().map(|l| l.score).collect();
            if self.options.defend {
                self.prove_losses(&mut root, n, depth, &mut losing, observer);
                if self.aborted {
                    break;
                }
            }
            let (top_score, top_pv) = (lines[0].score, lines[0].pv.clone());
            best = self.outcome(Some(self.pos(root[0])), top_score, depth, top_pv.clone());
            best.lines = lines;
            if self.helper == 0 {
                observer.iteration(&self.report(depth, top_score, top_pv));
            }
            let score = best.score;
            let proven = score.abs() >= MATE_BOUND
                && WIN - score.abs() <= depth
                && plain
                && self.helper == 0;
            // How settled the best move is: each change counts 1, older ones half as much each
            // iteration; a falling score makes a match clock's soft limit longer too.
            instability = instability / 2.0 + (best.best != last_best) as u8 as f64;
            let drop = if score.abs() < MATE_BOUND && last_score.abs() < MATE_BOUND {
                last_score - score
            } else {
                0
            };
            (last_best, last_score) = (best.best, score);
            let soft_out = self.limits.soft_ms.is_some_and(|s| {
                let s = match (self.limits.adaptive, self.limits.hard_ms) {
                    (true, Some(h)) if depth > 2 => {
                        time::stop_after(s, h, instability, drop, self.params.time_base)
                    }
                    _ => s,
                };
                self.clock.elapsed_ms() >= s
            });
            if proven || soft_out {
                break;
            }
        }
        self.limits = full_limits;
        if let (true, Some(chosen)) = (guarding && best.score.abs() < MATE_BOUND, best.best) {
            let safe = self.guard(&root, chosen);
            if safe != chosen {
                log::debug!("guard: {chosen} leaves the opponent a forced win; {safe} instead");
                best.best = Some(safe);
                best.pv = vec![safe];
                best.lines = Vec::new();
            }
        }
        if best.lines.is_empty() {
            best.lines = vec![Line {
                score: best.score,
                pv: best.pv.clone(),
            }];
        }
        if self.options.defend {
            best.holding = root.iter().map(|&mv| self.pos(mv)).collect();
        }
        best.losing = losing;
        best.nodes = self.reported_nodes();
        best.cutoffs = self.cutoffs;
        best
    }

    /// Searches line `idx` (the best of `root[idx..]`) to `depth`, widening the window around
    /// `last` until the score falls inside it. The best move ends up at `root[idx]`.
    fn aspire(
        &mut self,
        root: &mut [u16],
        idx: usize,
        depth: i32,
        last: i32,
        observer: &mut dyn Observer,
    ) -> i32 {
        let mut delta = self.params.aspiration;
        let aspire = self.params.aspiration > 0 && depth >= 3;
        let (mut lo, mut hi) = if aspire && last.abs() < MATE_BOUND {
            (last - delta, last + delta)
        } else {
            (-INF, INF)
        };
        loop {
            let score = self.root_iteration(&mut root[idx..], depth, lo, hi, idx == 0, observer);
            if self.aborted {
                return score;
            }
            if score <= lo && lo > -INF {
                lo = (lo - delta).max(-INF);
            } else if score >= hi && hi < INF {
                hi = (hi + delta).min(INF);
            } else {
                return score;
            }
            delta *= 4;
            if delta > 4 * EVAL_BOUND {
                (lo, hi) = (-INF, INF);
            }
        }
    }

    /// One pass over the root moves with the window (`lo`, `hi`); the best move goes first.
    /// Returns the best score (a bound when it falls outside the window). `main_line` marks
    /// the pass that reports live progress.
    fn root_iteration(
        &mut self,
        root: &mut [u16],
        depth: i32,
        lo: i32,
        hi: i32,
        main_line: bool,
        observer: &mut dyn Observer,
    ) -> i32 {
        let mut alpha = lo;
        let mut best = -INF;
        let mut best_here = None;
        let live =
            main_line && self.helper == 0 && self.options.lines == 1 && observer.wants_realtime();
        self.root_changed = false;
        for (k, &mv) in root.iter().enumerate() {
            let p = self.pos(mv);
            if live {
                observer.realtime(Realtime::Enter(p), self.clock.elapsed_ms());
            }
            let reduce = self.root_reduction(depth, k, mv);
            // A five is the game's end, not a position to search (the root meets one only when
            // it searches a decided position for several lines).
            let five = self.options.decided_lines
                && self
                    .rule
                    .wins_at(self.board.grid(), p, self.board.to_move());
            self.board.play(p);
            let mut score;
            if five {
                score = WIN - 1;
            } else if k == 0 {
                score = -self.negamax(depth - 1, -hi, -alpha, 1, true, false);
            } else {
                score = -self.negamax(depth - 1 - reduce, -alpha - 1, -alpha, 1, false, true);
                if reduce > 0 && score > alpha && !self.aborted {
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1, false, true);
                }
                if score > alpha && score < hi && !self.aborted {
                    score = -self.negamax(depth - 1, -hi, -alpha, 1, true, false);
                }
            }
            self.board.undo();
            if self.aborted {
                break;
            }
            if live {
                let t = self.clock.elapsed_ms();
                observer.realtime(Realtime::Leave(p), t);
                if score <= -MATE_BOUND {
                    observer.realtime(Realtime::Lost(p), t);
                }
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_here = Some(k);
                    if live && k > 0 {
                        observer.realtime(Realtime::Best(p), self.clock.elapsed_ms());
                    }
                    if score >= hi {
                        break;
                    }
                }
            }
        }
        if let Some(k) = best_here {
            // Best move first for the next pass; the rest keep their order.
            root[..=k].rotate_right(1);
            self.root_changed = k > 0 || self.aborted;
        }
        best
    }

    /// Plies the `k`-th root move `mv` (0-based) is reduced by in its first, null-window
    /// search at `depth` (`root_lmr`): none for the first moves, for fours, or when the root
    /// searches several lines or proves losses.
    fn root_reduction(&self, depth: i32, k: usize, mv: u16) -> i32 {
        let p = &self.params;
        if p.root_lmr == 0 || k < p.root_lmr_after || self.options.lines != 1 || self.options.defend
        {
            return 0;
        }
        let me = self.board.to_move();
        if self.board.line_patterns().class(me, mv as usize).is_four() {
            return 0;
        }
        let r = self.log_reduction(depth, k, mv, true, false, 0);
        (r * p.root_lmr + 512) >> 10
    }

    /// Step 3. The guard: before `chosen` is played, the threat solver looks for the
    /// opponent's VCF, then VCT, after it. A move it proves lost gives way to the next root
    /// move (in the search's order) that it does not prove lost, among the first
    /// `guard_moves`; when every one of them loses, `chosen` stays. Runs in the share of the
    /// limits that step 2 left (`guard_share`), or on `guard_nodes` a move under a depth limit.
    fn guard(&mut self, root: &[u16], chosen: Pos) -> Pos {
        let first = self.board.dims().index(chosen) as u16;
        let tries = self.params.guard_moves.max(1);
        let moves: Vec<u16> = std::iter::once(first)
            .chain(root.iter().copied().filter(|&mv| mv != first))
            .take(tries)
            .collect();
        let mut safe = chosen;
        for &mv in &moves {
            self.solver.cap_ms = None;
            let budget = match (self.limits.max_nodes, self.limits.hard_ms) {
                (Some(n), _) => (n.saturating_sub(self.total_nodes()) / tries as u64).max(1),
                (None, Some(h)) if self.limits.max_depth.is_none() => {
                    // Each try may use two thirds of the time left.
                    let now = self.clock.elapsed_ms();
                    self.solver.cap_ms = Some(now + h.saturating_sub(now) * 2 / 3);
                    u64::MAX / 2
                }
                _ => self.params.guard_nodes,
            };
            if !self.loses_to_threats(mv, budget) {
                safe = self.pos(mv);
                break;
            }
            if self.out_of_time() {
                break;
            }
        }
        self.solver.cap_ms = None;
        safe
    }

    /// Whether the threat solver finds the opponent a VCF or a VCT after `mv`, each within
    /// `budget` nodes.
    fn loses_to_threats(&mut self, mv: u16, budget: u64) -> bool {
        self.board.play(self.pos(mv));
        let lost = self.solver.vcf(&mut self.board, 120, budget).is_some()
            || self
                .solver
                .vct(&mut self.board, self.params.root_vct_threats, budget)
                .is_some();
        self.board.undo();
        lost
    }

    /// Defend mode: every root move beyond the first `n` lines that a null-window search at
    /// `depth` proves lost joins `losing` and leaves the root (one move always stays).
    fn prove_losses(
        &mut self,
        root: &mut Vec<u16>,
        n: usize,
        depth: i32,
        losing: &mut Vec<Pos>,
        observer: &mut dyn Observer,
    ) {
        let mut keep = root[..n].to_vec();
        let mut lost = Vec::new();
        for &mv in root[n..].iter() {
            let p = self.pos(mv);
            self.board.play(p);
            // Lost iff the score is at most -MATE_BOUND: a null window just above it.
            let score = -self.negamax(depth - 1, MATE_BOUND - 1, MATE_BOUND, 1, false, true);
            self.board.undo();
            if self.aborted {
                return;
            }
            if score <= -MATE_BOUND {
                lost.push(mv);
            } else {
                keep.push(mv);
            }
        }
        for &mv in &lost {
            let p = self.pos(mv);
            if observer.wants_realtime() {
                observer.realtime(Realtime::Lost(p), self.clock.elapsed_ms());
            }
            losing.push(p);
        }
        *root = keep;
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
    /// quarter of that; a search limited by time alone to a share of the soft limit; otherwise
    /// (bench, depth limits) `budget`, so that it is the same on every machine. The hard limit
    /// always stops it.
    fn root_budget(&mut self, budget: u64) -> u64 {
        self.solver.cap_ms = None;
        match (
            self.limits.max_nodes,
            self.limits.max_depth,
            self.limits.soft_ms,
        ) {
            (Some(n), _, _) => budget.min(n / 4),
            (None, None, Some(soft)) => {
                self.solver.cap_ms = Some(soft * self.params.root_threat_share / 100);
                u64::MAX / 2
            }
            _ => budget,
        }
    }

    /// The outcome of a threat search's win in `plies`, reported as an iteration so that the
    /// GUI shows `+M`.
    fn announce(&mut self, plies: i32, observer: &mut dyn Observer) -> Outcome {
        self.solver.cap_ms = None;
        let pv = self.solver.line(&self.board);
        let score = WIN - plies;
        let report = self.report(plies, score, pv.clone());
        observer.line(&LineReport {
            index: 0,
            lines: 1,
            report: report.clone(),
        });
        observer.iteration(&report);
        let mut out = self.outcome(pv.first().copied(), score, plies, pv);
        out.lines = vec![Line {
            score,
            pv: out.pv.clone(),
        }];
        out
    }

    /// The first stone of the game: the centre, or the legal cell nearest to it.
    fn opening_move(&mut self) -> Option<Pos> {
        let dims = self.board.dims();
        let c = dims.centre();
        (0..dims.cells())
            .map(|i| dims.pos(i))
            .filter(|&p| self.board.is_empty_at(p) && !self.options.excluded.contains(&p))
            .min_by_key(|p| {
                let dx = p.x as i32 - c.x as i32;
                let dy = p.y as i32 - c.y as i32;
                (dx * dx + dy * dy, p.y, p.x)
            })
    }

    fn outcome(&self, best: Option<Pos>, score: i32, depth: i32, pv: Vec<Pos>) -> Outcome {
        Outcome {
            best,
            score,
            depth,
            nodes: self.reported_nodes(),
            pv,
            lines: Vec::new(),
            losing: Vec::new(),
            holding: Vec::new(),
            cutoffs: self.cutoffs,
        }
    }

    fn single(&mut self, p: Pos, score: i32) -> Outcome {
        let mut out = self.outcome(Some(p), score, 0, vec![p]);
        out.lines = vec![Line { score, pv: vec![p] }];
        out
    }
}
