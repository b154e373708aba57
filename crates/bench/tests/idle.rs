//! `bench idle` end to end: the real server-prebuilt (bench builds its release binary) holding
//! a few hundred idle keep-alive connections, and a bad server name.

use std::process::Command;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

#[test]
fn idle_connections_are_held_and_measured() {
    let out = Command::new(BENCH)
        .args(["idle", "server-prebuilt", "--connections", "300"])
        .output()
        .expect("run bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("server-prebuilt"))
        .unwrap_or_else(|| panic!("no row for server-prebuilt: {stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells.len(), 5, "{row}");
    let before: f64 = cells[1].parse().unwrap();
    let with: f64 = cells[2].parse().unwrap();
    assert!(before > 0.5 && with >= before, "{row}");
    assert_eq!(cells[3], "300", "{row}");
    println!("{stdout}");
}

#[test]
fn an_unknown_server_is_one_line_and_non_zero() {
    let out = Command::new(BENCH)
        .args(["idle", "no-such-server", "--connections", "1"])
        .output()
        .expect("run bench");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-server"), "{stderr}");
}
