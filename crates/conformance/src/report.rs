//! Outcomes of checks and the report that prints them.
//!
//! A [`Report`] holds one [`CheckResult`] per check that was selected, in the order of
//! [`crate::checks()`]. [`Report::print`] writes one line per check and a closing summary line
//! of the form `N passed, N failed` (with `, N skipped` when any check was skipped).

use std::fmt;
use std::time::Duration;

use crate::Group;

/// How a check failed: what the contract wants, what the server did, and the bytes it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What the contract requires.
    pub expected: String,
    /// What was observed instead.
    pub actual: String,
    /// A short printable excerpt of the raw bytes received (may be empty).
    pub excerpt: String,
}

impl Failure {
    /// A failure without an excerpt.
    pub fn new(expected: impl Into<String>, actual: impl Into<String>) -> Failure {
        Failure {
            expected: expected.into(),
            actual: actual.into(),
            excerpt: String::new(),
        }
    }

    /// Attaches an excerpt of the raw bytes received.
    pub fn raw(mut self, bytes: &[u8]) -> Failure {
        self.excerpt = crate::wire::excerpt(bytes, 200);
        self
    }

    /// Prefixes the expectation with where in the check it happened.
    pub fn at(mut self, step: impl fmt::Display) -> Failure {
        self.expected = format!("{step}: {}", self.expected);
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, got {}", self.expected, self.actual)?;
        if !self.excerpt.is_empty() {
            write!(f, " [received: {}]", self.excerpt)?;
        }
        Ok(())
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The server did what the contract says.
    Pass,
    /// The server did not.
    Fail(Failure),
    /// Not run: a documented exception of the variant under test, or a check of an endpoint
    /// the server does not serve.
    Skipped {
        /// Why the variant is excused.
        reason: String,
    },
}

/// One check's name, group, outcome and duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// The check's stable name.
    pub name: &'static str,
    /// The check's group.
    pub group: Group,
    /// What happened.
    pub outcome: Outcome,
    /// How long the check took.
    pub elapsed: Duration,
}

impl fmt::Display for CheckResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Pass => write!(f, "PASS {}", self.name),
            Outcome::Fail(failure) => write!(f, "FAIL {}: {failure}", self.name),
            Outcome::Skipped { reason } => write!(f, "EXCEPTION {}: {reason}", self.name),
        }
    }
}

/// The results of one run, in the order of [`crate::checks()`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per selected check.
    pub results: Vec<CheckResult>,
}

impl Report {
    /// Number of checks that passed.
    pub fn passed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Pass))
    }

    /// Number of checks that failed.
    pub fn failed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Fail(_)))
    }

    /// Number of checks skipped as documented exceptions.
    pub fn skipped(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Skipped { .. }))
    }

    /// True when no check failed (skipped checks do not count against it).
    pub fn all_passed(&self) -> bool {
        self.failed() == 0
    }

    /// Names of the checks that failed, in order.
    pub fn failed_names(&self) -> Vec<&'static str> {
        self.results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Fail(_)))
            .map(|r| r.name)
            .collect()
    }

    /// The result of the check `name`, if it was selected.
    pub fn get(&self, name: &str) -> Option<&CheckResult> {
        self.results.iter().find(|r| r.name == name)
    }

    /// The closing line: `N passed, N failed`, with `, N skipped` when any were skipped.
    pub fn summary(&self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            line.push_str(&format!(", {} skipped", self.skipped()));
        }
        line
    }

    /// Prints one line per check and the summary line to stdout.
    pub fn print(&self) {
        println!("{self}");
    }

    fn count(&self, pred: impl Fn(&Outcome) -> bool) -> usize {
        self.results.iter().filter(|r| pred(&r.outcome)).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for result in &self.results {
            writeln!(f, "{result}")?;
        }
        write!(f, "{}", self.summary())
    }
}
