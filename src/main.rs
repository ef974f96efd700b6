//! `pbrain-wuzi`: with no arguments, speaks the Gomocup protocol on stdin/stdout; `bench`
//! runs the fixed-depth benchmark.

use std::process::ExitCode;

const USAGE: &str = "usage: pbrain-wuzi            speak the Gomocup protocol on stdin/stdout
       pbrain-wuzi bench [DEPTH] search the bench positions to DEPTH (default 7)
       pbrain-wuzi bench --time MS  the depth each bench position reaches in MS
       pbrain-wuzi bench ... --threads N  the same on N search threads";

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
        ["bench"] => bench(wuzi::bench::BENCH_DEPTH, None, threads),
        ["bench", "--time", ms] => match ms.parse() {
            Ok(ms) => bench(0, Some(ms), threads),
            Err(_) => usage(),
        },
        ["bench", depth] => match depth.parse() {
            Ok(d) if d > 0 => bench(d, None, threads),
            _ => usage(),
        },
        _ => usage(),
    }
}

fn bench(depth: i32, time_ms: Option<u64>, threads: usize) -> ExitCode {
    print!("{}", wuzi::bench::run(depth, time_ms, threads));
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    println!("{USAGE}");
    ExitCode::from(2)
}
