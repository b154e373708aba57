//! The SVG file beside a results file: under one title, per endpoint (E4: for all its
//! scenarios together) the four charts of [`chart`](super::chart), requests/s, server CPU µs
//! per request, peak RSS and latency percentiles on a log axis (E7: p99, CPU per request, p50
//! and p99.9 against the offered rate), stacked, each drawn by [`draw`](super::draw) in its
//! wide layout, the same charts the HTML page shows; titled by what the run measured.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use bench_model::results::Results;

use super::chart::{charts, rate_charts};
use super::draw::{FONT, Layout, draw, draw_rates, text_width};
use crate::error::ReportError;
use crate::format::escape;

/// The width the file is drawn at, px.
const WIDTH: f64 = Layout::FILE.width;

/// The charts of `r` as one SVG document (see [`svg`]).
pub fn svg_string(r: &Results) -> String {
    let title = format!(
        "{}: {}{}",
        r.experiment.to_uppercase(),
        crate::read::measured_title(&[r]),
        if r.complete { "" } else { " (PARTIAL RUN)" }
    );
    let mut head = String::new();
    let mut y = 22.0;
    for line in wrap(&title, WIDTH - 16.0, 16.0) {
        let _ = write!(
            head,
            r#"<text x="8" y="{y}" font-size="16" font-weight="700">{}</text>"#,
            escape(&line)
        );
        y += 20.0;
    }
    // The command can be long (every server named): wrapped like the title, not cut off.
    let subtitle = format!(
        "{} · {} · {}",
        r.tool,
        r.header.started_utc,
        r.header.command.join(" ")
    );
    for line in wrap(&subtitle, WIDTH - 16.0, 12.0) {
        let _ = write!(
            head,
            r#"<text x="8" y="{y}" font-size="12">{}</text>"#,
            escape(&line)
        );
        y += 15.0;
    }
    let mut body = String::new();
    y += 3.0;
    let drawn = charts(r)
        .into_iter()
        .map(|c| draw(&c, &Layout::FILE))
        .chain(
            rate_charts(r)
                .into_iter()
                .map(|c| draw_rates(&c, &Layout::FILE)),
        );
    for d in drawn {
        let _ = write!(body, r#"<g transform="translate(0,{y})">{}</g>"#, d.body);
        y += d.height + 16.0;
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}" font-family="{FONT}" fill="#1A1A1A"><rect width="100%" height="100%" fill="#FFFFFF"/>{head}{body}</svg>
"##
    )
}

/// `text` in lines of at most `width` px at `size` px, broken between words.
fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l} {word}"), size) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
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
