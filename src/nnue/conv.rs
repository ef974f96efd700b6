//! The spatial network (`spatial`) as the engine runs it: integers, kept up to date cell by
//! cell as the line patterns change (`board::lines` calls `ConvAcc::set` wherever a cell's
//! inputs change, and on an undo with the inputs it had).
//!
//! ```text
//! u[c]  = row(s) of c's inputs                        i16 per channel, 1.0 = 2^10
//! v[c]  = bias + sum over taps k of K[k] * u[c + k]   K i16 (1.0 = 2^10), v i32 (1.0 = 2^20)
//! pool  = sum over cells of max(v[c], 0) >> 8         i32, 1.0 = 2^12
//! ```
//!
//! The pool divided by `POOL` (32) is then at the count network's accumulator scale
//! (`network::ACC_ONE`, 2^17): the pool is the accumulator of a count network whose head is the
//! spatial head (`Model::with_head`), so the head is that network's integer one (AVX2 and the
//! portable path agreeing bit for bit).
//!
//! A cell's inputs changing by du moves the sums v of the (up to) nine cells whose 3×3 window
//! holds it by K[k] * du, and the pool by their rectified sums' change. Every step is exact
//! integer arithmetic, so an undo that sets the inputs back restores every sum exactly, and the
//! state after any sequence of moves equals one computed afresh (`ConvAcc::new`).
//!
//! Sizes: the rows are clipped below 4 by the trainer (a cell's u below 8: 8192 fits i16, and
//! a change of u 16384), the kernel below 2 (2048); a tap's product stays below 2^25 and a
//! cell's nine below 2^29.

use super::model::{Model, D};
use super::network::Network;
use super::spatial::{Spatial, BV, DS, EA, EB, HEAD, HEAD_PARAMS, K, NONE, ST};

const U_ONE: f32 = 1024.0;
const V_ONE: f32 = (1u32 << 20) as f32;
/// A cell's rectified sum enters the pool shifted right by this.
const POOL_SHIFT: u32 = 8;

const _: () = assert!(DS == D, "the pool is a count network's accumulator");

/// The quantised spatial network.
#[derive(Clone, Debug)]
pub struct ConvNet {
    /// Black's and white's input rows of an empty cell, then the stone rows.
    ea: Vec<[i16; DS]>,
    eb: Vec<[i16; DS]>,
    st: Vec<[i16; DS]>,
    /// The kernel, widened to i32 (the sums' type).
    kernel: [[i32; DS]; 9],
    bias: [i32; DS],
    /// The head of each side to move's colour (black's, white's).
    heads: [Network; 2],
}

fn quantise_rows(w: &[f32]) -> Vec<[i16; DS]> {
    w.chunks_exact(DS)
        .map(|r| std::array::from_fn(|c| (r[c] * U_ONE).round().clamp(-8191.0, 8191.0) as i16))
        .collect()
}

impl ConvNet {
    /// Quantises the float network (its policy weights are not used).
    pub fn quantise(m: &Spatial, provenance: &str) -> ConvNet {
        let w = &m.w;
        let kernel = std::array::from_fn(|k| {
            std::array::from_fn(|c| {
                (w[K + k * DS + c] * U_ONE).round().clamp(-2047.0, 2047.0) as i32
            })
        });
        let bias = std::array::from_fn(|c| {
            (w[BV + c] * V_ONE)
                .round()
                .clamp(-(1 << 28) as f32, (1 << 28) as f32) as i32
        });
        let heads = std::array::from_fn(|h| {
            let at = HEAD + h * HEAD_PARAMS;
            Network::quantise(&Model::with_head(&w[at..at + HEAD_PARAMS]), provenance)
        });
        ConvNet {
            ea: quantise_rows(&w[EA..EB]),
            eb: quantise_rows(&w[EB..ST]),
            st: quantise_rows(&w[ST..K]),
            kernel,
            bias,
            heads,
        }
    }

