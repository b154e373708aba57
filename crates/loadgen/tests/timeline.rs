//! The timeline (`--interval`): its intervals add up to the run, a server's stall shows in
//! the intervals it happened in, the open model's unsent requests in the intervals they were
//! due, and a bad interval is one line and exit 2.

mod common;

use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::{Action, TestServer, config, ok, reply};
use loadgen::{Interval, Load, RunResult, Timeline};

const BIN: &str = env!("CARGO_BIN_EXE_loadgen");

/// A timed run of `cfg` with `--interval interval`.
fn run(mut cfg: loadgen::Config, duration: Duration, interval: Duration) -> (RunResult, Timeline) {
    cfg.requests = None;
    cfg.duration = Some(duration);
    cfg.interval = Some(interval);
    let r = loadgen::run(&cfg).unwrap();
    let t = r.timeline.clone().expect("a timeline");
    for (i, iv) in t.intervals.iter().enumerate() {
        eprintln!("{i:>3} {iv:?}");
    }
    (r, t)
}

fn sum(t: &Timeline, f: impl Fn(&Interval) -> u64) -> u64 {
    t.intervals.iter().map(f).sum()
}

/// A server that, from `from` to `to` after the first request it sees, holds every request
/// until `to`, and answers at once otherwise.
fn stalling(from: Duration, to: Duration) -> TestServer {
    let first: Arc<OnceLock<Instant>> = Arc::default();
    TestServer::start(move |req| {
        let t = first.get_or_init(Instant::now).elapsed();
        if (from..to).contains(&t) {
            Action::Delay(to - t, reply(req, 200, b"x"))
        } else {
            ok(req)
        }
    })
}

#[test]
fn the_intervals_add_up_to_the_run() {
    // Resets, 503s and 404s among the answers, so that every kind of count has something.
    let server = TestServer::start(|req| match req.n % 50 {
        49 => Action::Reset,
        n if n % 7 == 3 => Action::Reply(reply(req, 503, b"busy")),
        n if n % 13 == 5 => Action::Reply(reply(req, 404, b"no")),
        _ => ok(req),
    });
    let mut cfg = config(&server.url("/"), 1, 4);
    cfg.threads = 2;
    let (r, t) = run(cfg, Duration::from_millis(1300), Duration::from_millis(200));
    assert_eq!(t.interval_s, 0.2);
    // 1.3 s in intervals of 0.2 s: 7, the last 0.1 s long.
    let n = t.intervals.len();
    assert_eq!(n, (r.duration_s / 0.2).ceil() as usize, "{r:?}");
    assert!(
        (n as f64 - r.duration_s / 0.2).abs() <= 1.0,
        "{n} intervals"
    );
    for (i, iv) in t.intervals.iter().enumerate() {
        assert!((iv.start_s - 0.2 * i as f64).abs() < 1e-9, "{iv:?}");
    }
    let length: f64 = t.intervals.iter().map(|i| i.duration_s).sum();
    assert!(
        (length - r.duration_s).abs() < 1e-6,
        "{length} {}",
        r.duration_s
    );
    assert!((t.intervals[n - 1].duration_s - 0.1).abs() < 1e-6);

    // Their counts are the run's.
    assert!(r.errors.read > 0 && r.errors.status_4xx > 0 && r.errors.status_5xx > 0);
    assert_eq!(sum(&t, |i| i.responses), r.responses);
    assert_eq!(sum(&t, |i| i.errors), r.errors.total());
    let kinds =
        |f: fn(&loadgen::stats::Errors) -> u64| sum(&t, |i| i.error_kinds.as_ref().map_or(0, f));
    assert_eq!(kinds(|e| e.read), r.errors.read);
    assert_eq!(kinds(|e| e.status_4xx), r.errors.status_4xx);
    assert_eq!(kinds(|e| e.status_5xx), r.errors.status_5xx);
    assert_eq!(kinds(|e| e.total()), r.errors.total());
    let sent = sum(&t, |i| i.sent);
    assert!(
        (r.requests..=r.requests + r.unfinished).contains(&sent),
        "{sent} sent, {r:?}"
    );
    // The closed model has nothing due.
    assert!(
        t.intervals
            .iter()
            .all(|i| i.due.is_none() && i.unsent.is_none())
    );

    // A steady load: every interval has its share, its latency and its CPU.
    let cpu: f64 = t.intervals.iter().map(|i| i.cpu_s).sum();
    assert!(
        cpu <= r.cpu.user_s + r.cpu.system_s + 1e-3,
        "{cpu} {:?}",
        r.cpu
    );
    for iv in &t.intervals {
        let expected = r.responses as f64 * iv.duration_s / r.duration_s;
        assert!(iv.responses as f64 > expected / 4.0, "{iv:?}");
        assert!(iv.sent > 0 && iv.errors > 0 && iv.cpu_s > 0.0, "{iv:?}");
        let (p50, p99, max) = (iv.p50_us.unwrap(), iv.p99_us.unwrap(), iv.max_us.unwrap());
        assert!(0 < p50 && p50 <= p99 && p99 <= max, "{iv:?}");
    }
    // The run's maximum, which its histogram rounds up (3 significant figures).
    let max = t.intervals.iter().filter_map(|i| i.max_us).max().unwrap();
    let run_max = r.latency.max_us;
    assert!(
        max <= run_max && run_max - max <= run_max / 500,
        "{max} {run_max}"
    );
}

