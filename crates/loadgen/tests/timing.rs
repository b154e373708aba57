//! Latency figures: percentiles against a known delay distribution, and the open model's
//! corrected latency against a server that stalls.

mod common;

use std::time::Duration;

use common::{Action, TestServer, config, reply};
use loadgen::Load;

#[test]
fn percentiles_follow_a_known_delay_distribution() {
    // Delays of 1..=10 ms, each for a tenth of the requests.
    let server = TestServer::start(|req| {
        Action::Delay(Duration::from_millis(req.n % 10 + 1), reply(req, 200, b"x"))
    });
    let r = loadgen::run(&config(&server.url("/"), 400, 4)).unwrap();
    let l = &r.latency;
    assert_eq!(l.count, 400);
    let ms = |us: u64| us as f64 / 1000.0;
    // Each figure is at least the delay and, on a quiet machine, within a fraction of a ms.
    let within = |got: f64, want: f64| got >= want * 0.99 && got < want + 2.5;
    assert!(within(ms(l.min_us), 1.0), "{l:?}");
    assert!(within(ms(l.p50_us), 5.0), "{l:?}");
    assert!(within(ms(l.p75_us), 8.0), "{l:?}");
    assert!(within(ms(l.p90_us), 9.0), "{l:?}");
    assert!(l.p90_us <= l.p95_us && l.p95_us <= l.p99_us, "{l:?}");
    assert!(within(ms(l.p99_us), 10.0), "{l:?}");
    assert!(within(l.mean_us / 1000.0, 5.5), "{l:?}");
    assert!(l.stdev_us > 2_500.0 && l.stdev_us < 3_500.0, "{l:?}");
}

#[test]
fn open_model_corrects_for_a_stall() {
    // 200 requests/s on one connection; request 50 stalls the server for 500 ms, during
    // which about 100 sends fall behind their schedule.
    let server = TestServer::start(|req| {
        let d = if req.n == 50 { 500 } else { 0 };
        Action::Delay(Duration::from_millis(d), reply(req, 200, b"x"))
    });
    let mut cfg = config(&server.url("/"), 300, 1);
    cfg.load = Load::Open { rate: 200.0 };
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!((r.requests, r.responses), (300, 300));
    let u = r.latency_uncorrected.as_ref().unwrap();
    let c = &r.latency;
    assert!(c.max_us >= 480_000 && u.max_us >= 480_000, "{c:?} {u:?}");
    assert!(c.p90_us > 150_000, "corrected latency grows: {c:?}");
    assert!(u.p90_us < 50_000, "uncorrected latency does not: {u:?}");
    assert!(c.p50_us < 50_000, "{c:?}");
    // The schedule holds the rate: 300 requests at 200/s take about 1.5 s.
    assert!((r.duration_s - 1.5).abs() < 0.2, "{}", r.duration_s);
}

#[test]
fn open_model_holds_its_rate() {
    let server = TestServer::start(|req| Action::Reply(reply(req, 200, b"x")));
    let mut cfg = config(&server.url("/"), 1, 5);
    cfg.requests = None;
    cfg.duration = Some(Duration::from_secs(1));
    cfg.load = Load::Open { rate: 1000.0 };
    cfg.threads = 2;
    let r = loadgen::run(&cfg).unwrap();
    assert!((r.responses as f64 - 1000.0).abs() < 60.0, "{r:?}");
    assert_eq!(r.errors.total(), 0);
    // Closed and stages runs report no uncorrected figure.
    let mut closed = config(&server.url("/"), 10, 1);
    closed.load = Load::Closed;
    assert!(loadgen::run(&closed).unwrap().latency_uncorrected.is_none());
}
