//! Every answer the bot gives is a legal move: on the board, on an empty cell and, under renju,
//! never a foul for black. Checked over many random positions (lost ones included: white with
//! two fives, or with a five on a point black may not play) under every limit a manager can set
//! (`timeout_turn 0`, tiny `max_node`, `max_depth 1`, STOP at once, a short normal search), with
//! a foul check written here from the rule text (`shared/protocol.md` §10), independent of
//! `board::renju`.

use std::sync::atomic::AtomicBool;
use std::time::Instant;
use wuzi::protocol::session::{Action, Session};

const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const WALL: u8 = 3;

/// A plain board for the reference rules: `cells[y * w + x]` is EMPTY, BLACK or WHITE.
#[derive(Clone)]
struct Plain {
    w: i32,
    h: i32,
    cells: Vec<u8>,
}

impl Plain {
    fn new(w: i32, h: i32) -> Plain {
        Plain {
            w,
            h,
            cells: vec![EMPTY; (w * h) as usize],
        }
    }

    fn get(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.w || y >= self.h {
            WALL
        } else {
            self.cells[(y * self.w + x) as usize]
        }
    }

    fn set(&mut self, x: i32, y: i32, v: u8) {
        self.cells[(y * self.w + x) as usize] = v;
    }

    /// The run of `c` stones through (x, y) along `d`, as offsets `(first, last)` from it
    /// (the cell itself counted as `c`).
    fn run(&self, x: i32, y: i32, d: (i32, i32), c: u8) -> (i32, i32) {
        let mut a = 0;
        while self.get(x + (a - 1) * d.0, y + (a - 1) * d.1) == c {
            a -= 1;
        }
        let mut b = 0;
        while self.get(x + (b + 1) * d.0, y + (b + 1) * d.1) == c {
            b += 1;
        }
        (a, b)
    }

    fn run_len(&self, x: i32, y: i32, d: (i32, i32), c: u8) -> i32 {
        let (a, b) = self.run(x, y, d, c);
        b - a + 1
    }

    /// Whether `c` on (x, y) wins under the rule (`exact`: only exactly five; renju: black
    /// exact, white five or more).
    fn wins(&self, x: i32, y: i32, c: u8, renju: bool, exact: bool) -> bool {
        DIRS.iter().any(|&d| {
            let n = self.run_len(x, y, d, c);
            if exact || (renju && c == BLACK) {
                n == 5
            } else {
                n >= 5
            }
        })
    }

    /// Offsets along `d` from the black stone on (x, y) of the empty points that would give a
    /// run of exactly five through it.
    fn five_offsets(&mut self, x: i32, y: i32, d: (i32, i32)) -> Vec<i32> {
        let mut out = Vec::new();
        for k in -4..=4 {
            let (qx, qy) = (x + k * d.0, y + k * d.1);
            if k == 0 || self.get(qx, qy) != EMPTY {
                continue;
            }
            self.set(qx, qy, BLACK);
            if self.run_len(x, y, d, BLACK) == 5 {
                out.push(k);
            }
            self.set(qx, qy, EMPTY);
        }
        out
    }

    /// Fours of the black stone on (x, y) along `d`: a straight four is one, two separate five
    /// points on one line are two.
    fn fours(&mut self, x: i32, y: i32, d: (i32, i32)) -> usize {
        let f = self.five_offsets(x, y, d);
        if f.len() == 2 && f[1] - f[0] == 5 {
            1
        } else {
            f.len()
        }
    }

    /// Whether the black stone on (x, y) is in a real three along `d`: an empty point that
    /// makes a straight four with it and is not itself a foul.
    fn three(&mut self, x: i32, y: i32, d: (i32, i32)) -> bool {
        for k in -4..=4 {
            let (qx, qy) = (x + k * d.0, y + k * d.1);
            if k == 0 || self.get(qx, qy) != EMPTY {
                continue;
            }
            self.set(qx, qy, BLACK);
            let (a, b) = self.run(x, y, d, BLACK);
            let straight = b - a + 1 == 4
                && (a..=b).contains(&k)
                && [a - 1, b + 1].iter().all(|&e| {
                    let (ex, ey) = (x + e * d.0, y + e * d.1);
                    let beyond = if e < a { e - 1 } else { e + 1 };
                    self.get(ex, ey) == EMPTY
                        && self.get(x + beyond * d.0, y + beyond * d.1) != BLACK
                });
            self.set(qx, qy, EMPTY);
            if straight && !self.foul(qx, qy) {
                return true;
            }
        }
        false
    }

