//! The line patterns of every cell, kept up to date with the stones: per cell and direction the
//! line key (the five cells on each side), per empty cell and colour the four shapes and their
//! shape index (from which come the pattern code and the threat class), the cells where each
//! colour makes a four, and the sums of the pattern evaluation.

use super::grid::Color;
use super::pattern::{self, Class, LineTable, Shape, CLASSES, INDEX_SPAN, POWERS, SLOTS, WALL};
use super::weights::{index_weights, IndexWeights};
use super::windows::{Windows, NO_CELL};
use crate::nnue::conv::{ConvAcc, ConvNet};
use crate::nnue::features;
use crate::nnue::model::D;
#[cfg(target_arch = "x86_64")]
use crate::nnue::network::simd;
use crate::nnue::network::Network;
use crate::nnue::spatial::{empty_inputs, stone_inputs};
use crate::rules::Rule;

/// The shape index of an occupied cell.
pub const OCCUPIED: u16 = u16::MAX;

/// One cell's patterns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellLines {
    /// Per direction, 2 bits per neighbour slot.
    keys: [u32; 4],
    /// Per colour, the four shapes as a shape index; `OCCUPIED` on an occupied cell.
    index: [u16; 2],
    /// Per colour, the shape of each direction (stale on an occupied cell).
    shapes: [[u8; 4]; 2],
    /// Per colour, what `index` reads as (kept here so that the hot loops over the candidate
    /// cells read one cell, not the tables): the threat class (`Class::None` on an occupied
    /// cell) and the weights for the side to move and the side waiting (0 when occupied).
    read: [Read; 2],
}

/// A colour's shape index as read from the tables (the default: an occupied cell).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Read {
    class: Class,
    mover: i16,
    waiter: i16,
    /// The learned move-ordering scores (`IndexWeight::mine`, `theirs`).
    mine: i16,
    theirs: i16,
    /// The pattern code (the network's input row within the colour's table).
    pcode: u16,
}

/// What the empty cells add up to: the pattern evaluation's sums and the threat class counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// `sums[colour][role]`: over empty cells, the weights of the colour's patterns as the side
    /// to move (role 0) and as the other side (role 1).
    sums: [[i32; 2]; 2],
    /// `classes[colour][class]`: how many empty cells give the colour that threat class.
    classes: [[u16; CLASSES]; 2],
}

impl Tally {
    /// The pattern evaluation for `mover`, the side to move: its cells' worth to the side to
    /// move, less the other side's cells' worth to the side that waits.
    pub fn evaluate(&self, mover: Color) -> i32 {
        self.sums[mover.index()][0] - self.sums[mover.opp().index()][1]
    }

    /// How many empty cells give `c` each threat class (indexed by `Class as usize`).
    pub fn class_counts(&self, c: Color) -> &[u16; CLASSES] {
        &self.classes[c.index()]
    }

    /// Adds (`sign` 1) or takes away (-1) what colour `c`'s read of a cell gives.
    #[inline(always)]
    fn add(&mut self, c: usize, read: Read, sign: i32) {
        self.sums[c][0] += sign * read.mover as i32;
        self.sums[c][1] += sign * read.waiter as i32;
        let n = &mut self.classes[c][read.class as usize];
        *n = n.wrapping_add_signed(sign as i16);
    }

    /// `add(c, was, -1)` then `add(c, now, 1)` in one step.
    #[inline(always)]
    fn replace(&mut self, c: usize, was: Read, now: Read) {
        self.sums[c][0] += now.mover as i32 - was.mover as i32;
        self.sums[c][1] += now.waiter as i32 - was.waiter as i32;
        let n = &mut self.classes[c];
        n[was.class as usize] = n[was.class as usize].wrapping_sub(1);
        n[now.class as usize] = n[now.class as usize].wrapping_add(1);
    }
}

/// What a move changes besides cells, as it was before the move.
#[derive(Clone, Copy, Debug)]
struct Mark {
    /// Where the move's saved cells start in `saved`.
    saved: u32,
    tally: Tally,
}

/// A cell's patterns as they were before a move, for its undo.
#[derive(Clone, Copy, Debug)]
struct Saved {
    cell: u16,
    index: [u16; 2],
    shapes: [[u8; 4]; 2],
    read: [Read; 2],
}

