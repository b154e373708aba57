//! `bench idle`: what idle connections cost a server in memory. For each server it starts it,
//! reads the RSS of its whole process tree, opens N keep-alive connections that each complete
//! one `GET /hello` and then stay open without another byte, reads the RSS again, and closes
//! them. The E3 article's 10,000-connection step is about this: a server that holds many
//! connections must hold their state (a task, a buffer, a coroutine stack) for each.
//!
//! Nothing here is a copy of `bench run`: the server is started and stopped by
//! [`server::start`] and its guard, the RSS comes from [`sample::rss_kb`], and the answers are
//! framed by the conformance suite's wire parser.
//!
//! [`run_to`] also writes the figures as `idle-<UTC>.json` (schema `bench.idle/1`,
//! [`bench_model::results::idle`]) with its markdown report beside it ([`bench_report::idle`]).

use bench_model::results::Header;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::provenance;
use crate::step::server::{self, Env};
use crate::step::{sample, signals};
use bench_model::results::idle::{IdleResults, IdleServer, SCHEMA};
use bench_model::results::timestamp;
use bench_report::idle as report;
use bench_report::table::Table;

/// How long one connection may take to be answered.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the connections stay idle before the second reading (the server settles).
const SETTLE: Duration = Duration::from_millis(500);

/// One server's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Idle {
    /// Its servers.toml name.
    pub server: String,
    /// RSS of its process tree once ready, KiB.
    pub before_kb: u64,
    /// RSS with the connections open and idle, KiB.
    pub with_kb: u64,
    /// How many connections were open.
    pub connections: usize,
}

impl Idle {
    /// The memory each idle connection added, bytes (0 when the RSS did not grow).
    pub fn bytes_per_connection(&self) -> u64 {
        self.with_kb.saturating_sub(self.before_kb) * 1024 / self.connections.max(1) as u64
    }

    /// Its entry in the results file.
    pub fn entry(&self) -> IdleServer {
        IdleServer {
            name: self.server.clone(),
            before_kb: self.before_kb,
            with_kb: self.with_kb,
            bytes_per_connection: self.bytes_per_connection(),
        }
    }
}

/// Opens `n` connections to `addr`, each answered once on `GET /hello`, and returns them open.
pub fn open_idle(addr: SocketAddr, n: usize) -> anyhow::Result<Vec<TcpStream>> {
    let request = b"GET /hello HTTP/1.1\r\nHost: bench\r\n\r\n";
    let mut open = Vec::with_capacity(n);
    let mut buf = [0u8; 1024];
    for i in 0..n {
        if i % 256 == 0 {
            signals::check()?;
        }
        let mut s = TcpStream::connect_timeout(&addr, ANSWER_TIMEOUT)
            .with_context(|| format!("connection {} of {n}", i + 1))?;
        s.set_read_timeout(Some(ANSWER_TIMEOUT))?;
        s.write_all(request)
            .with_context(|| format!("writing on connection {}", i + 1))?;
        let mut have = Vec::new();
        loop {
            let got = s
                .read(&mut buf)
                .with_context(|| format!("reading the answer on connection {}", i + 1))?;
            if got == 0 {
                bail!("connection {} was closed without an answer", i + 1);
            }
            have.extend_from_slice(&buf[..got]);
            match conformance::wire::parse_response(&have, false, false) {
                Ok(Some((r, _))) if r.status == 200 => break,
                Ok(Some((r, _))) => {
                    bail!("GET /hello answered {} on connection {}", r.status, i + 1)
                }
                Ok(None) => {}
                Err(e) => bail!("connection {}: {e}", i + 1),
            }
        }
        open.push(s);
    }
    Ok(open)
}

