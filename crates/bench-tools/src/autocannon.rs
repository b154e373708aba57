//! autocannon (E4's tool, Node.js): `autocannon -c N -d S [-t T] [-H Name=Value …] --json
//! --no-progress URL`, and its `--json` result.
//!
//! It applies keep-alive HTTP/1.1 connections for a duration, with headers; it has no
//! HTTP/1.0, no connection-per-request mode, no ramp, and its request count (`-a`) is not
//! used (a step with a count is refused). Headers go as `Name=Value`: autocannon splits at
//! the first `:` or `=` and keeps the rest as it is, so `Name: Value` would send the space.
//!
//! Its result: `requests.total` responses (of `requests.sent` sent), `duration` seconds,
//! latency in whole milliseconds (p50, p90, p99 and the mean; no p95, its nearest is p97.5),
//! `throughput.total` bytes, `errors` (socket errors and timeouts together) and `timeouts`,
//! `non2xx` and `mismatches`. A request sent on a connection the server closed unanswered is
//! not counted as an error by autocannon: it is `sent - total - errors`, less the requests
//! still in flight at the end (at most one per connection and pipelined slot).

use serde::Deserialize;

use bench_model::results::{Errors, Latency, Run};

use super::{LoadSpec, Mode, Tool, ToolError, finite, us, whole_secs};

const T: Tool = Tool::Autocannon;

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Result<Vec<String>, ToolError> {
    match spec.mode {
        Mode::KeepAlive => {}
        Mode::Close => {
            return Err(ToolError::unsupported(
                T,
                "it always keeps connections alive (no connection per request)",
            ));
        }
        Mode::Http10 | Mode::Http10KeepAlive => {
            return Err(ToolError::unsupported(
                T,
                "it sends HTTP/1.1 only, not HTTP/1.0",
            ));
        }
    }
    if spec.requests.is_some() {
        return Err(ToolError::unsupported(
            T,
            "it runs for a duration here, not for a request count",
        ));
    }
    let Some(d) = spec.duration else {
        return Err(ToolError::unsupported(T, "the step has no duration"));
    };
    let mut a = vec![
        "-c".to_string(),
        spec.connections.to_string(),
        "-d".to_string(),
        seconds(d),
    ];
    if let Some(t) = spec.timeout {
        a.extend(["-t".to_string(), whole_secs(T, "-t", t)?.to_string()]);
    }
    for (n, v) in &spec.headers {
        if n.contains([':', '=']) {
            return Err(ToolError::unsupported(
                T,
                format!("a header name with ':' or '=' ({n:?})"),
            ));
        }
        a.extend(["-H".to_string(), format!("{n}={v}")]);
    }
    a.extend(["--json".to_string(), "--no-progress".to_string()]);
    a.push(url.to_string());
    Ok(a)
}