/// Invariant: equal to `Lines::derive` of the cells it has been told about, under `rule`;
/// `marks` has one entry (where its cells start in `saved`, the sums and class counts before
/// it) for each stone placed since the rule was last set or a cell blocked, in order.
#[derive(Clone, Debug)]
pub struct Lines {
    rule: Rule,
    /// Both colours' shapes by line key (`pattern::table`).
    table: LineTable,
    weights: [&'static IndexWeights; 2],
    cells: Vec<CellLines>,
    tally: Tally,
    /// Bit sets of the empty cells where each colour makes at least a four.
    fours: [Vec<u64>; 2],
    /// Bit sets of the empty cells where each colour makes a five.
    fives: [Vec<u64>; 2],
    /// The cells each move changed, as they were before it.
    saved: Vec<Saved>,
    marks: Vec<Mark>,
    /// The four and five bit sets before each move, one after the other.
    saved_bits: Vec<u64>,
    /// The network whose accumulators are kept up to date (`None`: no accumulators).
    net: Option<&'static Network>,
    /// Per colour, the network's accumulator: its bias plus the embedding rows of the colour's
    /// pattern codes on the empty cells (`Network`).
    acc: [[i32; D]; 2],
    /// The accumulators before each move of `marks` (kept only with a network).
    saved_acc: Vec<[[i32; D]; 2]>,
    /// The accumulators are left as they are (`pause_network`): the moves made meanwhile are
    /// all taken back before it ends, and nothing is evaluated.
    net_paused: bool,
    /// The spatial network and its state (`nnue::conv`), kept up to date like the
    /// accumulators (and paused with them): each cell's inputs are set wherever its codes
    /// change, and set back on an undo.
    conv: Option<(&'static ConvNet, Box<ConvAcc>)>,
}

impl Lines {
    /// The patterns of an empty board.
    pub fn new(windows: &Windows, cells: usize, rule: Rule) -> Lines {
        Lines::derive(windows, cells, rule, |_| pattern::EMPTY)
    }

    /// Builds everything from the cells (`code(cell)`: `EMPTY`, a stone code or `WALL`), each
    /// key read from its neighbours: independent of the incremental path, which it checks.
    pub fn derive(
        windows: &Windows,
        cells: usize,
        rule: Rule,
        code: impl Fn(usize) -> u32,
    ) -> Lines {
        let all = (0..cells)
            .map(|i| {
                let ray = windows.ray(i);
                let mut keys = [0u32; 4];
                for (d, k) in keys.iter_mut().enumerate() {
                    for s in 0..SLOTS {
                        let q = ray[d * SLOTS + s];
                        let v = if q == NO_CELL { WALL } else { code(q as usize) };
                        *k |= v << (2 * s);
                    }
                }
                CellLines {
                    keys,
                    index: [OCCUPIED; 2],
                    shapes: [[0; 4]; 2],
                    read: [Read::default(); 2],
                }
            })
            .collect();
        let words = cells.div_ceil(64);
        let mut lines = Lines {
            rule,
            table: pattern::table(rule),
            weights: [
                index_weights(rule, Color::Black),
                index_weights(rule, Color::White),
            ],
            cells: all,
            tally: Tally::default(),
            fours: [vec![0; words], vec![0; words]],
            fives: [vec![0; words], vec![0; words]],
            saved: Vec::new(),
            marks: Vec::new(),
            saved_bits: Vec::new(),
            net: None,
            acc: [[0; D]; 2],
            saved_acc: Vec::new(),
            net_paused: false,
            conv: None,
        };
        for i in (0..cells).filter(|&i| code(i) == pattern::EMPTY) {
            lines.vacate_cell(i);
        }
        lines
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Reads every empty cell's shapes again under `rule` (the keys do not depend on it).
    pub fn set_rule(&mut self, rule: Rule) {
        if rule == self.rule {
            return;
        }
        debug_assert!(
            !self.net_paused,
            "a rule change while the network is paused"
        );
        // The spatial state is read afresh at the end (a stone's row depends on the rule too).
        let conv = self.conv.take();
        let empty: Vec<usize> = (0..self.cells.len())
            .filter(|&i| self.cells[i].index[0] != OCCUPIED)
            .collect();
        for &i in &empty {
            self.occupy_cell(i);
        }
        // What earlier moves saved was read under the old rule: their undos recompute.
        self.forget_saved();
        self.rule = rule;
        self.table = pattern::table(rule);
        self.weights = [
            index_weights(rule, Color::Black),
            index_weights(rule, Color::White),
        ];
        for i in empty {
            self.vacate_cell(i);
        }
        if let Some((net, mut acc)) = conv {
            let inputs = (0..self.cells.len())
                .map(|i| {
                    if self.cells[i].index[0] != OCCUPIED {
                        empty_inputs(rule, self.codes(i))
                    } else {
                        stone_inputs(rule, stone_of_row(acc.inputs(i)[0]))
                    }
                })
                .collect();
            *acc = ConvAcc::new(net, acc.width(), acc.height(), inputs);
            self.conv = Some((net, acc));
        }
    }

    /// Cell `i` takes `code` (a stone code, or `WALL` for a blocked cell). A stone's changes
    /// are saved for its `remove`; a blocked cell is never removed, and the undos of the stones
    /// before it recompute.
    pub fn place(&mut self, windows: &Windows, i: usize, code: u32) {
        let keep = code != WALL;
        if keep {
            self.marks.push(Mark {
                saved: self.saved.len() as u32,
                tally: self.tally,
            });
            for c in 0..2 {
                self.saved_bits.extend_from_slice(&self.fours[c]);
                self.saved_bits.extend_from_slice(&self.fives[c]);
            }
            if self.live_net().is_some() {
                self.saved_acc.push(self.acc);
            }
            if let Some((_, acc)) = self.live_conv() {
                acc.begin();
            }
            self.save(i);
        } else {
            self.forget_saved();
        }
        self.occupy_cell(i);
        let rule = self.rule;
        if let Some((net, acc)) = self.live_conv() {
            let stone = match code {
                WALL => None,
                c if c == pattern::stone_code(Color::Black) => Some(Color::Black),
                _ => Some(Color::White),
            };
            acc.set(net, i, stone_inputs(rule, stone));
        }
        match self.live_net() {
            None => self.place_walk(windows, i, code, &mut ()),
            Some(net) => {
                #[cfg(target_arch = "x86_64")]
                if net.pair.is_none() && simd::avx2() {
                    // SAFETY: the CPU has AVX2 (checked at run time).
                    unsafe { self.place_walk_avx2(net, windows, i, code) };
                    self.conv_flush();
                    return;
                }
                let (rule, acc) = (self.rule, self.acc);
                let mut sink = NetAcc { rule, net, acc };
                self.place_walk(windows, i, code, &mut sink);
                self.acc = sink.acc;
            }
        }
        self.conv_flush();
    }

    /// `place_walk` compiled for AVX2, a plain network's accumulators in registers throughout.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn place_walk_avx2(&mut self, net: &Network, windows: &Windows, i: usize, code: u32) {
        // SAFETY: the caller vouched for AVX2, and the network is a plain one.
        let mut sink = unsafe { simd::RegAcc::new(net, net_bases(self.rule), &self.acc) };
        self.place_walk(windows, i, code, &mut sink);
        self.acc = sink.get();
    }

    /// `place`'s walk along the lines through `i`: each cell's key takes `code`, and the empty
    /// cells within the table's reach read their shapes again, their codes' changes sent to
    /// `acc`.
    #[inline(always)]
    fn place_walk(&mut self, windows: &Windows, i: usize, code: u32, acc: &mut impl Accumulate) {
        let keep = code != WALL;
        let ray = windows.ray(i);
        let reach = self.table.slots();
        for d in 0..4 {
            for s in 0..SLOTS {
                let q = ray[d * SLOTS + s];
                if q == NO_CELL {
                    continue;
                }
                // `i` is at the mirror slot seen from `q`.
                let q = q as usize;
                let cell = &mut self.cells[q];
                cell.keys[d] |= code << (2 * (SLOTS - 1 - s));
                // A cell farther than the table's reach keeps its shapes.
                if cell.index[0] != OCCUPIED && reach.contains(&s) {
                    self.refresh(q, d, keep, acc);
                }
            }
        }
    }

    /// Cell `i`, the last stone placed, is emptied again: the cells it changed are put back
    /// as they were (or read again, when nothing was saved for it).
    pub fn remove(&mut self, windows: &Windows, i: usize) {
        let mark = self.marks.pop();
        let ray = windows.ray(i);
        let reach = self.table.slots();
        // Without a mark the cells read their shapes again, and the accumulators follow.
        let net = self.live_net().filter(|_| mark.is_none());
        let (rule, acc) = (self.rule, self.acc);
        let mut sink = net.map(|net| NetAcc { rule, net, acc });
        for d in 0..4 {
            for s in 0..SLOTS {
                let q = ray[d * SLOTS + s];
                if q == NO_CELL {
                    continue;
                }
                let q = q as usize;
                let cell = &mut self.cells[q];
                cell.keys[d] &= !(3 << (2 * (SLOTS - 1 - s)));
                if mark.is_none() && cell.index[0] != OCCUPIED && reach.contains(&s) {
                    self.refresh(q, d, false, &mut sink);
                }
            }
        }
        if let Some(sink) = sink {
            self.acc = sink.acc;
        }
        let Some(mark) = mark else {
            self.vacate_cell(i);
            self.conv_flush();
            return;
        };
        while self.saved.len() > mark.saved as usize {
            let Some(saved) = self.saved.pop() else {
                break;
            };
            let cell = &mut self.cells[saved.cell as usize];
            cell.index = saved.index;
            cell.shapes = saved.shapes;
            cell.read = saved.read;
            let (q, rule) = (saved.cell as usize, self.rule);
            let codes = self.codes(q);
            if let Some((_, acc)) = self.live_conv() {
                acc.restore(q, empty_inputs(rule, codes));
            }
        }
        if let Some((_, acc)) = self.live_conv() {
            let begun = acc.undo();
            debug_assert!(
                begun,
                "the spatial state's moves and the saved ones disagree"
            );
        }
        self.tally = mark.tally;
        if self.live_net().is_some() {
            if let Some(acc) = self.saved_acc.pop() {
                self.acc = acc;
            }
        }
        let words = self.fours[0].len();
        let at = self.saved_bits.len() - 4 * words;
        for (c, k) in [(0, 0), (1, 2)] {
            let bits = &self.saved_bits[at + k * words..];
            self.fours[c].copy_from_slice(&bits[..words]);
            self.fives[c].copy_from_slice(&bits[words..2 * words]);
        }
        self.saved_bits.truncate(at);
    }

    /// Drops everything saved for undos (they recompute instead).
    fn forget_saved(&mut self) {
        self.saved.clear();
        self.marks.clear();
        self.saved_bits.clear();
        self.saved_acc.clear();
        if let Some((_, acc)) = &mut self.conv {
            acc.forget();
        }
    }

    /// Keeps the accumulators of `net` from now on (`None`: none); they are computed afresh
    /// when the network changes.
    pub fn set_network(&mut self, net: Option<&'static Network>) {
        let same = match (self.net, net) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        // The undos saved so far have no accumulators: they recompute instead.
        self.forget_saved();
        self.net = net;
        self.acc = [[0; D]; 2];
        if let Some(net) = net {
            self.acc = [net.b0; 2];
            for i in 0..self.cells.len() {
                if self.cells[i].index[0] != OCCUPIED {
                    let codes = self.codes(i);
                    acc_cell(self.rule, net, &mut self.acc, codes, 1);
                }
            }
        }
    }

    /// The accumulators (black's, white's), all zero when no network is kept.
    pub fn accumulators(&self) -> &[[i32; D]; 2] {
        &self.acc
    }

    /// Stops updating the accumulators until `resume_network(returned value)`: for a threat
    /// search, which takes back every move it makes and evaluates nothing. Returns whether they
    /// were paused already.
    pub fn pause_network(&mut self) -> bool {
        std::mem::replace(&mut self.net_paused, true)
    }

    /// Ends a `pause_network` (given what it returned).
    pub fn resume_network(&mut self, paused: bool) {
        self.net_paused = paused;
    }

    /// The network to update the accumulators of: none while paused.
    #[inline(always)]
    fn live_net(&self) -> Option<&'static Network> {
        if self.net_paused {
            None
        } else {
            self.net
        }
    }

    /// Whether a network (the count one or the spatial one) is kept to evaluate with.
    pub fn evaluates(&self) -> bool {
        self.net.is_some() || self.conv.is_some()
    }

    /// The network whose accumulators are kept, if any.
    pub fn network(&self) -> Option<&'static Network> {
        self.net
    }

