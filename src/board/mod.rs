//! The game board: cells, side to move, move stack, Zobrist key and the win-count table, all
//! updated together by `play` and `undo`.

pub mod diagram;
pub mod grid;
pub mod renju;
pub mod wincount;
pub mod windows;

use std::sync::Arc;

pub use grid::{Cell, Color, Grid};
use wincount::WinCount;
use windows::Windows;

use crate::geometry::{Dims, Pos, MAX_CELLS};

/// Chebyshev radius around a stone inside which empty cells are move candidates.
pub const NEAR_RADIUS: isize = 2;

const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn zobrist_table() -> [[u64; MAX_CELLS]; 3] {
    let mut t = [[0u64; MAX_CELLS]; 3];
    let mut kind = 0;
    while kind < 3 {
        let mut i = 0;
        while i < MAX_CELLS {
            t[kind][i] = splitmix((kind * MAX_CELLS + i) as u64 * 0x1000_0001 + 17);
            i += 1;
        }
        kind += 1;
    }
    t
}

/// Zobrist keys for a black stone, a white stone and a blocked cell on every cell index.
static ZOBRIST: [[u64; MAX_CELLS]; 3] = zobrist_table();
/// The key of a black (0), white (1) or blocked (2) cell at index `i`.
fn zobrist(kind: usize, i: usize) -> u64 {
    ZOBRIST[kind][i]
}

/// Xored into the key while white is to move.
const WHITE_TO_MOVE: u64 = 0x5851_F42D_4C95_7F2D;

/// A board position with everything derived from it kept up to date.
/// Invariants: `wincount`, `key` and `near` equal what `verify` re-derives from the cells;
/// `history` holds every stone on the board in the order played.
#[derive(Clone, Debug)]
pub struct Board {
    dims: Dims,
    grid: Grid,
    windows: Arc<Windows>,
    wincount: WinCount,
    near: Vec<u8>,
    history: Vec<(Pos, Color)>,
    key: u64,
    to_move: Color,
}

impl Board {
    pub fn new(dims: Dims) -> Board {
        let windows = Arc::new(Windows::new(dims));
        Board::with_windows(dims, windows)
    }

    /// An empty board reusing window geometry computed before (new games are cheap).
    pub fn with_windows(dims: Dims, windows: Arc<Windows>) -> Board {
        let wincount = WinCount::new(&windows, dims.cells());
        Board {
            dims,
            grid: Grid::new(dims),
            windows,
            wincount,
            near: vec![0; dims.cells()],
            history: Vec::new(),
            key: 0,
            to_move: Color::Black,
        }
    }

