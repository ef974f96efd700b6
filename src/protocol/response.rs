//! Every line the bot prints besides plain moves and `OK`: ABOUT, iteration MESSAGE lines,
//! FORBID, and Yixin-Board's info lines.

use crate::geometry::Pos;
use crate::search::{format_score, Observer, Report};

pub const NAME: &str = "Wuzi";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The single ABOUT line.
pub fn about() -> String {
    format!(
        "name=\"{NAME}\", version=\"{VERSION}\", author=\"Wuzi developers\", country=\"International\", www=\"-\""
    )
}

/// One MESSAGE line for a finished iteration.
pub fn iteration(r: &Report) -> String {
    let nps = r.nodes * 1000 / r.elapsed_ms.max(1);
    let pv: Vec<String> = r.pv.iter().map(Pos::to_string).collect();
    format!(
        "MESSAGE depth {} score {} nodes {} nps {} time {} pv {}",
        r.depth,
        format_score(r.score),
        r.nodes,
        nps,
        r.elapsed_ms,
        pv.join(" ")
    )
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
        "MESSAGE INFO MAX_THREAD_NUM 1".into(),
        format!("MESSAGE INFO MAX_HASH_SIZE {log2_kib}"),
    ]
}

/// An observer that keeps the MESSAGE lines of a search, in order.
#[derive(Default)]
pub struct MessageCollector {
    pub lines: Vec<String>,
}

impl Observer for MessageCollector {
    fn iteration(&mut self, report: &Report) {
        self.lines.push(iteration(report));
    }
}
