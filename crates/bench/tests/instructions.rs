//! The CI guard on the hot path: `server-prebuilt`'s instructions per `GET /` keep-alive
//! request, counted by callgrind (deterministic to about 1 %, whatever else the machine does),
//! may not rise more than the committed baseline's tolerance above it.
//!
//! The baseline is `crates/bench/baselines/instructions.json`; after a deliberate change,
//! write it again with the command it names:
//! `cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json`.
//! Without valgrind the tests skip with the reason (scripts/install-peers.sh installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

fn baseline() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/instructions.json")
}

fn valgrind_missing() -> Option<String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!("`valgrind --version` exited with {}", o.status)),
        Err(e) => Some(format!("valgrind is not installed ({e})")),
    }
}

/// `bench instructions --check FILE`; bench builds the release binaries it measures.
fn check(file: &Path) -> Output {
    Command::new(BENCH)
        .args(["instructions", "--check"])
        .arg(file)
        .output()
        .expect("run bench")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn server_prebuilt_stays_within_its_baseline_and_a_lower_baseline_fails() {
    if let Some(why) = valgrind_missing() {
        println!("skipped: {why}");
        return;
    }
    let out = check(&baseline());
    assert!(
        out.status.success(),
        "the guard failed: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let said = text(&out.stdout);
    assert!(said.contains("ok: server-prebuilt / keep-alive"), "{said}");
    println!("{}", said.trim_end());

    // The same check against a baseline 20 % lower must fail, with the reason on one line.
    let mut lower: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(baseline()).unwrap()).unwrap();
    let per_request = lower["per_request"].as_f64().unwrap();
    lower["per_request"] = (per_request * 0.8).into();
    let file = std::env::temp_dir().join(format!("bench-baseline-{}.json", std::process::id()));
    std::fs::write(&file, lower.to_string()).unwrap();
    let out = check(&file);
    std::fs::remove_file(&file).ok();
    assert!(!out.status.success(), "a 20 % lower baseline passed");
    let err = text(&out.stderr);
    assert!(err.contains("instructions per request rose"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
