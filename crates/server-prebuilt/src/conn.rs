//! One connection's protocol state, without I/O: bytes in, answer bytes out.
//!
//! [`Conn::feed`] takes whatever one read returned, consumes every complete request in it,
//! appends every answer to `out` in order, and says what the connection waits for next
//! ([`Action`]). An incomplete head is a state, kept in a small carry buffer until the rest
//! arrives; so is a body being read and discarded, by `content-length` or chunked.
//!
//! Layout: [`Conn::feed`] loops over the `State`s; `head*` parse a request head ([`head::parse`]'s
//! fast path for a plain, complete head, else httparse: a 64-field array first, a cold retry with room for any head of [`MAX_HEAD`] bytes);
//! `request` checks the framing fields and the Host rule (RFC 9112 §3.2) and picks the answer; `chunked` decodes a chunked body
//! with `httparse::parse_chunk_size`. Every error answer goes through the cold `fail`.

use std::mem::MaybeUninit;
use std::net::IpAddr;

use contract::auth;
use contract::body::{MAX_BODY, MAX_HEAD};
use contract::peer;
use contract::query;
use contract::response::{Connection, Status};
use contract::route::{self, Endpoint, Route};

use crate::head;
use crate::out::Sink;
use crate::responses::{Fixed, FixedId, Responder};

/// What a connection waits for after [`Conn::feed`] (and what the socket loop does next).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// No request is partly read: wait for the next one, as long as the client likes.
    Idle,
    /// A request head is partly read: wait for the rest (the head timeout runs).
    Head,
    /// A request body is partly read and being discarded: wait for the rest.
    Body,
    /// Write `out`, then close. `linger`: the client may still be sending (a body, or
    /// requests after a closing one), so shut the write side down and discard input for a
    /// moment before closing, lest unread input turn the close into a reset that loses the
    /// answer.
    Close {
        /// Whether to shut down writing and drain input before closing.
        linger: bool,
    },
}

/// Where a connection is in its byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before or inside a request head (a partial head is in `carry`).
    Head,
    /// Discarding a `content-length` body; the answer is already written.
    Length { remaining: u64 },
    /// Decoding a chunked body; the answer waits in `held` until the body ends.
    Chunked {
        phase: Chunk,
        decoded: u64,
        close: bool,
    },
    /// Closed: nothing more is read.
    Closed { linger: bool },
}

/// Where a chunked body decoder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chunk {
    /// Reading a chunk-size line (a partial one is in `carry`).
    Size,
    /// Discarding chunk data.
    Data(u64),
    /// Expecting the CRLF after chunk data; the number of its bytes already seen.
    DataEnd(u8),
    /// Reading the trailer section after the last chunk.
    Trailer {
        line_empty: bool,
        cr: bool,
        len: u32,
    },
}

/// The interim answer to `Expect: 100-continue`, so a client that waits for it sends its body.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";
/// Longest chunk-size line (with extensions) kept across reads.
const MAX_CHUNK_LINE: usize = 4096;
/// A carry buffer larger than this is freed once used, so idle connections stay small.
const KEEP_CARRY: usize = 1024;
/// Header fields parsed on the hot path; a head with more is parsed again by a cold path.
const FAST_FIELDS: usize = 64;
/// Enough fields for any head of [`MAX_HEAD`] bytes (the shortest field line is 4 bytes).
const ALL_FIELDS: usize = MAX_HEAD / 4;

/// The peer's address as `/my/ip` shows it, rendered once per connection.
#[derive(Clone, Copy, Debug)]
struct PeerText {
    bytes: [u8; 46],
    len: u8,
}

