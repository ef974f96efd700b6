//! Fitting the pattern evaluation's weights to game results (the Texel method): quiet positions
//! from `wuzi-arena` records, each described by how many of its empty cells carry each pattern
//! code for each side, labelled with the game's result for the side to move; a logistic
//! regression of the result on the evaluation; the weights written out as `weights.rs`.

use std::fmt::Write as _;

use crate::board::pattern::{pcode_shapes_of, threat_level, Class, Shape, LEVELS, PCODES};
use crate::board::weights::{PatternWeights, Variant, WEIGHT_UNIT};
use crate::board::Board;
use crate::geometry::Pos;
use crate::manager::record::ReadGame;

/// Parameters: per variant, the mover table, the waiter table, the tempo, then the threat
/// levels' table.
const PER_VARIANT: usize = 2 * PCODES + 1 + LEVELS * LEVELS;
pub const PARAMS: usize = 4 * PER_VARIANT;
/// Weight units per unit of log-odds: an evaluation of `SCALE / WEIGHT_UNIT` is a 73% winning
/// chance.
pub const SCALE: f64 = 250.0 * WEIGHT_UNIT as f64;

fn param(v: Variant, waiter: bool, code: u16) -> usize {
    v as usize * PER_VARIANT + waiter as usize * PCODES + code as usize
}

/// Whether parameter `k` is a waiter weight (subtracted by the evaluation).
fn is_waiter(k: usize) -> bool {
    (PCODES..2 * PCODES).contains(&(k % PER_VARIANT))
}

fn tempo_param(v: Variant) -> usize {
    v as usize * PER_VARIANT + 2 * PCODES
}

fn threat_param(v: Variant, mine: usize, theirs: usize) -> usize {
    tempo_param(v) + 1 + mine * LEVELS + theirs
}

/// One position: sparse counts of the parameters it uses, negative for the waiting side's
/// (whose worth the evaluation subtracts; the tempo counts once), and the result for the side
/// to move (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Debug)]
pub struct Sample {
    pub counts: Vec<(u16, i16)>,
    pub result: f32,
}

/// The starting point of a fit: a cell's worth from its four shapes and its threat class, larger
/// for the side to move, which can use it first.
pub fn initial_weights() -> [PatternWeights; 4] {
    let value = |code: u16, mover: bool| -> i16 {
        let base = |s: Shape| -> i32 {
            let (m, w) = match s {
                Shape::Dead | Shape::Overline => (0, 0),
                Shape::One => (2, 2),
                Shape::Two => (6, 5),
                Shape::OpenTwo => (14, 12),
                Shape::Three => (16, 12),
                Shape::OpenThree => (50, 35),
                Shape::Four => (70, 40),
                Shape::OpenFour => (300, 150),
                Shape::Five => (1000, 400),
            };
            if mover {
                m
            } else {
                w
            }
        };
        let bonus = match crate::board::pattern::class(code) {
            Class::OpenFour => (600, 250),
            Class::FourThree => (400, 150),
            Class::DoubleThree => (200, 80),
            Class::ThreePlus => (40, 20),
            Class::FourPlus => (30, 15),
            _ => (0, 0),
        };
        let b = if mover { bonus.0 } else { bonus.1 };
        ((pcode_shapes_of(code).iter().map(|&s| base(s)).sum::<i32>() + b) * WEIGHT_UNIT) as i16
    };
    std::array::from_fn(|_| PatternWeights {
        mover: std::array::from_fn(|k| value(k as u16, true)),
        waiter: std::array::from_fn(|k| value(k as u16, false)),
        tempo: 0,
        threats: [[0; LEVELS]; LEVELS],
    })
}

/// The weights as one parameter vector.
pub fn flatten(w: &[PatternWeights; 4]) -> Vec<f64> {
    let mut p = vec![0.0; PARAMS];
    for v in Variant::ALL {
        let t = &w[v as usize];
        for k in 0..PCODES {
            p[param(v, false, k as u16)] = t.mover[k] as f64;
            p[param(v, true, k as u16)] = t.waiter[k] as f64;
        }
        p[tempo_param(v)] = t.tempo as f64;
        for (mine, row) in t.threats.iter().enumerate() {
            for (theirs, &x) in row.iter().enumerate() {
                p[threat_param(v, mine, theirs)] = x as f64;
            }
        }
    }
    p
}

