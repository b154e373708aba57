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
//! [`write_beside`] writes both next to a results file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::results::{Results, ResultsError, Run, ServerResult, StepResult};

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

// ---------------------------------------------------------------------------------------
// Markdown

/// What a column shows of a run.
type ShowFn = Box<dyn Fn(&Run) -> Option<String>>;

/// One column of a table: its header, the step it reads, and what it shows of the step's
/// median run (`None` shows as `n/a`).
struct Col {
    header: String,
    step: String,
    show: ShowFn,
}

impl Col {
    fn new(header: String, step: &str, show: impl Fn(&Run) -> Option<String> + 'static) -> Col {
        Col {
            header,
            step: step.to_string(),
            show: Box::new(show),
        }
    }
}

/// The markdown report of `r`.
pub fn markdown(r: &Results) -> String {
    let mut out = String::new();
    header(&mut out, r);
    let endpoints = endpoints(r);
    match r.experiment.as_str() {
        "e4" => {
            // One table per measure, the scenarios (one step per endpoint) as columns.
            let steps: Vec<(String, String)> = endpoints
                .iter()
                .flat_map(|e| step_ids(r, e).into_iter().map(move |s| (e.clone(), s)))
                .collect();
            type Show = fn(&Run) -> Option<String>;
            let measures: [(&str, Show); 3] = [
                ("Requests/s", |run| Some(rps(run))),
                ("Errors (timeouts, socket errors, error statuses)", |run| {
                    Some(errors_cell(run))
                }),
                ("p99 latency (ms)", |run| run.latency_us.p99.map(ms)),
            ];
            for (title, show) in measures {
                let _ = writeln!(out, "## {title}\n");
                let cols = steps
                    .iter()
                    .map(|(e, s)| (e.as_str(), Col::new(s.clone(), s, show)))
                    .collect::<Vec<_>>();
                table(&mut out, r, &cols);
            }
        }
        id => {
            for endpoint in &endpoints {
                let steps = step_ids(r, endpoint);
                let cols = columns(id, &steps);
                let _ = writeln!(out, "## `{endpoint}`\n");
                let cols: Vec<(&str, Col)> =
                    cols.into_iter().map(|c| (endpoint.as_str(), c)).collect();
                table(&mut out, r, &cols);
            }
        }
    }
    resources(&mut out, r);
    spread(&mut out, r);
    invalid(&mut out, r);
    caveats(&mut out, r);
    out
}

/// The columns of one endpoint's table for experiment `id`.
fn columns(id: &str, steps: &[String]) -> Vec<Col> {
    let last = steps.last().cloned().unwrap_or_default();
    let each = |label: &str, show: fn(&Run) -> Option<String>| -> Vec<Col> {
        steps
            .iter()
            .map(|s| Col::new(format!("{label} {s}"), s, show))
            .collect()
    };
    let mut cols = Vec::new();
    match id {
        "e1" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            for (p, get) in [
                (
                    "p50",
                    (|r: &Run| r.latency_us.p50) as fn(&Run) -> Option<u64>,
                ),
                ("p95", |r: &Run| r.latency_us.p95),
                ("p99", |r: &Run| r.latency_us.p99),
            ] {
                cols.push(Col::new(format!("{p} ms {last}"), &last, move |r| {
                    get(r).map(ms)
                }));
            }
            cols.push(Col::new(format!("errors {last}"), &last, |r| {
                Some(error_rate(r))
            }));
        }
        "e2" => {
            for s in steps {
                let sfx = if steps.len() > 1 {
                    format!(" {s}")
                } else {
                    String::new()
                };
                cols.push(Col::new(format!("req/s{sfx}"), s, |r| Some(rps(r))));
                cols.push(Col::new(format!("ms per request{sfx}"), s, |r| {
                    r.latency_us.mean.map(|m| format!("{:.2}", m / 1000.0))
                }));
                cols.push(Col::new(format!("KB/s{sfx}"), s, |r| {
                    Some(thousands(r.transfer_bytes_per_s / 1024.0))
                }));
                cols.push(Col::new(format!("bytes/response{sfx}"), s, |r| {
                    Some(format!("{:.0}", r.bytes_per_response))
                }));
                cols.push(Col::new(format!("errors{sfx}"), s, |r| {
                    Some(errors_cell(r))
                }));
            }
        }
        "e3" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("avg ms", |r| {
                r.latency_us.mean.map(|m| format!("{:.2}", m / 1000.0))
            }));
            cols.extend(each("socket errors", |r| Some(socket_errors(r))));
        }
        "e5" => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("errors", |r| Some(errors_cell(r))));
        }
        _ => {
            cols.extend(each("req/s", |r| Some(rps(r))));
            cols.extend(each("p99 ms", |r| r.latency_us.p99.map(ms)));
        }
    }
    cols
}

