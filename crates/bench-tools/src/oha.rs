//! oha (1.16): `oha -n N | -z D -c N [-t T] [--disable-keepalive] [--http-version 1.0]
//! [-H …] --no-tui --output-format json URL`, and its JSON summary.
//!
//! The JSON's times are seconds. oha counts body bytes only (`totalData`, `sizePerRequest`),
//! not headers. With `-z`, requests in flight at the deadline are aborted and listed as
//! `"aborted due to deadline"` in `errorDistribution`: they are not errors of the server and
//! are left out (the run's notes give their number). Other errors are sorted by their
//! message: connect, timeout, read (closed, reset), write (broken pipe), else other.
//! oha's `-z` ignores `-n`, so a step gives one bound.
//!
//! Failures: oha's `successRate` counts transport errors only. Every answer, whatever its
//! status, is in `statusCodeDistribution`; any status but a 2xx is a status error here.
//! `requests` are the answers and the errors (not the requests aborted at the deadline).

use serde_json::Value;

use bench_model::results::{Errors, Latency, Run};

use super::{LoadSpec, Mode, Tool, ToolError, duration_arg, finite, header_args, us};

const T: Tool = Tool::Oha;

const DEADLINE: &str = "aborted due to deadline";

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Result<Vec<String>, ToolError> {
    let mut a = Vec::new();
    match (spec.duration, spec.requests) {
        (Some(d), None) => a.extend(["-z".into(), duration_arg(d)]),
        (None, Some(n)) => a.extend(["-n".into(), n.to_string()]),
        _ => {
            return Err(ToolError::unsupported(
                T,
                "give a duration (-z) or a request count (-n), not both: -z ignores -n",
            ));
        }
    }
    a.extend(["-c".into(), spec.connections.to_string()]);
    if let Some(rate) = spec.rate {
        a.extend(rate_args(rate));
    }
    if let Some(t) = spec.timeout {
        a.extend(["-t".into(), duration_arg(t)]);
    }
    match spec.mode {
        Mode::KeepAlive => {}
        Mode::Close => a.push("--disable-keepalive".into()),
        Mode::Http10 => {
            a.extend(["--http-version", "1.0", "--disable-keepalive"].map(String::from))
        }
        Mode::Http10KeepAlive => {
            return Err(ToolError::unsupported(
                T,
                "its HTTP/1.0 keep-alive is hyper's client, not ab's Connection: Keep-Alive; \
                 use ab -k or the built-in generator",
            ));
        }
    }
    a.extend(header_args("-H", &spec.headers));
    a.extend(["--no-tui", "--output-format", "json"].map(String::from));
    a.push(url.to_string());
    Ok(a)
}

