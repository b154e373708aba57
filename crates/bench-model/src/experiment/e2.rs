//! E2, Express vs bare node:http: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E2.
pub const E2: Experiment = Experiment {
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
    publish_rounds: 6,
    publish_steps: &[],
    publish_endpoints: &[],
    publish_aa: &[],
    publish_until_minutes: 0,
    fixed_steps: steps,
};

const E2_ECHO: &str = "/api?name=John&lastname=Doe";

const E2_FINDINGS: &[Finding] = &[serves("express", "node-http", E2_ECHO, "c100")];

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

/// E2's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    let n = if sizing.quick { 1_000 } else { 10_000 };
    steps.push(Step {
        requests: Some(n),
        mode: Mode::Http10,
        timeout: Duration::from_secs(30),
        warmup: Warmup::Requests(n / 10),
        ..base.step("c100".into(), 100)
    });
    steps
}
