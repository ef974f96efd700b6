//! Renju fouls and win detection against the shared positions with known answers.

mod common;

use common::read_cases;
use std::collections::BTreeMap;
use wuzi::board::{renju, Color};
use wuzi::geometry::Pos;
use wuzi::rules::{Rule, Verdict};

fn all_fouls(case: &common::Case) -> BTreeMap<Pos, &'static str> {
    let mut board = case.board();
    let dims = board.dims();
    let mut out = BTreeMap::new();
    for i in 0..dims.cells() {
        let p = dims.pos(i);
        if board.is_empty_at(p) {
            if let Some(f) = renju::foul(board.grid_mut(), p) {
                out.insert(p, f.name());
            }
        }
    }
    out
}

/// Parses `p:kind,...`, `p1,p2` (no kinds) or `none`.
fn expected_set(case: &common::Case, text: &str) -> BTreeMap<Pos, Option<String>> {
    if text == "none" {
        return BTreeMap::new();
    }
    text.split(',')
        .map(|item| match item.split_once(':') {
            Some((p, k)) => (case.point(p), Some(k.to_string())),
            None => (case.point(item), None),
        })
        .collect()
}

#[test]
fn renju_forbidden_points_match_every_case() {
    let cases = read_cases("tests/data/renju_forbidden.txt");
    assert!(cases.len() >= 98, "only {} cases read", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let found = all_fouls(case);
        if let Some(p) = case.get("point") {
            let p = case.point(p);
            let want_forbidden = case.get("expect") == Some("forbidden");
            let got = found.get(&p).copied();
            let kind_ok = match case.get("kind") {
                Some("-") | None => true,
                Some(k) => got == Some(k),
            };
            if got.is_some() != want_forbidden || !kind_ok {
                failures.push(format!(
                    "{}: point {p} expected {:?} {:?}, got {got:?}",
                    case.id(),
                    case.get("expect"),
                    case.get("kind")
                ));
            }
        }
        for key in ["expect_all_forbidden", "all_forbidden_computed"] {
            let Some(text) = case.get(key) else { continue };
            if key.ends_with("computed") && case.get("check") == Some("DISAGREE") {
                continue;
            }
            let want = expected_set(case, text);
            let same_points = want.keys().eq(found.keys());
            let same_kinds = want
                .iter()
                .all(|(p, k)| k.as_deref().is_none_or(|k| found.get(p) == Some(&k)));
            if !same_points || !same_kinds {
                failures.push(format!(
                    "{}: {key} expected {want:?}, got {found:?}",
                    case.id()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `Board::may_be_foul` is the search's filter before the exact check: it may pass a point that
/// is not a foul, never miss one that is; `Board::is_foul`, which reads the line shapes, agrees
/// with `renju::foul`. Checked on every empty point of every shared case and
/// of dense random positions (a fixed generator), where overlines, fours on one line and nested
/// threes are common.
#[test]
fn foul_filter_and_shaped_check_agree_with_the_referee() {
    let mut boards: Vec<wuzi::board::Board> = read_cases("tests/data/renju_forbidden.txt")
        .iter()
        .map(|c| c.board())
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..300 {
        let mut b = wuzi::board::Board::new(wuzi::geometry::Dims::square(15));
        let stones = 20 + next(60);
        for k in 0..stones {
            // Mostly black, in a 9×9 square, so that black shapes crowd each other.
            let p = Pos::new(3 + next(9), 3 + next(9));
            if b.is_empty_at(p) {
                let c = if k % 3 == 2 {
                    Color::White
                } else {
                    Color::Black
                };
                b.play_as(p, c);
            }
        }
        boards.push(b);
    }
    let (mut fouls, mut passed) = (0, 0);
    for mut board in boards {
        board.set_rule(Rule::Renju);
        let dims = board.dims();
        for i in 0..dims.cells() {
            let p = dims.pos(i);
            if !board.is_empty_at(p) {
                continue;
            }
            let may = board.may_be_foul(i);
            passed += may as usize;
            let foul = renju::foul(board.grid_mut(), p);
            if let Some(f) = foul {
                fouls += 1;
                assert!(may, "the filter misses the {} at {p}", f.name());
            }
            assert_eq!(board.is_foul(i), foul.is_some(), "at {p}");
        }
    }
    assert!(fouls > 300, "only {fouls} fouls met");
    eprintln!("{fouls} fouls, {passed} points passed the filter");
}

#[test]
fn win_detection_matches_every_case() {
    let cases = read_cases("tests/data/rules_win_detection.txt");
    assert!(cases.len() >= 38, "only {} cases read", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let rule = Rule::parse(case.get("rule").unwrap()).expect("rule");
        let mut board = case.board();
        let side = board.to_move();
        let mv = case.point(case.get("move").unwrap());
        let verdict = rule.judge(board.grid_mut(), mv, side);
        let got = match verdict {
            Verdict::Win => "mover_wins",
            Verdict::Foul(_) => "mover_loses(forbidden)",
            Verdict::Continue => "no_result",
        };
        if Some(got) != case.get("expect") {
            failures.push(format!(
                "{}: expected {:?}, got {got}",
                case.id(),
                case.get("expect")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
