//! The win-count table: for every 5-cell window, how many stones of each colour it holds, and
//! what that is worth to each colour: summed over the windows as they change (the evaluation),
//! and per cell from the windows through it when asked (move scores and line counts).

use super::grid::Color;
use super::windows::Windows;

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

/// Per-window stone counts and the window values summed from them. Invariant: equal to
/// `WinCount::derive` of the cells it has been told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinCount {
    counts: Vec<[u8; 2]>,
    total: [i32; 2],
}

/// Bit offset in a cell's packed line counts of the windows holding `k` (1..=4) stones.
const fn line_shift(k: usize) -> u32 {
    8 * (k as u32 - 1)
}

/// What a window holding `mine` and `theirs` (each 0..=5) is worth to its owner.
const fn window_value(mine: usize, theirs: usize) -> i32 {
    if theirs == 0 {
        WINDOW_VALUE[mine]
    } else {
        0
    }
}

/// The change of the window values of (black, white) when a window holding (`b`, `w`) stones
/// gains `step` (+1 or -1) stones of `colour` (0 black, 1 white); none when that leaves the
/// counts' range.
const fn value_change(b: usize, w: usize, colour: usize, step: isize) -> [i32; 2] {
    let (nb, nw) = if colour == 0 {
        (b as isize + step, w as isize)
    } else {
        (b as isize, w as isize + step)
    };
    if nb < 0 || nw < 0 || nb > 5 || nw > 5 {
        return [0, 0];
    }
    let (nb, nw) = (nb as usize, nw as usize);
    [
        window_value(nb, nw) - window_value(b, w),
        window_value(nw, nb) - window_value(w, b),
    ]
}

/// Where a window holding (`b`, `w`) stones (each 0..=5) is in a row of `VALUE_CHANGE`: one
/// index below 64, so that the hot loop reads it with a mask and no bounds test.
#[inline(always)]
const fn change_slot(b: u8, w: u8) -> usize {
    (b as usize * 8 + w as usize) & 63
}

const fn value_change_table() -> [[[i32; 2]; 64]; 4] {
    let mut t = [[[0; 2]; 64]; 4];
    let mut v = 0;
    while v < 4 {
        let mut b = 0;
        while b < 6 {
            let mut w = 0;
            while w < 6 {
                t[v][change_slot(b as u8, w as u8)] =
                    value_change(b, w, v / 2, if v % 2 == 0 { 1 } else { -1 });
                w += 1;
            }
            b += 1;
        }
        v += 1;
    }
    t
}

/// `VALUE_CHANGE[2 * colour + removing][change_slot(black, white)]`, read on every window
/// update.
static VALUE_CHANGE: [[[i32; 2]; 64]; 4] = value_change_table();

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
        let table = &VALUE_CHANGE[2 * colour + (delta < 0) as usize];
        let mut total = self.total;
        for &w in windows.through(cell) {
            let counts = &mut self.counts[w as usize];
            let change = &table[change_slot(counts[0], counts[1])];
            counts[colour] = counts[colour].wrapping_add_signed(delta);
            total[0] += change[0];
            total[1] += change[1];
        }
        self.total = total;
    }

    /// Stones of (black, white) in window `w`; a blocked cell counts for both.
    pub fn counts(&self, w: usize) -> [u8; 2] {
        self.counts[w]
    }

    /// Both colours' sums at `cell`, from the live windows through it.
    pub fn sums(&self, windows: &Windows, cell: usize) -> CellSums {
        let mut s = CellSums::default();
        for &w in windows.through(cell) {
            let counts = self.counts[w as usize];
            for c in 0..2 {
                let (mine, theirs) = (counts[c] as usize, counts[1 - c]);
                if theirs != 0 || mine > 5 {
                    continue;
                }
                s.gain[c] += CELL_GAIN[mine];
                if (1..=4).contains(&mine) {
                    s.lines[c] += 1 << line_shift(mine);
                }
            }
        }
        s
    }

    /// What a stone of `c` on `cell` would gain it: the sum over live windows through the cell.
    pub fn gain(&self, windows: &Windows, c: Color, cell: usize) -> i32 {
        self.sums(windows, cell).gain[c.index()]
    }

    /// How many live windows through `cell` hold exactly `k` (1..=4) stones of `c` and none of
    /// the other colour: 4 means `cell` completes a five-window, 3 a four-window, 2 a three.
    pub fn lines(&self, windows: &Windows, c: Color, cell: usize, k: usize) -> u32 {
        let (m, o) = (c.index(), c.opp().index());
        windows
            .through(cell)
            .iter()
            .filter(|&&w| {
                let counts = self.counts[w as usize];
                counts[m] as usize == k && counts[o] == 0
            })
            .count() as u32
    }

    /// Whether a live window through `cell` holds exactly `k` (1..=4) stones of `c` and none of
    /// the other colour (`lines(..) > 0`, stopping at the first).
    pub fn has_line(&self, windows: &Windows, c: Color, cell: usize, k: usize) -> bool {
        let (m, o) = (c.index(), c.opp().index());
        windows.through(cell).iter().any(|&w| {
            let counts = self.counts[w as usize];
            counts[m] as usize == k && counts[o] == 0
        })
    }

    /// The cells, in index order, that `keep` accepts and through which at least `min` live
    /// windows hold exactly `k` (1..=4) stones of `c` and none of the other colour
    /// (`lines(..) >= min`), found from the windows rather than cell by cell.
    pub fn cells_with_lines(
        &self,
        windows: &Windows,
        c: Color,
        k: usize,
        min: u8,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<u16> {
        let (m, o) = (c.index(), c.opp().index());
        let mut hits = vec![0u8; windows.cell_count()];
        let mut out = Vec::new();
        for (w, counts) in self.counts.iter().enumerate() {
            if counts[m] as usize != k || counts[o] != 0 {
                continue;
            }
            for &e in windows.cells(w) {
                let h = &mut hits[e as usize];
                *h = h.saturating_add(1);
                if *h == min && keep(e as usize) {
                    out.push(e);
                }
            }
        }
        out.sort_unstable();
        out
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
        debug_assert!(cells <= crate::geometry::MAX_CELLS);
        let mut counts = Vec::with_capacity(windows.len());
        let mut total = [0, 0];
        for w in 0..windows.len() {
            let mut n = [0usize; 2];
            for &c in windows.cells(w) {
                let (b, wh) = occupant(c as usize);
                n[0] += b as usize;
                n[1] += wh as usize;
            }
            counts.push([n[0] as u8, n[1] as u8]);
            for (colour, t) in total.iter_mut().enumerate() {
                *t += window_value(n[colour], n[1 - colour]);
            }
        }
        WinCount { counts, total }
    }
}

