//! What the charts show of a results document, as data for [`draw`](super::draw): for each
//! endpoint (or, when every endpoint has a single step, as E4's scenarios do, for all of them
//! together) four charts, requests/s, server CPU µs per request, peak RSS and the latency
//! percentiles; each chart a row per server and a panel per step, sharing one scale. A panel
//! knows whether a finding reads its figure there (the narrow page shows it first). A CPU
//! time is its median total, the figure the tables give, drawn split in the proportion of
//! its user and kernel medians.
//!
//! Rows come in pairs: each Rust variant, then the peers it is the analogue of (a peer goes
//! with the first of its analogues that ran), then what is left (the C ceiling); a gap
//! separates the pairs, so a variant and the system it mirrors sit together.
//!
//! A ladder of offered rates (E7) has no bar charts: per endpoint, [`rate_charts`] gives p99
//! (with the keep-up limit), the server's CPU µs per request, p50 and p99.9 against the
//! offered rate, each split in panels: first the pair the experiment's findings compare with
//! the ceiling, then the Rust variants, then the peers (each with the ceiling), so that a
//! panel holds at most seven lines, each its own colour and marker; a server keeps both in
//! every panel, a Rust variant drawn solid, a peer dashed.

use bench_model::results::{Intervals, Results, Run, ServerKind, ServerResult, StepResult};
use bench_model::stats::Interval;
use bench_model::sustainable;

use bench_chart::draw::{Drawn, Layout, draw, draw_rates};
use bench_chart::timeline::TimelineChart;
use bench_model::experiment::Pick;
use bench_model::noise::Dips;
use bench_model::results::timeline::Timeline;

pub(crate) use bench_chart::chart::{
    Cell, Chart, Kind, Metric, Panel, Percentiles, Point, RateChart, RatePanel, Row, Series,
    Unanswered, Value,
};

use crate::model::Marks;
use crate::read::{disturbed, endpoints, find, shown, step_ids, step_marks};
use bench_model::experiment::{BASELINE, Charts};

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
                    cited: cited(r, e, st, metric, probe),
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
                        Value::Bar(_) | Value::Split { .. } | Value::Latency(_)
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

