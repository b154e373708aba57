//! Test support: the real `server-hyper` binary as a child process (killed on drop), a raw
//! TCP client and its responses read with the conformance suite's wire parser.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use conformance::wire::excerpt;
use serve::process::ServerProcess;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_server-hyper");

/// A running server: the real binary through the shared [`ServerProcess`] (killed and
/// reaped on drop), with the address from its ready line.
pub struct Server {
    pub process: ServerProcess,
    pub addr: SocketAddr,
}

impl Server {
    /// Starts the binary on 127.0.0.1:0 with `extra` flags and waits for its ready line.
    pub fn start(extra: &[&str]) -> Server {
        let process = ServerProcess::start(BIN, extra).unwrap_or_else(|e| panic!("{BIN}: {e}"));
        let addr = process.addr();
        assert_ne!(addr.port(), 0);
        Server { process, addr }
    }

    /// Starts a fully prepared command (own flags and environment) and waits for its ready line.
    pub fn spawn(cmd: std::process::Command) -> Server {
        let process = ServerProcess::spawn(cmd, serve::process::READY_TIMEOUT)
            .unwrap_or_else(|e| panic!("{BIN}: {e}"));
        let addr = process.addr();
        Server { process, addr }
    }

    /// A new connection with read/write timeouts.
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(15))).unwrap();
        s
    }

    /// Sends `bytes` on a new connection, half-closes nothing, and reads until the server
    /// closes (or 15 s pass).
    pub fn exchange_until_close(&self, bytes: &[u8]) -> (Vec<u8>, bool) {
        let mut s = self.connect();
        s.write_all(bytes).unwrap();
        read_to_close(&mut s)
    }

    /// Sends `signal` to the server process.
    pub fn signal(&mut self, signal: i32) {
        self.process.signal(signal).expect("kill");
    }

    /// Waits up to `limit` for the process to exit; its exit code.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        self.process.wait_exit(limit).and_then(|s| s.code())
    }
}

/// Reads until EOF (`true`), a reset (`true`) or the read timeout (`false`).
///
/// Raw bytes on purpose, not the wire parser: the callers judge the close itself and what
/// came before it, which may be nothing or not a response at all (an HTTP/2 preface).
pub fn read_to_close(s: &mut TcpStream) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (out, true),
            Err(_) => return (out, false),
        }
    }
}

/// One parsed response.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status_line: String,
    pub status: u16,
    /// Field names lowercased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut it = self.headers.iter().filter(|(n, _)| n == name);
        let v = it.next().map(|(_, v)| v.as_str());
        assert!(it.next().is_none(), "{name} twice in {self:?}");
        v
    }

    /// The field names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        v.sort_unstable();
        v
    }

    /// Asserts the exact field set and the date's form.
    pub fn assert_names(&self, expected: &[&str]) {
        let mut e = expected.to_vec();
        e.sort_unstable();
        assert_eq!(self.names(), e, "{self:?}");
        let date = self.header("date").unwrap();
        assert!(httpdate_like(date), "bad date {date:?}");
    }
}

fn httpdate_like(s: &str) -> bool {
    s.len() == 29 && s.ends_with(" GMT") && s.as_bytes()[3] == b','
}

/// Parses every complete response in `bytes`; `head_only` says the body is absent (HEAD).
/// Panics on anything malformed or trailing.
pub fn parse_all(mut bytes: &[u8], head_only: bool) -> Vec<Resp> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (r, used) = parse_one(bytes, head_only);
        out.push(r);
        bytes = &bytes[used..];
    }
    out
}

/// Parses one response from the start of `bytes` with the conformance suite's wire parser;
/// returns it and the bytes it used.
pub fn parse_one(bytes: &[u8], head_only: bool) -> (Resp, usize) {
    let parsed = conformance::wire::parse_response(bytes, head_only, false);
    let Ok(Some((r, used))) = parsed else {
        panic!(
            "not one complete response: {parsed:?} in {:?}",
            String::from_utf8_lossy(bytes)
        );
    };
    (resp(r), used)
}

/// The test's view of a wire response: names lowercased, every answer with a `content-length`.
fn resp(r: conformance::wire::Response) -> Resp {
    let head = std::str::from_utf8(&r.raw[..r.head_len()]).expect("head is UTF-8");
    let status_line = head.split("\r\n").next().unwrap_or_default().to_string();
    let r = Resp {
        status_line,
        status: r.status,
        headers: r
            .headers
            .into_iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v))
            .collect(),
        body: r.body,
    };
    assert!(
        r.header("content-length").is_some(),
        "no content-length: {r:?}"
    );
    r
}

/// Sends one request on `s` and reads exactly one response (keeping the connection).
pub fn roundtrip(s: &mut TcpStream, req: &[u8], head_only: bool) -> Resp {
    s.write_all(req).unwrap();
    read_one(s, head_only)
}

/// Reads exactly one response from `s`.
pub fn read_one(s: &mut TcpStream, head_only: bool) -> Resp {
    read_n(s, 1, head_only).pop().unwrap()
}

/// Reads exactly `n` responses from `s` (pipelined answers may arrive in one segment), and
/// asserts nothing follows them in what was read.
pub fn read_n(s: &mut TcpStream, n: usize, head_only: bool) -> Vec<Resp> {
    let all = conformance::wire::read_exact(s, n, |_| head_only)
        .unwrap_or_else(|e| panic!("{n} responses: {e}: {}", excerpt(e.received(), 500)));
    all.into_iter().map(resp).collect()
}

/// `GET path` as an HTTP/1.1 request with a Host field.
pub fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").into_bytes()
}