    /// The rows whose sum is the u of a cell with `inputs` (`spatial::Cells`' encoding): the
    /// two colours' rows of an empty cell, a stone's row and zeros.
    #[inline(always)]
    fn rows(&self, inputs: [u16; 2]) -> [&[i16; DS]; 2] {
        if inputs[1] == NONE {
            [&self.st[inputs[0] as usize], &[0; DS]]
        } else {
            [&self.ea[inputs[0] as usize], &self.eb[inputs[1] as usize]]
        }
    }

    /// The row u of a cell with `inputs`.
    fn u(&self, inputs: [u16; 2]) -> [i32; DS] {
        let [a, b] = self.rows(inputs);
        std::array::from_fn(|c| a[c] as i32 + b[c] as i32)
    }
}

/// The network's state on one board: every cell's inputs and sums v, and the pool; and what
/// undoes the moves begun (`begin`).
///
/// A move's changes go in two steps: `set` moves the sums of the cells reading each changed
/// cell, saving each such cell's sums the first time the move touches them; `flush` then moves
/// the pool once for each cell touched, by its rectified sum's change since the saved one. The
/// saved sums stay in the log for `undo` while a move is begun; otherwise they go at `flush`.
#[derive(Clone, Debug)]
pub struct ConvAcc {
    width: usize,
    height: usize,
    inputs: Vec<[u16; 2]>,
    v: Vec<[i32; DS]>,
    pool: [i32; DS],
    /// A cell and its sums before the move that touched it.
    log: Vec<(u32, [i32; DS])>,
    /// Where the log's entries not yet in the pool start (`flush`).
    pending: usize,
    /// Per move begun: where its log starts, and the pool before it.
    marks: Vec<(usize, [i32; DS])>,
    /// Per cell, the period (`epoch`: between two flushes or begins) that last logged it.
    stamp: Vec<u64>,
    epoch: u64,
}

/// Equal states: the same inputs, sums and pool (whatever their undo logs).
impl PartialEq for ConvAcc {
    fn eq(&self, other: &ConvAcc) -> bool {
        (self.width, self.height, &self.inputs, &self.v, self.pool)
            == (
                other.width,
                other.height,
                &other.inputs,
                &other.v,
                other.pool,
            )
    }
}

impl Eq for ConvAcc {}

/// A cell's share of the pool.
#[inline(always)]
fn pooled(v: i32) -> i32 {
    v.max(0) >> POOL_SHIFT
}

impl ConvAcc {
    /// The state of a `width` × `height` board whose cells (row-major) have `inputs`,
    /// computed from scratch.
    pub fn new(net: &ConvNet, width: usize, height: usize, inputs: Vec<[u16; 2]>) -> ConvAcc {
        assert_eq!(inputs.len(), width * height);
        let u: Vec<[i32; DS]> = inputs.iter().map(|&x| net.u(x)).collect();
        let mut v = vec![net.bias; inputs.len()];
        let mut pool = [0; DS];
        for (n, vn) in v.iter_mut().enumerate() {
            let (x, y) = ((n % width) as isize, (n / width) as isize);
            for (k, kern) in net.kernel.iter().enumerate() {
                let (qx, qy) = (x + k as isize % 3 - 1, y + k as isize / 3 - 1);
                if qx < 0 || qy < 0 || qx as usize >= width || qy as usize >= height {
                    continue;
                }
                let uq = &u[qy as usize * width + qx as usize];
                for c in 0..DS {
                    vn[c] += kern[c] * uq[c];
                }
            }
            for c in 0..DS {
                pool[c] += pooled(vn[c]);
            }
        }
        ConvAcc {
            width,
            height,
            stamp: vec![0; inputs.len()],
            inputs,
            v,
            pool,
            log: Vec::new(),
            pending: 0,
            marks: Vec::new(),
            epoch: 1,
        }
    }

    /// A move begins: the changes from here to the next `begin` are what `undo` takes back.
    #[inline]
    pub fn begin(&mut self) {
        debug_assert_eq!(self.pending, self.log.len(), "begin before a flush");
        self.marks.push((self.log.len(), self.pool));
        self.epoch += 1;
    }

