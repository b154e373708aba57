//! E1–E7 as data: each experiment's title, the load its article used, its endpoints and its
//! steps (connections, duration or request count, connection mode, timeout, headers), at the
//! default length and at `--quick` length.
//!
//! Default lengths follow the articles where that is practical: E2 and E5 send exactly the
//! article's request counts, E3 runs wrk's 10 s and E4 autocannon's 20 s per step. E1's k6 ramp
//! (1 min to 100 VUs, 2 min to 500, 2 min to 1000, 1 min down: 6 min per server) becomes three
//! plateaus of 20 s at 100, 500 and 1000 connections, each after its own warm-up at the same
//! concurrency, run back to back on one server process, so the throughput at each level the
//! article reports is measured at that level and the RSS after the last plateau is the
//! "after" figure. `--quick` shortens every timed step to 2 s and divides request counts by
//! 10 (E5: by 25), for tests and smoke runs.
//!
//! Each experiment also carries its article's question and the figures the article reported
//! ([`Reported`], quoted from the articles as `docs/experiments.md` gives them), each naming
//! the peer, endpoint and step where our figure for the same system is read, so a report can
//! show them side by side.
//!
//! E7, the open-loop profile, is no article's either: a ladder of offered rates ([`Ladder`]) on
//! `/hello` and `/api/hello` at 100 keep-alive connections, 10 s per rung after a 1 s warm-up
//! at the same rate (2 s rungs and a shorter ladder with `--quick`); a server's ladder on an
//! endpoint stops at the first rung it cannot hold ([`crate::rules::saturated`]). By default
//! the peers run `/hello` only ([`Experiment::peers_on`]), so that a run of every server fits
//! in 30 minutes on the project's 2-CPU machine; a peer named in `--servers` runs both.
//!
//! E6 is TechEmpower's profile rather than an article's: its plaintext test (`/hello`, wrk's
//! pipeline script at depth 16, 15 s per step, `--timeout 8`) at 256, 1,024 and 4,096
//! connections (TFB also runs 16,384: past what one load process keeps open here beside a
//! server of 16,384 sockets within RLIMIT_NOFILE 20,000), and its JSON test (`/api/hello`, no
//! pipelining) at 16, 64, 256 and 512.
//!
//! One file per experiment, `e1.rs` … `e7.rs`: its [`Experiment`] (`E1` … `E7`: endpoints,
//! steps, what its report shows, its findings and headline columns) and the figures its
//! article reported. This file holds the types they are made of and what they share (the
//! sizing of a step, [`ALL`], [`find`]); nothing in the workspace matches on an experiment's
//! id.

use std::time::Duration;

use loadgen::Mode;

mod e1;
mod e2;
mod e3;
mod e4;
mod e5;
mod e6;
mod e7;

pub use e1::E1;
pub use e2::E2;
pub use e3::E3;
pub use e4::E4;
pub use e5::E5;
pub use e6::{E6, TFB_PIPELINE};
pub use e7::{E7, E7_LADDER};

/// The token `/api/private` accepts by default (servers are started without `AUTH_TOKEN`).
pub const TOKEN: &str = contract::body::DEFAULT_AUTH_TOKEN;

