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
//! endpoint stops at the first rung it cannot hold (`step::verdict::saturated`). By default
//! the peers run `/hello` only ([`Experiment::peers_on`]), so that a run of every server fits
//! in 30 minutes on the project's 2-CPU machine; a peer named in `--servers` runs both.
//!
//! E6 is TechEmpower's profile rather than an article's: its plaintext test (`/hello`, wrk's
//! pipeline script at depth 16, 15 s per step, `--timeout 8`) at 256, 1,024 and 4,096
//! connections (TFB also runs 16,384: past what one load process keeps open here beside a
//! server of 16,384 sockets within RLIMIT_NOFILE 20,000), and its JSON test (`/api/hello`, no
//! pipelining) at 16, 64, 256 and 512.

use std::time::Duration;

use loadgen::Mode;

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
    /// count-bounded experiments, whose steps run their count until 5 s). The steps, their
    /// connections and the repeats stay the article's.
    pub publish_length: Option<Duration>,
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

const E1_FINDINGS: &[Finding] = &[
    serves("fastify", "express", E1_HELLO, "c1000"),
    Finding {
        a: side("express", E1_HELLO, Pick::Step("c1000")),
        b: side("fastify", E1_HELLO, Pick::Step("c1000")),
        quantity: Quantity::P99Ms,
        says: "{a}'s p99 is {x} {b}'s",
        article: Some(("express", "fastify")),
    },
];

const E3_FINDINGS: &[Finding] = &[
    Finding {
        article: Some(("blazeio", "node-http")),
        ..serves("server-prebuilt", "node-http", "/", "c100")
    },
    serves("blazeio", "node-http", "/", "c100"),
];

const E4_FINDINGS: &[Finding] = &[
    Finding {
        a: side("node-http", "/api/sync", Pick::Step("sync")),
        b: side("node-http", PROBE_ENDPOINT, Pick::Step(BASELINE)),
        quantity: Quantity::ProbeP99Ms,
        says: "While `/api/sync` blocks {a}'s event loop, its probe on `/api/hello` waits {x} its idle p99",
        article: None,
    },
    Finding {
        a: side("node-http", "/api/sync-offload", Pick::Step("sync-offload")),
        b: side("node-http", PROBE_ENDPOINT, Pick::Step(BASELINE)),
        quantity: Quantity::ProbeP99Ms,
        says: "With the same work offloaded (`/api/sync-offload`), {a}'s probe p99 is {x} its idle one",
        article: None,
    },
];

const E2_FINDINGS: &[Finding] = &[serves("express", "node-http", E2_ECHO, "c100")];

const E5_FINDINGS: &[Finding] = &[
    serves("go-http", "node-http", "/hello", "c100"),
    serves("nginx-lua-1", "node-http", "/hello", "c100"),
    serves("tornado", "node-http", "/hello", "c100"),
];

const E6_FINDINGS: &[Finding] = &[Finding {
    a: side("server-prebuilt", "/hello", Pick::Best),
    b: side("server-hyper", "/hello", Pick::Best),
    quantity: Quantity::RequestsPerS,
    says: "{a}'s best plaintext is {x} {b}'s",
    article: None,
}];

const E7_FINDINGS: &[Finding] = &[
    Finding {
        a: side("server-prebuilt", "/hello", Pick::KeptUp),
        b: side("node-http", "/hello", Pick::KeptUp),
        quantity: Quantity::KeptUp,
        says: "{a} keeps up with {x} the offered rate {b} does",
        article: None,
    },
    Finding {
        a: side("server-prebuilt", "/hello", Pick::Step("r10k")),
        b: side("node-http", "/hello", Pick::Step("r10k")),
        quantity: Quantity::CpuUsPerRequest,
        says: "At 10,000 requests/s {a} spends {x} {b}'s CPU time per request",
        article: None,
    },
];

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

/// E7's ladder: the open-loop profile's rates, 1k … 160k requests/s, 10 s per rung rather than
/// the profile's 15 s, so that a run of every server fits in 30 minutes on a 2-CPU machine.
pub const E7_LADDER: Ladder = Ladder {
    rates: &[
        1_000, 5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 160_000,
    ],
    quick_rates: &[1_000, 10_000, 40_000, 120_000],
    connections: 100,
    rung: Duration::from_secs(10),
    quick_rung: Duration::from_secs(2),
    warmup: Duration::from_secs(1),
    timeout: Duration::from_secs(10),
};

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

