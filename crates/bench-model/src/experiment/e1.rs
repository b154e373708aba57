//! E1, Express vs Fastify vs Koa under a ramp: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E1.
pub const E1: Experiment = Experiment {
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
    publish_length: Some(Duration::from_secs(2)),
    publish_rounds: 6,
    publish_steps: &["c100", "c1000"],
    publish_endpoints: &[],
    publish_aa: &[],
    publish_until_minutes: 0,
    fixed_steps: steps,
};

const E1_HELLO: &str = "/api/hello";

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

/// E1's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    for c in [100, 500, 1000] {
        steps.push(Step {
            duration: Some(sizing.secs(20)),
            ..base.step(format!("c{c}"), c)
        });
    }
    steps
}
