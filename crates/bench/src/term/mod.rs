//! The terminal: [`out`] (stdout that a closed pipe cannot panic, with the [`say!`](crate::say)
//! macro) and [`progress`] (the progress line on stderr, drawn only on a terminal), both
//! `bench-step`'s, and [`table`] (padded plain-text tables, `bench-chart`'s).

pub use bench_report::table;
pub use bench_step::term::{out, progress};
