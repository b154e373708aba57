//! RFC 9112 §3.2's Host rule, for the variants that judge request heads themselves.
//!
//! A server answers 400 to an HTTP/1.1 request without a `host` field, to any request with
//! more than one `host` field line, and to a `host` value that is not `uri-host [ ":" port ]`
//! (RFC 3986: an IP-literal in brackets, or a reg-name of unreserved characters,
//! percent-encodings and sub-delims; the port, digits). An HTTP/1.0 request without `host` is
//! served. [`Hosts`] collects the fields of one head without allocating, for a field loop;
//! [`acceptable`] judges an iterator of values at once.

/// The `host` fields of one head, as they are seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hosts {
    count: u32,
    invalid: bool,
}

impl Hosts {
    /// Records one `host` field line with `value` (optional whitespace around it allowed).
    #[inline]
    pub fn add(&mut self, value: &[u8]) {
        self.count = self.count.saturating_add(1);
        self.invalid |= !valid(value);
    }

    /// Whether the head passes the rule (`http11`: the request line says HTTP/1.1).
    #[inline]
    pub fn acceptable(&self, http11: bool) -> bool {
        match self.count {
            0 => !http11,
            1 => !self.invalid,
            _ => false,
        }
    }
}

/// Whether a head whose `host` field values are `values` passes the rule.
pub fn acceptable<'a>(values: impl IntoIterator<Item = &'a [u8]>, http11: bool) -> bool {
    let mut hosts = Hosts::default();
    for v in values {
        hosts.add(v);
    }
    hosts.acceptable(http11)
}

/// Whether `value` is `uri-host [ ":" port ]`. An empty value is a valid (empty) reg-name.
pub fn valid(value: &[u8]) -> bool {
    let v = value.trim_ascii();
    let (host, port) = match v {
        [b'[', inner @ ..] => match inner.iter().position(|&b| b == b']') {
            Some(end) => {
                let literal = &inner[..end];
                let ok = !literal.is_empty()
                    && literal
                        .iter()
                        .all(|&b| unreserved(b) || sub_delim(b) || b == b':');
                if !ok {
                    return false;
                }
                (&[][..], &inner[end + 1..])
            }
            None => return false,
        },
        _ => match v.iter().position(|&b| b == b':') {
            Some(i) => (&v[..i], &v[i..]),
            None => (v, &[][..]),
        },
    };
    let port_ok = match port {
        [] => true,
        [b':', digits @ ..] => digits.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    port_ok && reg_name(host)
}

fn reg_name(host: &[u8]) -> bool {
    let mut i = 0;
    while i < host.len() {
        match host[i] {
            b'%' => {
                let hex = |j: usize| host.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            b if unreserved(b) || sub_delim(b) => i += 1,
            _ => return false,
        }
    }
    true
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_hosts() {
        for v in [
            "",
            "localhost",
            "127.0.0.1",
            "127.0.0.1:8080",
            "[::1]",
            "[::1]:80",
            "example.com:",
            "a%2Db",
            " host ",
            "a,b",
        ] {
            assert!(valid(v.as_bytes()), "{v:?}");
        }
    }

    #[test]
    fn invalid_hosts() {
        for v in [
            "a b", "a/b", "user@a", "a:b", "a:80:80", "[::1", "[]", "::1", "a%2", "a%zz", "a\"b",
            "[::1]x", "a?b", "a#b",
        ] {
            assert!(!valid(v.as_bytes()), "{v:?}");
        }
    }

    #[test]
    fn the_rule() {
        let one: [&[u8]; 1] = [b"h"];
        assert!(acceptable(one, true));
        assert!(acceptable(one, false));
        assert!(!acceptable([], true));
        assert!(acceptable([], false));
        let two: [&[u8]; 2] = [b"h", b"h"];
        assert!(!acceptable(two, true));
        assert!(!acceptable(two, false));
        let bad: [&[u8]; 1] = [b"a b"];
        assert!(!acceptable(bad, true));
    }
}
