//! The cells of a board: what stands on each point, and line scans through a point.

use crate::geometry::{Dims, Direction, Pos};

/// A player. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const fn opp(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub const fn index(self) -> usize {
        self as usize
    }
}

/// What stands on a point. `Blocked` is a cell neither side may use (the protocol's field 3);
/// `Wall` is what a scan reads beyond the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Black,
    White,
    Blocked,
    Wall,
}

impl Cell {
    pub const fn stone(c: Color) -> Cell {
        match c {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    pub fn is(self, c: Color) -> bool {
        self == Cell::stone(c)
    }
}

/// The plain cell array of a board. Invariant: `cells.len() == dims.cells()` and no cell is `Wall`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    dims: Dims,
    cells: Vec<Cell>,
}

impl Grid {
    pub fn new(dims: Dims) -> Grid {
        Grid {
            dims,
            cells: vec![Cell::Empty; dims.cells()],
        }
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn get(&self, p: Pos) -> Cell {
        self.cells[self.dims.index(p)]
    }

    /// The cell at index `i` (row-major).
    pub fn cell(&self, i: usize) -> Cell {
        self.cells[i]
    }

    pub fn set(&mut self, p: Pos, c: Cell) {
        let i = self.dims.index(p);
        self.cells[i] = c;
    }

    /// The cell at `(x, y)`, `Wall` when that is off the board.
    pub fn at(&self, x: isize, y: isize) -> Cell {
        if self.dims.contains(x, y) {
            self.cells[y as usize * self.dims.width + x as usize]
        } else {
            Cell::Wall
        }
    }

    /// The cell `k` steps from `p` along `dir` (negative `k` goes backwards).
    pub fn along(&self, p: Pos, dir: Direction, k: isize) -> Cell {
        let (dx, dy) = dir.delta();
        self.at(p.x as isize + dx * k, p.y as isize + dy * k)
    }

    /// Stones of colour `c` adjoining `p` along `dir`, counted backwards and forwards from `p`
    /// (the content of `p` itself is not looked at).
    pub fn run_around(&self, p: Pos, dir: Direction, c: Color) -> (usize, usize) {
        let want = Cell::stone(c);
        let count = |sign: isize| {
            let mut k = 1;
            while self.along(p, dir, sign * k as isize) == want {
                k += 1;
            }
            k - 1
        };
        (count(-1), count(1))
    }

    /// Length of the line of `c` stones through `p` along `dir`, counting `p` as a `c` stone.
    pub fn line_len(&self, p: Pos, dir: Direction, c: Color) -> usize {
        let (back, fwd) = self.run_around(p, dir, c);
        back + fwd + 1
    }

    pub fn is_full(&self) -> bool {
        !self.cells.contains(&Cell::Empty)
    }
}
