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
//!
//! A peer (a `servers.toml` entry with a `command`: Node, Python, Go, nginx, the C ceiling) is
//! a [`Peer`]: started from the workspace root with the command its entry gives, judged on the
//! endpoints it serves, with the header fields its entry records allowed.
//!
//! How any server of the manifest is judged, a Rust variant or a peer, is decided in one place,
//! [`options_for`]: the server crates' tests, `tests/peers.rs` and `bench verify` all call it.
//! [`load_manifest`] reads `servers.toml` (and a user's own file of entries) as they all do,
//! with every exception's checks matched against the checks of this crate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::{Group, Options, Outcome, Target};
use manifest::{Manifest, ManifestError};
use serve::process::{READY_TIMEOUT, ServerProcess, StartError};

/// The name of every conformance check, in the order of [`crate::checks()`]: what a
/// `servers.toml` exception's `checks` are matched against.
pub fn check_names() -> Vec<&'static str> {
    crate::checks().iter().map(|c| c.name).collect()
}

/// Reads `files` as one manifest (the workspace's `servers.toml` first, then a user's own file
/// of entries, as `bench --servers-file` gives it) and checks that every exception's `checks`
/// name or match checks of this crate, and that no check is excused twice.
pub fn load_manifest(files: &[&Path]) -> Result<Manifest, ManifestError> {
    let m = Manifest::load_files(files)?;
    m.check_exceptions(&check_names())?;
    Ok(m)
}

/// The workspace's `servers.toml` as [`load_manifest`] reads it (panics when it does not load:
/// for tests).
pub fn workspace_manifest() -> Manifest {
    load_manifest(&[&manifest::default_path()]).unwrap_or_else(|e| panic!("{e}"))
}

/// How the server of `entry` is judged on `groups`: the one rule, for the server crates'
/// tests, the peers' test and `bench verify` alike.
///
/// Every server: the checks its exceptions excuse are not run (reported as `EXCEPTION name:
/// reason`), nor those of an endpoint it does not serve (`endpoints`).
///
/// A Rust variant of this workspace (a `package`) has its error answers judged in full
/// (`strict_errors`: the standard reason phrase, the exact fields, `content-length: 0`,
/// `connection: close`) and no header field beyond the contract's: its own code writes every
/// byte, so a field its library adds (server-may's `Server: M`) fails the checks it shows in,
/// and those are its exceptions; the `extra_header` it records is for the fairness table.
///
/// Any other server (a `command`: the peers, a user's own) is judged on the status and the
/// close of an error answer alone, as `docs/contract.md` allows where a library answers bad input
/// itself (node's 400 has no `date`), and the header fields its entry records as
/// `extra_header` are allowed.
///
/// An error: an exception whose `checks` match no check, or a check excused twice (a manifest
/// read with [`load_manifest`] has neither).
pub fn options_for(entry: &manifest::Server, groups: &[Group]) -> Result<Options, String> {
    let skip = entry.excused(&check_names())?;
    let peer = entry.is_peer();
    Ok(Options {
        groups: groups.to_vec(),
        skip,
        strict_errors: !peer,
        endpoints: entry.endpoints.clone(),
        extra_headers: if peer {
            entry
                .extra_headers
                .iter()
                .map(|x| x.field.to_ascii_lowercase())
                .collect()
        } else {
            Vec::new()
        },
        ..Options::default()
    })
}

/// The names of the checks `entry` is excused from (see [`options_for`]), to run them alone
/// and show that each still fails.
pub fn excused_checks(entry: &manifest::Server) -> Result<Vec<String>, String> {
    Ok(entry
        .excused(&check_names())?
        .into_iter()
        .map(|(check, _)| check)
        .collect())
}

/// One peer of `servers.toml` and the workspace root its command runs from.
#[derive(Debug, Clone)]
pub struct Peer {
    /// Its `servers.toml` entry.
    pub entry: manifest::Server,
    /// The workspace root (the command's working directory; its paths are relative to it).
    pub root: PathBuf,
}