#[test]
fn a_stalled_server_shows_in_its_intervals() {
    // From 1.0 s to 1.4 s after its first request, the server answers nothing.
    let server = stalling(Duration::from_millis(1000), Duration::from_millis(1400));
    let (r, t) = run(
        config(&server.url("/"), 1, 4),
        Duration::from_secs(2),
        Duration::from_millis(100),
    );
    assert_eq!(t.intervals.len(), 20);
    assert_eq!(
        (r.errors.total(), sum(&t, |i| i.responses)),
        (0, r.responses)
    );
    // The run's own figures say that something was slow, not when: its p99 is that of the
    // quick answers, and only its maximum is the stall's.
    assert!(r.latency.max_us >= 300_000, "{:?}", r.latency);
    assert!(r.latency.p99_us < 100_000, "{:?}", r.latency);
    // The timeline says when: no answers from 1.1 s to 1.4 s (1.0 s to 1.1 s has those to
    // requests that came in before the stall) …
    for iv in &t.intervals[11..14] {
        assert_eq!(
            (iv.responses, iv.p50_us, iv.max_us),
            (0, None, None),
            "{iv:?}"
        );
    }
    // … then, from 1.4 s, every request held answered at once, 400 ms late at most.
    let slowest = t
        .intervals
        .iter()
        .enumerate()
        .max_by_key(|(_, iv)| iv.max_us)
        .map(|(i, _)| i);
    assert_eq!(slowest, Some(14), "the stall's answers");
    assert!(
        t.intervals[14].max_us >= Some(300_000),
        "{:?}",
        t.intervals[14]
    );
    // And every other interval kept the load up.
    for (i, iv) in t.intervals.iter().enumerate() {
        if !(10..=14).contains(&i) {
            assert!(iv.responses > 0 && iv.max_us < Some(200_000), "{i}: {iv:?}");
        }
    }
}

