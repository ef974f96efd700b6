//! Tactics test data (`shared/testdata/vcf_*.txt`, `tactics_*.txt`): one position per line as
//! `key=value` fields, and the judge that says whether an engine's answer keeps the forced win.

use crate::board::{Board, Color};
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;
use crate::search::threats::Solver;

/// One test position: the side to move wins.
#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    pub rule: Rule,
    pub size: usize,
    pub black: Vec<Pos>,
    pub white: Vec<Pos>,
    pub to_move: Color,
    /// `vct`, `vcf`, `vct3`, ... as the file says.
    pub task: String,
    /// Every winning first move, when the file lists them all (`vcf_first=` without `partial`).
    pub all_first: Option<Vec<Pos>>,
}

/// Reads a point such as `h8`: column letter, row number counted from the bottom.
pub fn parse_point(text: &str, size: usize) -> Option<Pos> {
    let col = *text.as_bytes().first()?;
    let row: usize = text.get(1..)?.parse().ok()?;
    let x = col.checked_sub(b'a')? as usize;
    (x < size && (1..=size).contains(&row)).then(|| Pos::new(x, size - row))
}

fn parse_points(text: &str, size: usize) -> Option<Vec<Pos>> {
    if text.is_empty() || text == "-" {
        return Some(Vec::new());
    }
    text.split(',').map(|t| parse_point(t, size)).collect()
}

/// Parses one data line; comments, blank lines, `expect=` other than `win` and malformed
/// lines give `None`.
pub fn parse_case(line: &str) -> Option<Case> {
    if line.trim().is_empty() || line.starts_with('#') {
        return None;
    }
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
    };
    if field("expect") != Some("win") || field("check").is_some_and(|c| c.contains("NOT")) {
        return None;
    }
    let size = field("size").map_or(Some(15), |s| s.parse().ok())?;
    let rule = Rule::parse(field("rule").unwrap_or("freestyle"))?;
    let to_move = match field("to_move")? {
        "black" => Color::Black,
        "white" => Color::White,
        _ => return None,
    };
    let all_first = match (field("vcf_first"), field("vcf_first_partial")) {
        (Some(list), None) => Some(parse_points(list, size)?),
        _ => None,
    };
    Some(Case {
        id: field("id").unwrap_or("?").to_string(),
        rule,
        size,
        black: parse_points(field("black")?, size)?,
        white: parse_points(field("white")?, size)?,
        to_move,
        task: field("task").unwrap_or("?").to_string(),
        all_first,
    })
}

impl Case {
    pub fn board(&self) -> Board {
        let mut b = Board::new(Dims::square(self.size));
        for &p in &self.black {
            b.play_as(p, Color::Black);
        }
        for &p in &self.white {
            b.play_as(p, Color::White);
        }
        b.set_to_move(self.to_move);
        b
    }

    /// The stones as BOARD lines `x,y,field` for an engine that is to move (field 1 = its own),
    /// or `None` when the counts do not tell the colours the way the protocol derives them
    /// (equal counts: black to move; one more black: white to move).
    pub fn board_lines(&self) -> Option<Vec<String>> {
        let (own, opp) = match self.to_move {
            Color::Black => (&self.black, &self.white),
            Color::White => (&self.white, &self.black),
        };
        let fits = match self.to_move {
            Color::Black => own.len() == opp.len(),
            Color::White => opp.len() == own.len() + 1,
        };
        if !fits {
            return None;
        }
        let mut lines = Vec::new();
        for (stones, field) in [(opp, 2), (own, 1)] {
            for p in stones {
                lines.push(format!("{},{},{field}", p.x, p.y));
            }
        }
        Some(lines)
    }
}

/// How an answer was judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// A five, or one of the listed winning first moves.
    Listed,
    /// Not listed: our threat solver proves the win still holds after it. A complete list of
    /// VCF first moves does not cover every win: a quiet move that threatens a VCF may keep it.
    Proved,
    /// Illegal or a foul.
    Wrong,
    /// The solver could not prove the win within its budget.
    Unproved,
}

/// Judges `answer` to `case`: does it keep the side to move's forced win?
pub fn judge(case: &Case, answer: Pos, budget: u64) -> Judgement {
    let mut board = case.board();
    let me = case.to_move;
    if answer.x as usize >= case.size
        || answer.y as usize >= case.size
        || !board.is_empty_at(answer)
    {
        return Judgement::Wrong;
    }
    if case.rule.wins_at(board.grid(), answer, me) {
        return Judgement::Listed;
    }
    if case.rule.is_forbidden(board.grid_mut(), answer, me) {
        return Judgement::Wrong;
    }
    if case
        .all_first
        .as_ref()
        .is_some_and(|list| list.contains(&answer))
    {
        return Judgement::Listed;
    }
    board.play(answer);
    let last = board.dims().index(answer) as u16;
    let mut solver = Solver::new(case.rule);
    // Proofs may follow VCFs as long as the longest in the test files.
    solver.vcf_in_vct = 120;
    match solver.wins_after(&mut board, last, 20, budget) {
        Some(_) => Judgement::Proved,
        None => Judgement::Unproved,
    }
}