/// A parameter vector as weights (rounded, within `i16`).
pub fn unflatten(p: &[f64]) -> [PatternWeights; 4] {
    let r = |x: f64| x.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16;
    std::array::from_fn(|v| {
        let v = Variant::ALL[v];
        PatternWeights {
            mover: std::array::from_fn(|k| r(p[param(v, false, k as u16)])),
            waiter: std::array::from_fn(|k| r(p[param(v, true, k as u16)])),
            tempo: r(p[tempo_param(v)]),
            threats: std::array::from_fn(|mine| {
                std::array::from_fn(|theirs| r(p[threat_param(v, mine, theirs)]))
            }),
        }
    })
}

/// The sample of the position on `board`, if it is quiet (no five point for either side).
pub fn sample(board: &Board, result_for_mover: f32) -> Option<Sample> {
    let lines = board.line_patterns();
    let dims = board.dims();
    let rule = board.rule();
    let mover = board.to_move();
    let (vm, vw) = (Variant::of(rule, mover), Variant::of(rule, mover.opp()));
    let mut used = Vec::with_capacity(2 * dims.cells() + 1);
    for i in 0..dims.cells() {
        if !board.is_empty_index(i) {
            continue;
        }
        if lines.class(mover, i) == Class::Five || lines.class(mover.opp(), i) == Class::Five {
            return None;
        }
        used.push(param(vm, false, lines.code(mover, i)) as u16);
        used.push(param(vw, true, lines.code(mover.opp(), i)) as u16);
    }
    used.push(tempo_param(vm) as u16);
    let mine = threat_level(lines.class_counts(mover));
    let theirs = threat_level(lines.class_counts(mover.opp()));
    used.push(threat_param(vm, mine, theirs) as u16);
    used.sort_unstable();
    let mut counts: Vec<(u16, i16)> = Vec::new();
    for k in used {
        let sign = if is_waiter(k as usize) { -1 } else { 1 };
        match counts.last_mut() {
            Some((last, n)) if *last == k => *n += sign,
            _ => counts.push((k, sign)),
        }
    }
    Some(Sample {
        counts,
        result: result_for_mover,
    })
}

/// Whether an engine lost the game by a fault (timeout, crash, illegal move): its moves are
/// then no lesson.
pub fn faulted(game: &ReadGame) -> bool {
    [
        "timeout",
        "crash",
        "illegal",
        "malformed",
        "off the board",
        "occupied",
    ]
    .iter()
    .any(|w| game.reason.contains(w))
}

/// Replays a game that no engine lost by a fault: `each` sees the board before every move
/// after the opening, with the move. Stops at a move onto a stone (a record out of order).
pub fn replay(game: &ReadGame, mut each: impl FnMut(&Board, Pos)) {
    if faulted(game) {
        return;
    }
    let mut board = Board::with_rule(game.dims, game.rule);
    for &p in &game.opening {
        if !board.is_empty_at(p) {
            return;
        }
        board.play(p);
    }
    for &p in &game.moves {
        if !board.is_empty_at(p) {
            break;
        }
        each(&board, p);
        board.play(p);
    }
}

/// The quiet positions of a game after its opening, each labelled with the game's result for
/// its side to move; none for a game an engine lost by a fault (timeout, crash, illegal move).
pub fn game_samples(game: &ReadGame) -> Vec<Sample> {
    game_samples_with(game, 0.0)
}

