//! Checks a session of the real Yixin-Board GUI with the bot, as `scripts/test-gui.sh` records
//! it (`run.sh … all`: `engine_io.log`, every line with its time and direction, and
//! `steps.txt`, what each step saw). Run by that script: `WUZI_GUI_RUN=DIR cargo test --release
//! --test gui -- --ignored`.

use std::path::PathBuf;

/// Lateness allowed on top of the turn: the GUI's own reading and the logging shim.
const SLACK_MS: i64 = 500;
/// "At once" for yxstop, on a loaded machine.
const STOP_MS: i64 = 500;

/// One line of `engine_io.log`: milliseconds of the day, direction tag, text.
struct Entry {
    ms: i64,
    tag: String,
    text: String,
}

fn parse(line: &str) -> Option<Entry> {
    let (time, rest) = line.split_once(' ')?;
    let mut t = time.split([':', '.']).map(|v| v.parse::<i64>().ok());
    let ms = ((t.next()?? * 60 + t.next()??) * 60 + t.next()??) * 1000 + t.next()??;
    let (tag, text) = rest.split_once(' ').unwrap_or((rest, ""));
    Some(Entry {
        ms,
        tag: tag.to_string(),
        text: text.to_string(),
    })
}

fn is_move(text: &str) -> bool {
    text.split_once(',')
        .is_some_and(|(x, y)| x.parse::<u32>().is_ok() && y.parse::<u32>().is_ok())
}

#[test]
#[ignore = "needs a recorded GUI session: scripts/test-gui.sh runs it"]
fn yixin_board_session_is_clean() {
    let dir = PathBuf::from(std::env::var("WUZI_GUI_RUN").expect("WUZI_GUI_RUN=<run.sh output>"));
    // The turn time run.sh gave the engine (YX_TURN), in ms.
    let turn_ms: i64 = std::env::var("WUZI_GUI_TURN_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let log = std::fs::read_to_string(dir.join("engine_io.log")).expect("engine_io.log");
    let steps = std::fs::read_to_string(dir.join("steps.txt")).expect("steps.txt");
    let entries: Vec<Entry> = log.lines().filter_map(parse).collect();
    assert!(entries.len() > 100, "a real session has hundreds of lines");

    let mut problems = Vec::new();
    for e in &entries {
        let bad_reply =
            e.tag == "ENG>GUI" && (e.text.starts_with("ERROR") || e.text.starts_with("UNKNOWN"));
        if bad_reply || e.tag == "ENG>ERR" {
            problems.push(format!("{} {}", e.tag, e.text));
        }
    }
    for bad in ["NO engine move", "GUI ACCEPTED H8", "GUI still running"] {
        if steps.contains(bad) {
            problems.push(format!("steps.txt: {bad}"));
        }
    }

    // Every move request (a board block's done, a turn, yxnbest) is answered within the turn;
    // yxstop while one is pending is answered at once; live marks arrive while it thinks.
    let mut pending: Option<(i64, String)> = None;
    let mut in_board = false;
    let (mut requests, mut stops, mut marked) = (0, 0, 0);
    let mut best_seen = false;
    for e in &entries {
        match e.tag.as_str() {
            "GUI>ENG" => {
                let lower = e.text.to_ascii_lowercase();
                if lower == "board" {
                    in_board = true;
                } else if lower == "yxboard" {
                    in_board = false;
                }
                let request = (lower == "done" && in_board)
                    || lower.starts_with("turn ")
                    || lower.starts_with("yxnbest");
                if lower == "done" {
                    in_board = false;
                }
                if request {
                    requests += 1;
                    best_seen = false;
                    pending = Some((e.ms, lower));
                } else if lower == "yxstop" {
                    if let Some((_, what)) = &mut pending {
                        *what = format!("yxstop@{}", e.ms);
                    }
                }
            }
            "ENG>GUI" if e.text.starts_with("MESSAGE REALTIME BEST") => best_seen = true,
            "ENG>GUI" if is_move(&e.text) => {
                if let Some((asked, what)) = pending.take() {
                    let took = e.ms - asked;
                    if took > turn_ms + SLACK_MS {
                        problems.push(format!("{what}: answered after {took} ms"));
                    }
                    if let Some(at) = what.strip_prefix("yxstop@") {
                        stops += 1;
                        let after = e.ms - at.parse::<i64>().unwrap();
                        if after > STOP_MS {
                            problems.push(format!("yxstop answered after {after} ms"));
                        }
                    }
                    if best_seen {
                        marked += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let said = |s: &str| {
        entries
            .iter()
            .any(|e| e.tag == "ENG>GUI" && e.text.starts_with(s))
    };
    println!("{requests} move requests, {stops} stopped by yxstop, {marked} with live marks");
    assert!(
        requests >= 7,
        "the scenario asks for at least 7 moves: {requests}"
    );
    assert!(
        stops >= 1,
        "the Escape step's yxstop was not met while thinking"
    );
    assert_eq!(
        marked, requests,
        "every search showed MESSAGE REALTIME BEST"
    );
    for line in [
        "MESSAGE (1) ",
        "MESSAGE (2) ",
        "MESSAGE (3) ",
        "FORBID 0707.",
    ] {
        if !said(line) {
            problems.push(format!("never said '{line}'"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
