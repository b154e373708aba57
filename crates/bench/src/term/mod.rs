//! The terminal: [`out`] (stdout that a closed pipe cannot panic, with the [`say!`](crate::say)
//! macro), [`table`] (padded plain-text tables) and [`progress`] (the progress line on stderr,
//! drawn only on a terminal).

pub mod out;
pub mod progress;
pub use bench_report::table;
