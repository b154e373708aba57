//! The crate's one error type: why a report could not be made.

use std::io;
use std::path::PathBuf;

use bench_model::results::ResultsError;

/// Why a report could not be made: the crate's one error type.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A results file could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A report file could not be written (or a README read).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// A path holds no `bench run` results file.
    #[error("{}: no bench run results file (schema bench.results/1) there", .0.display())]
    NoResults(PathBuf),
    /// The README has no place for the headline table, or more than one.
    #[error("{}: {why}", path.display())]
    Markers {
        /// The README.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}
