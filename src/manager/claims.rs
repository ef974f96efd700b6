//! Forced-win claims, checked: the positions where an engine reported a forced win for its
//! move (read from game records), and a reference search that confirms or refutes each claim.
//!
//! The reference is pbrain-wuzi itself, searching the claimed position on a larger budget:
//! either the playing search with every defence searched (`DEEP`: no defence set, `defend` 0),
//! or a full-width search (`FULL_WIDTH`: every candidate move at every node, no reductions, no
//! pruning, no threat solver, no pattern shortcut to a win, so a mate score comes only from
//! fives on the board within the depth searched). It confirms a claim when it finds the same
//! win. It proves one false when it finds a win for the other side, or, full-width only, when it
//! finishes a depth that covers the claimed length without a win (a selective search can miss a
//! win at any depth: its silence leaves a claim unconfirmed, not false).

use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};

use super::engine::Engine;
use super::game::Eval;
use super::record::ReadGame;
use crate::geometry::{Dims, Pos};
use crate::rules::Rule;

/// The `INFO wuzi_KEY VALUE` settings of the full-width reference: every move at every
/// node, no reduction or pruning, no threat solver, no shortcut to a win from the patterns.
pub const FULL_WIDTH: &[(&str, i64)] = &[
    ("defend", 0),
    ("mcp", 0),
    ("prune", 0),
    ("beam", 1000),
    ("beam_per_depth", 0),
    ("lmr_log", 0),
    ("lmr_depth", 1000),
    ("root_lmr", 0),
    ("lmr_policy", 0),
    ("policy_prune", 0),
    ("frontier_fours", 0),
    ("se_depth", 0),
    ("nmp_depth", 0),
    ("razor_depth", 0),
    ("rfp_depth", 0),
    ("iir_depth", 0),
    ("alpha_raise", 0),
    ("fhr_margin", 0),
    ("quick_win", 0),
    ("qfours", 0),
    ("qvcf_nodes", 0),
    ("root_vcf_nodes", 0),
    ("root_vct_nodes", 0),
    ("guard_share", 0),
];

/// The settings of the deep reference: the playing search, but every node searches every
/// move against a threat (no defence set: `defend` 0), on a much larger budget.
pub const DEEP: &[(&str, i64)] = &[("defend", 0)];

/// A position given as the moves that made it (black first) under a rule, with a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub rule: Rule,
    pub dims: Dims,
    pub moves: Vec<Pos>,
    pub label: String,
}

/// The value of `key="…"` or `key=…` in a line of `key=value` fields.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = if line.starts_with(&format!("{key}=")) {
        key.len() + 1
    } else {
        line.find(&format!(" {key}="))? + key.len() + 2
    };
    let rest = &line[at..];
    match rest.strip_prefix('"') {
        Some(q) => q.find('"').map(|end| &q[..end]),
        None => rest.split(' ').next(),
    }
}

impl Position {
    /// Reads `rule=R size=WxH moves="x,y x,y …" [label="…"]`; `None` for a comment (`#`), a
    /// blank line or a line that is not one.
    pub fn parse(line: &str) -> Option<Position> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let rule = Rule::parse(field(line, "rule")?)?;
        let (w, h) = field(line, "size")?.split_once('x')?;
        let dims = Dims::new(w.parse().ok()?, h.parse().ok()?).ok()?;
        let moves = field(line, "moves")?
            .split_whitespace()
            .map(|t| dims.parse_pos(t).ok())
            .collect::<Option<Vec<Pos>>>()?;
        let label = field(line, "label").unwrap_or("").to_string();
        Some(Position {
            rule,
            dims,
            moves,
            label,
        })
    }

    /// The line `parse` reads.
    pub fn line(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(Pos::to_string).collect();
        format!(
            "rule={} size={}x{} moves=\"{}\" label=\"{}\"",
            self.rule.name(),
            self.dims.width,
            self.dims.height,
            moves.join(" "),
            self.label
        )
    }

    /// The commands that set the position up for an engine to move in it: START (or
    /// RECTSTART), the rule, then BOARD with its stones in move order.
    pub fn setup(&self) -> Vec<String> {
        let d = self.dims;
        let mut out = vec![if d.width == d.height {
            format!("START {}", d.width)
        } else {
            format!("RECTSTART {},{}", d.width, d.height)
        }];
        out.push(format!("INFO rule {}", self.rule.info_value()));
        out.push("BOARD".to_string());
        let n = self.moves.len();
        for (k, p) in self.moves.iter().enumerate() {
            // Field 1 is the side to move's stone: the last stone is the opponent's.
            let own = (n - k) % 2 == 0;
            out.push(format!("{},{},{}", p.x, p.y, if own { 1 } else { 2 }));
        }
        out.push("DONE".to_string());
        out
    }
}