impl Peer {
    /// Every peer of the workspace's `servers.toml`, in file order (panics when the manifest
    /// does not load).
    pub fn all() -> Vec<Peer> {
        let m = workspace_manifest();
        let root = manifest::workspace_root();
        m.servers
            .into_iter()
            .filter(manifest::Server::is_peer)
            .map(|entry| Peer::new(entry, &root))
            .collect()
    }

    /// The peer of `entry`, run from `root`.
    pub fn new(entry: manifest::Server, root: &Path) -> Peer {
        Peer {
            entry,
            root: root.to_path_buf(),
        }
    }

    /// What it still needs before it can start (empty: runnable); see
    /// `manifest::Server::missing`.
    pub fn missing(&self) -> Vec<String> {
        self.entry.missing(&self.root)
    }

    /// Starts it on `127.0.0.1:0` from the workspace root, without this process's `ADDR`,
    /// `PORT` and `AUTH_TOKEN`, and waits for its ready line.
    pub fn start(&self) -> Result<ServerProcess, StartError> {
        let argv = self
            .entry
            .argv(&self.root, "127.0.0.1:0")
            .ok_or_else(|| StartError::Spawn(std::io::Error::other("not a peer")))?;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(&self.root)
            .env_remove("ADDR")
            .env_remove("PORT")
            .env_remove("AUTH_TOKEN");
        ServerProcess::spawn(cmd, READY_TIMEOUT)
    }

    /// The groups its entry lists.
    pub fn groups(&self) -> Vec<Group> {
        self.entry
            .groups
            .iter()
            .map(|g| {
                g.parse()
                    .unwrap_or_else(|e| panic!("{}: {e}", self.entry.name))
            })
            .collect()
    }

    /// The options it is judged with on every group its entry lists ([`options_for`]).
    pub fn options(&self) -> Options {
        options_for(&self.entry, &self.groups())
            .unwrap_or_else(|e| panic!("{}: {e}", self.entry.name))
    }
}

/// The check that keeps a connection silent for [`crate::IDLE_SECS`] (the contract's idle
/// keep-alive row). [`Variant::assert_conforms`] leaves it out; this crate's `tests/idle.rs`
/// runs it on every Rust variant at once.
pub const IDLE_CHECK: &str = "bad.idle-keep-alive";

