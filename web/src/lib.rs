//! Wuzi compiled to WebAssembly (`wasm32-unknown-unknown`, built by `scripts/build-web.sh`):
//! the same pbrain `Session` as the native bot, behind a few plain exports, for a Web Worker or
//! Node. There are no threads: a search runs inside the call that asked for it, and the lines
//! that arrive meanwhile are pulled from the host whenever the search reads its clock, then
//! served as the native event loop serves them (`event_loop::while_thinking`).
//!
//! Exports:
//! - `wuzi_input(len) -> ptr`: room for an input line of `len` bytes (valid until the next
//!   call); the host copies the line there, without its line ending.
//! - `wuzi_line(len) -> quit`: serves that line (and runs the search it asks for); 1 once END
//!   has come, after which the host should drop the instance.
//! - `wuzi_bench(depth)`: `pbrain-wuzi bench [DEPTH]`, its report as output lines.
//! - `wuzi_output_rate(rate, burst)`: progress lines a second and at once (default 30, 30).
//!
//! Imports (module `wuzi`):
//! - `now_ms() -> f64`: a monotonic clock in ms (`performance.now()`), see `wuzi::clock`.
//! - `output(ptr, len)`: one output line, UTF-8, without a line ending.
//! - `poll_line(ptr, cap) -> len`: the next input line that has arrived, copied to `ptr` (at
//!   most `cap` bytes), or -1 if none waits.
#![cfg(target_arch = "wasm32")]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use wuzi::clock::Instant;
use wuzi::protocol::event_loop::{while_thinking, Interrupt};
use wuzi::protocol::job::Job;
use wuzi::protocol::outbox::{self, Outbox};
use wuzi::protocol::response::Progress;
use wuzi::protocol::session::{Action, Session, MAX_LINE};
use wuzi::search::limits::Clock;
use wuzi::search::params::Params;

#[link(wasm_import_module = "wuzi")]
extern "C" {
    fn output(ptr: *const u8, len: usize);
    fn poll_line(ptr: *mut u8, cap: usize) -> isize;
}

fn emit(line: &str) {
    // SAFETY: the host reads `len` bytes at `ptr` during the call and keeps no reference.
    unsafe { output(line.as_ptr(), line.len()) }
}

fn emit_all(lines: &[String]) {
    lines.iter().for_each(|l| emit(l));
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The module's state between calls.
struct Host {
    session: Session,
    /// Lines read but not yet served (they came while a search ran).
    queue: VecDeque<(Vec<u8>, Instant)>,
    outbox: Option<Outbox>,
    input: Vec<u8>,
    quit: bool,
    /// Progress lines a second, and at once (`wuzi_output_rate`).
    rate: (u32, u32),
}

static HOST: Mutex<Option<Host>> = Mutex::new(None);

fn with_host<R>(f: impl FnOnce(&mut Host) -> R) -> R {
    let mut guard = lock(&HOST);
    let host = guard.get_or_insert_with(|| {
        // A panic aborts the module: say why on the output first.
        std::panic::set_hook(Box::new(|info| {
            emit(&format!("ERROR internal error: {info}"))
        }));
        Host {
            session: Session::new(),
            queue: VecDeque::new(),
            outbox: None,
            input: Vec::new(),
            quit: false,
            rate: (outbox::RATE, outbox::BURST),
        }
    });
    f(host)
}

#[no_mangle]
pub extern "C" fn wuzi_input(len: usize) -> *mut u8 {
    with_host(|h| {
        // One byte over the longest line keeps an over-long line over it (the session answers
        // such a line with an error).
        h.input.resize(len.min(MAX_LINE + 1), 0);
        h.input.as_mut_ptr()
    })
}

#[no_mangle]
pub extern "C" fn wuzi_line(len: usize) -> i32 {
    with_host(|h| {
        if !h.quit {
            let line = h.input[..len.min(h.input.len())].to_vec();
            h.queue.push_back((line, Instant::now()));
            serve(h);
        }
        h.quit as i32
    })
}

/// Sets how many progress lines a second (and at once) may go out: a manager's pipe gets the
/// native bot's 30; the page's worker messages are read at once, so that every N-best line's
/// INFO block can reach it.
#[no_mangle]
pub extern "C" fn wuzi_output_rate(rate: u32, burst: u32) {
    with_host(|h| {
        h.rate = (rate, burst);
        h.outbox = None;
    });
}

#[no_mangle]
pub extern "C" fn wuzi_bench(depth: i32) {
    let depth = if depth > 0 {
        depth
    } else {
        wuzi::bench::BENCH_DEPTH
    };
    let report = wuzi::bench::run(depth, None, &Params::default(), 1);
    report.lines().for_each(emit);
}

/// Serves the queued lines in order, each search to its end.
fn serve(h: &mut Host) {
    while let Some((line, at)) = h.queue.pop_front() {
        match h.session.handle_bytes(&line, at) {
            Action::Reply(lines) => emit_all(&lines),
            Action::Quit => h.quit = true,
            Action::Think(job) => h.quit = think(h, job),
        }
        if h.quit {
            return;
        }
    }
}

/// What a running search shares with the lines that arrive meanwhile.
struct Live<'a> {
    session: &'a mut Session,
    queue: &'a mut VecDeque<(Vec<u8>, Instant)>,
    outbox: &'a mut Outbox,
    buf: Vec<u8>,
    /// END came: the search stops and its answer is not printed.
    end: bool,
}

