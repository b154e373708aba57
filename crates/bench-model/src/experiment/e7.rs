//! E7, the open-loop profile: a ladder of offered rates: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E7.
pub const E7: Experiment = Experiment {
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
        head: "E7 capacity, req/s",
        says: "E7 `/hello`, the offered rate the server keeps up with in half its runs (a fit of every run of every rung; `≥`: a lower bound, the load tool's limit)",
    }],
    findings: E7_FINDINGS,
    headline_rank: 4,
    publish_length: Some(Duration::from_secs(2)),
    publish_rounds: 6,
    publish_steps: &[],
    publish_endpoints: &["/hello"],
    publish_aa: &[],
    publish_until_minutes: 0,
    fixed_steps: no_fixed_steps,
};

/// E7's ladder: the open-loop profile's rates, 1k … 160k requests/s, 10 s per rung rather than
/// the profile's 15 s, so that a run of every server fits in 30 minutes on a 2-CPU machine.
pub const E7_LADDER: Ladder = Ladder {
    rates: &[
        1_000, 5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 160_000,
    ],
    quick_rates: &[1_000, 10_000, 40_000, 120_000],
    publish_rates: &[10_000, 40_000, 80_000],
    connections: 100,
    rung: Duration::from_secs(10),
    quick_rung: Duration::from_secs(2),
    warmup: Duration::from_secs(1),
    timeout: Duration::from_secs(10),
};

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
