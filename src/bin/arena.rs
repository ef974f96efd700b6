//! `wuzi-arena`: plays matches between any pbrain engines: openings played twice with colours
//! swapped, N games at once, Elo with a 95% interval, SPRT, and game records.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use anyhow::{anyhow, bail, Context, Result};
use wuzi::board::Color;
use wuzi::geometry::{Dims, Pos};
use wuzi::manager::engine::Engine;
use wuzi::manager::game::{self, Fault, GameConfig, GameRecord};
use wuzi::manager::stats::{Paired, Pairs, Sprt, Tally, Verdict};
use wuzi::manager::{openings, record};
use wuzi::rules::Rule;

const USAGE: &str = "usage: wuzi-arena --engine NAME=CMD --engine NAME=CMD [options]
  --engine NAME=CMD       an engine (two or more); quote CMD if it has spaces
  --info NAME:KEY=VALUE   send INFO KEY VALUE to that engine every game (NAME 'all': every engine)
  --rule R                freestyle, standard, renju, caro, caro-exact or an INFO rule number
  --size N | WxH          board size (default 15)
  --turn MS               time per move (default 1000)
  --match MS              time per game and engine, 0 = none (default 0)
  --tolerance MS          lateness forgiven per move (default 1000)
  --settle MS             pause after an engine's move before its next command (default 50:
                          Rapfi drops a command that comes sooner)
  --max-memory BYTES      INFO max_memory (default 367001600)
  --openings FILE         offset (8,-3, 6,-4), pos (b7d6e6f7) or test-data (moves=h8,i8) lines
  --random-openings S:N   N random openings of S stones near the centre (self-play data)
  --scattered-openings N  N random openings of 3 to 12 stones scattered near a random anchor
  --balance NODES:MARGIN  keep the openings our own search (NODES nodes, default settings)
                          scores within ±MARGIN for the side to move (c threads at once)
  --save-openings FILE    write the openings as Gomocup offsets to FILE and stop (no engines)
  --order sequential|random, --seed N   opening order (default sequential, seed 1)
  --games N               games per pairing (default: each opening twice, colours swapped)
  -c, --concurrency N     games at once (default 1)
  --gauntlet              the first engine plays each other one (default: round robin)
  --sprt elo0=0,elo1=5[,alpha=0.05,beta=0.05]  stop when the test decides (two engines)
  --draw-after N          draw at N stones (renju default 200)
  --records FILE          one line per game;  --sgf FILE  all games as SGF;  --psq DIR  .psq files
or: wuzi-arena --compare NAME A B
  NAME's results in two runs' records (A and B: files, comma-separated) on the same openings
  against the same opponents, opening by opening: each opening's pair of games in A against
  B's (an opening played in several pairs: their mean)";

