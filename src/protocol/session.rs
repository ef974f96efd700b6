//! The protocol state machine: board, settings and pending `BOARD` lines. `handle` turns one
//! manager line into replies or a search job; it does no I/O and starts no threads, so the
//! binary's event loop and the fixture runner drive the very same code.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::command::{self, Command, ParseError};
use super::response;
use crate::board::{renju, Board, Color};
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;
use crate::search::limits::{Limits, WallClock};
use crate::search::params::Params;
use crate::search::tt::{TranspositionTable, ENTRY_BYTES};
use crate::search::{Observer, Outcome, Search};
use crate::time::TimeSettings;

/// Gomocup's memory limit, assumed when the manager sends none or 0.
pub const DEFAULT_MAX_MEMORY: u64 = 350 << 20;
/// Memory the process needs besides the transposition table (code, stacks, boards).
const BASE_MEMORY: u64 = 24 << 20;
/// Longest input line we keep; longer ones are answered with an error.
pub const MAX_LINE: usize = 1 << 16;

/// Everything INFO can set. Persists across games.
#[derive(Clone, Debug)]
pub struct Settings {
    pub time: TimeSettings,
    pub max_memory: u64,
    pub rule: Rule,
    pub max_depth: Option<i32>,
    pub max_nodes: Option<u64>,
    pub threads: u32,
    pub hash_kib: Option<u64>,
    pub folder: Option<String>,
    pub game_type: i64,
    /// Search tunables; `INFO wuzi_<name> <value>` sets one (for tuning matches).
    pub params: Params,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            time: TimeSettings::default(),
            max_memory: DEFAULT_MAX_MEMORY,
            rule: Rule::Freestyle,
            max_depth: None,
            max_nodes: None,
            threads: 1,
            hash_kib: None,
            folder: None,
            game_type: 1,
            params: Params::default(),
        }
    }
}

impl Settings {
    /// Bytes for the transposition table, so the whole process stays under `max_memory`.
    pub fn tt_bytes(&self) -> usize {
        let budget = self.max_memory.saturating_sub(BASE_MEMORY) * 5 / 8;
        let capped = match self.hash_kib {
            Some(kib) => budget.min(kib.saturating_mul(1024)),
            None => budget,
        };
        capped.clamp(1 << 16, 4 << 30) as usize
    }

    /// Applies one INFO key; unknown keys and unparsable values are ignored.
    pub fn apply(&mut self, key: &str, value: &str) {
        let num = value.trim().parse::<i64>().ok();
        match (key, num) {
            ("timeout_turn", Some(v)) => self.time.turn_ms = v,
            ("timeout_match", Some(v)) => self.time.match_ms = v,
            ("time_left", Some(v)) => self.time.time_left_ms = Some(v),
            ("max_memory", _) => {
                if let Ok(v) = value.trim().parse::<u64>() {
                    self.max_memory = if v == 0 { DEFAULT_MAX_MEMORY } else { v };
                }
            }
            ("rule", Some(v)) => self.rule = Rule::from_info(v),
            ("max_depth", Some(v)) => self.max_depth = (v > 0).then_some(v.min(1000) as i32),
            ("max_node", Some(v)) => self.max_nodes = (v > 0).then_some(v as u64),
            ("thread_num", Some(v)) => self.threads = v.clamp(1, 256) as u32,
            ("hash_size", Some(v)) => self.hash_kib = (v > 0).then_some(v as u64),
            ("game_type", Some(v)) => self.game_type = v,
            ("folder", _) => self.folder = Some(value.to_string()),
            (_, Some(v)) if key.starts_with("wuzi_") => {
                self.params.set(&key["wuzi_".len()..], v);
            }
            _ => {}
        }
    }
}

/// A search the caller must run (on any thread) and hand back through `Session::finish`.
pub struct Job {
    pub board: Board,
    pub rule: Rule,
    pub limits: Limits,
    pub tt: TranspositionTable,
    pub params: Params,
    pub started: Instant,
}

