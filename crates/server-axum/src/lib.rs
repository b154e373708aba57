//! The axum variant: axum 0.8 written the way an axum user writes a service, the Rust analogue
//! of Express and Koa (E1, E2).
//!
//! - [`mod@app`]: the [`Router`]: one route per endpoint, handlers returning axum
//!   types (`Json`, `&'static str`, `String`, `impl IntoResponse`), a fallback for 404 and a
//!   method fallback for 405;
//! - [`middleware`]: the tower layers: the Bearer-token check of `/api/private` (the E1
//!   middleware analogue) and the request cycle every request passes through (body discard,
//!   the `connection: close` of HTTP/1.0 and of error answers; the `express.json()` analogue);
//! - [`serve`](fn@serve) (this file): the accept loop of one worker and the per-connection task.
//!
//! `axum::serve` cannot set hyper's connection options (it keeps hyper's 30 s header timeout,
//! which would close idle keep-alive connections, and its ~400 KB head limit), so this crate
//! serves the `Router` on hyper's `http1` connection builder itself, as axum's own
//! "serve-with-hyper" example does, with `server-hyper`'s settings and its slowloris guard
//! ([`server_hyper::head_timer`]). Everything above the connection is axum.
#![deny(missing_docs)]

pub mod app;
pub mod middleware;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use serve::signal::Shutdown;
use server_hyper::head_timer::Phase;
use tokio::net::TcpListener;
use tower::Service;

pub use app::app;

/// The connection's request cycle, handed to [`middleware::request_cycle`] in each request's
/// extensions so the slowloris guard knows when a head is complete.
#[derive(Clone, Debug)]
pub struct ConnPhase(pub Arc<Phase>);

/// Serves `app` on `listener` until `shutdown` fires, then stops accepting, lets in-flight
/// requests finish for at most [`SHUTDOWN_GRACE`](contract::body::SHUTDOWN_GRACE) and returns.
///
/// The connections are server-hyper's ([`server_hyper::serve_with`]: the head limit, the
/// slowloris guard, graceful shutdown); each request reaches the `Router` with what
/// `into_make_service_with_connect_info` would insert ([`ConnectInfo`]) and the connection's
/// request cycle ([`ConnPhase`]).
pub async fn serve(listener: TcpListener, app: Router, shutdown: Shutdown) {
    server_hyper::serve_with(listener, shutdown, move |peer: SocketAddr, phase| {
        let app = app.clone();
        hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            req.extensions_mut().insert(ConnPhase(Arc::clone(&phase)));
            let mut app = app.clone();
            async move { Ok::<_, Infallible>(app.call(req).await.unwrap_or_else(|e| match e {})) }
        })
    })
    .await;
}
