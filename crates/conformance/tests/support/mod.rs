//! An in-test reference server with deliberate faults, run as a child process.
//!
//! [`serve`](fn@serve) implements `docs/contract.md` on tokio with `httparse`; each [`Fault`]
//! breaks exactly one rule. The server runs in a child process (this test binary re-executed with
//! [`CHILD_ENV`] set, entering [`child_main`]) so that the heavy check's 10,000 client sockets
//! and the server's 10,000 accepted ones live in different processes, each within its own
//! RLIMIT_NOFILE. The child prints `listening on http://ADDR` and exits when its stdin closes,
//! so a dying test never leaves it behind.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use contract::body::{
    ASYNC_JSON, CT_JSON, CT_TEXT, HELLO_JSON, HELLO_TEXT, MAX_BODY, MAX_HEAD, NEXTTICK_JSON,
    ROOT_BODY, SYNC_JSON, TIMER_JSON, UNAUTHORIZED_JSON,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Environment variable that turns the test binary into a server: `FAULT:v4` or `FAULT:v6`.
pub const CHILD_ENV: &str = "CONFORMANCE_TEST_SERVER";
/// The in-test server's slowloris timeout (the contract's is 10 s; the check allows 15 s).
const HEAD_TIMEOUT: Duration = Duration::from_secs(2);
const TOKEN: &str = "bench-token";

macro_rules! faults {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// One deliberate deviation from `docs/contract.md`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Fault { $($(#[$doc])* $name),* }
        impl Fault {
            /// Every fault.
            pub const ALL: &[Fault] = &[$(Fault::$name),*];
            /// The fault's name.
            pub fn name(self) -> &'static str {
                match self { $(Fault::$name => stringify!($name)),* }
            }
        }
    };
}

faults! {
    /// The correct server.
    None,
    // Response fields.
    ExtraServerHeader, DateRfc850, WrongReasonPhrase, NotFoundHasContentType,
    NotFoundNoContentLength, NoAllowHeader, HeadSendsBody,
    // Routing and methods.
    PostAllowed, Any405, MethodsCaseInsensitive, StripTrailingSlash, CollapseSlashes,
    CaseInsensitivePaths, PercentDecodePath, NoAbsoluteForm, QueryOnlyStrippedForApi,
    // Bodies.
    HelloBodyWrong, RootBodyShort, HelloTextWrongType, MappedShownRaw, V6Expanded,
    // Query echo.
    EchoPlusLiteral, EchoNoPercentDecode, EchoMalformedDropped, EchoLastWins,
    EchoMissingOmitted, EchoKeysRaw, EchoInvalidUtf8Dropped, EchoHtmlEscape,
    EchoBareKeyIgnored, EchoSplitAllEquals, EchoSwapped,
    // Authorization.
    PrivateWrongToken, PrivateAlwaysOk, SchemeCaseInsensitive, IgnoreScheme,
    FirstAuthorizationWins, PrefixCompare, StartsWithCompare,
    // Connections.
    CloseAfter50, Http10KeepsOpen, Http10IgnoresKeepAlive, IgnoreConnectionClose,
    CloseCaseSensitive, AnswersAfterClose, AlwaysKeepAliveHeader, KeepAliveHeaderWhenAsked,
    PipelineCap8,
    HeadEndInLastReadOnly, ParseFirstReadOnly,
    // Bad input.
    BadRequestNoClose, HeadLimit16k, HeadLimit7k, IgnoreContentLength, BodyLimitOffByOne,
    NoBodyLimit, ChunkedIgnored, NoChunkedLimit, ClWinsOverTe, FirstClWins, ClLenientParse,
    UnknownTeIgnored, TeContainsChunked, AnyHttp1Version, VersionErrorNoClose,
    SlowlorisPerRead, HeadTimerFromResponse, DieOnPartialHead, DieOnReset, DieOnWriteError,
    // RFC 9112.
    HostMissingAllowed, HostTwiceAllowed, HostValueUnchecked, HostRequiredOn10,
    AbsoluteFormHostChecked, SpaceBeforeColonStripped, FoldAsField, BareCrAsLineEnd,
    HeadEndCrlfOnly, LeadingCrlfRejected, TargetSpaceEncoded, VersionCaseInsensitive,
    TeNotFinal501, Http10TeKeptAlive, ClRustParse, ClSameValuesIgnored, ChunkSizeWraps,
    ChunkExtRejected, TrailerRejected, BodyEofIgnored,
    // Scenarios and load.
    AsyncNoWait, ScenarioWrongType, ConnectionCap1000,
}

