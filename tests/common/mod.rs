//! Helpers shared by the integration tests: the `key=value` test-data format.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use wuzi::board::{Board, Color};
use wuzi::geometry::{Dims, Pos};
use wuzi::manager::tactics::parse_point;
use wuzi::rules::Rule;
use wuzi::search::limits::{Clock, Limits};
use wuzi::search::params::Params;
use wuzi::search::tt::TranspositionTable;
use wuzi::search::{Outcome, RootOptions, Search};

struct NoClock;

impl Clock for NoClock {
    fn elapsed_ms(&self) -> u64 {
        0
    }
}

/// A single-threaded search of `board` to `max_nodes` nodes with `params`, no clock: the same
/// result on every machine.
pub fn search_nodes(board: Board, rule: Rule, max_nodes: u64, params: Params) -> Outcome {
    let tt = TranspositionTable::new(16 << 20);
    let stop = AtomicBool::new(false);
    Search {
        board,
        rule,
        limits: Limits {
            max_nodes: Some(max_nodes),
            ..Limits::default()
        },
        params,
        tt: &tt,
        clock: &NoClock,
        stop: &stop,
        options: RootOptions::default(),
    }
    .run(&mut ())
}

/// One test-data line: its `key=value` fields.
pub struct Case {
    pub fields: HashMap<String, String>,
}

impl Case {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    pub fn id(&self) -> &str {
        self.get("id").unwrap_or("?")
    }

    pub fn size(&self) -> usize {
        self.get("size").map_or(15, |s| s.parse().expect("size"))
    }

    /// A point such as `h8` (column letter, row number from the bottom) in protocol coordinates.
    pub fn point(&self, text: &str) -> Pos {
        parse_point(text, self.size()).unwrap_or_else(|| panic!("bad point {text}"))
    }

    pub fn points(&self, key: &str) -> Vec<Pos> {
        match self.get(key) {
            None | Some("-") | Some("") => Vec::new(),
            Some(list) => self.points_in(list),
        }
    }

    /// The points of a comma-separated list such as `h8,i9`.
    pub fn points_in(&self, list: &str) -> Vec<Pos> {
        list.split(',').map(|t| self.point(t)).collect()
    }

    /// The position: black and white stone sets, with `to_move` (or the counts) deciding the side.
    pub fn board(&self) -> Board {
        let size = self.size();
        let mut b = Board::new(Dims::square(size));
        let black = self.points("black");
        let white = self.points("white");
        for &p in &black {
            b.play_as(p, Color::Black);
        }
        for &p in &white {
            b.play_as(p, Color::White);
        }
        let side = match self.get("to_move") {
            Some("white") => Color::White,
            Some("black") => Color::Black,
            _ if black.len() > white.len() => Color::White,
            _ => Color::Black,
        };
        b.set_to_move(side);
        b
    }
}

/// Reads a test-data file: every non-comment line is a case.
pub fn read_cases(path: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| Case {
            fields: l
                .split_whitespace()
                .filter_map(|f| f.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
        .collect()
}

/// One game of `tests/data/rapfi_wins.txt`: a position where the sparring partner announced a
/// forced win right after our move.
pub struct RapfiWin {
    pub id: String,
    pub rule: wuzi::rules::Rule,
    pub size: usize,
    /// The game's moves, opening first, up to and including ours.
    pub moves: Vec<Pos>,
    /// The side to move after them (the partner), as the file says.
    pub to_move: Color,
    /// Whether our search proves the win within its budget today (`solved=yes`).
    pub solved: bool,
}

/// Reads `tests/data/rapfi_wins.txt`.
pub fn rapfi_wins() -> Vec<RapfiWin> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rapfi_wins.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/rapfi_wins.txt");
    let mut games = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let field = |key: &str| {
            line.split_whitespace()
                .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
                .unwrap_or_else(|| panic!("no {key} in {line}"))
        };
        let moves = field("moves")
            .split(';')
            .map(|mv| {
                let (x, y) = mv.split_once(',').expect("x,y");
                Pos::new(x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect();
        games.push(RapfiWin {
            id: field("id").to_string(),
            rule: wuzi::rules::Rule::parse(field("rule")).expect("rule"),
            size: field("size").parse().expect("size"),
            moves,
            to_move: match field("to_move") {
                "black" => Color::Black,
                _ => Color::White,
            },
            solved: field("solved") == "yes",
        });
    }
    games
}
