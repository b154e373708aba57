//! Starting the real binary and talking raw TCP to it, for the black-box tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

use conformance::wire::excerpt;
use serve::process::ServerProcess;

/// The server binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_server-prebuilt");

/// A running server: the real binary through the shared [`ServerProcess`] (killed and
/// reaped on drop), with the address from its ready line.
pub struct Server {
    pub process: ServerProcess,
    pub addr: SocketAddr,
}

impl Server {
    /// Starts the binary on a free loopback port with `args` and waits for its ready line.
    pub fn start(args: &[&str]) -> Server {
        let process = ServerProcess::start(BIN, args).unwrap_or_else(|e| panic!("{BIN}: {e}"));
        let addr = process.addr();
        Server { process, addr }
    }

    /// Starts a fully prepared command and waits for its ready line.
    pub fn spawn(cmd: Command) -> Server {
        let process = ServerProcess::spawn(cmd, serve::process::READY_TIMEOUT)
            .unwrap_or_else(|e| panic!("{BIN}: {e}"));
        let addr = process.addr();
        Server { process, addr }
    }

    pub fn pid(&self) -> i32 {
        self.process.pid() as i32
    }

    /// Sends `sig` to the server.
    pub fn signal(&mut self, sig: i32) {
        self.process.signal(sig).expect("kill");
    }

    /// Waits up to `limit` for the server to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        self.process.wait_exit(limit)
    }

    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        s.set_nodelay(true).unwrap();
        s
    }
}

/// One answer read back from the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub code: u16,
    pub version: u8,
    pub fields: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The test's view of a wire response. Every answer of this server must carry
/// `content-length`.
fn answer(r: conformance::wire::Response) -> Answer {
    assert!(
        r.header("content-length").is_some(),
        "no content-length: {r:?}"
    );
    Answer {
        code: r.status,
        version: r.version,
        fields: r
            .headers
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect(),
        body: r.body,
    }
}

/// Reads `count` answers (GET-framed unless `heads` says otherwise) from `s`, and asserts
/// nothing follows them in what was read.
pub fn read_answers(s: &mut TcpStream, count: usize, heads: &[bool]) -> Vec<Answer> {
    let head = |i: usize| heads.get(i).copied().unwrap_or(false);
    let all = conformance::wire::read_exact(s, count, head)
        .unwrap_or_else(|e| panic!("{count} answers: {e}: {}", excerpt(e.received(), 500)));
    all.into_iter().map(answer).collect()
}

/// Whether the server closes `s` (EOF or reset) within `limit`, reading and discarding.
pub fn closes_within(s: &mut TcpStream, limit: Duration) -> bool {
    s.set_read_timeout(Some(limit)).unwrap();
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// Sends `request`, reads one answer and checks that the server then closes.
pub fn answer_then_close(server: &Server, request: &[u8]) -> Answer {
    let mut s = server.connect();
    s.write_all(request).unwrap();
    let a = read_answers(&mut s, 1, &[]).remove(0);
    assert!(
        closes_within(&mut s, Duration::from_secs(5)),
        "still open after {a:?}"
    );
    a
}
