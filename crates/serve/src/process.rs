//! A server binary as a child process, for tests and tools: start it, wait for its ready line
//! (`listening on http://HOST:PORT`), signal it, wait for its exit, and kill and reap it on drop
//! so that nothing is ever left behind, whatever the test does.
//!
//! Every server crate's integration tests, `bench` and `deploy` start a real binary through
//! [`ServerProcess`] (or read its first line with [`read_first_line`] and
//! [`ready::parse`](crate::ready::parse)) instead of keeping a copy of this logic each.

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long [`ServerProcess::start`] waits for the ready line.
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// Reads `stdout`'s first line (a ready line, or not) on a thread and sends it (empty at EOF),
/// then keeps draining it, so that a later write to stdout never meets a closed pipe.
pub fn read_first_line(stdout: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        let _ = io::copy(&mut reader, &mut io::sink());
    });
    rx
}

/// Why a server did not start.
#[derive(Debug)]
pub enum StartError {
    /// The program could not be run at all.
    Spawn(io::Error),
    /// It exited before printing its ready line.
    Exited(ExitStatus),
    /// No ready line came within the timeout.
    NoReadyLine(Duration),
    /// Its first line on stdout is not a ready line.
    BadReadyLine(String),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Spawn(e) => write!(f, "cannot start the server: {e}"),
            StartError::Exited(s) => write!(f, "the server exited before it was ready ({s})"),
            StartError::NoReadyLine(d) => {
                write!(f, "no ready line within {} s", d.as_secs())
            }
            StartError::BadReadyLine(l) => write!(
                f,
                "expected `{}HOST:PORT` as the first line, got {l:?}",
                crate::ready::PREFIX
            ),
        }
    }
}

impl std::error::Error for StartError {}

/// A running server process; killed (SIGKILL) and reaped when dropped if still running.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    /// Starts `program` with `--addr 127.0.0.1:0` and `args`, without the `ADDR`, `PORT` and
    /// `AUTH_TOKEN` of this process's environment, and waits for its ready line.
    pub fn start(program: impl AsRef<OsStr>, args: &[&str]) -> Result<ServerProcess, StartError> {
        let mut cmd = Command::new(program);
        cmd.args(["--addr", "127.0.0.1:0"])
            .args(args)
            .env_remove("ADDR")
            .env_remove("PORT")
            .env_remove("AUTH_TOKEN");
        ServerProcess::spawn(cmd, READY_TIMEOUT)
    }

    /// Starts a fully prepared command (its stdout is taken over to read the ready line; stdin
    /// is null, stderr inherited unless set) and waits up to `timeout` for the ready line.
    pub fn spawn(mut cmd: Command, timeout: Duration) -> Result<ServerProcess, StartError> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(StartError::Spawn)?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(StartError::Spawn(io::Error::other("no stdout pipe")));
        };
        let rx = read_first_line(stdout);
        let mut guard = ServerProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let line = match rx.recv_timeout(timeout) {
            Ok(line) => line,
            Err(_) => return Err(StartError::NoReadyLine(timeout)),
        };
        if line.is_empty() {
            // EOF on stdout: it exited (or closed stdout) without a ready line.
            let status = guard.wait_exit(Duration::from_secs(5));
            return Err(match status {
                Some(s) => StartError::Exited(s),
                None => StartError::BadReadyLine(line),
            });
        }
        guard.addr = crate::ready::parse(&line).ok_or(StartError::BadReadyLine(line))?;
        Ok(guard)
    }

    /// The address from the ready line.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The child process itself.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Sends `signal` (e.g. `libc::SIGTERM`) to the process, if it has not been reaped yet.
    pub fn signal(&mut self, signal: i32) -> io::Result<()> {
        if self.child.try_wait()?.is_some() {
            return Err(io::Error::other("the process has already exited"));
        }
        let pid = i32::try_from(self.child.id()).map_err(io::Error::other)?;
        // SAFETY: kill(2) on the PID of our own child, which has not been reaped (checked just
        // above), so the PID cannot have been reused by another process.
        if unsafe { libc::kill(pid, signal) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Waits up to `limit` for the process to exit and returns its status, or `None` if it
    /// is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_failures_are_reported() {
        let e = ServerProcess::start("/nonexistent/server", &[]).unwrap_err();
        assert!(matches!(e, StartError::Spawn(_)), "{e}");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exit 3"]);
        let e = ServerProcess::spawn(cmd, Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(e, StartError::Exited(s) if s.code() == Some(3)),
            "{e}"
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo hello; sleep 5"]);
        let e = ServerProcess::spawn(cmd, Duration::from_secs(5)).unwrap_err();
        assert!(matches!(e, StartError::BadReadyLine(_)), "{e}");
        let mut cmd = Command::new("sleep");
        cmd.arg("5");
        let e = ServerProcess::spawn(cmd, Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, StartError::NoReadyLine(_)), "{e}");
    }

    #[test]
    fn a_started_process_is_killed_on_drop() {
        let mut cmd = Command::new("sh");
        let line = crate::ready::ready_line(SocketAddr::from(([127, 0, 0, 1], 9)));
        cmd.args(["-c", &format!("echo {line}; exec sleep 30")]);
        let p = ServerProcess::spawn(cmd, Duration::from_secs(5)).unwrap();
        assert_eq!(p.addr().port(), 9);
        let pid = p.pid();
        drop(p);
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }
}
