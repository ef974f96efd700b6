//! `wuzi-tactics`: gives an engine the positions of tactics test files through the protocol
//! (START, INFO, BOARD) with a time per move, and counts the answers that keep the forced win.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use wuzi::manager::engine::Engine;
use wuzi::manager::game::parse_move;
use wuzi::manager::tactics::{judge, parse_case, Case, Judgement};

const USAGE: &str = "usage: wuzi-tactics --engine CMD --file FILE [--file FILE ...] [options]
  --turn MS          time per move (INFO timeout_turn, default 1000)
  --tolerance MS     lateness forgiven before an answer counts as a timeout (default 1000)
  --every K          take every K-th position of each file (default 1)
  --limit N          at most N positions per file
  --budget NODES     threat-solver nodes to prove an unlisted answer (default 2000000)
  --info KEY=VALUE   send INFO KEY VALUE before each position (repeatable)
  -c N               positions at once, one engine process each (default 1)
  --verbose          print every position's answer";

struct Options {
    engine: String,
    files: Vec<String>,
    turn_ms: u64,
    tolerance_ms: u64,
    every: usize,
    limit: usize,
    budget: u64,
    concurrency: usize,
    verbose: bool,
    info: Vec<(String, String)>,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        engine: String::new(),
        files: Vec::new(),
        turn_ms: 1000,
        tolerance_ms: 1000,
        every: 1,
        limit: usize::MAX,
        budget: 2_000_000,
        concurrency: 1,
        verbose: false,
        info: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--engine" => o.engine = value()?.clone(),
            "--file" => o.files.push(value()?.clone()),
            "--turn" => o.turn_ms = value()?.parse()?,
            "--tolerance" => o.tolerance_ms = value()?.parse()?,
            "--every" => o.every = value()?.parse::<usize>()?.max(1),
            "--limit" => o.limit = value()?.parse()?,
            "--budget" => o.budget = value()?.parse()?,
            "-c" | "--concurrency" => o.concurrency = value()?.parse::<usize>()?.max(1),
            "--verbose" => o.verbose = true,
            "--info" => {
                let kv = value()?;
                let (k, v) = kv.split_once('=').context("--info wants KEY=VALUE")?;
                o.info.push((k.to_string(), v.to_string()));
            }
            _ => bail!("unknown option {a}"),
        }
    }
    if o.engine.is_empty() || o.files.is_empty() {
        bail!("--engine and --file are required");
    }
    Ok(o)
}

/// What happened to one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Judged(Judgement),
    Timeout,
    Garbage,
}

fn ask(engine: &mut Engine, case: &Case, lines: &[String], o: &Options) -> Result<String> {
    engine.drain();
    let rule = case.rule.info_value();
    let mut commands = vec![
        format!("START {}", case.size),
        format!("INFO rule {rule}"),
        format!("INFO timeout_turn {}", o.turn_ms),
        "INFO timeout_match 0".to_string(),
        "INFO time_left 2147483647".to_string(),
    ];
    commands.extend(o.info.iter().map(|(k, v)| format!("INFO {k} {v}")));
    commands.push("BOARD".to_string());
    commands.extend(lines.iter().cloned());
    commands.push("DONE".to_string());
    let start = Instant::now();
    for c in &commands {
        if engine.send(c).is_err() {
            bail!("engine died");
        }
        if c.starts_with("START") {
            // START is answered with OK before anything else is sent.
            let ok = engine.answer(start + Duration::from_secs(10), &mut Vec::new());
            if ok.is_err() {
                bail!("no answer to START");
            }
        }
    }
    let deadline = Instant::now() + Duration::from_millis(o.turn_ms + o.tolerance_ms);
    engine
        .answer(deadline, &mut Vec::new())
        .map_err(|_| anyhow::anyhow!("timeout"))
}

fn run_one(engine: &mut Engine, case: &Case, lines: &[String], o: &Options) -> Outcome {
    match ask(engine, case, lines, o) {
        Err(_) => {
            let _ = engine.restart();
            Outcome::Timeout
        }
        Ok(answer) => match parse_move(&answer) {
            Some((x, y)) if x >= 0 && y >= 0 && x < 64 && y < 64 => {
                let p = wuzi::geometry::Pos::new(x as usize, y as usize);
                Outcome::Judged(judge(case, p, o.budget))
            }
            _ => Outcome::Garbage,
        },
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("wuzi-tactics: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut work: Vec<(String, Case, Vec<String>)> = Vec::new();
    let mut skipped = 0;
    for file in &o.files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("wuzi-tactics: {file}: {e}");
                return ExitCode::from(2);
            }
        };
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        let cases: Vec<Case> = text.lines().filter_map(parse_case).collect();
        for case in cases.into_iter().step_by(o.every).take(o.limit) {
            match case.board_lines() {
                Some(lines) => work.push((name.clone(), case, lines)),
                None => skipped += 1,
            }
        }
    }
    let total = work.len();
    let queue = Arc::new(Mutex::new(work.into_iter().enumerate().collect::<Vec<_>>()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let o = Arc::new(o);
    let started = Instant::now();
    let workers: Vec<_> = (0..o.concurrency)
        .map(|_| {
            let (queue, results, o) = (queue.clone(), results.clone(), o.clone());
            thread::spawn(move || {
                let Ok(mut engine) = Engine::spawn("engine", &o.engine) else {
                    return;
                };
                while let Some((n, (file, case, lines))) =
                    queue.lock().ok().and_then(|mut q| q.pop())
                {
                    let out = run_one(&mut engine, &case, &lines, &o);
                    if o.verbose
                        || !matches!(out, Outcome::Judged(Judgement::Listed | Judgement::Proved))
                    {
                        println!(
                            "[{}/{total}] {file} {} ({}): {out:?}",
                            n + 1,
                            case.id,
                            case.task
                        );
                    }
                    if let Ok(mut r) = results.lock() {
                        r.push((file, case.task.clone(), out));
                    }
                }
                engine.end();
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    let results = results.lock().map(|r| r.clone()).unwrap_or_default();
    let mut table: BTreeMap<(String, String), [usize; 6]> = BTreeMap::new();
    for (file, task, out) in &results {
        let row = table.entry((file.clone(), task.clone())).or_default();
        let k = match out {
            Outcome::Judged(Judgement::Listed) => 0,
            Outcome::Judged(Judgement::Proved) => 1,
            Outcome::Judged(Judgement::Wrong) => 2,
            Outcome::Judged(Judgement::Unproved) => 3,
            Outcome::Timeout => 4,
            Outcome::Garbage => 5,
        };
        row[k] += 1;
    }
    println!(
        "\n{total} positions in {:.0} s ({skipped} skipped: their stone counts do not give the side to move through BOARD)",
        started.elapsed().as_secs_f64()
    );
    println!("file task: kept-win/total (listed + proved) wrong unproved timeout garbage");
    for ((file, task), row) in &table {
        let n: usize = row.iter().sum();
        let kept = row[0] + row[1];
        println!(
            "{file} {task}: {kept}/{n} = {:.1}% ({} + {}) wrong {} unproved {} timeout {} garbage {}",
            100.0 * kept as f64 / n.max(1) as f64,
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5]
        );
    }
    ExitCode::SUCCESS
}
