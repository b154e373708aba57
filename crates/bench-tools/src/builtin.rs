//! The built-in generator: `loadgen URL -c N [-d D] [-n N] --mode M [-p P] [--timeout T]
//! [-H …] [--warmup W] --json --no-progress`, and its `loadgen.report/1` JSON.
//!
//! It does every mode and both bounds. Its latency summary has p50/p75/p90/p95/p99/p99.9.
//! Its `requests` are the answers and the transport errors (connect, read, write, timeout,
//! framing), never the requests cut off by the end of a timed run; an answer with any
//! status but a 2xx is a status error here (its own errors count 4xx and 5xx only), from
//! its answers by status class.
//! When one of its threads was busy nearly all the time the run's notes say the generator,
//! not the server, may have set the pace. At a rate (`-R`), its requests due and unsent are
//! kept, and [`rules::fell_behind`] decides who held the unsent back: the generator
//! ([`Run::tool_fell_behind`], the tool's limit) or the server (its saturation, a note).
//!
//! A run whose [`LoadSpec::timeline`] is set asks for `--interval` (the harness sets it to
//! [`INTERVAL`](bench_model::results::timeline::INTERVAL) on a step's measured run): its report then has a timeline,
//! the measured window in intervals, which [`timeline`] reads into this crate's [`Timeline`];
//! the harness puts its answers and p99 beside its own readings in the run's timeline.

use loadgen::Report;
use serde::{Deserialize, Serialize};

use bench_model::results::{Errors, Latency, Run};
use bench_model::rules;

use super::{LoadSpec, Tool, ToolError, duration_arg, finite, header_args, us};

const T: Tool = Tool::Builtin;

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Vec<String> {
    let mut a = vec![url.to_string()];
    if spec.stages.is_empty() {
        a.extend(["-c".into(), spec.connections.to_string()]);
    } else {
        let stages: Vec<String> = spec
            .stages
            .iter()
            .map(|s| format!("{}:{}", duration_arg(s.duration), s.connections))
            .collect();
        a.extend(["--stages".into(), stages.join(",")]);
    }
    if let Some(d) = spec.duration {
        a.extend(["-d".into(), duration_arg(d)]);
    }
    if let Some(n) = spec.requests {
        a.extend(["-n".into(), n.to_string()]);
    }
    if let Some(rate) = spec.rate {
        a.extend(["-R".into(), rate.to_string()]);
    }
    a.extend(["--mode".into(), spec.mode.name().to_string()]);
    if spec.pipeline > 1 {
        a.extend(["-p".into(), spec.pipeline.to_string()]);
    }
    if let Some(t) = spec.timeout {
        a.extend(["--timeout".into(), duration_arg(t)]);
    }
    a.extend(header_args("-H", &spec.headers));
    if let Some(w) = spec.warmup {
        a.extend(["--warmup".into(), duration_arg(w)]);
    }
    // Its timeline, where the run asks for one and its window holds a whole interval.
    if let Some(i) = spec.timeline
        && spec.stages.is_empty()
        && spec.duration.is_some_and(|d| d >= i)
    {
        a.extend(["--interval".into(), duration_arg(i)]);
    }
    a.extend(["--json".into(), "--no-progress".into()]);
    a
}

