//! Response heads and whole prebuilt responses, derived from the bodies.
//!
//! Every head has exactly the contract's fields, lowercase as hyper writes them:
//! `content-type` (only when the GET form has a body), `content-length` (always),
//! `allow` (405 only), `connection` (only `close`, or `keep-alive` for an HTTP/1.0 client
//! that asked for it) and `date`. Lengths always come from the body, never from a literal.

use crate::body;
use crate::date::{DATE_LEN, HttpDate};
use crate::route::Endpoint;

/// The statuses the contract uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// 200 OK.
    Ok,
    /// 400 Bad Request.
    BadRequest,
    /// 401 Unauthorized.
    Unauthorized,
    /// 404 Not Found.
    NotFound,
    /// 405 Method Not Allowed.
    MethodNotAllowed,
    /// 408 Request Timeout.
    RequestTimeout,
    /// 413 Payload Too Large.
    PayloadTooLarge,
    /// 431 Request Header Fields Too Large.
    HeaderFieldsTooLarge,
    /// 501 Not Implemented.
    NotImplemented,
    /// 505 HTTP Version Not Supported.
    VersionNotSupported,
}

impl Status {
    /// The numeric code.
    pub const fn code(self) -> u16 {
        match self {
            Status::Ok => 200,
            Status::BadRequest => 400,
            Status::Unauthorized => 401,
            Status::NotFound => 404,
            Status::MethodNotAllowed => 405,
            Status::RequestTimeout => 408,
            Status::PayloadTooLarge => 413,
            Status::HeaderFieldsTooLarge => 431,
            Status::NotImplemented => 501,
            Status::VersionNotSupported => 505,
        }
    }

    /// The standard reason phrase (as `http::StatusCode::canonical_reason` gives it).
    pub const fn reason(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::BadRequest => "Bad Request",
            Status::Unauthorized => "Unauthorized",
            Status::NotFound => "Not Found",
            Status::MethodNotAllowed => "Method Not Allowed",
            Status::RequestTimeout => "Request Timeout",
            Status::PayloadTooLarge => "Payload Too Large",
            Status::HeaderFieldsTooLarge => "Request Header Fields Too Large",
            Status::NotImplemented => "Not Implemented",
            Status::VersionNotSupported => "HTTP Version Not Supported",
        }
    }
}

/// What the `connection` field of a response says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Connection {
    /// No `connection` field: an HTTP/1.1 keep-alive response.
    #[default]
    Absent,
    /// `connection: close`: the server closes after this response.
    Close,
    /// `connection: keep-alive`: an HTTP/1.0 client asked for keep-alive.
    KeepAlive,
}

impl Connection {
    /// The field's value, if the field is sent.
    pub const fn value(self) -> Option<&'static str> {
        match self {
            Connection::Absent => None,
            Connection::Close => Some("close"),
            Connection::KeepAlive => Some("keep-alive"),
        }
    }
}

/// A response head, before it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The status.
    pub status: Status,
    /// `content-type`, present exactly when the GET form has a body.
    pub content_type: Option<&'static str>,
    /// `content-length`: the GET form's body length (also for HEAD).
    pub content_length: usize,
    /// The `connection` field.
    pub connection: Connection,
}

/// The offset of the date value inside a written head, counted from its end.
const DATE_FROM_END: usize = DATE_LEN + 4;

impl Head {
    /// A 200 head for `content_type` and a body of `len` bytes.
    pub const fn ok(content_type: &'static str, len: usize) -> Head {
        Head {
            status: Status::Ok,
            content_type: Some(content_type),
            content_length: len,
            connection: Connection::Absent,
        }
    }

    /// A head with an empty body (404, 405 and the error answers).
    pub const fn empty(status: Status, connection: Connection) -> Head {
        Head {
            status,
            content_type: None,
            content_length: 0,
            connection,
        }
    }

    /// The same head with another `connection` field.
    pub const fn with_connection(mut self, connection: Connection) -> Head {
        self.connection = connection;
        self
    }