    /// A new empty board of the same size, sharing the window geometry.
    pub fn cleared(&self) -> Board {
        Board::with_windows(self.dims, Arc::clone(&self.windows))
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The cells for scratch work (probing moves); the caller must restore what it changes.
    pub fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    pub fn windows(&self) -> &Windows {
        &self.windows
    }

    pub fn wincount(&self) -> &WinCount {
        &self.wincount
    }

    pub fn cell(&self, p: Pos) -> Cell {
        self.grid.get(p)
    }

    pub fn is_empty_at(&self, p: Pos) -> bool {
        self.grid.get(p) == Cell::Empty
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    pub fn set_to_move(&mut self, c: Color) {
        if c != self.to_move {
            self.key ^= WHITE_TO_MOVE;
            self.to_move = c;
        }
    }

    pub fn key(&self) -> u64 {
        self.key
    }

    pub fn history(&self) -> &[(Pos, Color)] {
        &self.history
    }

    pub fn last_move(&self) -> Option<Pos> {
        self.history.last().map(|&(p, _)| p)
    }

    pub fn stone_count(&self) -> usize {
        self.history.len()
    }

    /// Stones (of either colour) within `NEAR_RADIUS` of cell index `i`.
    pub fn near(&self, i: usize) -> u8 {
        self.near[i]
    }

    pub fn gain(&self, c: Color, i: usize) -> i32 {
        self.wincount.gain(c, i)
    }

    fn adjust_near(&mut self, p: Pos, delta: i8) {
        let (w, h) = (self.dims.width as isize, self.dims.height as isize);
        let (px, py) = (p.x as isize, p.y as isize);
        for y in (py - NEAR_RADIUS).max(0)..=(py + NEAR_RADIUS).min(h - 1) {
            for x in (px - NEAR_RADIUS).max(0)..=(px + NEAR_RADIUS).min(w - 1) {
                let i = (y * w + x) as usize;
                self.near[i] = self.near[i].wrapping_add_signed(delta);
            }
        }
    }

    /// Plays a stone of the side to move on the empty cell `p`; the other side is then to move.
    pub fn play(&mut self, p: Pos) {
        let c = self.to_move;
        self.play_as(p, c);
    }

    /// Puts a stone of `c` on the empty cell `p` and gives the move to `c.opp()`.
    pub fn play_as(&mut self, p: Pos, c: Color) {
        debug_assert_eq!(self.grid.get(p), Cell::Empty, "play on occupied {p}");
        let i = self.dims.index(p);
        self.grid.set(p, Cell::stone(c));
        self.wincount
            .update(&self.windows, i, c == Color::Black, c == Color::White, 1);
        self.adjust_near(p, 1);
        self.key ^= zobrist(c.index(), i);
        self.history.push((p, c));
        self.set_to_move(c.opp());
        #[cfg(debug_assertions)]
        self.debug_verify();
    }

    /// Takes back the last stone played; the side that played it is to move again.
    pub fn undo(&mut self) -> Option<(Pos, Color)> {
        let (p, c) = self.history.pop()?;
        let i = self.dims.index(p);
        self.grid.set(p, Cell::Empty);
        self.wincount
            .update(&self.windows, i, c == Color::Black, c == Color::White, -1);
        self.adjust_near(p, -1);
        self.key ^= zobrist(c.index(), i);
        self.set_to_move(c);
        #[cfg(debug_assertions)]
        self.debug_verify();
        Some((p, c))
    }

    /// Marks the empty cell `p` as usable by neither side (protocol field 3).
    pub fn block(&mut self, p: Pos) {
        let i = self.dims.index(p);
        self.grid.set(p, Cell::Blocked);
        self.wincount.update(&self.windows, i, true, true, 1);
        self.key ^= zobrist(2, i);
    }

    /// Plays `p`, runs `f` on the new position, and always takes the move back.
    pub fn with_move<R>(&mut self, p: Pos, f: impl FnOnce(&mut Board) -> R) -> R {
        self.play(p);
        let r = f(self);
        self.undo();
        r
    }

    /// Re-derives the win-count table, key and neighbourhood counts from the cells and compares.
    pub fn verify(&self) -> Result<(), String> {
        let occupant = |i: usize| match self.grid.get(self.dims.pos(i)) {
            Cell::Black => (true, false),
            Cell::White => (false, true),
            Cell::Blocked => (true, true),
            _ => (false, false),
        };
        let table = WinCount::derive(&self.windows, self.dims.cells(), occupant);
        if table != self.wincount {
            return Err("win-count table differs from the cells".into());
        }
        let mut key = if self.to_move == Color::White {
            WHITE_TO_MOVE
        } else {
            0
        };
        let mut near = vec![0u8; self.dims.cells()];
        for i in 0..self.dims.cells() {
            let p = self.dims.pos(i);
            let kind = match self.grid.get(p) {
                Cell::Black => 0,
                Cell::White => 1,
                Cell::Blocked => 2,
                _ => continue,
            };
            key ^= zobrist(kind, i);
            if kind < 2 {
                let (px, py) = (p.x as isize, p.y as isize);
                for y in py - NEAR_RADIUS..=py + NEAR_RADIUS {
                    for x in px - NEAR_RADIUS..=px + NEAR_RADIUS {
                        if self.dims.contains(x, y) {
                            near[y as usize * self.dims.width + x as usize] += 1;
                        }
                    }
                }
            }
        }
        if key != self.key {
            return Err("Zobrist key differs from the cells".into());
        }
        if near != self.near {
            return Err("neighbourhood counts differ from the cells".into());
        }
        let stones = self.history.len();
        let on_board = (0..self.dims.cells())
            .filter(|&i| matches!(occupant(i), (true, false) | (false, true)))
            .count();
        if stones != on_board {
            return Err(format!("history has {stones} stones, board {on_board}"));
        }
        Ok(())
    }

    #[cfg(debug_assertions)]
    fn debug_verify(&self) {
        // A full re-derivation walks every window: doing it on every 16th ply keeps debug
        // searches usable while still catching a broken update within a few moves.
        if self.history.len() % 16 == 0 {
            if let Err(e) = self.verify() {
                panic!("board invariant broken: {e}");
            }
        }
    }
}
