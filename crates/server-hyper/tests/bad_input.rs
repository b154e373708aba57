//! Every row of `docs/contract.md` "Bad input" that this server handles, with exact bytes on
//! the wire.

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::{Resp, Server, get, parse_all, parse_one, read_n, read_one, read_to_close, roundtrip};
use contract::body;

/// Sends `req` on a new connection and expects exactly one answer, then the close.
fn answered_then_closed(srv: &Server, req: &[u8]) -> Resp {
    let (bytes, closed) = srv.exchange_until_close(req);
    assert!(
        closed,
        "still open after {:?}",
        String::from_utf8_lossy(&bytes)
    );
    let all = parse_all(&bytes, false);
    assert_eq!(all.len(), 1, "{all:?}");
    all.into_iter().next().unwrap()
}

/// An error answer: `status`, empty body, `content-length: 0`, `connection: close`.
fn assert_error(r: &Resp, status: u16) {
    assert_eq!(r.status, status, "{r:?}");
    assert_eq!(r.header("content-length"), Some("0"), "{r:?}");
    assert_eq!(r.header("connection"), Some("close"), "{r:?}");
    assert!(r.body.is_empty());
    r.assert_names(&["connection", "content-length", "date"]);
}

#[test]
fn unparsable_request_line_or_field_is_400_and_close() {
    let srv = Server::start(&[]);
    for req in [
        &b"GET /hello HTTP/1.1 extra\r\n\r\n"[..],
        b"GET\r\n\r\n",
        b"GET /hel lo HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: x\r\nBad Name: x\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: x\r\nno-colon\r\n\r\n",
        b"\x00\x01\x02 / HTTP/1.1\r\nHost: x\r\n\r\n",
    ] {
        let r = answered_then_closed(&srv, req);
        assert_error(&r, 400);
    }
}

fn head_of(total: usize) -> Vec<u8> {
    let base = b"GET /hello HTTP/1.1\r\nHost: t\r\nX-Pad: ";
    let mut h = base.to_vec();
    h.resize(total - 4, b'a');
    h.extend_from_slice(b"\r\n\r\n");
    assert_eq!(h.len(), total);
    h
}

#[test]
fn head_limit_is_8192_bytes() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let r = roundtrip(&mut s, &head_of(body::MAX_HEAD), false);
    assert_eq!((r.status, r.body.as_slice()), (200, body::HELLO_TEXT));
    // The same size in two writes, with a pipelined request behind it.
    s.write_all(&head_of(body::MAX_HEAD)[..8000]).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let mut rest = head_of(body::MAX_HEAD)[8000..].to_vec();
    rest.extend_from_slice(&get("/api/hello"));
    s.write_all(&rest).unwrap();
    let got = read_n(&mut s, 2, false);
    assert_eq!(
        (got[0].status, got[1].body.as_slice()),
        (200, body::HELLO_JSON)
    );

    for (size, split) in [(8193, None), (8300, Some(8000)), (20_000, None)] {
        let h = head_of(size);
        let mut s = srv.connect();
        match split {
            Some(at) => {
                s.write_all(&h[..at]).unwrap();
                std::thread::sleep(Duration::from_millis(50));
                s.write_all(&h[at..]).unwrap();
            }
            None => s.write_all(&h).unwrap(),
        }
        let (bytes, closed) = read_to_close(&mut s);
        assert!(closed);
        let r = parse_one(&bytes, false).0;
        assert_eq!(r.status, 431, "{size}");
        assert_eq!(r.header("connection"), Some("close"));
        assert_eq!(r.header("content-length"), Some("0"));
    }
}

#[test]
fn content_length_body_is_discarded_and_the_next_request_served() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let mut req =
        b"POST /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world".to_vec();
    req.extend_from_slice(&get("/hello"));
    s.write_all(&req).unwrap();
    let [r, next] = <[_; 2]>::try_from(read_n(&mut s, 2, false)).unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.header("connection"), None);
    assert_eq!(next.body, body::HELLO_TEXT);
    // A body of exactly the limit, sent slowly in pieces, is still read and discarded.
    let head = format!(
        "GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body::MAX_BODY
    );
    s.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 65536];
    for _ in 0..(body::MAX_BODY as usize / chunk.len()) {
        s.write_all(&chunk).unwrap();
    }
    assert_eq!(read_one(&mut s, false).body, body::HELLO_TEXT);
    assert_eq!(roundtrip(&mut s, &get("/api/hello"), false).status, 200);
}

