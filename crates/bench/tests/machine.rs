//! The machine beside a measurement, end to end with the real `bench`, a real server and the
//! real generator: a busy loop is refused before the first step (naming it), and a busy loop
//! on the server's CPU during a step marks that step disturbed, with the other work it took;
//! without it, the step is marked exactly as the rule reads the figures it recorded (the host's
//! own steal decides, not the test), and quiet figures recorded here are not. Its own test binary, so that no other test of the
//! suite runs beside it (cargo runs test binaries one at a time).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use bench::step::{pin, procs};
use bench_model::results::{Interference, Results};
use bench_model::rules;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// The folder of this test's binaries, with server-prebuilt and loadgen built.
fn bin_dir() -> PathBuf {
    let dir = Path::new(BENCH).parent().unwrap().to_path_buf();
    if ["server-prebuilt", "loadgen"]
        .iter()
        .any(|b| !dir.join(b).is_file())
    {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let ok = Command::new(cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "-p", "server-prebuilt", "-p", "loadgen"])
            .status()
            .expect("run cargo build")
            .success();
        assert!(ok, "cargo build of server-prebuilt and loadgen failed");
    }
    dir
}

/// A busy loop, pinned to the servers' CPUs when the harness would pin them.
fn hog() -> Child {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "while :; do :; done"]);
    let split = pin::split(false).ok();
    procs::prepare(&mut cmd, split.as_ref().map(|p| &p.server));
    procs::spawn(&mut cmd).expect("start a busy loop")
}

fn stop(mut hog: Child) {
    procs::stop_group(&mut hog, Duration::from_secs(1));
}

/// `bench run e3 --quick --steps c100 --servers server-prebuilt` with `extra`, into a new
/// folder; its output and the folder.
fn quick_step(name: &str, extra: &[&str]) -> (Output, PathBuf) {
    let dir = std::env::temp_dir().join(format!("bench-machine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(BENCH)
        .args(["run", "e3", "--quick", "--steps", "c100"])
        .args(["--servers", "server-prebuilt"])
        .args(extra)
        .arg("--bin-dir")
        .arg(bin_dir())
        .arg("--results-dir")
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("run bench");
    (out, dir)
}

fn results(dir: &Path) -> Results {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    bench_model::schema::check_file(&files[0]).unwrap_or_else(|e| panic!("{e}"));
    Results::load(&files[0]).unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_busy_machine_is_refused_and_a_disturbed_step_is_marked() {
    bin_dir();
    // Refused before anything starts: exit 2, one line naming the busy loop.
    let h = hog();
    let pid = h.id();
    let (out, dir) = quick_step("refused", &[]);
    let err = text(&out.stderr);
    let last = err.lines().last().unwrap_or_default().to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        last.starts_with("bench: the machine is busy: other work took")
            && last.contains(&format!("{pid} sh ")),
        "{err}"
    );
    assert!(!dir.exists(), "a refused run wrote results");

    // Measured anyway: the step is marked disturbed, with the other work it took, and is
    // measured again (--retries 1) before it is recorded.
    let (out, dir) = quick_step("busy", &["--allow-busy", "--retries", "1"]);
    stop(h);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let r = results(&dir);
    let st = &r.servers[0].steps;
    assert_eq!(st.len(), 2, "c100 of / and of /my/ip: {st:?}");
    for step in st {
        let run = &step.repeats[0];
        let i = run.interference.expect("interference recorded");
        println!("with the busy loop: {} {} {i:?}", step.endpoint, step.step);
        assert!(run.disturbed, "{run:?}");
        // The busy loop is the other work the rule names, past its limit (how far past is the
        // host's: 29.7 % and 45-100 % of a CPU were both seen here, the loop sharing a CPU
        // with the server).
        assert!(
            i.other_cpu_percent.unwrap() > rules::OTHER_CPU_LIMIT,
            "{i:?}"
        );
        assert!(
            run.disturbed_reason
                .as_deref()
                .is_some_and(|r| r.contains("other work took")),
            "{run:?}"
        );
        assert_eq!(run.discarded, 1, "measured again once: {run:?}");
        assert!(step.median.as_ref().unwrap().disturbed);
    }
    let summary = text(&out.stdout);
    assert!(summary.contains(" ‡"), "{summary}");
    assert!(
        err.contains("‡ disturbed: the machine set these figures")
            || summary.contains("‡ disturbed: the machine set these figures"),
        "{err}{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    // The same step without the busy loop. Whether it is disturbed is the host's to decide,
    // not this test's: idle steal on this VM reads 1.2-2.4 % of a CPU and spikes past the
    // 5 % limit, and CI may share the machine. So the step is measured whatever the preflight
    // sees (--allow-busy) and the test asserts the rule on the figures it recorded: the step
    // is marked disturbed exactly when `rules::disturbed` says these figures are, and then
    // with its reason. "Quiet figures give an unmarked step" is proved without the host by
    // `quiet_figures_recorded_here_are_not_disturbed` below, on figures recorded here.
    let (out, dir) = quick_step("quiet", &["--allow-busy", "--retries", "0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for step in &results(&dir).servers[0].steps {
        let run = &step.repeats[0];
        let i = run.interference.expect("interference recorded");
        println!(
            "without the busy loop: {} {} {i:?}",
            step.endpoint, step.step
        );
        let rule = rules::disturbed(&i);
        assert_eq!(run.disturbed, rule.is_some(), "{run:?}");
        assert_eq!(run.disturbed_reason, rule, "{run:?}");
        assert_eq!(step.median.as_ref().unwrap().disturbed, run.disturbed);
        // Where a request's CPU goes, and the tool's own verdict over its measured window.
        assert!(run.cpu_user_us_per_request.is_some() && run.cpu_kernel_us_per_request.is_some());
        assert!(run.tool_busiest_thread_percent.is_some(), "{run:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The quiet half of the rule, on the interference that the publish of 2026-12-02 recorded
/// for server-prebuilt's quiet E3 c100 steps (`docs/results/e3-20261202T015622Z.json`, `/` and
/// `/my/ip`): unmarked. The same figures with the 5.4 % steal a fresh machine's first test run
/// saw on 2026-12-02 are marked, naming the steal.
#[test]
fn quiet_figures_recorded_here_are_not_disturbed() {
    let recorded = [
        Interference {
            other_cpu_percent: Some(1.2),
            steal_percent: 0.1,
            server_wait_percent: Some(0.5),
            tool_wait_percent: Some(3.2),
        },
        Interference {
            other_cpu_percent: Some(0.0),
            steal_percent: 0.1,
            server_wait_percent: Some(0.7),
            tool_wait_percent: Some(4.0),
        },
    ];
    for i in recorded {
        assert_eq!(rules::disturbed(&i), None, "{i:?}");
        let stolen = Interference {
            steal_percent: 5.4,
            ..i
        };
        assert_eq!(rules::disturbed(&stolen).as_deref(), Some("steal 5 %"));
    }
}
