//! E6, the TechEmpower profile: its steps, what its report shows, its findings and headline
//! columns, and the figures its article reported.

use super::*;

/// E6.
pub const E6: Experiment = Experiment {
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
    publish_length: Some(Duration::from_secs(2)),
    publish_rounds: 6,
    publish_steps: &["c256"],
    // Plaintext only: its finding and the headline read `/hello`, and JSON's `/api/hello` is
    // E1's endpoint too (every framework, 100 and 1,000 connections); the half of E6 it took
    // buys E3's and E5's rounds by the width needed (docs/notes/2026-12-05-rounds-where-needed.md).
    publish_endpoints: &["/hello"],
    publish_aa: &[],
    publish_until_minutes: 0,
    fixed_steps: steps,
};

/// E6's pipelining depth on its plaintext test (TechEmpower's).
pub const TFB_PIPELINE: usize = 16;

const E6_FINDINGS: &[Finding] = &[Finding {
    a: side("server-prebuilt", "/hello", Pick::Best),
    b: side("server-hyper", "/hello", Pick::Best),
    quantity: Quantity::RequestsPerS,
    says: "{a}'s best plaintext is {x} {b}'s",
    article: None,
}];

/// E6's steps on one endpoint.
fn steps(sizing: &Sizing, base: &Base<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    let (counts, pipeline): (&[usize], usize) = if base.endpoint == "/hello" {
        (&[256, 1024, 4096], TFB_PIPELINE)
    } else {
        (&[16, 64, 256, 512], 1)
    };
    for &c in counts {
        steps.push(Step {
            duration: Some(sizing.secs(15)),
            timeout: Duration::from_secs(8),
            pipeline,
            ..base.step(format!("c{c}"), c)
        });
    }
    steps
}
