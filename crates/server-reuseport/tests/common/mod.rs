//! Starting the real binary, finding its worker processes in /proc, and plain HTTP over TCP,
//! for the black-box tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};

use serve::process::{READY_TIMEOUT, ServerProcess};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The server binary under test: this crate's, or the one named by env
/// `SERVER_REUSEPORT_BIN` (to judge a release build: `target/release/server-reuseport`).
pub fn bin() -> String {
    std::env::var("SERVER_REUSEPORT_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_server-reuseport").to_string())
}

/// A running supervisor, started through the shared [`ServerProcess`]. Dropping it kills the
/// supervisor and then any of its workers still alive, each by PID.
pub struct Server {
    pub process: ServerProcess,
    pub addr: SocketAddr,
    /// The supervisor's stderr lines, when started with [`Server::start_capturing`].
    pub stderr: Arc<Mutex<Vec<String>>>,
    known_workers: BTreeSet<i32>,
}

impl Server {
    /// Starts the binary on a free loopback port with `args` and waits for its ready line.
    pub fn start(args: &[&str]) -> Server {
        Server::spawn(args, false)
    }

    /// [`Server::start`], collecting stderr lines in [`Server::stderr`].
    pub fn start_capturing(args: &[&str]) -> Server {
        Server::spawn(args, true)
    }

    fn spawn(args: &[&str], capture: bool) -> Server {
        let mut cmd = Command::new(bin());
        cmd.args(["--addr", "127.0.0.1:0"])
            .args(args)
            .env_remove("ADDR")
            .env_remove("PORT")
            .env_remove("AUTH_TOKEN");
        if capture {
            cmd.stderr(Stdio::piped());
        }
        let mut process =
            ServerProcess::spawn(cmd, READY_TIMEOUT).unwrap_or_else(|e| panic!("{}: {e}", bin()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(err) = process.child_mut().stderr.take() {
            let lines = Arc::clone(&stderr);
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    eprintln!("[server stderr] {line}");
                    lines.lock().unwrap().push(line);
                }
            });
        }
        let addr = process.addr();
        let mut server = Server {
            process,
            addr,
            stderr,
            known_workers: BTreeSet::new(),
        };
        server.workers();
        server
    }

    pub fn pid(&self) -> i32 {
        self.process.pid() as i32
    }

    /// The PIDs of the supervisor's live worker processes (remembered for the cleanup).
    pub fn workers(&mut self) -> BTreeSet<i32> {
        let found = workers_of(self.pid());
        self.known_workers.extend(&found);
        found
    }

    /// Sends `sig` to the supervisor.
    pub fn signal(&mut self, sig: i32) {
        self.process.signal(sig).expect("signal the supervisor");
    }

    /// Waits up to `limit` for the supervisor to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        self.process.wait_exit(limit)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let sup = self.pid();
        let child = self.process.child_mut();
        if child.try_wait().ok().flatten().is_none() {
            self.workers();
            // The supervisor first, so that it cannot replace the workers killed below.
            let child = self.process.child_mut();
            let _ = child.kill();
            let _ = child.wait();
        }
        // The workers die with their supervisor; this only cleans up after a failed test.
        for &pid in &self.known_workers {
            if is_worker_of(pid, sup) && !is_dead(pid) {
                // SAFETY: kill(2) on a process whose command line names it a worker of the
                // supervisor this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

/// `/proc/PID/stat` fields after the command name: state, then ppid.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether `pid` is gone, or every thread of it has ended (a zombie not yet reaped: it holds
/// no socket and runs no code; an orphan's zombie waits for whatever reaps orphans here).
/// The main thread alone is not enough: it can be a zombie while other threads still exit.
pub fn is_dead(pid: i32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return true;
    };
    tasks.flatten().all(|t| {
        let state = std::fs::read_to_string(t.path().join("stat"))
            .ok()
            .and_then(|text| {
                let rest = &text[text.rfind(')')? + 2..];
                rest.chars().next()
            });
        matches!(state, None | Some('Z' | 'X'))
    })
}

/// Whether `pid`'s command line is `… --worker-of SUPERVISOR …`.
pub fn is_worker_of(pid: i32, supervisor: i32) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let sup = supervisor.to_string();
    args.windows(2)
        .any(|w| w[0] == b"--worker-of" && w[1] == sup.as_bytes())
}

/// The live child processes of `supervisor` that are its workers.
pub fn workers_of(supervisor: i32) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((state, ppid)) = stat(pid)
            && ppid == supervisor
            && state != 'Z'
            && is_worker_of(pid, supervisor)
        {
            out.insert(pid);
        }
    }
    out
}

/// The inodes of the sockets listening on TCP `port` (IPv4 and IPv6), from /proc/net.
///
/// The kernel lists the listening sockets first, so reading stops at the first other line:
/// under load the tables also hold tens of thousands of connections, slow to list.
pub fn listening_inodes(port: u16) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(file) = std::fs::File::open(table) else {
            continue;
        };
        for line in BufReader::new(file).lines().skip(1) {
            let Ok(line) = line else { break };
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 10 || f[3] != "0A" {
                break;
            }
            let local_port = f[1]
                .rsplit(':')
                .next()
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port)
                && let Ok(inode) = f[9].parse()
            {
                out.insert(inode);
            }
        }
    }
    out
}

/// The inodes of the sockets `pid` holds open.
pub fn socket_inodes(pid: i32) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        if let Some(inode) = target
            .to_str()
            .and_then(|t| t.strip_prefix("socket:["))
            .and_then(|t| t.strip_suffix(']'))
            .and_then(|t| t.parse().ok())
        {
            out.insert(inode);
        }
    }
    out
}

/// The listening sockets on `port` that `pid` holds.
pub fn listeners_of(pid: i32, port: u16) -> BTreeSet<u64> {
    let listening = listening_inodes(port);
    socket_inodes(pid)
        .intersection(&listening)
        .copied()
        .collect()
}

/// One `GET path` on a new connection with `connection: close`: the whole answer, or the error
/// that ended it (connect, write, read, an answer that is not a 200, or no close after it).
pub fn get_once(addr: SocketAddr, path: &str, timeout: Duration) -> Result<Vec<u8>, String> {
    let req = format!("GET {path} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n");
    // Waiting for the server's close leaves the TIME_WAIT on its side, as a client that reads
    // to the end would: thousands of these in a row must not use up the client's ports.
    let (answer, closed) =
        conformance::wire::exchange(addr, req.as_bytes(), false, timeout, timeout).map_err(
            |e| match e.received() {
                [] => e.to_string(),
                got => format!("{e}: {:?}", String::from_utf8_lossy(got)),
            },
        )?;
    if !answer.raw.starts_with(b"HTTP/1.1 200 OK\r\n") {
        Err(format!(
            "answer: {:?}",
            String::from_utf8_lossy(&answer.raw)
        ))
    } else if !closed {
        Err("not closed after the answer".into())
    } else {
        Ok(answer.raw)
    }
}

/// Whether nothing accepts connections on `addr` any more.
pub fn refuses(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err()
}
