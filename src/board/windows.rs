//! The 5-cell windows of a board size, which windows pass through each cell, and each cell's
//! neighbourhood (the cells a stone there makes move candidates).

use crate::geometry::{Dims, Direction, Pos};

/// Chebyshev radius around a stone inside which empty cells are move candidates.
pub const NEAR_RADIUS: isize = 2;

/// Cells in a window: one five.
pub const WINDOW_LEN: usize = 5;

/// Every 5-cell window of a board in the four directions, ordered by direction then by first
/// cell. Invariant: `through(i)` lists exactly the windows containing cell `i`, ascending.
#[derive(Debug)]
pub struct Windows {
    cells: Vec<[u16; WINDOW_LEN]>,
    through: Vec<u16>,
    start: Vec<u32>,
    words: usize,
    neighbourhood: Vec<u64>,
    rays: Vec<[u16; RAY]>,
}

/// Neighbours of a cell along its four lines: direction `d`'s cells at offsets -5..=-1, 1..=5
/// are entries `10 d ..10 d + 10` (the slots of `pattern::slot`), `NO_CELL` off the board.
pub const RAY: usize = 4 * crate::board::pattern::SLOTS;
/// A ray entry beyond the edge.
pub const NO_CELL: u16 = u16::MAX;

impl Windows {
    pub fn new(dims: Dims) -> Windows {
        let mut cells = Vec::new();
        for dir in Direction::ALL {
            for y in 0..dims.height {
                for x in 0..dims.width {
                    let first = Pos::new(x, y);
                    let members: Option<Vec<u16>> = (0..WINDOW_LEN as isize)
                        .map(|k| first.step(dir, k, dims).map(|p| dims.index(p) as u16))
                        .collect();
                    if let Some(m) = members {
                        cells.push([m[0], m[1], m[2], m[3], m[4]]);
                    }
                }
            }
        }
        let mut lists = vec![Vec::new(); dims.cells()];
        for (w, members) in cells.iter().enumerate() {
            for &c in members {
                lists[c as usize].push(w as u16);
            }
        }
        let mut through = Vec::new();
        let mut start = Vec::with_capacity(lists.len() + 1);
        for list in &lists {
            start.push(through.len() as u32);
            through.extend_from_slice(list);
        }
        start.push(through.len() as u32);
        let words = dims.cells().div_ceil(64);
        let mut neighbourhood = vec![0u64; dims.cells() * words];
        for i in 0..dims.cells() {
            let p = dims.pos(i);
            for dy in -NEAR_RADIUS..=NEAR_RADIUS {
                for dx in -NEAR_RADIUS..=NEAR_RADIUS {
                    let (x, y) = (p.x as isize + dx, p.y as isize + dy);
                    if dims.contains(x, y) {
                        let j = y as usize * dims.width + x as usize;
                        neighbourhood[i * words + j / 64] |= 1 << (j % 64);
                    }
                }
            }
        }
        let half = crate::board::pattern::HALF as isize;
        let rays = (0..dims.cells())
            .map(|i| {
                let mut ray = [NO_CELL; RAY];
                let p = dims.pos(i);
                for (d, dir) in Direction::ALL.into_iter().enumerate() {
                    for k in (-half..=half).filter(|&k| k != 0) {
                        if let Some(q) = p.step(dir, k, dims) {
                            ray[d * 2 * half as usize + crate::board::pattern::slot(k)] =
                                dims.index(q) as u16;
                        }
                    }
                }
                ray
            })
            .collect();
        Windows {
            cells,
            through,
            start,
            words,
            neighbourhood,
            rays,
        }
    }

    /// The neighbours of cell `i` along its four lines (see `RAY`).
    pub fn ray(&self, i: usize) -> &[u16; RAY] {
        &self.rays[i]
    }

    /// Bit mask (one `u64` per 64 cells) of the cells within `NEAR_RADIUS` of cell `i`.
    pub fn neighbourhood(&self, i: usize) -> &[u64] {
        &self.neighbourhood[i * self.words..(i + 1) * self.words]
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cell indices of window `w`.
    pub fn cells(&self, w: usize) -> &[u16; WINDOW_LEN] {
        &self.cells[w]
    }

    /// How many cells the board has.
    pub fn cell_count(&self) -> usize {
        self.start.len() - 1
    }

    /// The windows containing cell `cell` (at most 20).
    pub fn through(&self, cell: usize) -> &[u16] {
        &self.through[self.start[cell] as usize..self.start[cell + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_counts_match_geometry() {
        let w = Windows::new(Dims::square(15));
        assert_eq!(w.len(), 2 * 15 * 11 + 2 * 11 * 11);
        let centre = Dims::square(15).index(Pos::new(7, 7));
        assert_eq!(w.through(centre).len(), 20);
        assert_eq!(w.through(0).len(), 3);
        assert_eq!(w.cell_count(), 225);
        let r = Windows::new(Dims::new(5, 9).unwrap());
        assert_eq!(r.len(), 9 + 5 * 5 + 2 * 5);
    }
}
