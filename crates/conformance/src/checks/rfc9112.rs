//! `rfc9112`: the server-side requirements of RFC 9112 that the contract's rows did not name.
//!
//! One check per requirement of the table in the crate's README (section, paraphrase, check,
//! each variant's result). Where the RFC lets a server either reject or repair (obs-fold, bare
//! CR, whitespace before the first field, repeated equal `content-length` values, a bare LF as
//! line end), the check accepts both, and is built so that the one wrong reading, the one that
//! lets the bytes frame a different request, desynchronises a pipelined `GET /hello` and fails.
//! Where the RFC says MUST answer 400 and close, the check wants exactly that.

use contract::body::HELLO_TEXT;

use super::bad_input::{chunked, discarded, refused_resp, send_then_read, with_body};
use super::{Check, Ctx, fast};
use crate::Group::Rfc9112;
use crate::expect::{self, ConnField, Judged};
use crate::report::Failure;
use crate::wire::{After, Conn, Response, WireError};

/// `bytes` on a new connection: one of `codes` (an `HTTP/1.0` status line accepted when
/// `http10`), then the close.
fn refused_as(c: &Ctx<'_>, bytes: &[u8], codes: &[u16], http10: bool) -> Judged {
    let mut conn = c.connect()?;
    let want: Vec<String> = codes.iter().map(u16::to_string).collect();
    let resp = send_then_read(c, &mut conn, bytes)
        .map_err(|f| f.at(format!("{} then the close", want.join(" or "))))?;
    expect::error_answer(&resp, codes, http10, c.opts.strict_errors)?;
    c.expect_close(&mut conn, &resp)
}

/// Each of `cases` (a label and the bytes) on its own connection: refused as [`refused_as`].
fn each_refused(c: &Ctx<'_>, cases: &[(&str, Vec<u8>)], codes: &[u16], http10: bool) -> Judged {
    for (label, bytes) in cases {
        refused_as(c, bytes, codes, http10).map_err(|f| f.at(*label))?;
    }
    Ok(())
}