const E1_HELLO: &str = "/api/hello";
const E1_REPORTED: &[Reported] = &[
    fig(
        "Express",
        "express",
        E1_HELLO,
        "c100",
        RequestsPerS,
        "1,240",
    ),
    fig(
        "Express",
        "express",
        E1_HELLO,
        "c500",
        RequestsPerS,
        "1,860",
    ),
    fig(
        "Express",
        "express",
        E1_HELLO,
        "c1000",
        RequestsPerS,
        "2,010",
    ),
    fig("Koa", "koa", E1_HELLO, "c100", RequestsPerS, "1,380"),
    fig("Koa", "koa", E1_HELLO, "c500", RequestsPerS, "2,100"),
    fig("Koa", "koa", E1_HELLO, "c1000", RequestsPerS, "2,250"),
    fig(
        "Fastify",
        "fastify",
        E1_HELLO,
        "c100",
        RequestsPerS,
        "2,200",
    ),
    fig(
        "Fastify",
        "fastify",
        E1_HELLO,
        "c500",
        RequestsPerS,
        "3,650",
    ),
    fig(
        "Fastify",
        "fastify",
        E1_HELLO,
        "c1000",
        RequestsPerS,
        "4,120",
    ),
    fig("Fastify", "fastify", E1_HELLO, "c1000", P50Ms, "9.8"),
    fig("Fastify", "fastify", E1_HELLO, "c1000", P95Ms, "23.7"),
    fig("Fastify", "fastify", E1_HELLO, "c1000", P99Ms, "45.2"),
    fig("Express", "express", E1_HELLO, "c1000", P50Ms, "18.2"),
    fig("Express", "express", E1_HELLO, "c1000", P95Ms, "42.3"),
    fig("Express", "express", E1_HELLO, "c1000", P99Ms, "78.6"),
    fig(
        "Express",
        "express",
        E1_HELLO,
        "c1000",
        RssBeforeAfterMb,
        "68 → 132",
    ),
    fig(
        "Fastify",
        "fastify",
        E1_HELLO,
        "c1000",
        RssBeforeAfterMb,
        "62 → 75",
    ),
    fig("Express", "express", E1_HELLO, "c1000", ErrorRate, "2.3 %"),
    fig(
        "Fastify", "fastify", E1_HELLO, "c1000", ErrorRate, "< 0.5 %",
    ),
];

const E2_ECHO: &str = "/api?name=John&lastname=Doe";
const E2_REPORTED: &[Reported] = &[
    fig(
        "node:http",
        "node-http",
        E2_ECHO,
        "c100",
        RequestsPerS,
        "≈ 10,900",
    ),
    fig("node:http", "node-http", E2_ECHO, "c100", MeanMs, "9.2"),
    fig("node:http", "node-http", E2_ECHO, "c100", KbPerS, "988"),
    fig(
        "Express",
        "express",
        E2_ECHO,
        "c100",
        RequestsPerS,
        "5,000–5,250",
    ),
];

const E3_REPORTED: &[Reported] = &[
    fig("Blazeio", "blazeio", "/", "c100", RequestsPerS, "33,294"),
    fig("Blazeio", "blazeio", "/", "c1000", RequestsPerS, "34,800"),
    fig("Blazeio", "blazeio", "/", "c10000", RequestsPerS, "27,061"),
    fig(
        "node:http",
        "node-http",
        "/",
        "c100",
        RequestsPerS,
        "12,883",
    ),
    fig(
        "node:http",
        "node-http",
        "/",
        "c1000",
        RequestsPerS,
        "13,199",
    ),
    fig(
        "node:http",
        "node-http",
        "/",
        "c10000",
        RequestsPerS,
        "9,381",
    ),
    fig("Blazeio", "blazeio", "/", "c1000", MeanMs, "4.8"),
    fig("node:http", "node-http", "/", "c1000", MeanMs, "388"),
    fig("Blazeio", "blazeio", "/", "c10000", SocketErrors, "0"),
    fig(
        "node:http",
        "node-http",
        "/",
        "c10000",
        SocketErrors,
        "read 256",
    ),
];

const E4_REPORTED: &[Reported] = &[fig(
    "node:http",
    "node-http",
    "/api/async",
    "async",
    RequestsPerS,
    "≈ 9,000",
)];

