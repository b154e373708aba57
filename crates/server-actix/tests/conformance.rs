//! The shared conformance suite against the real binary, one test per group so that the
//! groups run concurrently (the 61 s idle check is left to `conformance/tests/idle.rs`, which
//! runs it on every variant at once). Error answers are judged strictly; the checks servers.toml lists as this variant's exceptions are skipped (printed as
//! `EXCEPTION name: reason`), and `exceptions_still_apply` shows each still fails.

use conformance::Group;
use conformance::suite::Variant;

const V: Variant = Variant::new("server-actix", env!("CARGO_BIN_EXE_server-actix"));

#[test]
fn core() {
    V.assert_conforms(&[Group::Core], &[]);
}

#[test]
fn core_with_several_workers() {
    V.assert_conforms(&[Group::Core], &["--workers", "2"]);
}

#[test]
fn connection() {
    V.assert_conforms(&[Group::Connection], &[]);
}

#[test]
fn bad_input() {
    V.assert_conforms(&[Group::BadInput], &[]);
}

#[test]
fn rfc9112() {
    V.assert_conforms(&[Group::Rfc9112], &[]);
}

#[test]
fn heavy() {
    V.assert_conforms(&[Group::Heavy], &[]);
}

#[test]
fn scenarios() {
    V.assert_conforms(&[Group::Scenarios], &[]);
}

#[test]
fn exceptions_still_apply() {
    V.assert_exceptions_still_apply(&[], &[]);
}