    /// Appends the head, CRLF CRLF included, to `out`. The date value is the last field,
    /// so it sits [`DATE_LEN`] + 4 bytes before the head's end.
    pub fn write(&self, date: &HttpDate, out: &mut Vec<u8>) {
        out.extend_from_slice(b"HTTP/1.1 ");
        push_u64(self.status.code() as u64, out);
        out.push(b' ');
        out.extend_from_slice(self.status.reason().as_bytes());
        out.extend_from_slice(b"\r\n");
        if let Some(ct) = self.content_type {
            out.extend_from_slice(b"content-type: ");
            out.extend_from_slice(ct.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"content-length: ");
        push_u64(self.content_length as u64, out);
        out.extend_from_slice(b"\r\n");
        if self.status == Status::MethodNotAllowed {
            out.extend_from_slice(b"allow: ");
            out.extend_from_slice(body::ALLOW.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if let Some(v) = self.connection.value() {
            out.extend_from_slice(b"connection: ");
            out.extend_from_slice(v.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"date: ");
        out.extend_from_slice(date);
        out.extend_from_slice(b"\r\n\r\n");
    }

    /// The written length of this head.
    pub fn len(&self) -> usize {
        let mut v = Vec::with_capacity(192);
        self.write(&[b'x'; DATE_LEN], &mut v);
        v.len()
    }

    /// Always false: a head is never empty (present for the `len`/`is_empty` pair).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Appends the decimal form of `n` to `out` without allocating beyond `out`'s growth.
pub fn push_u64(mut n: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// A whole response built once: head and body in one buffer, with the date value patched
/// in place when it changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prebuilt {
    bytes: Vec<u8>,
    head_len: usize,
}

impl Prebuilt {
    /// Builds `head` followed by `body` (`head.content_length` must equal `body.len()`,
    /// or `body` is empty for a HEAD answer).
    pub fn new(head: Head, body: &[u8], date: &HttpDate) -> Prebuilt {
        debug_assert!(body.is_empty() || body.len() == head.content_length);
        let mut bytes = Vec::with_capacity(192 + body.len());
        head.write(date, &mut bytes);
        let head_len = bytes.len();
        bytes.extend_from_slice(body);
        Prebuilt { bytes, head_len }
    }

    /// The full response of `GET` (`head == false`) or `HEAD` on a fixed-body endpoint;
    /// `None` for the endpoints whose body depends on the request.
    pub fn endpoint(endpoint: Endpoint, head: bool, date: &HttpDate) -> Option<Prebuilt> {
        let body = endpoint.fixed_body()?;
        let h = Head::ok(endpoint.content_type(), body.len());
        Some(Prebuilt::new(h, if head { b"" } else { body }, date))
    }

    /// Every byte of the response.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The head alone, CRLF CRLF included.
    pub fn head(&self) -> &[u8] {
        &self.bytes[..self.head_len]
    }

    /// Replaces the date value in place.
    pub fn set_date(&mut self, date: &HttpDate) {
        let at = self.head_len - DATE_FROM_END;
        self.bytes[at..at + DATE_LEN].copy_from_slice(date);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date;

    /// Status, fields and head length of `bytes`, which must be exactly one response; parsed
    /// by the conformance suite's wire client (httparse), not by this crate.
    fn parse(bytes: &[u8], head: bool) -> (u16, Vec<(String, String)>, usize) {
        let r = conformance::wire::parse_exact(bytes, head).unwrap();
        let n = r.head_len();
        (r.status, r.headers, n)
    }

    #[test]
    fn every_prebuilt_endpoint_parses_back() {
        let d = date::now();
        for e in Endpoint::ALL {
            for head in [false, true] {
                let Some(p) = Prebuilt::endpoint(e, head, &d) else {
                    continue;
                };
                let (code, fields, n) = parse(p.bytes(), head);
                assert_eq!(code, 200);
                assert_eq!(n, p.head().len());
                let body = e.fixed_body().unwrap();
                let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                assert_eq!(get("content-length"), Some(body.len().to_string()));
                assert_eq!(get("content-type").as_deref(), Some(e.content_type()));
                assert!(httpdate::parse_http_date(&get("date").unwrap()).is_ok());
                assert_eq!(fields.len(), 3, "{fields:?}");
                assert_eq!(&p.bytes()[n..], if head { &b""[..] } else { body });
            }
        }
    }

    #[test]
    fn error_heads_parse_back() {
        let d = date::now();
        for s in [
            Status::NotFound,
            Status::MethodNotAllowed,
            Status::BadRequest,
            Status::PayloadTooLarge,
            Status::HeaderFieldsTooLarge,
            Status::NotImplemented,
            Status::VersionNotSupported,
        ] {
            let mut out = Vec::new();
            Head::empty(s, Connection::Close).write(&d, &mut out);
            let (code, fields, n) = parse(&out, false);
            assert_eq!(code, s.code());
            assert_eq!(n, out.len());
            assert!(fields.contains(&("content-length".into(), "0".into())));
            assert!(fields.contains(&("connection".into(), "close".into())));
            assert!(!fields.iter().any(|(k, _)| k == "content-type"));
            assert_eq!(
                fields.iter().any(|(k, v)| k == "allow" && v == "GET, HEAD"),
                s == Status::MethodNotAllowed
            );
            assert_eq!(
                http_reason(s.code()),
                Some(s.reason()),
                "reason of {}",
                s.code()
            );
        }
    }

    fn http_reason(code: u16) -> Option<&'static str> {
        Some(match code {
            400 => "Bad Request",
            404 => "Not Found",
            405 => "Method Not Allowed",
            413 => "Payload Too Large",
            431 => "Request Header Fields Too Large",
            501 => "Not Implemented",
            505 => "HTTP Version Not Supported",
            _ => return None,
        })
    }

    #[test]
    fn set_date_patches_in_place() {
        let mut p = Prebuilt::endpoint(Endpoint::Hello, false, &[b'a'; DATE_LEN]).unwrap();
        let d = date::now();
        p.set_date(&d);
        let (_, fields, _) = parse(p.bytes(), false);
        let date = &fields.iter().find(|(k, _)| k == "date").unwrap().1;
        assert_eq!(date.as_bytes(), &d);
        assert_eq!(Head::ok(body::CT_TEXT, 12).len(), p.head().len());
    }

    #[test]
    fn numbers() {
        for n in [0u64, 7, 10, 1024, u64::MAX] {
            let mut v = Vec::new();
            push_u64(n, &mut v);
            assert_eq!(v, n.to_string().as_bytes());
        }
    }
}
