//! One node of the alpha-beta search, step by step: limits, immediate results, the table,
//! the pruning of open positions, the move loop with move-count pruning and reductions, and
//! the table store; children previewed before their move is played.

use super::correct;
use super::leaves::KeptLeaf;
use super::picker::{pick, Defence};
use super::prune::Singular;
use super::tt::{Bound, Entry};
use super::{NodeKind, Searcher, INF, MATE_BOUND, MAX_PLY, NONE, NO_EVAL, WIN};
use crate::board::lines::Tally;
use crate::board::pattern::Class;
use crate::board::Color;
use crate::eval::{blend_network, evaluate, evaluate_tally, learned_move_score};
use crate::rules::Rule;

/// Alpha-raise reductions stop where the score is this far from even: a clear win or loss
/// is read at full depth.
const ALPHA_RAISE_BOUND: i32 = 2500;

impl Searcher<'_> {
    /// The score of the node at `ply` searched to `depth` within (`alpha`, `beta`); `pv` on the
    /// principal variation, `cut` where a cutoff is expected (the first child of an expected
    /// all node, the null-window children of the others).
    pub(super) fn negamax(
        &mut self,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
    ) -> i32 {
        // Step 1. Poll the limits and count the node.
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY {
            return evaluate(&self.board, &self.params.eval);
        }

        // Step 2. Immediate results: own five, opponent's double five, forced block. A leaf
        // with no five point on either side (the patterns keep them as bit sets) is evaluated
        // at once (or by the quiescence search of fours, `qfours`), unless its leaf VCF is on.
        // Step 2a. Where neither side has a five point, a win the patterns show (`quick_win`).
        if self.params.pattern_moves && self.params.qvcf_nodes == 0 {
            let lines = self.board.line_patterns();
            let me = self.board.to_move();
            if !lines.has_five(me) && !lines.has_five(me.opp()) {
                if let Some(plies) = self.quick_win(lines.tally(), me) {
                    return WIN - (ply as i32 + plies);
                }
                if depth <= 0 {
                    if self.params.qfours > 0 {
                        return self.quiesce(alpha, beta, ply, self.params.qfours, true);
                    }
                    return self.static_eval();
                }
            }
        }
        // Step 2b. Mate-distance pruning: no line from here wins sooner than a five of our
        // next move or loses sooner than the opponent's five after it.
        if self.params.mate_distance {
            alpha = alpha.max(-(WIN - (ply as i32 + 2)));
            beta = beta.min(WIN - (ply as i32 + 1));
            if alpha >= beta {
                return alpha;
            }
        }
        // Step 3. Transposition table, before the moves are generated: a node stored there
        // was searched, so it is neither won nor lost at once (those are never stored).
        let key = self.key();
        let mut tt_entry = None;
        if depth > 0 {
            tt_entry = self.tt.probe(key);
            if let Some(score) = tt_entry.and_then(|e| tt_cutoff(e, depth, alpha, beta, ply, pv)) {
                return score;
            }
        }
        // Step 3a. Internal iterative reduction: a PV or cut node that the table knows no move
        // for is searched a ply shallower (its move order is a guess).
        let depth = if self.params.iir_depth > 0
            && depth >= self.params.iir_depth
            && (pv || cut)
            && tt_entry.and_then(|e| e.mv).is_none()
        {
            depth - 1
        } else {
            depth
        };
        // Step 3b. Where nothing would restrict the moves (no five point on either side, no
        // opponent open-four or four-three point), the reverse-futility test of step 5b needs
        // no move list: it comes first (a quarter of all nodes end here).
        let open = depth > 0 && self.open_position();
        self.evals[ply] = NO_EVAL;
        if open {
            let eval = self.static_eval();
            self.evals[ply] = eval;
            if self.futile(depth, beta, pv, eval, ply) {
                return eval;
            }
            if let Some(score) = self.prune_open(depth, alpha, beta, ply, pv, cut, eval) {
                return score;
            }
        }
        self.expand(depth, alpha, beta, ply, pv, cut, key, tt_entry, open)
    }

    /// Steps 3e to 8 of `negamax`: a node that its first steps did not settle (`key` and
    /// `tt_entry` from step 3, `open` from step 3b) searches its moves.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn expand(
        &mut self,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
        key: u64,
        mut tt_entry: Option<Entry>,
        open: bool,
    ) -> i32 {
        // Step 3e. In an open position, the table's move before the others are generated:
        // most nodes that have one cut off on it, and then need no move list. The other moves
        // are ordered with the history and killers its search left.
        let alpha0 = alpha;
        let mut first = None;
        self.doubles[ply + 1] = self.doubles[ply];
        self.credit[ply + 1] = self.credit[ply];
        if let Some(mv) = tt_entry.and_then(|e| e.mv).filter(|_| open) {
            if self.board.is_candidate(mv as usize) {
                let p = self.pos(mv);
                if !self.is_foul(p) {
                    // Step 3f. Singular extension: a table move that alone holds the table's
                    // score is searched a ply deeper (two where the others fall far below,
                    // with `se_double`), one that others match a ply shallower.
                    let extension = match self.singular(depth, beta, ply, pv, cut, key, tt_entry) {
                        Singular::Cut(score) => return score,
                        Singular::Extend(plies) => plies,
                    };
                    let d = depth - 1 + extension;
                    let mut preview = self.preview(d, mv);
                    self.doubles[ply + 1] += u32::from(extension == 2);
                    let score =
                        -self.child(mv, &mut preview, d, -beta, -alpha, ply + 1, pv, !pv && !cut);
                    self.doubles[ply + 1] = self.doubles[ply];
                    if self.aborted {
                        return 0;
                    }
                    if score >= beta {
                        self.cutoffs[0] += 1;
                        self.cutoffs[1] += 1;
                        self.reward(ply, mv, depth, &[]);
                        self.remember(key, depth, score, alpha0, beta, mv, ply);
                        self.learn_correction(ply, depth, score, alpha0, beta);
                        return score;
                    }
                    first = Some((mv, score));
                }
            }
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let kind = if let Some(kind) = self.five_kind() {
            moves.clear();
            kind
        } else if depth > 0 {
            self.classify::<true>(&mut moves)
        } else {
            self.classify::<false>(&mut moves)
        };
        let forced = match kind {
            NodeKind::Win => return self.give_back(ply, moves, WIN - (ply as i32 + 1)),
            NodeKind::Lost => return self.give_back(ply, moves, -(WIN - (ply as i32 + 2))),
            NodeKind::Forced(i) => {
                moves.clear();
                moves.push((0, i));
                true
            }
            NodeKind::Quiet => false,
        };
        if moves.is_empty() {
            return self.give_back(ply, moves, 0);
        }

        // Step 4. At the horizon, a VCF is the quiescence search; else evaluate. Forced
        // replies are extended instead.
        if depth <= 0 && !forced {
            let budget = match self.limits.max_nodes {
                Some(n) => self
                    .params
                    .qvcf_nodes
                    .min(n.saturating_sub(self.total_nodes())),
                None => self.params.qvcf_nodes,
            };
            let fours = self.params.qvcf_fours;
            let listed = &self.fours;
            let score = match self
                .solver
                .vcf_quiet(&mut self.board, fours, budget, listed)
            {
                Some(plies) => WIN - (ply as i32 + plies),
                None => evaluate(&self.board, &self.params.eval),
            };
            return self.give_back(ply, moves, score);
        }
        if depth <= 0 {
            // A forced reply at the horizon, extended: its table entry is read now.
            tt_entry = self.tt.probe(key);
            if let Some(score) = tt_entry.and_then(|e| tt_cutoff(e, depth, alpha, beta, ply, pv)) {
                return self.give_back(ply, moves, score);
            }
        }

        // Step 5. Defence: against a point that gives the opponent two five points, only the
        // moves that spoil it and our own fours can help; against a four-three point the same
        // set is searched first, and the other moves only if all of it loses (step 7e).
        let mut left_out = std::mem::take(&mut self.left_out[ply]);
        let defence = if !forced && self.params.defend {
            self.restrict_to_defences(&mut moves, &mut left_out)
        } else {
            Defence::None
        };
        let defending = defence != Defence::None;
        let mut widen = defence == Defence::Partial && !left_out.is_empty();

        // Step 5b. Reverse futility: a quiet node whose static evaluation beats beta by a
        // margin per remaining ply, with no threat of the opponent's to answer, fails high
        // (already tested in step 3b when the position is open).
        let quiet = !forced && !defending && self.threats43.is_empty();
        if quiet && !open {
            let eval = self.static_eval();
            self.evals[ply] = eval;
            if self.futile(depth, beta, pv, eval, ply) {
                return self.give_back(ply, moves, eval);
            }
        }
        let improving = quiet && self.improving(ply, self.evals[ply]);

        // Step 6. Order the moves. Quiet interior nodes search every move that makes or stops
        // a threat and only the best few others (`prune` 1), the best of all moves (the
        // beam of `prune` 0, a few more kept in case some are renju fouls), or all of them
        // with move-count pruning (`mcp`).
        let by_threats = !forced && !defending && self.params.prune == 1;
        let mcp =
            !forced && (!defending || self.params.mcp_defend > 0) && !by_threats && self.params.mcp;
        let mut width = if forced {
            1
        } else if defending || by_threats || mcp {
            moves.len()
        } else {
            self.params.beam_width(depth)
        };
        let keep = width.saturating_add(self.params.beam_spare);
        // The best learned order score among the moves, before killers and history join it
        // (for `lmr_policy` and `policy_prune`, which read each move's gap to it).
        let policy = (self.params.lmr_policy > 0 || self.params.policy_prune > 0)
            && self.params.eval.order_scale > 0
            && !forced;
        let top_score = if policy {
            moves.iter().map(|m| m.0).max().unwrap_or(0)
        } else {
            0
        };
        self.order(&mut moves, tt_entry.and_then(|e| e.mv), ply, keep);
        let new_depth = if forced { depth } else { depth - 1 };
        let quiet_limit = self.params.quiet_moves + self.params.quiet_per_depth * depth as usize;
        let mut quiet_seen = 0;
        let move_limit = if mcp {
            let as_improving = improving || (defending && self.params.mcp_defend > 1);
            self.params.move_limit(depth, as_improving, pv)
        } else {
            usize::MAX
        };
        let mut pruning = false;
        // Plies taken off the moves after one that raised alpha (`alpha_raise`), and off the
        // moves that make no four at a cut node whose evaluation is near beta (`fhr_margin`).
        let mut raised = 0;
        let fhr = self.params.fhr_margin > 0
            && cut
            && quiet
            && self.evals[ply] != NO_EVAL
            && self.evals[ply] >= beta - self.params.fhr_margin * depth;

        // Step 7. Principal variation search, late quiet moves reduced.
        let mut best = -INF;
        let mut best_move = NONE;
        let mut searched = 0;
        // Moves searched without a cutoff that make no four, for the history's malus.
        let mut failed = [NONE; 32];
        let mut n_failed = 0;
        if let Some((mv, score)) = first {
            // The table's move, searched in step 3e: it is first in the order.
            searched = 1;
            best = score;
            best_move = mv;
            alpha = alpha.max(score);
        }
        let me = self.board.to_move();
        // The line's credit of fractional extensions with this node's forced reply's share.
        let node_credit = self.credit[ply] + if forced { self.ext_forced() } else { 0 };
        let mut k = 0;
        loop {
            if k >= moves.len() {
                // Step 7e. Every defence against a four-three point lost: that set leaves out
                // indirect defences, so the loss is no proof until the other moves lose too.
                if widen && best < beta && best <= -MATE_BOUND && !self.aborted {
                    widen = false;
                    self.order(&mut left_out, None, ply, usize::MAX);
                    moves.append(&mut left_out);
                    width = moves.len();
                    continue;
                }
                break;
            }
            if searched >= width {
                break;
            }
            // Step 7a. Move-count pruning: once enough moves were tried and one of them does
            // not lose, only the moves that make a four-plus or more (`mcp_keep`) are left.
            if !pruning && searched >= move_limit && best > -MATE_BOUND {
                pruning = true;
                let lines = self.board.line_patterns();
                let keep = Class::from_u8(self.params.mcp_keep);
                let mut w = k;
                for j in k..moves.len() {
                    if lines.class(me, moves[j].1 as usize) >= keep {
                        moves.swap(w, j);
                        w += 1;
                    }
                }
                moves.truncate(w);
                if k == moves.len() {
                    break;
                }
            }
            pick(&mut moves, k);
            let mv = moves[k].1;
            k += 1;
            if first.is_some_and(|(f, _)| f == mv) || mv == self.excluded[ply] {
                continue;
            }
            let p = self.pos(mv);
            if by_threats && k > 1 && self.is_quiet(mv) {
                if quiet_seen >= quiet_limit {
                    continue;
                }
                quiet_seen += 1;
            }
            if !forced && self.is_foul(p) {
                continue;
            }
            let four = if self.params.pattern_moves {
                self.board.line_patterns().class(me, mv as usize).is_four()
            } else {
                self.board.has_line(me, mv as usize, 3)
            };
            let gap = if policy {
                top_score
                    - learned_move_score(&self.board, mv as usize, me, self.params.eval.order_scale)
            } else {
                0
            };
            // Step 7a2. Policy pruning: at a quiet non-PV node, once a move that does not lose
            // was tried, a move that makes no four and whose learned score lies far below the
            // best (`policy_prune` units a remaining ply) is skipped.
            if quiet
                && !pv
                && !four
                && searched > 0
                && best > -MATE_BOUND
                && self.params.prunes_by_policy(depth, gap)
            {
                continue;
            }
            // Step 7a3. Frontier fours: near the horizon, once a move that does not lose was
            // tried, a four that threatens no more than its five is skipped (`frontier_fours`):
            // its forced block would end in a leaf's evaluation.
            if four
                && !pv
                && !forced
                && searched > 0
                && best > -MATE_BOUND
                && self
                    .params
                    .skips_frontier_four(depth, self.board.line_patterns().class(me, mv as usize))
            {
                continue;
            }
            // Step 7b. Late-move reductions: never of forced replies; at a defending node
            // only with `defend_lmr` (its moves after the first); of fours only as
            // `lmr_fours` says (0: none, 1: a defending node's, 2: every node's).
            let four_reducible = match self.params.lmr_fours {
                0 => false,
                1 => defending,
                _ => true,
            };
            let reducible = (!four || four_reducible) && (!defending || self.params.defend_lmr);
            let reduce = if forced || !reducible {
                0
            } else if self.params.lmr_log > 0 {
                let p = &self.params;
                let extra = if improving { 0 } else { p.lmr_improving }
                    + if defending { p.lmr_defend } else { 0 }
                    + p.policy_reduction_1024(gap);
                self.log_reduction(depth, searched, mv, pv, cut, extra)
            } else if !pv && !defending {
                self.params.reduction(depth, searched)
            } else {
                0
            };
            // Step 7c. Threat extension: a defence against an open three or a four-three
            // point keeps the node's depth, as a forced reply does.
            let extend = defending && !four && self.params.defend_ext;
            let mut d = new_depth + extend as i32 - raised - (fhr && !four) as i32;
            // Step 7c2. Fractional extensions: a forced reply's or a defence's share of a ply
            // joins the line's credit, and each whole ply of it deepens this move.
            let credit = node_credit
                + if defending && !four {
                    self.params.ext_defend
                } else {
                    0
                };
            d += credit / 16;
            self.credit[ply + 1] = credit % 16;
            let mut preview = self.preview(d - reduce, mv);
            let mut score;
            if searched == 0 {
                score = -self.child(mv, &mut preview, d, -beta, -alpha, ply + 1, pv, !pv && !cut);
            } else {
                let lo = -alpha - 1;
                let cut_child = reduce > 0 || !cut;
                score = -self.child(
                    mv,
                    &mut preview,
                    d - reduce,
                    lo,
                    -alpha,
                    ply + 1,
                    false,
                    cut_child,
                );
                if reduce > 0 && score > alpha && !self.aborted {
                    // Step 7d. A reduced move that beat alpha is searched again: a ply deeper
                    // when it beat the best score by a wide margin.
                    if self.params.lmr_deeper > 0
                        && score > best.max(alpha) + self.params.lmr_deeper
                    {
                        d += 1;
                    }
                    score = -self.child(mv, &mut preview, d, lo, -alpha, ply + 1, false, !cut);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.child(mv, &mut preview, d, -beta, -alpha, ply + 1, true, false);
                }
            }
            if self.aborted {
                return self.give_back(ply, moves, 0);
            }
            searched += 1;
            if score > best {
                best = score;
                best_move = mv;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        self.cutoffs[0] += 1;
                        self.cutoffs[1] += (searched == 1) as u64;
                        self.reward(ply, mv, depth, &failed[..n_failed]);
                        break;
                    }
                    if raised < self.params.alpha_raise
                        && depth > 2
                        && depth < 12
                        && score.abs() < ALPHA_RAISE_BOUND
                    {
                        raised += 1;
                    }
                }
            }
            if !four && n_failed < failed.len() {
                failed[n_failed] = mv;
                n_failed += 1;
            }
        }
        self.left_out[ply] = left_out;
        if searched == 0 {
            let e = if self.excluded[ply] != NONE {
                alpha0 // the excluded move was the only one
            } else {
                evaluate(&self.board, &self.params.eval)
            };
            return self.give_back(ply, moves, e);
        }

        // Step 8. Remember the result (not that of a search without the table's move).
        if self.excluded[ply] == NONE {
            self.remember(key, depth, best, alpha0, beta, best_move, ply);
            self.learn_correction(ply, depth, best, alpha0, beta);
        }
        self.give_back(ply, moves, best)
    }

    /// The share of a ply a forced reply adds to the line's credit under this search's rule.
    fn ext_forced(&self) -> i32 {
        if self.rule == Rule::Renju {
            self.params.ext_forced_renju
        } else {
            self.params.ext_forced
        }
    }

    /// Stores a node's result in the table: `best` found with the window (`alpha0`, `beta`)
    /// it was searched with, by `best_move` (`NONE` if none).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn remember(
        &self,
        key: u64,
        depth: i32,
        best: i32,
        alpha0: i32,
        beta: i32,
        best_move: u16,
        ply: usize,
    ) {
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Entry {
                depth,
                bound,
                score: score_to_tt(best, ply),
                mv: (best_move != NONE).then_some(best_move),
            },
        );
    }

    /// Whether the patterns show nothing that would restrict the moves of this node: no five
    /// point on either side, and no open-four or four-three point of the opponent's.
    pub(super) fn open_position(&self) -> bool {
        if !self.params.pattern_moves {
            return false;
        }
        open_tally(self.board.line_patterns().tally(), self.board.to_move())
    }

    /// Plays the side to move's stone on the empty cell `mv`. The child probes the table first
    /// thing, so its slot's fetch starts before the board's (longer) update.
    pub(super) fn play(&mut self, mv: u16) {
        self.tt
            .prefetch(self.board.key_after(mv as usize) ^ self.salt);
        self.board.play(self.pos(mv));
    }

    /// What a child searched after `mv` with at least `depth` plies left would read first,
    /// worked out without playing the move: `Some` only where the child could end before its
    /// move list (as a leaf, by the table or by reverse futility), no five point is on the
    /// board before the move or after it, the evaluation is the pattern one (or the count
    /// network's, its accumulators worked out too; not the spatial one's) and leaves have no
    /// VCF.
    /// The preview is worked out when the child first needs it (`Lazy`): a child whose table
    /// entry settles it never needs its evaluation.
    pub(super) fn preview(&self, depth: i32, mv: u16) -> Lazy {
        if depth > self.params.preview_depth.min(self.params.rfp_depth)
            || !self.params.pattern_moves
        {
            return Lazy::No;
        }
        if self.params.qvcf_nodes != 0 || !self.params.eval.pattern_eval {
            return Lazy::No;
        }
        let lines = self.board.line_patterns();
        // The spatial network's evaluation needs the move played (the count network's
        // accumulators are worked out below).
        if self.params.eval.nnue && lines.evaluates() && lines.conv().is_some() {
            return Lazy::No;
        }
        let me = self.board.to_move();
        // A four leaves a five point after it: no preview (the walk would find it).
        if lines.has_five(me) || lines.has_five(me.opp()) || lines.class(me, mv as usize).is_four()
        {
            return Lazy::No;
        }
        // The child probes the table first: its slot's fetch (and that of the kept leaves)
        // overlaps the work before it.
        let child = self.board.key_after(mv as usize);
        self.tt.prefetch(child ^ self.salt);
        self.leaves.prefetch(child);
        Lazy::Pending
    }

    /// The preview of the child after `mv` (`preview` said it has one): kept from before
    /// (`leaves`), or worked out; `None` if the move leaves a five point after all.
    fn work_out(&self, mv: u16) -> Option<Preview> {
        let lines = self.board.line_patterns();
        let network = self.params.eval.nnue && lines.evaluates();
        let me = self.board.to_move();
        let child = self.board.key_after(mv as usize);
        if let Some(kept) = self.leaves.get(child) {
            return Some(self.read(&kept));
        }
        let (tally, score) = if network {
            self.board.network_after(mv as usize)?
        } else {
            (self.board.tally_after(mv as usize)?, None)
        };
        let eval = match score {
            Some(score) => {
                let residual = lines.network().is_some_and(|n| n.residual);
                let params = &self.params.eval;
                blend_network(self.rule, me.opp(), &tally, score, residual, params)
            }
            None => evaluate_tally(self.rule, me.opp(), &tally, &self.params.eval),
        };
        let mover = tally.class_counts(me.opp());
        let kept = KeptLeaf {
            eval,
            corr: correct::index(&tally, me.opp()) as u32,
            win: self.quick_win(&tally, me.opp()),
            open: open_tally(&tally, me.opp()),
            fours: self.params.qfours > 0 && mover[Class::Four as usize..].iter().any(|&n| n > 0),
        };
        self.leaves.put(child, &kept);
        Some(self.read(&kept))
    }

    /// The preview a kept leaf gives, its evaluation corrected.
    fn read(&self, kept: &KeptLeaf) -> Preview {
        Preview {
            eval: self.correct_at(kept.eval, kept.corr as usize),
            win: kept.win,
            open: kept.open,
            fours: kept.fours,
        }
    }

    /// Searches the child after `mv` to `depth`. With a `preview`, its first steps (poll, count
    /// the node, then a leaf's evaluation, the table's cutoff or reverse futility) run before
    /// the move is played, and most such children end there: the nodes, results and table
    /// are the same as `negamax`'s.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn child(
        &mut self,
        mv: u16,
        lazy: &mut Lazy,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
    ) -> i32 {
        if self.params.rfp_attack {
            let me = self.board.to_move();
            self.four_move[ply] = self.board.line_patterns().class(me, mv as usize).is_four();
        }
        if *lazy == Lazy::No {
            self.play(mv);
            let score = self.negamax(depth, alpha, beta, ply, pv, cut);
            self.board.undo();
            return score;
        }
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        // The table first where the evaluation cannot decide before it: an entry that settles
        // the child spares the walk.
        let key = self.board.key_after(mv as usize) ^ self.salt;
        let mut tt_entry = None;
        if *lazy == Lazy::Pending && depth > 0 && ply < MAX_PLY && !self.params.quick_win {
            tt_entry = self.tt.probe(key);
            if let Some(score) = tt_entry.and_then(|e| tt_cutoff(e, depth, alpha, beta, ply, pv)) {
                return score;
            }
        }
        let preview = match *lazy {
            Lazy::Ready(preview) => preview,
            _ => match self.work_out(mv) {
                Some(preview) => {
                    *lazy = Lazy::Ready(preview);
                    preview
                }
                None => {
                    // No preview after all: the child searched as any other, counted once.
                    *lazy = Lazy::No;
                    self.nodes -= 1;
                    self.play(mv);
                    let score = self.negamax(depth, alpha, beta, ply, pv, cut);
                    self.board.undo();
                    return score;
                }
            },
        };
        if ply >= MAX_PLY {
            return preview.eval;
        }
        if let Some(plies) = preview.win {
            return WIN - (ply as i32 + plies);
        }
        if depth <= 0 && !preview.fours {
            return preview.eval;
        }
        if depth <= 0 {
            // A leaf whose side to move has a four: its quiescence search plays it.
            self.board.play(self.pos(mv));
            let score = self.quiesce(alpha, beta, ply, self.params.qfours, true);
            self.board.undo();
            return score;
        }
        if tt_entry.is_none() {
            tt_entry = self.tt.probe(key);
            if let Some(score) = tt_entry.and_then(|e| tt_cutoff(e, depth, alpha, beta, ply, pv)) {
                return score;
            }
        }
        self.evals[ply] = if preview.open { preview.eval } else { NO_EVAL };
        if preview.open && self.futile(depth, beta, pv, preview.eval, ply) {
            return preview.eval;
        }
        self.board.play(self.pos(mv));
        let pruned = if preview.open {
            self.prune_open(depth, alpha, beta, ply, pv, cut, preview.eval)
        } else {
            None
        };
        let score = match pruned {
            Some(score) => score,
            None => self.expand(
                depth,
                alpha,
                beta,
                ply,
                pv,
                cut,
                key,
                tt_entry,
                preview.open,
            ),
        };
        self.board.undo();
        score
    }

    /// Returns the move buffer of `ply` for reuse, passing `score` through.
    pub(super) fn give_back(&mut self, ply: usize, moves: Vec<(i32, u16)>, score: i32) -> i32 {
        self.buffers[ply] = moves;
        score
    }
}

