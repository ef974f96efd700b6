//! The learned move-ordering scores (`board::weights::ORDER`, fitted by `wuzi-tune order`), read
//! through the board as the search reads them: on positions from diagrams, under every rule's
//! table and for both colours to move, the move that wins (an open four) comes first, a
//! four-three point comes before every cell that makes no four, and taking the opponent's
//! four-three point comes before quiet cells.

use wuzi::board::diagram;
use wuzi::board::pattern::Class;
use wuzi::board::{Board, Color};
use wuzi::eval::learned_move_score;
use wuzi::geometry::Pos;
use wuzi::rules::Rule;

/// The position of `text` under `rule`.
fn board(text: &str, rule: Rule) -> Board {
    let mut b = diagram::parse(text).expect("diagram");
    b.set_rule(rule);
    b
}

/// The candidate cells of the side to move, best learned score first (ties by cell).
fn ranked(b: &Board) -> Vec<(i32, Pos)> {
    let me = b.to_move();
    let mut v: Vec<(i32, Pos)> = b
        .candidates()
        .map(|i| (learned_move_score(b, i, me, 1000), b.dims().pos(i)))
        .collect();
    v.sort_by_key(|&(s, p)| (-s, p.y, p.x));
    v
}

const RULES: [Rule; 3] = [Rule::Freestyle, Rule::Standard, Rule::Renju];

/// Black to move (equal stones) with an open three on row 7 and a broken line above; white's
/// stones scattered. The open four at 8,7 or 4,7 (either end) wins.
const OPEN_THREE_BLACK: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . O . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . X X X . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . O . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . O . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn an_open_four_comes_first() {
    for rule in RULES {
        let b = board(OPEN_THREE_BLACK, rule);
        assert_eq!(b.to_move(), Color::Black);
        let best = ranked(&b)[0].1;
        let lines = b.line_patterns();
        assert_eq!(
            lines.class(Color::Black, b.dims().index(best)),
            Class::OpenFour,
            "{rule:?}: first {best:?}, {:?}",
            &ranked(&b)[..4]
        );
    }
}

/// White to move (black has a stone more) with a closed three on column 9 and a two on row 9
/// crossing at 9,9: a white stone there makes a four and an open three.
const FOUR_THREE_WHITE: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . X . . . . .
    . . . . . . . . . O . . . . .
    . . . . . . . . . O . . X . .
    . . . . . . . . . O . . . . .
    . . . . . . . . . . O O . . .
    . . . X . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . X . . . . . . . X . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . X . . .
";

#[test]
fn a_four_three_comes_before_every_cell_without_a_four() {
    for rule in RULES {
        let b = board(FOUR_THREE_WHITE, rule);
        assert_eq!(b.to_move(), Color::White);
        let lines = b.line_patterns();
        let point = b.dims().index(Pos::new(9, 9));
        assert_eq!(
            lines.class(Color::White, point),
            Class::FourThree,
            "{rule:?}"
        );
        let score = learned_move_score(&b, point, Color::White, 1000);
        for (s, p) in ranked(&b) {
            let i = b.dims().index(p);
            if !lines.class(Color::White, i).is_four() {
                assert!(
                    s < score,
                    "{rule:?}: {p:?} scores {s}, the four-three {score}"
                );
            }
        }
        // Black to move after a far white stone: taking white's four-three point beats the
        // quiet cells.
        let mut b = b;
        b.play(Pos::new(0, 14));
        let lines = b.line_patterns();
        let take = learned_move_score(&b, point, Color::Black, 1000);
        for (s, p) in ranked(&b) {
            let i = b.dims().index(p);
            let quiet = lines.class(Color::Black, i) < Class::Three
                && lines.class(Color::White, i) < Class::Three;
            if quiet {
                assert!(
                    s < take,
                    "{rule:?}: quiet {p:?} scores {s}, the block {take}"
                );
            }
        }
    }
}
