//! What the charts show of a results document, as data for [`draw`](super::draw): for each
//! endpoint (or, when every endpoint has a single step, as E4's scenarios do, for all of them
//! together) four charts, requests/s, server CPU µs per request, peak RSS and the latency
//! percentiles; each chart a row per server and a panel per step, sharing one scale.
//!
//! Rows come in pairs: each Rust variant, then the peers it is the analogue of (a peer goes
//! with the first of its analogues that ran), then what is left (the C ceiling); a gap
//! separates the pairs, so a variant and the system it mirrors sit together.
//!
//! A ladder of offered rates (E7) has no bar charts: per endpoint, [`rate_charts`] gives the
//! latency percentiles (p50, p99, p99.9, a panel each) and the server's CPU µs per request
//! against the offered rate, a line per server; a pair shares a colour, its Rust variant
//! drawn solid and its peers dashed.

use bench_model::results::{Intervals, Results, Run, ServerKind, ServerResult, StepResult};
use bench_model::stats::Interval;
use bench_model::sustainable;

use crate::model::Marks;
use crate::read::{disturbed, endpoints, find, shown, step_ids, step_marks};
use bench_model::experiment::{BASELINE, Charts};

/// What a server is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A Rust variant of this workspace.
    Rust,
    /// A peer: the article's own system.
    Peer,
    /// A peer that is the analogue of nothing (the C ceiling): a reference.
    Reference,
}

/// One server's row.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// Its servers.toml name.
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// Whether a new pair starts here (a gap above it).
    pub gap_before: bool,
}

/// The latency percentiles of a run, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Percentiles {
    /// p50, p90, p95, p99 and max, each when the tool reported it.
    pub values: [Option<u64>; 5],
}

/// The names of [`Percentiles::values`], in order.
pub(crate) const PERCENTILES: [&str; 5] = ["p50", "p90", "p95", "p99", "max"];

/// What one server's step shows in one chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    /// A figure (bar charts).
    Bar(f64),
    /// A figure in two parts drawn end to end: the server's CPU per request, user then
    /// kernel time.
    Split(f64, f64),
    /// Percentiles (the latency chart).
    Latency(Percentiles),
    /// The step ran but was invalid.
    Invalid,
    /// The step ran but this was not measured (a remote target's RSS).
    NotMeasured,
    /// The server did not run this step.
    NotRun,
}

/// One cell: a server's value at one step, and whether the load tool may have set its pace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cell {
    /// The value.
    pub value: Value,
    /// Who else may have set the figure: the load tool, the machine, the round trips
    /// ([`step_marks`]).
    pub marks: Marks,
    /// The interval of the figure over the run's rounds, drawn as a whisker (requests/s and
    /// CPU per request of a run in rounds): solid at 95 %, dashed and lighter below it, where
    /// its tooltip and the legend say its rounds and real coverage ([`Interval::label`]);
    /// `None` otherwise.
    pub whisker: Option<Interval>,
    /// E4's probe: its p99 is a lower bound, since the probe got no answer in some rounds
    /// (the p99 counts them at their bound, [`StepResult::probe_p99`]); `None` otherwise.
    pub at_least: Option<Unanswered>,
}

/// A probe's p99 over rounds some of which got no answer ([`Cell::at_least`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Unanswered {
    /// The p99 over every round, those without an answer at their lower bound, µs.
    pub p99_us: f64,
    /// The rounds without an answer.
    pub censored: usize,
    /// Every round.
    pub rounds: usize,
}

impl Unanswered {
    /// What the tooltip says of it.
    pub fn words(&self) -> String {
        format!(
            "; p99 at least {}: the probe got no answer in {} of its {} rounds, each counted as half its window, the least it waited; the other percentiles are over the rounds with an answer",
            crate::format::us_label(self.p99_us),
            self.censored,
            self.rounds
        )
    }
}

impl Cell {
    /// A cell with no marks.
    fn plain(value: Value) -> Cell {
        Cell {
            value,
            marks: Marks::default(),
            whisker: None,
            at_least: None,
        }
    }
}

