//! The per-connection service: everything may_minihttp lets a service decide.
//!
//! may_minihttp calls [`Service::call`] once per complete, parsable request head, with the
//! head's fields and a reader for a `content-length` body, and writes the status line,
//! `Server: M`, `Date`, `Content-Length` (the length of the body set here) and the fields set
//! here. Before routing, the service judges the head the way the contract asks (over 8,192
//! bytes: 431; both `content-length` and `transfer-encoding`, two different or a malformed
//! `content-length`, or `chunked` before another coding: 400; a transfer coding: 501, or 400
//! for `chunked`, which may_minihttp cannot decode; `content-length` over 1 MiB: 413; RFC 9112
//! §3.2's Host rule broken: 400) and reads and drops a `content-length` body, so that it is
//! not taken for the next request. The error answers cannot close the
//! connection (may_minihttp has no way to), so they carry no `connection: close`.

use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr};
use std::os::fd::BorrowedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use contract::body::{self, MAX_BODY, MAX_HEAD};
use contract::response::Status;
use contract::route::{self, Endpoint, Route};
use contract::{auth, peer, query};
use may_minihttp::{HttpService, HttpServiceFactory, Request, Response};
use serve::Config;

/// Makes one [`Service`] per accepted connection.
#[derive(Clone, Debug)]
pub struct Factory {
    token: Arc<[u8]>,
    in_flight: Arc<AtomicUsize>,
}

impl Factory {
    /// A factory for `config`'s token, counting requests being answered in `in_flight`.
    pub fn new(config: &Config, in_flight: Arc<AtomicUsize>) -> Factory {
        Factory {
            token: Arc::from(config.auth_token.as_bytes()),
            in_flight,
        }
    }
}

impl HttpServiceFactory for Factory {
    type Service = Service;

    /// `id` is the accepted socket's descriptor (may_minihttp's choice): the peer's address
    /// for `/my/ip` is read from it once here.
    fn new_service(&self, id: usize) -> Service {
        let peer = i32::try_from(id)
            .ok()
            .and_then(|fd| {
                // SAFETY: may_minihttp calls `new_service` with the descriptor of the stream it
                // has just accepted and still owns, open for the whole of this call.
                let fd = unsafe { BorrowedFd::borrow_raw(fd) };
                socket2::SockRef::from(&fd).peer_addr().ok()?.as_socket()
            })
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
        Service {
            token: Arc::clone(&self.token),
            peer: peer::canonical(peer),
            in_flight: Arc::clone(&self.in_flight),
        }
    }
}

/// One connection's service.
#[derive(Debug)]
pub struct Service {
    token: Arc<[u8]>,
    peer: IpAddr,
    in_flight: Arc<AtomicUsize>,
}

/// What the head's framing fields say.
#[derive(Debug, Default)]
struct Framing {
    /// The `content-length` value, if one (or several equal ones) parsed.
    length: Option<u64>,
    /// A `content-length` that does not parse, or two different ones.
    bad_length: bool,
    /// Every `transfer-encoding` value is exactly `chunked` (and there is at least one).
    chunked_only: bool,
    /// Any `transfer-encoding` field.
    has_te: bool,
    /// A coding after `chunked` (RFC 9112 §6.3: the length cannot be known, 400).
    chunked_not_final: bool,
    /// A `chunked` coding seen so far.
    chunked_seen: bool,
}

impl Framing {
    fn of(req: &Request<'_, '_, '_>) -> Framing {
        let mut f = Framing {
            chunked_only: true,
            ..Framing::default()
        };
        for h in req.headers() {
            if h.name.eq_ignore_ascii_case("content-length") {
                let parsed = std::str::from_utf8(h.value)
                    .ok()
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse::<u64>().ok());
                match (parsed, f.length) {
                    (None, _) => f.bad_length = true,
                    (Some(n), Some(m)) if n != m => f.bad_length = true,
                    (Some(n), _) => f.length = Some(n),
                }
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                f.has_te = true;
                f.chunked_only &= h.value.eq_ignore_ascii_case(b"chunked");
                for coding in h.value.split(|&b| b == b',') {
                    f.chunked_not_final |= f.chunked_seen;
                    f.chunked_seen |= coding.trim_ascii().eq_ignore_ascii_case(b"chunked");
                }
            }
        }
        f
    }

    /// The error status the head's framing earns, if any.
    fn refusal(&self) -> Option<Status> {
        if self.has_te && (self.length.is_some() || self.bad_length || self.chunked_not_final) {
            Some(Status::BadRequest)
        } else if self.has_te && self.chunked_only {
            // may_minihttp reads only `content-length` bodies: a chunked one would be taken
            // for the next request. 400 is the contract's other answer to chunked.
            Some(Status::BadRequest)
        } else if self.has_te {
            Some(Status::NotImplemented)
        } else if self.bad_length {
            Some(Status::BadRequest)
        } else if self.length.is_some_and(|n| n > MAX_BODY) {
            Some(Status::PayloadTooLarge)
        } else {
            None
        }
    }
}

