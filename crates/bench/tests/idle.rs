//! `bench idle` end to end: the real server-prebuilt (the test's debug build) holding
//! a few hundred idle keep-alive connections, its results file and the report `bench report`
//! makes of it again, and a bad server name.

use std::path::PathBuf;
use std::process::Command;

use bench_model::results::idle::{IdleResults, SCHEMA};

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// The folder of this test's binaries, with server-prebuilt built (debug: a release build
/// would add a minute to the suite, and the memory of idle connections does not depend on it).
fn bin_dir() -> PathBuf {
    let dir = std::path::Path::new(BENCH).parent().unwrap().to_path_buf();
    if !dir.join("server-prebuilt").is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "-p", "server-prebuilt"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p server-prebuilt failed");
    }
    dir
}

#[test]
fn idle_connections_are_held_measured_and_written() {
    let dir = std::env::temp_dir().join(format!("bench-idle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(BENCH)
        .args([
            "idle",
            "server-prebuilt",
            "--connections",
            "200",
            "--bin-dir",
        ])
        .arg(bin_dir())
        .arg("--results-dir")
        .arg(&dir)
        .output()
        .expect("run bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    println!("{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("server-prebuilt"))
        .unwrap_or_else(|| panic!("no row for server-prebuilt: {stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells.len(), 5, "{row}");
    // Grouped by thousands as every table writes figures (`1,024.5`).
    let before: f64 = cells[1].replace(',', "").parse().unwrap();
    let with: f64 = cells[2].replace(',', "").parse().unwrap();
    assert!(before > 0.5 && with >= before, "{row}");
    assert_eq!(cells[3], "200", "{row}");

    // The results file: one entry, the figures of the table, and its report beside it.
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("results: "))
        .and_then(|l| l.split(" (report: ").next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no results line: {stdout}"));
    assert!(json.starts_with(&dir), "{json:?}");
    let name = json.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("idle-") && name.ends_with("Z.json"),
        "{name}"
    );
    bench_model::schema::check_file(&json).unwrap_or_else(|e| panic!("{e}"));
    let r = IdleResults::load(&json).unwrap();
    assert_eq!((r.header.schema.as_str(), r.connections), (SCHEMA, 200));
    assert_eq!(r.header.command[..2], ["bench", "idle"]);
    assert!(r.header.machine.cpus >= 1 && r.header.versions.contains_key("bench"));
    assert_eq!(r.servers.len(), 1);
    let s = &r.servers[0];
    assert_eq!(s.name, "server-prebuilt");
    assert!(s.before_kb > 512 && s.with_kb >= s.before_kb, "{s:?}");
    let md_path = json.with_extension("md");
    let md = std::fs::read(&md_path).expect("the report beside the results");
    let text = String::from_utf8_lossy(&md);
    assert!(text.contains("| server-prebuilt | "), "{text}");

    // `bench report` on the file writes the same report again, byte for byte.
    std::fs::remove_file(&md_path).unwrap();
    let out = Command::new(BENCH)
        .arg("report")
        .arg(&json)
        .output()
        .expect("run bench report");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&md_path).unwrap(), md);
    let _ = std::fs::remove_dir_all(&dir);
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