impl Fault {
    fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// A child process running the server with one fault.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Server {
    /// Starts the server with `fault`, on 127.0.0.1 (through an IPv6 socket bound to the
    /// IPv4-mapped address, so `/my/ip` sees mapped peers) or on ::1.
    pub fn start(fault: Fault, v6: bool) -> Server {
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new(exe)
            .args(["child_server", "--exact", "--nocapture", "--test-threads=1"])
            .env(
                CHILD_ENV,
                format!("{}:{}", fault.name(), if v6 { "v6" } else { "v4" }),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the server child");
        let stdout = child.stdout.take().expect("child stdout");
        // libtest prints `test child_server ... ` before the announcement on the same line.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout);
            let mut line = String::new();
            while lines.read_line(&mut line).unwrap_or(0) > 0 {
                if let Some(at) = line.find(serve::ready::PREFIX) {
                    let _ = tx.send(serve::ready::parse(&line[at..]));
                }
                line.clear();
            }
        });
        let addr: Option<SocketAddr> = rx.recv_timeout(Duration::from_secs(20)).ok().flatten();
        let addr = addr.unwrap_or_else(|| panic!("{} did not announce its address", fault.name()));
        Server { child, addr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The child's entry: when [`CHILD_ENV`] is set, serve until stdin closes; else return.
pub fn child_main() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (name, family) = spec.split_once(':').expect("FAULT:v4|v6");
    let fault = Fault::from_name(name).expect("a known fault");
    let _ = serve::net::raise_nofile_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let (listener, shown) = bind(family == "v6");
        serve::ready::announce(shown).expect("write the ready line");
        std::thread::spawn(|| {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            std::process::exit(0);
        });
        serve(listener, fault).await;
    });
}

fn bind(v6: bool) -> (TcpListener, SocketAddr) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV6, Type::STREAM, None).expect("socket");
    socket.set_reuse_address(true).expect("reuseaddr");
    let ip: IpAddr = if v6 {
        socket.set_only_v6(true).expect("v6only");
        Ipv6Addr::LOCALHOST.into()
    } else {
        // An IPv6 socket on the IPv4-mapped loopback: IPv4 clients reach it as mapped peers.
        socket.set_only_v6(false).expect("v6only off");
        "::ffff:127.0.0.1".parse().expect("mapped")
    };
    socket.bind(&SocketAddr::new(ip, 0).into()).expect("bind");
    socket.listen(4096).expect("listen");
    socket.set_nonblocking(true).expect("nonblocking");
    let listener = TcpListener::from_std(socket.into()).expect("tokio listener");
    let port = listener.local_addr().expect("local addr").port();
    let shown = if v6 {
        SocketAddr::new(Ipv6Addr::LOCALHOST.into(), port)
    } else {
        SocketAddr::from(([127, 0, 0, 1], port))
    };
    (listener, shown)
}