/// A raw head: the request line, then `fields` (each without CRLF), then the blank line.
fn head(line: &str, fields: &[&str]) -> Vec<u8> {
    let mut out = format!("{line}\r\n");
    for f in fields {
        out.push_str(f);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// `GET /hello` answered 200 with its body (an `HTTP/1.0` status line accepted when `http10`).
fn served(c: &Ctx<'_>, bytes: &[u8], http10: bool) -> Judged {
    let (_, resp) = c.roundtrip(bytes, false)?;
    expect::status(&resp, 200, http10).and_then(|()| expect::body(&resp, HELLO_TEXT))
}

fn host_missing(c: &Ctx<'_>) -> Judged {
    let absolute = format!("GET http://{}/hello HTTP/1.1", c.addr());
    each_refused(
        c,
        &[
            ("origin-form", head("GET /hello HTTP/1.1", &[])),
            ("absolute-form", head(&absolute, &[])),
        ],
        &[400],
        false,
    )
}

fn host_twice(c: &Ctx<'_>) -> Judged {
    let host = format!("Host: {}", c.addr());
    refused_as(
        c,
        &head("GET /hello HTTP/1.1", &[&host, &host]),
        &[400],
        false,
    )
    .map_err(|f| f.at("HTTP/1.1"))?;
    refused_as(
        c,
        &head("GET /hello HTTP/1.0", &[&host, &host]),
        &[400],
        true,
    )
    .map_err(|f| f.at("HTTP/1.0"))
}

fn host_invalid(c: &Ctx<'_>) -> Judged {
    let cases: Vec<(&str, Vec<u8>)> = ["Host: a b", "Host: a/b", "Host: user@a"]
        .into_iter()
        .map(|h| (h, head("GET /hello HTTP/1.1", &[h])))
        .collect();
    each_refused(c, &cases, &[400], false)
}

/// `Content-Length: 3` hidden where a correct parser never reads it as a field, then a
/// pipelined `GET /hello`: a parser that does read it takes the `GET` of the next request as
/// the body and answers the rest (` /hello …`) with an error.
fn hidden_length(c: &Ctx<'_>, first: &[u8]) -> Judged {
    discarded(c, first, true)
}

fn obs_fold(c: &Ctx<'_>) -> Judged {
    hidden_length(
        c,
        &c.req("GET", "/hello", &["X-Test: a", " Content-Length: 3"]),
    )
}

fn bare_cr(c: &Ctx<'_>) -> Judged {
    hidden_length(
        c,
        &c.req("GET", "/hello", &["X-Test: a\rContent-Length: 3"]),
    )
}

fn ws_before_first_field(c: &Ctx<'_>) -> Judged {
    let host = format!("Host: {}", c.addr());
    hidden_length(
        c,
        &head("GET /hello HTTP/1.1", &[" Content-Length: 3", &host]),
    )
}

fn bare_lf(c: &Ctx<'_>) -> Judged {
    let first = format!(
        "GET /hello HTTP/1.1\nHost: {}\nContent-Length: 5\n\nhello",
        c.addr()
    );
    discarded(c, first.as_bytes(), true)
}

fn leading_crlf(c: &Ctx<'_>) -> Judged {
    let mut first = b"\r\n".to_vec();
    first.extend_from_slice(&c.get("/hello"));
    served(c, &first, false).map_err(|f| f.at("a CRLF before the first request"))?;
    let mut between = c.get("/hello");
    between.extend_from_slice(b"\r\n");
    discarded(c, &between, false).map_err(|f| f.at("a CRLF between two requests"))
}

fn te_http10(c: &Ctx<'_>) -> Judged {
    let host = format!("Host: {}", c.addr());
    let mut bytes = head(
        "GET /hello HTTP/1.0",
        &[
            &host,
            "Connection: keep-alive",
            "Transfer-Encoding: chunked",
        ],
    );
    bytes.extend_from_slice(&chunked(b"hello"));
    bytes.extend_from_slice(&c.get("/hello"));
    let mut conn = c.connect()?;
    let resp = send_then_read(c, &mut conn, &bytes)?;
    if resp.status != 200 {
        return refused_resp_10(c, &mut conn, &resp);
    }
    // Served: then the framing is faulty all the same, so the connection must close after
    // this answer, the pipelined request unanswered.
    expect::status(&resp, 200, true)
        .and_then(|()| expect::connection(&resp, ConnField::Close))
        .map_err(|f| f.at("an answer with connection: close, or 400"))?;
    c.expect_close(&mut conn, &resp)
}

/// An error answer to an HTTP/1.0 request: 400 (either status-line version), then the close.
fn refused_resp_10(c: &Ctx<'_>, conn: &mut Conn, resp: &Response) -> Judged {
    expect::error_answer(resp, &[400], true, c.opts.strict_errors)?;
    c.expect_close(conn, resp)
}

fn cl_same_values(c: &Ctx<'_>) -> Judged {
    for (label, fields) in [
        ("one field, 5, 5", &["Content-Length: 5, 5"][..]),
        (
            "two fields of 5",
            &["Content-Length: 5", "Content-Length: 5"][..],
        ),
    ] {
        discarded(c, &with_body(c, fields, b"hello"), true).map_err(|f| f.at(label))?;
    }
    Ok(())
}

fn chunk_size_overflow(c: &Ctx<'_>) -> Judged {
    // 2^64 + 5: read into a u64 that wraps, it is 5, and the body looks complete.
    let mut body = b"10000000000000005\r\nhello\r\n0\r\n\r\n".to_vec();
    body.extend_from_slice(&c.get("/hello"));
    let mut conn = c.connect()?;
    let bytes = with_body(c, &["Transfer-Encoding: chunked"], &body);
    let _ = conn.send(&bytes);
    let resp = match conn.read_response(false) {
        Ok(resp) => resp,
        // Closing without an answer also refuses the size.
        Err(WireError::Closed { received }) if received.is_empty() => return Ok(()),
        Err(e) if e.is_reset() && e.received().is_empty() => return Ok(()),
        Err(e) => return Err(super::wire_failure("400 or 413 and the close", &e)),
    };
    if resp.status == 200 {
        // Answered before the body was read (the body means nothing to GET): the bad size
        // must still end the connection, the pipelined GET /hello never answered.
        return c
            .expect_close(&mut conn, &resp)
            .map_err(|f| f.at("the close after an early answer (no answer to the smuggled GET)"));
    }
    refused_resp(c, &mut conn, &resp, &[400, 413])
}

fn cl_incomplete(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    c.send(&mut conn, &with_body(c, &["Content-Length: 10"], b"abc"))?;
    conn.shutdown_write()
        .map_err(|e| super::wire_failure("to half-close the connection", &e))?;
    let mut received = Vec::new();
    // An answer may come first (early, or an error); the close must follow. Bounded: a
    // server that keeps talking fails after a few rounds.
    for _ in 0..8 {
        match conn.after(c.opts.timeout) {
            After::Closed => return Ok(()),
            After::Extra(bytes) => received.extend_from_slice(&bytes),
            After::Open => break,
        }
    }
    Err(Failure::new(
        "the close after a body cut short by the client's FIN",
        format!("still open {} ms after the FIN", c.opts.timeout.as_millis()),
    )
    .raw(&received))
}

pub(super) const CHECKS: &[Check] = &[
    fast(
        "rfc9112.host.missing",
        Rfc9112,
        "§3.2: an HTTP/1.1 request without Host (origin- and absolute-form): 400 and the close",
        host_missing,
    ),
    fast(
        "rfc9112.host.twice",
        Rfc9112,
        "§3.2: two Host field lines (HTTP/1.1 and HTTP/1.0): 400 and the close",
        host_twice,
    ),
    fast(
        "rfc9112.host.invalid",
        Rfc9112,
        "§3.2: a Host value that is no uri-host[:port] (`a b`, `a/b`, `user@a`): 400 and the close",
        host_invalid,
    ),
    fast(
        "rfc9112.host.http10-optional",
        Rfc9112,
        "§3.2: HTTP/1.0 without Host is served",
        |c| served(c, &head("GET /hello HTTP/1.0", &[]), true),
    ),
    fast(
        "rfc9112.host.absolute-form",
        Rfc9112,
        "§3.2.2: absolute-form target with another Host: the Host is ignored, the target served",
        |c| {
            let host = format!("Host: {}", c.addr());
            served(
                c,
                &head("GET http://other.invalid/hello HTTP/1.1", &[&host]),
                false,
            )
        },
    ),
    fast(
        "rfc9112.field.space-before-colon",
        Rfc9112,
        "§5.1: whitespace between a field name and the colon: 400 and the close",
        |c| refused_as(c, &c.req("GET", "/hello", &["X-Test : a"]), &[400], false),
    ),
    fast(
        "rfc9112.field.obs-fold",
        Rfc9112,
        "§5.2: obs-fold: 400 and the close, or read as SP (never as a new field line)",
        obs_fold,
    ),
    fast(
        "rfc9112.field.ws-before-first",
        Rfc9112,
        "§2.2: whitespace before the first field line: 400 and the close, or the line ignored",
        ws_before_first_field,
    ),
    fast(
        "rfc9112.field.bare-cr",
        Rfc9112,
        "§2.2: a bare CR in a field: 400 and the close, or read as SP (never as a line end)",
        bare_cr,
    ),
    fast(
        "rfc9112.line.bare-lf",
        Rfc9112,
        "§2.2: LF alone as line end (MAY be accepted): served in step, or 400 and the close",
        bare_lf,
    ),
    fast(
        "rfc9112.line.leading-crlf",
        Rfc9112,
        "§2.2: an empty line before a request line (SHOULD be ignored) is ignored",
        leading_crlf,
    ),
    fast(
        "rfc9112.line.target-whitespace",
        Rfc9112,
        "§3: whitespace inside the request-target: 400 and the close, never autocorrected",
        |c| {
            let host = format!("Host: {}", c.addr());
            refused_as(c, &head("GET /hel lo HTTP/1.1", &[&host]), &[400], false)
        },
    ),
    fast(
        "rfc9112.line.version-case",
        Rfc9112,
        "§2.3: `http/1.1` (HTTP-name is case-sensitive): 400 (or 505) and the close",
        |c| {
            let host = format!("Host: {}", c.addr());
            refused_as(
                c,
                &head("GET /hello http/1.1", &[&host]),
                &[400, 505],
                false,
            )
        },
    ),
    fast(
        "rfc9112.te.chunked-not-final",
        Rfc9112,
        "§6.3: transfer-encoding: chunked, gzip (chunked not final): 400 and the close",
        |c| {
            refused_as(
                c,
                &with_body(c, &["Transfer-Encoding: chunked, gzip"], &chunked(b"hello")),
                &[400],
                false,
            )
        },
    ),
    fast(
        "rfc9112.te.http10",
        Rfc9112,
        "§6.1: HTTP/1.0 keep-alive with transfer-encoding: 400, or the answer; then the close",
        te_http10,
    ),
    fast(
        "rfc9112.cl.plus-sign",
        Rfc9112,
        "§6.3: content-length: +5 (not 1*DIGIT): 400 and the close",
        |c| {
            refused_as(
                c,
                &with_body(c, &["Content-Length: +5"], b"hello"),
                &[400],
                false,
            )
        },
    ),
    fast(
        "rfc9112.cl.same-values",
        Rfc9112,
        "§6.3: content-length 5, 5 (one field or two): 400 and the close, or a body of 5",
        cl_same_values,
    ),
    fast(
        "rfc9112.cl.incomplete",
        Rfc9112,
        "§6.3: a body shorter than content-length, then the client's FIN: the close",
        cl_incomplete,
    ),
    fast(
        "rfc9112.chunk.size-overflow",
        Rfc9112,
        "§7.1: a chunk size past 2^64: 400, 413, an early answer or none, then the close; never wrapped",
        chunk_size_overflow,
    ),
    fast(
        "rfc9112.chunk.extensions",
        Rfc9112,
        "§7.1.1: chunk extensions are ignored: the body discarded, the next request served",
        |c| {
            let body = b"5;a=1;b=\"x y\"\r\nhello\r\n0;last\r\n\r\n";
            discarded(
                c,
                &with_body(c, &["Transfer-Encoding: chunked"], body),
                false,
            )
        },
    ),
    fast(
        "rfc9112.chunk.trailer",
        Rfc9112,
        "§7.1.2: a trailer field after the last chunk: the body discarded, the next served",
        |c| {
            let body = b"5\r\nhello\r\n0\r\nX-Trailer: a\r\n\r\n";
            discarded(
                c,
                &with_body(c, &["Transfer-Encoding: chunked"], body),
                false,
            )
        },
    ),
];
