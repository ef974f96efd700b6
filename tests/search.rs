//! The search on diagram positions: fives taken, fours blocked, renju fouls avoided, rule
//! subtleties, deterministic node counts, and the hard limit under an injected clock.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use wuzi::board::{diagram, renju, Board, Color};
use wuzi::geometry::Pos;
use wuzi::rules::Rule;
use wuzi::search::limits::{Clock, Limits};
use wuzi::search::params::Params;
use wuzi::search::tt::TranspositionTable;
use wuzi::search::{Outcome, RootOptions, Search, MATE_BOUND};

struct NoClock;

impl Clock for NoClock {
    fn elapsed_ms(&self) -> u64 {
        0
    }
}

fn search(board: Board, rule: Rule, limits: Limits, clock: &dyn Clock) -> Outcome {
    search_with(board, rule, limits, clock, RootOptions::default())
}

fn search_with(
    board: Board,
    rule: Rule,
    limits: Limits,
    clock: &dyn Clock,
    options: RootOptions,
) -> Outcome {
    search_params(board, rule, limits, clock, options, Params::default())
}

fn search_params(
    board: Board,
    rule: Rule,
    limits: Limits,
    clock: &dyn Clock,
    options: RootOptions,
    params: Params,
) -> Outcome {
    let tt = TranspositionTable::new(1 << 20);
    let stop = AtomicBool::new(false);
    Search {
        board,
        rule,
        limits,
        params,
        tt: &tt,
        clock,
        stop: &stop,
        options,
    }
    .run(&mut ())
}

/// A search with tunables changed, without a clock.
fn search_tuned(board: Board, rule: Rule, limits: Limits, params: Params) -> Outcome {
    search_params(
        board,
        rule,
        limits,
        &NoClock,
        RootOptions::default(),
        params,
    )
}

fn best(text: &str, side: Color, rule: Rule, depth: i32) -> (Pos, i32) {
    let mut board = diagram::parse(text).unwrap();
    board.set_to_move(side);
    let limits = Limits {
        max_depth: Some(depth),
        ..Limits::default()
    };
    let out = search(board, rule, limits, &NoClock);
    (out.best.expect("a move"), out.score)
}

const OWN_FOUR: &str = "
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . X X X X . . . . .
    . . . . . . . . . . .
    . . . O O O O . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
";

#[test]
fn takes_a_five_before_blocking() {
    let (p, score) = best(OWN_FOUR, Color::Black, Rule::Freestyle, 4);
    assert!(p == Pos::new(1, 2) || p == Pos::new(6, 2), "played {p}");
    assert!(score >= MATE_BOUND);
}

/// Black to move: a stone on (5,5) makes two open threes (row 5 and column 5), and white has
/// no move that makes a four.
const DOUBLE_THREE: &str = "
    . . . . . . . . . . .
    . O . . . . . . . . .
    . . . . . . . . . . .
    . . . . . X . . . . .
    . . . . . X . . . . .
    . . . X X . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . O . . . . . O . .
    . . . . . . . . . . .
    . . . . . . . . . . O
";

/// The patterns show a double three against no four as a win, so a search of two plies (our
/// move, the reply, and no more) already scores it as one; without `quick_win` it does not.
/// The root threat search, which would prove it anyway, is off.
#[test]
fn a_double_three_against_no_four_is_a_win_at_two_plies() {
    for (quick, mate) in [(true, true), (false, false)] {
        let mut params = Params::default();
        for (name, value) in [("root_vcf_nodes", 0), ("root_vct_nodes", 0)] {
            assert!(params.set(name, value));
        }
        assert!(params.set("quick_win", i64::from(quick)));
        let mut board = diagram::parse(DOUBLE_THREE).unwrap();
        board.set_to_move(Color::Black);
        let limits = Limits {
            max_depth: Some(2),
            ..Limits::default()
        };
        let out = search_tuned(board, Rule::Freestyle, limits, params);
        assert_eq!(
            out.score >= MATE_BOUND,
            mate,
            "quick_win {quick}: score {}",
            out.score
        );
        if mate {
            assert_eq!(out.best, Some(Pos::new(5, 5)));
        }
    }
}

