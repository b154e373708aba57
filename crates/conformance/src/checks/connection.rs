//! `connection`: keep-alive, HTTP/1.0, `Connection: close`, pipelining and split reads.
//!
//! These checks judge the status line, the `connection` field and the framing (whether the
//! connection stays usable or closes), not the bodies' exact bytes, which `core` judges; so one
//! wrong body fails the `core` check about it and not every check here.

use std::time::Duration;

use contract::body::{HELLO_TEXT, ROOT_LEN};

use super::{Check, Ctx, fast};
use crate::Group::Connection;
use crate::expect::{self, ConnField, Judged};
use crate::report::Failure;
use crate::wire::{Conn, Response};

/// Reads a response to `GET /hello`: 200, `Hello, World`, `connection` as `field`.
fn read_hello(
    c: &Ctx<'_>,
    conn: &mut Conn,
    field: ConnField,
    http10: bool,
) -> Result<Response, Failure> {
    let resp = c.read(conn, false)?;
    expect::status(&resp, 200, http10)?;
    expect::body(&resp, HELLO_TEXT)?;
    expect::connection(&resp, field)?;
    Ok(resp)
}

/// One `GET /hello` with `extra` field lines in `version`, answered with `connection: close`,
/// then the close.
fn closes(c: &Ctx<'_>, version: &str, extra: &str) -> Judged {
    let req = format!("GET /hello {version}\r\nHost: {}\r\n{extra}\r\n", c.addr());
    let mut conn = c.connect()?;
    c.send(&mut conn, req.as_bytes())?;
    let resp = read_hello(c, &mut conn, ConnField::Close, version == "HTTP/1.0")?;
    c.expect_close(&mut conn, &resp)
}

/// Two `GET /hello` with `extra` in `version` on one connection, each answered with `field`.
fn stays_open(c: &Ctx<'_>, version: &str, extra: &str, field: ConnField) -> Judged {
    let req = format!("GET /hello {version}\r\nHost: {}\r\n{extra}\r\n", c.addr());
    let mut conn = c.connect()?;
    for step in ["first request", "second request on the same connection"] {
        c.send(&mut conn, req.as_bytes()).map_err(|f| f.at(step))?;
        read_hello(c, &mut conn, field, version == "HTTP/1.0").map_err(|f| f.at(step))?;
    }
    Ok(())
}

/// `GET /hello` written in the given parts, with a pause between them, answered correctly.
fn split(c: &Ctx<'_>, conn: &mut Conn, parts: &[&[u8]], pause: Duration) -> Judged {
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(pause);
        }
        c.send(conn, part)?;
    }
    read_hello(c, conn, ConnField::Absent, false).map(drop)
}

fn keep_alive_100(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    let req = c.get("/api/hello");
    for i in 1..=100 {
        c.send(&mut conn, &req)
            .map_err(|f| f.at(format!("request {i} of 100")))?;
        let resp = c
            .read(&mut conn, false)
            .map_err(|f| f.at(format!("response {i} of 100")))?;
        expect::status(&resp, 200, false).map_err(|f| f.at(format!("response {i} of 100")))?;
        if resp.says_close() {
            return Err(Failure::new(
                format!("response {i} of 100 to keep the connection"),
                "connection: close",
            )
            .raw(&resp.raw));
        }
    }
    Ok(())
}

/// What one pipelined request must get: status and body (`None`: only its length is judged).
struct Piped {
    method: &'static str,
    target: &'static str,
    auth: bool,
    status: u16,
    len: usize,
    body: Option<&'static [u8]>,
}

const fn piped(
    method: &'static str,
    target: &'static str,
    status: u16,
    len: usize,
    body: Option<&'static [u8]>,
) -> Piped {
    Piped {
        method,
        target,
        auth: false,
        status,
        len,
        body,
    }
}