/// The count for `k` (1..=4) stones out of a packed line-count word.
pub fn line_count(packed: u32, k: usize) -> u32 {
    (packed >> line_shift(k)) & 0xFF
}

#[cfg(test)]
mod tests {
    use crate::board::grid::Color;
    use crate::board::Board;
    use crate::geometry::{Dims, Pos};

    /// Stones played in turn on a 13×9 board, black first; some near the edges.
    #[rustfmt::skip]
    const STONES: &[(usize, usize)] = &[
        (6, 4), (7, 4), (5, 3), (8, 5), (6, 5), (6, 3), (7, 3), (4, 2), (8, 3), (9, 3),
        (0, 0), (1, 1), (12, 8), (2, 2), (6, 6), (11, 7), (5, 5), (10, 6), (4, 4),
    ];

    /// A middle-game position on a rectangular board.
    fn position() -> Board {
        let mut b = Board::new(Dims::new(13, 9).unwrap());
        for &(x, y) in STONES {
            b.play(Pos::new(x, y));
        }
        b
    }

    #[test]
    fn the_cell_reads_agree_with_the_line_counts() {
        let b = position();
        let cells = b.dims().cells();
        for c in [Color::Black, Color::White] {
            for k in 1..=4 {
                for min in 1..=3u8 {
                    let brute: Vec<u16> = (0..cells)
                        .filter(|&i| b.is_empty_index(i) && b.lines(c, i, k) >= min as u32)
                        .map(|i| i as u16)
                        .collect();
                    assert_eq!(
                        b.empty_cells_with_lines(c, k, min),
                        brute,
                        "{c:?} {k} {min}"
                    );
                }
                for i in 0..cells {
                    assert_eq!(b.has_line(c, i, k), b.lines(c, i, k) > 0);
                    let sums = b.cell_sums(i);
                    assert_eq!(
                        super::line_count(sums.lines[c.index()], k),
                        b.lines(c, i, k)
                    );
                }
            }
        }
        // The position has windows of three stones: the lists above were not all empty.
        assert!(!b.empty_cells_with_lines(Color::Black, 3, 1).is_empty());
    }

    #[test]
    fn a_cell_gain_sums_its_live_windows() {
        let b = position();
        let w = b.windows();
        for i in 0..b.dims().cells() {
            for c in [Color::Black, Color::White] {
                let want: i32 = w
                    .through(i)
                    .iter()
                    .map(|&x| b.wincount().counts(x as usize))
                    .filter(|n| n[c.opp().index()] == 0)
                    .map(|n| super::CELL_GAIN[n[c.index()] as usize])
                    .sum();
                assert_eq!(b.gain(c, i), want, "cell {i}");
            }
        }
    }
}
