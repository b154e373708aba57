//! One write per batch of pipelined answers: an IO wrapper that holds hyper's writes until
//! hyper has answered every request it has read.
//!
//! hyper flushes after each answer, so 16 pipelined requests cost 16 `write`s. Its own remedy,
//! `http1::Builder::pipeline_flush(true)` (TechEmpower's hyper entry sets it), skips the flush
//! while its read buffer holds unparsed bytes, and drops the held answers when the connection
//! then ends with bytes still unread: after a pipelined `Connection: close`, or after a 400 to
//! a bad head, the client got nothing (seen with hyper 1.12 in this workspace's conformance
//! suite: `conn.close-mid-pipeline` and every bad-input check with trailing bytes).
//!
//! [`Batch`] does the same at the IO layer and loses nothing. Writes are appended to a buffer,
//! and the buffer goes to the socket once the socket has nothing more to read: hyper reads the
//! socket only when every request it has read is parsed, and it answers them one at a time,
//! so when a read would block, the answers held are complete but for the one in flight. The
//! first such read defers (it wakes the task once), so that the in-flight answer's flush
//! sends everything in one write; a second one in a row, with nothing written between, sends
//! at once (hyper was idle). After a read has blocked, every flush sends. Shutting down, an
//! end of input, and more than [`LIMIT`] bytes held send too.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Bytes held at most before a write must wait for the socket.
pub const LIMIT: usize = 64 * 1024;

/// The wrapper (see the module docs).
#[derive(Debug)]
pub struct Batch<S> {
    inner: S,
    out: Vec<u8>,
    /// How much of `out` the socket has taken.
    sent: usize,
    /// The socket's end of input, seen while answers were still held.
    eof: bool,
    /// The last read of the socket would have blocked (no read since).
    blocked: bool,
    /// A blocked read has deferred sending what is held (see the module docs).
    deferred: bool,
}

impl<S> Batch<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        Batch {
            inner,
            out: Vec::new(),
            sent: 0,
            eof: false,
            blocked: false,
            deferred: false,
        }
    }

    fn held(&self) -> usize {
        self.out.len() - self.sent
    }
}

impl<S: AsyncWrite + Unpin> Batch<S> {
    /// Writes what is held; `Pending` (with the socket's write waker set) until all is taken.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.out.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.out[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.out.clear();
        self.sent = 0;
        self.deferred = false;
        Poll::Ready(Ok(()))
    }

    /// Makes room for more: drains first when [`LIMIT`] bytes are held.
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.held() >= LIMIT {
            ready!(self.poll_drain(cx))?;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Batch<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.eof {
            ready!(this.poll_drain(cx))?;
            return Poll::Ready(Ok(()));
        }
        let (before, room) = (buf.filled().len(), buf.remaining());
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if room > 0 && buf.filled().len() == before && this.held() > 0 => {
                // The end of input: pass it up once the answers are out.
                this.eof = true;
                ready!(this.poll_drain(cx))?;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => {
                this.blocked = true;
                if this.held() == 0 {
                    return Poll::Pending;
                }
                if !this.deferred {
                    // The answer in flight may follow at once: let its flush send all.
                    this.deferred = true;
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                // Idle with answers held: send them. A failed write ends the connection.
                match this.poll_drain(cx) {
                    Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                    _ => Poll::Pending,
                }
            }
            other => {
                this.blocked = false;
                this.deferred = false;
                other
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Batch<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_room(cx))?;
        this.out.extend_from_slice(buf);
        this.deferred = false;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_room(cx))?;
        let mut n = 0;
        for b in bufs {
            this.out.extend_from_slice(b);
            n += b.len();
        }
        this.deferred = false;
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.blocked {
            // Nothing more to read: this answer ends the batch.
            return this.poll_drain(cx);
        }
        // Held while hyper still has requests it read to answer (see `poll_read`).
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

    #[tokio::test]
    async fn writes_wait_for_the_read_that_finds_nothing() {
        let (mut client, server) = duplex(1 << 20);
        let mut b = Batch::new(server);
        b.write_all(b"one ").await.unwrap();
        b.write_all(b"two").await.unwrap();
        b.flush().await.unwrap();
        // Nothing reached the client yet.
        let mut got = [0u8; 16];
        let early =
            tokio::time::timeout(std::time::Duration::from_millis(20), client.read(&mut got)).await;
        assert!(early.is_err(), "sent before the batch ended");
        // A read that finds nothing sends the batch, in one piece.
        let mut sink = [0u8; 8];
        let read = tokio::time::timeout(std::time::Duration::from_millis(20), b.read(&mut sink));
        assert!(read.await.is_err());
        let n = client.read(&mut got).await.unwrap();
        assert_eq!(&got[..n], b"one two");
    }

    #[tokio::test]
    async fn shutdown_and_end_of_input_send_what_is_held() {
        let (mut client, server) = duplex(1 << 20);
        let mut b = Batch::new(server);
        b.write_all(b"answer").await.unwrap();
        client.shutdown().await.unwrap();
        let mut sink = [0u8; 8];
        assert_eq!(b.read(&mut sink).await.unwrap(), 0);
        let mut got = Vec::new();
        b.write_all(b", last").await.unwrap();
        b.shutdown().await.unwrap();
        drop(b);
        client.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"answer, last");
    }

    #[tokio::test]
    async fn at_most_the_limit_is_held() {
        let (mut client, server) = duplex(4 * LIMIT);
        let mut b = Batch::new(server);
        b.write_all(&vec![b'x'; LIMIT]).await.unwrap();
        b.write_all(b"y").await.unwrap();
        let mut got = vec![0u8; LIMIT];
        client.read_exact(&mut got).await.unwrap();
        assert!(got.iter().all(|&c| c == b'x'));
    }
}