impl PeerText {
    fn new(ip: IpAddr) -> PeerText {
        use std::io::Write;
        let mut bytes = [0u8; 46];
        let mut rest = &mut bytes[..];
        // Both address forms fit (IPv6 text is at most 45 bytes); a failed write leaves a prefix.
        let _ = write!(rest, "{}", peer::canonical(ip));
        let len = (46 - rest.len()) as u8;
        PeerText { bytes, len }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// One connection's protocol state: small, and allocation-free unless a head or a chunk-size
/// line is split across reads or a chunked body is being decoded.
#[derive(Debug)]
pub struct Conn {
    state: State,
    /// An unfinished head or chunk-size line.
    carry: Vec<u8>,
    /// The answer to a chunked request, written once its body has been read.
    held: Vec<u8>,
    /// Answer every further request with `connection: close` (server shutting down).
    draining: bool,
    /// Complete heads so far (the socket loop restarts the head timeout when it moves on).
    heads: u64,
    peer: PeerText,
}

/// The framing and connection fields of one head.
#[derive(Clone, Copy, Debug, Default)]
struct Fields<'a> {
    content_length: Option<u64>,
    te: Te,
    close: bool,
    keep_alive: bool,
    expect_continue: bool,
    /// Whether any of the fields above was present (`content-length`, `transfer-encoding`,
    /// `connection`, `expect`).
    framing: bool,
    /// How many `host` field lines, and the value of the first.
    hosts: u32,
    host: &'a [u8],
}

/// What the `transfer-encoding` fields say, read coding by coding across all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Te {
    #[default]
    None,
    /// Exactly `chunked`.
    Chunked,
    /// A coding this server does not implement, without `chunked`: 501.
    Other,
    /// Codings this server does not implement, then `chunked` as the final one: 501.
    OtherChunked,
    /// `chunked`, then another coding (`chunked` included): the body length cannot be known,
    /// so RFC 9112 §6.3 wants 400 and the close.
    NotFinal,
}

impl Te {
    /// The state after one more coding (an empty field value counts as an unknown coding).
    fn then(self, coding: &[u8]) -> Te {
        match self {
            Te::Chunked | Te::OtherChunked | Te::NotFinal => Te::NotFinal,
            Te::None if coding.eq_ignore_ascii_case(b"chunked") => Te::Chunked,
            Te::Other if coding.eq_ignore_ascii_case(b"chunked") => Te::OtherChunked,
            Te::None | Te::Other => Te::Other,
        }
    }
}

/// The outcome of parsing a head in one buffer.
enum Parsed {
    /// The head took this many bytes and has been answered (or failed: see the state).
    Complete(usize),
    /// Not all of the head is there yet.
    Partial,
    /// httparse refused it.
    Error(httparse::Error),
}

fn trim(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// A `content-length` value: digits only. `Err(true)`: too large to represent.
fn parse_length(value: &[u8]) -> Result<u64, bool> {
    let v = trim(value);
    if v.is_empty() {
        return Err(false);
    }
    let mut n: u64 = 0;
    for &b in v {
        if !b.is_ascii_digit() {
            return Err(false);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(b - b'0')))
            .ok_or(true)?;
    }
    Ok(n)
}

impl Conn {
    /// A connection from `peer` (shown by `/my/ip`), waiting for its first request.
    pub fn new(peer: IpAddr) -> Conn {
        Conn {
            state: State::Head,
            carry: Vec::new(),
            held: Vec::new(),
            draining: false,
            heads: 0,
            peer: PeerText::new(peer),
        }
    }

    /// Consumes `input` (the next bytes from the client), appends the answer to every request
    /// completed by it to `out`, in order, and says what to wait for next.
    pub fn feed(&mut self, r: &mut Responder, mut input: &[u8], out: &mut impl Sink) -> Action {
        loop {
            match self.state {
                State::Closed { linger } => {
                    return Action::Close {
                        linger: linger || !input.is_empty(),
                    };
                }
                State::Head => {
                    if input.is_empty() {
                        return if self.carry.is_empty() {
                            Action::Idle
                        } else {
                            Action::Head
                        };
                    }
                    match self.head(r, input, out) {
                        Some(n) => input = &input[n..],
                        None => return Action::Head,
                    }
                }
                State::Length { remaining } => {
                    let take = remaining.min(input.len() as u64);
                    input = &input[take as usize..];
                    if take < remaining {
                        self.state = State::Length {
                            remaining: remaining - take,
                        };
                        return Action::Body;
                    }
                    self.state = State::Head;
                }
                State::Chunked { .. } => match self.chunked(r, input, out) {
                    Some(n) => input = &input[n..],
                    None => return Action::Body,
                },
            }
        }
    }

    /// From now on, answer with `connection: close` and close after the next answer.
    pub fn drain(&mut self) {
        self.draining = true;
    }

    /// The head timeout expired: appends a 408 and closes.
    #[cold]
    pub fn expire(&mut self, r: &Responder, out: &mut impl Sink) -> Action {
        self.fail(r, Status::RequestTimeout, out)
    }

