//! Judging one response against the contract's rules for responses.
//!
//! [`exact`] applies every rule of `docs/contract.md` "What every response looks like" (status
//! line and reason phrase, the exact field set, IMF-fixdate `date`, `content-length`,
//! `content-type`, `allow`, `connection`, body bytes). The smaller helpers ([`status`],
//! [`connection`]) let checks about connection handling or bad input judge only the rule they
//! are about, so that one wrong body does not fail every check in the suite.

use std::time::{Duration, SystemTime};

use crate::report::Failure;
use crate::wire::Response;

/// Result of a judgement.
pub(crate) type Judged = Result<(), Failure>;

/// Which `connection` field a response must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConnField {
    /// None at all (a keep-alive answer to HTTP/1.1).
    Absent,
    /// `connection: close`.
    Close,
    /// `connection: keep-alive` (an HTTP/1.0 request that asked for it).
    KeepAlive,
}

/// Everything the contract fixes about one response.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expect<'a> {
    pub status: u16,
    /// Required `content-type`, or `None` when the field must be absent.
    pub content_type: Option<&'a str>,
    /// The body a GET receives (for HEAD, only its length is used).
    pub body: &'a [u8],
    /// The request was HEAD: empty body, `content-length` of the GET body.
    pub head: bool,
    /// `allow: GET, HEAD` required (405).
    pub allow: bool,
    pub connection: ConnField,
    /// The request was HTTP/1.0, so an `HTTP/1.0` status line is also accepted.
    pub http10: bool,
}

impl<'a> Expect<'a> {
    /// A 200 with a body and its content type.
    pub fn ok(content_type: &'a str, body: &'a [u8]) -> Expect<'a> {
        Expect {
            status: 200,
            content_type: Some(content_type),
            body,
            head: false,
            allow: false,
            connection: ConnField::Absent,
            http10: false,
        }
    }

    /// An empty-bodied answer with `status`.
    pub fn empty(status: u16) -> Expect<'a> {
        Expect {
            status,
            content_type: None,
            body: b"",
            head: false,
            allow: status == 405,
            connection: ConnField::Absent,
            http10: false,
        }
    }

    pub fn head(mut self, head: bool) -> Expect<'a> {
        self.head = head;
        self
    }

    pub fn status(mut self, status: u16) -> Expect<'a> {
        self.status = status;
        self
    }

    pub fn connection(mut self, connection: ConnField) -> Expect<'a> {
        self.connection = connection;
        self
    }
}

/// The field names a contract response may carry.
const ALLOWED: [&str; 5] = [
    "date",
    "content-length",
    "content-type",
    "connection",
    "allow",
];
/// How far `date` may be from the client's clock.
const DATE_SKEW: Duration = Duration::from_secs(300);

fn fail(resp: &Response, expected: impl Into<String>, actual: impl Into<String>) -> Failure {
    Failure::new(expected, actual).raw(&resp.raw)
}

/// The status line alone: version, code, and the standard reason phrase.
pub(crate) fn status(resp: &Response, code: u16, http10: bool) -> Judged {
    status_line(resp, &[code], http10)
}

/// The status line with any of `codes` accepted.
pub(crate) fn status_line(resp: &Response, codes: &[u16], http10: bool) -> Judged {
    status_code(resp, codes, http10)?;
    reason(resp)
}

/// The version and the status code (any of `codes`), the reason phrase not judged.
fn status_code(resp: &Response, codes: &[u16], http10: bool) -> Judged {
    if resp.version != 1 && !(http10 && resp.version == 0) {
        let want = if http10 {
            "HTTP/1.1 or HTTP/1.0"
        } else {
            "HTTP/1.1"
        };
        return Err(fail(resp, want, format!("HTTP/1.{}", resp.version)));
    }
    if !codes.contains(&resp.status) {
        return Err(fail(
            resp,
            format!("status {}", alternatives(codes)),
            format!("status {}", resp.status),
        ));
    }
    Ok(())
}