/// The positions of `game` before each move of the engine called `name` whose reported
/// evaluation was a forced win, with the claimed plies; only the first claim of the game
/// with `first_only`.
pub fn claims_in(game: &ReadGame, name: &str, first_only: bool) -> Vec<(Position, i32)> {
    let mut out = Vec::new();
    let mut moves = game.opening.clone();
    for (k, &mv) in game.moves.iter().enumerate() {
        let black = moves.len() % 2 == 0;
        let mover = if black { &game.black } else { &game.white };
        let eval = game
            .evals
            .get(k)
            .and_then(|e| e.as_deref().and_then(Eval::parse));
        if let (true, Some(Eval::Mate(plies))) = (mover == name, eval) {
            if plies > 0 {
                out.push((
                    Position {
                        rule: game.rule,
                        dims: game.dims,
                        moves: moves.clone(),
                        label: format!("claimed +M{plies} with {mv}"),
                    },
                    plies,
                ));
                if first_only {
                    break;
                }
            }
        }
        moves.push(mv);
    }
    out
}

/// The deepest search report among an engine's messages (`depth D score S …`): its depth and
/// score.
pub fn deepest_report(messages: &[String]) -> Option<(u32, Eval)> {
    let mut best: Option<(u32, Eval)> = None;
    for m in messages {
        let mut words = m.split_whitespace();
        if words.next() != Some("depth") {
            continue;
        }
        let Some(depth) = words.next().and_then(|d| d.parse::<u32>().ok()) else {
            continue;
        };
        if words.next() != Some("score") {
            continue;
        }
        let Some(score) = words.next().and_then(Eval::parse) else {
            continue;
        };
        if best.is_none_or(|(d, _)| depth >= d) {
            best = Some((depth, score));
        }
    }
    best
}

/// What the reference says of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// It found a forced win for the claimer too (in this many plies).
    Confirmed(i32),
    /// It found a forced win for the other side.
    Lost(i32),
    /// Full-width, it finished this depth, enough to see the claimed win, and saw none.
    Refuted(u32),
    /// Selective, it finished this depth, at least the claimed length, and saw no win.
    Unconfirmed(u32),
    /// It reached this depth only: the claim is too long for its budget.
    Undecided(u32),
}

impl Check {
    /// Whether the reference proves the claim wrong.
    pub fn is_false(self) -> bool {
        matches!(self, Check::Lost(_) | Check::Refuted(_))
    }
}

/// The reference's verdict on a claim of a win in `plies` plies, from its deepest report.
/// A full-width depth-`d` iteration sees every five made within `d + 1` plies (a five point at
/// its horizon is still played).
pub fn judge(report: Option<(u32, Eval)>, plies: i32, full_width: bool) -> Check {
    match report {
        Some((_, Eval::Mate(n))) if n > 0 => Check::Confirmed(n),
        Some((_, Eval::Mate(n))) => Check::Lost(-n),
        Some((d, Eval::Score(_))) if d as i64 + 1 >= plies as i64 => {
            if full_width {
                Check::Refuted(d)
            } else {
                Check::Unconfirmed(d)
            }
        }
        Some((d, _)) => Check::Undecided(d),
        None => Check::Undecided(0),
    }
}

