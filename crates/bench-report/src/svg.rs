//! The SVG file beside a results file: under one title, per endpoint (E4: for all its
//! scenarios together) the four charts of [`chart`](super::chart), requests/s, server CPU µs
//! per request, peak RSS and latency percentiles on a log axis (E7: p99, CPU per request, p50
//! and p99.9 against the offered rate), stacked, each drawn by `bench_chart` in its wide
//! layout, the same charts the HTML page shows; titled by what the run measured.

use std::fs;
use std::path::Path;

use bench_chart::draw::Layout;
use bench_model::results::Results;

use super::chart::drawn;
use crate::error::ReportError;

/// The charts of `r` as one SVG document (see [`svg`]).
pub fn svg_string(r: &Results) -> String {
    let title = format!(
        "{}: {}{}",
        r.experiment.to_uppercase(),
        crate::read::measured_title(&[r]),
        if r.complete { "" } else { " (PARTIAL RUN)" }
    );
    // The command can be long (every server named): wrapped like the title, not cut off.
    let subtitle = format!(
        "{} · {} · {}",
        r.tool,
        r.header.started_utc,
        r.header.command.join(" ")
    );
    let charts = drawn(r, &Layout::FILE).into_iter().map(|(_, _, d)| d);
    bench_chart::svg::document(&title, &subtitle, charts, Layout::FILE.width)
}

/// Writes the charts of `r` (per endpoint: requests/s, CPU µs per request, peak RSS, latency
/// percentiles; a row per server, Rust variants beside their peers, a panel per step) as an
/// SVG file at `path`. Invalid steps read `✕ invalid`, steps a server did not run `—`, what
/// was not measured `n/a`; steps where the load generator was the bottleneck are marked `†`.
pub fn svg(r: &Results, path: &Path) -> Result<(), ReportError> {
    fs::write(path, svg_string(r)).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}
