//! The supervisor: starts the worker processes, says when they all listen, keeps them alive,
//! and stops them on SIGINT/SIGTERM.
//!
//! It resolves the address once with a probe bind (port 0 becomes a real port, a taken port is
//! a one-line exit 2), then starts each worker by re-executing its own image
//! (`/proc/self/exe`) with `--worker-of <own PID> --addr <resolved address>`. A worker's stdout
//! is a pipe read here: its ready line says it listens. Once all have said so, the supervisor
//! prints its own ready line. From then on a 50 ms tick reaps dead workers and restarts each
//! after a [`Backoff`] delay, with one line on stderr. SIGINT or SIGTERM is forwarded to every
//! worker; they get the contract's grace period plus a margin, then SIGKILL; all are reaped,
//! and the supervisor exits 0.
//!
//! Workers are always spawned from the thread that runs [`run`] (a current-thread runtime
//! on the main thread), because `PR_SET_PDEATHSIG` fires when the *thread* that forked a
//! worker ends, not only when the process does.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use contract::body::SHUTDOWN_GRACE;
use serve::config::{self, ConfigError};
use serve::net::{self, BindError};
use serve::signal::{self, Signal, Signals};
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::mpsc;

use crate::cli::{Cli, Engine};

/// How long the workers may take to listen at start-up.
pub const STARTUP_LIMIT: Duration = Duration::from_secs(30);

/// How long stopping workers get after the forwarded signal before they are killed: the
/// contract's grace period plus a margin for the process to exit.
pub const STOP_LIMIT: Duration = SHUTDOWN_GRACE.saturating_add(Duration::from_secs(2));

/// How often dead workers are looked for.
const TICK: Duration = Duration::from_millis(50);

/// The delay before restarting a worker: `first`, doubled after each failure in a row, at most
/// `max`; a worker that ran at least `stable_after` starts the count again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    stable_after: Duration,
    failures: u32,
}

impl Default for Backoff {
    /// 100 ms, doubling to at most 10 s; a worker that ran 10 s counts as healthy.
    fn default() -> Backoff {
        Backoff::new(
            Duration::from_millis(100),
            Duration::from_secs(10),
            Duration::from_secs(10),
        )
    }
}

impl Backoff {
    /// A backoff starting at `first`, at most `max`, reset by a run of `stable_after`.
    pub const fn new(first: Duration, max: Duration, stable_after: Duration) -> Backoff {
        Backoff {
            first,
            max,
            stable_after,
            failures: 0,
        }
    }

    /// The delay before restarting a worker that ended after running for `ran`.
    pub fn next(&mut self, ran: Duration) -> Duration {
        if ran >= self.stable_after {
            self.failures = 0;
        }
        let delay = self
            .first
            .saturating_mul(1 << self.failures.min(20))
            .min(self.max);
        self.failures = self.failures.saturating_add(1);
        delay
    }
}

/// Why the supervisor could not start serving.
#[derive(Debug)]
pub enum StartError {
    /// Bad `--addr`, `--workers`, `ADDR`, `PORT` or `AUTH_TOKEN`.
    Config(ConfigError),
    /// The address is taken or cannot be bound.
    Bind(BindError),
    /// A worker process could not be started.
    Spawn(io::Error),
    /// A worker ended before it listened.
    Exited {
        /// Which worker.
        slot: usize,
        /// How it ended.
        status: ExitStatus,
    },
    /// Not every worker listened within [`STARTUP_LIMIT`].
    Timeout,
    /// The runtime or the signal handlers could not be set up.
    Runtime(io::Error),
}

impl StartError {
    /// Whether the error was already explained on stderr, by the worker itself (a worker that
    /// fails to start prints one line and exits 2), so the supervisor adds nothing.
    pub fn already_reported(&self) -> bool {
        matches!(self, StartError::Exited { status, .. } if status.code() == Some(2))
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Config(e) => e.fmt(f),
            StartError::Bind(e) => e.fmt(f),
            StartError::Spawn(e) => write!(f, "cannot start a worker process: {e}"),
            StartError::Exited { slot, status } => {
                write!(f, "worker {slot} ended before it listened ({status})")
            }
            StartError::Timeout => write!(
                f,
                "the workers did not all listen within {} s",
                STARTUP_LIMIT.as_secs()
            ),
            StartError::Runtime(e) => write!(f, "cannot set up the supervisor: {e}"),
        }
    }
}

impl std::error::Error for StartError {}