/// Accepts forever, one task per connection.
pub async fn serve(listener: TcpListener, fault: Fault) {
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if fault == Fault::ConnectionCap1000 && open.load(Ordering::Relaxed) >= 1_000 {
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        open.fetch_add(1, Ordering::Relaxed);
        let open = open.clone();
        tokio::spawn(async move {
            Conn {
                stream,
                peer,
                fault,
                buf: Vec::new(),
                served: 0,
                batch: 0,
                draining: false,
            }
            .run()
            .await;
            open.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// The server dies (a crash, for the liveness checks' faults).
fn die() -> ! {
    std::process::exit(0)
}

fn is_reset(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
    )
}

enum HeadEnd {
    /// A complete head of this many bytes is buffered.
    Complete(usize),
    /// Clean EOF between requests.
    Eof,
    /// Close the connection (timeout, partial head, error); an answer may have been sent.
    Close,
}

enum Framing {
    None,
    Length(u64),
    Chunked,
}

struct Request {
    method: String,
    target: String,
    minor: u8,
    headers: Vec<(String, Vec<u8>)>,
}

impl Request {
    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    fn connection_has(&self, token: &str, exact_case: bool) -> bool {
        self.values("connection")
            .flat_map(|v| v.split(|&b| b == b','))
            .map(|t| t.trim_ascii())
            .any(|t| {
                if exact_case {
                    t == token.as_bytes()
                } else {
                    t.eq_ignore_ascii_case(token.as_bytes())
                }
            })
    }
}

struct Conn {
    stream: TcpStream,
    peer: SocketAddr,
    fault: Fault,
    buf: Vec<u8>,
    served: usize,
    /// Requests answered since the last socket read.
    batch: usize,
    /// `AnswersAfterClose`: a `close` was answered; serve what is buffered, then close.
    draining: bool,
}

struct Reply {
    status: u16,
    content_type: Option<&'static str>,
    body: Vec<u8>,
}

impl Conn {
    async fn run(&mut self) {
        loop {
            if self.draining && self.buf.is_empty() {
                return;
            }
            let head_len = match self.read_head().await {
                HeadEnd::Complete(n) => n,
                HeadEnd::Eof | HeadEnd::Close => return,
            };
            if self.fault == Fault::PipelineCap8 && self.batch >= 8 {
                // Everything past the eighth request of one read is silently dropped.
                self.buf.clear();
                continue;
            }
            if !self.handle(head_len).await {
                return;
            }
        }
    }

    async fn read_some(&mut self, deadline: Option<tokio::time::Instant>) -> Result<usize, ()> {
        let mut chunk = [0u8; 16 * 1024];
        let read = self.stream.read(&mut chunk);
        let n = match deadline {
            Some(d) => match tokio::time::timeout_at(d, read).await {
                Ok(r) => r,
                Err(_) => return Err(()),
            },
            None => read.await,
        };
        match n {
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                self.batch = 0;
                Ok(n)
            }
            Err(e) => {
                if self.fault == Fault::DieOnReset && is_reset(&e) {
                    die();
                }
                Err(())
            }
        }
    }

    async fn read_head(&mut self) -> HeadEnd {
        let now = tokio::time::Instant::now;
        let mut deadline = if self.buf.is_empty() {
            None
        } else {
            Some(now() + HEAD_TIMEOUT)
        };
        if self.fault == Fault::HeadTimerFromResponse {
            deadline = Some(now() + HEAD_TIMEOUT);
        }
        let mut scan_from = 0;
        let limit = match self.fault {
            Fault::HeadLimit16k => 16 * 1024,
            Fault::HeadLimit7k => 7 * 1024,
            _ => MAX_HEAD,
        };
        loop {
            if let Some(end) = head_end(&self.buf, scan_from, self.fault) {
                if end > limit {
                    return self.refuse(431).await;
                }
                return HeadEnd::Complete(end);
            }
            if self.buf.len() >= limit {
                return self.refuse(431).await;
            }
            if self.fault == Fault::ParseFirstReadOnly
                && !self.buf.is_empty()
                && !self.buf.windows(2).any(|w| w == b"\r\n")
            {
                return self.refuse(400).await;
            }
            let before = self.buf.len();
            scan_from = if self.fault == Fault::HeadEndInLastReadOnly {
                before
            } else {
                before.saturating_sub(3)
            };
            let wait = if self.fault == Fault::SlowlorisPerRead && !self.buf.is_empty() {
                Some(now() + HEAD_TIMEOUT)
            } else {
                deadline
            };
            match self.read_some(wait).await {
                Ok(0) if before == 0 => return HeadEnd::Eof,
                Ok(0) => {
                    if self.fault == Fault::DieOnPartialHead {
                        die();
                    }
                    return HeadEnd::Close;
                }
                Ok(_) => {
                    if before == 0 && deadline.is_none() {
                        deadline = Some(now() + HEAD_TIMEOUT);
                    }
                }
                Err(()) => return HeadEnd::Close,
            }
        }
    }

    /// Sends an error answer with `connection: close` and closes (or, for the no-close faults,
    /// keeps the connection open and silent).
    async fn refuse(&mut self, status: u16) -> HeadEnd {
        let keep = (self.fault == Fault::BadRequestNoClose && status == 400)
            || (self.fault == Fault::VersionErrorNoClose && status == 505);
        let mut out = format!(
            "HTTP/1.1 {status} {}\r\ndate: {}\r\ncontent-length: 0\r\n",
            reason(status),
            httpdate::fmt_http_date(SystemTime::now())
        );
        if !keep {
            out.push_str("connection: close\r\n");
        }
        out.push_str("\r\n");
        let _ = self.stream.write_all(out.as_bytes()).await;
        if keep {
            // Hold the connection until the client goes away.
            let mut sink = [0u8; 4096];
            while let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_secs(30), self.stream.read(&mut sink)).await
            {
                if n == 0 {
                    break;
                }
            }
        }
        HeadEnd::Close
    }

    /// Parses, frames, discards the body, answers. Returns whether to keep the connection.
    async fn handle(&mut self, head_len: usize) -> bool {
        if self.fault == Fault::LeadingCrlfRejected && self.buf.starts_with(b"\r\n") {
            self.refuse(400).await;
            return false;
        }
        let mut head = lenient_head(&self.buf[..head_len], self.fault);
        let line_end = head.windows(2).position(|w| w == b"\r\n");
        if let (Fault::AnyHttp1Version, Some(line_end)) = (self.fault, line_end) {
            // The fault reads HTTP/1.2 as HTTP/1.1.
            let line = &mut head[..line_end];
            if line.ends_with(b"HTTP/1.2") {
                line[line_end - 1] = b'1';
            }
        }
        let request = {
            let mut fields = [httparse::EMPTY_HEADER; 64];
            let mut parsed = httparse::Request::new(&mut fields);
            match parsed.parse(&head) {
                Ok(httparse::Status::Complete(_)) => Request {
                    method: parsed.method.unwrap_or("").to_owned(),
                    target: parsed.path.unwrap_or("").to_owned(),
                    minor: parsed.version.unwrap_or(1),
                    headers: parsed
                        .headers
                        .iter()
                        .map(|h| (h.name.to_owned(), h.value.to_vec()))
                        .collect(),
                },
                Ok(httparse::Status::Partial) => {
                    self.refuse(400).await;
                    return false;
                }
                Err(httparse::Error::Version) if names_a_version(&head) => {
                    self.refuse(505).await;
                    return false;
                }
                Err(_) => {
                    self.refuse(400).await;
                    return false;
                }
            }
        };
        self.buf.drain(..head_len);
        if let Err(status) = check_host(&request, self.fault) {
            self.refuse(status).await;
            return false;
        }

        let framing = match self.framing(&request) {
            Ok(f) => f,
            Err(status) => {
                self.refuse(status).await;
                return false;
            }
        };
        match framing {
            Framing::None => {}
            Framing::Length(n) => {
                if self.fault != Fault::IgnoreContentLength && !self.discard(n).await {
                    return false;
                }
            }
            Framing::Chunked => match self.discard_chunked().await {
                Ok(()) => {}
                Err(status) => {
                    if status != 0 {
                        self.refuse(status).await;
                    }
                    return false;
                }
            },
        }

        let keep = self.keep_alive(&request);
        let reply = self.route(&request).await;
        self.served += 1;
        let keep = keep && !(self.fault == Fault::CloseAfter50 && self.served >= 50);
        self.batch += 1;
        let asked_close = request.minor == 1 && request.connection_has("close", false);
        let kept = self.respond(&request, reply, keep).await;
        if !kept && asked_close && self.fault == Fault::AnswersAfterClose {
            // The fault answers the requests pipelined after the close before closing.
            self.draining = true;
            return true;
        }
        kept
    }

    fn framing(&self, r: &Request) -> Result<Framing, u16> {
        let f = self.fault;
        let te: Vec<&[u8]> = r.values("transfer-encoding").collect();
        let cl: Vec<&[u8]> = r.values("content-length").collect();
        if !te.is_empty() && !cl.is_empty() && f != Fault::ClWinsOverTe {
            return Err(400);
        }
        if !te.is_empty() && r.minor == 0 && f != Fault::Http10TeKeptAlive {
            // RFC 9112 §6.1: the framing of an HTTP/1.0 message with transfer-encoding is faulty.
            return Err(400);
        }
        if !te.is_empty() && cl.is_empty() {
            let joined = te.join(&b","[..]);
            let tokens: Vec<&[u8]> = joined
                .split(|&b| b == b',')
                .map(<[u8]>::trim_ascii)
                .collect();
            let chunked_at = tokens
                .iter()
                .position(|t| t.eq_ignore_ascii_case(b"chunked"));
            if chunked_at.is_some_and(|i| i + 1 < tokens.len()) {
                // RFC 9112 §6.3: chunked, but not the final coding: the length is unknowable.
                return Err(if f == Fault::TeNotFinal501 { 501 } else { 400 });
            }
            let exact = joined.trim_ascii().eq_ignore_ascii_case(b"chunked");
            let listed = joined
                .split(|&b| b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
            if exact || (f == Fault::TeContainsChunked && listed) {
                return Ok(if f == Fault::ChunkedIgnored {
                    Framing::None
                } else {
                    Framing::Chunked
                });
            }
            return if f == Fault::UnknownTeIgnored {
                Ok(Framing::None)
            } else {
                Err(501)
            };
        }
        if cl.is_empty() {
            return Ok(Framing::None);
        }
        let repeated = cl.len() > 1 && cl.iter().all(|v| v.trim_ascii() == cl[0].trim_ascii());
        if f == Fault::ClSameValuesIgnored && (repeated || cl[0].contains(&b',')) {
            return Ok(Framing::None);
        }
        let parse = |v: &[u8]| -> Option<u64> {
            let v = v.trim_ascii();
            if f == Fault::ClRustParse {
                return std::str::from_utf8(v).ok()?.parse().ok();
            }
            let digits: &[u8] = if f == Fault::ClLenientParse {
                let n = v.iter().take_while(|b| b.is_ascii_digit()).count();
                &v[..n]
            } else {
                v
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(digits).ok()?.parse().ok()
        };
        let first = parse(cl[0]).ok_or(400u16)?;
        if f != Fault::FirstClWins {
            for v in &cl[1..] {
                if parse(v) != Some(first) {
                    return Err(400);
                }
            }
        }
        let too_large = match f {
            Fault::NoBodyLimit => false,
            Fault::BodyLimitOffByOne => first >= MAX_BODY,
            _ => first > MAX_BODY,
        };
        if too_large {
            return Err(413);
        }
        Ok(Framing::Length(first))
    }

    /// Reads and drops `n` body bytes.
    async fn discard(&mut self, mut n: u64) -> bool {
        loop {
            let take = (self.buf.len() as u64).min(n) as usize;
            self.buf.drain(..take);
            n -= take as u64;
            if n == 0 {
                return true;
            }
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            match self.read_some(Some(deadline)).await {
                Ok(0) if self.fault == Fault::BodyEofIgnored => {
                    // Neither answers nor closes: the connection lingers half-open.
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    return false;
                }
                Ok(0) | Err(()) => return false,
                Ok(_) => {}
            }
        }
    }

    /// Decodes and drops a chunked body: `Err(status)` to refuse (0: just close).
    async fn discard_chunked(&mut self) -> Result<(), u16> {
        let mut total: u64 = 0;
        loop {
            let line = self.line().await?;
            if self.fault == Fault::ChunkExtRejected && line.contains(&b';') {
                return Err(400);
            }
            let size_text = line
                .split(|&b| b == b';')
                .next()
                .unwrap_or(&[])
                .trim_ascii();
            let size = if self.fault == Fault::ChunkSizeWraps {
                wrapping_hex(size_text).ok_or(400u16)?
            } else {
                std::str::from_utf8(size_text)
                    .ok()
                    .and_then(|s| u64::from_str_radix(s, 16).ok())
                    .ok_or(400u16)?
            };
            if size == 0 {
                // Trailers until the empty line.
                loop {
                    let trailer = self.line().await?;
                    if trailer.is_empty() {
                        return Ok(());
                    }
                    if self.fault == Fault::TrailerRejected {
                        return Err(400);
                    }
                }
            }
            total += size;
            if total > MAX_BODY && self.fault != Fault::NoChunkedLimit {
                return Err(413);
            }
            if !self.discard(size).await {
                return Err(0);
            }
            if !self.line().await?.is_empty() {
                return Err(400);
            }
        }
    }

    /// One CRLF-terminated line of the chunked framing (without the CRLF).
    async fn line(&mut self) -> Result<Vec<u8>, u16> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..pos].to_vec();
                self.buf.drain(..pos + 2);
                return Ok(line);
            }
            if self.buf.len() > 4096 {
                return Err(400);
            }
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            match self.read_some(Some(deadline)).await {
                Ok(0) | Err(()) => return Err(0),
                Ok(_) => {}
            }
        }
    }

    fn keep_alive(&self, r: &Request) -> bool {
        let f = self.fault;
        if r.minor == 0 {
            match f {
                Fault::Http10KeepsOpen => true,
                Fault::Http10IgnoresKeepAlive => false,
                _ => r.connection_has("keep-alive", false),
            }
        } else {
            let close = r.connection_has("close", f == Fault::CloseCaseSensitive);
            !close || f == Fault::IgnoreConnectionClose
        }
    }

    async fn route(&self, r: &Request) -> Reply {
        let f = self.fault;
        let mut target = r.target.as_str();
        let authority = target
            .strip_prefix("http://")
            .or_else(|| target.strip_prefix("https://"));
        if let (false, Some(rest)) = (f == Fault::NoAbsoluteForm, authority) {
            target = rest.find('/').map_or("/", |i| &rest[i..]);
        }
        let (mut path, query) = match target.split_once('?') {
            Some((p, q)) if f != Fault::QueryOnlyStrippedForApi || p == "/api" => (p.to_owned(), q),
            Some(_) => (target.to_owned(), ""),
            None => (target.to_owned(), ""),
        };
        match f {
            Fault::StripTrailingSlash if path.len() > 1 && path.ends_with('/') => {
                path.pop();
            }
            Fault::CollapseSlashes => {
                while path.contains("//") {
                    path = path.replace("//", "/");
                }
            }
            Fault::CaseInsensitivePaths => path = path.to_ascii_lowercase(),
            Fault::PercentDecodePath => path = path.replace("%2F", "/").replace("%2f", "/"),
            _ => {}
        }
        let known = matches!(
            path.as_str(),
            "/api/hello"
                | "/"
                | "/my/ip"
                | "/api"
                | "/hello"
                | "/api/private"
                | "/api/async"
                | "/api/sync"
                | "/api/sync-offload"
                | "/api/nexttick"
                | "/api/timer"
        );
        let mut method = r.method.clone();
        if f == Fault::MethodsCaseInsensitive {
            method = method.to_ascii_uppercase();
        }
        if f == Fault::PostAllowed && method == "POST" {
            method = "GET".to_owned();
        }
        let get = method == "GET" || method == "HEAD";
        if !get && (known || f == Fault::Any405) {
            return Reply {
                status: 405,
                content_type: None,
                body: Vec::new(),
            };
        }
        if !known {
            return Reply {
                status: 404,
                content_type: None,
                body: Vec::new(),
            };
        }
        let ok = |ct, body: &[u8]| Reply {
            status: 200,
            content_type: Some(ct),
            body: body.to_vec(),
        };
        let scenario_ct = if f == Fault::ScenarioWrongType {
            CT_TEXT
        } else {
            CT_JSON
        };
        match path.as_str() {
            "/api/hello" if f == Fault::HelloBodyWrong => {
                ok(CT_JSON, br#"{"message":"Hello world"}"#)
            }
            "/api/hello" => ok(CT_JSON, HELLO_JSON),
            "/" if f == Fault::RootBodyShort => ok(CT_TEXT, &ROOT_BODY[1..]),
            "/" => ok(CT_TEXT, ROOT_BODY),
            "/hello" if f == Fault::HelloTextWrongType => ok("text/plain", HELLO_TEXT),
            "/hello" => ok(CT_TEXT, HELLO_TEXT),
            "/api" => ok(CT_TEXT, echo(query, f).as_bytes()),
            "/my/ip" => ok(CT_TEXT, show_ip(self.peer.ip(), f).as_bytes()),
            "/api/private" if authorized(r, f) => ok(CT_JSON, HELLO_JSON),
            "/api/private" => Reply {
                status: 401,
                content_type: Some(CT_JSON),
                body: UNAUTHORIZED_JSON.to_vec(),
            },
            "/api/async" => {
                if f != Fault::AsyncNoWait {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                ok(scenario_ct, ASYNC_JSON)
            }
            "/api/sync" | "/api/sync-offload" => ok(scenario_ct, SYNC_JSON),
            "/api/nexttick" => ok(scenario_ct, NEXTTICK_JSON),
            _ => ok(scenario_ct, TIMER_JSON),
        }
    }

    async fn respond(&mut self, r: &Request, reply: Reply, keep: bool) -> bool {
        let f = self.fault;
        let head = r.method == "HEAD"
            || (f == Fault::MethodsCaseInsensitive && r.method.eq_ignore_ascii_case("HEAD"));
        let mut reason_text = reason(reply.status).to_owned();
        if f == Fault::WrongReasonPhrase && reply.status == 404 {
            reason_text = "Not found".to_owned();
        }
        let date = if f == Fault::DateRfc850 {
            "Sunday, 06-Nov-94 08:49:37 GMT".to_owned()
        } else {
            httpdate::fmt_http_date(SystemTime::now())
        };
        let mut out = format!(
            "HTTP/1.1 {} {reason_text}\r\ndate: {date}\r\n",
            reply.status
        );
        let omit_length = f == Fault::NotFoundNoContentLength && reply.status == 404;
        if !omit_length {
            out.push_str(&format!("content-length: {}\r\n", reply.body.len()));
        }
        match reply.content_type {
            Some(ct) => out.push_str(&format!("content-type: {ct}\r\n")),
            None if f == Fault::NotFoundHasContentType && reply.status == 404 => {
                out.push_str("content-type: text/plain\r\n");
            }
            None => {}
        }
        if reply.status == 405 && f != Fault::NoAllowHeader {
            out.push_str("allow: GET, HEAD\r\n");
        }
        if f == Fault::ExtraServerHeader {
            out.push_str("server: test\r\n");
        }
        let keep = keep && !omit_length;
        if r.minor == 0 {
            out.push_str(if keep {
                "connection: keep-alive\r\n"
            } else {
                "connection: close\r\n"
            });
        } else if !keep {
            out.push_str("connection: close\r\n");
        } else if f == Fault::AlwaysKeepAliveHeader
            || (f == Fault::KeepAliveHeaderWhenAsked && r.connection_has("keep-alive", false))
        {
            out.push_str("connection: keep-alive\r\n");
        }
        if f == Fault::Http10KeepsOpen && r.minor == 0 && !r.connection_has("keep-alive", false) {
            // Neither field nor close: the fault keeps the connection as if it were HTTP/1.1.
            out = out.replace("connection: keep-alive\r\n", "");
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        if !head || f == Fault::HeadSendsBody {
            bytes.extend_from_slice(&reply.body);
        }
        if let Err(e) = self.stream.write_all(&bytes).await {
            if f == Fault::DieOnWriteError && is_reset(&e) {
                die();
            }
            return false;
        }
        keep
    }
}

/// Whether the request line ends in a well-formed `HTTP/d.d` (so a version error is 505, and
/// any other request line that does not parse is 400).
fn names_a_version(head: &[u8]) -> bool {
    let line = head
        .split(|&b| b == b'\r' || b == b'\n')
        .find(|l| !l.is_empty());
    let parts: Vec<&[u8]> = line.unwrap_or(&[]).split(|&b| b == b' ').collect();
    matches!(parts.as_slice(), [_, _, [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]]
        if major.is_ascii_digit() && minor.is_ascii_digit())
}

/// The end of the head that starts `buf`: the first empty line, ended by CRLF or (RFC 9112
/// §2.2 lets a recipient take it as a line end) a bare LF, searched from `from`.
fn head_end(buf: &[u8], from: usize, f: Fault) -> Option<usize> {
    if f == Fault::HeadEndCrlfOnly {
        return buf[from..]
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|p| from + p + 4);
    }
    (from..buf.len()).find_map(|i| match (buf[i], buf.get(i + 1), buf.get(i + 2)) {
        (b'\n', Some(b'\n'), _) => Some(i + 2),
        (b'\n', Some(b'\r'), Some(b'\n')) => Some(i + 3),
        _ => None,
    })
}

/// The head as the lenient-parsing faults read it (unchanged for every other fault).
fn lenient_head(head: &[u8], f: Fault) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len() + 8);
    let mut i = 0;
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    while i < head.len() {
        let b = head[i];
        let at_line_start = i > 0 && head[i - 1] == b'\n';
        match f {
            Fault::FoldAsField if at_line_start && (b == b' ' || b == b'\t') => {}
            Fault::BareCrAsLineEnd if b == b'\r' && head.get(i + 1) != Some(&b'\n') => {
                out.extend_from_slice(b"\r\n");
            }
            Fault::SpaceBeforeColonStripped
                if i > line_end
                    && (b == b' ' || b == b'\t')
                    && head[i..].iter().find(|&&c| c != b' ' && c != b'\t') == Some(&b':') =>
            {
                // Drops whitespace before a colon, wherever it is on a field line.
            }
            _ => out.push(b),
        }
        i += 1;
    }
    let first = out.iter().position(|&b| b == b'\r').unwrap_or(out.len());
    match f {
        Fault::TargetSpaceEncoded => {
            let line = String::from_utf8_lossy(&out[..first]).into_owned();
            let parts: Vec<&str> = line.split(' ').collect();
            if parts.len() > 3 {
                let target = parts[1..parts.len() - 1].join("%20");
                let fixed = format!("{} {target} {}", parts[0], parts[parts.len() - 1]);
                out.splice(..first, fixed.into_bytes());
            }
        }
        Fault::VersionCaseInsensitive => {
            if let Some(p) = out[..first].windows(6).position(|w| w == b" http/") {
                out[p + 1..p + 5].copy_from_slice(b"HTTP");
            }
        }
        _ => {}
    }
    out
}

