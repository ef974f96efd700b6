//! The shipped network (`nets/`): the integer file is the quantisation of the float one the
//! trainer wrote, its evaluation stays within a stated tolerance of the float model on
//! held-out positions, and the accumulators the board keeps equal a recompute after random
//! play and undo under every rule.

use std::fs::File;
use std::io::BufReader;

use wuzi::board::{Board, Color};
use wuzi::geometry::{Dims, Pos};
use wuzi::nnue::data::Reader;
use wuzi::nnue::features::{active, active_pairs};
use wuzi::nnue::model::{Inputs, Model};
use wuzi::nnue::network::Network;
use wuzi::nnue::Rng;
use wuzi::rules::Rule;

const FLOAT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/wuzi.wzf");
const QUANT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/wuzi.wzq");
const HELDOUT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue_heldout.wzd");

fn float_model() -> (Model, String) {
    Model::load(&mut BufReader::new(File::open(FLOAT).unwrap())).unwrap()
}

fn shipped() -> &'static Network {
    // The test binary never sets WUZI_NNUE, so this is the embedded network.
    wuzi::nnue::network().expect("the embedded network loads")
}

#[test]
fn the_shipped_network_is_the_quantised_float_one() {
    let (model, provenance) = float_model();
    let net = Network::quantise(&model, &provenance);
    let mut bytes = Vec::new();
    net.save(&mut bytes).unwrap();
    assert!(
        bytes == std::fs::read(QUANT).unwrap(),
        "nets/wuzi.wzq is not `wuzi-train --quantise nets/wuzi.wzf`"
    );
    assert_eq!(shipped(), &net);
    assert!(provenance.contains("wuzi-train --data"), "{provenance}");
}

/// Quantised against float on every position of the held-out games, in search units (200 a
/// logit). The stated tolerance: no position off by more than 10 units, and 2.5 on average
/// (the shipped network: 5.0 and 0.93).
#[test]
fn quantised_scores_stay_near_the_float_model() {
    let (mut model, _) = float_model();
    // The quantiser clamps weights the engine's integers cannot hold, as the trainer does after
    // each step; networks trained before it clipped may hold a few such weights.
    model.clip_hidden();
    let net = shipped();
    let mut reader = Reader::new(BufReader::new(File::open(HELDOUT).unwrap()));
    let (mut n, mut sum, mut worst) = (0u32, 0f64, 0f64);
    let mut rules = std::collections::HashSet::new();
    while let Some(game) = reader.next_game().unwrap() {
        for s in game.samples() {
            let mut board = s.board.clone();
            board.set_rule(s.rule);
            rules.insert(s.rule.info_value());
            board.set_network(Some(net));
            let me = board.to_move();
            let quant = board.line_patterns().network_score(me).unwrap() as f64;
            let mut x = Inputs::default();
            active(&board, me, &mut x.own);
            active(&board, me.opp(), &mut x.opp);
            let float = model.logit(&x) as f64 * 200.0;
            let d = (quant - float).abs();
            sum += d;
            worst = worst.max(d);
            n += 1;
        }
    }
    assert!(n > 500, "{n} positions");
    assert!(rules.len() >= 3, "rules covered: {rules:?}");
    let mean = sum / n as f64;
    eprintln!("{n} positions: mean |quantised - float| {mean:.2}, worst {worst:.1}");
    assert!(
        worst <= 12.0 && mean <= 3.0,
        "mean {mean:.2}, worst {worst:.1}"
    );
}

/// A pair network (`wuzi-train --pair`) with random weights, large enough that the cells'
/// clamps and the layers' saturate both ways.
fn pair_network(seed: u64) -> &'static Network {
    Box::leak(Box::new(Network::quantise(&pair_model(seed), "pair test")))
}

fn pair_model(seed: u64) -> Model {
    let mut m = Model::with_shape(seed, true);
    let mut rng = Rng(seed ^ 99);
    m.w.iter_mut().for_each(|x| *x += rng.unit() * 0.8);
    m.clip_hidden();
    m
}