    /// Takes back the last move begun: every sum and the pool as they were. The inputs are
    /// the caller's to put back (`restore`). False if no move was begun.
    #[inline]
    pub fn undo(&mut self) -> bool {
        debug_assert_eq!(self.pending, self.log.len(), "undo before a flush");
        let Some((at, pool)) = self.marks.pop() else {
            return false;
        };
        for &(n, v) in &self.log[at..] {
            self.v[n as usize] = v;
        }
        self.log.truncate(at);
        self.pending = at;
        self.pool = pool;
        self.epoch += 1;
        true
    }

    /// Cell `i`'s inputs are `inputs` again, as before the move `undo` takes back.
    #[inline]
    pub fn restore(&mut self, i: usize, inputs: [u16; 2]) {
        self.inputs[i] = inputs;
    }

    /// Drops what undoes the moves begun (their undos then set the inputs back instead).
    pub fn forget(&mut self) {
        self.flush();
        self.log.clear();
        self.pending = 0;
        self.marks.clear();
        self.epoch += 1;
    }

    /// Cell `i`'s inputs are `now` (`spatial::Cells`' encoding) from here on; the pool follows
    /// at the next `flush`.
    #[inline]
    pub fn set(&mut self, net: &ConvNet, i: usize, now: [u16; 2]) {
        self.set_with(net, i, now, avx2());
    }

    /// `set`, with AVX2 or the portable code.
    #[inline(always)]
    fn set_with(&mut self, net: &ConvNet, i: usize, now: [u16; 2], avx2: bool) {
        let was = std::mem::replace(&mut self.inputs[i], now);
        if was == now {
            return;
        }
        let [a, b] = net.rows(was);
        let [c, d] = net.rows(now);
        let mut du = [0i32; DS];
        for k in 0..DS {
            du[k] = (c[k] as i32 + d[k] as i32) - (a[k] as i32 + b[k] as i32);
        }
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2 (checked at run time).
            unsafe { self.taps_avx2(&net.kernel, i, &du) };
            return;
        }
        let _ = avx2;
        self.taps(&net.kernel, i, &du);
    }

    /// Adds `kernel[k] * du` to the sums of each cell reading cell `i` by tap k (tap k of n
    /// reads n + (k % 3 - 1, k / 3 - 1)), logging each the first time in this period.
    #[inline(always)]
    fn taps(&mut self, kernel: &[[i32; DS]; 9], i: usize, du: &[i32; DS]) {
        let (x, y) = (i % self.width, i / self.width);
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(self.width - 1));
        let (y0, y1) = (y.saturating_sub(1), (y + 1).min(self.height - 1));
        assert!(self.v.len() == self.width * self.height && self.stamp.len() == self.v.len());
        self.log.reserve(9);
        let (v, stamp) = (self.v.as_mut_ptr(), self.stamp.as_mut_ptr());
        let (log, mut logged) = (self.log.as_mut_ptr(), self.log.len());
        for ny in y0..=y1 {
            for nx in x0..=x1 {
                let (k, n) = (x + 1 - nx + 3 * (y + 1 - ny), ny * self.width + nx);
                // SAFETY: n is a cell of the board (nx, ny inside it), so inside `v` and
                // `stamp` (asserted above); at most nine entries are logged, reserved above.
                unsafe {
                    let vn = &mut *v.add(n);
                    if *stamp.add(n) != self.epoch {
                        *stamp.add(n) = self.epoch;
                        log.add(logged).write((n as u32, *vn));
                        logged += 1;
                    }
                    let kern = &kernel[k];
                    for c in 0..DS {
                        vn[c] += kern[c] * du[c];
                    }
                }
            }
        }
        // SAFETY: the entries below `logged` were written above.
        unsafe { self.log.set_len(logged) };
    }

    /// `taps` compiled for AVX2: the same integers.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn taps_avx2(&mut self, kernel: &[[i32; DS]; 9], i: usize, du: &[i32; DS]) {
        self.taps(kernel, i, du)
    }

    /// Moves the pool by the change of each cell touched since the last flush; the log keeps
    /// their old sums only while a move is begun.
    #[inline]
    pub fn flush(&mut self) {
        self.flush_with(avx2());
    }

    #[inline(always)]
    fn flush_with(&mut self, avx2: bool) {
        if self.pending == self.log.len() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2 (checked at run time).
            unsafe { self.pool_avx2() };
        } else {
            self.pool_changes();
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = avx2;
            self.pool_changes();
        }
        if self.marks.is_empty() {
            self.log.clear();
        }
        self.pending = self.log.len();
        self.epoch += 1;
    }

    #[inline(always)]
    fn pool_changes(&mut self) {
        for (n, old) in &self.log[self.pending..] {
            let new = &self.v[*n as usize];
            for c in 0..DS {
                self.pool[c] += pooled(new[c]) - pooled(old[c]);
            }
        }
    }

    /// `pool_changes` compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn pool_avx2(&mut self) {
        self.pool_changes()
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The inputs of cell `i`.
    pub fn inputs(&self, i: usize) -> [u16; 2] {
        self.inputs[i]
    }

    /// The position's score in search units for the side to move, whose colour's head is
    /// `head` (0 black, 1 white).
    #[inline]
    pub fn score(&self, net: &ConvNet, head: usize) -> i32 {
        debug_assert_eq!(self.pending, self.log.len(), "a score before a flush");
        net.heads[head].score(&self.pool, &[0; D])
    }

    /// `score` with the portable head only.
    pub fn score_scalar(&self, net: &ConvNet, head: usize) -> i32 {
        net.heads[head].score_scalar(&self.pool, &[0; D])
    }
}

