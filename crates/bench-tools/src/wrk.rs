//! wrk 4: `wrk -t1 -cN -dDs [--timeout Ts] [-H …] --latency [-s scripts/wrk/pipeline.lua] URL
//! [-- DEPTH]`, and its text summary.
//!
//! wrk keeps connections alive and runs for a duration; it has no request count, no
//! new-connection-per-request mode and no HTTP/1.0. It pipelines through a Lua script, the one
//! TechEmpower's plaintext test uses (`scripts/wrk/pipeline.lua`); with it, wrk records one
//! latency per batch, not per request, and its percentile table is wrong, so a pipelined run
//! reports no latency ([`super::pipelined`]). Its units are binary (`KB` = 1024
//! bytes) for sizes and `us`/`ms`/`s`/`m`/`h` for times. `--latency` prints p50, p75, p90
//! and p99: there is no p95.
//!
//! Failures: "N requests" counts answers, whatever their status; a status above 399 is also
//! counted in "Non-2xx or 3xx responses" (`errors.status`: a 3xx or a 204 is a success to
//! wrk). A connection that fails (connect, read: reset, closed unanswered or unparsable;
//! write) is a socket error and in no answer count: each is one failed request here, added to
//! `requests` (with its pipeline script a read error may lose a whole batch, still one). A
//! timeout is an answer later than `--timeout`, already among the answers; a request never
//! answered on a connection that stays open is counted nowhere.

use std::path::PathBuf;

use bench_model::results::{Errors, Latency, Run};

use super::{LoadSpec, Mode, Tool, ToolError, finite, header_args, us, whole_secs};

const T: Tool = Tool::Wrk;

/// The request script of a pipelined step: the workspace's `scripts/wrk/pipeline.lua`.
pub(super) fn pipeline_script() -> PathBuf {
    manifest::workspace_root().join("scripts/wrk/pipeline.lua")
}

pub(super) fn argv(spec: &LoadSpec, url: &str) -> Result<Vec<String>, ToolError> {
    match spec.mode {
        Mode::KeepAlive => {}
        Mode::Close => {
            return Err(ToolError::unsupported(
                T,
                "it keeps connections alive; it has no new-connection-per-request mode",
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
            "it runs for a duration (-d); it has no request count (-n)",
        ));
    }
    let Some(d) = spec.duration else {
        return Err(ToolError::unsupported(T, "it needs a duration (-d)"));
    };
    let mut a = vec![
        "-t1".to_string(),
        format!("-c{}", spec.connections),
        format!("-d{}s", whole_secs(T, "-d", d)?),
    ];
    if let Some(t) = spec.timeout {
        a.extend([
            "--timeout".to_string(),
            format!("{}s", whole_secs(T, "--timeout", t)?),
        ]);
    }
    a.extend(header_args("-H", &spec.headers));
    a.push("--latency".to_string());
    if spec.pipeline > 1 {
        a.extend(["-s".to_string(), pipeline_script().display().to_string()]);
    }
    a.push(url.to_string());
    if spec.pipeline > 1 {
        a.extend(["--".to_string(), spec.pipeline.to_string()]);
    }
    Ok(a)
}

pub(super) fn parse(stdout: &str, stderr: &str) -> Result<Run, ToolError> {
    let missing = |what| ToolError::missing(T, what, stderr);
    let invalid = |what, text: &str| ToolError::invalid(T, what, text);

    // "  172445 requests in 2.13s, 187.97MB read"
    let summary = stdout
        .lines()
        .find(|l| l.contains(" requests in ") && l.trim_end().ends_with(" read"))
        .ok_or_else(|| missing("\"N requests in T, B read\" line"))?;
    let (count, rest) = summary
        .trim()
        .split_once(" requests in ")
        .ok_or_else(|| invalid("the summary line", summary))?;
    let answers: u64 = count
        .trim()
        .parse()
        .map_err(|_| invalid("the request count", summary))?;
    let (time, bytes) = rest
        .trim_end()
        .trim_end_matches(" read")
        .split_once(", ")
        .ok_or_else(|| invalid("the summary line", summary))?;
    let duration_s = time_us(time).ok_or_else(|| invalid("the duration", time))? / 1e6;
    let bytes_read = size_bytes(bytes).ok_or_else(|| invalid("the bytes read", bytes))?;

    let value = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(str::trim)
    };
    let rps_text = value("Requests/sec:").ok_or_else(|| missing("Requests/sec line"))?;
    let requests_per_s: f64 = rps_text
        .parse()
        .map_err(|_| invalid("Requests/sec", rps_text))?;
    let transfer_text = value("Transfer/sec:").ok_or_else(|| missing("Transfer/sec line"))?;
    let transfer =
        size_bytes(transfer_text).ok_or_else(|| invalid("Transfer/sec", transfer_text))?;

    // "    Latency     2.93ms    9.54ms  81.02ms   94.83%": mean, stdev, max, ±stdev.
    let lat_row: Vec<&str> = value("Latency ")
        .map(|v| v.split_whitespace().collect())
        .ok_or_else(|| missing("Latency row"))?;
    let mean = lat_row.first().and_then(|v| time_us(v));
    let max = lat_row.get(2).and_then(|v| time_us(v)).and_then(us);

    // The `--latency` distribution: "     50%  763.00us".
    let pct = |p: &str| {
        let key = format!("{p}%");
        stdout
            .lines()
            .skip_while(|l| l.trim() != "Latency Distribution")
            .skip(1)
            .take_while(|l| l.trim().ends_with('s'))
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(key.as_str())).then(|| w.next()).flatten()
            })
            .and_then(time_us)
            .and_then(us)
    };

    let mut errors = Errors::default();
    if let Some(s) = value("Socket errors:") {
        // "connect 0, read 8112, write 0, timeout 0"
        for part in s.split(',') {
            let mut w = part.split_whitespace();
            let (Some(kind), Some(n)) = (w.next(), w.next()) else {
                return Err(invalid("Socket errors", s));
            };
            let n: u64 = n.parse().map_err(|_| invalid("Socket errors", s))?;
            match kind {
                "connect" => errors.connect = n,
                "read" => errors.read = n,
                "write" => errors.write = n,
                "timeout" => errors.timeout = n,
                _ => errors.other += n,
            }
        }
    }
    if let Some(s) = value("Non-2xx or 3xx responses:") {
        errors.status = s
            .parse()
            .map_err(|_| invalid("Non-2xx or 3xx responses", s))?;
    }

    // wrk's count is of answers; a request whose connection failed (connect, read, write)
    // is in no count but its error's. Its timeouts are late answers, already counted.
    let requests = answers
        .saturating_add(errors.connect)
        .saturating_add(errors.read)
        .saturating_add(errors.write);

    Ok(Run {
        requests,
        duration_s: finite(duration_s),
        requests_per_s: finite(requests_per_s),
        transfer_bytes_per_s: finite(transfer),
        bytes_per_response: if answers == 0 {
            0.0
        } else {
            finite(bytes_read / answers as f64)
        },
        latency_us: Latency {
            mean: mean.filter(|m| m.is_finite()),
            p50: pct("50"),
            p90: pct("90"),
            p95: None,
            p99: pct("99"),
            p999: None,
            max,
        },
        errors,
        notes: vec!["wrk --latency reports p50/p75/p90/p99: no p95".to_string()],
        ..Run::default()
    })
}