/// The `servers.toml` entries of the Rust variants (those with a cargo `package`), in the
/// manifest's order.
pub fn variants(manifest: &Manifest) -> Vec<manifest::Server> {
    manifest
        .servers
        .iter()
        .filter(|s| !s.is_peer())
        .cloned()
        .collect()
}

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
        let m = workspace_manifest();
        m.by_package(self.package)
            .unwrap_or_else(|| panic!("{} is not listed in servers.toml", self.package))
            .clone()
    }

    /// Starts the binary on 127.0.0.1:0 with `args` (panics when it does not start).
    pub fn start(&self, args: &[&str]) -> ServerProcess {
        ServerProcess::start(self.bin, args)
            .unwrap_or_else(|e| panic!("{} {args:?}: {e}", self.package))
    }

    /// The options every server crate runs with ([`options_for`] its entry: error answers
    /// judged strictly, the documented exceptions skipped and printed as `EXCEPTION name:
    /// reason`), on every group.
    pub fn options(&self) -> Options {
        options_for(&self.entry(), &Group::ALL).unwrap_or_else(|e| panic!("{}: {e}", self.package))
    }

    /// Starts the binary with `args` and asserts that it passes `groups` (each of which its
    /// `servers.toml` entry must list), but for its documented exceptions and for
    /// [`IDLE_CHECK`]: that one takes 61 s, and `tests/idle.rs` of this crate runs it on every
    /// variant at once ([`variants`]) instead of once in each variant's test binary.
    pub fn assert_conforms(&self, groups: &[Group], args: &[&str]) {
        let entry = self.entry();
        for g in groups {
            assert!(
                entry.has_group(g.name()),
                "{} is tested on group {g}, which its servers.toml entry does not list",
                self.package
            );
        }
        let options = Options {
            only: check_names()
                .into_iter()
                .filter(|&name| name != IDLE_CHECK)
                .map(str::to_owned)
                .collect(),
            ..self.options()
        };
        let server = self.start(args);
        crate::assert_conforms(server.addr(), groups, &options);
    }

    /// Runs exactly the checks `servers.toml` excuses this variant from and asserts that each
    /// still fails, so the list never outlives the deviation. `racy` names exceptions whose
    /// failure depends on timing: they are reported, not asserted.
    pub fn assert_exceptions_still_apply(&self, args: &[&str], racy: &[&str]) {
        let names = excused_checks(&self.entry()).unwrap_or_else(|e| panic!("{e}"));
        if names.is_empty() {
            return;
        }
        let server = self.start(args);
        let options = Options {
            only: names.clone(),
            skip: Vec::new(),
            ..self.options()
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

    /// E4's remedy must not become the problem: 20 `/api/sync-offload` requests at once may not
    /// grow the server's blocking pool past its CPUs. tokio's default (512) and actix's
    /// (512 / workers) would spawn a thread for each, and on one server CPU they time-slice the
    /// event loop away.
    ///
    /// The server (one worker) is started pinned to one CPU (`sched_setaffinity` before it
    /// executes), so the cap it computes is `serve::workers::blocking_threads_of(1, 1)` = 1 on
    /// any machine, however many CPUs it has. Its threads (`/proc/PID/task`) are counted after
    /// one plain request (main thread, worker, Date clock or accept thread) and again after the
    /// burst: the burst may add at most the cap (idle pool threads live on for 10 s, so every
    /// thread it made is still there), and must add at least one, or nothing was offloaded.
    pub fn assert_offload_pool_capped(&self) {
        let cpu = first_allowed_cpu();
        let mut cmd = Command::new(self.bin);
        cmd.args(["--addr", "127.0.0.1:0"])
            .env_remove("ADDR")
            .env_remove("PORT")
            .env_remove("AUTH_TOKEN");
        pin_to(&mut cmd, cpu);
        let server = ServerProcess::spawn(cmd, READY_TIMEOUT)
            .unwrap_or_else(|e| panic!("{} pinned to CPU {cpu}: {e}", self.package));
        let pid = server.pid();
        let allowed = proc_status_field(pid, "Cpus_allowed_list");
        assert_eq!(allowed, cpu.to_string(), "{}: not pinned", self.package);
        let cap = serve::workers::blocking_threads_of(1, 1);

        let mut first =
            crate::wire::Conn::connect(server.addr(), Duration::from_secs(15)).expect("connect");
        first
            .send(b"GET /api/hello HTTP/1.1\r\nHost: t\r\n\r\n")
            .expect("send");
        let hello = first.read_response(false).expect("an answer");
        assert_eq!(hello.status, 200, "{}", self.package);
        let before = threads_of(pid);

        let mut conns: Vec<crate::wire::Conn> = (0..20)
            .map(|_| {
                crate::wire::Conn::connect(server.addr(), Duration::from_secs(15)).expect("connect")
            })
            .collect();
        for c in &mut conns {
            c.send(b"GET /api/sync-offload HTTP/1.1\r\nHost: t\r\n\r\n")
                .expect("send");
        }
        for c in &mut conns {
            let r = c.read_response(false).expect("an answer");
            assert_eq!(
                (r.status, r.body.as_slice()),
                (200, contract::body::SYNC_JSON),
                "{}",
                self.package
            );
        }
        let after = threads_of(pid);
        println!(
            "{}: pinned to CPU {cpu}: {before} threads before, {after} after 20 concurrent offloads (cap {cap})",
            self.package
        );
        assert!(
            after <= before + cap,
            "{}: 20 concurrent /api/sync-offload requests grew the server from {before} to {after} threads on one CPU: its blocking pool is not capped at {cap}",
            self.package
        );
        assert!(
            after > before,
            "{}: 20 /api/sync-offload requests made no pool thread ({before} threads before and after): nothing was offloaded",
            self.package
        );
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

/// The threads of process `pid` (`/proc/PID/task`).
fn threads_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("/proc/PID/task")
        .count()
}

/// The value of `field` in `/proc/PID/status`.
fn proc_status_field(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
        .trim()
        .to_string()
}

/// The lowest CPU this process may run on.
fn first_allowed_cpu() -> usize {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most
    // size_of::<cpu_set_t>() bytes into it, and CPU_ISSET reads it within its bounds.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0,
            "sched_getaffinity: {}",
            std::io::Error::last_os_error()
        );
        (0..libc::CPU_SETSIZE as usize)
            .find(|&c| libc::CPU_ISSET(c, &set))
            .expect("this process may run on no CPU")
    }
}

