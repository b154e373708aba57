//! `head::parse`, the fast path for plain request heads, held to httparse: whatever head the
//! fast path accepts, httparse parses to the same method, target, version, fields and length;
//! and the heads the load tools send are all taken by the fast path (else it would be a path
//! that is never used).

use std::mem::MaybeUninit;

use proptest::prelude::*;
use server_prebuilt::head;

/// What a parser made of a head: its length, method, target, version and fields.
type Parsed = (usize, String, String, u8, Vec<(String, Vec<u8>)>);

const FIELDS: usize = 64;

fn fast(buf: &[u8]) -> Option<Parsed> {
    let mut fields = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; FIELDS];
    let (n, r) = head::parse(buf, &mut fields)?;
    Some((
        n,
        r.method?.to_string(),
        r.path?.to_string(),
        r.version?,
        r.headers
            .iter()
            .map(|h| (h.name.to_string(), h.value.to_vec()))
            .collect(),
    ))
}

fn slow(buf: &[u8]) -> Result<httparse::Status<Parsed>, httparse::Error> {
    let mut fields = [httparse::EMPTY_HEADER; FIELDS];
    let mut r = httparse::Request::new(&mut fields);
    Ok(match r.parse(buf)? {
        httparse::Status::Complete(n) => httparse::Status::Complete((
            n,
            r.method.unwrap_or_default().to_string(),
            r.path.unwrap_or_default().to_string(),
            r.version.unwrap_or(9),
            r.headers
                .iter()
                .map(|h| (h.name.to_string(), h.value.to_vec()))
                .collect(),
        )),
        httparse::Status::Partial => httparse::Status::Partial,
    })
}

/// The fast path either declines or agrees with httparse exactly.
fn agree(buf: &[u8]) -> Result<(), TestCaseError> {
    if let Some(f) = fast(buf) {
        prop_assert_eq!(
            slow(buf),
            Ok(httparse::Status::Complete(f.clone())),
            "fast path accepted {:?} as {:?}",
            String::from_utf8_lossy(buf),
            f
        );
    }
    Ok(())
}

/// The heads load tools and clients send, as they send them.
const TOOLS: [&[u8]; 7] = [
    // loadgen (keep-alive, and HTTP/1.0 keep-alive)
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
    b"GET /hello HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nConnection: Keep-Alive\r\n\r\n",
    // wrk
    b"GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
    // ab -k
    b"GET /hello HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n",
    // curl, with the token
    b"GET /api/private HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nAuthorization: Bearer bench-token\r\n\r\n",
    // k6
    b"GET /api?name=John&lastname=Doe HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Grafana k6/1.1.0\r\nAccept-Encoding: gzip\r\n\r\n",
    // a body announced, trailing spaces and a tab in values
    b"POST /api/hello HTTP/1.1\r\nHost:127.0.0.1\r\nContent-Length: 5 \r\nX-A:\t a b\t\r\nX-Empty:\r\n\r\nhello",
];

#[test]
fn the_tools_heads_take_the_fast_path_and_agree() {
    for head in TOOLS {
        let f = fast(head).unwrap_or_else(|| {
            panic!("declined: {:?}", String::from_utf8_lossy(head));
        });
        assert_eq!(
            slow(head),
            Ok(httparse::Status::Complete(f.clone())),
            "{:?}",
            String::from_utf8_lossy(head)
        );
    }
    let (_, _, _, _, fields) = fast(TOOLS[6]).unwrap();
    assert_eq!(fields[1], ("Content-Length".into(), b"5".to_vec()));
    assert_eq!(fields[2], ("X-A".into(), b"a b".to_vec()));
    assert_eq!(fields[3], ("X-Empty".into(), b"".to_vec()));
}

