//! A network that sees where the shapes stand (an experiment; the engine runs its integer form,
//! `conv`): every cell of the board gets a feature vector, a 3×3 depthwise convolution mixes
//! each cell's vector with its neighbours', a ReLU makes it non-linear cell by cell, and the
//! board's sum feeds a head chosen by the side to move:
//!
//! ```text
//! u[c] = A[black's input at c] + B[white's input at c]    c empty (features::table rows)
//!      = S[stone row]                                     c taken (colour, table; blocked)
//! v[c] = bv + sum over the 3×3 offsets k of K[k] * u[c + k]   (off the board: 0)
//! p    = clamp(sum over cells of max(v[c], 0) / POOL, 0, 1)           DS
//! h1   = clamp(W1 p + b1, 0, 1), h2 = clamp(W2 h1 + b2, 0, 1)        (the head of the
//! out  = w3 . h2 + b3, win chance = sigmoid(out)                      side to move's colour)
//! ```
//!
//! The count network (`model`) is the special case of a centre-only kernel with no clamp per
//! cell; this one can weigh a shape by what stands next to it (a four beside the opponent's
//! open three). Its cost in the engine is a convolution update on the nine neighbours of every
//! cell whose code changes (`conv`): about 3.3 times a classical node.

use std::io::{self, Read, Write};

use super::features::{table, INPUTS, TABLES};
use super::model::{
    head_backward, head_forward, read_body, sigmoid, write_body, HeadTrace, H1, H2,
};
use super::Rng;
use crate::board::grid::Cell;
use crate::board::pattern::PCODES;
use crate::board::{Board, Color};
use crate::rules::Rule;

/// Channels of a cell's feature vector.
pub const DS: usize = 16;
/// The board's sum of the cells' rectified features is divided by this before its clamp.
pub const POOL: f32 = 32.0;
/// Rows of the stone table: per input table a black and a white stone, then a blocked cell.
pub const STONES: usize = 2 * TABLES + 1;
/// A cell's second index where the first is a stone row.
pub const NONE: u16 = u16::MAX;

const MAGIC: &[u8; 8] = b"WUZINNS2";
/// The first format: no policy weights (read as zeros).
const MAGIC_V1: &[u8; 8] = b"WUZINNS1";

pub(crate) const EA: usize = 0;
pub(crate) const EB: usize = EA + INPUTS * DS;
pub(crate) const ST: usize = EB + INPUTS * DS;
pub(crate) const K: usize = ST + STONES * DS;
pub(crate) const BV: usize = K + 9 * DS;
pub(crate) const HEAD: usize = BV + DS;
/// One head's parameters (`model::head_forward`'s layout), offsets within it.
const W1: usize = 0;
const B1: usize = W1 + H1 * DS;
const W2: usize = B1 + H1;
const B2: usize = W2 + H2 * H1;
const W3: usize = B2 + H2;
const B3: usize = W3 + H2;
pub(crate) const HEAD_PARAMS: usize = B3 + 1;
/// The policy's weights, per side-to-move colour: a cell's move logit is their dot product
/// with the cell's rectified features.
const WP: usize = HEAD + 2 * HEAD_PARAMS;
pub const PARAMS: usize = WP + 2 * DS;
/// Parameters of a file in the first format.
const PARAMS_V1: usize = WP;

/// A position as the spatial network reads it.
#[derive(Clone, Debug, Default)]
pub struct Cells {
    pub width: usize,
    pub height: usize,
    /// Which head: 0 black to move, 1 white.
    pub head: usize,
    /// Row-major, per cell: (black's input, white's input) on an empty cell, else (a stone
    /// row, `NONE`).
    pub cells: Vec<[u16; 2]>,
    /// The cell the game played from here, for the policy.
    pub played: Option<usize>,
}

impl Cells {
    pub fn of(board: &Board) -> Cells {
        let dims = board.dims();
        let lines = board.line_patterns();
        let rule = board.rule();
        let cells = (0..dims.cells())
            .map(|i| match board.grid().cell(i) {
                Cell::Empty => empty_inputs(
                    rule,
                    [lines.code(Color::Black, i), lines.code(Color::White, i)],
                ),
                Cell::Black => stone_inputs(rule, Some(Color::Black)),
                Cell::White => stone_inputs(rule, Some(Color::White)),
                Cell::Blocked | Cell::Wall => stone_inputs(rule, None),
            })
            .collect();
        Cells {
            width: dims.width,
            height: dims.height,
            head: (board.to_move() == Color::White) as usize,
            cells,
            played: None,
        }
    }
}