/// Runs the supervisor for `cli` and returns the exit code: 0 after SIGINT/SIGTERM (every
/// worker reaped), 2 for a bad start (one line on stderr).
pub fn run(cli: &Cli) -> ExitCode {
    match try_run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.already_reported() {
                config::fail(&e);
            }
            match e {
                StartError::Runtime(_) => ExitCode::FAILURE,
                _ => ExitCode::from(2),
            }
        }
    }
}

fn try_run(cli: &Cli) -> Result<(), StartError> {
    let config = cli
        .server
        .resolve(config::cpu_count())
        .map_err(StartError::Config)?;
    let raised = net::raise_nofile_limit();
    let addr = net::probe(config.addr).map_err(StartError::Bind)?;
    if let Err(e) = raised {
        // Not fatal: fewer connections fit. Said only once the start is known to be good.
        config::fail(format!("warning: cannot raise RLIMIT_NOFILE: {e}"));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(StartError::Runtime)?;
    runtime.block_on(async {
        // Handlers first, so a signal during start-up is a clean stop, not the default action.
        let signals = signal::recv_registered().map_err(StartError::Runtime)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let supervisor = Supervisor {
            addr,
            engine: cli.engine,
            me: std::process::id(),
            arg0: std::env::args_os()
                .next()
                .unwrap_or_else(|| "server-reuseport".into()),
            slots: (0..config.workers).map(|_| Slot::default()).collect(),
            announced: tx,
        };
        supervisor.supervise(signals, rx).await
    })
}

/// A worker's ready line (or its absence) as read from its stdout.
#[derive(Debug)]
struct Announced {
    slot: usize,
    pid: u32,
    ready: bool,
}

/// One worker position: the process in it (if running) and its restart schedule.
#[derive(Debug)]
struct Slot {
    child: Option<Child>,
    started: Instant,
    restart_at: Option<Instant>,
    backoff: Backoff,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            child: None,
            started: Instant::now(),
            restart_at: None,
            backoff: Backoff::default(),
        }
    }
}

struct Supervisor {
    addr: SocketAddr,
    engine: Engine,
    me: u32,
    arg0: OsString,
    slots: Vec<Slot>,
    announced: mpsc::UnboundedSender<Announced>,
}

impl Supervisor {
    async fn supervise(
        mut self,
        signals: Signals,
        mut announced: mpsc::UnboundedReceiver<Announced>,
    ) -> Result<(), StartError> {
        let signal = signals.recv();
        tokio::pin!(signal);
        for slot in 0..self.slots.len() {
            if let Err(e) = self.spawn(slot) {
                self.stop(libc::SIGTERM).await;
                return Err(StartError::Spawn(e));
            }
        }
        let mut waiting = self.slots.len();
        let mut tick = tokio::time::interval(TICK);
        let deadline = tokio::time::sleep(STARTUP_LIMIT);
        tokio::pin!(deadline);
        while waiting > 0 {
            tokio::select! {
                // Signals first: a worker ended by the same signal (Ctrl-C reaches the whole
                // process group) is a shutdown, not a failure to report or restart.
                biased;
                s = &mut signal => {
                    self.stop(signal_number(s)).await;
                    return Ok(());
                }
                Some(a) = announced.recv() => {
                    // A worker that closes its stdout without the line is about to end: the
                    // tick below sees it.
                    if a.ready && self.is_current(a.slot, a.pid) {
                        waiting -= 1;
                    }
                }
                _ = tick.tick() => {
                    if let Some((slot, status)) = self.first_ended() {
                        self.stop(libc::SIGTERM).await;
                        return Err(StartError::Exited { slot, status });
                    }
                }
                () = &mut deadline => {
                    self.stop(libc::SIGTERM).await;
                    return Err(StartError::Timeout);
                }
            }
        }
        if let Err(e) = serve::ready::announce(self.addr) {
            self.stop(libc::SIGTERM).await;
            return Err(StartError::Runtime(e));
        }
        loop {
            tokio::select! {
                biased;
                s = &mut signal => break self.stop(signal_number(s)).await,
                // A restarted worker listens again: nothing to do.
                Some(_) = announced.recv() => {}
                _ = tick.tick() => self.tend(),
            }
        }
        Ok(())
    }

