//! `wuzi-arena` end to end: self-play whose records the referee replays, and fake engines that
//! misbehave in every way a tournament punishes, each scored as a loss while the match goes on.

use std::process::Command;
use wuzi::board::{Board, Color};
use wuzi::geometry::{Dims, Pos};
use wuzi::rules::{Rule, Verdict};

const ARENA: &str = env!("CARGO_BIN_EXE_wuzi-arena");
const BOT: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");

fn arena(args: &[&str]) -> String {
    let out = Command::new(ARENA)
        .args(args)
        .output()
        .expect("run wuzi-arena");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "arena failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line.find(&format!("{key}=")).unwrap() + key.len() + 1;
    let rest = &line[start..];
    match rest.strip_prefix('"') {
        Some(q) => &q[..q.find('"').unwrap()],
        None => rest.split(' ').next().unwrap(),
    }
}

fn positions(list: &str) -> Vec<Pos> {
    list.split_whitespace()
        .map(|m| {
            let (x, y) = m.split_once(',').unwrap();
            Pos::new(x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

#[test]
fn self_play_records_are_justified_by_the_referee() {
    let dir = std::env::temp_dir().join(format!("wuzi-arena-self-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("games.txt");
    let _ = std::fs::remove_file(&records);
    let openings = dir.join("openings.txt");
    // The third opening leaves black an open three to play: black wins it with either engine,
    // so the games by colour differ.
    std::fs::write(
        &openings,
        "0,0, 1,0, 1,3\n0,0, 1,1, -2,0\n0,0, 5,5, 1,0, 5,-5, 2,0, -5,5\n",
    )
    .unwrap();
    let out = arena(&[
        "--engine",
        &format!("a={BOT}"),
        "--engine",
        &format!("b={BOT}"),
        "--info",
        "all:max_node=3000",
        "--rule",
        "renju",
        "--turn",
        "3000",
        "--openings",
        openings.to_str().unwrap(),
        "-c",
        "2",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert!(out.contains("a vs b: "), "{out}");
    assert!(
        out.contains("a: 0 timeouts, 0 crashes, 0 illegal moves"),
        "{out}"
    );
    assert!(out.contains("a time per move: "), "{out}");
    // The same engine at the same node budget plays both games of an opening alike, colours
    // swapped: each pair is one point, and the pentanomial Elo is 0 with no spread.
    assert!(
        out.contains(
            "a vs b by opening, both games (pentanomial): 3 pairs; points 2: 0, 1.5: 0, 1: 3 ("
        ),
        "{out}"
    );
    assert!(
        out.contains("score 50.0%, Elo +0.0 (95%: +0.0 to +0.0)"),
        "{out}"
    );
    let text = std::fs::read_to_string(&records).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    // a's games by its colour, counted from the records, as the report gives them.
    let mut wld = [[0; 3]; 2];
    for line in &lines {
        let a_black = field(line, "black") == "a";
        let k = match (field(line, "result"), a_black) {
            ("1/2-1/2", _) => 2,
            ("1-0", true) | ("0-1", false) => 0,
            _ => 1,
        };
        wld[usize::from(!a_black)][k] += 1;
    }
    let side = |t: [u32; 3]| {
        let pct = 100.0 * (t[0] as f64 + 0.5 * t[2] as f64) / (t[0] + t[1] + t[2]) as f64;
        format!("{}-{}-{} ({pct:.1}%)", t[0], t[1], t[2])
    };
    let expected = format!(
        "a vs b by a's colour: as black {}, as white {}",
        side(wld[0]),
        side(wld[1])
    );
    assert!(out.contains(&expected), "{expected} not in {out}");
    assert!(
        wld[0][0] > wld[1][0],
        "black wins the third opening: {text}"
    );
    for line in lines {
        let mut b = Board::new(Dims::square(15));
        for p in positions(field(line, "opening")) {
            b.play(p);
        }
        let moves = positions(field(line, "moves"));
        assert!(line.contains(" rule=renju size=15x15 "), "{line}");
        let read = wuzi::manager::record::parse_line(line).expect("a record line reads back");
        assert_eq!(read.moves, moves);
        assert_eq!(read.rule, Rule::Renju);
        let times = field(line, "times").split_whitespace().count();
        assert_eq!(times, moves.len(), "one time per move in {line}");
        let mut last = Verdict::Continue;
        let mut mover = Color::Black;
        for (k, &p) in moves.iter().enumerate() {
            assert_eq!(last, Verdict::Continue, "moves after the end in {line}");
            assert!(b.is_empty_at(p), "move {k} occupied in {line}");
            mover = b.to_move();
            last = Rule::Renju.judge(b.grid_mut(), p, mover);
            b.play(p);
        }
        let result = field(line, "result");
        match last {
            Verdict::Win => assert_eq!(result, if mover == Color::Black { "1-0" } else { "0-1" }),
            Verdict::Foul(_) => assert_eq!(result, "0-1"),
            Verdict::Continue => {
                assert_eq!(result, "1/2-1/2", "{line}");
                assert!(b.grid().is_full() || b.stone_count() >= 200, "{line}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fake engine: answers START with OK and every move request as `act` says.
fn fake(dir: &std::path::Path, name: &str, act: &str) -> String {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*) echo OK ;;\n    BEGIN*|TURN*|DONE*) {act} ;;\n    END*) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    let _ = Command::new("chmod").arg("+x").arg(&path).status();
    path.to_str().unwrap().to_string()
}

#[test]
fn misbehaving_engines_lose_and_the_match_goes_on() {
    let dir = std::env::temp_dir().join(format!("wuzi-arena-fakes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "0,0, 1,0, 1,3\n").unwrap();
    let cases = [
        ("crash", "exit 3", "0 timeouts, 2 crashes, 0 illegal moves"),
        ("hang", "sleep 30", "2 timeouts, 0 crashes, 0 illegal moves"),
        (
            "late",
            "sleep 1; echo 0,0",
            "2 timeouts, 0 crashes, 0 illegal moves",
        ),
        (
            "offboard",
            "echo 99,99",
            "0 timeouts, 0 crashes, 2 illegal moves",
        ),
        (
            "occupied",
            "echo 7,7",
            "0 timeouts, 0 crashes, 2 illegal moves",
        ),
        (
            "garbage",
            "echo hello there",
            "0 timeouts, 0 crashes, 2 illegal moves",
        ),
    ];
    let mut args: Vec<String> = vec!["--engine".into(), format!("bot={BOT}")];
    for (name, act, _) in &cases {
        args.push("--engine".into());
        args.push(format!("{name}={}", fake(&dir, name, act)));
    }
    args.extend(
        [
            "--gauntlet",
            "--turn",
            "300",
            "--tolerance",
            "200",
            "-c",
            "2",
            "--info",
            "bot:max_node=2000",
            "--openings",
            openings.to_str().unwrap(),
        ]
        .map(String::from),
    );
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arena(&argv);
    for (name, _, faults) in &cases {
        assert!(
            out.contains(&format!("bot vs {name}: 2-0-0")),
            "{name} not scored as 2 losses:\n{out}"
        );
        assert!(
            out.contains(&format!("{name}: {faults}")),
            "{name} faults wrong:\n{out}"
        );
    }
    assert!(
        out.contains("bot: 0 timeouts, 0 crashes, 0 illegal moves"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--balance` keeps exactly the openings our own fixed-node search scores within the margin
/// (so every machine and thread count keeps the same ones), and `--save-openings` writes them
/// in a form `--openings` reads back.
#[test]
fn balanced_openings_are_the_ones_the_search_scores_near_zero() {
    let dir = std::env::temp_dir().join(format!("wuzi-balance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (one, two) = (dir.join("one.txt"), dir.join("two.txt"));
    for (file, threads) in [(&one, "1"), (&two, "2")] {
        let f = file.to_str().unwrap();
        let args = [
            "--scattered-openings",
            "30",
            "--seed",
            "5",
            "--balance",
            "3000:80",
        ];
        arena(&[&args[..], &["-c", threads, "--save-openings", f]].concat());
    }
    let body = |f: &std::path::PathBuf| {
        let text = std::fs::read_to_string(f).unwrap();
        text.lines().skip(1).map(str::to_string).collect::<Vec<_>>()
    };
    let kept = body(&one);
    assert_eq!(
        kept,
        body(&two),
        "the thread count changed the kept openings"
    );
    let dims = Dims::square(15);
    let all = wuzi::manager::openings::scattered(dims, Rule::Freestyle, 30, 5);
    let params = wuzi::search::params::Params::default();
    let mut expected = Vec::new();
    for opening in &all {
        let mut board = Board::new(dims);
        for &p in opening {
            board.play(p);
        }
        let score = wuzi::bench::search_score(board, Rule::Freestyle, 3000, 16 << 20, &params);
        if score.abs() <= 80 {
            expected.push(wuzi::manager::openings::offsets_line(opening, dims));
        }
    }
    assert!(!expected.is_empty() && expected.len() < all.len());
    assert_eq!(kept, expected);
    for line in &kept {
        assert!(wuzi::manager::openings::parse_line(line, dims).is_some());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record line for `--compare`: `new` against `rapfi` on an opening, `new` black or white.
fn compare_line(opening: &str, new_black: bool, result: &str) -> String {
    let (black, white) = if new_black {
        ("new", "rapfi")
    } else {
        ("rapfi", "new")
    };
    format!(
        "game=1 black={black} white={white} rule=freestyle size=15x15 result={result} \
         reason=\"five\" opening=\"{opening}\" moves=\"\" times=\"\""
    )
}

#[test]
fn two_runs_compare_opening_by_opening() {
    let dir = std::env::temp_dir().join(format!("wuzi-arena-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, lines: &[String]| {
        let path = dir.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path.to_str().unwrap().to_string()
    };
    let (o1, o2, o3, o4, o5) = ("7,7", "7,7 8,8", "7,7 6,6", "7,7 9,9", "7,7 5,5");
    // Run A: `new` scores 2 on o1 (a win with each colour), 2 on o2, 1 on o3 (black won
    // both), 1 on o5 (the mean of two pairs, 2 and 0), and plays o4 in A only. Run B, in two
    // files: 1 on o1 (two draws), 0 on o2 (lost with each colour, the games in different
    // files), 1 on o3 (white won both), 1 on o5, and an opening played once.
    let a = write(
        "a.txt",
        &[
            compare_line(o1, true, "1-0"),
            compare_line(o1, false, "0-1"),
            compare_line(o2, true, "1-0"),
            compare_line(o2, false, "0-1"),
            compare_line(o3, true, "1-0"),
            compare_line(o3, false, "1-0"),
            compare_line(o4, true, "1/2-1/2"),
            compare_line(o4, false, "1/2-1/2"),
            compare_line(o5, true, "1-0"),
            compare_line(o5, false, "0-1"),
            compare_line(o5, true, "0-1"),
            compare_line(o5, false, "1-0"),
        ],
    );
    let b1 = write(
        "b1.txt",
        &[
            compare_line(o1, true, "1/2-1/2"),
            compare_line(o1, false, "1/2-1/2"),
            compare_line(o2, true, "0-1"),
        ],
    );
    let b2 = write(
        "b2.txt",
        &[
            compare_line(o2, false, "1-0"),
            compare_line(o3, true, "0-1"),
            compare_line(o3, false, "0-1"),
            compare_line(o5, true, "1-0"),
            compare_line(o5, false, "1-0"),
            compare_line("8,8", true, "1-0"),
        ],
    );
    let out = arena(&["--compare", "new", &a, &format!("{b1},{b2}")]);
    // Per game A − B: o1 (2 − 1)/2 = 0.5, o2 1.0, o3 0, o5 0: mean 0.375, sample variance
    // (0.125² + 0.625² + 2·0.375²)/3 = 0.229167, 95% margin 1.96·√(0.229167/4) = 0.469.
    assert!(
        out.contains(
            "new: 4 openings played in pairs in both runs (1 in one run only, 1 an odd number of times)"
        ),
        "{out}"
    );
    assert!(out.contains(") 75.0% a game, B ("), "{out}");
    assert!(out.contains(") 37.5%\n"), "{out}");
    assert!(
        out.contains(
            "A - B: +37.5 points a game (95%: -9.4 to +84.4); openings better in A 2, the same 2, worse 0"
        ),
        "{out}"
    );
    // The other way round the difference changes sign.
    let back = arena(&["--compare", "new", &format!("{b1},{b2}"), &a]);
    assert!(
        back.contains("A - B: -37.5 points a game (95%: -84.4 to +9.4)"),
        "{back}"
    );
    // An engine in neither run is an error, not an empty comparison.
    let none = Command::new(ARENA)
        .args(["--compare", "old", &a, &b1])
        .output()
        .unwrap();
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no game of old"));
    let _ = std::fs::remove_dir_all(&dir);
}
