//! Self-play games for training data (`wuzi-datagen`): from a random scattered opening, a
//! little randomness in the first moves after it, each position scored by a search of a fixed
//! node budget several times the one that plays the move. Deterministic: a game depends only on
//! the run's seed, its index and the budgets (one thread, a cleared table for each game, no
//! clock), so any split of a run into shards makes the same games.

use std::sync::atomic::AtomicBool;

use super::data::{label, GameRecord, Label, FORCED};
use super::Rng;
use crate::board::{Board, Color};
use crate::geometry::{Dims, Pos};
use crate::manager::openings;
use crate::rules::{Rule, Verdict};
use crate::search::limits::{Clock, Limits};
use crate::search::params::Params;
use crate::search::tt::TranspositionTable;
use crate::search::{Outcome, RootOptions, Search};

/// What a run plays.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Nodes of the search that chooses each move.
    pub play_nodes: u64,
    /// Nodes of the search whose score labels each position (0: the playing search's).
    pub score_nodes: u64,
    /// Moves after the opening chosen at random among the near-best lines.
    pub random_moves: usize,
    /// How far below the best line (in score) a random move may be.
    pub random_margin: i32,
    pub tt_bytes: usize,
    /// The search's tunables (`--set NAME=VALUE`, as `INFO wuzi_NAME`): `nnue=1` plays and
    /// labels with the network, for data from its own games.
    pub params: Params,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 1,
            play_nodes: 4_000,
            score_nodes: 16_000,
            random_moves: 2,
            random_margin: 60,
            tt_bytes: 8 << 20,
            params: Params::default(),
        }
    }
}

/// The formats played, with their weights out of 100: Gomocup's groups, freestyle on 20×20 the
/// most played.
pub const FORMATS: [(Rule, usize, u64); 5] = [
    (Rule::Freestyle, 20, 35),
    (Rule::Freestyle, 15, 25),
    (Rule::Standard, 15, 15),
    (Rule::Renju, 15, 20),
    (Rule::Caro, 15, 5),
];

struct NoClock;

impl Clock for NoClock {
    fn elapsed_ms(&self) -> u64 {
        0
    }
}

/// The rule and size of game `index`.
pub fn format_of(seed: u64, index: u64) -> (Rule, Dims) {
    let mut rng = Rng(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let total: u64 = FORMATS.iter().map(|f| f.2).sum();
    let mut pick = rng.below(total);
    for &(rule, side, weight) in &FORMATS {
        if pick < weight {
            return (
                rule,
                Dims::new(side as i64, side as i64).expect("a valid side"),
            );
        }
        pick -= weight;
    }
    unreachable!("the weights add up to the total")
}

/// Plays game `index` of the run; `tt` is cleared first.
pub fn play(cfg: &Config, index: u64, tt: &mut TranspositionTable) -> GameRecord {
    let (rule, dims) = format_of(cfg.seed, index);
    let mut rng = Rng(cfg.seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407) ^ 0x5555);
    let opening = openings::scattered(dims, rule, 1, rng.next_u64())
        .pop()
        .unwrap_or_default();
    tt.clear();
    let params = &cfg.params;
    let mut board = Board::with_rule(dims, rule);
    for &p in &opening {
        board.play(p);
    }
    let mut moves = opening.clone();
    let mut labels: Vec<Label> = Vec::new();
    let result = loop {
        if board.stone_count() == dims.cells() {
            break 0;
        }
        let random = labels.len() < cfg.random_moves;
        let lines = if random { 4 } else { 1 };
        let played = search(&board, rule, cfg.play_nodes, lines, tt, params);
        let scored = if cfg.score_nodes == 0 {
            played.score
        } else {
            search(&board, rule, cfg.score_nodes, 1, tt, params).score
        };
        let l = label(scored);
        let me = board.to_move();
        // No legal move (renju: every empty cell a foul for black): a draw.
        let Some(mut p) = played.best else {
            break 0;
        };
        labels.push(l);
        if l.flags & FORCED != 0 {
            // A proven result ends the game after this move: the mover wins or loses by force.
            moves.push(p);
            let mover_wins = l.score > 0;
            break if mover_wins == (me == Color::Black) {
                1
            } else {
                -1
            };
        }
        if random {
            let best = played.lines.first().map_or(played.score, |l| l.score);
            let near: Vec<Pos> = played
                .lines
                .iter()
                .filter(|l| l.score >= best - cfg.random_margin)
                .filter_map(|l| l.pv.first().copied())
                .collect();
            if !near.is_empty() {
                p = near[rng.below(near.len() as u64) as usize];
            }
        }
        let verdict = rule.judge(board.grid_mut(), p, me);
        board.play(p);
        moves.push(p);
        match verdict {
            Verdict::Win => break if me == Color::Black { 1 } else { -1 },
            Verdict::Foul(_) => break -1,
            Verdict::Continue => {}
        }
    };
    GameRecord {
        rule,
        dims,
        result,
        opening: opening.len(),
        moves,
        labels,
    }
}

fn search(
    board: &Board,
    rule: Rule,
    nodes: u64,
    lines: usize,
    tt: &TranspositionTable,
    params: &Params,
) -> Outcome {
    let stop = AtomicBool::new(false);
    Search {
        board: board.clone(),
        rule,
        limits: Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        },
        params: params.clone(),
        tt,
        clock: &NoClock,
        stop: &stop,
        options: RootOptions {
            lines,
            ..RootOptions::default()
        },
    }
    .run(&mut ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Config {
        Config {
            seed: 7,
            play_nodes: 300,
            score_nodes: 600,
            tt_bytes: 1 << 20,
            ..Config::default()
        }
    }

    #[test]
    fn a_game_is_the_same_whoever_plays_it_and_whenever() {
        let cfg = tiny();
        let mut tt = TranspositionTable::new(cfg.tt_bytes);
        let a = play(&cfg, 3, &mut tt);
        let _ = play(&cfg, 4, &mut tt);
        let b = play(&cfg, 3, &mut TranspositionTable::new(cfg.tt_bytes));
        assert_eq!(a, b);
        assert_eq!(a.labels.len(), a.moves.len() - a.opening);
        assert!(
            (3..=12).contains(&a.opening),
            "{} opening stones",
            a.opening
        );
    }

    #[test]
    fn games_end_with_a_result_their_labels_support() {
        let cfg = tiny();
        let mut tt = TranspositionTable::new(cfg.tt_bytes);
        for index in 0..6 {
            let g = play(&cfg, index, &mut tt);
            let last = *g.labels.last().expect("a labelled position");
            if last.flags & FORCED != 0 {
                // The mover of the last labelled position won iff its score is positive.
                let mover_black = g.moves.len() % 2 == 1;
                let black_won = (last.score > 0) == mover_black;
                assert_eq!(g.result, if black_won { 1 } else { -1 }, "game {index}");
            }
        }
    }

    #[test]
    fn formats_follow_their_weights() {
        let mut count = [0usize; FORMATS.len()];
        for i in 0..2000 {
            let (rule, dims) = format_of(11, i);
            let k = FORMATS
                .iter()
                .position(|f| f.0 == rule && f.1 == dims.width)
                .unwrap();
            count[k] += 1;
        }
        for (k, f) in FORMATS.iter().enumerate() {
            let want = 2000 * f.2 as usize / 100;
            assert!(
                count[k].abs_diff(want) < want / 4 + 20,
                "{:?}: {}",
                f,
                count[k]
            );
        }
    }
}