const E5_REPORTED: &[Reported] = &[
    fig(
        "Node.js, 1 process",
        "node-http",
        "/hello",
        "c100",
        RequestsPerS,
        "4,042",
    ),
    fig(
        "Node.js cluster of 24",
        "node-cluster",
        "/hello",
        "c100",
        RequestsPerS,
        "5,816",
    ),
    fig(
        "Tornado",
        "tornado",
        "/hello",
        "c100",
        RequestsPerS,
        "1,283",
    ),
    fig(
        "Go net/http",
        "go-http",
        "/hello",
        "c100",
        RequestsPerS,
        "77,451",
    ),
    fig(
        "OpenResty, 1 worker",
        "nginx-lua-1",
        "/hello",
        "c100",
        RequestsPerS,
        "25,001",
    ),
    fig(
        "OpenResty, 24 workers",
        "nginx-lua-n",
        "/hello",
        "c100",
        RequestsPerS,
        "70,333",
    ),
];

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
pub const ALL: [Experiment; 7] = [
    Experiment {
        id: "e1",
        manifest_id: "E1",
        title: "Express vs Fastify vs Koa under a ramp: 100, 500, 1000 connections on /api/hello and the Bearer-token /api/private",
        article_load: "k6 stages 1m:100, 2m:500, 2m:1000, 1m:0; 3 repetitions",
        repeat: 3,
        scenarios_only: false,
        endpoints: &[("/api/hello", NO_HEADERS), ("/api/private", BEARER)],
        question: "Which Node.js framework keeps up under a ramp to 1,000 connections: Express, Koa or Fastify?",
        reported: E1_REPORTED,
        ladder: None,
        peers_on: &[],
        reported_note: "The article's latency, RSS and error rate are over its whole k6 ramp (RSS: before and after 300 s); ours are at the 1,000-connection plateau, RSS from before the first plateau to after the last. It also timed 100,000 route matches (Express 187 ms, Koa 172, Fastify 89) and token checks (124, 118, 92 ms): `cargo bench -p bench-micro --bench e1`.",
        shown: Shown {
            tables: &[Tables::PerEndpoint(&[
                each("req/s", RequestsPerS),
                last("p50 ms", P50Ms),
                last("p95 ms", P95Ms),
                last("p99 ms", P99Ms),
                last("errors", ErrorRate),
            ])],
            charts: Charts::Bars,
        },
        run_notes: &[
            "E1's k6 ramp (1m:100, 2m:500, 2m:1000, 1m:0) is run as plateaus of 100, 500 and 1000 keep-alive connections, 20 s each, back to back on one server process",
        ],
        runtime_note: false,
        verify_first: false,
        headline: &[Headline {
            endpoint: "/api/hello",
            pick: Pick::Step("c100"),
            figure: Figure::RequestsPerS,
            head: "E1 req/s",
            says: "E1 `/api/hello`, 100 keep-alive connections",
        }],
        findings: E1_FINDINGS,
        headline_rank: 3,
        publish_length: Some(Duration::from_secs(5)),
    },
    Experiment {
        id: "e2",
        manifest_id: "E2",
        title: "Express vs bare node:http: a new HTTP/1.0 connection per request on the query echo",
        article_load: "ab -n 10000 -c 100; 3 runs",
        repeat: 3,
        scenarios_only: false,
        endpoints: &[("/api?name=John&lastname=Doe", NO_HEADERS)],
        question: "What does Express cost over bare node:http when both send the same bytes?",
        reported: E2_REPORTED,
        ladder: None,
        peers_on: &[],
        reported_note: "ab over three runs; on a Raspberry Pi the article saw the gap shrink to 25 %.",
        shown: Shown {
            tables: &[Tables::StepByStep(&[
                ("req/s", RequestsPerS),
                ("ms per request", MeanMs),
                ("KB/s", KbPerS),
                ("bytes/response", BytesPerResponse),
                ("errors", Errors),
            ])],
            charts: Charts::Bars,
        },
        run_notes: &[],
        runtime_note: false,
        verify_first: false,
        headline: &[],
        findings: E2_FINDINGS,
        headline_rank: 5,
        publish_length: None,
    },
    Experiment {
        id: "e3",
        manifest_id: "E3",
        title: "Blazeio vs tuned node:http: keep-alive at 100/1,000/10,000 connections",
        article_load: "wrk -t1 -d10s --timeout 60s at -c100, -c1000, -c10000",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/", NO_HEADERS), ("/my/ip", NO_HEADERS)],
        question: "Does one prebuilt buffer per request (Blazeio) beat tuned node:http at 100, 1,000 and 10,000 connections?",
        reported: E3_REPORTED,
        ladder: None,
        peers_on: &[],
        reported_note: "wrk -t1 on one machine; Blazeio sends no Date header (our contract keeps it).",
        shown: Shown {
            tables: &[Tables::PerEndpoint(&[
                each("req/s", RequestsPerS),
                each("avg ms", MeanMs),
                each("socket errors", SocketErrors),
            ])],
            charts: Charts::Bars,
        },
        run_notes: &[],
        runtime_note: false,
        verify_first: false,
        headline: &[
            Headline {
                endpoint: "/",
                pick: Pick::Step("c100"),
                figure: Figure::RequestsPerS,
                head: "E3 req/s",
                says: "E3 `/`, 100 keep-alive connections",
            },
            Headline {
                endpoint: "/",
                pick: Pick::Step("c100"),
                figure: Figure::CpuUsPerRequest,
                head: "E3 CPU µs/req",
                says: "the server's CPU time per request in that step",
            },
        ],
        findings: E3_FINDINGS,
        headline_rank: 1,
        publish_length: None,
    },
    Experiment {
        id: "e4",
        manifest_id: "E4",
        title: "Event-loop scenarios: async, sync, sync-offload, nexttick, timer at 100 connections",
        article_load: "autocannon -c 100 -d 20",
        repeat: 1,
        scenarios_only: true,
        endpoints: &[
            ("/api/async", NO_HEADERS),
            ("/api/sync", NO_HEADERS),
            ("/api/sync-offload", NO_HEADERS),
            ("/api/nexttick", NO_HEADERS),
            ("/api/timer", NO_HEADERS),
        ],
        question: "What does blocking the event loop (a CPU loop, a nextTick pile-up, many timers) do to a server's throughput and errors?",
        reported: E4_REPORTED,
        ladder: None,
        peers_on: &[],
        reported_note: "Qualitative beyond async: sync blocking drops QPS by about 85 % with timeouts; the nextTick pile-up is worst (CPU saturated, most errors); timers cost some throughput without stalling.",
        shown: Shown {
            tables: &[
                Tables::PerMeasure(&[
                    ("Requests/s", RequestsPerS),
                    ("Errors (timeouts, socket errors, error statuses)", Errors),
                    ("p99 latency (ms)", P99Ms),
                ]),
                Tables::Probe,
            ],
            charts: Charts::BarsAndProbe,
        },
        run_notes: &[],
        runtime_note: true,
        verify_first: false,
        headline: &[],
        findings: E4_FINDINGS,
        headline_rank: 6,
        publish_length: Some(Duration::from_secs(10)),
    },
    Experiment {
        id: "e5",
        manifest_id: "E5",
        title: "Node.js, Go, Python, OpenResty hello-world: HTTP/1.0 keep-alive at 1/10/100 connections",
        article_load: "ab -k -c 1/10/100 -n 50000",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/hello", NO_HEADERS)],
        question: "How do Node.js (one process and a cluster), Go, Tornado and OpenResty compare on hello-world?",
        reported: E5_REPORTED,
        ladder: None,
        peers_on: &[],
        reported_note: "At 100 connections, client and server on two 24-core Xeon E5-2430 machines; ours has one server CPU, so the cluster and N-worker forms get one worker.",
        shown: Shown {
            tables: &[Tables::PerEndpoint(&[
                each("req/s", RequestsPerS),
                each("errors", Errors),
            ])],
            charts: Charts::Bars,
        },
        run_notes: &[],
        runtime_note: false,
        verify_first: false,
        headline: &[
            Headline {
                endpoint: "/hello",
                pick: Pick::Step("c100"),
                figure: Figure::RequestsPerS,
                head: "E5 req/s",
                says: "E5 `/hello`, 100 HTTP/1.0 keep-alive connections",
            },
            Headline {
                endpoint: "/hello",
                pick: Pick::Step("c100"),
                figure: Figure::CpuUsPerRequest,
                head: "E5 CPU µs/req",
                says: "the server's CPU time per request in that step",
            },
        ],
        findings: E5_FINDINGS,
        headline_rank: 0,
        publish_length: None,
    },
    Experiment {
        id: "e6",
        manifest_id: "E6",
        title: "The TechEmpower profile: plaintext (/hello, pipelined 16 deep) at 256/1,024/4,096 connections, JSON (/api/hello) at 16/64/256/512",
        article_load: "TFB: wrk -t1 -d15 --timeout 8 with pipeline.lua 16 at -c256..16384 (plaintext), without at -c16..512 (JSON)",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/hello", NO_HEADERS), ("/api/hello", NO_HEADERS)],
        question: "What does each server do under TechEmpower's load: a pipelined plaintext test and a JSON test, many connections?",
        reported: &[],
        ladder: None,
        peers_on: &[],
        reported_note: "TechEmpower publishes its own rounds on its own hardware; this run is the profile's shape on this machine, with no article figures to set beside it.",
        shown: Shown {
            tables: &[Tables::Tfb, Tables::Verified],
            charts: Charts::Bars,
        },
        run_notes: &[],
        runtime_note: false,
        verify_first: true,
        headline: &[Headline {
            endpoint: "/hello",
            pick: Pick::Best,
            figure: Figure::RequestsPerS,
            head: "E6 plaintext req/s",
            says: "E6 `/hello` pipelined 16 deep, the best of its connection counts",
        }],
        findings: E6_FINDINGS,
        headline_rank: 2,
        publish_length: Some(Duration::from_secs(5)),
    },
    Experiment {
        id: "e7",
        manifest_id: "E7",
        title: "The open-loop profile: latency and CPU per request at fixed offered rates, 1k to 160k requests/s, on /hello and /api/hello at 100 connections",
        article_load: "wrk2 -R, k6 constant-arrival-rate, oha -q: a ladder of offered rates, latency from each request's intended send time",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/hello", NO_HEADERS), ("/api/hello", NO_HEADERS)],
        question: "What latency do a server's users see, and what CPU does each request cost, at a fixed offered rate, and at what rate can it no longer keep up?",
        reported: &[],
        ladder: Some(E7_LADDER),
        peers_on: &["/hello"],
        reported_note: "No article measured this: it is the production engineers' measure (HttpArena scores servers this way: CPU per request and p99/p99.9 at a fixed rate, achieved/offered as the validity gate), with no figures to set beside it.",
        shown: LADDER_SHOWN,
        run_notes: &[],
        runtime_note: false,
        verify_first: false,
        headline: &[Headline {
            endpoint: "/hello",
            pick: Pick::KeptUp,
            figure: Figure::OfferedRate,
            head: "E7 kept up with, req/s",
            says: "E7 `/hello`, the highest offered rate the server kept up with (`≥`: its ladder ended before it fell behind)",
        }],
        findings: E7_FINDINGS,
        headline_rank: 4,
        publish_length: Some(Duration::from_secs(5)),
    },
];

