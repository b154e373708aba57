//! The slowloris guard, and the one framing check hyper hides from the service.
//!
//! hyper's own `header_read_timeout` starts counting when a connection goes idle, not at the
//! first byte of the next head, so it would close every idle keep-alive connection after
//! 10 s. Instead, [`HeadTimer`] wraps the socket, watches the bytes as they are read, and
//! arms a 10 s deadline at the first byte of each request head; the service tells it through
//! the shared [`Phase`] when a request is being handled (its head is complete, which disarms
//! the deadline) and when it is done. When hyper waits for more bytes of a head whose
//! deadline has passed, the read fails with `TimedOut` and hyper drops the connection.
//!
//! To know where heads start even when they arrive pipelined behind another request, the
//! wrapper follows the framing of the byte stream with a small scanner: the end of each
//! head (its empty line), the `content-length` body behind it, then the next head. While it
//! scans a head it also notes whether both `content-length` and `transfer-encoding` are
//! present: hyper drops the `content-length` of such a request before the service sees it,
//! so this is the only way to answer it 400 as the contract asks.
//!
//! After a `transfer-encoding` body the scanner loses track of the framing (it does not
//! decode chunks) and starts again at the first byte read once that request is done; a
//! partial head pipelined behind a chunked body in the same read is then not timed.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// Where a connection is in its request cycle, shared by the service and the IO wrapper.
///
/// An epoch counter: even while waiting for a head, odd while a request is handled. The
/// service moves it on twice per request, so head number `k` (from 0) of a connection is
/// handled in epoch `2k + 1`, and is awaited in epoch `2k`.
#[derive(Debug, Default)]
pub struct Phase {
    epoch: AtomicU64,
    /// `2k + 1` when head `k` carried both `content-length` and `transfer-encoding`.
    conflict: AtomicU64,
}

impl Phase {
    /// A new phase: waiting for the first head.
    pub fn new() -> Arc<Phase> {
        Arc::new(Phase::default())
    }

    /// Marks a request as being handled until the returned guard is dropped.
    pub fn handling(self: &Arc<Phase>) -> Handling {
        let awaited = self.epoch.fetch_add(1, Ordering::Relaxed);
        Handling {
            phase: Arc::clone(self),
            conflicting_lengths: self.conflict.load(Ordering::Relaxed) == awaited + 1,
        }
    }

    fn now(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }
}

/// A request being handled; dropping it returns the connection to waiting for a head.
#[derive(Debug)]
pub struct Handling {
    phase: Arc<Phase>,
    /// The request's head had both `content-length` and `transfer-encoding`.
    pub conflicting_lengths: bool,
}

impl Drop for Handling {
    fn drop(&mut self) {
        self.phase.epoch.fetch_add(1, Ordering::Relaxed);
    }
}

/// Where the scanner is in the byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Lost track (after a chunked body, or before the first read): start again with the
    /// next byte read while no request is handled.
    Lost,
    /// At the start of a line of a head; `seen_line` says a non-empty line came before.
    LineStart { seen_line: bool },
    /// Inside a field name (or the request line), `len` bytes so far.
    Name { len: usize },
    /// After the colon of `content-length`, reading its digits.
    Length,
    /// Anywhere else in a line, up to its LF.
    Rest,
    /// Inside a `content-length` body, this many bytes left.
    Body(u64),
}

/// The longest field name the scanner compares (`transfer-encoding`).
const NAME_MAX: usize = 17;

/// Follows heads and `content-length` bodies through the stream (see the module docs).
#[derive(Debug)]
struct Scanner {
    at: At,
    /// The epoch in which the head being scanned is awaited.
    target: u64,
    name: [u8; NAME_MAX],
    length: Option<u64>,
    has_te: bool,
    has_cl: bool,
}

/// What a scanned chunk of bytes revealed.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    /// A head started: the epoch in which it is awaited.
    head_started: Option<u64>,
}

impl Scanner {
    fn new() -> Scanner {
        Scanner {
            at: At::Lost,
            target: 0,
            name: [0; NAME_MAX],
            length: None,
            has_te: false,
            has_cl: false,
        }
    }

