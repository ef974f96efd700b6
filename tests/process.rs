//! The real `pbrain-wuzi` binary as a manager drives it: piped commands with CRLF endings, END
//! and STOP while it thinks, end of input, and nothing at all on stderr.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const BOT: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");

struct Bot {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Bot {
    fn start() -> Bot {
        let mut child = Command::new(BOT)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start pbrain-wuzi");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let stdin = child.stdin.take().unwrap();
        Bot {
            child,
            stdin,
            lines: rx,
        }
    }

    fn send(&mut self, text: &str) {
        self.stdin
            .write_all(text.replace('\n', "\r\n").as_bytes())
            .unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line that is not a MESSAGE, within a generous deadline.
    fn answer(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).expect("an answer in time");
            if !line.starts_with("MESSAGE ") {
                return line;
            }
        }
    }

    fn exits_within(&mut self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    fn stderr(mut self) -> String {
        let _ = self.child.kill();
        let mut s = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    }
}

fn is_move(line: &str, size: i64) -> bool {
    let Some((x, y)) = line.split_once(',') else {
        return false;
    };
    let ok = |s: &str| s.parse::<i64>().is_ok_and(|v| (0..size).contains(&v));
    ok(x) && ok(y)
}

#[test]
fn whole_game_over_crlf_then_end_while_thinking() {
    let mut bot = Bot::start();
    bot.send("ABOUT\n");
    assert!(bot.answer().starts_with("name=\"Wuzi\""));
    bot.send("START 15\nINFO timeout_turn 300\nINFO timeout_match 0\nINFO rule 0\n");
    assert_eq!(bot.answer(), "OK");
    bot.send("BEGIN\n");
    let mut taken = vec![bot.answer()];
    // Answer every move of the bot with the first free cell of row 0, 2, 4, … .
    let mut mine = Vec::new();
    for k in 0..6 {
        let last = taken.last().unwrap().clone();
        assert!(is_move(&last, 15), "not a move: {last}");
        let cell = (0..15)
            .map(|x| format!("{x},{}", 2 * (k % 7)))
            .find(|c| !taken.contains(c) && !mine.contains(c))
            .unwrap();
        mine.push(cell.clone());
        bot.send(&format!("INFO time_left 100000\nTURN {cell}\n"));
        let reply = bot.answer();
        assert!(
            !taken.contains(&reply) && !mine.contains(&reply),
            "replayed {reply}"
        );
        taken.push(reply);
    }
    // A long think, interrupted by END: no move is printed and the process exits at once.
    bot.send("INFO timeout_turn 60000\nBOARD\n7,7,2\n8,8,1\n9,7,2\nDONE\n");
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    bot.send("END\n");
    assert!(
        bot.exits_within(Duration::from_secs(2)),
        "did not exit after END"
    );
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(1), "END took {took:?}");
    let late: Vec<String> = bot
        .lines
        .try_iter()
        .filter(|l| !l.starts_with("MESSAGE "))
        .collect();
    assert!(late.is_empty(), "printed after END: {late:?}");
    assert_eq!(bot.stderr(), "", "stderr must stay silent");
}

#[test]
fn stop_while_thinking_answers_with_a_move_and_keeps_serving() {
    let mut bot = Bot::start();
    bot.send("START 20\nINFO timeout_turn 60000\nBOARD\n10,10,1\n11,11,2\nDONE\n");
    assert_eq!(bot.answer(), "OK");
    std::thread::sleep(Duration::from_millis(300));
    bot.send("YXSTOP\n");
    let mv = bot.answer();
    assert!(is_move(&mv, 20), "not a move: {mv}");
    // Commands sent while it thought are answered afterwards, in order.
    bot.send("INFO timeout_turn 60000\nTURN 0,0\n");
    std::thread::sleep(Duration::from_millis(100));
    bot.send("ABOUT\nSTOP\n");
    let second = bot.answer();
    assert!(is_move(&second, 20), "not a move: {second}");
    assert!(bot.answer().starts_with("name="));
    bot.send("END\n");
    assert!(bot.exits_within(Duration::from_secs(2)));
}

