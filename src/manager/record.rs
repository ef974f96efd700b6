//! Game records: one readable line per game, SGF, and Piskvork's `.psq`.

use super::game::{GameConfig, GameRecord};
use crate::board::Color;
use crate::geometry::{Dims, Pos};

/// "1-0" (black won), "0-1" (white won) or "1/2-1/2".
pub fn result_text(r: &GameRecord) -> &'static str {
    match r.winner {
        Some(Color::Black) => "1-0",
        Some(Color::White) => "0-1",
        None => "1/2-1/2",
    }
}

fn join(moves: &[Pos]) -> String {
    moves
        .iter()
        .map(Pos::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One line: game number, engines, rule and board, opening, moves with their times in ms,
/// result and reason; then the engines' evaluations of their moves (`-` for none), if any gave
/// one.
pub fn line(n: usize, black: &str, white: &str, cfg: &GameConfig, r: &GameRecord) -> String {
    let times: Vec<String> = r.times_ms.iter().map(u64::to_string).collect();
    let evals = if r.evals.iter().any(Option::is_some) {
        let e: Vec<&str> = r
            .evals
            .iter()
            .map(|e| e.as_deref().unwrap_or("-"))
            .collect();
        format!(" evals=\"{}\"", e.join(" "))
    } else {
        String::new()
    };
    format!(
        "game={n} black={black} white={white} rule={} size={}x{} result={} reason=\"{}\" opening=\"{}\" moves=\"{}\" times=\"{}\"{evals}",
        cfg.rule.name(),
        cfg.dims.width,
        cfg.dims.height,
        result_text(r),
        r.reason.replace('"', "'"),
        join(&r.opening),
        join(&r.moves),
        times.join(" ")
    )
}

fn sgf_coord(p: Pos) -> String {
    let c = |v: u8| (if v < 26 { b'a' + v } else { b'A' + v - 26 }) as char;
    format!("{}{}", c(p.x), c(p.y))
}

/// The game as SGF (GM[4]), the opening included as ordinary moves.
pub fn sgf(dims: Dims, black: &str, white: &str, r: &GameRecord) -> String {
    let size = if dims.width == dims.height {
        dims.width.to_string()
    } else {
        format!("{}:{}", dims.width, dims.height)
    };
    let re = match r.winner {
        Some(Color::Black) => "B+",
        Some(Color::White) => "W+",
        None => "0",
    };
    let mut s = format!(
        "(;GM[4]FF[4]SZ[{size}]PB[{black}]PW[{white}]RE[{re}]C[{}]",
        r.reason.replace(']', ")")
    );
    for (k, &p) in r.opening.iter().chain(&r.moves).enumerate() {
        s += &format!(";{}[{}]", if k % 2 == 0 { "B" } else { "W" }, sgf_coord(p));
    }
    s.push_str(")\n");
    s
}

/// The game in Piskvork's `.psq` layout: 1-based `x,y,ms` lines after the header.
pub fn psq(dims: Dims, black: &str, white: &str, r: &GameRecord) -> String {
    let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", dims.width, dims.height);
    for p in &r.opening {
        s += &format!("{},{},0\n", p.x + 1, p.y + 1);
    }
    for (k, p) in r.moves.iter().enumerate() {
        let ms = r.times_ms.get(k).copied().unwrap_or(0);
        s += &format!("{},{},{ms}\n", p.x + 1, p.y + 1);
    }
    s += &format!("-1\n{black}\n{white}\n-1\n");
    s
}

/// A game read back from a record line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadGame {
    pub rule: crate::rules::Rule,
    pub dims: Dims,
    /// The opening stones, then the moves, black first.
    pub opening: Vec<Pos>,
    pub moves: Vec<Pos>,
    pub winner: Option<Color>,
    pub reason: String,
    /// `wuzi-tune label`'s search score (for the side to move) of the position before each
    /// move, where it searched it (the optional `scores` field, `-` for none).
    pub scores: Vec<Option<i32>>,
    /// The engines' names (`black=`, `white=`; empty where the line has none).
    pub black: String,
    pub white: String,
    /// The mover's own evaluation of each move after the opening (the optional `evals` field,
    /// `None` for `-`).
    pub evals: Vec<Option<String>>,
}

/// The value of `key="…"` or `key=…` in a record line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!(" {key}="))? + key.len() + 2;
    let rest = &line[at..];
    match rest.strip_prefix('"') {
        Some(q) => q.find('"').map(|end| &q[..end]),
        None => rest.split(' ').next(),
    }
}

/// Reads a line written by `line` (`None` if it is not one).
pub fn parse_line(line: &str) -> Option<ReadGame> {
    let line = format!(" {}", line.trim());
    let rule = crate::rules::Rule::parse(field(&line, "rule")?)?;
    let (w, h) = field(&line, "size")?.split_once('x')?;
    let dims = Dims::new(w.parse().ok()?, h.parse().ok()?).ok()?;
    let points = |key: &str| -> Option<Vec<Pos>> {
        field(&line, key)?
            .split_whitespace()
            .map(|t| dims.parse_pos(t).ok())
            .collect()
    };
    let winner = match field(&line, "result")? {
        "1-0" => Some(Color::Black),
        "0-1" => Some(Color::White),
        "1/2-1/2" => None,
        _ => return None,
    };
    Some(ReadGame {
        rule,
        dims,
        opening: points("opening")?,
        moves: points("moves")?,
        winner,
        reason: field(&line, "reason")?.to_string(),
        scores: field(&line, "scores").map_or_else(Vec::new, |s| {
            s.split_whitespace().map(|v| v.parse().ok()).collect()
        }),
        black: field(&line, "black").unwrap_or("").to_string(),
        white: field(&line, "white").unwrap_or("").to_string(),
        evals: field(&line, "evals").map_or_else(Vec::new, |s| {
            s.split_whitespace()
                .map(|v| (v != "-").then(|| v.to_string()))
                .collect()
        }),
    })
}
