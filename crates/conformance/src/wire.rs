//! A raw-wire HTTP/1.1 client: write exact bytes, read exact responses.
//!
//! [`Conn`] wraps one blocking `TcpStream` with a read buffer. Every read has a deadline, so
//! nothing here can hang: a response that does not arrive in time is a [`WireError::Timeout`]
//! carrying the bytes received so far. [`parse_response`] is the pure framing step (head parsed
//! with `httparse`, body framed by `content-length`, `chunked`, or the close), shared with the
//! asynchronous clients of the heavy check and usable by other crates.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Largest response head accepted before the response is called malformed.
pub const MAX_RESPONSE_HEAD: usize = 64 * 1024;
/// Largest response body accepted before the response is called malformed.
pub const MAX_RESPONSE_BODY: usize = 16 * 1024 * 1024;
/// Most header fields parsed in one response head.
const MAX_HEADERS: usize = 64;

/// One parsed response, with the exact bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Minor version of the status line: `1` for `HTTP/1.1`, `0` for `HTTP/1.0`.
    pub version: u8,
    /// Status code.
    pub status: u16,
    /// Reason phrase as sent.
    pub reason: String,
    /// Header fields in the order sent, names as sent, duplicates kept.
    pub headers: Vec<(String, String)>,
    /// The body after framing (decoded when chunked; empty for HEAD).
    pub body: Vec<u8>,
    /// The raw bytes of this response, head and body as received.
    pub raw: Vec<u8>,
}

impl Response {
    /// The first value of the field `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of the field `name` (case-insensitive), in order.
    pub fn headers_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The length of its head: status line and fields through the first CRLF CRLF (all of
    /// `raw` when there is none).
    pub fn head_len(&self) -> usize {
        let end = self.raw.windows(4).position(|w| w == b"\r\n\r\n");
        end.map_or(self.raw.len(), |i| i + 4)
    }

    /// Whether the connection field lists the token `close` (case-insensitive).
    pub fn says_close(&self) -> bool {
        self.headers_named("connection")
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case("close"))
    }
}

/// What a connection did after a response, within a wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After {
    /// The peer closed (EOF or reset) with nothing more to read.
    Closed,
    /// Nothing arrived and the connection stayed open for the whole wait.
    Open,
    /// More bytes arrived (or were already buffered).
    Extra(Vec<u8>),
}

/// Why a wire operation failed. Every variant that happened while reading carries the bytes
/// received so far, for excerpts in failure reports.
#[derive(Debug)]
pub enum WireError {
    /// The TCP connection could not be made.
    Connect(io::Error),
    /// Writing the request failed.
    Write(io::Error),
    /// Reading failed (a reset, for instance).
    Read {
        /// The I/O error.
        error: io::Error,
        /// Bytes received before it.
        received: Vec<u8>,
    },
    /// The deadline passed before a complete response arrived.
    Timeout {
        /// Bytes received before it.
        received: Vec<u8>,
    },
    /// The peer closed before a complete response arrived.
    Closed {
        /// Bytes received before it.
        received: Vec<u8>,
    },
    /// The bytes received are not a valid HTTP/1.x response.
    Malformed {
        /// What is wrong.
        reason: String,
        /// Bytes received.
        received: Vec<u8>,
    },
}

impl WireError {
    /// The bytes received before the error (empty for connect and write errors).
    pub fn received(&self) -> &[u8] {
        match self {
            WireError::Connect(_) | WireError::Write(_) => &[],
            WireError::Read { received, .. }
            | WireError::Timeout { received }
            | WireError::Closed { received }
            | WireError::Malformed { received, .. } => received,
        }
    }

