//! One game between two engines, refereed by the library's own rules: START and INFO, BOARD
//! for an engine's first move and TURN after it, clocks from command write to move line.

use std::time::{Duration, Instant};

use super::engine::{Engine, Failure};
use crate::board::{Board, Color};
use crate::geometry::{Dims, Pos};
use crate::rules::{Rule, Verdict};

/// How games are played. Times in ms; `match_ms` 0 means no match clock.
#[derive(Clone, Debug)]
pub struct GameConfig {
    pub dims: Dims,
    pub rule: Rule,
    pub turn_ms: u64,
    pub match_ms: u64,
    /// Lateness forgiven on every move (the managers' tolerance).
    pub tolerance_ms: u64,
    pub max_memory: u64,
    /// Draw once this many stones are on the board (renju: 200).
    pub draw_after: Option<usize>,
    /// Milliseconds between an engine's move and the next command sent to it.
    pub settle_ms: u64,
}

impl GameConfig {
    pub fn new(dims: Dims, rule: Rule, turn_ms: u64) -> GameConfig {
        GameConfig {
            dims,
            rule,
            turn_ms,
            match_ms: 0,
            tolerance_ms: 1000,
            max_memory: 350 << 20,
            draw_after: (rule == Rule::Renju).then_some(200),
            settle_ms: ENGINE_SETTLE_MS,
        }
    }
}

/// Milliseconds between an engine's move and the next command sent to that engine, by default.
pub const ENGINE_SETTLE_MS: u64 = 50;

/// Which rule of conduct an engine broke; counted per engine because tournaments disqualify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Timeout,
    Crash,
    /// An off-board or occupied move, or a line that is no move at all.
    Illegal,
}

/// A finished game. `moves` follow the opening; the side to move after the opening is black
/// when the opening has an even number of stones.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub opening: Vec<Pos>,
    pub moves: Vec<Pos>,
    pub winner: Option<Color>,
    pub reason: String,
    /// The side whose engine broke the protocol or the clock, if one did.
    pub fault: Option<(Color, Fault)>,
    /// Milliseconds each move of `moves` took, from the command written to the move read.
    pub times_ms: Vec<u64>,
    /// The evaluation the mover's last `MESSAGE` gave with each move of `moves` (Rapfi's
    /// `... Eval X ...`, Wuzi's `depth N score X ...`: `85`, `-43`, `+M19`, `-M4`), if any.
    pub evals: Vec<Option<String>>,
}

/// An engine's evaluation of its own move, read from a MESSAGE: centipawn-like or a forced
/// result (`Mate(n)`: it wins in `n` plies when `n > 0`, loses when `n < 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    Score(i32),
    Mate(i32),
}

impl Eval {
    /// `85`, `-43`, `+M19`, `M19`, `-M4`.
    pub fn parse(text: &str) -> Option<Eval> {
        let t = text.trim();
        let (sign, rest) = match t.as_bytes().first()? {
            b'-' => (-1, &t[1..]),
            b'+' => (1, &t[1..]),
            _ => (1, t),
        };
        match rest.strip_prefix(['M', 'm']) {
            Some(n) => Some(Eval::Mate(sign * n.parse::<i32>().ok()?.max(1))),
            None => Some(Eval::Score(sign * rest.parse::<i32>().ok()?)),
        }
    }
}

/// The evaluation of the last message in `messages` that gives one: the value after `Eval`
/// (Rapfi: `Speed 1M | Depth 9-13 | Eval 85 | ...`) or after `score` in a search report
/// (Wuzi: `depth 12 score 85 nodes ...`).
pub fn last_eval(messages: &[String]) -> Option<String> {
    messages.iter().rev().find_map(|m| {
        let at = match m.find("Eval ") {
            Some(k) => k + 5,
            None if m.starts_with("depth ") => m.find(" score ")? + 7,
            None => return None,
        };
        let v = m[at..].split(['|', ' ']).next()?;
        Eval::parse(v).map(|_| v.to_string())
    })
}

/// Below this evaluation of its previous move, an announced forced win counts as sudden.
pub const SUDDEN_BELOW: i32 = 300;

