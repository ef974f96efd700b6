//! Iterative deepening over a negamax alpha-beta (PVS) search with a transposition table:
//! immediate fives are taken, the opponent's five is blocked (and a double five is a loss),
//! renju fouls are never played by black. Reports each finished iteration to an observer.

pub mod limits;
pub mod params;
pub mod tt;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::board::{renju, Board, Color};
use crate::eval::{evaluate, move_score};
use crate::geometry::Pos;
use crate::rules::Rule;
use limits::{Clock, Limits};
use params::Params;
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
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub pv: Vec<Pos>,
}

/// Receives progress from a running search (the engine itself prints nothing).
pub trait Observer {
    fn iteration(&mut self, report: &Report);
}

impl Observer for () {
    fn iteration(&mut self, _: &Report) {}
}

/// What a search found. `best` is `None` only when no legal move exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub best: Option<Pos>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub pv: Vec<Pos>,
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
    Win(u16),
    /// The opponent has two or more winning points (or one it may not block): lost.
    Lost(Option<u16>),
    /// The opponent wins on this cell unless it is taken now.
    Forced(u16),
    /// No threat: the candidates are in the move buffer.
    Quiet,
}

/// Everything one search needs, lent by its owner.
pub struct Search<'a> {
    pub board: Board,
    pub rule: Rule,
    pub limits: Limits,
    pub params: Params,
    pub tt: &'a mut TranspositionTable,
    pub clock: &'a dyn Clock,
    pub stop: &'a AtomicBool,
}

struct Searcher<'a> {
    board: Board,
    rule: Rule,
    limits: Limits,
    params: Params,
    tt: &'a mut TranspositionTable,
    clock: &'a dyn Clock,
    stop: &'a AtomicBool,
    salt: u64,
    nodes: u64,
    aborted: bool,
    killers: Vec<[u16; 2]>,
    buffers: Vec<Vec<(i32, u16)>>,
}

const NONE: u16 = u16::MAX;

impl Search<'_> {
    /// Runs iterative deepening until a limit is hit, and returns the best move found.
    pub fn run(self, observer: &mut dyn Observer) -> Outcome {
        let dims = self.board.dims();
        let salt = (self.rule.info_value() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((dims.width as u64) << 40 | (dims.height as u64) << 48);
        let mut s = Searcher {
            board: self.board,
            rule: self.rule,
            limits: self.limits,
            params: self.params,
            tt: self.tt,
            clock: self.clock,
            stop: self.stop,
            salt,
            nodes: 0,
            aborted: false,
            killers: vec![[NONE; 2]; MAX_PLY + 2],
            buffers: vec![Vec::new(); MAX_PLY + 2],
        };
        s.iterate(observer)
    }
}

