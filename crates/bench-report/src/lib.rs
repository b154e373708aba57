//! A results document as markdown tables shaped like each experiment's own, and as an SVG
//! chart.
//!
//! [`markdown`] writes a header (experiment, date, machine, git revision, tool and the exact
//! flags of a step, the command; first, with the workspace root to ask git, which measured
//! servers' code changed since the run: [`stale`]) and then the experiment's tables, one per endpoint where the
//! article had one per endpoint: rows are servers (with the systems they are the analogue of),
//! columns are steps. E1: requests/s at 100/500/1000 connections and p50/p95/p99 and the error
//! rate at the last step; E2: requests/s, ms per request, KB/s; E3: requests/s, average
//! latency and socket errors at 100/1,000/10,000 connections; E4: requests/s, errors and p99
//! per scenario, then per server the probe's table (its requests/s, p50 and p99 on
//! `/api/hello` under each scenario's load, beside the no-load baseline); E5: requests/s at 1/10/100 connections. Then resources (RSS, server CPU),
//! the spread over repeats when there were several, invalid steps with their reasons, and the
//! tools' own caveats. A cell reads `invalid` for an invalid step, `n/a` for what was not
//! measured (a remote target's RSS, wrk's p95) and `—` for a step the server did not run.
//!
//! [`svg`] draws, per endpoint, requests/s, server CPU µs per request, peak RSS and the
//! latency percentiles (log axis) as one SVG file; [`write_beside`] writes both next to a
//! results file. [`html`] makes one self-contained page of many results files, grouped by
//! experiment (see its module), and [`instructions`] the table of a `bench instructions`
//! results file (in the markdown beside it and as a section of the page); [`tools`] and
//! [`idle`] the tables of a `bench tools compare` and a `bench idle` results file (on the
//! terminal and in the markdown beside it); [`other`] tells those three kinds of file apart
//! by their `schema`, the one place that does. Their reports are documents of the same model
//! as an experiment's (`model.rs`), and the page draws their tables with the same renderer.
//!
//! What each experiment's report shows is declared beside its steps in its own file of `bench_model::experiment`
//! ([`Shown`]: its tables and its charts); nothing here matches on an experiment's id.
//!
//! Files: `model.rs` (a report as data: headings, paragraphs, lists and tables of cells
//! with their marks; its markdown), `build.rs` (the model of a results file, from its
//! experiment's declaration), `stale.rs` (the commits since a run to its servers' code),
//! `findings.rs` (the sentences a report and the page open with, computed from the figures),
//! `html.rs` (the page; with `html/`: the model as HTML, the
//! page's CSS and script), `svg.rs`; `chart.rs` (what a chart shows: rows, panels, cells)
//! and `draw.rs` (a chart as SVG), which the SVG file and the page share; here, the helpers
//! all use (which endpoints and steps a document has, number formats, the marks).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use bench_model::results::{Results, ResultsError, Run, ServerResult, StepResult};

mod build;
mod chart;
pub mod compare;
mod draw;
pub mod findings;
pub mod format;
pub mod headline;
mod html;
pub mod idle;
pub mod instructions;
mod model;
pub mod other;
pub mod stale;
mod svg;
pub mod table;
pub mod tools;

use bench_model::experiment::{self, Shown};
pub use build::{markdown, markdown_at};
use format::{escape, grouped, thousands};
pub use html::{Doc, html, html_at, write_html};
pub use model::Marks;
pub use other::is_other_results_file;
pub use svg::{svg, svg_string};

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

