//! The responses one worker thread writes: every fixed answer built once at start-up by the
//! contract crate ([`Prebuilt`]), in each of the three `connection` variants, and patched in
//! place when the `Date` second moves on.
//!
//! A [`Responder`] belongs to one thread and is never shared, so the date patch needs no
//! synchronisation: the thread's own [`Ticker`] says when to patch, and the thread patches its
//! own copies. The few answers whose bytes depend on the request (`/my/ip`, the query echo)
//! are written by [`Responder::dynamic`] from the head's fields and a reused scratch buffer.

use contract::body;
use contract::date::{self, HttpDate, Ticker};
use contract::response::{Connection, Head, Prebuilt, Status};
use contract::route::Endpoint;

/// The answers whose bytes never depend on the request (the date aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixed {
    /// `GET /api/hello`.
    ApiHello,
    /// `GET /`.
    Root,
    /// `GET /hello`.
    Hello,
    /// `GET /api/private` with the right token.
    PrivateOk,
    /// `GET /api/private` without it (401).
    PrivateDenied,
    /// An unknown path (404).
    NotFound,
    /// A known path with another method (405).
    MethodNotAllowed,
}

impl Fixed {
    const ALL: [Fixed; 7] = [
        Fixed::ApiHello,
        Fixed::Root,
        Fixed::Hello,
        Fixed::PrivateOk,
        Fixed::PrivateDenied,
        Fixed::NotFound,
        Fixed::MethodNotAllowed,
    ];

    /// The head and the GET body of this answer.
    fn parts(self) -> (Head, &'static [u8]) {
        let ok = |e: Endpoint| {
            let body = e.fixed_body().unwrap_or_default();
            (Head::ok(e.content_type(), body.len()), body)
        };
        match self {
            Fixed::ApiHello => ok(Endpoint::ApiHello),
            Fixed::Root => ok(Endpoint::Root),
            Fixed::Hello => ok(Endpoint::Hello),
            Fixed::PrivateOk => (
                Head::ok(body::CT_JSON, body::HELLO_JSON.len()),
                body::HELLO_JSON,
            ),
            Fixed::PrivateDenied => {
                let mut head = Head::ok(body::CT_JSON, body::UNAUTHORIZED_JSON.len());
                head.status = Status::Unauthorized;
                (head, body::UNAUTHORIZED_JSON)
            }
            Fixed::NotFound => (Head::empty(Status::NotFound, Connection::Absent), b""),
            Fixed::MethodNotAllowed => (
                Head::empty(Status::MethodNotAllowed, Connection::Absent),
                b"",
            ),
        }
    }
}

/// One fixed answer in one form: what [`Responder::fixed_bytes`] looks up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedId {
    answer: Fixed,
    head: bool,
    connection: Connection,
}

impl FixedId {
    /// The answer `answer` (`head`: its HEAD form) with `connection`.
    #[inline]
    pub fn new(answer: Fixed, head: bool, connection: Connection) -> FixedId {
        FixedId {
            answer,
            head,
            connection,
        }
    }
}

/// The three `connection` variants, in table order.
const CONNECTIONS: [Connection; 3] = [Connection::Absent, Connection::Close, Connection::KeepAlive];

const fn connection_index(c: Connection) -> usize {
    match c {
        Connection::Absent => 0,
        Connection::Close => 1,
        Connection::KeepAlive => 2,
    }
}

/// One thread's response table, date and token.
#[derive(Debug)]
pub struct Responder {
    /// `[fixed answer][HEAD?][connection variant]`.
    table: Vec<[[Prebuilt; 3]; 2]>,
    date: HttpDate,
    ticker: Ticker,
    token: Box<[u8]>,
    scratch: Vec<u8>,
    /// The last `host` value found valid (every request of a load tool, and most of a
    /// client's, carries the same one): `host` is judged again only when it differs.
    host: [u8; HOST_MEMO],
    host_len: u8,
}

/// Whether `a` and `b` hold the same bytes, compared eight at a time in line (a host value is
/// short, and a call to `bcmp` costs more than the comparison).
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |s: &[u8], i: usize| s[i..].first_chunk::<8>().map(|w| u64::from_ne_bytes(*w));
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    // The last eight bytes (overlapping the words before when `n` is not a multiple of 8).
    word(a, n - 8) == word(b, n - 8)
}

/// The longest `host` value [`Responder::valid_host`] remembers.
const HOST_MEMO: usize = 64;

impl Responder {
    /// Builds every fixed answer for `token` (the Bearer token of `/api/private`), dated now.
    pub fn new(token: &[u8]) -> Responder {
        let mut ticker = Ticker::new();
        let date = ticker.poll().unwrap_or_else(date::now);
        let table = Fixed::ALL
            .iter()
            .map(|&f| {
                let (head, body) = f.parts();
                [false, true].map(|is_head| {
                    CONNECTIONS.map(|c| {
                        let body = if is_head { &b""[..] } else { body };
                        Prebuilt::new(head.with_connection(c), body, &date)
                    })
                })
            })
            .collect();
        Responder {
            table,
            date,
            ticker,
            token: token.into(),
            scratch: Vec::with_capacity(4096),
            // Empty: the empty value, which is valid (an empty reg-name).
            host: [0; HOST_MEMO],
            host_len: 0,
        }
    }

