//! ASCII board diagrams for tests and debugging: `X` black, `O` white, `.` empty, `#` blocked,
//! one row per line from the top; spaces are ignored.

use super::{Board, Cell, Color};
use crate::geometry::{Dims, Pos};

/// Builds a board from a diagram; black is to move when the stone counts are equal.
/// Stones enter the history row by row, black and white alternating where they can.
pub fn parse(text: &str) -> Result<Board, String> {
    let rows: Vec<Vec<char>> = text
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    let height = rows.len();
    let width = rows.first().map_or(0, |r| r.len());
    if rows.iter().any(|r| r.len() != width) {
        return Err("diagram rows differ in length".into());
    }
    let dims = Dims::new(width as i64, height as i64)?;
    let mut stones = [Vec::new(), Vec::new()];
    let mut blocked = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.iter().enumerate() {
            let p = Pos::new(x, y);
            match ch {
                'X' | 'x' => stones[0].push(p),
                'O' | 'o' => stones[1].push(p),
                '#' => blocked.push(p),
                '.' | '+' => {}
                other => return Err(format!("unexpected '{other}' in diagram")),
            }
        }
    }
    let mut board = Board::new(dims);
    for p in blocked {
        board.block(p);
    }
    let (nb, nw) = (stones[0].len(), stones[1].len());
    let mut turn = Color::Black;
    let mut next = [0usize, 0usize];
    while next[0] < nb || next[1] < nw {
        if next[turn.index()] == stones[turn.index()].len() {
            turn = turn.opp();
        }
        let p = stones[turn.index()][next[turn.index()]];
        next[turn.index()] += 1;
        board.play_as(p, turn);
        turn = turn.opp();
    }
    board.set_to_move(if nb > nw { Color::White } else { Color::Black });
    Ok(board)
}

/// Renders a board as a diagram `parse` reads back.
pub fn render(board: &Board) -> String {
    let d = board.dims();
    let mut out = String::new();
    for y in 0..d.height {
        let row: Vec<&str> = (0..d.width)
            .map(|x| match board.cell(Pos::new(x, y)) {
                Cell::Black => "X",
                Cell::White => "O",
                Cell::Blocked => "#",
                _ => ".",
            })
            .collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    out
}
