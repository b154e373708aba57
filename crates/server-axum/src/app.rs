//! The `Router`: one route per endpoint, each a `get` handler with a 405 fallback, and a 404
//! fallback for everything else.
//!
//! axum answers `HEAD` with the `get` handler, sets `content-length` from the body (also for
//! `HEAD`, before it drops the body) and writes no field of its own. What it does differently
//! from the contract is fixed here the axum way: its 405 carries `allow: GET,HEAD` (no space),
//! so every route has a method fallback that answers 405 with the contract's `allow` (axum
//! keeps an `allow` the handler set); and the query echo reads the raw query (`RawQuery`),
//! because `Query`'s decoder differs from the contract's on malformed `%` sequences.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{ConnectInfo, RawQuery};
use axum::http::{StatusCode, header};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, get};
use contract::json::{self, HELLO, Message, Outcome};
use contract::route::Endpoint;
use contract::{body, peer, query};
use serve::{Config, scenario};

use crate::middleware::{Token, request_cycle, require_bearer};

/// The application: every endpoint of the contract, the scenarios included.
pub fn app(config: &Config) -> Router {
    let token = Token(Arc::from(config.auth_token.as_bytes()));
    Router::new()
        .route(Endpoint::ApiHello.path(), endpoint(get(api_hello)))
        .route(Endpoint::Root.path(), endpoint(get(root)))
        .route(Endpoint::MyIp.path(), endpoint(get(my_ip)))
        .route(Endpoint::Echo.path(), endpoint(get(echo)))
        .route(Endpoint::Hello.path(), endpoint(get(hello)))
        .route(
            Endpoint::Private.path(),
            endpoint(get(private).route_layer(from_fn_with_state(token, require_bearer))),
        )
        .route(Endpoint::Async.path(), endpoint(get(async_wait)))
        .route(Endpoint::Sync.path(), endpoint(get(sync)))
        .route(Endpoint::SyncOffload.path(), endpoint(get(sync_offload)))
        .route(Endpoint::NextTick.path(), endpoint(get(nexttick)))
        .route(Endpoint::Timer.path(), endpoint(get(timer)))
        .fallback(not_found)
        .layer(from_fn(request_cycle))
}

/// A route's methods: `get` (which also answers `HEAD`) and the contract's 405 for the rest.
fn endpoint(methods: MethodRouter) -> MethodRouter {
    methods.fallback(method_not_allowed)
}

async fn not_found() -> StatusCode {
    StatusCode::NOT_FOUND
}

async fn method_not_allowed() -> impl IntoResponse {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, body::ALLOW)],
    )
}

async fn api_hello() -> Json<Message> {
    Json(HELLO)
}

async fn root() -> &'static str {
    body::ROOT_TEXT
}

async fn hello() -> &'static str {
    body::HELLO_STR
}

async fn my_ip(ConnectInfo(peer): ConnectInfo<SocketAddr>) -> String {
    peer::canonical(peer.ip()).to_string()
}

async fn echo(RawQuery(query): RawQuery) -> String {
    let body = query::echo_body(query.as_deref().map(str::as_bytes));
    // The echo body is UTF-8 by construction (lossy decoding).
    String::from_utf8_lossy(&body).into_owned()
}

async fn private() -> Json<Message> {
    Json(HELLO)
}

async fn async_wait() -> Json<Outcome<&'static str>> {
    scenario::wait_async().await;
    Json(json::ASYNC)
}

async fn sync() -> Json<Outcome<u64>> {
    // Deliberately on this thread, blocking the event loop: that is the experiment.
    let sum = scenario::sync_sum();
    Json(json::sum(sum))
}

async fn sync_offload() -> Json<Outcome<u64>> {
    let sum = scenario::sync_offload().await;
    Json(json::sum(sum))
}

async fn nexttick() -> Json<Outcome<()>> {
    scenario::nexttick_chain().await;
    Json(json::NEXTTICK)
}

async fn timer() -> Json<Outcome<()>> {
    scenario::spawn_timers();
    Json(json::TIMER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn get_body(path: &str, auth: Option<&str>) -> (StatusCode, Option<String>, Vec<u8>) {
        let app = app(&Config::default());
        // HTTP/1.1 without Host is refused (RFC 9112 §3.2), in-process too.
        let mut req = Request::get(path).header(header::HOST, "localhost");
        if let Some(a) = auth {
            req = req.header(header::AUTHORIZATION, a);
        }
        let mut req = req.body(Body::empty()).unwrap();
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9))));
        let res = app.oneshot(req).await.unwrap();
        let ct = res
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned());
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, ct, bytes.to_vec())
    }

    /// Every serialised body is byte for byte the contract's.
    #[tokio::test(flavor = "current_thread")]
    async fn bodies_are_the_contracts() {
        for e in Endpoint::ALL {
            let Some(want) = e.fixed_body() else { continue };
            let (status, ct, got) = get_body(e.path(), None).await;
            assert_eq!(status, StatusCode::OK, "{e:?}");
            assert_eq!(ct.as_deref(), Some(e.content_type()), "{e:?}");
            assert_eq!(got, want, "{e:?}");
        }
        let (s, _, b) = get_body("/api/private", Some("Bearer bench-token")).await;
        assert_eq!((s, b.as_slice()), (StatusCode::OK, body::HELLO_JSON));
        let (s, ct, b) = get_body("/api/private", None).await;
        assert_eq!(
            (s, ct.as_deref(), b.as_slice()),
            (
                StatusCode::UNAUTHORIZED,
                Some(body::CT_JSON),
                body::UNAUTHORIZED_JSON
            )
        );
        let (_, _, b) = get_body("/my/ip", None).await;
        assert_eq!(b, b"127.0.0.1");
        let (_, _, b) = get_body("/api?name=A&lastname=B", None).await;
        assert_eq!(b, b"Hey A B");
    }
}