const BLOCK_FOUR: &str = "
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . X . X . . . . .
    . . . . . . . . . . .
    . . O O O O X . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . X . . . . . . . .
    . . . . . . . . . . .
";

#[test]
fn blocks_the_opponents_four() {
    let (p, _) = best(BLOCK_FOUR, Color::Black, Rule::Freestyle, 4);
    assert_eq!(p, Pos::new(1, 4));
}

const OPEN_THREE: &str = "
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . . O O O . . . . .
    . . . . . X . . . . . .
    . . . . . . X . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
";

#[test]
fn answers_an_open_three() {
    let (p, _) = best(OPEN_THREE, Color::Black, Rule::Freestyle, 4);
    let stops = [
        Pos::new(3, 4),
        Pos::new(7, 4),
        Pos::new(2, 4),
        Pos::new(8, 4),
    ];
    assert!(stops.contains(&p), "played {p}");
}

const CARO_BLOCKED: &str = "
    . . . . . . . . . . .
    O X X X X . O . . . .
    . . . . . . . . . . .
    . . . O O O O . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . X . . . . . . . . .
";

#[test]
fn caro_does_not_count_a_five_blocked_at_both_ends() {
    // Black's only five is blocked at both ends: under caro it must block white's four instead.
    let (p, _) = best(CARO_BLOCKED, Color::Black, Rule::Caro, 3);
    assert!(p == Pos::new(2, 3) || p == Pos::new(7, 3), "played {p}");
    let (p, _) = best(CARO_BLOCKED, Color::Black, Rule::Freestyle, 3);
    assert_eq!(p, Pos::new(5, 1));
}

/// quintet-02 from the shared renju data: h8 is a double three for black.
fn renju_diamond() -> Board {
    let mut b = Board::new(wuzi::geometry::Dims::square(15));
    for (x, y) in [(6, 7), (7, 8), (7, 6), (8, 7)] {
        b.play_as(Pos::new(x, y), Color::Black);
    }
    for (x, y) in [(0, 0), (14, 0), (0, 14), (14, 14)] {
        b.play_as(Pos::new(x, y), Color::White);
    }
    b.set_to_move(Color::Black);
    b
}

#[test]
fn black_never_plays_a_renju_foul() {
    let mut board = renju_diamond();
    assert!(renju::foul(board.grid_mut(), Pos::new(7, 7)).is_some());
    for depth in 1..=4 {
        let out = search(
            renju_diamond(),
            Rule::Renju,
            Limits {
                max_depth: Some(depth),
                ..Limits::default()
            },
            &NoClock,
        );
        let p = out.best.unwrap();
        let mut b = renju_diamond();
        assert!(
            renju::foul(b.grid_mut(), p).is_none(),
            "depth {depth}: foul at {p}"
        );
    }
}

#[test]
fn white_plays_onto_blacks_forbidden_point() {
    let mut board = renju_diamond();
    // White four on the diagonal ending on h8 (7,7), the other end taken by black.
    for (x, y) in [(3, 3), (4, 4), (5, 5), (6, 6)] {
        board.play_as(Pos::new(x, y), Color::White);
    }
    board.play_as(Pos::new(2, 2), Color::Black);
    board.play_as(Pos::new(12, 1), Color::Black);
    board.set_to_move(Color::White);
    let out = search(board, Rule::Renju, Limits::default(), &NoClock);
    assert_eq!(out.best, Some(Pos::new(7, 7)));
}

#[test]
fn node_limited_search_is_deterministic() {
    let pos = &wuzi::bench::POSITIONS[3];
    let limits = Limits {
        max_nodes: Some(20_000),
        ..Limits::default()
    };
    let a = search(pos.board(), pos.rule, limits.clone(), &NoClock);
    let b = search(pos.board(), pos.rule, limits, &NoClock);
    assert_eq!(a, b);
    assert_eq!(a.nodes, 20_000);
}