fn alternatives(codes: &[u16]) -> String {
    codes
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The reason phrase is the standard one for the status code.
fn reason(resp: &Response) -> Judged {
    let standard = http::StatusCode::from_u16(resp.status)
        .ok()
        .and_then(|s| s.canonical_reason());
    let ok = match resp.status {
        413 => matches!(
            resp.reason.as_str(),
            "Payload Too Large" | "Content Too Large"
        ),
        _ => standard == Some(resp.reason.as_str()),
    };
    if ok {
        Ok(())
    } else {
        Err(fail(
            resp,
            format!("reason phrase {:?}", standard.unwrap_or("(standard)")),
            format!("{:?}", resp.reason),
        ))
    }
}

/// The `connection` field is exactly as required.
pub(crate) fn connection(resp: &Response, want: ConnField) -> Judged {
    let values: Vec<&str> = resp.headers_named("connection").collect();
    let ok = match want {
        ConnField::Absent => values.is_empty(),
        ConnField::Close => values.len() == 1 && values[0].trim().eq_ignore_ascii_case("close"),
        ConnField::KeepAlive => {
            values.len() == 1 && values[0].trim().eq_ignore_ascii_case("keep-alive")
        }
    };
    if ok {
        return Ok(());
    }
    let expected = match want {
        ConnField::Absent => "no connection field",
        ConnField::Close => "connection: close",
        ConnField::KeepAlive => "connection: keep-alive",
    };
    let actual = if values.is_empty() {
        "no connection field".to_owned()
    } else {
        format!("connection: {}", values.join(", "))
    };
    Err(fail(resp, expected, actual))
}

/// Every rule of `docs/contract.md` "What every response looks like" for one response.
pub(crate) fn exact(resp: &Response, e: &Expect<'_>) -> Judged {
    exact_allowing(resp, e, &[])
}

/// Every rule of `docs/contract.md` "What every response looks like" for one response, but for
/// the header fields a server's library adds and `servers.toml` records (`extra`, lowercase
/// names): each may be present once with any value. `connection` in `extra` allows only
/// `connection: keep-alive` where the contract wants no connection field (Node.js on every
/// HTTP/1.1 keep-alive answer); where the contract wants `close` or `keep-alive`, that is still
/// required.
pub(crate) fn exact_allowing(resp: &Response, e: &Expect<'_>, extra: &[String]) -> Judged {
    status(resp, e.status, e.http10)?;

    // The field set: only allowed names, none twice.
    for (i, (name, _)) in resp.headers.iter().enumerate() {
        let lower = name.to_ascii_lowercase();
        if !ALLOWED.contains(&lower.as_str()) && !extra.contains(&lower) {
            return Err(fail(
                resp,
                "only date, content-length, content-type, connection, allow",
                format!("field {name:?}"),
            ));
        }
        if resp.headers[..i]
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return Err(fail(
                resp,
                format!("one {lower} field"),
                format!("{lower} twice"),
            ));
        }
    }

    date(resp)?;

    let want_len = e.body.len().to_string();
    match resp.header("content-length") {
        None => {
            return Err(fail(
                resp,
                format!("content-length: {want_len}"),
                "no content-length",
            ));
        }
        Some(v) if v != want_len => {
            return Err(fail(
                resp,
                format!("content-length: {want_len}"),
                format!("content-length: {v}"),
            ));
        }
        Some(_) => {}
    }

    match (e.content_type, resp.header("content-type")) {
        (Some(want), Some(got)) if want == got => {}
        (Some(want), got) => {
            return Err(fail(
                resp,
                format!("content-type: {want}"),
                got.map_or("no content-type".to_owned(), |g| {
                    format!("content-type: {g}")
                }),
            ));
        }
        (None, Some(got)) => {
            return Err(fail(
                resp,
                "no content-type on an empty body",
                format!("content-type: {got}"),
            ));
        }
        (None, None) => {}
    }

    match (e.allow, resp.header("allow")) {
        (true, Some(v)) if v == contract::body::ALLOW => {}
        (true, got) => {
            return Err(fail(
                resp,
                format!("allow: {}", contract::body::ALLOW),
                got.map_or("no allow field".to_owned(), |g| format!("allow: {g}")),
            ));
        }
        (false, Some(got)) => return Err(fail(resp, "no allow field", format!("allow: {got}"))),
        (false, None) => {}
    }

    let keep_alive_allowed = e.connection == ConnField::Absent
        && extra.iter().any(|x| x == "connection")
        && connection(resp, ConnField::KeepAlive).is_ok();
    if !keep_alive_allowed {
        connection(resp, e.connection)?;
    }
    body(resp, if e.head { b"" } else { e.body })
}

/// The body is exactly `want`.
pub(crate) fn body(resp: &Response, want: &[u8]) -> Judged {
    if resp.body == want {
        return Ok(());
    }
    Err(fail(
        resp,
        format!(
            "body {:?} ({} bytes)",
            crate::wire::excerpt(want, 60),
            want.len()
        ),
        format!(
            "body {:?} ({} bytes)",
            crate::wire::excerpt(&resp.body, 60),
            resp.body.len()
        ),
    ))
}

