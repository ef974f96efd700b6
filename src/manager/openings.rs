//! Opening files, one opening per line: Gomocup offsets from the centre (`8,-3, 6,-4, 5,-4`),
//! c-gomoku-cli `pos` strings (`b7d6e6f7`: letter = x from `a`, number = y from 1), or the
//! team's test-data lines (`moves=h8,i8,i5`, row numbers from the bottom).

use crate::board::Board;
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;

/// Parses one line into stones (black first, alternating); `None` for comments, blank lines
/// and openings that do not fit `dims`.
pub fn parse_line(line: &str, dims: Dims) -> Option<Vec<Pos>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    if let Some(moves) = line
        .split_whitespace()
        .find_map(|f| f.strip_prefix("moves="))
    {
        let size = line
            .split_whitespace()
            .find_map(|f| f.strip_prefix("size="));
        if size.is_some_and(|s| s != dims.height.to_string() || dims.width != dims.height) {
            return None;
        }
        return moves
            .split(',')
            .map(|m| {
                let x = m.bytes().next()?.checked_sub(b'a')? as i64;
                let row: i64 = m.get(1..)?.parse().ok()?;
                dims.checked_pos(x, dims.height as i64 - row).ok()
            })
            .collect();
    }
    if line.contains(',') {
        let nums = crate::geometry::parse_ints(line.trim_end_matches(',')).ok()?;
        if nums.len() % 2 != 0 {
            return None;
        }
        let c = dims.centre();
        return nums
            .chunks(2)
            .map(|d| dims.checked_pos(c.x as i64 + d[0], c.y as i64 + d[1]).ok())
            .collect();
    }
    parse_pos_string(line, dims)
}

fn parse_pos_string(s: &str, dims: Dims) -> Option<Vec<Pos>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let x = b[i].to_ascii_lowercase().checked_sub(b'a')? as i64;
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let y: i64 = s.get(start..i)?.parse().ok()?;
        out.push(dims.checked_pos(x, y - 1).ok()?);
    }
    (!out.is_empty()).then_some(out)
}

/// Every opening of a file's text that fits `dims` and has no repeated cell.
pub fn parse_all(text: &str, dims: Dims) -> Vec<Vec<Pos>> {
    text.lines()
        .filter_map(|l| parse_line(l, dims))
        .filter(|o| {
            let mut v = o.clone();
            v.sort();
            v.dedup();
            v.len() == o.len()
        })
        .collect()
}

/// A xorshift generator from `seed`: each call gives a number below its argument (0 for 0).
fn generator(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    }
}

/// `count` random openings of `stones` stones each (black first) for self-play: every stone
/// within three cells of the centre and next to an earlier one, none making a five, and no
/// renju foul for black; the same `seed` gives the same openings.
pub fn random(dims: Dims, rule: Rule, stones: usize, count: usize, seed: u64) -> Vec<Vec<Pos>> {
    let mut next = generator(seed);
    let c = dims.centre();
    let near_centre: Vec<Pos> = (0..dims.cells())
        .map(|i| dims.pos(i))
        .filter(|p| p.x.abs_diff(c.x) <= 3 && p.y.abs_diff(c.y) <= 3)
        .collect();
    let mut out = Vec::new();
    while out.len() < count {
        let mut board = Board::with_rule(dims, rule);
        let mut stones_played = Vec::new();
        while stones_played.len() < stones {
            let pool: Vec<Pos> = near_centre
                .iter()
                .copied()
                .filter(|&p| {
                    board.is_empty_at(p)
                        && (stones_played.is_empty()
                            || stones_played
                                .iter()
                                .any(|q: &Pos| p.x.abs_diff(q.x) <= 2 && p.y.abs_diff(q.y) <= 2))
                })
                .collect();
            let p = pool[next(pool.len())];
            let me = board.to_move();
            if rule.wins_at(board.grid(), p, me) || rule.is_forbidden(board.grid_mut(), p, me) {
                continue;
            }
            board.play(p);
            stones_played.push(p);
        }
        out.push(stones_played);
    }
    out
}