/// Whether a child has a preview (`Searcher::preview`), and the preview once worked out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Lazy {
    /// None: the child plays its move and searches as any node.
    No,
    /// One, not worked out yet.
    Pending,
    Ready(Preview),
}

/// What a child reads first, worked out before its move is played (`Searcher::preview`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Preview {
    /// Its static evaluation.
    eval: i32,
    /// The plies to its side to move's five that `Searcher::quick_win` reads.
    win: Option<i32>,
    /// Whether its position is open (`Searcher::open_position`).
    open: bool,
    /// Whether its side to move has a four (the quiescence search then has moves to try).
    fours: bool,
}

/// Whether the empty cells' `tally` shows nothing that would restrict the moves of `mover`,
/// the side to move: no five point on either side, no open-four or four-three point of the
/// other side's.
pub(super) fn open_tally(tally: &Tally, mover: Color) -> bool {
    let mine = tally.class_counts(mover);
    let theirs = tally.class_counts(mover.opp());
    mine[Class::Five as usize] == 0
        && theirs[Class::Five as usize] == 0
        && theirs[Class::OpenFour as usize] == 0
        && theirs[Class::FourThree as usize] == 0
}

/// The score a table entry gives a node searched to `depth` within (`alpha`, `beta`), when it
/// settles it: deep enough, its bound on the right side, and not on the principal variation.
pub(super) fn tt_cutoff(
    e: Entry,
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
    pv: bool,
) -> Option<i32> {
    let score = score_from_tt(e.score, ply);
    let usable = match e.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    (!pv && e.depth >= depth && usable).then_some(score)
}

/// Mate scores are stored relative to the node, so they stay right wherever it is reached.
pub(super) fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub(super) fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
