//! The tests of the report's model of a results file (`build.rs`).

use std::path::Path;

use super::*;
use bench_model::results::{Latency, StepResult};

/// A probe's run: `rps` requests/s, p50 and p99 in µs, `timeouts` errors.
fn probe(rps: f64, p50: u64, p99: u64, timeouts: u64) -> Box<Run> {
    let mut run = Run {
        requests: (rps * 18.0) as u64,
        duration_s: 18.0,
        requests_per_s: rps,
        latency_us: Latency {
            p50: Some(p50),
            p99: Some(p99),
            ..Latency::default()
        },
        ..Run::default()
    };
    run.errors.timeout = timeouts;
    Box::new(run)
}

/// The recorded E4 document, with a baseline step and a probe on every step of
/// server-hyper (server-axum keeps none: a file from before probes).
fn with_probes() -> Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4.json");
    let mut r = Results::load(&path).unwrap();
    let hyper = &mut r.servers[0];
    assert_eq!(hyper.name, "server-hyper");
    let mut baseline = StepResult {
        step: BASELINE.into(),
        endpoint: PROBE_ENDPOINT.into(),
        connections: 0,
        ..hyper.steps[0].clone()
    };
    baseline.median = Some(Run {
        probe: Some(probe(9000.0, 100, 250, 0)),
        ..Run::default()
    });
    hyper.steps.insert(0, baseline);
    let silent = Box::new(Run {
        requests: 0,
        duration_s: 18.0,
        ..Run::default()
    });
    let probes = [
        ("async", silent),
        ("sync", probe(7.0, 141_600, 212_400, 2)),
        ("sync-offload", probe(202.0, 4050, 16_600, 0)),
    ];
    for (step, p) in probes {
        let st = hyper.steps.iter_mut().find(|s| s.step == step).unwrap();
        st.median.as_mut().unwrap().probe = Some(p);
    }
    hyper
        .steps
        .iter_mut()
        .find(|s| s.step == "timer")
        .unwrap()
        .valid = false;
    r
}

#[test]
fn the_probe_table_shows_each_scenarios_stall_beside_the_baseline() {
    let md = markdown(&with_probes());
    let at = md
        .find("## The probe: `/api/hello` beside each scenario's load")
        .expect(&md);
    let section = &md[at..];
    assert!(section.contains("load\n\nWhile each scenario's load runs, a probe of 1 connection"));
    let at = section.find("### `server-hyper`").unwrap();
    let lines: Vec<&str> = section[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(
        lines[0],
        "| load on | `/api/hello` requests/s | `/api/hello` p50 ms | p99 ms | probe errors | load requests/s |"
    );
    assert_eq!(lines[1], "|---|---:|---:|---:|---:|---:|");
    assert_eq!(
        lines[2],
        "| no load (baseline) | 9,000 | 0.10 | 0.25 | 0 | — |"
    );
    // A probe that got no answer in its window says so, not "n/a".
    assert!(
        lines[3].starts_with("| `/api/async` | 0 | none answered in 18 s | — | 0 | "),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("| `/api/sync` | 7 | 141.60 | 212.40 | 2 (timeout 2) | "),
        "{}",
        lines[4]
    );
    assert!(lines[5].starts_with("| `/api/sync-offload` | 202 | 4.05 | 16.60 | 0 | "));
    // A step without a probe's run says so; an invalid step says that.
    assert_eq!(
        lines[6],
        "| `/api/nexttick` | n/a | n/a | n/a | n/a | 41,000 |"
    );
    assert!(
        lines[7].starts_with("| `/api/timer` | invalid | invalid |"),
        "{}",
        lines[7]
    );
    assert_eq!(lines.len(), 8);
    // Only servers with a probe get a table.
    assert!(!section.contains("### `server-axum`"));
    // The baseline is no scenario column.
    let rps = &md[md.find("## Requests/s").unwrap()..md.find("## The probe").unwrap()];
    assert!(!rps.contains(BASELINE));
    // A file from before probes has no probe section.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4.json");
    assert!(!markdown(&Results::load(&path).unwrap()).contains("## The probe"));
}

/// The published E4 (node-http's steps, 6 rounds): beside `/api/sync` the probe got no
/// answer in rounds 1, 2 and 4. Its p99 counts them at their bound, half the 1 s window
/// (`≥ 500.00`, not the 547.33 of the three answered rounds alone), and a line says how
/// many rounds were answered; the chart's cell has that p99, marked a lower bound.
#[test]
fn a_probe_round_without_an_answer_is_counted_at_its_bound_and_said() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e4-rounds.json");
    let r = Results::load(&path).unwrap();
    let md = markdown(&r);
    let at = md.find("### `node-http`").expect(&md);
    let rows: Vec<&str> = md[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(
        rows[3].starts_with("| `/api/sync` | 1 | 547.33 | ≥ 500.00 | 0 | "),
        "{}",
        rows[3]
    );
    // Every round answered: its p99 as before.
    assert!(
        rows[4].starts_with("| `/api/sync-offload` | 9,021 | 0.05 | 2.34 | 0 | "),
        "{}",
        rows[4]
    );
    assert!(md.contains("\n\nNo answer in a round: `/api/sync`: the probe got an answer in 3 of its 6 rounds (0, 0, 1, 0, 1, 1 requests answered in each 1 s window, one at a time on 1 connection, so it sent at most one more each), and a round without one counts as half its window, 500 ms, the least it waited; so its p99 is a lower bound (≥), and its p50 is over the rounds with an answer.\n"), "{md}");
    let charts = crate::chart::charts(&r);
    let latency = charts
        .iter()
        .find(|c| c.group == crate::chart::PROBE_GROUP && c.metric == crate::chart::Metric::Latency)
        .unwrap();
    let sync = latency.panels.iter().find(|p| p.title == "sync").unwrap();
    let c = sync.cells[0];
    assert_eq!(
        c.at_least.map(|u| (u.p99_us, u.censored, u.rounds)),
        Some((500_000.0, 3, 6))
    );
    assert!(
        matches!(c.value, crate::chart::Value::Latency(p) if p.values[3] == Some(500_000)),
        "{c:?}"
    );
    let offload = latency
        .panels
        .iter()
        .find(|p| p.title == "sync-offload")
        .unwrap();
    assert_eq!(offload.cells[0].at_least, None);
}

#[test]
fn the_probe_has_charts_of_its_own() {
    let r = with_probes();
    let charts = crate::chart::charts(&r);
    let probe: Vec<_> = charts
        .iter()
        .filter(|c| c.group == crate::chart::PROBE_GROUP)
        .collect();
    assert_eq!(probe.len(), 2, "requests/s and latency");
    let titles: Vec<&str> = probe[0].panels.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "no load",
            "async",
            "sync",
            "sync-offload",
            "nexttick",
            "timer"
        ]
    );
    assert!(
        charts.iter().all(|c| c.group == crate::chart::PROBE_GROUP
            || c.panels.iter().all(|p| p.title != BASELINE))
    );
}

