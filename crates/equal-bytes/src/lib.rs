//! A crate with only a test (`tests/equal_bytes.rs`): every Rust variant listed in
//! servers.toml answers each endpoint with the status line, the header field names and the
//! total response length (the `Date` value aside) that `server-hyper` sends, differences
//! documented in servers.toml (a variant's exceptions and extra header fields) aside.
//!
//! The variants run in this test's process, each through its library's own serving entry
//! point on 127.0.0.1:0 (the binaries are thin wrappers around it; `server-reuseport`'s worker
//! processes run `server-prebuilt`'s engine), so the test always judges the code it was built
//! with, with no binary of another package to find or to go stale.
#![deny(missing_docs)]
