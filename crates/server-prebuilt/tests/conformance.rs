//! The shared conformance suite against the real binary ([`conformance::variant_tests`]): every
//! group but the event-loop scenarios (which this variant does not serve), heavy (10,000
//! connections) included, with error answers judged in full; and the process rules (SIGINT and
//! SIGTERM exit 0, a bad start exits 2).

conformance::variant_tests!(
    "server-prebuilt",
    env!("CARGO_BIN_EXE_server-prebuilt"),
    process_rules
);
