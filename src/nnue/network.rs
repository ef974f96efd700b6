//! The network as the engine runs it: integers quantised from the float model
//! (`model::Model`), its file format, and the evaluation from two accumulators.
//!
//! ```text
//! acc[c] = b0 + sum over empty cells of emb[table(c) row, code of c]   i32, 1.0 = ACC_ONE
//!   (a pair network: + clamp(g[c's code] + f[the other colour's code], -PAIR_ONE, PAIR_ONE))
//! h0 = clamp(acc, 0, ACC_ONE) >> 5                                  i16 0..=4096 (own, opp)
//! h1 = clamp((b1 + W1 h0) >> 12, 0, 4096)                          W1 i16, 1.0 = 4096
//! h2 = clamp((b2 + W2 h1) >> 12, 0, 4096)                          W2 i16
//! out = b3 + w3 . h2                                               w3 i16, in i64
//! score = out * 200 / 2^24                                         the float logit x 200
//! ```
//!
//! Precision decides the widths. Most empty cells share a few codes, so a row's rounding error
//! adds up over hundreds of cells: with 1.0 at 2^17 a row still fits i16 (|row| < 8 in float)
//! and a 32x32 board's thousand rows need i32 accumulators. The head is i16 x i16 into i32
//! (`madd`): with 8-bit activations and weights (127 levels, 1.0 = 64) the scores were 18.5
//! units from the float model's on average, 112 at worst. The hidden weights stay below 2 in
//! magnitude (the trainer clips them), so a layer's sum stays below 2^31. Every sum is exact
//! integer arithmetic: the AVX2 path and the portable one agree bit for bit.

use std::io::{self, Read, Write};

use super::features::INPUTS;
use super::model::{Model, COUNT_SCALE, D, H1, H2, PAIR_LIMIT};

/// An accumulator value of 1.0 (where the first clamp saturates).
pub const ACC_ONE: i32 = 1 << 17;
/// A pair term's limit in accumulator units (`model::PAIR_LIMIT` over `COUNT_SCALE`).
pub const PAIR_ONE: i32 = (PAIR_LIMIT * ACC_ONE as f32 / COUNT_SCALE) as i32;
/// Activations: 1.0 is 4096 (`ACC_ONE >> ACC_TO_H`).
const H_SHIFT: u32 = 12;
const H_ONE: i32 = 1 << H_SHIFT;
const ACC_TO_H: u32 = 5;
/// Weights of the hidden and output layers: 1.0 is 4096, the hidden ones below 2.
const W_ONE: f32 = H_ONE as f32;
const W_LIMIT: i64 = 2 * H_ONE as i64 - 1;
/// The output's 1.0 (one logit unit): activation times weight.
const OUT_SCALE: i64 = 1 << (2 * H_SHIFT);
/// Search units per logit (the protocol's win-rate scale).
pub const SCORE_PER_LOGIT: i64 = 200;

const MAGIC: &[u8; 8] = b"WUZINNQ1";

/// An embedding row, aligned to a cache line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(align(64))]
struct Row([i32; D]);

impl AsRef<[i32; D]> for Row {
    fn as_ref(&self) -> &[i32; D] {
        &self.0
    }
}

fn widen(emb: &[i16]) -> Vec<Row> {
    emb.chunks_exact(D)
        .map(|r| Row(std::array::from_fn(|k| r[k] as i32)))
        .collect()
}
use super::model::{FLAG_PAIR, FLAG_RESIDUAL};

/// A pair network's second and third tables (`Model::pair`), as stored and widened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairTables {
    pub g: Vec<i16>,
    pub f: Vec<i16>,
    g_wide: Vec<Row>,
    f_wide: Vec<Row>,
}

impl PairTables {
    fn new(g: Vec<i16>, f: Vec<i16>) -> PairTables {
        PairTables {
            g_wide: widen(&g),
            f_wide: widen(&f),
            g,
            f,
        }
    }
}

/// The quantised network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// `INPUTS` rows of `D`: a cell's contribution (already divided by `COUNT_SCALE`).
    pub emb: Vec<i16>,
    /// `emb` widened, one aligned row an input.
    wide: Vec<Row>,
    pub b0: [i32; D],
    /// Row `j` holds output `j`'s weights over `[own, opp]`.
    pub w1: [[i16; 2 * D]; H1],
    pub b1: [i32; H1],
    pub w2: [[i16; H1]; H2],
    pub b2: [i32; H2],
    pub w3: [i16; H2],
    pub b3: i64,
    /// The output corrects the classical evaluation (`Model::residual`): the engine adds it.
    pub residual: bool,
    /// A pair network's G and F tables (`Model::pair`).
    pub pair: Option<PairTables>,
    /// Where the weights came from (data, commands, seed, loss), as the trainer wrote it.
    pub provenance: String,
}

