//! The shared conformance suite against the real binary ([`conformance::variant_tests`]): every
//! group, the event-loop scenarios included. Error answers are judged strictly; the checks
//! servers.toml lists as this variant's exceptions are skipped (printed as `EXCEPTION name:
//! reason`), and `exceptions_still_apply` shows each still fails.

conformance::variant_tests!(
    "server-actix",
    env!("CARGO_BIN_EXE_server-actix"),
    scenarios,
    exceptions
);