/// One `date` field holding an IMF-fixdate near the client's clock.
fn date(resp: &Response) -> Judged {
    let Some(value) = resp.header("date") else {
        return Err(fail(resp, "a date field", "no date field"));
    };
    let Ok(when) = httpdate::parse_http_date(value) else {
        return Err(fail(resp, "date as IMF-fixdate", format!("date: {value}")));
    };
    // httpdate also reads the obsolete RFC 850 and asctime forms; only IMF-fixdate is allowed.
    if httpdate::fmt_http_date(when) != value {
        return Err(fail(resp, "date as IMF-fixdate", format!("date: {value}")));
    }
    let now = SystemTime::now();
    let skew = now
        .duration_since(when)
        .or_else(|_| when.duration_since(now))
        .unwrap_or_default();
    if skew > DATE_SKEW {
        return Err(fail(
            resp,
            "date within 5 minutes of now",
            format!("date: {value}"),
        ));
    }
    Ok(())
}

/// An error answer (400, 413, 431, 501, 505): one of `codes`. In strict mode the whole response
/// is judged (empty body, `content-length: 0`, `connection: close`); otherwise, as
/// `docs/contract.md` allows where a library answers bad input itself, only the version and the
/// status code (a library's own reason phrase, such as Go's `400 Bad Request: malformed Host
/// header`, is not judged; the close is judged by the caller).
pub(crate) fn error_answer(resp: &Response, codes: &[u16], http10: bool, strict: bool) -> Judged {
    status_code(resp, codes, http10)?;
    if strict {
        let e = Expect::empty(resp.status).connection(ConnField::Close);
        let e = Expect { http10, ..e };
        exact(resp, &e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::parse_response;

    fn parse(raw: &str) -> Response {
        parse_response(raw.as_bytes(), false, false)
            .unwrap()
            .unwrap()
            .0
    }

    fn now() -> String {
        httpdate::fmt_http_date(SystemTime::now())
    }

    #[test]
    fn exact_accepts_a_contract_response_and_names_each_deviation() {
        let d = now();
        let good = format!(
            "HTTP/1.1 200 OK\r\ndate: {d}\r\ncontent-length: 2\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nhi"
        );
        let e = Expect::ok(contract::body::CT_TEXT, b"hi");
        exact(&parse(&good), &e).unwrap();

        let bad = [
            good.replace("200 OK", "200 Ok"),
            good.replace("date:", "server: x\r\ndate:"),
            good.replace(&d, "Sunday, 06-Nov-94 08:49:37 GMT"),
            good.replace("text/plain; charset=utf-8", "text/plain"),
            good.replace("\r\n\r\nhi", "\r\nconnection: keep-alive\r\n\r\nhi"),
            good.replace("hi", "ho"),
            good.replace("HTTP/1.1", "HTTP/1.0"),
        ];
        for raw in bad {
            assert!(exact(&parse(&raw), &e).is_err(), "{raw}");
        }
    }

    #[test]
    fn recorded_extra_fields_are_allowed_and_nothing_else() {
        let d = now();
        let good = format!(
            "HTTP/1.1 200 OK\r\ndate: {d}\r\ncontent-length: 2\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nhi"
        );
        let with = |fields: &str| good.replace("\r\n\r\n", &format!("\r\n{fields}\r\n\r\n"));
        let e = Expect::ok(contract::body::CT_TEXT, b"hi");
        let extra = [
            "connection".to_owned(),
            "keep-alive".to_owned(),
            "etag".to_owned(),
        ];
        for raw in [
            good.clone(),
            with("Connection: keep-alive\r\nKeep-Alive: timeout=65"),
            with("ETag: W/\"2-x\""),
        ] {
            exact_allowing(&parse(&raw), &e, &extra).unwrap();
        }
        for raw in [
            with("Connection: keep-alive"),
            with("ETag: W/\"2-x\""),
            with("Server: x"),
        ] {
            assert!(exact(&parse(&raw), &e).is_err(), "{raw}");
        }
        for raw in [
            with("Server: x"),
            with("Connection: close"),
            with("ETag: a\r\nETag: b"),
            with("Connection: keep-alive").replace("hi", "ho"),
        ] {
            assert!(exact_allowing(&parse(&raw), &e, &extra).is_err(), "{raw}");
        }
        let close = e.connection(ConnField::Close);
        assert!(exact_allowing(&parse(&with("Connection: keep-alive")), &close, &extra).is_err());
    }

    #[test]
    fn reason_413_accepts_both_names() {
        for r in ["Payload Too Large", "Content Too Large"] {
            let resp = parse(&format!("HTTP/1.1 413 {r}\r\ncontent-length: 0\r\n\r\n"));
            status(&resp, 413, false).unwrap();
        }
    }
}
