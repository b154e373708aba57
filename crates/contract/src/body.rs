//! Response bodies and content types, byte for byte as `docs/contract.md` gives them.
//!
//! Every other crate takes its bytes from here; nothing retypes a body or its length.

/// `content-type` of the JSON endpoints.
pub const CT_JSON: &str = "application/json";
/// `content-type` of the plain-text endpoints.
pub const CT_TEXT: &str = "text/plain; charset=utf-8";

/// Body of `GET /api/hello` and of an authorised `GET /api/private`.
pub const HELLO_JSON: &[u8] = br#"{"message":"Hello World"}"#;
/// Body of `GET /api/private` without the right token (status 401).
pub const UNAUTHORIZED_JSON: &[u8] = br#"{"error":"Unauthorized"}"#;
/// Body of `GET /hello`.
pub const HELLO_TEXT: &[u8] = b"Hello, World";
/// Length of the body of `GET /`.
pub const ROOT_LEN: usize = 1024;
/// Body of `GET /`: 1,024 bytes, each `.`.
pub const ROOT_BODY: &[u8; ROOT_LEN] = &[b'.'; ROOT_LEN];
/// [`ROOT_BODY`] as text, for handlers that answer with a `&str`.
pub const ROOT_TEXT: &str = match std::str::from_utf8(ROOT_BODY) {
    Ok(s) => s,
    Err(_) => panic!("the root body is ASCII"),
};
/// [`HELLO_TEXT`] as text, for handlers that answer with a `&str`.
pub const HELLO_STR: &str = match std::str::from_utf8(HELLO_TEXT) {
    Ok(s) => s,
    Err(_) => panic!("the hello body is ASCII"),
};

/// Body of `GET /api/async`.
pub const ASYNC_JSON: &[u8] = br#"{"code":200,"msg":"success","data":"async"}"#;
/// Body of `GET /api/sync` and `GET /api/sync-offload`.
pub const SYNC_JSON: &[u8] = br#"{"code":200,"data":49999995000000}"#;
/// Body of `GET /api/nexttick`.
pub const NEXTTICK_JSON: &[u8] = br#"{"code":200,"msg":"nexttick"}"#;
/// Body of `GET /api/timer`.
pub const TIMER_JSON: &[u8] = br#"{"code":200,"msg":"timer"}"#;

/// Prefix of the query echo's body (`Hey <name> <lastname>`).
pub const ECHO_PREFIX: &[u8] = b"Hey ";

/// The default Bearer token of `/api/private` (env `AUTH_TOKEN` overrides it).
pub const DEFAULT_AUTH_TOKEN: &str = "bench-token";

/// The value of `allow` on every 405.
pub const ALLOW: &str = "GET, HEAD";

/// Largest request body a server reads and discards (`content-length` or decoded chunked size).
pub const MAX_BODY: u64 = 1_048_576;
/// Largest request head, from the request line's first byte through the CRLF CRLF.
pub const MAX_HEAD: usize = 8_192;
/// A request head still incomplete this long after its first byte is closed (slowloris).
pub const HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// How long in-flight requests may take to finish after SIGINT/SIGTERM.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_the_contracts() {
        assert_eq!(HELLO_JSON.len(), 25);
        assert_eq!(HELLO_TEXT.len(), 12);
        assert!(ROOT_BODY.iter().all(|&b| b == 0x2E));
        assert_eq!(ROOT_BODY.len(), 1024);
    }
}