    /// How many request heads have been completed so far.
    pub fn heads(&self) -> u64 {
        self.heads
    }

    /// Whether the connection has closed (after an answer with `connection: close`).
    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed { .. })
    }

    #[cold]
    fn fail(&mut self, r: &Responder, status: Status, out: &mut impl Sink) -> Action {
        r.error(status, out.bytes());
        self.state = State::Closed { linger: true };
        self.carry = Vec::new();
        self.held = Vec::new();
        Action::Close { linger: true }
    }

    /// Reads a head from `input` (after any carried part). Returns how many bytes of `input`
    /// were consumed, or `None` when all of it went into the carry buffer.
    fn head(&mut self, r: &mut Responder, input: &[u8], out: &mut impl Sink) -> Option<usize> {
        if !self.carry.is_empty() {
            return self.head_carried(r, input, out);
        }
        let window = &input[..input.len().min(MAX_HEAD)];
        match self.parse_head::<FAST_FIELDS>(r, window, out) {
            Parsed::Complete(n) => Some(n),
            Parsed::Partial if window.len() == MAX_HEAD => {
                self.fail(r, Status::HeaderFieldsTooLarge, out);
                Some(0)
            }
            Parsed::Partial => {
                self.carry.extend_from_slice(input);
                None
            }
            Parsed::Error(e) => {
                self.bad_head(r, window, e, out);
                Some(0)
            }
        }
    }

    /// [`Conn::head`] with part of the head already carried over from earlier reads.
    #[cold]
    fn head_carried(
        &mut self,
        r: &mut Responder,
        input: &[u8],
        out: &mut impl Sink,
    ) -> Option<usize> {
        let mut carry = std::mem::take(&mut self.carry);
        let old = carry.len();
        let take = input.len().min(MAX_HEAD.saturating_sub(old));
        carry.extend_from_slice(&input[..take]);
        let parsed = self.parse_head::<FAST_FIELDS>(r, &carry, out);
        let consumed = match parsed {
            Parsed::Complete(n) => Some(n.saturating_sub(old).min(input.len())),
            Parsed::Partial if carry.len() >= MAX_HEAD => {
                self.fail(r, Status::HeaderFieldsTooLarge, out);
                Some(0)
            }
            Parsed::Partial => {
                self.carry = carry;
                return None;
            }
            Parsed::Error(e) => {
                self.bad_head(r, &carry, e, out);
                Some(0)
            }
        };
        if carry.capacity() <= KEEP_CARRY && !self.is_closed() {
            carry.clear();
            self.carry = carry;
        }
        consumed
    }

    /// Parses one head in `buf` with room for `N` fields and answers it when complete.
    #[inline(always)]
    fn parse_head<const N: usize>(
        &mut self,
        r: &mut Responder,
        buf: &[u8],
        out: &mut impl Sink,
    ) -> Parsed {
        // The fast path's fields and httparse's apart (uninitialised, so they cost nothing):
        // the fast path's result borrows its array, and `request` is called from one place.
        let mut fast = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; FAST_FIELDS];
        let mut fields = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; N];
        let mut slow = httparse::Request::new(&mut []);
        let (n, req) = match head::parse(buf, &mut fast) {
            Some((n, req)) => (n, req),
            None => match slow.parse_with_uninit_headers(buf, &mut fields) {
                Ok(httparse::Status::Complete(n)) => (n, slow),
                Ok(httparse::Status::Partial) => return Parsed::Partial,
                Err(httparse::Error::TooManyHeaders) if N < ALL_FIELDS => {
                    return self.parse_head_large(r, buf, out);
                }
                Err(e) => return Parsed::Error(e),
            },
        };
        self.request(r, &req, out);
        Parsed::Complete(n)
    }

    /// A head with more than [`FAST_FIELDS`] fields: parsed again with room for all.
    #[cold]
    #[inline(never)]
    fn parse_head_large(&mut self, r: &mut Responder, buf: &[u8], out: &mut impl Sink) -> Parsed {
        self.parse_head::<ALL_FIELDS>(r, buf, out)
    }

    /// Answers a head httparse refused: 505 for a well-formed `HTTP/x.y` of another version
    /// (the HTTP/2 preface included), otherwise 400.
    #[cold]
    fn bad_head(&mut self, r: &Responder, buf: &[u8], e: httparse::Error, out: &mut impl Sink) {
        let status = if e == httparse::Error::Version && names_other_version(buf) {
            Status::VersionNotSupported
        } else {
            Status::BadRequest
        };
        self.fail(r, status, out);
    }

    /// Checks the framing fields of a complete head, answers it (or holds the answer until a
    /// chunked body ends) and sets the state for what follows.
    #[inline(always)]
    fn request(&mut self, r: &mut Responder, req: &httparse::Request<'_, '_>, out: &mut impl Sink) {
        self.heads += 1;
        let f = match scan(req.headers) {
            Ok(f) => f,
            Err(status) => {
                self.fail(r, status, out);
                return;
            }
        };
        let version = req.version.unwrap_or(1);
        // The common head, HTTP/1.1 with one `host` and no framing or connection field, takes
        // the short way to the same answer as below: a valid host, no body, kept open.
        if !f.framing && version == 1 && f.hosts == 1 && !self.draining {
            if !r.valid_host(f.host) {
                self.fail(r, Status::BadRequest, out);
                return;
            }
            self.answer(r, req, Connection::Absent, out);
            self.state = State::Head;
            return;
        }
        // Both lengths; chunked not the final coding; any transfer coding on HTTP/1.0, whose
        // framing RFC 9112 §6.1 calls faulty; the Host rule of §3.2: 400 and the close.
        let bad_framing = (f.content_length.is_some() && f.te != Te::None)
            || f.te == Te::NotFinal
            || (version == 0 && f.te != Te::None);
        // The Host rule (contract::host): exactly one valid `host`, or none on HTTP/1.0.
        let host_ok = match f.hosts {
            0 => version == 0,
            1 => r.valid_host(f.host),
            _ => false,
        };
        if bad_framing || !host_ok {
            self.fail(r, Status::BadRequest, out);
            return;
        }
        if matches!(f.te, Te::Other | Te::OtherChunked) {
            self.fail(r, Status::NotImplemented, out);
            return;
        }
        let length = f.content_length.unwrap_or(0);
        if length > MAX_BODY {
            self.fail(r, Status::PayloadTooLarge, out);
            return;
        }
        let close = self.draining || f.close || (version == 0 && !f.keep_alive);
        let connection = match (close, version) {
            (true, _) => Connection::Close,
            (false, 0) => Connection::KeepAlive,
            (false, _) => Connection::Absent,
        };
        let chunked = f.te == Te::Chunked;
        if f.expect_continue && version == 1 && (chunked || length > 0) {
            out.bytes().extend_from_slice(CONTINUE);
        }
        if chunked {
            self.hold(r, req, connection);
            self.state = State::Chunked {
                phase: Chunk::Size,
                decoded: 0,
                close,
            };
            return;
        }
        self.answer(r, req, connection, out);
        self.state = match (close, length) {
            (false, 0) => State::Head,
            (false, remaining) => State::Length { remaining },
            (true, n) => State::Closed { linger: n > 0 },
        };
    }

    /// Writes the answer of a chunked request into `held`, to be sent when the body ends.
    #[cold]
    fn hold(&mut self, r: &mut Responder, req: &httparse::Request<'_, '_>, connection: Connection) {
        let mut held = std::mem::take(&mut self.held);
        self.answer(r, req, connection, &mut held);
        self.held = held;
    }

    /// Appends the answer to a well-framed request.
    #[inline(always)]
    fn answer(
        &self,
        r: &mut Responder,
        req: &httparse::Request<'_, '_>,
        c: Connection,
        out: &mut impl Sink,
    ) {
        let method = req.method.unwrap_or_default().as_bytes();
        let target = req.path.unwrap_or_default().as_bytes();
        let (fixed, head) = match route::route(method, target, false) {
            Route::NotFound => (Fixed::NotFound, false),
            Route::MethodNotAllowed => (Fixed::MethodNotAllowed, false),
            Route::Endpoint { endpoint, head } => match endpoint {
                Endpoint::ApiHello => (Fixed::ApiHello, head),
                Endpoint::Root => (Fixed::Root, head),
                Endpoint::Hello => (Fixed::Hello, head),
                Endpoint::Private => {
                    let values = req
                        .headers
                        .iter()
                        .filter(|h| h.name.eq_ignore_ascii_case("authorization"))
                        .map(|h| h.value);
                    if auth::authorized(values, r.token()) {
                        (Fixed::PrivateOk, head)
                    } else {
                        (Fixed::PrivateDenied, head)
                    }
                }
                Endpoint::MyIp => {
                    let ip = self.peer.as_bytes();
                    r.dynamic(head, c, out.bytes(), |b| b.extend_from_slice(ip));
                    return;
                }
                Endpoint::Echo => {
                    let (_, q) = route::split_target(target);
                    r.dynamic(head, c, out.bytes(), |b| query::write_echo(q, b));
                    return;
                }
                // Not served by this variant: `route` was asked without scenarios.
                _ => (Fixed::NotFound, false),
            },
        };
        out.fixed(r, FixedId::new(fixed, head, c));
    }

    /// Decodes and discards chunked body bytes from `input`. Returns how many were consumed
    /// once the body has ended (or failed), or `None` when all of `input` was used up.
    fn chunked(&mut self, r: &Responder, input: &[u8], out: &mut impl Sink) -> Option<usize> {
        let State::Chunked {
            mut phase,
            mut decoded,
            close,
        } = self.state
        else {
            return Some(0);
        };
        let mut i = 0;
        while i < input.len() {
            match phase {
                Chunk::Size => {
                    let Some((n, size)) = self.chunk_size(r, &input[i..], out) else {
                        if self.is_closed() {
                            return Some(i);
                        }
                        // Carried: all of the rest is in the carry buffer.
                        i = input.len();
                        continue;
                    };
                    i += n;
                    if size == 0 {
                        phase = Chunk::Trailer {
                            line_empty: true,
                            cr: false,
                            len: 0,
                        };
                    } else {
                        decoded = decoded.saturating_add(size);
                        if decoded > MAX_BODY {
                            self.fail(r, Status::PayloadTooLarge, out);
                            return Some(i);
                        }
                        phase = Chunk::Data(size);
                    }
                }
                Chunk::Data(left) => {
                    let take = left.min((input.len() - i) as u64);
                    i += take as usize;
                    phase = if take == left {
                        Chunk::DataEnd(0)
                    } else {
                        Chunk::Data(left - take)
                    };
                }
                Chunk::DataEnd(seen) => {
                    if input[i] != b"\r\n"[seen as usize] {
                        self.fail(r, Status::BadRequest, out);
                        return Some(i);
                    }
                    i += 1;
                    phase = if seen == 1 {
                        Chunk::Size
                    } else {
                        Chunk::DataEnd(1)
                    };
                }
                Chunk::Trailer {
                    mut line_empty,
                    mut cr,
                    mut len,
                } => {
                    while let Some(&b) = input.get(i) {
                        i += 1;
                        len += 1;
                        if len as usize > MAX_HEAD {
                            self.fail(r, Status::HeaderFieldsTooLarge, out);
                            return Some(i);
                        }
                        if cr && b != b'\n' {
                            self.fail(r, Status::BadRequest, out);
                            return Some(i);
                        }
                        match b {
                            b'\r' => cr = true,
                            b'\n' if line_empty => {
                                self.end_chunked(close, out);
                                return Some(i);
                            }
                            b'\n' => cr = false,
                            _ => line_empty = false,
                        }
                        if b == b'\n' {
                            line_empty = true;
                        }
                    }
                    phase = Chunk::Trailer {
                        line_empty,
                        cr,
                        len,
                    };
                }
            }
        }
        self.state = State::Chunked {
            phase,
            decoded,
            close,
        };
        None
    }

    /// The chunked body has ended: sends the held answer.
    fn end_chunked(&mut self, close: bool, out: &mut impl Sink) {
        out.bytes().extend_from_slice(&self.held);
        self.held = Vec::new();
        self.state = if close {
            State::Closed { linger: false }
        } else {
            State::Head
        };
    }

    /// Parses a chunk-size line at the start of `input` (after any carried part). Returns the
    /// bytes of `input` it took and the size; `None` when it is incomplete (carried) or bad
    /// (the connection is then closed).
    fn chunk_size(
        &mut self,
        r: &Responder,
        input: &[u8],
        out: &mut impl Sink,
    ) -> Option<(usize, u64)> {
        let old = self.carry.len();
        let line = if old == 0 {
            input
        } else {
            let take = input.len().min(MAX_CHUNK_LINE.saturating_sub(old));
            self.carry.extend_from_slice(&input[..take]);
            &self.carry[..]
        };
        // `parse_chunk_size` reads a line without digits ("\r\n", ";x\r\n") as size 0.
        let has_size = line.first().is_some_and(u8::is_ascii_hexdigit);
        let long = line.len() >= MAX_CHUNK_LINE;
        match httparse::parse_chunk_size(line) {
            Ok(httparse::Status::Complete((n, size))) if has_size => {
                if old > 0 {
                    self.release_carry();
                }
                Some((n.saturating_sub(old), size))
            }
            Ok(httparse::Status::Partial) if !long => {
                if old == 0 {
                    self.carry.extend_from_slice(input);
                }
                None
            }
            _ => {
                self.fail(r, Status::BadRequest, out);
                None
            }
        }
    }

    fn release_carry(&mut self) {
        if self.carry.capacity() > KEEP_CARRY {
            self.carry = Vec::new();
        } else {
            self.carry.clear();
        }
    }
}

