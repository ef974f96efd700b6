//! The network in floating point, as the trainer fits it: per colour an accumulator, the sum of
//! an embedding row per input (`features`) weighted by its count, then a small head:
//!
//! ```text
//! a_own, a_opp = b0 + sum(count/32 * E[input])     D each (own: the side to move)
//!   (a pair network: b0 + sum over empty cells of
//!    (E[a] + clamp(G[a] + F[b], -1, 1)) / 32,        a, b: the colour's and the other's code)
//! h0 = clamp([a_own, a_opp], 0, 1)                 2D
//! h1 = clamp(W1 h0 + b1, 0, 1)                     H1
//! h2 = clamp(W2 h1 + b2, 0, 1)                     H2
//! out = w3 . h2 + b3,  win chance = sigmoid(out)
//! ```
//!
//! Trained by Adam on the squared error of the win chance. The engine's integer version
//! (quantisation, incremental accumulators, SIMD) reads these weights.

use std::io::{self, Read, Write};

use super::features::INPUTS;
use super::Rng;

/// Accumulator width.
pub const D: usize = 16;
pub const H1: usize = 32;
pub const H2: usize = 32;
/// Counts are scaled by this before they weight a row (an empty board has about 200 cells of
/// one code).
pub const COUNT_SCALE: f32 = 32.0;

const MAGIC: &[u8; 8] = b"WUZINNF2";
/// The first format: no flags word (never residual).
const MAGIC_V1: &[u8; 8] = b"WUZINNF1";
/// Flags word: `Model::residual`.
pub const FLAG_RESIDUAL: u32 = 1;
/// Flags word: `Model::pair`.
pub const FLAG_PAIR: u32 = 2;

/// Every parameter, in one vector so that the optimiser treats them alike.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub w: Vec<f32>,
    /// The network learns a correction to the classical evaluation: its output is added to
    /// `Inputs::base`, the classical score in logits (`wuzi-train --residual`).
    pub residual: bool,
    /// Each empty cell's contribution also reads the other colour's code there
    /// (`Inputs::own_pairs`): the tables G and F after the others in `w`.
    pub pair: bool,
}

/// Where each parameter block starts in `Model::w`.
const EMB: usize = 0;
const B0: usize = EMB + INPUTS * D;
const W1: usize = B0 + D;
const B1: usize = W1 + H1 * 2 * D;
const W2: usize = B1 + H1;
const B2: usize = W2 + H2 * H1;
const W3: usize = B2 + H2;
const B3: usize = W3 + H2;
pub const PARAMS: usize = B3 + 1;
const G: usize = PARAMS;
const F: usize = G + INPUTS * D;
/// Parameters of a pair network.
pub const PAIR_PARAMS: usize = F + INPUTS * D;
/// The pair term's limit: clamp(G[a] + F[b], -PAIR_LIMIT, PAIR_LIMIT).
pub const PAIR_LIMIT: f32 = 1.0;

/// `Model::blocks`: the parameters by block.
pub struct Blocks<'a> {
    pub emb: &'a [f32],
    pub b0: &'a [f32],
    pub w1: &'a [f32],
    pub b1: &'a [f32],
    pub w2: &'a [f32],
    pub b2: &'a [f32],
    pub w3: &'a [f32],
    pub b3: f32,
    /// A pair network's tables G and F (`INPUTS` rows of `D` each); empty otherwise.
    pub g: &'a [f32],
    pub f: &'a [f32],
}

/// One position's inputs: (input, count) pairs for the side to move and for the other side.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub own: Vec<(u16, u16)>,
    pub opp: Vec<(u16, u16)>,
    /// For a pair network: (input, the other colour's input, count) per distinct pair of
    /// codes on the empty cells, for the side to move and for the other side.
    pub own_pairs: Vec<(u16, u16, u16)>,
    pub opp_pairs: Vec<(u16, u16, u16)>,
    /// Added to the output: the classical evaluation in logits for a residual network, else 0.
    pub base: f32,
}

