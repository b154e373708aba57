//! The workspace's shared conformance suite against the real binary, with error answers judged
//! in full: every group but the event-loop scenarios for the default engine (server-prebuilt's,
//! which does not serve them) on the default number of worker processes, heavy (10,000
//! connections) included; and core, connection, bad-input and rfc9112 for `--engine hyper` on
//! two workers. All run at once; the 61 s idle check is left to `conformance/tests/idle.rs`,
//! which runs it on every variant (default options) at once.

use conformance::Group;
use conformance::suite::Variant;

const V: Variant = Variant::new("server-reuseport", env!("CARGO_BIN_EXE_server-reuseport"));

#[test]
fn prebuilt_engine_conforms() {
    V.assert_conforms(
        &[
            Group::Core,
            Group::Connection,
            Group::BadInput,
            Group::Rfc9112,
            Group::Heavy,
        ],
        &[],
    );
}

#[test]
fn hyper_engine_conforms() {
    V.assert_conforms(
        &[
            Group::Core,
            Group::Connection,
            Group::BadInput,
            Group::Rfc9112,
        ],
        &["--engine", "hyper", "--workers", "2"],
    );
}

#[test]
fn process_rules() {
    V.assert_signals_exit_zero(&[]);
    V.assert_bad_starts_exit_two();
}
