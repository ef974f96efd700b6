//! `wuzi-train`: fits the network (`wuzi::nnue::model`) to self-play data from `wuzi-datagen`.
//! The data is streamed: each epoch reads the files again, game by game, into a shuffle buffer
//! of `--buffer` positions, so a file larger than memory trains. Every `--val`-th game is held
//! out for validation. The target blends the game's result and the deeper search's score:
//! `lambda * result + (1 - lambda) * sigmoid(score / 200)`, both as the side to move's chance.
//! At the end the classical evaluation is scored on the same held-out positions, as a baseline.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wuzi::board::Board;
use wuzi::eval::{evaluate, EvalParams};
use wuzi::nnue::data::{position_key, Reader, FORCED};
use wuzi::nnue::features::{active, active_pairs};
use wuzi::nnue::model::{sigmoid, Adam, Inputs, Model};
use wuzi::nnue::network::Network;
use wuzi::nnue::spatial::{Cells, Spatial};
use wuzi::nnue::Rng;
use wuzi::rules::Rule;

const USAGE: &str = "usage: wuzi-train --data FILE[,FILE...] --out NET [options]
  --epochs N      passes over the data (default 8); 0 with --init measures that network:
                  its held-out loss, by rule and board size too, beside the classical one's
  --seed S        initial weights and shuffles (default 1)
  --lr X          Adam's step (default 0.001)
  --lr-drop E     from epoch E on, a tenth of it (default: never)
  --batch N       positions a step (default 256)
  --lambda X      weight of the game's result in the target, 0 to 1 (default 0.5)
  --val K         every K-th game is held out for validation (default 20)
  --buffer N      positions shuffled together (default 1000000)
  --keep-forced   also train on positions the search proved won or lost
  --residual      learn a correction to the classical evaluation (added to it in the engine)
  --pair          each cell's embedding also reads the other colour's code there (model.rs)
  --spatial       the experimental network that sees where the shapes stand (spatial.rs)
  --policy B      with --spatial, also fit a move policy to the games' moves, B times its
                  cross-entropy added to the loss (default 0: none)
  --init NET.wzf  start from this count network's weights (fine-tuning) instead of --seed's;
                  its shape flags (--pair, --residual) are taken from the file
usage: wuzi-train --quantise NET.wzf --out NET.wzq
  writes the engine's integer network (nnue::network) from a float one";

/// The search score's scale in the target (as the protocol's win rate).
const SCORE_SCALE: f32 = 200.0;

struct Options {
    data: Vec<String>,
    out: String,
    epochs: usize,
    seed: u64,
    lr: f32,
    lr_drop: usize,
    batch: usize,
    lambda: f32,
    val: u64,
    buffer: usize,
    keep_forced: bool,
    residual: bool,
    pair: bool,
    spatial: bool,
    policy: f32,
    /// `--init`: the file, and the network read from it with its provenance.
    init: Option<(String, Model, String)>,
}

struct Sample {
    x: Inputs,
    cells: Cells,
    target: f32,
}

/// The network being fitted: the count network (`model`) or the spatial one.
enum Fit {
    Counts(Model),
    Spatial(Spatial),
}

impl Fit {
    fn weights(&mut self) -> &mut [f32] {
        match self {
            Fit::Counts(m) => &mut m.w,
            Fit::Spatial(m) => &mut m.w,
        }
    }

    fn predict(&self, s: &Sample) -> f32 {
        match self {
            Fit::Counts(m) => m.predict(&s.x),
            Fit::Spatial(m) => m.predict(&s.cells),
        }
    }

    fn backward(&self, s: &Sample, beta: f32, grad: &mut [f32]) -> f32 {
        match self {
            Fit::Counts(m) => m.backward(&s.x, s.target, grad),
            Fit::Spatial(m) => m.backward_with(&s.cells, s.target, beta, grad).0,
        }
    }

    /// The policy on the held-out positions: its cross-entropy on the played moves and how
    /// often its first choice is the played move.
    fn policy_check(&self, set: &[Sample]) -> Option<(f64, f64)> {
        let Fit::Spatial(m) = self else {
            return None;
        };
        let (mut ce, mut hits) = (0.0f64, 0usize);
        for s in set {
            let p = m.policy(&s.cells);
            let played = s.cells.played?;
            let q = p.iter().find(|c| c.0 == played).map_or(0.0, |c| c.1);
            ce -= (q.max(1e-12) as f64).ln();
            let best = p.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|c| c.0);
            hits += (best == Some(played)) as usize;
        }
        let n = set.len().max(1) as f64;
        Some((ce / n, hits as f64 / n))
    }

    fn clip(&mut self) {
        match self {
            Fit::Counts(m) => m.clip_hidden(),
            Fit::Spatial(m) => m.clip(),
        }
    }

    fn save(&self, w: &mut impl std::io::Write, provenance: &str) -> std::io::Result<()> {
        match self {
            Fit::Counts(m) => m.save(w, provenance),
            Fit::Spatial(m) => m.save(w, provenance),
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("wuzi-train: {e:#}");
        std::process::exit(2);
    }
}