/// A panel: one step, a cell per row.
#[derive(Clone, Debug)]
pub(crate) struct Panel {
    /// The step's label (`c100`, `async`).
    pub title: String,
    /// A cell per row of the chart, in row order.
    pub cells: Vec<Cell>,
}

/// Which metric a chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metric {
    /// Requests per second.
    Rps,
    /// Server CPU µs per request.
    Cpu,
    /// Peak RSS, MB.
    Rss,
    /// Latency percentiles, on a log axis.
    Latency,
}

impl Metric {
    /// Every chart of a group, in order.
    pub const ALL: [Metric; 4] = [Metric::Rps, Metric::Cpu, Metric::Rss, Metric::Latency];

    /// A short id (`data-chart` in the page).
    pub fn id(self) -> &'static str {
        match self {
            Metric::Rps => "rps",
            Metric::Cpu => "cpu",
            Metric::Rss => "rss",
            Metric::Latency => "latency",
        }
    }

    /// The chart's title.
    pub fn title(self) -> &'static str {
        match self {
            Metric::Rps => "Requests per second",
            Metric::Cpu => "Server CPU time per request: user and kernel",
            Metric::Rss => "Peak resident memory",
            Metric::Latency => "Latency percentiles",
        }
    }

    /// The value axis' title, with its unit.
    pub fn axis(self) -> &'static str {
        match self {
            Metric::Rps => "requests/s (more is better)",
            Metric::Cpu => "µs of server CPU per request (less is better)",
            Metric::Rss => "MB, peak RSS of the server's process tree (less is better)",
            Metric::Latency => "latency, log scale (less is better)",
        }
    }

    /// Decimals of a bar's value label.
    pub fn decimals(self) -> usize {
        match self {
            Metric::Rps => 0,
            Metric::Cpu => 2,
            Metric::Rss | Metric::Latency => 1,
        }
    }

    fn value(self, run: &Run) -> Value {
        let bar = |v: Option<f64>| match v.filter(|v| v.is_finite() && *v >= 0.0) {
            Some(v) => Value::Bar(v),
            None => Value::NotMeasured,
        };
        match self {
            Metric::Rps => bar(Some(run.requests_per_s)),
            Metric::Cpu => match (run.cpu_user_us_per_request, run.cpu_kernel_us_per_request) {
                (Some(u), Some(k)) if u >= 0.0 && k >= 0.0 => Value::Split(u, k),
                _ => bar(run.cpu_us_per_request),
            },
            Metric::Rss => bar(run.rss_kb.map(|r| r.peak as f64 / 1024.0)),
            Metric::Latency => {
                let l = &run.latency_us;
                let p = Percentiles {
                    values: [l.p50, l.p90, l.p95, l.p99, l.max],
                };
                if p.values.iter().all(Option::is_none) {
                    Value::NotMeasured
                } else {
                    Value::Latency(p)
                }
            }
        }
    }
}

/// One chart: a metric over a group of steps.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    /// What it shows.
    pub metric: Metric,
    /// The group it covers (`/api/hello`, or `the scenarios`).
    pub group: String,
    /// A row per server.
    pub rows: Vec<Row>,
    /// A panel per step.
    pub panels: Vec<Panel>,
    /// Whether the panels share one scale (steps of one endpoint), or each has its own
    /// (E4's scenarios, whose figures are apart by orders of magnitude).
    pub shared_scale: bool,
}

/// The servers of `r` in pair order (see the module header), with their rows.
pub(crate) fn paired(r: &Results) -> Vec<(&ServerResult, Row)> {
    let mut order: Vec<(&ServerResult, Row)> = Vec::new();
    let placed = |order: &[(&ServerResult, Row)], s: &ServerResult| {
        order.iter().any(|(o, _)| std::ptr::eq(*o, s))
    };
    for rust in r.servers.iter().filter(|s| s.kind == ServerKind::Rust) {
        order.push((rust, row(rust, true)));
        for peer in &r.servers {
            // The first Rust variant among the peer's analogues that ran takes it.
            let first = peer.analogue.iter().find(|a| {
                r.servers
                    .iter()
                    .any(|s| s.kind == ServerKind::Rust && &&s.name == a)
            });
            if peer.kind == ServerKind::Peer && first == Some(&rust.name) && !placed(&order, peer) {
                order.push((peer, row(peer, false)));
            }
        }
    }
    for s in &r.servers {
        if !placed(&order, s) {
            order.push((s, row(s, true)));
        }
    }
    if let Some((_, first)) = order.first_mut() {
        first.gap_before = false;
    }
    order
}

