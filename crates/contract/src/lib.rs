//! The endpoint contract of the workspace, written once.
//!
//! `docs/contract.md` says what every server answers, byte for byte. This crate is its
//! executable form for the Rust variants:
//!
//! - [`body`]: bodies, content types and limits;
//! - [`route`]: which endpoint a method and request target select;
//! - [`query`]: the query echo's form decoder;
//! - [`auth`]: the constant-time Bearer-token check of `/api/private`;
//! - [`host`]: RFC 9112 §3.2's Host rule (one valid `host` field; none only on HTTP/1.0);
//! - [`peer`]: the peer address as `/my/ip` shows it;
//! - [`scenario`]: the work behind the event-loop scenarios;
//! - [`json`]: the JSON bodies as serde types, for the framework variants;
//! - [`response`]: response heads and whole prebuilt responses, derived from the bodies;
//! - [`date`]: the `Date` value, cached and refreshed once a second without data races.
//!
//! How a server starts, listens, announces itself and stops (flags, binding, the ready line,
//! signals, workers) is not the wire contract: that is the `serve` crate. This crate depends on
//! no runtime, so any server, in any style, can take its bytes.
#![deny(missing_docs)]

pub mod auth;
pub mod body;
pub mod date;
pub mod host;
pub mod json;
pub mod peer;
pub mod query;
pub mod response;
pub mod route;
pub mod scenario;

pub use route::{Endpoint, Method, Route};