/// Random games with takebacks and a rule change: `Board::verify` recomputes
/// the accumulators from the cells (`Lines::set_network` on a board derived afresh).
#[test]
fn accumulators_equal_a_recompute_after_random_play_and_undo() {
    random_play_and_undo(shipped(), 11);
}

/// The same for a pair network, whose cells read both colours' codes.
#[test]
fn pair_accumulators_equal_a_recompute_after_random_play_and_undo() {
    let net = pair_network(4);
    assert!(net.pair.is_some());
    random_play_and_undo(net, 12);
}

fn random_play_and_undo(net: &'static Network, seed: u64) {
    let mut rng = Rng(seed);
    for (w, h, rule) in [
        (15, 15, Rule::Renju),
        (20, 20, Rule::Freestyle),
        (15, 15, Rule::Standard),
        (12, 9, Rule::Caro),
        (32, 32, Rule::Freestyle),
    ] {
        let dims = Dims::new(w, h).unwrap();
        let mut board = Board::with_rule(dims, rule);
        // Stones before the network is switched on, then with it.
        for _ in 0..6 {
            play_random(&mut board, &mut rng);
        }
        board.set_network(Some(net));
        board.verify().unwrap();
        for step in 0..600 {
            let r = rng.below(10);
            if r < 6 || board.stone_count() < 2 {
                if !play_random(&mut board, &mut rng) {
                    while board.stone_count() > 0 {
                        board.undo();
                    }
                }
            } else {
                board.undo();
            }
            if step == 300 {
                let other = if rule == Rule::Renju {
                    Rule::Freestyle
                } else {
                    Rule::Renju
                };
                board.set_rule(other);
            }
            if step % 7 == 0 {
                board
                    .verify()
                    .unwrap_or_else(|e| panic!("{w}x{h} {rule:?} step {step}: {e}"));
            }
        }
        // Undo everything: back to the empty board's accumulators.
        while board.undo().is_some() {}
        board.verify().unwrap();
        let empty = {
            let mut b = Board::with_rule(dims, board.rule());
            b.set_network(Some(net));
            b.line_patterns().network_score(Color::Black)
        };
        assert_eq!(board.line_patterns().network_score(Color::Black), empty);
    }
}

/// A pair network's integer scores against its float model on the held-out positions: the
/// engine's incremental per-cell pairs give what the trainer's grouped ones give.
#[test]
fn a_pair_network_s_quantised_scores_stay_near_its_float_model() {
    let m = pair_model(6);
    let net = pair_network(6);
    let mut reader = Reader::new(BufReader::new(File::open(HELDOUT).unwrap()));
    let (mut n, mut sum, mut worst) = (0u32, 0f64, 0f64);
    let mut scores = std::collections::HashSet::new();
    while let Some(game) = reader.next_game().unwrap() {
        for s in game.samples() {
            let mut board = s.board.clone();
            board.set_rule(s.rule);
            board.set_network(Some(net));
            let me = board.to_move();
            let quant = board.line_patterns().network_score(me).unwrap();
            let mut x = Inputs::default();
            active_pairs(&board, me, &mut x.own_pairs);
            active_pairs(&board, me.opp(), &mut x.opp_pairs);
            let d = (quant as f64 - m.logit(&x) as f64 * 200.0).abs();
            sum += d;
            worst = worst.max(d);
            n += 1;
            scores.insert(quant);
        }
    }
    let mean = sum / n as f64;
    eprintln!("pair network, {n} positions: mean |quantised - float| {mean:.2}, worst {worst:.1}");
    assert!(scores.len() > 100, "the scores vary: {}", scores.len());
    assert!(
        worst <= 12.0 && mean <= 3.0,
        "mean {mean:.2}, worst {worst:.1}"
    );
}

fn play_random(board: &mut Board, rng: &mut Rng) -> bool {
    let dims = board.dims();
    let empty: Vec<usize> = (0..dims.cells())
        .filter(|&i| board.is_empty_index(i))
        .collect();
    if empty.len() < 2 {
        return false;
    }
    let i = empty[rng.below(empty.len() as u64) as usize];
    board.play(Pos::new(i % dims.width, i / dims.width));
    true
}