/// A recorded E3 run of 10 rounds with an A/A pair (server-prebuilt and its copy, the
/// load tool setting the pace of every round) whose ratios hold 1.00; with `slower`, the
/// copy's requests/s at `/` c100 made that much lower in every round, so that every
/// round's ratio is above 1.
fn e3_aa(slower: f64) -> Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-e3-rounds.json");
    let mut r = Results::load(&path).unwrap();
    let copy = r
        .servers
        .iter_mut()
        .find(|s| s.name == "server-prebuilt#2")
        .unwrap();
    let st = copy
        .steps
        .iter_mut()
        .find(|st| st.endpoint == "/" && st.step == "c100")
        .unwrap();
    for m in &mut st.repeats {
        m.requests_per_s *= slower;
    }
    st.finish();
    r
}

/// The A/A line gives each step's requests/s and CPU-per-request ratios, each with its
/// bracket, and each copy's rounds the tool (†) or the machine (‡) set; a pair whose
/// interval leaves out 1.00 opens the report, and says so in its line too.
#[test]
fn an_aa_pair_that_differed_opens_the_report() {
    let same = e3_aa(1.0);
    let lines = aa_pairs(&same);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0],
        "`server-prebuilt` over `server-prebuilt#2` at `/` c100: requests/s 1.00× [0.99–1.00], CPU per request 1.00× [1.00–1.01], 10 rounds; † 10/10 and 10/10 rounds, ‡ 0/10 and 0/10"
    );
    assert_eq!(aa_flag(&same), None);
    let md = markdown(&same);
    assert!(!md.contains("A/A pair differed"), "{md}");

    let differed = e3_aa(0.9);
    let flag = aa_flag(&differed).unwrap();
    assert_eq!(
        flag,
        "**This run's own A/A pair differed:** `server-prebuilt` over `server-prebuilt#2` at `/` c100, requests/s 1.11× [1.10–1.11], all 10 rounds above 1 (the load tool set the pace, †, in 10/10 and 10/10 of their rounds): two copies of one binary differed by that much in this run, so differences of that size between servers in this run are not findings, whatever their intervals say."
    );
    // First, right under the title, before the header and the findings.
    let md = markdown(&differed);
    let (title, rest) = md.split_once("\n\n").unwrap();
    assert!(title.starts_with("# E3: "), "{title}");
    assert!(rest.starts_with(&format!("{flag}\n\n- Date: ")), "{rest}");
    assert!(
        aa_pairs(&differed)[0].contains("requests/s 1.11× [1.10–1.11] (all 10 rounds above 1)"),
        "{:?}",
        aa_pairs(&differed)
    );
    // The page's article of the run says it first too.
    let page = crate::html(&[crate::Doc {
        results: differed,
        href: None,
    }]);
    let article = &page[page.find("<article class=\"run\"").unwrap()..];
    let flag_at = article
        .find("<p class=\"precision\"><strong>This run&#39;s own A/A pair differed:</strong>");
    assert!(
        flag_at.is_some_and(|at| at < article.find("<h4>").unwrap()),
        "{article}"
    );
}
