//! Tests that need something installed (a load tool, Chromium, valgrind, podman, a peer's
//! runtime) or a capability of the machine (root, network namespaces), written once for every
//! test crate of the workspace.
//!
//! Without [`STRICT_ENV`] set, such a test that cannot run here writes one line and passes:
//! `skipped: <test>: <tool> not installed (<how to install>)`. The line goes straight to the
//! process's stderr: libtest captures what `print!` and `eprint!` write (and shows it only for
//! a failing test), but not a write to [`std::io::stderr`] itself, so a plain `cargo test`
//! shows every skip.
//!
//! With `BENCH_REQUIRE_TOOLS=1` (`.ci/run` exports it, and `scripts/install-peers.sh` then
//! fails when it cannot install something) the same test fails instead, naming what is
//! missing: `<test> needs <tool>, which is not installed (BENCH_REQUIRE_TOOLS=1)`. A green CI
//! run therefore ran every test.
//!
//! ```no_run
//! use manifest::require;
//! const TEST: &str = "bench::instructions";
//! // in a #[test]:
//! let Some(valgrind) = require::program("valgrind") else {
//!     return require::missing(TEST, "valgrind", "scripts/install-peers.sh installs Debian's");
//! };
//! # let _ = valgrind;
//! ```

use std::io::Write;
use std::path::PathBuf;

/// The environment variable that turns a skip into a failure (`1`; unset, empty or `0`: skip).
pub const STRICT_ENV: &str = "BENCH_REQUIRE_TOOLS";

/// Whether [`STRICT_ENV`] is set to something other than empty or `0`.
pub fn strict() -> bool {
    std::env::var_os(STRICT_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `test` cannot run because `tool` is not installed; `how` says how to install it. Strict: a
/// panic naming the tool. Otherwise the `skipped:` line on the real stderr; the caller then
/// returns (`return require::missing(…)`).
#[track_caller]
pub fn missing(test: &str, tool: &str, how: &str) {
    if strict() {
        panic!("{}", strict_message(test, tool));
    }
    say(&skip_message(test, tool, how));
}

/// `test` cannot run because `what` (installed or not) cannot be used on this machine: `why`.
/// Strict: a panic; otherwise a `skipped:` line on the real stderr, as [`missing`].
#[track_caller]
pub fn unusable(test: &str, what: &str, why: &str) {
    if strict() {
        panic!("{test} needs {what}, which cannot be used here: {why} ({STRICT_ENV}=1)");
    }
    say(&format!(
        "skipped: {test}: {what} cannot be used here ({why})"
    ));
}

/// The line a skipped test writes.
pub fn skip_message(test: &str, tool: &str, how: &str) -> String {
    format!("skipped: {test}: {tool} not installed ({how})")
}

/// The panic of a test whose tool is missing under [`STRICT_ENV`].
pub fn strict_message(test: &str, tool: &str) -> String {
    format!("{test} needs {tool}, which is not installed ({STRICT_ENV}=1)")
}

/// The first executable file `name` in a folder of `PATH` (or `name` itself when it is a
/// path to an executable file).
pub fn program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| executable(p))
}

/// Writes `line` to the process's stderr, past libtest's output capture (see the module
/// header), so it shows in a plain `cargo test` run.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