fn header(out: &mut String, r: &Results) {
    let _ = writeln!(out, "# {}: {}\n", r.experiment.to_uppercase(), r.title);
    let m = &r.machine;
    let mut lines = vec![
        format!("Date: {} to {}", r.started_utc, r.finished_utc),
        format!(
            "Machine: {}, {}, {} CPUs, {:.1} GiB",
            or_unknown(&m.hostname),
            or_unknown(&m.cpu_model),
            m.cpus,
            m.mem_total_kb as f64 / 1024.0 / 1024.0
        ),
        format!("Kernel: {}", or_unknown(&m.kernel)),
        format!(
            "Git: {}{}",
            r.git.revision.as_deref().unwrap_or("unknown"),
            match r.git.dirty {
                Some(true) => " (with uncommitted changes)",
                _ => "",
            }
        ),
    ];
    let version = r
        .versions
        .get("tool")
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    lines.push(format!("Tool: {}{version}", r.tool));
    if let Some(cmd) = r
        .servers
        .iter()
        .flat_map(|s| &s.steps)
        .find(|s| !s.tool_command.is_empty())
    {
        lines.push(format!(
            "Tool command ({} {}): `{}`",
            cmd.endpoint,
            cmd.step,
            cmd.tool_command.join(" ")
        ));
    }
    lines.push(format!("Command: `{}`", r.command.join(" ")));
    lines.push(format!(
        "Length: {}, {} repeat{} per step (the tables show the median)",
        if r.quick { "quick" } else { "full" },
        r.repeat,
        if r.repeat == 1 { "" } else { "s" }
    ));
    lines.push(match &r.pinning {
        Some(p) => format!(
            "Pinning: servers on CPU {}, load tool on CPU {}",
            cpus(&p.server_cpus),
            cpus(&p.load_cpus)
        ),
        None => "Pinning: none".to_string(),
    });
    lines.push(match &r.target {
        Some(t) => format!("Target: {t} (remote: no RSS or CPU sampling)"),
        None => "Target: servers started by the harness on this machine".to_string(),
    });
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
    for n in &r.notes {
        let _ = writeln!(out, "- Note: {n}");
    }
    out.push('\n');
}

/// A table: one row per server, a column per `Col` (each of the endpoint it names).
fn table(out: &mut String, r: &Results, cols: &[(&str, Col)]) {
    let mut head = vec!["Server".to_string(), "Analogue of".to_string()];
    head.extend(cols.iter().map(|(_, c)| c.header.clone()));
    let rows = r
        .servers
        .iter()
        .map(|s| {
            let mut row = vec![s.name.clone(), analogue(s)];
            row.extend(cols.iter().map(|(e, c)| match find(s, e, &c.step) {
                None => "—".to_string(),
                Some(st) if !st.valid => "invalid".to_string(),
                Some(st) => match &st.median {
                    None => "n/a".to_string(),
                    Some(run) => (c.show)(run).unwrap_or_else(|| "n/a".to_string()),
                },
            }));
            row
        })
        .collect::<Vec<_>>();
    write_table(out, &head, &rows, 2);
}

/// Writes a markdown table whose first `left` columns are text (left-aligned), the rest
/// figures (right-aligned).
fn write_table(out: &mut String, head: &[String], rows: &[Vec<String>], left: usize) {
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    out.push_str(&line(head));
    let rule: Vec<String> = head
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i < left {
                "---".into()
            } else {
                "---:".into()
            }
        })
        .collect();
    let _ = writeln!(out, "|{}|", rule.join("|"));
    for row in rows {
        out.push_str(&line(row));
    }
    out.push('\n');
}

