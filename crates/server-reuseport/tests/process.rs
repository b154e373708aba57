//! The process model against the real binary, read from /proc: distinct worker processes each
//! holding its own listener, restart of a killed worker under load (with the number of
//! requests that failed), signal forwarding, no orphan after the supervisor dies, bad starts.

mod common;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{
    Server, bin, get_once, is_dead, listeners_of, listening_inodes, refuses, socket_inodes,
};

/// Writes a line straight to the test's stderr, past the test harness's capture, so that the
/// figures show in a plain `cargo test`.
fn report(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn three_workers_are_three_processes_each_with_its_own_listener() {
    let mut srv = Server::start(&["--workers", "3"]);
    let port = srv.addr.port();
    let workers = srv.workers();
    assert_eq!(workers.len(), 3, "{workers:?}");
    assert!(!workers.contains(&srv.pid()));
    let mut all = BTreeSet::new();
    for &w in &workers {
        let mine = listeners_of(w, port);
        assert_eq!(mine.len(), 1, "worker {w} listens on {mine:?}");
        all.extend(mine);
    }
    // Three different sockets, and they are all the listeners on the port: the supervisor
    // holds none (its probe socket is gone).
    assert_eq!(all.len(), 3);
    assert_eq!(listening_inodes(port), all);
    assert!(listeners_of(srv.pid(), port).is_empty());
    assert!(socket_inodes(srv.pid()).is_disjoint(&all));
    get_once(srv.addr, "/hello", Duration::from_secs(5)).unwrap();
}

/// Client threads of the load: each has at most one connection open at a time.
const CLIENTS: usize = 16;

#[derive(Default)]
struct Tally {
    ok_before: u64,
    failed_before: u64,
    ok_after: u64,
    failed_after: Vec<String>,
    /// When the last failed request ended, after the kill.
    last_failure: Duration,
}

#[test]
fn a_killed_worker_is_replaced_and_the_service_keeps_answering() {
    let mut srv = Server::start_capturing(&["--workers", "2"]);
    let (addr, port) = (srv.addr, srv.addr.port());
    let before = srv.workers();
    assert_eq!(before.len(), 2);
    let victim = *before.first().unwrap();

    // Closed-loop load: CLIENTS threads, each a new connection per request (like `ab` without
    // -k), so a kill finds connections queued on the victim's accept queue.
    let stop = Arc::new(AtomicBool::new(false));
    let killed_at: Arc<std::sync::OnceLock<Instant>> = Arc::new(std::sync::OnceLock::new());
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (stop, killed_at) = (Arc::clone(&stop), Arc::clone(&killed_at));
            std::thread::spawn(move || {
                let mut t = Tally::default();
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) && sent < 10_000 {
                    let started = Instant::now();
                    let r = get_once(addr, "/hello", Duration::from_secs(3));
                    sent += 1;
                    // A request counts as "after" if the kill came before it ended.
                    let after = killed_at.get().is_some_and(|&k| k <= Instant::now());
                    match (r, after) {
                        (Ok(_), false) => t.ok_before += 1,
                        (Err(_), false) => t.failed_before += 1,
                        (Ok(_), true) => t.ok_after += 1,
                        (Err(e), true) => {
                            let k = *killed_at.get().unwrap();
                            t.last_failure = t.last_failure.max(k.elapsed());
                            let when = if started < k {
                                format!("{} us before", (k - started).as_micros())
                            } else {
                                format!("{} us after", (started - k).as_micros())
                            };
                            t.failed_after.push(format!(
                                "client {client}: {e} (sent {when} the kill, took {} us)",
                                started.elapsed().as_micros()
                            ));
                        }
                    }
                }
                t
            })
        })
        .collect();

    std::thread::sleep(Duration::from_millis(500));
    killed_at.set(Instant::now()).unwrap();
    // SAFETY: kill(2) on a worker PID read from /proc as a child of the supervisor we started.
    assert_eq!(unsafe { libc::kill(victim, libc::SIGKILL) }, 0);
    let kill = *killed_at.get().unwrap();

    // A replacement: a new worker process holding a listener on the port.
    let mut started_after = None;
    let replacement = loop {
        let now = srv.workers();
        if let Some(&pid) = now.difference(&before).next() {
            started_after.get_or_insert_with(|| kill.elapsed());
            if !listeners_of(pid, port).is_empty() {
                break pid;
            }
        }
        assert!(
            kill.elapsed() < Duration::from_secs(2),
            "no replacement listening 2 s after the kill: workers {now:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let replaced_after = kill.elapsed();
    let started_after = started_after.unwrap_or(replaced_after);
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    let mut total = Tally::default();
    for c in clients {
        let t = c.join().unwrap();
        total.last_failure = total.last_failure.max(t.last_failure);
        total.ok_before += t.ok_before;
        total.failed_before += t.failed_before;
        total.ok_after += t.ok_after;
        total.failed_after.extend(t.failed_after);
    }
    let failed = total.failed_after.len() as u64;
    let sent = total.ok_before + total.failed_before + total.ok_after + failed;
    report(&format!(
        "kill figure: SIGKILL to 1 of 2 workers under load ({CLIENTS} clients, a new connection \
         per request, {sent} requests in {:.1} s): {failed} requests failed by the kill, \
         {} before it; replacement pid {replacement} started {} ms and listening {} ms after \
         the kill; {} requests answered after the kill; the last failure ended {} us after \
         the kill",
        (kill.elapsed() + Duration::from_millis(500)).as_secs_f64(),
        total.failed_before,
        started_after.as_millis(),
        replaced_after.as_millis(),
        total.ok_after,
        total.last_failure.as_micros(),
    ));
    for f in &total.failed_after {
        report(&format!("kill figure: failed: {f}"));
    }
    assert_eq!(total.failed_before, 0);
    assert!(total.ok_after > 0, "nothing answered after the kill");
    // Only the connections the victim held when it died fail (those it had accepted, and
    // those queued on its listener until the kernel closed it, a few milliseconds after the
    // signal); they fail at once with a reset, and nothing fails after that.
    assert!(
        total.last_failure < Duration::from_millis(500),
        "a request failed {} ms after the kill",
        total.last_failure.as_millis()
    );

    // The replacement serves: with the victim's socket gone, every request lands on a live one.
    for _ in 0..50 {
        get_once(addr, "/hello", Duration::from_secs(5)).unwrap();
    }
    let after = srv.workers();
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(after.contains(&replacement) && !after.contains(&victim));
    assert_eq!(listening_inodes(port).len(), 2);
    // One line on stderr for the restart.
    let lines = srv.stderr.lock().unwrap().clone();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(&format!("(pid {victim})")) && lines[0].contains("restarting"),
        "{lines:?}"
    );
}

