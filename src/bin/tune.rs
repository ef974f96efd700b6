//! `wuzi-tune`: fits the pattern evaluation's weights to the results of `wuzi-arena` games (the
//! Texel method) and writes them as `src/board/weights/data.rs`, which the build embeds.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use wuzi::bench::search_score;
use wuzi::board::weights::{ORDER, WEIGHTS};
use wuzi::eval::order_tune::{self, OrderSample, OrderStats};
use wuzi::eval::tune::{self, FitOptions, Sample};
use wuzi::manager::record::{self, ReadGame};
use wuzi::search::params::Params;

const USAGE: &str = "usage: wuzi-tune init [--out FILE]
       wuzi-tune fit RECORDS... [--out FILE] [--epochs N] [--rate R] [--reg L] [--from-init]
                     [--threats-only]
       wuzi-tune order RECORDS... [--out FILE] [--epochs N] [--rate R] [--reg L] [--from-init]
       wuzi-tune label RECORDS... --out FILE [--nodes N]
  (fit: --epochs 1000 --rate 12 unless given; order: --epochs 400 --rate 0.1, as the shipped table)
  init       write the starting weights (a formula over shapes and threat classes)
  fit        fit the weights to the games of arena record files (one line per game, as
             written by wuzi-arena --records); every 10th game is held out to check the fit.
             Starts from the built-in weights (from the formula with --from-init); with
             --threats-only the pattern tables stay and only the tempo and the threat-level
             tables are fitted.
  order      fit the move-ordering scores to the moves chosen in the games of arena record
             files (a softmax over each position's candidates); every 10th game is held out
             and the top-1 / top-3 agreement of the learned and the hand-set scores printed.
             Starts from the built-in scores (from zero with --from-init).
  label      search every quiet position of the games again (N nodes, 10000 unless given, one
             thread, a fresh table: the same on every machine) and write the records with
             their scores (`scores=\"...\"`, one a move); fit then blends each result with its
             position's score by --search-weight W (0 to 1, 0 unless given)
  --out FILE where to write (default src/board/weights/data.rs, for order
             src/board/weights/order.rs)";

struct Args {
    files: Vec<String>,
    out: Option<String>,
    /// `--epochs` and `--rate`, where given (the two fits have different defaults).
    epochs: Option<usize>,
    rate: Option<f64>,
    options: FitOptions,
    from_init: bool,
    /// `label`: the nodes of each position's search.
    nodes: u64,
    /// `fit`: the share of a label that is the position's search score.
    search_weight: f64,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        files: Vec::new(),
        out: None,
        epochs: None,
        rate: None,
        options: FitOptions {
            epochs: 1000,
            rate: 12.0,
            regularization: 0.0,
            threats_only: false,
        },
        from_init: false,
        nodes: 10_000,
        search_weight: 0.0,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--out" => a.out = Some(value()?.clone()),
            "--epochs" => a.epochs = Some(value()?.parse()?),
            "--rate" => a.rate = Some(value()?.parse()?),
            "--reg" => a.options.regularization = value()?.parse()?,
            "--from-init" => a.from_init = true,
            "--nodes" => a.nodes = value()?.parse()?,
            "--search-weight" => {
                a.search_weight = value()?.parse()?;
                if !(0.0..=1.0).contains(&a.search_weight) {
                    bail!("--search-weight must lie between 0 and 1");
                }
            }
            "--threats-only" => a.options.threats_only = true,
            s if s.starts_with("--") => bail!("unknown option {s}\n{USAGE}"),
            file => a.files.push(file.to_string()),
        }
    }
    Ok(a)
}

fn fit(mut a: Args) -> Result<()> {
    if a.files.is_empty() {
        bail!("give record files\n{USAGE}");
    }
    a.options.epochs = a.epochs.unwrap_or(a.options.epochs);
    a.options.rate = a.rate.unwrap_or(a.options.rate);
    let w = a.search_weight;
    let (train, held, games): (Vec<Sample>, _, _) =
        read_games(&a.files, |g| tune::game_samples_with(g, w))?;
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
    let provenance = format!(
        "{}\nCross-entropy, training {:.5} -> {:.5}, held out {:.5} -> {:.5}.",
        fitted_by("fit", &a, games, train.len() + held.len(), held.len()),
        before.0,
        after.0,
        before.1,
        after.1
    );
    let out = a.out.as_deref().unwrap_or("src/board/weights/data.rs");
    std::fs::write(out, tune::weights_source(&w, &provenance))?;
    println!("wrote {out}");
    Ok(())
}

/// The games of the record files, every 10th held out: (training, held out, games).
fn read_games<T>(
    files: &[String],
    samples: impl Fn(&ReadGame) -> Vec<T>,
) -> Result<(Vec<T>, Vec<T>, usize)> {
    let (mut train, mut held) = (Vec::new(), Vec::new());
    let mut games = 0;
    for f in files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?;
        for line in text.lines() {
            let Some(game) = record::parse_line(line) else {
                continue;
            };
            games += 1;
            if games % 10 == 0 {
                held.extend(samples(&game));
            } else {
                train.extend(samples(&game));
            }
        }
    }
    println!(
        "{games} games: {} training positions, {} held out",
        train.len(),
        held.len()
    );
    Ok((train, held, games))
}

