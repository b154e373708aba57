//! The errors a command ends with that the binary tells apart by kind, for its exit status:
//! the crate's one error type. Every other failure is a line of `anyhow` context.

use std::fmt;

/// What ended a command, where the binary's exit status depends on it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The command line asked for something that cannot be done (exit status 2, like a flag
    /// clap rejects), with the reason in one line.
    #[error("{0}")]
    BadInput(String),
    /// The run was stopped by a signal (exit status 128 + its number).
    #[error("{0}")]
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

/// The signal that stopped a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted(pub i32);

impl Interrupted {
    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self.0 {
            libc::SIGINT => "SIGINT",
            libc::SIGTERM => "SIGTERM",
            _ => "a signal",
        }
    }

    /// The conventional exit status, 128 + the signal number.
    pub fn exit_code(self) -> u8 {
        u8::try_from(128 + self.0).unwrap_or(130)
    }
}

/// `interrupted by SIGINT`: how the error, the results file and the last line say it.
impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "interrupted by {}", self.name())
    }
}
