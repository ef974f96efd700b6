//! The protocol state machine: board, settings, pending blocks (`BOARD`, `YXBOARD`, `YXBLOCK`,
//! `SWAP2BOARD`, ignored database blocks) and root exclusions. `handle` turns one manager line
//! into replies or a search job; it does no I/O and starts no threads, so the binary's event
//! loop and the fixture runner drive the very same code.

use crate::clock::Instant;
use std::sync::atomic::AtomicBool;

use super::command::{self, Command, ParseError, Skip};
use super::job::{Answer, Job, Task};
use super::response;
use crate::board::{renju, Board, Color};
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;
use crate::search::limits::Limits;
use crate::search::params::Params;
use crate::search::tt::TranspositionTable;
use crate::search::{strength, Outcome, RootOptions};
use crate::time::TimeSettings;

/// Gomocup's memory limit, assumed when the manager sends none or 0.
pub const DEFAULT_MAX_MEMORY: u64 = 350 << 20;
/// Memory the process needs besides the transposition table (code, stacks, boards).
const BASE_MEMORY: u64 = 24 << 20;
/// Memory each search thread beyond the first needs besides the table.
const THREAD_MEMORY: u64 = 4 << 20;
/// Longest input line we keep; longer ones are answered with an error.
pub const MAX_LINE: usize = 1 << 16;
/// Most search threads `INFO thread_num` may ask for.
pub const MAX_THREADS: u32 = 64;

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
    /// `show_detail` bits: 1 live root marks (`MESSAGE REALTIME`), 2 `INFO PV` blocks.
    pub show_detail: u32,
    /// `strength` 0..=100 (100: full strength).
    pub strength: u32,
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
            show_detail: 0,
            strength: strength::FULL,
            params: Params::default(),
        }
    }
}

impl Settings {
    /// Bytes for the transposition table, so the whole process stays under `max_memory`;
    /// `hash_size` may ask for less.
    pub fn tt_bytes(&self) -> usize {
        let base = BASE_MEMORY + THREAD_MEMORY * (self.threads as u64 - 1);
        let budget = self.max_memory.saturating_sub(base) * 5 / 8;
        let capped = match self.hash_kib {
            Some(kib) => budget.min(kib.saturating_mul(1024)),
            None => budget,
        };
        capped.clamp(1 << 16, 4 << 30) as usize
    }

