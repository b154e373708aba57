//! The Bearer-token check of `GET /api/private`.
//!
//! Authorised means exactly one `Authorization` field whose value is byte for byte
//! `Bearer ` followed by the token. The comparison runs in constant time for values of
//! the right length (the token's length itself is not secret).

use subtle::ConstantTimeEq;

/// The scheme prefix, with its single space.
pub const BEARER: &[u8] = b"Bearer ";

/// Whether `values` (every `Authorization` field of the request, in order) authorise `token`.
pub fn authorized<'a, I>(values: I, token: &[u8]) -> bool
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut values = values.into_iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    value_matches(value, token)
}

/// Whether one `Authorization` value is `Bearer <token>`, compared in constant time.
pub fn value_matches(value: &[u8], token: &[u8]) -> bool {
    if value.len() != BEARER.len() + token.len() {
        return false;
    }
    let (scheme, given) = value.split_at(BEARER.len());
    (scheme.ct_eq(BEARER) & given.ct_eq(token)).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_exact_value() {
        let t = b"bench-token";
        assert!(authorized([&b"Bearer bench-token"[..]], t));
        assert!(!authorized([], t));
        assert!(!authorized(
            [&b"Bearer bench-token"[..], b"Bearer bench-token"],
            t
        ));
        for bad in [
            &b"bearer bench-token"[..],
            b"Bearer  bench-token",
            b"Bearer bench-token ",
            b"Basic bench-token",
            b"Bearer bench-tokeN",
            b"Bearer ",
            b"",
        ] {
            assert!(!authorized([bad], t), "{bad:?}");
        }
    }
}