struct Options {
    engines: Vec<(String, String)>,
    infos: HashMap<String, Vec<(String, String)>>,
    cfg: GameConfig,
    openings: Vec<Vec<Pos>>,
    random: bool,
    seed: u64,
    games: Option<usize>,
    concurrency: usize,
    gauntlet: bool,
    sprt: Option<Sprt>,
    records: Option<String>,
    sgf: Option<String>,
    psq: Option<String>,
    /// Where to write the openings instead of playing, with the header line to write first.
    save_openings: Option<(String, String)>,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        engines: Vec::new(),
        infos: HashMap::new(),
        cfg: GameConfig::new(Dims::square(15), Rule::Freestyle, 1000),
        openings: Vec::new(),
        random: false,
        seed: 1,
        games: None,
        concurrency: 1,
        gauntlet: false,
        sprt: None,
        records: None,
        sgf: None,
        psq: None,
        save_openings: None,
    };
    let mut openings_file = None;
    let mut random_openings = None;
    let mut scattered_openings = None;
    let mut balance = None;
    let mut save_openings = None;
    let mut draw_after = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| anyhow!("{flag} needs a value"));
        let num = |v: &String| {
            v.parse::<u64>()
                .with_context(|| format!("{flag}: '{v}' is not a number"))
        };
        match flag.as_str() {
            "--engine" => {
                let v = value()?;
                let (name, cmd) = v
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--engine takes NAME=CMD"))?;
                o.engines.push((name.to_string(), cmd.to_string()));
            }
            "--info" => {
                let v = value()?;
                let (name, kv) = v
                    .split_once(':')
                    .ok_or_else(|| anyhow!("--info takes NAME:KEY=VALUE"))?;
                let (k, val) = kv
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--info takes NAME:KEY=VALUE"))?;
                o.infos
                    .entry(name.to_string())
                    .or_default()
                    .push((k.to_string(), val.to_string()));
            }
            "--rule" => {
                let v = value()?;
                o.cfg.rule = Rule::parse(v).ok_or_else(|| anyhow!("unknown rule '{v}'"))?;
            }
            "--size" => {
                let v = value()?;
                let (w, h) = v.split_once(['x', ',']).unwrap_or((v, v));
                let (w, h) = (w.parse().unwrap_or(0), h.parse().unwrap_or(0));
                o.cfg.dims = Dims::new(w, h).map_err(|e| anyhow!(e))?;
            }
            "--turn" => o.cfg.turn_ms = num(value()?)?,
            "--match" => o.cfg.match_ms = num(value()?)?,
            "--tolerance" => o.cfg.tolerance_ms = num(value()?)?,
            "--settle" => o.cfg.settle_ms = num(value()?)?,
            "--max-memory" => o.cfg.max_memory = num(value()?)?,
            "--openings" => openings_file = Some(value()?.clone()),
            "--random-openings" => {
                let v = value()?;
                let (stones, count) = v
                    .split_once(':')
                    .and_then(|(s, n)| Some((s.parse().ok()?, n.parse().ok()?)))
                    .ok_or_else(|| anyhow!("--random-openings takes STONES:COUNT"))?;
                random_openings = Some((stones, count));
            }
            "--scattered-openings" => scattered_openings = Some(num(value()?)? as usize),
            "--balance" => {
                let v = value()?;
                balance = Some(
                    v.split_once(':')
                        .and_then(|(n, m)| Some((n.parse().ok()?, m.parse().ok()?)))
                        .ok_or_else(|| anyhow!("--balance takes NODES:MARGIN"))?,
                );
            }
            "--save-openings" => save_openings = Some(value()?.clone()),
            "--order" => {
                o.random = match value()?.as_str() {
                    "random" => true,
                    "sequential" => false,
                    other => bail!("--order is sequential or random, not '{other}'"),
                }
            }
            "--seed" => o.seed = num(value()?)?,
            "--games" => o.games = Some(num(value()?)? as usize),
            "-c" | "--concurrency" => o.concurrency = num(value()?)?.clamp(1, 64) as usize,
            "--gauntlet" => o.gauntlet = true,
            "--sprt" => o.sprt = Some(Sprt::parse(value()?).map_err(|e| anyhow!(e))?),
            "--draw-after" => draw_after = Some(num(value()?)? as usize),
            "--records" => o.records = Some(value()?.clone()),
            "--sgf" => o.sgf = Some(value()?.clone()),
            "--psq" => o.psq = Some(value()?.clone()),
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unknown option '{other}'\n{USAGE}"),
        }
    }
    if o.engines.len() < 2 && save_openings.is_none() {
        bail!("give at least two engines\n{USAGE}");
    }
    if o.sprt.is_some() && o.engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    o.cfg.draw_after = draw_after.or((o.cfg.rule == Rule::Renju).then_some(200));
    o.openings = if let Some((stones, count)) = random_openings {
        openings::random(o.cfg.dims, o.cfg.rule, stones, count, o.seed)
    } else if let Some(count) = scattered_openings {
        openings::scattered(o.cfg.dims, o.cfg.rule, count, o.seed)
    } else {
        match openings_file {
            Some(f) => {
                let text = std::fs::read_to_string(&f).with_context(|| format!("reading {f}"))?;
                let v = openings::parse_all(&text, o.cfg.dims);
                if v.is_empty() {
                    bail!(
                        "{f}: no opening fits a {}x{} board",
                        o.cfg.dims.width,
                        o.cfg.dims.height
                    );
                }
                v
            }
            None => vec![Vec::new()],
        }
    };
    if let Some((nodes, margin)) = balance {
        o.openings = balanced(&o, nodes, margin);
    }
    o.save_openings = save_openings.map(|f| (f, format!("# wuzi-arena {}", args.join(" "))));
    Ok(o)
}