    /// The network's score of the position for `mover`, the side to move, if one is kept.
    #[inline]
    pub fn network_score(&self, mover: Color) -> Option<i32> {
        let net = self.net?;
        Some(net.score(&self.acc[mover.index()], &self.acc[mover.opp().index()]))
    }

    /// Both colours' pattern codes on the empty cell `i` (black's, white's).
    #[inline(always)]
    fn codes(&self, i: usize) -> [u16; 2] {
        let read = &self.cells[i].read;
        [read[0].pcode, read[1].pcode]
    }

    /// Saves cell `q`'s patterns for the undo of the move being made.
    #[inline]
    fn save(&mut self, q: usize) {
        let cell = &self.cells[q];
        self.saved.push(Saved {
            cell: q as u16,
            index: cell.index,
            shapes: cell.shapes,
            read: cell.read,
        });
    }

    /// The empty cell `i` no longer counts: its weights and four bits go.
    fn occupy_cell(&mut self, i: usize) {
        if let Some(net) = self.live_net() {
            if self.cells[i].index[0] != OCCUPIED {
                let codes = self.codes(i);
                acc_cell(self.rule, net, &mut self.acc, codes, -1);
            }
        }
        for c in 0..2 {
            if self.cells[i].index[c] != OCCUPIED {
                self.uncount(c, i);
                self.cells[i].index[c] = OCCUPIED;
                self.cells[i].read[c] = Read::default();
            }
        }
    }

