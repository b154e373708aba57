//! The binary: help, one-line errors with exit 2, the wrk-shaped summary and the JSON
//! report.

mod common;

use std::process::Command;

use common::{TestServer, ok};

const BIN: &str = env!("CARGO_BIN_EXE_loadgen");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_and_bad_input() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--connections") && out.contains("--stages"));
    for args in [
        &["--bogus"][..],
        &["https://127.0.0.1/"],
        &["-c", "1", "-t", "2", "http://127.0.0.1:1/"],
        &["-d", "ten", "http://127.0.0.1:1/"],
        &["--mode", "close", "-p", "4", "http://127.0.0.1:1/"],
        &["--stages", "1s", "http://127.0.0.1:1/"],
        &[],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("loadgen: "), "{err}");
    }
}

#[test]
fn summary_like_wrk() {
    let server = TestServer::start(ok);
    let (code, out, err) = run(&["-n", "200", "-c", "4", "--latency", &server.url("/")]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "Running 200 requests @ http://",
        "Thread Stats   Avg      Stdev     Max   +/- Stdev",
        "    Latency ",
        "Latency Distribution",
        "     50% ",
        "  200 requests in ",
        "Requests/sec: ",
        "Transfer/sec: ",
    ] {
        assert!(out.contains(want), "{want:?} missing from\n{out}");
    }
    assert!(err.is_empty(), "not a terminal, so no progress bar: {err}");
}

#[test]
fn json_report_is_versioned_and_complete() {
    let server = TestServer::start(ok);
    let (code, out, err) = run(&[
        "-n",
        "100",
        "-c",
        "2",
        "--mode",
        "http1.0",
        "--json",
        &server.url("/x"),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], loadgen::SCHEMA);
    assert_eq!(v["config"]["mode"], "http1.0");
    assert_eq!(v["config"]["requests"], 100);
    assert_eq!(v["config"]["load"]["model"], "closed");
    assert_eq!(v["result"]["requests"], 100);
    assert_eq!(v["result"]["errors"]["connect"], 0);
    assert!(v["result"]["latency"]["p99_9_us"].as_u64().unwrap() > 0);
    assert!(v["result"]["bytes_per_response"].as_f64().unwrap() > 30.0);
    assert!(v["result"]["cpu"]["generator_bound"].is_boolean());
    // And it reads back into the library's type.
    let report: loadgen::Report = serde_json::from_str(&out).unwrap();
    assert_eq!(report.result.responses, 100);
}