/// The report in `stdout`, of loadgen's schema.
fn report(stdout: &str, stderr: &str) -> Result<Report, ToolError> {
    if stdout.trim().is_empty() {
        return Err(ToolError::missing(T, "JSON report", stderr));
    }
    let report: Report =
        serde_json::from_str(stdout).map_err(|e| ToolError::invalid(T, "the JSON report", e))?;
    if report.schema != loadgen::SCHEMA {
        return Err(ToolError::invalid(T, "the schema", report.schema));
    }
    Ok(report)
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    let report = report(stdout, stderr)?;
    let r = report.result;
    let e = r.errors;
    let l = &r.latency;
    let has = l.count > 0;
    // A report from before loadgen had p95 says 0 there: not a measurement.
    let p95 = (has && l.p95_us > 0).then_some(l.p95_us);
    let mut notes = Vec::new();
    if has && p95.is_none() {
        notes.push("this loadgen report has no p95".to_string());
    }
    // Every answer but a 2xx is a failed request; loadgen's own errors count 4xx and 5xx.
    let c = r.status;
    let unexpected = c.s1xx.saturating_add(c.s3xx);
    if unexpected > 0 {
        notes.push(format!(
            "loadgen: {unexpected} answers with a 1xx or 3xx status are counted as failed \
             (loadgen itself counts them as ok)"
        ));
    }
    let open = matches!(report.config.load, loadgen::Load::Open { .. });
    if open {
        notes.push(
            "loadgen -R: each worker thread has one schedule, and every request's latency runs \
             from its intended send time, however late it was sent (held up by the server, by a \
             busy connection or by the generator), so a stall counts in every request it \
             delayed; the latency from the actual send is kept beside it"
                .to_string(),
        );
    }
    let fell_behind = unsent(&r, &mut notes);
    if r.cpu.generator_bound {
        notes.push(format!(
            "loadgen was busy: a worker thread used {:.0} % of a CPU, so it may have set the pace",
            r.cpu.max_thread_utilisation * 100.0
        ));
    }
    Ok(Run {
        requests: r.requests,
        duration_s: finite(r.duration_s),
        requests_per_s: finite(r.requests_per_s),
        transfer_bytes_per_s: finite(r.transfer_per_s),
        bytes_per_response: finite(r.bytes_per_response),
        latency_us: Latency {
            mean: has.then_some(l.mean_us).filter(|m| m.is_finite()),
            p50: has.then_some(l.p50_us),
            p90: has.then_some(l.p90_us),
            p95,
            p99: has.then_some(l.p99_us),
            p999: has.then_some(l.p99_9_us),
            max: has.then_some(l.max_us).and_then(|m| us(m as f64)),
        },
        latency_uncorrected_us: r
            .latency_uncorrected
            .as_ref()
            .filter(|l| l.count > 0)
            .map(latency),
        errors: Errors {
            connect: e.connect,
            read: e.read,
            write: e.write,
            timeout: e.timeout,
            status: unexpected.saturating_add(c.s4xx).saturating_add(c.s5xx),
            other: e.framing,
        },
        // A generator that fell behind was busy (`rules::fell_behind`): bound already.
        tool_bound: r.cpu.generator_bound,
        tool_fell_behind: fell_behind,
        intended_requests: open.then_some(r.intended),
        unsent_requests: open.then_some(r.unsent),
        notes,
        ..Run::default()
    })
}

/// A run's measured window (after the warm-up) in intervals, as the built-in generator
/// reports it with `--interval`: where in the run a dip of a few seconds was, which the run's
/// one figure averages away, and whether the generator's own CPU moved with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// The interval asked for, seconds.
    pub interval_s: f64,
    /// In order from the start of the measured window: its length over `interval_s`, rounded
    /// up (the last one shorter when the interval does not divide the window).
    pub intervals: Vec<TimelineInterval>,
}

/// One interval of a [`Timeline`]. Its `responses` and `errors` add up over the timeline to
/// the run's answers and loadgen's own errors, its `intended` and `unsent` to the run's
/// [`Run::intended_requests`] and [`Run::unsent_requests`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineInterval {
    /// Its start, seconds from the start of the measured window.
    pub start_s: f64,
    /// Its length, seconds.
    pub duration_s: f64,
    /// Answers completed in it, any status.
    pub responses: u64,
    /// Failed requests in it as loadgen counts them: transport failures when they happened,
    /// 4xx and 5xx answers when they completed (a 1xx or 3xx answer, a failure in the run's
    /// [`Run::errors`], is not one here).
    pub errors: u64,
    /// Measured requests whose write began in it.
    pub sent: u64,
    /// The open model (`-R`): the requests due in it; `None` for a closed-loop run.
    pub intended: Option<u64>,
    /// The open model: of `intended`, those never sent; `None` for a closed-loop run.
    pub unsent: Option<u64>,
    /// The median latency of the answers completed in it, µs (from the intended send time in
    /// the open model, as the run's), within 3 %; `None` without answers.
    pub p50_us: Option<u64>,
    /// The 99th percentile, as `p50_us`.
    pub p99_us: Option<u64>,
    /// The largest latency, µs; `None` without answers.
    pub max_us: Option<u64>,
    /// The generator's CPU time in it, user and system, seconds, all its worker threads.
    pub tool_cpu_s: f64,
}

/// The timeline of the built-in generator's report in `stdout`: `None` for a run without
/// `--interval` (and every report from before it). The harness reads it beside the [`Run`]
/// this module's parser reads from the same report.
pub fn timeline(stdout: &str, stderr: &str) -> Result<Option<Timeline>, ToolError> {
    let Some(t) = report(stdout, stderr)?.result.timeline else {
        return Ok(None);
    };
    Ok(Some(Timeline {
        interval_s: finite(t.interval_s),
        intervals: t
            .intervals
            .into_iter()
            .map(|i| TimelineInterval {
                start_s: finite(i.start_s),
                duration_s: finite(i.duration_s),
                responses: i.responses,
                errors: i.errors,
                sent: i.sent,
                intended: i.due,
                unsent: i.unsent,
                p50_us: i.p50_us,
                p99_us: i.p99_us,
                max_us: i.max_us,
                tool_cpu_s: finite(i.cpu_s),
            })
            .collect(),
    }))
}