    /// Whether this is a connection reset (or broken pipe), on read or write.
    pub fn is_reset(&self) -> bool {
        let kind = match self {
            WireError::Write(e) | WireError::Read { error: e, .. } => e.kind(),
            _ => return false,
        };
        matches!(
            kind,
            io::ErrorKind::ConnectionReset
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::ConnectionAborted
        )
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Connect(e) => write!(f, "connect failed: {e}"),
            WireError::Write(e) => write!(f, "write failed: {e}"),
            WireError::Read { error, received } => {
                write!(f, "read failed after {} bytes: {error}", received.len())
            }
            WireError::Timeout { received } => {
                write!(
                    f,
                    "timed out after {} bytes without a complete response",
                    received.len()
                )
            }
            WireError::Closed { received } => write!(
                f,
                "connection closed after {} bytes without a complete response",
                received.len()
            ),
            WireError::Malformed { reason, .. } => write!(f, "malformed response: {reason}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Parses `bytes` as exactly one complete response, nothing before or after it: the check a
/// unit test makes of a response it built (`head`: the request was HEAD, so no body follows).
pub fn parse_exact(bytes: &[u8], head: bool) -> Result<Response, String> {
    match parse_response(bytes, head, false)? {
        Some((r, used)) if used == bytes.len() => Ok(r),
        Some((_, used)) => Err(format!(
            "{} bytes after the response's {used}",
            bytes.len() - used
        )),
        None => Err(format!("an incomplete response ({} bytes)", bytes.len())),
    }
}

/// Parses one response from the start of `buf`.
///
/// `head` says the request was HEAD (no body follows whatever the fields say); `eof` says the
/// peer has closed, which completes a body delimited by the close. Returns the response and the
/// number of bytes it used, `Ok(None)` when more bytes are needed, or the reason the bytes are
/// not a response.
pub fn parse_response(
    buf: &[u8],
    head: bool,
    eof: bool,
) -> Result<Option<(Response, usize)>, String> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut fields);
    let head_len = match parsed.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() > MAX_RESPONSE_HEAD => {
            return Err(format!("response head over {MAX_RESPONSE_HEAD} bytes"));
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(format!("unparsable response head ({e})")),
    };
    let status = parsed.code.unwrap_or(0);
    let version = parsed.version.unwrap_or(1);
    let reason = parsed.reason.unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = parsed
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_owned(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    let rest = &buf[head_len..];
    let field = |name: &'static str| {
        headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let bodyless = head || (100..200).contains(&status) || status == 204 || status == 304;
    let chunked = field("transfer-encoding")
        .flat_map(|v| v.split(','))
        .last()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("chunked"));

    let (body, body_len) = if bodyless {
        (Vec::new(), 0)
    } else if chunked {
        match decode_chunked(rest)? {
            Some(done) => done,
            None => return Ok(None),
        }
    } else if let Some(first) = field("content-length").next() {
        let mut lengths = field("content-length").map(|v| v.trim().to_owned());
        if lengths.any(|v| v != first.trim()) {
            return Err("conflicting content-length values".to_owned());
        }
        let len = parse_decimal(first.trim())
            .ok_or_else(|| format!("invalid content-length {first:?}"))?;
        if len > MAX_RESPONSE_BODY {
            return Err(format!("content-length {len} over {MAX_RESPONSE_BODY}"));
        }
        if rest.len() < len {
            return Ok(None);
        }
        (rest[..len].to_vec(), len)
    } else if eof {
        (rest.to_vec(), rest.len())
    } else {
        if rest.len() > MAX_RESPONSE_BODY {
            return Err("close-delimited body too large".to_owned());
        }
        return Ok(None);
    };
    let used = head_len + body_len;
    let response = Response {
        version,
        status,
        reason,
        headers,
        body,
        raw: buf[..used].to_vec(),
    };
    Ok(Some((response, used)))
}

/// A non-empty run of ASCII digits, as `usize`.
fn parse_decimal(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Decodes a chunked body at the start of `buf`: the payload and the bytes used, or `None`
/// when incomplete.
fn decode_chunked(buf: &[u8]) -> Result<Option<(Vec<u8>, usize)>, String> {
    let mut body = Vec::new();
    let mut pos = 0;
    loop {
        let Some(line_end) = find_crlf(&buf[pos..]) else {
            return Ok(None);
        };
        let line = &buf[pos..pos + line_end];
        let size_text = line.split(|&b| b == b';').next().unwrap_or(&[]);
        let size_text = std::str::from_utf8(size_text)
            .map_err(|_| "chunk size is not text".to_owned())?
            .trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("invalid chunk size {size_text:?}"))?;
        pos += line_end + 2;
        if size == 0 {
            // Trailer fields until an empty line.
            loop {
                let Some(end) = find_crlf(&buf[pos..]) else {
                    return Ok(None);
                };
                pos += end + 2;
                if end == 0 {
                    return Ok(Some((body, pos)));
                }
            }
        }
        if body.len() + size > MAX_RESPONSE_BODY {
            return Err("chunked body too large".to_owned());
        }
        if buf.len() < pos + size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&buf[pos..pos + size]);
        if &buf[pos + size..pos + size + 2] != b"\r\n" {
            return Err("chunk not followed by CRLF".to_owned());
        }
        pos += size + 2;
    }
}

