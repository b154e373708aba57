//! The actix-web variant: actix-web 4 written as an actix user writes it, the Rust analogue of
//! Fastify (E1, E2).
//!
//! - [`mod@app`]: the `App`: one resource per endpoint (`GET` and `HEAD` routes, a 405 default
//!   service), the token check as a route middleware on `/api/private`, a 404 default service;
//! - [`middleware`]: the `from_fn` middleware: the Bearer-token check (the E1 middleware
//!   analogue) and the request cycle around the whole app (head size, body discard);
//! - [`server`] (this file): the `HttpServer` with actix's own worker model (`workers(n)`,
//!   one accept thread handing connections to `n` single-threaded workers) and the settings
//!   the contract needs.
//!
//! The crate's README lists, row by row, what actix answers itself and where it differs from
//! the contract.
#![deny(missing_docs)]

pub mod app;
pub mod middleware;

use std::io;
use std::net::TcpListener;
use std::time::Duration;

use actix_web::HttpServer;
use actix_web::dev::Server;
use actix_web::http::KeepAlive;
use contract::body::{HEAD_TIMEOUT, SHUTDOWN_GRACE};
use serve::Config;

pub use app::app;

/// Builds the running server on `listener` with `config.workers` actix workers.
///
/// actix's own signal handling is off: the caller stops the server through
/// [`Server::handle`] (`stop(true)`: stop accepting, let in-flight requests finish for at most
/// [`SHUTDOWN_GRACE`]), so SIGINT and SIGTERM both shut down gracefully and the process exits 0.
/// Must be called inside an actix system (`actix_web::rt::System`).
pub fn server(listener: TcpListener, config: &Config) -> io::Result<Server> {
    let app_config = config.clone();
    let server = HttpServer::new(move || app(&app_config))
        .workers(config.workers)
        // E4's /api/sync-offload (web::block): a pool per worker of at most its share of the
        // CPUs, not actix's 512 / workers, which on one CPU time-slices the event loop away.
        .worker_max_blocking_threads(serve::workers::blocking_threads(config.workers))
        // No idle limit: an idle keep-alive connection stays open (at least 60 s, the contract
        // says); actix's default closes it after 5 s.
        .keep_alive(KeepAlive::Os)
        // The slowloris deadline of a connection's first head; actix answers 408 and closes.
        .client_request_timeout(HEAD_TIMEOUT)
        .client_disconnect_timeout(Duration::from_secs(1))
        .shutdown_timeout(SHUTDOWN_GRACE.as_secs())
        .disable_signals()
        .on_connect(middleware::on_connect)
        .listen(listener)?
        .run();
    Ok(server)
}
