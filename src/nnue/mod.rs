//! The network evaluation's groundwork: training data made by self-play (`data`, the format and
//! its streaming reader; `selfplay`, the games). The features, accumulator, inference and the
//! network file come with the network itself.

pub mod data;
pub mod selfplay;
