//! `wuzi-tune`: fits the pattern evaluation's weights to the results of `wuzi-arena` games (the
//! Texel method) and writes them as `src/board/weights/data.rs`, which the build embeds.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use wuzi::board::weights::WEIGHTS;
use wuzi::eval::tune::{self, FitOptions, Sample};
use wuzi::manager::record;

const USAGE: &str = "usage: wuzi-tune init [--out FILE]
       wuzi-tune fit RECORDS... [--out FILE] [--epochs N] [--rate R] [--reg L] [--from-init]
                     [--threats-only]
  init       write the starting weights (a formula over shapes and threat classes)
  fit        fit the weights to the games of arena record files (one line per game, as
             written by wuzi-arena --records); every 10th game is held out to check the fit.
             Starts from the built-in weights (from the formula with --from-init); with
             --threats-only the pattern tables stay and only the tempo and the threat-level
             tables are fitted.
  --out FILE where to write (default src/board/weights/data.rs)";

struct Args {
    files: Vec<String>,
    out: String,
    options: FitOptions,
    from_init: bool,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        files: Vec::new(),
        out: "src/board/weights/data.rs".into(),
        options: FitOptions {
            epochs: 1000,
            rate: 12.0,
            regularization: 0.0,
            threats_only: false,
        },
        from_init: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--out" => a.out = value()?.clone(),
            "--epochs" => a.options.epochs = value()?.parse()?,
            "--rate" => a.options.rate = value()?.parse()?,
            "--reg" => a.options.regularization = value()?.parse()?,
            "--from-init" => a.from_init = true,
            "--threats-only" => a.options.threats_only = true,
            s if s.starts_with("--") => bail!("unknown option {s}\n{USAGE}"),
            file => a.files.push(file.to_string()),
        }
    }
    Ok(a)
}

fn fit(a: Args) -> Result<()> {
    if a.files.is_empty() {
        bail!("give record files\n{USAGE}");
    }
    let (mut train, mut held): (Vec<Sample>, Vec<Sample>) = (Vec::new(), Vec::new());
    let mut games = 0;
    for f in &a.files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?;
        for line in text.lines() {
            let Some(game) = record::parse_line(line) else {
                continue;
            };
            games += 1;
            let samples = tune::game_samples(&game);
            if games % 10 == 0 {
                held.extend(samples);
            } else {
                train.extend(samples);
            }
        }
    }
    println!(
        "{games} games: {} training positions, {} held out",
        train.len(),
        held.len()
    );
    let start = if a.from_init {
        tune::initial_weights()
    } else {
        WEIGHTS.clone()
    };
    let mut p = tune::flatten(&start);
    let before = (tune::loss(&train, &p), tune::loss(&held, &p));
    println!(
        "loss before: training {:.5}, held out {:.5}",
        before.0, before.1
    );
    tune::fit(&train, &mut p, &a.options, &mut |epoch, l| {
        println!("epoch {epoch}: training loss {l:.5}");
    });
    let w = tune::unflatten(&p);
    let p = tune::flatten(&w);
    let after = (tune::loss(&train, &p), tune::loss(&held, &p));
    println!(
        "loss after:  training {:.5}, held out {:.5}",
        after.0, after.1
    );
    // Each file as its folder and name (the folders tell generations apart).
    let names: Vec<String> = a
        .files
        .iter()
        .map(|f| {
            let parts: Vec<&str> = f.rsplit('/').take(2).collect();
            parts.into_iter().rev().collect::<Vec<_>>().join("/")
        })
        .collect();
    let o = &a.options;
    let provenance = format!(
        "Fitted by `wuzi-tune fit` to {games} games ({}): {} positions, {} held out.\n\
         Options: --epochs {} --rate {} --reg {}{}{}.\n\
         Cross-entropy, training {:.5} -> {:.5}, held out {:.5} -> {:.5}.",
        names.join(", "),
        train.len() + held.len(),
        held.len(),
        o.epochs,
        o.rate,
        o.regularization,
        if a.from_init { " --from-init" } else { "" },
        if o.threats_only {
            " --threats-only"
        } else {
            ""
        },
        before.0,
        after.0,
        before.1,
        after.1
    );
    std::fs::write(&a.out, tune::weights_source(&w, &provenance))?;
    println!("wrote {}", a.out);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("init") => parse(&args[1..]).and_then(|a| {
            let text = tune::weights_source(
                &tune::initial_weights(),
                "The starting weights of `wuzi-tune init`, not fitted yet.",
            );
            std::fs::write(&a.out, text)?;
            println!("wrote {}", a.out);
            Ok(())
        }),
        Some("fit") => parse(&args[1..]).and_then(fit),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wuzi-tune: {e:#}");
            ExitCode::FAILURE
        }
    }
}