/// The continuation history (an experiment, off by default) changes the tree it searches, stays
/// deterministic, and its table of cells² entries a colour fits the largest boards.
#[test]
fn the_continuation_history_is_deterministic_on_every_board_size() {
    let limits = Limits {
        max_nodes: Some(20_000),
        ..Limits::default()
    };
    let with = |board: Board| {
        let mut params = Params::default();
        assert!(params.set("cont_divisor", 2) && params.set("cont_lmr", 1));
        search_tuned(board, Rule::Freestyle, limits.clone(), params)
    };
    let pos = &wuzi::bench::POSITIONS[3];
    let (a, b) = (with(pos.board()), with(pos.board()));
    assert_eq!(a, b);
    assert_eq!(a.nodes, 20_000);
    let off = search(pos.board(), pos.rule, limits.clone(), &NoClock);
    assert_ne!(a, off, "the switch changes nothing");
    for (w, h) in [(32usize, 32usize), (32, 5), (5, 32)] {
        let mut board = Board::new(wuzi::geometry::Dims::new(w as i64, h as i64).unwrap());
        for (x, y, c) in [
            (w / 2, h / 2, Color::Black),
            (w / 2 + 1, h / 2, Color::White),
        ] {
            board.play_as(Pos::new(x, y), c);
        }
        board.set_to_move(Color::Black);
        assert!(with(board).best.is_some(), "{w}x{h}");
    }
}

/// A clock that advances one millisecond each time it is read.
struct TickClock(AtomicU64);

impl Clock for TickClock {
    fn elapsed_ms(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed) + 1
    }
}

#[test]
fn hard_limit_stops_the_search_and_soft_limit_stops_iterating() {
    let pos = &wuzi::bench::POSITIONS[2];
    let clock = TickClock(AtomicU64::new(0));
    let limits = Limits {
        soft_ms: Some(1000),
        hard_ms: Some(20),
        ..Limits::default()
    };
    let out = search(pos.board(), pos.rule, limits, &clock);
    assert!(out.best.is_some());
    // The clock is read once per poll interval (and once per iteration): about 20 reads.
    let polls = Params::default().poll_interval;
    assert!(out.nodes <= 30 * polls, "searched {} nodes", out.nodes);
    assert!(
        clock.0.load(Ordering::Relaxed) <= 40,
        "clock read {} times",
        clock.0.load(Ordering::Relaxed)
    );

    let clock = TickClock(AtomicU64::new(0));
    let limits = Limits {
        soft_ms: Some(1),
        hard_ms: Some(1_000_000),
        ..Limits::default()
    };
    let out = search(pos.board(), pos.rule, limits, &clock);
    assert_eq!(out.depth, 1, "soft limit passed after the first iteration");
}

#[test]
fn helper_threads_share_the_work_and_the_node_limit() {
    let two = RootOptions {
        threads: 2,
        ..RootOptions::default()
    };
    // The open three is still answered, and a five still taken, with a helper searching too.
    let mut board = diagram::parse(OPEN_THREE).unwrap();
    board.set_to_move(Color::Black);
    let depth = Limits {
        max_depth: Some(4),
        ..Limits::default()
    };
    let out = search_with(board, Rule::Freestyle, depth.clone(), &NoClock, two.clone());
    let stops = [3, 7, 2, 8].map(|x| Pos::new(x, 4));
    assert!(stops.contains(&out.best.unwrap()), "played {:?}", out.best);
    let mut board = diagram::parse(OWN_FOUR).unwrap();
    board.set_to_move(Color::Black);
    let out = search_with(board, Rule::Freestyle, depth, &NoClock, two.clone());
    assert!(out.score >= MATE_BOUND);
    // The node limit counts every thread's nodes: the total stays near it.
    let pos = &wuzi::bench::POSITIONS[3];
    let limits = Limits {
        max_nodes: Some(50_000),
        ..Limits::default()
    };
    let out = search_with(pos.board(), pos.rule, limits, &NoClock, two);
    let slack = 2 * Params::default().poll_interval;
    assert!(out.nodes <= 50_000 + slack, "{} nodes", out.nodes);
    assert!(out.best.is_some());
}