    /// Cell `i` is empty: its shapes, weights and four bits from its keys.
    fn vacate_cell(&mut self, i: usize) {
        for c in 0..2 {
            let shapes = self.cells[i].keys.map(|k| self.shape_in(c, k));
            let index = (0..4).map(|d| shapes[d] as u16 * POWERS[d]).sum();
            let read = self.read(c, index);
            self.cells[i].shapes[c] = shapes;
            self.cells[i].index[c] = index;
            self.cells[i].read[c] = read;
            self.count(c, i);
        }
        if let Some(net) = self.live_net() {
            let codes = self.codes(i);
            acc_cell(self.rule, net, &mut self.acc, codes, 1);
        }
        self.conv_cell(i);
    }

    /// Tells the spatial network's state (if kept and not paused) the inputs of the empty
    /// cell `i`.
    #[inline(always)]
    fn conv_cell(&mut self, i: usize) {
        let rule = self.rule;
        let codes = self.codes(i);
        if let Some((net, acc)) = self.live_conv() {
            acc.set(net, i, empty_inputs(rule, codes));
        }
    }

    /// Brings the spatial network's pool up to date after a move's changes.
    #[inline(always)]
    fn conv_flush(&mut self) {
        if let Some((_, acc)) = self.live_conv() {
            acc.flush();
        }
    }

