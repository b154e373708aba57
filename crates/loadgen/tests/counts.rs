//! Exact counts, every mode, pipelining, stages and warm-up, against in-test servers and the
//! real server-hyper engine.

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{Action, MODES, TestServer, config, hyper_server, ok, reply};
use loadgen::{Load, Mode, Stage};

#[test]
fn exact_counts_in_every_mode() {
    for mode in MODES {
        let server = TestServer::start(ok);
        let mut cfg = config(&server.url("/"), 1003, 7);
        cfg.threads = 2;
        cfg.mode = mode;
        let r = loadgen::run(&cfg).unwrap();
        assert_eq!(
            (r.requests, r.responses, r.ok),
            (1003, 1003, 1003),
            "{mode:?}"
        );
        assert_eq!(r.errors.total(), 0, "{mode:?}");
        assert_eq!(server.requests(), 1003, "{mode:?}");
        assert_eq!(r.latency.count, 1003);
        assert_eq!(r.status.s2xx, 1003);
        let opened = server.counts.connections.load(Ordering::SeqCst);
        assert_eq!(r.connections_opened, opened, "{mode:?}");
        if mode.persistent() {
            assert_eq!(opened, 7, "{mode:?} reuses its connections");
        } else {
            assert_eq!(opened, 1003, "{mode:?} opens one connection per request");
        }
        let per = reply(
            &common::Req {
                n: 0,
                version: 1,
                keep_alive: true,
                path: "/".into(),
            },
            200,
            b"hello",
        )
        .len();
        assert!(r.bytes_per_response >= per as f64, "{mode:?}");
    }
}