fn resources(out: &mut String, r: &Results) {
    let _ = writeln!(
        out,
        "## Resources (server process tree, median of repeats)\n"
    );
    let head: Vec<String> = [
        "Server",
        "Endpoint",
        "Step",
        "RSS start MB",
        "RSS peak MB",
        "RSS end MB",
        "Server CPU %",
        "CPU µs/request",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for s in &r.servers {
        for st in &s.steps {
            let mut row = vec![s.name.clone(), st.endpoint.clone(), st.step.clone()];
            match (&st.median, st.valid) {
                (_, false) => row.extend(std::iter::repeat_n("invalid".to_string(), 5)),
                (None, true) => row.extend(std::iter::repeat_n("n/a".to_string(), 5)),
                (Some(run), true) => {
                    let mb = |kb: Option<u64>| {
                        kb.map_or("n/a".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
                    };
                    row.push(mb(run.rss_kb.map(|x| x.start)));
                    row.push(mb(run.rss_kb.map(|x| x.peak)));
                    row.push(mb(run.rss_kb.map(|x| x.end)));
                    row.push(
                        run.server_cpu_percent
                            .map_or("n/a".into(), |c| format!("{c:.1}")),
                    );
                    row.push(
                        run.cpu_us_per_request
                            .map_or("n/a".into(), |c| format!("{c:.2}")),
                    );
                }
            }
            rows.push(row);
        }
    }
    write_table(out, &head, &rows, 3);
}

fn spread(out: &mut String, r: &Results) {
    if r.repeat <= 1 {
        return;
    }
    let _ = writeln!(out, "## Spread over repeats (requests/s)\n");
    let head: Vec<String> = [
        "Server", "Endpoint", "Step", "Repeats", "Min", "Median", "Max", "Spread",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for s in &r.servers {
        for st in &s.steps {
            let (Some(sp), Some(m)) = (&st.spread, &st.median) else {
                continue;
            };
            rows.push(vec![
                s.name.clone(),
                st.endpoint.clone(),
                st.step.clone(),
                st.repeats.len().to_string(),
                thousands(sp.requests_per_s_min),
                thousands(m.requests_per_s),
                thousands(sp.requests_per_s_max),
                format!("{:.1} %", sp.relative * 100.0),
            ]);
        }
    }
    write_table(out, &head, &rows, 3);
}

fn invalid(out: &mut String, r: &Results) {
    let bad: Vec<String> = r
        .servers
        .iter()
        .flat_map(|s| {
            s.steps.iter().filter(|st| !st.valid).map(move |st| {
                format!(
                    "- {} `{}` {}: {}",
                    s.name,
                    st.endpoint,
                    st.step,
                    st.invalid_reason.as_deref().unwrap_or("no reason recorded")
                )
            })
        })
        .collect();
    if !bad.is_empty() {
        let _ = writeln!(out, "## Invalid steps\n\n{}\n", bad.join("\n"));
    }
}

fn caveats(out: &mut String, r: &Results) {
    // Each note once, with the steps it came from (server, endpoint, step) unless it applies
    // to every step: "loadgen was busy" on three steps of twenty says where the tool may have
    // set the pace.
    let mut notes: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut all_steps = 0;
    for s in &r.servers {
        for st in &s.steps {
            all_steps += 1;
            let place = format!("{} {} {}", s.name, st.endpoint, st.step);
            for n in st
                .median
                .iter()
                .chain(&st.repeats)
                .flat_map(|run| &run.notes)
                .filter(|n| !n.contains(" aborted at the deadline"))
            {
                notes.entry(n.as_str()).or_default().insert(place.clone());
            }
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(
            out,
            "## What the tool could not measure exactly
"
        );
        for (n, places) in notes {
            if places.len() == all_steps {
                let _ = writeln!(out, "- {n}");
            } else {
                let list: Vec<&str> = places.iter().map(String::as_str).collect();
                let _ = writeln!(out, "- {n} ({})", list.join("; "));
            }
        }
        out.push('\n');
    }
}

fn endpoints(r: &Results) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if !v.contains(&st.endpoint) {
            v.push(st.endpoint.clone());
        }
    }
    v
}

fn step_ids(r: &Results, endpoint: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in r.servers.iter().flat_map(|s| &s.steps) {
        if st.endpoint == endpoint && !v.contains(&st.step) {
            v.push(st.step.clone());
        }
    }
    v
}

fn find<'a>(s: &'a ServerResult, endpoint: &str, step: &str) -> Option<&'a StepResult> {
    s.steps
        .iter()
        .find(|st| st.endpoint == endpoint && st.step == step)
}

fn analogue(s: &ServerResult) -> String {
    if s.analogue.is_empty() {
        "—".to_string()
    } else {
        s.analogue.join(", ")
    }
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "unknown" } else { s }
}

fn cpus(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

fn rps(r: &Run) -> String {
    thousands(r.requests_per_s)
}

/// Microseconds as milliseconds with two decimals.
fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1000.0)
}

fn error_rate(r: &Run) -> String {
    let total = r.errors.total();
    if r.requests == 0 {
        return if total == 0 {
            "0".into()
        } else {
            total.to_string()
        };
    }
    format!("{:.2} %", total as f64 / r.requests as f64 * 100.0)
}

fn errors_cell(r: &Run) -> String {
    let e = &r.errors;
    let parts = nonzero(&[
        ("connect", e.connect),
        ("read", e.read),
        ("write", e.write),
        ("timeout", e.timeout),
        ("status", e.status),
        ("other", e.other),
    ]);
    if parts.is_empty() {
        "0".into()
    } else {
        format!("{} ({parts})", e.total())
    }
}

fn socket_errors(r: &Run) -> String {
    let e = &r.errors;
    let parts = nonzero(&[
        ("connect", e.connect),
        ("read", e.read),
        ("write", e.write),
        ("timeout", e.timeout),
    ]);
    if parts.is_empty() { "0".into() } else { parts }
}

/// `kind n` for each kind counted at least once, comma-separated (`read 76, timeout 2`).
fn nonzero(counts: &[(&str, u64)]) -> String {
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rate with thousands separators and no decimals (`81,103`).
pub fn thousands(x: f64) -> String {
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

// ---------------------------------------------------------------------------------------
// SVG

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
                "{}: {} ({})",
                r.experiment.to_uppercase(),
                r.tool,
                r.started_utc
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
