//! Swap2 openings (Gomocup's `SWAP2BOARD`): placing the first three stones so that the position
//! is balanced by our own search, and choosing a side (or the next move) after three or five
//! stones by which side our search prefers.

use super::limits::Limits;
use super::{Outcome, RootOptions, Search};
use crate::board::Board;
use crate::geometry::Pos;

/// The answer to `SWAP2BOARD`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The opening stones we place: black, white, black.
    Place(Vec<Pos>),
    /// We take black.
    Swap,
    /// We take white and play this move.
    Move(Pos),
}

impl Decision {
    /// The protocol line: `x,y x,y x,y`, `SWAP` or `x,y`.
    pub fn text(&self) -> String {
        match self {
            Decision::Place(ps) => ps.iter().map(Pos::to_string).collect::<Vec<_>>().join(" "),
            Decision::Swap => "SWAP".into(),
            Decision::Move(p) => p.to_string(),
        }
    }
}

/// Nodes each candidate opening is searched with when placing the first three stones.
const PLACE_NODES: u64 = 4_000;
/// Depth of that search.
const PLACE_DEPTH: i32 = 6;

/// A swap2 decision for the stones on the search's board (0, 3 or 5, black first), made with
/// searches like this one.
pub struct Swap2<'a> {
    pub search: Search<'a>,
}

impl Swap2<'_> {
    fn search(&self, board: Board, limits: Limits) -> Outcome {
        Search {
            board,
            limits,
            options: RootOptions::default(),
            ..self.search.clone()
        }
        .run(&mut ())
    }

    pub fn decide(self) -> Decision {
        let board = &self.search.board;
        if board.stone_count() == 0 {
            return self.place();
        }
        // White is to move after three or five stones: take black when our search says white
        // stands worse, else stay white and play its best move.
        let out = self.search(board.clone(), self.search.limits.clone());
        match out.best {
            Some(p) if out.score >= 0 => Decision::Move(p),
            _ => Decision::Swap,
        }
    }

    /// Three stones around the centre (black, white, black) whose position our search scores
    /// nearest to even for white, the side to move. Candidates are tried in a fixed order and
    /// ties keep the first, so the choice is the same on every machine.
    fn place(&self) -> Decision {
        let (board, limits) = (&self.search.board, &self.search.limits);
        let dims = board.dims();
        let c = dims.centre();
        let at = |dx: i64, dy: i64| dims.checked_pos(c.x as i64 + dx, c.y as i64 + dy).ok();
        // White beside or near the first stone (one octant: the rest are mirror images).
        let whites = [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)];
        let mut best: Option<(i32, Vec<Pos>)> = None;
        'candidates: for (wx, wy) in whites {
            for dy in -2..=2i64 {
                for dx in -2..=2i64 {
                    let (Some(b1), Some(w), Some(b2)) = (at(0, 0), at(wx, wy), at(dx, dy)) else {
                        continue;
                    };
                    if b2 == b1 || b2 == w || !board.is_empty_at(b2) {
                        continue;
                    }
                    let mut opening = board.clone();
                    for p in [b1, w, b2] {
                        opening.play(p);
                    }
                    let capped = Limits {
                        max_depth: Some(PLACE_DEPTH),
                        max_nodes: Some(
                            limits.max_nodes.map_or(PLACE_NODES, |n| n.min(PLACE_NODES)),
                        ),
                        ..limits.clone()
                    };
                    let out = self.search(opening, capped);
                    let balance = out.score.saturating_abs();
                    if best.as_ref().is_none_or(|(b, _)| balance < *b) {
                        best = Some((balance, vec![b1, w, b2]));
                    }
                    if self.search.clock.elapsed_ms() >= limits.soft_ms.unwrap_or(u64::MAX) {
                        break 'candidates;
                    }
                }
            }
        }
        match best {
            Some((_, stones)) => Decision::Place(stones),
            // A board too small for any candidate: the first three empty cells.
            None => Decision::Place(
                (0..dims.cells())
                    .map(|i| dims.pos(i))
                    .filter(|&p| board.is_empty_at(p))
                    .take(3)
                    .collect(),
            ),
        }
    }
}