#[test]
fn http10_keep_alive_needs_the_servers_consent() {
    // A server that answers HTTP/1.0 without `connection: keep-alive` closes each time.
    let server = TestServer::start(|_| {
        Action::ReplyClose(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok".to_vec())
    });
    let mut cfg = config(&server.url("/"), 50, 2);
    cfg.mode = Mode::Http10KeepAlive;
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!((r.responses, r.errors.total()), (50, 0));
    assert_eq!(r.connections_opened, 50);
}

#[test]
fn bodies_until_close_and_chunked() {
    let server = TestServer::start(|req| {
        if req.n % 2 == 0 {
            Action::ReplyClose(b"HTTP/1.0 200 OK\r\n\r\nuntil close".to_vec())
        } else {
            Action::Reply(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                    .to_vec(),
            )
        }
    });
    let r = loadgen::run(&config(&server.url("/"), 100, 1)).unwrap();
    assert_eq!((r.responses, r.errors.total()), (100, 0));
    assert_eq!(r.response_bytes, 50 * 30 + 50 * 60);
}

#[test]
fn pipelined_batches_are_answered_in_order() {
    // Response i has a body of i % 5 + 1 bytes: the sum comes out right only if every
    // response of a batch is framed in order.
    let server = TestServer::start(|req| {
        let body = vec![b'x'; (req.n % 5 + 1) as usize];
        Action::Reply(reply(req, 200, &body))
    });
    let mut cfg = config(&server.url("/"), 103, 3);
    cfg.pipeline = 8;
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!((r.requests, r.responses, r.errors.total()), (103, 103, 0));
    assert_eq!(server.requests(), 103);
    let head = reply(
        &common::Req {
            n: 0,
            version: 1,
            keep_alive: true,
            path: "/".into(),
        },
        200,
        b"",
    )
    .len() as u64;
    let bodies: u64 = (0..103).map(|n| n % 5 + 1).sum();
    assert_eq!(r.response_bytes, 103 * head + bodies);
    assert!(
        server.counts.max_batch.load(Ordering::SeqCst) >= 2,
        "requests were pipelined"
    );
    assert_eq!(r.connections_opened, 3);
}

#[test]
fn pipelined_batch_cut_by_a_close_counts_the_rest_as_read_errors() {
    let server = TestServer::start(|req| {
        if req.n == 2 {
            Action::ReplyClose(reply(req, 200, b"bye"))
        } else {
            ok(req)
        }
    });
    let mut cfg = config(&server.url("/"), 16, 1);
    cfg.pipeline = 4;
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!(r.requests, 16);
    assert_eq!(r.responses + r.errors.read, 16);
    assert_eq!(r.errors.read, 1, "{r:?}");
}

#[test]
fn real_server_hyper_every_mode() {
    let addr = hyper_server();
    for mode in MODES {
        let mut cfg = config(&format!("http://{addr}/hello"), 2000, 20);
        cfg.threads = 2;
        cfg.mode = mode;
        let r = loadgen::run(&cfg).unwrap();
        assert_eq!((r.requests, r.ok), (2000, 2000), "{mode:?} {r:?}");
        if mode.persistent() {
            assert_eq!(r.connections_opened, 20, "{mode:?}");
        } else {
            assert_eq!(r.connections_opened, 2000, "{mode:?}");
        }
    }
}

#[test]
fn thousands_of_connections() {
    let addr = hyper_server();
    let mut cfg = config(&format!("http://{addr}/hello"), 8000, 4000);
    cfg.threads = 2;
    cfg.timeout = Duration::from_secs(10);
    let r = loadgen::run(&cfg).unwrap();
    assert_eq!(
        (r.requests, r.ok, r.connections_opened),
        (8000, 8000, 4000),
        "{:?}",
        r.errors
    );
}

#[test]
fn duration_and_warmup() {
    let server =
        TestServer::start(|req| Action::Delay(Duration::from_millis(1), reply(req, 200, b"x")));
    let mut cfg = config(&server.url("/"), 1, 4);
    cfg.requests = None;
    cfg.duration = Some(Duration::from_millis(600));
    cfg.warmup = Duration::from_millis(300);
    let r = loadgen::run(&cfg).unwrap();
    assert!((r.duration_s - 0.6).abs() < 0.1, "{}", r.duration_s);
    assert!(r.responses > 100, "{r:?}");
    let sent = server.requests();
    assert!(
        sent > r.responses + r.unfinished + 50,
        "warm-up requests are discarded: {sent} vs {}",
        r.responses
    );
    assert!(r.unfinished <= 4);
    // wrk's Req/Sec row: 100 ms samples of the one thread over the measured 600 ms.
    let rate = &r.thread_requests_per_s;
    assert!((5..=6).contains(&rate.samples), "{rate:?}");
    assert!(
        (rate.mean / r.requests_per_s - 1.0).abs() < 0.3,
        "{rate:?} vs {}",
        r.requests_per_s
    );
}

#[test]
fn stages_ramp_connections() {
    let server =
        TestServer::start(|req| Action::Delay(Duration::from_millis(2), reply(req, 200, b"x")));
    let mut cfg = config(&server.url("/"), 1, 1);
    cfg.requests = None;
    cfg.duration = None;
    let ms = Duration::from_millis;
    cfg.load = Load::Stages {
        stages: vec![
            Stage {
                duration: ms(300),
                connections: 2,
            },
            Stage {
                duration: ms(300),
                connections: 6,
            },
            Stage {
                duration: ms(300),
                connections: 6,
            },
            Stage {
                duration: ms(300),
                connections: 0,
            },
        ],
    };
    cfg.threads = 2;
    let r = loadgen::run(&cfg).unwrap();
    assert!((r.duration_s - 1.2).abs() < 0.15, "{}", r.duration_s);
    assert_eq!(server.counts.max_live.load(Ordering::SeqCst), 6);
    assert!(r.responses > 300 && r.errors.total() == 0, "{r:?}");
}

#[test]
fn interim_responses_are_skipped() {
    let server = TestServer::start(|req| {
        let mut b = b"HTTP/1.1 100 Continue\r\n\r\n".to_vec();
        b.extend_from_slice(&reply(req, 200, b"ok"));
        Action::Reply(b)
    });
    let r = loadgen::run(&config(&server.url("/"), 30, 2)).unwrap();
    assert_eq!(
        (r.responses, r.ok, r.status.s1xx, r.errors.total()),
        (30, 30, 0, 0)
    );
}
