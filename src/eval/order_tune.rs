//! Fitting the move-ordering scores (`board::weights::ORDER`) to the moves that searches
//! chose: each position of a `wuzi-arena` record after its opening gives the candidate cells'
//! pattern codes for both sides and the cell the game's player took; a softmax over the
//! candidates of `mine[code of the side to move] + theirs[code of the opponent]` is fitted to
//! those choices (cross-entropy), one table pair per rule variant; written out as `order.rs`.

use std::fmt::Write as _;

use crate::board::pattern::{class, Class, PCODES};
use crate::board::weights::{OrderWeights, Variant, ORDER_UNIT};
use crate::board::Board;
use crate::eval::pattern_move_score;
use crate::eval::tune::FitOptions;
use crate::manager::record::ReadGame;

/// Parameters: per variant, the `mine` table, then the `theirs` table.
const PER_VARIANT: usize = 2 * PCODES;
pub const PARAMS: usize = 4 * PER_VARIANT;

/// One position: its candidates' parameters (the side to move's code, the opponent's code),
/// the index of the chosen cell among them, and that cell's rank under the hand-set move score
/// the search used before (cells scored at least as high, ties counted against it).
#[derive(Clone, Debug)]
pub struct OrderSample {
    pub cells: Vec<(u16, u16)>,
    pub chosen: u32,
    pub hand_rank: u32,
}

/// The sample of the position on `board` whose side to move played `chosen`: none where a five
/// point decides the move (either side's), or the move is not among the candidates.
pub fn sample(board: &Board, chosen: usize) -> Option<OrderSample> {
    let lines = board.line_patterns();
    let me = board.to_move();
    let base = Variant::of(board.rule(), me) as usize * PER_VARIANT;
    let mut cells = Vec::new();
    let mut hand = Vec::new();
    let mut at = None;
    for i in board.candidates() {
        if lines.class(me, i) == Class::Five || lines.class(me.opp(), i) == Class::Five {
            return None;
        }
        if i == chosen {
            at = Some(cells.len());
        }
        cells.push((
            (base + lines.code(me, i) as usize) as u16,
            (base + PCODES + lines.code(me.opp(), i) as usize) as u16,
        ));
        hand.push(pattern_move_score(board, i, me));
    }
    let at = at?;
    Some(OrderSample {
        cells,
        chosen: at as u32,
        hand_rank: rank(&hand, at),
    })
}

/// How many other entries of `scores` are at least `scores[at]`.
fn rank<T: PartialOrd>(scores: &[T], at: usize) -> u32 {
    let s = &scores[at];
    scores
        .iter()
        .enumerate()
        .filter(|&(j, x)| j != at && x >= s)
        .count() as u32
}

/// The positions of a game after its opening with the moves its players chose; none for a
/// game lost by a fault (timeout, crash, illegal move).
pub fn game_samples(game: &ReadGame) -> Vec<OrderSample> {
    let mut out = Vec::new();
    super::tune::replay(game, |board, p| {
        out.extend(sample(board, board.dims().index(p)));
    });
    out
}

fn logits(s: &OrderSample, p: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.extend(s.cells.iter().map(|&(a, b)| p[a as usize] + p[b as usize]));
}

/// Softmax probabilities of `z` in place; returns the log of the normaliser.
fn softmax(z: &mut [f64]) -> f64 {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for x in z.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in z.iter_mut() {
        *x /= sum;
    }
    max + sum.ln()
}

/// What a fit measures on a set of positions: mean cross-entropy of the chosen cells, and how
/// often the chosen cell is first, or among the first three, by the learned scores and by the
/// hand-set move score.
#[derive(Clone, Copy, Debug, Default)]
pub struct OrderStats {
    pub loss: f64,
    pub top1: f64,
    pub top3: f64,
    pub hand_top1: f64,
    pub hand_top3: f64,
}

pub fn stats(samples: &[OrderSample], p: &[f64]) -> OrderStats {
    let mut st = OrderStats::default();
    let mut z = Vec::new();
    for s in samples {
        logits(s, p, &mut z);
        let r = rank(&z, s.chosen as usize);
        let chosen = z[s.chosen as usize];
        st.loss += softmax(&mut z) - chosen;
        st.top1 += (r < 1) as u32 as f64;
        st.top3 += (r < 3) as u32 as f64;
        st.hand_top1 += (s.hand_rank < 1) as u32 as f64;
        st.hand_top3 += (s.hand_rank < 3) as u32 as f64;
    }
    let n = samples.len().max(1) as f64;
    st.loss /= n;
    st.top1 /= n;
    st.top3 /= n;
    st.hand_top1 /= n;
    st.hand_top3 /= n;
    st
}