    /// The spatial network and its state, unless paused.
    #[inline(always)]
    fn live_conv(&mut self) -> Option<(&'static ConvNet, &mut ConvAcc)> {
        match &mut self.conv {
            Some((net, acc)) if !self.net_paused => Some((*net, acc)),
            _ => None,
        }
    }

    /// Keeps the spatial network `net`'s state from now on, starting from `acc` (computed
    /// afresh from the board by the caller), or none.
    pub fn set_conv(&mut self, conv: Option<(&'static ConvNet, ConvAcc)>) {
        // The undos saved so far have no spatial state: they recompute instead.
        self.forget_saved();
        self.conv = conv.map(|(net, acc)| (net, Box::new(acc)));
    }

    /// The spatial network kept, with its state.
    pub fn conv(&self) -> Option<(&'static ConvNet, &ConvAcc)> {
        self.conv.as_ref().map(|(net, acc)| (*net, &**acc))
    }

    /// The spatial network's score of the position for `mover`, the side to move, if kept.
    #[inline]
    pub fn conv_score(&self, mover: Color) -> Option<i32> {
        let (net, acc) = self.conv.as_ref()?;
        Some(acc.score(net, mover.index()))
    }

    /// Whether the network states are being kept up to date now (not paused).
    pub fn network_live(&self) -> bool {
        !self.net_paused
    }

    /// Adds what colour `c`'s read of the empty cell `i` gives: its weights to the sums, the
    /// cell to the four and five sets by its class.
    #[inline(always)]
    fn count(&mut self, c: usize, i: usize) {
        let read = self.cells[i].read[c];
        self.tally.add(c, read, 1);
        let bit = 1 << (i % 64);
        if read.class.is_four() {
            self.fours[c][i / 64] |= bit;
        }
        if read.class == Class::Five {
            self.fives[c][i / 64] |= bit;
        }
    }

    /// Colour `c`'s read of the empty cell `i` changes from `was` to `now` (already stored):
    /// `uncount` of the one and `count` of the other in one step.
    #[inline(always)]
    fn recount(&mut self, c: usize, i: usize, was: Read, now: Read) {
        self.tally.replace(c, was, now);
        if was.class.is_four() || now.class.is_four() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            self.fours[c][w] = (self.fours[c][w] & !bit) | (bit * now.class.is_four() as u64);
            self.fives[c][w] =
                (self.fives[c][w] & !bit) | (bit * (now.class == Class::Five) as u64);
        }
    }

    /// Takes back what `count` added for the cell's current read.
    #[inline(always)]
    fn uncount(&mut self, c: usize, i: usize) {
        let read = self.cells[i].read[c];
        self.tally.add(c, read, -1);
        if read.class.is_four() {
            self.fours[c][i / 64] &= !(1 << (i % 64));
            self.fives[c][i / 64] &= !(1 << (i % 64));
        }
    }

    /// What colour `c`'s shape index `index` reads as.
    #[inline(always)]
    fn read(&self, c: usize, index: u16) -> Read {
        let w = &self.weights[c].by_index[index as usize & (INDEX_SPAN - 1)];
        Read {
            class: pattern::class_of_index(index),
            mover: w.mover,
            waiter: w.waiter,
            mine: w.mine,
            theirs: w.theirs,
            pcode: w.pcode,
        }
    }