/// Sets up `pos` in `engine`, sends `infos` (`INFO` lines without the word) and a node
/// budget, and waits for its move: the move and the deepest report.
pub fn search(
    engine: &mut Engine,
    pos: &Position,
    infos: &[String],
    nodes: u64,
    timeout: Duration,
) -> Result<(String, Option<(u32, Eval)>)> {
    let fail = |e: super::engine::Failure| anyhow!("{}: {}", engine_name(pos), e.describe());
    engine.drain();
    let deadline = Instant::now() + timeout;
    let mut messages = Vec::new();
    let setup = pos.setup();
    engine.send(&setup[0]).map_err(fail)?;
    let ok = engine.answer(deadline, &mut messages).map_err(fail)?;
    if !ok.eq_ignore_ascii_case("OK") {
        bail!("the engine answered {ok:?} to {}", setup[0]);
    }
    engine
        .send(&format!("INFO timeout_turn {}", timeout.as_millis()))
        .map_err(fail)?;
    engine
        .send(&format!("INFO max_node {nodes}"))
        .map_err(fail)?;
    for line in infos {
        engine.send(&format!("INFO {line}")).map_err(fail)?;
    }
    for line in &setup[1..] {
        engine.send(line).map_err(fail)?;
    }
    messages.clear();
    let mv = engine
        .answer(deadline + Duration::from_secs(5), &mut messages)
        .map_err(fail)?;
    Ok((mv, deepest_report(&messages)))
}

fn engine_name(pos: &Position) -> String {
    format!("position {}", pos.label)
}

/// A reference's settings as `INFO` lines (without the word).
pub fn reference_infos(settings: &[(&str, i64)]) -> Vec<String> {
    settings
        .iter()
        .map(|(k, v)| format!("wuzi_{k} {v}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_read_back_what_they_write() {
        let line = "rule=renju size=15x15 moves=\"7,7 8,8 9,9\" label=\"a test\"";
        let p = Position::parse(line).unwrap();
        assert_eq!(p.rule, Rule::Renju);
        assert_eq!(p.moves.len(), 3);
        assert_eq!(Position::parse(&p.line()), Some(p.clone()));
        // The side to move (black, after three stones... white) owns field 1.
        let setup = p.setup();
        assert_eq!(setup[0], "START 15");
        assert_eq!(setup[1], "INFO rule 4");
        assert_eq!(&setup[3..6], ["7,7,2", "8,8,1", "9,9,2"]);
        assert!(Position::parse("# a comment").is_none());
        assert!(Position::parse("rule=freestyle size=15x15 moves=\"99,1\"").is_none());
    }

    #[test]
    fn claims_come_from_the_named_engines_mate_scores() {
        let line = "game=1 black=new white=old rule=freestyle size=15x15 result=0-1 reason=\"five\" opening=\"7,7 8,8\" moves=\"9,9 10,10 6,6 11,11\" times=\"1 1 1 1\" evals=\"40 +M9 -M8 +M7\"";
        let game = super::super::record::parse_line(line).unwrap();
        let claims = claims_in(&game, "old", false);
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].1, 9);
        assert_eq!(
            claims[0].0.moves.len(),
            3,
            "the position before old's move 10,10"
        );
        assert_eq!(claims_in(&game, "old", true).len(), 1);
        assert!(claims_in(&game, "new", false).is_empty(), "-M8 is no claim");
    }

    #[test]
    fn the_reference_verdicts() {
        let msgs = [
            "depth 9 score 40 nodes 1 nps 1 time 1 pv 7,7".to_string(),
            "depth 10 score -12 nodes 2 nps 1 time 1 pv 7,7".to_string(),
            "a note".to_string(),
        ];
        let r = deepest_report(&msgs);
        assert_eq!(r, Some((10, Eval::Score(-12))));
        assert_eq!(judge(r, 11, true), Check::Refuted(10));
        assert_eq!(judge(r, 11, false), Check::Unconfirmed(10));
        assert!(!Check::Unconfirmed(10).is_false());
        assert_eq!(judge(r, 13, true), Check::Undecided(10));
        assert_eq!(
            judge(Some((7, Eval::Mate(9))), 11, false),
            Check::Confirmed(9)
        );
        assert_eq!(judge(Some((7, Eval::Mate(-4))), 11, false), Check::Lost(4));
        assert!(judge(Some((7, Eval::Mate(-4))), 11, true).is_false());
        assert!(!judge(None, 3, true).is_false());
    }
}
