//! Iterative deepening over a negamax alpha-beta (PVS) search with a transposition table:
//! immediate fives are taken, the opponent's five is blocked (and a double five is a loss),
//! renju fouls are never played by black. Reports each finished iteration, each multi-PV line
//! and live root progress to an observer. With several threads, helpers search the same root
//! through the shared table (lazy SMP) and the main thread's result is played.

pub mod limits;
pub mod params;
mod quiesce;
mod root;
pub mod strength;
pub mod swap2;
pub mod threats;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::board::lines::Tally;
use crate::board::pattern::Class;
use crate::board::threat::{classify as classify_threat, fours_made, Threat};
use crate::board::wincount::line_count;
use crate::board::{renju, Board, Color};
use crate::eval::{evaluate, evaluate_tally, move_score, EVAL_BOUND};
use crate::geometry::Pos;
use crate::rules::Rule;
use limits::{Clock, Deadline, Limits};
use params::Params;
use threats::Solver;
use tt::{Bound, Entry, TranspositionTable};

/// Score of a win on this very move; a win `n` plies away scores `WIN - n`.
pub const WIN: i32 = 100_000_000;
/// Scores at or beyond this magnitude are proven results.
pub const MATE_BOUND: i32 = WIN - 10_000;
/// Deepest ply a search reaches (extensions included).
pub const MAX_PLY: usize = 128;
/// Iterations run when no depth limit is given.
pub const DEFAULT_MAX_DEPTH: i32 = 60;
const INF: i32 = WIN + 1;

/// One finished iteration, as reported to the observer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub depth: i32,
    /// Deepest ply the iteration reached, extensions and threat lines included.
    pub seldepth: i32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub pv: Vec<Pos>,
}

/// One line of an iteration: the `index`-th best root move (0 for the best) of `lines`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineReport {
    pub index: usize,
    pub lines: usize,
    pub report: Report,
}

/// Live progress at the root, for analysis GUIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realtime {
    /// A new iteration's lines begin: earlier root marks are stale.
    Refresh,
    /// The search enters this root move.
    Enter(Pos),
    /// The search leaves this root move.
    Leave(Pos),
    /// The best move so far.
    Best(Pos),
    /// This root move is proven to lose.
    Lost(Pos),
}

/// Receives progress from a running search (the engine itself prints nothing).
pub trait Observer {
    fn iteration(&mut self, report: &Report);
    /// One line of a multi-PV iteration is complete (also the single line of a normal one).
    fn line(&mut self, _line: &LineReport) {}
    /// Live root progress, `elapsed_ms` into the move; only sent when `wants_realtime`.
    fn realtime(&mut self, _event: Realtime, _elapsed_ms: u64) {}
    /// Whether to send `realtime` events (they cost a clock read each).
    fn wants_realtime(&self) -> bool {
        false
    }
}

impl Observer for () {
    fn iteration(&mut self, _: &Report) {}
}

/// A root move with its score and principal variation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub score: i32,
    pub pv: Vec<Pos>,
}

/// What a search found. `best` is `None` only when no legal move exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub best: Option<Pos>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub pv: Vec<Pos>,
    /// The lines of the last finished iteration, best first (one unless several were asked).
    pub lines: Vec<Line>,
    /// Root moves proven to lose (searched for when `RootOptions::defend` is set).
    pub losing: Vec<Pos>,
    /// Defend mode: the root moves not proven to lose, best first.
    pub holding: Vec<Pos>,
}

/// Formats a score for humans: centipawn-like numbers, or `+M5` / `-M4` for a win or loss in
/// that many plies.
pub fn format_score(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("+M{}", WIN - score)
    } else if score <= -MATE_BOUND {
        format!("-M{}", WIN + score)
    } else {
        score.to_string()
    }
}

/// What the side to move faces at a node, before any search.
enum NodeKind {
    /// It makes a winning line on this cell.
    Win,
    /// The opponent has two or more winning points (or one it may not block): lost.
    Lost,
    /// The opponent wins on this cell unless it is taken now.
    Forced(u16),
    /// No threat: the candidates are in the move buffer.
    Quiet,
}

