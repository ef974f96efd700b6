//! The win-count table: for every 5-cell window, how many stones of each colour it holds, and
//! what that is worth to each colour, summed per window (evaluation) and per cell (move scores).

use super::grid::Color;
use super::windows::Windows;

/// Worth of a window holding `k` stones of one colour and none of the other (the evaluation).
pub const WINDOW_VALUE: [i32; 6] = [0, 2, 14, 80, 500, 0];
/// Worth to a colour of adding its stone to a window holding `k` of its stones and none of the
/// other's. A completed five dwarfs every sum of the others (at most 20 windows pass a cell).
pub const CELL_GAIN: [i32; 6] = [1, 5, 30, 180, FIVE_GAIN, 0];
/// The gain of a five-making window; a cell's gain is at least this iff it completes a window.
pub const FIVE_GAIN: i32 = 1 << 20;

/// Per-window stone counts and the sums read from them. Invariant: equal to
/// `WinCount::derive` of the cells it has been told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinCount {
    counts: Vec<[u8; 2]>,
    gain: [Vec<i32>; 2],
    total: [i32; 2],
}

/// The (window value, cell gain) a window gives colour `me` while holding `mine` and `theirs`.
const fn worth(mine: u8, theirs: u8) -> (i32, i32) {
    if theirs == 0 {
        (WINDOW_VALUE[mine as usize], CELL_GAIN[mine as usize])
    } else {
        (0, 0)
    }
}

impl WinCount {
    /// The table of an empty board: every window live, empty.
    pub fn new(windows: &Windows, cells: usize) -> WinCount {
        let mut gain = vec![0; cells];
        for w in 0..windows.len() {
            for &c in windows.cells(w) {
                gain[c as usize] += CELL_GAIN[0];
            }
        }
        WinCount {
            counts: vec![[0, 0]; windows.len()],
            gain: [gain.clone(), gain],
            total: [0, 0],
        }
    }

    /// Adds (`delta` = 1) or removes (`delta` = -1) stones on `cell`: `black` and `white` say which
    /// colours' counts change (a blocked cell counts for both, so it kills its windows).
    pub fn update(&mut self, windows: &Windows, cell: usize, black: bool, white: bool, delta: i8) {
        for &w in windows.through(cell) {
            let w = w as usize;
            let [b0, w0] = self.counts[w];
            let b1 = if black {
                b0.wrapping_add_signed(delta)
            } else {
                b0
            };
            let w1 = if white {
                w0.wrapping_add_signed(delta)
            } else {
                w0
            };
            self.counts[w] = [b1, w1];
            for (colour, (m0, t0, m1, t1)) in [(0, (b0, w0, b1, w1)), (1, (w0, b0, w1, b1))] {
                let (v0, g0) = worth(m0, t0);
                let (v1, g1) = worth(m1, t1);
                self.total[colour] += v1 - v0;
                if g1 != g0 {
                    for &c in windows.cells(w) {
                        self.gain[colour][c as usize] += g1 - g0;
                    }
                }
            }
        }
    }

    /// Stones of (black, white) in window `w`; a blocked cell counts for both.
    pub fn counts(&self, w: usize) -> [u8; 2] {
        self.counts[w]
    }

    /// What a stone of `c` on `cell` would gain it: the sum over live windows through the cell.
    pub fn gain(&self, c: Color, cell: usize) -> i32 {
        self.gain[c.index()][cell]
    }

    /// Sum of window values for colour `c` over the windows only it occupies.
    pub fn total(&self, c: Color) -> i32 {
        self.total[c.index()]
    }

    /// Builds the table from scratch, window by window: `occupant(cell)` gives (black, white)
    /// membership. Independent of `update`, so comparing the two checks the incremental path.
    pub fn derive(
        windows: &Windows,
        cells: usize,
        occupant: impl Fn(usize) -> (bool, bool),
    ) -> WinCount {
        let mut counts = Vec::with_capacity(windows.len());
        let mut gain = [vec![0; cells], vec![0; cells]];
        let mut total = [0, 0];
        for w in 0..windows.len() {
            let mut n = [0u8; 2];
            for &c in windows.cells(w) {
                let (b, wh) = occupant(c as usize);
                n[0] += b as u8;
                n[1] += wh as u8;
            }
            counts.push(n);
            for colour in 0..2 {
                let (v, g) = worth(n[colour], n[1 - colour]);
                total[colour] += v;
                for &c in windows.cells(w) {
                    gain[colour][c as usize] += g;
                }
            }
        }
        WinCount {
            counts,
            gain,
            total,
        }
    }
}
