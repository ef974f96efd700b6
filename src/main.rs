//! `pbrain-wuzi`: with no arguments, speaks the Gomocup protocol on stdin/stdout; `bench`
//! runs the fixed-depth benchmark.

use std::process::ExitCode;

const USAGE: &str = "usage: pbrain-wuzi            speak the Gomocup protocol on stdin/stdout
       pbrain-wuzi bench [DEPTH] search the bench positions to DEPTH (default 7)
       pbrain-wuzi bench --time MS  the depth each bench position reaches in MS
       pbrain-wuzi bench ... --threads N  the same on N search threads
       pbrain-wuzi bench --time MS --openings FILE [--size N] [--rule R] [--count K]
                                 the depth reached from the first K openings of FILE
       pbrain-wuzi bench --time MS --openings FILE ... --nodes N
                                 the same at N nodes a search (MS as a time limit too)
       pbrain-wuzi bench ... --set NAME=VALUE  with a search tunable changed (as INFO wuzi_NAME)";

fn main() -> ExitCode {
    // Logs go to stderr only when asked for: Piskvork reads stderr as moves.
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = env_logger::try_init();
    }
    std::panic::set_hook(Box::new(|info| log::error!("panic: {info}")));
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 1;
    if let Some(k) = args.iter().position(|a| a == "--threads") {
        match args.get(k + 1).and_then(|v| v.parse().ok()) {
            Some(n) if n >= 1 => threads = n,
            _ => return usage(),
        }
        args.drain(k..k + 2);
    }
    let mut params = wuzi::search::params::Params::default();
    while let Some(k) = args.iter().position(|a| a == "--set") {
        if !args.get(k + 1).is_some_and(|v| params.set_pair(v)) {
            return usage();
        }
        args.drain(k..k + 2);
    }
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match wuzi::protocol::event_loop::serve(std::io::stdin(), &mut out) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    log::error!("output failed: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        ["bench"] => bench(wuzi::bench::BENCH_DEPTH, None, &params, threads),
        ["bench", "--time", ms, "--openings", file, ref more @ ..] => {
            openings_depth(ms, file, more, &params)
        }
        ["bench", "--time", ms] => match ms.parse() {
            Ok(ms) => bench(0, Some(ms), &params, threads),
            Err(_) => usage(),
        },
        ["bench", depth] => match depth.parse() {
            Ok(d) if d > 0 => bench(d, None, &params, threads),
            _ => usage(),
        },
        _ => usage(),
    }
}

fn bench(
    depth: i32,
    time_ms: Option<u64>,
    params: &wuzi::search::params::Params,
    threads: usize,
) -> ExitCode {
    print!("{}", wuzi::bench::run(depth, time_ms, params, threads));
    ExitCode::SUCCESS
}

/// `bench --time MS --openings FILE` with its options (`--size N`, `--rule R`, `--count K`,
/// `--nodes N`).
fn openings_depth(
    ms: &str,
    file: &str,
    options: &[&str],
    params: &wuzi::search::params::Params,
) -> ExitCode {
    let (mut size, mut rule, mut count) = (15, wuzi::rules::Rule::Freestyle, usize::MAX);
    let mut nodes = None;
    for pair in options.chunks(2) {
        let ok = match pair {
            ["--size", n] => n.parse().map(|n| size = n).is_ok(),
            ["--rule", r] => wuzi::rules::Rule::parse(r).map(|r| rule = r).is_some(),
            ["--count", k] => k.parse().map(|k| count = k).is_ok(),
            ["--nodes", n] => n.parse().map(|n| nodes = Some(n)).is_ok(),
            _ => false,
        };
        if !ok {
            return usage();
        }
    }
    let (Ok(ms), Ok(text)) = (ms.parse(), std::fs::read_to_string(file)) else {
        return usage();
    };
    let Ok(dims) = wuzi::geometry::Dims::new(size, size) else {
        return usage();
    };
    let mut openings = wuzi::manager::openings::parse_all(&text, dims);
    openings.truncate(count);
    print!(
        "{}",
        wuzi::bench::openings_depth(&openings, dims, rule, ms, nodes, params)
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    println!("{USAGE}");
    ExitCode::from(2)
}