impl GameRecord {
    /// The side that announced a forced win "suddenly": the first of its moves whose evaluation
    /// is a win, right after a move it rated below `SUDDEN_BELOW` (a forced loss it did not see
    /// coming for the opponent). `None` when no side did, or gave no evaluations.
    pub fn sudden_win(&self) -> Option<Color> {
        let black_first = self.opening.len() % 2 == 0;
        let mover = |k: usize| {
            if (k % 2 == 0) == black_first {
                Color::Black
            } else {
                Color::White
            }
        };
        [Color::Black, Color::White].into_iter().find(|&side| {
            let own: Vec<Option<Eval>> = (0..self.evals.len())
                .filter(|&k| mover(k) == side)
                .map(|k| self.evals[k].as_deref().and_then(Eval::parse))
                .collect();
            own.iter()
                .position(|e| matches!(e, Some(Eval::Mate(n)) if *n > 0))
                .is_some_and(|k| {
                    k > 0 && matches!(own[k - 1], Some(Eval::Score(v)) if v < SUDDEN_BELOW)
                })
        })
    }

    /// Whether `side` claimed a forced win (a positive mate in its evaluation of one of its
    /// moves) and then did not win the game: a claim that was no proof, or a win thrown away.
    pub fn broken_claim(&self, side: Color) -> bool {
        let black_first = self.opening.len() % 2 == 0;
        let claimed = self.evals.iter().enumerate().any(|(k, e)| {
            let mover = if (k % 2 == 0) == black_first {
                Color::Black
            } else {
                Color::White
            };
            mover == side
                && matches!(e.as_deref().and_then(Eval::parse), Some(Eval::Mate(n)) if n > 0)
        });
        claimed && self.winner != Some(side)
    }
}

/// Parses a move line strictly: `x,y`, two integers, nothing else.
pub fn parse_move(line: &str) -> Option<(i64, i64)> {
    let (x, y) = line.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

struct Game<'a> {
    cfg: &'a GameConfig,
    board: Board,
    opening: Vec<Pos>,
    moves: Vec<Pos>,
    times_ms: Vec<u64>,
    evals: Vec<Option<String>>,
}

impl Game<'_> {
    fn end(
        self,
        winner: Option<Color>,
        reason: String,
        fault: Option<(Color, Fault)>,
    ) -> GameRecord {
        GameRecord {
            opening: self.opening,
            moves: self.moves,
            winner,
            reason,
            fault,
            times_ms: self.times_ms,
            evals: self.evals,
        }
    }

    fn lose(self, side: Color, fault: Fault, reason: String) -> GameRecord {
        self.end(Some(side.opp()), reason, Some((side, fault)))
    }
}

fn fault_of(f: &Failure) -> Fault {
    match f {
        Failure::Timeout => Fault::Timeout,
        Failure::Crash => Fault::Crash,
        Failure::Malformed(_) => Fault::Illegal,
    }
}

/// Sends START and the INFO settings; `Err` if the engine does not answer `OK` in time.
fn start(engine: &mut Engine, cfg: &GameConfig, extra: &[(String, String)]) -> Result<(), Failure> {
    engine.drain();
    let d = cfg.dims;
    if d.width == d.height {
        engine.send(&format!("START {}", d.width))?;
    } else {
        engine.send(&format!("RECTSTART {},{}", d.width, d.height))?;
    }
    let deadline = Instant::now() + Duration::from_millis(cfg.tolerance_ms.max(3000));
    let answer = engine.answer(deadline, &mut Vec::new())?;
    if !answer.eq_ignore_ascii_case("OK") {
        return Err(Failure::Malformed(answer));
    }
    let mut infos = vec![
        ("rule".to_string(), cfg.rule.info_value().to_string()),
        ("timeout_turn".into(), cfg.turn_ms.to_string()),
        ("timeout_match".into(), cfg.match_ms.to_string()),
        ("max_memory".into(), cfg.max_memory.to_string()),
        ("game_type".into(), "1".into()),
    ];
    infos.extend_from_slice(extra);
    for (k, v) in infos {
        engine.send(&format!("INFO {k} {v}"))?;
    }
    Ok(())
}

