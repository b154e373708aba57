//! The request bytes, serialised once before the run.
//!
//! Every request of a run is the same, so each connection writes a slice of one buffer that
//! holds the request repeated `pipeline` times; nothing is formatted on the hot path.

use crate::config::{Config, Mode};

/// Serialises one request for `config` (request line, `Host`, the mode's `Connection`
/// header, the extra headers, a derived `Content-Length` for a body, the body).
pub fn serialise(config: &Config) -> Vec<u8> {
    let t = &config.target;
    let version = match config.mode {
        Mode::KeepAlive | Mode::Close => "HTTP/1.1",
        Mode::Http10 | Mode::Http10KeepAlive => "HTTP/1.0",
    };
    let mut out = format!("{} {} {version}\r\n", config.method, t.path);
    // A `Host` given with `-H` replaces the one taken from the URL.
    if !config
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("host"))
    {
        out.push_str(&format!("Host: {}\r\n", t.host));
    }
    match config.mode {
        Mode::Close => out.push_str("Connection: close\r\n"),
        Mode::Http10KeepAlive => out.push_str("Connection: Keep-Alive\r\n"),
        Mode::KeepAlive | Mode::Http10 => {}
    }
    for (n, v) in &config.headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    if !config.body.is_empty() {
        out.push_str(&format!("Content-Length: {}\r\n", config.body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&config.body);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_body() {
        let mut c = Config::new("http://127.0.0.1:8080/x?y=1").unwrap();
        assert_eq!(
            serialise(&c),
            b"GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".to_vec()
        );
        c.mode = Mode::Http10KeepAlive;
        c.method = "POST".into();
        c.headers.push(("X-A".into(), "b".into()));
        c.body = b"hi".to_vec();
        let req = serialise(&c);
        let mut h = [httparse::EMPTY_HEADER; 8];
        let mut r = httparse::Request::new(&mut h);
        let n = r.parse(&req).unwrap().unwrap();
        assert_eq!((r.method, r.version), (Some("POST"), Some(0)));
        assert_eq!(&req[n..], b"hi");
        assert!(
            r.headers
                .iter()
                .any(|h| h.name == "Content-Length" && h.value == b"2")
        );
        c.headers.push(("host".into(), "example".into()));
        let text = String::from_utf8(serialise(&c)).unwrap();
        assert!(text.contains("host: example\r\n") && !text.contains("Host: 127"));
        c.mode = Mode::Close;
        assert!(
            String::from_utf8(serialise(&c))
                .unwrap()
                .contains("Connection: close\r\n")
        );
    }
}
