//! E5, Node.js, Go, Python and OpenResty hello-world: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E5.
pub const E5: Experiment = Experiment {
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
    publish_rounds: 6,
    publish_steps: &["c100"],
    publish_endpoints: &[],
    publish_aa: &[],
    publish_until_minutes: 2,
    fixed_steps: steps,
};

const E5_FINDINGS: &[Finding] = &[
    serves("go-http", "node-http", "/hello", "c100"),
    serves("nginx-lua-1", "node-http", "/hello", "c100"),
    serves("tornado", "node-http", "/hello", "c100"),
];

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

/// E5's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    let n = if sizing.quick { 2_000 } else { 50_000 };
    for c in [1, 10, 100] {
        steps.push(Step {
            requests: Some(n),
            mode: Mode::Http10KeepAlive,
            timeout: Duration::from_secs(30),
            warmup: Warmup::Requests((n / 10).max(c as u64)),
            ..base.step(format!("c{c}"), c)
        });
    }
    steps
}
