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
//! results file. Every figure, in a chart, a table, a finding or the README, is written by
//! one function from one value ([`format::grouped`], which rounds half away from zero as
//! [`format::thousands`] does), and a report's title says only what its run measured. [`html`] makes one self-contained page of many results files, grouped by
//! experiment (see its module), and [`instructions`] the table of a `bench instructions`
//! results file (in the markdown beside it and as a section of the page); [`tools`] and
//! [`idle`] the tables of a `bench tools compare` and a `bench idle` results file (on the
//! terminal and in the markdown beside it); [`other`] tells those three kinds of file apart
//! by their `schema`, the one place that does. [`noise`] is `bench noise`'s tables: where each step's noise
//! is, from its repeats' timelines ([`bench_model::noise`]). Their reports are documents of the same model
//! as an experiment's (`model.rs`), and the page draws their tables with the same renderer.
//!
//! What each experiment's report shows is declared beside its steps in its own file of `bench_model::experiment`
//! ([`Shown`](bench_model::experiment::Shown): its tables and its charts); nothing here matches on an experiment's id.
//!
//! Files: `model.rs` (a report as data: headings, paragraphs, lists and tables of cells
//! with their marks; its markdown), `build.rs` (the model of a results file, from its
//! experiment's declaration; with `build/`: E7's ladder, the limits, the precision),
//! `stale.rs` (the commits since a run to its servers' code), `findings.rs` (the sentences a
//! report and the page open with, computed from the figures), `html.rs` (the page; with
//! `html/`: its header, CSS and script), `svg.rs` (the SVG file); `chart.rs` (what each chart
//! of a results file shows, built from it: rows, panels, cells, lines), which the page and
//! the SVG file have drawn by the `bench_chart` crate (`bench_chart::draw`: bars, lines
//! against the rate, axes, and the check that no text overlaps another); `read.rs` (what
//! every report reads of a run alike: its endpoints and steps, its title, the marks and their
//! footnotes) and `error.rs` (the crate's one error type). [`format`](mod@format) (how every figure is
//! written) is `bench_chart`'s, re-exported.
//! Each module imports the ones it needs by name; this file only declares them and says what
//! the crate offers, so no module depends on the crate's root.

use std::fs;
use std::path::{Path, PathBuf};

use bench_model::results::Results;

mod build;
mod chart;
pub mod compare;
mod error;
pub mod findings;
pub mod headline;
mod html;
pub mod idle;
pub mod instructions;
mod model;
mod model_html;
pub mod noise;
pub mod other;
mod read;
pub mod stale;
mod svg;
pub mod table;
pub mod tools;

/// How every figure is written: `bench_chart::format`, the one function from one value the
/// charts, the tables, the findings and the README share.
pub use bench_chart::format;

pub use build::{aa_flag, markdown, markdown_at};
pub use error::ReportError;
pub use html::{Doc, html, html_at, write_html};
pub use model::{MACHINE_MARK, Marks, ROUND_TRIP_MARK, TOOL_MARK};
pub use other::is_other_results_file;
pub use read::{footnotes, marks};
pub use svg::{svg, svg_string};

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