fn row(s: &ServerResult, gap_before: bool) -> Row {
    Row {
        name: s.name.clone(),
        kind: match s.kind {
            ServerKind::Rust => Kind::Rust,
            ServerKind::Peer if s.analogue.is_empty() => Kind::Reference,
            ServerKind::Peer => Kind::Peer,
        },
        gap_before,
    }
}

/// The step groups of `r`: `(title, [(endpoint, step)])`. One per endpoint with its steps;
/// or, when every endpoint has one step and there are several (E4's scenarios), one for all.
pub(crate) fn groups(r: &Results) -> Vec<(String, Vec<(String, String)>)> {
    let per_endpoint: Vec<(String, Vec<(String, String)>)> = endpoints(r)
        .into_iter()
        .map(|e| {
            let steps = step_ids(r, &e)
                .into_iter()
                .map(|s| (e.clone(), s))
                .collect();
            (e, steps)
        })
        .collect();
    if per_endpoint.len() > 1 && per_endpoint.iter().all(|(_, s)| s.len() == 1) {
        let all: Vec<(String, String)> = per_endpoint.into_iter().flat_map(|(_, s)| s).collect();
        // E4's scenarios have a step id each; a run of one step per endpoint (`--steps c100`)
        // has the same id on every endpoint, so its panels are named by endpoint too.
        let mut ids: Vec<&str> = all.iter().map(|(_, st)| st.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() == all.len() {
            vec![("every scenario".to_string(), all)]
        } else {
            vec![(SAME_STEP.to_string(), all)]
        }
    } else {
        per_endpoint
    }
}

/// Every chart of `r`: for each group of [`groups`], one per [`Metric::ALL`] that has
/// something to draw.
pub(crate) fn charts(r: &Results) -> Vec<Chart> {
    let declared = shown(r).charts;
    if declared == Charts::Rates {
        return Vec::new(); // its charts are `rate_charts`
    }
    let servers = paired(r);
    let rows: Vec<Row> = servers.iter().map(|(_, row)| row.clone()).collect();
    let mut out = Vec::new();
    let mut groups = groups(r);
    let has_probe = r
        .steps()
        .any(|(_, st)| st.median.as_ref().is_some_and(|m| m.probe.is_some()));
    if declared == Charts::BarsAndProbe && has_probe {
        // E4: the baseline is the probe alone, no scenario; the probe's own charts follow,
        // every step (the baseline first) a panel.
        let all: Vec<(String, String)> = groups.iter().flat_map(|(_, s)| s.clone()).collect();
        for (_, steps) in &mut groups {
            steps.retain(|(_, st)| st != BASELINE);
        }
        groups.retain(|(_, steps)| !steps.is_empty());
        groups.push((PROBE_GROUP.to_string(), all));
    }
    for (group, steps) in groups {
        let probe = group == PROBE_GROUP;
        let one_endpoint = steps.iter().all(|(e, _)| *e == steps[0].0);
        for metric in Metric::ALL {
            if probe && !matches!(metric, Metric::Rps | Metric::Latency) {
                continue; // the server's CPU and memory belong to the step's load
            }
            let panels: Vec<Panel> = steps
                .iter()
                .map(|(e, st)| Panel {
                    title: if probe && st == BASELINE {
                        "no load".to_string()
                    } else if group == SAME_STEP {
                        format!("{e} {st}")
                    } else {
                        st.clone()
                    },
                    cells: servers
                        .iter()
                        .map(|(s, _)| {
                            let found = find(s, e, st);
                            if probe {
                                probe_cell(found, metric)
                            } else {
                                cell(found, metric)
                            }
                        })
                        .collect(),
                })
                .collect();
            // A chart with nothing to draw (a remote target's CPU and RSS) is left out; the
            // tables say `n/a`.
            let drawn = |p: &Panel| {
                p.cells.iter().any(|c| {
                    matches!(
                        c.value,
                        Value::Bar(_) | Value::Split(..) | Value::Latency(_)
                    )
                })
            };
            if !panels.iter().any(drawn) {
                continue;
            }
            out.push(Chart {
                metric,
                group: group.clone(),
                rows: rows.clone(),
                panels,
                // The probe's panels are one load on one endpoint: one scale shows the stall.
                shared_scale: one_endpoint || probe,
            });
        }
    }
    out
}

/// The group of a run of one step on every endpoint: its panels are named `endpoint step`.
pub(crate) const SAME_STEP: &str = "every endpoint";

/// The group of E4's probe charts.
pub(crate) const PROBE_GROUP: &str = "the /api/hello probe beside each scenario";

/// A cell of the probe's run of `step` (its median's `probe`).
fn probe_cell(step: Option<&StepResult>, metric: Metric) -> Cell {
    let Some(st) = step else {
        return Cell::plain(Value::NotRun);
    };
    let probe = st.median.as_ref().and_then(|m| m.probe.as_deref());
    let mut value = match (probe, st.valid) {
        (_, false) => Value::Invalid,
        (None, true) => Value::NotMeasured,
        (Some(run), true) => metric.value(run),
    };
    // A round without an answer counts at its lower bound in the p99, as in the tables.
    let censored = st.probe_p99().filter(|p| p.at_least());
    let mut at_least = None;
    if let (Some(c), true) = (&censored, st.valid && metric == Metric::Latency) {
        let p99 = c.median_us.round() as u64;
        match &mut value {
            Value::Latency(p) => p.values[3] = Some(p99),
            other => {
                *other = Value::Latency(Percentiles {
                    values: [None, None, None, Some(p99), None],
                })
            }
        }
        at_least = Some(Unanswered {
            p99_us: c.median_us,
            censored: c.censored(),
            rounds: c.rounds.len(),
        });
    }
    Cell {
        marks: Marks {
            machine: st.valid && disturbed(st),
            ..Marks::default()
        },
        at_least,
        ..Cell::plain(value)
    }
}

fn cell(step: Option<&StepResult>, metric: Metric) -> Cell {
    let Some(st) = step else {
        return Cell::plain(Value::NotRun);
    };
    let value = match (&st.median, st.valid) {
        (_, false) => Value::Invalid,
        (None, true) => Value::NotMeasured,
        (Some(run), true) => metric.value(run),
    };
    let interval = st.intervals.and_then(|i| match metric {
        Metric::Rps => i.requests_per_s,
        Metric::Cpu => i.cpu_us_per_request,
        Metric::Rss | Metric::Latency => None,
    });
    Cell {
        value,
        marks: step_marks(st),
        whisker: interval.filter(|i| st.valid && i.n >= 2),
        at_least: None,
    }
}

/// A server's line in a [`RateChart`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Series {
    /// Its servers.toml name.
    pub name: String,
    /// What it is (a Rust variant is drawn solid, a peer dashed).
    pub kind: Kind,
    /// Its pair ([`paired`]: a Rust variant and its peers), which sets its colour.
    pub pair: usize,
    /// Its place within the pair, which sets its marker's shape.
    pub place: usize,
}

