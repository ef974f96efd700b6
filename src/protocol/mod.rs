//! The Gomocup protocol: `command` parses lines, `session` is the state machine, `response`
//! formats what we print, and `event_loop` runs them with a reader and a search thread.

pub mod command;
pub mod event_loop;
pub mod job;
pub mod outbox;
pub mod response;
pub mod session;
