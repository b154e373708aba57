//! The human summary, shaped like wrk's, so the two can be read side by side.
//!
//! Differences from wrk: the `Req/Sec` row comes from 100 ms samples of each thread's
//! responses (absent for runs shorter than one sample); extra lines for framing errors, error
//! statuses by class, unfinished requests, the open model's unsent requests and uncorrected
//! latency, and the generator's own CPU use; with `--interval`, the timeline, one row per
//! interval.

use std::fmt::Write as _;

use crate::config::{Config, Load};
use crate::report::{Latency, RunResult};
use crate::timeline::Timeline;

/// Formats the summary; `distribution` adds wrk's `--latency` percentiles.
pub fn human(config: &Config, r: &RunResult, distribution: bool) -> String {
    let mut o = String::new();
    let what = match (config.requests, config.run_duration()) {
        (Some(n), None) => format!("{n} requests"),
        (Some(n), Some(d)) => format!("{n} requests or {}", secs(d.as_secs_f64())),
        (None, Some(d)) => format!("{} test", secs(d.as_secs_f64())),
        (None, None) => "test".into(),
    };
    let _ = writeln!(o, "Running {what} @ {}", config.target.url);
    let model = match &config.load {
        Load::Closed => String::new(),
        Load::Open { rate } => format!(", {rate} requests/s open model"),
        Load::Stages { stages } => format!(", {} stages", stages.len()),
    };
    let _ = writeln!(
        o,
        "  {} threads and {} connections, {}{}{}",
        config.threads,
        config.max_connections(),
        config.mode.name(),
        if config.pipeline > 1 {
            format!(", pipeline {}", config.pipeline)
        } else {
            String::new()
        },
        model
    );
    let _ = writeln!(o, "  Thread Stats   Avg      Stdev     Max   +/- Stdev");
    latency_row(&mut o, "Latency", &r.latency);
    if let Some(u) = &r.latency_uncorrected {
        latency_row(&mut o, "Uncorr.", u);
    }
    let rate = &r.thread_requests_per_s;
    if rate.samples > 0 {
        let _ = writeln!(
            o,
            "    {:<8} {:>9} {:>9} {:>9} {:>8.2}%",
            "Req/Sec",
            count(rate.mean),
            count(rate.stdev),
            count(rate.max as f64),
            rate.within_stdev_pct
        );
    }
    if distribution {
        let _ = writeln!(o, "  Latency Distribution");
        for (p, v) in [
            ("50%", r.latency.p50_us),
            ("75%", r.latency.p75_us),
            ("90%", r.latency.p90_us),
            ("99%", r.latency.p99_us),
            ("99.9%", r.latency.p99_9_us),
        ] {
            let _ = writeln!(o, "  {p:>6} {:>9}", time(v as f64));
        }
    }
    let _ = writeln!(
        o,
        "  {} requests in {}, {} read",
        r.responses,
        secs(r.duration_s),
        bytes(r.response_bytes as f64)
    );
    let e = &r.errors;
    if e.transport() > 0 {
        let _ = writeln!(
            o,
            "  Socket errors: connect {}, read {}, write {}, timeout {}",
            e.connect, e.read, e.write, e.timeout
        );
    }
    if e.framing > 0 {
        let _ = writeln!(o, "  Framing errors: {}", e.framing);
    }
    let non_ok = r.responses - r.ok;
    if non_ok > 0 {
        let _ = writeln!(
            o,
            "  Non-2xx or 3xx responses: {non_ok} (4xx {}, 5xx {})",
            e.status_4xx, e.status_5xx
        );
    }
    if r.unfinished > 0 {
        let _ = writeln!(o, "  Unfinished at the end: {}", r.unfinished);
    }
    if r.unsent > 0 {
        let _ = writeln!(
            o,
            "  Unsent: {} of {} requests due were not sent ({:.1} %): no connection was free \
             for them, or the generator fell behind",
            r.unsent,
            r.intended,
            r.unsent as f64 * 100.0 / r.intended.max(1) as f64
        );
    }
    let _ = writeln!(o, "Requests/sec: {:>10.2}", r.requests_per_s);
    let _ = writeln!(o, "Transfer/sec: {:>10}", bytes(r.transfer_per_s));
    let _ = writeln!(
        o,
        "Generator CPU: {:.2}s user, {:.2}s system, busiest thread {:.0}%{}",
        r.cpu.user_s,
        r.cpu.system_s,
        r.cpu.max_thread_utilisation * 100.0,
        if r.cpu.generator_bound {
            " (the generator may be the bottleneck)"
        } else {
            ""
        }
    );
    if let Some(t) = &r.timeline {
        timeline(&mut o, t);
    }
    o
}

