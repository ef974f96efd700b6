//! Sound forced-win scores: positions where the search once reported a forced win that the
//! defender could refute (issue 57), written as diagrams with their rule. A node that searched
//! only its defences against a four-three point took the loss of those few moves for a proof;
//! now it searches the moves it left out before it calls the node lost (`defend_widen`).

mod common;

use wuzi::board::diagram;
use wuzi::rules::Rule;
use wuzi::search::params::Params;
use wuzi::search::{format_score, MATE_BOUND};

/// The best move's score for the side to move of `text`, searched to `nodes` nodes.
fn score(text: &str, rule: Rule, nodes: u64, widen: u8) -> i32 {
    let params = Params {
        defend_widen: widen,
        ..Params::default()
    };
    common::search_nodes(diagram::parse(text).unwrap(), rule, nodes, params).score
}

/// 20×20 freestyle, white (O) to move; moves 11,10 13,7 9,13 12,7 9,10 12,10 12,9 11,7 10,7.
/// The search claimed +M11 with 13,9 (x 13, y 9); the sparring partner then won in 15.
const FREE20_M11: &str = "
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . X O O O . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . X . . . . . . .
    . . . . . . . . . X . X O . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . X . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
";

/// 20×20 freestyle, white (O) to move; moves 11,11 12,8 8,14 12,10 12,9 14,10 13,10 13,9
/// 15,11 11,8 11,7 13,8 14,8. The search claimed +M23 with 13,6 and lost.
const FREE20_M23: &str = "
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . X . . . . . . . .
    . . . . . . . . . . . O O O X . . . . .
    . . . . . . . . . . . . X O . . . . . .
    . . . . . . . . . . . . O X O . . . . .
    . . . . . . . . . . . X . . . X . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . X . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . . .
";

/// Black (X) to move; white has a straight four (two five points). Black's only move that
/// completes a line is 5,7, six in a row: a win in freestyle, no five under exact five, and a
/// forbidden overline for black under renju. Every other black move leaves white its five, so
/// black wins at once in freestyle and is lost under standard and renju: a claim of a win there
/// would come from a pattern that counts the overline as a five.
const OVERLINE_OR_NOTHING: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . X . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . O X X . X X X O . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . O O O O . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn an_overline_wins_in_freestyle_only() {
    let free = score(OVERLINE_OR_NOTHING, Rule::Freestyle, 100_000, 1);
    assert!(free >= MATE_BOUND, "freestyle: {}", format_score(free));
    for rule in [Rule::Standard, Rule::Renju] {
        let s = score(OVERLINE_OR_NOTHING, rule, 100_000, 1);
        assert!(s <= -MATE_BOUND, "{rule:?}: {}", format_score(s));
    }
}

/// The positions, their rule, and a node budget at which the old search claimed the win.
const CASES: &[(&str, &str, Rule, u64)] = &[
    ("free20 +M11", FREE20_M11, Rule::Freestyle, 300_000),
    ("free20 +M23", FREE20_M23, Rule::Freestyle, 1_000_000),
];

#[test]
fn no_forced_win_is_claimed_where_the_defender_holds() {
    for &(name, text, rule, nodes) in CASES {
        let s = score(text, rule, nodes, 1);
        assert!(
            s < MATE_BOUND,
            "{name}: claims {} at {nodes} nodes",
            format_score(s)
        );
    }
}

#[test]
fn the_old_defence_set_alone_claimed_those_wins() {
    // What the test above guards against: without the widening, the same searches report a
    // forced win that is not there.
    for &(name, text, rule, nodes) in CASES {
        let s = score(text, rule, nodes, 0);
        assert!(
            s >= MATE_BOUND,
            "{name}: {} at {nodes} nodes without widening",
            format_score(s)
        );
    }
}