const PIPELINE: [Piped; 16] = [
    piped("GET", "/api/hello", 200, 25, None),
    piped("GET", "/", 200, ROOT_LEN, None),
    piped("GET", "/hello", 200, 12, Some(HELLO_TEXT)),
    piped("HEAD", "/", 200, 0, None),
    piped("GET", "/nope", 404, 0, None),
    piped("GET", "/api?name=P&lastname=Q", 200, 7, Some(b"Hey P Q")),
    piped("GET", "/hello", 200, 12, Some(HELLO_TEXT)),
    Piped {
        auth: true,
        ..piped("GET", "/api/private", 200, 25, None)
    },
    piped("HEAD", "/hello", 200, 0, None),
    piped("GET", "/api/private", 401, 24, None),
    piped("GET", "/", 200, ROOT_LEN, None),
    piped("GET", "/nope2", 404, 0, None),
    piped("GET", "/api?name=R&lastname=S", 200, 7, Some(b"Hey R S")),
    piped("GET", "/api/hello", 200, 25, None),
    piped("GET", "/hello", 200, 12, Some(HELLO_TEXT)),
    piped("GET", "/api?name=Z&lastname=Y", 200, 7, Some(b"Hey Z Y")),
];

fn pipelined_16(c: &Ctx<'_>) -> Judged {
    let auth = c.good_auth();
    let mut bytes = Vec::new();
    for p in &PIPELINE {
        let extra: &[&str] = if p.auth { &[&auth] } else { &[] };
        bytes.extend_from_slice(&c.req(p.method, p.target, extra));
    }
    let mut conn = c.connect()?;
    c.send(&mut conn, &bytes)?;
    for (i, p) in PIPELINE.iter().enumerate() {
        let step = format!("response {} of 16 ({} {})", i + 1, p.method, p.target);
        let resp = c
            .read(&mut conn, p.method == "HEAD")
            .map_err(|f| f.at(&step))?;
        expect::status(&resp, p.status, false).map_err(|f| f.at(&step))?;
        if resp.body.len() != p.len {
            return Err(Failure::new(
                format!("{step}: a {}-byte body", p.len),
                format!("{} bytes", resp.body.len()),
            )
            .raw(&resp.raw));
        }
        if let Some(body) = p.body {
            expect::body(&resp, body).map_err(|f| f.at(&step))?;
        }
    }
    Ok(())
}

/// RFC 9112 §9.6: `GET /hello`, `GET /hello` with `Connection: close`, `GET /hello`, in one
/// write. The first is answered and keeps the connection, the second is answered with
/// `connection: close`, and then the connection closes with nothing more: the third request,
/// which came after the close, is not answered.
fn close_mid_pipeline(c: &Ctx<'_>) -> Judged {
    let hello = c.get("/hello");
    let mut bytes = hello.clone();
    bytes.extend_from_slice(&c.req("GET", "/hello", &["Connection: close"]));
    bytes.extend_from_slice(&hello);
    let mut conn = c.connect()?;
    c.send(&mut conn, &bytes)?;
    let step = "response 1 of 2 (before the close)";
    let resp = c.read(&mut conn, false).map_err(|f| f.at(step))?;
    expect::status(&resp, 200, false).map_err(|f| f.at(step))?;
    expect::body(&resp, HELLO_TEXT).map_err(|f| f.at(step))?;
    c.keeps_open(&resp).map_err(|f| f.at(step))?;
    let step = "response 2 of 2 (the request with Connection: close)";
    let resp = read_hello(c, &mut conn, ConnField::Close, false).map_err(|f| f.at(step))?;
    c.expect_close(&mut conn, &resp)
        .map_err(|f| f.at("after the close, the third request unanswered"))
}

fn one_byte_writes(c: &Ctx<'_>) -> Judged {
    let req = c.req("GET", "/hello", &["Accept: */*"]);
    let mut conn = c.connect()?;
    for byte in &req {
        c.send(&mut conn, std::slice::from_ref(byte))?;
        std::thread::sleep(Duration::from_millis(2));
    }
    read_hello(c, &mut conn, ConnField::Absent, false).map(drop)
}