/// One experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Lowercase id: `e1` … `e6`.
    pub id: &'static str,
    /// The id as servers.toml lists it: `E1` … `E6`.
    pub manifest_id: &'static str,
    /// A one-line title.
    pub title: &'static str,
    /// What the article ran, in a few words.
    pub article_load: &'static str,
    /// The article's repetitions (the default of `--repeat`).
    pub repeat: u32,
    /// Whether only servers that serve the event-loop scenarios take part.
    pub scenarios_only: bool,
    /// The endpoints, each with its extra request headers.
    pub endpoints: &'static [(&'static str, &'static [(&'static str, &'static str)])],
    /// The article's question, in one line.
    pub question: &'static str,
    /// The figures the article reported, each beside where ours is read.
    pub reported: &'static [Reported],
    /// What the article reported beyond those figures, or how they differ from ours in kind
    /// (one line; empty when nothing).
    pub reported_note: &'static str,
    /// A ladder of offered rates (E7): each endpoint's steps are its rungs; `None` for an
    /// experiment of fixed steps.
    pub ladder: Option<Ladder>,
    /// Its steps on one endpoint (an experiment of no ladder), in the order they run.
    pub fixed_steps: FixedSteps,
    /// The endpoints a peer runs when the servers are not named (`--servers`): empty for
    /// every endpoint. E7's peers run `/hello` only, to keep the default run within its time.
    pub peers_on: &'static [&'static str],
    /// What its report shows: its own tables and its charts ([`Shown`]).
    pub shown: Shown,
    /// Notes every run of it records (how its steps stand for the article's load).
    pub run_notes: &'static [&'static str],
    /// Whether a run notes, per server, which runtime flavour its scenarios ran on (E4's
    /// blocking scenarios depend on it).
    pub runtime_note: bool,
    /// Whether each server's answers are verified (one plain `GET` per endpoint) before any
    /// load, and the report shows them (E6, as TechEmpower does).
    pub verify_first: bool,
    /// Its columns in the README's headline table (`report::headline`), in order; empty for
    /// none.
    pub headline: &'static [Headline],
    /// What its report opens with: a sentence per comparison, computed from a run's figures
    /// (`report::findings`), beside the article's ratio where it reported both figures.
    pub findings: &'static [Finding],
    /// Where its servers come in the headline table's rows: a server's row comes with the
    /// first experiment, lowest rank first, that gives it a figure (so the one with the most
    /// servers, E5, sets most of the order, Rust variants before peers).
    pub headline_rank: u8,
    /// How long each timed step (a ladder's rung) is measured in `bench publish`, which runs
    /// every experiment in one sitting of at most 90 minutes; `None`: its own length (the
    /// count-bounded experiments, whose steps run their count until 5 s). The steps' connections
    /// stay the article's.
    pub publish_length: Option<Duration>,
    /// The rounds `bench publish` measures it in (`bench run --rounds`): each server once per
    /// step in each, in a random order, so that every figure has its interval and every
    /// comparison is paired round by round; at least 6, the fewest that give a median a 95 %
    /// interval.
    pub publish_rounds: u32,
    /// The steps `bench publish` measures (`bench run --steps`: their ids, every endpoint's
    /// step of that id); empty: all of them. A publish measures fewer steps than a run so that
    /// every experiment gets the rounds a 95 % interval needs within its 90 minutes; it keeps
    /// every step a finding or a headline column reads.
    pub publish_steps: &'static [&'static str],
    /// The endpoints `bench publish` measures (`bench run --endpoints`); empty: all of them.
    pub publish_endpoints: &'static [&'static str],
    /// The servers `bench publish` measures twice in it, each entry one `bench run --aa`
    /// (`NAME`, or `NAME@ENDPOINT` for the copy on that endpoint's steps only): A/A pairs,
    /// whose ratios show the run's precision; empty for none. E3, the headline's, has two: a
    /// server the load tool sets the pace of (server-prebuilt, whose pair shows the tool's
    /// variation) and one that sets its own (node-http, whose pair shows the precision of a
    /// server's own figures).
    pub publish_aa: &'static [&'static str],
    /// The minutes `bench publish` gives it after its planned rounds for rounds by the width
    /// needed (`bench run --until-width` [`PUBLISH_WIDTH`] `--aa-width` [`PUBLISH_AA_WIDTH`]
    /// `--until-minutes`): rounds of only its findings' and A/A pairs' cells still wider than
    /// those, each with its partner; 0 for none. The publish's 90 minutes are spent where the
    /// findings need them: E3 (the headline's, with the A/A pairs) and E5.
    pub publish_until_minutes: u32,
}

/// The half-width, percent, `bench publish` narrows each finding's interval to with the rounds
/// of [`Experiment::publish_until_minutes`] (a wider one says "its size undecided at ±X %").
pub const PUBLISH_WIDTH: f64 = 10.0;

/// The half-width, percent, `bench publish` narrows each A/A pair's interval to.
pub const PUBLISH_AA_WIDTH: f64 = 3.0;

/// A `bench run --aa` argument ([`Experiment::publish_aa`]) as the server to copy and the
/// endpoint the copy is limited to: `("node-http", Some("/"))` for `node-http@/`,
/// `("node-http", None)` for `node-http` (every step it runs).
pub fn aa_entry(arg: &str) -> (&str, Option<&str>) {
    match arg.split_once('@') {
        Some((name, endpoint)) => (name, Some(endpoint)),
        None => (arg, None),
    }
}

/// Which step of an experiment a headline column reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The step with this id.
    Step(&'static str),
    /// The valid step with the highest requests/s on the endpoint (TechEmpower's "best").
    Best,
    /// A ladder of offered rates (E7): the highest rate the server kept up with.
    KeptUp,
}

/// What a headline column shows of the run it picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Requests per second.
    RequestsPerS,
    /// Server CPU time per request, µs.
    CpuUsPerRequest,
    /// The offered rate kept up with, requests/s ([`Pick::KeptUp`]).
    OfferedRate,
}

/// One column an experiment gives the README's headline table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headline {
    /// The request target.
    pub endpoint: &'static str,
    /// Which step.
    pub pick: Pick,
    /// Which figure of it.
    pub figure: Figure,
    /// The column's head.
    pub head: &'static str,
    /// What the column is, for the line under the table.
    pub says: &'static str,
}

