//! The socket loop: accepting, and driving each connection's [`Conn`] with one read and one
//! write per batch of requests.
//!
//! One worker thread runs [`serve`](fn@serve) on its own current-thread runtime, with its own listener.
//! Everything the connections of that thread share (the response table, the read buffer, the
//! output buffer) lives in one `Worker`, borrowed only inside a single poll and never across
//! an `.await`, so a connection holds nothing but its socket, its small [`Conn`] and, rarely,
//! output the socket could not take at once.
//!
//! A turn (`Worker::turn`): read what the socket has into the thread's buffer (a short read
//! tells tokio the socket is drained, so no second `read` returns `EAGAIN`), feed it to the
//! [`Conn`] into an [`Out`], write every answer with one `write` (one answer: its prebuilt
//! bytes as they are) or one `writev` (several: the prebuilt answers taken from the table, not
//! copied together first).

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io::{self, IoSlice};
use std::net::IpAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use contract::body::{HEAD_TIMEOUT, SHUTDOWN_GRACE};
use serve::config::Config;
use serve::signal::Shutdown;
use tokio::io::{AsyncRead, AsyncWriteExt, Interest, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::LocalSet;
use tokio::time::Instant;

use crate::conn::{Action, Conn};
use crate::out::Out;
use crate::responses::Responder;
use crate::sys;

/// Size of each thread's read buffer.
const READ_BUF: usize = 32 * 1024;
/// Initial size of each thread's output buffers (they grow for deep pipelines and stay).
const OUT_BUF: usize = 64 * 1024;
/// Initial room for fixed answers in one turn's output.
const OUT_FIXED: usize = 256;
/// Segments of one vectored write; a turn with more is copied into one buffer instead.
const IOV: usize = 32;
/// How long a lingering close discards input, and how much at most.
const LINGER_TIME: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 4 * 1024 * 1024;
/// How long a closing answer may wait for a client that does not read.
const FINAL_WRITE_TIME: Duration = Duration::from_secs(10);

/// What one thread's connections share.
struct Worker {
    shared: RefCell<Shared>,
    /// Connections in the middle of a request (for the shutdown grace period).
    busy: Cell<usize>,
    /// Shutdown has been asked for: answer with `connection: close` and close.
    draining: Cell<bool>,
}

struct Shared {
    responder: Responder,
    input: Box<[u8]>,
    out: Out,
    /// A plain output buffer: a turn's answers copied together when they are too many
    /// segments for one vectored write, and a 408.
    flat: Vec<u8>,
}

/// The result of one turn.
enum Turn {
    /// Input was fed and the answers written (or queued in the connection's pending buffer).
    Fed(Action),
    /// The client closed, or the socket failed: drop the connection.
    Gone,
}

impl Worker {
    fn new(token: &[u8]) -> Worker {
        Worker {
            shared: RefCell::new(Shared {
                responder: Responder::new(token),
                input: vec![0; READ_BUF].into_boxed_slice(),
                out: Out::with_capacity(OUT_BUF, OUT_FIXED),
                // Grown when first needed (a deep pipeline, a 408), then kept.
                flat: Vec::new(),
            }),
            busy: Cell::new(0),
            draining: Cell::new(false),
        }
    }

    /// Reads once, feeds the bytes to `conn` and writes the answers; whatever the socket does
    /// not take now goes to `pending`. `full`: see [`poll_recv`].
    #[inline]
    fn turn(
        &self,
        cx: &mut Context<'_>,
        stream: &mut TcpStream,
        conn: &mut Conn,
        pending: &mut Vec<u8>,
        full: &mut bool,
    ) -> Poll<Turn> {
        let mut shared = self.shared.borrow_mut();
        let shared = &mut *shared;
        match ready!(poll_recv(stream, cx, &mut shared.input, full)) {
            Ok(n) if n > 0 => Poll::Ready(self.fed(shared, n, stream, conn, pending)),
            _ => Poll::Ready(Turn::Gone),
        }
    }

    /// The rest of a turn once `n` bytes have been read into `shared.input` (apart, so that
    /// the turn that only finds the socket drained stays short).
    #[inline(never)]
    fn fed(
        &self,
        shared: &mut Shared,
        n: usize,
        stream: &TcpStream,
        conn: &mut Conn,
        pending: &mut Vec<u8>,
    ) -> Turn {
        let Shared {
            responder,
            input,
            out,
            flat,
        } = shared;
        responder.refresh();
        if self.draining.get() {
            conn.drain();
        }
        out.clear();
        let action = conn.feed(responder, &input[..n], out);
        if !out.is_empty() && !write_out(stream, responder, out, flat, pending) {
            return Turn::Gone;
        }
        Turn::Fed(action)
    }

    /// Reads and discards input (a lingering close): the byte count, 0 at end of input.
    fn discard(&self, cx: &mut Context<'_>, stream: &mut TcpStream) -> Poll<usize> {
        let mut shared = self.shared.borrow_mut();
        let mut buf = ReadBuf::new(&mut shared.input);
        match ready!(Pin::new(stream).poll_read(cx, &mut buf)) {
            Ok(()) => Poll::Ready(buf.filled().len()),
            Err(_) => Poll::Ready(0),
        }
    }

    /// Writes a 408 for a connection whose head timed out (best effort, never waits).
    #[cold]
    fn expire(&self, stream: &TcpStream, conn: &mut Conn) {
        let mut shared = self.shared.borrow_mut();
        let Shared {
            responder, flat, ..
        } = &mut *shared;
        responder.refresh();
        flat.clear();
        conn.expire(responder, flat);
        let _ = stream.try_write(flat);
    }
}

/// Writes a turn's answers now, from where they are: one segment (one answer) as it is, up to
/// [`IOV`] segments with one vectored write, more copied into `flat` first. What the socket
/// does not take is appended to `pending`. `false` when the socket failed.
#[inline]
fn write_out(
    stream: &TcpStream,
    r: &Responder,
    out: &Out,
    flat: &mut Vec<u8>,
    pending: &mut Vec<u8>,
) -> bool {
    if let Some(bytes) = out.single(r) {
        return write_now(stream, bytes, pending);
    }
    if !pending.is_empty() {
        out.copy_after(r, 0, pending);
        return true;
    }
    let mut iov = [IoSlice::new(&[]); IOV];
    let Some((n, total)) = out.slices(r, &mut iov) else {
        flat.clear();
        out.copy_after(r, 0, flat);
        return write_now(stream, flat, pending);
    };
    match stream.try_io(Interest::WRITABLE, || sys::writev(stream, &iov[..n])) {
        Ok(written) if written == total => true,
        Ok(written) => {
            out.copy_after(r, written, pending);
            true
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            out.copy_after(r, 0, pending);
            true
        }
        Err(_) => false,
    }
}

/// Writes `out` now; what the socket does not take is appended to `pending`. `false` when
/// the socket failed.
#[inline]
fn write_now(stream: &TcpStream, out: &[u8], pending: &mut Vec<u8>) -> bool {
    if !pending.is_empty() {
        pending.extend_from_slice(out);
        return true;
    }
    match stream.try_io(Interest::WRITABLE, || sys::send(stream, out)) {
        Ok(n) if n == out.len() => true,
        Ok(n) => {
            pending.extend_from_slice(&out[n..]);
            true
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            pending.extend_from_slice(out);
            true
        }
        Err(_) => false,
    }
}

/// Reads what the socket has into `buf` (`Ok(0)`: end of input), waiting for it to be
/// readable. A short read means the socket is drained, and tokio is told so (the read
/// reports `WouldBlock` to `try_io`, which then clears the readiness it saw before the read,
/// as tokio's own `poll_read` does), so that the next turn waits instead of reading again
/// only to get `EAGAIN`.
///
/// `full` is this connection's: whether its last read filled `buf` (more may be waiting, and
/// the readiness is still set). Only then is the readiness polled before reading, as tokio's
/// `poll_read` does, so that the task's cooperative budget bounds a client that keeps the
/// socket full. After a short read the readiness is clear and only the runtime can set it
/// again (between polls), so the read is tried first: on a wake-up it finds the readiness
/// the wake set and needs no poll; otherwise `try_io` refuses at once, and the readiness poll
/// that follows registers the waker.
#[inline]
fn poll_recv(
    stream: &TcpStream,
    cx: &mut Context<'_>,
    buf: &mut [u8],
    full: &mut bool,
) -> Poll<io::Result<usize>> {
    if *full {
        ready!(stream.poll_read_ready(cx))?;
    }
    loop {
        let (mut tried, mut drained) = (false, 0);
        let read = stream.try_io(Interest::READABLE, || {
            tried = true;
            let n = sys::recv(stream, buf)?;
            if 0 < n && n < buf.len() {
                drained = n;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            Ok(n)
        });
        match read {
            // The `WouldBlock` of a short read.
            _ if drained > 0 => {
                *full = false;
                return Poll::Ready(Ok(drained));
            }
            // Not readable (`try_io` refused without reading), or readiness without data (it
            // is cleared now): wait.
            Err(e) if !tried || e.kind() == io::ErrorKind::WouldBlock => {
                ready!(stream.poll_read_ready(cx))?;
            }
            read => {
                *full = matches!(read, Ok(n) if n > 0);
                return Poll::Ready(read);
            }
        }
    }
}

/// Writes all of `pending`, waiting for the socket as needed. `false` when the socket failed.
#[cold]
async fn flush(stream: &mut TcpStream, pending: &mut Vec<u8>) -> bool {
    let ok = stream.write_all(pending).await.is_ok();
    // Output queued for a slow reader can be large; give it back.
    *pending = Vec::new();
    ok
}

/// Counts a connection as busy (mid-request) while it is, for the shutdown grace period.
struct Busy<'a> {
    worker: &'a Worker,
    on: bool,
}

impl Busy<'_> {
    fn set(&mut self, on: bool) {
        if on != self.on {
            self.on = on;
            let n = self.worker.busy.get();
            self.worker.busy.set(if on { n + 1 } else { n - 1 });
        }
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.set(false);
    }
}