impl Inputs {
    /// The side to move's inputs and the other side's, each as counts and as pairs.
    #[allow(clippy::type_complexity)]
    fn halves(&self) -> [(&[(u16, u16)], &[(u16, u16, u16)]); 2] {
        [(&self.own, &self.own_pairs), (&self.opp, &self.opp_pairs)]
    }
}

/// What the backward pass needs from the forward one.
struct Trace {
    z0: [f32; 2 * D],
    head: HeadTrace,
}

/// A head's hidden sums and its output (before any base is added).
pub(crate) struct HeadTrace {
    z1: [f32; H1],
    z2: [f32; H2],
    pub out: f32,
}

/// The head's output for the clamped input `h0`: `head` holds the weights of
/// `h0.len()` → H1 → H2 → 1 in the order W1, b1, W2, b2, w3, b3 (rows output by output), as both
/// this model and the spatial one (`spatial`) lay them out.
pub(crate) fn head_forward(head: &[f32], h0: &[f32]) -> HeadTrace {
    let n = h0.len();
    let (b1, w2) = (H1 * n, H1 * n + H1);
    let (b2, w3) = (w2 + H2 * H1, w2 + H2 * H1 + H2);
    let b3 = w3 + H2;
    let mut z1 = [0.0f32; H1];
    for (j, z) in z1.iter_mut().enumerate() {
        let row = &head[j * n..(j + 1) * n];
        *z = head[b1 + j] + row.iter().zip(h0).map(|(a, b)| a * b).sum::<f32>();
    }
    let h1 = z1.map(clamp01);
    let mut z2 = [0.0f32; H2];
    for (j, z) in z2.iter_mut().enumerate() {
        let row = &head[w2 + j * H1..w2 + (j + 1) * H1];
        *z = head[b2 + j] + row.iter().zip(&h1).map(|(a, b)| a * b).sum::<f32>();
    }
    let h2 = z2.map(clamp01);
    let out = head[b3]
        + head[w3..b3]
            .iter()
            .zip(&h2)
            .map(|(a, b)| a * b)
            .sum::<f32>();
    HeadTrace { z1, z2, out }
}

/// For the loss (p - target)², p = sigmoid(t.out): adds the head's gradient to `grad` (laid
/// out as `head`) and the derivative by the head's input `h0` to `d_h0`; returns the loss.
pub(crate) fn head_backward(
    head: &[f32],
    grad: &mut [f32],
    h0: &[f32],
    t: &HeadTrace,
    target: f32,
    d_h0: &mut [f32],
) -> f32 {
    let p = sigmoid(t.out);
    let d_out = 2.0 * (p - target) * p * (1.0 - p);
    let n = h0.len();
    let (b1, w2) = (H1 * n, H1 * n + H1);
    let (b2, w3) = (w2 + H2 * H1, w2 + H2 * H1 + H2);
    let b3 = w3 + H2;
    let h2 = t.z2.map(clamp01);
    grad[b3] += d_out;
    let mut d_z2 = [0.0f32; H2];
    for j in 0..H2 {
        grad[w3 + j] += d_out * h2[j];
        d_z2[j] = d_out * head[w3 + j] * live(t.z2[j]);
    }
    let h1 = t.z1.map(clamp01);
    let mut d_z1 = [0.0f32; H1];
    for (j, &dz) in d_z2.iter().enumerate() {
        if dz == 0.0 {
            continue;
        }
        grad[b2 + j] += dz;
        for i in 0..H1 {
            grad[w2 + j * H1 + i] += dz * h1[i];
            d_z1[i] += dz * head[w2 + j * H1 + i];
        }
    }
    for (j, dz) in d_z1.iter_mut().enumerate() {
        *dz *= live(t.z1[j]);
        if *dz == 0.0 {
            continue;
        }
        grad[b1 + j] += *dz;
        for i in 0..n {
            grad[j * n + i] += *dz * h0[i];
            d_h0[i] += *dz * head[j * n + i];
        }
    }
    (p - target) * (p - target)
}