    /// Patches every prebuilt answer if the `Date` second has moved on since the last call.
    /// Costs one relaxed atomic load when it has not.
    #[inline]
    pub fn refresh(&mut self) {
        if let Some(date) = self.ticker.poll() {
            self.set_date(&date);
        }
    }

    /// Sets the date value of every answer (tests use it to pin the date).
    #[cold]
    pub fn set_date(&mut self, date: &HttpDate) {
        self.date = *date;
        for p in self.table.iter_mut().flatten().flatten() {
            p.set_date(date);
        }
    }

    /// The current date value.
    pub fn date(&self) -> &HttpDate {
        &self.date
    }

    /// The Bearer token of `/api/private`.
    pub fn token(&self) -> &[u8] {
        &self.token
    }

    /// Whether `value` is a valid `host` field value ([`contract::host::valid`]), remembering
    /// the last valid one so that a repeated value costs one comparison.
    #[inline]
    pub fn valid_host(&mut self, value: &[u8]) -> bool {
        if same(value, &self.host[..usize::from(self.host_len)]) {
            return true;
        }
        self.judge_host(value)
    }

    #[cold]
    #[inline(never)]
    fn judge_host(&mut self, value: &[u8]) -> bool {
        let valid = contract::host::valid(value);
        if valid && value.len() <= HOST_MEMO {
            self.host[..value.len()].copy_from_slice(value);
            self.host_len = value.len() as u8;
        }
        valid
    }

    /// The bytes of a fixed answer (`head`: the HEAD form) with `connection`.
    #[inline]
    pub fn fixed(&self, answer: Fixed, head: bool, connection: Connection) -> &[u8] {
        self.fixed_bytes(FixedId::new(answer, head, connection))
    }

    /// The bytes of the fixed answer `id`.
    #[inline]
    pub fn fixed_bytes(&self, id: FixedId) -> &[u8] {
        let c = connection_index(id.connection);
        self.table[id.answer as usize][usize::from(id.head)][c].bytes()
    }

    /// Appends a 200 `text/plain` answer whose body `fill` writes (into a reused buffer), or
    /// only its head when `head` is set.
    #[inline]
    pub fn dynamic(
        &mut self,
        head: bool,
        connection: Connection,
        out: &mut Vec<u8>,
        fill: impl FnOnce(&mut Vec<u8>),
    ) {
        self.scratch.clear();
        fill(&mut self.scratch);
        Head::ok(body::CT_TEXT, self.scratch.len())
            .with_connection(connection)
            .write(&self.date, out);
        if !head {
            out.extend_from_slice(&self.scratch);
        }
    }

    /// Appends an empty-bodied error answer with `connection: close`.
    #[cold]
    pub fn error(&self, status: Status, out: &mut Vec<u8>) {
        Head::empty(status, Connection::Close).write(&self.date, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Status, fields and head length of `bytes`, exactly one response (conformance's parser).
    fn parse(bytes: &[u8], head: bool) -> (u16, Vec<(String, String)>, usize) {
        let r = conformance::wire::parse_exact(bytes, head).unwrap();
        let n = r.head_len();
        (r.status, r.headers, n)
    }

    #[test]
    fn every_fixed_answer_parses_back() {
        let mut r = Responder::new(b"t");
        r.set_date(b"Sun, 06 Nov 1994 08:49:37 GMT");
        for f in Fixed::ALL {
            let (h, body) = f.parts();
            for head in [false, true] {
                for c in CONNECTIONS {
                    let bytes = r.fixed(f, head, c);
                    let (code, fields, n) = parse(bytes, head);
                    assert_eq!(code, h.status.code());
                    assert_eq!(&bytes[n..], if head { &b""[..] } else { body });
                    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v);
                    assert_eq!(get("content-length"), Some(&body.len().to_string()));
                    assert_eq!(get("date").unwrap(), "Sun, 06 Nov 1994 08:49:37 GMT");
                    assert_eq!(get("connection").map(|s| s.as_str()), c.value());
                    assert_eq!(get("content-type").is_some(), !body.is_empty());
                }
            }
        }
    }

    #[test]
    fn host_memo_judges_as_the_contract_does() {
        let mut r = Responder::new(b"t");
        // The memo starts empty, which needs the empty value to be valid.
        assert!(contract::host::valid(b""));
        let long = [b'a'; HOST_MEMO + 1];
        for v in [
            &b""[..],
            b"127.0.0.1:8080",
            b"127.0.0.1:8080",
            b"a b",
            b"127.0.0.1:8080",
            b"[::1]:80",
            b"h:x",
            &long,
            &long,
            b"x%zz",
            b"[::1]:80",
        ] {
            assert_eq!(r.valid_host(v), contract::host::valid(v), "{v:?}");
        }
    }

    #[test]
    fn dynamic_answer_has_its_length() {
        let mut r = Responder::new(b"t");
        let mut out = Vec::new();
        r.dynamic(false, Connection::Absent, &mut out, |b| {
            b.extend_from_slice(b"::1")
        });
        let (code, fields, n) = parse(&out, false);
        assert_eq!(code, 200);
        assert!(fields.contains(&("content-length".into(), "3".into())));
        assert_eq!(&out[n..], b"::1");
    }
}
