//! The shared conformance suite against the real binary ([`conformance::variant_tests`]): every
//! group but the event-loop scenarios. Error answers are judged strictly; the checks
//! servers.toml lists as this variant's exceptions are skipped (printed as `EXCEPTION name:
//! reason`), and `exceptions_still_apply` shows each still fails, but for
//! `bad.chunked-too-large`, which fails only when the head and the first chunk arrive in one
//! read, so it is reported, not asserted.

conformance::variant_tests!(
    "server-may",
    env!("CARGO_BIN_EXE_server-may"),
    exceptions("bad.chunked-too-large")
);