fn clamp01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

fn live(z: f32) -> f32 {
    (z > 0.0 && z < 1.0) as u8 as f32
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Model {
    /// Random small weights from `seed`.
    pub fn new(seed: u64) -> Model {
        Model::with_shape(seed, false)
    }

    /// Random small weights from `seed`, a pair network if `pair`.
    pub fn with_shape(seed: u64, pair: bool) -> Model {
        let mut rng = Rng(seed);
        let mut w = vec![0.0; if pair { PAIR_PARAMS } else { PARAMS }];
        let fill = |w: &mut [f32], scale: f32, rng: &mut Rng| {
            w.iter_mut().for_each(|x| *x = rng.unit() * scale);
        };
        fill(&mut w[EMB..B0], 0.05, &mut rng);
        w[B0..W1].iter_mut().for_each(|x| *x = 0.25);
        fill(&mut w[W1..B1], (1.0 / (2 * D) as f32).sqrt(), &mut rng);
        fill(&mut w[W2..B2], (1.0 / H1 as f32).sqrt(), &mut rng);
        fill(&mut w[W3..B3], (1.0 / H2 as f32).sqrt(), &mut rng);
        if pair {
            fill(&mut w[G..PAIR_PARAMS], 0.05, &mut rng);
        }
        Model {
            w,
            residual: false,
            pair,
        }
    }

    /// A count network with a zero embedding whose head is `head` (`head_forward`'s layout
    /// for `D` inputs) reading the side to move's half of its input, the other half weighted
    /// zero: another network's head in the form the engine's integer head runs
    /// (`nnue::conv`).
    pub(crate) fn with_head(head: &[f32]) -> Model {
        assert_eq!(head.len(), H1 * D + PARAMS - B1, "a head of D inputs");
        let mut w = vec![0.0; PARAMS];
        for j in 0..H1 {
            let at = W1 + j * 2 * D;
            w[at..at + D].copy_from_slice(&head[j * D..(j + 1) * D]);
        }
        w[B1..PARAMS].copy_from_slice(&head[H1 * D..]);
        Model {
            w,
            residual: false,
            pair: false,
        }
    }

    /// The number of parameters (`w.len()`).
    pub fn params(&self) -> usize {
        self.w.len()
    }

    /// One (a, b) cell's embedding contribution, before the count's weight.
    fn pair_row(&self, a: usize, b: usize, k: usize) -> f32 {
        let w = &self.w;
        let inner = w[G + a * D + k] + w[F + b * D + k];
        w[EMB + a * D + k] + inner.clamp(-PAIR_LIMIT, PAIR_LIMIT)
    }

    fn forward(&self, x: &Inputs) -> Trace {
        let w = &self.w;
        let mut z0 = [0.0f32; 2 * D];
        for (half, (list, pairs)) in x.halves().into_iter().enumerate() {
            let acc = &mut z0[half * D..(half + 1) * D];
            acc.copy_from_slice(&w[B0..B0 + D]);
            if self.pair {
                for &(a, b, n) in pairs {
                    let s = n as f32 / COUNT_SCALE;
                    for (k, v) in acc.iter_mut().enumerate() {
                        *v += s * self.pair_row(a as usize, b as usize, k);
                    }
                }
                continue;
            }
            for &(k, n) in list {
                let row = &w[EMB + k as usize * D..EMB + (k as usize + 1) * D];
                let s = n as f32 / COUNT_SCALE;
                acc.iter_mut().zip(row).for_each(|(a, r)| *a += s * r);
            }
        }
        let mut head = head_forward(&w[W1..PARAMS], &z0.map(clamp01));
        head.out += x.base;
        Trace { z0, head }
    }

    /// The parameter blocks, by name (weights row-major: output by output).
    pub fn blocks(&self) -> Blocks<'_> {
        let w = &self.w;
        Blocks {
            emb: &w[EMB..B0],
            b0: &w[B0..W1],
            w1: &w[W1..B1],
            b1: &w[B1..W2],
            w2: &w[W2..B2],
            b2: &w[B2..W3],
            w3: &w[W3..B3],
            b3: w[B3],
            g: if self.pair { &w[G..F] } else { &[] },
            f: if self.pair { &w[F..PAIR_PARAMS] } else { &[] },
        }
    }

    /// Keeps the weights inside what the engine's integers hold (`network`): the embedding
    /// below 8 in magnitude (a row of 1/32 of it at 2^17 fits i16), the hidden layers' weights
    /// below 2. The trainer calls it after each step.
    pub fn clip_hidden(&mut self) {
        let pair = if self.pair { G..PAIR_PARAMS } else { 0..0 };
        for (range, limit) in [
            (EMB..B0, 7.99),
            (W1..B1, 1.99),
            (W2..B2, 1.99),
            (pair, 3.99),
        ] {
            self.w[range]
                .iter_mut()
                .for_each(|x| *x = x.clamp(-limit, limit));
        }
    }

    /// The win chance's log-odds for the side to move.
    pub fn logit(&self, x: &Inputs) -> f32 {
        self.forward(x).head.out
    }

    /// The win chance for the side to move.
    pub fn predict(&self, x: &Inputs) -> f32 {
        sigmoid(self.forward(x).head.out)
    }

    /// Adds the gradient of (p - target)² to `grad`; returns the loss.
    pub fn backward(&self, x: &Inputs, target: f32, grad: &mut [f32]) -> f32 {
        let w = &self.w;
        let t = self.forward(x);
        let mut d_z0 = [0.0f32; 2 * D];
        let (head, head_grad) = (&w[W1..PARAMS], &mut grad[W1..PARAMS]);
        let h0 = t.z0.map(clamp01);
        let loss = head_backward(head, head_grad, &h0, &t.head, target, &mut d_z0);
        for (half, (list, pairs)) in x.halves().into_iter().enumerate() {
            let mut d_acc = [0.0f32; D];
            for k in 0..D {
                d_acc[k] = d_z0[half * D + k] * live(t.z0[half * D + k]);
                grad[B0 + k] += d_acc[k];
            }
            if self.pair {
                for &(a, b, n) in pairs {
                    let (a, b) = (a as usize, b as usize);
                    let s = n as f32 / COUNT_SCALE;
                    for (k, d) in d_acc.iter().enumerate() {
                        let g = s * d;
                        grad[EMB + a * D + k] += g;
                        let inner = w[G + a * D + k] + w[F + b * D + k];
                        if inner.abs() < PAIR_LIMIT {
                            grad[G + a * D + k] += g;
                            grad[F + b * D + k] += g;
                        }
                    }
                }
                continue;
            }
            for &(k, n) in list {
                let s = n as f32 / COUNT_SCALE;
                let row = &mut grad[EMB + k as usize * D..EMB + (k as usize + 1) * D];
                row.iter_mut().zip(&d_acc).for_each(|(g, d)| *g += s * d);
            }
        }
        loss
    }

    /// Writes the weights with a provenance text (data, command, seed, loss).
    pub fn save(&self, w: &mut impl Write, provenance: &str) -> io::Result<()> {
        w.write_all(MAGIC)?;
        let flags = (self.residual as u32 * FLAG_RESIDUAL) | (self.pair as u32 * FLAG_PAIR);
        w.write_all(&flags.to_le_bytes())?;
        write_body(w, [INPUTS, D, H1, H2], provenance, &self.w)
    }

    /// Reads weights written by `save`; a file of another shape or a short one is an error.
    pub fn load(r: &mut impl Read) -> io::Result<(Model, String)> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        let mut flags = 0;
        if &magic == MAGIC {
            let mut b = [0u8; 4];
            r.read_exact(&mut b)?;
            flags = u32::from_le_bytes(b);
            if flags & !(FLAG_RESIDUAL | FLAG_PAIR) != 0 {
                return Err(bad(format!("unknown network flags {flags:#x}")));
            }
        } else if &magic != MAGIC_V1 {
            return Err(bad("not a Wuzi float network (no WUZINNF header)".into()));
        }
        let pair = flags & FLAG_PAIR != 0;
        let params = if pair { PAIR_PARAMS } else { PARAMS };
        let (w, text) = read_body(r, [INPUTS, D, H1, H2], params)?;
        let residual = flags & FLAG_RESIDUAL != 0;
        Ok((Model { w, residual, pair }, text))
    }
}

