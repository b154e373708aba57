//! An offered rate (the open model, E7) with every tool: the exact argv of those that can
//! offer one (the built-in generator's `-R`, oha's `-q` with `--latency-correction`, k6's
//! constant-arrival-rate script), the refusal of those that cannot (wrk, ab, autocannon), and
//! the outputs of real runs at a rate parsed (recorded here, `tests/data/`, 2026-12-01, a
//! debug `server-prebuilt` on CPU 0 and the tool on CPU 1 of this project's busy 2-CPU
//! machine): one the server kept up with, one it could not.

use std::path::Path;
use std::time::Duration;

use super::tests::{bare, data};
use super::*;
use bench_model::rules::saturated;

fn at(rate: f64) -> LoadSpec {
    LoadSpec {
        timeout: Some(Duration::from_secs(10)),
        rate: Some(rate),
        timeline: Some(Duration::from_millis(500)),
        ..LoadSpec::keep_alive(100, Duration::from_secs(10))
    }
}

#[test]
fn the_tools_with_an_open_model_offer_the_rate_exactly() {
    let url = "http://127.0.0.1:8080/hello";
    let argv = |tool| {
        bare(tool, &at(5000.0), url, Path::new(""))
            .unwrap()
            .join(" ")
    };
    assert_eq!(
        argv(Tool::Builtin),
        "loadgen http://127.0.0.1:8080/hello -c 100 -d 10s -R 5000 --mode keep-alive \
         --timeout 10s --interval 500ms --json --no-progress"
    );
    assert_eq!(
        argv(Tool::Oha),
        "oha -z 10s -c 100 -q 5000 --latency-correction -t 10s --no-tui --output-format json \
         http://127.0.0.1:8080/hello"
    );
    let script = k6::rate_script().display().to_string();
    assert!(script.ends_with("scripts/k6/e7.js") && Path::new(&script).is_file());
    assert_eq!(
        argv(Tool::K6),
        format!(
            "k6 run --quiet --no-color --summary-trend-stats avg,min,med,max,p(90),p(95),p(99),p(99.9) \
             -e TARGET=http://127.0.0.1:8080 -e ENDPOINT=/hello -e RATE=5000 -e DURATION=10s \
             -e VUS=100 -e TIMEOUT=10s --summary-export /dev/stdout {script}"
        )
    );
    // The warm-up, with the built-in generator's own: the same rate.
    let warm = LoadSpec {
        warmup: Some(Duration::from_secs(1)),
        ..at(1500.0)
    };
    let a = bare(Tool::Builtin, &warm, url, Path::new(""))
        .unwrap()
        .join(" ");
    assert!(
        a.contains(" -R 1500 ") && a.contains(" --warmup 1s "),
        "{a}"
    );
}

#[test]
fn the_tools_without_one_are_refused_with_the_reason() {
    let url = "http://127.0.0.1:8080/hello";
    let refused = |tool, spec: &LoadSpec| {
        tool_refusal(tool, spec, url).unwrap_or_else(|| panic!("{tool} took {spec:?}"))
    };
    for (tool, why) in [
        (Tool::Wrk, "wrk cannot run this step: it has no open model"),
        (Tool::Ab, "ab cannot run this step: it has no open model"),
        (
            Tool::Autocannon,
            "autocannon cannot run this step: its rate (-R, --overallRate) is no open model",
        ),
    ] {
        let e = refused(tool, &at(1000.0));
        assert!(e.starts_with(why), "{e}");
        assert!(e.ends_with("use --tool builtin, k6 or oha"), "{e}");
        assert_eq!(e.lines().count(), 1);
    }
    // What an offered rate cannot be combined with, for any tool.
    for tool in [Tool::Builtin, Tool::Oha, Tool::K6] {
        let counted = LoadSpec {
            duration: None,
            requests: Some(1000),
            ..at(1000.0)
        };
        assert!(
            refused(tool, &counted).contains("runs for a duration"),
            "{tool}"
        );
        let none = at(0.0);
        assert!(
            refused(tool, &none).contains("an offered rate of 0"),
            "{tool}"
        );
    }
    let piped = LoadSpec {
        pipeline: 16,
        ..at(1000.0)
    };
    assert!(refused(Tool::Builtin, &piped).contains("no pipelining"));
    assert!(refused(Tool::K6, &at(1500.5)).contains("whole requests per second"));
}

fn tool_refusal(tool: Tool, spec: &LoadSpec, url: &str) -> Option<String> {
    tool.argv(spec, url, Path::new("/x/loadgen"))
        .err()
        .map(|e| e.to_string())
}

/// `run` as a step of `rate` records it.
fn offered_at(tool: Tool, rate: f64, mut run: Run) -> Run {
    offered(tool, rate, &mut run);
    run
}

