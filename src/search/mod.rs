//! Iterative deepening over a negamax alpha-beta (PVS) search with a transposition table:
//! immediate fives are taken, the opponent's five is blocked (and a double five is a loss),
//! renju fouls are never played by black. Reports each finished iteration, each multi-PV line
//! and live root progress to an observer. With several threads, helpers search the same root
//! through the shared table (lazy SMP) and the main thread's result is played.

mod correct;
mod leaves;
pub mod limits;
mod node;
pub mod params;
mod picker;
pub mod prune;
use picker::better;
mod quiesce;
mod root;
pub mod strength;
pub mod swap2;
pub mod threats;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::board::Board;
use crate::eval::{move_score, EVAL_BOUND};
use crate::geometry::Pos;
use crate::rules::Rule;
use limits::{Clock, Deadline, Limits};
use params::Params;
use threats::Solver;
use tt::TranspositionTable;

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
    /// Beta cutoffs of the main thread's alpha-beta nodes, and how many of them came from the
    /// first move searched (a measure of move order).
    pub cutoffs: [u64; 2],
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
    /// With several lines, search them even where the answer is decided (a five to take, a
    /// four to block, a lost position), so that each line gets its score (`yxnbest`);
    /// otherwise such a root answers at once with its one move.
    pub decided_lines: bool,
    /// Search threads; 1 gives the same moves and node counts on every machine.
    pub threads: usize,
}

impl Default for RootOptions {
    fn default() -> RootOptions {
        RootOptions {
            excluded: Vec::new(),
            lines: 1,
            defend: false,
            decided_lines: false,
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
    /// Beta cutoffs, and those on the first move searched (`Outcome::cutoffs`).
    cutoffs: [u64; 2],
    seldepth: usize,
    aborted: bool,
    root_changed: bool,
    killers: Vec<[u16; 2]>,
    history: [Vec<i32>; 2],
    /// The reply that last cut off after the opponent's move on each cell, per side to move
    /// (`NONE`: none yet).
    counters: [Vec<u16>; 2],
    /// The continuation history (`cont_divisor`): per side to move, the opponent's last move's
    /// cell and the move's cell; empty when off.
    cont: Vec<i16>,
    /// The static evaluation of the node at each ply of the current line (`NO_EVAL` where a
    /// threat had to be answered), for "improving".
    evals: Vec<i32>,
    /// The correction history (`correct.rs`), in 16ths of an evaluation unit.
    corr: Vec<i16>,
    /// The leaves' previews worked out so far (`leaves.rs`).
    leaves: leaves::Leaves,
    /// Whether the move into each ply made a four (kept only with `rfp_attack`).
    four_move: Vec<bool>,
    /// The double singular extensions along the line to each ply (`se_double`).
    doubles: Vec<u32>,
    /// The fractional extensions (`ext_forced`, `ext_defend`) along the line to each ply not
    /// yet made into a whole ply, in 16ths.
    credit: Vec<i32>,
    /// The move a singular-extension test leaves out at each ply (`NONE`: none).
    excluded: Vec<u16>,
    fours: Vec<u16>,
    threats: Vec<u16>,
    threats43: Vec<u16>,
    defences: Vec<u16>,
    /// The cells of `defences` as a bit set while moves are filtered by it; zero otherwise.
    defence_mask: Vec<u64>,
    buffers: Vec<Vec<(i32, u16)>>,
    /// The moves a partial defence left out at each ply (`defend_widen`).
    left_out: Vec<Vec<(i32, u16)>>,
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
        self.tt.new_search();
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
        mut params,
        tt,
        clock,
        stop,
        options,
    } = search;
    board.set_rule(rule);
    params.eval.decide_network(rule);
    // The spatial network (an experiment, `WUZI_SPATIAL`) in place of the count network.
    let conv = params.eval.nnue.then(crate::nnue::conv).flatten();
    board.set_network(if params.eval.nnue && conv.is_none() {
        crate::nnue::network()
    } else {
        None
    });
    board.set_conv(conv);
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
    solver.use_proven = params.vct_proven;
    let corr = if params.corr_weight == 0 {
        Vec::new()
    } else {
        vec![0; correct::CORR_SIZE]
    };
    let cont = if params.cont_divisor > 0 || params.cont_lmr {
        vec![0; 2 * dims.cells() * dims.cells()]
    } else {
        Vec::new()
    };
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
        cutoffs: [0; 2],
        seldepth: 0,
        aborted: false,
        root_changed: false,
        killers: vec![[NONE; 2]; MAX_PLY + 2],
        evals: vec![NO_EVAL; MAX_PLY + 2],
        corr,
        leaves: leaves::Leaves::new(),
        excluded: vec![NONE; MAX_PLY + 2],
        four_move: vec![false; MAX_PLY + 2],
        doubles: vec![0; MAX_PLY + 2],
        credit: vec![0; MAX_PLY + 2],
        history: [vec![0; dims.cells()], vec![0; dims.cells()]],
        counters: [vec![NONE; dims.cells()], vec![NONE; dims.cells()]],
        cont,
        fours: Vec::new(),
        threats: Vec::new(),
        threats43: Vec::new(),
        defences: Vec::new(),
        defence_mask: vec![0; dims.cells().div_ceil(64)],
        buffers: vec![Vec::new(); MAX_PLY + 2],
        left_out: vec![Vec::new(); MAX_PLY + 2],
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
        self.rule.has_fouls(self.board.to_move()) && self.board.is_foul(self.board.dims().index(p))
    }

    fn poll(&mut self) -> bool {
        // A power-of-two interval (the default) is a mask, not a division on every node.
        let every = self.params.poll_interval;
        let timed_poll = if every.is_power_of_two() {
            self.nodes & (every - 1) == 0
        } else {
            self.nodes % every == 0
        };
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
}
