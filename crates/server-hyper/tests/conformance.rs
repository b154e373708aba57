//! The shared conformance suite, one test per group, against the real binary.
//!
//! Error answers are judged strictly (exact fields, `content-length: 0`, `connection:
//! close`): hyper's own error answers meet that too, so no leniency is needed here.

mod common;

use common::Server;
use conformance::{Group, Options};

fn conforms(group: Group, extra: &[&str]) {
    let srv = Server::start(extra);
    let options = Options {
        strict_errors: true,
        ..Options::default()
    };
    conformance::assert_conforms(srv.addr, &[group], &options);
}

#[test]
fn core() {
    conforms(Group::Core, &[]);
}

#[test]
fn core_with_several_workers() {
    conforms(Group::Core, &["--workers", "2"]);
}

#[test]
fn connection() {
    conforms(Group::Connection, &[]);
}

#[test]
fn bad_input() {
    conforms(Group::BadInput, &[]);
}

#[test]
fn scenarios() {
    conforms(Group::Scenarios, &[]);
}

#[test]
fn heavy() {
    conforms(Group::Heavy, &[]);
}
