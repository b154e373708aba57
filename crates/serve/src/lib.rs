//! The runtime every server variant shares: how a server starts, listens, announces itself,
//! runs its workers and stops. What it answers is the [`contract`] crate's business; this
//! crate is everything around the answers.
//!
//! - [`config`]: `--addr`, `--workers`, `ADDR`, `PORT`, `AUTH_TOKEN`; a bad command line is
//!   one line on stderr and exit 2;
//! - [`net`]: binding listeners (SO_REUSEPORT, backlog 4096), the accept step with its EMFILE
//!   back-off, RLIMIT_NOFILE;
//! - [`ready`]: the ready line `listening on http://HOST:PORT`, written and parsed here only;
//! - [`signal`]: the SIGINT/SIGTERM shutdown future and its cloneable handle;
//! - [`workers`]: one thread and one current-thread runtime per listener, until a signal, and
//!   a server engine run in the background for tests;
//! - [`scenario`]: the tokio side of the event-loop scenarios (timers, the blocking pool,
//!   task chains);
//! - [`process`]: a server binary as a child process (start, read the ready line, signal,
//!   kill and reap on drop), for tests, `bench` and `deploy`.
#![deny(missing_docs)]

pub mod config;
pub mod net;
pub mod process;
pub mod ready;
pub mod scenario;
pub mod signal;
pub mod workers;

pub use config::{Config, ServerArgs};