/// Whether a finding of `r`'s experiment reads the figure `metric` shows (of the probe, in
/// its charts) at the step `step` of `endpoint`.
pub(crate) fn cited(r: &Results, endpoint: &str, step: &str, metric: Metric, probe: bool) -> bool {
    use bench_model::experiment::{Pick, Quantity};
    let reads = |q: Quantity| match q {
        Quantity::RequestsPerS => metric == Metric::Rps && !probe,
        Quantity::CpuUsPerRequest => metric == Metric::Cpu && !probe,
        Quantity::P99Ms => metric == Metric::Latency && !probe,
        Quantity::ProbeP99Ms => metric == Metric::Latency && probe,
        Quantity::KeptUp => false,
    };
    bench_model::experiment::find(&r.experiment).is_some_and(|e| {
        e.findings.iter().filter(|f| reads(f.quantity)).any(|f| {
            [&f.a, &f.b].into_iter().any(|side| {
                side.endpoint == endpoint && matches!(side.pick, Pick::Step(id) if id == step)
            })
        })
    })
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

/// How a rate chart reads a rung's figure from its median run.
type Get = fn(&Run) -> Option<f64>;
/// And that figure's interval over the rounds.
type Band = fn(&Intervals) -> Option<Interval>;

/// One figure a ladder's charts show against the offered rate.
struct RateFigure {
    id: &'static str,
    title: &'static str,
    what: &'static str,
    axis: &'static str,
    get: (Get, Band),
    unit: fn(f64) -> String,
    tick: fn(f64) -> String,
    limit: bool,
}

/// The figures of a ladder's charts, in order: p99 (with the keep-up limit; the first, the
/// page's headline chart of the experiment), CPU per request, p50 and p99.9.
const RATE_FIGURES: [RateFigure; 4] = [
    RateFigure {
        id: "latency-rate",
        title: "Latency against the offered rate: p99 (from each request's intended send time)",
        what: "p99",
        axis: "p99 latency, log scale (less is better)",
        get: (|m| m.latency_us.p99.map(|v| v as f64), |i| i.p99_us),
        unit: bench_chart::format::us_label,
        tick: bench_chart::format::us_label,
        limit: true,
    },
    RateFigure {
        id: "cpu-rate",
        title: "Server CPU time per request against the offered rate",
        what: "CPU µs per request",
        axis: "CPU µs/request, log scale (less is better)",
        get: (|m| m.cpu_us_per_request, |i| i.cpu_us_per_request),
        unit: |us| format!("{} µs/request", bench_chart::format::cpu(us)),
        tick: |us| {
            format!(
                "{} µs",
                bench_chart::format::grouped(us, if us < 1.0 { 1 } else { 0 })
            )
        },
        limit: false,
    },
    RateFigure {
        id: "p50-rate",
        title: "p50 latency against the offered rate (from each request's intended send time)",
        what: "p50",
        axis: "p50 latency, log scale (less is better)",
        get: (|m| m.latency_us.p50.map(|v| v as f64), |i| i.p50_us),
        unit: bench_chart::format::us_label,
        tick: bench_chart::format::us_label,
        limit: false,
    },
    RateFigure {
        id: "p999-rate",
        title: "p99.9 latency against the offered rate (from each request's intended send time)",
        what: "p99.9",
        axis: "p99.9 latency, log scale (less is better)",
        get: (|m| m.latency_us.p999.map(|v| v as f64), |i| i.p999_us),
        unit: bench_chart::format::us_label,
        tick: bench_chart::format::us_label,
        limit: false,
    },
];

/// The servers a ladder's findings compare, in their order (E7: `server-prebuilt`,
/// `node-http`).
fn findings_servers(r: &Results) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in bench_model::experiment::find(&r.experiment).map_or(&[][..], |e| e.findings) {
        for name in [f.a.server, f.b.server] {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The charts of a ladder of offered rates, per endpoint and figure ([`RATE_FIGURES`]), each
/// split in panels (see [`RateChart`]). Empty for any other document, and leaves out a chart
/// with nothing to draw.
pub(crate) fn rate_charts(r: &Results) -> Vec<RateChart> {
    if shown(r).charts != Charts::Rates {
        return Vec::new();
    }
    let order = paired(r);
    let pair = findings_servers(r);
    let rows: Vec<(String, Kind)> = order
        .iter()
        .map(|(s, r)| (s.name.clone(), r.kind))
        .collect();
    let all: Vec<(&ServerResult, Series)> = order
        .iter()
        .map(|(s, _)| *s)
        .zip(Series::styled(&rows, &pair))
        .collect();
    let limit_ms = bench_model::rules::KEEP_UP_P99.as_millis();
    let mut out = Vec::new();
    for endpoint in endpoints(r) {
        let servers: Vec<&(&ServerResult, Series)> = all
            .iter()
            .filter(|(s, _)| s.steps.iter().any(|st| st.endpoint == endpoint))
            .collect();
        let line = |s: &ServerResult, fig: &RateFigure| {
            let rungs = || s.steps.iter().filter(|st| st.endpoint == endpoint);
            let rounds = sustainable::ladder_rounds(rungs());
            let sustains = sustainable::sustained(&s.steps, &endpoint).and_then(|x| x.rate());
            rungs()
                .filter_map(|st| {
                    let mut p = point(st, fig.get, fig.what, fig.unit)?;
                    p.saturated = sustainable::held(st, rounds) == sustainable::Held::NotHeld;
                    p.sustained = sustains == Some(p.rate);
                    if p.sustained {
                        p.tip.push_str("; the rate it sustains (the highest held)");
                    }
                    Some(p)
                })
                .collect::<Vec<Point>>()
        };
        // Who each panel shows: indices into `servers`.
        let reference: Vec<usize> = (0..servers.len())
            .filter(|&i| servers[i].1.kind == Kind::Reference)
            .collect();
        let of_kind = |kind: Kind| -> Vec<usize> {
            (0..servers.len())
                .filter(|&i| servers[i].1.kind == kind)
                .collect()
        };
        let paired_in: Vec<usize> = pair
            .iter()
            .filter_map(|n| servers.iter().position(|(s, _)| s.name == *n))
            .collect();
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        if paired_in.len() == pair.len() && pair.len() >= 2 {
            let names: Vec<String> = pair.iter().map(|n| n.to_string()).collect();
            groups.push((
                format!(
                    "the findings' {}{}",
                    names.join(" and "),
                    if reference.is_empty() {
                        ""
                    } else {
                        ", the ceiling"
                    }
                ),
                paired_in.clone(),
            ));
        }
        for (kind, title) in [(Kind::Rust, "Rust variants"), (Kind::Peer, "peers")] {
            let members = of_kind(kind);
            if members.is_empty() || members.iter().all(|i| paired_in.contains(i)) {
                continue;
            }
            groups.push((title.to_string(), members));
        }
        if groups.is_empty() {
            groups.push((
                "every server".to_string(),
                (0..servers.len())
                    .filter(|i| !reference.contains(i))
                    .collect(),
            ));
        }
        for fig in &RATE_FIGURES {
            let series: Vec<Series> = servers.iter().map(|(_, s)| s.clone()).collect();
            let panels: Vec<RatePanel> = groups
                .iter()
                .map(|(title, members)| RatePanel {
                    title: title.clone(),
                    lines: members
                        .iter()
                        .chain(&reference)
                        .map(|&i| (i, line(servers[i].0, fig)))
                        .collect(),
                })
                .collect();
            let chart = RateChart {
                id: fig.id,
                title: fig.title,
                group: endpoint.clone(),
                axis: fig.axis,
                tick: fig.tick,
                limit: fig.limit.then(|| {
                    (
                        limit_ms as f64 * 1000.0,
                        format!("{limit_ms} ms: the keep-up limit"),
                    )
                }),
                series,
                panels,
            };
            let drawn = chart
                .panels
                .iter()
                .flat_map(|p| p.lines.iter().flat_map(|(_, l)| l))
                .any(|p| p.value.is_some());
            if drawn {
                out.push(chart);
            }
        }
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
        bench_chart::format::thousands(rate),
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
            bench_chart::format::thousands(m.requests_per_s)
        ));
        if let (Some(u), Some(k), true) = (
            m.cpu_user_us_per_request,
            m.cpu_kernel_us_per_request,
            what.starts_with("CPU"),
        ) {
            tip.push_str(&format!(
                " (user {} + kernel {})",
                bench_chart::format::grouped(u, 2),
                bench_chart::format::grouped(k, 2)
            ));
        }
    }
    if let Some(i) = band {
        tip.push_str(&format!(
            "; {}",
            bench_chart::format::interval_words(&i, unit)
        ));
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

/// Every chart of `r` ([`charts`], then [`rate_charts`]) drawn for `layout`, in order, each
/// with its id (`data-chart` on the page) and its label (its title and group).
pub(crate) fn drawn(r: &Results, layout: &Layout) -> Vec<(&'static str, String, Drawn)> {
    let bars = charts(r).into_iter().map(|c| {
        let label = format!("{} · {}", c.metric.title(), c.group);
        (c.metric.id(), label, draw(&c, layout))
    });
    let lines = rate_charts(r).into_iter().map(|c| {
        let label = format!("{} · {}", c.title, c.group);
        (c.id, label, draw_rates(&c, layout))
    });
    bars.chain(lines).collect()
}

/// The step whose timeline `r`'s page draws, with its server: the step of the experiment's
/// first finding and that finding's first server, when it has timelines ([`Dips::of`] it);
/// else the first valid step with timelines of the first server that has one.
pub(crate) fn timeline_step(r: &Results) -> Option<(&ServerResult, &StepResult)> {
    let has = |st: &&StepResult| st.valid && Dips::of(st).is_some();
    let finding = bench_model::experiment::find(&r.experiment)
        .and_then(|e| e.findings.first())
        .and_then(|f| match f.a.pick {
            Pick::Step(step) => {
                let s = r.servers.iter().find(|s| s.name == f.a.server)?;
                Some((s, find(s, f.a.endpoint, step).filter(has)?))
            }
            _ => None,
        });
    finding.or_else(|| {
        r.servers
            .iter()
            .find_map(|s| Some((s, s.steps.iter().find(has)?)))
    })
}

/// The timeline chart of `r` ([`timeline_step`]), titled by what was measured, and its
/// caption; `None` when no step has timelines.
pub(crate) fn timeline(r: &Results) -> Option<TimelineChart> {
    let (s, st) = timeline_step(r)?;
    let rounds: Vec<(u32, &Timeline)> = st
        .repeats
        .iter()
        .enumerate()
        .filter_map(|(i, run)| Some((run.round.unwrap_or(i as u32 + 1), run.timeline.as_ref()?)))
        .collect();
    let interval = rounds.first().map_or(0.5, |(_, t)| t.interval_s);
    let title = format!(
        "{} {} {}: {}, each round's measured window in {} s intervals",
        r.experiment.to_uppercase(),
        st.endpoint,
        st.step,
        s.name,
        bench_chart::format::grouped(interval, 1).trim_end_matches(".0")
    );
    TimelineChart::new(title, &rounds, &Dips::of(st)?)
}
