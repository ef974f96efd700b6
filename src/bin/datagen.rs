//! `wuzi-datagen`: self-play training data for the network evaluation (`wuzi::nnue::data` has
//! the format). A run is `--games G` games numbered 0..G; `--shard K/N` plays those whose number
//! is K modulo N, so that N machines each play one part and `cat` merges the parts. A game
//! depends only on the seed, its number and the node budgets: any split gives the same games.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wuzi::nnue::data::{GameRecord, Reader, Writer};
use wuzi::nnue::selfplay::{self, Config};
use wuzi::search::tt::TranspositionTable;

const USAGE: &str = "usage: wuzi-datagen --games G --out FILE [options]
  --games G          games in the whole run (numbered 0..G)
  --out FILE         where this shard's games go (a new file)
  --shard K/N        play the games whose number is K modulo N (default 0/1: all)
  --seed S           the run's seed (default 1)
  --nodes N          nodes of the search that plays each move (default 4000)
  --score-nodes N    nodes of the search that scores each position (default 16000; 0: the
                     playing search's score)
  --random-moves M   moves after the opening picked among the near-best lines (default 2)
  --threads T        games played at once (default 1; the output is the same)
  --set NAME=VALUE   a search tunable, as INFO wuzi_NAME (nnue=1: the network plays)
wuzi-datagen --stats FILE   counts a data file's games and positions by rule and size";

fn main() {
    if let Err(e) = run() {
        eprintln!("wuzi-datagen: {e:#}");
        std::process::exit(2);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, file] = &args[..] {
        if flag == "--stats" {
            return stats(file);
        }
    }
    let mut cfg = Config::default();
    let (mut games, mut out, mut shard, mut threads) = (None, None, (0u64, 1u64), 1usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .with_context(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--games" => games = Some(value()?.parse::<u64>()?),
            "--out" => out = Some(value()?.clone()),
            "--seed" => cfg.seed = value()?.parse()?,
            "--nodes" => cfg.play_nodes = value()?.parse()?,
            "--score-nodes" => cfg.score_nodes = value()?.parse()?,
            "--random-moves" => cfg.random_moves = value()?.parse()?,
            "--threads" => threads = value()?.parse::<usize>()?.max(1),
            "--set" => {
                let v = value()?;
                if !cfg.params.set_pair(v) {
                    bail!("--set {v}: not NAME=VALUE, no such tunable, or out of range");
                }
            }
            "--shard" => {
                let v = value()?;
                let (k, n) = v.split_once('/').context("--shard K/N")?;
                shard = (k.parse()?, n.parse()?);
                if shard.1 == 0 || shard.0 >= shard.1 {
                    bail!("--shard {v}: K must be below N");
                }
            }
            _ => bail!("unknown argument {a}\n{USAGE}"),
        }
    }
    let (Some(games), Some(out)) = (games, out) else {
        bail!("{USAGE}");
    };
    if cfg.play_nodes == 0 {
        bail!("--nodes must be above 0");
    }
    let mine: Vec<u64> = (shard.0..games).step_by(shard.1 as usize).collect();
    let file = File::create(&out).with_context(|| format!("creating {out}"))?;
    let mut writer = Writer::new(BufWriter::new(file))?;
    let started = Instant::now();
    let next = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<(usize, GameRecord)>();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (cfg, mine, next) = (&cfg, &mine, &next);
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(scope, move || {
                    let mut tt = TranspositionTable::new(cfg.tt_bytes);
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some(&index) = mine.get(k) else { break };
                        let game = selfplay::play(cfg, index, &mut tt);
                        if tx.send((k, game)).is_err() {
                            break;
                        }
                    }
                })?;
        }
        drop(tx);
        // Games are written in their order, whichever thread finishes first.
        let mut waiting = std::collections::BTreeMap::new();
        let mut written = 0usize;
        let mut last_report = Instant::now();
        for (k, game) in rx {
            positions.fetch_add(game.labels.len() as u64, Ordering::Relaxed);
            waiting.insert(k, game);
            while let Some(g) = waiting.remove(&written) {
                writer.write(&g)?;
                written += 1;
            }
            if last_report.elapsed().as_secs_f64() >= 5.0 || written == mine.len() {
                last_report = Instant::now();
                let secs = started.elapsed().as_secs_f64().max(1e-3);
                let p = positions.load(Ordering::Relaxed);
                let left = secs / written.max(1) as f64 * (mine.len() - written) as f64;
                eprintln!(
                    "wuzi-datagen: shard {}/{}: {written}/{} games, {p} positions, {:.0} positions/s, {:.0} s left",
                    shard.0,
                    shard.1,
                    mine.len(),
                    p as f64 / secs,
                    left
                );
            }
        }
        Ok(())
    })?;
    let (g, p) = writer.finish()?;
    eprintln!(
        "wuzi-datagen: wrote {g} games, {p} positions to {out} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Games and positions of a data file by rule and size, and how many are proven or repeated.
fn stats(file: &str) -> Result<()> {
    let f = File::open(file).with_context(|| format!("opening {file}"))?;
    let mut reader = Reader::new(std::io::BufReader::new(f));
    let mut by: std::collections::BTreeMap<(String, usize), (u64, u64)> = Default::default();
    let (mut games, mut results, mut checksum) = (0u64, [0u64; 3], 0u64);
    // One pass, so that a pipe (`--stats <(cat part-*)`) counts as a file does.
    let (mut all, mut forced) = (0u64, 0u64);
    let mut seen = std::collections::HashSet::new();
    while let Some(g) = reader.next_game()? {
        games += 1;
        // Order-free: the shards of a run, concatenated, give the whole run's checksum.
        checksum = checksum.wrapping_add(game_hash(&g));
        results[(g.result + 1) as usize] += 1;
        let e = by
            .entry((g.rule.name().to_string(), g.dims.width))
            .or_default();
        e.0 += 1;
        e.1 += g.labels.len() as u64;
        for s in g.samples() {
            all += 1;
            forced += (s.label.flags & wuzi::nnue::data::FORCED != 0) as u64;
            seen.insert(wuzi::nnue::data::position_key(&s));
        }
    }
    let unique = seen.len();
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the report, not the program with a panic.
    let _ = writeln!(
        out,
        "{file}: {games} games (black won {}, white won {}, drawn {}), {all} positions, {forced} proven, {unique} unique, checksum {checksum:016x}",
        results[2], results[0], results[1]
    );
    for ((rule, side), (g, p)) in by {
        let _ = writeln!(out, "  {rule} {side}x{side}: {g} games, {p} positions");
    }
    Ok(())
}

/// FNV-1a over a game's rule, size, result, moves and labels.
fn game_hash(g: &GameRecord) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    };
    eat(g.rule.info_value() as u8);
    eat(g.dims.width as u8);
    eat(g.result as u8);
    eat(g.opening as u8);
    for p in &g.moves {
        eat(p.x);
        eat(p.y);
    }
    for l in &g.labels {
        l.score.to_le_bytes().into_iter().for_each(&mut eat);
        eat(l.flags);
    }
    h
}