/// One rung of a server's line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Point {
    /// The offered rate, requests/s.
    pub rate: f64,
    /// The figure; `None` for an invalid rung or one where it was not measured.
    pub value: Option<f64>,
    /// The server did not hold this rate (in the majority of its rounds).
    pub saturated: bool,
    /// This is the rate the server sustains ([`sustainable::sustained`]).
    pub sustained: bool,
    /// The rung ran but was invalid.
    pub invalid: bool,
    /// Who else may have set the figure: the load tool, the machine, the round trips.
    pub marks: Marks,
    /// The interval of the figure over the run's rounds, drawn as a band around the line
    /// (lighter and dashed where it is below 95 %, [`Interval::at_level`]); `None` for a run
    /// not in rounds or a rung with too few.
    pub band: Option<Interval>,
    /// What a reader sees on hovering (the figure in words).
    pub tip: String,
}

/// One panel of a [`RateChart`]: a measure, a line per series.
#[derive(Clone, Debug)]
pub(crate) struct RatePanel {
    /// The measure (`p99`).
    pub title: String,
    /// A horizontal line at this value, with its label (p99's keep-up limit).
    pub limit: Option<(f64, String)>,
    /// A line per series, in series order: the rungs it ran, lowest rate first.
    pub lines: Vec<Vec<Point>>,
}

