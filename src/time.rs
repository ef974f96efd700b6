//! What INFO says about time, turned into the limits of one move, measured from when the
//! manager's command was read: a hard limit (stop now) and a soft one (start no new iteration).
//! With a turn limit only, saving time buys nothing: the search runs to the hard limit. With a
//! match clock, the soft limit is the clock spread over the moves still to come, and the search
//! scales it with how settled its best move is (`stop_after`).

/// Time as the manager announced it. `None`/0 mean "not limited" as in the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeSettings {
    /// `timeout_turn` in ms; 0 means "answer at once".
    pub turn_ms: i64,
    /// `timeout_match` in ms; 0 means unlimited.
    pub match_ms: i64,
    /// `time_left` in ms; may be negative; 2147483647 means unlimited.
    pub time_left_ms: Option<i64>,
    /// `time_increment` in ms, added to the match clock after each move (Yixin-Board); the
    /// managers include it in `time_left` already.
    pub increment_ms: i64,
    /// `INFO move_overhead`: ms a move costs beyond its search (printing, the manager reading
    /// it, a slow machine or Wine), kept back from every turn and from the match clock for
    /// each move still to come.
    pub overhead_ms: u64,
    /// `INFO turn_reserve`: the percentage of the turn limit kept back besides the overhead.
    pub reserve_pct: u64,
}

/// `move_overhead` by default: under Wine replies came 10 to 50 ms after the search ended.
pub const DEFAULT_OVERHEAD_MS: u64 = 60;
/// `turn_reserve` by default: 1 s turns end at 900 ms, 5 s turns at 4.74 s.
pub const DEFAULT_RESERVE_PCT: u64 = 4;

/// Per-move time when the manager says nothing (the protocol skeleton's 30 s is too slow for
/// people trying the bot by hand).
pub const DEFAULT_TURN_MS: i64 = 5_000;
/// `time_left` value meaning "unlimited".
pub const UNLIMITED: i64 = 2_147_483_647;

impl Default for TimeSettings {
    fn default() -> TimeSettings {
        TimeSettings {
            turn_ms: DEFAULT_TURN_MS,
            match_ms: 0,
            time_left_ms: None,
            increment_ms: 0,
            overhead_ms: DEFAULT_OVERHEAD_MS,
            reserve_pct: DEFAULT_RESERVE_PCT,
        }
    }
}

/// The limits of one move in ms since the command was read. Invariant: `soft_ms <= hard_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// No new iteration after this (scaled by `stop_after` when `adaptive`).
    pub soft_ms: u64,
    /// Stop at once.
    pub hard_ms: u64,
    /// Whether the match clock binds, so that time saved now is time for later moves.
    pub adaptive: bool,
}

/// Time kept back from the turn limit: the overhead and `reserve_pct` percent of the turn,
/// at most half the turn.
pub fn turn_margin(turn_ms: u64, overhead_ms: u64, reserve_pct: u64) -> u64 {
    (overhead_ms + turn_ms * reserve_pct / 100).min(turn_ms / 2)
}

/// Time never spent from the match clock: a twentieth of it (at most two seconds), plus the
/// overhead of every move we may still have to make with `empty` cells left.
pub fn match_reserve(left_ms: u64, empty: usize, overhead_ms: u64) -> u64 {
    (left_ms / 20).min(2_000) + overhead_ms * (empty as u64).div_ceil(2)
}

/// Our moves the game is assumed to last still, with `stones` on the board and `empty` cells
/// left, `start` from an empty board: never fewer than 12, nor than the empty cells over
/// `floor` (0: no such floor; a long game on a large board keeps time for its last moves).
pub fn moves_to_go(stones: usize, empty: usize, start: u64, floor: u64) -> u64 {
    let by_cells = (empty as u64).checked_div(floor).unwrap_or(0);
    (start.saturating_sub(stones as u64 / 3))
        .max(12)
        .max(by_cells)
}

/// At most this fraction (1/n) of the usable match time goes into one move.
const MAX_SHARE: u64 = 6;

