//! `bench noise` end to end on a recorded run with timelines (E3 on 2026-12-04: 10 rounds of
//! 4 s, two A/A pairs; docs/notes/2026-12-04-noise.md reads it), against an earlier sitting, and
//! on bad input. No server is started and nothing is measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

fn docs(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/notes")
        .join(rel)
}

fn bench(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(BENCH).args(args).output().expect("bench runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The row of `table` (its title's block) that starts with `e3  NAME ` and holds `step`.
fn row<'a>(out: &'a str, title: &str, name: &str, step: &str) -> Vec<&'a str> {
    let block = out.split(title).nth(1).expect(title);
    let line = block
        .lines()
        .find(|l| {
            let cells: Vec<&str> = l
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            cells.get(1) == Some(&name) && cells.get(2) == Some(&step)
        })
        .unwrap_or_else(|| panic!("no row {name} {step} in\n{block}"));
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn a_recorded_run_gives_its_levels_pairs_and_dips() {
    let md = std::env::temp_dir().join(format!("bench-noise-{}.md", std::process::id()));
    let o = bench(&[
        "noise".as_ref(),
        docs("2026-12-04-noise/a").as_os_str(),
        "--markdown".as_ref(),
        md.as_os_str(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}\n{out}");
    // Levels: repeats, intervals, within, if independent, between, first 0.5 s, …
    let l = row(&out, "Levels", "server-prebuilt", "/ c100");
    assert_eq!(
        &l[3..9],
        ["10", "8", "0.057", "0.020", "0.083", "0.97"],
        "{l:?}"
    );
    let n = row(&out, "Levels", "node-http", "/ c1000");
    assert_eq!(n[8], "0.75", "{n:?}");
    assert!(
        n.last().unwrap().starts_with("server wait (r -0.76"),
        "{n:?}"
    );
    // The A/A split: per run, per round, total.
    let p = row(
        &out,
        "A/A pairs",
        "server-prebuilt / server-prebuilt#2",
        "/ c100",
    );
    assert_eq!(
        &p[3..],
        ["requests/s", "10", "0.062", "0.056", "0.083"],
        "{p:?}"
    );
    let written = std::fs::read_to_string(&md).unwrap();
    let _ = std::fs::remove_file(&md);
    assert!(written.contains("### A/A pairs") && written.contains("| e3 | node-http | / c1000 |"));
}

#[test]
fn two_sittings_give_how_far_each_median_moved() {
    let o = bench(&[
        "noise".as_ref(),
        docs("2026-12-04-noise/a").as_os_str(),
        "--against".as_ref(),
        docs("2026-12-04-verdicts-on-real-runs/b").as_os_str(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}\n{out}");
    let r = row(&out, "Between sittings", "node-http", "/ c1000");
    assert_eq!(&r[3..], ["8 + 10", "+0.157", "0.040"], "{r:?}");
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    // A run from before timelines with no A/A pair: nothing to read.
    let o = bench(&[
        "noise".as_ref(),
        docs("2026-12-04-two-publishes/e4-20261204T132628Z.json").as_os_str(),
    ]);
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("bench: nothing to read in") && out.is_empty(),
        "{err}{out}"
    );
    let o = bench(&["noise".as_ref(), "no-such.json".as_ref()]);
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.lines().count() == 1, "{err}");
}