/// Whether the generator fell behind: more than [`rules::UNSENT_LIMIT`] of an open-model
/// run's due requests unsent while it was busy to its limit (its own measure of its busiest
/// thread: the harness measures it again and decides in its place, `step::add_tool_usage`).
/// Notes either cause of unsent requests ([`rules::fell_behind`]).
fn unsent(r: &loadgen::RunResult, notes: &mut Vec<String>) -> bool {
    let pct = r.unsent as f64 * 100.0 / r.intended.max(1) as f64;
    match rules::fell_behind(r.unsent, r.intended, r.cpu.generator_bound) {
        rules::Unsent::Few => false,
        rules::Unsent::Server => {
            notes.push(format!(
                "loadgen -R: {} of {} requests due ({pct:.1} %) were never sent while the \
                 generator had time to spare (its busiest thread at {:.0} %): every connection \
                 was waiting for an answer, so the server held them back",
                r.unsent,
                r.intended,
                r.cpu.max_thread_utilisation * 100.0
            ));
            false
        }
        rules::Unsent::Generator => {
            notes.push(format!(
                "loadgen fell behind: {} of {} requests due ({pct:.1} %) were never sent while \
                 its busiest thread was at {:.0} %, so it set the pace",
                r.unsent,
                r.intended,
                r.cpu.max_thread_utilisation * 100.0
            ));
            true
        }
    }
}

