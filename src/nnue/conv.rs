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

/// The network's state on one board: every cell's inputs and sums v, and the pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvAcc {
    width: usize,
    height: usize,
    inputs: Vec<[u16; 2]>,
    v: Vec<[i32; DS]>,
    pool: [i32; DS],
}

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
            inputs,
            v,
            pool,
        }
    }

    /// Cell `i`'s inputs are `now` (`spatial::Cells`' encoding) from here on.
    #[inline]
    pub fn set(&mut self, net: &ConvNet, i: usize, now: [u16; 2]) {
        let was = std::mem::replace(&mut self.inputs[i], now);
        if was == now {
            return;
        }
        let [a, b] = net.rows(was);
        let [c, d] = net.rows(now);
        let (x, y) = (i % self.width, i / self.width);
        // Tap k of cell n reads n + (k % 3 - 1, k / 3 - 1): the cells reading i are i minus it.
        let mut taps = [(0, 0); 9];
        let mut len = 0;
        for k in 0..9 {
            let (nx, ny) = ((x + 1).wrapping_sub(k % 3), (y + 1).wrapping_sub(k / 3));
            if nx < self.width && ny < self.height {
                taps[len] = (k, ny * self.width + nx);
                len += 1;
            }
        }
        let taps = &taps[..len];
        if simd::avx2() {
            // SAFETY: the CPU has AVX2 (checked at run time).
            unsafe { simd::taps_avx2(&mut self.v, taps, &net.kernel, [a, b, c, d], &mut self.pool) }
        } else {
            let du =
                std::array::from_fn(|k| (c[k] as i32 + d[k] as i32) - (a[k] as i32 + b[k] as i32));
            taps_scalar(&mut self.v, taps, &net.kernel, &du, &mut self.pool);
        }
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
        net.heads[head].score(&self.pool, &[0; D])
    }

    /// `score` with the portable head only.
    pub fn score_scalar(&self, net: &ConvNet, head: usize) -> i32 {
        net.heads[head].score_scalar(&self.pool, &[0; D])
    }
}

/// Adds `kernel[k] * du` to the sums `v[n]` of each (k, n) of `taps`, and the change of
/// their pooled values to `pool`: the portable path.
fn taps_scalar(
    v: &mut [[i32; DS]],
    taps: &[(usize, usize)],
    kernel: &[[i32; DS]; 9],
    du: &[i32; DS],
    pool: &mut [i32; DS],
) {
    for &(k, n) in taps {
        let (vn, kern) = (&mut v[n], &kernel[k]);
        for c in 0..DS {
            let old = vn[c];
            let new = old + kern[c] * du[c];
            pool[c] += pooled(new) - pooled(old);
            vn[c] = new;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{DS, POOL_SHIFT};
    use std::arch::x86_64::*;

    pub use crate::nnue::network::simd::avx2;

    /// `taps_scalar` with AVX2, the change of u given as its rows: (c + d) - (a + b) from
    /// `rows` = [a, b, c, d]. The same integers (the rows' sums and their difference fit
    /// i16: the rows stay inside ±8191).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn taps_avx2(
        v: &mut [[i32; DS]],
        taps: &[(usize, usize)],
        kernel: &[[i32; DS]; 9],
        rows: [&[i16; DS]; 4],
        pool: &mut [i32; DS],
    ) {
        const _: () = assert!(DS == 16);
        let [a, b, c, e] = rows.map(|r| _mm256_loadu_si256(r.as_ptr() as *const __m256i));
        let du = _mm256_sub_epi16(_mm256_add_epi16(c, e), _mm256_add_epi16(a, b));
        let d = [
            _mm256_cvtepi16_epi32(_mm256_castsi256_si128(du)),
            _mm256_cvtepi16_epi32(_mm256_extracti128_si256::<1>(du)),
        ];
        let pp = pool.as_mut_ptr() as *mut __m256i;
        let mut p = [_mm256_loadu_si256(pp), _mm256_loadu_si256(pp.add(1))];
        let zero = _mm256_setzero_si256();
        for &(k, n) in taps {
            let pk = kernel[k].as_ptr() as *const __m256i;
            let pv = v[n].as_mut_ptr() as *mut __m256i;
            for h in 0..2 {
                let old = _mm256_loadu_si256(pv.add(h));
                let new =
                    _mm256_add_epi32(old, _mm256_mullo_epi32(_mm256_loadu_si256(pk.add(h)), d[h]));
                let pooled_new = _mm256_srai_epi32(_mm256_max_epi32(new, zero), POOL_SHIFT as i32);
                let pooled_old = _mm256_srai_epi32(_mm256_max_epi32(old, zero), POOL_SHIFT as i32);
                p[h] = _mm256_add_epi32(p[h], _mm256_sub_epi32(pooled_new, pooled_old));
                _mm256_storeu_si256(pv.add(h), new);
            }
        }
        _mm256_storeu_si256(pp, p[0]);
        _mm256_storeu_si256(pp.add(1), p[1]);
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    use super::DS;

    #[inline(always)]
    pub fn avx2() -> bool {
        false
    }

    /// # Safety
    /// Never called: `avx2()` is false on this target.
    pub unsafe fn taps_avx2(
        _: &mut [[i32; DS]],
        _: &[(usize, usize)],
        _: &[[i32; DS]; 9],
        _: [&[i16; DS]; 4],
        _: &mut [i32; DS],
    ) {
        unreachable!("no AVX2 on this target")
    }
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
        if !simd::avx2() {
            return;
        }
        let mut rng = Rng(4);
        let mut value = |limit: u64| rng.below(2 * limit) as i32 - limit as i32;
        let kernel: [[i32; DS]; 9] = std::array::from_fn(|_| std::array::from_fn(|_| value(2048)));
        let v: Vec<[i32; DS]> = (0..12)
            .map(|_| std::array::from_fn(|_| value(1 << 22)))
            .collect();
        let rows: [[i16; DS]; 4] =
            std::array::from_fn(|_| std::array::from_fn(|_| value(8191) as i16));
        let du: [i32; DS] = std::array::from_fn(|k| {
            let r = rows.map(|r| r[k] as i32);
            (r[2] + r[3]) - (r[0] + r[1])
        });
        let pool: [i32; DS] = std::array::from_fn(|_| value(1 << 20));
        let taps = [(0, 3), (4, 7), (8, 11), (5, 0), (2, 3)];
        let (mut v1, mut p1) = (v.clone(), pool);
        taps_scalar(&mut v1, &taps, &kernel, &du, &mut p1);
        let (mut v2, mut p2) = (v.clone(), pool);
        // SAFETY: the CPU has AVX2 (checked above).
        let [a, b, c, d] = &rows;
        unsafe { simd::taps_avx2(&mut v2, &taps, &kernel, [a, b, c, d], &mut p2) };
        assert_eq!((v1, p1), (v2, p2));
        assert_ne!(p2, pool);
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
