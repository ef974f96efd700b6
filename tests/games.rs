//! Complete games between two `pbrain-wuzi` processes, refereed by the library's rules through
//! the same manager code as `wuzi-arena`: every game must end in a result the rules justify.

use wuzi::board::Board;
use wuzi::geometry::{Dims, Pos};
use wuzi::manager::engine::Engine;
use wuzi::manager::game::{self, GameConfig, GameRecord};
use wuzi::rules::{Rule, Verdict};

const BOT: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");

/// Replays a record with the referee and checks that its stated result follows.
fn check_record(r: &GameRecord, rule: Rule, dims: Dims) {
    assert!(
        r.fault.is_none(),
        "engine fault: {:?} {}",
        r.fault,
        r.reason
    );
    let mut b = Board::new(dims);
    for &p in &r.opening {
        b.play(p);
    }
    let n = r.moves.len();
    for (k, &p) in r.moves.iter().enumerate() {
        assert!(b.is_empty_at(p), "move {k} on an occupied cell {p}");
        let side = b.to_move();
        let v = rule.judge(b.grid_mut(), p, side);
        assert!(
            !matches!(v, Verdict::Foul(_)),
            "{side:?} played a foul at {p}"
        );
        if k + 1 < n {
            assert_eq!(v, Verdict::Continue, "game went on after a win at {p}");
        } else if r.winner.is_some() {
            assert_eq!(v, Verdict::Win, "last move {p} does not win: {}", r.reason);
            assert_eq!(r.winner, Some(side));
        }
        b.play(p);
    }
    if r.winner.is_none() {
        assert!(
            b.grid().is_full() || r.reason.starts_with("draw after"),
            "draw without reason: {}",
            r.reason
        );
    }
}

fn play_games(rule: Rule, side: usize, openings: &[&[(usize, usize)]], max_node: u64) {
    let dims = Dims::square(side);
    let mut a = Engine::spawn("a", BOT).unwrap();
    let mut b = Engine::spawn("b", BOT).unwrap();
    let cfg = GameConfig::new(dims, rule, 5000);
    let extra = vec![("max_node".to_string(), max_node.to_string())];
    let mut decided = 0;
    for opening in openings {
        let opening: Vec<Pos> = opening.iter().map(|&(x, y)| Pos::new(x, y)).collect();
        for swap in [false, true] {
            let (black, white) = if swap {
                (&mut b, &mut a)
            } else {
                (&mut a, &mut b)
            };
            let r = game::play([black, white], &opening, &cfg, [&extra, &extra]);
            check_record(&r, rule, dims);
            decided += r.winner.is_some() as usize;
        }
    }
    assert!(decided > 0, "no game was decided");
    a.end();
    b.end();
}

#[test]
fn freestyle_15_games_end_with_justified_results() {
    play_games(
        Rule::Freestyle,
        15,
        &[&[(7, 7), (8, 7), (8, 10)], &[(7, 7), (8, 8), (5, 7)]],
        3000,
    );
}

#[test]
fn freestyle_20_games_end_with_justified_results() {
    play_games(Rule::Freestyle, 20, &[&[(3, 2), (4, 1), (7, 1)]], 3000);
}

#[test]
fn standard_games_end_with_justified_results() {
    play_games(Rule::Standard, 15, &[&[(7, 7), (8, 7), (8, 10)]], 3000);
}

#[test]
fn renju_games_end_with_justified_results() {
    play_games(
        Rule::Renju,
        15,
        &[&[(7, 7), (7, 6), (8, 6)], &[(7, 7), (8, 6), (9, 7)]],
        3000,
    );
}
