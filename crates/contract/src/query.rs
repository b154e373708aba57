//! The query echo of `GET /api?name=A&lastname=B`.
//!
//! The query is `application/x-www-form-urlencoded`: pairs split on `&`, key and value on
//! the first `=`; `+` is a space and `%XX` a byte, while a malformed `%` sequence stays as
//! written. Keys are decoded like values, so `n%61me=X` sets `name`. The first `name` and
//! the first `lastname` count; a missing one is empty. Decoded bytes that are not UTF-8
//! are replaced as [`String::from_utf8_lossy`] does.

/// An iterator over the form-decoded bytes of one key or value.
#[derive(Clone, Debug)]
pub struct Decode<'a> {
    rest: &'a [u8],
}

impl<'a> Decode<'a> {
    /// Decodes `raw` (one key or one value, without `&` or the separating `=`).
    pub fn new(raw: &'a [u8]) -> Self {
        Decode { rest: raw }
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl Iterator for Decode<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let (&b, rest) = self.rest.split_first()?;
        self.rest = rest;
        match b {
            b'+' => Some(b' '),
            b'%' => {
                if let [h, l, tail @ ..] = self.rest
                    && let (Some(h), Some(l)) = (hex(*h), hex(*l))
                {
                    self.rest = tail;
                    return Some(h << 4 | l);
                }
                Some(b'%')
            }
            _ => Some(b),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rest.len().div_ceil(3), Some(self.rest.len()))
    }
}

/// The raw (still encoded) values of the first `name` and the first `lastname`.
pub fn fields(query: &[u8]) -> (Option<&[u8]>, Option<&[u8]>) {
    let mut name = None;
    let mut lastname = None;
    for pair in query.split(|&b| b == b'&') {
        if pair.is_empty() {
            continue;
        }
        let (key, value) = match pair.iter().position(|&b| b == b'=') {
            Some(i) => (&pair[..i], &pair[i + 1..]),
            None => (pair, &pair[pair.len()..]),
        };
        if name.is_none() && Decode::new(key).eq(b"name".iter().copied()) {
            name = Some(value);
        } else if lastname.is_none() && Decode::new(key).eq(b"lastname".iter().copied()) {
            lastname = Some(value);
        }
        if name.is_some() && lastname.is_some() {
            break;
        }
    }
    (name, lastname)
}

/// Appends the decoded `raw` to `out`, replacing bytes that are not UTF-8 as
/// [`String::from_utf8_lossy`] does. Allocates only when that replacement is needed.
pub fn push_decoded(raw: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend(Decode::new(raw));
    if std::str::from_utf8(&out[start..]).is_err() {
        replace_invalid(out, start);
    }
}

#[cold]
fn replace_invalid(out: &mut Vec<u8>, start: usize) {
    let fixed = String::from_utf8_lossy(&out[start..]).into_owned();
    out.truncate(start);
    out.extend_from_slice(fixed.as_bytes());
}

/// Appends the query echo's body (`Hey <name> <lastname>`) for `query` to `out`.
pub fn write_echo(query: Option<&[u8]>, out: &mut Vec<u8>) {
    let (name, lastname) = fields(query.unwrap_or_default());
    out.extend_from_slice(crate::body::ECHO_PREFIX);
    push_decoded(name.unwrap_or_default(), out);
    out.push(b' ');
    push_decoded(lastname.unwrap_or_default(), out);
}

/// The query echo's body for `query` (the part after `?`, if there was one).
pub fn echo_body(query: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + query.map_or(0, <[u8]>::len));
    write_echo(query, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn echo(q: &str) -> String {
        String::from_utf8(echo_body(Some(q.as_bytes()))).unwrap()
    }

    #[test]
    fn contract_examples() {
        assert_eq!(echo("name=A&lastname=B"), "Hey A B");
        assert_eq!(echo("lastname=B&name=A"), "Hey A B");
        assert_eq!(
            echo("name=John+Paul&lastname=O%27Neil"),
            "Hey John Paul O'Neil"
        );
        assert_eq!(echo("name=A"), "Hey A ");
        assert_eq!(echo(""), "Hey  ");
        assert_eq!(String::from_utf8(echo_body(None)).unwrap(), "Hey  ");
        assert_eq!(echo("name=A&name=C&lastname=B&lastname=D"), "Hey A B");
        assert_eq!(echo("n%61me=X&lastname=Y"), "Hey X Y");
        assert_eq!(echo("name=%zz&lastname=%4"), "Hey %zz %4");
        assert_eq!(echo("name=%%41&lastname=100%"), "Hey %A 100%");
        assert_eq!(echo("name=%FF&lastname=%C3%A9"), "Hey \u{FFFD} é");
        assert_eq!(echo("name&lastname=B"), "Hey  B");
        assert_eq!(echo("name=a=b&&lastname=<b>"), "Hey a=b <b>");
        assert_eq!(echo("name=%26&lastname=%3D"), "Hey & =");
    }

    /// What a form encoder (`application/x-www-form-urlencoded`) produces for `s`.
    fn form_encode(s: &str) -> String {
        let mut out = String::new();
        for &b in s.as_bytes() {
            match b {
                b' ' => out.push('+'),
                b'*' | b'-' | b'.' | b'_' => out.push(b as char),
                _ if b.is_ascii_alphanumeric() => out.push(b as char),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    }

    proptest! {
        #[test]
        fn never_panics_and_is_utf8(q in proptest::collection::vec(any::<u8>(), 0..200)) {
            let body = echo_body(Some(&q));
            prop_assert!(body.starts_with(b"Hey "));
            prop_assert!(std::str::from_utf8(&body).is_ok());
        }

        #[test]
        fn round_trips_a_form_encoder(name in ".{0,20}", last in ".{0,20}", other in ".{0,10}") {
            let q = format!(
                "{}={}&name={}&lastname={}&name=ignored",
                form_encode(&other), form_encode(&other), form_encode(&name), form_encode(&last)
            );
            // A pair keyed `other` must not shadow the real fields unless it is one of them.
            prop_assume!(other != "name" && other != "lastname");
            prop_assert_eq!(echo(&q), format!("Hey {name} {last}"));
        }

        #[test]
        fn decode_matches_lossy(v in proptest::collection::vec(any::<u8>(), 0..64)) {
            let encoded: String = v.iter().map(|b| format!("%{b:02x}")).collect();
            let mut out = Vec::new();
            push_decoded(encoded.as_bytes(), &mut out);
            prop_assert_eq!(out, String::from_utf8_lossy(&v).as_bytes().to_vec());
        }
    }
}
