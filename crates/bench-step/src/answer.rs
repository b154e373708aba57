//! What a server answers to one plain `GET` of each endpoint it serves, judged against the
//! contract's bytes: the fairness table of `bench verify`, and what `bench run e6` records of
//! each server before any load ([`before_load`]); and whether a server honours ab's HTTP/1.0
//! keep-alive ([`ab_keepalive_ok`]), without which an `ab -k` step measures reconnects and is
//! invalid.

use std::net::SocketAddr;
use std::time::Duration;

use conformance::wire::{Conn, Response};
use manifest::Server;

use bench_model::experiment::TOKEN;

/// The request target used for the query echo.
pub const ECHO: &str = "/api?name=John&lastname=Doe";

/// The header fields the contract allows.
const CONTRACT_FIELDS: [&str; 5] = [
    "date",
    "content-length",
    "content-type",
    "connection",
    "allow",
];

/// One endpoint's answer, as the fairness table shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Status code.
    pub status: u16,
    /// Bytes of the status line and the header fields (through the blank line).
    pub head: usize,
    /// Bytes of the body.
    pub body: usize,
    /// The field names, lowercase, in the order sent.
    pub fields: Vec<String>,
    /// What differs from the contract (empty: nothing).
    pub notes: Vec<String>,
}

/// The request targets verify probes for `server`, with their extra headers.
pub fn probes(server: &Server) -> Vec<(&'static str, Option<String>)> {
    manifest::ENDPOINTS
        .iter()
        .filter(|p| server.serves(p))
        .map(|&p| match p {
            "/api" => (ECHO, None),
            "/api/private" => (p, Some(format!("Authorization: Bearer {TOKEN}\r\n"))),
            _ => (p, None),
        })
        .collect()
}

/// One `GET` per endpoint `server` serves.
pub fn fairness(server: &Server, addr: SocketAddr) -> Vec<(&'static str, Result<Answer, String>)> {
    probes(server)
        .into_iter()
        .map(|(path, header)| (path, probe(server, addr, path, header.as_deref())))
        .collect()
}

/// One plain `GET` of each endpoint of `steps` that verify probes, judged as the fairness
/// table judges it: what `bench run e6` records before any load.
pub fn before_load(
    server: &Server,
    addr: SocketAddr,
    steps: &[bench_model::experiment::Step],
) -> Vec<bench_model::results::Verified> {
    use bench_model::results::Verified;
    probes(server)
        .into_iter()
        .filter(|(path, _)| steps.iter().any(|s| s.endpoint == *path))
        .map(|(path, header)| {
            let endpoint = path.to_string();
            match probe(server, addr, path, header.as_deref()) {
                Ok(a) => Verified {
                    endpoint,
                    status: Some(a.status),
                    head_bytes: a.head,
                    body_bytes: a.body,
                    fields: a.fields,
                    notes: a.notes,
                },
                Err(e) => Verified {
                    endpoint,
                    notes: vec![format!("no answer: {e}")],
                    ..Verified::default()
                },
            }
        })
        .collect()
}

/// The length a step's responses must have: the head this server sends to one request of the
/// step's kind (its HTTP version and connection handling), and the body the contract requires
/// (the server's own where the contract fixes none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Length {
    /// The status line and fields, with the blank line (and any chunk framing), bytes.
    pub head: usize,
    /// The body, bytes.
    pub body: usize,
}

impl Length {
    /// The bytes a tool should count per response: head and body, or the body alone for a
    /// tool that counts only bodies.
    pub fn counted(self, head_too: bool) -> usize {
        if head_too {
            self.head + self.body
        } else {
            self.body
        }
    }

    /// What they are, for a reason: `a 119-byte head and the contract's 1024-byte body`.
    pub fn describe(self, head_too: bool) -> String {
        if head_too {
            format!(
                "a {}-byte head and the contract's {}-byte body",
                self.head, self.body
            )
        } else {
            format!("the contract's {}-byte body", self.body)
        }
    }
}