/// What the root searches besides the best move. The default is a normal search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootOptions {
    /// Cells the root may not play (Yixin-Board's `yxblock`); ignored when nothing else is legal.
    pub excluded: Vec<Pos>,
    /// Best root moves to search and report (multi-PV); at least 1.
    pub lines: usize,
    /// Also prove which root moves lose, each iteration (`yxsearchdefend`).
    pub defend: bool,
    /// Search threads; 1 gives the same moves and node counts on every machine.
    pub threads: usize,
}

impl Default for RootOptions {
    fn default() -> RootOptions {
        RootOptions {
            excluded: Vec::new(),
            lines: 1,
            defend: false,
            threads: 1,
        }
    }
}

/// Everything one search needs, lent by its owner.
#[derive(Clone)]
pub struct Search<'a> {
    pub board: Board,
    pub rule: Rule,
    pub limits: Limits,
    pub params: Params,
    pub tt: &'a TranspositionTable,
    pub clock: &'a dyn Clock,
    pub stop: &'a AtomicBool,
    pub options: RootOptions,
}

struct Searcher<'a> {
    board: Board,
    rule: Rule,
    limits: Limits,
    params: Params,
    options: RootOptions,
    tt: &'a TranspositionTable,
    clock: &'a dyn Clock,
    stop: &'a AtomicBool,
    solver: Solver<'a>,
    /// 0 for the main thread, which reports and whose move is played; helpers count from 1.
    helper: usize,
    /// Nodes of every thread, when there are several (the node limit is then shared).
    shared_nodes: Option<&'a AtomicU64>,
    /// This thread's nodes not yet added to `shared_nodes`.
    unshared: u64,
    salt: u64,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    root_changed: bool,
    killers: Vec<[u16; 2]>,
    history: [Vec<i32>; 2],
    /// The static evaluation of the node at each ply of the current line (`NO_EVAL` where a
    /// threat had to be answered), for "improving".
    evals: Vec<i32>,
    /// The move a singular-extension test leaves out at each ply (`NONE`: none).
    excluded: Vec<u16>,
    fours: Vec<u16>,
    threats: Vec<u16>,
    threats43: Vec<u16>,
    defences: Vec<u16>,
    /// The cells of `defences` as a bit set while moves are filtered by it; zero otherwise.
    defence_mask: Vec<u64>,
    buffers: Vec<Vec<(i32, u16)>>,
}

const NONE: u16 = u16::MAX;
/// `Searcher::evals` of a node that has no static evaluation of its own.
const NO_EVAL: i32 = i32::MIN;

/// A helper thread's clock: helpers never stop by the clock (the main thread halts them).
struct Frozen;

impl Clock for Frozen {
    fn elapsed_ms(&self) -> u64 {
        0
    }
}

static FROZEN: Frozen = Frozen;

impl<'a> Search<'a> {
    /// Runs iterative deepening until a limit is hit, and returns the best move found.
    pub fn run(self, observer: &mut dyn Observer) -> Outcome {
        let threads = self.options.threads.max(1);
        if threads == 1 {
            return searcher(self, 0, None).iterate(observer);
        }
        let halt = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for id in 1..threads {
                // Helpers share the node limit but not the time or depth limits: they run
                // until the main thread halts them.
                let helper = Search {
                    limits: Limits {
                        soft_ms: None,
                        hard_ms: None,
                        max_depth: None,
                        ..self.limits.clone()
                    },
                    clock: &FROZEN,
                    stop: &halt,
                    ..self.clone()
                };
                let nodes = &nodes;
                let spawned = std::thread::Builder::new()
                    .name(format!("helper{id}"))
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, move || {
                        searcher(helper, id, Some(nodes)).iterate(&mut ());
                    });
                if spawned.is_err() {
                    break; // fewer helpers: the search is still complete
                }
            }
            let out = searcher(self, 0, Some(&nodes)).iterate(observer);
            halt.store(true, Ordering::Relaxed);
            out
        })
    }
}

