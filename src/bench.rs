//! `pbrain-wuzi bench`: fixed positions searched to a fixed depth on one thread. The total node
//! count is the signature a commit quotes as `Bench: N`; nodes/s measures speed.

use crate::clock::Instant;
use std::sync::atomic::AtomicBool;

use crate::board::Board;
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;
use crate::search::limits::{Limits, WallClock};
use crate::search::params::Params;
use crate::search::tt::TranspositionTable;
use crate::search::{format_score, RootOptions, Search};

/// Depth every bench position is searched to.
pub const BENCH_DEPTH: i32 = 7;
/// Table size for bench runs, so the signature does not depend on `max_memory`.
const BENCH_TT_BYTES: usize = 16 << 20;

/// A bench position: rule, board side, and the moves from the start, black first.
pub struct BenchPosition {
    pub rule: Rule,
    pub side: usize,
    pub moves: &'static [(u8, u8)],
}

pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        rule: Rule::Freestyle,
        side: 15,
        moves: &[(7, 7), (8, 7), (8, 10)],
    },
    BenchPosition {
        rule: Rule::Freestyle,
        side: 15,
        moves: &[
            (7, 7),
            (8, 8),
            (8, 6),
            (6, 8),
            (7, 8),
            (7, 6),
            (9, 7),
            (6, 7),
            (6, 9),
            (10, 8),
            (9, 5),
            (5, 7),
        ],
    },
    BenchPosition {
        rule: Rule::Freestyle,
        side: 20,
        moves: &[(3, 2), (4, 1), (7, 1)],
    },
    BenchPosition {
        rule: Rule::Freestyle,
        side: 20,
        moves: &[(8, 1), (6, 1), (4, 1), (8, 9), (7, 9), (5, 4), (6, 5)],
    },
    BenchPosition {
        rule: Rule::Standard,
        side: 15,
        moves: &[(7, 7), (8, 8), (9, 7), (8, 7), (8, 6), (7, 9)],
    },
    BenchPosition {
        rule: Rule::Renju,
        side: 15,
        moves: &[(7, 7), (7, 6), (8, 6), (6, 8), (8, 8), (9, 7)],
    },
    BenchPosition {
        rule: Rule::Renju,
        side: 15,
        moves: &[
            (7, 7),
            (8, 6),
            (8, 8),
            (6, 6),
            (9, 9),
            (10, 10),
            (7, 9),
            (6, 10),
            (8, 10),
            (9, 8),
        ],
    },
];

impl BenchPosition {
    pub fn board(&self) -> Board {
        let mut b = Board::new(Dims::square(self.side));
        for &(x, y) in self.moves {
            b.play(Pos::new(x as usize, y as usize));
        }
        b
    }
}

/// One bench position's result.
pub struct BenchLine {
    pub best: Option<Pos>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub ms: u64,
    /// `Outcome::cutoffs`.
    pub cutoffs: [u64; 2],
}

/// Searches one position with fresh tables under `limits` and `params`, on `threads` threads.
pub fn run_position(
    pos: &BenchPosition,
    limits: Limits,
    params: &Params,
    threads: usize,
) -> BenchLine {
    search_board(pos.board(), pos.rule, limits, params, threads)
}

/// The score of `board` (for its side to move) by a search of `nodes` nodes on one thread with
/// a fresh table of `tt_bytes`: the same on every machine (`wuzi-tune label`).
pub fn search_score(board: Board, rule: Rule, nodes: u64, tt_bytes: usize, params: &Params) -> i32 {
    let limits = Limits {
        max_nodes: Some(nodes),
        ..Limits::default()
    };
    search_with(board, rule, limits, params, 1, tt_bytes).score
}

/// Searches `board` under `rule` with fresh tables.
fn search_board(
    board: Board,
    rule: Rule,
    limits: Limits,
    params: &Params,
    threads: usize,
) -> BenchLine {
    search_with(board, rule, limits, params, threads, BENCH_TT_BYTES)
}

/// Searches `board` under `rule` with a fresh table of `tt_bytes`.
fn search_with(
    board: Board,
    rule: Rule,
    limits: Limits,
    params: &Params,
    threads: usize,
    tt_bytes: usize,
) -> BenchLine {
    let tt = TranspositionTable::new(tt_bytes);
    let stop = AtomicBool::new(false);
    let clock = WallClock {
        start: Instant::now(),
    };
    let out = Search {
        board,
        rule,
        limits,
        params: params.clone(),
        tt: &tt,
        clock: &clock,
        stop: &stop,
        options: RootOptions {
            threads,
            ..RootOptions::default()
        },
    }
    .run(&mut ());
    BenchLine {
        best: out.best,
        score: out.score,
        depth: out.depth,
        nodes: out.nodes,
        ms: clock.start.elapsed().as_millis() as u64,
        cutoffs: out.cutoffs,
    }
}