    #[inline]
    fn shape_in(&self, c: usize, key: u32) -> u8 {
        pattern::entry_shape(self.table.entry(key), c)
    }

    /// The key of the empty cell `q` along direction `d` changed: read its shapes again
    /// (saving them first, with `keep`, when they change).
    #[inline(always)]
    fn refresh(&mut self, q: usize, d: usize, keep: bool, acc: &mut impl Accumulate) {
        let both = self.table.entry(self.cells[q].keys[d]);
        let now = [pattern::entry_shape(both, 0), pattern::entry_shape(both, 1)];
        if now == [self.cells[q].shapes[0][d], self.cells[q].shapes[1][d]] {
            return;
        }
        if keep {
            self.save(q);
        }
        // The codes before, for the accumulators.
        let was_codes = self.codes(q);
        for (c, &shape) in now.iter().enumerate() {
            let cell = &self.cells[q];
            let was = cell.shapes[c][d];
            if shape == was {
                continue;
            }
            let index = cell.index[c] + shape as u16 * POWERS[d] - was as u16 * POWERS[d];
            let read = self.read(c, index);
            let old = cell.read[c];
            let cell = &mut self.cells[q];
            cell.shapes[c][d] = shape;
            cell.index[c] = index;
            cell.read[c] = read;
            self.recount(c, q, old, read);
        }
        acc.replace(was_codes, self.codes(q));
        self.conv_cell(q);
    }

    /// The shape a stone of `c` makes on the empty cell `i` along direction `d`.
    pub fn shape(&self, c: Color, i: usize, d: usize) -> Shape {
        Shape::from_u8(self.cells[i].shapes[c.index()][d])
    }

    /// The shape index of `c` on cell `i` (`OCCUPIED` when it holds something).
    pub fn index(&self, c: Color, i: usize) -> u16 {
        self.cells[i].index[c.index()]
    }

    /// The pattern code of `c` on the empty cell `i`.
    pub fn code(&self, c: Color, i: usize) -> u16 {
        pattern::pcode_of_index(self.index(c, i))
    }

    /// The threat class of a stone of `c` on cell `i` (`None` when it holds something).
    #[inline]
    pub fn class(&self, c: Color, i: usize) -> Class {
        self.cells[i].read[c.index()].class
    }

    /// What the empty cell `i` is worth to `me` to play: its pattern's weight for the side to
    /// move, plus the opponent's pattern's weight for the side waiting (what the stone takes
    /// away from it).
    #[inline]
    pub fn worth(&self, me: Color, i: usize) -> i32 {
        let read = &self.cells[i].read;
        read[me.index()].mover as i32 + read[me.opp().index()].waiter as i32
    }

    /// The learned move-ordering score of the empty cell `i` for `me` to move, in
    /// `ORDER_UNIT`ths of a logit (`OrderWeights`: its code for `me` and the opponent's).
    #[inline]
    pub fn order_score(&self, me: Color, i: usize) -> i32 {
        let read = &self.cells[i].read;
        read[me.index()].mine as i32 + read[me.opp().index()].theirs as i32
    }

    /// The evaluation sums and class counts of the empty cells.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// How many empty cells give `c` each threat class (indexed by `Class as usize`).
    pub fn class_counts(&self, c: Color) -> &[u16; CLASSES] {
        self.tally.class_counts(c)
    }

    /// The tally after a stone `code` on the empty cell `i`, worked out without placing it;
    /// `None` if the stone would give either colour a five point somewhere (the cell's
    /// neighbours are read as `place` would read them, and nothing is changed).
    pub fn tally_after(&self, windows: &Windows, i: usize, code: u32) -> Option<Tally> {
        self.after(windows, i, code, &mut ())
    }

    /// `tally_after`, and the count network's score after the move for `mover`, the side
    /// then to move, where a network's accumulators are kept (not paused).
    pub fn network_after(
        &self,
        windows: &Windows,
        i: usize,
        code: u32,
        mover: Color,
    ) -> Option<(Tally, Option<i32>)> {
        let Some(net) = self.live_net() else {
            return Some((self.tally_after(windows, i, code)?, None));
        };
        #[cfg(target_arch = "x86_64")]
        if crate::nnue::network::simd::avx2() {
            // SAFETY: the CPU has AVX2 (checked at run time).
            return unsafe { self.network_after_avx2(net, windows, i, code, mover) };
        }
        self.network_after_with(net, windows, i, code, mover)
    }