    /// Scans `bytes`, read while the connection was in epoch `epoch`.
    fn scan(&mut self, bytes: &[u8], epoch: u64, phase: &Phase) -> Seen {
        let mut seen = Seen::default();
        if self.at != At::Lost && self.target + 1 < epoch {
            // hyper has handled the head this scanner waits for: it is out of step.
            self.at = At::Lost;
        }
        if self.at == At::Lost {
            if epoch % 2 == 1 {
                return seen;
            }
            self.start_head(epoch);
        }
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            match self.at {
                At::Lost => return seen,
                At::Body(left) => {
                    let take = (left.min((bytes.len() - i + 1) as u64)) as usize;
                    i += take - 1;
                    let left = left - take as u64;
                    if left == 0 {
                        self.start_head(self.target + 2);
                    } else {
                        self.at = At::Body(left);
                    }
                    continue;
                }
                At::LineStart { seen_line } => match b {
                    b'\r' => {}
                    b'\n' if seen_line => self.end_head(phase),
                    b'\n' => {}
                    _ => {
                        if !seen_line {
                            // The latest head started in this chunk is the one that may
                            // still be incomplete.
                            seen.head_started = Some(self.target);
                        }
                        self.name[0] = b.to_ascii_lowercase();
                        self.at = At::Name { len: 1 };
                    }
                },
                At::Name { len } => match b {
                    b'\n' => self.at = At::LineStart { seen_line: true },
                    b':' => {
                        let name = &self.name[..len.min(NAME_MAX)];
                        self.at = if name == b"content-length" && len <= NAME_MAX {
                            self.has_cl = true;
                            // Repeated equal values are one length (hyper refuses unequal).
                            self.length = None;
                            At::Length
                        } else {
                            if name == b"transfer-encoding" && len <= NAME_MAX {
                                self.has_te = true;
                            }
                            At::Rest
                        };
                    }
                    _ => {
                        if len < NAME_MAX {
                            self.name[len] = b.to_ascii_lowercase();
                        }
                        self.at = At::Name { len: len + 1 };
                    }
                },
                At::Length => match b {
                    b'0'..=b'9' => {
                        let digit = u64::from(b - b'0');
                        self.length = self
                            .length
                            .unwrap_or(0)
                            .checked_mul(10)
                            .and_then(|n| n.checked_add(digit));
                        if self.length.is_none() {
                            // Too large to be valid: hyper refuses it and closes.
                            self.at = At::Rest;
                        }
                    }
                    b' ' | b'\t' | b'\r' => {}
                    b'\n' => self.at = At::LineStart { seen_line: true },
                    _ => self.at = At::Rest,
                },
                At::Rest => {
                    if b == b'\n' {
                        self.at = At::LineStart { seen_line: true };
                    }
                }
            }
        }
        seen
    }

    fn start_head(&mut self, target: u64) {
        self.at = At::LineStart { seen_line: false };
        self.target = target;
        self.length = None;
        self.has_te = false;
        self.has_cl = false;
    }

    /// The head's empty line: note a conflict, then follow its body.
    fn end_head(&mut self, phase: &Phase) {
        if self.has_te && self.has_cl {
            phase.conflict.store(self.target + 1, Ordering::Relaxed);
        }
        self.at = if self.has_te {
            At::Lost
        } else {
            match self.length {
                Some(n) if n > 0 => At::Body(n),
                _ => {
                    self.start_head(self.target + 2);
                    return;
                }
            }
        };
    }
}

/// A socket wrapper that fails reads once a request head has taken too long.
#[derive(Debug)]
pub struct HeadTimer<S> {
    inner: S,
    phase: Arc<Phase>,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
    /// The epoch in which the head whose deadline is armed is awaited.
    armed: Option<u64>,
    scanner: Scanner,
}

impl<S> HeadTimer<S> {
    /// Wraps `inner`; a head must be complete within `limit` of its first byte. Must be
    /// called inside a tokio runtime with its timer enabled.
    pub fn new(inner: S, phase: Arc<Phase>, limit: Duration) -> Self {
        HeadTimer {
            inner,
            phase,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
            armed: None,
            scanner: Scanner::new(),
        }
    }

