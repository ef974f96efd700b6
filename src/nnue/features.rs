//! The network's inputs: for each colour, how many empty cells give a stone of that colour each
//! pattern code (the four directions' shapes as a multiset, `board::pattern::PCODES` of them),
//! read from the line patterns the board keeps up to date. Under renju black and white have
//! separate tables (their games differ: black has fouls); under the other rules both colours
//! share one. A colour's inputs feed that colour's accumulator.

use crate::board::pattern::PCODES;
use crate::board::{Board, Color};
use crate::rules::Rule;

/// Input tables: 0 every colour under the non-renju rules, 1 renju black, 2 renju white.
pub const TABLES: usize = 3;
/// Inputs in all: a row of the embedding per table and pattern code.
pub const INPUTS: usize = TABLES * PCODES;

/// The table a colour's patterns read under `rule`.
pub fn table(rule: Rule, c: Color) -> usize {
    match (rule, c) {
        (Rule::Renju, Color::Black) => 1,
        (Rule::Renju, Color::White) => 2,
        _ => 0,
    }
}

/// The inputs of colour `c` as (input, count) pairs, in input order.
pub fn active(board: &Board, c: Color, out: &mut Vec<(u16, u16)>) {
    let mut counts = [0u16; PCODES];
    let lines = board.line_patterns();
    for i in 0..board.dims().cells() {
        if board.is_empty_index(i) {
            counts[lines.code(c, i) as usize] += 1;
        }
    }
    let base = table(board.rule(), c) * PCODES;
    out.clear();
    out.extend(
        counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &n)| ((base + k) as u16, n)),
    );
}

/// For a pair network: per distinct pair of codes on the empty cells, (colour `c`'s input, the
/// other colour's input, how many cells), in input order.
pub fn active_pairs(board: &Board, c: Color, out: &mut Vec<(u16, u16, u16)>) {
    let lines = board.line_patterns();
    let (mine, theirs) = (
        table(board.rule(), c) * PCODES,
        table(board.rule(), c.opp()) * PCODES,
    );
    let mut keys: Vec<u32> = (0..board.dims().cells())
        .filter(|&i| board.is_empty_index(i))
        .map(|i| {
            let a = (mine + lines.code(c, i) as usize) as u32;
            let b = (theirs + lines.code(c.opp(), i) as usize) as u32;
            a << 16 | b
        })
        .collect();
    keys.sort_unstable();
    out.clear();
    for k in keys {
        let (a, b) = ((k >> 16) as u16, k as u16);
        match out.last_mut() {
            Some(last) if (last.0, last.1) == (a, b) => last.2 += 1,
            _ => out.push((a, b, 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Dims, Pos};

    #[test]
    fn every_empty_cell_counts_once_per_colour() {
        let dims = Dims::new(15, 15).unwrap();
        let mut b = Board::with_rule(dims, Rule::Renju);
        for (x, y) in [(7, 7), (8, 8), (8, 6), (6, 8)] {
            b.play(Pos::new(x, y));
        }
        let mut v = Vec::new();
        for c in [Color::Black, Color::White] {
            active(&b, c, &mut v);
            let n: u32 = v.iter().map(|&(_, n)| n as u32).sum();
            assert_eq!(n, 225 - 4);
            let t = table(Rule::Renju, c);
            assert!(v.iter().all(|&(k, _)| (k as usize) / PCODES == t));
            assert!(v.windows(2).all(|w| w[0].0 < w[1].0));
        }
        assert_eq!(table(Rule::Freestyle, Color::White), 0);
    }
}
