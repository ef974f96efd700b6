//! The game board: cells, side to move, move stack, Zobrist key and the win-count table, all
//! updated together by `play` and `undo`.

pub mod diagram;
pub mod grid;
pub mod lines;
pub mod pattern;
pub mod renju;
pub mod threat;
pub mod weights;
pub mod wincount;
pub mod windows;

use std::sync::Arc;

pub use grid::{Cell, Color, Grid};
use lines::{Lines, Tally};
use pattern::{Class, Shape};
use wincount::WinCount;
use windows::Windows;

use crate::geometry::{Dims, Pos, MAX_CELLS};
use crate::rules::Rule;

pub use windows::NEAR_RADIUS;

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

/// The indices of the set bits of `words` (64 cells a word), lowest first.
pub fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(word, &bits)| {
        let mut bits = bits;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let i = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                i
            })
        })
    })
}

/// A board position with everything derived from it kept up to date.
/// Invariants: `wincount`, `lines`, `key`, `empty` and `candidates` equal what `verify`
/// re-derives from the cells; `saved` holds the candidate words from before each stone of
/// `history`; `history` holds every stone on the board in the order played.
#[derive(Clone, Debug)]
pub struct Board {
    dims: Dims,
    grid: Grid,
    windows: Arc<Windows>,
    wincount: WinCount,
    /// Line patterns under the board's rule (the rule only changes what they are read as).
    lines: Lines,
    /// Bit `i` set iff cell `i` is empty.
    empty: Vec<u64>,
    /// Bit `i` set iff cell `i` is empty with a stone within `NEAR_RADIUS` (a move candidate).
    candidates: Vec<u64>,
    saved: Vec<u64>,
    history: Vec<(Pos, Color)>,
    key: u64,
    to_move: Color,
}

impl Board {
    /// An empty board whose patterns are read under freestyle (see `set_rule`).
    pub fn new(dims: Dims) -> Board {
        Board::with_rule(dims, Rule::Freestyle)
    }

    pub fn with_rule(dims: Dims, rule: Rule) -> Board {
        let windows = Arc::new(Windows::new(dims));
        Board::with_windows(dims, windows, rule)
    }

