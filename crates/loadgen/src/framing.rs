//! Response framing: where one response ends in a buffer of bytes read.
//!
//! [`parse`] looks at the start of a buffer and says whether a whole response is there and
//! how long it is (Content-Length, chunked, or no body), that the head is incomplete, that
//! the body runs until the server closes, or that the bytes are not HTTP. An incomplete
//! response is a state, not an error: the caller reads more and asks again.

/// What the start of a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parse {
    /// A whole response of `len` bytes.
    Complete {
        /// The status code.
        status: u16,
        /// Head and body length in bytes.
        len: usize,
        /// Whether the server lets the connection be reused.
        keep_alive: bool,
    },
    /// More bytes are needed.
    Partial,
    /// The head is complete and the body runs until the server closes the connection.
    UntilClose {
        /// The status code.
        status: u16,
    },
    /// Not a valid response: bad head, bad length, bad chunk.
    Invalid,
}

/// The most response headers looked at.
const MAX_HEADERS: usize = 64;

/// Frames the response at the start of `buf`. `head_request` is set for `HEAD`, whose
/// responses have no body whatever their headers say.
pub fn parse(buf: &[u8], head_request: bool) -> Parse {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let head_len = match resp.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Parse::Partial,
        Err(_) => return invalid(),
    };
    let status = resp.code.unwrap_or(0);
    if !(100..=599).contains(&status) {
        return invalid();
    }
    let mut keep_alive = resp.version == Some(1);
    let mut length: Option<usize> = None;
    let mut chunked = false;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let Some(n) = parse_length(h.value) else {
                return invalid();
            };
            if length.is_some_and(|l| l != n) {
                return invalid();
            }
            length = Some(n);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = h
                .value
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                if token.eq_ignore_ascii_case(b"close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case(b"keep-alive") {
                    keep_alive = true;
                }
            }
        }
    }
    let no_body = head_request || status < 200 || status == 204 || status == 304;
    let body_len = if no_body {
        0
    } else if chunked {
        match chunked_len(&buf[head_len..]) {
            Ok(Some(n)) => n,
            Ok(None) => return Parse::Partial,
            Err(()) => return invalid(),
        }
    } else if let Some(n) = length {
        n
    } else {
        return Parse::UntilClose { status };
    };
    let len = head_len + body_len;
    if buf.len() < len {
        return Parse::Partial;
    }
    Parse::Complete {
        status,
        len,
        keep_alive,
    }
}

#[cold]
fn invalid() -> Parse {
    Parse::Invalid
}

fn parse_length(v: &[u8]) -> Option<usize> {
    let v = v.trim_ascii();
    if v.is_empty() || v.len() > 18 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// The length of a complete chunked body at the start of `body`, `None` if more is needed.
fn chunked_len(body: &[u8]) -> Result<Option<usize>, ()> {
    let mut pos = 0;
    loop {
        let (size_len, size) = match httparse::parse_chunk_size(&body[pos..]) {
            Ok(httparse::Status::Complete(v)) => v,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(_) => return Err(()),
        };
        pos += size_len;
        if size == 0 {
            // Trailer fields, then an empty line.
            loop {
                let rest = &body[pos..];
                let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
                    return Ok(None);
                };
                pos += eol + 2;
                if eol == 0 {
                    return Ok(Some(pos));
                }
            }
        }
        let size = usize::try_from(size).map_err(|_| ())?;
        let end = pos.checked_add(size).ok_or(())?;
        if body.len() < end + 2 {
            return Ok(None);
        }
        if &body[end..end + 2] != b"\r\n" {
            return Err(());
        }
        pos = end + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(buf: &[u8]) -> (u16, usize, bool) {
        match parse(buf, false) {
            Parse::Complete {
                status,
                len,
                keep_alive,
            } => (status, len, keep_alive),
            other => panic!("{other:?} for {:?}", String::from_utf8_lossy(buf)),
        }
    }

    #[test]
    fn lengths_and_persistence() {
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1";
        assert_eq!(complete(r), (200, 43, true));
        assert_eq!(parse(&r[..40], false), Parse::Partial);
        assert_eq!(parse(&r[..10], false), Parse::Partial);
        let r = b"HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(!complete(r).2);
        let r = b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx";
        assert!(!complete(r).2);
        let r = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx";
        assert!(complete(r).2);
        let r = b"HTTP/1.1 204 No Content\r\n\r\n";
        assert_eq!(complete(r), (204, r.len(), true));
        assert_eq!(
            parse(b"HTTP/1.0 200 OK\r\n\r\nabc", false),
            Parse::UntilClose { status: 200 }
        );
        assert!(matches!(
            parse(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", true),
            Parse::Complete { len: 38, .. }
        ));
    }

    #[test]
    fn chunked() {
        let r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n!\r\n0\r\n\r\n";
        assert_eq!(complete(r), (200, r.len(), true));
        for cut in 47..r.len() {
            assert_eq!(parse(&r[..cut], false), Parse::Partial, "cut {cut}");
        }
        let t = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n\r\n";
        assert_eq!(complete(t).1, t.len());
        let bad = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n";
        assert_eq!(parse(bad, false), Parse::Invalid);
        let bad = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert_eq!(parse(bad, false), Parse::Invalid);
    }

    #[test]
    fn invalid_heads() {
        for r in [
            &b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 099 Odd\r\n\r\n",
            b"garbage\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        ] {
            assert_eq!(
                parse(r, false),
                Parse::Invalid,
                "{:?}",
                String::from_utf8_lossy(r)
            );
        }
    }
}
