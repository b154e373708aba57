//! The ready line: the one line a server prints on stdout once its socket listens,
//! `listening on http://HOST:PORT`, with the real port (also when port 0 was asked for).
//!
//! Servers write it with [`announce`]; tests, `bench`, `deploy` and the SO_REUSEPORT
//! supervisor read it with [`parse`]. Nothing else in the workspace spells it out.

use std::io::{self, Write};
use std::net::SocketAddr;

/// What every ready line starts with; the bound address follows.
pub const PREFIX: &str = "listening on http://";

/// The ready line for a listener bound to `addr` (no line ending).
pub fn ready_line(addr: SocketAddr) -> String {
    format!("{PREFIX}{addr}")
}

/// Prints the ready line on stdout and flushes it, so a parent reading a pipe sees it now.
pub fn announce(addr: SocketAddr) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{}", ready_line(addr))?;
    out.flush()
}

/// The address in a ready line (`listening on http://127.0.0.1:8080`, `… http://[::1]:80`),
/// with or without its line ending; `None` for any other line.
pub fn parse(line: &str) -> Option<SocketAddr> {
    line.trim_end().strip_prefix(PREFIX)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_lines_parse_back() {
        for addr in ["127.0.0.1:80", "[::1]:8080", "0.0.0.0:65535"] {
            let addr: SocketAddr = addr.parse().unwrap();
            assert_eq!(parse(&ready_line(addr)), Some(addr));
            assert_eq!(parse(&format!("{}\n", ready_line(addr))), Some(addr));
        }
        assert_eq!(
            ready_line("[::1]:80".parse().unwrap()),
            "listening on http://[::1]:80"
        );
    }

    #[test]
    fn other_lines_do_not() {
        assert_eq!(parse("listening on 127.0.0.1:80"), None);
        assert_eq!(parse("listening on http://localhost:80"), None);
        assert_eq!(parse("ready"), None);
        assert_eq!(parse(""), None);
    }
}