/// A duration as autocannon's `-d` seconds (`2`, `1.5`).
fn seconds(d: std::time::Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[derive(Deserialize)]
struct Result_ {
    connections: Option<u64>,
    pipelining: Option<u64>,
    duration: f64,
    errors: u64,
    timeouts: u64,
    #[serde(default)]
    mismatches: u64,
    #[serde(default)]
    non2xx: u64,
    latency: Hist,
    requests: Hist,
    throughput: Hist,
}

#[derive(Deserialize)]
struct Hist {
    mean: Option<f64>,
    max: Option<f64>,
    p50: Option<f64>,
    p90: Option<f64>,
    p99: Option<f64>,
    total: Option<f64>,
    sent: Option<f64>,
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    // The result is the last JSON line (autocannon --json is newline-delimited).
    let line = stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| ToolError::missing(T, "JSON result", stderr))?;
    let r: Result_ =
        serde_json::from_str(line).map_err(|e| ToolError::invalid(T, "the JSON result", e))?;
    let count = |x: Option<f64>| {
        x.filter(|v| v.is_finite() && *v >= 0.0 && *v <= u64::MAX as f64)
            .map(|v| v as u64)
    };
    let answered =
        count(r.requests.total).ok_or_else(|| ToolError::missing(T, "requests.total", stderr))?;
    let sent = count(r.requests.sent).unwrap_or(answered);
    let in_flight = r.connections.unwrap_or(0) * r.pipelining.unwrap_or(1).max(1);
    let unanswered = sent
        .saturating_sub(answered)
        .saturating_sub(r.errors)
        .saturating_sub(in_flight);
    let socket = r.errors.saturating_sub(r.timeouts);
    let requests = answered.saturating_add(r.errors).saturating_add(unanswered);
    let duration_s = finite(r.duration).max(0.0);
    let per_s = |n: f64| {
        if duration_s > 0.0 {
            finite(n / duration_s)
        } else {
            0.0
        }
    };
    let bytes = r.throughput.total.map_or(0.0, finite);
    let ms = |v: Option<f64>| v.and_then(|v| us(v * 1000.0));
    let has = answered > 0;
    Ok(Run {
        requests,
        duration_s,
        requests_per_s: per_s(answered as f64),
        transfer_bytes_per_s: per_s(bytes),
        bytes_per_response: if has {
            finite(bytes / answered as f64)
        } else {
            0.0
        },
        latency_us: Latency {
            mean: r
                .latency
                .mean
                .filter(|m| has && m.is_finite())
                .map(|m| m * 1000.0),
            p50: ms(r.latency.p50.filter(|_| has)),
            p90: ms(r.latency.p90.filter(|_| has)),
            p95: None,
            p99: ms(r.latency.p99.filter(|_| has)),
            p999: None,
            max: ms(r.latency.max.filter(|_| has)),
        },
        errors: Errors {
            read: socket,
            timeout: r.timeouts,
            status: r.non2xx,
            other: r.mismatches.saturating_add(unanswered),
            ..Errors::default()
        },
        notes: vec![
            "autocannon: latencies are whole milliseconds, and it reports no p95".to_string(),
            "autocannon: requests/s is the responses over its measured duration; socket errors \
             (refused, reset) are one count, shown as read errors; requests sent on a connection \
             closed unanswered count as other errors"
                .to_string(),
        ],
        ..Run::default()
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::tests::data;

    #[test]
    fn argv_is_exact() {
        let mut s = LoadSpec::keep_alive(100, Duration::from_secs(20));
        s.timeout = Some(Duration::from_secs(10));
        s.headers
            .push(("Authorization".into(), "Bearer bench-token".into()));
        let a = Tool::Autocannon
            .argv(&s, "http://127.0.0.1:8080/api/private", Path::new(""))
            .unwrap();
        assert_eq!(
            &a[1..],
            [
                "-c",
                "100",
                "-d",
                "20",
                "-t",
                "10",
                "-H",
                "Authorization=Bearer bench-token",
                "--json",
                "--no-progress",
                "http://127.0.0.1:8080/api/private",
            ]
        );
        assert!(a[0].ends_with("autocannon"), "{a:?}");
        s.duration = Some(Duration::from_millis(1500));
        let a = Tool::Autocannon
            .argv(&s, "http://h:1/", Path::new(""))
            .unwrap();
        assert_eq!(a[4], "1.5");
        // What it cannot apply exactly.
        let refused = |s: &LoadSpec| {
            Tool::Autocannon
                .argv(s, "http://h:1/", Path::new(""))
                .unwrap_err()
                .to_string()
        };
        for (mode, why) in [
            (Mode::Http10, "HTTP/1.1 only"),
            (Mode::Http10KeepAlive, "HTTP/1.1 only"),
            (Mode::Close, "always keeps connections alive"),
        ] {
            let s = LoadSpec { mode, ..s.clone() };
            assert!(refused(&s).contains(why), "{mode:?}");
        }
        let counted = LoadSpec {
            duration: None,
            requests: Some(1000),
            ..s.clone()
        };
        assert!(refused(&counted).contains("not for a request count"));
        let odd = LoadSpec {
            timeout: Some(Duration::from_millis(500)),
            ..s.clone()
        };
        assert!(refused(&odd).contains("whole seconds"));
    }

    #[test]
    fn recorded_keepalive_run() {
        // autocannon 9.0.0 -c 50 -d 2 -t 10 --json -n URL/ (server-prebuilt).
        let r = Tool::Autocannon
            .parse(&data("autocannon-c50-d2.json"), "")
            .unwrap();
        assert_eq!(r.requests, 64_407);
        assert_eq!(r.duration_s, 2.03);
        assert!((r.requests_per_s - 64_407.0 / 2.03).abs() < 1e-6);
        assert_eq!(r.bytes_per_response, 73_617_201.0 / 64_407.0);
        assert_eq!(r.latency_us.mean, Some(840.0));
        assert_eq!(
            (r.latency_us.p50, r.latency_us.p90, r.latency_us.p99),
            (Some(0), Some(3000), Some(9000))
        );
        assert_eq!((r.latency_us.p95, r.latency_us.max), (None, Some(31_000)));
        assert_eq!(
            r.errors.total(),
            0,
            "50 in flight at the end are not errors"
        );
    }

    #[test]
    fn recorded_errors() {
        // Every answer a 404.
        let r = Tool::Autocannon
            .parse(&data("autocannon-c10-d1-404.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.status), (25_130, 25_130));
        // The header run: every answer a 200.
        let r = Tool::Autocannon
            .parse(&data("autocannon-c10-d1-private.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (20_708, 0));
        // flaky.py: every 5th request dropped unanswered, every 7th a 500.
        let r = Tool::Autocannon
            .parse(&data("autocannon-c10-d1-flaky.json"), "")
            .unwrap();
        assert_eq!(r.errors.status, 660);
        assert_eq!(r.errors.other, 5787 - 4622 - 10);
        assert_eq!(r.requests, 4622 + 1155);
        // Nothing listening: socket errors only, and no answer.
        let r = Tool::Autocannon
            .parse(&data("autocannon-refused.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.read), (9170, 9170));
        assert!(bench_model::rules::failed(Tool::Autocannon.name(), &r).is_some());
        let e = Tool::Autocannon
            .parse("", "Error: connect ECONNREFUSED")
            .unwrap_err();
        assert!(e.to_string().contains("ECONNREFUSED"), "{e}");
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md): 305 answers of 307
        // sent, the 2 others in flight at the end.
        let r = Tool::Autocannon
            .parse(&data("autocannon-c2-d1-500.json"), "")
            .unwrap();
        assert_eq!(
            (r.requests, r.errors.status, r.errors.total()),
            (305, 305, 305)
        );
        // status500.py 50: 6 500s among 318 answers.
        let r = Tool::Autocannon
            .parse(&data("autocannon-c2-d1-every50.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (318, 6));
        // What autocannon cannot tell: its non2xx is any answer but a 2xx (a 204 is a
        // success); a request sent on a connection closed unanswered is no error of its own
        // (counted here from sent - total, less one per connection in flight).
    }
}
