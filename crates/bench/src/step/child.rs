//! A child the harness waits on: a load tool (the built-in generator, the `loadgen` binary
//! with `--json`, as much as wrk, ab, oha, k6 or autocannon), or `cargo build`, so that every tool is
//! pinned, bounded in time and killable alike. [`run`] spawns the argv
//! [`Tool::argv`](super::tools::Tool::argv) made, collects its stdout and stderr, samples the
//! CPU time of its whole process tree while it runs (the [`Sampler`] the server has, so the
//! tool's own CPU is measured the same way), polls for a signal and for its deadline, and
//! stops its process group on either. [`collect`] and
//! [`snapshot`] are the pipe readers, shared with the server start
//! ([`super::server::start`]).

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};

use super::pin::CpuSet;
use super::sample::{Sampler, Series};
use super::{SAMPLE_EVERY, procs, signals};

/// What a tool printed, and how it ended.
#[derive(Debug)]
pub struct Output {
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Its exit status.
    pub status: ExitStatus,
    /// When it was started.
    pub started: Instant,
    /// How long it ran.
    pub elapsed: Duration,
    /// What its process tree used while it ran (every thread's schedstat, read every
    /// [`SAMPLE_EVERY`]); `None` when not sampled (cargo) or never seen.
    pub usage: Option<Series>,
}

/// Why a tool run did not give an output to parse.
#[derive(Debug)]
pub enum Failure {
    /// It ran past its deadline and was killed.
    Overran(Duration),
    /// Anything else (it could not be spawned, waiting failed, a signal arrived).
    Other(anyhow::Error),
}

/// Runs `argv` on `cpus` from `cwd`, for at most `limit`; `tick` is called about every 100 ms
/// while it runs. The tool is stopped (its whole process group) on a signal or at the limit.
pub fn run(
    argv: &[String],
    cwd: &std::path::Path,
    cpus: Option<&CpuSet>,
    limit: Duration,
    tick: impl FnMut(),
) -> Result<Output, Failure> {
    run_child(argv, cwd, cpus, limit, Duration::ZERO, true, tick)
}

/// [`run`] for any child the harness waits on (a load tool, or `cargo build`): `grace` is how
/// long its group gets between SIGTERM and SIGKILL when it must be stopped; `sample` says
/// whether its process tree is sampled ([`Output::usage`]).
pub fn run_child(
    argv: &[String],
    cwd: &std::path::Path,
    cpus: Option<&CpuSet>,
    limit: Duration,
    grace: Duration,
    sample: bool,
    mut tick: impl FnMut(),
) -> Result<Output, Failure> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| Failure::Other(anyhow!("empty command")))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    procs::prepare(&mut cmd, cpus);
    let started = Instant::now();
    let mut child =
        procs::spawn(&mut cmd).map_err(|e| Failure::Other(anyhow!("cannot run {program}: {e}")))?;
    let sampler = sample.then(|| Sampler::start(child.id() as i32, SAMPLE_EVERY));
    let out = collect(child.stdout.take());
    let err = collect(child.stderr.take());
    let mut last_tick = Instant::now();
    let status = loop {
        if let Err(e) = signals::check() {
            procs::stop_group(&mut child, grace);
            return Err(Failure::Other(e.into()));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                procs::stop_group(&mut child, grace);
                return Err(Failure::Overran(limit));
            }
            Ok(None) => {}
            Err(e) => {
                procs::stop_group(&mut child, grace);
                return Err(Failure::Other(anyhow!("waiting for {program}: {e}")));
            }
        }
        if last_tick.elapsed() >= Duration::from_millis(100) {
            tick();
            last_tick = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    let usage = sampler.and_then(Sampler::finish);
    // The reader threads finish at EOF, just after the exit; give them a moment.
    let settle = Instant::now() + Duration::from_millis(500);
    while (Arc::strong_count(&out) > 1 || Arc::strong_count(&err) > 1) && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(Output {
        stdout: snapshot(&out),
        stderr: snapshot(&err),
        status,
        started,
        elapsed,
        usage,
    })
}

impl Failure {
    /// The failure as an error, for a step that cannot go on.
    pub fn into_error(self, what: &str) -> anyhow::Error {
        match self {
            Failure::Overran(limit) => anyhow!("{what} ran past {} s", limit.as_secs()),
            Failure::Other(e) => e,
        }
    }
}

/// Checks that `output` came from a successful run: a zero exit status.
pub fn succeeded(tool: &str, output: &Output) -> anyhow::Result<()> {
    if output.status.success() {
        return Ok(());
    }
    match last_line(&output.stderr) {
        Some(line) => bail!("{tool} failed ({}): {line}", output.status),
        None => bail!("{tool} failed ({})", output.status),
    }
}

/// Reads `source` on a thread into a shared buffer (the last MiB is kept).
pub fn collect(source: Option<impl Read + Send + 'static>) -> Arc<Mutex<Vec<u8>>> {
    let buf = Arc::new(Mutex::new(Vec::new()));
    if let Some(mut source) = source {
        let sink = Arc::clone(&buf);
        let _ = std::thread::Builder::new()
            .name("bench-collect".into())
            .spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(n) = source.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut b) = sink.lock() {
                        b.extend_from_slice(&chunk[..n]);
                        let over = b.len().saturating_sub(1 << 20);
                        b.drain(..over);
                    }
                }
            });
    }
    buf
}

/// What a [`collect`] buffer holds so far, as text.
pub fn snapshot(buf: &Arc<Mutex<Vec<u8>>>) -> String {
    buf.lock()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The last non-empty line of `text`, trimmed.
pub fn last_line(text: &str) -> Option<&str> {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty())
}
