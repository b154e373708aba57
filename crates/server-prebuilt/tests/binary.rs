//! The real binary over real sockets: start-up and exit behaviour, and the rows of
//! `docs/contract.md` "Bad input" in raw TCP.

mod common;

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Server, answer_then_close, closes_within, read_answers};

fn assert_error_close(server: &Server, request: &[u8], codes: &[u16]) {
    let a = answer_then_close(server, request);
    assert!(
        codes.contains(&a.code),
        "{a:?} for {:?}",
        String::from_utf8_lossy(request)
    );
    assert_eq!(a.field("connection"), Some("close"));
    assert_eq!(a.field("content-length"), Some("0"));
    assert!(a.body.is_empty());
}

#[test]
fn serves_pipelined_requests_in_order() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    s.write_all(
        b"GET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /nope HTTP/1.1\r\nHost: x\r\n\r\n\
          HEAD / HTTP/1.1\r\nHost: x\r\n\r\n\
          POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc\
          GET /my/ip HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    let a = read_answers(&mut s, 5, &[false, false, true]);
    let codes: Vec<u16> = a.iter().map(|a| a.code).collect();
    assert_eq!(codes, [200, 404, 200, 405, 200]);
    assert_eq!(a[0].body, br#"{"message":"Hello World"}"#);
    assert_eq!(a[2].field("content-length"), Some("1024"));
    assert_eq!(a[3].field("allow"), Some("GET, HEAD"));
    assert_eq!(a[4].body, b"127.0.0.1");
    // Still open for more.
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_answers(&mut s, 1, &[])[0].body, b"Hello, World");
}

/// A pipeline deeper than one vectored write takes (the answers are copied together) and
/// larger than the socket takes at once (the rest is queued and flushed), in order.
#[test]
fn serves_a_deep_pipeline_in_order() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let mut burst = Vec::new();
    for i in 0..300 {
        burst.extend_from_slice(if i % 3 == 2 {
            &b"GET /my/ip HTTP/1.1\r\nHost: x\r\n\r\n"[..]
        } else {
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        });
    }
    s.write_all(&burst).unwrap();
    let a = read_answers(&mut s, 300, &[]);
    for (i, a) in a.iter().enumerate() {
        assert_eq!(a.code, 200, "{i}");
        if i % 3 == 2 {
            assert_eq!(a.body, b"127.0.0.1", "{i}");
        } else {
            assert_eq!(a.body, vec![b'.'; 1024], "{i}");
        }
    }
}

