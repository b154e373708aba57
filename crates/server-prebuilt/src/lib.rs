//! The raw-socket, prebuilt-response HTTP/1.1 server: the workspace's fastest variant.
//!
//! No HTTP library sits above the socket. Request heads are parsed by a one-pass fast path for
//! the plain heads load tools send, and by httparse for everything else; every
//! fixed answer is built once at start-up by the contract crate and written as it is, with
//! its 29-byte `Date` value patched in place once a second by the thread that owns it. The
//! per-request work is parse → pick → append: no allocation, no formatting, no logging.
//!
//! Layout:
//! - [`conn`]: the sans-IO connection state machine ([`Conn::feed`]: bytes in, answers out),
//!   tested and fuzzed without sockets;
//! - [`head`]: the fast path for plain, complete request heads (the same result as httparse,
//!   held to it by a property test), `None` for anything else;
//! - [`out`]: where the answers go ([`Sink`]): a byte buffer, or an [`Out`] that keeps each
//!   fixed answer as a reference into the [`Responder`] table for a vectored write;
//! - [`responses`]: one thread's prebuilt answers, date and token ([`Responder`]);
//! - [`server`]: the socket loop ([`serve`](fn@serve)): accept, one read → feed → one write per turn,
//!   head timeout, lingering close, graceful shutdown.
//! - `sys` (private): the hot path's `recv`, `send` and `writev` as bare system calls on
//!   Linux, without glibc's cancellation-point bookkeeping.
//!
//! The binary (`server-prebuilt`) parses the shared flags, binds one listener per worker and
//! runs [`serve`](fn@serve) on each through `serve::workers::run_with_ready`.
#![deny(missing_docs)]

pub mod conn;
pub mod head;
pub mod out;
pub mod responses;
pub mod server;
mod sys;

pub use conn::{Action, Conn};
pub use out::{Out, Sink};
pub use responses::Responder;
pub use server::serve;
