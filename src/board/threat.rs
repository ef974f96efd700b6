//! Threats per cell and colour, exact under every rule: what a stone would make (five, fours,
//! open threes and their combinations), and the cheap five-point and four-point queries the
//! threat search runs on, read from the win-count table's line counts.

use super::grid::{Cell, Color, Grid};
use super::Board;
use crate::geometry::{Direction, Pos};
use crate::rules::Rule;

/// What a stone of one colour on an empty cell makes, strongest first in `Ord` terms (a larger
/// value is a stronger threat). Invariant: `Foul` only for black under renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Threat {
    /// Black may not play here (renju).
    Foul,
    None,
    /// One open three: a straight four next move.
    Three,
    /// Two or more open threes (a win in freestyle, a foul for black under renju).
    DoubleThree,
    /// One four: a single five point.
    Four,
    /// A four and an open three: the four is blocked, the three becomes a straight four.
    FourThree,
    /// Two five points: a straight four, two fours on one line, or fours on two lines.
    OpenFour,
    /// A winning line.
    Five,
}

impl Threat {
    pub fn name(self) -> &'static str {
        match self {
            Threat::Foul => "foul",
            Threat::None => "none",
            Threat::Three => "three",
            Threat::DoubleThree => "three-three",
            Threat::Four => "four",
            Threat::FourThree => "four-three",
            Threat::OpenFour => "open-four",
            Threat::Five => "five",
        }
    }

    /// Whether the threat forces a reply at once (it makes at least a four).
    pub fn is_four(self) -> bool {
        self >= Threat::Four
    }
}

/// What a stone of `c` on the empty point `p` makes under `rule`. `grid` is restored.
pub fn classify(grid: &mut Grid, rule: Rule, p: Pos, c: Color) -> Threat {
    if rule.wins_at(grid, p, c) {
        return Threat::Five;
    }
    if rule.is_forbidden(grid, p, c) {
        return Threat::Foul;
    }
    grid.set(p, Cell::stone(c));
    let five_points = distinct_fives(grid, rule, p, c);
    let mut threes = 0;
    for dir in Direction::ALL {
        let four = fives_with(grid, rule, p, c, dir)
            .iter()
            .any(Option::is_some);
        if !four && is_open_three(grid, rule, p, c, dir) {
            threes += 1;
        }
    }
    grid.set(p, Cell::Empty);
    match (five_points, threes) {
        (2.., _) => Threat::OpenFour,
        (1, 1..) => Threat::FourThree,
        (1, 0) => Threat::Four,
        (0, 2..) => Threat::DoubleThree,
        (0, 1) => Threat::Three,
        _ => Threat::None,
    }
}

/// The empty points along `dir` where `c` would complete a winning line that contains the `c`
/// stone on `p`: two for a straight four, one for a four.
pub fn fives_with(grid: &Grid, rule: Rule, p: Pos, c: Color, dir: Direction) -> [Option<Pos>; 2] {
    let own = Cell::stone(c);
    [-1isize, 1].map(|sign| {
        // Walk over own stones to the first empty point on this side; only that one can make a
        // line through `p` (any point further out leaves a gap).
        let mut k = 1;
        while grid.along(p, dir, sign * k) == own {
            k += 1;
        }
        if k > 4 || grid.along(p, dir, sign * k) != Cell::Empty {
            return None;
        }
        let e = step(p, dir, sign * k);
        rule.wins_along(grid, e, c, dir).then_some(e)
    })
}

/// The distinct five points of all lines through the `c` stone on `p`.
fn distinct_fives(grid: &Grid, rule: Rule, p: Pos, c: Color) -> usize {
    let mut seen: [Option<Pos>; 8] = [None; 8];
    let mut n = 0;
    for dir in Direction::ALL {
        for e in fives_with(grid, rule, p, c, dir).into_iter().flatten() {
            if !seen[..n].contains(&Some(e)) {
                seen[n] = Some(e);
                n += 1;
            }
        }
    }
    n
}

/// Whether the `c` stone on `p` is part of an open three along `dir`: some empty point turns it
/// into a straight four through `p`, and (renju) that point is not a foul for black.
fn is_open_three(grid: &mut Grid, rule: Rule, p: Pos, c: Color, dir: Direction) -> bool {
    for k in (-4..=4isize).filter(|&k| k != 0) {
        if grid.along(p, dir, k) != Cell::Empty {
            continue;
        }
        let e = step(p, dir, k);
        grid.set(e, Cell::stone(c));
        let straight = fives_with(grid, rule, p, c, dir)
            .iter()
            .all(Option::is_some);
        grid.set(e, Cell::Empty);
        if straight && !rule.is_forbidden(grid, e, c) {
            return true;
        }
    }
    false
}

/// `p` moved `k` steps along `dir`; the caller knows the cell is on the board.
fn step(p: Pos, dir: Direction, k: isize) -> Pos {
    let (dx, dy) = dir.delta();
    Pos::new(
        (p.x as isize + dx * k) as usize,
        (p.y as isize + dy * k) as usize,
    )
}

/// Whether `c` would win by playing the empty cell index `i` (a window-count test first).
pub fn is_five_point(board: &Board, rule: Rule, c: Color, i: usize) -> bool {
    board.has_line(c, i, 4) && rule.wins_at(board.grid(), board.dims().pos(i), c)
}

/// The distinct five points of `c` in the windows through cell index `i`, into `out`; returns
/// how many (at most `out.len()` are kept, the count goes on).
pub fn five_points_through(
    board: &Board,
    rule: Rule,
    c: Color,
    i: usize,
    out: &mut [u16],
) -> usize {
    let windows = board.windows();
    let wc = board.wincount();
    let mut n = 0;
    for &w in windows.through(i) {
        let counts = wc.counts(w as usize);
        if counts[c.index()] != 4 || counts[c.opp().index()] != 0 {
            continue;
        }
        let Some(&e) = windows
            .cells(w as usize)
            .iter()
            .find(|&&e| board.grid().get(board.dims().pos(e as usize)) == Cell::Empty)
        else {
            continue;
        };
        if out[..n.min(out.len())].contains(&e) {
            continue;
        }
        if rule.wins_at(board.grid(), board.dims().pos(e as usize), c) {
            if n < out.len() {
                out[n] = e;
            }
            n += 1;
        }
    }
    n
}

/// How many distinct five points `c` would have after playing the empty cell index `i`, counting
/// only lines through `i` (the caller knows `c` has no five point now). 0 means no four.
pub fn fours_made(board: &mut Board, rule: Rule, c: Color, i: usize) -> usize {
    if !board.has_line(c, i, 3) {
        return 0;
    }
    let p = board.dims().pos(i);
    board.grid_mut().set(p, Cell::stone(c));
    let n = distinct_fives(board.grid(), rule, p, c);
    board.grid_mut().set(p, Cell::Empty);
    n
}
