//! `bad-input`: every row of `docs/contract.md` "Bad input", slow clients and vanishing
//! clients.
//!
//! Error answers are judged on the status (with the alternatives `docs/contract.md` allows) and
//! the close; with `Options::strict_errors` also on the exact fields, `content-length: 0` and
//! `connection: close`. Bodies that must be discarded are followed by a pipelined sentinel
//! `GET /hello`: a desynchronised connection answers the sentinel wrongly. `bad.slowloris` and
//! `bad.idle-keep-alive` wait on purpose and are scheduled concurrently; `bad.alive-after` runs
//! after every other check of the group.

use std::io::Write;
use std::time::{Duration, Instant};

use contract::body::{HELLO_TEXT, MAX_BODY, MAX_HEAD};

use super::{Check, Ctx, Pace, fast, gap};
use crate::Group::BadInput;
use crate::expect::{self, Judged};
use crate::report::Failure;
use crate::wire::{After, Conn, Response, WireError};

/// Total size of the head that must be refused (one byte over the limit).
const HEAD_OVER: usize = MAX_HEAD + 1;
/// Total size of a head that must be served.
const HEAD_UNDER: usize = 8_000;
/// A slow client's head must be closed this long after its first byte at the latest
/// (the contract's 10 s plus slack for the server's timer granularity).
const SLOWLORIS_LIMIT: Duration = Duration::from_secs(15);

/// Writes `bytes`, ignoring a write error (the server may refuse early and close), then reads
/// the answer.
pub(super) fn send_then_read(
    c: &Ctx<'_>,
    conn: &mut Conn,
    bytes: &[u8],
) -> Result<Response, Failure> {
    let written = conn.send(bytes);
    match c.read(conn, false) {
        Ok(resp) => Ok(resp),
        Err(mut f) => {
            if let Err(e) = written {
                f.actual = format!("{e}; then {}", f.actual);
            }
            Err(f)
        }
    }
}

/// `bytes` on a new connection are refused with one of `codes`, then the connection closes.
fn refused(c: &Ctx<'_>, bytes: &[u8], codes: &[u16]) -> Judged {
    let mut conn = c.connect()?;
    let want: Vec<String> = codes.iter().map(u16::to_string).collect();
    let resp = send_then_read(c, &mut conn, bytes)
        .map_err(|f| f.at(format!("{} then the close", want.join(" or "))))?;
    refused_resp(c, &mut conn, &resp, codes)
}

pub(super) fn refused_resp(c: &Ctx<'_>, conn: &mut Conn, resp: &Response, codes: &[u16]) -> Judged {
    expect::error_answer(resp, codes, false, c.opts.strict_errors)?;
    c.expect_close(conn, resp)
}

/// A `GET /hello` head of exactly `total` bytes, padded with `X-Fill-N` fields.
fn sized_head(c: &Ctx<'_>, total: usize) -> Vec<u8> {
    let mut head = format!("GET /hello HTTP/1.1\r\nHost: {}\r\n", c.addr()).into_bytes();
    let mut n = 0;
    // Each pad line is `X-Fill-N: aaa…\r\n`, at most ~1,000 bytes, the last one sized exactly.
    while head.len() + 2 < total {
        n += 1;
        let name = format!("X-Fill-{n}: ");
        let room = total - 2 - head.len();
        let value = (room.saturating_sub(name.len() + 2)).min(1_000);
        if value == 0 {
            // Too little room for another line: widen the previous one instead.
            break;
        }
        head.extend_from_slice(name.as_bytes());
        head.extend(std::iter::repeat_n(b'a', value));
        head.extend_from_slice(b"\r\n");
    }
    // Any remainder (fewer bytes than a line needs) goes into the last value.
    while head.len() + 2 < total {
        let at = head.len() - 2;
        head.insert(at, b'a');
    }
    head.extend_from_slice(b"\r\n");
    head
}

/// A request carrying a body, followed by a pipelined `GET /hello`: either both are answered
/// (the body was discarded), or, where `may_refuse`, the first answer is 400 and the close.
pub(super) fn discarded(c: &Ctx<'_>, first: &[u8], may_refuse: bool) -> Judged {
    let mut bytes = first.to_vec();
    bytes.extend_from_slice(&c.get("/hello"));
    let mut conn = c.connect()?;
    let resp = send_then_read(c, &mut conn, &bytes)?;
    if may_refuse && resp.status == 400 {
        return refused_resp(c, &mut conn, &resp, &[400]).map_err(|f| f.at("a refusal"));
    }
    expect::status(&resp, 200, false)
        .and_then(|()| expect::body(&resp, HELLO_TEXT))
        .and_then(|()| c.keeps_open(&resp))
        .map_err(|f| f.at("the request with a body"))?;
    let next = c
        .read(&mut conn, false)
        .map_err(|f| f.at("the pipelined GET /hello after the body"))?;
    expect::status(&next, 200, false)
        .and_then(|()| expect::body(&next, HELLO_TEXT))
        .map_err(|f| f.at("the pipelined GET /hello after the body (desynchronised?)"))
}

