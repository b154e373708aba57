//! Every error kind provoked by a misbehaving in-test server and classified exactly.

mod common;

use std::time::{Duration, Instant};

use common::{Action, TestServer, config, ok, reply};

#[test]
fn refused_port_is_connect() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let r = loadgen::run(&config(&format!("http://{addr}/"), 50, 3)).unwrap();
    assert_eq!((r.requests, r.errors.connect, r.responses), (50, 50, 0));
    assert_eq!(r.errors.total(), 50);
}

#[test]
fn reset_is_read() {
    let server = TestServer::start(|_| Action::Reset);
    let r = loadgen::run(&config(&server.url("/"), 40, 2)).unwrap();
    assert_eq!(r.requests, 40);
    assert_eq!(r.errors.read + r.errors.write, 40, "{:?}", r.errors);
    assert!(r.errors.read >= 20, "{:?}", r.errors);
}

#[test]
fn never_answered_is_timeout() {
    let server = TestServer::start(|_| Action::Hang);
    let mut cfg = config(&server.url("/"), 4, 2);
    cfg.timeout = Duration::from_millis(200);
    let t = Instant::now();
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!((r.requests, r.errors.timeout, r.responses), (4, 4, 0));
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn error_statuses_by_class() {
    let server = TestServer::start(|req| match req.n % 4 {
        0 => Action::Reply(reply(req, 404, b"nf")),
        1 => Action::Reply(reply(req, 503, b"busy")),
        2 => Action::Reply(reply(req, 302, b"")),
        _ => ok(req),
    });
    let r = loadgen::run(&config(&server.url("/"), 100, 1)).unwrap();
    assert_eq!((r.requests, r.responses, r.ok), (100, 100, 50));
    assert_eq!((r.errors.status_4xx, r.errors.status_5xx), (25, 25));
    assert_eq!(
        (r.status.s2xx, r.status.s3xx, r.status.s4xx, r.status.s5xx),
        (25, 25, 25, 25)
    );
    assert_eq!(r.errors.transport(), 0);
}

#[test]
fn bad_framing() {
    for bad in [
        &b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n"[..],
        b"SMTP ready\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX",
    ] {
        let server = TestServer::start(move |_| Action::Reply(bad.to_vec()));
        let r = loadgen::run(&config(&server.url("/"), 20, 2)).unwrap();
        assert_eq!(
            (r.requests, r.errors.framing),
            (20, 20),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn close_mid_body_is_read() {
    let server = TestServer::start(|_| {
        Action::ReplyClose(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort".to_vec())
    });
    let r = loadgen::run(&config(&server.url("/"), 20, 2)).unwrap();
    assert_eq!((r.requests, r.errors.read, r.responses), (20, 20, 0));
}

#[test]
fn mixed_failures_still_add_up() {
    let server = TestServer::start(|req| match req.n % 5 {
        0 => Action::Reset,
        1 => Action::Reply(b"junk\r\n\r\n".to_vec()),
        2 => Action::Reply(reply(req, 500, b"")),
        _ => ok(req),
    });
    let mut cfg = config(&server.url("/"), 500, 4);
    cfg.threads = 2;
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!(r.requests, 500);
    assert_eq!(r.responses + r.errors.transport(), 500);
    assert!(
        r.errors.framing > 0 && r.errors.status_5xx > 0 && r.errors.read > 0,
        "{:?}",
        r.errors
    );
}
