//! The bench harness's reports of its results files: [`markdown`] (a header with provenance
//! and, given the workspace, which measured servers' code changed since: [`stale`]; the
//! experiment's own tables, rows servers and columns steps; resources, spread, invalid steps,
//! the tools' caveats), [`svg`] (its charts in one SVG file; [`write_beside`] writes both next
//! to a results file) and [`html`] (one self-contained page of many files, grouped by
//! experiment); [`instructions`], [`tools`] and [`idle`] for the other kinds of results file
//! (told apart by [`other`]), [`noise`] (`bench noise`'s tables), [`compare`] (`bench
//! compare`) and [`headline`] (the README's table). What an experiment's report shows is
//! declared in `bench_model::experiment` ([`Shown`](bench_model::experiment::Shown)); nothing
//! here matches on an experiment's id. Every figure is written by one function from one value
//! ([`format::grouped`]; [`format`](mod@format) is `bench_chart`'s, re-exported).
//!
//! Files: `model.rs` (a report as data: headings, paragraphs, lists, tables of cells with their
//! marks; its markdown) and `model_html.rs` (the same as HTML); `build.rs` (the model of a
//! results file; `build/`: E7's ladder, the limits, the precision); `findings.rs` (the
//! sentences a report opens with); `read.rs` (what every report reads of a run alike);
//! `stale.rs`; `headline.rs`; `html.rs` (the page; `html/`: its header, CSS and script);
//! `instructions.rs`, `tools.rs`, `idle.rs`, `other.rs`, `noise.rs`, `compare/`; `error.rs`.
//!
//! Where a chart is drawn: `chart.rs` builds what each chart of a results file shows (which
//! server is a row, which step a panel, which panel a finding cites, E7's lines against the
//! offered rate, which step's timeline) as `bench_chart`'s data; the `bench_chart` crate
//! draws it (`bench_chart::draw`), and `html.rs` puts each drawing on the page wide and
//! narrow, `svg.rs` in the SVG file (the timeline chart is the page's alone; `build.rs` writes
//! its caption under the tables). Each module imports the ones it needs by name; this file only
//! declares them and says what the crate offers, so no module depends on the crate's root.

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
pub mod tools;

/// How every figure is written: `bench_chart::format`, the one function from one value the
/// charts, the tables, the findings and the README share.
pub use bench_chart::format;
/// A plain-text table for the terminal: `bench_chart::table`.
pub use bench_chart::table;

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
