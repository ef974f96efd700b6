//! Rule variants (freestyle, standard, renju, caro) from the INFO `rule` bitmask, and who has
//! won: exactly per `shared/protocol.md` §10.

use crate::board::renju::{self, Foul};
use crate::board::{Cell, Color, Grid};
use crate::geometry::{Direction, Pos};

/// How a game is won. Invariant: `Renju` is the only rule with fouls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Five or more in a row wins (rule 0).
    Freestyle,
    /// Exactly five wins; overlines are legal but win nothing (rule 1).
    Standard,
    /// Black: exactly five, fouls lose; white: five or more (rule 4; 2 in Yixin/Rapfi).
    Renju,
    /// Five not blocked at both ends by the opponent, or six and more (rule 8).
    Caro,
    /// Exactly five not blocked at both ends by the opponent (rule 9).
    CaroExact,
}

/// The result of a move for the referee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Win,
    Foul(Foul),
    Continue,
}

impl Rule {
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// Decodes the INFO `rule` value: bit 1 exact five, bit 4 renju, bit 8 caro; the value 2 is
    /// renju as Yixin-Board and Rapfi send it (Piskvork's "continuous" bit is GUI-only).
    pub fn from_info(value: i64) -> Rule {
        if value == 2 || value & 4 != 0 {
            return Rule::Renju;
        }
        match (value & 8 != 0, value & 1 != 0) {
            (false, false) => Rule::Freestyle,
            (false, true) => Rule::Standard,
            (true, false) => Rule::Caro,
            (true, true) => Rule::CaroExact,
        }
    }

    /// The INFO `rule` value managers send for this rule.
    pub fn info_value(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro-exact",
        }
    }

    /// Accepts a rule name or an INFO rule number.
    pub fn parse(text: &str) -> Option<Rule> {
        let t = text.trim().to_ascii_lowercase();
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == t)
            .or_else(|| match t.as_str() {
                "exact" | "exactfive" | "exact-five" => Some(Rule::Standard),
                _ => t.parse::<i64>().ok().map(Rule::from_info),
            })
    }

    /// Whether a stone of `c` on `p` makes a winning line (`p` is counted as `c`'s stone
    /// whatever it holds now).
    pub fn wins_at(self, grid: &Grid, p: Pos, c: Color) -> bool {
        Direction::ALL
            .iter()
            .any(|&dir| self.wins_along(grid, p, c, dir))
    }

    /// Whether a stone of `c` on `p` makes a winning line along `dir` (`p` counted as `c`'s).
    pub fn wins_along(self, grid: &Grid, p: Pos, c: Color, dir: Direction) -> bool {
        let (back, fwd) = grid.run_around(p, dir, c);
        let len = back + fwd + 1;
        let open = || {
            let opp = Cell::stone(c.opp());
            grid.along(p, dir, -(back as isize) - 1) != opp
                || grid.along(p, dir, fwd as isize + 1) != opp
        };
        match self {
            Rule::Freestyle => len >= 5,
            Rule::Standard => len == 5,
            Rule::Renju => len == 5 || (len > 5 && c == Color::White),
            Rule::Caro => len >= 6 || (len == 5 && open()),
            Rule::CaroExact => len == 5 && open(),
        }
    }

    /// Whether some points may be forbidden to `c` (renju's black).
    pub fn has_fouls(self, c: Color) -> bool {
        self == Rule::Renju && c == Color::Black
    }

    /// Whether a move of `c`'s that makes two five points (an open four, or fours on two lines)
    /// is a sure win, and so the moves that lead to one (`search::prune::pattern_win`): the
    /// opponent can block one point only. Not for renju's black, which may be forbidden the move
    /// (a double four), nor under caro, where one stone can leave a five blocked at both ends.
    pub fn two_fives_win(self, c: Color) -> bool {
        match self {
            Rule::Freestyle | Rule::Standard => true,
            Rule::Renju => c == Color::White,
            Rule::Caro | Rule::CaroExact => false,
        }
    }

    /// Whether `c` may not play the empty point `p` (a renju foul for black).
    pub fn is_forbidden(self, grid: &mut Grid, p: Pos, c: Color) -> bool {
        self.has_fouls(c) && renju::foul(grid, p).is_some()
    }

    /// The referee's verdict on `c` playing the empty point `p`. A five beats a foul.
    pub fn judge(self, grid: &mut Grid, p: Pos, c: Color) -> Verdict {
        if self.wins_at(grid, p, c) {
            return Verdict::Win;
        }
        if self == Rule::Renju && c == Color::Black {
            if let Some(f) = renju::foul(grid, p) {
                return Verdict::Foul(f);
            }
        }
        Verdict::Continue
    }
}