    /// Applies one INFO key. Unknown keys are ignored (Yixin-Board's `pondering`,
    /// `caution_factor`, `vcthread`, `nbestsym`, `usedatabase` and the like); a known key whose
    /// value is not a number or out of its range changes nothing and gives the reason, naming
    /// the key and the range.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let text = value.trim();
        let num = text.parse::<i64>();
        // The value of a numeric key within `lo..=hi`, or the error that names them.
        let ranged = |lo: i64, hi: i64, what: &str| -> Result<i64, String> {
            match num {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(format!(
                    "INFO {key} {}: {what}",
                    response::printable(text, 40)
                )),
            }
        };
        const MAX: i64 = i64::MAX;
        match key {
            "timeout_turn" => {
                self.time.turn_ms = ranged(0, MAX, "ms a move, 0 or more (0: at once)")?
            }
            "timeout_match" => {
                self.time.match_ms = ranged(0, MAX, "ms a game, 0 or more (0: no limit)")?
            }
            "time_left" => {
                self.time.time_left_ms = Some(ranged(i64::MIN, MAX, "ms left, a whole number")?)
            }
            "time_increment" => {
                self.time.increment_ms = ranged(0, MAX, "ms a move, 0 or more")?;
            }
            "move_overhead" => {
                self.time.overhead_ms = ranged(0, 10_000, "ms kept back a move, 0 to 10000")? as u64
            }
            "turn_reserve" => {
                self.time.reserve_pct =
                    ranged(0, 50, "percent of the turn kept back, 0 to 50")? as u64
            }
            "max_memory" => {
                // 64-bit and unsigned, as the managers send it.
                let v = text.parse::<u64>().map_err(|_| {
                    format!(
                        "INFO {key} {}: bytes, 0 (350 MB) to 18446744073709551615",
                        response::printable(text, 40)
                    )
                })?;
                self.max_memory = if v == 0 { DEFAULT_MAX_MEMORY } else { v };
            }
            "rule" => {
                self.rule = Rule::from_info(ranged(
                    0,
                    15,
                    "0 to 15 (0 freestyle, 1 exact five, 2 or 4 renju, 8 caro, 9 exact-five caro)",
                )?)
            }
            "max_depth" => {
                let v = ranged(-1, MAX, "plies, -1 or 0 for none, or more")?;
                self.max_depth = (v > 0).then_some(v.min(1000) as i32);
            }
            "max_node" => {
                let v = ranged(-1, MAX, "nodes, -1 or 0 for none, or more")?;
                self.max_nodes = (v > 0).then_some(v as u64);
            }
            "thread_num" => {
                let what = format!("threads, 0 to {MAX_THREADS} (0 or 1: one)");
                self.threads = ranged(0, MAX_THREADS as i64, &what)?.max(1) as u32
            }
            "hash_size" => {
                let v = ranged(0, MAX, "KiB, 0 (as max_memory allows) or more")?;
                self.hash_kib = (v > 0).then_some(v as u64);
            }
            "game_type" => self.game_type = ranged(0, 3, "0 to 3")?,
            "show_detail" => self.show_detail = ranged(0, 3, "0 to 3 (bits)")? as u32,
            "strength" => {
                let what = format!("0 to {}", strength::FULL);
                self.strength = ranged(0, strength::FULL as i64, &what)? as u32
            }
            "folder" => self.folder = Some(value.to_string()),
            _ if key.starts_with("wuzi_") => {
                let name = &key["wuzi_".len()..];
                let v = ranged(i64::MIN, MAX, "a whole number")?;
                if !self.params.set(name, v) {
                    return Err(format!(
                        "INFO {key} {v}: no such tunable, or the value is out of its range"
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// What the caller does after a line.
pub enum Action {
    /// Print these lines (possibly none).
    Reply(Vec<String>),
    /// Run this search, then pass its answer to `Session::finish`.
    Think(Box<Job>),
    /// Exit: print nothing more.
    Quit,
}

/// What the lines of an open block are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    /// `BOARD` (then a move) or `YXBOARD`: `x,y,field` lines.
    Position { reply: bool },
    /// `YXBLOCK` / `YXBLOCKUNDO`: `x,y` cells to exclude from the root, or no longer.
    Exclude { undo: bool },
    /// `SWAP2BOARD`: the opening's `x,y` stones in order.
    Swap2,
    /// An ignored command's lines.
    Skip,
}

/// The lines of a block gathered until `DONE`.
struct Pending {
    kind: BlockKind,
    /// The command that opened it, for error messages.
    name: &'static str,
    stones: Vec<(Pos, u8)>,
    error: Option<String>,
}

/// Invariant: `board` is `None` only before the first valid START/RECTSTART.
#[derive(Default)]
pub struct Session {
    board: Option<Board>,
    pub settings: Settings,
    pending: Option<Pending>,
    /// The next line is an ignored command's argument (a file name).
    skip_line: bool,
    /// Cells the root may not play (`YXBLOCK`), kept until `YXBLOCKRESET` or a new board size.
    excluded: Vec<Pos>,
    tt: Option<TranspositionTable>,
    /// Moves answered so far: with the position, it seeds the choice of a weakened move.
    answered: u64,
}

fn reply(line: impl Into<String>) -> Action {
    Action::Reply(vec![line.into()])
}

/// Replies quote the input: at most this many characters of it, control characters escaped.
const QUOTE_CHARS: usize = 200;

fn error(why: impl AsRef<str>) -> Action {
    reply(format!(
        "ERROR {}",
        response::printable(why.as_ref(), QUOTE_CHARS)
    ))
}

fn nothing() -> Action {
    Action::Reply(Vec::new())
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// Whether the lines now coming belong to an open block (they are not commands).
    pub fn in_block(&self) -> bool {
        self.pending.is_some() || self.skip_line
    }

    /// Handles a raw input line; bytes that are not UTF-8 are an error.
    pub fn handle_bytes(&mut self, bytes: &[u8], now: Instant) -> Action {
        match std::str::from_utf8(bytes) {
            Ok(line) => self.handle(line, now),
            Err(_) => {
                let why = "input line is not valid UTF-8".to_string();
                if let Some(p) = &mut self.pending {
                    p.error.get_or_insert(why);
                    nothing()
                } else if std::mem::take(&mut self.skip_line) {
                    nothing()
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
            return self.block_line(line, now);
        }
        if line.is_empty() {
            return nothing();
        }
        if std::mem::take(&mut self.skip_line) {
            return nothing();
        }
        match command::parse(line) {
            Ok(cmd) => self.execute(cmd, now),
            Err(ParseError::Unknown(what)) => reply(format!(
                "UNKNOWN command {}",
                response::printable(&what, QUOTE_CHARS)
            )),
            Err(ParseError::Malformed(why)) => error(why),
        }
    }

    fn open(&mut self, kind: BlockKind, name: &'static str) {
        let error = match (&self.board, kind) {
            (None, BlockKind::Skip) | (Some(_), _) => None,
            (None, _) => Some(format!("{name} before START: no board yet")),
        };
        // A block is read to its DONE even when it cannot be used, so that its lines are never
        // taken for commands.
        self.pending = Some(Pending {
            kind,
            name,
            stones: Vec::new(),
            error,
        });
    }

    fn execute(&mut self, cmd: Command, now: Instant) -> Action {
        match cmd {
            Command::Start(w, h) | Command::RectStart(w, h) => self.start(w, h),
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
                Some(_) => self.think(Task::Play, now),
            },
            Command::Turn(x, y) => self.turn(x, y, now),
            Command::Board { reply } => {
                let name = if reply { "BOARD" } else { "YXBOARD" };
                self.open(BlockKind::Position { reply }, name);
                nothing()
            }
            Command::Done => error("DONE without BOARD"),
            Command::Info { key, value } => match self.settings.apply(&key, &value) {
                Ok(()) => nothing(),
                Err(why) => error(why),
            },
            Command::Takeback(x, y) => self.takeback(x, y),
            Command::About => reply(response::about()),
            Command::End => Action::Quit,
            Command::Stop => nothing(),
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
            Command::YxShowHashUsage => {
                let permille = self.tt.as_ref().map_or(0, |tt| tt.usage_permille());
                reply(format!(
                    "MESSAGE Hash usage: {}.{}%",
                    permille / 10,
                    permille % 10
                ))
            }
            Command::YxBlock { undo } => {
                let name = if undo { "YXBLOCKUNDO" } else { "YXBLOCK" };
                self.open(BlockKind::Exclude { undo }, name);
                nothing()
            }
            Command::YxBlockReset => {
                self.excluded.clear();
                nothing()
            }
            Command::YxNbest(n) => self.analyse(Task::Nbest(n), "YXNBEST", now),
            Command::YxSearchDefend => self.analyse(Task::Defend, "YXSEARCHDEFEND", now),
            Command::Swap2Board => {
                self.open(BlockKind::Swap2, "SWAP2BOARD");
                nothing()
            }
            Command::Ignored { skip } => {
                match skip {
                    Skip::Line => {}
                    Skip::NextLine => self.skip_line = true,
                    Skip::Block => self.open(BlockKind::Skip, "ignored block"),
                }
                nothing()
            }
        }
    }

    fn start(&mut self, w: i64, h: i64) -> Action {
        match Dims::new(w, h) {
            Ok(dims) => {
                self.board = Some(match &self.board {
                    Some(b) if b.dims() == dims => b.cleared(),
                    _ => {
                        self.excluded.clear();
                        Board::new(dims)
                    }
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
        self.think(Task::Play, now)
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

    /// An analysis request on the current position (the side to move as the board says).
    fn analyse(&mut self, task: Task, name: &str, now: Instant) -> Action {
        if self.board.is_none() {
            return error(format!("{name} before START: no board yet"));
        }
        self.think(task, now)
    }

    /// One line inside an open block.
    fn block_line(&mut self, line: &str, now: Instant) -> Action {
        let pending = self.pending.as_mut().expect("inside a block");
        if line.is_empty() {
            return nothing();
        }
        let word = line.to_ascii_uppercase();
        if word == "DONE" {
            let pending = self.pending.take().expect("inside a block");
            return self.block_done(pending, now);
        }
        if word == "END" {
            self.pending = None;
            return Action::Quit;
        }
        if pending.error.is_some() || pending.kind == BlockKind::Skip {
            return nothing();
        }
        let dims = self.board.as_ref().expect("a board when no error").dims();
        let with_field = matches!(pending.kind, BlockKind::Position { .. });
        let name = pending.name;
        match parse_stone(line, dims, with_field) {
            Ok((p, _)) if pending.stones.iter().any(|&(q, _)| q == p) => {
                pending.error = Some(format!("{name} lists {p} twice"));
            }
            Ok(stone) => pending.stones.push(stone),
            Err(why) => {
                let line = command::shorten(line);
                pending.error = Some(format!("{name} line '{line}': {why}"));
            }
        }
        nothing()
    }

    fn block_done(&mut self, pending: Pending, now: Instant) -> Action {
        if let Some(why) = pending.error {
            return error(why);
        }
        match pending.kind {
            BlockKind::Skip => nothing(),
            BlockKind::Exclude { undo } => {
                for (p, _) in pending.stones {
                    self.excluded.retain(|&q| q != p);
                    if !undo {
                        self.excluded.push(p);
                    }
                }
                nothing()
            }
            BlockKind::Swap2 => {
                let old = self.board.as_ref().expect("board exists");
                if !matches!(pending.stones.len(), 0 | 3 | 5) {
                    return error(format!(
                        "SWAP2BOARD takes 0, 3 or 5 stones, not {}",
                        pending.stones.len()
                    ));
                }
                let mut board = old.cleared();
                for &(p, _) in &pending.stones {
                    board.play(p);
                }
                self.board = Some(board);
                self.think(Task::Swap2, now)
            }
            BlockKind::Position { reply } => {
                let mut board = self.board.as_ref().expect("board exists").cleared();
                let me = own_colour(&pending.stones);
                for &(p, f) in &pending.stones {
                    match f {
                        1 => board.play_as(p, me),
                        2 => board.play_as(p, me.opp()),
                        _ => board.block(p),
                    }
                }
                board.set_to_move(me);
                self.board = Some(board);
                if reply {
                    self.think(Task::Play, now)
                } else {
                    nothing()
                }
            }
        }
    }

    /// Starts a search for the side to move, or says why there is nothing to search.
    fn think(&mut self, task: Task, now: Instant) -> Action {
        let Some(board) = &self.board else {
            return error("no board yet: send START first");
        };
        if board.grid().is_full() {
            return error("the board is full: no move left");
        }
        let s = &self.settings;
        // Time always bounds the search; INFO max_depth and max_node are caps on top of it
        // (a fixture is deterministic when its caps are reached well within the time).
        let dims = board.dims();
        let empty = (0..dims.cells())
            .filter(|&i| board.is_empty_index(i))
            .count();
        let budget = s.time.budget(
            board.stone_count(),
            empty,
            s.params.time_togo,
            s.params.time_floor,
        );
        let weak_depth = strength::max_depth(s.strength);
        let limits = Limits {
            max_depth: match (s.max_depth, weak_depth) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            max_nodes: s.max_nodes,
            soft_ms: Some(if budget.adaptive {
                budget.soft_ms
            } else {
                budget.soft_ms * s.params.soft_percent / 100
            }),
            hard_ms: Some(budget.hard_ms),
            adaptive: budget.adaptive,
        };
        let lines = match task {
            Task::Nbest(n) => n as usize,
            _ => strength::lines(s.strength),
        };
        let options = RootOptions {
            excluded: self.excluded.clone(),
            lines,
            defend: task == Task::Defend,
            decided_lines: matches!(task, Task::Nbest(_)),
            threads: s.threads as usize,
        };
        let bytes = s.tt_bytes();
        let tt = match self.tt.take() {
            Some(tt) if tt.fits(bytes) => tt,
            _ => TranspositionTable::new(bytes),
        };
        Action::Think(Box::new(Job {
            board: board.clone(),
            rule: s.rule,
            limits,
            tt,
            params: s.params.clone(),
            options,
            task,
            strength: s.strength,
            detail: s.show_detail,
            started: now,
        }))
    }

    /// Takes a finished job back and returns the lines that answer it: a swap2 decision, or
    /// the move (played on the board). `answer` is `None` when the search failed; a legal
    /// fallback move is played then.
    pub fn finish(&mut self, job: Box<Job>, answer: Option<Answer>) -> Vec<String> {
        let rule = self.settings.rule;
        let Job {
            tt, strength, task, ..
        } = *job;
        self.tt = Some(tt);
        let Some(board) = &mut self.board else {
            return vec!["ERROR no board".into()];
        };
        let outcome: Option<Outcome> = match answer {
            Some(Answer::Swap2(d)) => return vec![d.text()],
            Some(Answer::Move(o)) => Some(o),
            None => None,
        };
        let mut lines = Vec::new();
        if let (Task::Defend, Some(o)) = (task, &outcome) {
            lines.extend(response::defences(o));
        }
        self.answered += 1;
        let seed = board.key() ^ self.answered.wrapping_mul(0xA076_1D64_78BD_642F);
        let chosen = outcome.and_then(|o| strength::choose(&o, strength, seed));
        // Whatever the search concluded, the answer is checked once more here: on the board,
        // on an empty cell, and (renju) not a foul for black; else a legal fallback is played.
        let best = chosen
            .filter(|&p| is_legal(board, rule, p))
            .or_else(|| fallback_move(board, rule));
        match best {
            Some(p) if is_legal(board, rule, p) => {
                board.play(p);
                lines.push(p.to_string());
            }
            _ => lines.push("ERROR no legal move".into()),
        }
        lines
    }

    /// Runs a whole script synchronously, as the binary would with a fast enough search, and
    /// returns every line printed (progress lines included).
    pub fn run_script(&mut self, input: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for line in input.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match self.handle_bytes(line, Instant::now()) {
                Action::Reply(lines) => out.extend(lines),
                Action::Quit => break,
                Action::Think(mut job) => {
                    let stop = AtomicBool::new(false);
                    let mut progress = response::Progress::new(job.detail, |l| out.push(l));
                    let answer = job.run(&stop, &mut progress);
                    out.extend(self.finish(job, Some(answer)));
                }
            }
        }
        out
    }
}

/// The colour of the side to move from a position's `field` 1 (own) and 2 (opponent) stones:
/// equal counts, black; one opponent stone more, white (`shared/protocol.md` §3). A set
/// position whose counts do not alternate is read in move order: the first stone is black.
fn own_colour(stones: &[(Pos, u8)]) -> Color {
    let own = stones.iter().filter(|s| s.1 == 1).count();
    let opp = stones.iter().filter(|s| s.1 == 2).count();
    if own == opp {
        Color::Black
    } else if opp == own + 1 {
        Color::White
    } else {
        match stones.iter().find(|s| s.1 != 3) {
            Some(&(_, 2)) => Color::White,
            _ => Color::Black,
        }
    }
}

/// Parses a block line: `x,y,field` (`with_field`) or `x,y`.
fn parse_stone(line: &str, dims: Dims, with_field: bool) -> Result<(Pos, u8), String> {
    let nums = crate::geometry::parse_ints(line)?;
    match (with_field, &nums[..]) {
        (true, &[x, y, f]) => {
            let p = dims.checked_pos(x, y)?;
            match f {
                1..=3 => Ok((p, f as u8)),
                _ => Err(format!("field {f} is not 1, 2 or 3")),
            }
        }
        (false, &[x, y]) => Ok((dims.checked_pos(x, y)?, 0)),
        (true, _) => Err("expected x,y,field".into()),
        (false, _) => Err("expected x,y".into()),
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