/// The open model's latency from the actual send (loadgen's `latency_uncorrected`).
fn latency(l: &loadgen::report::Latency) -> Latency {
    Latency {
        mean: Some(l.mean_us).filter(|m| m.is_finite()),
        p50: Some(l.p50_us),
        p90: Some(l.p90_us),
        p95: Some(l.p95_us).filter(|&p| p > 0),
        p99: Some(l.p99_us),
        p999: Some(l.p99_9_us),
        max: us(l.max_us as f64),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::tests::data;
    use crate::{LoadSpec, Mode};

    #[test]
    fn argv_is_exact() {
        let mut s = LoadSpec::keep_alive(50, Duration::from_secs(2));
        s.timeout = Some(Duration::from_millis(1500));
        s.warmup = Some(Duration::from_secs(1));
        s.mode = Mode::Http10KeepAlive;
        s.requests = Some(1000);
        s.headers.push(("Authorization".into(), "Bearer t".into()));
        s.timeline = Some(Duration::from_millis(500));
        let a = Tool::Builtin
            .argv(&s, "http://127.0.0.1:1/hello", Path::new("/t/loadgen"))
            .unwrap();
        assert_eq!(
            a.join(" "),
            "/t/loadgen http://127.0.0.1:1/hello -c 50 -d 2s -n 1000 --mode http1.0-keep-alive \
             --timeout 1500ms -H Authorization: Bearer t --warmup 1s --interval 500ms --json \
             --no-progress"
        );
        let mut p = LoadSpec::keep_alive(100, Duration::from_secs(5));
        p.pipeline = 16;
        p.timeline = Some(Duration::from_millis(500));
        let a = Tool::Builtin
            .argv(&p, "http://h:1/", Path::new("lg"))
            .unwrap();
        assert_eq!(
            a.join(" "),
            "lg http://h:1/ -c 100 -d 5s --mode keep-alive -p 16 --interval 500ms --json --no-progress"
        );
        let s = LoadSpec {
            duration: None,
            stages: loadgen::config::parse_stages("1m:100,2m:500,500ms:0").unwrap(),
            ..LoadSpec::keep_alive(1, Duration::from_secs(1))
        };
        let a = Tool::Builtin
            .argv(&s, "http://h:1/", Path::new("lg"))
            .unwrap();
        assert_eq!(
            a.join(" "),
            "lg http://h:1/ --stages 60s:100,120s:500,500ms:0 --mode keep-alive --json --no-progress"
        );
    }

    #[test]
    fn recorded_run() {
        let r = Tool::Builtin
            .parse(&data("loadgen-c50-keepalive.json"), "")
            .unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&data("loadgen-c50-keepalive.json")).unwrap();
        assert_eq!(r.requests, 168_996);
        assert_eq!(r.duration_s, 2.0);
        assert_eq!(r.requests_per_s, 84_498.0);
        assert_eq!(
            r.transfer_bytes_per_s,
            v["result"]["transfer_per_s"].as_f64().unwrap()
        );
        assert_eq!(r.bytes_per_response, 193_162_428.0 / 168_996.0);
        assert_eq!(r.latency_us.p50, v["result"]["latency"]["p50_us"].as_u64());
        assert_eq!(r.latency_us.p99, v["result"]["latency"]["p99_us"].as_u64());
        assert_eq!(r.latency_us.max, v["result"]["latency"]["max_us"].as_u64());
        // Recorded before loadgen reported p95: no p95, and a note says so.
        assert_eq!(r.latency_us.p95, None);
        assert!(
            r.notes.iter().any(|n| n.contains("no p95")),
            "{:?}",
            r.notes
        );
        assert_eq!(r.errors, Errors::default());
        // The same report with a p95, as loadgen writes it now.
        let mut v = v;
        v["result"]["latency"]["p95_us"] = serde_json::json!(1234);
        let r = Tool::Builtin.parse(&v.to_string(), "").unwrap();
        assert_eq!(r.latency_us.p95, Some(1234));
        assert!(!r.notes.iter().any(|n| n.contains("p95")), "{:?}", r.notes);
    }

    #[test]
    fn recorded_errors() {
        let r = Tool::Builtin
            .parse(&data("loadgen-c10-flaky.json"), "")
            .unwrap();
        assert_eq!(
            r.errors,
            Errors {
                read: 3347,
                status: 1913,
                ..Errors::default()
            }
        );
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md).
        let r = Tool::Builtin
            .parse(&data("loadgen-n400-c2-500.json"), "")
            .unwrap();
        assert_eq!(
            (r.requests, r.errors.status, r.errors.total()),
            (400, 400, 400)
        );
        // status500.py 50: 8 500s among 400.
        let r = Tool::Builtin
            .parse(&data("loadgen-n400-c2-every50.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (400, 8));
        // A 3xx (or 1xx) answer is not what any step asks for: a failure here, though
        // loadgen's own errors count 4xx and 5xx only (the same report, 8 500s made 302s).
        let mut v: serde_json::Value =
            serde_json::from_str(&data("loadgen-n400-c2-every50.json")).unwrap();
        v["result"]["status"]["s5xx"] = 0.into();
        v["result"]["status"]["s3xx"] = 8.into();
        v["result"]["errors"]["status_5xx"] = 0.into();
        let r = Tool::Builtin.parse(&v.to_string(), "").unwrap();
        assert_eq!((r.requests, r.errors.status), (400, 8));
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("8 answers with a 1xx or 3xx")),
            "{:?}",
            r.notes
        );
        // What loadgen cannot tell: its status counts are by class, so a 2xx other than 200
        // (a 204) is a success.
    }

    #[test]
    fn unsent_requests_are_the_tools_limit_only_when_the_generator_was_busy() {
        // -R 2000 -c 100, as recorded (its busiest thread at 25 %), but 100 of 4,000 requests
        // due never sent (2.5 %): the generator had time to spare, so every connection was
        // waiting for an answer and the server held them back: not the tool's limit.
        let mut v: serde_json::Value =
            serde_json::from_str(&data("loadgen-R2000-c100.json")).unwrap();
        v["result"]["intended"] = 4000.into();
        v["result"]["unsent"] = 100.into();
        let r = Tool::Builtin.parse(&v.to_string(), "").unwrap();
        assert!(!r.tool_bound && !r.tool_fell_behind, "{:?}", r.notes);
        assert_eq!(
            (r.unsent_requests, r.intended_requests),
            (Some(100), Some(4000))
        );
        assert!(
            r.notes.iter().any(|n| n.starts_with(
                "loadgen -R: 100 of 4000 requests due (2.5 %) were never sent while the generator \
                 had time to spare (its busiest thread at 25 %): every connection was waiting"
            )),
            "{:?}",
            r.notes
        );
        // The same with its busiest thread at 97 %: the generator fell behind, the tool's limit.
        v["result"]["cpu"]["max_thread_utilisation"] = 0.97.into();
        v["result"]["cpu"]["generator_bound"] = true.into();
        let r = Tool::Builtin.parse(&v.to_string(), "").unwrap();
        assert!(r.tool_bound && r.tool_fell_behind, "{:?}", r.notes);
        assert!(
            r.notes.iter().any(|n| n.starts_with(
                "loadgen fell behind: 100 of 4000 requests due (2.5 %) were never sent while its \
                 busiest thread was at 97 %"
            )),
            "{:?}",
            r.notes
        );
        // 1 % or less unsent is neither.
        v["result"]["unsent"] = 40.into();
        let r = Tool::Builtin.parse(&v.to_string(), "").unwrap();
        assert!(!r.tool_fell_behind && !r.notes.iter().any(|n| n.contains("never sent")));
        // Reports from before `unsent` have none.
        let r = Tool::Builtin
            .parse(&data("loadgen-R60000-c100-behind.json"), "")
            .unwrap();
        assert!(!r.tool_bound && !r.notes.iter().any(|n| n.contains("never sent")));
    }

    #[test]
    fn recorded_timeline() {
        // -t1 -c50 -d3s --interval 250ms (tests/data/README.md): 12 intervals of 0.25 s.
        let out = data("loadgen-c50-d3s-interval250ms.json");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let run = Tool::Builtin.parse(&out, "").unwrap();
        let t = timeline(&out, "").unwrap().expect("a timeline");
        assert_eq!(t.interval_s, 0.25);
        assert_eq!(t.intervals.len(), 12);
        let sum = |f: fn(&TimelineInterval) -> u64| t.intervals.iter().map(f).sum::<u64>();
        // Every request of the run was answered, in its interval.
        assert_eq!((sum(|i| i.responses), run.requests), (180_484, 180_484));
        assert_eq!((sum(|i| i.errors), run.errors.total()), (0, 0));
        let cpu: f64 = t.intervals.iter().map(|i| i.tool_cpu_s).sum();
        let run_cpu = &v["result"]["cpu"];
        let run_cpu = run_cpu["user_s"].as_f64().unwrap() + run_cpu["system_s"].as_f64().unwrap();
        assert!(cpu > 0.9 * run_cpu && cpu <= run_cpu, "{cpu} of {run_cpu}");
        for (n, i) in t.intervals.iter().enumerate() {
            assert_eq!((i.start_s, i.duration_s), (0.25 * n as f64, 0.25), "{i:?}");
            assert!(i.p50_us <= i.p99_us && i.p99_us <= i.max_us && i.p50_us > Some(0));
            assert!(i.max_us <= run.latency_us.max, "{i:?}");
            assert_eq!((i.intended, i.unsent), (None, None));
        }
        // Each field from its own place: the second interval as recorded.
        let second = &v["result"]["timeline"]["intervals"][1];
        assert_eq!(
            t.intervals[1],
            TimelineInterval {
                start_s: 0.25,
                duration_s: 0.25,
                responses: second["responses"].as_u64().unwrap(),
                errors: 0,
                sent: second["sent"].as_u64().unwrap(),
                intended: None,
                unsent: None,
                p50_us: second["p50_us"].as_u64(),
                p99_us: second["p99_us"].as_u64(),
                max_us: second["max_us"].as_u64(),
                tool_cpu_s: second["cpu_s"].as_f64().unwrap(),
            }
        );

        // The open model's: what was due in each interval, and unsent.
        let out = data("loadgen-R20000-c100-interval250ms.json");
        let run = Tool::Builtin.parse(&out, "").unwrap();
        let t = timeline(&out, "").unwrap().expect("a timeline");
        assert_eq!(t.intervals.len(), 8);
        assert!(t.intervals.iter().all(|i| i.intended == Some(5000)));
        let sum = |f: fn(&TimelineInterval) -> Option<u64>| {
            t.intervals.iter().map(|i| f(i).unwrap()).sum::<u64>()
        };
        assert_eq!(Some(sum(|i| i.intended)), run.intended_requests);
        assert_eq!(Some(sum(|i| i.unsent)), run.unsent_requests);

        // Reports without one: none.
        for name in ["loadgen-c50-keepalive.json", "loadgen-R2000-c100.json"] {
            assert_eq!(timeline(&data(name), ""), Ok(None), "{name}");
        }
        // Not a report, no timeline: the parser's errors.
        assert!(timeline("", "loadgen: connection refused").is_err());
        assert!(timeline("{", "").is_err());
        for input in crate::tests::garbage() {
            let _ = timeline(&input, "");
        }
    }

    #[test]
    fn failures() {
        let e = Tool::Builtin
            .parse("", "loadgen: connection refused\n")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "builtin's output has no JSON report (stderr: loadgen: connection refused)"
        );
        let other =
            data("loadgen-c50-keepalive.json").replace("loadgen.report/1", "loadgen.report/2");
        assert!(Tool::Builtin.parse(&other, "").is_err());
    }
}