/// A chart of a ladder of offered rates (E7): figures against the offered rate (a log axis),
/// a panel per measure sharing one value axis, a line per server.
#[derive(Clone, Debug)]
pub(crate) struct RateChart {
    /// A short id (`data-chart` in the page).
    pub id: &'static str,
    /// What it shows.
    pub title: &'static str,
    /// The endpoint.
    pub group: String,
    /// The value axis' title.
    pub axis: &'static str,
    /// Whether the value axis is logarithmic (both of E7's: its figures span decades, a
    /// peer's CPU per request at 1,000 requests/s beside a Rust variant's at 100,000) or
    /// linear from 0.
    pub log: bool,
    /// The servers.
    pub series: Vec<Series>,
    /// The measures.
    pub panels: Vec<RatePanel>,
}

/// How a rate chart's panel reads a rung's figure from its median run.
type Get = fn(&Run) -> Option<f64>;
/// And that figure's interval over the rounds.
type Band = fn(&Intervals) -> Option<Interval>;

/// The charts of a ladder of offered rates, per endpoint: the latency percentiles (p50, p99
/// with the keep-up limit, p99.9) and the server's CPU µs per request against the offered
/// rate. Empty for any other document, and leaves out a chart with nothing to draw.
pub(crate) fn rate_charts(r: &Results) -> Vec<RateChart> {
    if shown(r).charts != Charts::Rates {
        return Vec::new();
    }
    let order = paired(r);
    let mut pair = 0;
    let mut place = 0;
    let all: Vec<(&ServerResult, Series)> = order
        .iter()
        .enumerate()
        .map(|(i, (s, row))| {
            if row.gap_before && i > 0 {
                pair += 1;
                place = 0;
            }
            let series = Series {
                name: s.name.clone(),
                kind: row.kind,
                pair,
                place,
            };
            place += 1;
            (*s, series)
        })
        .collect();
    let limit_ms = bench_model::rules::KEEP_UP_P99.as_millis();
    let mut out = Vec::new();
    for endpoint in endpoints(r) {
        let servers: Vec<&(&ServerResult, Series)> = all
            .iter()
            .filter(|(s, _)| s.steps.iter().any(|st| st.endpoint == endpoint))
            .collect();
        let line = |s: &ServerResult, get: (Get, Band), what: &str, unit: fn(f64) -> String| {
            let rungs = || s.steps.iter().filter(|st| st.endpoint == endpoint);
            let rounds = sustainable::ladder_rounds(rungs());
            let sustains = sustainable::sustained(&s.steps, &endpoint).and_then(|x| x.rate());
            rungs()
                .filter_map(|st| {
                    let mut p = point(st, get, what, unit)?;
                    p.saturated = sustainable::held(st, rounds) == sustainable::Held::NotHeld;
                    p.sustained = sustains == Some(p.rate);
                    if p.sustained {
                        p.tip.push_str("; the rate it sustains (the highest held)");
                    }
                    Some(p)
                })
                .collect::<Vec<Point>>()
        };
        let panel = |title: &str,
                     get: (Get, Band),
                     limit: Option<(f64, String)>,
                     unit: fn(f64) -> String| {
            RatePanel {
                title: title.to_string(),
                limit,
                lines: servers
                    .iter()
                    .map(|(s, _)| line(s, get, title, unit))
                    .collect(),
            }
        };
        let latency = |us: f64| crate::format::us_label(us);
        let cpu = |us: f64| format!("{} µs/request", crate::format::grouped(us, 2));
        let charts = [
            RateChart {
                id: "latency-rate",
                title: "Latency against the offered rate (from each request's intended send time)",
                group: endpoint.clone(),
                axis: "latency, log scale (less is better)",
                log: true,
                series: servers.iter().map(|(_, s)| s.clone()).collect(),
                panels: vec![
                    panel(
                        "p50",
                        (|m| m.latency_us.p50.map(|v| v as f64), |i| i.p50_us),
                        None,
                        latency,
                    ),
                    panel(
                        "p99",
                        (|m| m.latency_us.p99.map(|v| v as f64), |i| i.p99_us),
                        Some((
                            limit_ms as f64 * 1000.0,
                            format!("{limit_ms} ms: the keep-up limit"),
                        )),
                        latency,
                    ),
                    panel(
                        "p99.9",
                        (|m| m.latency_us.p999.map(|v| v as f64), |i| i.p999_us),
                        None,
                        latency,
                    ),
                ],
            },
            RateChart {
                id: "cpu-rate",
                title: "Server CPU time per request against the offered rate",
                group: endpoint.clone(),
                axis: "CPU µs/request, log scale (less is better)",
                log: true,
                series: servers.iter().map(|(_, s)| s.clone()).collect(),
                panels: vec![panel(
                    "CPU µs per request",
                    (|m| m.cpu_us_per_request, |i| i.cpu_us_per_request),
                    None,
                    cpu,
                )],
            },
        ];
        out.extend(charts.into_iter().filter(|c| {
            c.panels
                .iter()
                .flat_map(|p| p.lines.iter().flatten())
                .any(|p| p.value.is_some())
        }));
    }
    out
}