#[test]
fn end_of_input_finishes_the_pending_move_then_exits() {
    let mut bot = Bot::start();
    bot.send("START 15\nINFO timeout_turn 500\nBEGIN\nTURN 8,8\n");
    drop(bot.stdin);
    let mut lines = Vec::new();
    while let Ok(l) = bot.lines.recv_timeout(Duration::from_secs(10)) {
        if !l.starts_with("MESSAGE ") {
            lines.push(l);
        }
    }
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0], "OK");
    assert_eq!(lines[1], "7,7");
    assert!(is_move(&lines[2], 15));
    let until = Instant::now() + Duration::from_secs(5);
    while bot.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < until, "still running after end of input");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn timeout_turn_zero_answers_at_once() {
    let mut bot = Bot::start();
    bot.send("START 20\nINFO timeout_turn 0\nBOARD\n10,10,1\n11,11,2\n9,12,1\n12,12,2\nDONE\n");
    assert_eq!(bot.answer(), "OK");
    let t = Instant::now();
    let mv = bot.answer();
    assert!(is_move(&mv, 20));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t.elapsed()
    );
}

/// The next line that is neither a MESSAGE nor an INFO block line.
fn answer_skipping_info(bot: &mut Bot) -> String {
    loop {
        let line = bot.answer();
        if !line.starts_with("INFO ") {
            return line;
        }
    }
}

#[test]
fn yixin_caps_do_not_lift_the_turn_time() {
    // Yixin-Board sends these caps with every level: the turn time must still rule.
    let mut bot = Bot::start();
    bot.send("START 15 15\nINFO timeout_turn 1000\nINFO max_node 1000000000\nINFO max_depth 225\n");
    assert_eq!(bot.answer(), "OK");
    let t = Instant::now();
    bot.send("board\n7,7,1\n7,6,2\n6,8,1\n8,6,2\n5,9,1\n8,5,2\ndone\n");
    let mv = bot.answer();
    assert!(is_move(&mv, 15), "not a move: {mv}");
    // One second of turn time; the bound leaves room for a slow, loaded machine.
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn yxstop_is_answered_at_once_with_threads_and_realtime_output() {
    let mut bot = Bot::start();
    bot.send("info show_detail 3\nSTART 15 15\nINFO timeout_turn 60000\nINFO thread_num 2\n");
    assert_eq!(bot.answer(), "OK");
    bot.send("board\n7,7,1\n7,6,2\n6,8,1\n8,6,2\n5,9,1\n8,5,2\ndone\n");
    std::thread::sleep(Duration::from_millis(700));
    let t = Instant::now();
    bot.send("yxstop\n");
    let mv = answer_skipping_info(&mut bot);
    let took = t.elapsed();
    assert!(is_move(&mv, 15), "not a move: {mv}");
    // "At once": the search polls its stop flag every thousand nodes or so.
    assert!(took < Duration::from_secs(1), "yxstop took {took:?}");
    bot.send("END\n");
    assert!(bot.exits_within(Duration::from_secs(2)));
    assert_eq!(bot.stderr(), "");
}

#[test]
fn a_new_position_while_thinking_gets_its_own_answer() {
    // Yixin-Board changes the position while the engine thinks and discards the answer to the
    // old one: that answer must come first, then the new position's, for the new position.
    let mut bot = Bot::start();
    bot.send("START 15 15\nINFO timeout_turn 60000\n");
    assert_eq!(bot.answer(), "OK");
    bot.send("board\n7,7,1\n7,6,2\n6,8,1\n8,6,2\n5,9,1\n8,5,2\ndone\n");
    std::thread::sleep(Duration::from_millis(400));
    let t = Instant::now();
    // The new position: our four 3,3..6,3, blocked at 2,3, wins at 7,3 at once.
    bot.send(
        "start 15 15\nyxboard\n3,3,1\n4,3,1\n5,3,1\n6,3,1\n2,3,2\n3,6,2\n4,7,2\n9,9,2\ndone\n\
         board\n3,3,1\n4,3,1\n5,3,1\n6,3,1\n2,3,2\n3,6,2\n4,7,2\n9,9,2\ndone\n",
    );
    let old = bot.answer();
    assert!(is_move(&old, 15), "the old search's answer first: {old}");
    assert_ne!(old, "7,3");
    assert_eq!(bot.answer(), "OK", "then the new position's START");
    assert_eq!(bot.answer(), "7,3", "then the new position's own answer");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
    // The game goes on: a stopped search's move can be taken back like any other.
    bot.send("INFO timeout_turn 60000\nTURN 0,0\n");
    std::thread::sleep(Duration::from_millis(300));
    bot.send("YXSTOP\n");
    let mv = bot.answer();
    assert!(is_move(&mv, 15));
    bot.send(&format!("TAKEBACK {mv}\nTAKEBACK 0,0\n"));
    assert_eq!(bot.answer(), "OK");
    assert_eq!(bot.answer(), "OK");
    bot.send("END\n");
    assert!(bot.exits_within(Duration::from_secs(2)));
}

/// `bench --openings ... --nodes N`: the depth at a node budget, the same on every run and
/// machine (the figure the depth goals are measured by on a loaded machine).
#[test]
fn bench_at_a_node_budget_is_repeatable_and_keeps_the_budget() {
    let run = || {
        let out = Command::new(BOT)
            .env_remove("RUST_LOG")
            .args([
                "bench",
                "--time",
                "600000",
                "--openings",
                "tests/data/openings/piskvork_freestyle15_offset.txt",
                "--count",
                "2",
                "--nodes",
                "30000",
            ])
            .output()
            .expect("run the bench");
        assert!(out.status.success());
        assert!(out.stderr.is_empty());
        String::from_utf8(out.stdout).unwrap()
    };
    // Everything but the speed.
    let results = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("opening "))
            .map(|l| l.split(" nps ").next().unwrap().to_string())
            .collect()
    };
    let first = run();
    let lines = results(&first);
    assert_eq!(lines.len(), 2, "{first}");
    for line in &lines {
        let nodes: u64 = line.split(" nodes ").nth(1).unwrap().parse().unwrap();
        // The search stops within a poll interval of the budget.
        assert!((1..=30_000 + 2048).contains(&nodes), "{line}");
        let depth: i32 = line
            .split(" depth ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(depth >= 4, "{line}");
    }
    assert_eq!(lines, results(&run()));
}

