//! A search's progress lines on their way out: rate-limited and coalesced, so that a manager
//! that reads slowly (a GUI that redraws on each `MESSAGE REALTIME` line) never has a backlog
//! of analysis queued ahead of the move. At most `RATE` lines a second go out in the long run
//! (`BURST` at once); a newer line of a kind replaces the unsent older ones of that kind (the
//! live root marks, the iteration line, a multi-PV iteration's lines, the `INFO PV` blocks); and
//! when the search ends, the live marks still waiting are dropped and the rest (at most one
//! iteration's lines) go out just before the move.

use crate::clock::Instant;
use std::collections::VecDeque;
use std::time::Duration;

/// Progress lines a second, in the long run.
pub const RATE: u32 = 30;
/// Progress lines that may go out at once after a quiet spell.
pub const BURST: u32 = 30;

/// What a progress line is, for coalescing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `MESSAGE REALTIME POS p` / `DONE p`: a root move entered or left.
    Mark,
    /// `MESSAGE REALTIME REFRESH` / `BEST p`: a new set of marks.
    Refresh,
    /// `MESSAGE REALTIME LOST p`: a root move proven lost (sent again after each REFRESH).
    Lost,
    /// Anything not named here: always sent.
    Keep,
    /// `MESSAGE depth …`: an iteration's result.
    Iteration,
    /// `MESSAGE (k) …`: a multi-PV line; `(1)` starts an iteration's set.
    Nbest { first: bool },
    /// `INFO …` (Yixin-Board's detailed blocks); `INFO PV 0` starts an iteration's set.
    Info { first: bool },
}

fn kind(line: &str) -> Kind {
    if let Some(rest) = line.strip_prefix("MESSAGE REALTIME ") {
        return if rest.starts_with("POS ") || rest.starts_with("DONE ") {
            Kind::Mark
        } else if rest.starts_with("REFRESH") || rest.starts_with("BEST ") {
            Kind::Refresh
        } else if rest.starts_with("LOST ") {
            Kind::Lost
        } else {
            Kind::Keep
        };
    }
    if line.starts_with("MESSAGE depth ") {
        return Kind::Iteration;
    }
    if let Some(rest) = line.strip_prefix("MESSAGE (") {
        return Kind::Nbest {
            first: rest.starts_with("1)"),
        };
    }
    if line.starts_with("INFO ") {
        return Kind::Info {
            first: line == "INFO PV 0",
        };
    }
    Kind::Keep
}

/// The progress lines not yet written, and the budget for writing them.
pub struct Outbox {
    pending: VecDeque<(Kind, String)>,
    /// Lines a second in the long run, and at once.
    rate: u32,
    burst: u32,
    /// Lines that may go out now, in thousandths.
    credit: u64,
    refilled: Instant,
    /// The root move whose `POS` went out without its `DONE` yet.
    shown: Option<String>,
}

impl Outbox {
    pub fn new(now: Instant) -> Outbox {
        Outbox::with_rate(now, RATE, BURST)
    }

    /// An outbox for a reader that takes `rate` lines a second (`burst` at once): the web
    /// page's worker messages are read far faster than a manager's pipe.
    pub fn with_rate(now: Instant, rate: u32, burst: u32) -> Outbox {
        let (rate, burst) = (rate.max(1), burst.max(1));
        Outbox {
            pending: VecDeque::new(),
            rate,
            burst,
            credit: burst as u64 * 1000,
            refilled: now,
            shown: None,
        }
    }

    /// Queues a line, dropping the unsent lines it makes stale.
    pub fn push(&mut self, line: String) {
        let k = kind(&line);
        match k {
            Kind::Mark => self.pending.retain(|(p, _)| *p != Kind::Mark),
            // REFRESH clears the GUI's marks: the unsent ones are stale.
            Kind::Refresh if line.ends_with("REFRESH") => self
                .pending
                .retain(|(p, _)| !matches!(p, Kind::Mark | Kind::Refresh | Kind::Lost)),
            Kind::Lost if self.pending.iter().any(|(_, l)| *l == line) => return,
            Kind::Iteration => self.pending.retain(|(p, _)| *p != Kind::Iteration),
            Kind::Nbest { first: true } => self
                .pending
                .retain(|(p, _)| !matches!(p, Kind::Nbest { .. })),
            Kind::Info { first: true } => self
                .pending
                .retain(|(p, _)| !matches!(p, Kind::Info { .. })),
            _ => {}
        }
        if k == Kind::Mark {
            // A root move shown as entered is shown as left before another mark.
            if let Some(shown) = &self.shown {
                let done = format!("MESSAGE REALTIME DONE {shown}");
                if line != done {
                    self.pending.push_back((Kind::Mark, done));
                }
            }
        }
        self.pending.push_back((k, line));
    }

    fn refill(&mut self, now: Instant) {
        let ms = now.saturating_duration_since(self.refilled).as_millis() as u64;
        if ms > 0 {
            self.credit = (self.credit + ms * self.rate as u64).min(self.burst as u64 * 1000);
            self.refilled = now;
        }
    }

    /// The lines that may be written now.
    pub fn ready(&mut self, now: Instant) -> Vec<String> {
        self.refill(now);
        let mut out = Vec::new();
        while self.credit >= 1000 {
            let Some((k, line)) = self.pending.pop_front() else {
                break;
            };
            self.credit -= 1000;
            if k == Kind::Mark {
                self.note_mark(&line);
            }
            out.push(line);
        }
        out
    }