/// One finding an experiment's report opens with: server `a`'s figure over server `b`'s, in
/// one sentence (`says`), beside the same ratio of the article's figures when it reported
/// both (`article`). The sentence is computed from a run, never typed: `report::findings`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The figure over the line.
    pub a: Side,
    /// The figure under it.
    pub b: Side,
    /// What both figures are.
    pub quantity: Quantity,
    /// The sentence, of placeholders `{a}` and `{b}` (the servers) and `{x}` (the ratio,
    /// `0.42×`); where and the two figures follow it (` here (`/`, 100 connections: 154,877
    /// vs 78,798 requests/s)`), then the article's ratio.
    pub says: &'static str,
    /// The [`Reported`] servers whose figures, at `a`'s and `b`'s endpoint and step, give the
    /// article's ratio; `None` when the article reported no such pair.
    pub article: Option<(&'static str, &'static str)>,
}

/// Where a [`Finding`]'s figure is read: a server, an endpoint, a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The server.
    pub server: &'static str,
    /// The request target.
    pub endpoint: &'static str,
    /// Which step ([`Pick::KeptUp`] with [`Quantity::KeptUp`] only).
    pub pick: Pick,
}

/// What a [`Finding`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Requests per second.
    RequestsPerS,
    /// Server CPU time per request, µs.
    CpuUsPerRequest,
    /// The load's p99 latency.
    P99Ms,
    /// The probe's p99 latency beside the step's load (E4).
    ProbeP99Ms,
    /// The highest offered rate kept up with (a ladder, E7).
    KeptUp,
}

impl Quantity {
    /// What it is, in a few words (`requests/s`).
    pub fn name(self) -> &'static str {
        match self {
            Quantity::RequestsPerS => "requests/s",
            Quantity::CpuUsPerRequest => "CPU µs/request",
            Quantity::P99Ms => "p99",
            Quantity::ProbeP99Ms => "the probe's p99",
            Quantity::KeptUp => "the rate sustained",
        }
    }

    /// The quantity in one run (`None` for [`Quantity::KeptUp`], a ladder's, and for a figure
    /// the run lacks): requests/s, CPU µs per request, p99 or the probe's p99 in µs (a probe
    /// that got no answer at its lower bound, [`Run::probe_p99_or_censored`](crate::results::Run::probe_p99_or_censored)).
    pub fn of(self, run: &crate::results::Run) -> Option<f64> {
        match self {
            Quantity::RequestsPerS => Some(run.requests_per_s),
            Quantity::CpuUsPerRequest => run.cpu_us_per_request,
            Quantity::P99Ms => run.latency_us.p99.map(|v| v as f64),
            Quantity::ProbeP99Ms => run.probe_p99_or_censored().map(|(us, _)| us),
            Quantity::KeptUp => None,
        }
    }
}

/// Where a [`Finding`] reads: `server` at `(endpoint, pick)`.
const fn side(server: &'static str, endpoint: &'static str, pick: Pick) -> Side {
    Side {
        server,
        endpoint,
        pick,
    }
}

/// `a`'s requests/s over `b`'s at one step, the article's ratio from the same servers.
const fn serves(
    a: &'static str,
    b: &'static str,
    endpoint: &'static str,
    step: &'static str,
) -> Finding {
    Finding {
        a: side(a, endpoint, Pick::Step(step)),
        b: side(b, endpoint, Pick::Step(step)),
        quantity: Quantity::RequestsPerS,
        says: "{a} serves {x} {b}'s requests/s",
        article: Some((a, b)),
    }
}

/// What an experiment's report shows beyond what every report has (the header, the
/// sentences on the tool's and the machine's limits, then resources, spread, invalid steps
/// and caveats): its own tables, in order, and its charts. The markdown report, the SVG file
/// and the HTML page all read it, so a new experiment declares its report here, beside its
/// steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The experiment's tables, in order.
    pub tables: &'static [Tables],
    /// Its charts.
    pub charts: Charts,
}

/// One declaration of an experiment's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tables {
    /// Per endpoint (a heading each), a row per server, these columns.
    PerEndpoint(&'static [Column]),
    /// Per endpoint, a row per server, and for each step in turn these columns (headed
    /// `label step`, or `label` alone when the endpoint has one step).
    StepByStep(&'static [(&'static str, Measure)]),
    /// A table per measure (its title a heading), a row per server, a column per step of
    /// every endpoint but the [`BASELINE`] (E4's scenarios).
    PerMeasure(&'static [(&'static str, Measure)]),
    /// Per server that ran a probe, the probe's requests/s, p50, p99 and errors under each
    /// step's load, the [`BASELINE`] first, beside the load's requests/s (E4's remedy).
    Probe,
    /// TechEmpower's shape, per endpoint: requests/s at each concurrency, the best, its
    /// share of the best of all, the errors (E6).
    Tfb,
    /// What each server answered to one plain `GET` per endpoint before the load (E6).
    Verified,
    /// A ladder of offered rates, per endpoint: `p99 · CPU µs per request` at each rung with
    /// each server's saturation, the achieved rate, and the tail from the intended send time
    /// beside the one from the actual send (E7).
    Rungs,
}