fn q<T: TryFrom<i64> + Copy>(x: f32, one: f32, lo: i64, hi: i64) -> T {
    let v = ((x * one).round() as i64).clamp(lo, hi);
    T::try_from(v).ok().expect("clamped into range")
}

impl Network {
    /// A network with embedding `emb` and every other weight zero (to be filled in).
    fn zeroed(emb: Vec<i16>, residual: bool, provenance: String) -> Network {
        Network {
            wide: widen(&emb),
            emb,
            b0: [0; D],
            w1: [[0; 2 * D]; H1],
            b1: [0; H1],
            w2: [[0; H1]; H2],
            b2: [0; H2],
            w3: [0; H2],
            b3: 0,
            residual,
            pair: None,
            provenance,
        }
    }

    /// Quantises a float model; weights beyond the integer range are clamped (the trainer
    /// keeps the hidden ones inside it).
    pub fn quantise(m: &Model, provenance: &str) -> Network {
        let f = m.blocks();
        let acc_one = ACC_ONE as f32;
        // A table of rows: a cell's contribution, divided by COUNT_SCALE, at ACC_ONE.
        let table = |t: &[f32]| -> Vec<i16> {
            t.iter()
                .map(|&x| q::<i16>(x / COUNT_SCALE, acc_one, -32767, 32767))
                .collect()
        };
        let mut net = Network::zeroed(table(f.emb), m.residual, provenance.to_string());
        if m.pair {
            net.pair = Some(PairTables::new(table(f.g), table(f.f)));
        }
        // Biases up to 16 in float: with the weights' limit a layer's sum stays below 2^31.
        let big = 1i64 << 28;
        for k in 0..D {
            net.b0[k] = q(f.b0[k], acc_one, -big, big);
        }
        let sum_one = OUT_SCALE as f32;
        for j in 0..H1 {
            for i in 0..2 * D {
                net.w1[j][i] = q(f.w1[j * 2 * D + i], W_ONE, -W_LIMIT, W_LIMIT);
            }
            net.b1[j] = q(f.b1[j], sum_one, -big, big);
        }
        for j in 0..H2 {
            for i in 0..H1 {
                net.w2[j][i] = q(f.w2[j * H1 + i], W_ONE, -W_LIMIT, W_LIMIT);
            }
            net.b2[j] = q(f.b2[j], sum_one, -big, big);
        }
        for j in 0..H2 {
            net.w3[j] = q(f.w3[j], W_ONE, -32767, 32767);
        }
        net.b3 = q(f.b3, sum_one, -big, big);
        net
    }

    /// The embedding row of input `k`, widened to i32 (the accumulators' type, so that an
    /// update is plain adds).
    #[inline(always)]
    pub fn row(&self, k: usize) -> &[i32; D] {
        self.wide[k].as_ref()
    }

    /// `acc += sign * contribution` of an empty cell where the accumulator's colour has input
    /// `a` and the other colour input `b`: the row of `a`, and for a pair network the clamped
    /// sum of `g[a]` and `f[b]`.
    #[inline(always)]
    pub fn cell_add(&self, acc: &mut [i32; D], a: usize, b: usize, sign: i32) {
        match &self.pair {
            None => row_add(acc, self.row(a), sign),
            Some(p) => row_add(acc, &self.pair_cell(p, a, b), sign),
        }
    }

    /// A pair network's row of a cell with inputs `a` and `b`.
    #[inline(always)]
    fn pair_cell(&self, p: &PairTables, a: usize, b: usize) -> [i32; D] {
        pair_row(self.row(a), p.g_wide[a].as_ref(), p.f_wide[b].as_ref())
    }

    /// The cell's inputs change from `was` (a, b as in `cell_add`) to `now`.
    #[inline(always)]
    pub fn cell_replace(&self, acc: &mut [i32; D], was: (usize, usize), now: (usize, usize)) {
        match &self.pair {
            None if was.0 != now.0 => row_replace(acc, self.row(was.0), self.row(now.0)),
            None => {}
            Some(_) if was == now => {}
            Some(p) => {
                let (old, new) = (
                    self.pair_cell(p, was.0, was.1),
                    self.pair_cell(p, now.0, now.1),
                );
                row_replace(acc, &old, &new)
            }
        }
    }