/// The openings whose position our own search of `nodes` nodes (one thread, a fresh table,
/// default settings: the same on every machine) scores within `margin` of 0 for the side to
/// move, in their order; `o.concurrency` searches at once.
fn balanced(o: &Options, nodes: u64, margin: i32) -> Vec<Vec<Pos>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let keep: Vec<AtomicBool> = o.openings.iter().map(|_| AtomicBool::new(false)).collect();
    let params = wuzi::search::params::Params::default();
    thread::scope(|scope| {
        for _ in 0..o.concurrency {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(opening) = o.openings.get(k) else {
                    break;
                };
                let mut board = wuzi::board::Board::with_rule(o.cfg.dims, o.cfg.rule);
                for &p in opening {
                    board.play(p);
                }
                let score = wuzi::bench::search_score(board, o.cfg.rule, nodes, 16 << 20, &params);
                keep[k].store(score.abs() <= margin, Ordering::Relaxed);
            });
        }
    });
    let kept: Vec<Vec<Pos>> = o
        .openings
        .iter()
        .zip(&keep)
        .filter(|(_, k)| k.load(Ordering::Relaxed))
        .map(|(opening, _)| opening.clone())
        .collect();
    eprintln!(
        "wuzi-arena: {} of {} openings scored within ±{margin} at {nodes} nodes",
        kept.len(),
        o.openings.len()
    );
    kept
}

/// One scheduled game: engine indices for black and white, the opening, its number, and the
/// round (the two games of a round play the same opening with colours swapped).
#[derive(Clone)]
struct Spec {
    number: usize,
    pair: (usize, usize),
    black: usize,
    white: usize,
    opening: usize,
    round: usize,
}

fn schedule(o: &Options) -> Vec<Spec> {
    let n = o.engines.len();
    let pairs: Vec<(usize, usize)> = if o.gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    };
    let mut order: Vec<usize> = (0..o.openings.len()).collect();
    if o.random {
        let mut state = o.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
    }
    let per_pair = o.games.unwrap_or(2 * o.openings.len());
    let mut specs = Vec::new();
    for k in 0..per_pair {
        for &(a, b) in &pairs {
            let (black, white) = if k % 2 == 0 { (a, b) } else { (b, a) };
            specs.push(Spec {
                number: specs.len() + 1,
                pair: (a, b),
                black,
                white,
                opening: order[(k / 2) % order.len()],
                round: k / 2,
            });
        }
    }
    specs
}

/// A game that could not start because an engine would not start.
fn no_start(spec_opening: &[Pos], side: Color, why: String) -> GameRecord {
    GameRecord {
        opening: spec_opening.to_vec(),
        moves: Vec::new(),
        winner: Some(side.opp()),
        reason: why,
        fault: Some((side, Fault::Crash)),
        times_ms: Vec::new(),
        evals: Vec::new(),
    }
}

fn worker(
    o: &Options,
    queue: &Mutex<VecDeque<Spec>>,
    stop: &AtomicBool,
    results: mpsc::Sender<(Spec, GameRecord)>,
) {
    let mut engines: HashMap<usize, Engine> = HashMap::new();
    let no_info = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let Some(spec) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
            break;
        };
        let opening = &o.openings[spec.opening];
        let mut failed = None;
        for (idx, side) in [(spec.black, Color::Black), (spec.white, Color::White)] {
            if let std::collections::hash_map::Entry::Vacant(e) = engines.entry(idx) {
                let (name, cmd) = &o.engines[idx];
                match Engine::spawn(name, cmd) {
                    Ok(engine) => {
                        e.insert(engine);
                    }
                    Err(err) => {
                        failed = Some(no_start(
                            opening,
                            side,
                            format!("{name} does not start: {err}"),
                        ))
                    }
                }
            }
        }
        let rec = match failed {
            Some(r) => r,
            None => {
                let mut black = engines.remove(&spec.black).expect("spawned");
                let mut white = engines.remove(&spec.white).expect("spawned");
                let infos = |i: usize| -> Vec<(String, String)> {
                    let all = o.infos.get("all").unwrap_or(&no_info);
                    let own = o.infos.get(&o.engines[i].0).unwrap_or(&no_info);
                    all.iter().chain(own).cloned().collect()
                };
                let (ib, iw) = (infos(spec.black), infos(spec.white));
                let rec = game::play([&mut black, &mut white], opening, &o.cfg, [&ib, &iw]);
                // An engine that failed is started afresh for its next game.
                let faulty = rec.fault.map(|(side, _)| side);
                if faulty != Some(Color::Black) {
                    engines.insert(spec.black, black);
                }
                if faulty != Some(Color::White) {
                    engines.insert(spec.white, white);
                }
                rec
            }
        };
        if results.send((spec, rec)).is_err() {
            break;
        }
    }
    for (_, mut e) in engines {
        e.end();
    }
}

