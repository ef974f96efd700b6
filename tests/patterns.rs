//! The line patterns against the exact threat code of `board::threat`, on random positions
//! under every rule: a pattern five is a win, a pattern four has exactly one five point and an
//! open four two or more, and an open three is a line where one more stone makes a straight
//! four through the cell.

use wuzi::board::pattern::{threat_level, Class, Shape};
use wuzi::board::threat::{fives_with, fours_made};
use wuzi::board::{Board, Cell, Color};
use wuzi::geometry::{Dims, Direction, Pos};
use wuzi::rules::Rule;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Whether `c` on the empty `p` has an open three along `dir`: some empty cell makes, with
/// `p`, two five points on that line.
fn exact_open_three(board: &mut Board, rule: Rule, p: Pos, c: Color, dir: Direction) -> bool {
    let grid = board.grid_mut();
    grid.set(p, Cell::stone(c));
    let mut found = false;
    for k in (-4..=4isize).filter(|&k| k != 0) {
        let Some(e) = p.step(dir, k, grid.dims()) else {
            continue;
        };
        if grid.get(e) != Cell::Empty {
            continue;
        }
        grid.set(e, Cell::stone(c));
        let five_now = rule.wins_along(grid, p, c, dir);
        let [a, b] = fives_with(grid, rule, p, c, dir);
        grid.set(e, Cell::Empty);
        if !five_now && a.is_some() && b.is_some() {
            found = true;
            break;
        }
    }
    grid.set(p, Cell::Empty);
    found
}

fn check(board: &mut Board, rule: Rule, stats: &mut [usize; 4]) {
    let dims = board.dims();
    for i in 0..dims.cells() {
        let p = dims.pos(i);
        if !board.is_empty_at(p) {
            continue;
        }
        for c in [Color::Black, Color::White] {
            let class = board.line_patterns().class(c, i);
            let five = rule.wins_at(board.grid(), p, c);
            assert_eq!(class == Class::Five, five, "{rule:?} {c:?} {p}: five");
            if five {
                stats[0] += 1;
                continue;
            }
            let fives = fours_made(board, rule, c, i);
            let expected = match fives {
                0 => class < Class::Four,
                1 => matches!(class, Class::Four | Class::FourPlus | Class::FourThree),
                _ => class == Class::OpenFour,
            };
            assert!(
                expected,
                "{rule:?} {c:?} {p}: {fives} five points, class {class:?}"
            );
            stats[1] += (fives == 1) as usize;
            stats[2] += (fives >= 2) as usize;
            for (d, dir) in Direction::ALL.into_iter().enumerate() {
                let shape = board.line_patterns().shape(c, i, d);
                if shape >= Shape::Four {
                    continue;
                }
                let open = exact_open_three(board, rule, p, c, dir);
                assert_eq!(
                    shape == Shape::OpenThree,
                    open,
                    "{rule:?} {c:?} {p} direction {d}: shape {shape:?}"
                );
                stats[3] += open as usize;
            }
        }
    }
}

#[test]
fn patterns_agree_with_the_exact_threat_code() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for rule in Rule::ALL {
        let mut stats = [0usize; 4];
        for game in 0..30 {
            let dims = if game % 3 == 0 {
                Dims::new(12, 9).unwrap()
            } else {
                Dims::square(15)
            };
            let mut board = Board::with_rule(dims, rule);
            // Dense random play near the centre makes every kind of shape.
            let stones = 20 + rng.below(40);
            for _ in 0..stones {
                let c = dims.centre();
                let x = (c.x as usize + rng.below(9))
                    .saturating_sub(4)
                    .min(dims.width - 1);
                let y = (c.y as usize + rng.below(9))
                    .saturating_sub(4)
                    .min(dims.height - 1);
                let p = Pos::new(x, y);
                if board.is_empty_at(p) {
                    board.play(p);
                }
            }
            check(&mut board, rule, &mut stats);
        }
        // Every kind of threat was met many times, so the agreement means something.
        assert!(stats.iter().all(|&n| n >= 20), "{rule:?}: {stats:?}");
    }
}

/// Black's and white's threat levels (what the evaluation's threat table reads) on a diagram.
fn levels(text: &str) -> (usize, usize) {
    let board = wuzi::board::diagram::parse(text).unwrap();
    let lines = board.line_patterns();
    (
        threat_level(lines.class_counts(Color::Black)),
        threat_level(lines.class_counts(Color::White)),
    )
}

#[test]
fn threat_levels_read_the_strongest_threats() {
    // Black: an open two (three points); white: scattered stones.
    let quiet = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . O . . .
        . . . . . . . . . . .
        . . . . X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    assert_eq!(levels(quiet), (1, 0));
    // Black: an open three (two open-four points); white: a closed three (four points).
    let three = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . X O O O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    assert_eq!(levels(three), (6, 3));
    // Black: a split three (one open-four point); white: a closed three and an open two
    // far apart (four points and open-three points).
    let split = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . O .
        . . . . . . . . . O .
        . . . X X . X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . X O O O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    assert_eq!(levels(split), (5, 4));
}