/// The search's clock: each reading first takes the lines the host has received and writes
/// the progress lines whose time has come.
struct HostClock<'a, 'b> {
    start: Instant,
    stop: &'a AtomicBool,
    live: &'a Mutex<Live<'b>>,
}

impl HostClock<'_, '_> {
    fn poll(&self) {
        let mut live = lock(self.live);
        let live = &mut *live;
        while !live.end {
            // SAFETY: the host writes at most `cap` bytes at `ptr` during the call.
            let n = unsafe { poll_line(live.buf.as_mut_ptr(), live.buf.len()) };
            let Ok(n) = usize::try_from(n) else {
                break;
            };
            let line = live.buf[..n.min(live.buf.len())].to_vec();
            let at = Instant::now();
            match while_thinking(&line, live.queue.is_empty()) {
                Interrupt::End => {
                    self.stop.store(true, Ordering::Relaxed);
                    live.end = true;
                }
                Interrupt::Stop => self.stop.store(true, Ordering::Relaxed),
                Interrupt::Now => {
                    if let Action::Reply(lines) = live.session.handle_bytes(&line, at) {
                        emit_all(&lines);
                    }
                }
                Interrupt::Supersede => {
                    self.stop.store(true, Ordering::Relaxed);
                    live.queue.push_back((line, at));
                }
                Interrupt::Wait => live.queue.push_back((line, at)),
            }
        }
        emit_all(&live.outbox.ready(Instant::now()));
    }
}

impl Clock for HostClock<'_, '_> {
    fn elapsed_ms(&self) -> u64 {
        self.poll();
        self.start.elapsed().as_millis() as u64
    }
}

/// Runs a search to its end, serving what arrives meanwhile; true when END came.
fn think(h: &mut Host, mut job: Box<Job>) -> bool {
    let stop = AtomicBool::new(false);
    let rate = h.rate;
    let outbox = h
        .outbox
        .get_or_insert_with(|| Outbox::with_rate(Instant::now(), rate.0, rate.1));
    let live = Mutex::new(Live {
        session: &mut h.session,
        queue: &mut h.queue,
        outbox,
        buf: vec![0; MAX_LINE + 1],
        end: false,
    });
    let clock = HostClock {
        start: job.started,
        stop: &stop,
        live: &live,
    };
    let mut progress = Progress::new(job.detail, |l| {
        let mut live = lock(&live);
        live.outbox.push(l);
        emit_all(&live.outbox.ready(Instant::now()));
    });
    let answer = job.run_with(&clock, &stop, &mut progress);
    drop(progress);
    let live = live.into_inner().unwrap_or_else(|e| e.into_inner());
    if live.end {
        return true;
    }
    let mut lines = live.outbox.finish();
    lines.extend(live.session.finish(job, Some(answer)));
    emit_all(&lines);
    false
}
