//! The manager side of the protocol, used by `wuzi-arena` and the tests: engine processes
//! (`engine`) and refereed games between them (`game`). Unlike the engine modules, this does
//! process I/O.

pub mod claims;
pub mod engine;
pub mod game;
pub mod openings;
pub mod record;
pub mod stats;
pub mod tactics;
