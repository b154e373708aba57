//! A crate with only tests, and the small helpers they share: the deployment paths of the
//! workspace, exercised for real where the machine allows it and skipped with a printed
//! reason where it does not (`conformance::require`: a failure instead under
//! `BENCH_REQUIRE_TOOLS=1`, as in CI).
//!
//! - `tests/containers.rs`: `scripts/images.sh --offline` builds the images of
//!   `server-prebuilt` and `server-hyper`; each runs under podman (or docker), passes the
//!   conformance `core` group, and exits 0 within 5 s of SIGTERM.
//! - `tests/netns.rs`: two hosts on one machine: two network namespaces joined by a veth pair,
//!   the server in one on its veth address, the load from the other.
//! - `tests/k8s.rs`: `scripts/k8s.sh` regenerates `deploy/k8s` identically, and every Rust
//!   variant of servers.toml has its Deployment and Service.
//!
//! Layout of this library: command running ([`output`]), progress lines ([`note`]), unique names
//! ([`unique`]), the static release build the images and the namespace test share
//! ([`static_build`]), a container engine and the guards that remove what a test made
//! ([`Engine`], [`Container`], [`Images`]), and network namespaces ([`Netns`], [`in_netns`]).
//! Every guard removes its object on drop, whatever the test did.
#![deny(missing_docs)]

use std::ffi::OsStr;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The target triple of the static build (`scripts/images.sh --offline` uses the same).
pub const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// The target directory of the static build, relative to the workspace root, kept apart from
/// `target/` so that the normal debug and release builds are not invalidated by its RUSTFLAGS.
pub const STATIC_TARGET_DIR: &str = "target/static";

/// The workspace root.
pub fn root() -> PathBuf {
    manifest::workspace_root()
}

/// Prints a progress line on the real stderr (visible without `--nocapture`, like a skip of
/// `conformance::require`).
pub fn note(test: &str, what: &str) {
    conformance::require::say(&format!("{test}: {what}"));
}