    /// `network_after` with the network `net`: the walk, the row updates and the head in one
    /// body, so that its copy compiled for AVX2 has the row updates inlined.
    #[inline(always)]
    fn network_after_with(
        &self,
        net: &Network,
        windows: &Windows,
        i: usize,
        code: u32,
        mover: Color,
    ) -> Option<(Tally, Option<i32>)> {
        let (rule, acc) = (self.rule, self.acc);
        let mut sink = NetAcc { rule, net, acc };
        let tally = self.after(windows, i, code, &mut sink)?;
        let acc = sink.acc;
        let score = net.score(&acc[mover.index()], &acc[mover.opp().index()]);
        Some((tally, Some(score)))
    }

    /// `network_after_with` compiled for AVX2, the same integers: a plain network's
    /// accumulators stay in registers through the walk (`simd::RegAcc`).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn network_after_avx2(
        &self,
        net: &Network,
        windows: &Windows,
        i: usize,
        code: u32,
        mover: Color,
    ) -> Option<(Tally, Option<i32>)> {
        if net.pair.is_some() {
            return self.network_after_with(net, windows, i, code, mover);
        }
        // SAFETY: the caller vouched for AVX2, and the network is a plain one.
        let mut sink = unsafe { simd::RegAcc::new(net, net_bases(self.rule), &self.acc) };
        let tally = self.after(windows, i, code, &mut sink)?;
        let score = sink.score(mover.index());
        Some((tally, Some(score)))
    }

    /// `tally_after`, moving the accumulators `acc` of `net` as the move would.
    #[inline(always)]
    fn after(
        &self,
        windows: &Windows,
        i: usize,
        code: u32,
        acc: &mut impl Accumulate,
    ) -> Option<Tally> {
        let mut tally = self.tally;
        for c in 0..2 {
            tally.add(c, self.cells[i].read[c], -1);
        }
        acc.cell(self.codes(i), -1);
        let ray = windows.ray(i);
        for d in 0..4 {
            for s in self.table.slots() {
                let q = ray[d * SLOTS + s];
                if q == NO_CELL {
                    continue;
                }
                let cell = &self.cells[q as usize];
                if cell.index[0] == OCCUPIED {
                    continue;
                }
                let key = cell.keys[d] | code << (2 * (SLOTS - 1 - s));
                let both = self.table.entry(key);
                let mut codes = [cell.read[0].pcode, cell.read[1].pcode];
                for (c, new_code) in codes.iter_mut().enumerate() {
                    let (shape, was) = (pattern::entry_shape(both, c), cell.shapes[c][d]);
                    if shape == was {
                        continue;
                    }
                    let index = cell.index[c] + shape as u16 * POWERS[d] - was as u16 * POWERS[d];
                    let read = self.read(c, index);
                    if read.class == Class::Five {
                        return None;
                    }
                    tally.replace(c, cell.read[c], read);
                    *new_code = read.pcode;
                }
                acc.replace([cell.read[0].pcode, cell.read[1].pcode], codes);
            }
        }
        Some(tally)
    }

    /// The empty cells where `c` makes at least a four, in index order.
    pub fn fours(&self, c: Color) -> impl Iterator<Item = usize> + '_ {
        super::set_bits(&self.fours[c.index()])
    }

    /// The empty cells where `c` makes a five, in index order.
    pub fn fives(&self, c: Color) -> impl Iterator<Item = usize> + '_ {
        super::set_bits(&self.fives[c.index()])
    }

    /// The bit set of `fours`, one bit a cell.
    pub fn four_words(&self, c: Color) -> &[u64] {
        &self.fours[c.index()]
    }

    /// Whether `c` has a five point somewhere.
    pub fn has_five(&self, c: Color) -> bool {
        self.fives[c.index()].iter().any(|&w| w != 0)
    }

    /// What differs from `other` (the same board derived afresh), if anything.
    pub fn difference(&self, other: &Lines) -> Option<String> {
        if self.rule != other.rule {
            return Some("rules differ".into());
        }
        for (i, (a, b)) in self.cells.iter().zip(&other.cells).enumerate() {
            if a.keys != b.keys {
                return Some(format!("line keys of cell {i} differ"));
            }
            if a.index != b.index {
                return Some(format!("shape indices of cell {i} differ"));
            }
            if a.read != b.read {
                return Some(format!("what cell {i}'s shape indices read as differs"));
            }
            for c in 0..2 {
                if a.index[c] != OCCUPIED && a.shapes[c] != b.shapes[c] {
                    return Some(format!("shapes of colour {c} on cell {i} differ"));
                }
            }
        }
        if self.tally.sums != other.tally.sums {
            return Some("evaluation sums differ".into());
        }
        if self.tally.classes != other.tally.classes {
            return Some("class counts differ".into());
        }
        if self.fours != other.fours {
            return Some("four bits differ".into());
        }
        if self.fives != other.fives {
            return Some("five bits differ".into());
        }
        let live = self.live_net().is_some();
        if live && other.net.is_some() && self.acc != other.acc {
            return Some("network accumulators differ".into());
        }
        None
    }
}