/// wrk's time format (`763.00us`, `1.46ms`, `2.13s`, `1.00m`, `1.00h`) in microseconds.
pub(super) fn time_us(s: &str) -> Option<f64> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().ok()?;
    let scale = match unit {
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "m" => 60e6,
        "h" => 3600e6,
        _ => return None,
    };
    let v = n * scale;
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// wrk's size format (`512.00B`, `635.81KB`, `88.41MB`, `1.20GB`, `1.00TB`; binary units)
/// in bytes.
pub(super) fn size_bytes(s: &str) -> Option<f64> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().ok()?;
    let scale = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "TB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let v = n * scale;
    (v.is_finite() && v >= 0.0).then_some(v)
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
        let a = bare(Tool::Wrk, &s, "http://127.0.0.1:8080/", Path::new("")).unwrap();
        assert_eq!(
            a.join(" "),
            "wrk -t1 -c100 -d10s --timeout 60s --latency http://127.0.0.1:8080/"
        );
        s.headers.push(("Authorization".into(), "Bearer x".into()));
        let a = bare(Tool::Wrk, &s, "http://h:1/", Path::new("")).unwrap();
        assert_eq!(a[6..9], ["-H", "Authorization: Bearer x", "--latency"]);
        s.mode = Mode::Close;
        let e = bare(Tool::Wrk, &s, "http://h:1/", Path::new("")).unwrap_err();
        assert!(
            e.unsupported_reason()
                .unwrap()
                .contains("new-connection-per-request"),
            "{e}"
        );
        s.mode = Mode::Http10;
        assert!(bare(Tool::Wrk, &s, "http://h:1/", Path::new("")).is_err());
        s.mode = Mode::KeepAlive;
        s.requests = Some(5);
        assert!(bare(Tool::Wrk, &s, "http://h:1/", Path::new("")).is_err());
        s.requests = None;
        s.duration = Some(Duration::from_millis(2500));
        let e = bare(Tool::Wrk, &s, "http://h:1/", Path::new("")).unwrap_err();
        assert!(
            e.unsupported_reason().unwrap().contains("whole seconds"),
            "{e}"
        );
    }

    #[test]
    fn pipelining_runs_the_script() {
        let mut s = LoadSpec::keep_alive(256, Duration::from_secs(15));
        s.timeout = Some(Duration::from_secs(8));
        s.pipeline = 16;
        let a = Tool::Wrk
            .argv(&s, "http://h:1/hello", Path::new(""))
            .unwrap();
        let script = pipeline_script().display().to_string();
        // The program is wherever wrk was found (its path); the arguments are what matter.
        assert!(a[0].ends_with("wrk"), "{a:?}");
        let a = [&["wrk".to_string()][..], &a[1..]].concat();
        assert_eq!(
            a.join(" "),
            format!(
                "wrk -t1 -c256 -d15s --timeout 8s --latency -s {script} http://h:1/hello -- 16"
            )
        );
        assert!(pipeline_script().is_file(), "{script}");
        let lua = std::fs::read_to_string(pipeline_script()).unwrap();
        assert!(
            lua.contains("wrk.format()") && lua.contains("args[1]"),
            "{lua}"
        );
    }

    #[test]
    fn recorded_keep_alive_run() {
        let r = Tool::Wrk.parse(&data("wrk-c100-latency.txt"), "").unwrap();
        assert_eq!(r.requests, 172_445);
        assert_eq!(r.duration_s, 2.13);
        assert_eq!(r.requests_per_s, 81_102.92);
        assert!((r.transfer_bytes_per_s - 88.41 * 1048576.0).abs() < 1.0);
        // 187.97 MB over 172,445 responses: the contract's 1,024-byte body plus headers.
        assert!(
            (r.bytes_per_response - 1143.0).abs() < 1.0,
            "{}",
            r.bytes_per_response
        );
        assert_eq!(r.latency_us.mean, Some(2930.0));
        assert_eq!(r.latency_us.p50, Some(763));
        assert_eq!(r.latency_us.p90, Some(1460));
        assert_eq!(r.latency_us.p95, None);
        assert_eq!(r.latency_us.p99, Some(58_480));
        assert_eq!(r.latency_us.max, Some(81_020));
        assert_eq!(r.errors, Errors::default());
        assert_eq!(r.rss_kb, None);
        assert_eq!(r.server_cpu_s, None);
    }

    #[test]
    fn recorded_errors() {
        let r = Tool::Wrk.parse(&data("wrk-c50-404.txt"), "").unwrap();
        assert_eq!(r.errors.status, 165_235);
        assert_eq!(r.requests, 165_235);
        assert_eq!(r.errors.total(), 165_235);
        assert!((r.transfer_bytes_per_s - 6.44 * 1048576.0).abs() < 1.0);

        let r = Tool::Wrk.parse(&data("wrk-c20-flaky.txt"), "").unwrap();
        assert_eq!(
            r.errors,
            Errors {
                read: 8112,
                status: 4636,
                ..Errors::default()
            }
        );
        assert!((r.transfer_bytes_per_s - 635.81 * 1024.0).abs() < 1.0);
        assert_eq!(r.latency_us.p50, Some(346));
    }

    #[test]
    fn every_failed_request_is_counted_in_errors_and_requests() {
        // status500.py 1, every answer a 500 (tests/data/README.md): wrk counts each in its
        // requests and in "Non-2xx or 3xx responses".
        let r = Tool::Wrk.parse(&data("wrk-c2-500.txt"), "").unwrap();
        assert_eq!(
            (r.requests, r.errors.status, r.errors.total()),
            (364, 364, 364)
        );
        // status500.py 50, every 50th answer a 500: the server answered 362 200s and 7 500s,
        // two of them after wrk stopped counting.
        let r = Tool::Wrk.parse(&data("wrk-c2-every50.txt"), "").unwrap();
        assert_eq!((r.requests, r.errors.total()), (367, 7));
        // flaky.py: every fifth request is dropped unanswered, a read error that wrk leaves
        // out of its "requests" (answers only): 32,448 answers and 8,112 dropped.
        let r = Tool::Wrk.parse(&data("wrk-c20-flaky.txt"), "").unwrap();
        assert_eq!(r.requests, 32_448 + 8_112);
        assert_eq!(r.errors.total(), 8_112 + 4_636);
        // 1.31 MB over the answers, not over the requests.
        assert!(
            (r.bytes_per_response - 1.31 * 1048576.0 / 32_448.0).abs() < 1e-6,
            "{}",
            r.bytes_per_response
        );
        // What wrk cannot tell: its "Non-2xx or 3xx" counts statuses above 399 only, so a
        // 3xx (or a 204) is a success; a request never answered and never closed is counted
        // nowhere; a late answer is a timeout and still in its requests (a late 500 is both).
    }

    #[test]
    fn a_failed_run_is_an_error_naming_stderr() {
        let out = data("wrk-c10-refused.txt");
        let e = Tool::Wrk.parse(&out, &out).unwrap_err();
        assert!(
            e.to_string().contains("unable to connect") && e.to_string().contains("wrk"),
            "{e}"
        );
    }

    #[test]
    fn units() {
        assert_eq!(time_us("763.00us"), Some(763.0));
        assert_eq!(time_us("1.5s"), Some(1.5e6));
        assert_eq!(time_us("1.00m"), Some(60e6));
        assert_eq!(time_us("5"), None);
        assert_eq!(time_us("-1ms"), None);
        assert_eq!(time_us("-nan%"), None);
        assert_eq!(size_bytes("2.00KB"), Some(2048.0));
        assert_eq!(size_bytes("1.00GB"), Some(1073741824.0));
        assert_eq!(size_bytes("3QB"), None);
    }
}
