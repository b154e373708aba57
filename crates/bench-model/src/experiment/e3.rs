//! E3, Blazeio vs tuned node:http: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E3.
pub const E3: Experiment = Experiment {
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
    publish_length: Some(Duration::from_secs(2)),
    publish_rounds: 6,
    publish_steps: &["c100", "c1000"],
    publish_endpoints: &[],
    // Two A/A pairs, each on `/` only (the endpoint the findings and the headline read; the
    // two copies take the time one copy on both endpoints took). server-prebuilt's: the load
    // tool set its pace in 5 or 6 of 6 rounds of every step of both publishes (2026-12-03
    // and -04), so that pair measures the tool's variation. node-http's: the tool never set
    // its pace, in any round of any step of either publish (the tool's CPU 41–61 %, its
    // limit 90 %), so that pair measures the precision of a server's own figures.
    publish_aa: &["server-prebuilt@/", "node-http@/"],
    publish_until_minutes: 3,
    fixed_steps: steps,
};

const E3_FINDINGS: &[Finding] = &[
    Finding {
        article: Some(("blazeio", "node-http")),
        ..serves("server-prebuilt", "node-http", "/", "c100")
    },
    serves("blazeio", "node-http", "/", "c100"),
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

/// E3's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    for c in [100, 1000, 10_000] {
        steps.push(Step {
            duration: Some(sizing.secs(10)),
            ..base.step(format!("c{c}"), c)
        });
    }
    steps
}
