//! The peer address as `GET /my/ip` shows it: `127.0.0.1`, `::1`, and an IPv4-mapped IPv6
//! address as plain IPv4.

use std::io::Write;
use std::net::IpAddr;

/// The address `/my/ip` reports for a peer: IPv4-mapped IPv6 addresses become IPv4.
pub fn canonical(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

/// Appends the text of `/my/ip` for `ip` to `out` (no allocation beyond `out`'s growth).
pub fn write_ip(ip: IpAddr, out: &mut Vec<u8>) {
    // Writing into a Vec cannot fail.
    let _ = write!(out, "{}", canonical(ip));
}

/// The body of `/my/ip` for `ip`.
pub fn ip_body(ip: IpAddr) -> Vec<u8> {
    let mut out = Vec::with_capacity(39);
    write_ip(ip, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(ip_body("127.0.0.1".parse().unwrap()), b"127.0.0.1");
        assert_eq!(ip_body("::1".parse().unwrap()), b"::1");
        assert_eq!(ip_body("::ffff:127.0.0.1".parse().unwrap()), b"127.0.0.1");
        assert_eq!(ip_body("fe80::1".parse().unwrap()), b"fe80::1");
    }
}