/// The inputs of an empty cell where black's pattern code is `codes[0]` and white's
/// `codes[1]` under `rule`: its rows of the two tables.
#[inline(always)]
pub fn empty_inputs(rule: Rule, codes: [u16; 2]) -> [u16; 2] {
    let (tb, tw) = (table(rule, Color::Black), table(rule, Color::White));
    [
        (tb * PCODES) as u16 + codes[0],
        (tw * PCODES) as u16 + codes[1],
    ]
}

/// The inputs of a cell holding a stone of that colour, or blocked (`None`), under `rule`.
#[inline(always)]
pub fn stone_inputs(rule: Rule, stone: Option<Color>) -> [u16; 2] {
    let row = match stone {
        Some(Color::Black) => 2 * table(rule, Color::Black),
        Some(Color::White) => 2 * table(rule, Color::White) + 1,
        None => 2 * TABLES,
    };
    [row as u16, NONE]
}

/// The spatial network's weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Spatial {
    pub w: Vec<f32>,
}

struct Trace {
    u: Vec<f32>,
    v: Vec<f32>,
    z0: [f32; DS],
    head: HeadTrace,
}

fn clamp01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// Probabilities from (cell, logit) pairs.
fn softmax(logits: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
    let top = logits.iter().map(|l| l.1).fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l.1 - top).exp()).sum();
    logits
        .into_iter()
        .map(|(i, l)| (i, (l - top).exp() / sum))
        .collect()
}

fn relu(x: f32) -> f32 {
    x.max(0.0)
}

fn live(z: f32) -> f32 {
    (z > 0.0 && z < 1.0) as u8 as f32
}

/// The 3×3 neighbours of cell `i` on the board, with the kernel tap each uses.
fn neighbours(x: &Cells, i: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (cx, cy) = ((i % x.width) as isize, (i / x.width) as isize);
    (0..9).filter_map(move |k| {
        let (nx, ny) = (cx + k as isize % 3 - 1, cy + k as isize / 3 - 1);
        let inside = nx >= 0 && ny >= 0 && (nx as usize) < x.width && (ny as usize) < x.height;
        inside.then(|| (k, ny as usize * x.width + nx as usize))
    })
}

impl Spatial {
    pub fn new(seed: u64) -> Spatial {
        let mut rng = Rng(seed);
        let mut w = vec![0.0; PARAMS];
        let mut fill = |r: std::ops::Range<usize>, scale: f32| {
            w[r].iter_mut().for_each(|x| *x = rng.unit() * scale);
        };
        fill(EA..K, 0.05);
        fill(K..BV, 0.3);
        for h in 0..2 {
            let at = HEAD + h * HEAD_PARAMS;
            fill(at + W1..at + B1, (1.0 / DS as f32).sqrt());
            fill(at + W2..at + B2, (1.0 / H1 as f32).sqrt());
            fill(at + W3..at + B3, (1.0 / H2 as f32).sqrt());
        }
        w[K + 4 * DS..K + 5 * DS].iter_mut().for_each(|x| *x += 1.0);
        w[BV..HEAD].iter_mut().for_each(|x| *x = 0.02);
        Spatial { w }
    }

    fn u_row(&self, cell: [u16; 2], k: usize) -> f32 {
        let w = &self.w;
        if cell[1] == NONE {
            w[ST + cell[0] as usize * DS + k]
        } else {
            w[EA + cell[0] as usize * DS + k] + w[EB + cell[1] as usize * DS + k]
        }
    }

