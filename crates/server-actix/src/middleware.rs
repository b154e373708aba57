//! The middleware, written with `actix_web::middleware::from_fn`.
//!
//! - [`require_bearer`]: the Bearer-token check of `/api/private` as a route middleware, the
//!   E1 middleware analogue: 401 with `{"error":"Unauthorized"}` unless exactly one
//!   `Authorization` field is `Bearer <token>` (compared in constant time).
//! - [`request_cycle`]: the middleware around the whole app, the body-handling analogue of
//!   Fastify's content-type parser: it refuses a head over 8,192 bytes (431; actix's own limit
//!   is 128 KiB), refuses a `host` value that is not `uri-host[:port]` (400; RFC 9112 §3.2,
//!   whose other Host rules actix applies itself), answers 404 for a path actix would match
//!   only after percent-decoding it, refuses a `content-length` over 1 MiB at once (413), and
//!   reads and drops the body (chunked past 1 MiB: 413) so the next request on the connection
//!   is served; and it ends the connection after a request that closes it ([`ConnEnd`]).

use std::any::Any;
use std::cell::Cell;
use std::net::Shutdown;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};

use actix_web::body::{BodySize, BodyStream, BoxBody, EitherBody, MessageBody};
use actix_web::dev::Extensions;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{ConnectionType, Method, StatusCode, Version};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{Error, HttpMessage, HttpResponse, web};
use contract::auth;
use contract::body::{MAX_BODY, MAX_HEAD};
use futures_util::StreamExt;

use contract::json::UNAUTHORIZED;

/// The Bearer token `/api/private` accepts (app data).
#[derive(Clone, Debug)]
pub struct Token(pub Box<[u8]>);

/// Lets the request through only with exactly one `Authorization: Bearer <token>`.
pub async fn require_bearer(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    // Without a configured token nothing is authorised.
    let authorized = req.app_data::<web::Data<Token>>().is_some_and(|token| {
        let values = req
            .headers()
            .get_all(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes);
        auth::authorized(values, &token.0)
    });
    if authorized {
        Ok(next.call(req).await?.map_into_left_body())
    } else {
        let res = HttpResponse::Unauthorized().json(UNAUTHORIZED);
        Ok(req.into_response(res).map_into_right_body())
    }
}

/// One connection's end (connection data, [`on_connect`]): whether a request on it has asked
/// for the close, and its socket, to end it.
///
/// RFC 9112 §9.6: after answering a request with `close` the server closes and processes no
/// later request. actix-http's dispatcher decodes up to 16 pipelined requests ahead and answers
/// every queued one: a `close` only makes the next answers carry `connection: close` (and the
/// codec takes the connection type from the last request *decoded*, so the close answer itself
/// went without the field when a keep-alive request was pipelined behind it). Nothing a
/// service returns stops the queue, so a request that arrives after the close shuts the socket
/// down before its own answer can be written, and actix drops the connection on the failed write.
#[derive(Debug)]
pub struct ConnEnd {
    fd: RawFd,
    closing: Cell<bool>,
}

/// actix's `on_connect` hook: records each TCP connection's [`ConnEnd`].
pub fn on_connect(io: &dyn Any, data: &mut Extensions) {
    if let Some(stream) = io.downcast_ref::<actix_web::rt::net::TcpStream>() {
        data.insert(ConnEnd {
            fd: stream.as_raw_fd(),
            closing: Cell::new(false),
        });
    }
}

impl ConnEnd {
    /// Shuts the connection's socket down both ways: the FIN follows what is already written.
    fn shutdown(&self) {
        // SAFETY: a request's connection data lives in the dispatcher that owns the stream; the
        // dispatcher is polling this request's service, so the descriptor is open and is still
        // this connection's.
        let fd = unsafe { BorrowedFd::borrow_raw(self.fd) };
        let _ = socket2::SockRef::from(&fd).shutdown(Shutdown::Both);
    }
}