/// Plays one game: `engines[0]` is black, `engines[1]` white; `extra[i]` are INFO settings for
/// engine `i`. The opening stones alternate black, white, … .
pub fn play(
    engines: [&mut Engine; 2],
    opening: &[Pos],
    cfg: &GameConfig,
    extra: [&[(String, String)]; 2],
) -> GameRecord {
    let mut board = Board::new(cfg.dims);
    for &p in opening {
        if board.is_empty_at(p) {
            board.play(p);
        }
    }
    let mut game = Game {
        cfg,
        board,
        opening: opening.to_vec(),
        moves: Vec::new(),
        times_ms: Vec::new(),
        evals: Vec::new(),
    };
    let [black, white] = engines;
    let mut engines = [black, white];
    for (i, e) in engines.iter_mut().enumerate() {
        let side = if i == 0 { Color::Black } else { Color::White };
        if let Err(f) = start(e, cfg, extra[i]) {
            let why = format!("{} failed at START: {}", e.name, f.describe());
            return game.lose(side, fault_of(&f), why);
        }
    }
    let mut first = [true, true];
    let mut used_ms = [0u64; 2];
    let mut answered: [Option<Instant>; 2] = [None, None];
    loop {
        let side = game.board.to_move();
        let stones = game.board.stone_count();
        if game.board.grid().is_full() {
            return game.end(None, "full board".into(), None);
        }
        if game.cfg.draw_after.is_some_and(|n| stones >= n) {
            return game.end(None, format!("draw after {stones} stones"), None);
        }
        let e = &mut engines[side.index()];
        let left = if cfg.match_ms > 0 {
            cfg.match_ms as i64 - used_ms[side.index()] as i64
        } else {
            i32::MAX as i64
        };
        // Some engines (Rapfi) drop a command that arrives in the few milliseconds after they
        // printed their move; the pause is outside the clock, which starts at the write.
        if let Some(at) = answered[side.index()] {
            let ready = at + Duration::from_millis(cfg.settle_ms);
            std::thread::sleep(ready.saturating_duration_since(Instant::now()));
        }
        let sent = send_position(e, &game.board, left, &mut first[side.index()]);
        let started = Instant::now();
        let mut allowed = cfg.turn_ms;
        if cfg.match_ms > 0 {
            allowed = allowed.min(left.max(0) as u64);
        }
        let deadline = started + Duration::from_millis(allowed + cfg.tolerance_ms);
        let mut messages = Vec::new();
        let answer = sent.and_then(|_| e.answer(deadline, &mut messages));
        let elapsed = started.elapsed().as_millis() as u64;
        answered[side.index()] = Some(Instant::now());
        used_ms[side.index()] += elapsed;
        let line = match answer {
            Ok(l) => l,
            Err(f) => {
                let why = format!("{} {}", e.name, f.describe());
                return game.lose(side, fault_of(&f), why);
            }
        };
        let Some((x, y)) = parse_move(&line) else {
            let why = format!("{} answered '{line}', not a move", e.name);
            return game.lose(side, Fault::Illegal, why);
        };
        let p = match cfg.dims.checked_pos(x, y) {
            Ok(p) if game.board.is_empty_at(p) => p,
            Ok(p) => {
                let why = format!("{} played the occupied cell {p}", e.name);
                return game.lose(side, Fault::Illegal, why);
            }
            Err(why) => {
                let why = format!("{} played off the board: {why}", e.name);
                return game.lose(side, Fault::Illegal, why);
            }
        };
        if cfg.match_ms > 0 && used_ms[side.index()] > cfg.match_ms + cfg.tolerance_ms {
            let why = format!("{} ran out of match time", e.name);
            return game.lose(side, Fault::Timeout, why);
        }
        let verdict = cfg.rule.judge(game.board.grid_mut(), p, side);
        game.moves.push(p);
        game.times_ms.push(elapsed);
        game.evals.push(last_eval(&messages));
        match verdict {
            Verdict::Foul(f) => {
                return game.end(
                    Some(side.opp()),
                    format!("foul ({}) at {p}", f.name()),
                    None,
                );
            }
            Verdict::Win => {
                game.board.play(p);
                return game.end(Some(side), format!("five at {p}"), None);
            }
            Verdict::Continue => game.board.play(p),
        }
    }
}

