//! Every line the bot prints besides plain moves and `OK`: ABOUT, the search's progress
//! (iteration MESSAGE lines, multi-PV lines, Yixin-Board's `MESSAGE REALTIME` marks and
//! `INFO` blocks as `show_detail` asks), FORBID, and Yixin-Board's info lines.

use crate::geometry::Pos;
use crate::search::{format_score, LineReport, Observer, Outcome, Realtime, Report, MATE_BOUND};

pub const NAME: &str = "Wuzi";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `show_detail` bit: live root marks (`MESSAGE REALTIME …`).
pub const DETAIL_REALTIME: u32 = 1;
/// `show_detail` bit: an `INFO PV … INFO PV DONE` block per finished line.
pub const DETAIL_INFO: u32 = 2;
/// Root moves entered and left are marked only this far into a move: before that they would
/// flood the GUI with marks it cannot show anyway.
pub const REALTIME_MIN_MS: u64 = 300;

/// Text from the input made safe to print in a reply: control characters (bytes below 0x20
/// but tab, 0x7F, and the C1 range) as `\xNN` / `\u{NN}`, so that no terminal or log
/// interprets them; at most `max_chars` characters, then `...`.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (k, c) in text.chars().enumerate() {
        if k == max_chars {
            out.push_str("...");
            break;
        }
        match c as u32 {
            0x09 => out.push(c),
            0x00..=0x1F | 0x7F => out.push_str(&format!("\\x{:02X}", c as u32)),
            0x80..=0x9F => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            _ => out.push(c),
        }
    }
    out
}

/// The single ABOUT line.
pub fn about() -> String {
    format!(
        "name=\"{NAME}\", version=\"{VERSION}\", author=\"Wuzi developers\", country=\"International\", www=\"-\""
    )
}

fn moves(pv: &[Pos]) -> String {
    pv.iter().map(Pos::to_string).collect::<Vec<_>>().join(" ")
}

/// One MESSAGE line for a finished iteration.
pub fn iteration(r: &Report) -> String {
    let nps = r.nodes * 1000 / r.elapsed_ms.max(1);
    format!(
        "MESSAGE depth {} score {} nodes {} nps {} time {} pv {}",
        r.depth,
        format_score(r.score),
        r.nodes,
        nps,
        r.elapsed_ms,
        moves(&r.pv)
    )
}

/// One MESSAGE line for a line of a multi-PV iteration: `(k) score | depth-seldepth | pv`.
pub fn line(l: &LineReport) -> String {
    let r = &l.report;
    format!(
        "MESSAGE ({}) {} | {}-{} | {}",
        l.index + 1,
        format_score(r.score),
        r.depth,
        r.seldepth,
        moves(&r.pv)
    )
}

/// A score as a winning chance for the side to move, 0 to 1.
pub fn win_rate(score: i32) -> f64 {
    if score >= MATE_BOUND {
        1.0
    } else if score <= -MATE_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(score as f64) / 200.0).exp())
    }
}

/// Yixin-Board's detailed block for a finished line (`show_detail` bit 1).
pub fn info_block(l: &LineReport) -> Vec<String> {
    let r = &l.report;
    let speed = r.nodes * 1000 / r.elapsed_ms.max(1);
    vec![
        format!("INFO PV {}", l.index),
        format!("INFO NUMPV {}", l.lines),
        format!("INFO DEPTH {}", r.depth),
        format!("INFO SELDEPTH {}", r.seldepth),
        format!("INFO NODES {}", r.nodes),
        format!("INFO TOTALNODES {}", r.nodes),
        format!("INFO TOTALTIME {}", r.elapsed_ms),
        format!("INFO SPEED {speed}"),
        format!("INFO EVAL {}", format_score(r.score)),
        format!("INFO WINRATE {:.4}", win_rate(r.score)),
        format!("INFO BESTLINE {}", moves(&r.pv)),
        "INFO PV DONE".into(),
    ]
}