/// E6's pipelining depth on its plaintext test (TechEmpower's).
pub const TFB_PIPELINE: usize = 16;

/// The experiment called `id` (`e3` or `E3`).
pub fn find(id: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.id.eq_ignore_ascii_case(id))
}

/// The ids, for messages: `e1, e2, e3, e4, e5, e6, e7`.
pub fn ids() -> String {
    ALL.iter().map(|e| e.id).collect::<Vec<_>>().join(", ")
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
        let secs = |full: u64| {
            if quick {
                Duration::from_secs(2)
            } else {
                length.unwrap_or(Duration::from_secs(full))
            }
        };
        // A shorter length (`--length`) shortens the warm-up with it: a fifth, at most 2 s.
        let warm = Warmup::For(match (quick, length) {
            (true, _) => Duration::from_secs(1),
            (false, Some(l)) => (l / 5).clamp(Duration::from_secs(1), Duration::from_secs(2)),
            (false, None) => Duration::from_secs(2),
        });
        let mut steps = Vec::new();
        for &(endpoint, headers) in self.endpoints {
            let step = |id: String, connections: usize| Step {
                id,
                endpoint: endpoint.to_string(),
                connections,
                duration: None,
                requests: None,
                mode: Mode::KeepAlive,
                pipeline: 1,
                timeout: Duration::from_secs(60),
                headers: headers
                    .iter()
                    .map(|&(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                warmup: warm,
                probe: None,
                rate: None,
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
                        ..step(rate_id(r), l.connections)
                    });
                }
                continue;
            }
            match self.id {
                "e1" => {
                    for c in [100, 500, 1000] {
                        steps.push(Step {
                            duration: Some(secs(20)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                "e2" => {
                    let n = if quick { 1_000 } else { 10_000 };
                    steps.push(Step {
                        requests: Some(n),
                        mode: Mode::Http10,
                        timeout: Duration::from_secs(30),
                        warmup: Warmup::Requests(n / 10),
                        ..step("c100".into(), 100)
                    });
                }
                "e3" => {
                    for c in [100, 1000, 10_000] {
                        steps.push(Step {
                            duration: Some(secs(10)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                "e4" => {
                    let name = endpoint.trim_start_matches("/api/").to_string();
                    if steps.is_empty() {
                        // First, the probe alone on the idle server: its baseline.
                        steps.push(Step {
                            duration: Some(secs(20)),
                            timeout: Duration::from_secs(10),
                            endpoint: PROBE_ENDPOINT.to_string(),
                            probe: Some(probe(secs(20), quick)),
                            warmup: Warmup::For(Duration::ZERO),
                            ..step(BASELINE.to_string(), 0)
                        });
                    }
                    steps.push(Step {
                        duration: Some(secs(20)),
                        timeout: Duration::from_secs(10),
                        probe: Some(probe(secs(20), quick)),
                        ..step(name, 100)
                    });
                }
                "e6" => {
                    let (counts, pipeline): (&[usize], usize) = if endpoint == "/hello" {
                        (&[256, 1024, 4096], TFB_PIPELINE)
                    } else {
                        (&[16, 64, 256, 512], 1)
                    };
                    for &c in counts {
                        steps.push(Step {
                            duration: Some(secs(15)),
                            timeout: Duration::from_secs(8),
                            pipeline,
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                _ => {
                    let n = if quick { 2_000 } else { 50_000 };
                    for c in [1, 10, 100] {
                        steps.push(Step {
                            requests: Some(n),
                            mode: Mode::Http10KeepAlive,
                            timeout: Duration::from_secs(30),
                            warmup: Warmup::Requests((n / 10).max(c as u64)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
            }
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
        let e3 = find("E3").unwrap().steps(false);
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
        let e2 = find("e2").unwrap().steps(false);
        assert_eq!(
            (e2[0].requests, e2[0].connections, e2[0].mode),
            (Some(10_000), 100, Mode::Http10)
        );
        let e5 = find("e5").unwrap().steps(false);
        assert!(e5.iter().all(|s| s.requests == Some(50_000)
            && s.mode == Mode::Http10KeepAlive
            && s.endpoint == "/hello"));
        let e1 = find("e1").unwrap().steps(false);
        assert_eq!(e1.len(), 6);
        assert_eq!(e1[3].endpoint, "/api/private");
        assert_eq!(
            e1[3].headers,
            [("Authorization".to_string(), format!("Bearer {TOKEN}"))]
        );
        let e4 = find("e4").unwrap().steps(false);
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
        assert!(
            find("e3")
                .unwrap()
                .steps(false)
                .iter()
                .all(|s| s.probe.is_none())
        );
        let e6 = find("e6").unwrap().steps(false);
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
                .filter(|e| e.id != "e6")
                .all(|e| e.steps(false).iter().all(|s| s.pipeline == 1))
        );
        assert!(find("e8").is_none());
        // E7: a rung per rate on each endpoint, 100 connections, the open model.
        let e7 = find("e7").unwrap();
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
        assert_eq!(find("e3").unwrap().steps_at(false, Some(&[5]), None), e3);
        assert!(
            ALL.iter()
                .filter(|e| e.id != "e7")
                .all(|e| e.steps(false).iter().all(|s| s.rate.is_none()))
        );
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
                matches!(e.id, "e6" | "e7") || !e.reported.is_empty(),
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
        let e4 = find("e4")
            .unwrap()
            .steps_at(false, None, Some(Duration::from_secs(10)));
        let p = e4[1].probe.as_ref().unwrap();
        assert_eq!(
            (p.warmup, p.duration),
            (Duration::from_secs(1), Duration::from_secs(8))
        );
        assert_eq!(e4[1].warmup, Warmup::For(Duration::from_secs(2)));
    }
}