/// RFC 9112 §3.2: exactly one `host` field with a valid value, but for HTTP/1.0 without one;
/// and §3.2.2's absolute-form for the fault that checks the Host against it.
fn check_host(r: &Request, f: Fault) -> Result<(), u16> {
    let hosts: Vec<&[u8]> = r.values("host").collect();
    match hosts.as_slice() {
        [] if r.minor == 1 && f != Fault::HostMissingAllowed => Err(400),
        [] if f == Fault::HostRequiredOn10 => Err(400),
        [] => Ok(()),
        [one] => {
            let valid = one
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:%[]".contains(&b));
            if !valid && f != Fault::HostValueUnchecked {
                return Err(400);
            }
            let authority = r
                .target
                .strip_prefix("http://")
                .map(|rest| rest.split('/').next().unwrap_or(""));
            match authority {
                Some(a) if f == Fault::AbsoluteFormHostChecked && a.as_bytes() != *one => Err(400),
                _ => Ok(()),
            }
        }
        _ if f == Fault::HostTwiceAllowed => Ok(()),
        _ => Err(400),
    }
}

/// A chunk size read into a `u64` that wraps past 2^64 (the overflow the RFC warns of).
fn wrapping_hex(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u64, |n, &b| {
        let d = (b as char).to_digit(16)?;
        Some(n.wrapping_mul(16).wrapping_add(u64::from(d)))
    })
}