/// One `MESSAGE REALTIME` line, or none when `elapsed_ms` is too early for enter/leave marks.
pub fn realtime(event: Realtime, elapsed_ms: u64) -> Option<String> {
    let text = match event {
        Realtime::Refresh => "REFRESH".to_string(),
        Realtime::Best(p) => format!("BEST {p}"),
        Realtime::Lost(p) => format!("LOST {p}"),
        Realtime::Enter(p) if elapsed_ms >= REALTIME_MIN_MS => format!("POS {p}"),
        Realtime::Leave(p) if elapsed_ms >= REALTIME_MIN_MS => format!("DONE {p}"),
        Realtime::Enter(_) | Realtime::Leave(_) => return None,
    };
    Some(format!("MESSAGE REALTIME {text}"))
}

/// The MESSAGE lines that answer `YXSEARCHDEFEND` before the move: the root moves not proven
/// to lose, best first (none when even the best one is lost), and those proven to lose.
pub fn defences(o: &Outcome) -> Vec<String> {
    let holding: &[Pos] = if o.score <= -MATE_BOUND {
        &[]
    } else {
        &o.holding
    };
    vec![
        format!("MESSAGE DEFEND {}", moves(holding)),
        format!("MESSAGE LOSING {}", moves(&o.losing)),
    ]
}

/// `FORBID xxyyxxyy….`: each point as two-digit x and two-digit y.
pub fn forbid(points: &[Pos]) -> String {
    let mut s = String::from("FORBID ");
    for p in points {
        s += &format!("{:02}{:02}", p.x, p.y);
    }
    s.push('.');
    s
}

/// Answer to YXSHOWINFO, as Yixin-Board reads it.
pub fn show_info(tt_bytes: usize) -> Vec<String> {
    let log2_kib = (tt_bytes.max(1024) / 1024).ilog2();
    vec![
        format!("MESSAGE {NAME} {VERSION}"),
        format!(
            "MESSAGE INFO MAX_THREAD_NUM {}",
            super::session::MAX_THREADS
        ),
        format!("MESSAGE INFO MAX_HASH_SIZE {log2_kib}"),
    ]
}

/// Prints a search's progress as lines, as `show_detail` asks: always the iteration MESSAGE
/// lines (and multi-PV lines when there are several), with bit 0 the live root marks, with
/// bit 1 the `INFO` blocks.
pub struct Progress<F: FnMut(String)> {
    detail: u32,
    emit: F,
    /// First moves of the current multi-PV iteration's lines so far.
    firsts: Vec<Pos>,
}

impl<F: FnMut(String)> Progress<F> {
    pub fn new(detail: u32, emit: F) -> Progress<F> {
        Progress {
            detail,
            emit,
            firsts: Vec::new(),
        }
    }
}

impl<F: FnMut(String)> Observer for Progress<F> {
    fn iteration(&mut self, report: &Report) {
        (self.emit)(iteration(report));
    }

    fn line(&mut self, l: &LineReport) {
        if l.lines > 1 {
            (self.emit)(line(l));
        }
        if self.detail & DETAIL_INFO != 0 {
            info_block(l).into_iter().for_each(&mut self.emit);
        }
        if l.lines > 1 && self.detail & DETAIL_REALTIME != 0 {
            // All n best moves marked on the board once the iteration's lines are complete.
            if l.index == 0 {
                self.firsts.clear();
            }
            self.firsts.extend(l.report.pv.first());
            if l.index + 1 == l.lines {
                // Yixin-Board redraws on POS and BEST: the best move last.
                (self.emit)("MESSAGE REALTIME REFRESH".into());
                let firsts = std::mem::take(&mut self.firsts);
                for p in &firsts {
                    (self.emit)(format!("MESSAGE REALTIME POS {p}"));
                    (self.emit)(format!("MESSAGE REALTIME DONE {p}"));
                }
                if let Some(best) = firsts.first() {
                    (self.emit)(format!("MESSAGE REALTIME BEST {best}"));
                }
            }
        }
    }

    fn realtime(&mut self, event: Realtime, elapsed_ms: u64) {
        if let Some(l) = realtime(event, elapsed_ms) {
            (self.emit)(l);
        }
    }

    fn wants_realtime(&self) -> bool {
        self.detail & DETAIL_REALTIME != 0
    }
}