/// Serves one connection until it closes.
async fn connection(mut stream: TcpStream, peer: IpAddr, worker: Rc<Worker>) {
    let mut conn = Conn::new(peer);
    let mut pending = Vec::new();
    let mut busy = Busy {
        worker: &worker,
        on: false,
    };
    // When the current partial head began, and how many heads were complete then.
    let mut head_since: Option<(Instant, u64)> = None;
    // Whether the last read filled the read buffer (`poll_recv`).
    let mut full = false;
    loop {
        // Between requests (no partial head, nothing mid-request), a batch answered in full
        // leaves everything as it was: wait for the next one within the same poll.
        let between = head_since.is_none() && !busy.on;
        let turn = poll_fn(|cx| {
            loop {
                let turn = ready!(worker.turn(cx, &mut stream, &mut conn, &mut pending, &mut full));
                let idle = matches!(turn, Turn::Fed(Action::Idle));
                if !(between && idle && pending.is_empty() && !worker.draining.get()) {
                    return Poll::Ready(turn);
                }
            }
        });
        let turn = match head_since {
            None => turn.await,
            Some((since, _)) => match tokio::time::timeout_at(since + HEAD_TIMEOUT, turn).await {
                Ok(turn) => turn,
                Err(_) => {
                    worker.expire(&stream, &mut conn);
                    return;
                }
            },
        };
        let Turn::Fed(action) = turn else { return };
        if !pending.is_empty() {
            busy.set(true);
            let final_write = matches!(action, Action::Close { .. });
            let flushed = if final_write {
                tokio::time::timeout(FINAL_WRITE_TIME, flush(&mut stream, &mut pending))
                    .await
                    .unwrap_or(false)
            } else {
                flush(&mut stream, &mut pending).await
            };
            if !flushed {
                return;
            }
        }
        match action {
            Action::Idle => {
                head_since = None;
                busy.set(false);
                if worker.draining.get() {
                    return;
                }
            }
            Action::Head => {
                busy.set(true);
                let heads = conn.heads();
                if head_since.is_none_or(|(_, h)| h != heads) {
                    head_since = Some((Instant::now(), heads));
                }
            }
            Action::Body => {
                busy.set(true);
                head_since = None;
            }
            Action::Close { linger } => {
                if linger {
                    busy.set(true);
                    linger_close(&worker, &mut stream).await;
                }
                return;
            }
        }
    }
}