    /// The position's score for the side to move from the accumulators of the side to move
    /// (`own`) and of the other side, in search units.
    #[inline]
    pub fn score(&self, own: &[i32; D], opp: &[i32; D]) -> i32 {
        let out = if simd::avx2() {
            // SAFETY: the CPU has AVX2 (checked at run time).
            unsafe { simd::head_avx2(self, own, opp) }
        } else {
            head_scalar(self, &first_clamp(own, opp))
        };
        scaled(out)
    }

    /// The score from accumulators with the portable code only (tests compare the two paths).
    pub fn score_scalar(&self, own: &[i32; D], opp: &[i32; D]) -> i32 {
        scaled(head_scalar(self, &first_clamp(own, opp)))
    }

    /// Writes the network: magic, shape, provenance, then the integers little-endian.
    pub fn save(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(MAGIC)?;
        let flags =
            (self.residual as u32 * FLAG_RESIDUAL) | (self.pair.is_some() as u32 * FLAG_PAIR);
        w.write_all(&flags.to_le_bytes())?;
        for v in [INPUTS, D, H1, H2, self.provenance.len()] {
            w.write_all(&(v as u32).to_le_bytes())?;
        }
        w.write_all(self.provenance.as_bytes())?;
        let mut out = Vec::new();
        self.emb.iter().for_each(|x| out.extend(x.to_le_bytes()));
        if let Some(p) = &self.pair {
            p.g.iter().for_each(|x| out.extend(x.to_le_bytes()));
            p.f.iter().for_each(|x| out.extend(x.to_le_bytes()));
        }
        self.b0.iter().for_each(|x| out.extend(x.to_le_bytes()));
        self.w1
            .iter()
            .flatten()
            .for_each(|x| out.extend(x.to_le_bytes()));
        self.b1.iter().for_each(|x| out.extend(x.to_le_bytes()));
        self.w2
            .iter()
            .flatten()
            .for_each(|x| out.extend(x.to_le_bytes()));
        self.b2.iter().for_each(|x| out.extend(x.to_le_bytes()));
        self.w3.iter().for_each(|x| out.extend(x.to_le_bytes()));
        out.extend(self.b3.to_le_bytes());
        w.write_all(&out)
    }

    /// Reads a network written by `save`. Another format, another shape, a short file or bytes
    /// after the end are errors that say which.
    pub fn load(bytes: &[u8]) -> Result<Network, String> {
        let mut r = bytes;
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)
            .map_err(|_| "too short for a network header".to_string())?;
        if &magic != MAGIC {
            return Err(if magic.starts_with(b"WUZINNF") {
                "a float network: quantise it with wuzi-train --quantise".into()
            } else {
                "not a Wuzi network (no WUZINNQ1 header)".into()
            });
        }
        let mut b = [0u8; 4];
        r.read_exact(&mut b)
            .map_err(|_| "too short for a network header".to_string())?;
        let flags = u32::from_le_bytes(b);
        if flags & !(FLAG_RESIDUAL | FLAG_PAIR) != 0 {
            return Err(format!("unknown network flags {flags:#x}"));
        }
        let pair = flags & FLAG_PAIR != 0;
        let mut dims = [0u32; 5];
        for d in &mut dims {
            let mut b = [0u8; 4];
            r.read_exact(&mut b)
                .map_err(|_| "too short for a network header".to_string())?;
            *d = u32::from_le_bytes(b);
        }
        if dims[..4] != [INPUTS as u32, D as u32, H1 as u32, H2 as u32] {
            return Err(format!(
                "network shape {:?}, this build reads {:?}",
                &dims[..4],
                [INPUTS, D, H1, H2]
            ));
        }
        let text_len = dims[4] as usize;
        let tables = if pair { 3 } else { 1 };
        let body = tables * INPUTS * D * 2
            + D * 4
            + H1 * 2 * D * 2
            + H1 * 4
            + H2 * H1 * 2
            + H2 * 4
            + H2 * 2
            + 8;
        if r.len() != text_len + body {
            return Err(format!(
                "network of {} bytes, its header says {}",
                bytes.len(),
                bytes.len() - r.len() + text_len + body
            ));
        }
        let provenance = String::from_utf8_lossy(&r[..text_len]).into_owned();
        let mut at = text_len;
        let mut take = |n: usize| {
            let s = &r[at..at + n];
            at += n;
            s
        };
        let i16s = |b: &[u8]| -> Vec<i16> {
            b.chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect()
        };
        let i32s = |b: &[u8]| -> Vec<i32> {
            b.chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let emb = i16s(take(INPUTS * D * 2));
        let mut net = Network::zeroed(emb, flags & FLAG_RESIDUAL != 0, provenance);
        if pair {
            let g = i16s(take(INPUTS * D * 2));
            net.pair = Some(PairTables::new(g, i16s(take(INPUTS * D * 2))));
        }
        net.b0.copy_from_slice(&i32s(take(D * 4)));
        for row in &mut net.w1 {
            row.copy_from_slice(&i16s(take(2 * D * 2)));
        }
        net.b1.copy_from_slice(&i32s(take(H1 * 4)));
        for row in &mut net.w2 {
            row.copy_from_slice(&i16s(take(H1 * 2)));
        }
        net.b2.copy_from_slice(&i32s(take(H2 * 4)));
        net.w3.copy_from_slice(&i16s(take(H2 * 2)));
        let b = take(8);
        net.b3 = i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        Ok(net)
    }
}