impl Job {
    /// Runs the search; `stop` ends it early with the best move so far.
    pub fn run(&mut self, stop: &AtomicBool, observer: &mut dyn Observer) -> Outcome {
        let clock = WallClock {
            start: self.started,
        };
        Search {
            board: self.board.clone(),
            rule: self.rule,
            limits: self.limits.clone(),
            params: self.params.clone(),
            tt: &mut self.tt,
            clock: &clock,
            stop,
        }
        .run(observer)
    }
}

/// What the caller does after a line.
pub enum Action {
    /// Print these lines (possibly none).
    Reply(Vec<String>),
    /// Run this search, then pass its outcome to `Session::finish`.
    Think(Box<Job>),
    /// Exit: print nothing more.
    Quit,
}

/// `BOARD`/`YXBOARD` lines gathered until `DONE`.
struct Pending {
    reply: bool,
    stones: Vec<(Pos, u8)>,
    error: Option<String>,
}

/// Invariant: `board` is `None` only before the first valid START/RECTSTART.
#[derive(Default)]
pub struct Session {
    board: Option<Board>,
    pub settings: Settings,
    pending: Option<Pending>,
    tt: Option<TranspositionTable>,
}

fn reply(line: impl Into<String>) -> Action {
    Action::Reply(vec![line.into()])
}