/// A column of a [`Tables::PerEndpoint`] table: `label step`, the `measure` at each step of
/// the endpoint or at its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header before the step's id (`req/s`, `p99 ms`).
    pub label: &'static str,
    /// What the cells show.
    pub measure: Measure,
    /// Which steps get a column.
    pub at: At,
}

/// Which steps a [`Column`] covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// A column per step, in order.
    Each,
    /// The last step only (the article's figures at its top load).
    Last,
}

/// The charts of an experiment's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charts {
    /// Per endpoint (or, when every endpoint has a single step, all together), requests/s,
    /// server CPU µs per request, peak RSS and the latency percentiles, a panel per step.
    Bars,
    /// [`Charts::Bars`] without the [`BASELINE`] step, then the probe's requests/s and
    /// latency under each step's load, the baseline first (E4; only when a probe ran).
    BarsAndProbe,
    /// Per endpoint, latency percentiles and server CPU µs per request against the offered
    /// rate, a line per server (a ladder's, E7).
    Rates,
}

/// A column of `measure` at each step.
const fn each(label: &'static str, measure: Measure) -> Column {
    Column {
        label,
        measure,
        at: At::Each,
    }
}

/// A column of `measure` at the last step.
const fn last(label: &'static str, measure: Measure) -> Column {
    Column {
        label,
        measure,
        at: At::Last,
    }
}

/// What the report of a results file shows when its experiment is none of [`ALL`]:
/// requests/s and p99 at each step, the bar charts.
pub const OTHER_SHOWN: Shown = Shown {
    tables: &[Tables::PerEndpoint(&[
        each("req/s", RequestsPerS),
        each("p99 ms", P99Ms),
    ])],
    charts: Charts::Bars,
};

/// What the report of a ladder of offered rates shows ([`Experiment::ladder`], E7; also a
/// file of no known experiment whose steps record an offered rate).
pub const LADDER_SHOWN: Shown = Shown {
    tables: &[Tables::Rungs],
    charts: Charts::Rates,
};

/// A ladder of offered rates, requests/s, lowest first: one rung (step) per rate, on each
/// endpoint, until the server cannot keep up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ladder {
    /// The default rates.
    pub rates: &'static [u64],
    /// The `--quick` rates.
    pub quick_rates: &'static [u64],
    /// The rates `bench publish` climbs (`bench run --rates`): no rung the generator cannot
    /// send (above ~95,000 requests/s here, such a rung is the tool's), none that every
    /// server holds with room to spare, and no more than the report compares at: between
    /// them the search ([`crate::sustainable`]) finds each server's rate to within 5 %.
    pub publish_rates: &'static [u64],
    /// Connections (keep-alive) at every rung.
    pub connections: usize,
    /// Each rung's measured length, by default.
    pub rung: Duration,
    /// Each rung's measured length with `--quick`.
    pub quick_rung: Duration,
    /// The warm-up before each rung, at the rung's rate.
    pub warmup: Duration,
    /// The per-request timeout.
    pub timeout: Duration,
}

/// The id of the rung at `rate` requests/s: `r1k`, `r160k`, `r1500`.
pub fn rate_id(rate: u64) -> String {
    if rate >= 1000 && rate.is_multiple_of(1000) {
        format!("r{}k", rate / 1000)
    } else {
        format!("r{rate}")
    }
}

/// One figure an experiment's article reported, and where our figure for the same system is
/// read: the peer `server`'s median at `(endpoint, step)`; a report shows the peer's Rust
/// analogues (its servers.toml `analogue`) beside it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reported {
    /// The system, as the article names it.
    pub system: &'static str,
    /// Our servers.toml entry for it (a peer).
    pub server: &'static str,
    /// The endpoint our figure is read at.
    pub endpoint: &'static str,
    /// The step our figure is read at.
    pub step: &'static str,
    /// What the figure measures.
    pub measure: Measure,
    /// The figure as the article quotes it (`1,240`, `≈ 9,000`, `< 0.5 %`), without its unit.
    pub figure: &'static str,
}

/// What a [`Reported`] figure measures (its unit is [`Measure::unit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Requests per second.
    RequestsPerS,
    /// Mean latency, ms (ab's "time per request" across all concurrent requests is this too).
    MeanMs,
    /// Median latency, ms.
    P50Ms,
    /// 95th percentile latency, ms.
    P95Ms,
    /// 99th percentile latency, ms.
    P99Ms,
    /// Response bytes per second, KB/s.
    KbPerS,
    /// RSS before the first step of the endpoint and after this one, MB.
    RssBeforeAfterMb,
    /// Failed requests over all requests, percent.
    ErrorRate,
    /// Socket errors by kind (connect, read, write, timeout).
    SocketErrors,
    /// Every failure, with its kinds (`47 (timeout 47)`).
    Errors,
    /// Bytes per response (head and body).
    BytesPerResponse,
}