#[test]
fn content_length_over_the_limit_is_413_at_once() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let head = format!(
        "POST /hello HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body::MAX_BODY + 1
    );
    // No body byte is sent: the answer must not wait for one.
    s.write_all(head.as_bytes()).unwrap();
    let start = Instant::now();
    let (bytes, closed) = read_to_close(&mut s);
    assert!(closed && start.elapsed() < Duration::from_secs(5));
    let r = parse_one(&bytes, false).0;
    assert_error(&r, 413);
    assert_eq!(r.status_line, "HTTP/1.1 413 Payload Too Large");
}

fn chunked(total: usize) -> Vec<u8> {
    let mut v = b"POST /hello HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let mut left = total;
    while left > 0 {
        let n = left.min(60_000);
        v.extend_from_slice(format!("{n:x}\r\n").as_bytes());
        v.resize(v.len() + n, b'z');
        v.extend_from_slice(b"\r\n");
        left -= n;
    }
    v.extend_from_slice(b"0\r\n\r\n");
    v
}

#[test]
fn chunked_body_is_decoded_and_discarded() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let mut req = chunked(5000);
    req.extend_from_slice(&get("/api/hello"));
    s.write_all(&req).unwrap();
    let got = read_n(&mut s, 2, false);
    assert_eq!(
        (got[0].status, got[1].body.as_slice()),
        (405, body::HELLO_JSON)
    );
    let mut req = chunked(body::MAX_BODY as usize);
    req.extend_from_slice(&get("/hello"));
    s.write_all(&req).unwrap();
    let got = read_n(&mut s, 2, false);
    assert_eq!((got[0].status, got[1].status), (405, 200));

    // Past the limit: 413 and close, without reading the rest.
    let mut s = srv.connect();
    let big = chunked(body::MAX_BODY as usize + 1);
    let _ = s.write_all(&big);
    let (bytes, closed) = read_to_close(&mut s);
    assert!(closed);
    assert_error(&parse_one(&bytes, false).0, 413);

    // A chunk size that is not hex: 400 and close.
    let bad = b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";
    assert_error(&answered_then_closed(&srv, bad), 400);
}

#[test]
fn conflicting_lengths_are_400_and_close() {
    let srv = Server::start(&[]);
    let two =
        b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nhello";
    assert_error(&answered_then_closed(&srv, two), 400);
    let bad = b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 4x\r\n\r\nhell";
    assert_error(&answered_then_closed(&srv, bad), 400);
    // Equal repeated values are one length.
    let mut s = srv.connect();
    let same =
        b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello";
    assert_eq!(roundtrip(&mut s, same, false).status, 405);
    assert_eq!(roundtrip(&mut s, &get("/hello"), false).status, 200);
}

#[test]
fn content_length_with_transfer_encoding_is_400_and_close() {
    let srv = Server::start(&[]);
    // Whichever comes first, the smuggled request behind the chunked body is never answered.
    for req in [
        &b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\nGET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n",
    ] {
        assert_error(&answered_then_closed(&srv, req), 400);
    }
}

#[test]
fn other_transfer_codings_are_refused_and_closed() {
    let srv = Server::start(&[]);
    // hyper answers 400 when `chunked` is not the last coding, and for HTTP/1.0.
    let gzip = b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n";
    assert_error(&answered_then_closed(&srv, gzip), 400);
    let te10 = b"POST /hello HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    assert_error(&answered_then_closed(&srv, te10), 400);
    // `gzip, chunked` reaches the service: 501.
    let list =
        b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n";
    let r = answered_then_closed(&srv, list);
    assert_error(&r, 501);
    assert_eq!(r.status_line, "HTTP/1.1 501 Not Implemented");
    let two = b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    assert_error(&answered_then_closed(&srv, two), 501);
}

