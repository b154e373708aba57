//! What every server crate's integration tests do, written once: start the crate's real
//! binary, run conformance groups against it with the exceptions `servers.toml` documents for
//! it (error answers judged strictly), show that each documented exception still applies, and
//! check the process rules (SIGINT/SIGTERM exit 0, a bad start is one line and exit 2).
//!
//! A server crate's `tests/conformance.rs` is then a few lines:
//!
//! ```no_run
//! use conformance::{Group, suite::Variant};
//! const V: Variant = Variant::new("server-hyper", "target/debug/server-hyper");
//! // in a #[test]:
//! V.assert_conforms(&[Group::Core], &[]);
//! ```
//! (with `env!("CARGO_BIN_EXE_server-hyper")` as the binary in a real test).

use std::process::Command;
use std::time::Duration;

use crate::process::ServerProcess;
use crate::{Group, Options, Outcome, Target};

/// One server crate: its cargo package (its `servers.toml` entry) and its built binary.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// The cargo package, as `servers.toml` names it.
    pub package: &'static str,
    /// The binary (`env!("CARGO_BIN_EXE_<name>")`).
    pub bin: &'static str,
}

impl Variant {
    /// The variant built from `package`, whose binary is `bin`.
    pub const fn new(package: &'static str, bin: &'static str) -> Variant {
        Variant { package, bin }
    }

    /// Its `servers.toml` entry (panics when it is missing: every server crate is listed).
    pub fn entry(&self) -> manifest::Server {
        let m = manifest::Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
        m.by_package(self.package)
            .unwrap_or_else(|| panic!("{} is not listed in servers.toml", self.package))
            .clone()
    }

    /// Starts the binary on 127.0.0.1:0 with `args` (panics when it does not start).
    pub fn start(&self, args: &[&str]) -> ServerProcess {
        ServerProcess::start(self.bin, args)
            .unwrap_or_else(|e| panic!("{} {args:?}: {e}", self.package))
    }

    /// The options every server crate runs with: error answers judged strictly, and the
    /// documented exceptions skipped (printed as `EXCEPTION name: reason`).
    pub fn options(&self) -> Options {
        Options {
            strict_errors: true,
            skip: self.entry().exception_pairs(),
            ..Options::default()
        }
    }

    /// Starts the binary with `args` and asserts that it passes `groups` (each of which its
    /// `servers.toml` entry must list), but for its documented exceptions.
    pub fn assert_conforms(&self, groups: &[Group], args: &[&str]) {
        let entry = self.entry();
        for g in groups {
            assert!(
                entry.has_group(g.name()),
                "{} is tested on group {g}, which its servers.toml entry does not list",
                self.package
            );
        }
        let server = self.start(args);
        crate::assert_conforms(server.addr(), groups, &self.options());
    }

    /// Runs exactly the checks `servers.toml` excuses this variant from and asserts that each
    /// still fails, so the list never outlives the deviation. `racy` names exceptions whose
    /// failure depends on timing: they are reported, not asserted.
    pub fn assert_exceptions_still_apply(&self, args: &[&str], racy: &[&str]) {
        let names: Vec<String> = self
            .entry()
            .exceptions
            .into_iter()
            .map(|e| e.check)
            .collect();
        if names.is_empty() {
            return;
        }
        let server = self.start(args);
        let options = Options {
            strict_errors: true,
            only: names.clone(),
            ..Options::default()
        };
        let report = crate::run(&Target::new(server.addr()), &options);
        // One line per check and no summary line: a "0 passed, N failed" line would read as a
        // failing test run to a reader of the log.
        for result in &report.results {
            println!("EXCEPTED {result}");
        }
        for name in &names {
            let result = report
                .get(name)
                .unwrap_or_else(|| panic!("exception {name:?} names no check"));
            if racy.contains(&name.as_str()) {
                continue;
            }
            assert!(
                matches!(result.outcome, Outcome::Fail(_)),
                "{name} passes now: remove it from {}'s exceptions in servers.toml",
                self.package
            );
        }
    }

    /// SIGINT and SIGTERM each stop an idle server with exit status 0 within 6 s.
    pub fn assert_signals_exit_zero(&self, args: &[&str]) {
        for sig in [libc::SIGINT, libc::SIGTERM] {
            let mut server = self.start(args);
            server.signal(sig).expect("signal the server");
            let status = server.wait_exit(Duration::from_secs(6));
            assert_eq!(
                status.and_then(|s| s.code()),
                Some(0),
                "{} after signal {sig}: {status:?}",
                self.package
            );
        }
    }

    /// A bad flag, a bad address and a taken port each give exit status 2 and exactly one
    /// line on stderr.
    pub fn assert_bad_starts_exit_two(&self) {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port to take");
        let port = taken.local_addr().expect("its address").to_string();
        for args in [
            vec!["--bogus"],
            vec!["--addr", "nonsense"],
            vec!["--addr", "1.2.3.4:80"],
            vec!["--workers", "0"],
            vec!["--addr", port.as_str()],
        ] {
            let out = Command::new(self.bin)
                .args(&args)
                .env_remove("ADDR")
                .env_remove("PORT")
                .output()
                .expect("run the binary");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}
