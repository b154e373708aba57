//! ApacheBench 2.3: `ab [-k] -n N [-t S] -c N [-s T] [-H …] URL` and its text report (whether a
//! server honours ab's keep-alive is asked of the server itself: `bench`'s `step::answer`).
//!
//! ab speaks HTTP/1.0 only: a new connection per request, or with `-k` HTTP/1.0 keep-alive
//! (`Connection: Keep-Alive`), which a server honours only by answering
//! `connection: keep-alive` with a length. Its latency table is in whole milliseconds, and
//! its "Time per request (mean)" is concurrency × elapsed ÷ requests, not a measured mean;
//! both are said in the run's notes. "Kbytes" are 1,024 bytes.
//!
//! Failures: "Complete requests" counts answers whatever their status, and requests closed
//! unanswered; "Non-2xx responses" (`errors.status`) any answer but a 2xx; "Failed requests"
//! its own kinds: Connect (`errors.connect`) and Exceptions (`errors.other`), which are not
//! among the complete requests and are added to `requests`; Receive (`errors.read`; without
//! `-r` ab stops at the first); and Length, an answer (or a close) whose body length differs
//! from the first answer's. A non-2xx answer with another length than the first answer's
//! is in both counts, so Length failures beyond the non-2xx answers land in `errors.other`
//! and the rest are taken to be those answers; the run's notes say so.

use bench_model::results::{Errors, Latency, Run};

use super::{LoadSpec, Mode, Tool, ToolError, finite, header_args, us, whole_secs};

const T: Tool = Tool::Ab;