fn reason(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Unknown")
}

fn show_ip(ip: IpAddr, f: Fault) -> String {
    match ip {
        IpAddr::V6(v6) if f == Fault::V6Expanded => v6
            .segments()
            .iter()
            .map(|s| format!("{s:x}"))
            .collect::<Vec<_>>()
            .join(":"),
        IpAddr::V6(v6) if f != Fault::MappedShownRaw => v6
            .to_ipv4_mapped()
            .map_or_else(|| v6.to_string(), |v4| v4.to_string()),
        other => other.to_string(),
    }
}

fn authorized(r: &Request, f: Fault) -> bool {
    if f == Fault::PrivateAlwaysOk {
        return true;
    }
    let values: Vec<&[u8]> = r.values("authorization").collect();
    let value = match values.as_slice() {
        [one] => *one,
        [first, ..] if f == Fault::FirstAuthorizationWins => *first,
        _ => return false,
    };
    let token = if f == Fault::PrivateWrongToken {
        "other-token"
    } else {
        TOKEN
    };
    let given: &[u8] = match f {
        Fault::SchemeCaseInsensitive
            if value.len() >= 7 && value[..7].eq_ignore_ascii_case(b"Bearer ") =>
        {
            &value[7..]
        }
        Fault::IgnoreScheme => match value.iter().position(|&b| b == b' ') {
            Some(i) => &value[i + 1..],
            None => return false,
        },
        _ => match value.strip_prefix(b"Bearer ") {
            Some(rest) => rest,
            None => return false,
        },
    };
    match f {
        Fault::PrefixCompare => token.as_bytes().starts_with(given),
        Fault::StartsWithCompare => given.starts_with(token.as_bytes()),
        _ => given == token.as_bytes(),
    }
}

