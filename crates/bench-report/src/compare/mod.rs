//! `bench compare OLD NEW`: what moved between two runs of the same experiments, cell by cell
//! (a server's step), rate by rate (E7's capacities) and finding by finding, with a verdict of
//! known error rate for each ([`bench_model::verdict`]: the method and its calibration).
//!
//! - `figures` reads each figure's per-round values in both runs: a cell on its requests/s,
//!   CPU per request and (E7's rungs) p99, as a ratio to the ceiling of the same round when
//!   both runs measured the ceiling in rounds (the machine's speed, which moves by the hour on
//!   a shared VM, cancels out), else as measured; a finding on the per-round ratios of its two
//!   servers; a capacity on every run of every rung. Requests/s the load tool set (`†` in any
//!   round) is a lower bound of the server's, and stays one.
//! - [`compare`] judges every figure and gives all their verdicts together: **moved** (with
//!   its size and interval) and **same within ±margin** each at a 5 % false discovery rate
//!   over the whole comparison, else **undecided** (with the rounds a side would need).
//! - [`Comparison::gate`] is `--fail-on-change`'s test: over a declared family of figures
//!   ([`Family`]; the findings and the ratios to the ceiling by default), a move beyond the
//!   margin, with Holm's family-wise 5 %; it says when the family is too large for the rounds
//!   measured, and how many rounds would do.
//! - `print` writes the comparison for the terminal and as markdown.

mod figures;
mod print;

use std::path::{Path, PathBuf};

use bench_model::results::{Interval, Results};
use bench_model::verdict::{self, Bound, Gate, Judgement, Verdict};

use crate::error::ReportError;

pub use print::{gate_text, markdown, summary, table};

/// A figure of one run as the comparison shows it: its median (or estimate), its interval
/// when it has one, and whether it is a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The median over the rounds (a capacity's estimate).
    pub median: f64,
    /// Its interval (the rounds' order statistics; a capacity's likelihood interval).
    pub interval: Option<Interval>,
    /// Whether the server's figure is this or more (`≥`), or this or less.
    pub bound: Bound,
}

/// How many of a side's rounds the load tool (`†`) or the machine (`‡`) set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// The rounds.
    pub n: usize,
    /// Of them, the load tool's.
    pub tool: usize,
    /// Of them, the machine's.
    pub machine: usize,
}

/// What kind of figure a change is: which [`Family`] it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A server's figure in a step, as measured.
    Cell,
    /// A server's figure in a step over the ceiling's in the same round.
    ToCeiling,
    /// A server's capacity (E7).
    Capacity,
    /// One of the experiment's findings.
    Finding,
}

/// The figures `--fail-on-change` gates on (`--figures`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// The experiments' findings.
    Findings,
    /// The ratios to the ceiling.
    Ceiling,
    /// The figures as measured (the ceiling's own, and every step without it).
    Cells,
    /// E7's capacities.
    Capacities,
}

impl Family {
    /// Every family, by its name on the command line.
    pub const ALL: [(&'static str, Family); 4] = [
        ("findings", Family::Findings),
        ("ceiling", Family::Ceiling),
        ("cells", Family::Cells),
        ("capacities", Family::Capacities),
    ];

    /// The default: the findings and the ratios to the ceiling.
    pub const DEFAULT: [Family; 2] = [Family::Findings, Family::Ceiling];

    /// The family of `name` (`all` is every one); `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Vec<Family>> {
        if name == "all" {
            return Some(Family::ALL.iter().map(|f| f.1).collect());
        }
        Family::ALL.iter().find(|f| f.0 == name).map(|f| vec![f.1])
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Family::ALL.iter().find(|f| f.1 == self).map_or("", |f| f.0)
    }

    fn holds(self, k: Kind) -> bool {
        matches!(
            (self, k),
            (Family::Findings, Kind::Finding)
                | (Family::Ceiling, Kind::ToCeiling)
                | (Family::Cells, Kind::Cell)
                | (Family::Capacities, Kind::Capacity)
        )
    }
}