fn find_crlf(buf: &[u8]) -> Option<usize> {
    buf.windows(2).position(|w| w == b"\r\n")
}

/// One client connection with a read buffer and a per-response deadline.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    timeout: Duration,
}

impl Conn {
    /// Connects to `addr` with `timeout` for the connect and as the deadline of each response.
    /// `TCP_NODELAY` is set so that every [`Conn::send`] leaves as its own segment.
    pub fn connect(addr: SocketAddr, timeout: Duration) -> Result<Conn, WireError> {
        let stream = TcpStream::connect_timeout(&addr, timeout).map_err(WireError::Connect)?;
        stream.set_nodelay(true).map_err(WireError::Connect)?;
        stream
            .set_write_timeout(Some(timeout))
            .map_err(WireError::Connect)?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
            timeout,
        })
    }

    /// The underlying stream (for local and peer addresses, shutdown, and so on).
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Bytes received but not yet consumed by a response.
    pub fn buffered(&self) -> &[u8] {
        &self.buf
    }

    /// Writes all of `bytes`.
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        self.stream.write_all(bytes).map_err(WireError::Write)?;
        self.stream.flush().map_err(WireError::Write)
    }

    /// Reads one response; `head` says the request it answers was HEAD.
    pub fn read_response(&mut self, head: bool) -> Result<Response, WireError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(response) = self.try_parse(head, false)? {
                return Ok(response);
            }
            match self.fill(deadline) {
                Ok(true) => {}
                Ok(false) => {
                    return match self.try_parse(head, true)? {
                        Some(response) => Ok(response),
                        None => Err(WireError::Closed {
                            received: std::mem::take(&mut self.buf),
                        }),
                    };
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits up to `within` for what follows a response: more bytes, the close, or nothing.
    /// A reset counts as the close.
    pub fn after(&mut self, within: Duration) -> After {
        if !self.buf.is_empty() {
            return After::Extra(std::mem::take(&mut self.buf));
        }
        match self.fill(Instant::now() + within) {
            Ok(true) => After::Extra(std::mem::take(&mut self.buf)),
            Ok(false) => After::Closed,
            Err(WireError::Timeout { .. }) => After::Open,
            Err(_) => After::Closed,
        }
    }

    /// Half-closes the write side (the client sends FIN but can still read).
    pub fn shutdown_write(&self) -> Result<(), WireError> {
        self.stream
            .shutdown(Shutdown::Write)
            .map_err(WireError::Write)
    }

    /// Closes the connection with a reset (RST) instead of a FIN.
    pub fn reset(self) {
        // Linger 0 turns the close into an abortive one; failing that, a plain close remains.
        let _ = socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO));
        drop(self.stream);
    }

    fn try_parse(&mut self, head: bool, eof: bool) -> Result<Option<Response>, WireError> {
        match parse_response(&self.buf, head, eof) {
            Ok(Some((response, used))) => {
                self.buf.drain(..used);
                Ok(Some(response))
            }
            Ok(None) => Ok(None),
            Err(reason) => Err(WireError::Malformed {
                reason,
                received: std::mem::take(&mut self.buf),
            }),
        }
    }

    /// Reads once into the buffer before `deadline`: `Ok(true)` for bytes, `Ok(false)` for EOF.
    fn fill(&mut self, deadline: Instant) -> Result<bool, WireError> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WireError::Timeout {
                    received: self.buf.clone(),
                });
            }
            if let Err(error) = self.stream.set_read_timeout(Some(left)) {
                return Err(WireError::Read {
                    error,
                    received: self.buf.clone(),
                });
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
                    ) && !self.buf.is_empty() =>
                {
                    // Data already received stays readable; a reset after it ends the stream.
                    return Ok(false);
                }
                Err(error) => {
                    return Err(WireError::Read {
                        error,
                        received: self.buf.clone(),
                    });
                }
            }
        }
    }
}

