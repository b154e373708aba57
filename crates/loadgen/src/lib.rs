//! `loadgen`: an HTTP/1.1 load generator that can stand next to wrk, as a library for the
//! bench harness and a binary with a wrk-like command line.
//!
//! The layers, in the order a run passes through them:
//!
//! - [`config`] (options): [`Config`], the load models ([`Load`]: closed, open wrk2-style,
//!   k6-like stages), the connection [`Mode`]s and their validation;
//! - [`request`]: the request bytes, serialised once;
//! - `client` (the client loop): one OS thread per `-t`, each a current-thread tokio runtime
//!   driving its share of the connections through one worker loop with a stop condition, and
//!   in the open model one pacer handing the thread's scheduled requests to free connections;
//! - [`framing`]: where each response ends (httparse; Content-Length, chunked, until close);
//! - [`errors`]: the kinds of failed request and their counts; [`stats`] (result data):
//!   per-thread HDR histograms and counters, merged once;
//! - [`timeline`]: with `--interval`, per-thread counters and latency buckets for each
//!   interval of the measured window, merged once, and the report's [`Timeline`];
//! - [`report`]: [`RunResult`] and the versioned JSON [`Report`];
//! - [`print`](mod@print): the wrk-shaped human summary.
//!
//! ```no_run
//! let mut config = loadgen::Config::new("http://127.0.0.1:8080/").unwrap();
//! config.connections = 100;
//! config.duration = Some(std::time::Duration::from_secs(10));
//! let result = loadgen::run(&config).unwrap();
//! println!("{:.0} requests/s, p99 {} us", result.requests_per_s, result.latency.p99_us);
//! ```
#![deny(missing_docs)]

#[cfg(feature = "client")]
mod client;
pub mod config;
#[cfg(feature = "client")]
mod cpu;
pub mod errors;
pub mod framing;
pub mod print;
pub mod report;
pub mod request;
#[cfg(feature = "client")]
mod run;
pub mod stats;
pub mod timeline;

pub use config::{Config, ConfigError, Load, Mode, Stage};
pub use report::{Report, RunResult, SCHEMA};
#[cfg(feature = "client")]
pub use run::{Error, run};
pub use timeline::{Interval, Timeline};
