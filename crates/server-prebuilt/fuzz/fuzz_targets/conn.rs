//! Fuzzes the connection state machine: the input is cut into reads at points the fuzzer
//! chooses, fed to a `Conn`, and every answer must parse back with httparse; the same bytes
//! fed in one piece must give the same output.
#![no_main]

use libfuzzer_sys::fuzz_target;
use server_prebuilt::{Action, Conn, Responder};

const DATE: &[u8; 29] = b"Sun, 06 Nov 1994 08:49:37 GMT";

fn run(r: &mut Responder, pieces: &[&[u8]]) -> (Vec<u8>, Action) {
    let mut conn = Conn::new("127.0.0.1".parse().unwrap());
    let mut out = Vec::new();
    let mut action = Action::Idle;
    for p in pieces {
        action = conn.feed(r, p, &mut out);
        if let Action::Close { .. } = action {
            break;
        }
    }
    // A close's `linger` says whether bytes followed in the same read, which the cuts decide.
    let action = match action {
        Action::Close { .. } => Action::Close { linger: false },
        other => other,
    };
    (out, action)
}

/// Every answer in `out` is a complete response with a content-length that frames it
/// (HEAD answers aside, which the input may contain: those are only checked to parse).
fn check_framing(mut out: &[u8]) {
    while !out.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut resp = httparse::Response::new(&mut headers);
        let n = match resp.parse(out) {
            Ok(httparse::Status::Complete(n)) => n,
            other => panic!("not an answer: {other:?}"),
        };
        if resp.code == Some(100) {
            out = &out[n..];
            continue;
        }
        let len: usize = resp
            .headers
            .iter()
            .find(|h| h.name == "content-length")
            .map(|h| std::str::from_utf8(h.value).unwrap().parse().unwrap())
            .expect("content-length");
        // A HEAD answer has no body: skip to the next "HTTP/1.1 " if the body is not there.
        let rest = &out[n..];
        if rest.len() >= len && (rest.len() == len || rest[len..].starts_with(b"HTTP/1.1 ")) {
            out = &rest[len..];
        } else {
            assert!(
                rest.is_empty() || rest.starts_with(b"HTTP/1.1 "),
                "bad framing"
            );
            out = rest;
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the cut points: every (k+1)-th byte boundary.
    let Some((&step, data)) = data.split_first() else {
        return;
    };
    let step = usize::from(step % 32) + 1;
    let mut r = Responder::new(b"bench-token");
    r.set_date(DATE);
    let pieces: Vec<&[u8]> = data.chunks(step).collect();
    let split = run(&mut r, &pieces);
    let whole = run(&mut r, &[data]);
    assert_eq!(split, whole, "the cuts changed the output");
    check_framing(&split.0);
});
