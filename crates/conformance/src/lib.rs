//! Black-box conformance checks that judge any HTTP/1.1 server against `docs/contract.md`.
//!
//! The checks speak raw TCP to an address, so they judge every variant alike (Rust, Node,
//! Python, Go, nginx). Each check has a stable name (`core.hello.get`, `bad.both-cl-te`) and a
//! [`Group`]; on failure it reports what the contract expects, what the server did, and an
//! excerpt of the bytes received.
//!
//! Layout:
//! - [`wire`]: the raw-wire client (public, reused by the harness and peers);
//! - `expect`: judging one response against the contract's response rules;
//! - `checks`: the registry ([`checks()`]) and one module per group;
//! - `runner`: scheduling (fast checks on a small thread pool, slow ones concurrently);
//! - [`report`]: outcomes, the printed report and its summary line;
//! - [`require`]: what a test that needs an installed tool does when it is missing (skip with
//!   a visible line, or fail under `BENCH_REQUIRE_TOOLS=1`), for every test crate;
//! - [`suite`]: what every server crate's tests run against its binary, with the exceptions
//!   `servers.toml` documents for it.
//!
//! A server crate's test uses it in one line:
//!
//! ```no_run
//! # let addr: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
//! use conformance::{Group, Options};
//! conformance::assert_conforms(addr, &[Group::Core, Group::Connection, Group::BadInput], &Options::default());
//! ```
#![deny(missing_docs)]

mod checks;
mod expect;
pub mod report;
pub use manifest::require;
mod runner;
pub mod suite;
pub mod wire;

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

pub use checks::{Check, Pace, checks};
pub use report::{CheckResult, Failure, Outcome, Report};

/// The server under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Where it listens (loopback: 127.0.0.1 or ::1).
    pub addr: SocketAddr,
    /// The Bearer token `/api/private` accepts.
    pub auth_token: String,
}

impl Target {
    /// A target at `addr` with the default token (`bench-token`).
    pub fn new(addr: SocketAddr) -> Target {
        Target {
            addr,
            auth_token: contract::body::DEFAULT_AUTH_TOKEN.to_owned(),
        }
    }

    /// The same target with another token.
    pub fn with_token(mut self, token: impl Into<String>) -> Target {
        self.auth_token = token.into();
        self
    }
}

/// A group of checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Every endpoint: status, exact fields, body; HEAD, 404, 405, query echo, auth, `/my/ip`.
    Core,
    /// Keep-alive, HTTP/1.0, `Connection: close`, pipelining, split reads.
    Connection,
    /// Every row of `docs/contract.md` "Bad input", slowloris, idle keep-alive, vanishing clients.
    BadInput,
    /// RFC 9112's server-side requirements that the contract's rows do not already cover
    /// (Host, field syntax, bare CR and LF, framing, chunked coding): the table in the README.
    Rfc9112,
    /// The event-loop scenarios (for variants that list `scenarios`).
    Scenarios,
    /// 10,000 concurrent connections.
    Heavy,
}

impl Group {
    /// Every group, in report order.
    pub const ALL: [Group; 6] = [
        Group::Core,
        Group::Connection,
        Group::BadInput,
        Group::Rfc9112,
        Group::Scenarios,
        Group::Heavy,
    ];

    /// The group's name as `FromStr` reads it (`core`, `connection`, `bad-input`, `rfc9112`,
    /// `scenarios`, `heavy`).
    pub fn name(self) -> &'static str {
        match self {
            Group::Core => "core",
            Group::Connection => "connection",
            Group::BadInput => "bad-input",
            Group::Rfc9112 => "rfc9112",
            Group::Scenarios => "scenarios",
            Group::Heavy => "heavy",
        }
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A group name that is not one of [`Group::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownGroup(pub String);

impl fmt::Display for UnknownGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown group {:?} (expected core, connection, bad-input, rfc9112, scenarios or heavy)",
            self.0
        )
    }
}

impl std::error::Error for UnknownGroup {}

impl FromStr for Group {
    type Err = UnknownGroup;

    fn from_str(s: &str) -> Result<Group, UnknownGroup> {
        Group::ALL
            .into_iter()
            .find(|g| g.name() == s || (s == "bad_input" && *g == Group::BadInput))
            .ok_or_else(|| UnknownGroup(s.to_owned()))
    }
}

/// How to run the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The groups to run (default: all).
    pub groups: Vec<Group>,
    /// When not empty, only the checks with these names run (within `groups`).
    pub only: Vec<String>,
    /// Documented exceptions: `(check name, reason)`. Such checks are not run and are reported
    /// as `EXCEPTION name: reason`.
    pub skip: Vec<(String, String)>,
    /// How long the idle keep-alive check stays silent before its second request. The contract's
    /// value is 61 s (the server must keep an idle connection at least 60 s); a shorter value is
    /// only for testing this crate.
    pub idle_secs: u64,
    /// Deadline of each response (and of each connect).
    pub timeout: Duration,
    /// Judge error answers (400, 413, 431, 501, 505) in full: exact fields, `content-length: 0`,
    /// `connection: close`. Off by default: `docs/contract.md` lets a library that answers bad
    /// input itself be judged on the status and the close alone.
    pub strict_errors: bool,
    /// Connections of the heavy check, all held at once (default 10,000).
    pub heavy_connections: usize,
    /// Threads running the fast checks concurrently.
    pub parallelism: usize,
    /// The endpoint paths the server serves (`servers.toml` `endpoints`); empty means every
    /// endpoint. A check that needs another path ([`Check::needs`](Check#structfield.needs))
    /// is not run and is reported as `SKIP name: … not served`.
    pub endpoints: Vec<String>,
    /// Header fields (lowercase) the server's library adds and `servers.toml` records as
    /// `extra_header`: allowed in the responses the checks judge in full (see
    /// `servers.toml`). Empty for every Rust variant but those listing fields there.
    pub extra_headers: Vec<String>,
}

/// The contract's idle keep-alive period plus one second.
pub const IDLE_SECS: u64 = 61;

impl Default for Options {
    fn default() -> Options {
        Options {
            groups: Group::ALL.to_vec(),
            only: Vec::new(),
            skip: Vec::new(),
            idle_secs: IDLE_SECS,
            timeout: Duration::from_secs(5),
            strict_errors: false,
            heavy_connections: 10_000,
            parallelism: 8,
            endpoints: Vec::new(),
            extra_headers: Vec::new(),
        }
    }
}

impl Options {
    /// The same options for `groups`.
    pub fn with_groups(mut self, groups: &[Group]) -> Options {
        self.groups = groups.to_vec();
        self
    }

    /// The same options with one more documented exception.
    pub fn skip(mut self, check: &str, reason: &str) -> Options {
        self.skip.push((check.to_owned(), reason.to_owned()));
        self
    }
}

/// Runs the selected checks against `target` and returns the report. Blocks until every check
/// has finished (the slow ones run concurrently with the rest; the idle check alone takes
/// `idle_secs`).
pub fn run(target: &Target, options: &Options) -> Report {
    runner::run(target, options)
}

/// Runs `groups` against the server at `addr` (default token), prints the report, and panics
/// naming the failed checks if any failed. For a server crate's integration test.
pub fn assert_conforms(addr: SocketAddr, groups: &[Group], options: &Options) {
    let options = options.clone().with_groups(groups);
    let report = run(&Target::new(addr), &options);
    report.print();
    assert!(
        report.all_passed(),
        "{addr} does not conform: {} failed: {}",
        report.failed(),
        report.failed_names().join(", ")
    );
}
