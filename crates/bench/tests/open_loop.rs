//! Coordinated omission, shown: the built-in generator at a fixed offered rate (`loadgen -R`,
//! E7's load, with the argv `bench` gives it and its report read by `bench`'s own parser)
//! against a server that stops answering for one second at a known moment. The requests due
//! during the stall wait for it, and their latency counted from when they were due goes up to
//! about a second; counted from when they were sent (what a closed-loop tool would report) it
//! does not, because they were sent only once the stall was over.
//!
//! `loadgen` is the debug binary beside this test's `bench` (built by `cargo test --workspace`;
//! built here with `cargo build -p loadgen` when missing).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_model::results::Run;
use bench_tools::{LoadSpec, Tool};

/// The built-in generator's binary.
fn loadgen() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_bench"))
        .parent()
        .expect("the bench binary has a folder")
        .join("loadgen");
    if !bin.is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "-p", "loadgen"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p loadgen failed");
    }
    bin
}

/// When the stall began and ended, once it has.
type Window = Arc<Mutex<Option<(Instant, Instant)>>>;

/// A keep-alive HTTP/1.1 server (a thread per connection) that answers every request at
/// once, except that from `after` past its first request it answers nothing for `stall` (a
/// blocked event loop, a long GC pause), then everything it held. Its address, and the
/// stall's window once it has happened.
fn stalling_server(after: Duration, stall: Duration) -> (SocketAddr, Window) {
    const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let first: Arc<Mutex<Option<Instant>>> = Arc::default();
    let window: Window = Arc::default();
    let seen = Arc::clone(&window);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let (first, window) = (Arc::clone(&first), Arc::clone(&window));
            std::thread::spawn(move || {
                let _ = conn.set_nodelay(true);
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while let Ok(n) = conn.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        let now = Instant::now();
                        let start = *first.lock().unwrap().get_or_insert(now) + after;
                        if now >= start && now < start + stall {
                            std::thread::sleep(start + stall - now);
                            *window.lock().unwrap() = Some((start, start + stall));
                        }
                        if conn.write_all(ANSWER).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, seen)
}

/// `loadgen -R rate` for `secs` on `connections` against `addr`, as `bench` runs it, read by
/// `bench`'s parser.
fn offered(addr: SocketAddr, rate: f64, connections: usize, secs: u64) -> Run {
    let spec = LoadSpec {
        timeout: Some(Duration::from_secs(10)),
        rate: Some(rate),
        ..LoadSpec::keep_alive(connections, Duration::from_secs(secs))
    };
    let bin = loadgen();
    let argv = Tool::Builtin
        .argv(&spec, &format!("http://{addr}/"), &bin)
        .unwrap();
    assert!(argv.join(" ").contains(&format!(" -R {rate} ")), "{argv:?}");
    let out = Command::new(&argv[0]).args(&argv[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    Tool::Builtin.parse(&stdout, "").unwrap()
}

#[test]
fn a_one_second_stall_shows_in_the_latency_from_the_intended_send_time_only() {
    // 1,000 requests/s on 10 connections for 4 s; the server stalls 1 s, 1.5 s in: about a
    // quarter of the requests fall due during the stall, and wait for it.
    let (addr, window) = stalling_server(Duration::from_millis(1500), Duration::from_secs(1));
    let t0 = Instant::now();
    let run = offered(addr, 1000.0, 10, 4);
    let took = t0.elapsed();
    let (start, end) = window.lock().unwrap().expect("the server stalled");
    assert!(
        start > t0 && end < t0 + took,
        "the stall ({:?}–{:?} after the start) was inside the run ({took:?})",
        start - t0,
        end - t0
    );
    let ms = |us: Option<u64>| us.unwrap_or(0) as f64 / 1000.0;
    let c = &run.latency_us;
    let u = run
        .latency_uncorrected_us
        .as_ref()
        .expect("the latency from the actual send");
    println!(
        "from the intended send: p50 {} p90 {} p99 {} p99.9 {} max {} ms; from the actual send: p50 {} p90 {} p99 {} p99.9 {} max {} ms",
        ms(c.p50),
        ms(c.p90),
        ms(c.p99),
        ms(c.p999),
        ms(c.max),
        ms(u.p50),
        ms(u.p90),
        ms(u.p99),
        ms(u.p999),
        ms(u.max)
    );
    // The rate was held: about 4,000 requests, all answered.
    assert!(
        (run.requests as f64 - 4000.0).abs() < 400.0,
        "{}",
        run.requests
    );
    assert_eq!(run.errors.total(), 0);
    // From the intended send time: the requests due during the stall waited up to about 1 s,
    // spread from 0 to 1 s by when they fell due; most others did not wait at all.
    assert!(
        (800.0..1300.0).contains(&ms(c.p99)),
        "p99 {} ms: the requests due in the stall waited up to about 1 s",
        ms(c.p99)
    );
    assert!((900.0..1500.0).contains(&ms(c.max)), "max {}", ms(c.max));
    assert!(ms(c.p90) > 300.0, "p90 {} ms", ms(c.p90));
    assert!(ms(c.p50) < 100.0, "p50 {} ms", ms(c.p50));
    // From the actual send: only the one request each connection had in flight when the
    // stall began (10 of 4,000) waited; the ones due during it were sent after it.
    assert!(
        ms(u.p99) < 100.0 && ms(u.p90) < 50.0,
        "the latency from the actual send shows the stall: p90 {} p99 {} ms",
        ms(u.p90),
        ms(u.p99)
    );
    assert!(
        ms(u.max) > 500.0,
        "the requests in flight did wait: max {}",
        ms(u.max)
    );
}

#[test]
fn without_a_stall_the_two_latencies_agree() {
    // The control: the same load on a server that never stalls (its stall would begin after
    // the run), so neither latency has anything to correct.
    let (addr, window) = stalling_server(Duration::from_secs(3600), Duration::from_secs(1));
    let run = offered(addr, 1000.0, 10, 2);
    assert!(window.lock().unwrap().is_none());
    let c = run.latency_us.p99.unwrap();
    let u = run.latency_uncorrected_us.as_ref().unwrap().p99.unwrap();
    assert!(c < 100_000 && u < 100_000, "p99 {c} and {u} µs");
}
