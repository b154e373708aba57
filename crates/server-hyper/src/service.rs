//! The request handler: one `match` on the contract's route, and the exact header set.
//!
//! hyper writes `date`, and `content-length` for a body of known length; this module adds
//! `content-type` where the GET form has a body, `content-length` for HEAD (hyper leaves it
//! out of a HEAD answer with an empty body), `allow` on 405 and `connection: close` where
//! hyper would close without saying so (an HTTP/1.0 request without keep-alive, and the
//! error answers this module gives). hyper itself adds `connection: close` to an HTTP/1.1
//! answer when the request asked to close, and `connection: keep-alive` for an HTTP/1.0
//! request that asked for keep-alive.
//!
//! A request that breaks RFC 9112 §3.2's Host rule (none on HTTP/1.1, more than one, or an
//! invalid value) is answered 400 with `connection: close`; hyper lets it through.
//!
//! A request body is read and discarded before the answer, so that the next request on the
//! connection is served: at most [`MAX_BODY`] bytes, else 413 and close.

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use contract::body::{self, MAX_BODY};
use contract::route::{self, Endpoint, Route};
use contract::{auth, peer, query};
use http::header::{self, HeaderMap, HeaderValue};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Incoming};
use serve::{Config, scenario};

use crate::head_timer::Phase;

/// A response as this server sends it: the whole body known up front.
pub type Res = Response<Full<Bytes>>;

/// What a connection's requests share.
#[derive(Debug)]
pub struct Ctx {
    /// The server's configuration (the `/api/private` token).
    pub config: Arc<Config>,
    /// The peer's address, as `accept` gave it.
    pub peer: IpAddr,
    /// The connection's request cycle, for the slowloris guard.
    pub phase: Arc<Phase>,
}

/// Answers one request (never fails: every outcome is a response).
pub async fn handle(ctx: Arc<Ctx>, req: Request<Incoming>) -> Result<Res, Infallible> {
    let handling = ctx.phase.handling();
    let (parts, body) = req.into_parts();
    let head = parts.method == Method::HEAD;
    let http10 = parts.version == Version::HTTP_10;
    if handling.conflicting_lengths {
        // Both `content-length` and `transfer-encoding`: hyper kept only the latter (and
        // will close); the contract answers 400.
        return Ok(close(error(StatusCode::BAD_REQUEST, head), http10));
    }
    if !host_acceptable(&parts.headers, parts.version) {
        return Ok(close(error(StatusCode::BAD_REQUEST, head), http10));
    }
    if let Err(status) = discard_body(&parts.headers, body).await {
        return Ok(close(error(status, head), http10));
    }
    let res = match route::route(
        parts.method.as_str().as_bytes(),
        parts.uri.path().as_bytes(),
        true,
    ) {
        Route::Endpoint { endpoint, head } => endpoint_response(&ctx, endpoint, &parts, head).await,
        Route::NotFound => error(StatusCode::NOT_FOUND, head),
        Route::MethodNotAllowed => {
            let mut res = error(StatusCode::METHOD_NOT_ALLOWED, head);
            res.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(body::ALLOW));
            res
        }
    };
    Ok(if http10 && !keep_alive_asked(&parts.headers) {
        close(res, true)
    } else {
        res
    })
}

async fn endpoint_response(ctx: &Ctx, endpoint: Endpoint, parts: &Parts, head: bool) -> Res {
    let ct = endpoint.content_type();
    let body = match endpoint {
        Endpoint::MyIp => Bytes::from(peer::ip_body(ctx.peer)),
        Endpoint::Echo => Bytes::from(query::echo_body(parts.uri.query().map(str::as_bytes))),
        Endpoint::Private => {
            let values = parts
                .headers
                .get_all(header::AUTHORIZATION)
                .iter()
                .map(HeaderValue::as_bytes);
            if !auth::authorized(values, ctx.config.auth_token.as_bytes()) {
                return ok(
                    StatusCode::UNAUTHORIZED,
                    ct,
                    body::UNAUTHORIZED_JSON.into(),
                    head,
                );
            }
            Bytes::from_static(body::HELLO_JSON)
        }
        Endpoint::Async => {
            scenario::wait_async().await;
            Bytes::from_static(body::ASYNC_JSON)
        }
        Endpoint::Sync => {
            // Deliberately on this thread, blocking the event loop: that is the experiment.
            std::hint::black_box(scenario::sync_sum());
            Bytes::from_static(body::SYNC_JSON)
        }
        Endpoint::SyncOffload => {
            std::hint::black_box(scenario::sync_offload().await);
            Bytes::from_static(body::SYNC_JSON)
        }
        Endpoint::NextTick => {
            scenario::nexttick_chain().await;
            Bytes::from_static(body::NEXTTICK_JSON)
        }
        Endpoint::Timer => {
            scenario::spawn_timers();
            Bytes::from_static(body::TIMER_JSON)
        }
        Endpoint::ApiHello | Endpoint::Root | Endpoint::Hello => match endpoint.fixed_body() {
            Some(b) => Bytes::from_static(b),
            None => Bytes::new(),
        },
    };
    ok(StatusCode::OK, ct, body, head)
}