/// Makes `cmd`'s process run on `cpu` only, from before it executes (so a runtime's own view of
/// its CPUs, `available_parallelism`, is 1).
fn pin_to(cmd: &mut Command, cpu: usize) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec; it only builds a cpu_set_t
    // on its stack and calls sched_setaffinity(2), which is async-signal-safe and allocates
    // nothing.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}
/// The conformance tests of one Rust variant's `tests/conformance.rs`, against its real binary:
/// one test per group so that they run concurrently (`core`, `core_with_several_workers`,
/// `connection`, `bad_input`, `rfc9112`, `heavy`; the 61 s idle check is left to
/// `conformance/tests/idle.rs`, which runs it on every variant at once), and, named after the
/// binary, those that apply to the variant: `scenarios` (the event-loop group),
/// `exceptions` (every exception servers.toml lists still fails; `exceptions("name", …)` names
/// racy ones, reported rather than asserted) and `process_rules` (SIGINT/SIGTERM exit 0, a bad
/// start exits 2).
///
/// ```ignore
/// conformance::variant_tests!("server-hyper", env!("CARGO_BIN_EXE_server-hyper"), scenarios);
/// ```
#[macro_export]
macro_rules! variant_tests {
    ($name:literal, $bin:expr $(, $extra:ident $( ( $($racy:literal),* ) )? )* $(,)?) => {
        const V: $crate::suite::Variant = $crate::suite::Variant::new($name, $bin);

        #[test]
        fn core() {
            V.assert_conforms(&[$crate::Group::Core], &[]);
        }

        #[test]
        fn core_with_several_workers() {
            V.assert_conforms(&[$crate::Group::Core], &["--workers", "2"]);
        }

        #[test]
        fn connection() {
            V.assert_conforms(&[$crate::Group::Connection], &[]);
        }

        #[test]
        fn bad_input() {
            V.assert_conforms(&[$crate::Group::BadInput], &[]);
        }

        #[test]
        fn rfc9112() {
            V.assert_conforms(&[$crate::Group::Rfc9112], &[]);
        }

        #[test]
        fn heavy() {
            V.assert_conforms(&[$crate::Group::Heavy], &[]);
        }

        $( $crate::variant_tests!(@$extra $( $($racy),* )?); )*
    };
    (@scenarios) => {
        #[test]
        fn scenarios() {
            V.assert_conforms(&[$crate::Group::Scenarios], &[]);
        }
    };
    (@exceptions $($racy:literal),*) => {
        #[test]
        fn exceptions_still_apply() {
            V.assert_exceptions_still_apply(&[], &[$($racy),*]);
        }
    };
    (@process_rules) => {
        #[test]
        fn process_rules() {
            V.assert_signals_exit_zero(&[]);
            V.assert_bad_starts_exit_two();
        }
    };
}
