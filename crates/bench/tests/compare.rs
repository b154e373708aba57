//! `bench compare` and `bench calibrate` end to end, on real runs: the two E3 runs of one
//! commit an hour apart in docs/notes/2026-12-03-e3-rounds (ten rounds each; a real A/A
//! comparison), and a copy of the first with node-http made 40 % slower in every round (what
//! a regression looks like). No server is started and nothing is measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// The two real runs of one commit.
fn runs() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/notes/2026-12-03-e3-rounds");
    (
        dir.join("e3-20261203T062336Z.json"),
        dir.join("e3-20261203T072345Z.json"),
    )
}

fn bench(args: &[&str]) -> Output {
    Command::new(BENCH).args(args).output().expect("bench runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bench-compare-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of `from` with `server`'s requests/s times `factor` (and its CPU per request over
/// it) in every round of every step.
fn scaled(from: &Path, server: &str, factor: f64, to: &Path) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    for s in v["servers"].as_array_mut().unwrap() {
        if s["name"] != server {
            continue;
        }
        for st in s["steps"].as_array_mut().unwrap() {
            for r in st["repeats"].as_array_mut().unwrap() {
                let rps = r["requests_per_s"].as_f64().unwrap();
                r["requests_per_s"] = (rps * factor).into();
                if let Some(c) = r["cpu_us_per_request"].as_f64() {
                    r["cpu_us_per_request"] = (c / factor).into();
                }
            }
        }
    }
    std::fs::write(to, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// Two real runs of one commit pass the gate; the summary and the gate say what they
/// tested; the markdown is written.
#[test]
fn a_real_rerun_passes_the_gate() {
    let (a, b) = runs();
    let dir = scratch("aa");
    let md = dir.join("compare.md");
    let o = bench(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--fail-on-change",
        "--markdown",
        md.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("24 figures compared, each at a 5 % false discovery rate"),
        "{out}"
    );
    assert!(
        out.contains("gate: 12 figure(s) of findings, ceiling"),
        "{out}"
    );
    assert!(out.contains(": passed"), "{out}");
    let report = std::fs::read_to_string(&md).unwrap();
    assert!(report.starts_with("# Two runs compared"), "{report}");
    assert!(report.contains("Hodges–Lehmann"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// node-http 40 % slower in every round: its ratios to the ceiling and the finding moved
/// beyond ±10 %, the gate fails with one line and exit status 1, and names them.
#[test]
fn a_regression_fails_the_gate_with_one_line() {
    let (a, _) = runs();
    let dir = scratch("regressed");
    let slow = dir.join("e3-slow.json");
    scaled(&a, "node-http", 0.6, &slow);
    let o = bench(&[
        "compare",
        a.to_str().unwrap(),
        slow.to_str().unwrap(),
        "--fail-on-change",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("FAILED"), "{out}");
    assert!(
        out.contains("moved beyond ±10 %: e3 node-http `/` c100 requests/s ÷ ceiling"),
        "{out}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("figure(s) of the gate's family moved beyond ±10 % (--fail-on-change)"),
        "{err}"
    );
    // Without the gate the comparison still succeeds and shows the moves.
    let o = bench(&["compare", a.to_str().unwrap(), slow.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(
        out.contains("node-http `/` c100") && out.contains("moved -40."),
        "{out}"
    );
    // A wider margin than the move: the gate passes.
    let o = bench(&[
        "compare",
        a.to_str().unwrap(),
        slow.to_str().unwrap(),
        "--fail-on-change",
        "--margin",
        "60",
    ]);
    assert!(o.status.success(), "{}", text(&o).0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad input: one clear line on stderr and a non-zero exit.
#[test]
fn bad_input_gets_one_line() {
    let (a, b) = runs();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for (args, says) in [
        (
            vec!["compare", a, b, "--figures", "nonsense"],
            "not a family of figures",
        ),
        (
            vec!["compare", a, b, "--margin", "0"],
            "not a margin in percent",
        ),
        (
            vec!["compare", a, "/nonexistent/e3.json"],
            "/nonexistent/e3.json",
        ),
    ] {
        let o = bench(&args);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `bench calibrate` prints its four tables from a seed, the same twice.
#[test]
fn calibrate_prints_the_same_tables_from_a_seed() {
    let args = ["calibrate", "--trials", "200", "--seed", "7"];
    let one = bench(&args);
    let (out, err) = text(&one);
    assert!(one.status.success(), "{err}");
    for heading in [
        "One figure alone",
        "Clean comparisons shaped like a publish",
        "With real moves",
        "E7's capacity",
    ] {
        assert!(out.contains(heading), "{out}");
    }
    assert_eq!(
        bench(&args).stdout,
        one.stdout,
        "a seed gives the same tables"
    );
}