/// One request of `mode`'s kind for `target` (with `headers`), sent to `addr` before the load:
/// the [`Length`] the step's responses must have. `Err` says why it could not be read.
pub fn length(
    addr: SocketAddr,
    target: &str,
    mode: loadgen::Mode,
    headers: &[(String, String)],
) -> Result<Length, String> {
    use loadgen::Mode;
    let (version, connection) = match mode {
        Mode::KeepAlive => ("HTTP/1.1", ""),
        Mode::Close => ("HTTP/1.1", "Connection: close\r\n"),
        Mode::Http10 => ("HTTP/1.0", ""),
        Mode::Http10KeepAlive => ("HTTP/1.0", "Connection: Keep-Alive\r\n"),
    };
    let fields: String = headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}\r\n"))
        .collect();
    let r = ask(
        addr,
        &format!("GET {target} {version}\r\nHost: {addr}\r\n{connection}{fields}\r\n"),
    )?;
    let body = expected_body(target, addr).map_or(r.body.len(), |b| b.len());
    Ok(Length {
        head: head_bytes(&r),
        body,
    })
}

/// Sends `request` to `addr` on a new connection and reads one response (5 s at most).
fn ask(addr: SocketAddr, request: &str) -> Result<Response, String> {
    let mut conn = Conn::connect(addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    conn.send(request.as_bytes()).map_err(|e| e.to_string())?;
    conn.read_response(false).map_err(|e| e.to_string())
}

/// The bytes of `r`'s status line and fields, through the blank line (and any chunk framing).
fn head_bytes(r: &Response) -> usize {
    r.raw.len().saturating_sub(r.body.len())
}

fn probe(
    server: &Server,
    addr: SocketAddr,
    path: &str,
    header: Option<&str>,
) -> Result<Answer, String> {
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{}\r\n",
        header.unwrap_or("")
    );
    let r = ask(addr, &request)?;
    Ok(judge(server, path, &r, addr))
}

fn judge(server: &Server, path: &str, r: &Response, addr: SocketAddr) -> Answer {
    let fields: Vec<String> = r
        .headers
        .iter()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    let mut notes = Vec::new();
    for f in &fields {
        if CONTRACT_FIELDS.contains(&f.as_str()) {
            continue;
        }
        match server
            .extra_headers
            .iter()
            .find(|h| h.field.eq_ignore_ascii_case(f))
        {
            Some(h) => notes.push(format!("extra `{f}` (documented, {} B)", h.bytes)),
            None => notes.push(format!("extra `{f}` NOT documented")),
        }
    }
    if let Some(v) = r.header("connection")
        && !v.eq_ignore_ascii_case("close")
    {
        notes.push(format!(
            "`connection: {v}` on HTTP/1.1 (the contract sends the field only to close)"
        ));
    }
    if let Some(want) = expected_body(path, addr)
        && r.body != want
    {
        notes.push("body differs from the contract".to_string());
    }
    if r.status != 200 {
        notes.push("status is not 200".to_string());
    }
    Answer {
        status: r.status,
        head: head_bytes(r),
        body: r.body.len(),
        fields,
        notes,
    }
}

/// The body `docs/contract.md` requires for a `GET` of `target` (with the Bearer token verify
/// sends) from `addr`'s side of the loopback, computed by the contract crate itself.
fn expected_body(target: &str, addr: SocketAddr) -> Option<Vec<u8>> {
    use contract::route::{Endpoint, split_target};
    let (path, query) = split_target(target.as_bytes());
    Some(match Endpoint::from_path(path, true)? {
        Endpoint::MyIp => contract::peer::ip_body(addr.ip()),
        Endpoint::Echo => contract::query::echo_body(query),
        Endpoint::Private => contract::body::HELLO_JSON.to_vec(),
        fixed => fixed.fixed_body()?.to_vec(),
    })
}