fn error(why: impl AsRef<str>) -> Action {
    reply(format!("ERROR {}", why.as_ref()))
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// Whether a `BOARD`/`YXBOARD` block is open (its lines are not commands).
    pub fn in_board_block(&self) -> bool {
        self.pending.is_some()
    }

    /// Handles a raw input line; bytes that are not UTF-8 are an error.
    pub fn handle_bytes(&mut self, bytes: &[u8], now: Instant) -> Action {
        match std::str::from_utf8(bytes) {
            Ok(line) => self.handle(line, now),
            Err(_) => {
                let why = "input line is not valid UTF-8".to_string();
                if let Some(p) = &mut self.pending {
                    p.error.get_or_insert(why);
                    Action::Reply(Vec::new())
                } else {
                    error(why)
                }
            }
        }
    }

    /// Handles one line read at `now` (the move clock starts then).
    pub fn handle(&mut self, line: &str, now: Instant) -> Action {
        let line = line.trim();
        if line.len() > MAX_LINE {
            return error(format!("line longer than {MAX_LINE} bytes ignored"));
        }
        if self.pending.is_some() {
            return self.board_line(line, now);
        }
        if line.is_empty() {
            return Action::Reply(Vec::new());
        }
        match command::parse(line) {
            Ok(cmd) => self.execute(cmd, now),
            Err(ParseError::Unknown(what)) => reply(format!("UNKNOWN command {what}")),
            Err(ParseError::Malformed(why)) => error(why),
        }
    }

    fn execute(&mut self, cmd: Command, now: Instant) -> Action {
        match cmd {
            Command::Start(n) => self.start(n, n),
            Command::RectStart(w, h) => self.start(w, h),
            Command::Restart => match &self.board {
                Some(b) => {
                    self.board = Some(b.cleared());
                    reply("OK")
                }
                None => error("RESTART before START: no board yet"),
            },
            Command::Begin => match &self.board {
                None => error("BEGIN before START: no board yet"),
                Some(b) if b.stone_count() > 0 => error("BEGIN on a board that is not empty"),
                Some(_) => self.think(now),
            },
            Command::Turn(x, y) => self.turn(x, y, now),
            Command::Board { reply } => {
                if self.board.is_none() {
                    // Still read the block, so its lines are not taken for commands.
                    self.pending = Some(Pending {
                        reply,
                        stones: Vec::new(),
                        error: Some("BOARD before START: no board yet".into()),
                    });
                } else {
                    self.pending = Some(Pending {
                        reply,
                        stones: Vec::new(),
                        error: None,
                    });
                }
                Action::Reply(Vec::new())
            }
            Command::Done => error("DONE without BOARD"),
            Command::Info { key, value } => {
                self.settings.apply(&key, &value);
                Action::Reply(Vec::new())
            }
            Command::Takeback(x, y) => self.takeback(x, y),
            Command::About => reply(response::about()),
            Command::End => Action::Quit,
            Command::Stop => Action::Reply(Vec::new()),
            Command::YxShowForbid => match &mut self.board {
                None => error("YXSHOWFORBID before START: no board yet"),
                Some(b) => reply(response::forbid(&forbidden_points(b))),
            },
            Command::YxHashClear => {
                if let Some(tt) = &mut self.tt {
                    tt.clear();
                }
                reply("MESSAGE Transposition table cleared.")
            }
            Command::YxShowInfo => Action::Reply(response::show_info(self.settings.tt_bytes())),
        }
    }

    fn start(&mut self, w: i64, h: i64) -> Action {
        match Dims::new(w, h) {
            Ok(dims) => {
                self.board = Some(match &self.board {
                    Some(b) if b.dims() == dims => b.cleared(),
                    _ => Board::new(dims),
                });
                reply("OK")
            }
            Err(why) => error(why),
        }
    }

    fn turn(&mut self, x: i64, y: i64, now: Instant) -> Action {
        let Some(board) = &mut self.board else {
            return error("TURN before START: no board yet");
        };
        let p = match board.dims().checked_pos(x, y) {
            Ok(p) => p,
            Err(why) => return error(format!("TURN {why}")),
        };
        if !board.is_empty_at(p) {
            return error(format!("TURN {p}: the cell is not empty"));
        }
        board.play(p);
        self.think(now)
    }

    fn takeback(&mut self, x: i64, y: i64) -> Action {
        let Some(board) = &mut self.board else {
            return error("TAKEBACK before START: no board yet");
        };
        let p = match board.dims().checked_pos(x, y) {
            Ok(p) => p,
            Err(why) => return error(format!("TAKEBACK {why}")),
        };
        match board.last_move() {
            Some(last) if last == p => {
                board.undo();
                reply("OK")
            }
            Some(last) => error(format!("TAKEBACK {p}: the last move is {last}")),
            None => error("TAKEBACK on an empty board"),
        }
    }

    /// One line inside a `BOARD`/`YXBOARD` block.
    fn board_line(&mut self, line: &str, now: Instant) -> Action {
        let pending = self.pending.as_mut().expect("inside a board block");
        if line.is_empty() {
            return Action::Reply(Vec::new());
        }
        let word = line.to_ascii_uppercase();
        if word == "DONE" {
            let pending = self.pending.take().expect("inside a board block");
            return self.board_done(pending, now);
        }
        if word == "END" {
            self.pending = None;
            return Action::Quit;
        }
        if pending.error.is_none() {
            let dims = self.board.as_ref().expect("board exists").dims();
            match parse_stone(line, dims) {
                Ok((p, _)) if pending.stones.iter().any(|&(q, _)| q == p) => {
                    pending.error = Some(format!("BOARD lists {p} twice"));
                }
                Ok(stone) => pending.stones.push(stone),
                Err(why) => {
                    pending.error = Some(format!("BOARD line '{}': {why}", command::shorten(line)))
                }
            }
        }
        Action::Reply(Vec::new())
    }

    fn board_done(&mut self, pending: Pending, now: Instant) -> Action {
        if let Some(why) = pending.error {
            return error(why);
        }
        let old = self.board.as_ref().expect("board exists");
        let own = pending.stones.iter().filter(|s| s.1 == 1).count();
        let opp = pending.stones.iter().filter(|s| s.1 == 2).count();
        let me = if own == opp {
            Color::Black
        } else if opp == own + 1 {
            Color::White
        } else {
            return error(format!(
                "BOARD has {own} own and {opp} opponent stones: the sides do not alternate"
            ));
        };
        let mut board = old.cleared();
        for &(p, f) in &pending.stones {
            match f {
                1 => board.play_as(p, me),
                2 => board.play_as(p, me.opp()),
                _ => board.block(p),
            }
        }
        board.set_to_move(me);
        self.board = Some(board);
        if pending.reply {
            self.think(now)
        } else {
            Action::Reply(Vec::new())
        }
    }

    /// Starts a search for the side to move, or says why there is nothing to search.
    fn think(&mut self, now: Instant) -> Action {
        let Some(board) = &self.board else {
            return error("no board yet: send START first");
        };
        if board.grid().is_full() {
            return error("the board is full: no move left");
        }
        let budget = self.settings.time.budget();
        let deterministic = self.settings.max_depth.is_some() || self.settings.max_nodes.is_some();
        let limits = Limits {
            max_depth: self.settings.max_depth,
            max_nodes: self.settings.max_nodes,
            soft_ms: (!deterministic).then_some(budget.soft_ms),
            hard_ms: (!deterministic).then_some(budget.hard_ms),
        };
        let bytes = self.settings.tt_bytes();
        let tt = match self.tt.take() {
            Some(tt) if tt.slots() == (bytes / ENTRY_BYTES).max(1) => tt,
            _ => TranspositionTable::new(bytes),
        };
        Action::Think(Box::new(Job {
            board: board.clone(),
            rule: self.settings.rule,
            limits,
            tt,
            params: self.settings.params.clone(),
            started: now,
        }))
    }

    /// Takes a finished search back: plays its move and returns the move line. `outcome` is
    /// `None` when the search failed; a legal fallback move is played then.
    pub fn finish(&mut self, job: Box<Job>, outcome: Option<Outcome>) -> Vec<String> {
        let rule = self.settings.rule;
        self.tt = Some(job.tt);
        let Some(board) = &mut self.board else {
            return vec!["ERROR no board".into()];
        };
        // Whatever the search concluded, the answer is checked once more here: on the board,
        // on an empty cell, and (renju) not a foul for black; else a legal fallback is played.
        let best = outcome
            .and_then(|o| o.best)
            .filter(|&p| is_legal(board, rule, p))
            .or_else(|| fallback_move(board, rule));
        match best {
            Some(p) if is_legal(board, rule, p) => {
                board.play(p);
                vec![p.to_string()]
            }
            _ => vec!["ERROR no legal move".into()],
        }
    }

    /// Runs a whole script synchronously, as the binary would with a fast enough search, and
    /// returns every line printed (iteration MESSAGE lines included).
    pub fn run_script(&mut self, input: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for line in input.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match self.handle_bytes(line, Instant::now()) {
                Action::Reply(lines) => out.extend(lines),
                Action::Quit => break,
                Action::Think(mut job) => {
                    let stop = AtomicBool::new(false);
                    let mut messages = response::MessageCollector::default();
                    let outcome = job.run(&stop, &mut messages);
                    out.extend(messages.lines);
                    out.extend(self.finish(job, Some(outcome)));
                }
            }
        }
        out
    }
}

