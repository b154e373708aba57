//! E4, the event-loop scenarios, a probe beside each: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E4.
pub const E4: Experiment = Experiment {
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
    publish_length: Some(Duration::from_secs(2)),
    publish_rounds: 6,
    publish_steps: &[],
    publish_endpoints: &[],
    publish_aa: &[],
    publish_until_minutes: 0,
    fixed_steps: steps,
};

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

const E4_REPORTED: &[Reported] = &[fig(
    "node:http",
    "node-http",
    "/api/async",
    "async",
    RequestsPerS,
    "≈ 9,000",
)];

/// E4's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    let name = base.endpoint.trim_start_matches("/api/").to_string();
    if base.first {
        // First, the probe alone on the idle server: its baseline.
        steps.push(Step {
            duration: Some(sizing.secs(20)),
            timeout: Duration::from_secs(10),
            endpoint: PROBE_ENDPOINT.to_string(),
            probe: Some(probe(sizing.secs(20), sizing.quick)),
            warmup: Warmup::For(Duration::ZERO),
            ..base.step(BASELINE.to_string(), 0)
        });
    }
    steps.push(Step {
        duration: Some(sizing.secs(20)),
        timeout: Duration::from_secs(10),
        probe: Some(probe(sizing.secs(20), sizing.quick)),
        ..base.step(name, 100)
    });
    steps
}
