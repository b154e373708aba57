//! The workspace's shared conformance suite against the real binary: every group but the
//! event-loop scenarios (which this variant does not serve), heavy (10,000 connections)
//! included, with error answers judged in full.

mod common;

use common::Server;
use conformance::{Group, Options};

#[test]
fn conforms_to_the_contract() {
    let server = Server::start(&[]);
    let options = Options {
        strict_errors: true,
        ..Options::default()
    };
    conformance::assert_conforms(
        server.addr,
        &[
            Group::Core,
            Group::Connection,
            Group::BadInput,
            Group::Heavy,
        ],
        &options,
    );
}
