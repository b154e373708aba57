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
    /// Its CPU time at exit, seconds: its own and that of the children it waited for, from
    /// the kernel's rusage of the exit (wait4). It holds what the last reading of `usage`
    /// could not see (the time between that reading and the exit); `None` when not read.
    pub cpu_s: Option<f64>,
}

impl Output {
    /// All the CPU its tree used while it ran, seconds: the exit's rusage, or the readings'
    /// total where that is more (a child it never waited for) or the only one.
    pub fn whole_cpu_s(&self) -> f64 {
        let read = self.usage.as_ref().map_or(0.0, |s| s.usage().cpu_s);
        self.cpu_s.map_or(read, |c| c.max(read))
    }
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
        match wait_nohang(&child) {
            Ok(Some(ended)) => break ended,
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
    let (status, cpu_s) = status;
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
        cpu_s: Some(cpu_s),
    })
}

/// Whether `child` has exited, reaping it if so: its exit status and its CPU time (user and
/// system, its own and its waited-for children's) from wait4's rusage. `std`'s `try_wait`
/// gives no rusage; after this has reaped the child, `std` must not wait for it again (no
/// caller does: the pipes are already taken and the group is only signalled).
fn wait_nohang(child: &std::process::Child) -> std::io::Result<Option<(ExitStatus, f64)>> {
    use std::os::unix::process::ExitStatusExt;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4(2) writes the status and the rusage into the two locals it is given.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, libc::WNOHANG, &mut usage) };
    match pid {
        0 => Ok(None),
        p if p < 0 => Err(std::io::Error::last_os_error()),
        _ => {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            Ok(Some((
                ExitStatus::from_raw(status),
                secs(usage.ru_utime) + secs(usage.ru_stime),
            )))
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_cpu_is_read_to_its_exit() {
        // A busy loop for 0.3 s under a shell that waits for it, then the exit: the readings
        // every 100 ms miss what ran after the last of them; the exit's rusage does not.
        let argv: Vec<String> = ["sh", "-c", "timeout 0.3 sh -c 'while :; do :; done'; true"]
            .map(String::from)
            .to_vec();
        let out = run(
            &argv,
            std::path::Path::new("."),
            None,
            Duration::from_secs(10),
            || {},
        )
        .unwrap();
        assert!(out.status.success(), "{out:?}");
        let at_exit = out.cpu_s.expect("rusage read at the exit");
        let read = out.usage.as_ref().map_or(0.0, |s| s.usage().cpu_s);
        // One loop for 0.3 s (less when other tests share the CPU); never more than its wall.
        assert!(at_exit > 0.05 && at_exit <= 0.5, "{at_exit} {out:?}");
        // The readings are of the same time, cut short: never more than a tick above it.
        assert!(read <= at_exit + 0.02, "{read} > {at_exit}");
        assert_eq!(out.whole_cpu_s(), at_exit.max(read));
    }
}