#[test]
fn other_http_versions_are_refused_and_closed() {
    let srv = Server::start(&[]);
    for req in [
        &b"GET /hello HTTP/1.2\r\n\r\n"[..],
        b"GET /hello HTTP/2.0\r\n\r\n",
        b"GET /hello HTTP/0.9\r\n\r\n",
        b"GET /hello FTP/1.1\r\n\r\n",
    ] {
        let r = answered_then_closed(&srv, req);
        assert!(r.status == 400 || r.status == 505, "{r:?}");
        assert_error(&r, r.status);
    }
    // The HTTP/2 preface: hyper closes without answering.
    let (bytes, closed) = srv.exchange_until_close(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    assert!(closed);
    assert!(bytes.is_empty() || parse_one(&bytes, false).0.status == 400);
}

#[test]
fn connection_field_rules() {
    let srv = Server::start(&[]);
    // HTTP/1.0 without keep-alive: answered with `connection: close`, then closed.
    let r = answered_then_closed(&srv, b"GET /hello HTTP/1.0\r\n\r\n");
    assert_eq!(r.header("connection"), Some("close"));
    r.assert_names(&["connection", "content-length", "content-type", "date"]);
    assert_eq!(r.body, body::HELLO_TEXT);
    // HTTP/1.1 with `connection: close`: the same.
    let r = answered_then_closed(
        &srv,
        b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status_line, "HTTP/1.1 200 OK");
    assert_eq!(r.header("connection"), Some("close"));
    // HTTP/1.0 keep-alive: `connection: keep-alive`, and the connection stays usable.
    let mut s = srv.connect();
    let ka = b"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
    for _ in 0..3 {
        let r = roundtrip(&mut s, ka, false);
        assert_eq!(r.header("connection"), Some("keep-alive"));
        r.assert_names(&["connection", "content-length", "content-type", "date"]);
    }
    // An HTTP/1.0 keep-alive request whose answer closes says only `close`.
    let big = format!(
        "POST /hello HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: {}\r\n\r\n",
        body::MAX_BODY + 1
    );
    let r = answered_then_closed(&srv, big.as_bytes());
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    // HTTP/1.1 keep-alive: no `connection` field at all.
    let mut s = srv.connect();
    let r = roundtrip(&mut s, &get("/hello"), false);
    assert_eq!(r.header("connection"), None);
}

#[test]
fn slowloris_head_is_closed_after_10_s_but_idle_connections_stay() {
    let srv = Server::start(&[]);
    // Idle connections: a fresh one, and one after a first response.
    let mut fresh = srv.connect();
    let mut used = srv.connect();
    assert_eq!(roundtrip(&mut used, &get("/hello"), false).status, 200);
    // A head that starts at once and never completes.
    let mut slow = srv.connect();
    slow.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\nHo")
        .unwrap();
    // A second request's head started after a completed one, trickled byte by byte.
    let mut trickle = srv.connect();
    assert_eq!(roundtrip(&mut trickle, &get("/hello"), false).status, 200);
    std::thread::sleep(Duration::from_secs(2));
    let start = Instant::now();
    let t = std::thread::spawn(move || {
        for b in b"GET /hello HTTP/1.1\r\nHost: x\r\nX: "
            .iter()
            .chain([b'a'; 40].iter())
        {
            if trickle.write_all(&[*b]).is_err() {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        None
    });
    let (bytes, closed) = read_to_close(&mut slow);
    let waited = start.elapsed() + Duration::from_secs(2);
    assert!(
        closed && bytes.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(13),
        "{waited:?}"
    );
    let broke = t
        .join()
        .unwrap()
        .expect("the trickled head was never cut off");
    assert!(broke < Duration::from_secs(14), "{broke:?}");
    // The idle connections are kept at least 60 s.
    std::thread::sleep(Duration::from_secs(62).saturating_sub(start.elapsed()));
    assert_eq!(roundtrip(&mut fresh, &get("/hello"), false).status, 200);
    assert_eq!(roundtrip(&mut used, &get("/hello"), false).status, 200);
}