#[test]
fn bad_input_is_answered_and_closed() {
    let server = Server::start(&[]);
    assert_error_close(
        &server,
        b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
        &[400],
    );
    assert_error_close(&server, b"NOT A REQUEST LINE\r\n\r\n", &[400]);
    assert_error_close(
        &server,
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
        &[400],
    );
    assert_error_close(
        &server,
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        &[400],
    );
    assert_error_close(
        &server,
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        &[501],
    );
    assert_error_close(
        &server,
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n",
        &[413],
    );
    assert_error_close(&server, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", &[505, 400]);
    assert_error_close(&server, b"GET / HTTP/3.0\r\n\r\n", &[505, 400]);
}

#[test]
fn head_limit_is_8192_bytes() {
    let server = Server::start(&[]);
    let head = |len: usize| {
        let mut h = b"GET /hello HTTP/1.1\r\nHost: x\r\nX-Pad: ".to_vec();
        h.resize(len - 4, b'p');
        h.extend_from_slice(b"\r\n\r\n");
        h
    };
    let mut s = server.connect();
    s.write_all(&head(8192)).unwrap();
    assert_eq!(read_answers(&mut s, 1, &[])[0].code, 200);
    assert_error_close(&server, &head(8193), &[431]);
    assert_error_close(&server, &head(100_000), &[431]);
}

#[test]
fn big_bodies() {
    let server = Server::start(&[]);
    // A 1 MiB body, sent in pieces, is read and discarded; then the next request is served.
    let mut s = server.connect();
    s.write_all(b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
        .unwrap();
    for _ in 0..16 {
        s.write_all(&[b'x'; 65536]).unwrap();
    }
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let a = read_answers(&mut s, 2, &[]);
    assert_eq!((a[0].code, a[1].code), (405, 200));
    // The same as chunked.
    let mut s = server.connect();
    s.write_all(b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    for _ in 0..16 {
        s.write_all(b"10000\r\n").unwrap();
        s.write_all(&[b'x'; 65536]).unwrap();
        s.write_all(b"\r\n").unwrap();
    }
    s.write_all(b"0\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let a = read_answers(&mut s, 2, &[]);
    assert_eq!((a[0].code, a[1].code), (405, 200));
    // One chunked byte past 1 MiB: 413, even while the client keeps sending.
    let mut s = server.connect();
    s.write_all(b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n")
        .unwrap();
    let _ = s.write_all(&[b'x'; 200_000]);
    let a = read_answers(&mut s, 1, &[]);
    assert_eq!((a[0].code, a[0].field("connection")), (413, Some("close")));
    assert!(closes_within(&mut s, Duration::from_secs(5)));
}

#[test]
fn connection_close_rules() {
    let server = Server::start(&[]);
    let a = answer_then_close(&server, b"GET /hello HTTP/1.0\r\n\r\n");
    assert_eq!((a.code, a.field("connection")), (200, Some("close")));
    let a = answer_then_close(
        &server,
        b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, Close\r\n\r\n",
    );
    assert_eq!((a.code, a.field("connection")), (200, Some("close")));
    let mut s = server.connect();
    s.write_all(b"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        .unwrap();
    let a = read_answers(&mut s, 1, &[]).remove(0);
    assert_eq!(a.field("connection"), Some("keep-alive"));
    s.write_all(b"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        .unwrap();
    assert_eq!(read_answers(&mut s, 1, &[])[0].code, 200);
}

#[test]
fn slowloris_is_closed() {
    let server = Server::start(&[]);
    // A head that never completes: closed about 10 s after its first byte (408 may precede).
    let mut slow = server.connect();
    let start = Instant::now();
    slow.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n")
        .unwrap();
    for _ in 0..3 {
        std::thread::sleep(Duration::from_secs(2));
        slow.write_all(b"X-B: 2\r\n").unwrap();
    }
    assert!(closes_within(&mut slow, Duration::from_secs(10)));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(13),
        "{took:?}"
    );
}

#[test]
fn a_client_closing_mid_request_disturbs_no_one() {
    let server = Server::start(&[]);
    let mut other = server.connect();
    for partial in [
        &b"GET /hello HTTP/1.1\r\nHost: x\r\nHo"[..],
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    ] {
        let mut s = server.connect();
        s.write_all(partial).unwrap();
        drop(s);
    }
    // And one that does not read its answers.
    let mut s = server.connect();
    for _ in 0..200 {
        let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    other
        .write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_answers(&mut other, 1, &[])[0].code, 200);
    drop(s);
}

#[test]
fn sigterm_finishes_the_request_in_flight_and_exits_0() {
    let mut server = Server::start(&["--workers", "2"]);
    let mut s = server.connect();
    // A complete exchange first, so the connection is surely accepted.
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    read_answers(&mut s, 1, &[]);
    s.write_all(b"GET /api/hello HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    server.signal(libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(b"\r\n").unwrap();
    let a = read_answers(&mut s, 1, &[]).remove(0);
    assert_eq!(a.code, 200);
    assert_eq!(a.field("connection"), Some("close"));
    let status = server.wait_exit(Duration::from_secs(6)).expect("exits");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn sigint_with_idle_connections_exits_0_at_once() {
    let mut server = Server::start(&[]);
    let mut s = server.connect();
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    read_answers(&mut s, 1, &[]);
    let start = Instant::now();
    server.signal(libc::SIGINT);
    let status = server.wait_exit(Duration::from_secs(6)).expect("exits");
    assert_eq!(status.code(), Some(0));
    assert!(start.elapsed() < Duration::from_secs(2));
}

fn run_failing(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(common::BIN)
        .args(args)
        .env_remove("ADDR")
        .env_remove("PORT")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_starts_exit_2_with_one_line() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    for args in [
        &["--addr", addr.as_str()][..],
        &["--addr", addr.as_str(), "--workers", "2"],
        &["--bogus"],
        &["--addr", "not-an-address"],
        &["--workers", "0"],
    ] {
        let (code, stderr) = run_failing(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr:?}");
        assert!(!stderr.contains("panicked"));
    }
    let (_, stderr) = run_failing(&["--addr", addr.as_str()]);
    assert!(stderr.contains("in use"), "{stderr}");
}

#[test]
fn many_connections_at_once() {
    let server = Server::start(&[]);
    let mut conns: Vec<_> = (0..500).map(|_| server.connect()).collect();
    for s in &mut conns {
        s.write_all(b"GET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
    }
    for s in &mut conns {
        assert_eq!(read_answers(s, 1, &[])[0].code, 200);
    }
}

#[test]
fn accept_backs_off_when_out_of_descriptors() {
    // A hard descriptor limit of 40: the server runs out after some 30 connections.
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        &format!("ulimit -n 40 && exec {} --addr 127.0.0.1:0", common::BIN),
    ]);
    let server = Server::spawn(cmd);
    let mut conns: Vec<_> = (0..60).map(|_| server.connect()).collect();
    for s in &mut conns {
        s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
    }
    // The first ones are answered; the rest wait in the backlog.
    let mut answered = 0;
    for s in &mut conns {
        s.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut buf = [0u8; 512];
        if matches!(std::io::Read::read(s, &mut buf), Ok(n) if n > 0) {
            answered += 1;
        }
    }
    assert!((10..60).contains(&answered), "{answered} answered");
    // Once descriptors are free again, the waiting ones are served.
    let waiting = conns.split_off(answered);
    drop(conns);
    for mut s in waiting {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        assert_eq!(read_answers(&mut s, 1, &[])[0].code, 200);
    }
}

#[test]
fn sigterm_right_after_the_ready_line_exits_0() {
    for _ in 0..5 {
        let mut server = Server::start(&[]);
        server.signal(libc::SIGTERM);
        let status = server.wait_exit(Duration::from_secs(6)).expect("exits");
        assert_eq!(status.code(), Some(0), "{status:?}");
    }
}