/// A float network file after its magic (and flags): the shape, the provenance text's length,
/// the text, then the weights, all little-endian.
pub(crate) fn write_body(
    w: &mut impl Write,
    shape: [usize; 4],
    provenance: &str,
    weights: &[f32],
) -> io::Result<()> {
    for v in shape.into_iter().chain([provenance.len()]) {
        w.write_all(&(v as u32).to_le_bytes())?;
    }
    w.write_all(provenance.as_bytes())?;
    for x in weights {
        w.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}

/// Reads what `write_body` wrote: `params` weights and the provenance text; another shape, or a
/// short file, is an error.
pub(crate) fn read_body(
    r: &mut impl Read,
    shape: [usize; 4],
    params: usize,
) -> io::Result<(Vec<f32>, String)> {
    let mut dims = [0u32; 5];
    for d in &mut dims {
        let mut b = [0u8; 4];
        r.read_exact(&mut b)?;
        *d = u32::from_le_bytes(b);
    }
    if dims[..4].iter().zip(shape).any(|(&a, b)| a as usize != b) {
        let why = format!("network shape {:?}, this build has {shape:?}", &dims[..4]);
        return Err(io::Error::new(io::ErrorKind::InvalidData, why));
    }
    let mut text = vec![0u8; dims[4] as usize];
    r.read_exact(&mut text)?;
    let mut bytes = vec![0u8; params * 4];
    r.read_exact(&mut bytes)?;
    let w = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((w, String::from_utf8_lossy(&text).into_owned()))
}

/// Adam over a model's parameters.
pub struct Adam {
    pub lr: f32,
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    /// For a model of `params` parameters.
    pub fn new(lr: f32, params: usize) -> Adam {
        Adam {
            lr,
            m: vec![0.0; params],
            v: vec![0.0; params],
            t: 0,
        }
    }

    /// One step with the mean gradient `grad` (summed over `n` samples); clears `grad`.
    pub fn step(&mut self, weights: &mut [f32], grad: &mut [f32], n: usize) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        let scale = 1.0 / n.max(1) as f32;
        let moments = self.m.iter_mut().zip(self.v.iter_mut());
        for ((w, g), (m, v)) in weights.iter_mut().zip(grad.iter_mut()).zip(moments) {
            let gs = *g * scale;
            *g = 0.0;
            if gs == 0.0 && *m == 0.0 {
                continue;
            }
            *m = B1 * *m + (1.0 - B1) * gs;
            *v = B2 * *v + (1.0 - B2) * gs * gs;
            *w -= self.lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Inputs {
        Inputs {
            own: vec![(3, 40), (100, 5), (700, 1)],
            opp: vec![(3, 38), (101, 7), (702, 2)],
            base: 0.3,
            ..Inputs::default()
        }
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let m = Model::new(3);
        let x = sample();
        let target = 0.8;
        let mut grad = vec![0.0; PARAMS];
        m.backward(&x, target, &mut grad);
        let loss = |m: &Model| {
            let p = m.predict(&x) as f64;
            (p - target as f64) * (p - target as f64)
        };
        let at = [
            EMB + 3 * D,
            EMB + 100 * D + 5,
            B0 + 2,
            W1 + 7,
            B1 + 3,
            W2 + 40,
            B2 + 1,
            W3 + 4,
            B3,
        ];
        check_gradient(&m, &grad, &at, loss);
    }

    /// The analytic gradient `grad` against central differences of `loss` at parameters `at`.
    fn check_gradient(m: &Model, grad: &[f32], at: &[usize], loss: impl Fn(&Model) -> f64) {
        for &i in at {
            // A small step (a larger one crosses the clamps' corners), so float32's rounding
            // allows only a tolerance of a tenth.
            let h = 2e-4;
            let (mut up, mut down) = (m.clone(), m.clone());
            up.w[i] += h;
            down.w[i] -= h;
            let numeric = ((loss(&up) - loss(&down)) / (2.0 * h as f64)) as f32;
            assert!(
                (numeric - grad[i]).abs() <= 0.1 * numeric.abs().max(1e-3),
                "parameter {i}: analytic {} numeric {numeric}",
                grad[i]
            );
        }
    }

    #[test]
    fn a_pair_network_s_gradient_matches_finite_differences() {
        let mut m = Model::with_shape(3, true);
        // One pair inside the clamp, one at its limit (no gradient to G and F there).
        m.w[G + 5 * D] = 3.0;
        let x = Inputs {
            own_pairs: vec![(3, 5, 40), (100, 7, 5)],
            opp_pairs: vec![(5, 3, 38), (7, 100, 2)],
            base: 0.1,
            ..Inputs::default()
        };
        let target = 0.2;
        let mut grad = vec![0.0; m.params()];
        m.backward(&x, target, &mut grad);
        let loss = |m: &Model| {
            let p = m.predict(&x) as f64;
            (p - target as f64) * (p - target as f64)
        };
        let at = [
            EMB + 3 * D + 1,
            EMB + 5 * D,
            G + 3 * D + 2,
            G + 100 * D + 4,
            F + 5 * D + 2,
            F + 7 * D + 9,
            G + 5 * D,
            W1 + 3,
        ];
        check_gradient(&m, &grad, &at, loss);
        assert_eq!(grad[G + 5 * D], 0.0);
    }

    #[test]
    fn adam_fits_one_sample() {
        let mut m = Model::new(5);
        let mut opt = Adam::new(0.01, m.params());
        let x = sample();
        let mut grad = vec![0.0; PARAMS];
        let first = m.backward(&x, 0.9, &mut grad.clone());
        for _ in 0..300 {
            m.backward(&x, 0.9, &mut grad);
            opt.step(&mut m.w, &mut grad, 1);
        }
        let last = m.backward(&x, 0.9, &mut grad);
        assert!(last < first / 10.0, "{first} -> {last}");
    }

    #[test]
    fn weights_save_and_load_and_bad_files_are_refused() {
        let m = Model::new(9);
        let mut bytes = Vec::new();
        m.save(&mut bytes, "seed 9").unwrap();
        let (back, text) = Model::load(&mut bytes.as_slice()).unwrap();
        assert_eq!((back, text.as_str()), (m, "seed 9"));
        assert!(Model::load(&mut &bytes[..bytes.len() - 1]).is_err());
        let mut other = bytes.clone();
        other[12] = 99;
        let e = Model::load(&mut other.as_slice()).unwrap_err();
        assert!(e.to_string().contains("shape"), "{e}");
        assert!(Model::load(&mut &b"WUZIDATA"[..]).is_err());
        // A residual network keeps its flag; the first format (no flags word) still loads.
        let mut r = Model::new(4);
        r.residual = true;
        let mut bytes = Vec::new();
        r.save(&mut bytes, "residual").unwrap();
        assert_eq!(Model::load(&mut bytes.as_slice()).unwrap().0, r);
        let mut v1 = b"WUZINNF1".to_vec();
        v1.extend_from_slice(&bytes[12..]);
        let (old, _) = Model::load(&mut v1.as_slice()).unwrap();
        assert_eq!((old.residual, old.w), (false, r.w));
        let mut flags = bytes.clone();
        flags[8] = 6;
        assert!(Model::load(&mut flags.as_slice()).is_err());
    }
}
