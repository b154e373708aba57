//! The errors a command ends with that the binary tells apart by kind, for its exit status:
//! the crate's one error type. Every other failure is a line of `anyhow` context.

use std::fmt;

use crate::step::signals::Interrupted;

/// What ended a command, where the binary's exit status depends on it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The command line asked for something that cannot be done (exit status 2, like a flag
    /// clap rejects), with the reason in one line.
    #[error("{0}")]
    BadInput(String),
    /// The run was stopped by a signal (exit status 128 + its number).
    #[error("interrupted by {}", .0.name())]
    Interrupted(Interrupted),
}

/// `e` as an [`Error::BadInput`].
pub fn bad(e: impl fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Error::BadInput(e.to_string()))
}

/// Whether `e` is (or wraps) the command line's fault.
pub fn is_bad_input(e: &anyhow::Error) -> bool {
    matches!(e.downcast_ref::<Error>(), Some(Error::BadInput(_)))
}

/// The signal that stopped the run, when `e` is (or wraps) [`Error::Interrupted`].
pub fn interrupted(e: &anyhow::Error) -> Option<Interrupted> {
    match e.downcast_ref::<Error>() {
        Some(Error::Interrupted(i)) => Some(*i),
        _ => None,
    }
}
