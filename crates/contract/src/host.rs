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
    if let [b'[', inner @ ..] = v {
        return ip_literal(inner);
    }
    // One pass over a reg-name (a byte table: this runs on every request), then the port.
    let mut i = 0;
    while i < v.len() {
        match HOST[v[i] as usize] {
            REG => i += 1,
            PCT => {
                let hex = |j: usize| v.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            COLON => return v[i + 1..].iter().all(u8::is_ascii_digit),
            _ => return false,
        }
    }
    true
}

/// After the `[`: an IP-literal's characters up to `]`, then an optional `:port`.
#[cold]
fn ip_literal(inner: &[u8]) -> bool {
    let Some(end) = inner.iter().position(|&b| b == b']') else {
        return false;
    };
    let literal = &inner[..end];
    let ok = !literal.is_empty()
        && literal
            .iter()
            .all(|&b| HOST[b as usize] == REG || b == b':');
    ok && match &inner[end + 1..] {
        [] => true,
        [b':', digits @ ..] => digits.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// Byte classes of a `host` value: not allowed, a reg-name character (RFC 3986 unreserved or
/// sub-delims), `%`, `:`.
const NO: u8 = 0;
const REG: u8 = 1;
const PCT: u8 = 2;
const COLON: u8 = 3;

static HOST: [u8; 256] = {
    let mut t = [NO; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            ) {
            REG
        } else if b == b'%' {
            PCT
        } else if b == b':' {
            COLON
        } else {
            NO
        };
        i += 1;
    }
    t
};

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
