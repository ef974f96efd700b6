//! `wuzi-tune label` and the fit that reads its scores, run as a user runs them.

use std::process::Command;

const TUNE: &str = env!("CARGO_BIN_EXE_wuzi-tune");

/// Two short games: black makes five along row 7; white makes five along column 3.
const RECORDS: &str = "\
game=1 black=a white=b rule=freestyle size=15x15 result=1-0 reason=\"five at 7,7\" opening=\"3,7 3,9\" moves=\"4,7 4,9 5,7 5,9 6,7 10,10 7,7\" times=\"1 1 1 1 1 1 1\"
game=2 black=b white=a rule=standard size=15x15 result=0-1 reason=\"five at 3,7\" opening=\"7,7 3,3\" moves=\"7,8 3,4 7,10 3,5 12,12 3,6 12,13 3,7\" times=\"1 1 1 1 1 1 1 1\"
";

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let at = line.find(&format!(" {key}=\"")).expect(key) + key.len() + 3;
    let rest = &line[at..];
    &rest[..rest.find('"').unwrap()]
}

#[test]
fn label_adds_a_repeatable_search_score_per_move_that_the_fit_reads() {
    let dir = std::env::temp_dir().join(format!("wuzi-tune-label-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("games.txt");
    std::fs::write(&input, RECORDS).unwrap();
    let label = |from: &std::path::Path, name: &str| -> String {
        let out = dir.join(name);
        let run = Command::new(TUNE)
            .args(["label", from.to_str().unwrap(), "--nodes", "3000", "--out"])
            .arg(&out)
            .output()
            .expect("run wuzi-tune label");
        assert!(run.status.success(), "{run:?}");
        std::fs::read_to_string(out).unwrap()
    };
    let first = label(&input, "a.txt");
    assert_eq!(
        first,
        label(&input, "b.txt"),
        "the same scores on every run"
    );
    // Labelling a labelled file replaces its scores.
    assert_eq!(label(&dir.join("a.txt"), "c.txt"), first);
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 2);
    for (line, original) in lines.iter().zip(RECORDS.lines()) {
        assert!(line.starts_with(original), "the record is kept: {line}");
        let moves = field(line, "moves").split_whitespace().count();
        let scores: Vec<&str> = field(line, "scores").split_whitespace().collect();
        assert_eq!(scores.len(), moves, "one score a move: {line}");
        // The first positions are quiet and searched; the last, where the winner has a five
        // point, is no sample and has none.
        assert!(scores[0].parse::<i32>().is_ok(), "{line}");
        assert_eq!(*scores.last().unwrap(), "-", "{line}");
    }
    // In game 1 black, to move with an open three (before 6,7), is winning: the search sees it.
    let scores: Vec<&str> = field(lines[0], "scores").split_whitespace().collect();
    let before_four: i32 = scores[4].parse().unwrap();
    assert!(
        before_four > 1000,
        "black wins from an open three: {before_four}"
    );

    let weights = dir.join("weights.rs");
    let fit = Command::new(TUNE)
        .args(["fit", dir.join("a.txt").to_str().unwrap(), "--epochs", "2"])
        .args(["--search-weight", "0.5", "--out"])
        .arg(&weights)
        .output()
        .expect("run wuzi-tune fit");
    assert!(fit.status.success(), "{fit:?}");
    let text = std::fs::read_to_string(&weights).unwrap();
    assert!(
        text.contains("--search-weight 0.5"),
        "the weight is in the provenance"
    );
    let bad = Command::new(TUNE)
        .args([
            "fit",
            dir.join("a.txt").to_str().unwrap(),
            "--search-weight",
            "2",
        ])
        .output()
        .expect("run wuzi-tune fit");
    assert!(!bad.status.success(), "a weight beyond 1 is refused");
    let _ = std::fs::remove_dir_all(&dir);
}