    /// Whether black may not play the empty point (x, y): five first (never a foul), then
    /// double four, double three, overline.
    fn foul(&mut self, x: i32, y: i32) -> bool {
        self.set(x, y, BLACK);
        let runs: Vec<i32> = DIRS.iter().map(|&d| self.run_len(x, y, d, BLACK)).collect();
        let verdict = if runs.contains(&5) {
            false
        } else if DIRS.iter().map(|&d| self.fours(x, y, d)).sum::<usize>() >= 2
            || DIRS.iter().filter(|&&d| self.three(x, y, d)).count() >= 2
        {
            true
        } else {
            runs.iter().any(|&r| r > 5)
        };
        self.set(x, y, EMPTY);
        verdict
    }

    fn empties(&self) -> Vec<(i32, i32)> {
        (0..self.h)
            .flat_map(|y| (0..self.w).map(move |x| (x, y)))
            .filter(|&(x, y)| self.get(x, y) == EMPTY)
            .collect()
    }

    /// The empty points where `c` would win.
    fn five_points(&self, c: u8, renju: bool, exact: bool) -> Vec<(i32, i32)> {
        self.empties()
            .into_iter()
            .filter(|&(x, y)| self.wins(x, y, c, renju, exact))
            .collect()
    }

    fn count(&self, c: u8) -> usize {
        self.cells.iter().filter(|&&v| v == c).count()
    }
}

/// A small deterministic generator (xorshift), so the positions are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random game position: stones near each other, black never fouls, nobody has five yet;
/// `stones` of them, black to move when `stones` is even.
fn random_position(rng: &mut Rng, w: i32, h: i32, stones: usize, renju: bool) -> Option<Plain> {
    let mut b = Plain::new(w, h);
    b.set(w / 2, h / 2, BLACK);
    for n in 1..stones {
        let c = if n % 2 == 0 { BLACK } else { WHITE };
        let near: Vec<(i32, i32)> = b
            .empties()
            .into_iter()
            .filter(|&(x, y)| {
                (-2..=2).any(|dy| (-2..=2).any(|dx| matches!(b.get(x + dx, y + dy), BLACK | WHITE)))
            })
            .collect();
        let pool = if near.is_empty() { b.empties() } else { near };
        let mut placed = false;
        for _ in 0..20 {
            let (x, y) = pool[rng.below(pool.len())];
            if b.wins(x, y, c, renju, false) || (renju && c == BLACK && b.foul(x, y)) {
                continue;
            }
            b.set(x, y, c);
            placed = true;
            break;
        }
        if !placed {
            return None;
        }
    }
    Some(b)
}

/// Adds stones of `c` on random empty cells that neither make a five nor (black, renju) are
/// fouls, away from `keep_free`.
fn pad(rng: &mut Rng, b: &mut Plain, c: u8, n: usize, keep_free: &[(i32, i32)]) -> bool {
    for _ in 0..n {
        let mut done = false;
        for _ in 0..50 {
            let e = b.empties();
            let (x, y) = e[rng.below(e.len())];
            if keep_free.contains(&(x, y))
                || b.wins(x, y, c, true, false)
                || (c == BLACK && b.foul(x, y))
            {
                continue;
            }
            b.set(x, y, c);
            done = true;
            break;
        }
        if !done {
            return false;
        }
    }
    true
}