/// Whether the field name `name` (token bytes, as both parsers give them) is `lower`, a name
/// of lowercase letters and `-`, case-insensitively. Setting bit 0x20 lowercases a letter and
/// keeps `-`; of the other bytes only CR (0x0D) would turn into `-`, and no name holds one.
#[inline(always)]
fn named(name: &[u8], lower: &[u8]) -> bool {
    debug_assert!(lower.iter().all(|&b| b.is_ascii_lowercase() || b == b'-'));
    name.len() == lower.len() && name.iter().zip(lower).all(|(&a, &b)| a | 0x20 == b)
}

/// Reads the framing and connection fields of a head.
#[inline(always)]
fn scan<'a>(headers: &[httparse::Header<'a>]) -> Result<Fields<'a>, Status> {
    let mut f = Fields::default();
    for h in headers {
        let name = h.name.as_bytes();
        match name.len() {
            10 if named(name, b"connection") => {
                f.framing = true;
                for token in h.value.split(|&b| b == b',') {
                    let token = trim(token);
                    if token.eq_ignore_ascii_case(b"close") {
                        f.close = true;
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        f.keep_alive = true;
                    }
                }
            }
            14 if named(name, b"content-length") => {
                f.framing = true;
                let n = match parse_length(h.value) {
                    Ok(n) => n,
                    Err(true) => return Err(Status::PayloadTooLarge),
                    Err(false) => return Err(Status::BadRequest),
                };
                if f.content_length.is_some_and(|m| m != n) {
                    return Err(Status::BadRequest);
                }
                f.content_length = Some(n);
            }
            17 if named(name, b"transfer-encoding") => {
                f.framing = true;
                for coding in h.value.split(|&b| b == b',') {
                    f.te = f.te.then(trim(coding));
                }
            }
            4 if named(name, b"host") => {
                if f.hosts == 0 {
                    f.host = h.value;
                }
                f.hosts = f.hosts.saturating_add(1);
            }
            6 if named(name, b"expect") => {
                f.framing = true;
                f.expect_continue = trim(h.value).eq_ignore_ascii_case(b"100-continue");
            }
            _ => {}
        }
    }
    Ok(f)
}

/// Whether the request line in `buf` names an `HTTP/<digit>` version other than 1.0 or 1.1
/// (the HTTP/2 preface included), judged only on the bytes httparse has seen before refusing
/// the version, so the answer is the same however the head was split across reads.
#[cold]
fn names_other_version(buf: &[u8]) -> bool {
    let start = buf
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(buf.len());
    let line = &buf[start..];
    let end = line
        .iter()
        .position(|&b| b == b'\r' || b == b'\n')
        .unwrap_or(line.len());
    // httparse takes exactly one space after the method and one after the target.
    let mut parts = line[..end].splitn(3, |&b| b == b' ');
    let (Some(_), Some(_), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    match version {
        [b'H', b'T', b'T', b'P', b'/', b'1', b'.', minor, ..] => minor.is_ascii_digit(),
        [b'H', b'T', b'T', b'P', b'/', major, ..] => major.is_ascii_digit() && *major != b'1',
        _ => false,
    }
}
