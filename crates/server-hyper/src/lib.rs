//! The bare-hyper reference server: hyper 1.x `http1` with a `service_fn` and a plain `match`
//! on the route, the Rust analogue of Node's `node:http`.
//!
//! - [`serve`](fn@serve) (this file): the accept loop of one worker and the per-connection task, with
//!   graceful shutdown;
//! - [`service`]: the request handler, from request parts to an exact response;
//! - [`head_timer`]: the slowloris guard, an IO wrapper that closes a connection whose request
//!   head is still incomplete 10 s after its first byte, while idle keep-alive connections
//!   stay open;
//! - [`batch`]: an IO wrapper that writes a batch of pipelined answers at once (hyper flushes
//!   each answer by itself, and its `pipeline_flush` loses answers on a closing connection).
//!
//! hyper answers some bad input itself before the service sees it (bad request line or
//! header, over-long head, conflicting lengths, unknown transfer codings); the crate's README
//! lists what it answers for each row of the contract.
#![deny(missing_docs)]

pub mod batch;
pub mod head_timer;
pub mod service;

use std::net::SocketAddr;
use std::sync::Arc;

use contract::body::{HEAD_TIMEOUT, MAX_HEAD, SHUTDOWN_GRACE};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use serve::signal::Shutdown;
use serve::{Config, net};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::batch::Batch;
use crate::head_timer::{HeadTimer, Phase};
use crate::service::Ctx;

/// Serves HTTP/1.x on `listener` until `shutdown` fires, then stops accepting, lets in-flight
/// requests finish for at most [`SHUTDOWN_GRACE`] and returns.
///
/// Runs on the calling task's runtime; with a current-thread runtime every connection of
/// this listener is served on that one thread.
pub async fn serve(listener: TcpListener, config: Arc<Config>, shutdown: Shutdown) {
    serve_with(listener, shutdown, move |peer, phase| {
        let ctx = Arc::new(Ctx {
            config: Arc::clone(&config),
            peer: peer.ip(),
            phase,
        });
        hyper::service::service_fn(move |req| service::handle(Arc::clone(&ctx), req))
    })
    .await;
}

/// Serves HTTP/1.x on `listener` with this crate's connection settings (head limit, slowloris
/// guard, graceful shutdown) and the service `make(peer, phase)` builds for each connection,
/// until `shutdown` fires; then stops accepting, lets in-flight requests finish for at most
/// [`SHUTDOWN_GRACE`] and returns.
///
/// The service must call [`Phase::handling`] when a request starts (and keep the guard until
/// its answer is ready), so the 10 s head deadline is disarmed while a request is handled.
/// `server-axum` serves its `Router` through this; [`serve`](fn@serve) passes its `match`.
pub async fn serve_with<F, S, B>(listener: TcpListener, mut shutdown: Shutdown, make: F)
where
    F: Fn(SocketAddr, Arc<Phase>) -> S,
    S: hyper::service::Service<hyper::Request<Incoming>, Response = hyper::Response<B>>
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let builder = builder();
    // Every connection task holds a clone of `alive`; `recv` returns `None` once all are gone.
    let (alive, mut all_gone) = mpsc::channel::<()>(1);
    while let Some((stream, peer)) = net::accept(&listener, &mut shutdown).await {
        let phase = Phase::new();
        let service = make(peer, Arc::clone(&phase));
        let io = TokioIo::new(Batch::new(HeadTimer::new(stream, phase, HEAD_TIMEOUT)));
        let conn = builder.serve_connection(io, service);
        let mut shutdown = shutdown.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let _alive = alive;
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                // Errors here are the client's (reset, timeout, bad input already answered).
                _ = conn.as_mut() => return,
                _ = shutdown.wait() => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
        });
    }
    drop(listener);
    drop(alive);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, all_gone.recv()).await;
}

/// The hyper settings every connection uses.
fn builder() -> http1::Builder {
    let mut b = http1::Builder::new();
    b
        // The 10 s head deadline is [`HeadTimer`]'s: hyper's own starts when the connection
        // goes idle, which would close idle keep-alive connections after 10 s.
        .header_read_timeout(None)
        // Exactly the contract's limit: a complete head longer than this, or this many
        // buffered bytes without a complete head, is answered 431 and closed.
        .max_header_size(MAX_HEAD)
        .half_close(false)
        // Not `pipeline_flush(true)`: [`Batch`] writes a pipelined batch at once instead,
        // without losing the answers of a connection that closes with bytes unread.
        .keep_alive(true);
    b
}
