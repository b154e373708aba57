//! What a chart shows, as data for [`draw`](crate::draw): the bar charts' rows (one per
//! server), panels (one per step) and cells ([`Chart`]), and the lines of a chart against the
//! offered rate ([`RateChart`]). No results file is read here: `bench-report` builds these
//! from one (which server is a row, which step a panel, what a finding cites) and this crate
//! draws them.

use bench_model::results::Run;
use bench_model::stats::Interval;

use crate::marks::Marks;

/// What a server is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A Rust variant of this workspace.
    Rust,
    /// A peer: the article's own system.
    Peer,
    /// A peer that is the analogue of nothing (the C ceiling): a reference.
    Reference,
}

/// One server's row.
#[derive(Clone, Debug)]
pub struct Row {
    /// Its servers.toml name.
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// Whether a new pair starts here (a gap above it).
    pub gap_before: bool,
}

/// The latency percentiles of a run, µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Percentiles {
    /// p50, p90, p95, p99 and max, each when the tool reported it.
    pub values: [Option<u64>; 5],
}

/// The names of [`Percentiles::values`], in order.
pub const PERCENTILES: [&str; 5] = ["p50", "p90", "p95", "p99", "max"];

/// What one server's step shows in one chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A figure (bar charts).
    Bar(f64),
    /// The server's CPU per request: its median `total` (the figure every table gives), drawn
    /// split in the proportion of the medians of its `user` and `kernel` parts (each the
    /// median of its own rounds, so the two need not add up to the total).
    Split {
        /// The median CPU µs per request.
        total: f64,
        /// The median user µs per request.
        user: f64,
        /// The median kernel µs per request.
        kernel: f64,
    },
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
pub struct Cell {
    /// The value.
    pub value: Value,
    /// Who else may have set the figure: the load tool, the machine, the round trips
    /// (`bench-report` reads them from the step's median).
    pub marks: Marks,
    /// The interval of the figure over the run's rounds, drawn as a whisker (requests/s and
    /// CPU per request of a run in rounds): solid at 95 %, dashed and lighter below it, where
    /// its tooltip and the legend say its rounds and real coverage ([`Interval::label`]);
    /// `None` otherwise.
    pub whisker: Option<Interval>,
    /// E4's probe: its p99 is a lower bound, since the probe got no answer in some rounds
    /// (the p99 counts them at their bound, [`StepResult::probe_p99`](bench_model::results::StepResult::probe_p99)); `None` otherwise.
    pub at_least: Option<Unanswered>,
}