/// Fits `p` (logits) to the samples by full-batch Adam on the cross-entropy (`threats_only` does
/// not apply), with an L2 pull of `o.regularization` towards zero (rare codes stay near it). `report` gets the epoch and the training loss
/// now and then.
pub fn fit(
    samples: &[OrderSample],
    p: &mut [f64],
    o: &FitOptions,
    report: &mut dyn FnMut(usize, f64),
) {
    let (epochs, rate, reg) = (o.epochs, o.rate, o.regularization);
    let n = samples.len().max(1) as f64;
    let (mut m, mut v) = (vec![0.0; p.len()], vec![0.0; p.len()]);
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut z = Vec::new();
    for epoch in 1..=epochs {
        let mut grad: Vec<f64> = p.iter().map(|x| reg * x).collect();
        let mut loss = 0.0;
        for s in samples {
            logits(s, p, &mut z);
            let chosen = z[s.chosen as usize];
            loss += softmax(&mut z) - chosen;
            for (j, &(a, b)) in s.cells.iter().enumerate() {
                let g = (z[j] - (j == s.chosen as usize) as u32 as f64) / n;
                grad[a as usize] += g;
                grad[b as usize] += g;
            }
        }
        for k in 0..p.len() {
            let g = grad[k];
            m[k] = b1 * m[k] + (1.0 - b1) * g;
            v[k] = b2 * v[k] + (1.0 - b2) * g * g;
            let mh = m[k] / (1.0 - b1.powi(epoch as i32));
            let vh = v[k] / (1.0 - b2.powi(epoch as i32));
            p[k] -= rate * mh / (vh.sqrt() + eps);
        }
        if epoch % 25 == 0 || epoch == epochs {
            report(epoch, loss / n);
        }
    }
}

/// Per threat class (`Class as usize`), the mean learned score of the freestyle table over the
/// candidate cells of the samples: (for the side to move's class, for the opponent's), in
/// logits; what the fit says a three or a four is worth against a quiet move.
pub fn class_means(samples: &[OrderSample], p: &[f64]) -> Vec<(f64, f64)> {
    let n = Class::Five as usize + 1;
    let (mut sum, mut count) = (vec![(0.0, 0.0); n], vec![(0u64, 0u64); n]);
    for s in samples {
        for &(a, b) in &s.cells {
            let (a, b) = (a as usize, b as usize);
            if b >= PER_VARIANT {
                continue; // not the freestyle table
            }
            let ca = class(a as u16) as usize;
            let cb = class((b - PCODES) as u16) as usize;
            sum[ca].0 += p[a];
            count[ca].0 += 1;
            sum[cb].1 += p[b];
            count[cb].1 += 1;
        }
    }
    (0..n)
        .map(|c| {
            (
                sum[c].0 / count[c].0.max(1) as f64,
                sum[c].1 / count[c].1.max(1) as f64,
            )
        })
        .collect()
}

/// The tables of a parameter vector, in `ORDER_UNIT`ths of a logit.
pub fn unflatten(p: &[f64]) -> [OrderWeights; 4] {
    let r = |x: f64| (x * ORDER_UNIT as f64).round().clamp(-32767.0, 32767.0) as i16;
    std::array::from_fn(|v| {
        let base = v * PER_VARIANT;
        OrderWeights {
            mine: std::array::from_fn(|k| r(p[base + k])),
            theirs: std::array::from_fn(|k| r(p[base + PCODES + k])),
        }
    })
}

/// The parameter vector of the tables (what a fit starts from).
pub fn flatten(w: &[OrderWeights; 4]) -> Vec<f64> {
    let mut p = vec![0.0; PARAMS];
    for (v, t) in w.iter().enumerate() {
        let base = v * PER_VARIANT;
        for k in 0..PCODES {
            p[base + k] = t.mine[k] as f64 / ORDER_UNIT as f64;
            p[base + PCODES + k] = t.theirs[k] as f64 / ORDER_UNIT as f64;
        }
    }
    p
}

/// The Rust source of `order.rs` for these tables; `provenance` becomes its doc comment.
pub fn order_source(w: &[OrderWeights; 4], provenance: &str) -> String {
    let mut s = String::from(
        "//! Generated by `wuzi-tune order`: do not edit. The learned move-ordering scores per rule\n\
         //! variant (`Variant` order), in `ORDER_UNIT`ths of a logit.\n",
    );
    for line in provenance.lines() {
        let _ = writeln!(s, "//! {line}");
    }
    s +=
        "\nuse super::OrderWeights;\n\n#[rustfmt::skip]\npub static ORDER: [OrderWeights; 4] = [\n";
    let table = |t: &[i16; PCODES]| super::tune::table_rows(t);
    for (v, t) in Variant::ALL.iter().zip(w) {
        let _ = writeln!(s, "    // {}", v.name());
        s += "    OrderWeights {\n        mine: [\n";
        s += &table(&t.mine);
        s += "        ],\n        theirs: [\n";
        s += &table(&t.theirs);
        s += "        ],\n    },\n";
    }
    s += "];\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Dims;
    use crate::rules::Rule;

    /// A table fitted to positions where the player always completes its open three to a four
    /// learns to rank that cell first.
    #[test]
    fn the_fit_learns_a_consistent_choice() {
        let dims = Dims::square(15);
        let mut board = Board::with_rule(dims, Rule::Freestyle);
        // Black 7,7 7,8 7,9 (a three), white 7,4 on its line (so that its two ends differ)
        // and two stones away from it; black to move.
        for (x, y) in [(7, 7), (7, 4), (7, 8), (3, 3), (7, 9), (12, 12)] {
            board.play(crate::geometry::Pos::new(x, y));
        }
        let chosen = dims.index(crate::geometry::Pos::new(7, 10));
        let s = sample(&board, chosen).expect("a quiet position");
        let samples = vec![s; 4];
        let mut p = vec![0.0; PARAMS];
        assert!(stats(&samples, &p).top1 < 1.0, "all ties before the fit");
        let o = FitOptions {
            epochs: 100,
            rate: 0.05,
            regularization: 0.0,
            threats_only: false,
        };
        fit(&samples, &mut p, &o, &mut |_, _| {});
        let after = stats(&samples, &p);
        assert_eq!(after.top1, 1.0, "{after:?}");
        let w = unflatten(&p);
        assert_eq!(flatten(&w).len(), PARAMS);
    }
}
