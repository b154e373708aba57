//! The contract's idle keep-alive row against every Rust variant of `servers.toml` at once:
//! [`IDLE_CHECK`] answers a request, keeps the connection silent for 61 s (watching it a second
//! at a time, so an early close fails at once) and sends a second request, which must be
//! answered. It is the one check that takes a minute; each variant's `tests/conformance.rs`
//! leaves it out (`Variant::assert_conforms`) and this test runs it on all of them side by side,
//! so the suite pays the minute once instead of once per variant.
//!
//! The binaries are the ones `cargo test --workspace` built for the variants' own tests: the
//! test first runs `cargo build --workspace --tests` (nothing to do after `cargo test
//! --workspace`, and the same features, so nothing is rebuilt; alone, as `cargo test -p
//! conformance`, it builds them) and takes each from the folder of this test's binary. A
//! variant that `servers.toml` excuses from the check is not judged on it (printed as
//! `EXCEPTION`); its own `exceptions_still_apply` test shows it still fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use conformance::suite::{IDLE_CHECK, check_names, options_for, variants, workspace_manifest};
use conformance::{Group, Options, Outcome, Target};
use serve::process::ServerProcess;

/// The folder of the workspace's binaries for this test's profile, freshly built.
fn built_bins() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/idle-<hash>: the binaries are in target/<profile>.
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "build",
        "--workspace",
        "--tests",
        "--locked",
    ]);
    if dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("run cargo build");
    assert!(
        status.success(),
        "cargo build --workspace --tests failed ({status})"
    );
    dir
}

#[test]
fn every_variant_keeps_an_idle_keep_alive_connection_61_s() {
    assert!(
        check_names().contains(&IDLE_CHECK),
        "{IDLE_CHECK} names no check of this crate"
    );
    let manifest = workspace_manifest();
    let variants = variants(&manifest);
    assert!(!variants.is_empty(), "servers.toml lists no Rust variant");
    let bins = built_bins();

    // Every server first, so that their 61 s run side by side.
    let servers: Vec<(String, Options, ServerProcess)> = variants
        .iter()
        .map(|entry| {
            let package = entry.package.clone().expect("a Rust variant has a package");
            let bin = bins.join(&package);
            assert!(bin.is_file(), "{} was not built", bin.display());
            let server =
                ServerProcess::start(&bin, &[]).unwrap_or_else(|e| panic!("{package}: {e}"));
            let options = Options {
                only: vec![IDLE_CHECK.to_owned()],
                ..options_for(entry, &[Group::BadInput]).unwrap_or_else(|e| panic!("{e}"))
            };
            (package, options, server)
        })
        .collect();

    let verdicts: Vec<(String, Outcome)> = std::thread::scope(|s| {
        let running: Vec<_> = servers
            .iter()
            .map(|(package, options, server)| {
                let target = Target::new(server.addr());
                s.spawn(move || {
                    let report = conformance::run(&target, options);
                    let result = report
                        .get(IDLE_CHECK)
                        .unwrap_or_else(|| panic!("{package}: {IDLE_CHECK} did not run"));
                    println!("{package}: {result}");
                    (package.clone(), result.outcome.clone())
                })
            })
            .collect();
        running
            .into_iter()
            .map(|t| t.join().expect("the check's thread"))
            .collect()
    });

    let failed: Vec<String> = verdicts
        .iter()
        .filter_map(|(package, outcome)| match outcome {
            Outcome::Fail(f) => Some(format!("{package}: {f}")),
            _ => None,
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} variants failed {IDLE_CHECK}:\n{}",
        failed.len(),
        verdicts.len(),
        failed.join("\n")
    );
    assert!(
        verdicts
            .iter()
            .any(|(_, outcome)| matches!(outcome, Outcome::Pass)),
        "no variant was judged on {IDLE_CHECK}: every one is excused"
    );
}