/// A name no other test run on this machine uses at the same time: `prefix`, this process's
/// id and a counter (lowercase letters, digits and `-` only).
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Runs `cmd` to completion and returns its stdout, or one line saying what it was, how it
/// ended and what it wrote on stderr.
pub fn output(cmd: &mut Command) -> Result<String, String> {
    let shown = show(cmd);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "`{shown}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A command as a shell line, for messages.
pub fn show(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(OsStr::to_string_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Builds `packages` once, in one cargo invocation, exactly as `scripts/images.sh --offline`
/// does: release profile, statically linked (`-C target-feature=+crt-static`), for
/// [`TRIPLE`], in [`STATIC_TARGET_DIR`]. Returns the folder holding the binaries. Cargo is
/// the one running this test (`$CARGO`), or `cargo` on `PATH`.
pub fn static_build(packages: &[&str]) -> Result<PathBuf, String> {
    let root = root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("RUSTFLAGS", "-C target-feature=+crt-static")
        .env("CARGO_TARGET_DIR", STATIC_TARGET_DIR)
        .args(["build", "--release", "--locked", "--target", TRIPLE]);
    for p in packages {
        cmd.args(["-p", p]);
    }
    let shown = show(&cmd);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if !status.success() {
        return Err(format!("`{shown}` failed ({status})"));
    }
    Ok(root.join(STATIC_TARGET_DIR).join(TRIPLE).join("release"))
}

/// A container engine that can build and run images here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// docker, with a daemon that answers.
    Docker,
    /// podman (no daemon).
    Podman,
}

/// Where Debian puts runc; podman's default runtime (crun) fails on this project's machines'
/// cgroups, runc works.
pub const RUNC: &str = "/usr/sbin/runc";

impl Engine {
    /// docker when its daemon answers, else podman when `podman info` works; else why neither
    /// can be used (the reason to skip).
    pub fn detect() -> Result<Engine, String> {
        let mut why = Vec::new();
        for engine in [Engine::Docker, Engine::Podman] {
            let name = engine.program();
            if conformance::require::program(name).is_none() {
                why.push(format!("{name} is not installed"));
                continue;
            }
            match output(Command::new(name).arg("info")) {
                Ok(_) => return Ok(engine),
                Err(e) => why.push(first_line(&e)),
            }
        }
        Err(format!(
            "no container engine can run here ({}); scripts/install-containers.sh installs podman",
            why.join("; ")
        ))
    }

    /// The program.
    pub fn program(self) -> &'static str {
        match self {
            Engine::Docker => "docker",
            Engine::Podman => "podman",
        }
    }

    /// A command of this engine.
    pub fn command(self) -> Command {
        Command::new(self.program())
    }

    /// The options of every `run` in these tests: the `network` (`host`, so that the container
    /// binds 127.0.0.1 like any server under test, or `none`), the open-file and process limits
    /// this project's machines need set explicitly, and for podman the runc runtime where it is
    /// installed.
    pub fn run_options(self, network: &str) -> Vec<String> {
        let mut o: Vec<String> = [
            "--network",
            network,
            "--ulimit",
            "nofile=20000:20000",
            "--ulimit",
            "nproc=1000:1000",
        ]
        .map(String::from)
        .to_vec();
        if self == Engine::Podman && Path::new(RUNC).exists() {
            o.extend(["--runtime".to_string(), RUNC.to_string()]);
        }
        o
    }

    /// The image's configuration (`.Config` of `image inspect`: User, Env, ExposedPorts,
    /// Labels, StopSignal, Entrypoint).
    pub fn image_config(self, image: &str) -> Result<serde_json::Value, String> {
        let text = output(self.command().args([
            "image",
            "inspect",
            "--format",
            "{{json .Config}}",
            image,
        ]))?;
        serde_json::from_str(text.trim()).map_err(|e| format!("image inspect {image}: {e}"))
    }

    /// The image's size in bytes.
    pub fn image_size(self, image: &str) -> Result<u64, String> {
        let text =
            output(
                self.command()
                    .args(["image", "inspect", "--format", "{{.Size}}", image]),
            )?;
        text.trim()
            .parse()
            .map_err(|e| format!("image inspect {image}: size {text:?}: {e}"))
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// Images a test built; removed (`rmi -f`) on drop.
#[derive(Debug)]
pub struct Images {
    engine: Engine,
    names: Vec<String>,
}

impl Images {
    /// A guard for `names`, built with `engine`.
    pub fn new(engine: Engine, names: Vec<String>) -> Images {
        Images { engine, names }
    }

    /// The images.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Drop for Images {
    fn drop(&mut self) {
        if self.names.is_empty() {
            return;
        }
        let mut cmd = self.engine.command();
        cmd.args(["rmi", "-f"]).args(&self.names);
        if let Err(e) = output(&mut cmd) {
            let _ = writeln!(std::io::stderr(), "could not remove images: {e}");
        }
    }
}

/// A detached container; removed (`rm -f`, which kills it if it still runs) on drop.
#[derive(Debug)]
pub struct Container {
    engine: Engine,
    name: String,
}

impl Container {
    /// `run -d --name NAME [run_options(network)] -e K=V … IMAGE ARGS…`. The guard exists
    /// before the engine is asked, so a half-created container is removed too.
    pub fn run(
        engine: Engine,
        name: &str,
        network: &str,
        image: &str,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Result<Container, String> {
        let guard = Container {
            engine,
            name: name.to_string(),
        };
        let mut cmd = engine.command();
        cmd.args(["run", "-d", "--name", name])
            .args(engine.run_options(network));
        for (k, v) in env {
            cmd.arg("-e").arg(format!("{k}={v}"));
        }
        cmd.arg(image).args(args);
        output(&mut cmd)?;
        Ok(guard)
    }

    /// The container's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its output so far (`logs`: stdout, then stderr).
    pub fn logs(&self) -> String {
        match self.engine.command().args(["logs", &self.name]).output() {
            Ok(out) => format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => format!("(no logs: {e})"),
        }
    }

    /// Waits up to `limit` for the ready line (`listening on http://HOST:PORT`) in its logs
    /// and returns the address; fails early when the container stops.
    pub fn ready_addr(&self, limit: Duration) -> Result<SocketAddr, String> {
        let deadline = Instant::now() + limit;
        loop {
            let logs = self.logs();
            if let Some(addr) = logs.lines().find_map(serve::ready::parse) {
                return Ok(addr);
            }
            if let Ok(State { running: false, .. }) = self.state() {
                return Err(format!(
                    "{} stopped without a ready line; its output: {logs:?}",
                    self.name
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no ready line from {} within {limit:?}; its output: {logs:?}",
                    self.name
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends `signal` (`TERM`, `INT`, …) to its main process (`kill -s`).
    pub fn signal(&self, signal: &str) -> Result<(), String> {
        output(
            self.engine
                .command()
                .args(["kill", "-s", signal, &self.name]),
        )
        .map(|_| ())
    }

    /// Whether it runs, and its exit code once it has stopped.
    pub fn state(&self) -> Result<State, String> {
        let text = output(self.engine.command().args([
            "inspect",
            "--format",
            "{{.State.Running}} {{.State.ExitCode}}",
            &self.name,
        ]))?;
        let mut words = text.split_whitespace();
        match (words.next(), words.next().and_then(|c| c.parse().ok())) {
            (Some(running), Some(exit_code)) => Ok(State {
                running: running == "true",
                exit_code,
            }),
            _ => Err(format!("inspect {}: unexpected {text:?}", self.name)),
        }
    }

    /// Waits up to `limit` for it to stop; returns its exit code and how long it took, or
    /// `None` when it still runs.
    pub fn wait_exit(&self, limit: Duration) -> Result<Option<(i64, Duration)>, String> {
        let start = Instant::now();
        loop {
            let state = self.state()?;
            if !state.running {
                return Ok(Some((state.exit_code, start.elapsed())));
            }
            if start.elapsed() >= limit {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = self
            .engine
            .command()
            .args(["rm", "-f", &self.name])
            .output();
    }
}

/// A container's state, as `inspect` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Whether its main process runs.
    pub running: bool,
    /// Its exit code (meaningful once it has stopped).
    pub exit_code: i64,
}

/// A network namespace (`ip netns add`); deleted on drop, which also destroys the veth ends
/// in it. Processes started in it are the caller's to stop (before this guard drops).
#[derive(Debug)]
pub struct Netns {
    name: String,
}

impl Netns {
    /// Creates the namespace `name` with its loopback up.
    pub fn add(name: &str) -> Result<Netns, String> {
        output(Command::new("ip").args(["netns", "add", name]))?;
        let ns = Netns {
            name: name.to_string(),
        };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `ip -n NAME ARGS…` (an iproute2 command inside the namespace).
    pub fn ip(&self, args: &[&str]) -> Result<String, String> {
        output(Command::new("ip").args(["-n", &self.name]).args(args))
    }

    /// `ip netns exec NAME PROGRAM`: a command that runs `program` inside the namespace (as
    /// the same process: `ip` enters the namespace and then executes it).
    pub fn exec(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.name]).arg(program);
        cmd
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        if let Err(e) = output(Command::new("ip").args(["netns", "del", &self.name])) {
            let _ = writeln!(std::io::stderr(), "could not delete netns: {e}");
        }
    }
}

/// Joins `a` and `b` with a veth pair (`a_if` in `a`, `b_if` in `b`), gives each end its
/// address (`10.x.y.z/24` form) and brings both up.
pub fn veth_pair(
    a: &Netns,
    a_if: &str,
    a_addr: &str,
    b: &Netns,
    b_if: &str,
    b_addr: &str,
) -> Result<(), String> {
    output(Command::new("ip").args([
        "link", "add", a_if, "netns", &a.name, "type", "veth", "peer", "name", b_if, "netns",
        &b.name,
    ]))?;
    for (ns, ifname, addr) in [(a, a_if, a_addr), (b, b_if, b_addr)] {
        ns.ip(&["addr", "add", addr, "dev", ifname])?;
        ns.ip(&["link", "set", ifname, "up"])?;
    }
    Ok(())
}

/// Runs `f` on a new thread that has entered the network namespace `ns` (`setns(2)` affects
/// only the calling thread), so the sockets `f` opens belong to that namespace.
pub fn in_netns<T: Send + 'static>(
    ns: &Netns,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let path = Path::new("/run/netns").join(&ns.name);
    let file =
        std::fs::File::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    std::thread::spawn(move || {
        use std::os::fd::AsRawFd;
        // SAFETY: setns(2) with a descriptor this thread owns (open until the end of the
        // closure) and a namespace type; it changes only this thread's network namespace.
        if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!("setns: {}", std::io::Error::last_os_error()));
        }
        Ok(f())
    })
    .join()
    .map_err(|_| "the thread in the namespace panicked".to_string())?
}

/// A fresh directory under the system's temporary directory; removed with its contents on
/// drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `<tmp>/<unique(prefix)>`.
    pub fn new(prefix: &str) -> TempDir {
        let path = std::env::temp_dir().join(unique(prefix));
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir { path }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
