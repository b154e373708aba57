//! Binding listeners, accepting connections and the file-descriptor limit.
//!
//! [`bind_workers`] binds one listener per worker. With one worker it is a plain socket; with
//! more, every listener sets SO_REUSEPORT so the kernel spreads connections across them. A
//! probe bind without SO_REUSEPORT comes first, so a port already held by another process
//! (even one that also uses SO_REUSEPORT) is reported as taken instead of silently shared,
//! and so port 0 is resolved once for all workers.

use std::fmt;
use std::io;
use std::net::{SocketAddr, TcpListener};

use socket2::{Domain, Protocol, Socket, Type};

/// The listen backlog of every listener.
pub const BACKLOG: i32 = 4096;

/// A listener that could not be bound, with the address, for a one-line report.
#[derive(Debug)]
pub struct BindError {
    /// The address asked for.
    pub addr: SocketAddr,
    /// What the system said.
    pub source: io::Error,
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.source.kind() {
            io::ErrorKind::AddrInUse => "address already in use".to_string(),
            io::ErrorKind::AddrNotAvailable => "address not available on this machine".to_string(),
            io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => self.source.to_string(),
        };
        write!(f, "cannot listen on {}: {what}", self.addr)
    }
}

impl std::error::Error for BindError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn socket_for(addr: SocketAddr) -> io::Result<Socket> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    Ok(socket)
}

/// Binds and listens on `addr` (backlog [`BACKLOG`], non-blocking), with SO_REUSEPORT when
/// `reuse_port` is set.
pub fn bind(addr: SocketAddr, reuse_port: bool) -> Result<TcpListener, BindError> {
    let err = |source| BindError { addr, source };
    let socket = socket_for(addr).map_err(err)?;
    if reuse_port {
        socket.set_reuse_port(true).map_err(err)?;
    }
    socket.bind(&addr.into()).map_err(err)?;
    socket.listen(BACKLOG).map_err(err)?;
    socket.set_nonblocking(true).map_err(err)?;
    Ok(socket.into())
}

/// Checks that `addr` is free by binding it without SO_REUSEPORT, and returns the address
/// with the port the system chose when `addr`'s port is 0.
pub fn probe(addr: SocketAddr) -> Result<SocketAddr, BindError> {
    let err = |source| BindError { addr, source };
    let socket = socket_for(addr).map_err(err)?;
    socket.bind(&addr.into()).map_err(err)?;
    let local = socket.local_addr().map_err(err)?;
    local
        .as_socket()
        .ok_or_else(|| err(io::Error::other("not an IP socket address")))
}

/// Binds `workers` listeners on `addr` (one plain listener when `workers` is 1; otherwise
/// all with SO_REUSEPORT on one port, resolved once when `addr`'s port is 0).
pub fn bind_workers(addr: SocketAddr, workers: usize) -> Result<Vec<TcpListener>, BindError> {
    if workers <= 1 {
        return Ok(vec![bind(addr, false)?]);
    }
    let addr = probe(addr)?;
    (0..workers).map(|_| bind(addr, true)).collect()
}

/// Raises the soft RLIMIT_NOFILE to the hard limit and returns the new soft limit, so that
/// 10,000 connections work without shell tuning.
pub fn raise_nofile_limit() -> io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid, writable rlimit for getrlimit to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if lim.rlim_cur < lim.rlim_max {
        lim.rlim_cur = lim.rlim_max;
        // SAFETY: `lim` is a valid rlimit whose soft value does not exceed its hard value.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(lim.rlim_cur)
}

/// The longest pause of [`accept`] after a resource error such as EMFILE.
pub const MAX_ACCEPT_BACKOFF: std::time::Duration = std::time::Duration::from_secs(1);

/// Accepts the next connection on `listener`, or returns `None` once `shutdown` fires.
///
/// The accept loop of every tokio variant: TCP_NODELAY is set on the accepted socket (small
/// answers must not wait for Nagle's algorithm); errors that concern one client (reset,
/// aborted before `accept` returned) are skipped quietly; running out of descriptors or
/// memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) pauses with a doubling back-off (10 ms to
/// [`MAX_ACCEPT_BACKOFF`]) and one line on stderr per pause, so the loop neither spins nor
/// dies, and resumes when descriptors are free again.
pub async fn accept(
    listener: &tokio::net::TcpListener,
    shutdown: &mut crate::signal::Shutdown,
) -> Option<(tokio::net::TcpStream, SocketAddr)> {
    let mut backoff = std::time::Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            biased;
            () = shutdown.wait() => return None,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                let _ = stream.set_nodelay(true);
                return Some((stream, peer));
            }
            Err(e) if out_of_resources(&e) => {
                backoff =
                    (backoff * 2).clamp(std::time::Duration::from_millis(10), MAX_ACCEPT_BACKOFF);
                eprintln!("accept failed: {e}; pausing {} ms", backoff.as_millis());
                tokio::select! {
                    biased;
                    () = shutdown.wait() => return None,
                    () = tokio::time::sleep(backoff) => {}
                }
            }
            // The client reset or gave up before `accept` returned: nothing to do.
            Err(_) => tokio::task::yield_now().await,
        }
    }
}

fn out_of_resources(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_share_one_port_and_taken_port_is_refused() {
        let ls = bind_workers("127.0.0.1:0".parse().unwrap(), 3).unwrap();
        let ports: Vec<u16> = ls.iter().map(|l| l.local_addr().unwrap().port()).collect();
        assert!(ports.iter().all(|&p| p == ports[0] && p != 0));
        let taken = ls[0].local_addr().unwrap();
        let e = bind_workers(taken, 2).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::AddrInUse);
        assert!(e.to_string().contains("already in use"));
        assert!(bind_workers(taken, 1).is_err());
    }

    #[test]
    fn nofile_is_raised_to_hard() {
        let soft = raise_nofile_limit().unwrap();
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: valid out-pointer.
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
        assert_eq!(soft, lim.rlim_max);
    }
}