    fn forward(&self, x: &Cells) -> Trace {
        let w = &self.w;
        let n = x.cells.len();
        let mut u = vec![0.0f32; n * DS];
        for (i, &cell) in x.cells.iter().enumerate() {
            for k in 0..DS {
                u[i * DS + k] = self.u_row(cell, k);
            }
        }
        let mut v = vec![0.0f32; n * DS];
        let mut pool = [0.0f32; DS];
        for i in 0..n {
            let vi = &mut v[i * DS..(i + 1) * DS];
            vi.copy_from_slice(&w[BV..HEAD]);
            for (k, j) in neighbours(x, i) {
                let kern = &w[K + k * DS..K + (k + 1) * DS];
                let uj = &u[j * DS..(j + 1) * DS];
                for c in 0..DS {
                    vi[c] += kern[c] * uj[c];
                }
            }
            for c in 0..DS {
                pool[c] += relu(vi[c]);
            }
        }
        let z0 = pool.map(|p| p / POOL);
        let head = &w[HEAD + x.head * HEAD_PARAMS..HEAD + (x.head + 1) * HEAD_PARAMS];
        let head = head_forward(head, &z0.map(clamp01));
        Trace { u, v, z0, head }
    }

    /// The win chance for the side to move.
    pub fn predict(&self, x: &Cells) -> f32 {
        sigmoid(self.forward(x).head.out)
    }

    /// The policy's move logits of the empty cells, as (cell, logit), from a forward pass.
    fn logits(&self, x: &Cells, v: &[f32]) -> Vec<(usize, f32)> {
        let wp = &self.w[WP + x.head * DS..WP + (x.head + 1) * DS];
        (0..x.cells.len())
            .filter(|&i| x.cells[i][1] != NONE)
            .map(|i| {
                let vi = &v[i * DS..(i + 1) * DS];
                (i, vi.iter().zip(wp).map(|(a, b)| relu(*a) * b).sum())
            })
            .collect()
    }

    /// The empty cells' move probabilities, as (cell, probability).
    pub fn policy(&self, x: &Cells) -> Vec<(usize, f32)> {
        let t = self.forward(x);
        softmax(self.logits(x, &t.v))
    }

    /// Adds the gradient of (p - target)² to `grad`; returns the loss.
    pub fn backward(&self, x: &Cells, target: f32, grad: &mut [f32]) -> f32 {
        self.backward_with(x, target, 0.0, grad).0
    }

    /// Adds the gradient of (p - target)² plus `beta` times the policy's cross-entropy on the
    /// played cell (where `x.played` says it) to `grad`; returns both losses.
    pub fn backward_with(&self, x: &Cells, target: f32, beta: f32, grad: &mut [f32]) -> (f32, f32) {
        let w = &self.w;
        let t = self.forward(x);
        // The policy's gradient per empty cell's logit, and its cross-entropy.
        let mut d_logit = vec![0.0f32; x.cells.len()];
        let mut ce = 0.0;
        if let (Some(played), true) = (x.played, beta > 0.0) {
            for (i, q) in softmax(self.logits(x, &t.v)) {
                let hit = (i == played) as u8 as f32;
                d_logit[i] = beta * (q - hit);
                if i == played {
                    ce = -q.max(1e-12).ln();
                }
            }
        }
        let at = HEAD + x.head * HEAD_PARAMS..HEAD + (x.head + 1) * HEAD_PARAMS;
        let mut d_z0 = [0.0f32; DS];
        let (head, head_grad) = (&w[at.clone()], &mut grad[at]);
        let h0 = t.z0.map(clamp01);
        let loss = head_backward(head, head_grad, &h0, &t.head, target, &mut d_z0);
        let d_pool = std::array::from_fn::<f32, DS, _>(|c| d_z0[c] * live(t.z0[c]) / POOL);
        if d_pool.iter().all(|&d| d == 0.0) && d_logit.iter().all(|&d| d == 0.0) {
            return (loss, ce);
        }
        let n = x.cells.len();
        let mut d_u = vec![0.0f32; n * DS];
        let mut d_v = [0.0f32; DS];
        let wp = WP + x.head * DS;
        for (i, &dl) in d_logit.iter().enumerate() {
            let vi = &t.v[i * DS..(i + 1) * DS];
            let mut any = false;
            for c in 0..DS {
                // The cell's rectified feature feeds the pool and, on an empty cell, its logit.
                grad[wp + c] += dl * relu(vi[c]);
                let d_h = d_pool[c] + dl * w[wp + c];
                d_v[c] = d_h * (vi[c] > 0.0) as u8 as f32;
                any |= d_v[c] != 0.0;
            }
            if !any {
                continue;
            }
            for c in 0..DS {
                grad[BV + c] += d_v[c];
            }
            for (k, j) in neighbours(x, i) {
                for c in 0..DS {
                    grad[K + k * DS + c] += d_v[c] * t.u[j * DS + c];
                    d_u[j * DS + c] += d_v[c] * w[K + k * DS + c];
                }
            }
        }
        for (i, &cell) in x.cells.iter().enumerate() {
            let du = &d_u[i * DS..(i + 1) * DS];
            let rows: &[usize] = if cell[1] == NONE {
                &[ST + cell[0] as usize * DS]
            } else {
                &[EA + cell[0] as usize * DS, EB + cell[1] as usize * DS]
            };
            for &r in rows {
                grad[r..r + DS]
                    .iter_mut()
                    .zip(du)
                    .for_each(|(g, d)| *g += d);
            }
        }
        (loss, ce)
    }