    fn note_mark(&mut self, line: &str) {
        if let Some(p) = line.strip_prefix("MESSAGE REALTIME POS ") {
            self.shown = Some(p.to_string());
        } else if let Some(p) = line.strip_prefix("MESSAGE REALTIME DONE ") {
            if self.shown.as_deref() == Some(p) {
                self.shown = None;
            }
        }
    }

    /// How long until the next waiting line may go out (`None`: nothing waits).
    pub fn wait(&self, now: Instant) -> Option<Duration> {
        if self.pending.is_empty() {
            return None;
        }
        let elapsed = now.saturating_duration_since(self.refilled).as_millis() as u64;
        let credit = self.credit + elapsed * self.rate as u64;
        let missing = 1000u64.saturating_sub(credit);
        Some(Duration::from_millis(missing.div_ceil(self.rate as u64)))
    }

    /// The search has ended: the lines to write before its answer. Live marks still waiting
    /// are dropped (the move ends them); the iteration, multi-PV and `INFO` lines, at most one
    /// iteration's worth, go out, whatever the rate.
    pub fn finish(&mut self) -> Vec<String> {
        self.shown = None;
        let out = self
            .pending
            .drain(..)
            .filter(|(k, _)| !matches!(k, Kind::Mark | Kind::Refresh | Kind::Lost))
            .map(|(_, l)| l)
            .collect();
        self.credit = self.burst as u64 * 1000;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(n: usize) -> Vec<String> {
        (0..n)
            .flat_map(|i| {
                [
                    format!("MESSAGE REALTIME POS {i},0"),
                    format!("MESSAGE REALTIME DONE {i},0"),
                ]
            })
            .collect()
    }

    /// Lines sent when 10,000 marks come over one second, read every millisecond.
    fn flood(o: &mut Outbox, t0: Instant) -> usize {
        let mut sent = 0;
        for ms in 0..1000u64 {
            for l in marks(5) {
                o.push(l);
            }
            sent += o.ready(t0 + Duration::from_millis(ms)).len();
        }
        sent
    }

    #[test]
    fn a_reader_may_take_a_faster_rate() {
        let t0 = Instant::now();
        let sent = flood(&mut Outbox::with_rate(t0, 300, 100), t0);
        assert!((300..=402).contains(&sent), "{sent} lines in one second");
    }

    #[test]
    fn a_flood_of_marks_is_cut_to_the_rate() {
        let t0 = Instant::now();
        let mut o = Outbox::new(t0);
        let sent = flood(&mut o, t0);
        assert!(
            sent <= (BURST + RATE + 2) as usize,
            "{sent} lines in one second"
        );
        assert!(
            sent >= RATE as usize / 2,
            "{sent} lines: the marks still go out"
        );
        // Only the newest mark (and a DONE for a shown POS) waits.
        assert!(o.pending.len() <= 2, "{} waiting", o.pending.len());
        let before = o.finish();
        assert!(
            before.is_empty(),
            "marks are dropped at the move: {before:?}"
        );
    }

    #[test]
    fn a_newer_iteration_replaces_an_unsent_one_and_goes_out_before_the_move() {
        let t0 = Instant::now();
        let mut o = Outbox::new(t0);
        o.credit = 0;
        for d in 1..=20 {
            o.push(format!(
                "MESSAGE depth {d} score 5 nodes 1 nps 1 time 1 pv 7,7"
            ));
        }
        o.push("MESSAGE REALTIME LOST 3,3".to_string());
        o.push("MESSAGE REALTIME LOST 3,3".to_string());
        assert_eq!(o.pending.len(), 2, "a LOST mark waits once");
        let before = o.finish();
        assert_eq!(
            before,
            ["MESSAGE depth 20 score 5 nodes 1 nps 1 time 1 pv 7,7"]
        );
    }

    #[test]
    fn a_refresh_drops_the_unsent_marks_of_the_last_iteration() {
        let t0 = Instant::now();
        let mut o = Outbox::new(t0);
        o.credit = 0;
        for _ in 0..100 {
            o.push("MESSAGE REALTIME REFRESH".into());
            for x in 0..200 {
                o.push(format!("MESSAGE REALTIME LOST {x},1"));
            }
        }
        assert_eq!(o.pending.len(), 201);
        assert!(o.finish().is_empty());
    }

    #[test]
    fn a_shown_root_move_is_left_before_the_next_mark() {
        let t0 = Instant::now();
        let mut o = Outbox::new(t0);
        o.push("MESSAGE REALTIME POS 1,1".into());
        assert_eq!(o.ready(t0), ["MESSAGE REALTIME POS 1,1"]);
        o.credit = 0;
        o.push("MESSAGE REALTIME DONE 1,1".into());
        o.push("MESSAGE REALTIME POS 2,2".into());
        o.push("MESSAGE REALTIME DONE 2,2".into());
        o.push("MESSAGE REALTIME POS 3,3".into());
        let later = t0 + Duration::from_secs(1);
        assert_eq!(
            o.ready(later),
            ["MESSAGE REALTIME DONE 1,1", "MESSAGE REALTIME POS 3,3"]
        );
    }

    #[test]
    fn multi_pv_sets_and_info_blocks_keep_only_the_newest_iteration() {
        let t0 = Instant::now();
        let mut o = Outbox::new(t0);
        o.credit = 0;
        for _ in 0..50 {
            for k in 1..=3 {
                o.push(format!("MESSAGE ({k}) 10 | 5-7 | 7,7"));
            }
            o.push("INFO PV 0".into());
            o.push("INFO DEPTH 5".into());
            o.push("INFO PV DONE".into());
        }
        assert_eq!(o.pending.len(), 6);
        assert!(o.wait(t0).is_some());
        assert_eq!(o.finish().len(), 6);
        assert!(o.wait(t0).is_none());
    }
}