/// ab allocates a record per request up front; with `-t` and no `-n` it stops at 50,000
/// requests. This is the `-n` given with a duration-only step instead: high enough not to
/// end a loopback run of minutes early, low enough to allocate lazily.
const AB_TIMED_REQUESTS: u64 = 10_000_000;

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Result<Vec<String>, ToolError> {
    let mut a = Vec::new();
    match spec.mode {
        Mode::Http10 => {}
        Mode::Http10KeepAlive => a.push("-k".to_string()),
        Mode::KeepAlive => {
            return Err(ToolError::unsupported(
                T,
                "it speaks HTTP/1.0 only; use mode http1.0-keep-alive (ab -k)",
            ));
        }
        Mode::Close => {
            return Err(ToolError::unsupported(
                T,
                "it speaks HTTP/1.0 only; use mode http1.0 (a new connection per request)",
            ));
        }
    }
    // ab reads -n after -t, so that -n caps a timed run.
    if let Some(d) = spec.duration {
        a.extend(["-t".to_string(), whole_secs(T, "-t", d)?.to_string()]);
    }
    let n = spec.requests.unwrap_or(AB_TIMED_REQUESTS);
    if n < spec.connections as u64 {
        return Err(ToolError::unsupported(
            T,
            format!("-c {} is more than -n {n} requests", spec.connections),
        ));
    }
    a.extend(["-n".to_string(), n.to_string()]);
    a.extend(["-c".to_string(), spec.connections.to_string()]);
    if let Some(t) = spec.timeout {
        a.extend(["-s".to_string(), whole_secs(T, "-s", t)?.to_string()]);
    }
    a.extend(header_args("-H", &spec.headers));
    // ab refuses a URL without a path.
    let authority_end = url["http://".len()..].find('/');
    a.push(match authority_end {
        Some(_) => url.to_string(),
        None => format!("{url}/"),
    });
    Ok(a)
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    let missing = |what| ToolError::missing(T, what, stderr);
    let invalid = |what, text: &str| ToolError::invalid(T, what, text);
    let value = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
    };
    let first_word = |key: &'static str| -> Result<Option<&str>, ToolError> {
        Ok(value(key).map(|v| v.split_whitespace().next().unwrap_or("")))
    };
    let int = |key: &'static str| -> Result<Option<u64>, ToolError> {
        first_word(key)?
            .map(|v| v.parse::<u64>().map_err(|_| invalid(key, v)))
            .transpose()
    };
    let float = |key: &'static str| -> Result<Option<f64>, ToolError> {
        first_word(key)?
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| invalid(key, v))
            })
            .transpose()
    };

    let requests =
        int("Complete requests:")?.ok_or_else(|| missing("\"Complete requests\" line"))?;
    let duration_s =
        float("Time taken for tests:")?.ok_or_else(|| missing("\"Time taken for tests\""))?;
    let requests_per_s =
        float("Requests per second:")?.ok_or_else(|| missing("\"Requests per second\" line"))?;
    let kbytes = float("Transfer rate:")?.ok_or_else(|| missing("\"Transfer rate\" line"))?;
    let total = int("Total transferred:")?.unwrap_or(0);
    // The first "Time per request" line is the per-request one; the second is across all
    // concurrent requests.
    let mean_ms = float("Time per request:")?;

    let mut errors = Errors {
        status: int("Non-2xx responses:")?.unwrap_or(0),
        ..Errors::default()
    };
    let failed = int("Failed requests:")?.unwrap_or(0);
    let mut notes = vec![
        "ab: latency percentiles in whole milliseconds".to_string(),
        "ab: mean latency is \"Time per request\" (concurrency × elapsed ÷ requests)".to_string(),
    ];
    // Failed requests that are not among the complete ones (a connect that failed).
    let mut unanswered = 0u64;
    if failed > 0 {
        // "   (Connect: 0, Receive: 0, Length: 300, Exceptions: 0)"
        let detail = stdout
            .lines()
            .find(|l| l.trim_start().starts_with("(Connect:"))
            .ok_or_else(|| missing("breakdown of the failed requests"))?;
        let inner = detail.trim().trim_start_matches('(').trim_end_matches(')');
        let mut length = 0u64;
        for part in inner.split(',') {
            let (k, v) = part
                .split_once(':')
                .ok_or_else(|| invalid("the failed requests", detail))?;
            let n: u64 = v
                .trim()
                .parse()
                .map_err(|_| invalid("the failed requests", detail))?;
            let slot = match k.trim() {
                "Connect" => {
                    unanswered = unanswered.saturating_add(n);
                    &mut errors.connect
                }
                "Receive" => &mut errors.read,
                "Length" => &mut length,
                "Exceptions" => {
                    unanswered = unanswered.saturating_add(n);
                    &mut errors.other
                }
                _ => &mut errors.other,
            };
            *slot = slot.saturating_add(n);
        }
        if length > 0 {
            // A non-2xx answer whose body is not as long as the first answer's is in both
            // counts: taken as the same requests as far as they go.
            let both = length.min(errors.status);
            errors.other = errors.other.saturating_add(length - both);
            let overlap = if both > 0 {
                format!(
                    ", {both} of them taken to be its {} non-2xx responses (ab counts those \
                     twice)",
                    errors.status
                )
            } else {
                String::new()
            };
            notes.push(format!(
                "ab: {length} responses counted failed for a length other than the first \
                 response's (\"Length\"){overlap}"
            ));
        }
    }
    if let Some(ka) = int("Keep-Alive requests:")?
        && ka < requests
    {
        notes.push(format!(
            "ab -k: only {ka} of {requests} requests reused a connection"
        ));
    }

    // "Percentage of the requests served within a certain time (ms)", then "  50%      1" …
    // " 100%      4 (longest request)".
    let pct = |p: &str| {
        let key = format!("{p}%");
        stdout
            .lines()
            .skip_while(|l| !l.starts_with("Percentage of the requests served"))
            .skip(1)
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(key.as_str())).then(|| w.next()).flatten()
            })
            .and_then(|ms| ms.parse::<u64>().ok())
            .and_then(|ms| ms.checked_mul(1000))
    };

    Ok(Run {
        requests: requests.saturating_add(unanswered),
        duration_s,
        requests_per_s,
        transfer_bytes_per_s: finite(kbytes * 1024.0),
        bytes_per_response: if requests == 0 {
            0.0
        } else {
            total as f64 / requests as f64
        },
        latency_us: Latency {
            mean: mean_ms.and_then(|m| us(m * 1000.0)).map(|m| m as f64),
            p50: pct("50"),
            p90: pct("90"),
            p95: pct("95"),
            p99: pct("99"),
            p999: None,
            max: pct("100"),
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

    fn spec(mode: Mode) -> LoadSpec {
        LoadSpec {
            connections: 100,
            duration: None,
            requests: Some(10_000),
            mode,
            timeout: None,
            headers: vec![],
            pipeline: 1,
            warmup: None,
            stages: vec![],
            rate: None,
            timeline: None,
        }
    }

    #[test]
    fn argv_is_exact() {
        let a = |s: &LoadSpec, url| bare(Tool::Ab, s, url, Path::new("")).map(|a| a.join(" "));
        assert_eq!(
            a(
                &spec(Mode::Http10),
                "http://127.0.0.1:8080/api?name=a&lastname=b"
            )
            .unwrap(),
            "ab -n 10000 -c 100 http://127.0.0.1:8080/api?name=a&lastname=b"
        );
        let mut s = spec(Mode::Http10KeepAlive);
        s.timeout = Some(Duration::from_secs(30));
        assert_eq!(
            a(&s, "http://127.0.0.1:8080").unwrap(),
            "ab -k -n 10000 -c 100 -s 30 http://127.0.0.1:8080/"
        );
        s.duration = Some(Duration::from_secs(10));
        s.requests = None;
        assert_eq!(
            a(&s, "http://h:1/").unwrap(),
            "ab -k -t 10 -n 10000000 -c 100 -s 30 http://h:1/"
        );
        let e = bare(
            Tool::Ab,
            &spec(Mode::KeepAlive),
            "http://h:1/",
            Path::new(""),
        )
        .unwrap_err();
        assert!(
            e.unsupported_reason().unwrap().contains("HTTP/1.0 only"),
            "{e}"
        );
        assert!(bare(Tool::Ab, &spec(Mode::Close), "http://h:1/", Path::new("")).is_err());
        let mut s = spec(Mode::Http10);
        s.requests = Some(10);
        assert!(bare(Tool::Ab, &s, "http://h:1/", Path::new("")).is_err());
    }

    #[test]
    fn recorded_http10_run() {
        let r = Tool::Ab.parse(&data("ab-n2000-c10.txt"), "").unwrap();
        assert_eq!(r.requests, 2000);
        assert_eq!(r.duration_s, 0.183);
        assert_eq!(r.requests_per_s, 10_929.02);
        assert!((r.transfer_bytes_per_s - 1579.59 * 1024.0).abs() < 0.01);
        assert_eq!(r.bytes_per_response, 148.0);
        assert_eq!(r.latency_us.mean, Some(915.0));
        assert_eq!(
            (
                r.latency_us.p50,
                r.latency_us.p90,
                r.latency_us.p95,
                r.latency_us.p99
            ),
            (Some(0), Some(1000), Some(5000), Some(9000))
        );
        assert_eq!(r.latency_us.max, Some(24_000));
        assert_eq!(r.errors, Errors::default());
        assert!(r.notes.iter().any(|n| n.contains("whole milliseconds")));
        assert!(!r.notes.iter().any(|n| n.contains("ab -k")));
    }

    #[test]
    fn recorded_keep_alive_run() {
        let r = Tool::Ab.parse(&data("ab-k-n2000-c10.txt"), "").unwrap();
        assert_eq!(r.requests, 2000);
        assert_eq!(r.requests_per_s, 56_284.12);
        assert_eq!(r.bytes_per_response, 153.0);
        assert_eq!(r.latency_us.max, Some(8000));
        assert!(!r.notes.iter().any(|n| n.contains("reused")));
        // The same output with fewer keep-alive requests says so.
        let fewer = data("ab-k-n2000-c10.txt")
            .replace("Keep-Alive requests:    2000", "Keep-Alive requests:    0");
        let r = Tool::Ab.parse(&fewer, "").unwrap();
        assert!(
            r.notes.iter().any(|n| n.contains("only 0 of 2000")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn recorded_errors() {
        let r = Tool::Ab.parse(&data("ab-n1000-c10-404.txt"), "").unwrap();
        assert_eq!(r.errors.status, 1000);
        assert_eq!(r.errors.total(), 1000);

        let r = Tool::Ab.parse(&data("ab-n500-c10-flaky.txt"), "").unwrap();
        assert_eq!(
            r.errors,
            Errors {
                status: 57,
                other: 300 - 57,
                ..Errors::default()
            }
        );
        assert!(
            r.notes.iter().any(|n| n.contains("300 responses")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md), with and without -k: ab
        // counts each in "Complete requests" and in "Non-2xx responses".
        for sample in ["ab-k-n400-c2-500.txt", "ab-n400-c2-500.txt"] {
            let r = Tool::Ab.parse(&data(sample), "").unwrap();
            assert_eq!(
                (r.requests, r.errors.status, r.errors.total()),
                (400, 400, 400),
                "{sample}"
            );
        }
        // status500.py 50: 8 of the 400 answers a 500 with an empty body, which ab counts
        // twice: as non-2xx, and as "Length" failures (a length other than the first
        // answer's 2 bytes). They are 8 failed requests, not 16.
        let r = Tool::Ab
            .parse(&data("ab-k-n400-c2-every50.txt"), "")
            .unwrap();
        assert_eq!((r.requests, r.errors.status, r.errors.total()), (400, 8, 8));
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("8 responses") && n.contains("taken to be its 8 non-2xx")),
            "{:?}",
            r.notes
        );
        // Connect and Exceptions failures are not among the complete requests (edited from
        // the same output; ab stops after ten failed connects).
        let edited = data("ab-k-n400-c2-every50.txt").replace(
            "(Connect: 0, Receive: 0, Length: 8, Exceptions: 0)",
            "(Connect: 2, Receive: 0, Length: 8, Exceptions: 1)",
        );
        let r = Tool::Ab.parse(&edited, "").unwrap();
        assert_eq!(
            (
                r.requests,
                r.errors.connect,
                r.errors.other,
                r.errors.total()
            ),
            (403, 2, 1, 11)
        );
        // What ab cannot tell: which requests its "Length" failures are. When they and the
        // non-2xx answers are not the same requests (an error body as long as the first
        // answer's; or the first answer an error, so that every success differs from it),
        // the count above is too low, or, in the second case, every success is a failure.
        // Any 2xx is a success.
    }

    #[test]
    fn a_failed_run_is_an_error_naming_stderr() {
        let e = Tool::Ab
            .parse(
                &data("ab-refused.stdout.txt"),
                &data("ab-refused.stderr.txt"),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ab's output has no \"Complete requests\" line (stderr: apr_socket_recv: \
             Connection refused (111))"
        );
    }
}