impl Measure {
    /// The unit or kind, for a table's column (`requests/s`, `ms, p99`).
    pub fn unit(self) -> &'static str {
        match self {
            Measure::RequestsPerS => "requests/s",
            Measure::MeanMs => "ms, mean",
            Measure::P50Ms => "ms, p50",
            Measure::P95Ms => "ms, p95",
            Measure::P99Ms => "ms, p99",
            Measure::KbPerS => "KB/s",
            Measure::RssBeforeAfterMb => "MB RSS, before → after",
            Measure::ErrorRate => "errors",
            Measure::SocketErrors => "socket errors",
            Measure::Errors => "errors",
            Measure::BytesPerResponse => "bytes/response",
        }
    }
}

/// A [`Reported`] figure in one line (for the tables of [`ALL`]).
const fn fig(
    system: &'static str,
    server: &'static str,
    endpoint: &'static str,
    step: &'static str,
    measure: Measure,
    figure: &'static str,
) -> Reported {
    Reported {
        system,
        server,
        endpoint,
        step,
        measure,
        figure,
    }
}

use Measure::*;

/// One step of an experiment against one server.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Its id within the endpoint (`c100`, `async`, …).
    pub id: String,
    /// The request target (path and query).
    pub endpoint: String,
    /// Connections (concurrency).
    pub connections: usize,
    /// The measured duration of a time-bounded step.
    pub duration: Option<Duration>,
    /// The request count of a count-bounded step.
    pub requests: Option<u64>,
    /// How requests are sent: keep-alive (wrk, k6, autocannon), HTTP/1.0 with a new
    /// connection each (ab), HTTP/1.0 keep-alive (ab -k).
    pub mode: Mode,
    /// Requests written back to back on a connection before its answers are read (1: no
    /// pipelining; E6's plaintext: 16).
    pub pipeline: usize,
    /// Per-request timeout (the tool's).
    pub timeout: Duration,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// The warm-up before it: the same load, for this long or this many requests.
    pub warmup: Warmup,
    /// A small fixed load run beside the step's measured run (E4's probe on `/api/hello`);
    /// `None` for none. A step of no `connections` with a probe is the probe alone.
    pub probe: Option<Probe>,
    /// The open model: requests/s offered on at most `connections` connections, each at its
    /// intended send time (a rung of E7's ladder); `None` for the closed model.
    pub rate: Option<f64>,
}

/// A probe: a small closed-loop load on another endpoint, started with a step's measured
/// run and measured inside it (after its own discarded `warmup`, for `duration`, so it ends
/// before the step's load does). It is always the built-in generator, pinned like the load
/// tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The request target (path and query).
    pub endpoint: String,
    /// Connections (closed loop: one request in flight on each).
    pub connections: usize,
    /// Discarded at its start, while the step's load runs.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
}

/// The endpoint E4's probe loads.
pub const PROBE_ENDPOINT: &str = "/api/hello";

/// E4's probe beside a step measured for `run`: 1 connection on [`PROBE_ENDPOINT`], from a
/// second (half a second with `--quick`) after the load's measured run starts to as long
/// before it ends.
pub fn probe(run: Duration, quick: bool) -> Probe {
    let warmup = Duration::from_millis(if quick { 500 } else { 1000 });
    Probe {
        endpoint: PROBE_ENDPOINT.to_string(),
        connections: 1,
        warmup,
        duration: run.saturating_sub(warmup * 2).max(warmup),
    }
}

/// The id of E4's baseline step: the probe alone on an idle server.
pub const BASELINE: &str = "baseline";

/// How long a warm-up runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmup {
    /// For this long.
    For(Duration),
    /// For this many requests.
    Requests(u64),
}

const NO_HEADERS: &[(&str, &str)] = &[];
const BEARER: &[(&str, &str)] = &[("Authorization", "Bearer bench-token")];

/// Every experiment, in order.
pub const ALL: [Experiment; 7] = [E1, E2, E3, E4, E5, E6, E7];

/// The experiment called `id` (`e3` or `E3`).
pub fn find(id: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.id.eq_ignore_ascii_case(id))
}

/// The ids, for messages: `e1, e2, e3, e4, e5, e6, e7`.
pub fn ids() -> String {
    ALL.iter().map(|e| e.id).collect::<Vec<_>>().join(", ")
}