impl TimeSettings {
    /// The budget for one move with `stones` on the board and `empty` cells left, the match
    /// clock spread over `moves_to_go(stones, empty, togo, floor)` moves.
    pub fn budget(&self, stones: usize, empty: usize, togo: u64, floor: u64) -> Budget {
        let turn = self.turn_ms.max(0) as u64;
        let hard = if self.turn_ms <= 0 {
            0
        } else {
            turn.saturating_sub(turn_margin(turn, self.overhead_ms, self.reserve_pct))
        };
        let left = self.time_left_ms.filter(|&l| l != UNLIMITED);
        match left {
            Some(left) if self.match_ms > 0 || self.time_left_ms.is_some() => {
                let left = left.max(0) as u64;
                let usable = left.saturating_sub(match_reserve(left, empty, self.overhead_ms));
                let togo = moves_to_go(stones, empty, togo, floor);
                let inc = self.increment_ms.max(0) as u64;
                let optimum = (usable + inc * (togo - 1)) / togo;
                let hard = hard.min(usable / MAX_SHARE + inc.min(usable));
                Budget {
                    soft_ms: optimum.min(hard),
                    hard_ms: hard,
                    adaptive: optimum < hard,
                }
            }
            _ => Budget {
                soft_ms: hard,
                hard_ms: hard,
                adaptive: false,
            },
        }
    }
}