#[test]
fn sigterm_to_the_supervisor_stops_every_worker_and_exits_0() {
    for (sig, workers) in [(libc::SIGTERM, "2"), (libc::SIGINT, "1")] {
        let mut srv = Server::start(&["--workers", workers]);
        let pids = srv.workers();
        assert_eq!(pids.len().to_string(), workers);
        srv.signal(sig);
        let status = srv.wait_exit(Duration::from_secs(10));
        assert_eq!(status.and_then(|s| s.code()), Some(0), "{status:?}");
        // The supervisor reaped them: not even a zombie is left.
        for pid in pids {
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists()
                    || !common::is_worker_of(pid, srv.pid()),
                "worker {pid} is still there"
            );
        }
        assert!(refuses(srv.addr));
    }
}

#[test]
fn sigkill_to_the_supervisor_leaves_no_worker_alive_within_2s() {
    let mut srv = Server::start(&["--workers", "2"]);
    let pids = srv.workers();
    assert_eq!(pids.len(), 2);
    let killed = Instant::now();
    srv.signal(libc::SIGKILL);
    srv.process.child_mut().wait().unwrap();
    while !pids.iter().all(|&p| is_dead(p)) {
        assert!(
            killed.elapsed() < Duration::from_secs(2),
            "workers alive 2 s after the supervisor died: {:?}",
            pids.iter().filter(|&&p| !is_dead(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    report(&format!(
        "every worker dead {} ms after SIGKILL to the supervisor",
        killed.elapsed().as_millis()
    ));
    assert!(refuses(srv.addr));
}

fn bad_start(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env_remove("ADDR")
        .env_remove("PORT")
        .env_remove("AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.spawn().unwrap().wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_one_line_exit_2((code, stdout, stderr): (Option<i32>, String, String), needle: &str) {
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(stderr.contains(needle), "{stderr:?}");
    assert!(!stderr.contains("panicked"), "{stderr:?}");
    assert!(stdout.is_empty(), "{stdout:?}");
}

#[test]
fn bad_starts_are_one_line_and_exit_2() {
    let srv = Server::start(&["--workers", "1"]);
    let taken = srv.addr.to_string();
    assert_one_line_exit_2(bad_start(&["--addr", &taken], &[]), "already in use");
    assert_one_line_exit_2(
        bad_start(&["--addr", &taken, "--workers", "3"], &[]),
        "already in use",
    );
    assert_one_line_exit_2(bad_start(&["--bogus"], &[]), "--bogus");
    assert_one_line_exit_2(bad_start(&["--engine", "nginx"], &[]), "nginx");
    assert_one_line_exit_2(bad_start(&["--workers", "0"], &[]), "workers");
    assert_one_line_exit_2(bad_start(&["--addr", "1.2.3.4:80"], &[]), "1.2.3.4:80");
    assert_one_line_exit_2(bad_start(&[], &[("PORT", "99999")]), "PORT");
    // The worker flag is the supervisor's: a process that is not its child refuses to serve.
    assert_one_line_exit_2(
        bad_start(&["--worker-of", "1", "--addr", "127.0.0.1:0"], &[]),
        "--worker-of",
    );
}
