//! Start-up and shutdown behaviour of the binary: ready line, signals, bad starts.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, Server, get, read_one, roundtrip};
use contract::body;

#[test]
fn sigterm_lets_an_in_flight_request_finish_then_exits_0() {
    let mut srv = Server::start(&[]);
    let mut s = srv.connect();
    // An idle keep-alive connection must not hold the shutdown up.
    let mut idle = srv.connect();
    assert_eq!(roundtrip(&mut idle, &get("/hello"), false).status, 200);
    s.write_all(&get("/api/async")).unwrap();
    // Signal while the 10 ms timer runs (the request has surely reached the server once
    // a request sent after it on another connection is answered).
    let mut probe = srv.connect();
    assert_eq!(roundtrip(&mut probe, &get("/hello"), false).status, 200);
    srv.signal(libc::SIGTERM);
    let r = read_one(&mut s, false);
    assert_eq!((r.status, r.body.as_slice()), (200, body::ASYNC_JSON));
    let start = Instant::now();
    assert_eq!(srv.wait_exit(Duration::from_secs(10)), Some(0));
    assert!(start.elapsed() < Duration::from_secs(6));
}

#[test]
fn sigint_exits_0() {
    let mut srv = Server::start(&["--workers", "2"]);
    srv.signal(libc::SIGINT);
    assert_eq!(srv.wait_exit(Duration::from_secs(10)), Some(0));
}

fn bad_start(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(BIN);
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
    let child = cmd.spawn().unwrap();
    let out = child.wait_with_output().unwrap();
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
fn taken_port_is_one_line_and_exit_2() {
    let srv = Server::start(&[]);
    let addr = srv.addr.to_string();
    assert_one_line_exit_2(bad_start(&["--addr", &addr], &[]), "already in use");
    assert_one_line_exit_2(
        bad_start(&["--addr", &addr, "--workers", "2"], &[]),
        "already in use",
    );
}

#[test]
fn bad_flag_and_bad_address_are_one_line_and_exit_2() {
    assert_one_line_exit_2(bad_start(&["--bogus"], &[]), "--bogus");
    assert_one_line_exit_2(bad_start(&["--workers", "x"], &[]), "workers");
    assert_one_line_exit_2(bad_start(&["--workers", "0"], &[]), "workers");
    assert_one_line_exit_2(bad_start(&["--addr", "nonsense"], &[]), "nonsense");
    assert_one_line_exit_2(bad_start(&["--addr", "1.2.3.4:80"], &[]), "1.2.3.4:80");
    assert_one_line_exit_2(bad_start(&[], &[("PORT", "99999")]), "PORT");
}

#[test]
fn port_from_the_environment() {
    // PORT=0 on 127.0.0.1: the ready line shows the real port.
    let mut cmd = Command::new(BIN);
    cmd.env_remove("ADDR").env("PORT", "0");
    let srv = Server::spawn(cmd);
    assert!(
        srv.addr.ip().is_loopback() && srv.addr.port() != 0,
        "{}",
        srv.addr
    );
}

/// E4's remedy must not become the problem (the shared check says how).
#[test]
fn sync_offload_keeps_the_blocking_pool_to_the_cpus() {
    conformance::suite::Variant::new("server-hyper", BIN).assert_offload_pool_capped();
}