/// `GET /hello` with `fields` and `body` written after the head.
pub(super) fn with_body(c: &Ctx<'_>, fields: &[&str], body: &[u8]) -> Vec<u8> {
    let mut bytes = c.req("GET", "/hello", fields);
    bytes.extend_from_slice(body);
    bytes
}

/// A chunked encoding of `payload` in one chunk, with the last chunk.
pub(super) fn chunked(payload: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n0\r\n\r\n");
    out
}

fn body_max_discarded(c: &Ctx<'_>) -> Judged {
    let len = usize::try_from(MAX_BODY).unwrap_or(usize::MAX);
    let cl = format!("Content-Length: {len}");
    discarded(c, &with_body(c, &[&cl], &vec![b'a'; len]), false)
}

fn body_too_large(c: &Ctx<'_>) -> Judged {
    let cl = format!("Content-Length: {}", MAX_BODY + 1);
    // The body is never sent: the answer must come at once.
    refused(c, &c.req("GET", "/hello", &[&cl]), &[413])
}

fn chunked_too_large(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    c.send(
        &mut conn,
        &c.req("GET", "/hello", &["Transfer-Encoding: chunked"]),
    )?;
    let mut writer = conn
        .stream()
        .try_clone()
        .map_err(|e| Failure::new("a second handle on the socket", e.to_string()))?;
    // Written on its own thread: the server may refuse part-way and stop reading.
    let sender = std::thread::spawn(move || {
        let chunk = 64 * 1024;
        let mut head = format!("{chunk:x}\r\n").into_bytes();
        head.extend(std::iter::repeat_n(b'a', chunk));
        head.extend_from_slice(b"\r\n");
        let mut sent = 0u64;
        while sent <= MAX_BODY {
            if writer.write_all(&head).is_err() {
                return;
            }
            sent += chunk as u64;
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let resp = c.read(&mut conn, false);
    let judged = resp.and_then(|resp| refused_resp(c, &mut conn, &resp, &[413, 400]));
    drop(conn);
    let _ = sender.join();
    judged
}

fn h2_preface(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    let _ = conn.send(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    match conn.read_response(false) {
        Ok(resp) => refused_resp(c, &mut conn, &resp, &[505, 400]),
        // Closing without an answer is accepted.
        Err(WireError::Closed { received }) if received.is_empty() => Ok(()),
        Err(e) if e.is_reset() && e.received().is_empty() => Ok(()),
        Err(e) => Err(super::wire_failure(
            "505 or 400 and the close, or the close alone",
            &e,
        )),
    }
}

fn slowloris(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    let start = Instant::now();
    c.send(
        &mut conn,
        format!("GET /hello HTTP/1.1\r\nHost: {}\r\nX-Slow: ", c.addr()).as_bytes(),
    )?;
    let mut received = Vec::new();
    // Bounded: one byte a second until the limit.
    while start.elapsed() < SLOWLORIS_LIMIT {
        match conn.after(Duration::from_secs(1)) {
            After::Closed => return Ok(()),
            After::Open => {}
            After::Extra(bytes) => {
                received.extend_from_slice(&bytes);
                let is_408 =
                    received.starts_with(b"HTTP/1.1 408") || received.starts_with(b"HTTP/1.0 408");
                let prefix = received.len() < 12 && b"HTTP/1.1 408".starts_with(&received);
                if !is_408 && !prefix {
                    return Err(
                        Failure::new("the close (a 408 may precede it)", "another answer")
                            .raw(&received),
                    );
                }
            }
        }
        if conn.send(b"a").is_err() {
            return Ok(());
        }
    }
    Err(Failure::new(
        format!(
            "the close within {} s of the first byte of an unfinished head",
            SLOWLORIS_LIMIT.as_secs()
        ),
        "still open",
    )
    .raw(&received))
}

fn idle_keep_alive(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    c.send(&mut conn, &c.get("/hello"))?;
    let resp = c.read(&mut conn, false)?;
    expect::status(&resp, 200, false)?;
    let idle = Duration::from_secs(c.opts.idle_secs);
    let start = Instant::now();
    // Watch the silent connection a second at a time, so an early close fails at once.
    while start.elapsed() < idle {
        let wait = (idle - start.elapsed()).min(Duration::from_secs(1));
        match conn.after(wait) {
            After::Open => {}
            After::Closed => {
                return Err(Failure::new(
                    format!("an idle keep-alive connection kept {} s", idle.as_secs()),
                    format!("closed after {:.1} s", start.elapsed().as_secs_f64()),
                ));
            }
            After::Extra(bytes) => {
                return Err(
                    Failure::new("silence while the client is idle", "unsolicited bytes")
                        .raw(&bytes),
                );
            }
        }
    }
    c.send(&mut conn, &c.get("/hello"))
        .map_err(|f| f.at(format!("a request after {} s idle", idle.as_secs())))?;
    let resp = c
        .read(&mut conn, false)
        .map_err(|f| f.at(format!("a response after {} s idle", idle.as_secs())))?;
    expect::status(&resp, 200, false)
}

/// Half a head, then the client goes away (FIN, or RST when `reset`); others are still served.
fn vanish_mid_head(c: &Ctx<'_>, reset: bool) -> Judged {
    let mut conn = c.connect()?;
    c.send(
        &mut conn,
        format!("GET /hello HTTP/1.1\r\nHost: {}\r\nX-Ha", c.addr()).as_bytes(),
    )?;
    gap();
    if reset {
        conn.reset();
    } else {
        drop(conn);
    }
    std::thread::sleep(Duration::from_millis(200));
    c.alive()
}

fn vanish_mid_response(c: &Ctx<'_>) -> Judged {
    let one = c.get("/");
    let many: Vec<u8> = one.iter().copied().cycle().take(one.len() * 512).collect();
    let mut conns = Vec::new();
    for _ in 0..16 {
        let mut conn = c.connect()?;
        c.send(&mut conn, &many)?;
        conns.push(conn);
    }
    std::thread::sleep(Duration::from_millis(5));
    // Half close normally, half with a reset, none reading its ~560 KB of answers.
    for (i, conn) in conns.into_iter().enumerate() {
        if i % 2 == 0 {
            conn.reset();
        } else {
            drop(conn);
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    c.alive()
}

const fn slow(name: &'static str, about: &'static str, run: fn(&Ctx<'_>) -> Judged) -> Check {
    Check {
        pace: Pace::Slow,
        ..fast(name, BadInput, about, run)
    }
}

pub(super) const CHECKS: &[Check] = &[
    fast(
        "bad.request-line",
        BadInput,
        "a request line that does not parse: 400 and the close",
        |c| {
            refused(
                c,
                format!("G(T /hello HTTP/1.1\r\nHost: {}\r\n\r\n", c.addr()).as_bytes(),
                &[400],
            )
        },
    ),
    fast(
        "bad.header-line",
        BadInput,
        "a header line that does not parse: 400 and the close",
        |c| refused(c, &c.req("GET", "/hello", &["NoColonHere"]), &[400]),
    ),
    fast(
        "bad.head-over-limit",
        BadInput,
        "a head of 8,193 bytes: 431 (or 400) and the close",
        |c| refused(c, &sized_head(c, HEAD_OVER), &[431, 400]),
    ),
    fast(
        "bad.head-under-limit",
        BadInput,
        "a head of 8,000 bytes is served",
        |c| {
            let (_, resp) = c.roundtrip(&sized_head(c, HEAD_UNDER), false)?;
            expect::status(&resp, 200, false).and_then(|()| expect::body(&resp, HELLO_TEXT))
        },
    ),
    fast(
        "bad.body-discarded",
        BadInput,
        "a content-length body is discarded, the next request served",
        |c| {
            let body = format!("GET /nope HTTP/1.1\r\nHost: {}\r\n\r\n", c.addr());
            let cl = format!("Content-Length: {}", body.len());
            discarded(c, &with_body(c, &[&cl], body.as_bytes()), false)
        },
    ),
    fast(
        "bad.body-max-discarded",
        BadInput,
        "a body of exactly 1,048,576 bytes is discarded, not refused",
        body_max_discarded,
    ),
    fast(
        "bad.body-too-large",
        BadInput,
        "content-length 1,048,577: 413 at once and the close",
        body_too_large,
    ),
    fast(
        "bad.chunked-discarded",
        BadInput,
        "a chunked body is decoded and discarded (or 400 and the close)",
        |c| {
            discarded(
                c,
                &with_body(c, &["Transfer-Encoding: chunked"], &chunked(b"hello")),
                true,
            )
        },
    ),
    fast(
        "bad.chunked-smuggle",
        BadInput,
        "a chunk that looks like a request never gets its own answer",
        |c| {
            let inner = format!("GET /nope HTTP/1.1\r\nHost: {}\r\n\r\n", c.addr());
            discarded(
                c,
                &with_body(
                    c,
                    &["Transfer-Encoding: chunked"],
                    &chunked(inner.as_bytes()),
                ),
                true,
            )
        },
    ),
    fast(
        "bad.chunked-too-large",
        BadInput,
        "a chunked body past 1 MiB: 413 (or 400) and the close",
        chunked_too_large,
    ),
    fast(
        "bad.both-cl-te",
        BadInput,
        "content-length and transfer-encoding: 400 and the close",
        |c| {
            refused(
                c,
                &with_body(
                    c,
                    &["Content-Length: 10", "Transfer-Encoding: chunked"],
                    &chunked(b"hello"),
                ),
                &[400],
            )
        },
    ),
    fast(
        "bad.two-cl",
        BadInput,
        "two different content-length values: 400 and the close",
        |c| {
            refused(
                c,
                &with_body(c, &["Content-Length: 5", "Content-Length: 6"], b"hello!"),
                &[400],
            )
        },
    ),
    fast(
        "bad.cl-invalid",
        BadInput,
        "content-length that is not a number: 400 and the close",
        |c| refused(c, &with_body(c, &["Content-Length: 1x"], b"a"), &[400]),
    ),
    fast(
        "bad.te-gzip",
        BadInput,
        "transfer-encoding: gzip: 501 (or 400) and the close",
        |c| {
            refused(
                c,
                &c.req("GET", "/hello", &["Transfer-Encoding: gzip"]),
                &[501, 400],
            )
        },
    ),
    fast(
        "bad.te-list",
        BadInput,
        "transfer-encoding: gzip, chunked: 501 (or 400) and the close",
        |c| {
            refused(
                c,
                &with_body(c, &["Transfer-Encoding: gzip, chunked"], &chunked(b"hello")),
                &[501, 400],
            )
        },
    ),
    fast(
        "bad.version-1.2",
        BadInput,
        "HTTP/1.2: 505 (or 400) and the close",
        |c| {
            refused(
                c,
                format!("GET /hello HTTP/1.2\r\nHost: {}\r\n\r\n", c.addr()).as_bytes(),
                &[505, 400],
            )
        },
    ),
    fast(
        "bad.version-2.0",
        BadInput,
        "HTTP/2.0 in an HTTP/1 request line: 505 (or 400) and the close",
        |c| {
            refused(
                c,
                format!("GET /hello HTTP/2.0\r\nHost: {}\r\n\r\n", c.addr()).as_bytes(),
                &[505, 400],
            )
        },
    ),
    fast(
        "bad.version-3.0",
        BadInput,
        "HTTP/3.0: 505 (or 400) and the close",
        |c| {
            refused(
                c,
                format!("GET /hello HTTP/3.0\r\nHost: {}\r\n\r\n", c.addr()).as_bytes(),
                &[505, 400],
            )
        },
    ),
    fast(
        "bad.h2-preface",
        BadInput,
        "the HTTP/2 preface: 505 or 400 and the close, or the close alone",
        h2_preface,
    ),
    slow(
        "bad.slowloris",
        "a head never finished, one byte a second: closed within 15 s of its first byte",
        slowloris,
    ),
    slow(
        "bad.idle-keep-alive",
        "an idle keep-alive connection still serves after 61 s",
        idle_keep_alive,
    ),
    fast(
        "bad.vanish-mid-head",
        BadInput,
        "a client closing mid-head disturbs no one",
        |c| vanish_mid_head(c, false),
    ),
    fast(
        "bad.reset-mid-head",
        BadInput,
        "a client resetting mid-head disturbs no one",
        |c| vanish_mid_head(c, true),
    ),
    fast(
        "bad.vanish-mid-response",
        BadInput,
        "clients leaving mid-response disturb no one",
        vanish_mid_response,
    )
    .needs(&["/"]),
    Check {
        pace: Pace::Last,
        ..fast(
            "bad.alive-after",
            BadInput,
            "after all bad input, a new connection is served",
            |c| c.alive(),
        )
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, Target};

    #[test]
    fn sized_heads_have_the_exact_size_and_parse() {
        let target = Target::new("127.0.0.1:8080".parse().unwrap());
        let opts = Options::default();
        let c = Ctx {
            target: &target,
            opts: &opts,
        };
        for total in [HEAD_UNDER, HEAD_OVER, 100, 1_003, 1_004, 1_005] {
            let head = sized_head(&c, total);
            assert_eq!(head.len(), total);
            let mut fields = [httparse::EMPTY_HEADER; 32];
            let mut req = httparse::Request::new(&mut fields);
            assert_eq!(req.parse(&head).unwrap(), httparse::Status::Complete(total));
        }
    }
}