/// Shuts the write side down, then discards input until the client closes (bounded in time
/// and bytes), so that unread input does not turn the close into a reset that destroys the
/// answer before the client reads it.
#[cold]
async fn linger_close(worker: &Worker, stream: &mut TcpStream) {
    if stream.shutdown().await.is_err() {
        return;
    }
    let drain = async {
        let mut total = 0;
        loop {
            let n = poll_fn(|cx| worker.discard(cx, stream)).await;
            total += n;
            if n == 0 || total > LINGER_BYTES {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(LINGER_TIME, drain).await;
}

/// Whether an accept error means the process is out of a resource (back off), rather than
/// one connection having failed before it was accepted (accept again at once).
/// Accepts connections on `listener` until `shutdown` fires (TCP_NODELAY, back-off on
/// EMFILE and the like: [`serve::net::accept`]).
async fn accept_loop(listener: TcpListener, worker: &Rc<Worker>, shutdown: &mut Shutdown) {
    while let Some((stream, peer)) = serve::net::accept(&listener, shutdown).await {
        tokio::task::spawn_local(connection(stream, peer.ip(), Rc::clone(worker)));
    }
}

/// Serves HTTP/1.1 on `listener` until `shutdown` fires, then stops accepting, lets requests
/// in flight finish (at most [`SHUTDOWN_GRACE`]) and returns. Runs on the calling thread's
/// current-thread runtime; connections still open when it returns are dropped with it.
pub async fn serve(listener: TcpListener, config: Arc<Config>, mut shutdown: Shutdown) {
    let worker = Rc::new(Worker::new(config.auth_token.as_bytes()));
    let local = LocalSet::new();
    // The accept loop is a task of its own: `run_until` polls its future each time any task
    // of the set is woken, and a join handle is cheaper to poll than the accept loop (the
    // listener's readiness and the shutdown signal) on every batch of requests.
    let main = local.spawn_local(async move {
        accept_loop(listener, &worker, &mut shutdown).await;
        worker.draining.set(true);
        // Leave a margin inside the grace period for the runtime to wind down.
        let deadline = Instant::now() + SHUTDOWN_GRACE - Duration::from_millis(500);
        while worker.busy.get() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let _ = local.run_until(main).await;
}
