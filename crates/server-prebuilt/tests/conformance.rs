//! The workspace's shared conformance suite against the real binary: every group but the
//! event-loop scenarios (which this variant does not serve), heavy (10,000 connections)
//! included, with error answers judged in full, one test per group so they run concurrently.

use conformance::Group;
use conformance::suite::Variant;

const V: Variant = Variant::new("server-prebuilt", env!("CARGO_BIN_EXE_server-prebuilt"));

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
fn process_rules() {
    V.assert_signals_exit_zero(&[]);
    V.assert_bad_starts_exit_two();
}