/// A renju position where white has an open four (two five points), black to move.
fn two_fives(rng: &mut Rng) -> Option<Plain> {
    let stones = 2 * (4 + rng.below(12));
    let mut b = random_position(rng, 15, 15, stones, true)?;
    let d = DIRS[rng.below(4)];
    let (x0, y0) = (rng.below(15) as i32, rng.below(15) as i32);
    let cells: Vec<(i32, i32)> = (0..6).map(|k| (x0 + k * d.0, y0 + k * d.1)).collect();
    if cells.iter().any(|&(x, y)| b.get(x, y) != EMPTY) {
        return None;
    }
    for &(x, y) in &cells[1..5] {
        b.set(x, y, WHITE);
    }
    if !pad(rng, &mut b, BLACK, 4, &[cells[0], cells[5]]) {
        return None;
    }
    let white = b.five_points(WHITE, true, false);
    (white.len() >= 2 && b.five_points(BLACK, true, false).is_empty()).then_some(b)
}

/// A renju position where a five point of white's is a double three for black, black to move:
/// white's only one, or (`open`) one of the two of an open four.
fn five_on_foul(rng: &mut Rng, open: bool) -> Option<Plain> {
    let stones = 2 * rng.below(8);
    let mut b = random_position(rng, 15, 15, stones, true)?;
    let (fx, fy) = (3 + rng.below(9) as i32, 3 + rng.below(9) as i32);
    if b.get(fx, fy) != EMPTY {
        return None;
    }
    // Two black pairs ending next to f in two directions, four white stones in a third.
    let mut dirs = DIRS.to_vec();
    let a = dirs.remove(rng.below(4));
    let c = dirs.remove(rng.below(3));
    let wd = dirs.remove(rng.below(2));
    // White's stones: a window with f at one end when the four is open, anywhere else not.
    let ws = if open {
        [-4, 0][rng.below(2)]
    } else {
        -(rng.below(5) as i32)
    };
    let mut black = Vec::new();
    for d in [a, c] {
        let s = if rng.below(2) == 0 { 1 } else { -1 };
        black.push((fx + s * d.0, fy + s * d.1));
        black.push((fx + 2 * s * d.0, fy + 2 * s * d.1));
    }
    let white: Vec<(i32, i32)> = (ws..ws + 5)
        .filter(|&k| k != 0)
        .map(|k| (fx + k * wd.0, fy + k * wd.1))
        .collect();
    for &(x, y) in black.iter().chain(&white) {
        if b.get(x, y) != EMPTY {
            return None;
        }
    }
    for &(x, y) in &black {
        b.set(x, y, BLACK);
    }
    for &(x, y) in &white {
        b.set(x, y, WHITE);
    }
    let (nb, nw) = (b.count(BLACK), b.count(WHITE));
    let ok = if nb > nw {
        pad(rng, &mut b, WHITE, nb - nw, &[(fx, fy)])
    } else {
        pad(rng, &mut b, BLACK, nw - nb, &[(fx, fy)])
    };
    if !ok || b.count(BLACK) != b.count(WHITE) {
        return None;
    }
    let fives = b.five_points(WHITE, true, false);
    let shape = if open {
        fives.len() == 2
    } else {
        fives.len() == 1
    };
    let lost = shape && fives.contains(&(fx, fy)) && b.foul(fx, fy);
    (lost && b.five_points(BLACK, true, false).is_empty()).then_some(b)
}

/// The limit settings a manager can impose: INFO lines, and whether STOP comes at once.
const SETTINGS: &[(&[&str], bool)] = &[
    (&["INFO timeout_turn 0"], false),
    (&["INFO max_node 1"], false),
    (&["INFO max_node 50"], false),
    (&["INFO max_depth 1"], false),
    (&["INFO timeout_turn 1000"], true),
    (&["INFO max_node 3000"], false),
];

