//! A search the session hands out, to be run on any thread: a move to play, the n best lines,
//! the defences, or a swap2 decision. No I/O: progress goes to the observer it is given.

use crate::clock::Instant;
use std::sync::atomic::AtomicBool;

use crate::board::Board;
use crate::rules::Rule;
use crate::search::limits::{Clock, Limits, WallClock};
use crate::search::params::Params;
use crate::search::swap2::{Decision, Swap2};
use crate::search::tt::TranspositionTable;
use crate::search::{Observer, Outcome, RootOptions, Search};

/// What a job is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// A move for the side to move (BEGIN, TURN, BOARD).
    Play,
    /// `YXNBEST n`: the n best lines, then the best move.
    Nbest(u32),
    /// `YXSEARCHDEFEND`: the moves that do not lose, then the best move.
    Defend,
    /// `SWAP2BOARD`: place the opening stones or choose a side.
    Swap2,
}

/// A search the caller must run (on any thread) and hand back through `Session::finish`.
pub struct Job {
    pub board: Board,
    pub rule: Rule,
    pub limits: Limits,
    pub tt: TranspositionTable,
    pub params: Params,
    pub options: RootOptions,
    pub task: Task,
    /// `INFO strength`: 100 is full strength.
    pub strength: u32,
    /// `INFO show_detail` bits, for whoever prints the progress.
    pub detail: u32,
    pub started: Instant,
}

/// What a job found.
pub enum Answer {
    Move(Outcome),
    Swap2(Decision),
}

impl Job {
    /// Runs the job; `stop` ends it early with the best answer so far.
    pub fn run(&mut self, stop: &AtomicBool, observer: &mut dyn Observer) -> Answer {
        let clock = WallClock {
            start: self.started,
        };
        self.run_with(&clock, stop, observer)
    }

    /// Runs the job reading time from `clock` (a host that must look at its input while the
    /// search runs does so when the search reads the clock).
    pub fn run_with(
        &mut self,
        clock: &dyn Clock,
        stop: &AtomicBool,
        observer: &mut dyn Observer,
    ) -> Answer {
        let search = Search {
            board: self.board.clone(),
            rule: self.rule,
            limits: self.limits.clone(),
            params: self.params.clone(),
            tt: &self.tt,
            clock,
            stop,
            options: self.options.clone(),
        };
        match self.task {
            Task::Swap2 => Answer::Swap2(Swap2 { search }.decide()),
            _ => Answer::Move(search.run(observer)),
        }
    }
}
