//! The connection state machine without sockets: exact answers to the contract's rows, and a
//! proptest that feeds streams of valid requests (random endpoints, bodies and splits) and
//! garbage, and parses every answer back with httparse.

use std::net::IpAddr;

use proptest::prelude::*;
use server_prebuilt::{Action, Conn, Responder};

const DATE: &[u8; 29] = b"Sun, 06 Nov 1994 08:49:37 GMT";
const TOKEN: &str = "bench-token";

fn responder() -> Responder {
    let mut r = Responder::new(TOKEN.as_bytes());
    r.set_date(DATE);
    r
}

fn peer() -> IpAddr {
    "127.0.0.1".parse().unwrap()
}

/// Feeds `chunks` one after the other (stopping after a close) and returns the output and
/// the last action.
fn feed(chunks: &[&[u8]]) -> (Vec<u8>, Action) {
    let mut r = responder();
    let mut conn = Conn::new(peer());
    let mut out = Vec::new();
    let mut action = Action::Idle;
    for c in chunks {
        action = conn.feed(&mut r, c, &mut out);
        if let Action::Close { .. } = action {
            break;
        }
    }
    (out, action)
}

fn one(input: &[u8]) -> (Vec<u8>, Action) {
    feed(&[input])
}

/// One parsed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    code: u16,
    fields: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `bytes` as a sequence of answers (the conformance suite's wire parser); `heads[i]`
/// says whether the i-th answers a HEAD (no body follows its head). Panics on anything that is
/// not a well-framed answer; a `100 Continue` must have no fields and is skipped.
fn answers(mut bytes: &[u8], heads: &[bool]) -> Vec<Answer> {
    let mut all = Vec::new();
    while !bytes.is_empty() {
        let head = heads.get(all.len()).copied().unwrap_or(false);
        let parsed = conformance::wire::parse_response(bytes, head, false);
        let Ok(Some((r, n))) = parsed else {
            panic!(
                "not an answer: {parsed:?} in {:?}",
                String::from_utf8_lossy(bytes)
            );
        };
        bytes = &bytes[n..];
        if r.status == 100 {
            assert!(r.headers.is_empty());
            continue;
        }
        assert!(
            r.header("content-length").is_some(),
            "content-length on every answer"
        );
        all.push(Answer {
            code: r.status,
            fields: r.headers,
            body: r.body,
        });
    }
    all
}

/// Checks the contract's exact field set on an answer.
fn check_fields(a: &Answer, head: bool) {
    let allowed = [
        "date",
        "content-length",
        "content-type",
        "connection",
        "allow",
    ];
    for (k, _) in &a.fields {
        assert!(allowed.contains(&k.as_str()), "unexpected field {k}");
    }
    assert_eq!(a.field("date").map(str::as_bytes), Some(&DATE[..]));
    let len: usize = a.field("content-length").unwrap().parse().unwrap();
    if !head {
        assert_eq!(len, a.body.len());
    }
    assert_eq!(a.field("content-type").is_some(), len > 0, "{a:?}");
    assert_eq!(a.field("allow").is_some(), a.code == 405);
    if let Some(c) = a.field("connection") {
        assert!(c == "close" || c == "keep-alive");
    }
}

fn single(input: &[u8]) -> (Answer, Action) {
    let (out, action) = one(input);
    let mut a = answers(&out, &[false]);
    assert_eq!(a.len(), 1, "{:?}", String::from_utf8_lossy(&out));
    let a = a.remove(0);
    check_fields(&a, false);
    (a, action)
}

fn assert_closes_with(input: &[u8], code: u16) {
    let (a, action) = single(input);
    assert_eq!(a.code, code, "{:?}", String::from_utf8_lossy(input));
    assert_eq!(a.field("connection"), Some("close"));
    assert!(a.body.is_empty());
    assert!(matches!(action, Action::Close { .. }), "{action:?}");
}

#[test]
fn endpoints() {
    let cases: &[(&str, u16, &[u8])] = &[
        ("/api/hello", 200, br#"{"message":"Hello World"}"#),
        ("/hello", 200, b"Hello, World"),
        ("/my/ip", 200, b"127.0.0.1"),
        ("/api?name=A&lastname=B", 200, b"Hey A B"),
        ("/api?n%61me=X+Y", 200, b"Hey X Y "),
        ("/api/private", 401, br#"{"error":"Unauthorized"}"#),
        (
            "http://host:8080/api/hello?x=1",
            200,
            br#"{"message":"Hello World"}"#,
        ),
        ("/api/hello/", 404, b""),
        ("/api/async", 404, b""),
        ("//", 404, b""),
    ];
    for (target, code, body) in cases {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
        let (a, action) = single(req.as_bytes());
        assert_eq!((a.code, &a.body[..]), (*code, *body), "{target}");
        assert_eq!(a.field("connection"), None);
        assert_eq!(action, Action::Idle);
    }
    let (a, _) = single(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(a.body, vec![b'.'; 1024]);
    assert_eq!(a.field("content-type"), Some("text/plain; charset=utf-8"));
}

#[test]
fn private_needs_exactly_one_exact_token() {
    let ok = "GET /api/private HTTP/1.1\r\nHost: x\r\nauthorization: Bearer bench-token\r\n\r\n";
    assert_eq!(single(ok.as_bytes()).0.code, 200);
    let twice = "GET /api/private HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bench-token\r\nAuthorization: Bearer bench-token\r\n\r\n";
    assert_eq!(single(twice.as_bytes()).0.code, 401);
    let wrong = "GET /api/private HTTP/1.1\r\nHost: x\r\nAuthorization: bearer bench-token\r\n\r\n";
    assert_eq!(single(wrong.as_bytes()).0.code, 401);
    let (out, _) = one(b"HEAD /api/private HTTP/1.1\r\nHost: x\r\n\r\n");
    let a = &answers(&out, &[true])[0];
    assert_eq!((a.code, a.field("content-length")), (401, Some("24")));
    assert_eq!(a.field("content-type"), Some("application/json"));
}

#[test]
fn methods() {
    let (a, _) = single(b"POST /hello HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!((a.code, a.field("allow")), (405, Some("GET, HEAD")));
    assert_eq!(
        single(b"get /hello HTTP/1.1\r\nHost: x\r\n\r\n").0.code,
        405
    );
    assert_eq!(
        single(b"POST /nope HTTP/1.1\r\nHost: x\r\n\r\n").0.code,
        404
    );
    let (out, action) = one(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
    let a = &answers(&out, &[true])[0];
    check_fields(a, true);
    assert_eq!((a.code, a.field("content-length")), (200, Some("1024")));
    assert!(a.body.is_empty() && action == Action::Idle);
    let (out, _) = one(b"HEAD /my/ip HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(answers(&out, &[true])[0].field("content-length"), Some("9"));
}

#[test]
fn connection_field() {
    let (a, action) = single(b"GET /hello HTTP/1.0\r\n\r\n");
    assert_eq!(a.field("connection"), Some("close"));
    assert_eq!(action, Action::Close { linger: false });
    let (a, action) = single(b"GET /hello HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
    assert_eq!(a.field("connection"), Some("keep-alive"));
    assert_eq!(action, Action::Idle);
    let (a, action) =
        single(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, CLOSE\r\n\r\n");
    assert_eq!(a.field("connection"), Some("close"));
    assert!(matches!(action, Action::Close { .. }));
    let (a, action) = single(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: upgrade,  te\r\n\r\n");
    assert_eq!((a.field("connection"), action), (None, Action::Idle));
    // Requests after a closing one are not answered, and the close lingers for them.
    let (out, action) =
        one(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(answers(&out, &[]).len(), 1);
    assert_eq!(action, Action::Close { linger: true });
}

#[test]
fn bad_heads() {
    assert_closes_with(b"GET / HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n", 400);
    assert_closes_with(b"GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", 400);
    assert_closes_with(b"GARBAGE\r\n\r\n", 400);
    assert_closes_with(b"GET / FOO/1.1\r\n\r\n", 400);
    assert_closes_with(b"GET / HTTP/1.2\r\n\r\n", 505);
    assert_closes_with(b"GET / HTTP/2.0\r\n\r\n", 505);
    assert_closes_with(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505);
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        400,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        400,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\n",
        400,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        400,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        501,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        501,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n",
        413,
    );
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        413,
    );
    // The same length twice is one length.
    let (a, action) =
        single(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nab");
    assert_eq!((a.code, action), (404, Action::Idle));
}

/// A head of exactly `len` bytes (request line through CRLF CRLF).
fn head_of(len: usize) -> Vec<u8> {
    let start = b"GET /hello HTTP/1.1\r\nHost: x\r\nX-Pad: ";
    let end = b"\r\n\r\n";
    let mut h = start.to_vec();
    h.resize(len - end.len(), b'a');
    h.extend_from_slice(end);
    assert_eq!(h.len(), len);
    h
}

#[test]
fn version_answer_does_not_depend_on_splits() {
    // Found by the fuzzer: the 400/505 choice once looked past what httparse had read.
    for stream in [
        &b"ET / HTTP/POST /hello HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"GET / HTTP/2x HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.5\r\n\r\n",
    ] {
        let whole = one(stream);
        for step in 1..stream.len() {
            let pieces: Vec<&[u8]> = stream.chunks(step).collect();
            assert_eq!(feed(&pieces), whole, "{step}");
        }
    }
    assert_closes_with(b"GET / HTTP/1.5\r\n\r\n", 505);
    assert_closes_with(b"GET / HTTP/POST\r\n\r\n", 400);
}

#[test]
fn host_rule() {
    // RFC 9112 §3.2: an HTTP/1.1 head needs exactly one valid `host`; HTTP/1.0 may omit it.
    for bad in [
        &b"GET /hello HTTP/1.1\r\n\r\n"[..],
        b"GET http://x/hello HTTP/1.1\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: x\r\nhost: x\r\n\r\n",
        b"GET /hello HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: a b\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: a/b\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: user@a\r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost: a:b\r\n\r\n",
    ] {
        assert_closes_with(bad, 400);
    }
    for good in [
        &b"GET /hello HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"[..],
        b"GET /hello HTTP/1.1\r\nhost:127.0.0.1:80 \r\n\r\n",
        b"GET /hello HTTP/1.1\r\nHost:\r\n\r\n",
        b"GET /hello HTTP/1.0\r\n\r\n",
    ] {
        assert_eq!(
            single(good).0.code,
            200,
            "{:?}",
            String::from_utf8_lossy(good)
        );
    }
}

#[test]
fn transfer_codings() {
    // Chunked, but not the final coding (twice counts): the length is unknowable, 400.
    for te in [
        "chunked, gzip",
        "chunked, chunked",
        "gzip, chunked, gzip",
        "chunked,",
    ] {
        let req = format!("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {te}\r\n\r\n");
        assert_closes_with(req.as_bytes(), 400);
    }
    // Split over two fields, the same.
    assert_closes_with(
        b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
        400,
    );
    // Codings this server lacks, chunked last or absent: 501.
    for te in ["gzip", "gzip, chunked", "", "identity"] {
        let req = format!("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {te}\r\n\r\n");
        assert_closes_with(req.as_bytes(), 501);
    }
    // HTTP/1.0 with any transfer coding: faulty framing (RFC 9112 §6.1), 400 and the close.
    assert_closes_with(
        b"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    );
}

#[test]
fn head_limit() {
    let ok = head_of(8192);
    assert_eq!(single(&ok).0.code, 200);
    // Split anywhere, still served.
    for at in [1, 100, 4096, 8191] {
        let (out, action) = feed(&[&ok[..at], &ok[at..]]);
        assert_eq!(answers(&out, &[])[0].code, 200);
        assert_eq!(action, Action::Idle);
    }
    assert_closes_with(&head_of(8193), 431);
    let big = head_of(20_000);
    let (out, action) = feed(&[&big[..3000], &big[3000..7000], &big[7000..]]);
    assert_eq!(answers(&out, &[])[0].code, 431);
    assert!(matches!(action, Action::Close { .. }));
    // Many small fields (more than the hot path's 64) are fine.
    let mut many = b"GET /hello HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..1000 {
        many.extend_from_slice(format!("a{i}:\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    assert!(many.len() <= 8192);
    assert_eq!(single(&many).0.code, 200);
}

#[test]
fn partial_head_is_a_state() {
    let (out, action) = one(b"GET /hello HTTP/1.1\r\nHost:");
    assert!(out.is_empty());
    assert_eq!(action, Action::Head);
    let (_, action) = feed(&[b"GET /hello HT"]);
    assert_eq!(action, Action::Head);
    let (out, action) = feed(&[b"\r\n"]);
    assert!(out.is_empty() && action == Action::Head);
}

#[test]
fn bodies_are_discarded_across_reads() {
    let (out, action) = feed(&[
        b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234",
        b"567",
        b"89GET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
    ]);
    let a = answers(&out, &[]);
    assert_eq!(a.iter().map(|a| a.code).collect::<Vec<_>>(), [405, 200]);
    assert_eq!(action, Action::Idle);
    let (_, action) = one(b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234");
    assert_eq!(action, Action::Body);
}

#[test]
fn chunked_bodies() {
    let stream: &[u8] =
        b"POST /api/hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
        5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n\
        GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
    let whole = one(stream);
    let a = answers(&whole.0, &[]);
    assert_eq!(a.iter().map(|a| a.code).collect::<Vec<_>>(), [405, 200]);
    assert_eq!(whole.1, Action::Idle);
    // Byte by byte gives the same bytes.
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(feed(&bytes), whole);
    // No answer until the body has ended.
    let (out, action) =
        one(b"GET /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
    assert!(out.is_empty());
    assert_eq!(action, Action::Body);
}

#[test]
fn bad_chunked_bodies() {
    let h = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    for body in [
        "zz\r\n",
        "\r\n",
        "5\r\nhelloXX",
        "5\r\nhello\r\n0\r\nx\rx\r\n\r\n",
    ] {
        assert_closes_with(format!("{h}{body}").as_bytes(), 400);
    }
    assert_closes_with(format!("{h}100001\r\n").as_bytes(), 413);
    // 1 MiB in total is fine; one byte more is not.
    let half = format!("{h}80000\r\n");
    let (_, action) = feed(&[half.as_bytes(), &vec![b'x'; 0x80000], b"\r\n80000\r\n"]);
    assert_eq!(action, Action::Body);
    let (out, _) = feed(&[half.as_bytes(), &vec![b'x'; 0x80000], b"\r\n80001\r\n"]);
    assert_eq!(answers(&out, &[])[0].code, 413);
}

#[test]
fn expect_continue() {
    let (out, action) = one(
        b"POST /hello HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n",
    );
    assert!(out.starts_with(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 405"));
    assert_eq!(action, Action::Body);
}

#[test]
fn expire_and_drain() {
    let mut r = responder();
    let mut conn = Conn::new(peer());
    let mut out = Vec::new();
    assert_eq!(conn.feed(&mut r, b"GET / HT", &mut out), Action::Head);
    assert!(matches!(conn.expire(&r, &mut out), Action::Close { .. }));
    assert_eq!(answers(&out, &[])[0].code, 408);
    let mut conn = Conn::new(peer());
    out.clear();
    conn.drain();
    let action = conn.feed(&mut r, b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", &mut out);
    assert_eq!(answers(&out, &[])[0].field("connection"), Some("close"));
    assert!(matches!(action, Action::Close { .. }));
}

#[test]
fn ipv6_peer() {
    let mut r = responder();
    for (ip, text) in [("::1", "::1"), ("::ffff:10.1.2.3", "10.1.2.3")] {
        let mut conn = Conn::new(ip.parse().unwrap());
        let mut out = Vec::new();
        conn.feed(&mut r, b"GET /my/ip HTTP/1.1\r\nHost: x\r\n\r\n", &mut out);
        assert_eq!(answers(&out, &[])[0].body, text.as_bytes());
    }
}

// ---- proptest ----

/// One generated request and what it must be answered with.
#[derive(Debug, Clone)]
struct Req {
    bytes: Vec<u8>,
    code: u16,
    body: Option<Vec<u8>>,
    head: bool,
    keep_alive_10: bool,
}

fn request() -> impl Strategy<Value = Req> {
    let target = prop::sample::select(vec![
        ("/", Some(vec![b'.'; 1024]), false),
        (
            "/api/hello",
            Some(br#"{"message":"Hello World"}"#.to_vec()),
            false,
        ),
        ("/hello", Some(b"Hello, World".to_vec()), false),
        ("/my/ip", Some(b"127.0.0.1".to_vec()), false),
        ("/api?lastname=B&name=A", Some(b"Hey A B".to_vec()), false),
        (
            "http://h/api/hello",
            Some(br#"{"message":"Hello World"}"#.to_vec()),
            false,
        ),
        (
            "/api/private",
            Some(br#"{"message":"Hello World"}"#.to_vec()),
            true,
        ),
        (
            "/api/private",
            Some(br#"{"error":"Unauthorized"}"#.to_vec()),
            false,
        ),
        ("/nope", None, false),
        ("/api/sync", None, false),
    ]);
    let method = prop::sample::select(vec!["GET", "GET", "HEAD", "POST", "get"]);
    let body = prop_oneof![
        Just(None),
        prop::collection::vec(any::<u8>(), 0..300).prop_map(|b| Some((b, false))),
        prop::collection::vec(any::<u8>(), 0..300).prop_map(|b| Some((b, true))),
    ];
    let chunking = prop::collection::vec(1usize..64, 1..8);
    (target, method, body, chunking, any::<bool>()).prop_map(
        |((target, answer, auth), method, body, chunking, http10)| {
            let mut bytes = format!(
                "{method} {target} HTTP/1.{}\r\nHost: h\r\n",
                if http10 { 0 } else { 1 }
            )
            .into_bytes();
            if http10 {
                bytes.extend_from_slice(b"Connection: keep-alive\r\n");
            }
            if auth {
                bytes.extend_from_slice(b"Authorization: Bearer bench-token\r\n");
            }
            match &body {
                None => bytes.extend_from_slice(b"\r\n"),
                // HTTP/1.0 with a transfer coding is refused (RFC 9112 §6.1): length only.
                Some((b, chunked)) if !*chunked || http10 => {
                    bytes.extend_from_slice(
                        format!("Content-Length: {}\r\n\r\n", b.len()).as_bytes(),
                    );
                    bytes.extend_from_slice(b);
                }
                Some((b, _)) => {
                    bytes.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                    let mut rest = &b[..];
                    let mut sizes = chunking.iter().cycle();
                    while !rest.is_empty() {
                        let n = (*sizes.next().unwrap()).min(rest.len());
                        bytes.extend_from_slice(format!("{n:x}\r\n").as_bytes());
                        bytes.extend_from_slice(&rest[..n]);
                        bytes.extend_from_slice(b"\r\n");
                        rest = &rest[n..];
                    }
                    bytes.extend_from_slice(b"0\r\n\r\n");
                }
            }
            let known = answer.is_some();
            let (code, body) = match (known, method) {
                (false, _) => (404, None),
                (true, "GET" | "HEAD") => {
                    let b = answer.unwrap();
                    (if b.starts_with(b"{\"error") { 401 } else { 200 }, Some(b))
                }
                (true, _) => (405, None),
            };
            Req {
                bytes,
                code,
                body,
                head: method == "HEAD",
                keep_alive_10: http10,
            }
        },
    )
}

/// Feeds `stream` cut at `cuts` (positions, any order) and returns output and last action.
/// A close's `linger` is left out: it says whether bytes followed in the same read, which the
/// cuts decide.
fn feed_split(stream: &[u8], cuts: &[usize]) -> (Vec<u8>, Action) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut at = 0;
    for c in cuts {
        pieces.push(&stream[at..c]);
        at = c;
    }
    pieces.push(&stream[at..]);
    let (out, action) = feed(&pieces);
    let action = match action {
        Action::Close { .. } => Action::Close { linger: false },
        other => other,
    };
    (out, action)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn valid_streams_get_every_answer_in_order(
        reqs in prop::collection::vec(request(), 1..12),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let stream: Vec<u8> = reqs.iter().flat_map(|r| r.bytes.clone()).collect();
        let (out, action) = feed_split(&stream, &cuts);
        prop_assert_eq!(action, Action::Idle);
        let heads: Vec<bool> = reqs.iter().map(|r| r.head).collect();
        let got = answers(&out, &heads);
        prop_assert_eq!(got.len(), reqs.len());
        for (a, r) in got.iter().zip(&reqs) {
            check_fields(a, r.head);
            prop_assert_eq!(a.code, r.code);
            let want = r.body.clone().unwrap_or_default();
            if r.head {
                let len = want.len().to_string();
                prop_assert_eq!(a.field("content-length"), Some(len.as_str()));
            } else {
                prop_assert_eq!(&a.body, &want);
            }
            let conn = if r.keep_alive_10 { Some("keep-alive") } else { None };
            prop_assert_eq!(a.field("connection"), conn);
        }
        // The cuts never change a byte of the output.
        prop_assert_eq!(feed_split(&stream, &[]), (out, action));
    }

    #[test]
    fn garbage_never_breaks_framing(
        prefix in prop::collection::vec(request(), 0..4),
        garbage in prop::collection::vec(any::<u8>(), 0..2000),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let mut stream: Vec<u8> = prefix.iter().flat_map(|r| r.bytes.clone()).collect();
        stream.extend_from_slice(&garbage);
        let (out, action) = feed_split(&stream, &cuts);
        let heads: Vec<bool> = prefix.iter().map(|r| r.head).collect();
        let got = answers(&out, &heads);
        prop_assert!(got.len() >= prefix.len());
        for (a, r) in got.iter().zip(&prefix) {
            prop_assert_eq!(a.code, r.code);
        }
        for a in &got[prefix.len()..] {
            check_fields(a, false);
        }
        if let Action::Close { .. } = action {
            prop_assert_eq!(got.last().and_then(|a| a.field("connection")), Some("close"));
        }
        prop_assert_eq!(feed_split(&stream, &[]), (out, action));
    }

    #[test]
    fn mutated_streams_stay_framed(
        reqs in prop::collection::vec(request(), 1..6),
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        let mut stream: Vec<u8> = reqs.iter().flat_map(|r| r.bytes.clone()).collect();
        for (at, b) in flips {
            let at = at % stream.len();
            stream[at] = b;
        }
        let (out, action) = feed_split(&stream, &cuts);
        // A mutation may turn a GET into a HEAD; only check that answers parse when no
        // HEAD is in play.
        if !stream.windows(5).any(|w| w == b"HEAD ") {
            let got = answers(&out, &[]);
            for a in &got {
                check_fields(a, false);
            }
        }
        prop_assert_eq!(feed_split(&stream, &[]), (out, action));
    }
}

#[test]
fn connection_state_is_small() {
    // Idle keep-alive connections cost this plus the socket; see the README's RSS figure.
    let size = std::mem::size_of::<Conn>();
    println!("size_of::<Conn>() = {size}");
    assert!(size <= 160, "{size}");
}