/// `acc += sign * row`, with AVX2 when the CPU has it (the same integers either way).
#[inline(always)]
pub fn row_add(acc: &mut [i32; D], row: &[i32; D], sign: i32) {
    if simd::avx2() {
        // SAFETY: the CPU has AVX2 (checked at run time).
        unsafe { simd::row_add(acc, row, sign) }
    } else {
        for (a, &r) in acc.iter_mut().zip(row) {
            *a += sign * r;
        }
    }
}

/// `acc += new - old`, with AVX2 when the CPU has it.
#[inline(always)]
pub fn row_replace(acc: &mut [i32; D], old: &[i32; D], new: &[i32; D]) {
    if simd::avx2() {
        // SAFETY: the CPU has AVX2 (checked at run time).
        unsafe { simd::row_replace(acc, old, new) }
    } else {
        for ((a, &o), &n) in acc.iter_mut().zip(old).zip(new) {
            *a += n - o;
        }
    }
}

/// A pair network's cell row: `e + clamp(g + f, -PAIR_ONE, PAIR_ONE)`, with AVX2 when the CPU
/// has it.
#[inline(always)]
pub fn pair_row(e: &[i32; D], g: &[i32; D], f: &[i32; D]) -> [i32; D] {
    if simd::avx2() {
        // SAFETY: the CPU has AVX2 (checked at run time).
        unsafe { simd::pair_row(e, g, f) }
    } else {
        std::array::from_fn(|k| e[k] + (g[k] + f[k]).clamp(-PAIR_ONE, PAIR_ONE))
    }
}

/// The first clamp: both accumulators as activations, the side to move's first.
#[inline(always)]
fn first_clamp(own: &[i32; D], opp: &[i32; D]) -> [i16; 2 * D] {
    let mut h0 = [0i16; 2 * D];
    for k in 0..D {
        h0[k] = (own[k].clamp(0, ACC_ONE) >> ACC_TO_H) as i16;
        h0[D + k] = (opp[k].clamp(0, ACC_ONE) >> ACC_TO_H) as i16;
    }
    h0
}

/// The head's output `out` (in `OUT_SCALE` units) in search units.
#[inline(always)]
fn scaled(out: i64) -> i32 {
    (out * SCORE_PER_LOGIT / OUT_SCALE) as i32
}

/// A hidden layer's activation from its sum.
#[inline(always)]
fn activate(sum: i32) -> i16 {
    (sum >> H_SHIFT).clamp(0, H_ONE) as i16
}

/// The output from the last hidden layer (in `OUT_SCALE` units), shared by both paths.
#[inline(always)]
fn output(net: &Network, h2: &[i16; H2]) -> i64 {
    let dot: i64 = h2
        .iter()
        .zip(&net.w3)
        .map(|(&h, &w)| h as i64 * w as i64)
        .sum();
    net.b3 + dot
}