#[test]
fn unsent_requests_land_in_the_intervals_they_were_due() {
    // 200 requests/s on one connection: request j is due at j / 200 s. The server holds
    // request 200, due at 1 s, past the end of the 2 s run, so the one connection is busy and
    // every request due after it is unsent: 49 of the 50 due from 1 s to 1.25 s, and all
    // those due later.
    let server = TestServer::start(|req| {
        if req.n >= 200 {
            Action::Delay(Duration::from_secs(3), reply(req, 200, b"x"))
        } else {
            ok(req)
        }
    });
    let mut cfg = config(&server.url("/"), 1, 1);
    cfg.load = Load::Open { rate: 200.0 };
    let (r, t) = run(cfg, Duration::from_secs(2), Duration::from_millis(250));
    assert_eq!(t.intervals.len(), 8);
    assert_eq!(sum(&t, |i| i.due.unwrap()), r.intended, "{r:?}");
    assert_eq!(sum(&t, |i| i.unsent.unwrap()), r.unsent, "{r:?}");
    assert_eq!((r.intended, r.unsent, r.unfinished), (400, 199, 1), "{r:?}");
    let unsent: Vec<_> = t.intervals.iter().map(|i| i.unsent.unwrap()).collect();
    assert_eq!(unsent, [0, 0, 0, 0, 49, 50, 50, 50]);
    for (i, iv) in t.intervals.iter().enumerate() {
        assert_eq!(iv.due, Some(50), "{i}: {iv:?}");
        // Each sent when due (the pacer may hand one out up to 200 µs early).
        match i {
            0..=3 => assert!((49..=51).contains(&iv.sent), "{i}: {iv:?}"),
            4 => assert!(iv.sent <= 1, "{i}: {iv:?}"),
            _ => assert_eq!(iv.sent, 0, "{i}: {iv:?}"),
        }
    }
    assert_eq!(sum(&t, |i| i.sent), 201);
}

fn binary(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bad_interval_is_one_line_and_exit_2() {
    // Nothing listens on port 1: a run that went ahead would exit 0.
    let url = "http://127.0.0.1:1/";
    for (args, says) in [
        (&["--interval", "0", "-d", "1s"][..], "more than 0"),
        (
            &["--interval", "2s", "-d", "1s"],
            "longer than the measured window",
        ),
        (
            &["--interval", "1ms", "-d", "20s"],
            "20000 intervals, more than 10000",
        ),
        (&["--interval", "100ms", "-n", "100"], "known length"),
        (&["--interval", "ten", "-d", "1s"], "--interval"),
    ] {
        let (code, out, err) = binary(&[args, &[url]].concat());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("loadgen: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn the_json_has_a_timeline_only_when_asked() {
    let server = TestServer::start(ok);
    let url = server.url("/");
    let (code, out, err) = binary(&["-c", "2", "-d", "600ms", "--json", &url]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["result"].get("timeline").is_none(), "{out}");
    assert!(v["config"].get("interval_s").is_none(), "{out}");

    let args = [
        "-c",
        "2",
        "-d",
        "600ms",
        "--interval",
        "250ms",
        "--json",
        &url,
    ];
    let (code, out, err) = binary(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "loadgen.report/1");
    assert_eq!(v["config"]["interval_s"], 0.25);
    let t = &v["result"]["timeline"];
    assert_eq!(t["interval_s"], 0.25);
    let intervals = t["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), 3, "{t}");
    for key in [
        "start_s",
        "duration_s",
        "responses",
        "errors",
        "sent",
        "p50_us",
        "p99_us",
        "max_us",
        "cpu_s",
    ] {
        assert!(intervals[0].get(key).is_some(), "{key}: {t}");
    }
    // The closed model has no `due`, and no errors no `error_kinds`.
    assert!(intervals[0].get("due").is_none() && intervals[0].get("error_kinds").is_none());
    let report: loadgen::Report = serde_json::from_str(&out).unwrap();
    let t = report.result.timeline.unwrap();
    assert_eq!(sum(&t, |i| i.responses), report.result.responses);

    // The summary prints it as a table, one row per interval.
    let (code, out, err) = binary(&["-c", "2", "-d", "600ms", "--interval", "250ms", &url]);
    assert_eq!(code, 0, "{err}");
    let table = out
        .split("Timeline (0.25s intervals)\n")
        .nth(1)
        .expect(&out);
    assert_eq!(table.lines().count(), 4, "{out}");
}
