//! Protocol transcripts: each `protocol-fixtures/NAME.in` is fed to the bot and what it prints
//! must equal `NAME.out`, with what depends on the clock masked (see `mask`).
//!
//! By default the transcript runs in-process through the same `Session` the binary uses. With
//! `WUZI_ENGINE="cmd args"` it runs against that engine process instead (for example the
//! Windows build under Wine): each line is written once the previous command's answer has come,
//! and the output is read until the engine exits at the end of its input. A process rate-limits
//! and coalesces its progress lines (`protocol::outbox`), as timing decides: there, every other
//! line must match and the progress lines printed must be a subsequence of the transcript's. `WUZI_BLESS=1` writes the `.out` files (review them!).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wuzi::protocol::session::Session;

/// Masks what depends on the clock: `nps` and `time` of MESSAGE lines, the values of INFO
/// TOTALTIME and SPEED; `None` for the root enter/leave marks, which only appear once a search
/// has run for a while.
fn mask(line: &str) -> Option<String> {
    if line.starts_with("MESSAGE REALTIME POS") || line.starts_with("MESSAGE REALTIME DONE") {
        return None;
    }
    for key in ["INFO TOTALTIME ", "INFO SPEED "] {
        if line.starts_with(key) {
            return Some(format!("{key}*"));
        }
    }
    if !line.starts_with("MESSAGE depth") {
        return Some(line.to_string());
    }
    let mut out = Vec::new();
    let mut hide = false;
    for tok in line.split(' ') {
        out.push(if hide { "*" } else { tok });
        hide = tok == "nps" || tok == "time";
    }
    Some(out.join(" "))
}

/// Each input line with how many (masked) output lines the in-process session has printed once
/// that line is served, and whether serving it ran a search.
fn script_marks(input: &[u8]) -> Vec<(Vec<u8>, usize, bool)> {
    let mut session = Session::new();
    let mut printed = 0;
    let mut marks = Vec::new();
    for line in input.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line).to_vec();
        if line.trim_ascii().eq_ignore_ascii_case(b"END") {
            break;
        }
        let out = session.run_script(&line);
        let searched = out
            .iter()
            .any(|l| l.starts_with("MESSAGE depth") || is_answer(l));
        printed += out.iter().filter_map(|l| mask(l)).count();
        marks.push((line, printed, searched));
    }
    marks
}

/// A search's progress line: an iteration, a multi-PV line, a live mark or an `INFO` block
/// line (the only `INFO` lines the engine prints).
fn is_progress(line: &str) -> bool {
    line.starts_with("MESSAGE REALTIME ")
        || line.starts_with("MESSAGE depth ")
        || line.starts_with("MESSAGE (")
        || line.starts_with("INFO ")
}

/// A line that can end a search: a move `x,y` (or `x,y x,y`...) or SWAP2's `SWAP`.
fn is_answer(line: &str) -> bool {
    line == "SWAP"
        || line
            .split(' ')
            .all(|m| m.split(',').count() == 2 && m.split(',').all(|n| n.parse::<u32>().is_ok()))
}

/// Runs the transcript through an engine process. A command that starts a search gets its
/// answer before the next line is written, as a manager waits for the move: a line that comes
/// while the engine thinks may rightly stop the search (a GUI changing the position). Returns the
/// lines printed, and the exit status with the last of stderr, for a failure's report.
fn run_external(cmd: &str, input: &[u8]) -> (Vec<String>, String) {
    let mut parts = cmd.split_whitespace();
    let program = parts.next().expect("WUZI_ENGINE names a program");
    let mut child = Command::new(program)
        .args(parts)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd}: {e}"));
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line.trim_end_matches('\r').to_string());
        }
    });
    let mut lines = Vec::new();
    let mut shown = 0;
    let mut stdin = child.stdin.take().unwrap();
    // Nothing after END is ever read, and END itself would stop a search still running: the
    // input stops there, so end of input lets the pending move finish as it does in-process.
    for (line, printed, searched) in script_marks(input) {
        // An engine that has exited takes no more input: the report says how it ended.
        let sent = stdin.write_all(&[line.as_slice(), b"\n"].concat());
        if sent.and_then(|()| stdin.flush()).is_err() {
            break;
        }
        // A search's progress lines may be coalesced: its answer, not a count, ends the wait.
        let deadline = Instant::now() + Duration::from_secs(60);
        while searched && shown < printed {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(l) = rx.recv_timeout(left) else { break };
            let answer = is_answer(&l);
            shown += usize::from(mask(&l).is_some());
            lines.push(l);
            if answer {
                shown = printed;
            }
        }
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{cmd} did not exit at the end of its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let errors = errors.join().unwrap();
    let tail: Vec<&str> = errors.lines().collect();
    let tail = &tail[tail.len().saturating_sub(20)..];
    (lines, format!("{status}; stderr:\n{}", tail.join("\n")))
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("protocol-fixtures")
        .expect("protocol-fixtures/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    v.sort();
    v
}

fn check(path: &Path, engine: Option<&str>) -> Result<(), String> {
    let input = std::fs::read(path).unwrap();
    let (actual, process) = match engine {
        Some(cmd) => run_external(cmd, &input),
        None => (Session::new().run_script(&input), String::new()),
    };
    let actual: Vec<String> = actual.iter().filter_map(|l| mask(l)).collect();
    let out_path = path.with_extension("out");
    if std::env::var_os("WUZI_BLESS").is_some() {
        let mut text = actual.join("\n");
        text.push('\n');
        std::fs::write(&out_path, text).unwrap();
    }
    let expected = std::fs::read_to_string(&out_path).map_err(|e| format!("{out_path:?}: {e}"))?;
    let expected: Vec<&str> = expected.lines().collect();
    let same = if engine.is_some() {
        let (a_rest, a_prog): (Vec<&str>, Vec<&str>) = actual
            .iter()
            .map(String::as_str)
            .partition(|l| !is_progress(l));
        let (e_rest, e_prog): (Vec<&str>, Vec<&str>) =
            expected.iter().copied().partition(|l| !is_progress(l));
        let mut e = e_prog.iter();
        a_rest == e_rest && a_prog.iter().all(|a| e.any(|x| x == a))
    } else {
        actual == expected
    };
    if !same {
        return Err(format!(
            "{}:\n--- expected\n{}\n--- actual\n{}\n--- the process\n{}",
            path.display(),
            expected.join("\n"),
            actual.join("\n"),
            process
        ));
    }
    Ok(())
}

#[test]
fn every_fixture_matches_its_transcript() {
    let engine = std::env::var("WUZI_ENGINE").ok();
    let all = fixtures();
    assert!(all.len() >= 10, "only {} fixtures found", all.len());
    let failures: Vec<String> = all
        .iter()
        .filter_map(|p| check(p, engine.as_deref()).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
