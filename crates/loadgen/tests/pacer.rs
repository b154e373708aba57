//! The open model's pacer: a generator paused on purpose shows the pause in the latency from
//! the intended send times, and a rate it cannot offer is reported as unsent requests.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::hyper_server;
use loadgen::{Load, RunResult};

const BIN: &str = env!("CARGO_BIN_EXE_loadgen");

/// The loadgen child; dropped, it is continued (should it be stopped) and killed, by its PID.
struct Loadgen(Option<Child>);

impl Loadgen {
    fn signal(&self, sig: libc::c_int) {
        if let Some(c) = &self.0 {
            let pid = libc::pid_t::try_from(c.id()).expect("a PID");
            // SAFETY: kill(2) with the PID of a child this test started and has not reaped.
            assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill({pid}, {sig})");
        }
    }

    fn output(mut self) -> std::process::Output {
        let child = self.0.take().expect("the child");
        child.wait_with_output().expect("the child's output")
    }
}

impl Drop for Loadgen {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let pid = c.id() as libc::pid_t;
            // SAFETY: as in `signal`: the child is not reaped until `wait` below.
            unsafe { libc::kill(pid, libc::SIGCONT) };
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn a_paused_generator_shows_in_the_latency_from_the_intended_times() {
    let addr = hyper_server();
    let url = format!("http://{addr}/hello");
    // 200 requests/s over 100 connections: each connection idles about half a second between
    // two requests, so a pause of the generator is all that can make one late.
    let child = Command::new(BIN)
        .args([
            "-R",
            "200",
            "-c",
            "100",
            "-d",
            "3s",
            "--json",
            "--no-progress",
        ])
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let loadgen = Loadgen(Some(child));
    std::thread::sleep(Duration::from_millis(1200));
    loadgen.signal(libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(300));
    loadgen.signal(libc::SIGCONT);
    let out = loadgen.output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["result"];
    let get = |p: &str| r.pointer(p).and_then(|x| x.as_u64());
    let (max, p99) = (get("/latency/max_us"), get("/latency/p99_us"));
    let (u_max, u_p99) = (
        get("/latency_uncorrected/max_us"),
        get("/latency_uncorrected/p99_us"),
    );
    eprintln!("max {max:?} µs, p99 {p99:?} µs; uncorrected max {u_max:?}, p99 {u_p99:?}");
    // About 60 requests came due during the pause; each is counted from its intended time.
    assert!(
        max >= Some(250_000) && p99 >= Some(150_000),
        "the pause shows: max {max:?} µs, p99 {p99:?} µs (uncorrected max {u_max:?}, p99 {u_p99:?})"
    );
    // Sent at once on resume, they were answered at once.
    assert!(u_p99 < Some(50_000), "uncorrected p99 {u_p99:?} µs");
    // Nothing lost: every request due was answered, failed, cut off by the end or unsent.
    let result: RunResult = serde_json::from_value(r.clone()).unwrap();
    assert_eq!(
        result.responses + result.errors.transport() + result.unfinished + result.unsent,
        result.intended,
        "{result:?}"
    );
    assert!(result.intended.abs_diff(600) <= 1, "{result:?}");
    assert!(result.unsent <= 1, "{result:?}");
    assert_eq!(result.errors.total(), 0, "{result:?}");
}

#[test]
fn an_impossible_rate_is_reported_as_unsent() {
    let addr = hyper_server();
    let mut cfg = common::config(&format!("http://{addr}/hello"), 1, 10);
    cfg.requests = None;
    cfg.duration = Some(Duration::from_secs(1));
    cfg.load = Load::Open { rate: 2_000_000.0 };
    let r = loadgen::run(&cfg).unwrap();
    assert!(r.unsent > 0, "{r:?}");
    assert_eq!(r.requests + r.unfinished + r.unsent, r.intended, "{r:?}");
    let want = 2_000_000.0 * r.duration_s;
    let got = (r.requests + r.unsent) as f64;
    assert!((got / want - 1.0).abs() < 0.03, "{got} of {want}: {r:?}");
    let text = loadgen::print::human(&cfg, &r, false);
    assert!(
        text.contains(&format!(
            "  Unsent: {} of {} requests due were not sent",
            r.unsent, r.intended
        )),
        "{text}"
    );
}
