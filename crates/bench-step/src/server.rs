//! servers.toml entries made runnable: whether each can run here, building the release
//! binaries a command needs, starting a server (pinned, in its own process group) until its
//! ready line, and stopping it, always.
//!
//! [`Env`] knows the workspace root and where binaries are (`target/release`, or `--bin-dir`).
//! [`availability`] says whether an entry can run. [`build`] runs `cargo build --release` for
//! the packages needed. [`start`] returns a [`Running`] guard; dropping it (on success, error,
//! or after a signal) stops the server's whole process group.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use manifest::{Manifest, Server};

use super::child::{self, collect, last_line, snapshot};
use super::pin::CpuSet;
use super::{procs, signals};

/// How long a server may take to print its ready line.
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server may take to stop after SIGTERM (the contract's 5 s grace, and a margin).
pub const STOP_GRACE: Duration = Duration::from_secs(6);

/// Where the workspace and its binaries are.
#[derive(Clone, Debug)]
pub struct Env {
    /// The workspace root (servers.toml, and the working directory of peers).
    pub root: PathBuf,
    /// Binaries given with `--bin-dir`: used as they are, nothing is built.
    pub bin_dir: Option<PathBuf>,
    /// A user's own file of `[[server]]` entries (`--servers-file`), read after servers.toml.
    pub servers_file: Option<PathBuf>,
}

impl Env {
    /// The workspace this harness was built in, with an optional `--bin-dir`.
    pub fn new(bin_dir: Option<PathBuf>) -> Env {
        // Children run from the root, so a relative --bin-dir is made absolute here.
        let bin_dir = bin_dir.map(|d| std::path::absolute(&d).unwrap_or(d));
        Env {
            root: manifest::workspace_root(),
            bin_dir,
            servers_file: None,
        }
    }

    /// The same, with the entries of `file` (`--servers-file`) beside servers.toml's.
    pub fn with_servers_file(mut self, file: Option<PathBuf>) -> Env {
        self.servers_file = file;
        self
    }

    /// The manifest at the root, and the `--servers-file` after it, as every tool reads it
    /// (`conformance::suite::load_manifest`); a manifest that does not load is a
    /// [`Error::BadInput`](crate::error::Error::BadInput) (exit status 2), one line naming the file and field.
    pub fn manifest(&self) -> anyhow::Result<Manifest> {
        let root = self.root.join("servers.toml");
        let mut files = vec![root.as_path()];
        files.extend(self.servers_file.as_deref());
        conformance::suite::load_manifest(&files).map_err(crate::error::bad)
    }

    /// The folder binaries come from.
    pub fn binaries(&self) -> PathBuf {
        if let Some(dir) = &self.bin_dir {
            return dir.clone();
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map(|t| {
                if t.is_absolute() {
                    t
                } else {
                    self.root.join(t)
                }
            })
            .unwrap_or_else(|| self.root.join("target"));
        target.join("release")
    }

    /// The binary of cargo package `package`.
    pub fn binary(&self, package: &str) -> PathBuf {
        self.binaries().join(package)
    }

    /// Whether binaries are built here (no `--bin-dir`).
    pub fn builds(&self) -> bool {
        self.bin_dir.is_none()
    }
}

/// Whether an entry can run here, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    /// The binary exists (Rust), or everything a peer needs was found.
    Ready(String),
    /// Not built yet, but `cargo build --release` makes it.
    Buildable,
    /// It cannot run here, for this reason.
    Missing(String),
}

impl Availability {
    /// Whether a run can use it (after a build if needed).
    pub fn runnable(&self) -> bool {
        !matches!(self, Availability::Missing(_))
    }
}

/// Whether `server` can run here.
pub fn availability(server: &Server, env: &Env) -> Availability {
    match &server.package {
        Some(package) => {
            let bin = env.binary(package);
            if bin.is_file() {
                Availability::Ready(format!("built: {}", shown(&bin, &env.root)))
            } else if env.builds() {
                Availability::Buildable
            } else {
                Availability::Missing(format!("no binary {}", bin.display()))
            }
        }
        None => {
            let missing = server.missing(&env.root);
            if missing.is_empty() {
                Availability::Ready(format!(
                    "runtime found: {}",
                    server.runtime.as_deref().unwrap_or("?")
                ))
            } else {
                Availability::Missing(missing.join("; "))
            }
        }
    }
}

/// `path` relative to `root` when inside it.
pub fn shown(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Builds the release binaries of `packages` (`cargo build --release -p …`) unless binaries
/// come from `--bin-dir`, in which case each must exist. `on_wait` is called while cargo runs.
pub fn build(env: &Env, packages: &[String], on_wait: impl FnMut()) -> anyhow::Result<()> {
    if !env.builds() {
        for p in packages {
            let bin = env.binary(p);
            if !bin.is_file() {
                bail!("no binary {} (from --bin-dir)", bin.display());
            }
        }
        return Ok(());
    }
    if packages.is_empty() {
        return Ok(());
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut argv: Vec<String> = vec![cargo, "build".into(), "--release".into(), "--quiet".into()];
    for p in packages {
        argv.extend(["-p".to_string(), p.clone()]);
    }
    // No time limit; on a signal cargo gets 2 s to stop before its group is killed.
    let out = child::run_child(
        &argv,
        &env.root,
        None,
        Duration::MAX,
        Duration::from_secs(2),
        false,
        on_wait,
    )
    .map_err(|f| f.into_error("cargo build"))?;
    let status = out.status;
    if !status.success() {
        let text = &out.stderr;
        let line = text
            .lines()
            .find(|l| l.starts_with("error"))
            .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("no output");
        bail!(
            "cargo build --release -p {} failed ({status}): {line}",
            packages.join(" -p ")
        );
    }
    Ok(())
}

/// A server the harness started; dropping it stops its process group.
pub struct Running {
    /// Its servers.toml name.
    pub name: String,
    /// The address from its ready line.
    pub addr: SocketAddr,
    /// The command that started it.
    pub command: Vec<String>,
    child: Child,
    stderr: Arc<Mutex<Vec<u8>>>,
    stopped: bool,
}

impl Running {
    /// The server's PID (the root of its process tree).
    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).unwrap_or(0)
    }

    /// Whether it is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Its stderr so far, last line (for error messages).
    pub fn last_stderr(&self) -> Option<String> {
        last_line(&snapshot(&self.stderr)).map(str::to_string)
    }

    /// Stops its process group (SIGTERM, then SIGKILL after [`STOP_GRACE`]); returns the PIDs
    /// still there afterwards (none, normally).
    pub fn stop(&mut self) -> Vec<i32> {
        self.stopped = true;
        procs::stop_group(&mut self.child, STOP_GRACE)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.stopped {
            // A quicker stop on the error path: nothing is measured any more.
            self.stopped = true;
            procs::stop_group(&mut self.child, Duration::from_secs(2));
        }
    }
}

/// The command line that starts `server` on `addr`. A peer's `{cpus}` is the number of CPUs
/// it will be pinned to (`cpus`), as a Rust variant's own CPU count is under the same pinning;
/// with `workers` (`bench run --workers N`) it is N, and a Rust variant gets `--workers N`.
pub fn command(
    server: &Server,
    env: &Env,
    addr: &str,
    cpus: Option<&CpuSet>,
    workers: Option<usize>,
) -> anyhow::Result<Vec<String>> {
    let mut server = server.clone();
    let n = match (workers, cpus) {
        (Some(w), _) => Some(w.max(1)),
        (None, Some(cpus)) => Some(cpus.0.len().max(1)),
        (None, None) => None,
    };
    if let (Some(command), Some(n)) = (server.command.as_mut(), n) {
        for arg in command.iter_mut() {
            *arg = arg.replace("{cpus}", &n.to_string());
        }
    }
    match &server.package {
        Some(package) => {
            let mut argv = vec![
                env.binary(package).display().to_string(),
                "--addr".into(),
                addr.into(),
            ];
            if let Some(w) = workers {
                argv.extend(["--workers".into(), w.max(1).to_string()]);
            }
            Ok(argv)
        }
        None => server
            .argv(&env.root, addr)
            .ok_or_else(|| anyhow!("{} has no command", server.name)),
    }
}

/// Starts `server` on 127.0.0.1:`port` (0: a free port), pinned to `cpus`, from the
/// workspace root, and waits for its ready line.
pub fn start(
    server: &Server,
    env: &Env,
    port: u16,
    cpus: Option<&CpuSet>,
) -> anyhow::Result<Running> {
    start_with(server, env, port, cpus, None)
}

/// [`start`] with `workers` workers instead of the server's default (see [`command`]).
pub fn start_with(
    server: &Server,
    env: &Env,
    port: u16,
    cpus: Option<&CpuSet>,
    workers: Option<usize>,
) -> anyhow::Result<Running> {
    let argv = command(server, env, &format!("127.0.0.1:{port}"), cpus, workers)?;
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| anyhow!("{}: empty command", server.name))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&env.root)
        .env_remove("ADDR")
        .env_remove("PORT")
        .env_remove("AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    procs::prepare(&mut cmd, cpus);
    let mut child = procs::spawn(&mut cmd)
        .map_err(|e| anyhow!("{} did not start: cannot run {program}: {e}", server.name))?;
    let stderr = collect(child.stderr.take());
    let rx = match child.stdout.take() {
        Some(stdout) => serve::process::read_first_line(stdout),
        // No pipe: the wait below sees a closed channel, as at EOF.
        None => mpsc::channel().1,
    };
    let mut running = Running {
        name: server.name.clone(),
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        command: argv.clone(),
        child,
        stderr,
        stopped: false,
    };
    let deadline = Instant::now() + READY_TIMEOUT;
    let line = loop {
        signals::check()?;
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => break line,
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(mpsc::RecvTimeoutError::Timeout) => bail!(
                "{} did not start: no ready line within {} s",
                server.name,
                READY_TIMEOUT.as_secs()
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => break String::new(),
        }
    };
    if let Some(addr) = serve::ready::parse(&line) {
        running.addr = addr;
        return Ok(running);
    }
    // No ready line: say why, in the server's own words when it gave any.
    let status = wait_briefly(&mut running.child, Duration::from_secs(2));
    std::thread::sleep(Duration::from_millis(50));
    let why = match (status, line.trim()) {
        (Some(s), "") => format!("it exited before it was ready ({s})"),
        (None, "") => "it closed its stdout without a ready line".to_string(),
        (_, l) => format!(
            "expected `{}HOST:PORT` as its first line, got {l:?}",
            serve::ready::PREFIX
        ),
    };
    match running.last_stderr() {
        Some(err) => bail!("{} did not start: {why}: {err}", server.name),
        None => bail!("{} did not start: {why}", server.name),
    }
}

fn wait_briefly(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

/// The servers a command names, or by default those `keep` accepts; every named one must
/// exist (one error line naming the unknown one and the known ones otherwise).
pub fn select<'m>(
    manifest: &'m Manifest,
    names: &[String],
    keep: impl Fn(&Server) -> bool,
) -> anyhow::Result<Vec<&'m Server>> {
    if names.is_empty() {
        return Ok(manifest.servers.iter().filter(|s| keep(s)).collect());
    }
    names
        .iter()
        .map(|n| {
            manifest.get(n).ok_or_else(|| {
                let known: Vec<&str> = manifest.servers.iter().map(|s| s.name.as_str()).collect();
                anyhow!(
                    "unknown server {n:?} (servers.toml lists {})",
                    known.join(", ")
                )
            })
        })
        .collect()
}
