//! The win-count table: for every 5-cell window, how many stones of each colour it holds, and
//! what that is worth to each colour, summed per window (evaluation) and per cell (move scores
//! and line counts).

use super::grid::Color;
use super::windows::{Windows, WINDOW_LEN};
use crate::geometry::MAX_CELLS;

/// Worth of a window holding `k` stones of one colour and none of the other (the evaluation).
pub const WINDOW_VALUE: [i32; 6] = [0, 2, 14, 80, 500, 0];
/// Worth to a colour of adding its stone to a window holding `k` of its stones and none of the
/// other's. A completed five dwarfs every sum of the others (at most 20 windows pass a cell).
pub const CELL_GAIN: [i32; 6] = [1, 5, 30, 180, FIVE_GAIN, 0];
/// The gain of a five-making window; a cell's gain is at least this iff it completes a window.
pub const FIVE_GAIN: i32 = 1 << 20;

/// What the live windows through one cell give each colour (index `Color::index`): the summed
/// gain, and the packed line counts (8 bits per stone count 1..=4, see `WinCount::lines`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellSums {
    pub gain: [i32; 2],
    pub lines: [u32; 2],
}

/// One colour's `CellSums` as one word, `gain << 32 | lines`, so an update is one addition.
/// Both parts stay in range (gain and every line count are sums of non-negative terms), so
/// adding `gain_delta << 32` plus the signed line delta never carries between them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed([i64; 2]);

impl Packed {
    fn unpack(self) -> CellSums {
        CellSums {
            gain: self.0.map(|v| (v >> 32) as i32),
            lines: self.0.map(|v| v as u32),
        }
    }
}

/// Per-window stone counts and the sums read from them. Invariant: equal to
/// `WinCount::derive` of the cells it has been told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinCount {
    counts: Vec<[u8; 2]>,
    /// Indexed by cell, `MAX_CELLS` long so that a masked index needs no bounds check.
    cells: Box<[Packed; MAX_CELLS]>,
    total: [i32; 2],
}

/// Bit offset in a cell's packed line counts of the windows holding `k` (1..=4) stones.
const fn line_shift(k: usize) -> u32 {
    8 * (k as u32 - 1)
}

/// What a window holding `mine` and `theirs` (each 0..=5) gives its owner: window value, and
/// the gain and line-count unit of each of its cells, packed.
#[derive(Clone, Copy)]
struct Worth {
    value: i32,
    /// `gain << 32 | unit`, what this window adds to each of its cells' packed word.
    packed: i64,
}

const fn worth(mine: usize, theirs: usize) -> Worth {
    if theirs == 0 {
        let unit: u32 = if mine >= 1 && mine <= 4 {
            1 << line_shift(mine)
        } else {
            0
        };
        Worth {
            value: WINDOW_VALUE[mine],
            packed: ((CELL_GAIN[mine] as i64) << 32) + unit as i64,
        }
    } else {
        Worth {
            value: 0,
            packed: 0,
        }
    }
}

const fn worth_table() -> [[Worth; 6]; 6] {
    let mut t = [[worth(0, 1); 6]; 6];
    let mut m = 0;
    while m < 6 {
        let mut o = 0;
        while o < 6 {
            t[m][o] = worth(m, o);
            o += 1;
        }
        m += 1;
    }
    t
}

/// What one stone added to or removed from a window changes, for (black, white): the window
/// values and the packed words of its cells.
#[derive(Clone, Copy)]
struct Change {
    value: [i32; 2],
    packed: [i64; 2],
}

/// The change of a window holding (`b`, `w`) stones when `colour` (0 black, 1 white) gains
/// `step` (+1 or -1) stones; none when that leaves the counts' range.
const fn change(b: usize, w: usize, colour: usize, step: isize) -> Change {
    let (nb, nw) = if colour == 0 {
        (b as isize + step, w as isize)
    } else {
        (b as isize, w as isize + step)
    };
    if nb < 0 || nw < 0 || nb > 5 || nw > 5 {
        return Change {
            value: [0, 0],
            packed: [0, 0],
        };
    }
    let (nb, nw) = (nb as usize, nw as usize);
    let t = worth_table();
    Change {
        value: [
            t[nb][nw].value - t[b][w].value,
            t[nw][nb].value - t[w][b].value,
        ],
        packed: [
            t[nb][nw].packed - t[b][w].packed,
            t[nw][nb].packed - t[w][b].packed,
        ],
    }
}

const fn change_table() -> [[[Change; 6]; 6]; 4] {
    let none = change(0, 0, 0, -1);
    let mut t = [[[none; 6]; 6]; 4];
    let mut v = 0;
    while v < 4 {
        let mut b = 0;
        while b < 6 {
            let mut w = 0;
            while w < 6 {
                t[v][b][w] = change(b, w, v / 2, if v % 2 == 0 { 1 } else { -1 });
                w += 1;
            }
            b += 1;
        }
        v += 1;
    }
    t
}