/// Asks the session for a move on `b` (side to move by the stone counts) under `rule`, and
/// returns the move it answers.
fn answer(b: &Plain, rule: i64, infos: &[&str], stop_at_once: bool) -> (i32, i32) {
    let mut s = Session::new();
    let mut lines = vec![
        format!("RECTSTART {},{}", b.w, b.h),
        format!("INFO rule {rule}"),
    ];
    lines.extend(infos.iter().map(|l| l.to_string()));
    let (nb, nw) = (b.count(BLACK), b.count(WHITE));
    let me = if nb == nw { BLACK } else { WHITE };
    lines.push("BOARD".into());
    for y in 0..b.h {
        for x in 0..b.w {
            match b.get(x, y) {
                EMPTY => {}
                v => lines.push(format!("{x},{y},{}", if v == me { 1 } else { 2 })),
            }
        }
    }
    lines.push("DONE".into());
    let mut reply = Vec::new();
    for l in &lines {
        match s.handle(l, Instant::now()) {
            Action::Reply(r) => reply.extend(r),
            Action::Quit => panic!("quit on {l}"),
            Action::Think(mut job) => {
                let stop = AtomicBool::new(stop_at_once);
                let out = job.run(&stop, &mut ());
                reply.extend(s.finish(job, Some(out)));
            }
        }
    }
    let mv = reply.last().expect("a move line");
    let (x, y) = mv
        .split_once(',')
        .unwrap_or_else(|| panic!("'{mv}' is not a move"));
    (x.parse().unwrap(), y.parse().unwrap())
}

fn check(b: &Plain, rule: i64, what: &str) {
    let renju = rule == 4;
    for (infos, stop) in SETTINGS {
        let (x, y) = answer(b, rule, infos, *stop);
        assert_eq!(
            b.get(x, y),
            EMPTY,
            "{what}: {x},{y} is off the board or taken ({infos:?}, stop {stop})"
        );
        if renju && b.count(BLACK) == b.count(WHITE) {
            let mut probe = b.clone();
            assert!(
                !probe.foul(x, y),
                "{what}: black answered the foul {x},{y} ({infos:?}, stop {stop})"
            );
        }
    }
}

#[test]
fn black_never_answers_a_foul_in_lost_or_any_renju_position() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut plain, mut lost_two, mut lost_foul) = (0, 0, 0);
    let mut fouls_near = 0;
    while plain < 60 {
        let n = 2 * (5 + rng.below(25));
        if let Some(b) = random_position(&mut rng, 15, 15, n, true) {
            let mut probe = b.clone();
            if b.empties().into_iter().any(|(x, y)| probe.foul(x, y)) {
                fouls_near += 1;
            }
            check(&b, 4, "random renju");
            plain += 1;
        }
    }
    let mut tries = 0;
    while lost_two < 40 && tries < 20_000 {
        tries += 1;
        if let Some(b) = two_fives(&mut rng) {
            check(&b, 4, "white has two fives");
            lost_two += 1;
        }
    }
    let mut lost_open_foul = 0;
    tries = 0;
    while (lost_foul < 40 || lost_open_foul < 40) && tries < 200_000 {
        tries += 1;
        let open = tries % 2 == 0;
        if let Some(b) = five_on_foul(&mut rng, open) {
            if open {
                check(&b, 4, "one of white's two fives is on a foul point");
                lost_open_foul += 1;
            } else {
                check(&b, 4, "white's only five is on a foul point");
                lost_foul += 1;
            }
        }
    }
    // The test is only worth something if it met each kind of position many times.
    assert!(
        lost_two >= 40 && lost_foul >= 40 && lost_open_foul >= 40,
        "too few lost positions built: {lost_two}, {lost_foul}, {lost_open_foul}"
    );
    assert!(
        fouls_near >= 10,
        "random positions with fouls: {fouls_near}"
    );
}

#[test]
fn every_rule_answers_an_empty_cell_on_the_board_even_when_nearly_full() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for rule in [0, 1, 8, 9, 4] {
        let mut done = 0;
        while done < 12 {
            let (w, h) = (5 + rng.below(5) as i32, 5 + rng.below(5) as i32);
            let total = (w * h) as usize;
            // Dense boards: a handful of empty cells left, sometimes none near the stones.
            let n = total - 1 - rng.below(6);
            let Some(b) = random_position(&mut rng, w, h, n, rule == 4) else {
                continue;
            };
            if b.empties().is_empty() {
                continue;
            }
            let renju_black = rule == 4 && b.count(BLACK) == b.count(WHITE);
            if renju_black && b.empties().iter().all(|&(x, y)| b.clone().foul(x, y)) {
                continue; // no legal move at all: nothing to check
            }
            check(&b, rule, &format!("rule {rule}, {w}x{h} with {n} stones"));
            done += 1;
        }
    }
}
