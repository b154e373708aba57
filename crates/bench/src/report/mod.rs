//! A results document as markdown tables shaped like each experiment's own, and as an SVG
//! chart.
//!
//! [`markdown`] writes a header (experiment, date, machine, git revision, tool and the exact
//! flags of a step, the command) and then the experiment's tables, one per endpoint where the
//! article had one per endpoint: rows are servers (with the systems they are the analogue of),
//! columns are steps. E1: requests/s at 100/500/1000 connections and p50/p95/p99 and the error
//! rate at the last step; E2: requests/s, ms per request, KB/s; E3: requests/s, average
//! latency and socket errors at 100/1,000/10,000 connections; E4: requests/s, errors and p99
//! per scenario; E5: requests/s at 1/10/100 connections. Then resources (RSS, server CPU),
//! the spread over repeats when there were several, invalid steps with their reasons, and the
//! tools' own caveats. A cell reads `invalid` for an invalid step, `n/a` for what was not
//! measured (a remote target's RSS, wrk's p95) and `—` for a step the server did not run.
//!
//! [`svg`] draws requests/s and p99 per server and step as two panels of grouped bars.
//! [`write_beside`] writes both next to a results file. One file each: `markdown.rs`,
//! `svg.rs`; the helpers both use (which endpoints and steps a document has) are here.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::results::{Results, ResultsError, ServerResult, StepResult};

mod markdown;
mod svg;

pub use markdown::markdown;
pub use svg::{svg, svg_string};

/// Why a report could not be made.
#[derive(Debug)]
pub enum ReportError {
    /// The results file could not be read.
    Results(ResultsError),
    /// A report file could not be written.
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The chart could not be drawn.
    Chart(String),
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Results(e) => e.fmt(f),
            ReportError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ReportError::Chart(e) => write!(f, "cannot draw the chart: {e}"),
        }
    }
}

impl std::error::Error for ReportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReportError::Results(e) => Some(e),
            ReportError::Io { source, .. } => Some(source),
            ReportError::Chart(_) => None,
        }
    }
}

impl From<ResultsError> for ReportError {
    fn from(e: ResultsError) -> ReportError {
        ReportError::Results(e)
    }
}

/// Reads the results at `json_path` and writes `<name>.md` and `<name>.svg` beside it
/// (`results/e3-20261129T224000Z.json` → `results/e3-20261129T224000Z.md`, `….svg`).
pub fn write_beside(json_path: &Path) -> Result<(PathBuf, PathBuf), ReportError> {
    let results = Results::load(json_path)?;
    let md = json_path.with_extension("md");
    let svg_path = json_path.with_extension("svg");
    fs::write(&md, markdown(&results)).map_err(|source| ReportError::Io {
        path: md.clone(),
        source,
    })?;
    svg(&results, &svg_path)?;
    Ok((md, svg_path))
}

/// The endpoints of `r`, in the order they first appear.
pub(crate) fn endpoints(r: &Results) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if !v.contains(&st.endpoint) {
            v.push(st.endpoint.clone());
        }
    }
    v
}

/// The step ids of `endpoint` in `r`, in the order they first appear.
pub(crate) fn step_ids(r: &Results, endpoint: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if st.endpoint == endpoint && !v.contains(&st.step) {
            v.push(st.step.clone());
        }
    }
    v
}

/// The step `(endpoint, step)` of `s`, if it ran.
pub(crate) fn find<'a>(s: &'a ServerResult, endpoint: &str, step: &str) -> Option<&'a StepResult> {
    s.steps
        .iter()
        .find(|st| st.endpoint == endpoint && st.step == step)
}

/// A rate with thousands separators and no decimals (`81,103`).
pub(crate) fn thousands(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let n = x.round().abs() as u128;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if x.round() < 0.0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(81_102.92), "81,103");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(-1500.0), "-1,500");
        assert_eq!(thousands(f64::NAN), "n/a");
    }
}