/// Whether the server at `addr` honours ab's HTTP/1.0 keep-alive on `/hello`: an HTTP/1.0
/// request with `Connection: keep-alive` must be answered with `connection: keep-alive` and
/// a `content-length`, and a second request on the same connection must be answered too.
/// `Err` says which part failed. Each connect, write and answer waits at most 2 s.
pub fn ab_keepalive_ok(addr: SocketAddr) -> Result<(), String> {
    let mut conn = Conn::connect(addr, Duration::from_secs(2))
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let request = format!("GET /hello HTTP/1.0\r\nHost: {addr}\r\nConnection: Keep-Alive\r\n\r\n");
    for which in ["first", "second"] {
        conn.send(request.as_bytes())
            .map_err(|e| format!("cannot send the {which} request: {e}"))?;
        let answer = conn
            .read_response(false)
            .map_err(|e| format!("the {which} HTTP/1.0 keep-alive request: {e}"))?;
        // Without a length the body runs to the close (and was read to it): ab -k cannot
        // tell where one answer ends.
        if answer.header("content-length").is_none() {
            return Err(format!(
                "the {which} HTTP/1.0 keep-alive request: a response without content-length \
                 (ab -k needs the length)"
            ));
        }
        let keep_alive = answer
            .headers_named("connection")
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case("keep-alive"));
        if which == "first" && !keep_alive {
            return Err(
                "the answer to an HTTP/1.0 request with Connection: keep-alive has no \
                 `connection: keep-alive`: ab -k would reconnect for every request"
                    .to_string(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::thread;

    use super::*;
    use conformance::wire::parse_response;

    /// A server entry as servers.toml writes one, with one documented extra field.
    fn entry() -> Server {
        let m = manifest::Manifest::parse(
            r#"
[[server]]
name = "x"
package = "x"
style = "test"
analogue = ["y"]
experiments = ["E6"]
groups = ["core"]
extra_header = [{ field = "server", bytes = 11 }]
"#,
        )
        .unwrap();
        m.get("x").unwrap().clone()
    }

    fn judged(raw: &[u8]) -> Answer {
        let (r, _) = parse_response(raw, false, false).unwrap().unwrap();
        judge(&entry(), "/hello", &r, "127.0.0.1:8080".parse().unwrap())
    }

    #[test]
    fn the_contracts_bytes_have_no_note_and_every_difference_one() {
        let exact = b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\ncontent-type: text/plain; charset=utf-8\r\ndate: Wed, 02 Dec 2026 14:00:00 GMT\r\n\r\nHello, World";
        let a = judged(exact);
        assert_eq!((a.status, a.body, a.notes.len()), (200, 12, 0), "{a:?}");
        assert_eq!(a.head, exact.len() - 12);
        assert_eq!(a.fields, ["content-length", "content-type", "date"]);

        let extra = judged(
            b"HTTP/1.1 200 OK\r\nserver: may\r\nx-powered-by: z\r\ncontent-length: 12\r\n\r\nHello, World",
        );
        assert_eq!(
            extra.notes,
            [
                "extra `server` (documented, 11 B)",
                "extra `x-powered-by` NOT documented"
            ]
        );
        let wrong = judged(
            b"HTTP/1.1 500 Internal Server Error\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\nno",
        );
        assert_eq!(
            wrong.notes,
            [
                "`connection: keep-alive` on HTTP/1.1 (the contract sends the field only to close)",
                "body differs from the contract",
                "status is not 200"
            ]
        );
    }

    /// A one-connection server answering each request with `answer(n)`, closing after
    /// `answers` responses.
    fn serve(answers: usize, answer: fn(usize) -> &'static str) -> SocketAddr {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 1024];
            for i in 0..answers {
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
                buf.drain(..end);
                let _ = c.write_all(answer(i).as_bytes());
            }
        });
        addr
    }

    const KA: &str = "HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 5\r\n\r\nhello";

    #[test]
    fn keepalive_check_passes_and_fails_for_the_right_reasons() {
        assert_eq!(ab_keepalive_ok(serve(2, |_| KA)), Ok(()));
        let e = ab_keepalive_ok(serve(
            2,
            |_| "HTTP/1.0 200 OK\r\ncontent-length: 5\r\n\r\nhello",
        ))
        .unwrap_err();
        assert!(e.contains("no `connection: keep-alive`"), "{e}");
        // Without a length the body runs to the close, which ends it.
        let no_length = |_| "HTTP/1.0 200 OK\r\nconnection: keep-alive\r\n\r\nhello";
        let e = ab_keepalive_ok(serve(1, no_length)).unwrap_err();
        assert!(e.contains("without content-length"), "{e}");
        // Or it never ends: the answer is incomplete when the 2 s are up.
        let e = ab_keepalive_ok(serve(2, no_length)).unwrap_err();
        assert!(e.contains("first") && e.contains("timed out"), "{e}");
        // Announces keep-alive, then closes.
        let e = ab_keepalive_ok(serve(1, |_| KA)).unwrap_err();
        assert!(e.starts_with("the second"), "{e}");
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        assert!(
            ab_keepalive_ok(addr)
                .unwrap_err()
                .starts_with("cannot connect")
        );
    }
}