/// The first two lines of a generated file's provenance: which fit (`cmd`), the games and
/// positions it read, then its options.
fn fitted_by(cmd: &str, a: &Args, games: usize, positions: usize, held: usize) -> String {
    let o = &a.options;
    let what = if cmd == "order" {
        "to the moves of"
    } else {
        "to"
    };
    format!(
        "Fitted by `wuzi-tune {cmd}` {what} {games} games ({}): {positions} positions, {held} held out.\n\
         Options: --epochs {} --rate {} --reg {}{}{}{}.",
        short_names(&a.files),
        o.epochs,
        o.rate,
        o.regularization,
        if a.from_init { " --from-init" } else { "" },
        if o.threats_only {
            " --threats-only"
        } else {
            ""
        },
        if a.search_weight > 0.0 {
            format!(" --search-weight {}", a.search_weight)
        } else {
            String::new()
        },
    )
}

/// Each file as its folder and name (the folders tell generations apart).
fn short_names(files: &[String]) -> String {
    files
        .iter()
        .map(|f| {
            let parts: Vec<&str> = f.rsplit('/').take(2).collect();
            parts.into_iter().rev().collect::<Vec<_>>().join("/")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn show(what: &str, s: &OrderStats) -> String {
    format!(
        "{what}: cross-entropy {:.4}, top-1 {:.1}%, top-3 {:.1}% (hand-set scores {:.1}% / {:.1}%)",
        s.loss,
        100.0 * s.top1,
        100.0 * s.top3,
        100.0 * s.hand_top1,
        100.0 * s.hand_top3
    )
}

fn order(mut a: Args) -> Result<()> {
    if a.files.is_empty() {
        bail!("give record files\n{USAGE}");
    }
    a.options.epochs = a.epochs.unwrap_or(400);
    a.options.rate = a.rate.unwrap_or(0.1);
    let (train, held, games): (Vec<OrderSample>, _, _) =
        read_games(&a.files, order_tune::game_samples)?;
    let mut p = if a.from_init {
        vec![0.0; order_tune::PARAMS]
    } else {
        order_tune::flatten(&ORDER)
    };
    let before = order_tune::stats(&held, &p);
    println!("{}", show("held out before", &before));
    order_tune::fit(&train, &mut p, &a.options, &mut |e, l| {
        println!("epoch {e}: training cross-entropy {l:.5}");
    });
    let w = order_tune::unflatten(&p);
    let p = order_tune::flatten(&w);
    let (t, h) = (order_tune::stats(&train, &p), order_tune::stats(&held, &p));
    println!("{}", show("training", &t));
    println!("{}", show("held out", &h));
    for (c, (mine, theirs)) in order_tune::class_means(&train, &p).iter().enumerate() {
        println!(
            "class {:?}: mine {mine:.2}, theirs {theirs:.2}",
            wuzi::board::pattern::Class::from_u8(c as u8)
        );
    }
    let provenance = format!(
        "{}\n{}.\n{}.",
        fitted_by("order", &a, games, train.len() + held.len(), held.len()),
        show("Training", &t),
        show("Held out", &h),
    );
    let out = a.out.as_deref().unwrap_or("src/board/weights/order.rs");
    std::fs::write(out, order_tune::order_source(&w, &provenance))?;
    println!("wrote {out}");
    Ok(())
}

/// `wuzi-tune label`: the records of `a.files` again, each with the search scores of its quiet
/// positions (those a fit reads) in a `scores` field.
fn label(a: Args) -> Result<()> {
    let Some(out) = a.out.as_deref() else {
        bail!("label needs --out FILE\n{USAGE}");
    };
    if a.files.is_empty() {
        bail!("give record files\n{USAGE}");
    }
    let params = Params::default();
    let mut text = String::new();
    let (mut games, mut positions) = (0, 0);
    for f in &a.files {
        let input = std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?;
        for line in input.lines() {
            let Some(game) = record::parse_line(line) else {
                continue;
            };
            let mut scores = Vec::with_capacity(game.moves.len());
            tune::replay(&game, |board, _| {
                scores.push(if tune::sample(board, 0.5).is_some() {
                    positions += 1;
                    let s =
                        search_score(board.clone(), game.rule, a.nodes, LABEL_TT_BYTES, &params);
                    s.to_string()
                } else {
                    "-".to_string()
                });
            });
            games += 1;
            // A record labelled before keeps only its new scores.
            let kept = line.split(" scores=").next().unwrap_or(line).trim_end();
            text += &format!("{kept} scores=\"{}\"\n", scores.join(" "));
        }
    }
    std::fs::write(out, text)?;
    println!(
        "{games} games, {positions} positions searched to {} nodes: wrote {out}",
        a.nodes
    );
    Ok(())
}

/// The table of each `label` search: room for its nodes, cheap to clear.
const LABEL_TT_BYTES: usize = 1 << 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("init") => parse(&args[1..]).and_then(|a| {
            let text = tune::weights_source(
                &tune::initial_weights(),
                "The starting weights of `wuzi-tune init`, not fitted yet.",
            );
            let out = a.out.as_deref().unwrap_or("src/board/weights/data.rs");
            std::fs::write(out, text)?;
            println!("wrote {out}");
            Ok(())
        }),
        Some("fit") => parse(&args[1..]).and_then(fit),
        Some("order") => parse(&args[1..]).and_then(order),
        Some("label") => parse(&args[1..]).and_then(label),
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