fn split_request_line(c: &Ctx<'_>) -> Judged {
    let req = c.get("/hello");
    let mut conn = c.connect()?;
    split(
        c,
        &mut conn,
        &[&req[..7], &req[7..]],
        Duration::from_millis(30),
    )
}

fn split_crlfcrlf(c: &Ctx<'_>) -> Judged {
    let req = c.get("/hello");
    let n = req.len();
    let mut conn = c.connect()?;
    split(
        c,
        &mut conn,
        &[&req[..n - 1], &req[n - 1..]],
        Duration::from_millis(30),
    )
    .map_err(|f| f.at("split before the last LF"))?;
    split(
        c,
        &mut conn,
        &[&req[..n - 2], &req[n - 2..]],
        Duration::from_millis(30),
    )
    .map_err(|f| f.at("split between CRLF and CRLF"))
}

pub(super) const CHECKS: &[Check] = &[
    fast(
        "conn.keep-alive-100",
        Connection,
        "100 sequential requests on one connection",
        keep_alive_100,
    )
    .needs(&["/api/hello"]),
    fast(
        "conn.no-connection-field",
        Connection,
        "a keep-alive answer to HTTP/1.1 has no connection field",
        |c| stays_open(c, "HTTP/1.1", "", ConnField::Absent),
    ),
    fast(
        "conn.http11-keep-alive-field",
        Connection,
        "HTTP/1.1 with Connection: keep-alive: no connection field, stays open",
        |c| {
            stays_open(
                c,
                "HTTP/1.1",
                "Connection: keep-alive\r\n",
                ConnField::Absent,
            )
        },
    ),
    fast(
        "conn.http10-close",
        Connection,
        "HTTP/1.0 without keep-alive: connection: close, then close",
        |c| closes(c, "HTTP/1.0", ""),
    ),
    fast(
        "conn.http10-keep-alive",
        Connection,
        "HTTP/1.0 with Connection: keep-alive: connection: keep-alive, stays open",
        |c| {
            stays_open(
                c,
                "HTTP/1.0",
                "Connection: keep-alive\r\n",
                ConnField::KeepAlive,
            )
        },
    ),
    fast(
        "conn.http11-close",
        Connection,
        "HTTP/1.1 with Connection: close: connection: close, then close",
        |c| closes(c, "HTTP/1.1", "Connection: close\r\n"),
    ),
    fast(
        "conn.close-token-case",
        Connection,
        "Connection: Close (any case) closes too",
        |c| closes(c, "HTTP/1.1", "Connection: Close\r\n"),
    ),
    fast(
        "conn.pipelined-16",
        Connection,
        "16 mixed requests in one write, answered in order",
        pipelined_16,
    )
    .needs(&["/api/hello", "/", "/api", "/api/private"]),
    fast(
        "conn.close-mid-pipeline",
        Connection,
        "Connection: close inside a pipeline: answered with connection: close, later requests not answered, then close",
        close_mid_pipeline,
    ),
    fast(
        "conn.one-byte-writes",
        Connection,
        "a request written one byte at a time",
        one_byte_writes,
    ),
    fast(
        "conn.split-request-line",
        Connection,
        "a request split inside the request line",
        split_request_line,
    ),
    fast(
        "conn.split-crlfcrlf",
        Connection,
        "requests split inside the final CRLF CRLF",
        split_crlfcrlf,
    ),
];

#[cfg(test)]
mod tests {
    use super::PIPELINE;

    #[test]
    fn pipeline_mixes_endpoints_heads_and_errors() {
        assert!(PIPELINE.iter().any(|p| p.method == "HEAD"));
        assert!(PIPELINE.iter().any(|p| p.status == 404));
        for p in PIPELINE.iter().filter(|p| p.body.is_some()) {
            assert_eq!(p.body.map(<[u8]>::len), Some(p.len));
        }
    }
}
