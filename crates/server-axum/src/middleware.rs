//! The tower layers, written with `axum::middleware::from_fn`.
//!
//! - [`require_bearer`]: the Bearer-token check of `/api/private` as a route layer, the E1
//!   middleware analogue: 401 with `{"error":"Unauthorized"}` unless exactly one
//!   `Authorization` field is `Bearer <token>` (compared in constant time).
//! - [`request_cycle`]: the layer around the whole router, the `express.json()` analogue of
//!   E1: it marks the request as handled for the slowloris guard, refuses what hyper lets
//!   through (both `content-length` and `transfer-encoding`, or a request breaking RFC 9112
//!   §3.2's Host rule: 400; a transfer coding other
//!   than exactly `chunked`: 501; a body past 1 MiB: 413), reads and drops the body so the
//!   next request on the connection is served, and says `connection: close` where hyper
//!   would close without saying so (HTTP/1.0 without keep-alive, and these error answers).

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderValue};
use axum::http::{StatusCode, Version};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use contract::auth;
use server_hyper::service::{discard_body, host_acceptable, keep_alive_asked};

use crate::ConnPhase;
use contract::json::UNAUTHORIZED;

/// The Bearer token `/api/private` accepts, shared by every request.
#[derive(Clone, Debug)]
pub struct Token(pub Arc<[u8]>);

/// Lets the request through only with exactly one `Authorization: Bearer <token>`.
pub async fn require_bearer(State(token): State<Token>, req: Request, next: Next) -> Response {
    let values = req
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .map(HeaderValue::as_bytes);
    if auth::authorized(values, &token.0) {
        next.run(req).await
    } else {
        (StatusCode::UNAUTHORIZED, Json(UNAUTHORIZED)).into_response()
    }
}

/// The cycle every request goes through (see the module docs).
pub async fn request_cycle(req: Request, next: Next) -> Response {
    // Held until the handler has answered: the head is complete, its deadline disarmed.
    let handling = req.extensions().get::<ConnPhase>().map(|p| p.0.handling());
    let http10 = req.version() == Version::HTTP_10;
    if handling.as_ref().is_some_and(|h| h.conflicting_lengths) {
        // hyper dropped the `content-length` of a request that also has `transfer-encoding`.
        return refuse(StatusCode::BAD_REQUEST, http10);
    }
    if !host_acceptable(req.headers(), req.version()) {
        // RFC 9112 §3.2: no `host` on HTTP/1.1, more than one, or an invalid value.
        return refuse(StatusCode::BAD_REQUEST, http10);
    }
    let (parts, body) = req.into_parts();
    if let Err(status) = discard_body(&parts.headers, body).await {
        return refuse(status, http10);
    }
    let keep_alive = keep_alive_asked(&parts.headers);
    let res = next.run(Request::from_parts(parts, Body::empty())).await;
    drop(handling);
    if http10 && !keep_alive {
        close(res, true)
    } else {
        res
    }
}

/// An error answer with an empty body, `content-length: 0` and `connection: close`.
fn refuse(status: StatusCode, http10: bool) -> Response {
    let mut res = status.into_response();
    res.headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
    close(res, http10)
}

/// Marks `res` as the connection's last: `connection: close`, which hyper also obeys.
fn close(mut res: Response, http10: bool) -> Response {
    res.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    if http10 {
        // An HTTP/1.1 head to an HTTP/1.0 keep-alive request would get hyper's `keep-alive`
        // appended to our `close`; an HTTP/1.0 head does not.
        *res.version_mut() = Version::HTTP_10;
    }
    res
}