/// Reads `count` responses from a blocking `stream`, whose own read timeout bounds each read
/// (a test's `TcpStream`, for one); `head(i)` says whether the `i`-th answers a HEAD.
///
/// `buf` holds bytes already received and keeps what follows the last response, for a check
/// that nothing does or for the next call. A close completes a close-delimited body; a reset
/// after some bytes counts as the close, as in [`Conn`].
pub fn read_responses(
    stream: &mut impl Read,
    buf: &mut Vec<u8>,
    count: usize,
    head: impl Fn(usize) -> bool,
) -> Result<Vec<Response>, WireError> {
    let mut out = Vec::with_capacity(count);
    let mut chunk = [0u8; 16 * 1024];
    let mut eof = false;
    while out.len() < count {
        match parse_response(buf, head(out.len()), eof) {
            Ok(Some((response, used))) => {
                buf.drain(..used);
                out.push(response);
                continue;
            }
            Ok(None) if eof => {
                return Err(WireError::Closed {
                    received: std::mem::take(buf),
                });
            }
            Ok(None) => {}
            Err(reason) => {
                return Err(WireError::Malformed {
                    reason,
                    received: std::mem::take(buf),
                });
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => eof = true,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(WireError::Timeout {
                    received: std::mem::take(buf),
                });
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
                ) && !buf.is_empty() =>
            {
                eof = true;
            }
            Err(error) => {
                return Err(WireError::Read {
                    error,
                    received: std::mem::take(buf),
                });
            }
        }
    }
    Ok(out)
}

/// [`read_responses`] from an empty buffer that must stay empty: exactly `count` responses
/// and nothing after them in what was read, the stream's counterpart of [`parse_exact`].
pub fn read_exact(
    stream: &mut impl Read,
    count: usize,
    head: impl Fn(usize) -> bool,
) -> Result<Vec<Response>, WireError> {
    let mut rest = Vec::new();
    let all = read_responses(stream, &mut rest, count, head)?;
    if rest.is_empty() {
        Ok(all)
    } else {
        Err(WireError::Malformed {
            reason: format!("{} bytes after the {count} responses", rest.len()),
            received: rest,
        })
    }
}

/// Connects, writes `request`, reads one response, then waits up to `close_wait` for the close.
///
/// Returns the response and whether the server closed the connection within that wait.
pub fn exchange(
    addr: SocketAddr,
    request: &[u8],
    head: bool,
    timeout: Duration,
    close_wait: Duration,
) -> Result<(Response, bool), WireError> {
    let mut conn = Conn::connect(addr, timeout)?;
    conn.send(request)?;
    let response = conn.read_response(head)?;
    let closed = conn.after(close_wait) == After::Closed;
    Ok((response, closed))
}

