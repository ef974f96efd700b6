//! Win detection for caro and standard rules, written as board diagrams.

use wuzi::board::{diagram, Color};
use wuzi::geometry::Pos;
use wuzi::rules::{Rule, Verdict};

fn verdict(rule: Rule, text: &str, x: usize, y: usize, c: Color) -> Verdict {
    let mut b = diagram::parse(text).unwrap();
    rule.judge(b.grid_mut(), Pos::new(x, y), c)
}

const BLOCKED_FIVE: &str = "
    . . . . . . . . .
    O X X X X . O . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
";

const EDGE_FIVE: &str = "
    . . . . . . . . .
    X X X X . O . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
";

const OVERLINE: &str = "
    . . . . . . . . .
    O X X X . X X O .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
";

#[test]
fn caro_five_blocked_at_both_ends_does_not_win() {
    assert_eq!(
        verdict(Rule::Caro, BLOCKED_FIVE, 5, 1, Color::Black),
        Verdict::Continue
    );
    assert_eq!(
        verdict(Rule::CaroExact, BLOCKED_FIVE, 5, 1, Color::Black),
        Verdict::Continue
    );
    assert_eq!(
        verdict(Rule::Freestyle, BLOCKED_FIVE, 5, 1, Color::Black),
        Verdict::Win
    );
    assert_eq!(
        verdict(Rule::Standard, BLOCKED_FIVE, 5, 1, Color::Black),
        Verdict::Win
    );
}

#[test]
fn caro_edge_is_not_a_block() {
    assert_eq!(
        verdict(Rule::Caro, EDGE_FIVE, 4, 1, Color::Black),
        Verdict::Win
    );
    assert_eq!(
        verdict(Rule::CaroExact, EDGE_FIVE, 4, 1, Color::Black),
        Verdict::Win
    );
}

#[test]
fn overlines_per_rule() {
    // Six in a row, blocked at both ends.
    assert_eq!(
        verdict(Rule::Freestyle, OVERLINE, 4, 1, Color::Black),
        Verdict::Win
    );
    assert_eq!(
        verdict(Rule::Standard, OVERLINE, 4, 1, Color::Black),
        Verdict::Continue
    );
    assert_eq!(
        verdict(Rule::Caro, OVERLINE, 4, 1, Color::Black),
        Verdict::Win
    );
    assert_eq!(
        verdict(Rule::CaroExact, OVERLINE, 4, 1, Color::Black),
        Verdict::Continue
    );
    assert!(matches!(
        verdict(Rule::Renju, OVERLINE, 4, 1, Color::Black),
        Verdict::Foul(_)
    ));
    // White's overline wins under renju.
    let white = OVERLINE
        .replace('X', "w")
        .replace('O', "X")
        .replace('w', "O");
    assert_eq!(
        verdict(Rule::Renju, &white, 4, 1, Color::White),
        Verdict::Win
    );
}

#[test]
fn rule_bitmask_decoding() {
    assert_eq!(Rule::from_info(0), Rule::Freestyle);
    assert_eq!(Rule::from_info(1), Rule::Standard);
    assert_eq!(Rule::from_info(2), Rule::Renju);
    assert_eq!(Rule::from_info(4), Rule::Renju);
    assert_eq!(Rule::from_info(8), Rule::Caro);
    assert_eq!(Rule::from_info(9), Rule::CaroExact);
    assert_eq!(Rule::from_info(3), Rule::Standard);
}