#[derive(Default)]
struct Faults {
    timeouts: u32,
    crashes: u32,
    illegal: u32,
    /// Games whose opponent gave evaluations, and those in which it announced a forced win
    /// right after a move it rated below +300 (`GameRecord::sudden_win`).
    rated_games: u32,
    sudden_losses: u32,
    /// Games it did not win after claiming a forced win for one of its moves, among the games
    /// in which it gave evaluations (`GameRecord::broken_claim`).
    own_rated: u32,
    broken_claims: u32,
    /// Milliseconds of every move the engine made.
    times_ms: Vec<u64>,
}

impl Faults {
    /// "N moves, median M ms, max X ms" over the engine's moves.
    fn time_summary(&mut self) -> String {
        let t = &mut self.times_ms;
        if t.is_empty() {
            return "no moves".into();
        }
        t.sort_unstable();
        format!(
            "{} moves, median {} ms, 90% {} ms, max {} ms",
            t.len(),
            t[t.len() / 2],
            t[t.len() * 9 / 10],
            t[t.len() - 1]
        )
    }
}

fn append(path: &str, text: &str) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

fn run(o: Options) -> Result<()> {
    if let Some((f, header)) = &o.save_openings {
        let mut text = format!("{header}\n");
        for opening in &o.openings {
            text += &openings::offsets_line(opening, o.cfg.dims);
            text.push('\n');
        }
        std::fs::write(f, text).with_context(|| format!("writing {f}"))?;
        println!("{} openings written to {f}", o.openings.len());
        return Ok(());
    }
    let specs = schedule(&o);
    let total = specs.len();
    let o = Arc::new(o);
    let queue = Arc::new(Mutex::new(VecDeque::from(specs)));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let workers: Vec<_> = (0..o.concurrency.min(total.max(1)))
        .map(|_| {
            let (o, q, s, tx) = (
                Arc::clone(&o),
                Arc::clone(&queue),
                Arc::clone(&stop),
                tx.clone(),
            );
            thread::spawn(move || worker(&o, &q, &s, tx))
        })
        .collect();
    drop(tx);
    if let Some(dir) = &o.psq {
        std::fs::create_dir_all(dir)?;
    }
    let names: Vec<&str> = o.engines.iter().map(|(n, _)| n.as_str()).collect();
    let mut tallies: HashMap<(usize, usize), Tally> = HashMap::new();
    // The first engine's score in the round's game that ended first, until its partner ends.
    let mut halves: HashMap<((usize, usize), usize), f64> = HashMap::new();
    let mut paired: HashMap<(usize, usize), Pairs> = HashMap::new();
    // The first engine's games by its colour: [as black, as white].
    let mut by_colour: HashMap<(usize, usize), [Tally; 2]> = HashMap::new();
    let mut faults: Vec<Faults> = (0..names.len()).map(|_| Faults::default()).collect();
    let mut done = 0;
    let mut sprt_verdict = None;
    for (spec, rec) in rx {
        done += 1;
        let (bn, wn) = (names[spec.black], names[spec.white]);
        let first_score = match rec.winner {
            Some(Color::Black) if spec.black == spec.pair.0 => 1.0,
            Some(Color::White) if spec.white == spec.pair.0 => 1.0,
            None => 0.5,
            _ => 0.0,
        };
        if let Some(other) = halves.remove(&(spec.pair, spec.round)) {
            paired.entry(spec.pair).or_default().add(other, first_score);
        } else {
            halves.insert((spec.pair, spec.round), first_score);
        }
        by_colour.entry(spec.pair).or_default()[usize::from(spec.black != spec.pair.0)]
            .add(first_score);
        let t = tallies.entry(spec.pair).or_default();
        t.add(first_score);
        // The first move after the opening is black's when the opening has an even length.
        let black_first = rec.opening.len() % 2 == 0;
        for (k, &ms) in rec.times_ms.iter().enumerate() {
            let who = if (k % 2 == 0) == black_first {
                spec.black
            } else {
                spec.white
            };
            faults[who].times_ms.push(ms);
        }
        let sudden = rec.sudden_win();
        for (who, side) in [(spec.black, Color::Black), (spec.white, Color::White)] {
            let rated = rec.evals.iter().enumerate().any(|(k, e)| {
                e.is_some() && ((k % 2 == 0) == black_first) == (side == Color::White)
            });
            faults[who].rated_games += rated as u32;
            faults[who].sudden_losses += (sudden == Some(side.opp())) as u32;
            let own = rec.evals.iter().enumerate().any(|(k, e)| {
                e.is_some() && ((k % 2 == 0) == black_first) == (side == Color::Black)
            });
            faults[who].own_rated += own as u32;
            faults[who].broken_claims += rec.broken_claim(side) as u32;
        }
        if let Some((side, f)) = rec.fault {
            let who = if side == Color::Black {
                spec.black
            } else {
                spec.white
            };
            let e = &mut faults[who];
            match f {
                Fault::Timeout => e.timeouts += 1,
                Fault::Crash => e.crashes += 1,
                Fault::Illegal => e.illegal += 1,
            }
        }
        let (a, b) = spec.pair;
        println!(
            "[{done}/{total}] game {} {bn} (black) vs {wn}: {} {} | {} vs {}: {}-{}-{}",
            spec.number,
            record::result_text(&rec),
            rec.reason,
            names[a],
            names[b],
            t.wins,
            t.losses,
            t.draws
        );
        if let Some(path) = &o.records {
            append(
                path,
                &(record::line(spec.number, bn, wn, &o.cfg, &rec) + "\n"),
            )?;
        }
        if let Some(path) = &o.sgf {
            append(path, &record::sgf(o.cfg.dims, bn, wn, &rec))?;
        }
        if let Some(dir) = &o.psq {
            let path = format!("{dir}/game{:04}.psq", spec.number);
            std::fs::write(path, record::psq(o.cfg.dims, bn, wn, &rec))?;
        }
        if let (Some(sprt), None) = (&o.sprt, sprt_verdict) {
            let v = sprt.verdict(t.llr(sprt));
            if v != Verdict::Continue {
                sprt_verdict = Some(v);
                stop.store(true, Ordering::Relaxed);
                println!("SPRT decided ({v:?}); finishing the games in progress");
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    println!("\nResults");
    let mut pairs: Vec<_> = tallies.into_iter().collect();
    pairs.sort_by_key(|(p, _)| *p);
    for ((a, b), t) in pairs {
        let (elo, lo, hi) = t.elo();
        println!(
            "{} vs {}: {}-{}-{} (W-L-D) in {} games, score {:.1}%, Elo {:+.1} (95%: {:+.1} to {:+.1})",
            names[a],
            names[b],
            t.wins,
            t.losses,
            t.draws,
            t.games(),
            100.0 * t.score(),
            elo,
            lo,
            hi
        );
        if let Some(p) = paired.get(&(a, b)) {
            let (elo, lo, hi) = p.elo();
            let pt = &p.points;
            println!(
                "{} vs {} by opening, both games (pentanomial): {} pairs; points 2: {}, 1.5: {}, 1: {} ({} won once by each, by the same colour), 0.5: {}, 0: {}",
                names[a], names[b], p.count(), pt[4], pt[3], pt[2], p.split, pt[1], pt[0]
            );
            println!(
                "  score {:.1}%, Elo {:+.1} (95%: {:+.1} to {:+.1}); the split pairs cap the score at {:.1}%",
                100.0 * p.score(),
                elo,
                lo,
                hi,
                100.0 * p.ceiling()
            );
        }
        if let Some([black, white]) = by_colour.get(&(a, b)) {
            let side = |t: &Tally| {
                format!(
                    "{}-{}-{} ({:.1}%)",
                    t.wins,
                    t.losses,
                    t.draws,
                    100.0 * t.score()
                )
            };
            println!(
                "{} vs {} by {}'s colour: as black {}, as white {}",
                names[a],
                names[b],
                names[a],
                side(black),
                side(white)
            );
        }
        if let Some(sprt) = &o.sprt {
            let (l, u) = sprt.bounds();
            let llr = t.llr(sprt);
            println!(
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} (bounds {:.3}, {:.3}) -> {:?}",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                llr,
                l,
                u,
                sprt.verdict(llr)
            );
        }
    }
    for (name, f) in names.iter().zip(&mut faults) {
        println!(
            "{name}: {} timeouts, {} crashes, {} illegal moves",
            f.timeouts, f.crashes, f.illegal
        );
        println!("{name} time per move: {}", f.time_summary());
        if f.rated_games > 0 {
            println!(
                "{name}: {} sudden losses in {} games whose opponent gave evaluations ({:.1} per 100): it announced a forced win right after a move it rated below +{}",
                f.sudden_losses,
                f.rated_games,
                100.0 * f.sudden_losses as f64 / f.rated_games as f64,
                game::SUDDEN_BELOW
            );
        }
        if f.own_rated > 0 {
            println!(
                "{name}: {} broken claims in {} games it gave evaluations in ({:.1} per 100): lost or drawn after it claimed a forced win",
                f.broken_claims,
                f.own_rated,
                100.0 * f.broken_claims as f64 / f.own_rated as f64,
            );
        }
    }
    Ok(())
}

/// NAME's points (0 to 2) on each opening it played in pairs (an even number of games) in the
/// records `files` (comma-separated), keyed by the opponent, rule, board and opening: an opening
/// that two of the run's sets share counts once, its pairs averaged. Also how many openings it
/// played an odd number of times.
fn run_points(name: &str, files: &str) -> Result<(BTreeMap<String, f64>, usize)> {
    let mut games: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
        for line in text.lines() {
            let Some(g) = record::parse_line(line) else {
                continue;
            };
            let (opponent, first) = if g.black == name {
                (&g.white, Color::Black)
            } else if g.white == name {
                (&g.black, Color::White)
            } else {
                continue;
            };
            let points = match g.winner {
                Some(c) if c == first => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            let opening: Vec<String> = g.opening.iter().map(Pos::to_string).collect();
            let key = format!(
                "{opponent} {} {}x{} {}",
                g.rule.name(),
                g.dims.width,
                g.dims.height,
                opening.join(" ")
            );
            games.entry(key).or_default().push(points);
        }
    }
    if games.is_empty() {
        bail!("no game of {name} in {files}");
    }
    let odd = games.values().filter(|v| v.len() % 2 == 1).count();
    let paired = games
        .into_iter()
        .filter(|(_, v)| v.len() % 2 == 0)
        .map(|(k, v)| (k, v.iter().sum::<f64>() * 2.0 / v.len() as f64))
        .collect();
    Ok((paired, odd))
}

/// `--compare NAME A B`: NAME's results in two runs' records, opening by opening.
fn compare(name: &str, a: &str, b: &str) -> Result<()> {
    let (run_a, odd_a) = run_points(name, a)?;
    let (run_b, odd_b) = run_points(name, b)?;
    let points: Vec<(f64, f64)> = run_a
        .iter()
        .filter_map(|(key, &pa)| run_b.get(key).map(|&pb| (pa, pb)))
        .collect();
    if points.is_empty() {
        bail!("no opening that {name} played in pairs in both runs");
    }
    let only = run_a.len() + run_b.len() - 2 * points.len();
    let p = Paired::from_points(&points);
    let pct = |x: f64| 100.0 * x;
    println!(
        "{name}: {} openings played in pairs in both runs ({only} in one run only, {} an odd number of times)",
        p.openings,
        odd_a + odd_b
    );
    println!("A ({a}) {:.1}% a game, B ({b}) {:.1}%", pct(p.a), pct(p.b));
    println!(
        "A - B: {:+.1} points a game (95%: {:+.1} to {:+.1}); openings better in A {}, the same {}, worse {}",
        pct(p.diff),
        pct(p.low),
        pct(p.high),
        p.better,
        p.same,
        p.worse
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [flag, name, a, b] if flag == "--compare" => compare(name, a, b),
        [flag, ..] if flag == "--compare" => Err(anyhow!("--compare takes NAME A B\n{USAGE}")),
        _ => parse_args(&args).and_then(run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wuzi-arena: {e:#}");
            ExitCode::from(2)
        }
    }
}
