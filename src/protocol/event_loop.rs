//! The event loop: a reader thread turns input lines into events, searches run on their own
//! thread, and this loop is the only writer of output. While a search runs: END exits at once,
//! STOP/YXSTOP make it answer now, INFO applies to the next search, and a command that asks for
//! a new position or a new search stops the running one (its answer is printed first: a GUI
//! that changes the position while the engine thinks counts on that answer and discards it)
//! and then runs. Other lines wait for the move.

use crate::clock::Instant;
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use super::command::{self, Command};
use super::job::{Answer, Job};
use super::outbox::Outbox;
use super::response::Progress;
use super::session::{Action, Session, MAX_LINE};

enum Event {
    Line(Vec<u8>, Instant),
    Eof,
    Message(String),
    Done(Box<Job>, Option<Answer>),
}

/// Whether a command replaces the position or asks for a new search: it cuts a running
/// search short.
fn supersedes(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Start(..)
            | Command::RectStart(..)
            | Command::Restart
            | Command::Begin
            | Command::Turn(..)
            | Command::Board { .. }
            | Command::Takeback(..)
            | Command::YxNbest(_)
            | Command::YxSearchDefend
            | Command::Swap2Board
    )
}

/// What a line read while a search runs does to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// END: stop the search and exit without its answer.
    End,
    /// STOP/YXSTOP: answer now with the best move so far.
    Stop,
    /// INFO with nothing queued before it: apply it now (it sets the next search).
    Now,
    /// A new position or a new search: stop this one (its answer goes out), then serve it.
    Supersede,
    /// Anything else: serve it once the answer has gone out.
    Wait,
}

/// Classifies a line that arrives while a search runs (`idle_queue`: no line waits before it).
/// The native event loop and the WebAssembly host both follow it.
pub fn while_thinking(line: &[u8], idle_queue: bool) -> Interrupt {
    match std::str::from_utf8(line).ok().map(command::parse) {
        Some(Ok(Command::End)) => Interrupt::End,
        Some(Ok(Command::Stop)) => Interrupt::Stop,
        Some(Ok(Command::Info { .. })) if idle_queue => Interrupt::Now,
        Some(Ok(c)) if supersedes(&c) => Interrupt::Supersede,
        _ => Interrupt::Wait,
    }
}

/// Reads one line (without its LF and trailing CR). A line longer than `cap` is read to its
/// end and returned as `cap + 1` bytes of `#`, which no command starts with, so that the
/// session answers it with its length error. `None` at end of input.
fn read_line(r: &mut impl BufRead, cap: usize) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut overflow = false;
    let mut seen = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        seen = true;
        let (part, used, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        // One byte more than `cap` for a CR before the LF.
        if line.len() + part.len() <= cap + 1 {
            line.extend_from_slice(part);
        } else {
            overflow = true;
        }
        r.consume(used);
        if end {
            break;
        }
    }
    if !seen {
        return Ok(None);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if overflow || line.len() > cap {
        // Longer than any command: the session rejects it by its length (blanks would be
        // trimmed away and the line taken for an empty one).
        return Ok(Some(vec![b'#'; cap + 1]));
    }
    Ok(Some(line))
}

struct Thinking {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
}