/// The rung `st` as a point of `what` (read by `get` from its median, shown by `unit`); `None`
/// for a step of no offered rate.
fn point(
    st: &StepResult,
    (get, band): (Get, Band),
    what: &str,
    unit: fn(f64) -> String,
) -> Option<Point> {
    let rate = st.offered_requests_per_s?;
    let value = st
        .median
        .as_ref()
        .filter(|_| st.valid)
        .and_then(get)
        .filter(|v| v.is_finite() && *v >= 0.0);
    let band = st
        .intervals
        .as_ref()
        .filter(|_| value.is_some())
        .and_then(band)
        .filter(|i| i.n >= 2 && i.low > 0.0);
    let mut tip = format!(
        "{} requests/s offered: {what} {}",
        crate::format::thousands(rate),
        value.map_or_else(
            || if st.valid {
                "n/a".into()
            } else {
                "invalid".into()
            },
            unit
        )
    );
    if let Some(m) = st.median.as_ref().filter(|_| st.valid) {
        tip.push_str(&format!(
            ", {} achieved",
            crate::format::thousands(m.requests_per_s)
        ));
        if let (Some(u), Some(k), true) = (
            m.cpu_user_us_per_request,
            m.cpu_kernel_us_per_request,
            what.starts_with("CPU"),
        ) {
            tip.push_str(&format!(
                " (user {} + kernel {})",
                crate::format::grouped(u, 2),
                crate::format::grouped(k, 2)
            ));
        }
    }
    if let Some(i) = band {
        tip.push_str(&format!("; {}", crate::format::interval_words(&i, unit)));
    }
    if let Some(why) = &st.saturation {
        tip.push_str(&format!("; not kept up with in a round: {why}"));
    }
    if !st.valid {
        tip.push_str(&format!(
            "; invalid: {}",
            st.invalid_reason.as_deref().unwrap_or("no reason recorded")
        ));
    }
    Some(Point {
        rate,
        value,
        saturated: st.saturation.is_some(),
        sustained: false,
        invalid: !st.valid,
        marks: step_marks(st),
        band,
        tip,
    })
}