/// An offered rate: `-q RATE --latency-correction` (oha's own schedule, each request's
/// latency from its scheduled start).
fn rate_args(rate: f64) -> [String; 3] {
    [
        "-q".to_string(),
        rate.to_string(),
        "--latency-correction".to_string(),
    ]
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    if stdout.trim().is_empty() {
        return Err(ToolError::missing(T, "JSON summary", stderr));
    }
    let doc: Value =
        serde_json::from_str(stdout).map_err(|e| ToolError::invalid(T, "the JSON summary", e))?;
    let summary = doc
        .get("summary")
        .filter(|s| s.is_object())
        .ok_or_else(|| ToolError::missing(T, "\"summary\" object", stderr))?;
    let num = |v: &Value, key: &str| v.get(key).and_then(Value::as_f64).filter(|x| x.is_finite());
    let total =
        num(summary, "total").ok_or_else(|| ToolError::missing(T, "summary.total", stderr))?;
    let counts = |key: &str| -> Vec<(String, u64)> {
        doc.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let statuses = counts("statusCodeDistribution");
    let responses: u64 = statuses
        .iter()
        .map(|(_, n)| n)
        .fold(0, |a, n| a.saturating_add(*n));
    let mut errors = Errors {
        status: statuses
            .iter()
            .filter(|(code, _)| !code.parse::<u16>().is_ok_and(|c| (200..300).contains(&c)))
            .map(|(_, n)| n)
            .fold(0, |a, n| a.saturating_add(*n)),
        ..Errors::default()
    };
    let mut notes = vec![
        "oha: transfer and bytes per response count bodies only".to_string(),
        "oha: requests/s counts responses and errors, not requests aborted at the deadline"
            .to_string(),
    ];
    for (message, n) in counts("errorDistribution") {
        let m = message.to_ascii_lowercase();
        let slot = if m.contains(DEADLINE) {
            notes.push(format!(
                "oha: {n} requests in flight were aborted at the deadline"
            ));
            continue;
        } else if [
            "refused",
            "trying to connect",
            "connect error",
            "tcp connect",
            "connect timeout",
        ]
        .iter()
        .any(|w| m.contains(w))
        {
            &mut errors.connect
        } else if m.contains("timeout") || m.contains("timed out") {
            &mut errors.timeout
        } else if m.contains("broken pipe") || m.contains("write") {
            &mut errors.write
        } else if m.contains("closed") || m.contains("reset") || m.contains("eof") {
            &mut errors.read
        } else {
            &mut errors.other
        };
        *slot = slot.saturating_add(n);
    }
    let transport = errors.connect + errors.timeout + errors.write + errors.read + errors.other;
    let requests = responses.saturating_add(transport);
    let pct = |key: &str| {
        doc.get("latencyPercentiles")
            .and_then(|p| num(p, key))
            .and_then(|s| us(s * 1e6))
    };
    let has = responses > 0;
    Ok(Run {
        requests,
        duration_s: total,
        requests_per_s: if total > 0.0 {
            requests as f64 / total
        } else {
            0.0
        },
        transfer_bytes_per_s: finite(num(summary, "sizePerSec").unwrap_or(0.0)),
        bytes_per_response: num(summary, "sizePerRequest").unwrap_or(0.0),
        latency_us: Latency {
            mean: num(summary, "average").filter(|_| has).map(|s| s * 1e6),
            p50: pct("p50"),
            p90: pct("p90"),
            p95: pct("p95"),
            p99: pct("p99"),
            p999: pct("p99.9"),
            max: num(summary, "slowest")
                .filter(|_| has)
                .and_then(|s| us(s * 1e6)),
        },
        errors,
        notes,
        ..Run::default()
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::tests::{bare, data};

    #[test]
    fn argv_is_exact() {
        let mut s = LoadSpec::keep_alive(100, Duration::from_secs(10));
        s.timeout = Some(Duration::from_secs(60));
        let a = bare(Tool::Oha, &s, "http://127.0.0.1:8080/", Path::new("")).unwrap();
        assert_eq!(
            a.join(" "),
            "oha -z 10s -c 100 -t 60s --no-tui --output-format json http://127.0.0.1:8080/"
        );
        s.duration = None;
        s.requests = Some(50_000);
        s.timeout = None;
        s.mode = Mode::Http10;
        let a = bare(Tool::Oha, &s, "http://h:1/", Path::new("")).unwrap();
        assert_eq!(
            a.join(" "),
            "oha -n 50000 -c 100 --http-version 1.0 --disable-keepalive --no-tui --output-format json http://h:1/"
        );
        s.duration = Some(Duration::from_secs(1));
        assert!(bare(Tool::Oha, &s, "http://h:1/", Path::new("")).is_err());
        s.duration = None;
        s.mode = Mode::Http10KeepAlive;
        assert!(bare(Tool::Oha, &s, "http://h:1/", Path::new("")).is_err());
    }

    #[test]
    fn recorded_timed_run() {
        let r = Tool::Oha.parse(&data("oha-z2s-c50.json"), "").unwrap();
        assert_eq!(r.requests, 220_875);
        assert_eq!(r.duration_s, 2.003451943);
        assert!((r.requests_per_s - 220_875.0 / 2.003451943).abs() < 1e-6);
        assert_eq!(r.bytes_per_response, 1024.0);
        assert_eq!(r.latency_us.p50, Some(335));
        assert_eq!(r.latency_us.p95, Some(957));
        assert_eq!(r.latency_us.p99, Some(1381));
        assert_eq!(r.latency_us.max, Some(9129));
        assert_eq!(r.errors, Errors::default());
        assert!(
            r.notes
                .iter()
                .any(|n| n == "oha: 43 requests in flight were aborted at the deadline")
        );
    }

    #[test]
    fn recorded_errors() {
        let r = Tool::Oha
            .parse(&data("oha-n2000-c10-404.json"), "")
            .unwrap();
        assert_eq!(
            (r.requests, r.errors.status, r.errors.total()),
            (2000, 2000, 2000)
        );
        let r = Tool::Oha
            .parse(&data("oha-n1000-c10-flaky.json"), "")
            .unwrap();
        assert_eq!(
            r.errors,
            Errors {
                read: 200,
                status: 114,
                ..Errors::default()
            }
        );
        assert_eq!(r.requests, 1000);
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md): oha's own successRate
        // is 1.0 (no transport error); its status code distribution has the 500s.
        let r = Tool::Oha.parse(&data("oha-n400-c2-500.json"), "").unwrap();
        assert_eq!(
            (r.requests, r.errors.status, r.errors.total()),
            (400, 400, 400)
        );
        // status500.py 50: 8 500s among 400.
        let r = Tool::Oha
            .parse(&data("oha-n400-c2-every50.json"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.total()), (400, 8));
        // A 3xx is not what any step asks for: a failure; a 2xx is not (the same output with
        // 5 of the 200s made 302s and 3 made 204s, the 500s 200s).
        let mut v: serde_json::Value =
            serde_json::from_str(&data("oha-n400-c2-every50.json")).unwrap();
        v["statusCodeDistribution"] = serde_json::json!({"200": 392, "302": 5, "204": 3});
        let r = Tool::Oha.parse(&v.to_string(), "").unwrap();
        assert_eq!((r.requests, r.errors.status), (400, 5));
        // What oha cannot tell: it follows up to 10 redirects (its default `--redirect`), so
        // a 3xx with a location is the status of where it led.
    }

    #[test]
    fn failures() {
        let e = Tool::Oha
            .parse("", "Error: connection refused")
            .unwrap_err();
        assert!(e.to_string().contains("connection refused"), "{e}");
        assert!(Tool::Oha.parse("{\"summary\": {}}", "").is_err());
        // Messages are sorted by meaning, not by the substring "connect" in "connection".
        let doc = r#"{"summary": {"total": 1.0}, "statusCodeDistribution": {},
            "errorDistribution": {"error trying to connect: tcp connect error: Connection refused (os error 111)": 3,
            "connection closed before message completed": 4, "operation timed out": 5,
            "broken pipe": 6, "something else": 7}}"#;
        let r = Tool::Oha.parse(doc, "").unwrap();
        assert_eq!(
            r.errors,
            Errors {
                connect: 3,
                read: 4,
                timeout: 5,
                write: 6,
                other: 7,
                status: 0
            }
        );
        assert_eq!((r.requests, r.latency_us.mean), (25, None));
    }
}
