//! The contract's endpoints and header set, against the real binary over raw TCP.

mod common;

use common::{Server, get, parse_all, read_n, roundtrip};
use contract::body;
use contract::route::Endpoint;

#[test]
fn hello_is_exact() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let r = roundtrip(&mut s, &get("/api/hello"), false);
    assert_eq!(r.status_line, "HTTP/1.1 200 OK");
    r.assert_names(&["content-length", "content-type", "date"]);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("content-length"), Some("25"));
    assert_eq!(r.body, br#"{"message":"Hello World"}"#);
}

#[test]
fn every_fixed_endpoint_get_and_head() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    for e in Endpoint::ALL {
        let Some(want) = e.fixed_body() else { continue };
        let r = roundtrip(&mut s, &get(e.path()), false);
        assert_eq!(r.status, 200, "{e:?}");
        r.assert_names(&["content-length", "content-type", "date"]);
        assert_eq!(r.header("content-type"), Some(e.content_type()), "{e:?}");
        assert_eq!(r.body, want, "{e:?}");
        let req = format!("HEAD {} HTTP/1.1\r\nHost: t\r\n\r\n", e.path());
        let h = roundtrip(&mut s, req.as_bytes(), true);
        assert_eq!(h.status, 200, "{e:?}");
        h.assert_names(&["content-length", "content-type", "date"]);
        assert_eq!(
            h.header("content-length"),
            Some(want.len().to_string().as_str())
        );
        assert_eq!(h.header("content-type"), Some(e.content_type()));
    }
    // HEAD sent no body: the connection is still in step.
    let r = roundtrip(&mut s, &get("/hello"), false);
    assert_eq!(r.body, body::HELLO_TEXT);
}

#[test]
fn request_dependent_bodies() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let r = roundtrip(&mut s, &get("/my/ip"), false);
    assert_eq!((r.status, r.body.as_slice()), (200, &b"127.0.0.1"[..]));
    assert_eq!(r.header("content-type"), Some(body::CT_TEXT));
    let r = roundtrip(&mut s, &get("/api?name=A&lastname=B"), false);
    assert_eq!(r.body, b"Hey A B");
    let r = roundtrip(&mut s, &get("/api?n%61me=J+D&x=1"), false);
    assert_eq!(r.body, b"Hey J D ");
    let r = roundtrip(&mut s, &get("http://t/api/hello?x=1"), false);
    assert_eq!(r.body, body::HELLO_JSON);
    let head = roundtrip(
        &mut s,
        b"HEAD /api?name=Ann HTTP/1.1\r\nHost: t\r\n\r\n",
        true,
    );
    assert_eq!(head.header("content-length"), Some("8"));
}

#[test]
fn private_needs_exactly_one_right_token() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let req = |auth: &str| format!("GET /api/private HTTP/1.1\r\nHost: t\r\n{auth}\r\n");
    let r = roundtrip(
        &mut s,
        req("Authorization: Bearer bench-token\r\n").as_bytes(),
        false,
    );
    assert_eq!((r.status, r.body.as_slice()), (200, body::HELLO_JSON));
    for bad in [
        "",
        "Authorization: Bearer wrong\r\n",
        "Authorization: bearer bench-token\r\n",
        "Authorization: Bearer bench-token\r\nAuthorization: Bearer bench-token\r\n",
    ] {
        let r = roundtrip(&mut s, req(bad).as_bytes(), false);
        assert_eq!(r.status_line, "HTTP/1.1 401 Unauthorized", "{bad:?}");
        r.assert_names(&["content-length", "content-type", "date"]);
        assert_eq!(r.header("content-type"), Some(body::CT_JSON));
        assert_eq!(r.body, body::UNAUTHORIZED_JSON);
    }
}

#[test]
fn token_comes_from_the_environment() {
    // AUTH_TOKEN is read at start; the helper removes it, so set it through a shell-free
    // path: a second process with the variable.
    let mut cmd = std::process::Command::new(common::BIN);
    cmd.args(["--addr", "127.0.0.1:0"])
        .env("AUTH_TOKEN", "s3cret");
    let srv = Server::spawn(cmd);
    let mut s = srv.connect();
    let ok = b"GET /api/private HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n";
    assert_eq!(roundtrip(&mut s, ok, false).status, 200);
    let old = b"GET /api/private HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bench-token\r\n\r\n";
    assert_eq!(roundtrip(&mut s, old, false).status, 401);
}

#[test]
fn not_found_and_method_not_allowed() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    for path in ["/api/hello/", "//", "/API/hello", "/api%2Fhello", "/nope"] {
        let r = roundtrip(&mut s, &get(path), false);
        assert_eq!(r.status_line, "HTTP/1.1 404 Not Found", "{path}");
        r.assert_names(&["content-length", "date"]);
        assert_eq!(r.header("content-length"), Some("0"));
        assert!(r.body.is_empty());
    }
    let r = roundtrip(&mut s, b"HEAD /nope HTTP/1.1\r\nHost: t\r\n\r\n", true);
    assert_eq!(r.status, 404);
    r.assert_names(&["content-length", "date"]);
    assert_eq!(r.header("content-length"), Some("0"));
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "get", "Get"] {
        let req = format!("{method} /hello HTTP/1.1\r\nHost: t\r\n\r\n");
        let r = roundtrip(&mut s, req.as_bytes(), false);
        assert_eq!(r.status_line, "HTTP/1.1 405 Method Not Allowed", "{method}");
        r.assert_names(&["allow", "content-length", "date"]);
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
        assert_eq!(r.header("content-length"), Some("0"));
    }
    let r = roundtrip(&mut s, b"POST /nope HTTP/1.1\r\nHost: t\r\n\r\n", false);
    assert_eq!(r.status, 404);
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    let mut burst = Vec::new();
    let paths = [
        "/hello",
        "/api/hello",
        "/nope",
        "/",
        "/api?name=x",
        "/api/async",
    ];
    for p in paths {
        burst.extend_from_slice(&get(p));
    }
    std::io::Write::write_all(&mut s, &burst).unwrap();
    let got = read_n(&mut s, paths.len(), false);
    let statuses: Vec<u16> = got.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 404, 200, 200, 200]);
    assert_eq!(got[0].body, body::HELLO_TEXT);
    assert_eq!(got[3].body.len(), 1024);
    assert_eq!(got[4].body, b"Hey x ");
    assert_eq!(got[5].body, body::ASYNC_JSON);
}

#[test]
fn scenarios() {
    let srv = Server::start(&[]);
    let mut s = srv.connect();
    for (path, want) in [
        ("/api/async", body::ASYNC_JSON),
        ("/api/sync", body::SYNC_JSON),
        ("/api/sync-offload", body::SYNC_JSON),
        ("/api/nexttick", body::NEXTTICK_JSON),
        ("/api/timer", body::TIMER_JSON),
    ] {
        let r = roundtrip(&mut s, &get(path), false);
        assert_eq!((r.status, r.body.as_slice()), (200, want), "{path}");
        assert_eq!(r.header("content-type"), Some(body::CT_JSON));
    }
}

#[test]
fn several_workers_serve_one_port() {
    let srv = Server::start(&["--workers", "3"]);
    for _ in 0..12 {
        let mut s = srv.connect();
        let r = roundtrip(&mut s, &get("/hello"), false);
        assert_eq!(r.body, body::HELLO_TEXT);
    }
    let all = parse_all(
        &srv.exchange_until_close(b"GET / HTTP/1.0\r\n\r\n").0,
        false,
    );
    assert_eq!(all.len(), 1);
}