/// `--quantise FLOAT --out NET`: the engine's integer network from a float one, provenance kept.
fn quantise(args: &[String]) -> Result<()> {
    let (Some(input), Some(out)) = (args.get(1), args.get(3)) else {
        bail!("{USAGE}");
    };
    if args.len() != 4 || args[2] != "--out" {
        bail!("{USAGE}");
    }
    let mut file = BufReader::new(File::open(input).with_context(|| format!("opening {input}"))?);
    let (model, provenance) = Model::load(&mut file).with_context(|| format!("reading {input}"))?;
    let net = Network::quantise(&model, &provenance);
    let mut w = BufWriter::new(File::create(out).with_context(|| format!("creating {out}"))?);
    net.save(&mut w)?;
    eprintln!("wuzi-train: wrote {out}, quantised from {input} ({provenance})");
    Ok(())
}

fn parse() -> Result<Options> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = Options {
        data: Vec::new(),
        out: String::new(),
        epochs: 8,
        seed: 1,
        lr: 0.001,
        lr_drop: usize::MAX,
        batch: 256,
        lambda: 0.5,
        val: 20,
        buffer: 1_000_000,
        keep_forced: false,
        residual: false,
        pair: false,
        spatial: false,
        policy: 0.0,
        init: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .with_context(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--data" => o.data = value()?.split(',').map(String::from).collect(),
            "--out" => o.out = value()?.clone(),
            "--epochs" => o.epochs = value()?.parse()?,
            "--seed" => o.seed = value()?.parse()?,
            "--lr" => o.lr = value()?.parse()?,
            "--lr-drop" => o.lr_drop = value()?.parse()?,
            "--batch" => o.batch = value()?.parse::<usize>()?.max(1),
            "--lambda" => o.lambda = value()?.parse()?,
            "--val" => o.val = value()?.parse::<u64>()?.max(2),
            "--buffer" => o.buffer = value()?.parse::<usize>()?.max(1),
            "--keep-forced" => o.keep_forced = true,
            "--residual" => o.residual = true,
            "--pair" => o.pair = true,
            "--spatial" => o.spatial = true,
            "--policy" => o.policy = value()?.parse()?,
            "--init" => {
                let path = value()?.clone();
                let mut file =
                    BufReader::new(File::open(&path).with_context(|| format!("opening {path}"))?);
                let (m, text) =
                    Model::load(&mut file).with_context(|| format!("reading {path}"))?;
                o.init = Some((path, m, text));
            }
            _ => bail!("unknown argument {a}\n{USAGE}"),
        }
    }
    if o.data.is_empty() || o.out.is_empty() || !(0.0..=1.0).contains(&o.lambda) {
        bail!("{USAGE}");
    }
    if o.policy > 0.0 && !o.spatial {
        bail!("--policy needs --spatial\n{USAGE}");
    }
    if o.spatial && o.init.is_some() {
        bail!("--init takes a count network, not --spatial\n{USAGE}");
    }
    if let Some((_, m, _)) = &o.init {
        // The shape comes from the file, so that the samples match the network.
        o.pair = m.pair;
        o.residual = m.residual;
    }
    if o.spatial && (o.pair || o.residual) {
        bail!("--spatial takes neither --pair nor --residual\n{USAGE}");
    }
    Ok(o)
}

/// Reads every data file in order and hands each position to `f` with whether its game is
/// held out; repeated positions (same stones, rule and side to move) come once.
fn each_position(o: &Options, mut f: impl FnMut(bool, &Board, f32, i8, usize)) -> Result<u64> {
    let mut seen: HashSet<u64> = HashSet::new();
    let mut game_no = 0u64;
    for path in &o.data {
        let file = File::open(path).with_context(|| format!("opening {path}"))?;
        let mut reader = Reader::new(BufReader::new(file));
        while let Some(game) = reader
            .next_game()
            .with_context(|| format!("reading {path}"))?
        {
            let held = game_no % o.val == 0;
            game_no += 1;
            for s in game.samples() {
                if s.label.flags & FORCED != 0 && !o.keep_forced {
                    continue;
                }
                if !seen.insert(position_key(&s)) {
                    continue;
                }
                let next = s.board.dims().index(s.next);
                f(held, &s.board, s.label.score as f32, s.result, next);
            }
        }
    }
    Ok(game_no)
}

