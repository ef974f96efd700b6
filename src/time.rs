//! What INFO says about time, turned into a soft limit (start no new iteration) and a hard
//! limit (stop now) for one move, both measured from when the manager's command was read.

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
}

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
        }
    }
}

/// The limits of one move in ms since the command was read. Invariant: `soft_ms <= hard_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft_ms: u64,
    pub hard_ms: u64,
}

/// Time kept back from the turn limit for printing and the manager's reading.
pub fn turn_margin(turn_ms: u64) -> u64 {
    (turn_ms / 20).clamp(30, 300)
}

/// Moves the game is assumed to last still, for dividing the match clock.
const MOVES_TO_GO: u64 = 20;
/// At most this fraction (1/n) of the match time left goes into one move.
const MAX_SHARE: u64 = 5;

impl TimeSettings {
    /// The budget for one move.
    pub fn budget(&self) -> Budget {
        let turn = self.turn_ms.max(0) as u64;
        let mut hard = if self.turn_ms <= 0 {
            0
        } else {
            turn.saturating_sub(turn_margin(turn))
        };
        let mut target = hard / 2;
        let left = self.time_left_ms.filter(|&l| l != UNLIMITED);
        if let (true, Some(left)) = (self.match_ms > 0 || left.is_some(), left) {
            let left = left.max(0) as u64;
            let reserve = turn_margin(left);
            let by_match = (left / MAX_SHARE).min(left.saturating_sub(reserve));
            hard = hard.min(by_match);
            target = target.min(left / MOVES_TO_GO);
        }
        Budget {
            soft_ms: target.min(hard),
            hard_ms: hard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(turn: i64, matc: i64, left: Option<i64>) -> Budget {
        TimeSettings {
            turn_ms: turn,
            match_ms: matc,
            time_left_ms: left,
            increment_ms: 0,
        }
        .budget()
    }

    #[test]
    fn turn_limit_keeps_a_margin() {
        let b = t(5000, 0, None);
        assert_eq!(b.hard_ms, 4750);
        assert!(b.soft_ms <= b.hard_ms / 2);
        assert_eq!(t(200, 0, None).hard_ms, 170);
    }

    #[test]
    fn zero_turn_answers_at_once() {
        assert_eq!(
            t(0, 0, None),
            Budget {
                soft_ms: 0,
                hard_ms: 0
            }
        );
    }

    #[test]
    fn match_clock_binds_when_short() {
        let b = t(30_000, 180_000, Some(10_000));
        assert_eq!(b.hard_ms, 2_000);
        assert_eq!(b.soft_ms, 500);
    }

    #[test]
    fn negative_and_unlimited_time_left() {
        assert_eq!(t(5000, 100_000, Some(-50)).hard_ms, 0);
        assert_eq!(t(5000, 0, Some(UNLIMITED)), t(5000, 0, None));
    }
}
