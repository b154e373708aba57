//! The bare-hyper reference server: hyper 1.x `http1` with a `service_fn` and a plain `match`
//! on the route, the Rust analogue of Node's `node:http`.
//!
//! - [`serve`] (this file): the accept loop of one worker and the per-connection task, with
//!   graceful shutdown;
//! - [`service`]: the request handler, from request parts to an exact response;
//! - [`head_timer`]: the slowloris guard, an IO wrapper that closes a connection whose request
//!   head is still incomplete 10 s after its first byte, while idle keep-alive connections
//!   stay open.
//!
//! hyper answers some bad input itself before the service sees it (bad request line or
//! header, over-long head, conflicting lengths, unknown transfer codings); the crate's README
//! lists what it answers for each row of the contract.
#![deny(missing_docs)]

pub mod head_timer;
pub mod service;

use std::net::IpAddr;
use std::sync::Arc;

use contract::body::{HEAD_TIMEOUT, MAX_HEAD, SHUTDOWN_GRACE};
use contract::signal::Shutdown;
use contract::{Config, net};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::head_timer::{HeadTimer, Phase};
use crate::service::Ctx;

/// Serves HTTP/1.x on `listener` until `shutdown` fires, then stops accepting, lets in-flight
/// requests finish for at most [`SHUTDOWN_GRACE`] and returns.
///
/// Runs on the calling task's runtime; with a current-thread runtime every connection of
/// this listener is served on that one thread.
pub async fn serve(listener: TcpListener, config: Arc<Config>, mut shutdown: Shutdown) {
    let builder = builder();
    // Every connection task holds a clone of `alive`; `recv` returns `None` once all are gone.
    let (alive, mut all_gone) = mpsc::channel::<()>(1);
    while let Some((stream, peer)) = net::accept(&listener, &mut shutdown).await {
        let conn = Connection {
            builder: builder.clone(),
            config: Arc::clone(&config),
            peer: peer.ip(),
            shutdown: shutdown.clone(),
            _alive: alive.clone(),
        };
        tokio::spawn(conn.run(stream));
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
        .keep_alive(true);
    b
}

/// One accepted connection, before it is served.
struct Connection {
    builder: http1::Builder,
    config: Arc<Config>,
    peer: IpAddr,
    shutdown: Shutdown,
    _alive: mpsc::Sender<()>,
}

impl Connection {
    async fn run(mut self, stream: TcpStream) {
        let phase = Phase::new();
        let io = TokioIo::new(HeadTimer::new(stream, Arc::clone(&phase), HEAD_TIMEOUT));
        let ctx = Arc::new(Ctx {
            config: self.config,
            peer: self.peer,
            phase,
        });
        let conn = self.builder.serve_connection(
            io,
            hyper::service::service_fn(move |req| service::handle(Arc::clone(&ctx), req)),
        );
        let mut conn = std::pin::pin!(conn);
        tokio::select! {
            // Errors here are the client's (reset, timeout, bad input already answered).
            _ = conn.as_mut() => return,
            _ = self.shutdown.wait() => {}
        }
        conn.as_mut().graceful_shutdown();
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
    }
}
