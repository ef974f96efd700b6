//! `wuzi-claims`: checks an engine's forced-win claims. Each position (from game records,
//! where an engine reported a forced win for its move, or from a positions file) is searched
//! by the engine at a node budget; where it claims a win, pbrain-wuzi's full-width reference
//! search (`manager::claims::REFERENCE`) confirms or refutes the claim. Prints the counts; exits
//! with 1 if any claim was proven false.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use wuzi::manager::claims::{self, Check, Position};
use wuzi::manager::engine::Engine;
use wuzi::manager::game::Eval;
use wuzi::manager::record;

const USAGE: &str =
    "usage: wuzi-claims --engine CMD (--records FILE --name NAME | --positions FILE) [options]
  --engine CMD          the engine whose claims are checked (its search at --nodes)
  --reference CMD       the reference engine, a pbrain-wuzi (default: the --engine)
  --records FILE        arena records: the positions before NAME's moves it rated a forced win
  --name NAME           the engine's name in those records
  --all                 every claim of a game (default: its first)
  --positions FILE      positions, one per line: rule=R size=WxH moves=\"x,y ...\" label=\"...\"
  --save FILE           write the positions read from the records to FILE, and go on
  --nodes N             the engine's node budget (default 1000000)
  --check-nodes N       the reference's node budget (default 20000000)
  --full-width          the reference searches full width (no selectivity at all): only it
                        can refute a claim by depth; by default it searches every defence
  --info KEY=VALUE      INFO KEY VALUE for the engine's search (repeatable)
  --timeout MS          a search's time limit (default 600000)
  -c N                  positions at once (default 1)
  --verbose             a line for every position";

struct Options {
    engine: String,
    reference: Option<String>,
    records: Option<String>,
    name: Option<String>,
    all: bool,
    positions: Option<String>,
    save: Option<String>,
    nodes: u64,
    check_nodes: u64,
    info: Vec<String>,
    timeout_ms: u64,
    concurrency: usize,
    verbose: bool,
    full_width: bool,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        engine: String::new(),
        reference: None,
        records: None,
        name: None,
        all: false,
        positions: None,
        save: None,
        nodes: 1_000_000,
        check_nodes: 20_000_000,
        info: Vec::new(),
        timeout_ms: 600_000,
        concurrency: 1,
        verbose: false,
        full_width: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--engine" => o.engine = value()?.clone(),
            "--reference" => o.reference = Some(value()?.clone()),
            "--records" => o.records = Some(value()?.clone()),
            "--name" => o.name = Some(value()?.clone()),
            "--all" => o.all = true,
            "--positions" => o.positions = Some(value()?.clone()),
            "--save" => o.save = Some(value()?.clone()),
            "--nodes" => o.nodes = value()?.parse()?,
            "--check-nodes" => o.check_nodes = value()?.parse()?,
            "--info" => {
                let kv = value()?;
                let (k, v) = kv.split_once('=').context("--info wants KEY=VALUE")?;
                o.info.push(format!("{k} {v}"));
            }
            "--timeout" => o.timeout_ms = value()?.parse()?,
            "-c" | "--concurrency" => o.concurrency = value()?.parse::<usize>()?.max(1),
            "--verbose" => o.verbose = true,
            "--full-width" => o.full_width = true,
            _ => bail!("unknown argument {a}\n{USAGE}"),
        }
    }
    if o.engine.is_empty() {
        bail!("--engine is required\n{USAGE}");
    }
    if o.records.is_some() == o.positions.is_some() {
        bail!("give --records (with --name) or --positions\n{USAGE}");
    }
    if o.records.is_some() && o.name.is_none() {
        bail!("--records needs --name\n{USAGE}");
    }
    Ok(o)
}

fn load(o: &Options) -> Result<Vec<Position>> {
    let mut out = Vec::new();
    if let Some(path) = &o.positions {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
        out.extend(text.lines().filter_map(Position::parse));
    }
    if let (Some(path), Some(name)) = (&o.records, &o.name) {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
        for (n, line) in text.lines().enumerate() {
            let Some(game) = record::parse_line(line) else {
                continue;
            };
            for (mut pos, _) in claims::claims_in(&game, name, !o.all) {
                pos.label = format!("{path}:{} {}", n + 1, pos.label);
                out.push(pos);
            }
        }
        if let Some(save) = &o.save {
            let text: String = out.iter().map(|p| p.line() + "\n").collect();
            std::fs::write(save, text).with_context(|| format!("writing {save}"))?;
        }
    }
    Ok(out)
}