/// Runs the bench and returns its report: fixed depth, or with `time_ms` the depth each
/// position reaches in that time; with `params` (the signature is the defaults'), on
/// `threads` threads (the signature needs one).
pub fn run(depth: i32, time_ms: Option<u64>, params: &Params, threads: usize) -> String {
    let mut out = String::new();
    let mut nodes = 0;
    let mut ms = 0;
    let mut cutoffs = [0; 2];
    // FNV-1a over every position's move, score and nodes: any change in results changes it.
    let mut signature: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, pos) in POSITIONS.iter().enumerate() {
        let limits = match time_ms {
            Some(t) => Limits {
                soft_ms: Some(t),
                hard_ms: Some(t),
                adaptive: false,
                ..Limits::default()
            },
            None => Limits {
                max_depth: Some(depth),
                ..Limits::default()
            },
        };
        let r = run_position(pos, limits, params, threads);
        nodes += r.nodes;
        ms += r.ms;
        cutoffs = [cutoffs[0] + r.cutoffs[0], cutoffs[1] + r.cutoffs[1]];
        let best = r
            .best
            .map_or(u16::MAX as u64, |p| (p.x as u64) << 8 | p.y as u64);
        for v in [best, r.score as u32 as u64, r.nodes] {
            signature = (signature ^ v).wrapping_mul(0x0100_0000_01b3);
        }
        out += &format!(
            "position {}/{} {} {}x{}: depth {} best {} score {} nodes {} time {} ms\n",
            k + 1,
            POSITIONS.len(),
            pos.rule.name(),
            pos.side,
            pos.side,
            r.depth,
            r.best.map_or("none".into(), |p| p.to_string()),
            format_score(r.score),
            r.nodes,
            r.ms
        );
    }
    out += &format!("Nodes searched: {nodes}\n");
    out += &format!("Nodes/second: {}\n", nodes * 1000 / ms.max(1));
    out += &first_move_cutoffs(cutoffs);
    out += &format!("Total time (ms): {ms}\n");
    out += &format!("Signature: {signature:016x}\n");
    out
}

/// The depth a search reaches in `ms` (and within `max_nodes`, if given) from each opening (stones
/// black first) on a `dims` board under `rule`, with nodes/s: one line each, then the means.
pub fn openings_depth(
    openings: &[Vec<Pos>],
    dims: Dims,
    rule: Rule,
    ms: u64,
    max_nodes: Option<u64>,
    params: &Params,
) -> String {
    let mut out = String::new();
    let (mut depths, mut nodes, mut total_ms) = (0i64, 0u64, 0u64);
    let mut cutoffs = [0; 2];
    for (k, opening) in openings.iter().enumerate() {
        let mut board = Board::new(dims);
        for &p in opening {
            board.play(p);
        }
        let limits = Limits {
            soft_ms: Some(ms),
            hard_ms: Some(ms),
            max_nodes,
            adaptive: false,
            ..Limits::default()
        };
        let r = search_board(board, rule, limits, params, 1);
        depths += r.depth as i64;
        nodes += r.nodes;
        total_ms += r.ms;
        cutoffs = [cutoffs[0] + r.cutoffs[0], cutoffs[1] + r.cutoffs[1]];
        out += &format!(
            "opening {}/{}: {} stones, depth {} best {} score {} nodes {} nps {}\n",
            k + 1,
            openings.len(),
            opening.len(),
            r.depth,
            r.best.map_or("none".into(), |p| p.to_string()),
            format_score(r.score),
            r.nodes,
            r.nodes * 1000 / r.ms.max(1)
        );
    }
    let n = openings.len().max(1) as f64;
    out += &format!(
        "Mean depth: {:.1}\nNodes/second: {}\n",
        depths as f64 / n,
        nodes * 1000 / total_ms.max(1)
    );
    out += &first_move_cutoffs(cutoffs);
    out
}

/// "First-move cutoffs: P% of N": how often the first move searched at a node was the one
/// that cut off.
fn first_move_cutoffs(cutoffs: [u64; 2]) -> String {
    format!(
        "First-move cutoffs: {:.1}% of {}\n",
        100.0 * cutoffs[1] as f64 / cutoffs[0].max(1) as f64,
        cutoffs[0]
    )
}