#[test]
fn excluded_root_moves_are_not_played_and_lines_come_best_first() {
    let mut board = diagram::parse(OPEN_THREE).unwrap();
    board.set_to_move(Color::Black);
    let stops = [3, 7, 2, 8].map(|x| Pos::new(x, 4));
    let limits = Limits {
        max_depth: Some(4),
        ..Limits::default()
    };
    // Three lines: best first, each a different root move.
    let three = RootOptions {
        lines: 3,
        ..RootOptions::default()
    };
    let out = search_with(
        board.clone(),
        Rule::Freestyle,
        limits.clone(),
        &NoClock,
        three,
    );
    assert_eq!(out.lines.len(), 3);
    assert!(out.lines.windows(2).all(|w| w[0].score >= w[1].score));
    let firsts: Vec<Pos> = out.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(Some(firsts[0]), out.best);
    // With the best defence excluded, another one is played.
    let skip = RootOptions {
        excluded: vec![out.best.unwrap()],
        ..RootOptions::default()
    };
    let other = search_with(board, Rule::Freestyle, limits, &NoClock, skip);
    assert_ne!(other.best, out.best);
    assert!(
        stops.contains(&other.best.unwrap()),
        "played {:?}",
        other.best
    );
}

/// White's cell (6,7) makes a four (row 7, blocked on the right) and a split open three
/// (column 6) at once; white has no other threat.
const FOUR_THREE: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . O O O X . . . .
    . . . . . . . . . . . . . . .
    . . . . . . O . . . . . . . .
    . . . . . . O . . . . . . . .
    . . . . . . . . . . . . . . .
    . X . . . . . . . . . . . X .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

/// Whether white, to move after black's `p`, still has a winning threat of one move: a
/// VCF, or a point making a four-three or better (exact threat code).
fn white_threat_after(board: &Board, p: Pos) -> bool {
    let mut b = board.clone();
    b.play(p);
    let mut solver = wuzi::search::threats::Solver::new(Rule::Freestyle);
    if solver.vcf(&mut b, 20, 200_000).is_some() {
        return true;
    }
    let dims = b.dims();
    (0..dims.cells()).map(|i| dims.pos(i)).any(|q| {
        b.is_empty_at(q)
            && wuzi::board::threat::classify(b.grid_mut(), Rule::Freestyle, q, Color::White)
                >= wuzi::board::threat::Threat::FourThree
    })
}

#[test]
fn answers_a_four_three_threat() {
    let mut board = diagram::parse(FOUR_THREE).unwrap();
    board.set_to_move(Color::Black);
    // The test means something: a quiet move leaves the four-three, taking its point does not.
    assert!(white_threat_after(&board, Pos::new(1, 1)));
    assert!(!white_threat_after(&board, Pos::new(6, 7)));
    for depth in 1..=4 {
        let limits = Limits {
            max_depth: Some(depth),
            ..Limits::default()
        };
        let out = search(board.clone(), Rule::Freestyle, limits, &NoClock);
        let p = out.best.unwrap();
        assert!(
            !white_threat_after(&board, p),
            "depth {depth}: after {p} the threat stands"
        );
    }
}

/// From a standard-rule game at 1 s against the sparring partner: after white's 10,10 (row 10,
/// column 10) black is lost, to a threat sequence of 18 plies (the partner announced it, and
/// our own search proves it with more nodes). Black must defend open threes on the way, so the
/// proof runs through many defending nodes.
const LONG_THREAT_WIN: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . O . . . . . . . . .
    . . . . . X O . . . . . . . .
    . . . X . O . X . . . . . . .
    . X . O O X X . . . O . . . .
    O X X X X O . . . . . . . . .
    . O . . . . O . O . . . . . .
    . X . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn sees_a_long_threat_win_against_it_within_a_node_budget() {
    let mut board = diagram::parse(LONG_THREAT_WIN).unwrap();
    board.set_to_move(Color::Black);
    // 400 k nodes: the proof takes 100–200 k nodes with the hand-set move order and 200–400 k
    // with the learned one (`order_scale` 300 and 450), which wins games at 1 s.
    let limits = Limits {
        max_nodes: Some(400_000),
        ..Limits::default()
    };
    let out = search(board, Rule::Standard, limits, &NoClock);
    assert!(out.score <= -MATE_BOUND, "score {}", out.score);
}

