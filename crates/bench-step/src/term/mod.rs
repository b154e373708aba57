//! The terminal: [`out`] (stdout that a closed pipe cannot panic, with the [`say!`](crate::say)
//! macro) and [`progress`] (the progress line on stderr, drawn only on a terminal).

pub mod out;
pub mod progress;