/// Serves the protocol from `input` to `out` until END or end of input.
pub fn serve<R: Read + Send + 'static, W: Write>(input: R, out: &mut W) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    let reader_tx = tx.clone();
    thread::Builder::new()
        .name("reader".into())
        .spawn(move || {
            let mut r = BufReader::new(input);
            while let Ok(Some(line)) = read_line(&mut r, MAX_LINE) {
                if reader_tx.send(Event::Line(line, Instant::now())).is_err() {
                    return;
                }
            }
            let _ = reader_tx.send(Event::Eof);
        })?;

    let mut session = Session::new();
    let mut thinking: Option<Thinking> = None;
    let mut queue: VecDeque<(Vec<u8>, Instant)> = VecDeque::new();
    let mut eof = false;
    // The search's progress lines, rate-limited and coalesced (`outbox`): a slow reader never
    // has analysis queued ahead of the move.
    let mut outbox = Outbox::new(Instant::now());
    loop {
        while thinking.is_none() {
            let Some((line, at)) = queue.pop_front() else {
                break;
            };
            match session.handle_bytes(&line, at) {
                Action::Reply(lines) => write_lines(out, &lines)?,
                Action::Quit => return Ok(()),
                Action::Think(job) => thinking = Some(start_search(job, tx.clone())),
            }
        }
        if thinking.is_none() && eof {
            return Ok(());
        }
        let event = match outbox.wait(Instant::now()) {
            Some(wait) => match rx.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    write_lines(out, &outbox.ready(Instant::now()))?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            },
            None => match rx.recv() {
                Ok(event) => event,
                Err(_) => return Ok(()),
            },
        };
        match event {
            Event::Line(line, at) => {
                let Some(t) = &thinking else {
                    queue.push_back((line, at));
                    continue;
                };
                match while_thinking(&line, queue.is_empty()) {
                    Interrupt::End => {
                        t.stop.store(true, Ordering::Relaxed);
                        if let Some(t) = thinking.take() {
                            let _ = t.handle.join();
                        }
                        return Ok(());
                    }
                    Interrupt::Stop => t.stop.store(true, Ordering::Relaxed),
                    Interrupt::Now => {
                        // INFO may change the next move's settings now; it answers only an
                        // out-of-range value, with an ERROR line.
                        if let Action::Reply(lines) = session.handle_bytes(&line, at) {
                            write_lines(out, &lines)?;
                        }
                    }
                    Interrupt::Supersede => {
                        t.stop.store(true, Ordering::Relaxed);
                        queue.push_back((line, at));
                    }
                    Interrupt::Wait => queue.push_back((line, at)),
                }
            }
            Event::Eof => eof = true,
            Event::Message(line) => {
                outbox.push(line);
                write_lines(out, &outbox.ready(Instant::now()))?;
            }
            Event::Done(job, answer) => {
                if let Some(t) = thinking.take() {
                    let _ = t.handle.join();
                }
                let mut lines = outbox.finish();
                lines.extend(session.finish(job, answer));
                write_lines(out, &lines)?;
            }
        }
    }
}

fn write_lines<W: Write>(out: &mut W, lines: &[String]) -> io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    for l in lines {
        writeln!(out, "{l}")?;
    }
    out.flush()
}

fn start_search(job: Box<Job>, tx: Sender<Event>) -> Thinking {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let slot = Arc::new(Mutex::new(Some(job)));
    let taken = Arc::clone(&slot);
    let search_tx = tx.clone();
    let body = move || {
        let Some(mut job) = taken.lock().ok().and_then(|mut s| s.take()) else {
            return;
        };
        let progress_tx = search_tx.clone();
        let mut observer = Progress::new(job.detail, move |l| {
            let _ = progress_tx.send(Event::Message(l));
        });
        let answer = catch_unwind(AssertUnwindSafe(|| job.run(&flag, &mut observer)));
        if let Err(e) = &answer {
            log::error!("search panicked: {e:?}");
        }
        let _ = search_tx.send(Event::Done(job, answer.ok()));
    };
    let spawned = thread::Builder::new()
        .name("search".into())
        .stack_size(64 << 20)
        .spawn(body);
    let handle = match spawned {
        Ok(handle) => handle,
        Err(e) => {
            // No thread to be had: hand the job back unsearched; the session plays a quick
            // legal move instead.
            log::error!("cannot start the search thread: {e}");
            if let Some(job) = slot.lock().ok().and_then(|mut s| s.take()) {
                let _ = tx.send(Event::Done(job, None));
            }
            thread::spawn(|| {})
        }
    };
    Thinking { handle, stop }
}