/// The cycle every request goes through (see the module docs).
pub async fn request_cycle(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let closes = req.head().connection_type() == ConnectionType::Close;
    if let Some(end) = req.conn_data::<ConnEnd>() {
        if end.closing.get() {
            // Pipelined after the close: one yield lets the dispatcher write the answers
            // before it (to the kernel), then the shutdown ends the connection; this request's
            // answer fails to be written and is never seen.
            actix_web::rt::task::yield_now().await;
            end.shutdown();
            return Ok(refuse(req, StatusCode::BAD_REQUEST));
        }
        end.closing.set(closes);
    }
    if head_len(&req) > MAX_HEAD {
        return Ok(refuse(req, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE));
    }
    let hosts = req
        .headers()
        .get_all(header::HOST)
        .map(HeaderValue::as_bytes);
    if !contract::host::acceptable(hosts, req.version() != Version::HTTP_10) {
        // actix refuses a missing or repeated `host` itself, not an invalid value.
        return Ok(refuse(req, StatusCode::BAD_REQUEST));
    }
    if req.uri().path() != req.match_info().as_str() {
        // actix matches a percent-decoded path; the contract matches byte for byte.
        let res = HttpResponse::NotFound().finish();
        return Ok(req.into_response(res).map_into_right_body());
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return Ok(refuse(req, StatusCode::PAYLOAD_TOO_LARGE));
    }
    let mut payload = req.take_payload();
    let mut total = 0u64;
    while let Some(chunk) = payload.next().await {
        let Ok(chunk) = chunk else {
            return Ok(refuse(req, StatusCode::BAD_REQUEST));
        };
        total += chunk.len() as u64;
        if total > MAX_BODY {
            return Ok(refuse(req, StatusCode::PAYLOAD_TOO_LARGE));
        }
    }
    let head = req.method() == Method::HEAD;
    let mut res = next.call(req).await?;
    if closes {
        // The close answer says so, whatever request the codec decoded last.
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(if head {
        head_answer(res)
    } else {
        res.map_into_left_body()
    })
}

/// A `HEAD` answer whose length is written as a field and whose body is an empty stream.
///
/// actix's codec remembers whether "the" request was `HEAD` in one flag that the next
/// pipelined request's head overwrites before this answer is written, so a `HEAD` pipelined
/// before a `GET` would get its body sent (and the connection desynchronised). A streamed
/// body is written as it is (empty), and the `content-length` field set here is kept, so the
/// answer is right whatever the flag says.
fn head_answer<B: MessageBody>(res: ServiceResponse<B>) -> ServiceResponse<EitherBody<B>> {
    res.map_body(|head, body| match body.size() {
        BodySize::Sized(len) => {
            head.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
            head.no_chunking(true);
            let empty = futures_util::stream::empty::<Result<Bytes, Error>>();
            EitherBody::right(BoxBody::new(BodyStream::new(empty)))
        }
        _ => EitherBody::left(body),
    })
}

/// The request head's length as written on the wire, from the parsed head: the request line,
/// each field as `name: value` with CRLF, and the final CRLF. (actix keeps no raw head; a
/// field written with other whitespace around its value counts as if written with one space.)
fn head_len(req: &ServiceRequest) -> usize {
    let version = match req.version() {
        Version::HTTP_10 => "HTTP/1.0".len(),
        _ => "HTTP/1.1".len(),
    };
    let target = req.uri().path_and_query().map_or(1, |p| p.as_str().len())
        + req
            .uri()
            .scheme_str()
            .zip(req.uri().authority())
            .map_or(0, |(s, a)| s.len() + "://".len() + a.as_str().len());
    let line = req.method().as_str().len() + 1 + target + 1 + version + 2;
    let fields: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + 2 + value.len() + 2)
        .sum();
    line + fields + 2
}

/// An error answer with an empty body, after which actix closes the connection (it writes
/// `connection: close` to an HTTP/1.1 client).
fn refuse<B>(req: ServiceRequest, status: StatusCode) -> ServiceResponse<EitherBody<B>> {
    let res = HttpResponse::build(status).force_close().finish();
    req.into_response(res).map_into_right_body()
}
