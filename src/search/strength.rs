//! Playing strength for people (`INFO strength 0..100`): a shallower search, and a choice among
//! the near-best root moves that widens as the strength falls. 100 is full strength.

use super::{Line, Outcome, MATE_BOUND};
use crate::geometry::Pos;

/// Full strength: the search and its move are left alone.
pub const FULL: u32 = 100;

/// The deepest iteration a search at `strength` runs (`None`: no cap).
pub fn max_depth(strength: u32) -> Option<i32> {
    (strength < FULL).then(|| 2 + strength as i32 / 12)
}

/// Root lines searched at `strength`, so that there are near-best moves to choose from.
pub fn lines(strength: u32) -> usize {
    if strength < FULL {
        4
    } else {
        1
    }
}

/// How far below the best score a move may be and still be chosen.
fn margin(strength: u32) -> i32 {
    (FULL.saturating_sub(strength) as i32) * 4
}

/// The move to play at `strength`: one of the lines within the margin of the best, picked by
/// `seed`; never a proven loss when the best line is not one, never a move other than the win
/// when a win is proven.
pub fn choose(outcome: &Outcome, strength: u32, seed: u64) -> Option<Pos> {
    let best = outcome.best?;
    let top = outcome.lines.first().map_or(outcome.score, |l| l.score);
    if strength >= FULL || top.abs() >= MATE_BOUND {
        return Some(best);
    }
    let near: Vec<&Line> = outcome
        .lines
        .iter()
        .filter(|l| l.score > -MATE_BOUND && l.score >= top - margin(strength) && !l.pv.is_empty())
        .collect();
    if near.is_empty() {
        return Some(best);
    }
    // splitmix64 of the seed: the same position and seed give the same choice.
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Some(near[(z % near.len() as u64) as usize].pv[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(scores: &[i32]) -> Outcome {
        let lines: Vec<Line> = scores
            .iter()
            .enumerate()
            .map(|(k, &score)| Line {
                score,
                pv: vec![Pos::new(k, 0)],
            })
            .collect();
        Outcome {
            best: Some(Pos::new(0, 0)),
            score: scores[0],
            depth: 3,
            nodes: 1,
            pv: vec![Pos::new(0, 0)],
            lines,
            losing: Vec::new(),
            holding: Vec::new(),
            cutoffs: [0; 2],
        }
    }

    #[test]
    fn full_strength_plays_the_best_move() {
        let o = outcome(&[50, 49, 48, 47]);
        for seed in 0..50 {
            assert_eq!(choose(&o, FULL, seed), Some(Pos::new(0, 0)));
        }
        assert_eq!(max_depth(FULL), None);
        assert_eq!(lines(FULL), 1);
    }

    #[test]
    fn weak_play_picks_among_near_best_moves_only() {
        let o = outcome(&[50, 40, -500, -MATE_BOUND - 3]);
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let p = choose(&o, 0, seed).unwrap();
            seen.insert(p.x);
        }
        // Within 400 of the best: the first two; never the bad or the lost move.
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1]);
        // A proven win is always played.
        let win = outcome(&[MATE_BOUND + 5, 40]);
        assert!((0..50).all(|s| choose(&win, 0, s) == Some(Pos::new(0, 0))));
        assert!(max_depth(0).unwrap() < max_depth(90).unwrap());
    }
}