/// One position's result: the engine's claim (plies) and the reference's verdict.
type Outcome = (Option<i32>, Option<Check>);

fn check(o: &Options, engine: &mut Engine, reference: &mut Engine, pos: &Position) -> Outcome {
    let timeout = Duration::from_millis(o.timeout_ms);
    let claim = match claims::search(engine, pos, &o.info, o.nodes, timeout) {
        Ok((_, Some((_, Eval::Mate(n))))) if n > 0 => n,
        Ok(_) => return (None, None),
        Err(e) => {
            eprintln!("{}: {e}", pos.label);
            let _ = engine.restart();
            return (None, None);
        }
    };
    let infos = claims::reference_infos(if o.full_width {
        claims::FULL_WIDTH
    } else {
        claims::DEEP
    });
    match claims::search(reference, pos, &infos, o.check_nodes, timeout) {
        Ok((_, report)) => (
            Some(claim),
            Some(claims::judge(report, claim, o.full_width)),
        ),
        Err(e) => {
            eprintln!("{}: reference: {e}", pos.label);
            let _ = reference.restart();
            (Some(claim), None)
        }
    }
}

fn run(o: Options) -> Result<bool> {
    let positions = load(&o)?;
    eprintln!("{} positions", positions.len());
    let o = Arc::new(o);
    let positions = Arc::new(positions);
    let next = Arc::new(Mutex::new(0usize));
    let results = Arc::new(Mutex::new(vec![(None, None); positions.len()]));
    let mut workers = Vec::new();
    for _ in 0..o.concurrency.min(positions.len().max(1)) {
        let (o, positions, next, results) =
            (o.clone(), positions.clone(), next.clone(), results.clone());
        let mut engine = Engine::spawn("engine", &o.engine)?;
        let reference_cmd = o.reference.clone().unwrap_or_else(|| o.engine.clone());
        let mut reference = Engine::spawn("reference", &reference_cmd)?;
        workers.push(thread::spawn(move || {
            loop {
                let k = {
                    let mut n = next.lock().unwrap();
                    let k = *n;
                    *n += 1;
                    k
                };
                let Some(pos) = positions.get(k) else { break };
                let r = check(&o, &mut engine, &mut reference, pos);
                if o.verbose || r.1.is_some_and(Check::is_false) {
                    let claim = r.0.map_or("no claim".to_string(), |n| format!("+M{n}"));
                    let verdict = r.1.map_or(String::new(), |c| format!(" reference: {c:?}"));
                    println!("{}: {claim}{verdict}", pos.line());
                }
                results.lock().unwrap()[k] = r;
            }
            engine.end();
            reference.end();
        }));
    }
    for w in workers {
        let _ = w.join();
    }
    let results = results.lock().unwrap();
    let claims = results.iter().filter(|r| r.0.is_some()).count();
    let count = |f: &dyn Fn(Check) -> bool| results.iter().filter(|r| r.1.is_some_and(f)).count();
    let confirmed = count(&|c| matches!(c, Check::Confirmed(_)));
    let lost = count(&|c| matches!(c, Check::Lost(_)));
    let refuted = count(&|c| matches!(c, Check::Refuted(_)));
    let undecided = count(&|c| matches!(c, Check::Undecided(_)));
    let unconfirmed = count(&|c| matches!(c, Check::Unconfirmed(_)));
    println!(
        "{} positions, {claims} claimed a forced win: {confirmed} confirmed, {} false ({lost} lost, {refuted} refuted by a full-width depth), {unconfirmed} unconfirmed by the deeper search, {undecided} undecided",
        positions.len(),
        lost + refuted
    );
    Ok(lost + refuted == 0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match parse_args(&args).and_then(run) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("wuzi-claims: {e:#}");
            ExitCode::from(2)
        }
    }
}
