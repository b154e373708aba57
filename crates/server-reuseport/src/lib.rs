//! The SO_REUSEPORT multi-process server: the Rust analogue of a Node.js cluster and of nginx
//! (OpenResty) with N worker processes.
//!
//! One binary plays two parts. Started normally it is the **supervisor**: it resolves the
//! address once (port 0 included, a taken port refused), starts one **worker** process per CPU
//! (`--workers N`) by re-executing its own image with the hidden `--worker-of PID` flag, prints
//! the ready line once every worker listens, restarts a worker that dies (with backoff and one
//! log line), and on SIGINT/SIGTERM forwards the signal to every worker, reaps them and exits 0.
//! A worker binds its own listener on the shared address with SO_REUSEPORT, so the kernel spreads
//! connections across the processes, and runs one engine on it: `server-prebuilt`'s by default,
//! `server-hyper`'s with `--engine hyper`. A worker dies with its supervisor
//! (`PR_SET_PDEATHSIG`), so no worker is ever orphaned.
//!
//! Layout:
//! - [`cli`]: the command line ([`Cli`]) and the engine choice ([`Engine`]);
//! - [`supervisor`]: start, readiness, restarts with [`supervisor::Backoff`], signal forwarding;
//! - [`worker`]: what a worker process does: tie its life to the supervisor's, bind, serve.
//!
//! Linux only: it relies on `prctl(2)` and `/proc/self/exe`.

#![deny(missing_docs)]

pub mod cli;
pub mod supervisor;
pub mod worker;

pub use cli::{Cli, Engine};