/// One row per interval: responses, errors, requests sent (due and unsent in the open
/// model), latency and the generator's CPU.
fn timeline(o: &mut String, t: &Timeline) {
    let open = t.intervals.iter().any(|i| i.due.is_some());
    let _ = writeln!(o, "Timeline ({} intervals)", secs(t.interval_s));
    let _ = write!(
        o,
        "  {:>8} {:>10} {:>7} {:>10}",
        "start", "responses", "errors", "sent"
    );
    if open {
        let _ = write!(o, " {:>10} {:>8}", "due", "unsent");
    }
    let _ = writeln!(o, " {:>9} {:>9} {:>9} {:>6}", "p50", "p99", "max", "CPU");
    let lat = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| time(v as f64));
    for i in &t.intervals {
        let _ = write!(
            o,
            "  {:>8} {:>10} {:>7} {:>10}",
            secs(i.start_s),
            i.responses,
            i.errors,
            i.sent
        );
        if open {
            let _ = write!(
                o,
                " {:>10} {:>8}",
                i.due.unwrap_or(0),
                i.unsent.unwrap_or(0)
            );
        }
        let cpu = i.cpu_s * 100.0 / i.duration_s.max(1e-9);
        let _ = writeln!(
            o,
            " {:>9} {:>9} {:>9} {:>5.0}%",
            lat(i.p50_us),
            lat(i.p99_us),
            lat(i.max_us),
            cpu
        );
    }
}

fn latency_row(o: &mut String, name: &str, l: &Latency) {
    let _ = writeln!(
        o,
        "    {name:<8} {:>9} {:>9} {:>9} {:>8.2}%",
        time(l.mean_us),
        time(l.stdev_us),
        time(l.max_us as f64),
        l.within_stdev_pct
    );
}

/// Microseconds as wrk prints them: `us`, `ms` or `s` with two decimals.
pub fn time(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.2}us")
    } else if us < 1_000_000.0 {
        format!("{:.2}ms", us / 1e3)
    } else {
        format!("{:.2}s", us / 1e6)
    }
}

/// A count as wrk prints it: plain, `k` or `M` with two decimals.
pub fn count(n: f64) -> String {
    if n < 1_000.0 {
        format!("{n:.2}")
    } else if n < 1_000_000.0 {
        format!("{:.2}k", n / 1e3)
    } else {
        format!("{:.2}M", n / 1e6)
    }
}

fn secs(s: f64) -> String {
    format!("{s:.2}s")
}

/// Bytes as wrk prints them: `B`, `KB`, `MB`, `GB` (powers of 1024).
pub fn bytes(b: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.2}{}", units[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(time(12.5), "12.50us");
        assert_eq!(time(1_500.0), "1.50ms");
        assert_eq!(time(2_000_000.0), "2.00s");
        assert_eq!(bytes(512.0), "512.00B");
        assert_eq!(
            (count(12.0), count(56_200.0), count(2e6)),
            ("12.00".into(), "56.20k".into(), "2.00M".into())
        );
        assert_eq!(bytes(1536.0), "1.50KB");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0), "3.00MB");
    }
}
