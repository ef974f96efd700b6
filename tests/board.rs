//! The board's incremental state (win-count table, line patterns, Zobrist key, neighbourhoods)
//! against a full re-derivation from the cells, over thousands of random moves and undos under
//! every rule.

use wuzi::board::{Board, Cell, Color};
use wuzi::geometry::{Dims, Pos};
use wuzi::rules::Rule;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_walk(dims: Dims, steps: usize, seed: u64) {
    for (k, rule) in Rule::ALL.into_iter().enumerate() {
        walk(dims, rule, steps / 2, seed + 100 * k as u64);
    }
}

fn walk(dims: Dims, rule: Rule, steps: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut board = Board::with_rule(dims, rule);
    // The count network's accumulators are kept and checked too (`verify`, `network_after`).
    board.set_network(wuzi::nnue::network());
    board.block(Pos::new(1, 1));
    let start_key = board.key();
    let mut keys = vec![board.key()];
    for step in 0..steps {
        let empties: Vec<Pos> = (0..dims.cells())
            .map(|i| dims.pos(i))
            .filter(|&p| board.cell(p) == Cell::Empty)
            .collect();
        let undo = board.stone_count() > 0 && (empties.is_empty() || rng.below(3) == 0);
        if undo {
            board.undo().expect("a stone to undo");
            keys.pop();
            assert_eq!(
                board.key(),
                *keys.last().unwrap(),
                "key after undo at step {step}"
            );
        } else {
            let p = empties[rng.below(empties.len())];
            let predicted = board.key_after(dims.index(p));
            let tally = board.tally_after(dims.index(p));
            let after = board.network_after(dims.index(p));
            let fives_before = five_points(&board);
            board.play(p);
            // The network's score worked out without the move is the one the move leaves.
            if let Some((t, score)) = after {
                assert_eq!(Some(t), tally, "network_after's tally at step {step}");
                let now = board.line_patterns().network_score(board.to_move());
                assert!(score.is_some());
                assert_eq!(score, now, "network_after at step {step}");
            }
            assert_eq!(board.key(), predicted, "key_after at step {step}");
            // The tally worked out without the move is the one the move leaves, unless the
            // move made a five point (which it says); from a position without five points,
            // it says so exactly when the move leaves one.
            let fives_after = five_points(&board);
            match tally {
                Some(t) => {
                    assert_eq!(
                        &t,
                        board.line_patterns().tally(),
                        "tally_after at step {step}"
                    );
                    assert!(fives_after.iter().all(|f| fives_before.contains(f)));
                }
                None => assert!(!fives_after.is_empty(), "tally_after at step {step}"),
            }
            if fives_before.is_empty() {
                assert_eq!(tally.is_none(), !fives_after.is_empty(), "step {step}");
            }
            keys.push(board.key());
        }
        if step % 97 == 0 {
            // Reading the patterns under another rule and back changes nothing.
            let other = Rule::ALL[rng.below(Rule::ALL.len())];
            board.set_rule(other);
            board
                .verify()
                .unwrap_or_else(|e| panic!("{dims:?} under {other:?}: {e}"));
            board.set_rule(rule);
        }
        board
            .verify()
            .unwrap_or_else(|e| panic!("{dims:?} step {step}: {e}"));
    }
    while board.undo().is_some() {}
    board.verify().unwrap();
    assert_eq!(board.key(), start_key);
}

/// Every five point of either colour, as (colour index, cell).
fn five_points(board: &Board) -> Vec<(usize, usize)> {
    let lines = board.line_patterns();
    [Color::Black, Color::White]
        .into_iter()
        .flat_map(|c| lines.fives(c).map(move |i| (c.index(), i)))
        .collect()
}

#[test]
fn incremental_state_matches_rederivation_15x15() {
    random_walk(Dims::square(15), 3000, 1);
}

#[test]
fn incremental_state_matches_rederivation_20x20() {
    random_walk(Dims::square(20), 3000, 2);
}

#[test]
fn incremental_state_matches_rederivation_rectangular() {
    random_walk(Dims::new(9, 17).unwrap(), 3000, 3);
}

#[test]
fn same_position_same_key_whatever_the_order() {
    let dims = Dims::square(15);
    let mut a = Board::new(dims);
    let mut b = Board::new(dims);
    for p in [(7, 7), (8, 8), (6, 6), (9, 9)] {
        a.play(Pos::new(p.0, p.1));
    }
    for p in [(6, 6), (9, 9), (7, 7), (8, 8)] {
        b.play(Pos::new(p.0, p.1));
    }
    assert_eq!(a.key(), b.key());
    assert_eq!(a.wincount(), b.wincount());
}
