//! Wuzi: a Gomoku/Renju engine speaking the Gomocup (pbrain) protocol.
//!
//! Data flow, one line per module:
//! - `geometry`: positions, board sizes, directions, `x,y` text.
//! - `board`: cells, move stack, Zobrist key and the incrementally updated win-count table.
//! - `rules`: freestyle, standard, renju (fouls), caro; who has won.
//! - `eval`: static evaluation and move scores read from the win-count table.
//! - `search`: iterative deepening PVS alpha-beta with a transposition table, under limits.
//! - `time`: INFO time settings to a soft and a hard deadline.
//! - `clock`: the time source (`std::time::Instant`, or the host's clock under WebAssembly).
//! - `protocol`: parses manager lines into commands and runs the session state machine.
//! - `bench`: fixed positions at fixed depth, a node-count signature.
//! - `nnue`: training data for a network evaluation (self-play games, their binary format).
//! - `manager`: the manager side (engine processes, referee, games) used by the arena and tests.
//!
//! The engine (`board`, `rules`, `eval`, `search`, `time`, `protocol::session`) does no I/O.

pub mod bench;
pub mod board;
pub mod clock;
pub mod eval;
pub mod geometry;
pub mod manager;
pub mod nnue;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod time;