#[test]
fn loadgen_at_a_rate_reports_both_latencies() {
    // loadgen -c 100 -d 2s -R 2000 … against server-prebuilt (debug): it kept up.
    let r = Tool::Builtin
        .parse(&data("loadgen-R2000-c100.json"), "")
        .unwrap();
    assert_eq!((r.requests, r.requests_per_s), (3996, 1998.0));
    let l = &r.latency_us;
    assert_eq!(
        (l.p50, l.p99, l.p999, l.max),
        (Some(385), Some(8115), Some(13_967), Some(15_455))
    );
    let u = r
        .latency_uncorrected_us
        .as_ref()
        .expect("the uncorrected latency");
    assert_eq!(
        (u.p50, u.p99, u.p999, u.max),
        (Some(280), Some(7419), Some(13_383), Some(13_471))
    );
    assert!(
        r.notes.iter().any(|n| n.starts_with("loadgen -R: ")),
        "{:?}",
        r.notes
    );
    let r = offered_at(Tool::Builtin, 2000.0, r);
    assert_eq!(r.offered_requests_per_s, Some(2000.0));
    assert_eq!(saturated(&r), None, "1,998 of 2,000 with a p99 of 8 ms");

    // -R 60000: it answered 8,535 a second; the requests waited for their turn, which only
    // the latency from the intended send time shows.
    let r = Tool::Builtin
        .parse(&data("loadgen-R60000-c100-behind.json"), "")
        .unwrap();
    assert_eq!(r.requests_per_s, 8535.5);
    assert_eq!(r.latency_us.p99, Some(1_708_031));
    assert_eq!(r.latency_uncorrected_us.as_ref().unwrap().p99, Some(14_151));
    let why = saturated(&offered_at(Tool::Builtin, 60_000.0, r)).unwrap();
    assert_eq!(
        why,
        "achieved 8,536 of 60,000 requests/s offered (14.2 %, under 95 %); p99 1708.0 ms from the intended send times, over 100 ms"
    );
    // A closed-loop report has no uncorrected latency.
    let closed = Tool::Builtin
        .parse(&data("loadgen-c50-keepalive.json"), "")
        .unwrap();
    assert_eq!(
        (
            closed.latency_uncorrected_us,
            closed.latency_us.p999.is_some()
        ),
        (None, true)
    );
}

#[test]
fn oha_at_a_rate_reports_p999_from_the_schedule() {
    // oha -z 2s -c 100 -q 2000 --latency-correction -t 10s …
    let r = Tool::Oha.parse(&data("oha-q2000-c100.json"), "").unwrap();
    assert_eq!(r.requests, 3999);
    assert_eq!(
        (r.latency_us.p99, r.latency_us.p999),
        (Some(6034), Some(10_111))
    );
    assert_eq!(r.latency_uncorrected_us, None);
    let r = offered_at(Tool::Oha, 2000.0, r);
    assert_eq!(saturated(&r), None);
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("oha -q with --latency-correction"))
    );
    // -q 60000: 33,294 answers in 2 s, the last ones 1.4 s after they were due.
    let r = Tool::Oha
        .parse(&data("oha-q60000-c100-behind.json"), "")
        .unwrap();
    assert_eq!(r.requests, 33_294);
    assert_eq!(
        (r.latency_us.p99, r.latency_us.p999),
        (Some(1_437_230), Some(1_443_674))
    );
    let why = saturated(&offered_at(Tool::Oha, 60_000.0, r)).unwrap();
    assert!(
        why.starts_with("achieved 16,616 of 60,000 requests/s offered (27.6 %"),
        "{why}"
    );
}

#[test]
fn k6_at_a_rate_says_what_it_never_sent() {
    // k6 run … -e RATE=2000 -e DURATION=2s -e VUS=100 … scripts/k6/e7.js: its text summary
    // (written on stdout even with --quiet) and the JSON after it.
    let r = Tool::K6.parse(&data("k6-rate2000-vus100.txt"), "").unwrap();
    assert_eq!(r.requests, 3766);
    assert_eq!(r.requests_per_s, 1881.407565348244);
    assert_eq!(
        (r.latency_us.p99, r.latency_us.p999),
        (Some(72_430), Some(97_465))
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n == "k6: 235 requests of the offered rate were never sent (dropped_iterations: every VU was busy when they were due)"),
        "{:?}",
        r.notes
    );
    // Here the busy machine kept k6 itself from offering 2,000 a second (94 % of it).
    let why = saturated(&offered_at(Tool::K6, 2000.0, r)).unwrap();
    assert!(why.starts_with("achieved 1,881 of 2,000"), "{why}");
    let r = Tool::K6
        .parse(&data("k6-rate20000-vus100-dropped.txt"), "")
        .unwrap();
    assert_eq!(r.requests, 5782);
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("k6: 34163 requests of the offered rate"))
    );
}