/// The head after the first clamp, portable: the output in `OUT_SCALE` units.
pub fn head_scalar(net: &Network, h0: &[i16; 2 * D]) -> i64 {
    let mut h1 = [0i16; H1];
    for (j, h) in h1.iter_mut().enumerate() {
        let dot: i32 = h0
            .iter()
            .zip(&net.w1[j])
            .map(|(&x, &w)| x as i32 * w as i32)
            .sum();
        *h = activate(net.b1[j] + dot);
    }
    let mut h2 = [0i16; H2];
    for (j, h) in h2.iter_mut().enumerate() {
        let dot: i32 = h1
            .iter()
            .zip(&net.w2[j])
            .map(|(&x, &w)| x as i32 * w as i32)
            .sum();
        *h = activate(net.b2[j] + dot);
    }
    output(net, &h2)
}

#[cfg(target_arch = "x86_64")]
pub mod simd {
    use super::{Network, D, H1, H2, H_ONE, H_SHIFT};
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    static HAS_AVX2: AtomicU8 = AtomicU8::new(2);

    /// Whether the CPU runs AVX2 (asked once), and `WUZI_NO_AVX2` does not forbid it.
    #[inline(always)]
    pub fn avx2() -> bool {
        match HAS_AVX2.load(Ordering::Relaxed) {
            0 => false,
            1 => true,
            _ => {
                let yes = std::is_x86_feature_detected!("avx2")
                    && std::env::var_os("WUZI_NO_AVX2").is_none();
                HAS_AVX2.store(yes as u8, Ordering::Relaxed);
                yes
            }
        }
    }

    /// Sums each of eight vectors of eight i32 into one lane each, in order.
    #[inline(always)]
    unsafe fn hsum8(v: [__m256i; 8]) -> __m256i {
        // ab = [v0 v1 v2 v3 sums of lanes 0..4 | the same of lanes 4..8], cd for v4..v7.
        let ab = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
        let cd = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
        let low = _mm256_permute2x128_si256(ab, cd, 0x20);
        let high = _mm256_permute2x128_si256(ab, cd, 0x31);
        _mm256_add_epi32(low, high)
    }