impl Searcher<'_> {
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
            && renju::foul(self.board.grid_mut(), p).is_some()
    }

    /// Looks at every candidate cell once: own fives, the opponent's fives, and move scores.
    fn classify(&mut self, moves: &mut Vec<(i32, u16)>) -> NodeKind {
        moves.clear();
        let me = self.board.to_move();
        let opp = me.opp();
        let dims = self.board.dims();
        let mut opp_five = None;
        let mut opp_fives = 0;
        for i in 0..dims.cells() {
            if self.board.near(i) == 0 {
                continue;
            }
            let p = dims.pos(i);
            if !self.board.is_empty_at(p) {
                continue;
            }
            let five = crate::board::wincount::FIVE_GAIN;
            if self.board.gain(me, i) >= five && self.rule.wins_at(self.board.grid(), p, me) {
                return NodeKind::Win(i as u16);
            }
            if self.board.gain(opp, i) >= five && self.rule.wins_at(self.board.grid(), p, opp) {
                opp_fives += 1;
                opp_five = Some(i as u16);
            }
            moves.push((move_score(&self.board, i, &self.params), i as u16));
        }
        match opp_five {
            Some(i) if opp_fives == 1 => {
                if self.is_foul(self.pos(i)) {
                    NodeKind::Lost(None)
                } else {
                    NodeKind::Forced(i)
                }
            }
            Some(i) => NodeKind::Lost(Some(i)),
            None => NodeKind::Quiet,
        }
    }

    fn poll(&mut self) -> bool {
        let out_of_nodes = self.limits.max_nodes.is_some_and(|n| self.nodes >= n);
        let timed_poll = self.nodes % self.params.poll_interval == 0;
        if out_of_nodes
            || (timed_poll
                && (self.stop.load(Ordering::Relaxed)
                    || self
                        .limits
                        .hard_ms
                        .is_some_and(|h| self.clock.elapsed_ms() >= h)))
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn order(&self, moves: &mut [(i32, u16)], tt_move: Option<u16>, ply: usize) {
        for m in moves.iter_mut() {
            if Some(m.1) == tt_move {
                m.0 = i32::MAX;
            } else if self.killers[ply].contains(&m.1) {
                m.0 = m.0.saturating_add(1 << 24);
            }
        }
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }

    fn negamax(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize, pv: bool) -> i32 {
        // Step 1. Count the node and poll the limits.
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        if ply >= MAX_PLY {
            return evaluate(&self.board, &self.params);
        }

        // Step 2. Immediate results: own five, opponent's double five, forced block.
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let kind = self.classify(&mut moves);
        let forced = match kind {
            NodeKind::Win(_) => return self.give_back(ply, moves, WIN - (ply as i32 + 1)),
            NodeKind::Lost(_) => return self.give_back(ply, moves, -(WIN - (ply as i32 + 2))),
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

        // Step 3. At the horizon, evaluate (forced replies are extended instead).
        if depth <= 0 && !forced {
            let e = evaluate(&self.board, &self.params);
            return self.give_back(ply, moves, e);
        }

        // Step 4. Transposition table.
        let key = self.key();
        let tt_entry = self.tt.probe(key);
        if let Some(e) = tt_entry {
            let score = score_from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if !pv && e.depth >= depth && usable {
                return self.give_back(ply, moves, score);
            }
        }

        // Step 5. Order the moves; interior nodes search only the best of them.
        self.order(&mut moves, tt_entry.and_then(|e| e.mv), ply);
        let width = if forced {
            1
        } else {
            self.params.beam_width(depth)
        };
        let new_depth = if forced { depth } else { depth - 1 };

        // Step 6. Principal variation search over the moves.
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = NONE;
        let mut searched = 0;
        for &(_, mv) in moves.iter() {
            if searched >= width {
                break;
            }
            let p = self.pos(mv);
            if !forced && self.is_foul(p) {
                continue;
            }
            self.board.play(p);
            let mut score;
            if searched == 0 {
                score = -self.negamax(new_depth, -beta, -alpha, ply + 1, pv);
            } else {
                score = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1, false);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(new_depth, -beta, -alpha, ply + 1, true);
                }
            }
            self.board.undo();
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
                        if self.killers[ply][0] != mv {
                            self.killers[ply] = [mv, self.killers[ply][0]];
                        }
                        break;
                    }
                }
            }
        }
        if searched == 0 {
            let e = evaluate(&self.board, &self.params);
            return self.give_back(ply, moves, e);
        }

        // Step 7. Remember the result.
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
        self.give_back(ply, moves, best)
    }

    /// Returns the move buffer of `ply` for reuse, passing `score` through.
    fn give_back(&mut self, ply: usize, moves: Vec<(i32, u16)>, score: i32) -> i32 {
        self.buffers[ply] = moves;
        score
    }

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
    fn iterate(&mut self, observer: &mut dyn Observer) -> Outcome {
        let dims = self.board.dims();
        if self.board.stone_count() == 0 {
            // No stones of either side yet (blocked cells aside): take the centre or near it.
            if let Some(p) = self.opening_move() {
                return self.single(p, 0);
            }
        }
        let mut moves = Vec::new();
        let kind = self.classify(&mut moves);
        match kind {
            NodeKind::Win(i) => return self.single(self.pos(i), WIN - 1),
            NodeKind::Forced(i) => return self.single(self.pos(i), 0),
            NodeKind::Lost(Some(i)) => return self.single(self.pos(i), -(WIN - 2)),
            NodeKind::Lost(None) | NodeKind::Quiet => {}
        }
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
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
        if root.len() == 1 {
            return self.single(self.pos(root[0]), 0);
        }

        let max_depth = self.limits.max_depth.unwrap_or(DEFAULT_MAX_DEPTH).max(1);
        let mut best = Outcome {
            best: Some(self.pos(root[0])),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: vec![self.pos(root[0])],
        };
        for depth in 1..=max_depth {
            let mut alpha = -INF;
            let mut best_here = None;
            for (k, &mv) in root.iter().enumerate() {
                let p = self.pos(mv);
                self.board.play(p);
                let mut score;
                if k == 0 {
                    score = -self.negamax(depth - 1, -INF, -alpha, 1, true);
                } else {
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1, false);
                    if score > alpha && !self.aborted {
                        score = -self.negamax(depth - 1, -INF, -alpha, 1, true);
                    }
                }
                self.board.undo();
                if self.aborted {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    best_here = Some(k);
                }
            }
            if let Some(k) = best_here {
                // Best move first for the next iteration; the rest keep their order.
                let mv = root.remove(k);
                root.insert(0, mv);
            }
            if self.aborted {
                // A move that beat the previous best in the unfinished iteration stands.
                if let (Some(_), true) = (best_here, depth > 1) {
                    best.best = Some(self.pos(root[0]));
                    best.pv = vec![self.pos(root[0])];
                }
                break;
            }
            let pv = self.principal_variation(root[0], depth as usize);
            best = Outcome {
                best: Some(self.pos(root[0])),
                score: alpha,
                depth,
                nodes: self.nodes,
                pv,
            };
            observer.iteration(&Report {
                depth,
                score: alpha,
                nodes: self.nodes,
                elapsed_ms: self.clock.elapsed_ms(),
                pv: best.pv.clone(),
            });
            let proven = alpha.abs() >= MATE_BOUND && WIN - alpha.abs() <= depth;
            let soft_out = self
                .limits
                .soft_ms
                .is_some_and(|s| self.clock.elapsed_ms() >= s);
            if proven || soft_out {
                break;
            }
        }
        best.nodes = self.nodes;
        best
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