/// One compared figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The experiment (`e3`).
    pub experiment: String,
    /// What is compared: `server-hyper `/` c100`, a finding's servers.
    pub what: String,
    /// Which figure (`requests/s ÷ ceiling`, `CPU µs/request`, `ratio of requests/s`).
    pub figure: String,
    /// Its kind.
    pub kind: Kind,
    /// The old run's.
    pub old: Estimate,
    /// The new run's.
    pub new: Estimate,
    /// The marks of the old run's rounds and of the new's.
    pub marks: (Marks, Marks),
    /// The comparison, when both sides had rounds enough.
    pub judgement: Option<Judgement>,
    /// The verdict, given with every other figure's.
    pub verdict: Verdict,
}

/// The comparison of two sets of results.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// Every compared figure, by experiment: cells, then capacities, then findings.
    pub changes: Vec<Change>,
    /// The experiments in only one of the two.
    pub unmatched: Vec<String>,
    /// The margin of "same" (and of the gate's "beyond"): `0.10` is ±10 %.
    pub margin: f64,
}

impl Comparison {
    /// The figures that moved.
    pub fn moved(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.verdict.moved())
    }

    /// How many figures got each verdict: moved, the same, undecided, not judged.
    pub fn counts(&self) -> [usize; 4] {
        let mut n = [0; 4];
        for c in &self.changes {
            n[match c.verdict {
                Verdict::Moved { .. } => 0,
                Verdict::Same { .. } => 1,
                Verdict::Undecided { .. } => 2,
                Verdict::Unjudged => 3,
            }] += 1;
        }
        n
    }

    /// The members of `family` (indices into `changes`) and the gate over them.
    pub fn gate(&self, family: &[Family]) -> (Vec<usize>, Gate) {
        let members: Vec<usize> = (0..self.changes.len())
            .filter(|&i| family.iter().any(|f| f.holds(self.changes[i].kind)))
            .collect();
        let judgements: Vec<Option<Judgement>> =
            members.iter().map(|&i| self.changes[i].judgement).collect();
        (members, verdict::gate(&judgements))
    }
}

/// The `bench run` results in `path`: the file itself, or the newest file of each experiment
/// in a folder (a published one).
pub fn load(path: &Path) -> Result<Vec<Results>, ReportError> {
    let files: Vec<PathBuf> = if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut v: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && bench_model::results::schema_of(p).as_deref()
                        == Some(bench_model::results::SCHEMA)
            })
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut newest: Vec<Results> = Vec::new();
    for f in files {
        let r = Results::load(&f)?;
        match newest.iter_mut().find(|n| n.experiment == r.experiment) {
            Some(n) if n.header.started_utc < r.header.started_utc => *n = r,
            Some(_) => {}
            None => newest.push(r),
        }
    }
    if newest.is_empty() {
        return Err(ReportError::NoResults(path.to_path_buf()));
    }
    Ok(newest)
}

/// Compares `old` and `new`, experiment by experiment, against `margin` (`0.10`: "same"
/// means within ±10 %), and gives every figure its verdict.
pub fn compare(old: &[Results], new: &[Results], margin: f64) -> Comparison {
    let mut out = Comparison {
        margin,
        ..Comparison::default()
    };
    for o in old {
        match new.iter().find(|n| n.experiment == o.experiment) {
            Some(n) => {
                figures::cells(&mut out.changes, o, n, margin);
                figures::capacities(&mut out.changes, o, n, margin);
                figures::findings(&mut out.changes, o, n, margin);
            }
            None => out.unmatched.push(format!("{} (old only)", o.experiment)),
        }
    }
    for n in new {
        if !old.iter().any(|o| o.experiment == n.experiment) {
            out.unmatched.push(format!("{} (new only)", n.experiment));
        }
    }
    let judgements: Vec<Option<Judgement>> = out.changes.iter().map(|c| c.judgement).collect();
    for (c, v) in out.changes.iter_mut().zip(verdict::decide(&judgements)) {
        c.verdict = v;
    }
    out
}

#[cfg(test)]
mod tests;
