//! The SVG chart: requests/s and p99 per server and step, as two panels of grouped bars
//! (plotters' SVG backend). A bar whose step was tool-bound carries a `†` (the title says
//! what it means), and the title of a partial run says so.

use std::fmt;
use std::fs;
use std::path::Path;

use plotters::prelude::*;

use crate::results::{Results, Run, ServerResult};

use super::{ReportError, endpoints, find, step_ids, thousands};

/// The chart of `r` as an SVG document (see [`svg`]).
pub fn svg_string(r: &Results) -> Result<String, ReportError> {
    let mut s = String::new();
    draw(r, SVGBackend::with_string(&mut s, (1200, 520)))?;
    Ok(s)
}

/// Draws requests/s (left) and p99 latency (right) per server (one colour each, named in
/// the legend) and step (groups along the x axis, `endpoint step`) as an SVG file at `path`.
/// Invalid and unmeasured steps have no bar.
pub fn svg(r: &Results, path: &Path) -> Result<(), ReportError> {
    let text = svg_string(r)?;
    fs::write(path, text).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The last segment of an endpoint's path, for axis labels (`/api/hello?x=1` → `hello`).
fn short(endpoint: &str) -> &str {
    let path = endpoint.split('?').next().unwrap_or(endpoint);
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("/")
}

fn chart_err(e: impl fmt::Display) -> ReportError {
    ReportError::Chart(e.to_string())
}

fn draw(r: &Results, backend: SVGBackend<'_>) -> Result<(), ReportError> {
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(chart_err)?;
    let root = root
        .titled(
            &format!(
                "{}: {} ({}){}{}",
                r.experiment.to_uppercase(),
                r.tool,
                r.started_utc,
                if r.complete { "" } else { ", PARTIAL RUN" },
                if r.tool_bound_steps().is_empty() {
                    String::new()
                } else {
                    format!("; † = {} was the bottleneck", r.tool)
                }
            ),
            ("sans-serif", 20),
        )
        .map_err(chart_err)?;
    let groups: Vec<(String, String)> = endpoints(r)
        .into_iter()
        .flat_map(|e| step_ids(r, &e).into_iter().map(move |s| (e.clone(), s)))
        .collect();
    let (left, right) = root.split_horizontally(600);
    type Get = fn(&Run) -> Option<f64>;
    let panels: [(_, &str, Get); 2] = [
        (left, "requests/s", |run| Some(run.requests_per_s)),
        (right, "p99 latency (ms)", |run| {
            run.latency_us.p99.map(|us| us as f64 / 1000.0)
        }),
    ];
    for (area, label, get) in panels {
        panel(&area, r, &groups, label, get)?;
    }
    root.present().map_err(chart_err)?;
    Ok(())
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    r: &Results,
    groups: &[(String, String)],
    label: &str,
    get: fn(&Run) -> Option<f64>,
) -> Result<(), ReportError> {
    let value = |s: &ServerResult, (e, st): &(String, String)| -> Option<f64> {
        let step = find(s, e, st).filter(|x| x.valid)?;
        get(step.median.as_ref()?).filter(|v| v.is_finite() && *v >= 0.0)
    };
    let top = r
        .servers
        .iter()
        .flat_map(|s| groups.iter().filter_map(move |g| value(s, g)))
        .fold(0.0_f64, f64::max);
    // Head room for the legend above the highest bar.
    let top = if top > 0.0 { top * 1.35 } else { 1.0 };
    let n = groups.len().max(1);
    let names: Vec<String> = groups
        .iter()
        .map(|(e, s)| {
            if endpoints(r).len() > 1 {
                format!("{} {s}", short(e))
            } else {
                s.clone()
            }
        })
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(label, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n as f64, 0.0..top)
        .map_err(chart_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|x: &f64| {
            // Labels sit at the middle of each group.
            let i = x.floor();
            if (x - i - 0.5).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y: &f64| {
            if top >= 100.0 {
                thousands(*y)
            } else {
                format!("{y:.1}")
            }
        })
        .x_label_style(("sans-serif", 11))
        .y_desc(label)
        .draw()
        .map_err(chart_err)?;
    let k = r.servers.len().max(1) as f64;
    let width = 0.8 / k;
    for (j, s) in r.servers.iter().enumerate() {
        let colour = Palette99::pick(j).mix(0.9);
        let bars: Vec<Rectangle<(f64, f64)>> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let v = value(s, g)?;
                let x0 = i as f64 + 0.1 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + width, v)],
                    colour.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(chart_err)?
            .label(s.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        let style = TextStyle::from(("sans-serif", 14));
        let marks: Vec<Text<'_, (f64, f64), &str>> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let bound = find(s, &g.0, &g.1)?.median.as_ref()?.tool_bound;
                let v = value(s, g).filter(|_| bound)?;
                let x = i as f64 + 0.1 + (j as f64 + 0.3) * width;
                Some(Text::new("†", (x, v + top * 0.01), style.clone()))
            })
            .collect();
        chart.draw_series(marks).map_err(chart_err)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(chart_err)?;
    Ok(())
}