/// As `game_samples`, the label blended with the record's search score of the position where
/// it has one (`wuzi-tune label`): `(1 - search_weight)` times the result plus `search_weight`
/// times the score's winning chance.
pub fn game_samples_with(game: &ReadGame, search_weight: f64) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut k = 0;
    replay(game, |board, _| {
        let result = match game.winner {
            None => 0.5,
            Some(c) if c == board.to_move() => 1.0,
            Some(_) => 0.0,
        };
        let label = match game.scores.get(k).copied().flatten() {
            Some(score) if search_weight > 0.0 => {
                (1.0 - search_weight) * result + search_weight * winning_chance(score)
            }
            _ => result,
        };
        k += 1;
        out.extend(sample(board, label as f32));
    });
    out
}

/// The winning chance an evaluation or search score (for the side to move) stands for.
pub fn winning_chance(score: i32) -> f64 {
    sigmoid(score as f64 * WEIGHT_UNIT as f64 / SCALE)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn score(s: &Sample, p: &[f64]) -> f64 {
    s.counts
        .iter()
        .map(|&(k, n)| p[k as usize] * n as f64)
        .sum()
}

/// Mean cross-entropy of the results against the evaluation's winning chances.
pub fn loss(samples: &[Sample], p: &[f64]) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let q = sigmoid(score(s, p) / SCALE).clamp(1e-9, 1.0 - 1e-9);
            let y = s.result as f64;
            -(y * q.ln() + (1.0 - y) * (1.0 - q).ln())
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// How a fit runs.
#[derive(Clone, Debug)]
pub struct FitOptions {
    pub epochs: usize,
    pub rate: f64,
    /// Pull of each weight towards its starting value (L2), per sample.
    pub regularization: f64,
    /// Whether only the tempo and threat-level weights move (the pattern tables stay).
    pub threats_only: bool,
}

/// Fits `p` to the samples: first one scale for all of it (the starting weights may be far
/// off), then full-batch Adam on the cross-entropy, each parameter's step divided by how many
/// cells carry it in an average position (a code on most empty cells moves the score a
/// hundred times more per unit than a rare threat). `report` gets the epoch and the training
/// loss now and then.
pub fn fit(samples: &[Sample], p: &mut [f64], o: &FitOptions, report: &mut dyn FnMut(usize, f64)) {
    // Frozen pattern tables keep their scale too.
    let scales = if o.threats_only { 0 } else { 41 };
    let best_scale = (0..scales)
        .map(|k| 0.01 * 1.2f64.powi(k))
        .map(|a| {
            let scaled: Vec<f64> = p.iter().map(|x| x * a).collect();
            (loss(samples, &scaled), a)
        })
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .map_or(1.0, |(_, a)| a);
    for x in p.iter_mut() {
        *x *= best_scale;
    }
    report(0, loss(samples, p));
    let mut weight = vec![0.0; p.len()];
    for s in samples {
        for &(k, c) in &s.counts {
            weight[k as usize] += c.unsigned_abs() as f64;
        }
    }
    let n = samples.len().max(1) as f64;
    let step: Vec<f64> = weight
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let frozen = o.threats_only && k % PER_VARIANT < 2 * PCODES;
            if frozen {
                0.0
            } else {
                1.0 / (w / n).max(1.0)
            }
        })
        .collect();
    let start = p.to_vec();
    let (mut m, mut v) = (vec![0.0; p.len()], vec![0.0; p.len()]);
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    for epoch in 1..=o.epochs {
        let mut grad = vec![0.0; p.len()];
        for s in samples {
            let q = sigmoid(score(s, p) / SCALE);
            let d = (q - s.result as f64) / SCALE / n;
            for &(k, c) in &s.counts {
                grad[k as usize] += d * c as f64;
            }
        }
        for k in 0..p.len() {
            let g = grad[k] + o.regularization * (p[k] - start[k]);
            m[k] = b1 * m[k] + (1.0 - b1) * g;
            v[k] = b2 * v[k] + (1.0 - b2) * g * g;
            let mh = m[k] / (1.0 - b1.powi(epoch as i32));
            let vh = v[k] / (1.0 - b2.powi(epoch as i32));
            p[k] -= o.rate * step[k] * mh / (vh.sqrt() + eps);
        }
        if epoch % 25 == 0 || epoch == o.epochs {
            report(epoch, loss(samples, p));
        }
    }
}