/// When an adaptive search stops starting iterations: the soft limit scaled by how unsettled
/// the best move is (`instability`: 0 settled, each recent change adds up to 1, older ones
/// count half each iteration) and by a falling score (`drop`, evaluation units since the last
/// iteration), never past `hard_ms`; a settled move stops at `base` percent of the soft limit.
pub fn stop_after(soft_ms: u64, hard_ms: u64, instability: f64, drop: i32, base: u64) -> u64 {
    let mut factor = base as f64 / 100.0 + 0.9 * instability;
    if drop > 40 {
        factor *= 1.4;
    }
    let ms = soft_ms as f64 * factor.clamp(0.5, 2.5);
    (ms as u64).min(hard_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(turn: i64, matc: i64, left: Option<i64>) -> Budget {
        TimeSettings {
            turn_ms: turn,
            match_ms: matc,
            time_left_ms: left,
            ..TimeSettings::default()
        }
        .budget(10, 215, 35, 8)
    }

    #[test]
    fn a_turn_limit_alone_is_spent_to_its_margin() {
        let b = t(1000, 0, None);
        assert_eq!(b.hard_ms, 900);
        assert_eq!(b.soft_ms, 900);
        assert!(!b.adaptive);
        assert_eq!(t(5000, 0, None).hard_ms, 4740);
        assert_eq!(t(200, 0, None).hard_ms, 132);
        assert_eq!(
            t(60, 0, None).hard_ms,
            30,
            "at most half the turn is kept back"
        );
        assert_eq!(t(5000, 0, Some(UNLIMITED)), t(5000, 0, None));
    }

    #[test]
    fn zero_turn_answers_at_once() {
        let b = t(0, 0, None);
        assert_eq!((b.soft_ms, b.hard_ms), (0, 0));
    }

    #[test]
    fn a_short_match_clock_binds_and_adapts() {
        let b = t(30_000, 180_000, Some(10_000));
        assert!(b.adaptive);
        assert!(
            b.hard_ms <= (10_000 - match_reserve(10_000, 215, DEFAULT_OVERHEAD_MS)) / MAX_SHARE
        );
        assert!(b.soft_ms < b.hard_ms);
        assert_eq!(t(5000, 100_000, Some(-50)).hard_ms, 0);
    }

    #[test]
    fn stability_shortens_and_instability_lengthens_the_soft_limit() {
        assert!(stop_after(1000, 4000, 0.0, 0, 60) < 1000);
        assert!(stop_after(1000, 4000, 1.5, 0, 60) > 1000);
        assert!(stop_after(1000, 4000, 0.0, 100, 60) > stop_after(1000, 4000, 0.0, 0, 60));
        assert_eq!(stop_after(1000, 1200, 2.0, 100, 60), 1200);
    }

    #[test]
    fn fewer_moves_to_go_and_a_higher_base_spend_more_of_the_clock() {
        let s = TimeSettings {
            turn_ms: 5_000,
            match_ms: 120_000,
            time_left_ms: Some(100_000),
            ..TimeSettings::default()
        };
        let (old, new) = (s.budget(10, 215, 35, 8), s.budget(10, 215, 30, 8));
        assert!(old.adaptive && new.soft_ms > old.soft_ms);
        assert_eq!(old.hard_ms, new.hard_ms);
        assert!(stop_after(1000, 4000, 0.0, 0, 100) > stop_after(1000, 4000, 0.0, 0, 60));
        assert_eq!(moves_to_go(90, 135, 22, 8), 16);
        // On an opening 20×20 board the floor (an eighth of the empty cells) decides.
        assert_eq!(moves_to_go(4, 396, 35, 8), 49);
        assert_eq!(moves_to_go(4, 396, 35, 0), 34);
        assert_eq!(moves_to_go(90, 90, 22, 8), 12);
    }

    /// Whole games to a full board against every Gomocup clock, each of our moves taking all
    /// its hard limit and then the overhead (the answer printed and read): the clock never
    /// runs out and no move passes the turn limit, with the moves-to-go floor or without it.
    #[test]
    fn gomocup_clocks_never_run_out() {
        let late = DEFAULT_OVERHEAD_MS;
        for (turn, matc, side, floor) in [
            (5_000i64, 120_000i64, 20usize, 8u64),
            (30_000, 180_000, 15, 8),
            (300_000, 1_000_000, 20, 8),
            (1_000, 0, 15, 8),
            (5_000, 120_000, 20, 0),
            (30_000, 180_000, 20, 0),
        ] {
            let mut left = matc;
            let cells = side * side;
            for stones in (0..cells).step_by(2) {
                let s = TimeSettings {
                    turn_ms: turn,
                    match_ms: matc,
                    time_left_ms: Some(if matc > 0 { left } else { UNLIMITED }),
                    ..TimeSettings::default()
                };
                let b = s.budget(stones, cells - stones, 35, floor);
                let used = b.hard_ms + late;
                assert!(used as i64 <= turn, "{turn}/{matc}: move of {used} ms");
                if matc > 0 {
                    left -= used as i64;
                    assert!(left > 0, "{turn}/{matc}: clock ran out at {stones} stones");
                }
            }
        }
    }

    /// GomocupJudge's fastgame clock (20×20, 5 s a move, 100 s a game) over a 200-move game:
    /// with every move half as long again as its soft limit (at most its hard one; a settled
    /// move stops at 0.6 of it, an unsettled one goes on) and the overhead after it, the clock
    /// keeps a reserve to the end and the last moves still get a real search; with every move
    /// at its hard limit, it never runs out.
    #[test]
    fn a_long_fastgame_keeps_time_for_its_last_moves() {
        let (turn, matc) = (5_000i64, 100_000i64);
        for worst in [false, true] {
            let mut left = matc;
            let mut last_soft = 0;
            for stones in (0..200).step_by(2) {
                let s = TimeSettings {
                    turn_ms: turn,
                    match_ms: matc,
                    time_left_ms: Some(left),
                    ..TimeSettings::default()
                };
                let b = s.budget(stones, 400 - stones, 35, 8);
                let used = if worst {
                    b.hard_ms
                } else {
                    (b.soft_ms * 3 / 2).min(b.hard_ms)
                };
                assert!(b.hard_ms as i64 <= left / 6, "{} ms of {left}", b.hard_ms);
                left -= (used + DEFAULT_OVERHEAD_MS) as i64;
                last_soft = b.soft_ms;
                assert!(left > 0, "the clock ran out at {stones} stones");
            }
            if !worst {
                assert!(
                    last_soft >= 30,
                    "the 100th move's soft limit: {last_soft} ms"
                );
                assert!(left >= 5_000, "{left} ms left");
            }
        }
    }
}
