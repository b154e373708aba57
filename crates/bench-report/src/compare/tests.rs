//! `bench compare` on recorded documents with noisy rounds: each test fails if the rule were
//! "the medians differ" (every jittered figure would then have moved).

use super::print::{row, shown};
use super::*;
use bench_model::experiment;
use bench_model::results::{CEILING, Run};
use bench_model::verdict::{MARGIN, Verdict};

/// The recorded E3 document (server-prebuilt and node-http) with the ceiling added and every
/// `/` c100 step measured in `speeds.len()` rounds: server-prebuilt at `pre` requests/s,
/// node-http at `node` and the ceiling at `ceiling`, each scaled by that round's speed (the
/// machine's, `speeds`) and by its own jitter (log-sd 3 %, from `seed`: no two runs alike).
fn rounds(speeds: &[f64], (pre, node, ceiling): (f64, f64, f64), seed: u64) -> Results {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut r: Results =
        serde_json::from_str(include_str!("../../tests/data/results-e3.json")).unwrap();
    let mut c = r.servers[0].clone();
    c.name = CEILING.into();
    // The ceiling answers `/` only here.
    c.steps.retain(|st| st.endpoint == "/");
    r.servers.push(c);
    for s in &mut r.servers {
        let base = match s.name.as_str() {
            "server-prebuilt" => pre,
            "node-http" => node,
            _ => ceiling,
        };
        let st = s
            .steps
            .iter_mut()
            .find(|st| st.endpoint == "/" && st.step == "c100")
            .unwrap();
        let one = st.repeats[0].clone();
        st.repeats = speeds
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let jitter = (0.03 * (rng.f64() - 0.5) * 3.46).exp();
                Run {
                    requests_per_s: base * v * jitter,
                    cpu_us_per_request: Some(1e6 / (base * v * jitter)),
                    round: Some(i as u32 + 1),
                    tool_bound: false,
                    disturbed: false,
                    ..one.clone()
                }
            })
            .collect();
        st.finish();
    }
    r
}

fn change<'a>(c: &'a Comparison, what: &str, figure: &str) -> &'a Change {
    c.changes
        .iter()
        .find(|ch| ch.what == what && ch.figure == figure)
        .unwrap_or_else(|| panic!("{what} {figure}: {:#?}", c.changes))
}

const SPEEDS: [f64; 7] = [1.0, 0.9, 1.1, 0.95, 1.05, 0.92, 1.08];
const SERVERS: (f64, f64, f64) = (100_000.0, 20_000.0, 110_000.0);

fn moved_by(ch: &Change) -> Option<f64> {
    match ch.verdict {
        Verdict::Moved { ratio, .. } => Some(ratio.x),
        _ => None,
    }
}

#[test]
fn the_machines_speed_cancels_out_against_the_ceiling() {
    // The same servers on a machine 30 % slower: every figure fell, no ratio moved.
    let slow: Vec<f64> = SPEEDS.iter().map(|v| v * 0.7).collect();
    let c = compare(
        &[rounds(&SPEEDS, SERVERS, 1)],
        &[rounds(&slow, SERVERS, 2)],
        MARGIN,
    );
    let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
    assert!(!pre.verdict.moved(), "{pre:#?}");
    assert!((pre.old.median - 100.0 / 110.0).abs() < 0.05);
    // Jittered, the medians of the ratios differ: a rule "medians differ" would call it moved.
    assert_ne!(pre.old.median, pre.new.median);
    // The ceiling itself is compared on its figures, which did move, by about 0.7.
    let ceiling = change(&c, "ceiling `/` c100", "requests/s");
    let x = moved_by(ceiling).unwrap_or_else(|| panic!("{ceiling:#?}"));
    assert!((x - 0.7).abs() < 0.05, "{ceiling:#?}");
    assert!(
        ceiling.judgement.unwrap().ratio.low < 0.7 && 0.7 < ceiling.judgement.unwrap().ratio.high
    );
    // A step without the ceiling is compared on its own figures.
    assert!(
        c.changes
            .iter()
            .any(|ch| ch.what == "server-prebuilt `/my/ip` c100" && ch.figure == "requests/s")
    );
    let moved: Vec<&str> = c.moved().map(|ch| ch.figure.as_str()).collect();
    assert_eq!(moved, ["requests/s", "CPU µs/request"], "the ceiling's two");
}

