//! The shared conformance suite against the real binary ([`conformance::variant_tests`]): every
//! group, the event-loop scenarios included. Error answers are judged strictly: hyper's own
//! error answers meet that too, so no leniency is needed here.

conformance::variant_tests!(
    "server-hyper",
    env!("CARGO_BIN_EXE_server-hyper"),
    scenarios
);