    /// Sixteen i32 lanes (two vectors, in order), each within `0..=H_ONE`, as sixteen i16 in
    /// order in one vector.
    #[inline(always)]
    unsafe fn pack16(a: __m256i, b: __m256i) -> __m256i {
        // `packs` interleaves the 128-bit halves: a0-3 b0-3 | a4-7 b4-7; put a4-7 before b0-3.
        _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8)
    }

    /// One layer of 32 inputs and 32 outputs, `out[j] = activate(b[j] + w[j] . h)`, its input
    /// and output as two vectors of sixteen i16 in order: kept in registers from layer to
    /// layer (a vector read back from narrower stores would stall on the store buffer).
    #[inline(always)]
    unsafe fn layer(h: [__m256i; 2], w: &[[i16; 32]; 32], b: &[i32; 32]) -> [__m256i; 2] {
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi32(H_ONE);
        let mut out = [zero; 4];
        for (g, o) in out.iter_mut().enumerate() {
            let mut v = [zero; 8];
            for (k, x) in v.iter_mut().enumerate() {
                let row = &w[g * 8 + k];
                let a = _mm256_loadu_si256(row.as_ptr() as *const __m256i);
                let c = _mm256_loadu_si256(row[16..].as_ptr() as *const __m256i);
                *x = _mm256_add_epi32(_mm256_madd_epi16(h[0], a), _mm256_madd_epi16(h[1], c));
            }
            let bias = _mm256_loadu_si256(b[g * 8..].as_ptr() as *const __m256i);
            let s = _mm256_srai_epi32(_mm256_add_epi32(hsum8(v), bias), H_SHIFT as i32);
            *o = _mm256_min_epi32(_mm256_max_epi32(s, zero), one);
        }
        [pack16(out[0], out[1]), pack16(out[2], out[3])]
    }

    /// `super::first_clamp` of one accumulator held as two vectors: sixteen i16 in order.
    #[inline(always)]
    unsafe fn first_clamp(acc: [__m256i; 2]) -> __m256i {
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(super::ACC_ONE));
        let h = |x| {
            _mm256_srai_epi32(
                _mm256_min_epi32(_mm256_max_epi32(x, zero), one),
                super::ACC_TO_H as i32,
            )
        };
        pack16(h(acc[0]), h(acc[1]))
    }

    /// `super::output` of the last hidden layer held as two vectors of sixteen i16.
    #[inline(always)]
    unsafe fn output(net: &Network, h2: [__m256i; 2]) -> i64 {
        let w = net.w3.as_ptr() as *const __m256i;
        let mut sum = _mm256_setzero_si256();
        for (k, &h) in h2.iter().enumerate() {
            // Pairs of products, each below 2 * 4096 * 32768: exact in i32; then widened.
            let pairs = _mm256_madd_epi16(h, _mm256_loadu_si256(w.add(k)));
            let (lo, hi) = (
                _mm256_castsi256_si128(pairs),
                _mm256_extracti128_si256(pairs, 1),
            );
            sum = _mm256_add_epi64(sum, _mm256_cvtepi32_epi64(lo));
            sum = _mm256_add_epi64(sum, _mm256_cvtepi32_epi64(hi));
        }
        let mut lanes = [0i64; 4];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum);
        net.b3 + lanes.iter().sum::<i64>()
    }

    /// An accumulator as two vectors.
    #[inline(always)]
    unsafe fn load(a: &[i32; D]) -> [__m256i; 2] {
        let p = a.as_ptr() as *const __m256i;
        [_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))]
    }

    /// The head from both accumulators held as vectors (the side to move's first), in
    /// registers throughout.
    #[inline(always)]
    unsafe fn head_regs(net: &Network, own: [__m256i; 2], opp: [__m256i; 2]) -> i64 {
        const _: () = assert!(2 * D == 32 && H1 == 32 && H2 == 32);
        let h0 = [first_clamp(own), first_clamp(opp)];
        let h1 = layer(h0, &net.w1, &net.b1);
        let h2 = layer(h1, &net.w2, &net.b2);
        output(net, h2)
    }

    /// `super::row_add` with AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn row_add(acc: &mut [i32; D], row: &[i32; D], sign: i32) {
        const _: () = assert!(D == 16);
        let p = acc.as_mut_ptr() as *mut __m256i;
        let r = row.as_ptr() as *const __m256i;
        let s = _mm256_set1_epi32(sign);
        for k in 0..2 {
            let x = _mm256_mullo_epi32(_mm256_loadu_si256(r.add(k)), s);
            _mm256_storeu_si256(p.add(k), _mm256_add_epi32(_mm256_loadu_si256(p.add(k)), x));
        }
    }

    /// `super::row_replace` with AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn row_replace(acc: &mut [i32; D], old: &[i32; D], new: &[i32; D]) {
        let p = acc.as_mut_ptr() as *mut __m256i;
        let (o, n) = (
            old.as_ptr() as *const __m256i,
            new.as_ptr() as *const __m256i,
        );
        for k in 0..2 {
            let d = _mm256_sub_epi32(_mm256_loadu_si256(n.add(k)), _mm256_loadu_si256(o.add(k)));
            _mm256_storeu_si256(p.add(k), _mm256_add_epi32(_mm256_loadu_si256(p.add(k)), d));
        }
    }

    /// Both accumulators of a count network held in AVX2 registers while a walk moves them
    /// (`Lines::network_after`'s), so that each row update is four loads and four adds with no
    /// call and no check of the CPU. Colour `c`'s accumulator reads the row of `c`'s code,
    /// counted from `base[c]`: a plain network only (a pair network also reads the other
    /// colour's code).
    pub struct RegAcc<'a> {
        net: &'a Network,
        base: [usize; 2],
        acc: [[__m256i; 2]; 2],
    }

    impl<'a> RegAcc<'a> {
        /// Loads the accumulators `acc`.
        ///
        /// # Safety
        /// The CPU must have AVX2; every method is then safe to call, and is meant to be
        /// inlined into a function compiled for AVX2.
        #[inline(always)]
        pub unsafe fn new(net: &'a Network, base: [usize; 2], acc: &[[i32; D]; 2]) -> Self {
            RegAcc {
                net,
                base,
                acc: [load(&acc[0]), load(&acc[1])],
            }
        }

        #[inline(always)]
        fn row(&self, c: usize, code: u16) -> *const __m256i {
            self.net.wide[self.base[c] + code as usize].0.as_ptr() as *const __m256i
        }

        /// Colour `c`'s accumulator gains (`add`) or loses the row of its code `code`.
        #[inline(always)]
        pub fn add(&mut self, c: usize, code: u16, add: bool) {
            let r = self.row(c, code);
            for k in 0..2 {
                // SAFETY: `new`'s caller vouched for AVX2; `r` points at an aligned row of D.
                unsafe {
                    let x = _mm256_load_si256(r.add(k));
                    self.acc[c][k] = if add {
                        _mm256_add_epi32(self.acc[c][k], x)
                    } else {
                        _mm256_sub_epi32(self.acc[c][k], x)
                    };
                }
            }
        }

        /// Colour `c`'s code on a cell changes from `was` to `now`.
        #[inline(always)]
        pub fn replace(&mut self, c: usize, was: u16, now: u16) {
            let (o, n) = (self.row(c, was), self.row(c, now));
            for k in 0..2 {
                // SAFETY: as in `add`.
                unsafe {
                    let d =
                        _mm256_sub_epi32(_mm256_load_si256(n.add(k)), _mm256_load_si256(o.add(k)));
                    self.acc[c][k] = _mm256_add_epi32(self.acc[c][k], d);
                }
            }
        }

        /// `Network::score` with the accumulator of colour `mover` as the side to move's,
        /// from the registers.
        #[inline(always)]
        pub fn score(&self, mover: usize) -> i32 {
            // SAFETY: as in `add`.
            super::scaled(unsafe { head_regs(self.net, self.acc[mover], self.acc[1 - mover]) })
        }

        /// The accumulators as they now stand.
        #[inline(always)]
        pub fn get(&self) -> [[i32; D]; 2] {
            let mut out = [[0i32; D]; 2];
            for (o, a) in out.iter_mut().zip(&self.acc) {
                let p = o.as_mut_ptr() as *mut __m256i;
                for (k, v) in a.iter().enumerate() {
                    // SAFETY: as in `add`; `p` has room for D lanes.
                    unsafe { _mm256_storeu_si256(p.add(k), *v) };
                }
            }
            out
        }
    }

    /// `super::pair_row` with AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn pair_row(e: &[i32; D], g: &[i32; D], f: &[i32; D]) -> [i32; D] {
        let mut out = [0i32; D];
        let (pe, pg, pf) = (
            e.as_ptr() as *const __m256i,
            g.as_ptr() as *const __m256i,
            f.as_ptr() as *const __m256i,
        );
        let (lo, hi) = (
            _mm256_set1_epi32(-super::PAIR_ONE),
            _mm256_set1_epi32(super::PAIR_ONE),
        );
        let po = out.as_mut_ptr() as *mut __m256i;
        for k in 0..2 {
            let s = _mm256_add_epi32(_mm256_loadu_si256(pg.add(k)), _mm256_loadu_si256(pf.add(k)));
            let s = _mm256_min_epi32(_mm256_max_epi32(s, lo), hi);
            _mm256_storeu_si256(
                po.add(k),
                _mm256_add_epi32(_mm256_loadu_si256(pe.add(k)), s),
            );
        }
        out
    }

    /// `super::head_scalar` of `super::first_clamp(own, opp)` with AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn head_avx2(net: &Network, own: &[i32; D], opp: &[i32; D]) -> i64 {
        head_regs(net, load(own), load(opp))
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub mod simd {
    use super::{Network, D};

    #[inline(always)]
    pub fn avx2() -> bool {
        false
    }

    /// # Safety
    /// Never called: `avx2()` is false on this target.
    pub unsafe fn row_add(acc: &mut [i32; D], row: &[i32; D], sign: i32) {
        let _ = (acc, row, sign);
        unreachable!("no AVX2 on this target")
    }

    /// # Safety
    /// Never called: `avx2()` is false on this target.
    pub unsafe fn row_replace(acc: &mut [i32; D], old: &[i32; D], new: &[i32; D]) {
        let _ = (acc, old, new);
        unreachable!("no AVX2 on this target")
    }

    /// # Safety
    /// Never called: `avx2()` is false on this target.
    pub unsafe fn pair_row(e: &[i32; D], g: &[i32; D], f: &[i32; D]) -> [i32; D] {
        let _ = (e, g, f);
        unreachable!("no AVX2 on this target")
    }

    /// # Safety
    /// Never called: `avx2()` is false on this target.
    pub unsafe fn head_avx2(net: &Network, own: &[i32; D], opp: &[i32; D]) -> i64 {
        super::head_scalar(net, &super::first_clamp(own, opp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::Rng;

    fn random_net(seed: u64) -> Network {
        random_model(seed, false)
    }

    fn random_model(seed: u64, pair: bool) -> Network {
        let mut m = Model::with_shape(seed, pair);
        // Larger weights than a fresh model's, so that the layers saturate both ways.
        let mut rng = Rng(seed ^ 77);
        m.w.iter_mut().for_each(|x| *x += rng.unit() * 1.5);
        m.clip_hidden();
        Network::quantise(&m, "test")
    }

    #[test]
    fn the_avx2_head_equals_the_portable_one_bit_for_bit() {
        if !simd::avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut rng = Rng(5);
        let mut outs = std::collections::HashSet::new();
        for seed in 0..8 {
            let net = random_net(seed);
            for _ in 0..500 {
                let mut acc = || {
                    std::array::from_fn(|_| {
                        // Below zero, inside, and beyond the clamp.
                        (rng.below(3 * ACC_ONE as u64) as i64 - ACC_ONE as i64) as i32
                    })
                };
                let (own, opp): ([i32; D], [i32; D]) = (acc(), acc());
                let h0 = first_clamp(&own, &opp);
                // SAFETY: AVX2 was detected above.
                let fast = unsafe { simd::head_avx2(&net, &own, &opp) };
                assert_eq!(fast, head_scalar(&net, &h0));
                assert_eq!(net.score(&own, &opp), net.score_scalar(&own, &opp));
                // The accumulator updates too.
                let (mut a, mut b) = (own, own);
                // SAFETY: AVX2 was detected above.
                unsafe { simd::row_replace(&mut a, &opp, &own) };
                b.iter_mut()
                    .zip(&opp)
                    .zip(&own)
                    .for_each(|((x, o), n)| *x += n - o);
                assert_eq!(a, b);
                unsafe { simd::row_add(&mut a, &opp, -1) };
                b.iter_mut().zip(&opp).for_each(|(x, o)| *x -= o);
                assert_eq!(a, b);
                outs.insert(fast);
            }
        }
        assert!(outs.len() > 3000, "the outputs vary: {}", outs.len());
    }

    #[test]
    fn the_avx2_pair_row_equals_the_portable_one() {
        if !simd::avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut rng = Rng(8);
        let mut clamped = [0u32; 2];
        for _ in 0..4000 {
            let mut row = || -> [i32; D] {
                std::array::from_fn(|_| {
                    (rng.below(6 * PAIR_ONE as u64) as i64 - 3 * PAIR_ONE as i64) as i32
                })
            };
            let (e, g, f) = (row(), row(), row());
            let portable: [i32; D] =
                std::array::from_fn(|k| e[k] + (g[k] + f[k]).clamp(-PAIR_ONE, PAIR_ONE));
            // SAFETY: AVX2 was detected above.
            assert_eq!(unsafe { simd::pair_row(&e, &g, &f) }, portable);
            for k in 0..D {
                clamped[0] += (g[k] + f[k] < -PAIR_ONE) as u32;
                clamped[1] += (g[k] + f[k] > PAIR_ONE) as u32;
            }
        }
        assert!(clamped[0] > 1000 && clamped[1] > 1000, "{clamped:?}");
    }

    #[test]
    fn a_pair_network_file_loads_back() {
        let net = random_model(5, true);
        assert!(net.pair.is_some());
        let mut bytes = Vec::new();
        net.save(&mut bytes).unwrap();
        assert_eq!(Network::load(&bytes).unwrap(), net);
        // Its flag without its tables, or the tables without the flag, is refused.
        let mut flagless = bytes.clone();
        flagless[8] &= !(FLAG_PAIR as u8);
        assert!(Network::load(&flagless).unwrap_err().contains("bytes"));
        let mut plain = Vec::new();
        random_net(5).save(&mut plain).unwrap();
        plain[8] |= FLAG_PAIR as u8;
        assert!(Network::load(&plain).unwrap_err().contains("bytes"));
    }

    #[test]
    fn a_network_file_loads_back_and_bad_ones_are_refused() {
        let net = random_net(3);
        let mut bytes = Vec::new();
        net.save(&mut bytes).unwrap();
        assert_eq!(Network::load(&bytes).unwrap(), net);
        let short = Network::load(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(short.contains("bytes"), "{short}");
        let mut long = bytes.clone();
        long.push(0);
        assert!(Network::load(&long).unwrap_err().contains("bytes"));
        let mut shape = bytes.clone();
        shape[16] ^= 1;
        assert!(Network::load(&shape).unwrap_err().contains("shape"));
        assert!(Network::load(b"WUZIN").unwrap_err().contains("short"));
        assert!(Network::load(b"WUZINNF1....")
            .unwrap_err()
            .contains("float"));
        assert!(Network::load(b"GARBAGE!....")
            .unwrap_err()
            .contains("not a Wuzi"));
        // Any truncation is an error, never a panic.
        for n in 0..bytes.len().min(400) {
            assert!(Network::load(&bytes[..n]).is_err());
        }
    }
}