/// `CHANGE[2 * colour + removing][black][white]`, read on every window update.
static CHANGE: [[[Change; 6]; 6]; 4] = change_table();

impl WinCount {
    /// The table of an empty board: every window live, empty.
    pub fn new(windows: &Windows, cells: usize) -> WinCount {
        WinCount::derive(windows, cells, |_| (false, false))
    }

    /// Adds (`delta` = 1) or removes (`delta` = -1) stones on `cell`: `black` and `white` say which
    /// colours' counts change (a blocked cell counts for both, so it kills its windows).
    pub fn update(&mut self, windows: &Windows, cell: usize, black: bool, white: bool, delta: i8) {
        // A blocked cell is one stone of each colour; their changes add up in either order.
        for (colour, on) in [black, white].into_iter().enumerate() {
            if on {
                self.step(windows, cell, colour, delta);
            }
        }
    }

    /// One stone of `colour` (0 black, 1 white) added (`delta` 1) or removed (-1) on `cell`.
    fn step(&mut self, windows: &Windows, cell: usize, colour: usize, delta: i8) {
        let table = &CHANGE[2 * colour + (delta < 0) as usize];
        let mut total = self.total;
        // Along each line, a cell's change is the sum of the changes of the (up to five)
        // windows covering it: a running sum over the segment, one addition per cell.
        for seg in windows.segments(cell) {
            let n = seg.len;
            let mut deltas = [[0i64; 2]; WINDOW_LEN];
            let mut any = false;
            for (k, d) in deltas.iter_mut().enumerate().take(n) {
                let w = seg.windows[k] as usize;
                let counts = &mut self.counts[w];
                let change = &table[counts[0] as usize % 6][counts[1] as usize % 6];
                counts[colour] = counts[colour].wrapping_add_signed(delta);
                total[0] += change.value[0];
                total[1] += change.value[1];
                *d = change.packed;
                any |= *d != [0, 0];
            }
            if !any {
                continue;
            }
            let mut run = [0i64; 2];
            for j in 0..n + WINDOW_LEN - 1 {
                if j < n {
                    run[0] += deltas[j][0];
                    run[1] += deltas[j][1];
                }
                if j >= WINDOW_LEN {
                    run[0] -= deltas[j - WINDOW_LEN][0];
                    run[1] -= deltas[j - WINDOW_LEN][1];
                }
                let s = &mut self.cells[seg.cells[j] as usize & (MAX_CELLS - 1)].0;
                s[0] += run[0];
                s[1] += run[1];
            }
        }
        self.total = total;
    }

    /// Stones of (black, white) in window `w`; a blocked cell counts for both.
    pub fn counts(&self, w: usize) -> [u8; 2] {
        self.counts[w]
    }

    /// What a stone of `c` on `cell` would gain it: the sum over live windows through the cell.
    pub fn gain(&self, c: Color, cell: usize) -> i32 {
        (self.cells[cell].0[c.index()] >> 32) as i32
    }

    /// Both colours' sums at `cell` in one read.
    pub fn sums(&self, cell: usize) -> CellSums {
        self.cells[cell].unpack()
    }

    /// How many live windows through `cell` hold exactly `k` (1..=4) stones of `c` and none of
    /// the other colour: 4 means `cell` completes a five-window, 3 a four-window, 2 a three.
    pub fn lines(&self, c: Color, cell: usize, k: usize) -> u32 {
        line_count(self.cells[cell].0[c.index()] as u32, k)
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
        let mut sums = Box::new([Packed::default(); MAX_CELLS]);
        debug_assert!(cells <= MAX_CELLS);
        let mut total = [0, 0];
        for w in 0..windows.len() {
            let mut n = [0usize; 2];
            for &c in windows.cells(w) {
                let (b, wh) = occupant(c as usize);
                n[0] += b as usize;
                n[1] += wh as usize;
            }
            counts.push([n[0] as u8, n[1] as u8]);
            for colour in 0..2 {
                let (mine, theirs) = (n[colour], n[1 - colour]);
                let gain = if theirs == 0 { CELL_GAIN[mine] } else { 0 };
                total[colour] += if theirs == 0 { WINDOW_VALUE[mine] } else { 0 };
                let lines = if theirs == 0 && (1..=4).contains(&mine) {
                    1i64 << line_shift(mine)
                } else {
                    0
                };
                for &c in windows.cells(w) {
                    sums[c as usize].0[colour] += ((gain as i64) << 32) + lines;
                }
            }
        }
        WinCount {
            counts,
            cells: sums,
            total,
        }
    }
}

/// The count for `k` (1..=4) stones out of a packed line-count word.
pub fn line_count(packed: u32, k: usize) -> u32 {
    (packed >> line_shift(k)) & 0xFF
}