#[test]
fn what_it_declines() {
    for head in [
        &b"GET / HTTP/1.1\r\nHost: a\r\n"[..],        // incomplete
        b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",     // a leading empty line (httparse skips it)
        b"GET / HTTP/1.1\nHost: a\n\n",               // bare LF
        b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n",        // two spaces
        b"GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", // non-ASCII target
        b"GET / HTTP/1.2\r\nHost: a\r\n\r\n",         // another version
        b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",        // space before the colon
        b"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",      // obs-fold
        b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",         // bare CR in a value
        b"GET / HTTP/1.1\r\nX: a\x00\r\n\r\n",        // NUL
        b"GET / HTTP/1.1\r\nX: a\x7f\r\n\r\n",        // DEL
    ] {
        assert_eq!(fast(head), None, "{:?}", String::from_utf8_lossy(head));
    }
    // More fields than the slots given: declined, so that httparse says TooManyHeaders.
    let mut many = b"GET / HTTP/1.1\r\n".to_vec();
    for i in 0..FIELDS + 1 {
        many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    assert_eq!(fast(&many), None);
}

/// Pieces of heads: the right ones and near misses.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"GET".to_vec()),
        Just(b"HEAD".to_vec()),
        Just(b"POST".to_vec()),
        Just(b"get".to_vec()),
        Just(b" ".to_vec()),
        Just(b"  ".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"/".to_vec()),
        Just(b"/api?name=a%20b".to_vec()),
        Just(b"http://h/x".to_vec()),
        Just(b"HTTP/1.1".to_vec()),
        Just(b"HTTP/1.0".to_vec()),
        Just(b"HTTP/1.".to_vec()),
        Just(b"HTTP/2.0".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"Host".to_vec()),
        Just(b"Content-Length".to_vec()),
        Just(b":".to_vec()),
        Just(b": ".to_vec()),
        Just(b" :".to_vec()),
        Just(b"a b".to_vec()),
        Just(b"127.0.0.1:80".to_vec()),
        Just(vec![0x00]),
        Just(vec![0x7f]),
        Just(vec![0x80]),
        Just(vec![0xff]),
        proptest::collection::vec(any::<u8>(), 0..6),
        "[!-~]{1,8}".prop_map(|s| s.into_bytes()),
    ]
}

/// A well-formed head from parts, so that most cases are near the accepted shape.
fn plain_head() -> impl Strategy<Value = Vec<u8>> {
    (
        "[A-Z]{1,7}",
        "/[!-~]{0,20}",
        prop_oneof![Just("HTTP/1.1"), Just("HTTP/1.0")],
        proptest::collection::vec(
            ("[!#-'*+.0-9A-Z^-z|~-]{1,12}", "[ \t]{0,2}", "[ -~\t]{0,20}"),
            0..6,
        ),
    )
        .prop_map(|(m, t, v, fields)| {
            let mut h = format!("{m} {t} {v}\r\n").into_bytes();
            for (name, ws, value) in fields {
                h.extend_from_slice(format!("{name}:{ws}{value}\r\n").as_bytes());
            }
            h.extend_from_slice(b"\r\n");
            h
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn agrees_on_plain_heads(head in plain_head()) {
        agree(&head)?;
    }

    #[test]
    fn agrees_on_mutated_heads(
        head in plain_head(),
        at in any::<prop::sample::Index>(),
        with in piece(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut h = head.clone();
        let i = at.index(h.len() + 1);
        h.splice(i..i, with);
        agree(&h)?;
        let c = cut.index(h.len() + 1);
        agree(&h[..c])?;
    }

    #[test]
    fn agrees_on_heads_of_pieces(parts in proptest::collection::vec(piece(), 0..24)) {
        agree(&parts.concat())?;
    }

    #[test]
    fn agrees_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..128)) {
        agree(&bytes)?;
    }
}

/// The scans that look at eight bytes at a time: one odd byte at every offset of a long
/// target and of a long value, each side of a word boundary, and the fast path still agrees
/// with httparse (and still takes the plain ones).
#[test]
fn odd_bytes_at_every_offset_of_a_word() {
    for at in 0..20 {
        for odd in [
            0x00, 0x09, 0x1f, b' ', b'\r', b'\n', 0x7e, 0x7f, 0x80, 0xa0, 0xff,
        ] {
            let mut target = b"/abcdefghijklmnopqrstu".to_vec();
            target[1 + at] = odd;
            let mut head = b"GET ".to_vec();
            head.extend_from_slice(&target);
            head.extend_from_slice(b" HTTP/1.1\r\nHost: a\r\n\r\n");
            agree(&head).unwrap();
            assert_eq!(
                fast(&head).is_some(),
                (0x21..=0x7e).contains(&odd),
                "{head:?}"
            );

            let mut value = b"abcdefghijklmnopqrstu".to_vec();
            value[at] = odd;
            let mut head = b"GET / HTTP/1.1\r\nHost: a\r\nX-Long: ".to_vec();
            head.extend_from_slice(&value);
            head.extend_from_slice(b"\r\n\r\n");
            agree(&head).unwrap();
            let plain = odd == b'\t' || odd == b' ' || (0x21..=0x7e).contains(&odd) || odd >= 0x80;
            assert_eq!(fast(&head).is_some(), plain, "{head:?}");
        }
    }
}
