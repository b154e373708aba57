//! Where [`Conn::feed`](crate::Conn::feed) puts its answers: a [`Sink`].
//!
//! A `Vec<u8>` is the plain sink: every answer copied in, byte for byte (the tests and the
//! fuzz target read it). An [`Out`] is the socket loop's: bytes written out (errors, the
//! dynamic answers, `100 Continue`) go to its buffer as before, but a fixed answer is kept as
//! a reference into the thread's [`Responder`] table, so that the write takes the prebuilt
//! bytes from where they are ([`Out::slices`], one vectored write) instead of copying them
//! first. [`Out::for_each`] walks the same segments in order for what the socket does not
//! take at once.

use std::io::IoSlice;

use crate::responses::{FixedId, Responder};

/// Where answers are appended, in order.
pub trait Sink {
    /// The buffer for answer bytes written out.
    fn bytes(&mut self) -> &mut Vec<u8>;
    /// Appends the fixed answer `id` of `r`'s table.
    fn fixed(&mut self, r: &Responder, id: FixedId);
}

impl Sink for Vec<u8> {
    #[inline]
    fn bytes(&mut self) -> &mut Vec<u8> {
        self
    }

    #[inline]
    fn fixed(&mut self, r: &Responder, id: FixedId) {
        self.extend_from_slice(r.fixed_bytes(id));
    }
}

/// Answers as bytes and references to fixed answers; one thread's, reused turn after turn.
#[derive(Debug, Default)]
pub struct Out {
    bytes: Vec<u8>,
    /// Each fixed answer, with the length `bytes` had when it was appended (where it goes).
    fixed: Vec<(usize, FixedId)>,
}

impl Sink for Out {
    #[inline]
    fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    #[inline]
    fn fixed(&mut self, _: &Responder, id: FixedId) {
        self.fixed.push((self.bytes.len(), id));
    }
}

impl Out {
    /// An empty output with room for `bytes` bytes and `fixed` fixed answers.
    pub fn with_capacity(bytes: usize, fixed: usize) -> Out {
        Out {
            bytes: Vec::with_capacity(bytes),
            fixed: Vec::with_capacity(fixed),
        }
    }

    /// Forgets every answer (keeps the room).
    #[inline]
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.fixed.clear();
    }

    /// Whether no answer has been appended.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty() && self.fixed.is_empty()
    }

    /// Calls `f` with every segment in order (none of them empty), fixed answers taken from
    /// `r`, the responder that was fed.
    #[inline]
    pub fn for_each<'a>(&'a self, r: &'a Responder, mut f: impl FnMut(&'a [u8])) {
        let mut at = 0;
        for &(pos, id) in &self.fixed {
            if pos > at {
                f(&self.bytes[at..pos]);
                at = pos;
            }
            f(r.fixed_bytes(id));
        }
        if self.bytes.len() > at {
            f(&self.bytes[at..]);
        }
    }

    /// The only segment, when there is exactly one (one answer: written as it is).
    #[inline]
    pub fn single<'a>(&'a self, r: &'a Responder) -> Option<&'a [u8]> {
        match (&self.fixed[..], self.bytes.is_empty()) {
            ([(_, id)], true) => Some(r.fixed_bytes(*id)),
            ([], false) => Some(&self.bytes),
            _ => None,
        }
    }

    /// Fills `iov` with the segments in order and returns how many and their total length;
    /// `None` when they do not all fit.
    #[inline]
    pub fn slices<'a>(
        &'a self,
        r: &'a Responder,
        iov: &mut [IoSlice<'a>],
    ) -> Option<(usize, usize)> {
        let (mut n, mut total) = (0, 0);
        let mut fits = true;
        self.for_each(r, |s| match iov.get_mut(n) {
            Some(slot) => {
                *slot = IoSlice::new(s);
                n += 1;
                total += s.len();
            }
            None => fits = false,
        });
        fits.then_some((n, total))
    }

    /// Appends every byte after the first `skip` to `dst`.
    pub fn copy_after(&self, r: &Responder, mut skip: usize, dst: &mut Vec<u8>) {
        self.for_each(r, |s| {
            if skip >= s.len() {
                skip -= s.len();
            } else {
                dst.extend_from_slice(&s[skip..]);
                skip = 0;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Conn, Responder};

    /// The same input gives the same bytes through an `Out` as through a `Vec`, whichever way
    /// the `Out` is read back.
    #[test]
    fn out_reads_back_as_the_plain_bytes() {
        let mut r = Responder::new(b"t");
        let inputs: [&[u8]; 6] = [
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /my/ip HTTP/1.1\r\nHost: x\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /api?name=a HTTP/1.1\r\nHost: x\r\n\r\nGET /api/hello HTTP/1.1\r\nHost: x\r\n\r\n",
            b"POST /api/hello HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhiGET / HTTP/1.1\r\nHost: x\r\n\r\n",
            b"POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /my/ip HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n",
        ];
        for input in inputs {
            let peer = "127.0.0.1".parse().unwrap();
            let mut plain = Vec::new();
            let a = Conn::new(peer).feed(&mut r, input, &mut plain);
            let mut out = Out::default();
            let b = Conn::new(peer).feed(&mut r, input, &mut out);
            assert_eq!(a, b);
            let mut walked = Vec::new();
            out.for_each(&r, |s| {
                assert!(!s.is_empty());
                walked.extend_from_slice(s)
            });
            assert_eq!(walked, plain);
            let mut iov = [IoSlice::new(&[]); 16];
            let (n, total) = out.slices(&r, &mut iov).unwrap();
            assert_eq!(total, plain.len());
            let joined: Vec<u8> = iov[..n].iter().flat_map(|s| s.iter().copied()).collect();
            assert_eq!(joined, plain);
            assert!(out.slices(&r, &mut iov[..n - 1]).is_none() || n == 0);
            if let Some(s) = out.single(&r) {
                assert_eq!(s, &plain[..]);
            }
            for skip in [0, 1, plain.len() / 2, plain.len()] {
                let mut rest = Vec::new();
                out.copy_after(&r, skip, &mut rest);
                assert_eq!(rest, plain[skip..]);
            }
        }
    }
}