/// A searcher for `search`: the main one (`helper` 0) or a helper.
fn searcher<'a>(
    search: Search<'a>,
    helper: usize,
    shared_nodes: Option<&'a AtomicU64>,
) -> Searcher<'a> {
    let Search {
        mut board,
        rule,
        limits,
        params,
        tt,
        clock,
        stop,
        options,
    } = search;
    board.set_rule(rule);
    let dims = board.dims();
    let salt = (rule.info_value() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ ((dims.width as u64) << 40 | (dims.height as u64) << 48);
    let mut solver = Solver::new(rule);
    solver.stop_check = Some(Deadline {
        clock,
        stop,
        hard_ms: limits.hard_ms,
    });
    solver.probe_nodes = params.vct_probe_nodes;
    solver.quiet_plies = params.vct_quiet_plies;
    Searcher {
        board,
        rule,
        limits,
        params,
        options,
        tt,
        clock,
        stop,
        solver,
        helper,
        shared_nodes,
        unshared: 0,
        salt,
        nodes: 0,
        seldepth: 0,
        aborted: false,
        root_changed: false,
        killers: vec![[NONE; 2]; MAX_PLY + 2],
        evals: vec![NO_EVAL; MAX_PLY + 2],
        excluded: vec![NONE; MAX_PLY + 2],
        history: [vec![0; dims.cells()], vec![0; dims.cells()]],
        fours: Vec::new(),
        threats: Vec::new(),
        threats43: Vec::new(),
        defences: Vec::new(),
        defence_mask: vec![0; dims.cells().div_ceil(64)],
        buffers: vec![Vec::new(); MAX_PLY + 2],
    }
}

