//! Process behaviour: SIGINT and SIGTERM stop the server with exit 0; a bad flag, a bad
//! address, `--workers 0` and a taken port each exit 2 with one line on stderr.

use conformance::suite::Variant;

const V: Variant = Variant::new("server-actix", env!("CARGO_BIN_EXE_server-actix"));

#[test]
fn signals_exit_zero() {
    V.assert_signals_exit_zero(&[]);
}

#[test]
fn bad_starts_exit_two_with_one_line() {
    V.assert_bad_starts_exit_two();
}

/// E4's remedy must not become the problem (the shared check says how).
#[test]
fn sync_offload_keeps_the_blocking_pool_to_the_cpus() {
    V.assert_offload_pool_capped();
}