/// Whether the CPU runs AVX2 (`network::simd::avx2`: asked once, `WUZI_NO_AVX2` forbids it).
#[inline(always)]
fn avx2() -> bool {
    crate::nnue::network::simd::avx2()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::geometry::{Dims, Pos};
    use crate::nnue::spatial::Cells;
    use crate::nnue::Rng;
    use crate::rules::Rule;

    /// A float network with weights large enough that cells differ and rectify.
    fn network(seed: u64) -> Spatial {
        let mut m = Spatial::new(seed);
        m.w[EA..K].iter_mut().for_each(|w| *w *= 8.0);
        // A steep head: the scores spread over hundreds of search units.
        for h in 0..2 {
            let at = HEAD + h * HEAD_PARAMS;
            m.w[at..at + HEAD_PARAMS].iter_mut().for_each(|w| *w *= 8.0);
        }
        m.clip();
        m
    }

    fn acc_of(net: &ConvNet, board: &Board) -> ConvAcc {
        let x = Cells::of(board);
        ConvAcc::new(net, x.width, x.height, x.cells)
    }

    #[test]
    fn updates_equal_a_recompute_and_the_float_score() {
        let m = network(3);
        let net = ConvNet::quantise(&m, "test");
        let mut rng = Rng(9);
        let (mut worst, mut low, mut high) = (0.0f32, i32::MAX, i32::MIN);
        for (w, h, rule) in [
            (15usize, 15usize, Rule::Freestyle),
            (9, 7, Rule::Renju),
            (20, 20, Rule::Standard),
        ] {
            let mut b = Board::with_rule(Dims::new(w as i64, h as i64).unwrap(), rule);
            let mut acc = acc_of(&net, &b);
            let mut played = Vec::new();
            for step in 0..60 {
                let undo = !played.is_empty() && rng.below(3) == 0;
                let before = Cells::of(&b);
                if undo {
                    b.undo();
                    played.pop();
                } else {
                    let empty: Vec<usize> = (0..w * h).filter(|&i| b.is_empty_index(i)).collect();
                    let i = empty[rng.below(empty.len() as u64) as usize];
                    b.play(Pos::new(i % w, i / w));
                    played.push(i);
                }
                let after = Cells::of(&b);
                // Every changed cell told, in any order: as `Lines` does.
                for (i, (was, now)) in before.cells.iter().zip(&after.cells).enumerate().rev() {
                    if was != now {
                        acc.set(&net, i, *now);
                    }
                }
                acc.flush();
                assert_eq!(acc, acc_of(&net, &b), "step {step} on {w}x{h}");
                let head = after.head;
                let (fast, scalar) = (acc.score(&net, head), acc.score_scalar(&net, head));
                assert_eq!(fast, scalar);
                let float = m.logit(&b) * 200.0;
                worst = worst.max((fast as f32 - float).abs());
                (low, high) = (low.min(fast), high.max(fast));
            }
        }
        // The integer score against the float one, in search units (200 a logit).
        assert!(worst < 6.0, "quantised score {worst} from the float one");
        assert!(high - low > 200, "scores spread over {low}..{high} only");
    }

    #[test]
    fn both_paths_give_the_same_sums() {
        let net = ConvNet::quantise(&network(6), "");
        let mut b = Board::with_rule(Dims::new(9, 8).unwrap(), Rule::Freestyle);
        for (x, y) in [(4, 4), (5, 5), (0, 0), (8, 7), (3, 5)] {
            b.play(Pos::new(x, y));
        }
        let fresh = acc_of(&net, &b);
        let mut paths = [fresh.clone(), fresh.clone()];
        let mut rng = Rng(17);
        for _ in 0..40 {
            // A cell and new inputs for it, the same for both.
            let i = rng.below(72) as usize;
            let now = if rng.below(3) == 0 {
                [rng.below(7) as u16, NONE]
            } else {
                [rng.below(1000) as u16, rng.below(1000) as u16]
            };
            let flush = rng.below(2) == 0;
            for (acc, avx2) in paths.iter_mut().zip([false, true]) {
                acc.set_with(&net, i, now, avx2 && super::avx2());
                if flush {
                    acc.flush_with(avx2 && super::avx2());
                }
            }
        }
        paths[0].flush_with(false);
        paths[1].flush_with(super::avx2());
        assert_eq!(paths[0], paths[1]);
        assert_ne!(paths[0], fresh);
        let again = ConvAcc::new(&net, 9, 8, (0..72).map(|i| paths[0].inputs(i)).collect());
        assert_eq!(paths[0], again);
    }

    #[test]
    fn the_board_keeps_the_state_through_moves_blocks_pauses_and_rule_changes() {
        let net: &'static ConvNet = Box::leak(Box::new(ConvNet::quantise(&network(8), "")));
        let mut rng = Rng(21);
        let mut b = Board::with_rule(Dims::new(12, 11).unwrap(), Rule::Standard);
        b.play(Pos::new(5, 5));
        b.set_conv(Some(net));
        let check = |b: &Board, what: &str| {
            let (_, acc) = b.line_patterns().conv().expect("kept");
            assert_eq!(*acc, acc_of(net, b), "{what}");
        };
        check(&b, "set");
        for step in 0..80 {
            let empty: Vec<usize> = (0..132).filter(|&i| b.is_empty_index(i)).collect();
            let p = empty[rng.below(empty.len() as u64) as usize];
            let p = Pos::new(p % 12, p / 12);
            match step % 10 {
                3 if b.history().len() > 1 => {
                    b.undo();
                }
                5 => b.block(p),
                7 => b.set_rule([Rule::Renju, Rule::Freestyle][step / 10 % 2]),
                9 => {
                    // A paused search leaves the state as it was.
                    b.without_network(|b| {
                        b.play(p);
                        b.undo();
                    });
                }
                _ => b.play(p),
            }
            check(&b, &format!("step {step}"));
        }
        let (_, acc) = b.line_patterns().conv().expect("kept");
        let score = b.line_patterns().conv_score(b.to_move());
        assert_eq!(score, Some(acc.score(net, b.to_move().index())));
        b.set_conv(None);
        assert!(b.line_patterns().conv().is_none());
    }
}