    fn on_bytes(&mut self, bytes: &[u8]) {
        let epoch = self.phase.now();
        let seen = self.scanner.scan(bytes, epoch, &self.phase);
        if let Some(target) = seen.head_started
            && self.armed != Some(target)
        {
            self.armed = Some(target);
            self.deadline.as_mut().reset(Instant::now() + self.limit);
        }
    }

    /// Whether an armed deadline for a still-incomplete head has passed (registering the
    /// waker for it otherwise).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        let now = self.phase.now();
        match self.armed {
            Some(target) if target == now => self.deadline.as_mut().poll(cx).is_ready(),
            // A head pipelined behind the request being handled: its turn comes.
            Some(target) if target > now => false,
            // That head is complete (it was handled).
            Some(_) => {
                self.armed = None;
                false
            }
            None => false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadTimer<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.on_bytes(&buf.filled()[before..]);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "request head incomplete after the head timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadTimer<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn timer() -> (
        tokio::io::DuplexStream,
        HeadTimer<tokio::io::DuplexStream>,
        Arc<Phase>,
    ) {
        let (client, server) = tokio::io::duplex(4096);
        let phase = Phase::new();
        let t = HeadTimer::new(server, Arc::clone(&phase), Duration::from_secs(10));
        (client, t, phase)
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn idle_waits_but_a_started_head_expires() {
        let (mut client, mut t, _phase) = timer();
        let mut buf = [0u8; 64];
        let idle = tokio::time::timeout(Duration::from_secs(60), t.read(&mut buf)).await;
        assert!(idle.is_err(), "an idle connection was closed");
        client.write_all(b"G").await.unwrap();
        assert_eq!(t.read(&mut buf).await.unwrap(), 1);
        let start = Instant::now();
        let err = t.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(start.elapsed(), Duration::from_secs(10));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_handled_request_disarms() {
        let (mut client, mut t, phase) = timer();
        let mut buf = [0u8; 64];
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        assert!(t.read(&mut buf).await.unwrap() > 0);
        drop(phase.handling());
        let idle = tokio::time::timeout(Duration::from_secs(70), t.read(&mut buf)).await;
        assert!(idle.is_err(), "an idle connection was closed");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_partial_head_pipelined_behind_a_body_expires() {
        let (mut client, mut t, phase) = timer();
        let mut buf = [0u8; 256];
        client
            .write_all(b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HT")
            .await
            .unwrap();
        assert!(t.read(&mut buf).await.unwrap() > 0);
        let start = Instant::now();
        drop(phase.handling());
        let err = t.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(start.elapsed(), Duration::from_secs(10));
    }

    fn scan_all(chunks: &[&[u8]]) -> (Scanner, Arc<Phase>, Vec<Seen>) {
        let phase = Phase::new();
        let mut s = Scanner::new();
        let seen = chunks
            .iter()
            .map(|c| s.scan(c, phase.now(), &phase))
            .collect();
        (s, phase, seen)
    }

    #[test]
    fn scanner_follows_heads_and_bodies() {
        let (s, _, seen) = scan_all(&[
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhel",
            b"lo",
            b"\r\n",
            b"GET / HTTP/1.1\r\n",
        ]);
        assert_eq!(seen[0].head_started, Some(0));
        assert_eq!(seen[1].head_started, Some(2));
        assert_eq!(seen[2].head_started, None);
        // Leading empty lines before a request line do not start a head.
        assert_eq!(seen[3].head_started, None);
        assert_eq!(seen[4].head_started, Some(4));
        assert_eq!(s.target, 4);
    }

    #[test]
    fn scanner_flags_both_lengths_in_either_order() {
        for head in [
            &b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
            b"POST / HTTP/1.1\r\nTRANSFER-ENCODING: chunked\r\ncontent-length:5\n\n",
        ] {
            let (s, phase, _) = scan_all(&[b"GET / HTTP/1.1\r\n\r\n", head]);
            assert_eq!(s.at, At::Lost);
            // Head 0 (the GET) is clean; head 1 is the conflicting one.
            assert!(!phase.handling().conflicting_lengths);
            assert!(phase.handling().conflicting_lengths);
        }
        let (_, phase, _) =
            scan_all(&[b"POST / HTTP/1.1\r\nContent-Length: 0\r\nX-Transfer-Encoding: 1\r\n\r\n"]);
        assert!(!phase.handling().conflicting_lengths);
    }
}