/// Reads and drops the request body, if any. `Err` is the status to answer with (and close):
/// 501 for a transfer coding other than exactly `chunked`, 413 past [`MAX_BODY`], 400 for a
/// body that breaks off or does not decode.
///
/// Shared with `server-axum`, whose request-cycle layer discards bodies the same way.
pub async fn discard_body<B>(headers: &HeaderMap, mut body: B) -> Result<(), StatusCode>
where
    B: Body + Unpin,
{
    // hyper answers 400 itself when the last coding is not `chunked` (and for HTTP/1.0);
    // what reaches here with a coding other than exactly `chunked` is e.g. `gzip, chunked`.
    let mut te = headers.get_all(header::TRANSFER_ENCODING).iter();
    match (te.next(), te.next()) {
        (None, _) => {}
        (Some(v), None) if v.as_bytes().eq_ignore_ascii_case(b"chunked") => {}
        _ => return Err(StatusCode::NOT_IMPLEMENTED),
    }
    if body.is_end_stream() {
        return Ok(());
    }
    // A `content-length` past the limit is refused before a byte of the body is read.
    if body.size_hint().lower() > MAX_BODY {
        return Err(StatusCode::PAYLOAD_TOO_LARGE);
    }
    let mut total = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| StatusCode::BAD_REQUEST)?;
        if let Some(data) = frame.data_ref() {
            total += bytes::Buf::remaining(data) as u64;
            if total > MAX_BODY {
                return Err(StatusCode::PAYLOAD_TOO_LARGE);
            }
        }
    }
    Ok(())
}

/// Whether the request passes RFC 9112 §3.2's Host rule (`contract::host`), which hyper does
/// not apply: exactly one valid `host` field, or none on HTTP/1.0. Shared with `server-axum`.
pub fn host_acceptable(headers: &HeaderMap, version: Version) -> bool {
    let values = headers
        .get_all(header::HOST)
        .iter()
        .map(HeaderValue::as_bytes);
    contract::host::acceptable(values, version != Version::HTTP_10)
}

/// Whether an HTTP/1.0 request asked to keep the connection open (as hyper decides it).
pub fn keep_alive_asked(headers: &HeaderMap) -> bool {
    let has = |token: &str| {
        headers.get_all(header::CONNECTION).iter().any(|v| {
            v.to_str()
                .is_ok_and(|s| s.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    has("keep-alive") && !has("close")
}

/// A response with a body and its content type; for HEAD, the same head without the body.
fn ok(status: StatusCode, ct: &'static str, body: Bytes, head: bool) -> Res {
    let len = body.len();
    let mut res = Response::new(Full::new(if head { Bytes::new() } else { body }));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
    if head {
        // hyper writes no length for a HEAD answer with an empty body; the contract wants
        // the length GET would send.
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    res
}

/// A response with an empty body (`content-length: 0`, no `content-type`).
fn error(status: StatusCode, head: bool) -> Res {
    let mut res = Response::new(Full::new(Bytes::new()));
    *res.status_mut() = status;
    if head {
        res.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
    }
    res
}

/// Marks `res` as the connection's last: `connection: close`, which hyper also obeys.
fn close(mut res: Res, http10: bool) -> Res {
    res.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    if http10 {
        // An HTTP/1.1 response head to an HTTP/1.0 keep-alive request would get hyper's
        // `keep-alive` appended to our `close`; an HTTP/1.0 head does not.
        *res.version_mut() = Version::HTTP_10;
    }
    res
}