/// The count network's inputs of a cell with `codes` for colour `c`'s accumulator under
/// `rule`: `c`'s code in its table, and the other colour's in the other's (which only a pair
/// network reads).
#[inline(always)]
fn cell_inputs(rule: Rule, c: usize, codes: [u16; 2]) -> (usize, usize) {
    let base = |c: usize| {
        let color = if c == 0 { Color::Black } else { Color::White };
        features::table(rule, color) * pattern::PCODES
    };
    (
        base(c) + codes[c] as usize,
        base(1 - c) + codes[1 - c] as usize,
    )
}

/// Each colour's first input row under `rule` (its code counts from there).
#[cfg(target_arch = "x86_64")]
fn net_bases(rule: Rule) -> [usize; 2] {
    [0, 1].map(|c| cell_inputs(rule, c, [0, 0]).0)
}

/// Adds (`sign` 1) or takes away (-1) an empty cell with `codes` in both accumulators `acc`.
#[inline(always)]
fn acc_cell(rule: Rule, net: &Network, acc: &mut [[i32; D]; 2], codes: [u16; 2], sign: i32) {
    for (c, acc) in acc.iter_mut().enumerate() {
        let (a, b) = cell_inputs(rule, c, codes);
        net.cell_add(acc, a, b, sign);
    }
}

/// An empty cell's codes change from `was` to `now`, in both accumulators `acc`.
#[inline(always)]
fn acc_cell_replace(
    rule: Rule,
    net: &Network,
    acc: &mut [[i32; D]; 2],
    was: [u16; 2],
    now: [u16; 2],
) {
    if was == now {
        return;
    }
    for (c, acc) in acc.iter_mut().enumerate() {
        net.cell_replace(acc, cell_inputs(rule, c, was), cell_inputs(rule, c, now));
    }
}

/// Where `Lines::after` and `refresh` send the changes of the empty cells' codes that a move
/// makes (or would make): nowhere (the tally alone), or a network's accumulators.
trait Accumulate {
    /// The cell with `codes` leaves (`sign` -1) or joins (1) the empty cells.
    fn cell(&mut self, codes: [u16; 2], sign: i32);
    /// A cell's codes change from `was` to `now`.
    fn replace(&mut self, was: [u16; 2], now: [u16; 2]);
}

impl Accumulate for () {
    #[inline(always)]
    fn cell(&mut self, _: [u16; 2], _: i32) {}
    #[inline(always)]
    fn replace(&mut self, _: [u16; 2], _: [u16; 2]) {}
}

/// The accumulators `acc` of any count network (plain or pair) under `rule`, a copy moved by
/// the walk and read back after it.
struct NetAcc<'a> {
    rule: Rule,
    net: &'a Network,
    acc: [[i32; D]; 2],
}

impl Accumulate for NetAcc<'_> {
    #[inline(always)]
    fn cell(&mut self, codes: [u16; 2], sign: i32) {
        acc_cell(self.rule, self.net, &mut self.acc, codes, sign);
    }
    #[inline(always)]
    fn replace(&mut self, was: [u16; 2], now: [u16; 2]) {
        acc_cell_replace(self.rule, self.net, &mut self.acc, was, now);
    }
}

impl<A: Accumulate> Accumulate for Option<A> {
    #[inline(always)]
    fn cell(&mut self, codes: [u16; 2], sign: i32) {
        if let Some(a) = self {
            a.cell(codes, sign);
        }
    }
    #[inline(always)]
    fn replace(&mut self, was: [u16; 2], now: [u16; 2]) {
        if let Some(a) = self {
            a.replace(was, now);
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Accumulate for simd::RegAcc<'_> {
    #[inline(always)]
    fn cell(&mut self, codes: [u16; 2], sign: i32) {
        for (c, &code) in codes.iter().enumerate() {
            self.add(c, code, sign > 0);
        }
    }
    #[inline(always)]
    fn replace(&mut self, was: [u16; 2], now: [u16; 2]) {
        for c in 0..2 {
            if was[c] != now[c] {
                simd::RegAcc::replace(self, c, was[c], now[c]);
            }
        }
    }
}

/// The colour of a stone row of the spatial network's inputs (`None`: a blocked cell).
fn stone_of_row(row: u16) -> Option<Color> {
    match row as usize {
        r if r == 2 * features::TABLES => None,
        r if r % 2 == 0 => Some(Color::Black),
        _ => Some(Color::White),
    }
}