    /// Keeps the weights in a range an integer version could hold: the tables below 4, the
    /// kernel and the head's hidden weights below 2.
    pub fn clip(&mut self) {
        for (range, limit) in [(EA..K, 3.99), (K..BV, 1.99)] {
            self.w[range]
                .iter_mut()
                .for_each(|x| *x = x.clamp(-limit, limit));
        }
        for h in 0..2 {
            let at = HEAD + h * HEAD_PARAMS;
            self.w[at + W1..at + W3]
                .iter_mut()
                .for_each(|x| *x = x.clamp(-1.99, 1.99));
        }
    }

    /// Writes the weights: the magic, the shape, the provenance text, then the floats.
    pub fn save(&self, w: &mut impl Write, provenance: &str) -> io::Result<()> {
        w.write_all(MAGIC)?;
        write_body(w, [INPUTS, DS, H1, H2], provenance, &self.w)
    }
}

impl Spatial {
    /// Reads weights written by `save`; a file of another shape or a short one is an error.
    pub fn load(r: &mut impl Read) -> io::Result<(Spatial, String)> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC && &magic != MAGIC_V1 {
            return Err(bad("not a Wuzi spatial network (no WUZINNS header)".into()));
        }
        let stored = if &magic == MAGIC { PARAMS } else { PARAMS_V1 };
        let (mut w, text) = read_body(r, [INPUTS, DS, H1, H2], stored)?;
        w.resize(PARAMS, 0.0);
        Ok((Spatial { w }, text))
    }

    /// The policy's move logits on `board` by cell (a taken cell's is `f32::MIN`).
    pub fn move_logits(&self, board: &Board) -> Vec<f32> {
        let x = Cells::of(board);
        let t = self.forward(&x);
        let mut out = vec![f32::MIN; x.cells.len()];
        for (i, l) in self.logits(&x, &t.v) {
            out[i] = l;
        }
        out
    }

    /// The win chance's log-odds for the side to move on `board`.
    pub fn logit(&self, board: &Board) -> f32 {
        self.forward(&Cells::of(board)).head.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Dims, Pos};

    fn position() -> Cells {
        let mut b = Board::with_rule(Dims::new(7, 6).unwrap(), Rule::Renju);
        for (x, y) in [(3, 3), (4, 4), (2, 3), (0, 0), (4, 3)] {
            b.play(Pos::new(x, y));
        }
        Cells::of(&b)
    }

    #[test]
    fn cells_read_codes_and_stones() {
        let x = position();
        assert_eq!((x.cells.len(), x.head), (42, 1));
        let stones = x.cells.iter().filter(|c| c[1] == NONE).count();
        assert_eq!(stones, 5);
        // Renju: black's codes read table 1, white's table 2; a white stone is row 5.
        assert_eq!(x.cells[0], [5, NONE]);
        assert!(x.cells[1][0] as usize / PCODES == 1);
        assert!(x.cells[1][1] as usize / PCODES == 2);
    }

    /// The analytic gradient `grad` against central differences of `loss` at the parameters
    /// `at`; returns how many were checked with a gradient above 1e-3. A step across a cell's
    /// rectifier corner shows as one-sided differences that disagree: such a parameter is
    /// skipped.
    fn check_gradient(
        m: &Spatial,
        grad: &[f32],
        at: &[usize],
        loss: impl Fn(&Spatial) -> f64,
    ) -> usize {
        let mut checked = 0;
        for &i in at {
            let h = 1e-3;
            let (mut up, mut down) = (m.clone(), m.clone());
            up.w[i] += h;
            down.w[i] -= h;
            let (l0, l_up, l_down) = (loss(m), loss(&up), loss(&down));
            let (right, left) = ((l_up - l0) / h as f64, (l0 - l_down) / h as f64);
            if (right - left).abs() > 0.05 * right.abs().max(left.abs()).max(1e-4) {
                continue;
            }
            let numeric = ((l_up - l_down) / (2.0 * h as f64)) as f32;
            assert!(
                (numeric - grad[i]).abs() <= 0.1 * numeric.abs().max(1e-3),
                "parameter {i}: analytic {} numeric {numeric}",
                grad[i]
            );
            checked += (grad[i].abs() > 1e-3) as usize;
        }
        checked
    }

    #[test]
    fn the_policy_s_gradient_matches_finite_differences() {
        let mut m = Spatial::new(5);
        m.w[EA..K].iter_mut().for_each(|w| *w *= 6.0);
        m.w[WP..PARAMS].iter_mut().for_each(|w| *w = 1.5);
        let mut x = position();
        let played = 2 * 7 + 3;
        x.played = Some(played);
        let beta = 0.5;
        let mut grad = vec![0.0; PARAMS];
        let (_, ce) = m.backward_with(&x, 0.3, beta, &mut grad);
        let chance = |m: &Spatial| m.policy(&x).iter().find(|c| c.0 == played).unwrap().1 as f64;
        let loss = |m: &Spatial| {
            let p = m.predict(&x) as f64;
            (p - 0.3) * (p - 0.3) - beta as f64 * chance(m).ln()
        };
        assert!((ce as f64 + chance(&m).ln()).abs() < 1e-5);
        let cell = x.cells[2 * 7 + 4];
        let at = [
            WP + DS + 3,
            WP + DS + 9,
            EA + cell[0] as usize * DS + 2,
            EB + cell[1] as usize * DS + 5,
            K + 4 * DS + 1,
            K + 3 * DS + 7,
            BV + 4,
            ST + 2 * DS + 6,
        ];
        let checked = check_gradient(&m, &grad, &at, loss);
        assert!(checked >= 5, "only {checked} gradients checked");
        // The policy's weights of the other colour's head are untouched.
        assert!(grad[WP..WP + DS].iter().all(|&g| g == 0.0));
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let mut m = Spatial::new(11);
        // Larger rows, so that cells differ and some rectify.
        m.w[EA..K].iter_mut().for_each(|w| *w *= 6.0);
        // A steep head, so that the gradients reaching the cells stand above float32's noise.
        let w1 = HEAD + HEAD_PARAMS + W1..HEAD + HEAD_PARAMS + B1;
        m.w[w1].iter_mut().for_each(|w| *w *= 8.0);
        let x = position();
        let target = 0.05;
        let mut grad = vec![0.0; PARAMS];
        m.backward(&x, target, &mut grad);
        let loss = |m: &Spatial| {
            let p = m.predict(&x) as f64;
            (p - target as f64) * (p - target as f64)
        };
        let (a, b) = (x.cells[1][0] as usize, x.cells[1][1] as usize);
        let at = [
            EA + a * DS + 3,
            EB + b * DS + 7,
            ST + 5 * DS + 1,
            ST + 2 * DS,
            K + 4 * DS + 2,
            K + 8 * DS + 5,
            BV + 9,
            HEAD + HEAD_PARAMS + W1 + 20,
            HEAD + HEAD_PARAMS + B2 + 3,
            HEAD + HEAD_PARAMS + B3,
            EA + x.cells[20][0] as usize * DS + 11,
            EB + x.cells[30][1] as usize * DS + 4,
            K + 1,
            K + 5 * DS + 6,
            HEAD + HEAD_PARAMS + W3 + 1,
            HEAD + HEAD_PARAMS + B1 + 2,
        ];
        let checked = check_gradient(&m, &grad, &at, loss);
        assert!(checked >= 7, "only {checked} gradients checked");
        let mut bytes = Vec::new();
        m.save(&mut bytes, "test").unwrap();
        let (back, text) = Spatial::load(&mut bytes.as_slice()).unwrap();
        assert_eq!((back, text.as_str()), (m.clone(), "test"));
        assert!(Spatial::load(&mut &bytes[..bytes.len() - 1]).is_err());
        // Black's head is untouched by a position with white to move.
        assert!(grad[HEAD..HEAD + HEAD_PARAMS].iter().all(|&g| g == 0.0));
    }
}