/// Reads the results at `json_path` and writes `<name>.md` and `<name>.svg` beside it
/// (`results/e3-20261129T224000Z.json` → `results/e3-20261129T224000Z.md`, `….svg`); with
/// the workspace `root`, the markdown says which servers' code changed since the run.
pub fn write_beside(
    json_path: &Path,
    root: Option<&Path>,
) -> Result<(PathBuf, PathBuf), ReportError> {
    let results = Results::load(json_path)?;
    let md = json_path.with_extension("md");
    let svg_path = json_path.with_extension("svg");
    fs::write(&md, markdown_at(&results, root)).map_err(|source| ReportError::Io {
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

/// What the report of `r` shows: its experiment's declaration ([`Shown`]); for a file of no
/// known experiment, a ladder's when a step records an offered rate, else
/// [`experiment::OTHER_SHOWN`].
pub(crate) fn shown(r: &Results) -> &'static Shown {
    match experiment::find(&r.experiment) {
        Some(e) => &e.shown,
        None if r.steps().any(|(_, st)| st.offered_requests_per_s.is_some()) => {
            &experiment::LADDER_SHOWN
        }
        None => &experiment::OTHER_SHOWN,
    }
}

/// The mark of a figure the load tool may have set ([`Run::tool_bound`]).
pub const TOOL_MARK: &str = "†";
/// The mark of a figure the machine may have set ([`Run::disturbed`]).
pub const MACHINE_MARK: &str = "‡";
/// The mark of a closed-loop figure neither the server nor the tool set: the connections'
/// round trips did ([`Run::round_trips_bound`]).
pub const ROUND_TRIP_MARK: &str = "§";

/// Whether the machine (other work, steal, CPU waits) may have set `st`'s figures: its median
/// run's recorded mark (`step::machine::disturbed`, the one rule).
pub(crate) fn disturbed(st: &StepResult) -> bool {
    st.median.as_ref().is_some_and(|m| m.disturbed)
}

/// The marks of a valid step's figures: its median run's ([`Marks::of`]); none for an
/// invalid step or one of no median.
pub(crate) fn step_marks(st: &StepResult) -> Marks {
    match &st.median {
        Some(m) if st.valid => Marks::of(m),
        _ => Marks::default(),
    }
}

/// The marks of a run's figure: ` †` (tool-bound), ` ‡` (disturbed), ` §` (set by the round
/// trips), their combinations, or nothing.
pub fn marks(run: &Run) -> String {
    Marks::of(run).suffix()
}

/// The footnotes of the marks in `r`'s tables, one line each (none when nothing is marked):
/// which figures the load tool set, and which the machine set.
pub fn footnotes(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    let bound = r.tool_bound_steps();
    if !bound.is_empty() {
        let list: Vec<String> = bound.iter().map(|b| b.describe()).collect();
        out.push(format!(
            "{TOOL_MARK} tool-bound: {} used at least 90 % of what it could use (its busiest thread's CPU for a single-threaded tool, all the CPUs it may run on for a multi-threaded one), so these figures are its limit, not the server's: {}",
            r.tool,
            list.join("; ")
        ));
    }
    let paced: Vec<String> = r
        .steps()
        .filter_map(|(s, st)| {
            let why = st.median.as_ref()?.round_trips_bound.as_ref()?;
            Some(format!("{} {} {} ({why})", s.name, st.endpoint, st.step))
        })
        .collect();
    if !paced.is_empty() {
        out.push(format!(
            "{ROUND_TRIP_MARK} set by the round trips: neither the server nor the load tool used 90 % of what it could, so each connection waited on its own round trips and these requests/s are not the server's capacity (more connections would give more): {}",
            paced.join("; ")
        ));
    }
    let busy = disturbed_steps(r);
    if !busy.is_empty() {
        out.push(format!(
            "{MACHINE_MARK} disturbed: the machine set these figures, not the server (other work, steal or CPU waits past the limits, even after the retries): {}",
            busy.join("; ")
        ));
    }
    out
}

/// `server /endpoint step (why)` for every step whose median run was disturbed.
pub(crate) fn disturbed_steps(r: &Results) -> Vec<String> {
    r.steps()
        .filter_map(|(s, st)| {
            let m = st.median.as_ref().filter(|m| m.disturbed)?;
            Some(format!(
                "{} {} {} ({})",
                s.name,
                st.endpoint,
                st.step,
                m.disturbed_reason.as_deref().unwrap_or("disturbed")
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_footnotes_come_from_the_recorded_verdicts() {
        let run = |tool_bound: bool, disturbed: bool| Run {
            requests_per_s: 1000.0,
            tool_bound,
            disturbed,
            disturbed_reason: disturbed.then(|| "other work took 45 % of a CPU".to_string()),
            tool_cpu_percent: Some(98.0),
            tool_cpus: Some(1),
            ..Run::default()
        };
        assert_eq!(marks(&run(false, false)), "");
        assert_eq!(marks(&run(true, false)), " †");
        assert_eq!(marks(&run(false, true)), " ‡");
        assert_eq!(marks(&run(true, true)), " †‡");
        let step = |id: &str, r: Run| {
            let mut st = StepResult {
                step: id.into(),
                endpoint: "/".into(),
                connections: 50,
                requests: None,
                duration_s: Some(2.0),
                offered_requests_per_s: None,
                tool_command: vec![],
                valid: true,
                invalid_reason: None,
                repeats: vec![r],
                median: None,
                spread: None,
                intervals: None,
                saturation: None,
                searched_rounds: None,
            };
            st.finish();
            st
        };
        let text = include_str!("../tests/data/results-e3.json");
        let mut r: Results = serde_json::from_str(text).unwrap();
        r.servers.truncate(1);
        r.servers[0].name = "x".into();
        r.servers[0].steps = vec![step("c1", run(false, false))];
        assert!(footnotes(&r).is_empty());
        r.servers[0].steps = vec![step("c1", run(true, false)), step("c2", run(false, true))];
        assert!(step_marks(&r.servers[0].steps[0]).tool && !disturbed(&r.servers[0].steps[0]));
        assert!(disturbed(&r.servers[0].steps[1]));
        let notes = footnotes(&r);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("† tool-bound: "), "{notes:?}");
        assert!(
            notes[0].ends_with("x / c1 (tool CPU 98 % of 1 CPU)"),
            "{notes:?}"
        );
        assert_eq!(
            notes[1],
            "‡ disturbed: the machine set these figures, not the server (other work, steal or CPU waits past the limits, even after the retries): x / c2 (other work took 45 % of a CPU)"
        );
        // Neither side set the pace: its own mark and line.
        let paced = Run {
            round_trips_bound: Some("neither side set the pace".into()),
            ..run(false, false)
        };
        assert_eq!(marks(&paced), " §");
        r.servers[0].steps = vec![step("c3", paced)];
        assert_eq!(
            footnotes(&r),
            [
                "§ set by the round trips: neither the server nor the load tool used 90 % of what it could, so each connection waited on its own round trips and these requests/s are not the server's capacity (more connections would give more): x / c3 (neither side set the pace)"
            ]
        );
    }
}
