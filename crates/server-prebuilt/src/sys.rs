//! The socket calls of the hot path — receive, send, gather-send — made as bare system calls
//! on Linux.
//!
//! glibc's `recv`, `send` and `writev` (which std, mio and tokio call) are pthread
//! cancellation points: in a process with more than one thread, each call switches
//! asynchronous cancellation on and off around the system call, about 60 instructions per
//! call (measured under callgrind), a sizeable part of what the server spends on a keep-alive
//! request in user space. No thread here is ever cancelled, so on Linux the calls go to the
//! kernel through `syscall(2)`; elsewhere they are libc's. Readiness stays tokio's: the
//! callers make these calls inside `TcpStream::try_io`.

use std::io::{self, IoSlice};
use std::os::fd::AsRawFd;

use tokio::net::TcpStream;

/// Receives into `buf`: the byte count, 0 at end of input.
#[inline]
pub fn recv(stream: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    let fd = stream.as_raw_fd();
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the whole call and the
    // kernel writes at most that many (null address arguments make `recvfrom` a `recv`);
    // `fd` is `stream`'s, open while it is borrowed.
    let n = unsafe {
        #[cfg(target_os = "linux")]
        {
            libc::syscall(
                libc::SYS_recvfrom,
                libc::c_long::from(fd),
                buf.as_mut_ptr(),
                buf.len(),
                0 as libc::c_long,
                std::ptr::null_mut::<libc::sockaddr>(),
                std::ptr::null_mut::<libc::socklen_t>(),
            )
        }
        #[cfg(not(target_os = "linux"))]
        {
            libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) as libc::c_long
        }
    };
    result(n)
}

/// Sends `buf`: the byte count taken.
#[inline]
pub fn send(stream: &TcpStream, buf: &[u8]) -> io::Result<usize> {
    let fd = stream.as_raw_fd();
    // SAFETY: `buf` is valid for reads of `buf.len()` bytes for the whole call (null address
    // arguments make `sendto` a `send`; MSG_NOSIGNAL as in std's `send`: a closed peer is an
    // error, not a signal); `fd` is `stream`'s, open while it is borrowed.
    let n = unsafe {
        #[cfg(target_os = "linux")]
        {
            libc::syscall(
                libc::SYS_sendto,
                libc::c_long::from(fd),
                buf.as_ptr(),
                buf.len(),
                libc::c_long::from(libc::MSG_NOSIGNAL),
                std::ptr::null::<libc::sockaddr>(),
                0 as libc::c_long,
            )
        }
        #[cfg(not(target_os = "linux"))]
        {
            libc::send(fd, buf.as_ptr().cast(), buf.len(), 0) as libc::c_long
        }
    };
    result(n)
}

/// Sends the slices of `iov` in order: the byte count taken.
#[inline]
pub fn writev(stream: &TcpStream, iov: &[IoSlice<'_>]) -> io::Result<usize> {
    let fd = stream.as_raw_fd();
    // SAFETY: `IoSlice` is ABI-compatible with `struct iovec` on Unix (std guarantees it);
    // `iov.len()` entries follow the pointer, each borrowing bytes valid for reads for the
    // whole call; `fd` is `stream`'s, open while it is borrowed.
    let n = unsafe {
        #[cfg(target_os = "linux")]
        {
            libc::syscall(
                libc::SYS_writev,
                libc::c_long::from(fd),
                iov.as_ptr(),
                iov.len(),
            )
        }
        #[cfg(not(target_os = "linux"))]
        {
            let n = iov.len().min(libc::c_int::MAX as usize) as libc::c_int;
            libc::writev(fd, iov.as_ptr().cast(), n) as libc::c_long
        }
    };
    result(n)
}

/// A system call's return value: a count, or (negative) the error in `errno`.
#[inline]
fn result(n: libc::c_long) -> io::Result<usize> {
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}