/// Bytes as printable ASCII (`\r`, `\n`, `\xNN` escaped), cut to `max` input bytes.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let cut = &bytes[..bytes.len().min(max)];
    let mut out = cut.escape_ascii().to_string();
    if bytes.len() > max {
        out.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_length_chunked_and_close_delimited() {
        let raw = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nX: a\r\nx: b\r\n\r\nhiNEXT";
        let (r, used) = parse_response(raw, false, false).unwrap().unwrap();
        assert_eq!(
            (r.status, r.version, r.body.as_slice()),
            (200, 1, &b"hi"[..])
        );
        assert_eq!(used, raw.len() - 4);
        assert_eq!(r.headers_named("x").collect::<Vec<_>>(), ["a", "b"]);

        let raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2;x=y\r\nhi\r\n1\r\n!\r\n0\r\n\r\n";
        let (r, used) = parse_response(raw, false, false).unwrap().unwrap();
        assert_eq!((r.body.as_slice(), used), (&b"hi!"[..], raw.len()));

        let raw = b"HTTP/1.0 200 OK\r\n\r\nabc";
        assert!(parse_response(raw, false, false).unwrap().is_none());
        let (r, _) = parse_response(raw, false, true).unwrap().unwrap();
        assert_eq!((r.version, r.body.as_slice()), (0, &b"abc"[..]));

        let raw = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n";
        let (r, used) = parse_response(raw, true, false).unwrap().unwrap();
        assert_eq!((r.body.len(), used), (0, raw.len()));
    }

    #[test]
    fn reads_responses_from_a_stream_in_pieces() {
        /// Hands out its bytes a few at a time, then EOF.
        struct Trickle(Vec<u8>);
        impl Read for Trickle {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(out.len()).min(3);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0.drain(..n);
                Ok(n)
            }
        }
        let two =
            b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhelloHTTP/1.1 204 No Content\r\n\r\n";
        let mut next = two.to_vec();
        next.extend_from_slice(b"HTTP/1.0 200 OK\r\n\r\nuntil the close");
        let mut stream = Trickle(next);
        let mut buf = b"HT".to_vec();
        stream.0.drain(..2);
        let got = read_responses(&mut stream, &mut buf, 2, |_| false).unwrap();
        assert_eq!(
            got.iter()
                .map(|r| (r.status, r.body.as_slice()))
                .collect::<Vec<_>>(),
            [(200, &b"hello"[..]), (204, &b""[..])]
        );
        assert_eq!([got[0].raw.as_slice(), &got[1].raw].concat(), two);
        let last = read_responses(&mut stream, &mut buf, 1, |_| false).unwrap();
        assert_eq!(
            (last[0].version, &last[0].body[..]),
            (0, &b"until the close"[..])
        );
        assert!(buf.is_empty());

        // HEAD: no body follows whatever the length says.
        let mut stream = Trickle(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n".to_vec());
        let got = read_responses(&mut stream, &mut Vec::new(), 1, |i| i == 0).unwrap();
        assert!(got[0].body.is_empty());

        let cut = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhel";
        let e = read_responses(&mut Trickle(cut.to_vec()), &mut Vec::new(), 1, |_| false);
        assert!(
            matches!(&e, Err(WireError::Closed { received }) if received == cut),
            "{e:?}"
        );
        let e = read_responses(
            &mut Trickle(b"SMTP\r\n\r\n".to_vec()),
            &mut Vec::new(),
            1,
            |_| false,
        );
        assert!(matches!(e, Err(WireError::Malformed { .. })), "{e:?}");

        // Exactly: what follows the responses, in what was read, is an error.
        let one = b"HTTP/1.1 204 No Content\r\n\r\n";
        let got = read_exact(&mut Trickle(one.to_vec()), 1, |_| false).unwrap();
        assert_eq!(got[0].raw, one);
        let e = read_exact(&mut &b"HTTP/1.1 204 No Content\r\n\r\nX"[..], 1, |_| false);
        assert!(
            matches!(&e, Err(WireError::Malformed { received, .. }) if received == b"X"),
            "{e:?}"
        );
    }

    #[test]
    fn rejects_bad_framing() {
        assert!(
            parse_response(
                b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n",
                false,
                false
            )
            .is_err()
        );
        assert!(
            parse_response(
                b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
                false,
                false
            )
            .is_err()
        );
        assert!(parse_response(b"garbage\r\n\r\n", false, false).is_err());
        assert!(
            parse_response(b"HTTP/1.1 200 OK\r\n", false, false)
                .unwrap()
                .is_none()
        );
    }
}