#[test]
fn over_long_lines_get_an_error_and_the_bot_keeps_serving() {
    let mut bot = Bot::start();
    let k64 = 1 << 16;
    for (len, expect) in [
        (k64 - 1, "UNKNOWN command "),
        (k64, "UNKNOWN command "),
        (k64 + 1, "ERROR line longer than 65536 bytes ignored"),
        (1 << 20, "ERROR line longer than 65536 bytes ignored"),
    ] {
        bot.send(&format!("{}\n", "x".repeat(len)));
        let line = bot.answer();
        assert!(line.starts_with(expect), "{len} bytes: {line:.80}");
        // The echo of the line is cut short.
        assert!(line.len() < 300, "{len} bytes: a reply of {}", line.len());
    }
    bot.send("ABOUT\n");
    assert!(bot.answer().starts_with("name=\"Wuzi\""));
    bot.send("END\n");
    assert!(bot.exits_within(Duration::from_secs(2)));
    assert_eq!(bot.stderr(), "");
}

/// Issue 58: in this renju position (lost for the engine, `-M18`) Yixin-Board's realtime
/// output (`show_detail 1`) once printed 15,940 `MESSAGE REALTIME` lines for one move, and the
/// move reached the GUI 21.9 s into an 8 s turn. The progress lines are now rate-limited and
/// coalesced: one move prints at most the rate over its time and a burst.
#[test]
fn one_move_prints_a_bounded_number_of_progress_lines() {
    use wuzi::protocol::outbox::{BURST, RATE};
    let mut bot = Bot::start();
    bot.send("info show_detail 1\nSTART 15 15\nINFO rule 2\nINFO timeout_turn 3000\n");
    assert_eq!(bot.answer(), "OK");
    let t = Instant::now();
    bot.send("board\n7,5,2\n5,9,1\n7,6,2\n11,10,1\n9,7,2\n3,2,1\n8,7,2\n3,12,1\n11,3,2\ndone\n");
    let mut lines = 0;
    let mv = loop {
        let line = bot
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a move");
        if !line.starts_with("MESSAGE ") {
            break line;
        }
        lines += 1;
    };
    let took = t.elapsed();
    assert!(is_move(&mv, 15), "not a move: {mv}");
    let bound = (RATE as u64 * (took.as_millis() as u64 + 1000) / 1000) as usize + BURST as usize;
    println!("{lines} progress lines in {took:?}");
    assert!(
        lines <= bound,
        "{lines} lines in {took:?} (at most {bound})"
    );
    assert!(took < Duration::from_millis(3000), "the move took {took:?}");
    bot.send("END\n");
    assert!(bot.exits_within(Duration::from_secs(2)));
}