#[test]
fn a_server_that_got_slower_moved_and_its_finding_too_and_a_rerun_is_the_same() {
    let old = rounds(&SPEEDS, SERVERS, 3);
    let new = rounds(&SPEEDS, (80_000.0, 20_000.0, 110_000.0), 4);
    let c = compare(std::slice::from_ref(&old), &[new], MARGIN);
    let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
    let x = moved_by(pre).unwrap_or_else(|| panic!("{pre:#?}"));
    assert!((x - 0.8).abs() < 0.04, "{pre:#?}");
    assert!(
        pre.verdict.text().starts_with("moved -"),
        "{}",
        pre.verdict.text()
    );
    let node = change(&c, "node-http `/` c100", "requests/s ÷ ceiling");
    assert!(!node.verdict.moved(), "{node:#?}");
    let f = change(
        &c,
        "finding: server-prebuilt over node-http",
        "ratio of requests/s",
    );
    assert!(f.verdict.moved(), "{f:#?}");
    // A second run of the same servers: nothing moved, and with 7 rounds of 3 % jitter the
    // ratios are shown the same within ±10 %, though no two medians are equal.
    let again = rounds(&SPEEDS, SERVERS, 5);
    let c = compare(std::slice::from_ref(&old), &[again], MARGIN);
    assert_eq!(c.moved().count(), 0, "{:#?}", c.moved().collect::<Vec<_>>());
    let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
    assert_eq!(pre.verdict, Verdict::Same { margin: MARGIN }, "{pre:#?}");
    assert_ne!(pre.old.median, pre.new.median);
    assert!(summary(&c).contains(" 0 moved,"), "{}", summary(&c));
    // The gate over the findings and the ratios to the ceiling passes the rerun.
    let (members, g) = c.gate(&Family::DEFAULT);
    assert!(!members.is_empty() && !g.fails(), "{g:?}");
}

#[test]
fn the_gate_fails_on_a_move_beyond_the_margin_and_says_so() {
    let old = rounds(&SPEEDS, SERVERS, 6);
    let new = rounds(&SPEEDS, (60_000.0, 20_000.0, 110_000.0), 7);
    let c = compare(&[old], &[new], MARGIN);
    let (members, g) = c.gate(&Family::DEFAULT);
    assert!(g.fails(), "{g:?}");
    let lines = gate_text(&c, &Family::DEFAULT, &members, &g);
    assert!(lines[0].contains("FAILED"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("server-prebuilt `/` c100 requests/s ÷ ceiling")),
        "{lines:?}"
    );
    // Only the cells: the ceiling's own figures, not moved beyond 10 %.
    let (_, g) = c.gate(&[Family::Cells]);
    assert!(!g.fails(), "{g:?}");
}

/// Requests/s the tool set is a lower bound: bound against bound is not judged, never "the
/// same"; its CPU per request is judged as usual, and a finding of two bounds is compared on
/// CPU per request instead.
#[test]
fn bounds_stay_bounds() {
    let tool = |mut r: Results| {
        for s in &mut r.servers {
            for st in &mut s.steps {
                st.repeats.iter_mut().for_each(|run| run.tool_bound = true);
                st.finish();
            }
        }
        r
    };
    let c = compare(
        &[tool(rounds(&SPEEDS, SERVERS, 8))],
        &[tool(rounds(&SPEEDS, SERVERS, 9))],
        MARGIN,
    );
    let pre = change(&c, "server-prebuilt `/` c100", "requests/s ÷ ceiling");
    assert_eq!(pre.verdict, Verdict::Unjudged, "{pre:#?}");
    assert!(row(pre)[3].starts_with("≥ "), "{:?}", row(pre));
    assert!(row(pre)[7].starts_with("† 7/7 → 7/7"), "{:?}", row(pre));
    let cpu = change(&c, "server-prebuilt `/` c100", "CPU µs/request ÷ ceiling");
    assert_ne!(cpu.verdict, Verdict::Unjudged);
    change(
        &c,
        "finding: server-prebuilt over node-http",
        "ratio of CPU µs/request (requests/s: the tool's limit)",
    );
}

