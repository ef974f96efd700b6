//! What bounds one search: depth, nodes, a soft and a hard time limit, read through a clock
//! the caller provides (tests inject their own).

use crate::clock::Instant;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// Whether `soft_ms` is an optimum to scale by how settled the best move is (a match clock
    /// binds), rather than a fixed limit.
    pub adaptive: bool,
}

/// Milliseconds since the move was asked for. Shared by every search thread.
pub trait Clock: Sync {
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

/// When a search must give up: its stop flag, its hard limit, and any tighter cap the caller
/// sets for one part of it.
#[derive(Clone, Copy)]
pub struct Deadline<'a> {
    pub clock: &'a dyn Clock,
    pub stop: &'a AtomicBool,
    pub hard_ms: Option<u64>,
}

impl Deadline<'_> {
    /// Whether the stop flag is up, or the hard limit or `cap_ms` has passed.
    pub fn passed(&self, cap_ms: Option<u64>) -> bool {
        self.stop.load(Ordering::Relaxed) || {
            let t = self.clock.elapsed_ms();
            self.hard_ms.is_some_and(|h| t >= h) || cap_ms.is_some_and(|c| t >= c)
        }
    }
}
