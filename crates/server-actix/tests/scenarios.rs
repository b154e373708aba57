//! E4's `/api/timer` under load: the 200 zero-time sleeps each request spawns must run before
//! more requests pile up, so the server's memory stays flat however long the load lasts.
//!
//! Spawned onto tokio's queue instead of the worker's local set, they waited behind the
//! connections (which the local set runs first) and stayed in memory: E4's 20 s run reached
//! 9 GB of RSS. This sends a fixed number of requests (no timing in the assertion) and reads
//! the server's peak RSS (`VmHWM`).

use std::time::Duration;

use conformance::wire::Conn;

const BIN: &str = env!("CARGO_BIN_EXE_server-actix");
const CONNECTIONS: usize = 50;
const PER_CONNECTION: usize = 100;

fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

#[test]
fn timer_load_keeps_memory_flat() {
    let srv = serve::process::ServerProcess::start(BIN, &[]).expect("start server-actix");
    let addr = srv.addr();
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            std::thread::spawn(move || {
                let mut c = Conn::connect(addr, Duration::from_secs(30)).expect("connect");
                for _ in 0..PER_CONNECTION {
                    c.send(b"GET /api/timer HTTP/1.1\r\nHost: t\r\n\r\n")
                        .unwrap();
                    let r = c.read_response(false).expect("an answer");
                    assert_eq!(r.status, 200);
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    // 5,000 requests spawn 1,000,000 sleeps, about 430 MB if they were all alive at once; in
    // the connections' queue at most 50 requests' worth (10,000) are.
    let peak = peak_rss_kb(srv.pid());
    assert!(
        peak < 100 * 1024,
        "peak RSS {peak} kB after {} /api/timer requests",
        CONNECTIONS * PER_CONNECTION
    );
}
