//! `conformance::require` as a test sees it: this test binary runs itself again as a child
//! whose one test needs a tool that is not installed. Without `BENCH_REQUIRE_TOOLS` (or with it
//! `0` or empty) the child passes and its `skipped:` line is on its stderr although libtest
//! captures output (no `--nocapture`); with `BENCH_REQUIRE_TOOLS=1` it fails, naming the tool.

use std::process::{Command, Output};

use conformance::require::{self, STRICT_ENV};

/// Set in the child's environment: only there does [`child_needs_a_missing_tool`] do anything.
const CHILD: &str = "CONFORMANCE_REQUIRE_CHILD";
const TEST: &str = "conformance::require-child";

/// The child's test (does nothing unless this binary runs itself as the child): a missing
/// tool, or with `CHILD=unusable` a machine that cannot do what the test needs.
#[test]
fn child_needs_a_missing_tool() {
    match std::env::var(CHILD).as_deref() {
        Ok("missing") => {}
        Ok("unusable") => return require::unusable(TEST, "root", "not root here"),
        _ => return,
    }
    if require::program("no-such-tool-here").is_none() {
        return require::missing(TEST, "no-such-tool-here", "nothing installs it");
    }
    panic!("no-such-tool-here is on PATH");
}

fn child(strict: Option<&str>) -> Output {
    child_of("missing", strict)
}

fn child_of(case: &str, strict: Option<&str>) -> Output {
    let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
    cmd.args(["--exact", "child_needs_a_missing_tool", "--test-threads=1"])
        .env(CHILD, case)
        .env_remove(STRICT_ENV);
    if let Some(v) = strict {
        cmd.env(STRICT_ENV, v);
    }
    cmd.output().expect("run this test binary again")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_missing_tool_is_a_visible_skip_unless_strict() {
    let line = "skipped: conformance::require-child: no-such-tool-here not installed (nothing installs it)";
    assert_eq!(
        require::skip_message(TEST, "no-such-tool-here", "nothing installs it"),
        line
    );
    for strict in [None, Some("0"), Some("")] {
        let out = child(strict);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{strict:?}: {stdout}{stderr}");
        assert!(stdout.contains("1 passed"), "{strict:?}: {stdout}");
        // On the real stderr, though the child ran without --nocapture.
        assert_eq!(stderr.trim_end(), line, "{strict:?}: {stdout}");
    }
}

#[test]
fn a_missing_tool_fails_the_test_under_strict() {
    let out = child(Some("1"));
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains(
            "conformance::require-child needs no-such-tool-here, which is not installed (BENCH_REQUIRE_TOOLS=1)"
        ),
        "{all}"
    );
    assert!(!all.contains("skipped:"), "{all}");
}

#[test]
fn an_unusable_machine_is_a_skip_or_under_strict_a_failure() {
    let out = child_of("unusable", None);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "skipped: conformance::require-child: root cannot be used here (not root here)"
    );
    let out = child_of("unusable", Some("1"));
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains(
            "conformance::require-child needs root, which cannot be used here: not root here (BENCH_REQUIRE_TOOLS=1)"
        ),
        "{all}"
    );
}

#[test]
fn programs_are_found_on_path_or_by_path() {
    let sh = require::program("sh").expect("sh on PATH");
    assert!(sh.is_absolute(), "{}", sh.display());
    assert_eq!(require::program(sh.to_str().unwrap()), Some(sh.clone()));
    assert_eq!(require::program("no-such-tool-here"), None);
    assert_eq!(require::program("/nonexistent/sh"), None);
    // A file that is not executable is not a program.
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    assert_eq!(require::program(manifest), None);
}
