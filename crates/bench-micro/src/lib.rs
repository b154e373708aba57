//! `bench-micro`: E1's criterion micro-benchmarks (`benches/e1.rs`: route matching and the
//! Bearer-token middleware of axum and actix-web, 100,000 operations an iteration). The
//! library is empty; the benchmarks are the crate: `cargo bench -p bench-micro --bench e1`.
#![deny(missing_docs)]