/// The request head's length on the wire, from its parsed parts: the request line, each
/// field as `name: value` with CRLF, and the final CRLF (a field written with other
/// whitespace around its value counts as if written with one space).
fn head_len(req: &Request<'_, '_, '_>) -> usize {
    let line = req.method().len() + 1 + req.path().len() + 1 + "HTTP/1.1".len() + 2;
    let fields: usize = req
        .headers()
        .iter()
        .map(|h| h.name.len() + 2 + h.value.len() + 2)
        .sum();
    line + fields + 2
}

/// Whether an HTTP/1.0 request asked for keep-alive.
fn keep_alive_asked(req: &Request<'_, '_, '_>) -> bool {
    let has = |token: &str| {
        req.headers().iter().any(|h| {
            h.name.eq_ignore_ascii_case("connection")
                && std::str::from_utf8(h.value)
                    .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    has("keep-alive") && !has("close")
}

/// What the answer is, decided before the body is read (the head's borrows end there).
enum Answer {
    /// A fixed body.
    Fixed(Endpoint),
    /// A body made for this request (`/my/ip`, the echo).
    Made(Endpoint, Vec<u8>),
    /// `/api/private` without the right token.
    Unauthorized,
    /// An empty-bodied answer.
    Empty(Status),
}

impl Service {
    fn answer(&self, req: &Request<'_, '_, '_>) -> Answer {
        match route::route(req.method().as_bytes(), req.path().as_bytes(), false) {
            Route::NotFound => Answer::Empty(Status::NotFound),
            Route::MethodNotAllowed => Answer::Empty(Status::MethodNotAllowed),
            Route::Endpoint { endpoint, .. } => match endpoint {
                Endpoint::MyIp => Answer::Made(endpoint, peer::ip_body(self.peer)),
                Endpoint::Echo => {
                    let (_, q) = route::split_target(req.path().as_bytes());
                    Answer::Made(endpoint, query::echo_body(q))
                }
                Endpoint::Private => {
                    let values = req
                        .headers()
                        .iter()
                        .filter(|h| h.name.eq_ignore_ascii_case("authorization"))
                        .map(|h| h.value);
                    if auth::authorized(values, &self.token) {
                        Answer::Fixed(endpoint)
                    } else {
                        Answer::Unauthorized
                    }
                }
                _ => Answer::Fixed(endpoint),
            },
        }
    }
}

impl HttpService for Service {
    fn call(&mut self, req: Request<'_, '_, '_>, rsp: &mut Response<'_>) -> io::Result<()> {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let head = req.method() == "HEAD";
        let http10_keep_alive = req.version() == 0 && keep_alive_asked(&req);
        let framing = Framing::of(&req);
        let hosts = req
            .headers()
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case("host"))
            .map(|h| h.value);
        let refusal = if head_len(&req) > MAX_HEAD {
            Some(Status::HeaderFieldsTooLarge)
        } else if !contract::host::acceptable(hosts, req.version() != 0) {
            Some(Status::BadRequest)
        } else {
            framing.refusal()
        };
        let answer = match refusal {
            Some(status) => Answer::Empty(status),
            None => self.answer(&req),
        };
        if refusal.is_none() && framing.length.is_some_and(|n| n > 0) {
            // Read and drop the body, so its bytes are not taken for the next request.
            let mut body = req.body();
            let _ = io::copy(&mut body.by_ref(), &mut io::sink());
        }
        write(rsp, answer, head, http10_keep_alive);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        Ok(())
    }
}

/// Writes `answer` into `rsp` (a `HEAD` answer: no body, which may_minihttp writes as
/// `Content-Length: 0`).
fn write(rsp: &mut Response<'_>, answer: Answer, head: bool, http10_keep_alive: bool) {
    let (status, content_type) = match &answer {
        Answer::Fixed(e) | Answer::Made(e, _) => (Status::Ok, Some(e.content_type())),
        Answer::Unauthorized => (Status::Unauthorized, Some(body::CT_JSON)),
        Answer::Empty(s) => (*s, None),
    };
    rsp.status_code(usize::from(status.code()), status.reason());
    match content_type {
        Some(body::CT_JSON) => {
            rsp.header("Content-Type: application/json");
        }
        Some(_) => {
            rsp.header("Content-Type: text/plain; charset=utf-8");
        }
        None => {}
    }
    if status == Status::MethodNotAllowed {
        rsp.header("Allow: GET, HEAD");
    }
    if http10_keep_alive {
        rsp.header("Connection: keep-alive");
    }
    if head {
        return;
    }
    match answer {
        Answer::Fixed(Endpoint::Private) => rsp.body_mut().extend_from_slice(body::HELLO_JSON),
        Answer::Fixed(e) => {
            if let Some(b) = e.fixed_body() {
                rsp.body_mut().extend_from_slice(b);
            }
        }
        Answer::Made(_, b) => rsp.body_vec(b),
        Answer::Unauthorized => rsp.body_mut().extend_from_slice(body::UNAUTHORIZED_JSON),
        Answer::Empty(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_type_lines_are_the_contracts() {
        assert_eq!(
            "Content-Type: application/json",
            format!("Content-Type: {}", body::CT_JSON)
        );
        assert_eq!(
            "Content-Type: text/plain; charset=utf-8",
            format!("Content-Type: {}", body::CT_TEXT)
        );
        assert_eq!("Allow: GET, HEAD", format!("Allow: {}", body::ALLOW));
    }
}