fn sample(board: &Board, score: f32, result: i8, next: usize, o: &Options) -> Sample {
    let lambda = o.lambda;
    let me = board.to_move();
    let mut x = Inputs::default();
    let mut cells = Cells::default();
    if o.spatial {
        cells = Cells::of(board);
        cells.played = Some(next);
    } else if o.pair {
        active_pairs(board, me, &mut x.own_pairs);
        active_pairs(board, me.opp(), &mut x.opp_pairs);
    } else {
        active(board, me, &mut x.own);
        active(board, me.opp(), &mut x.opp);
    }
    if o.residual {
        x.base = evaluate(board, &EvalParams::default()) as f32 / SCORE_SCALE;
    }
    let won = (result as f32 + 1.0) / 2.0;
    let target = lambda * won + (1.0 - lambda) * sigmoid(score / SCORE_SCALE);
    Sample { x, cells, target }
}

fn loss(model: &Fit, set: &[Sample]) -> f64 {
    let sum: f64 = set
        .iter()
        .map(|s| {
            let d = (model.predict(s) - s.target) as f64;
            d * d
        })
        .sum();
    sum / set.len().max(1) as f64
}

/// The held-out losses by rule and board size (`groups[i]` is `val[i]`'s): where the network
/// gains most and least over the classical evaluation (read as sigmoid(eval / `scale`)).
fn report_groups(
    model: &Fit,
    val: &[Sample],
    classical: &[f32],
    groups: &[(Rule, u8, u8)],
    scale: f32,
) {
    // By (rule number, rule name, width, height): positions, network and classical loss sums.
    type Group = (i64, &'static str, u8, u8);
    let mut by: BTreeMap<Group, (usize, f64, f64)> = BTreeMap::new();
    for ((s, &e), &(rule, w, h)) in val.iter().zip(classical).zip(groups) {
        let g = by
            .entry((rule.info_value(), rule.name(), w, h))
            .or_default();
        g.0 += 1;
        g.1 += ((model.predict(s) - s.target) as f64).powi(2);
        g.2 += ((sigmoid(e / scale) - s.target) as f64).powi(2);
    }
    for ((_, name, w, h), (n, net, base)) in by {
        let n1 = n.max(1) as f64;
        eprintln!(
            "wuzi-train:   {name} {w}x{h}: {n} positions, network {:.5}, classical {:.5}",
            net / n1,
            base / n1
        );
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--quantise") {
        return quantise(&args);
    }
    let o = parse()?;
    let started = Instant::now();
    // The held-out positions, kept in memory (a twentieth of the data), with the classical
    // evaluation's score of each for the baseline.
    let mut val: Vec<Sample> = Vec::new();
    let mut classical: Vec<f32> = Vec::new();
    // Each held-out position's rule and board size, for the losses by group at the end.
    let mut groups: Vec<(Rule, u8, u8)> = Vec::new();
    let mut train_count = 0u64;
    let params = EvalParams::default();
    // The engine's learned move-order table as a policy baseline: how often its best empty
    // cell is the move the game played.
    let mut table_hits = 0usize;
    let games = each_position(&o, |held, board, score, result, next| {
        if held {
            val.push(sample(board, score, result, next, &o));
            classical.push(evaluate(board, &params) as f32);
            let dims = board.dims();
            groups.push((board.rule(), dims.width as u8, dims.height as u8));
            let (lines, me) = (board.line_patterns(), board.to_move());
            let best = (0..board.dims().cells())
                .filter(|&i| board.is_empty_index(i))
                .max_by_key(|&i| lines.order_score(me, i));
            table_hits += (best == Some(next)) as usize;
        } else {
            train_count += 1;
        }
    })?;
    eprintln!(
        "wuzi-train: {games} games, {train_count} training and {} validation positions (read in {:.1} s); the move-order table's first choice is the game's move in {:.1} % of them",
        val.len(),
        started.elapsed().as_secs_f64(),
        100.0 * table_hits as f64 / val.len().max(1) as f64
    );
    if train_count == 0 || val.is_empty() {
        bail!(
            "too little data: {train_count} training and {} validation positions",
            val.len()
        );
    }
    let mut init_text = String::new();
    let mut model = if let Some((path, m, text)) = &o.init {
        init_text = format!(" (--init: {text})");
        let m = Fit::Counts(m.clone());
        eprintln!(
            "wuzi-train: {path} before training: validation loss {:.5}",
            loss(&m, &val)
        );
        m
    } else if o.spatial {
        Fit::Spatial(Spatial::new(o.seed))
    } else {
        let mut m = Model::with_shape(o.seed, o.pair);
        m.residual = o.residual;
        Fit::Counts(m)
    };
    let params = model.weights().len();
    let mut adam = Adam::new(o.lr, params);
    let mut grad = vec![0.0f32; params];
    let mut rng = Rng(o.seed ^ 0x5EED);
    let mut last = (0.0, 0.0);
    for epoch in 1..=o.epochs {
        let t0 = Instant::now();
        adam.lr = if epoch >= o.lr_drop {
            o.lr / 10.0
        } else {
            o.lr
        };
        let (mut sum, mut n) = (0.0f64, 0u64);
        let mut buffer: Vec<Sample> = Vec::with_capacity(o.buffer.min(1 << 22));
        let mut train = |buffer: &mut Vec<Sample>, model: &mut Fit| {
            // Fisher-Yates with the run's generator: the same order on every machine.
            for i in (1..buffer.len()).rev() {
                buffer.swap(i, rng.below(i as u64 + 1) as usize);
            }
            for batch in buffer.chunks(o.batch) {
                for s in batch {
                    sum += model.backward(s, o.policy, &mut grad) as f64;
                }
                adam.step(model.weights(), &mut grad, batch.len());
                model.clip();
            }
            n += buffer.len() as u64;
            buffer.clear();
        };
        each_position(&o, |held, board, score, result, next| {
            if held {
                return;
            }
            buffer.push(sample(board, score, result, next, &o));
            if buffer.len() >= o.buffer {
                train(&mut buffer, &mut model);
            }
        })?;
        train(&mut buffer, &mut model);
        let v = loss(&model, &val);
        let t = sum / n.max(1) as f64;
        last = (t, v);
        eprintln!(
            "wuzi-train: epoch {epoch}/{}: train loss {t:.5}, validation loss {v:.5}, {:.0} positions/s, {:.0} s",
            o.epochs,
            n as f64 / t0.elapsed().as_secs_f64().max(1e-3),
            started.elapsed().as_secs_f64()
        );
        if o.policy > 0.0 {
            if let Some((ce, top1)) = model.policy_check(&val) {
                eprintln!(
                    "wuzi-train: epoch {epoch}: policy cross-entropy {ce:.4}, first choice the game's move in {:.1} %",
                    100.0 * top1
                );
            }
        }
    }
    if o.epochs == 0 {
        // Nothing trained (an `--init` network measured): its loss as it stands.
        last = (f64::NAN, loss(&model, &val));
    }
    // The classical evaluation as a win chance, its scale the best of a few.
    let (scale, base) = [50.0f32, 100.0, 200.0, 400.0, 800.0, 1600.0]
        .into_iter()
        .map(|k| {
            let l: f64 = val
                .iter()
                .zip(&classical)
                .map(|(s, &e)| ((sigmoid(e / k) - s.target) as f64).powi(2))
                .sum::<f64>()
                / val.len() as f64;
            (k, l)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0.0, f64::NAN));
    eprintln!(
        "wuzi-train: validation loss: network {:.5}, classical evaluation {base:.5} (as sigmoid(eval / {scale}))",
        last.1
    );
    report_groups(&model, &val, &classical, &groups, scale);
    let provenance = format!(
        "wuzi-train {}--data {} --epochs {} --seed {} --lr {}{} --batch {} --lambda {} --val {}{}; {games} games, {train_count} training positions, {} validation; train loss {:.5}, validation loss {:.5} (classical {base:.5}){init_text}",
        o.init
            .as_ref()
            .map_or(String::new(), |(p, _, _)| format!("--init {p} ")),
        o.data.join(","),
        o.epochs,
        o.seed,
        o.lr,
        if o.lr_drop <= o.epochs {
            format!(" --lr-drop {}", o.lr_drop)
        } else {
            String::new()
        },
        o.batch,
        o.lambda,
        o.val,
        [
            (o.keep_forced, " --keep-forced"),
            (o.residual, " --residual"),
            (o.pair, " --pair"),
            (o.spatial, " --spatial")
        ]
        .iter()
        .filter(|f| f.0)
        .map(|f| f.1)
        .collect::<String>()
            + &if o.policy > 0.0 {
                format!(" --policy {}", o.policy)
            } else {
                String::new()
            },
        val.len(),
        last.0,
        last.1
    );
    let mut out =
        BufWriter::new(File::create(&o.out).with_context(|| format!("creating {}", o.out))?);
    model.save(&mut out, &provenance)?;
    eprintln!("wuzi-train: wrote {} ({provenance})", o.out);
    Ok(())
}