#[test]
fn a_run_without_rounds_cannot_be_judged_and_an_experiment_alone_is_named() {
    let one: Results =
        serde_json::from_str(include_str!("../../tests/data/results-e3.json")).unwrap();
    let c = compare(
        std::slice::from_ref(&one),
        std::slice::from_ref(&one),
        MARGIN,
    );
    assert!(!c.changes.is_empty());
    assert!(c.changes.iter().all(|ch| ch.verdict == Verdict::Unjudged));
    // p99 is compared on open-loop rungs only (E7), never on E3's closed-loop steps.
    assert!(c.changes.iter().all(|ch| !ch.figure.starts_with("p99")));
    let mut e5 = one.clone();
    e5.experiment = experiment::E5.id.into();
    let c = compare(&[one], &[e5], MARGIN);
    assert_eq!(c.unmatched, ["e3 (old only)", "e5 (new only)"]);
    let md = markdown(&c, "a", "b", None);
    assert!(md.starts_with("# Two runs compared\n"), "{md}");
    assert!(
        md.contains("not compared: e3 (old only), e5 (new only)"),
        "{md}"
    );
}

/// The recorded E7 ladder in rounds (server-prebuilt, server-hyper, node-http, the ceiling at
/// 1k, 10k, 40k requests/s on `/hello`).
fn ladder() -> Results {
    serde_json::from_str(include_str!("../../tests/data/results-e7-rounds.json")).unwrap()
}

#[test]
fn a_capacity_is_compared_on_the_likelihood_of_its_runs() {
    let old = ladder();
    let same = compare(
        std::slice::from_ref(&old),
        std::slice::from_ref(&old),
        MARGIN,
    );
    let node = change(&same, "node-http `/hello`", "capacity, req/s");
    assert!(!node.verdict.moved(), "{node:#?}");
    change(
        &same,
        "finding: server-prebuilt over node-http",
        "ratio of the capacities",
    );
    // An open-loop rung is compared on its p99 too, against the ceiling's.
    change(&same, "server-prebuilt `/hello` r10k", "p99 ÷ ceiling");
    assert_eq!(same.moved().count(), 0);
    // A rerun in which node-http kept up with 40k in one round of six: its estimate moved,
    // its capacity did not (one round's luck is no move).
    let mut near = old.clone();
    let n = near
        .servers
        .iter_mut()
        .find(|s| s.name == "node-http")
        .unwrap();
    let st = n.steps.iter_mut().find(|st| st.step == "r40k").unwrap();
    st.repeats[2].requests_per_s = 40_000.0;
    st.repeats[2].latency_us.p99 = Some(5_000);
    st.finish();
    let c = compare(std::slice::from_ref(&old), &[near], MARGIN);
    let node = change(&c, "node-http `/hello`", "capacity, req/s");
    assert!(node.new.median > node.old.median * 1.01, "{node:#?}");
    assert!(!node.verdict.moved(), "{node:#?}");

    // node-http no longer keeps up above 1k: its capacity fell, and the finding moved.
    let mut new = old.clone();
    let n = new
        .servers
        .iter_mut()
        .find(|s| s.name == "node-http")
        .unwrap();
    for st in n.steps.iter_mut().filter(|st| st.step != "r1k") {
        for r in &mut st.repeats {
            r.requests_per_s = r.offered_requests_per_s.unwrap() * 0.5;
        }
        st.finish();
    }
    let c = compare(std::slice::from_ref(&old), &[new], MARGIN);
    let node = change(&c, "node-http `/hello`", "capacity, req/s");
    let x = moved_by(node).unwrap_or_else(|| panic!("{node:#?}"));
    assert!(x < 0.5, "{node:#?}");
    assert!(node.new.interval.unwrap().high < 10_000.0, "{node:#?}");
    // server-prebuilt held the ladder's top in both: a lower bound, not judged the same.
    let pre = change(&c, "server-prebuilt `/hello`", "capacity, req/s");
    assert_eq!(pre.old.bound, Bound::AtLeast);
    assert!(shown(&pre.old).starts_with("≥ 4"), "{}", shown(&pre.old));
    assert!(!matches!(pre.verdict, Verdict::Same { .. }), "{pre:#?}");
}

#[test]
fn a_folder_gives_its_newest_file_of_each_experiment() {
    let dir = std::env::temp_dir().join(format!("bench-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut r = rounds(&SPEEDS, (1.0, 1.0, 1.0), 10);
    r.header.started_utc = "2026-12-01T00:00:00Z".into();
    r.save(&dir.join("e3-old.json")).unwrap();
    r.header.started_utc = "2026-12-02T00:00:00Z".into();
    r.save(&dir.join("e3-new.json")).unwrap();
    std::fs::write(dir.join("other.json"), "{\"schema\": \"bench.idle/1\"}").unwrap();
    let got = load(&dir).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header.started_utc, "2026-12-02T00:00:00Z");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(
        load(&empty)
            .unwrap_err()
            .to_string()
            .contains("no bench run results file")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