impl Searcher<'_> {
    /// Positions visited by the alpha-beta search and the threat searches together.
    fn total_nodes(&self) -> u64 {
        self.nodes + self.solver.nodes
    }

    fn key(&self) -> u64 {
        self.board.key() ^ self.salt
    }

    fn pos(&self, i: u16) -> Pos {
        self.board.dims().pos(i as usize)
    }

    /// Whether the side to move may not play `p` (a renju foul for black).
    fn is_foul(&mut self, p: Pos) -> bool {
        self.rule == Rule::Renju
            && self.board.to_move() == Color::Black
            && self.board.may_be_foul(self.board.dims().index(p))
            && renju::foul(self.board.grid_mut(), p).is_some()
    }

    /// Looks at every candidate cell once: own fives, the opponent's fives, move scores, the
    /// side to move's fours (into `self.fours`), and the opponent's threat points (into
    /// `self.threats`: points giving it two five points; `self.threats43`: four-three points).
    /// At a leaf (`SCORE` false) the move scores and the opponent's threats are not needed:
    /// `moves` then gets the candidates unscored, and the threat lists stay empty.
    fn classify<const SCORE: bool>(&mut self, moves: &mut Vec<(i32, u16)>) -> NodeKind {
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
            let lines = self.board.line_patterns();
            for i in self.board.candidates() {
                let (mine, theirs) = (lines.class(me, i), lines.class(opp, i));
                if mine == Class::Five {
                    return NodeKind::Win;
                }
                if theirs == Class::Five {
                    opp_fives += 1;
                    opp_five = Some(i as u16);
                }
                if mine.is_four() {
                    self.fours.push(i as u16);
                }
                if !SCORE {
                    moves.push((0, i as u16));
                    continue;
                }
                if theirs >= Class::OpenFour {
                    self.threats.push(i as u16);
                } else if theirs == Class::FourThree {
                    self.threats43.push(i as u16);
                }
                let sums = self.board.wincount().sums(i);
                moves.push((
                    move_score(&self.board, i, &sums, me, &self.params),
                    i as u16,
                ));
            }
        } else {
            let (m, o) = (me.index(), opp.index());
            let dims = self.board.dims();
            let five = crate::board::wincount::FIVE_GAIN;
            for i in self.board.candidates() {
                let sums = self.board.wincount().sums(i);
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
                    move_score(&self.board, i, &sums, me, &self.params),
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

    fn poll(&mut self) -> bool {
        let timed_poll = self.nodes % self.params.poll_interval == 0;
        let out_of_nodes = match self.shared_nodes {
            None => self
                .limits
                .max_nodes
                .is_some_and(|n| self.total_nodes() >= n),
            // Several threads count their nodes together (for the node limit and the reports);
            // each adds its count now and then.
            Some(shared) => {
                timed_poll && {
                    let now = self.total_nodes();
                    let added = now - self.unshared;
                    let all = shared.fetch_add(added, Ordering::Relaxed) + added;
                    self.unshared = now;
                    self.limits.max_nodes.is_some_and(|n| all >= n)
                }
            }
        };
        if out_of_nodes || (timed_poll && self.out_of_time()) {
            self.aborted = true;
        }
        self.aborted
    }

    /// Whether the stop flag is up or the hard limit has passed (the clock is read here).
    fn out_of_time(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self
                .limits
                .hard_ms
                .is_some_and(|h| self.clock.elapsed_ms() >= h)
    }

    /// Scores the moves for ordering and keeps the best `keep` of them; `pick` then brings
    /// them to the front one at a time (most nodes cut off after a few moves).
    fn order(&self, moves: &mut Vec<(i32, u16)>, tt_move: Option<u16>, ply: usize, keep: usize) {
        let history = &self.history[self.board.to_move().index()];
        let killers = self.killers[ply];
        for m in moves.iter_mut() {
            if Some(m.1) == tt_move {
                m.0 = i32::MAX;
            } else if m.1 == killers[0] || m.1 == killers[1] {
                m.0 = m.0.saturating_add(self.params.killer_bonus);
            } else {
                m.0 =
                    m.0.saturating_add(history[m.1 as usize] / self.params.history_divisor);
            }
        }
        if keep < moves.len() {
            moves.select_nth_unstable_by(keep, better);
            moves.truncate(keep);
        }
    }

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
            return evaluate(&self.board, &self.params);
        }

        // Step 2. Immediate results: own five, opponent's double five, forced block. A leaf
        // with no five point on either side (the patterns keep them as bit sets) is evaluated
        // at once (or by the quiescence search of fours, `qfours`), unless its leaf VCF is on.
        if depth <= 0 && self.params.pattern_moves && self.params.qvcf_nodes == 0 {
            let lines = self.board.line_patterns();
            let me = self.board.to_move();
            if !lines.has_five(me) && !lines.has_five(me.opp()) {
                if self.params.qfours > 0 {
                    return self.quiesce(alpha, beta, ply, self.params.qfours);
                }
                return evaluate(&self.board, &self.params);
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
        // Step 3b. Where nothing would restrict the moves (no five point on either side, no
        // opponent open-four or four-three point), the reverse-futility test of step 5b needs
        // no move list: it comes first (a quarter of all nodes end here).
        let open = depth > 0 && self.open_position();
        self.evals[ply] = NO_EVAL;
        if open {
            let eval = evaluate(&self.board, &self.params);
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

    /// Steps 3c and 3d, at an open non-PV node whose static evaluation is `eval`: razoring (far
    /// below alpha near the horizon, the quiescence search decides) and null-move pruning
    /// (far above beta, even a pass keeps it there).
    #[allow(clippy::too_many_arguments)]
    fn prune_open(
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
            let score = self.quiesce(alpha, alpha + 1, ply, p.qfours);
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
    fn improving(&self, ply: usize, eval: i32) -> bool {
        eval != NO_EVAL && ply >= 2 && {
            let before = self.evals[ply - 2];
            before != NO_EVAL && eval > before
        }
    }

    /// Steps 3c to 8 of `negamax`: a node that its first steps did not settle (`key` and
    /// `tt_entry` from step 3, `open` from step 3b) searches its moves.
    #[allow(clippy::too_many_arguments)]
    fn expand(
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
        // Step 3c. In an open position, the table's move before the others are generated:
        // most nodes that have one cut off on it, and then need no move list. The other moves
        // are ordered with the history and killers its search left.
        let alpha0 = alpha;
        let mut first = None;
        if let Some(mv) = tt_entry.and_then(|e| e.mv).filter(|_| open) {
            if self.board.is_candidate(mv as usize) {
                let p = self.pos(mv);
                if !self.is_foul(p) {
                    // Step 3d. Singular extension: a table move that alone holds the table's
                    // score is searched a ply deeper, one that others match a ply shallower.
                    let extension = match self.singular(depth, beta, ply, cut, key, tt_entry) {
                        Singular::Cut(score) => return score,
                        Singular::Extend(plies) => plies,
                    };
                    let d = depth - 1 + extension;
                    let preview = self.preview(d, mv);
                    let score =
                        -self.child(mv, preview, d, -beta, -alpha, ply + 1, pv, !pv && !cut);
                    if self.aborted {
                        return 0;
                    }
                    if score >= beta {
                        self.reward(ply, mv, depth, &[]);
                        self.remember(key, depth, score, alpha0, beta, mv, ply);
                        return score;
                    }
                    first = Some((mv, score));
                }
            }
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let kind = if depth > 0 {
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
                None => evaluate(&self.board, &self.params),
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
        // moves that spoil it and our own fours can help.
        let defending = !forced && self.params.defend && self.restrict_to_defences(&mut moves);

        // Step 5b. Reverse futility: a quiet node whose static evaluation beats beta by a
        // margin per remaining ply, with no threat of the opponent's to answer, fails high
        // (already tested in step 3b when the position is open).
        let quiet = !forced && !defending && self.threats43.is_empty();
        if quiet && !open {
            let eval = evaluate(&self.board, &self.params);
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
        let mcp = !forced && !defending && !by_threats && self.params.mcp;
        let width = if forced {
            1
        } else if defending || by_threats || mcp {
            moves.len()
        } else {
            self.params.beam_width(depth)
        };
        let keep = width.saturating_add(self.params.beam_spare);
        self.order(&mut moves, tt_entry.and_then(|e| e.mv), ply, keep);
        let new_depth = if forced { depth } else { depth - 1 };
        let quiet_limit = self.params.quiet_moves + self.params.quiet_per_depth * depth as usize;
        let mut quiet_seen = 0;
        let move_limit = if mcp {
            self.params.move_limit(depth, improving, pv)
        } else {
            usize::MAX
        };
        let mut pruning = false;

        // Step 7. Principal variation search, late quiet moves reduced.
        let mut best = -INF;
        let mut best_move = NONE;
        let mut searched = 0;
        // Moves searched without a cutoff that make no four, for the history's malus.
        let mut failed = [NONE; 32];
        let mut n_failed = 0;
        if let Some((mv, score)) = first {
            // The table's move, searched in step 3b: it is first in the order.
            searched = 1;
            best = score;
            best_move = mv;
            alpha = alpha.max(score);
        }
        let me = self.board.to_move();
        let mut k = 0;
        while k < moves.len() {
            if searched >= width {
                break;
            }
            // Step 7a. Move-count pruning: once enough moves were tried and one of them does
            // not lose, only the moves that make a four are left.
            if !pruning && searched >= move_limit && best > -MATE_BOUND {
                pruning = true;
                let lines = self.board.line_patterns();
                let mut w = k;
                for j in k..moves.len() {
                    if lines.class(me, moves[j].1 as usize).is_four() {
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
                self.board.lines(me, mv as usize, 3) > 0
            };
            // Step 7b. Late-move reductions (a four-making move is never reduced).
            let reduce = if forced || defending || four {
                0
            } else if self.params.lmr_log > 0 {
                self.log_reduction(depth, searched, mv, pv, cut, improving)
            } else if !pv {
                self.params.reduction(depth, searched)
            } else {
                0
            };
            let preview = self.preview(new_depth - reduce, mv);
            let mut score;
            let mut d = new_depth;
            if searched == 0 {
                score = -self.child(mv, preview, d, -beta, -alpha, ply + 1, pv, !pv && !cut);
            } else {
                let lo = -alpha - 1;
                let cut_child = reduce > 0 || !cut;
                score = -self.child(
                    mv,
                    preview,
                    d - reduce,
                    lo,
                    -alpha,
                    ply + 1,
                    false,
                    cut_child,
                );
                if reduce > 0 && score > alpha && !self.aborted {
                    // Step 7c. A reduced move that beat alpha is searched again: a ply deeper
                    // when it beat the best score by a wide margin.
                    if self.params.lmr_deeper > 0
                        && score > best.max(alpha) + self.params.lmr_deeper
                    {
                        d += 1;
                    }
                    score = -self.child(mv, preview, d, lo, -alpha, ply + 1, false, !cut);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.child(mv, preview, d, -beta, -alpha, ply + 1, true, false);
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
                        self.reward(ply, mv, depth, &failed[..n_failed]);
                        break;
                    }
                }
            }
            if !four && n_failed < failed.len() {
                failed[n_failed] = mv;
                n_failed += 1;
            }
        }
        if searched == 0 {
            let e = if self.excluded[ply] != NONE {
                alpha0 // the excluded move was the only one
            } else {
                evaluate(&self.board, &self.params)
            };
            return self.give_back(ply, moves, e);
        }

        // Step 8. Remember the result (not that of a search without the table's move).
        if self.excluded[ply] == NONE {
            self.remember(key, depth, best, alpha0, beta, best_move, ply);
        }
        self.give_back(ply, moves, best)
    }

    /// The singular-extension test of the table's move at an open node (step 3d): the node
    /// searched without that move at half depth, against a bound just below the table's score.
    fn singular(
        &mut self,
        depth: i32,
        beta: i32,
        ply: usize,
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
            Singular::Extend(1)
        } else if s_beta >= beta {
            Singular::Cut(s_beta)
        } else if score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// Stores a node's result in the table: `best` found with the window (`alpha0`, `beta`)
    /// it was searched with, by `best_move` (`NONE` if none).
    #[allow(clippy::too_many_arguments)]
    fn remember(
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

    /// Reverse futility at a quiet node (no forced reply, no threat to defend): whether a
    /// non-PV node at `ply` with `depth` plies left, whose static evaluation `eval` beats beta
    /// by a margin per remaining ply (a ply less where it is improving), fails high with it.
    fn futile(&self, depth: i32, beta: i32, pv: bool, eval: i32, ply: usize) -> bool {
        if pv || depth > self.params.rfp_depth || beta.abs() >= MATE_BOUND {
            return false;
        }
        let plies = depth - i32::from(self.params.rfp_improving && self.improving(ply, eval));
        eval - self.params.rfp_margin * plies >= beta
    }

    /// The `lmr_log` reduction, in plies, of `mv`, the move after `searched` others at a quiet
    /// node with `depth` plies left: the formula, less on the principal variation, for a move
    /// with a good history or one that makes an open three, more at an expected cut node and
    /// where the evaluation is not improving. The reduced search keeps at least one ply.
    fn log_reduction(
        &self,
        depth: i32,
        searched: usize,
        mv: u16,
        pv: bool,
        cut: bool,
        improving: bool,
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
        if !improving {
            r += p.lmr_improving;
        }
        if p.lmr_history > 0 {
            r -= self.history[me.index()][mv as usize] * 1024 / p.lmr_history;
        }
        if self.board.line_patterns().class(me, mv as usize) >= Class::Three {
            r -= p.lmr_threat;
        }
        ((r + 512) >> 10).min(depth - 2).max(0)
    }

    /// Whether the patterns show nothing that would restrict the moves of this node: no five
    /// point on either side, and no open-four or four-three point of the opponent's.
    fn open_position(&self) -> bool {
        if !self.params.pattern_moves {
            return false;
        }
        open_tally(self.board.line_patterns().tally(), self.board.to_move())
    }

    /// Plays the side to move's stone on the empty cell `mv`. The child probes the table first
    /// thing, so its slot's fetch starts before the board's (longer) update.
    fn play(&mut self, mv: u16) {
        self.tt
            .prefetch(self.board.key_after(mv as usize) ^ self.salt);
        self.board.play(self.pos(mv));
    }

    /// What a child searched after `mv` with at least `depth` plies left would read first,
    /// worked out without playing the move: `Some` only where the child could end before its
    /// move list (as a leaf, by the table or by reverse futility), no five point is on the
    /// board before the move or after it, the evaluation is the pattern one and leaves have
    /// no VCF.
    fn preview(&self, depth: i32, mv: u16) -> Option<Preview> {
        if depth > self.params.preview_depth.min(self.params.rfp_depth)
            || !self.params.pattern_moves
        {
            return None;
        }
        if self.params.qvcf_nodes != 0 || !self.params.pattern_eval {
            return None;
        }
        let lines = self.board.line_patterns();
        let me = self.board.to_move();
        if lines.has_five(me) || lines.has_five(me.opp()) {
            return None;
        }
        let tally = self.board.tally_after(mv as usize)?;
        let mover = tally.class_counts(me.opp());
        Some(Preview {
            eval: evaluate_tally(self.rule, me.opp(), &tally, &self.params),
            open: open_tally(&tally, me.opp()),
            fours: self.params.qfours > 0 && mover[Class::Four as usize..].iter().any(|&n| n > 0),
        })
    }

    /// Searches the child after `mv` to `depth`. With a `preview`, its first steps (poll, count
    /// the node, then a leaf's evaluation, the table's cutoff or reverse futility) run before
    /// the move is played, and most such children end there: the nodes, results and table
    /// are the same as `negamax`'s.
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        mv: u16,
        preview: Option<Preview>,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        cut: bool,
    ) -> i32 {
        let Some(preview) = preview else {
            self.play(mv);
            let score = self.negamax(depth, alpha, beta, ply, pv, cut);
            self.board.undo();
            return score;
        };
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY || (depth <= 0 && !preview.fours) {
            return preview.eval;
        }
        if depth <= 0 {
            // A leaf whose side to move has a four: its quiescence search plays it.
            self.board.play(self.pos(mv));
            let score = self.quiesce(alpha, beta, ply, self.params.qfours);
            self.board.undo();
            return score;
        }
        let key = self.board.key_after(mv as usize) ^ self.salt;
        let tt_entry = self.tt.probe(key);
        if let Some(score) = tt_entry.and_then(|e| tt_cutoff(e, depth, alpha, beta, ply, pv)) {
            return score;
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

    /// Whether the empty cell `mv` neither makes a threat for the side to move (at least a
    /// closed three) nor takes one from the opponent (at least an open three): such moves are
    /// the ones threat pruning limits.
    fn is_quiet(&self, mv: u16) -> bool {
        let me = self.board.to_move();
        let lines = self.board.line_patterns();
        lines.class(me, mv as usize) < Class::ClosedThree
            && lines.class(me.opp(), mv as usize) < Class::Three
    }

    /// A move that caused a cutoff becomes a killer of its ply and gains history; with
    /// `history_malus`, the history is bounded by gravity and the moves searched before it
    /// (`failed`) lose as much.
    fn reward(&mut self, ply: usize, mv: u16, depth: i32, failed: &[u16]) {
        if self.killers[ply][0] != mv {
            self.killers[ply] = [mv, self.killers[ply][0]];
        }
        let max = self.params.history_max;
        let history = &mut self.history[self.board.to_move().index()];
        if !self.params.history_malus {
            let h = &mut history[mv as usize];
            *h = (*h + depth * depth).min(max);
            return;
        }
        let bonus = (32 * depth * depth + 64 * depth).min(max / 2);
        let mut add = |m: u16, b: i32| {
            let h = &mut history[m as usize];
            *h += b - (*h as i64 * b.abs() as i64 / max as i64) as i32;
        };
        add(mv, bonus);
        for &m in failed {
            add(m, -bonus);
        }
    }

    /// When the opponent threatens two five points next move (an open three, a double four
    /// point), or a four-three, keeps only the moves that stop every such threat and the side
    /// to move's own fours. Returns whether it restricted.
    fn restrict_to_defences(&mut self, moves: &mut Vec<(i32, u16)>) -> bool {
        let mut defences = std::mem::take(&mut self.defences);
        let threatened = self
            .solver
            .must_defend(&mut self.board, &self.threats, &mut defences)
            || (self.params.pattern_moves && self.four_three_defences(&mut defences));
        if !threatened {
            self.defences = defences;
            return false;
        }
        let me = self.board.to_move();
        let rule = self.rule;
        let patterns = self.params.pattern_moves;
        let board = &mut self.board;
        let mask = &mut self.defence_mask;
        for &d in &defences {
            mask[d as usize / 64] |= 1 << (d % 64);
        }
        moves.retain(|&(_, mv)| {
            let i = mv as usize;
            mask[i / 64] & (1 << (i % 64)) != 0
                || if patterns {
                    board.line_patterns().class(me, i).is_four()
                } else {
                    board.lines(me, i, 3) > 0 && fours_made(board, rule, me, i) > 0
                }
        });
        for &d in &defences {
            mask[d as usize / 64] = 0;
        }
        self.defences = defences;
        true
    }

    /// The opponent's four-three points (`self.threats43`, confirmed by the exact threat code:
    /// under renju its three must be real and the point no foul) and the cells that spoil
    /// them, into `out`: each point, and the empty cells of every window through it that holds
    /// two or more of the opponent's stones and none of ours. Whether there was such a point.
    fn four_three_defences(&mut self, out: &mut Vec<u16>) -> bool {
        out.clear();
        let opp = self.board.to_move().opp();
        let dims = self.board.dims();
        for &f in &self.threats43 {
            let p = dims.pos(f as usize);
            if classify_threat(self.board.grid_mut(), self.rule, p, opp) != Threat::FourThree {
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

    /// Returns the move buffer of `ply` for reuse, passing `score` through.
    fn give_back(&mut self, ply: usize, moves: Vec<(i32, u16)>, score: i32) -> i32 {
        self.buffers[ply] = moves;
        score
    }
}

/// What the singular-extension test says of a table move.
enum Singular {
    /// The node fails high without it (multi-cut), or the search stopped: return this.
    Cut(i32),
    /// Search it this many plies deeper (negative: shallower).
    Extend(i32),
}

/// What a child reads first, worked out before its move is played (`Searcher::preview`).
#[derive(Clone, Copy, Debug)]
struct Preview {
    /// Its static evaluation.
    eval: i32,
    /// Whether its position is open (`Searcher::open_position`).
    open: bool,
    /// Whether its side to move has a four (the quiescence search then has moves to try).
    fours: bool,
}

/// Whether the empty cells' `tally` shows nothing that would restrict the moves of `mover`,
/// the side to move: no five point on either side, no open-four or four-three point of the
/// other side's.
fn open_tally(tally: &Tally, mover: Color) -> bool {
    let mine = tally.class_counts(mover);
    let theirs = tally.class_counts(mover.opp());
    mine[Class::Five as usize] == 0
        && theirs[Class::Five as usize] == 0
        && theirs[Class::OpenFour as usize] == 0
        && theirs[Class::FourThree as usize] == 0
}

/// Move order: higher score first, then lower cell index (never hash or insertion order).
fn better(a: &(i32, u16), b: &(i32, u16)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(a.1.cmp(&b.1))
}

/// Swaps the best of `moves[k..]` (by `better`) into place `k`.
fn pick(moves: &mut [(i32, u16)], k: usize) {
    let mut best = k;
    for j in k + 1..moves.len() {
        if better(&moves[j], &moves[best]).is_lt() {
            best = j;
        }
    }
    moves.swap(k, best);
}

/// The score a table entry gives a node searched to `depth` within (`alpha`, `beta`), when it
/// settles it: deep enough, its bound on the right side, and not on the principal variation.
fn tt_cutoff(e: Entry, depth: i32, alpha: i32, beta: i32, ply: usize, pv: bool) -> Option<i32> {
    let score = score_from_tt(e.score, ply);
    let usable = match e.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    (!pv && e.depth >= depth && usable).then_some(score)
}

/// Mate scores are stored relative to the node, so they stay right wherever it is reached.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