/// A probe's p99 over rounds some of which got no answer ([`Cell::at_least`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unanswered {
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
    pub fn plain(value: Value) -> Cell {
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
pub struct Panel {
    /// The step's label (`c100`, `async`).
    pub title: String,
    /// Whether a finding of the experiment reads this step (a narrow page shows it first).
    pub cited: bool,
    /// A cell per row of the chart, in row order.
    pub cells: Vec<Cell>,
}

/// Which metric a chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
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

    /// What `run` shows in a chart of this metric: its figure (a CPU time split in user and
    /// kernel; the percentiles), or `n/a` where the run has none.
    pub fn value(self, run: &Run) -> Value {
        let bar = |v: Option<f64>| match v.filter(|v| v.is_finite() && *v >= 0.0) {
            Some(v) => Value::Bar(v),
            None => Value::NotMeasured,
        };
        match self {
            Metric::Rps => bar(Some(run.requests_per_s)),
            Metric::Cpu => match (
                run.cpu_us_per_request,
                run.cpu_user_us_per_request,
                run.cpu_kernel_us_per_request,
            ) {
                (Some(total), Some(user), Some(kernel))
                    if total.is_finite() && total >= 0.0 && user >= 0.0 && kernel >= 0.0 =>
                {
                    Value::Split {
                        total,
                        user,
                        kernel,
                    }
                }
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
pub struct Chart {
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

/// A server's line in a [`RateChart`].
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its servers.toml name.
    pub name: String,
    /// What it is (a Rust variant is drawn solid, a peer dashed, the ceiling dotted grey).
    pub kind: Kind,
    /// Its colour, an index into the chart's palette: one per server, distinct from every
    /// other line of each panel it is drawn in.
    pub colour: usize,
    /// Its marker's shape, an index: distinct within its kind.
    pub marker: usize,
}

impl Series {
    /// The lines of `servers` (`(name, kind)`, in the chart's row order): a colour and a
    /// marker each, counted within its kind, so that no two lines of a panel share them; the
    /// peers' shifted by one where the first peer of `pair` (the servers the findings
    /// compare) would take the colour or the marker of the first Rust variant of it.
    pub fn styled(servers: &[(String, Kind)], pair: &[&str]) -> Vec<Series> {
        let index = |kind: Kind, name: &str| {
            servers
                .iter()
                .filter(|(_, k)| *k == kind)
                .position(|(n, _)| n == name)
        };
        let rust = pair.iter().find_map(|n| index(Kind::Rust, n));
        let peer = pair.iter().find_map(|n| index(Kind::Peer, n));
        let shift = |of: usize| match (rust, peer) {
            (Some(a), Some(b)) if a % of == b % of => 1,
            _ => 0,
        };
        let (colour_shift, marker_shift) = (shift(PALETTE), shift(MARKERS));
        servers
            .iter()
            .map(|(name, kind)| {
                let k = index(*kind, name).unwrap_or(0);
                let (colour, marker) = match kind {
                    Kind::Rust => (k % PALETTE, k % MARKERS),
                    Kind::Peer => ((k + colour_shift) % PALETTE, (k + marker_shift) % MARKERS),
                    Kind::Reference => (PALETTE, MARKERS),
                };
                Series {
                    name: name.clone(),
                    kind: *kind,
                    colour,
                    marker,
                }
            })
            .collect()
    }
}

/// One rung of a server's line.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The offered rate, requests/s.
    pub rate: f64,
    /// The figure; `None` for an invalid rung or one where it was not measured.
    pub value: Option<f64>,
    /// The server did not hold this rate (in the majority of its rounds).
    pub saturated: bool,
    /// This is the rate the server sustains ([`sustained`](bench_model::sustainable::sustained)).
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

/// One panel of a [`RateChart`]: some of its servers, a line each.
#[derive(Clone, Debug)]
pub struct RatePanel {
    /// Who it shows (`the findings' pair and the ceiling`, `Rust variants`, `peers`).
    pub title: String,
    /// Its lines: the index of each one's series in [`RateChart::series`] and the rungs it
    /// ran, lowest rate first.
    pub lines: Vec<(usize, Vec<Point>)>,
}

/// A chart of a ladder of offered rates (E7): one figure against the offered rate (a log
/// axis), the servers split in panels sharing one value axis: first the pair its findings
/// compare with the ceiling, then the Rust variants, then the peers (each with the ceiling to
/// read them against), so that no panel holds more lines than it can tell apart.
#[derive(Clone, Debug)]
pub struct RateChart {
    /// A short id (`data-chart` in the page).
    pub id: &'static str,
    /// What it shows.
    pub title: &'static str,
    /// The endpoint.
    pub group: String,
    /// The value axis' title.
    pub axis: &'static str,
    /// How a value axis tick is written (`1 ms`, `100 µs`).
    pub tick: fn(f64) -> String,
    /// A horizontal line at this value in every panel, with what it is (p99's keep-up limit).
    pub limit: Option<(f64, String)>,
    /// The servers.
    pub series: Vec<Series>,
    /// The panels.
    pub panels: Vec<RatePanel>,
}

/// The colours a rate chart's lines take (the ceiling's aside).
pub const PALETTE: usize = 7;
/// The marker shapes they take.
pub const MARKERS: usize = 6;
