//! The shared conformance suite against the real binary, one test per group so that the
//! groups run concurrently (the 61 s idle check is left to `conformance/tests/idle.rs`, which
//! runs it on every variant at once). Error answers are judged strictly: hyper's own error answers meet that too, so no leniency is needed here.

use conformance::Group;
use conformance::suite::Variant;

const V: Variant = Variant::new("server-hyper", env!("CARGO_BIN_EXE_server-hyper"));

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
fn scenarios() {
    V.assert_conforms(&[Group::Scenarios], &[]);
}

#[test]
fn rfc9112() {
    V.assert_conforms(&[Group::Rfc9112], &[]);
}

#[test]
fn heavy() {
    V.assert_conforms(&[Group::Heavy], &[]);
}