/// `bench idle`: every named server (or every runnable one), `connections` idle connections
/// each, and the table on stdout. Returns the figures.
pub fn run(env: &Env, names: &[String], connections: usize) -> anyhow::Result<Vec<Idle>> {
    if connections == 0 {
        bail!("--connections must be at least 1");
    }
    let manifest = env.manifest()?;
    let runnable = crate::session::runnable(
        env,
        &manifest,
        names,
        |s| s.serves("/hello"),
        "server that serves /hello",
    )?;
    crate::session::build(env, &runnable, &[], false)?;

    let mut table = Table::new(&report::HEADER);
    let mut all = Vec::new();
    for s in runnable {
        let mut running = server::start(s, env, 0, None)?;
        std::thread::sleep(SETTLE);
        let before_kb = sample::rss_kb(running.pid());
        let open = open_idle(running.addr, connections)
            .with_context(|| format!("{} with {connections} connections", s.name))?;
        std::thread::sleep(SETTLE);
        let with_kb = sample::rss_kb(running.pid());
        if !running.alive() {
            bail!("{} exited while holding the connections", s.name);
        }
        drop(open);
        running.stop();
        let idle = Idle {
            server: s.name.clone(),
            before_kb,
            with_kb,
            connections,
        };
        table.row(report::cells(&idle.entry(), connections));
        all.push(idle);
    }
    crate::say!("{table}");
    Ok(all)
}

/// [`run`], then its results file: `idle-<UTC>.json` (schema `bench.idle/1`) in
/// `results_dir` with its markdown report beside it (`.md`), `command` being how the harness
/// was invoked. Returns the JSON's path.
pub fn run_to(
    env: &Env,
    names: &[String],
    connections: usize,
    results_dir: &Path,
    command: Vec<String>,
) -> anyhow::Result<PathBuf> {
    let started_utc = timestamp::utc_now();
    let figures = run(env, names, connections)?;
    let mut doc = IdleResults {
        header: Header {
            finished_utc: timestamp::utc_now(),
            versions: provenance::versions(),
            ..provenance::header(SCHEMA, started_utc, command, &env.root)
        },
        connections,
        servers: figures.iter().map(Idle::entry).collect(),
    };
    doc.relative_to(&env.root);
    let path = doc.write(results_dir).context("cannot write the results")?;
    bench_report::other::write_markdown_beside(&report::markdown_report(&doc), &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A fake server on 127.0.0.1 that answers each connection's first request with `answer`
    /// (or closes it unanswered when empty) and keeps the connection open; stops by itself
    /// once it has served `n` connections.
    fn fake(answer: &'static [u8], n: usize) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for conn in listener.incoming().take(n) {
                let Ok(mut c) = conn else { continue };
                let mut buf = [0u8; 512];
                let mut head = Vec::new();
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(k) => head.extend_from_slice(&buf[..k]),
                    }
                }
                if answer.is_empty() {
                    continue;
                }
                let _ = c.write_all(answer);
                held.push(c);
            }
            std::thread::sleep(Duration::from_secs(2));
        });
        addr
    }

    const HELLO: &[u8] =
        b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nHello, World";

    #[test]
    fn connections_are_opened_answered_once_and_held() {
        let open = open_idle(fake(HELLO, 20), 20).unwrap();
        assert_eq!(open.len(), 20);
        // Held: nothing more arrives on them.
        let mut s = &open[0];
        s.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut one = [0u8; 1];
        assert!(s.read(&mut one).is_err(), "a byte after the answer");
    }

    #[test]
    fn a_wrong_answer_or_none_is_an_error_naming_the_connection() {
        let not_found = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";
        let e = open_idle(fake(not_found, 1), 3).unwrap_err();
        assert_eq!(e.to_string(), "GET /hello answered 404 on connection 1");
        let e = open_idle(fake(b"", 1), 1).unwrap_err();
        assert_eq!(e.to_string(), "connection 1 was closed without an answer");
        let e = open_idle(fake(b"not http\r\n\r\n", 1), 1).unwrap_err();
        assert!(e.to_string().starts_with("connection 1: "), "{e}");
    }

    #[test]
    fn the_cost_of_a_connection_is_the_growth_over_the_count() {
        let idle = |before_kb, with_kb| Idle {
            server: "s".into(),
            before_kb,
            with_kb,
            connections: 10_000,
        };
        assert_eq!(idle(4_000, 14_000).bytes_per_connection(), 1_024);
        assert_eq!(idle(4_000, 3_900).bytes_per_connection(), 0);
        let e = idle(4_000, 14_000).entry();
        assert_eq!((e.name.as_str(), e.bytes_per_connection), ("s", 1_024));
    }
}