/// Reads `tests/data/rapfi_wins.txt`: (id, rule, board, whether our search proves the win
/// today) for every position where the sparring partner announced a forced win after our move.
fn rapfi_wins() -> Vec<(String, Rule, Board, bool)> {
    let mut cases = Vec::new();
    for game in common::rapfi_wins() {
        let mut board = Board::new(wuzi::geometry::Dims::square(game.size));
        for &p in &game.moves {
            board.play(p);
        }
        assert_eq!(board.to_move(), game.to_move, "{}", game.id);
        cases.push((game.id, game.rule, board, game.solved));
    }
    cases
}

#[test]
fn proves_the_sparring_partners_wins_that_it_proved_before() {
    let cases = rapfi_wins();
    assert_eq!(cases.len(), 56);
    for (id, rule, board, _) in cases.into_iter().filter(|c| c.3) {
        let limits = Limits {
            max_nodes: Some(300_000),
            ..Limits::default()
        };
        let out = search(board, rule, limits, &NoClock);
        assert!(out.score >= MATE_BOUND, "{id}: score {}", out.score);
    }
}

/// A search of `tests/data/tactics_sample.txt`'s case `id` to `depth` plies with the root threat
/// solver off and `credit` 16ths of a ply of extension for each forced reply (`ext_forced`, or
/// `ext_forced_renju` under renju), so that only the alpha-beta search can see a VCF.
fn vcf_at_depth(id: &str, rule: Rule, depth: i32, credit: i32) -> i32 {
    let cases = common::read_cases("tests/data/tactics_sample.txt");
    let case = cases.iter().find(|c| c.id() == id).expect(id);
    let params = Params {
        root_vcf_nodes: 0,
        root_vct_nodes: 0,
        ext_forced: credit,
        ext_forced_renju: credit,
        ..Params::default()
    };
    let limits = Limits {
        max_depth: Some(depth),
        ..Limits::default()
    };
    search_tuned(case.board(), rule, limits, params).score
}

#[test]
fn a_forced_replys_fractional_extension_carries_a_vcf_past_the_horizon() {
    // VCFs of 8 and 15 fours (their known lines): at 5 plies the search alone finds the first
    // only where each four and its block cost half a ply (8 16ths), and at 2 plies the second
    // only where they cost nothing (16).
    assert!(vcf_at_depth("lfz-game-vcf-552-fs", Rule::Freestyle, 5, 0) < MATE_BOUND);
    assert!(vcf_at_depth("lfz-game-vcf-552-fs", Rule::Freestyle, 5, 8) >= MATE_BOUND);
    assert!(vcf_at_depth("lfz-black-vcf-305-fs", Rule::Freestyle, 2, 8) < MATE_BOUND);
    assert!(vcf_at_depth("lfz-black-vcf-305-fs", Rule::Freestyle, 2, 16) >= MATE_BOUND);
}

#[test]
fn the_forced_replys_credit_under_renju_carries_both_colours_vcfs_past_the_horizon() {
    // Black's VCF (its fours must not be fouls) is seen at 4 plies only with half a ply of
    // credit for each block (the default), 7 without; white's at 2 plies, 6 without.
    let on = Params::default().ext_forced_renju;
    assert!(vcf_at_depth("lfz-black-vcf-092", Rule::Renju, 4, 0) < MATE_BOUND);
    assert!(vcf_at_depth("lfz-black-vcf-092", Rule::Renju, 4, on) >= MATE_BOUND);
    assert!(vcf_at_depth("lfz-white-vcf-526", Rule::Renju, 2, 0) < MATE_BOUND);
    assert!(vcf_at_depth("lfz-white-vcf-526", Rule::Renju, 2, on) >= MATE_BOUND);
}