/// Parses a `x,y,field` line of a board block.
fn parse_stone(line: &str, dims: Dims) -> Result<(Pos, u8), String> {
    let nums = crate::geometry::parse_ints(line)?;
    let [x, y, f] = nums[..] else {
        return Err("expected x,y,field".into());
    };
    let p = dims.checked_pos(x, y)?;
    match f {
        1..=3 => Ok((p, f as u8)),
        _ => Err(format!("field {f} is not 1, 2 or 3")),
    }
}

/// Every empty point where black would commit a renju foul, in row order.
pub fn forbidden_points(board: &mut Board) -> Vec<Pos> {
    let dims = board.dims();
    (0..dims.cells())
        .map(|i| dims.pos(i))
        .filter(|&p| board.is_empty_at(p) && renju::foul(board.grid_mut(), p).is_some())
        .collect()
}

/// Whether the side to move may play `p`: on the board, empty, and not a renju foul.
fn is_legal(board: &mut Board, rule: Rule, p: Pos) -> bool {
    let dims = board.dims();
    let me = board.to_move();
    (p.x as usize) < dims.width
        && (p.y as usize) < dims.height
        && board.is_empty_at(p)
        && !rule.is_forbidden(board.grid_mut(), p, me)
}

/// A legal move without search: the best-scored empty cell (used if a search fails).
fn fallback_move(board: &mut Board, rule: Rule) -> Option<Pos> {
    let dims = board.dims();
    let me = board.to_move();
    let mut best: Option<(i32, Pos)> = None;
    for i in 0..dims.cells() {
        let p = dims.pos(i);
        if !board.is_empty_at(p) || rule.is_forbidden(board.grid_mut(), p, me) {
            continue;
        }
        let s = board.gain(me, i) + board.gain(me.opp(), i);
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, p));
        }
    }
    best.map(|(_, p)| p)
}