/// `count` random scattered openings (black first), like the Gomocup 2026 ones: 3 to 12
/// stones, all within `radius` 3 to 5 (Chebyshev) of a random anchor at least that far from the
/// edges, none giving either side a five-window with three of its stones and none of the
/// other's (no three or better to start from), and no renju foul; the same `seed` gives the
/// same openings.
pub fn scattered(dims: Dims, rule: Rule, count: usize, seed: u64) -> Vec<Vec<Pos>> {
    let mut next = generator(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let radius = 3 + next(3);
        let stones = 3 + next(10);
        if dims.width < 2 * radius + 1 || dims.height < 2 * radius + 1 {
            return out;
        }
        let ax = radius + next(dims.width - 2 * radius);
        let ay = radius + next(dims.height - 2 * radius);
        let mut area: Vec<Pos> = (0..dims.cells())
            .map(|i| dims.pos(i))
            .filter(|p| {
                (p.x as usize).abs_diff(ax) <= radius && (p.y as usize).abs_diff(ay) <= radius
            })
            .collect();
        let mut board = Board::with_rule(dims, rule);
        let mut played = Vec::new();
        while played.len() < stones && !area.is_empty() {
            let p = area.swap_remove(next(area.len()));
            let me = board.to_move();
            let i = dims.index(p);
            if board.lines(me, i, 2) > 0 || rule.is_forbidden(board.grid_mut(), p, me) {
                continue;
            }
            board.play(p);
            played.push(p);
        }
        if played.len() == stones {
            out.push(played);
        }
    }
    out
}

/// An opening as a line of Gomocup offsets from the centre (`parse_line` reads it back).
pub fn offsets_line(opening: &[Pos], dims: Dims) -> String {
    let c = dims.centre();
    opening
        .iter()
        .map(|p| format!("{},{}", p.x as i64 - c.x as i64, p.y as i64 - c.y as i64))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    #[test]
    fn random_openings_are_legal_and_repeatable() {
        let d = Dims::square(15);
        let a = random(d, Rule::Renju, 5, 30, 7);
        assert_eq!(a, random(d, Rule::Renju, 5, 30, 7));
        assert_ne!(a, random(d, Rule::Renju, 5, 30, 8));
        for o in &a {
            assert_eq!(o.len(), 5);
            let mut b = Board::with_rule(d, Rule::Renju);
            for &p in o {
                assert!(b.is_empty_at(p));
                let me = b.to_move();
                assert!(!Rule::Renju.wins_at(b.grid(), p, me));
                assert!(!Rule::Renju.is_forbidden(b.grid_mut(), p, me));
                b.play(p);
            }
        }
    }

    #[test]
    fn scattered_openings_are_quiet_legal_and_repeatable() {
        for (d, rule) in [
            (Dims::square(15), Rule::Renju),
            (Dims::square(20), Rule::Freestyle),
        ] {
            let a = scattered(d, rule, 40, 3);
            assert_eq!(a.len(), 40);
            assert_eq!(a, scattered(d, rule, 40, 3));
            assert_ne!(a, scattered(d, rule, 40, 4));
            for o in &a {
                assert!((3..=12).contains(&o.len()));
                let mut b = Board::with_rule(d, rule);
                for &p in o {
                    let me = b.to_move();
                    assert!(b.is_empty_at(p) && !rule.is_forbidden(b.grid_mut(), p, me));
                    b.play(p);
                }
                for c in [Color::Black, Color::White] {
                    assert!(
                        (0..d.cells()).all(|i| b.lines(c, i, 3) == 0),
                        "a three in {o:?}"
                    );
                }
                assert_eq!(parse_line(&offsets_line(o, d), d).as_ref(), Some(o));
            }
        }
    }

    #[test]
    fn reads_every_format() {
        let d15 = Dims::square(15);
        assert_eq!(
            parse_line("0,0, 1,0, 1,3", d15),
            Some(vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)])
        );
        assert_eq!(
            parse_line("b7d6e6f7", d15),
            Some(vec![
                Pos::new(1, 6),
                Pos::new(3, 5),
                Pos::new(4, 5),
                Pos::new(5, 6)
            ])
        );
        assert_eq!(
            parse_line("id=x rule=freestyle size=15 moves=h8,i8,i5 n=3", d15),
            Some(vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)])
        );
        assert_eq!(
            parse_line("-7,-8, -6,-9", Dims::square(20)).unwrap()[1],
            Pos::new(4, 1)
        );
        assert_eq!(parse_line("id=y size=20 moves=k10,l10", d15), None);
        assert_eq!(parse_line("-10,-10", d15), None);
        assert_eq!(parse_line("# comment", d15), None);
    }
}
