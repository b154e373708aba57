//! The coroutine variant: may_minihttp's `HttpService` on may's stackful coroutines, the Rust
//! analogue of Go's net/http (one goroutine per connection, E5).
//!
//! - [`service`]: the per-connection [`HttpService`](may_minihttp::HttpService): routing with
//!   the contract's `match`, the exact bodies, and every check the service can make on a
//!   request before answering (head size, framing fields, body discard);
//! - [`serve`](fn@serve) (this file): binding for may_minihttp (which binds by itself) so that port 0
//!   and a taken port work, starting the server, and the in-flight count for shutdown.
//!
//! may_minihttp fixes parts of every response and of the connection's life that the service
//! cannot reach: it writes `HTTP/1.1 200 Ok` and a `Server: M` field, sets `content-length` to
//! the length of the body it sends (so a `HEAD` answer says 0), never closes a connection
//! after an answer, closes without an answer on a head it cannot parse, and has no read
//! deadline. Those are the exceptions servers.toml lists for this variant; the crate's README
//! has the table.
#![deny(missing_docs)]

pub mod service;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use may::coroutine::JoinHandle;
use may_minihttp::HttpServiceFactory;
use serve::Config;
use socket2::{Domain, Protocol, Socket, Type};

pub use service::{Factory, Service};

/// A running server: the accept coroutine and the count of requests being answered.
pub struct Running {
    /// The address it listens on (the real port, also when 0 was asked for).
    pub addr: SocketAddr,
    accept: JoinHandle<()>,
    in_flight: Arc<AtomicUsize>,
}

/// Configures may's scheduler: `workers` OS threads run every coroutine. Call once, before
/// [`serve`](fn@serve).
pub fn configure_runtime(workers: usize) {
    may::config()
        .set_workers(workers)
        // 10,000 connections are 10,000 coroutines; 32 KiB of stack each is plenty for the
        // service, whose deepest call is formatting an address.
        .set_stack_size(0x1000)
        .set_pool_capacity(10_000);
}

/// Binds `addr` and starts serving on it with may_minihttp.
///
/// may_minihttp binds by itself (SO_REUSEADDR and SO_REUSEPORT, backlog 1024) and reports no
/// address, so the port is first reserved here: a socket bound without SO_REUSEPORT and not
/// listening, which fails if anything holds the port (so a taken port is refused, not shared)
/// and resolves port 0, and which may_minihttp's listener can bind beside because it does not
/// listen. It is closed once may_minihttp listens.
pub fn serve(addr: SocketAddr, config: &Config) -> io::Result<Running> {
    let reservation = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    reservation.set_reuse_address(true)?;
    reservation.bind(&addr.into())?;
    let addr = reservation
        .local_addr()?
        .as_socket()
        .ok_or_else(|| io::Error::other("not an IP socket address"))?;
    let in_flight = Arc::new(AtomicUsize::new(0));
    let factory = Factory::new(config, Arc::clone(&in_flight));
    let accept = factory.start(addr)?;
    drop(reservation);
    Ok(Running {
        addr,
        accept,
        in_flight,
    })
}

impl Running {
    /// Stops accepting, then waits up to `grace` for the requests being answered to finish.
    pub fn shutdown(self, grace: Duration) {
        // SAFETY: cancelling the accept coroutine unwinds it at its blocking accept; it owns
        // nothing but the listener, which is dropped (closed) by the unwinding.
        unsafe { self.accept.coroutine().cancel() };
        let deadline = Instant::now() + grace;
        while self.in_flight.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