/// `INFO wuzi_nnue_mix` blends the network with the classical evaluation; a residual network's
/// output is a correction added to the whole classical evaluation.
#[test]
fn mixed_and_residual_evaluations_add_up() {
    use wuzi::eval::{evaluate, EvalParams};
    let mut model = Model::new(21);
    let plain: &'static Network = Box::leak(Box::new(Network::quantise(&model, "plain")));
    model.residual = true;
    let residual: &'static Network = Box::leak(Box::new(Network::quantise(&model, "residual")));
    let dims = Dims::new(15, 15).unwrap();
    let mut board = Board::with_rule(dims, Rule::Freestyle);
    for (x, y) in [(7, 7), (8, 8), (7, 8), (9, 9), (6, 9)] {
        board.play(Pos::new(x, y));
    }
    let classical = evaluate(&board, &EvalParams::default());
    let params = |mix| EvalParams {
        nnue: true,
        nnue_mix: mix,
        ..EvalParams::default()
    };
    let me = board.to_move();
    board.set_network(Some(plain));
    let net = board.line_patterns().network_score(me).unwrap();
    assert_ne!(net, classical);
    assert_eq!(evaluate(&board, &params(100)), net);
    assert_eq!(evaluate(&board, &params(0)), classical);
    assert_eq!(
        evaluate(&board, &params(50)),
        (net * 50 + classical * 50) / 100
    );
    board.set_network(Some(residual));
    let correction = board.line_patterns().network_score(me).unwrap();
    assert_eq!(evaluate(&board, &params(100)), classical + correction);
    assert_eq!(evaluate(&board, &params(50)), classical + correction / 2);
}

/// The threat search pauses the accumulators (it takes back its moves and evaluates nothing):
/// after a VCF search and a VCT search they equal a recompute again, and they update again.
#[test]
fn accumulators_survive_a_paused_threat_search() {
    use wuzi::search::threats::Solver;
    let net = shipped();
    let dims = Dims::new(15, 15).unwrap();
    let mut board = Board::with_rule(dims, Rule::Freestyle);
    for (x, y) in [
        (7, 7),
        (0, 0),
        (8, 7),
        (0, 14),
        (7, 8),
        (14, 0),
        (8, 9),
        (14, 14),
    ] {
        board.play(Pos::new(x, y));
    }
    board.set_network(Some(net));
    let before = board.line_patterns().network_score(board.to_move());
    let mut solver = Solver::new(Rule::Freestyle);
    let vcf = solver.vcf(&mut board, 120, 200_000);
    let vct = solver.vct(&mut board, 6, 200_000);
    assert!(
        vcf.is_some() || vct.is_some(),
        "the attacker has a threat win here"
    );
    assert!(
        solver.nodes > 10,
        "the solver searched: {} nodes",
        solver.nodes
    );
    board.verify().unwrap();
    assert_eq!(board.line_patterns().network_score(board.to_move()), before);
    // Not paused any more: a move updates them, and verify recomputes them.
    board.play(Pos::new(9, 9));
    board.verify().unwrap();
    assert_ne!(board.line_patterns().network_score(board.to_move()), before);
}

/// The engine searches the same tree with the network whichever way its integers are worked
/// out: AVX2 (the accumulators in registers through the preview's walk) or the portable code
/// (`WUZI_NO_AVX2`). On a CPU without AVX2 both runs take the portable path.
#[test]
fn the_avx2_and_portable_searches_agree() {
    let bench = |portable: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"));
        cmd.args(["bench", "--set", "nnue=1"]);
        if portable {
            cmd.env("WUZI_NO_AVX2", "1");
        }
        let out = cmd.output().expect("bench runs");
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = |key: &str| {
            let l = text.lines().find(|l| l.starts_with(key));
            l.unwrap_or_else(|| panic!("no {key} in {text}"))
                .to_string()
        };
        (line("Signature"), line("Nodes searched"))
    };
    assert_eq!(bench(false), bench(true));
}