/// A generated table's entries as Rust source lines, 16 a line.
pub fn table_rows(t: &[i16]) -> String {
    let mut out = String::new();
    for chunk in t.chunks(16) {
        let row: Vec<String> = chunk.iter().map(i16::to_string).collect();
        let _ = writeln!(out, "            {},", row.join(", "));
    }
    out
}

/// The Rust source of `weights.rs` for these weights; `provenance` becomes its doc comment.
pub fn weights_source(w: &[PatternWeights; 4], provenance: &str) -> String {
    let mut s = String::from("//! Generated by `wuzi-tune`: do not edit. The pattern evaluation's weights per rule variant\n//! (`Variant` order), for the side to move and the side that just moved.\n");
    for line in provenance.lines() {
        let _ = writeln!(s, "//! {line}");
    }
    s += "\nuse super::PatternWeights;\n\n#[rustfmt::skip]\npub static WEIGHTS: [PatternWeights; 4] = [\n";
    let table = |t: &[i16; PCODES]| table_rows(t);
    for (v, t) in Variant::ALL.iter().zip(w) {
        let _ = writeln!(s, "    // {}", v.name());
        s += "    PatternWeights {\n        mover: [\n";
        s += &table(&t.mover);
        s += "        ],\n        waiter: [\n";
        s += &table(&t.waiter);
        let _ = writeln!(
            s,
            "        ],\n        tempo: {},\n        threats: [",
            t.tempo
        );
        for row in &t.threats {
            let row: Vec<String> = row.iter().map(i16::to_string).collect();
            let _ = writeln!(s, "            [{}],", row.join(", "));
        }
        s += "        ],\n    },\n";
    }
    s += "];\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::record::parse_line;

    /// Black wins with a five along row 7; the positions before white's second move and
    /// black's third carry search scores, the others none.
    const GAME: &str = "game=1 black=a white=b rule=freestyle size=15x15 result=1-0 \
        reason=\"five at 7,7\" opening=\"3,7 3,9\" moves=\"4,7 4,9 5,7 5,9 6,7 10,10 7,7\" \
        times=\"1 1 1 1 1 1 1\" scores=\"- 300 -250 - - - -\"";

    #[test]
    fn labels_blend_the_result_with_the_search_score_by_the_weight() {
        let game = parse_line(GAME).expect("the record reads");
        assert_eq!(game.scores.len(), 7);
        assert_eq!(game.scores[1], Some(300));
        assert_eq!(game.scores[0], None);
        let results: Vec<f32> = game_samples(&game).iter().map(|s| s.result).collect();
        // Black to move at the even moves, and black won; positions with a five point are no
        // samples (from black's fourth stone on, black has a four).
        assert_eq!(results[..3], [1.0, 0.0, 1.0]);
        let blended = game_samples_with(&game, 0.5);
        let searched = game_samples_with(&game, 1.0);
        assert_eq!(blended.len(), results.len());
        assert_eq!(blended[0].result, 1.0, "no score: the result alone");
        let w = winning_chance(300);
        assert!(w > 0.7 && w < 0.8, "300 is about a 77% chance: {w}");
        assert!((searched[1].result as f64 - w).abs() < 1e-6);
        assert!((blended[1].result as f64 - 0.5 * w).abs() < 1e-6);
        let w = winning_chance(-250);
        assert!((searched[2].result as f64 - w).abs() < 1e-6);
        assert!((blended[2].result as f64 - (0.5 + 0.5 * w)).abs() < 1e-6);
        assert_eq!(game_samples_with(&game, 0.0)[1].result, 0.0);
    }

    #[test]
    fn a_record_without_scores_reads_with_none() {
        let line = GAME.split(" scores=").next().unwrap();
        let game = parse_line(line).expect("the record reads");
        assert!(game.scores.is_empty());
        let plain: Vec<f32> = game_samples(&game).iter().map(|s| s.result).collect();
        let with: Vec<f32> = game_samples_with(&game, 1.0)
            .iter()
            .map(|s| s.result)
            .collect();
        assert_eq!(plain, with);
    }
}
