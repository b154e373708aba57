//! Test support: a small threaded HTTP/1.x server whose every answer a test chooses, the
//! real `server-hyper` engine in-process, and helpers to build configurations.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use loadgen::{Config, Mode};

/// A request as the test server saw it.
pub struct Req {
    /// Its index among all requests the server has seen, from 0.
    pub n: u64,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version: u8,
    /// Whether the client asked to keep the connection.
    pub keep_alive: bool,
    /// The request target.
    pub path: String,
}

/// What the server does with one request.
pub enum Action {
    /// Write these bytes (with the others of the same read), keep the connection as asked.
    Reply(Vec<u8>),
    /// Sleep, then write these bytes.
    Delay(Duration, Vec<u8>),
    /// Write these bytes and close.
    ReplyClose(Vec<u8>),
    /// Close with a reset (SO_LINGER 0), answering nothing.
    Reset,
    /// Never answer; hold the connection until the server is dropped.
    Hang,
}

/// What the server counted.
#[derive(Default)]
pub struct Counts {
    pub requests: AtomicU64,
    pub connections: AtomicU64,
    pub max_batch: AtomicU64,
    pub live: AtomicI64,
    pub max_live: AtomicI64,
}

/// A running test server; stops answering when dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    pub counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

type Handler = dyn Fn(&Req) -> Action + Send + Sync;

impl TestServer {
    /// Starts a server on 127.0.0.1:0 that answers every request with `handler`.
    pub fn start(handler: impl Fn(&Req) -> Action + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let counts = Arc::new(Counts::default());
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (c, s) = (Arc::clone(&counts), Arc::clone(&stop));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (c, s, h) = (Arc::clone(&c), Arc::clone(&s), Arc::clone(&handler));
                std::thread::spawn(move || serve(conn, &c, &s, &*h));
            }
        });
        TestServer { addr, counts, stop }
    }

    /// `http://ADDR` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn requests(&self) -> u64 {
        self.counts.requests.load(Ordering::SeqCst)
    }
}

fn serve(mut conn: TcpStream, counts: &Counts, stop: &AtomicBool, handler: &Handler) {
    counts.connections.fetch_add(1, Ordering::SeqCst);
    let live = counts.live.fetch_add(1, Ordering::SeqCst) + 1;
    counts.max_live.fetch_max(live, Ordering::SeqCst);
    let _ = conn.set_nodelay(true);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    'conn: loop {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        let mut out = Vec::new();
        let mut batch = 0;
        let mut close = false;
        loop {
            let mut h = [httparse::EMPTY_HEADER; 32];
            let mut r = httparse::Request::new(&mut h);
            let len = match r.parse(&buf) {
                Ok(httparse::Status::Complete(n)) => n,
                Ok(httparse::Status::Partial) => break,
                Err(_) => break 'conn,
            };
            let version = r.version.unwrap_or(1);
            let conn_hdr = r
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("connection"))
                .map(|h| String::from_utf8_lossy(h.value).to_ascii_lowercase());
            let keep_alive = match conn_hdr.as_deref() {
                Some("close") => false,
                Some("keep-alive") => true,
                _ => version == 1,
            };
            let req = Req {
                n: counts.requests.fetch_add(1, Ordering::SeqCst),
                version,
                keep_alive,
                path: r.path.unwrap_or("/").to_string(),
            };
            buf.drain(..len);
            batch += 1;
            match handler(&req) {
                Action::Reply(b) => out.extend_from_slice(&b),
                Action::Delay(d, b) => {
                    std::thread::sleep(d);
                    out.extend_from_slice(&b);
                }
                Action::ReplyClose(b) => {
                    out.extend_from_slice(&b);
                    close = true;
                }
                Action::Reset => {
                    let _ = socket2::SockRef::from(&conn).set_linger(Some(Duration::ZERO));
                    break 'conn;
                }
                Action::Hang => {
                    let until = Instant::now() + Duration::from_secs(30);
                    while !stop.load(Ordering::SeqCst) && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    break 'conn;
                }
            }
            if !keep_alive {
                close = true;
            }
            if close {
                break;
            }
        }
        counts.max_batch.fetch_max(batch, Ordering::SeqCst);
        if !out.is_empty() && conn.write_all(&out).is_err() {
            break;
        }
        if close {
            break;
        }
    }
    counts.live.fetch_sub(1, Ordering::SeqCst);
}

/// A response with `status` and `body`, with the `Connection` header `req` needs.
pub fn reply(req: &Req, status: u16, body: &[u8]) -> Vec<u8> {
    let conn = match (req.version, req.keep_alive) {
        (0, true) => "Connection: keep-alive\r\n",
        (_, false) => "Connection: close\r\n",
        _ => "",
    };
    let mut r = format!(
        "HTTP/1.1 {status} X\r\n{conn}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// A 200 with a short body.
pub fn ok(req: &Req) -> Action {
    Action::Reply(reply(req, 200, b"hello"))
}

/// A closed-model configuration of `n` requests over `c` connections against `url`.
pub fn config(url: &str, n: u64, c: usize) -> Config {
    let mut cfg = Config::new(url).unwrap();
    cfg.requests = Some(n);
    cfg.duration = None;
    cfg.connections = c;
    cfg.timeout = Duration::from_secs(5);
    cfg
}

/// Every mode.
pub const MODES: [Mode; 4] = [
    Mode::KeepAlive,
    Mode::Close,
    Mode::Http10,
    Mode::Http10KeepAlive,
];

/// The real server-hyper engine on its own thread and runtime, on 127.0.0.1:0, for the rest
/// of the test process.
pub fn hyper_server() -> SocketAddr {
    let server = serve::workers::Background::local(server_hyper::serve).unwrap();
    let addr = server.addr();
    // Dropping it would stop it; the tests that use it run until the process ends.
    std::mem::forget(server);
    addr
}