/// The query echo, with the decoding faults.
fn echo(query: &str, f: Fault) -> String {
    let mut name: Option<Vec<u8>> = None;
    let mut lastname: Option<Vec<u8>> = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = if f == Fault::EchoSplitAllEquals {
            let mut parts = pair.split('=');
            (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
        } else {
            match pair.split_once('=') {
                Some(kv) => kv,
                None if f == Fault::EchoBareKeyIgnored => continue,
                None => (pair, ""),
            }
        };
        let key = if f == Fault::EchoKeysRaw {
            key.as_bytes().to_vec()
        } else {
            decode(key, f)
        };
        let slot = match key.as_slice() {
            b"name" => &mut name,
            b"lastname" => &mut lastname,
            _ => continue,
        };
        if slot.is_none() || f == Fault::EchoLastWins {
            *slot = Some(decode(value, f));
        }
    }
    let text = |v: Option<Vec<u8>>| {
        let v = v.unwrap_or_default();
        let s = if f == Fault::EchoInvalidUtf8Dropped {
            String::from_utf8_lossy(&v).replace('\u{FFFD}', "")
        } else {
            String::from_utf8_lossy(&v).into_owned()
        };
        if f == Fault::EchoHtmlEscape {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        } else {
            s
        }
    };
    let (name, lastname) = (text(name), text(lastname));
    if f == Fault::EchoMissingOmitted {
        let parts: Vec<&str> = [name.as_str(), lastname.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        return format!("Hey {}", parts.join(" "));
    }
    if f == Fault::EchoSwapped {
        return format!("Hey {lastname} {name}");
    }
    format!("Hey {name} {lastname}")
}

/// `application/x-www-form-urlencoded` decoding of one key or value.
fn decode(s: &str, f: Fault) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if f != Fault::EchoPlusLiteral => out.push(b' '),
            b'%' if f != Fault::EchoNoPercentDecode => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (
                    bytes.get(i + 1).and_then(|&b| hex(b)),
                    bytes.get(i + 2).and_then(|&b| hex(b)),
                ) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ if f == Fault::EchoMalformedDropped => {}
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}
