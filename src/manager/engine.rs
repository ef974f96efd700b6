//! One pbrain engine as a child process: lines in, lines out, and every read with a deadline,
//! so a hung engine can never hang the manager.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Why an engine did not give a usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No answer before the deadline.
    Timeout,
    /// The process exited or closed its output.
    Crash,
    /// A line that is neither the answer nor MESSAGE/DEBUG.
    Malformed(String),
}

impl Failure {
    pub fn describe(&self) -> String {
        match self {
            Failure::Timeout => "timeout".into(),
            Failure::Crash => "crash".into(),
            Failure::Malformed(l) => format!("malformed line '{l}'"),
        }
    }
}

/// A running engine. Invariant: `lines` receives its stdout lines until it closes.
pub struct Engine {
    pub name: String,
    command: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

/// Splits a command line on spaces, keeping "quoted parts" together.
pub fn split_command(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in cmd.chars() {
        match ch {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Engine {
    /// Starts `command` (program and arguments); its stderr is discarded.
    pub fn spawn(name: &str, command: &str) -> io::Result<Engine> {
        let parts = split_command(command);
        let Some((program, args)) = parts.split_first() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "empty engine command",
            ));
        };
        // A program given by a path runs from its own folder, as c-gomoku-cli does.
        let mut cmd = if program.contains('/') {
            let exe = Path::new(program).canonicalize()?;
            let mut c = Command::new(&exe);
            if let Some(dir) = exe.parent() {
                c.current_dir(dir);
            }
            c
        } else {
            Command::new(program)
        };
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line.trim_end_matches('\r').to_string()).is_err() {
                    break;
                }
            }
        });
        Ok(Engine {
            name: name.to_string(),
            command: command.to_string(),
            child,
            stdin,
            lines: rx,
        })
    }

    /// The same engine started afresh (after a crash or timeout).
    pub fn restart(&mut self) -> io::Result<()> {
        self.kill();
        *self = Engine::spawn(&self.name, &self.command)?;
        Ok(())
    }

    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        let stdin = self.stdin.as_mut().ok_or(Failure::Crash)?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .map_err(|_| Failure::Crash)
    }

    /// Discards lines already printed (such as a late answer to an earlier command).
    pub fn drain(&mut self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// The next line that is not MESSAGE/DEBUG/empty, before `deadline`; MESSAGE texts are
    /// appended to `messages`.
    pub fn answer(
        &mut self,
        deadline: Instant,
        messages: &mut Vec<String>,
    ) -> Result<String, Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let t = line.trim();
                    let lower = t.to_ascii_lowercase();
                    if t.is_empty() || lower.starts_with("debug") {
                        continue;
                    }
                    if lower.starts_with("message") {
                        messages.push(t.get(8..).unwrap_or("").to_string());
                        continue;
                    }
                    return Ok(t.to_string());
                }
                Err(RecvTimeoutError::Timeout) => return Err(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(Failure::Crash),
            }
        }
    }

    /// Asks for ABOUT and returns the `name="…"` value, if the engine gives one in time.
    pub fn about_name(&mut self, timeout: Duration) -> Option<String> {
        self.send("ABOUT").ok()?;
        let line = self
            .answer(Instant::now() + timeout, &mut Vec::new())
            .ok()?;
        let start = line.find("name=\"")? + 6;
        let len = line[start..].find('"')?;
        Some(line[start..start + len].to_string())
    }

    /// Sends END, gives the engine half a second to exit, then kills it.
    pub fn end(&mut self) {
        let _ = self.send("END");
        self.stdin = None;
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }

    /// Whether the process has exited (within `wait`).
    pub fn exited_within(&mut self, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}