/// How long a run's steps are: `--quick`, or a length for every timed step (`--length`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizing {
    /// `--quick`: 2 s timed steps, counts cut (each experiment says by how much).
    pub quick: bool,
    /// Every timed step measured for this long instead of its own (`--quick` wins).
    pub length: Option<Duration>,
}

impl Sizing {
    /// A timed step whose own length is `full` seconds, at this sizing.
    pub fn secs(&self, full: u64) -> Duration {
        if self.quick {
            Duration::from_secs(2)
        } else {
            self.length.unwrap_or(Duration::from_secs(full))
        }
    }

    /// The warm-up of a timed step: 2 s, 1 s with `--quick`; a shorter length (`--length`)
    /// shortens it with it: a fifth, 1 to 2 s.
    pub fn warmup(&self) -> Warmup {
        Warmup::For(match (self.quick, self.length) {
            (true, _) => Duration::from_secs(1),
            (false, Some(l)) => (l / 5).clamp(Duration::from_secs(1), Duration::from_secs(2)),
            (false, None) => Duration::from_secs(2),
        })
    }
}

/// One endpoint of an experiment, as its steps are built on it.
#[derive(Clone, Copy, Debug)]
pub struct Base<'a> {
    /// The request target.
    pub endpoint: &'a str,
    /// Its extra request headers.
    pub headers: &'a [(&'a str, &'a str)],
    /// The warm-up of its timed steps ([`Sizing::warmup`]).
    pub warmup: Warmup,
    /// Whether it is the experiment's first endpoint.
    pub first: bool,
}

