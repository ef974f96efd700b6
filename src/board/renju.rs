//! Renju fouls for black: overline, double four (two fours on one line included) and double
//! three, where a three only counts if the point that makes it a straight four is itself not a
//! foul (checked recursively). A move that makes exactly five is never a foul.

use super::grid::{Cell, Color, Grid};
use super::pattern::Shape;
use crate::geometry::{Direction, Pos};

/// Why a black move is forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foul {
    DoubleFour,
    DoubleThree,
    Overline,
}

impl Foul {
    pub fn name(self) -> &'static str {
        match self {
            Foul::DoubleFour => "double-four",
            Foul::DoubleThree => "double-three",
            Foul::Overline => "overline",
        }
    }
}

/// Recursion guard for nested three checks; real positions stay far below it.
const MAX_NESTING: u32 = 12;

/// Whether black on the empty point `p` would be a foul, and which. `grid` is restored.
pub fn foul(grid: &mut Grid, p: Pos) -> Option<Foul> {
    foul_nested(grid, p, 0)
}

/// Cheap necessary condition for a foul at the empty point `p`: two lines with two black stones
/// near `p`, or one line with three. Points failing it are never fouls.
pub fn may_be_foul(grid: &Grid, p: Pos) -> bool {
    let mut busy_lines = 0;
    for dir in Direction::ALL {
        let mut black = 0;
        for k in -5..=5isize {
            if k != 0 && grid.along(p, dir, k) == Cell::Black {
                black += 1;
            }
        }
        if black >= 3 {
            return true;
        }
        if black >= 2 {
            busy_lines += 1;
        }
    }
    busy_lines >= 2
}

fn foul_nested(grid: &mut Grid, p: Pos, depth: u32) -> Option<Foul> {
    if grid.get(p) != Cell::Empty || !may_be_foul(grid, p) {
        return None;
    }
    grid.set(p, Cell::Black);
    let verdict = classify(grid, p, depth);
    grid.set(p, Cell::Empty);
    verdict
}

/// Classifies the black stone just placed on `p`, in the referee's order: five, double four,
/// double three, overline.
fn classify(grid: &mut Grid, p: Pos, depth: u32) -> Option<Foul> {
    let lens = Direction::ALL.map(|d| grid.line_len(p, d, Color::Black));
    if lens.contains(&5) {
        return None;
    }
    let fours: usize = Direction::ALL.iter().map(|&d| four_count(grid, p, d)).sum();
    if fours >= 2 {
        return Some(Foul::DoubleFour);
    }
    if depth < MAX_NESTING {
        let threes = Direction::ALL
            .iter()
            .filter(|&&d| is_three(grid, p, d, depth))
            .count();
        if threes >= 2 {
            return Some(Foul::DoubleThree);
        }
    }
    if lens.iter().any(|&l| l > 5) {
        return Some(Foul::Overline);
    }
    None
}

/// `foul` for an empty point where black's line shapes (the exact-five shapes of `pattern`,
/// one per direction in `Direction::ALL` order) are known: the same verdict, with the lines
/// that cannot hold a four or a three left out. A line holds a four only where its shape is a
/// four or an open four, and a renju three only where it is an open three or better (the
/// point that makes the straight four would give two five points); an overline is that shape.
pub fn foul_shaped(grid: &mut Grid, p: Pos, shapes: [Shape; 4]) -> Option<Foul> {
    if grid.get(p) != Cell::Empty || shapes.contains(&Shape::Five) {
        return None;
    }
    grid.set(p, Cell::Black);
    let verdict = classify_shaped(grid, p, shapes);
    grid.set(p, Cell::Empty);
    verdict
}

/// `classify` at the top level, reading only the lines whose `shapes` allow a four or a three.
fn classify_shaped(grid: &mut Grid, p: Pos, shapes: [Shape; 4]) -> Option<Foul> {
    let dirs = Direction::ALL;
    let fours: usize = (0..4)
        .filter(|&d| shapes[d] >= Shape::Four)
        .map(|d| four_count(grid, p, dirs[d]))
        .sum();
    if fours >= 2 {
        return Some(Foul::DoubleFour);
    }
    let open = |d: usize| (Shape::OpenThree..=Shape::OpenFour).contains(&shapes[d]);
    if (0..4).filter(|&d| open(d)).count() >= 2 {
        let threes = (0..4)
            .filter(|&d| open(d) && is_three(grid, p, dirs[d], 0))
            .count();
        if threes >= 2 {
            return Some(Foul::DoubleThree);
        }
    }
    shapes.contains(&Shape::Overline).then_some(Foul::Overline)
}

/// The empty points on `dir` within four of `p` where black would make exactly five through `p`.
fn five_points(grid: &Grid, p: Pos, dir: Direction) -> ([isize; 2], usize) {
    let mut found = [0isize; 2];
    let mut n = 0;
    for k in -4..=4isize {
        if k == 0 || grid.along(p, dir, k) != Cell::Empty {
            continue;
        }
        if exact_five_with(grid, p, dir, k) {
            if n < 2 {
                found[n] = k;
            }
            n += 1;
        }
    }
    (found, n)
}

/// Whether a black stone at offset `k` from the black stone `p` makes a line of exactly five
/// containing `p`.
fn exact_five_with(grid: &Grid, p: Pos, dir: Direction, k: isize) -> bool {
    let black = |j: isize| j == k || grid.along(p, dir, j) == Cell::Black;
    let (lo, hi) = (k.min(0), k.max(0));
    if !(lo..=hi).all(black) {
        return false;
    }
    let mut a = lo;
    while black(a - 1) {
        a -= 1;
    }
    let mut b = hi;
    while black(b + 1) {
        b += 1;
    }
    b - a + 1 == 5
}

/// Number of fours through the black stone `p` along `dir`: a straight four counts once, while
/// two separate five points (`X.XXX.X`, `XX.XX.XX`) count as two fours.
fn four_count(grid: &Grid, p: Pos, dir: Direction) -> usize {
    match five_points(grid, p, dir) {
        ([a, b], 2) if b - a == 5 => 1,
        (_, n) => n,
    }
}

/// Whether the black stones `p` and `p + k·dir` lie in one straight four `.XXXX.` along `dir`,
/// each end making exactly five.
fn is_straight_four(grid: &Grid, p: Pos, dir: Direction, k: isize) -> bool {
    let (back, fwd) = grid.run_around(p, dir, Color::Black);
    if back + fwd + 1 != 4 || k < -(back as isize) || k > fwd as isize {
        return false;
    }
    let lo = -(back as isize) - 1;
    let hi = fwd as isize + 1;
    grid.along(p, dir, lo) == Cell::Empty
        && grid.along(p, dir, hi) == Cell::Empty
        && grid.along(p, dir, lo - 1) != Cell::Black
        && grid.along(p, dir, hi + 1) != Cell::Black
}

/// Whether the black stone `p` makes a real three along `dir`: some empty point turns it into a
/// straight four and is not itself a foul.
fn is_three(grid: &mut Grid, p: Pos, dir: Direction, depth: u32) -> bool {
    for k in -3..=3isize {
        if k == 0 || grid.along(p, dir, k) != Cell::Empty {
            continue;
        }
        let q = p
            .step(dir, k, grid.dims())
            .expect("an empty cell is on the board");
        grid.set(q, Cell::Black);
        let straight = is_straight_four(grid, p, dir, k);
        grid.set(q, Cell::Empty);
        if straight && foul_nested(grid, q, depth + 1).is_none() {
            return true;
        }
    }
    false
}