    /// Starts the worker process of `slot`, and a task that reads its ready line.
    fn spawn(&mut self, slot: usize) -> io::Result<()> {
        // `/proc/self/exe` is this very image even if the file was replaced or deleted since,
        // so a restarted worker always runs the supervisor's own code.
        let mut child = Command::new("/proc/self/exe")
            .arg0(&self.arg0)
            .arg("--worker-of")
            .arg(self.me.to_string())
            .arg("--addr")
            .arg(self.addr.to_string())
            .arg("--engine")
            .arg(self.engine.flag())
            .env_remove("ADDR")
            .env_remove("PORT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let pid = child.id();
        let stdout = child.stdout.take().map(OwnedFd::from);
        let s = &mut self.slots[slot];
        s.child = Some(child);
        s.started = Instant::now();
        s.restart_at = None;
        let tx = self.announced.clone();
        tokio::spawn(async move {
            let ready = match stdout {
                Some(fd) => read_ready_line(fd).await,
                None => false,
            };
            let _ = tx.send(Announced { slot, pid, ready });
        });
        Ok(())
    }

    fn is_current(&self, slot: usize, pid: u32) -> bool {
        self.slots[slot]
            .child
            .as_ref()
            .is_some_and(|c| c.id() == pid)
    }

    /// The first worker found to have ended (it is reaped).
    fn first_ended(&mut self) -> Option<(usize, ExitStatus)> {
        self.slots.iter_mut().enumerate().find_map(|(i, s)| {
            let status = s.child.as_mut()?.try_wait().ok()??;
            s.child = None;
            Some((i, status))
        })
    }

    /// Reaps ended workers (one line each on stderr) and restarts those whose delay is over.
    fn tend(&mut self) {
        let now = Instant::now();
        for slot in 0..self.slots.len() {
            let s = &mut self.slots[slot];
            if let Some(child) = &mut s.child
                && let Ok(Some(status)) = child.try_wait()
            {
                let pid = child.id();
                s.child = None;
                let delay = s.backoff.next(s.started.elapsed());
                s.restart_at = Some(now + delay);
                config::fail(format!(
                    "worker {slot} (pid {pid}) ended ({status}); restarting it in {} ms",
                    delay.as_millis()
                ));
            }
            if s.child.is_none()
                && s.restart_at.is_some_and(|t| t <= now)
                && let Err(e) = self.spawn(slot)
            {
                let s = &mut self.slots[slot];
                let delay = s.backoff.next(Duration::ZERO);
                s.restart_at = Some(now + delay);
                config::fail(format!(
                    "cannot restart worker {slot}: {e}; trying again in {} ms",
                    delay.as_millis()
                ));
            }
        }
    }

    /// Sends `signo` to every worker, waits at most [`STOP_LIMIT`] for them to end, kills the
    /// rest, and reaps them all.
    async fn stop(&mut self, signo: libc::c_int) {
        for s in &mut self.slots {
            s.restart_at = None;
            if let Some(child) = &s.child {
                let Ok(pid) = libc::pid_t::try_from(child.id()) else {
                    continue;
                };
                // SAFETY: kill(2) on a child this process started and has not reaped yet, so
                // the PID cannot have been reused by another process.
                unsafe { libc::kill(pid, signo) };
            }
        }
        let deadline = Instant::now() + STOP_LIMIT;
        loop {
            for s in &mut self.slots {
                if let Some(child) = &mut s.child
                    && !matches!(child.try_wait(), Ok(None))
                {
                    s.child = None;
                }
            }
            if self.slots.iter().all(|s| s.child.is_none()) {
                return;
            }
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for s in &mut self.slots {
            if let Some(mut child) = s.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// Reads a worker's first stdout line: `true` if it is the ready line.
async fn read_ready_line(fd: OwnedFd) -> bool {
    let Ok(pipe) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) else {
        return false;
    };
    let mut line = String::new();
    let mut reader = tokio::io::BufReader::new(pipe);
    matches!(reader.read_line(&mut line).await, Ok(n) if n > 0)
        && serve::ready::parse(&line).is_some()
}

fn signal_number(s: Signal) -> libc::c_int {
    match s {
        Signal::Interrupt => libc::SIGINT,
        Signal::Terminate => libc::SIGTERM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_caps_and_resets_after_a_healthy_run() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(100), ms(1000), Duration::from_secs(10));
        let quick = ms(50);
        let delays: Vec<u128> = (0..6).map(|_| b.next(quick).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(b.next(Duration::from_secs(10)), ms(100));
        assert_eq!(b.next(quick), ms(200));
        // Many failures in a row never overflow.
        for _ in 0..100 {
            assert!(b.next(quick) <= ms(1000));
        }
    }

    #[test]
    fn a_worker_that_explained_itself_is_not_reported_twice() {
        use std::os::unix::process::ExitStatusExt as _;
        let exited = |raw| StartError::Exited {
            slot: 0,
            status: ExitStatus::from_raw(raw),
        };
        assert!(exited(2 << 8).already_reported());
        assert!(!exited(1 << 8).already_reported());
        assert!(!exited(libc::SIGKILL).already_reported());
        assert!(!StartError::Timeout.already_reported());
    }
}