impl Base<'_> {
    /// A step on this endpoint: `connections` keep-alive connections, a 60 s timeout, no
    /// length yet; each experiment's file sets the rest.
    pub fn step(&self, id: String, connections: usize) -> Step {
        Step {
            id,
            endpoint: self.endpoint.to_string(),
            connections,
            duration: None,
            requests: None,
            mode: Mode::KeepAlive,
            pipeline: 1,
            timeout: Duration::from_secs(60),
            headers: self
                .headers
                .iter()
                .map(|&(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            warmup: self.warmup,
            probe: None,
            rate: None,
        }
    }
}

/// The steps of an experiment on one endpoint, at a sizing (each experiment's own `steps`).
pub type FixedSteps = fn(&Sizing, &Base<'_>) -> Vec<Step>;

/// The fixed steps of an experiment that has none: a ladder's ([`Experiment::ladder`]).
fn no_fixed_steps(_: &Sizing, _: &Base<'_>) -> Vec<Step> {
    Vec::new()
}

impl Experiment {
    /// Its steps, in the order they run against each server.
    pub fn steps(&self, quick: bool) -> Vec<Step> {
        self.steps_at(quick, None, None)
    }

    /// Its steps, a ladder's at `rates` (requests/s, lowest first) instead of its own when
    /// given (`rates` is ignored by an experiment of no ladder), and every timed step (a
    /// ladder's rung) measured for `length` instead of its own when given (`--length`; `bench
    /// publish` gives [`Experiment::publish_length`]), its warm-up a fifth of that (1 to 2 s).
    /// `--quick` wins over `length`.
    pub fn steps_at(
        &self,
        quick: bool,
        rates: Option<&[u64]>,
        length: Option<Duration>,
    ) -> Vec<Step> {
        let sizing = Sizing { quick, length };
        let mut steps = Vec::new();
        for &(endpoint, headers) in self.endpoints {
            let base = Base {
                endpoint,
                headers,
                warmup: sizing.warmup(),
                first: steps.is_empty(),
            };
            if let Some(l) = &self.ladder {
                let own = if quick { l.quick_rates } else { l.rates };
                for &r in rates.unwrap_or(own) {
                    steps.push(Step {
                        duration: Some(if quick {
                            l.quick_rung
                        } else {
                            length.unwrap_or(l.rung)
                        }),
                        timeout: l.timeout,
                        warmup: Warmup::For(l.warmup),
                        rate: Some(r as f64),
                        ..base.step(rate_id(r), l.connections)
                    });
                }
                continue;
            }
            steps.extend((self.fixed_steps)(&sizing, &base));
        }
        steps
    }

    /// What a default run of one server takes, roughly (measured time and warm-ups; not
    /// start-up, and count-bounded steps counted at 10,000 requests/s).
    pub fn estimate(&self, quick: bool) -> Duration {
        estimate_of(&self.steps(quick))
    }
}

/// What running `steps` against one server takes, roughly (as [`Experiment::estimate`]).
pub fn estimate_of(steps: &[Step]) -> Duration {
    steps
        .iter()
        .map(|s| {
            let run = s.duration.unwrap_or_else(|| {
                Duration::from_millis(s.requests.unwrap_or(0) / 10) // at 10k/s
            });
            let warm = match s.warmup {
                Warmup::For(d) => d,
                Warmup::Requests(n) => Duration::from_millis(n / 10),
            };
            run + warm
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_articles_shapes() {
        let e3 = e3::E3.steps(false);
        assert_eq!(e3.len(), 6);
        assert_eq!(
            e3.iter().map(|s| s.connections).collect::<Vec<_>>(),
            [100, 1000, 10_000, 100, 1000, 10_000]
        );
        assert!(
            e3.iter()
                .all(|s| s.duration == Some(Duration::from_secs(10))
                    && s.mode == Mode::KeepAlive
                    && s.timeout == Duration::from_secs(60))
        );
        let e2 = e2::E2.steps(false);
        assert_eq!(
            (e2[0].requests, e2[0].connections, e2[0].mode),
            (Some(10_000), 100, Mode::Http10)
        );
        let e5 = e5::E5.steps(false);
        assert!(e5.iter().all(|s| s.requests == Some(50_000)
            && s.mode == Mode::Http10KeepAlive
            && s.endpoint == "/hello"));
        let e1 = e1::E1.steps(false);
        assert_eq!(e1.len(), 6);
        assert_eq!(e1[3].endpoint, "/api/private");
        assert_eq!(
            e1[3].headers,
            [("Authorization".to_string(), format!("Bearer {TOKEN}"))]
        );
        let e4 = e4::E4.steps(false);
        assert_eq!(
            (
                e4[0].id.as_str(),
                e4[0].endpoint.as_str(),
                e4[0].connections
            ),
            (BASELINE, PROBE_ENDPOINT, 0)
        );
        assert!(
            e4[1..]
                .iter()
                .all(|s| { s.duration == Some(Duration::from_secs(20)) && s.connections == 100 })
        );
        // Every step has the probe: 1 connection on /api/hello, inside the measured run.
        assert!(e4.iter().all(|s| s.probe
            == Some(Probe {
                endpoint: "/api/hello".into(),
                connections: 1,
                warmup: Duration::from_secs(1),
                duration: Duration::from_secs(18),
            })));
        assert_eq!(
            probe(Duration::from_secs(2), true).duration,
            Duration::from_secs(1)
        );
        assert!(e3::E3.steps(false).iter().all(|s| s.probe.is_none()));
        let e6 = e6::E6.steps(false);
        let shape: Vec<(&str, usize, usize)> = e6
            .iter()
            .map(|s| (s.endpoint.as_str(), s.connections, s.pipeline))
            .collect();
        assert_eq!(
            shape,
            [
                ("/hello", 256, 16),
                ("/hello", 1024, 16),
                ("/hello", 4096, 16),
                ("/api/hello", 16, 1),
                ("/api/hello", 64, 1),
                ("/api/hello", 256, 1),
                ("/api/hello", 512, 1),
            ]
        );
        assert!(
            e6.iter()
                .all(|s| s.duration == Some(Duration::from_secs(15))
                    && s.timeout == Duration::from_secs(8)
                    && s.mode == Mode::KeepAlive)
        );
        assert!(
            ALL.iter()
                .filter(|e| e.id != e6::E6.id)
                .all(|e| e.steps(false).iter().all(|s| s.pipeline == 1))
        );
        assert!(find("e8").is_none());
        // E7: a rung per rate on each endpoint, 100 connections, the open model.
        let e7 = e7::E7;
        let rungs = e7.steps(false);
        assert_eq!(rungs.len(), 16);
        let ids: Vec<&str> = rungs[..8].iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "r1k", "r5k", "r10k", "r20k", "r40k", "r80k", "r120k", "r160k"
            ]
        );
        assert!(rungs.iter().all(|s| s.connections == 100
            && s.mode == Mode::KeepAlive
            && s.duration == Some(Duration::from_secs(10))
            && s.warmup == Warmup::For(Duration::from_secs(1))
            && s.probe.is_none()));
        assert_eq!(
            (rungs[0].rate, rungs[15].rate, rungs[15].endpoint.as_str()),
            (Some(1000.0), Some(160_000.0), "/api/hello")
        );
        let two = e7.steps_at(false, Some(&[1000, 1500]), None);
        let shape: Vec<(&str, &str, Option<f64>)> = two
            .iter()
            .map(|s| (s.endpoint.as_str(), s.id.as_str(), s.rate))
            .collect();
        assert_eq!(
            shape,
            [
                ("/hello", "r1k", Some(1000.0)),
                ("/hello", "r1500", Some(1500.0)),
                ("/api/hello", "r1k", Some(1000.0)),
                ("/api/hello", "r1500", Some(1500.0)),
            ]
        );
        // Other experiments ignore rates and have none.
        assert_eq!(e3::E3.steps_at(false, Some(&[5]), None), e3);
        assert!(
            ALL.iter()
                .filter(|e| e.id != e7::E7.id)
                .all(|e| e.steps(false).iter().all(|s| s.rate.is_none()))
        );
    }

    /// A publish measures fewer steps than a run, but never one less that its page reads:
    /// every step and endpoint of a finding and of a headline column, and only ones that
    /// exist.
    #[test]
    fn a_publish_measures_every_step_its_findings_and_headline_read() {
        for e in &ALL {
            let steps = e.steps(false);
            for id in e.publish_steps {
                assert!(steps.iter().any(|s| s.id == *id), "{}: no step {id}", e.id);
            }
            for p in e.publish_endpoints {
                assert!(e.endpoints.iter().any(|(x, _)| x == p), "{}: no {p}", e.id);
            }
            let read = e
                .findings
                .iter()
                .flat_map(|f| [(f.a.endpoint, f.a.pick), (f.b.endpoint, f.b.pick)])
                .chain(e.headline.iter().map(|h| (h.endpoint, h.pick)));
            for (endpoint, pick) in read {
                if !e.endpoints.iter().any(|(x, _)| *x == endpoint) {
                    continue; // E4's probe, measured beside every step
                }
                assert!(
                    e.publish_endpoints.is_empty() || e.publish_endpoints.contains(&endpoint),
                    "{}: the publish leaves out {endpoint}, which its page reads",
                    e.id
                );
                if let Pick::Step(id) = pick {
                    assert!(
                        e.publish_steps.is_empty() || e.publish_steps.contains(&id),
                        "{}: the publish leaves out {id}, which its page reads",
                        e.id
                    );
                }
            }
            if let Some(l) = &e.ladder {
                assert!(l.publish_rates.is_sorted() && !l.publish_rates.is_empty());
            }
            assert!(
                e.publish_rounds >= 6,
                "{}: {} rounds give no 95 % interval",
                e.id,
                e.publish_rounds
            );
        }
    }

    #[test]
    fn quick_steps_are_short() {
        for e in &ALL {
            for s in e.steps(true) {
                assert!(s.duration.is_none_or(|d| d <= Duration::from_secs(2)));
                assert!(s.requests.is_none_or(|n| n <= 2_000));
                assert!(s.duration.is_some() != s.requests.is_some(), "{s:?}");
            }
            assert!(e.estimate(true) < Duration::from_secs(30), "{}", e.id);
        }
    }

    #[test]
    fn every_reported_figure_names_a_step_of_its_experiment() {
        let manifest = manifest::Manifest::load_default().unwrap();
        for e in &ALL {
            // E6 and E7 are profiles, not articles: each has a question, no figures.
            assert!(!e.question.is_empty(), "{}", e.id);
            assert!(
                [e6::E6.id, e7::E7.id].contains(&e.id) || !e.reported.is_empty(),
                "{}",
                e.id
            );
            let steps = e.steps(false);
            for f in e.reported {
                let peer = manifest.get(f.server);
                assert!(
                    peer.is_some_and(|p| p.is_peer()),
                    "{}: {f:?}: no such peer",
                    e.id
                );
                assert!(
                    steps
                        .iter()
                        .any(|s| s.endpoint == f.endpoint && s.id == f.step),
                    "{}: {f:?} names no step of the experiment",
                    e.id
                );
            }
        }
    }

    #[test]
    fn a_length_sets_every_timed_step_and_its_warm_up_and_keeps_the_counts() {
        let five = Some(Duration::from_secs(5));
        for e in &ALL {
            let own = e.steps(false);
            let short = e.steps_at(false, None, five);
            assert_eq!(own.len(), short.len(), "{}", e.id);
            for (o, s) in own.iter().zip(&short) {
                assert_eq!(
                    (&o.id, &o.endpoint, o.connections),
                    (&s.id, &s.endpoint, s.connections)
                );
                match o.duration {
                    Some(_) => {
                        assert_eq!(s.duration, five, "{} {}", e.id, s.id);
                        if e.ladder.is_none() && s.probe.is_none() {
                            assert_eq!(s.warmup, Warmup::For(Duration::from_secs(1)));
                        }
                    }
                    // A count-bounded step keeps its count and its warm-up.
                    None => assert_eq!((o.requests, o.warmup), (s.requests, s.warmup)),
                }
            }
            // --quick wins.
            assert_eq!(e.steps_at(true, None, five), e.steps(true), "{}", e.id);
        }
        // E4's probe fits inside the shorter load: 1 s in, 1 s before its end.
        let e4 = e4::E4.steps_at(false, None, Some(Duration::from_secs(10)));
        let p = e4[1].probe.as_ref().unwrap();
        assert_eq!(
            (p.warmup, p.duration),
            (Duration::from_secs(1), Duration::from_secs(8))
        );
        assert_eq!(e4[1].warmup, Warmup::For(Duration::from_secs(2)));
    }
}