    /// An empty board reusing window geometry computed before (new games are cheap).
    pub fn with_windows(dims: Dims, windows: Arc<Windows>, rule: Rule) -> Board {
        let wincount = WinCount::new(&windows, dims.cells());
        let lines = Lines::new(&windows, dims.cells(), rule);
        let words = dims.cells().div_ceil(64);
        Board {
            dims,
            grid: Grid::new(dims),
            windows,
            wincount,
            lines,
            empty: (0..words)
                .map(|w| {
                    let left = dims.cells() - 64 * w;
                    if left >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << left) - 1
                    }
                })
                .collect(),
            candidates: vec![0; words],
            saved: Vec::new(),
            history: Vec::new(),
            key: 0,
            to_move: Color::Black,
        }
    }

    /// A new empty board of the same size and rule, sharing the window geometry.
    pub fn cleared(&self) -> Board {
        Board::with_windows(self.dims, Arc::clone(&self.windows), self.lines.rule())
    }

    /// The rule the line patterns are read under.
    pub fn rule(&self) -> Rule {
        self.lines.rule()
    }

    /// Reads the line patterns under `rule` from now on (cheap when it is the same).
    pub fn set_rule(&mut self, rule: Rule) {
        self.lines.set_rule(rule);
    }

    /// Keeps the accumulators of `net` up to date from now on (`None`: none kept).
    pub fn set_network(&mut self, net: Option<&'static crate::nnue::network::Network>) {
        self.lines.set_network(net);
    }

    /// Keeps the spatial network `net`'s state up to date from now on (`None`: none kept);
    /// computed afresh unless it is the network kept already.
    pub fn set_conv(&mut self, net: Option<&'static crate::nnue::conv::ConvNet>) {
        let same = match (self.lines.conv(), net) {
            (Some((a, _)), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            let conv = net.map(|net| (net, self.conv_afresh(net)));
            self.lines.set_conv(conv);
        }
    }

    /// The spatial network's state on this position, computed from scratch.
    fn conv_afresh(&self, net: &crate::nnue::conv::ConvNet) -> crate::nnue::conv::ConvAcc {
        let x = crate::nnue::spatial::Cells::of(self);
        crate::nnue::conv::ConvAcc::new(net, x.width, x.height, x.cells)
    }

    /// Runs `f` with the network's accumulators left as they are: for a threat search, which
    /// takes back every move it makes and evaluates nothing (a debug check that it did).
    pub fn without_network<R>(&mut self, f: impl FnOnce(&mut Board) -> R) -> R {
        let was = self.lines.pause_network();
        let stones = self.history.len();
        let r = f(self);
        debug_assert_eq!(
            self.history.len(),
            stones,
            "moves left from a paused search"
        );
        self.lines.resume_network(was);
        r
    }

    /// The line patterns of every cell.
    pub fn line_patterns(&self) -> &Lines {
        &self.lines
    }

    /// The line patterns' tally after the side to move plays the empty cell `i`, without
    /// playing it; `None` if the move would leave either side a five point.
    pub fn tally_after(&self, i: usize) -> Option<Tally> {
        self.lines
            .tally_after(&self.windows, i, pattern::stone_code(self.to_move))
    }

    /// `tally_after`, and the count network's score after the move for the side then to move
    /// (`None` where no network's accumulators are kept).
    pub fn network_after(&self, i: usize) -> Option<(Tally, Option<i32>)> {
        let c = self.to_move;
        self.lines
            .network_after(&self.windows, i, pattern::stone_code(c), c.opp())
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

    /// Whether cell index `i` is empty.
    pub fn is_empty_index(&self, i: usize) -> bool {
        self.grid.cell(i) == Cell::Empty
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

    /// The key the board will have once the side to move plays the empty cell `i`.
    pub fn key_after(&self, i: usize) -> u64 {
        self.key ^ zobrist(self.to_move.index(), i) ^ WHITE_TO_MOVE
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

    /// Whether black on the empty cell `i` might be a renju foul; `renju::foul` decides.
    ///
    /// Under renju it reads black's line shapes, which are exact-five shapes (`pattern`): a
    /// foul makes no five, and a renju three or four through the cell is a line-local open
    /// three, four or open four along its direction. So a foul needs two such directions (the
    /// classes double three, four-three, open four), an open four (two fours on one line) or an
    /// overline. Under any other rule the patterns are not black's renju shapes, and the
    /// window counts decide: every foul needs two windows through the cell holding at least
    /// two black stones (and no white), or one with four.
    pub fn may_be_foul(&self, i: usize) -> bool {
        if self.lines.rule() == Rule::Renju {
            return match self.lines.class(Color::Black, i) {
                Class::DoubleThree | Class::FourThree | Class::OpenFour => true,
                Class::Five => false,
                _ => (0..4).any(|d| self.lines.shape(Color::Black, i, d) == Shape::Overline),
            };
        }
        let lines = self.cell_sums(i).lines[Color::Black.index()];
        let count = |k| wincount::line_count(lines, k);
        let busy = count(2) + count(3) + count(4);
        busy >= 2 || count(4) > 0
    }

    /// Whether black on the empty cell `i` is a renju foul (`renju::foul`), read through the
    /// line shapes when they are renju's.
    pub fn is_foul(&mut self, i: usize) -> bool {
        if !self.may_be_foul(i) {
            return false;
        }
        let p = self.dims.pos(i);
        if self.lines.rule() == Rule::Renju {
            let shapes = [0, 1, 2, 3].map(|d| self.lines.shape(Color::Black, i, d));
            renju::foul_shaped(&mut self.grid, p, shapes).is_some()
        } else {
            renju::foul(&mut self.grid, p).is_some()
        }
    }

    pub fn gain(&self, c: Color, i: usize) -> i32 {
        self.wincount.gain(&self.windows, c, i)
    }

    /// Whether `lines(c, i, k) > 0`, stopping at the first such window.
    pub fn has_line(&self, c: Color, i: usize, k: usize) -> bool {
        self.wincount.has_line(&self.windows, c, i, k)
    }

    /// The empty cells, in index order, with `lines(c, i, k) >= min` (found window by window).
    pub fn empty_cells_with_lines(&self, c: Color, k: usize, min: u8) -> Vec<u16> {
        self.wincount
            .cells_with_lines(&self.windows, c, k, min, |i| self.is_empty_index(i))
    }

    /// Both colours' win-count sums at cell `i` (gains and line counts) in one pass.
    pub fn cell_sums(&self, i: usize) -> wincount::CellSums {
        self.wincount.sums(&self.windows, i)
    }

    /// Live windows through cell `i` holding exactly `k` stones of `c` (see `WinCount::lines`).
    pub fn lines(&self, c: Color, i: usize, k: usize) -> u32 {
        self.wincount.lines(&self.windows, c, i, k)
    }

    /// Whether cell index `i` is a candidate (see `candidates`).
    pub fn is_candidate(&self, i: usize) -> bool {
        self.candidates
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 != 0)
    }

    /// The candidate cells (empty, a stone within `NEAR_RADIUS`), in index order.
    pub fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        set_bits(&self.candidates)
    }

    /// Cell `i` takes a stone: its neighbourhood becomes candidates (the old words are saved
    /// for `undo`).
    fn occupy(&mut self, i: usize) {
        self.saved.extend_from_slice(&self.candidates);
        self.empty[i / 64] &= !(1u64 << (i % 64));
        let mask = self.windows.neighbourhood(i);
        for (k, word) in self.candidates.iter_mut().enumerate() {
            *word = (*word | mask[k]) & self.empty[k];
        }
    }

    /// Cell `i` is emptied again by `undo`: the candidates are as they were before.
    fn vacate(&mut self, i: usize) {
        self.empty[i / 64] |= 1u64 << (i % 64);
        let n = self.candidates.len();
        let at = self.saved.len() - n;
        self.candidates.copy_from_slice(&self.saved[at..]);
        self.saved.truncate(at);
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
        self.lines.place(&self.windows, i, pattern::stone_code(c));
        self.occupy(i);
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
        self.lines.remove(&self.windows, i);
        self.vacate(i);
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
        self.empty[i / 64] &= !(1u64 << (i % 64));
        self.candidates[i / 64] &= !(1u64 << (i % 64));
        self.wincount.update(&self.windows, i, true, true, 1);
        self.lines.place(&self.windows, i, pattern::WALL);
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
        let code = |i: usize| match self.grid.cell(i) {
            Cell::Black => pattern::stone_code(Color::Black),
            Cell::White => pattern::stone_code(Color::White),
            Cell::Blocked => pattern::WALL,
            _ => pattern::EMPTY,
        };
        let mut lines = Lines::derive(&self.windows, self.dims.cells(), self.rule(), code);
        lines.set_network(self.lines.network());
        if let Some(why) = self.lines.difference(&lines) {
            return Err(format!("line patterns: {why}"));
        }
        if let (Some((net, acc)), true) = (self.lines.conv(), self.lines.network_live()) {
            if *acc != self.conv_afresh(net) {
                return Err("spatial network state differs from the cells".into());
            }
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
        for (i, &stones_near) in near.iter().enumerate() {
            let empty = self.grid.cell(i) == Cell::Empty;
            let want = stones_near > 0 && empty;
            if want != (self.candidates[i / 64] >> (i % 64) & 1 == 1) {
                return Err(format!("candidate bit of cell {i} is wrong"));
            }
            if empty != (self.empty[i / 64] >> (i % 64) & 1 == 1) {
                return Err(format!("empty bit of cell {i} is wrong"));
            }
        }
        if self.saved.len() != self.history.len() * self.candidates.len() {
            return Err("saved candidate words do not match the history".into());
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
