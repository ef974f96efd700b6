//! What bounds one search: depth, nodes, a soft and a hard time limit, read through a clock
//! the caller provides (tests inject their own).

use std::time::Instant;

/// Limits of one search. Invariant: `soft_ms <= hard_ms` when both are set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration to run (the search stops after completing it).
    pub max_depth: Option<i32>,
    /// Nodes after which the search stops: deterministic on every machine.
    pub max_nodes: Option<u64>,
    /// After this many ms no new iteration starts.
    pub soft_ms: Option<u64>,
    /// After this many ms the search stops at once.
    pub hard_ms: Option<u64>,
}

/// Milliseconds since the move was asked for.
pub trait Clock {
    fn elapsed_ms(&self) -> u64;
}

/// The wall clock, started when the manager's command was read.
pub struct WallClock {
    pub start: Instant,
}

impl Clock for WallClock {
    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}