/// INFO time_left, then BEGIN, BOARD (the engine's first move of the game) or TURN.
fn send_position(
    e: &mut Engine,
    board: &Board,
    left: i64,
    first: &mut bool,
) -> Result<(), Failure> {
    e.send(&format!("INFO time_left {left}"))?;
    if !*first {
        let last = board.last_move().expect("a move was played since");
        return e.send(&format!("TURN {last}"));
    }
    *first = false;
    if board.stone_count() == 0 {
        return e.send("BEGIN");
    }
    let me = board.to_move();
    e.send("BOARD")?;
    for &(p, c) in board.history() {
        e.send(&format!("{p},{}", if c == me { 1 } else { 2 }))?;
    }
    e.send("DONE")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(opening: usize, evals: &[&str]) -> GameRecord {
        GameRecord {
            opening: (0..opening).map(|x| Pos::new(x, 0)).collect(),
            moves: (0..evals.len()).map(|x| Pos::new(x, 1)).collect(),
            winner: None,
            reason: String::new(),
            fault: None,
            times_ms: vec![0; evals.len()],
            evals: evals
                .iter()
                .map(|e| (*e != "-").then(|| e.to_string()))
                .collect(),
        }
    }

    #[test]
    fn reads_rapfi_evaluations() {
        let msgs = [
            "Speed 850K | Depth 7-11 | Eval -43 | Node 850 | Time 1ms".to_string(),
            "Bestline G8 K8".to_string(),
        ];
        assert_eq!(last_eval(&msgs).as_deref(), Some("-43"));
        let win = ["Speed 1M | Depth 6-2 | Eval +M3 | Node 10".to_string()];
        assert_eq!(last_eval(&win).as_deref(), Some("+M3"));
        assert_eq!(Eval::parse("+M3"), Some(Eval::Mate(3)));
        assert_eq!(Eval::parse("-M12"), Some(Eval::Mate(-12)));
        assert_eq!(Eval::parse("85"), Some(Eval::Score(85)));
        assert_eq!(Eval::parse("abc"), None);
        assert_eq!(last_eval(&["Bestline H8".to_string()]), None);
    }

    #[test]
    fn reads_wuzi_evaluations() {
        let report = |s: &str| format!("depth 12 score {s} nodes 91234 nps 1500000 time 61 pv 7,7");
        let msgs = [report("85"), "a note about score 3".to_string()];
        assert_eq!(last_eval(&msgs).as_deref(), Some("85"));
        assert_eq!(last_eval(&[report("-M12")]).as_deref(), Some("-M12"));
        assert_eq!(
            last_eval(&[report("+M5"), report("40")]).as_deref(),
            Some("40")
        );
        assert_eq!(last_eval(&["depth 3".to_string()]), None);
    }

    #[test]
    fn a_forced_win_after_a_low_evaluation_is_sudden() {
        // Three opening stones: white moves first (moves 0, 2, 4 are white's).
        let r = record(3, &["120", "-", "250", "-", "+M21", "-"]);
        assert_eq!(r.sudden_win(), Some(Color::White));
        // Seen coming: the evaluation was already high before the win.
        let r = record(3, &["120", "-", "900", "-", "+M21", "-"]);
        assert_eq!(r.sudden_win(), None);
        // A loss announced is no win; an even opening: black's moves are 0, 2, 4.
        let r = record(2, &["0", "-", "-M9", "-"]);
        assert_eq!(r.sudden_win(), None);
        let r = record(2, &["-", "10", "-", "+M5"]);
        assert_eq!(r.sudden_win(), Some(Color::White));
        // The first evaluation a win: nothing before it to compare.
        assert_eq!(record(2, &["+M3", "-"]).sudden_win(), None);
    }

    #[test]
    fn a_forced_win_claimed_and_not_won_is_a_broken_claim() {
        // Even opening: black's moves are 0, 2, 4. Black claims a win at move 2.
        let mut r = record(2, &["40", "-", "+M9", "-", "+M7", "-"]);
        r.winner = Some(Color::White);
        assert!(r.broken_claim(Color::Black));
        assert!(!r.broken_claim(Color::White), "white claimed nothing");
        r.winner = None;
        assert!(
            r.broken_claim(Color::Black),
            "a draw after a claim is broken too"
        );
        r.winner = Some(Color::Black);
        assert!(!r.broken_claim(Color::Black), "the claim was kept");
        // A loss announced is no claim.
        let mut r = record(2, &["-M9", "-"]);
        r.winner = Some(Color::White);
        assert!(!r.broken_claim(Color::Black));
    }
}
