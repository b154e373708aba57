//! The `bench` binary end to end, with real servers, real sockets and the real load generator:
//! a quick E3 run on two Rust variants (its JSON, and that nothing it started survives it), a
//! quick E6 run (pipelined steps, the responses verified before the load, TechEmpower's
//! tables), a SIGINT in the middle of a run, and bad input (one line on stderr, a non-zero
//! exit).
//!
//! The servers and `loadgen` are the debug binaries beside this test's `bench` (built by
//! `cargo test --workspace`; built here with `cargo build` when missing), passed with
//! `--bin-dir`, so no release build is needed. The runs that put load on the machine take a
//! lock, so they never overlap.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bench_model::results::Results;
use bench_model::results::tools::ToolResults;
use bench_tools::Tool;
use conformance::require;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// Runs that load the machine take this, one at a time.
static HEAVY: Mutex<()> = Mutex::new(());

/// [`HEAVY`], held until the guard drops (a test that failed while holding it does not
/// keep the others out).
/// A `bench run` results file, read after checking it against its committed schema.
fn load_checked(path: &Path) -> Result<Results, bench_model::results::ResultsError> {
    bench_model::schema::check_file(path).unwrap_or_else(|e| panic!("{e}"));
    Results::load(path)
}

fn heavy() -> MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `tool` is installed here; when not, `test` says so (skipped, or a failure under
/// `BENCH_REQUIRE_TOOLS=1`).
fn installed(tool: Tool, test: &str) -> bool {
    if tool.available(Path::new("")) {
        return true;
    }
    require::missing(test, tool.name(), tool.install_hint().1);
    false
}

/// The folder of this test's binaries, with the servers and loadgen built.
fn bin_dir() -> PathBuf {
    let dir = Path::new(BENCH)
        .parent()
        .expect("the bench binary has a folder")
        .to_path_buf();
    let needed = ["server-prebuilt", "server-hyper", "server-may", "loadgen"];
    if needed.iter().any(|b| !dir.join(b).is_file()) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "build",
                "-p",
                "server-prebuilt",
                "-p",
                "server-hyper",
                "-p",
                "server-may",
                "-p",
                "loadgen",
            ])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build of the servers failed");
    }
    dir
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-cli-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Writes the executable shell script `dir/name` (a fake program) with the body `sh`.
fn fake_program(dir: &Path, name: &str, sh: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{sh}")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A process seen under the harness: PID, name, and its start time (so that a reused PID is
/// not mistaken for it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Seen {
    pid: i32,
    comm: String,
    start: u64,
}

/// (pid, ppid, comm, starttime) of every process.
fn processes() -> Vec<(i32, i32, String, u64)> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_string();
            let f: Vec<&str> = rest.split_whitespace().collect();
            if f.first() == Some(&"Z") {
                return None;
            }
            Some((pid, f.get(1)?.parse().ok()?, comm, f.get(19)?.parse().ok()?))
        })
        .collect()
}

/// Adds every current descendant of `root` to `seen`.
fn record_descendants(root: i32, seen: &mut BTreeMap<i32, Seen>) {
    let all = processes();
    let mut todo = vec![root];
    while let Some(p) = todo.pop() {
        for (pid, ppid, comm, start) in &all {
            if *ppid != p {
                continue;
            }
            // A child first seen between fork and exec still has its parent's name; the same
            // process (same start time) is seen again under its own name after the exec.
            seen.insert(
                *pid,
                Seen {
                    pid: *pid,
                    comm: comm.clone(),
                    start: *start,
                },
            );
            todo.push(*pid);
        }
    }
}

/// Those of `seen` that are still running (same PID, same start time).
fn still_running(seen: &BTreeMap<i32, Seen>) -> Vec<Seen> {
    let now = processes();
    seen.values()
        .filter(|s| {
            now.iter()
                .any(|(pid, _, _, start)| *pid == s.pid && *start == s.start)
        })
        .cloned()
        .collect()
}

/// Runs bench with `args` to its end, recording its descendants every 20 ms.
fn run_watched(args: &[&str], limit: Duration) -> (Output, BTreeMap<i32, Seen>, Duration) {
    run_watched_env(args, &[], limit)
}

/// [`run_watched`] with `env` set.
fn run_watched_env(
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> (Output, BTreeMap<i32, Seen>, Duration) {
    let started = Instant::now();
    let mut child = spawn_env(args, env);
    let pid = child.id() as i32;
    let mut seen = BTreeMap::new();
    let status = loop {
        record_descendants(pid, &mut seen);
        if let Some(status) = child.try_wait().expect("wait for bench") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bench {args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let (stdout, stderr) = drain(&mut child);
    (
        Output {
            status,
            stdout,
            stderr,
        },
        seen,
        elapsed,
    )
}

/// `bench ARGS… --bin-dir BINS --results-dir OUT` with `env`, watched to its end
/// ([`run_watched`]).
fn bench_in(
    args: &[&str],
    (bins, out): (&Path, &Path),
    env: &[(&str, &str)],
    limit: Duration,
) -> (Output, BTreeMap<i32, Seen>, Duration) {
    let mut all = args.to_vec();
    let (bins, out) = (bins.to_str().unwrap(), out.to_str().unwrap());
    all.extend(["--bin-dir", bins, "--results-dir", out]);
    run_watched_env(&all, env, limit)
}

/// The one results file in `dir`, read back through the schema's own types.
fn only_results(dir: &Path) -> Results {
    let files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    load_checked(&files[0]).unwrap_or_else(|e| panic!("{e}"))
}

fn spawn(args: &[&str]) -> Child {
    spawn_env(args, &[])
}

/// `bench ARGS`. The machine is shared with the other tests of this binary, so a run or a
/// comparison measures even when it is busy (`--allow-busy`) and never measures a step twice
/// (`--retries 0`), unless the test asks for either itself; the tests of the machine's
/// checks run `bench` without them.
fn bench_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new(BENCH);
    cmd.args(args);
    let measures = args.first() == Some(&"run") || args.starts_with(&["tools", "compare"]);
    let chosen = args
        .iter()
        .any(|a| matches!(*a, "--allow-busy" | "--retries" | "--list"));
    if measures && !chosen {
        cmd.args(["--allow-busy", "--retries", "0"]);
    }
    cmd
}

fn spawn_env(args: &[&str], env: &[(&str, &str)]) -> Child {
    bench_cmd(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bench")
}

/// Reads what is left of a finished child's pipes. (bench writes little, so the pipes never
/// fill while it runs.)
fn drain(child: &mut Child) -> (Vec<u8>, Vec<u8>) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_end(&mut out);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_end(&mut err);
    }
    (out, err)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What a run left: its output, the processes seen under it, its results folder and the
/// results file read back.
struct QuickRun {
    out: Output,
    seen: BTreeMap<i32, Seen>,
    dir: PathBuf,
    file: PathBuf,
}

/// `bench ARGS… --bin-dir BINS --results-dir DIR` with the test's binaries and a fresh scratch
/// folder `name`, within `limit`: it must succeed, leave nothing running and write exactly
/// one results file.
fn run_ok(name: &str, args: &[&str], limit: Duration) -> QuickRun {
    let bins = bin_dir();
    let dir = scratch(name);
    let (out, seen, elapsed) = bench_in(args, (&bins, &dir), &[], limit);
    let stdout = text(&out.stdout);
    println!("bench {} took {elapsed:.1?}\n{stdout}", args.join(" "));
    assert!(
        out.status.success(),
        "{:?}: {}\n{stdout}",
        out.status,
        text(&out.stderr)
    );
    let left = still_running(&seen);
    assert!(
        left.is_empty(),
        "still running after bench exited: {left:?}"
    );
    let files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    QuickRun {
        out,
        seen,
        file: files[0].clone(),
        dir,
    }
}

/// [`run_ok`] of `bench run EXPERIMENT --quick --servers SERVERS`.
fn quick_run(experiment: &str, servers: &str, limit: Duration) -> QuickRun {
    let args = ["run", experiment, "--quick", "--servers", servers];
    run_ok(experiment, &args, limit)
}

/// [`run_ok`] of `bench run EXPERIMENT --quick ARGS… --tool TOOL --servers server-prebuilt`:
/// the tool ran under bench and the results name it. The results, read back (their folder
/// is removed).
fn tool_run(tool: Tool, experiment: &str, args: &[&str], limit: Duration) -> Results {
    let mut all = vec!["run", experiment, "--quick"];
    all.extend(args);
    all.extend(["--tool", tool.name(), "--servers", "server-prebuilt"]);
    let run = run_ok(&format!("{experiment}-{tool}"), &all, limit);
    let names: Vec<&str> = run.seen.values().map(|s| s.comm.as_str()).collect();
    assert!(names.contains(&tool.name()), "{tool}: {names:?}");
    let r = load_checked(&run.file).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.tool, tool.name());
    fs::remove_dir_all(&run.dir).ok();
    r
}

/// `bench ARGS… --target URL` with the test's binaries and a fresh scratch folder `name`,
/// which must fail: its stderr and the results it still wrote (their folder is removed).
fn failing_target_run(name: &str, args: &[&str], url: &str) -> (String, Results) {
    let bins = bin_dir();
    let out_dir = scratch(name);
    let mut all = args.to_vec();
    all.extend(["--target", url]);
    let out = bench_cmd(&all)
        .arg("--bin-dir")
        .arg(&bins)
        .arg("--results-dir")
        .arg(&out_dir)
        .output()
        .expect("run bench");
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{all:?} passed: {stderr}");
    let r = only_results(&out_dir);
    fs::remove_dir_all(&out_dir).ok();
    (stderr, r)
}

/// A quick E3 results file of `servers`, read back through the schema's own types: what,
/// how, on what (pinned apart), no path of this machine, every step valid with the contract's
/// bytes, latency, RSS and CPU sampled.
fn check_quick_e3(file: &Path, servers: &[&str]) {
    let r = load_checked(file).expect("a valid results file");
    assert_eq!(
        (r.experiment.as_str(), r.tool.as_str(), r.quick, r.repeat),
        ("e3", "builtin", true, 1)
    );
    assert_eq!(r.target, None);
    assert!(r.header.machine.cpus >= 1 && !r.header.machine.kernel.is_empty());
    assert!(r.header.versions.contains_key("bench") && r.header.versions.contains_key("tool"));
    if r.header.machine.cpus >= 2 {
        let p = r.pinning.as_ref().expect("pinned with two or more CPUs");
        assert!(!p.server_cpus.is_empty() && !p.load_cpus.is_empty());
        assert!(p.server_cpus.iter().all(|c| !p.load_cpus.contains(c)));
    }
    let names: Vec<&str> = r.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, servers);
    // No directory of this machine in the results: commands under the workspace are relative.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let text = fs::read_to_string(file).unwrap();
    assert!(!text.contains(root.to_str().unwrap()), "{text}");
    for s in &r.servers {
        // A copy (`NAME#2`, an A/A pair) runs its original's binary.
        let binary = s.name.split('#').next().unwrap();
        assert!(s.command[0].ends_with(binary), "{:?}", s.command);
        let steps: Vec<(&str, &str)> = s
            .steps
            .iter()
            .map(|st| (st.endpoint.as_str(), st.step.as_str()))
            .collect();
        let every = [
            ("/", "c100"),
            ("/", "c1000"),
            ("/", "c10000"),
            ("/my/ip", "c100"),
            ("/my/ip", "c1000"),
            ("/my/ip", "c10000"),
        ];
        // The publish's A/A copy (`--aa server-prebuilt@/`) on `/` only.
        let want = if s.name.contains('#') {
            &every[..3]
        } else {
            &every[..]
        };
        assert_eq!(steps, want, "{}", s.name);
        for st in &s.steps {
            let at = format!("{} {} {}", s.name, st.endpoint, st.step);
            assert!(st.valid, "{at}: {:?}", st.invalid_reason);
            assert_eq!(st.duration_s, Some(2.0), "{at}");
            assert!(st.tool_command[0].ends_with("loadgen"), "{at}");
            assert!(
                st.tool_command.contains(&format!("{}", st.connections)),
                "{at}: {:?}",
                st.tool_command
            );
            assert_eq!(st.repeats.len(), 1, "{at}");
            let m = st.median.as_ref().expect("a median");
            assert!(m.requests > 0 && m.requests_per_s > 0.0, "{at}: {m:?}");
            // Equal bytes: the contract's head (119 or 116 bytes, Date included) plus body.
            let want = if st.endpoint == "/" { 1143.0 } else { 125.0 };
            assert_eq!(m.bytes_per_response, want, "{at}");
            assert!(
                m.latency_us.p50.is_some() && m.latency_us.p99.is_some(),
                "{at}"
            );
            let rss = m.rss_kb.expect("RSS sampled");
            assert!(
                rss.start > 0 && rss.peak >= rss.start && rss.peak >= rss.end,
                "{at}: {rss:?}"
            );
            let cpu = m.server_cpu_s.expect("CPU sampled");
            assert!(cpu > 0.0, "{at}: {cpu}");
            assert!(m.server_cpu_percent.is_some_and(|p| p > 0.0), "{at}");
            assert!(m.cpu_us_per_request.is_some_and(|c| c > 0.0), "{at}");
            let spread = st.spread.expect("a spread");
            assert_eq!(spread.relative, 0.0, "{at}: one repeat");
        }
    }
}

#[test]
fn quick_e6_pipelines_plaintext_verifies_first_and_reports_tfb_tables() {
    // server-prebuilt and server-may: the debug server-hyper answers nothing within a 2 s
    // window under 4,096 connections pipelining 16 each (65,536 requests in flight), so its
    // step is rightly invalid and the run cannot pass; the release one does (docs/results).
    let _heavy = heavy();
    let run = quick_run("e6", "server-prebuilt,server-may", Duration::from_secs(240));
    let mut r = load_checked(&run.file).expect("a valid results file");
    assert_eq!(r.experiment, "e6");
    for s in &r.servers {
        // Verified before the load: a 200 with the contract's body on both endpoints.
        let verified: Vec<(&str, Option<u16>, bool)> = s
            .verified
            .iter()
            // Nothing differs from the contract but a field servers.toml documents (may's
            // `server`).
            .map(|v| {
                let undocumented = v.notes.iter().any(|n| !n.contains("(documented"));
                (v.endpoint.as_str(), v.status, !undocumented)
            })
            .collect();
        assert_eq!(
            verified,
            [("/api/hello", Some(200), true), ("/hello", Some(200), true)],
            "{}: {:?}",
            s.name,
            s.verified
        );
        let steps: Vec<(&str, &str)> = s
            .steps
            .iter()
            .map(|st| (st.endpoint.as_str(), st.step.as_str()))
            .collect();
        assert_eq!(
            steps,
            [
                ("/hello", "c256"),
                ("/hello", "c1024"),
                ("/hello", "c4096"),
                ("/api/hello", "c16"),
                ("/api/hello", "c64"),
                ("/api/hello", "c256"),
                ("/api/hello", "c512"),
            ]
        );
        for st in &s.steps {
            let at = format!("{} {} {}", s.name, st.endpoint, st.step);
            assert!(st.valid, "{at}: {:?}", st.invalid_reason);
            let piped = st.tool_command.windows(2).any(|w| w == ["-p", "16"]);
            assert_eq!(
                piped,
                st.endpoint == "/hello",
                "{at}: {:?}",
                st.tool_command
            );
            let m = st.median.as_ref().expect("a median");
            assert!(m.requests > 0 && m.requests_per_s > 0.0, "{at}: {m:?}");
            assert_eq!(m.errors.total(), 0, "{at}: {:?}", m.errors);
            let caveat = m
                .notes
                .iter()
                .any(|n| n.starts_with("loadgen -p 16 records"));
            assert_eq!(caveat, piped, "{at}: {:?}", m.notes);
        }
    }
    // TechEmpower's shape: requests/s per concurrency, best, share, errors; the pipelined
    // latency caveat; the verification table. A tool-bound figure is marked.
    if let Some(m) = r.servers[0].steps[0].median.as_mut() {
        m.tool_bound = true;
    }
    let md = bench_report::markdown(&r);
    let plain = md
        .lines()
        .skip_while(|l| !l.starts_with("## Plaintext (`/hello`, pipelined 16 deep)"))
        .nth(2)
        .unwrap_or_else(|| panic!("no plaintext table in:\n{md}"));
    assert_eq!(
        plain,
        "| Server | Analogue of | c256 | c1024 | c4096 | best | % of best | errors |"
    );
    assert!(
        md.contains("## JSON (`/api/hello`, no pipelining): requests/s"),
        "{md}"
    );
    let row = md
        .lines()
        .find(|l| l.starts_with("| server-prebuilt |"))
        .unwrap();
    assert!(row.split(" | ").nth(2).unwrap().contains(" †"), "{row}");
    assert!(md.contains("## Responses verified before the load"), "{md}");
    assert!(
        md.contains("loadgen -p 16 records a latency for every request"),
        "{md}"
    );
    fs::remove_dir_all(&run.dir).ok();
}

#[test]
fn quick_e4_has_the_probe_on_every_scenario_step_and_the_baseline() {
    let _heavy = heavy();
    let bins = bin_dir();
    let out_dir = scratch("e4");
    let (out, seen, elapsed) = bench_in(
        &[
            "run",
            "e4",
            "--quick",
            "--servers",
            "server-hyper",
            "--workers",
            "2",
        ],
        (&bins, &out_dir),
        &[],
        Duration::from_secs(180),
    );
    println!("bench run e4 --quick took {elapsed:.1?}");
    // A debug server-hyper takes ~40 ms per sum, so the warm-up's backlog of blocked sums can
    // leave `sync` (or `sync-offload`) no answer in its 2 s window: then that step is
    // invalid and bench exits 1 saying so, with the step's run (and its probe) still kept.
    let stderr = text(&out.stderr);
    assert!(
        out.status.success() || stderr.contains("could not be measured: server-hyper: /api/sync"),
        "{:?}: {stderr}",
        out.status
    );
    assert!(still_running(&seen).is_empty());
    let r = only_results(&out_dir);
    // --workers reaches the server and the results.
    assert_eq!(r.workers, Some(2));
    let hyper = &r.servers[0];
    assert!(
        hyper.command.windows(2).any(|w| w == ["--workers", "2"]),
        "{:?}",
        hyper.command
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("server-hyper ran 2 current-thread tokio runtimes")),
        "{:?}",
        r.notes
    );
    let ids: Vec<&str> = hyper.steps.iter().map(|s| s.step.as_str()).collect();
    assert_eq!(
        ids,
        [
            "baseline",
            "async",
            "sync",
            "sync-offload",
            "nexttick",
            "timer"
        ]
    );
    assert!(r.complete);
    for st in &hyper.steps {
        assert!(st.valid || st.step.starts_with("sync"), "{st:?}");
        let each = st.repeats.iter().map(|r| r.probe.as_deref());
        for p in each.chain([st.median.as_ref().and_then(|m| m.probe.as_deref())]) {
            let p = p.unwrap_or_else(|| panic!("{}: no probe: {st:?}", st.step));
            // Measured, though a blocked debug server may answer nothing in the probe's 1 s.
            assert!(
                p.duration_s > 0.0 && p.tool_cpus == Some(1),
                "{}: {p:?}",
                st.step
            );
            assert_eq!(p.rss_kb, None, "the server's figures are the step's");
        }
    }
    // The baseline is the probe alone: its run is the probe's, on /api/hello, 1 connection.
    let base = &hyper.steps[0];
    assert_eq!(
        (base.endpoint.as_str(), base.connections),
        ("/api/hello", 0)
    );
    assert!(base.tool_command.windows(2).any(|w| w == ["-c", "1"]));
    let m = base.median.as_ref().unwrap();
    assert!(m.requests > 0);
    assert_eq!(m.probe.as_ref().unwrap().requests, m.requests);
    // The scenario steps keep their own load (100 connections) and its figures.
    let sync = &hyper.steps[2];
    assert!(sync.tool_command.windows(2).any(|w| w == ["-c", "100"]));
    assert!(sync.median.as_ref().unwrap().rss_kb.is_some());
    // The report has the probe's table.
    let json = fs::read_dir(&out_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let (md, _) = bench_report::write_beside(&json, None).unwrap();
    let md = fs::read_to_string(md).unwrap();
    assert!(md.contains("## The probe: `/api/hello` beside each scenario's load"));
    assert!(md.contains("| no load (baseline) |"));
    let _ = fs::remove_dir_all(&out_dir);
}

#[test]
fn sigint_keeps_the_finished_steps_and_stops_everything_it_started() {
    let _heavy = heavy();
    let bins = bin_dir();
    let out_dir = scratch("sigint");
    // Quick steps (1 s warm-up, 2 s): the signal comes once the first step is in the file
    // and the second step's load runs.
    let mut child = spawn(&[
        "run",
        "e3",
        "--quick",
        "--servers",
        "server-prebuilt",
        "--bin-dir",
        bins.to_str().unwrap(),
        "--results-dir",
        out_dir.to_str().unwrap(),
    ]);
    let pid = child.id() as i32;
    let mut seen = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let results = |dir: &Path| -> Vec<PathBuf> {
        fs::read_dir(dir)
            .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default()
    };
    // Wait for the first results file, then for a loadgen of the next step.
    let mut first: Option<Results> = None;
    loop {
        record_descendants(pid, &mut seen);
        if first.is_none()
            && let Some(p) = results(&out_dir)
                .into_iter()
                .find(|p| p.extension().is_some_and(|x| x == "json"))
            && let Ok(r) = load_checked(&p)
        {
            first = Some(r);
            seen.retain(|_, s| s.comm != "loadgen");
        }
        let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
        if first.is_some() && names.contains(&"server-prebuilt") && names.contains(&"loadgen") {
            break;
        }
        if let Ok(Some(s)) = child.try_wait() {
            let (_, err) = drain(&mut child);
            panic!("bench exited early ({s}): {}", text(&err));
        }
        assert!(
            Instant::now() < deadline,
            "no results file and loadgen under bench: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = first.unwrap();
    assert!(!first.complete, "written while it runs: {first:?}");
    assert_eq!(
        first.incomplete_reason.as_deref(),
        Some("running: 1 of 6 step runs done")
    );
    std::thread::sleep(Duration::from_millis(300));
    record_descendants(pid, &mut seen);
    // SAFETY: kill(2) on our own child, not yet waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let signalled = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if signalled.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bench still running 15 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = signalled.elapsed();
    println!("bench exited {took:.1?} after SIGINT: {status}");
    let (_, err) = drain(&mut child);
    let err = text(&err);
    assert_eq!(status.code(), Some(130), "{status}: {err}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "interrupted by SIGINT: stopped every process it had started; results so far ("
        ) && err.contains(" of 6 step runs) written to "),
        "{err}"
    );
    let left = still_running(&seen);
    assert!(
        left.is_empty(),
        "still running after bench exited: {left:?}"
    );
    // One file, no temporary beside it: the finished steps, marked incomplete.
    let files = results(&out_dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let r = load_checked(&files[0]).unwrap();
    assert!(!r.complete);
    let reason = r.incomplete_reason.clone().unwrap_or_default();
    assert!(
        reason.starts_with("interrupted by SIGINT after ") && reason.ends_with(" of 6 step runs"),
        "{reason}"
    );
    let done: Vec<_> = r.servers[0]
        .steps
        .iter()
        .filter(|st| !st.repeats.is_empty())
        .collect();
    assert!(!done.is_empty() && done.len() < 6, "{done:?}");
    assert!(done.iter().all(|st| st.valid && st.median.is_some()));
    assert!(
        err.contains(&format!("({} of 6 step runs)", done.len())),
        "{err}"
    );
    // Its report says it is partial.
    let md = bench_report::markdown(&r);
    assert!(
        md.contains("> **Partial run: interrupted by SIGINT after"),
        "{md}"
    );
    fs::remove_dir_all(&out_dir).ok();
}

/// Runs bench with `args` (and `env`), expecting failure with exactly one stderr line that
/// contains `want`; returns the line.
fn fails_with(args: &[&str], env: &[(&str, &str)], want: &str) -> String {
    let out = bench_cmd(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run bench");
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.starts_with("bench: ") && err.contains(want),
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let results = scratch("bad");
    let res = results.to_str().unwrap();
    let common = ["--bin-dir", bins, "--results-dir", res];
    let with = |first: &[&str]| -> Vec<String> {
        first
            .iter()
            .map(|s| s.to_string())
            .chain(common.iter().map(|s| s.to_string()))
            .collect()
    };
    let call = |args: Vec<String>, env: &[(&str, &str)], want: &str| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_with(&a, env, want)
    };

    call(with(&["run", "e9"]), &[], "unknown experiment \"e9\"");
    call(
        with(&["run", "e3", "--servers", "server-nope"]),
        &[],
        "unknown server \"server-nope\"",
    );
    call(
        with(&["run", "e3", "--tool", "siege"]),
        &[],
        "unknown tool \"siege\"",
    );
    fails_with(
        &["verify", "server-nope", "--bin-dir", bins],
        &[],
        "unknown server",
    );
    call(
        with(&["run", "e4", "--servers", "server-prebuilt"]),
        &[],
        "does not serve /api/async",
    );
    // A tool that is not installed: nothing is on this PATH.
    call(
        with(&[
            "run",
            "e3",
            "--quick",
            "--servers",
            "server-prebuilt",
            "--tool",
            "wrk",
        ]),
        &[("PATH", "/nonexistent")],
        "wrk is not installed",
    );
    // A bad flag: clap's error, still one line (exit 2).
    fails_with(&["run", "e3", "--repeat", "0"], &[], "--rounds");

    // A port in use: the server cannot bind it and says so; bench reports that in one line.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let line = call(
        with(&[
            "run",
            "e3",
            "--quick",
            "--servers",
            "server-prebuilt",
            "--port",
            &port,
        ]),
        &[],
        "server-prebuilt did not start",
    );
    assert!(line.contains("exit status: 2"), "{line}");
    drop(taken);

    // --target where nothing listens.
    let free = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", free.local_addr().unwrap());
    drop(free);
    call(
        with(&["run", "e3", "--quick", "--target", &url]),
        &[],
        "nothing answers at",
    );

    // A server that fails to start: a binary that writes its reason and exits 1.
    let fake = scratch("fake-bins");
    let no_luck = "echo 'server-prebuilt: cannot start: no luck' >&2\nexit 1\n";
    fake_program(&fake, "server-prebuilt", no_luck);
    std::os::unix::fs::symlink(Path::new(bins).join("loadgen"), fake.join("loadgen")).unwrap();
    let line = fails_with(
        &[
            "run",
            "e3",
            "--quick",
            "--servers",
            "server-prebuilt",
            "--bin-dir",
            fake.to_str().unwrap(),
            "--results-dir",
            res,
        ],
        &[],
        "server-prebuilt did not start: it exited before it was ready",
    );
    assert!(line.contains("no luck"), "{line}");
    assert_eq!(
        fs::read_dir(&results).unwrap().count(),
        0,
        "results written"
    );
    fs::remove_dir_all(&fake).ok();
    fs::remove_dir_all(&results).ok();
}

#[test]
fn target_drives_a_running_server_without_starting_or_sampling() {
    let _heavy = heavy();
    let server = serve::process::ServerProcess::start(bin_dir().join("server-prebuilt"), &[])
        .expect("start server-prebuilt");
    let url = format!("http://{}", server.addr());
    let args = [
        "run",
        "e5",
        "--quick",
        "--target",
        &url,
        "--servers",
        "server-prebuilt",
    ];
    let run = run_ok("target", &args, Duration::from_secs(60));
    let names: Vec<&str> = run.seen.values().map(|s| s.comm.as_str()).collect();
    assert!(
        !names.contains(&"server-prebuilt"),
        "started a server: {names:?}"
    );
    assert!(names.contains(&"loadgen"), "{names:?}");
    let r = load_checked(&run.file).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.target.as_deref(), Some(url.as_str()));
    assert_eq!(r.pinning, None);
    assert!(
        r.notes.iter().any(|n| n.contains("no /proc sampling")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.servers.len(), 1);
    assert_eq!(r.servers[0].name, "server-prebuilt");
    assert!(r.servers[0].command.is_empty());
    for st in &r.servers[0].steps {
        let m = st.median.as_ref().unwrap();
        assert!(st.valid && m.requests == 2_000, "{st:?}");
        assert_eq!(
            m.bytes_per_response, 153.0,
            "HTTP/1.0 keep-alive answer to /hello"
        );
        assert_eq!((m.rss_kb, m.server_cpu_s), (None, None));
    }
    drop(server);
    fs::remove_dir_all(&run.dir).ok();
}

#[test]
fn a_step_that_gets_no_answer_is_invalid() {
    // A server that accepts every connection and closes it unanswered: each request fails at
    // once, so the step's counts are all failures and measure nothing.
    let _heavy = heavy();
    let mute = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", mute.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in mute.incoming() {
            drop(conn);
        }
    });
    // A run that measured nothing fails, and the results are still written.
    let args = ["run", "e2", "--quick", "--repeat", "1"];
    let (stderr, r) = failing_target_run("no-answer", &args, &url);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("got no good answer"), "{stderr}");
    let step = &r.servers[0].steps[0];
    assert!(!step.valid, "{step:?}");
    assert!(
        step.invalid_reason
            .as_deref()
            .is_some_and(|w| w.contains("got no good answer")),
        "{step:?}"
    );
}

#[test]
fn verify_prints_the_fairness_table_and_fails_on_a_wrong_server() {
    // verify runs the core, connection and RFC 9112 checks on each server: a load of its own,
    // which must not fall inside another test's measured steps.
    let _heavy = heavy();
    let bins = bin_dir();
    let out = Command::new(BENCH)
        .args(["verify", "server-prebuilt", "server-may", "--bin-dir"])
        .arg(&bins)
        .output()
        .expect("run bench verify");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("server-prebuilt (127.0.0.1:"), "{stdout}");
    assert!(
        stdout.contains("core + connection + rfc9112: 2 passed, 76 excused, 0 failed"),
        "{stdout}"
    );
    // The reasons only with --verbose (tests/own_server.rs).
    assert!(!stdout.contains("EXCEPTION"), "{stdout}");
    let row = |server: &str, endpoint: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.starts_with(server) && l.split_whitespace().nth(1) == Some(endpoint))
            .unwrap_or_else(|| panic!("no row {server} {endpoint}: {stdout}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // status, head, body, total, fields
    assert_eq!(
        row("server-prebuilt", "/")[2..7],
        [
            "200",
            "119",
            "1024",
            "1143",
            "content-type,content-length,date"
        ]
    );
    let may = row("server-may", "/");
    assert_eq!(may[2..6], ["200", "130", "1024", "1154"]);
    assert!(
        may.join(" ").contains("extra `server` (documented, 11 B)"),
        "{may:?}"
    );

    // server-may's binary under server-prebuilt's name: its deviations are not excused there.
    let fake = scratch("verify-fake");
    std::os::unix::fs::symlink(bins.join("server-may"), fake.join("server-prebuilt")).unwrap();
    let line = fails_with(
        &[
            "verify",
            "server-prebuilt",
            "--bin-dir",
            fake.to_str().unwrap(),
        ],
        &[],
        "failed conformance checks: server-prebuilt: ",
    );
    assert!(line.contains("core.hello.get"), "{line}");
    fs::remove_dir_all(&fake).ok();
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let bins = bin_dir();
    let mut child = Command::new(BENCH)
        .args(["verify", "server-prebuilt", "--bin-dir"])
        .arg(&bins)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bench");
    // The reader goes away at once, as `| head -0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for bench");
    let err = text(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn tools_compare_alternates_the_tools_on_one_server() {
    let _heavy = heavy();
    let bins = bin_dir();
    let dir = scratch("tools-compare");
    // Every other tool that is installed here (scripts/install-peers.sh: wrk, k6, autocannon;
    // oha with INSTALL_OHA=1) is compared with the built-in one; with none, the test has
    // nothing to compare and says so.
    // Strict: every tool must be there; else each missing one is said, and the others are
    // compared.
    let others: Vec<Tool> = [Tool::Wrk, Tool::Oha, Tool::K6, Tool::Autocannon]
        .into_iter()
        .filter(|t| installed(*t, "bench::cli::tools_compare"))
        .collect();
    if others.is_empty() {
        return;
    }
    let mut tools = vec!["builtin"];
    tools.extend(others.iter().map(|t| t.name()));
    println!("comparing {tools:?}");
    let tools = tools.join(",");
    let (out, seen, _) = run_watched(
        &[
            "tools",
            "compare",
            "--server",
            "server-prebuilt",
            "--tools",
            &tools,
            "--rounds",
            "2",
            "--duration",
            "1s",
            "--warmup",
            "1s",
            "--connections",
            "10",
            "--bin-dir",
            bins.to_str().unwrap(),
            "--results-dir",
            dir.to_str().unwrap(),
        ],
        Duration::from_secs(180),
    );
    let stdout = text(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    fs::remove_dir_all(&dir).ok();

    // One server for the whole command; every tool ran under bench; nothing is left.
    let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
    let servers = names.iter().filter(|n| **n == "server-prebuilt").count();
    assert_eq!(servers, 1, "{names:?}");
    let comm = |t: &Tool| match t {
        Tool::Autocannon => "node",
        t => t.name(),
    };
    for want in std::iter::once("loadgen").chain(others.iter().map(comm)) {
        assert!(names.contains(&want), "never saw {want}: {names:?}");
    }
    assert!(still_running(&seen).is_empty());

    // Rounds alternate the tools in the order given; the first tool is the reference.
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|c| c.len() >= 10 && c[0].parse::<u32>().is_ok())
        .collect();
    let order: Vec<(&str, &str)> = rows.iter().map(|c| (c[0], c[1])).collect();
    let want: Vec<(&str, &str)> = ["1", "2"]
        .into_iter()
        .flat_map(|r| tools.split(',').map(move |t| (r, t)))
        .collect();
    assert_eq!(order, want, "{stdout}");
    for c in &rows {
        // Figures are grouped by thousands (`29,905`), as every table writes them.
        let figure = |s: &str| s.trim_end_matches('†').replace(',', "").parse::<f64>();
        let rps: f64 = figure(c[2]).unwrap_or_else(|_| panic!("req/s in {c:?}"));
        let p50: f64 = figure(c[3]).unwrap_or_else(|_| panic!("p50 in {c:?}"));
        // autocannon's latencies are whole milliseconds: its p50 may be 0.
        assert!(rps > 0.0 && (p50 > 0.0 || c[1] == "autocannon"), "{c:?}");
        // Server CPU per request and the tool's own CPU: sampled, because bench started both.
        assert!(figure(c[5]).is_ok_and(|v| v > 0.0), "{c:?}");
        assert!(figure(c[6]).is_ok_and(|v| v > 0.0), "tool CPU in {c:?}");
        let ratio: f64 = figure(c[8]).unwrap_or_else(|_| panic!("ratio in {c:?}"));
        if c[1] == "builtin" {
            assert_eq!((c[8], c[9]), ("1.000", "1.000"), "{c:?}");
        } else {
            assert!(ratio > 0.0, "{c:?}");
        }
    }
    assert!(stdout.contains("medians over the rounds"), "{stdout}");
}

/// `bench tools compare` writes `tools-<UTC>.json` (both tools' rows and medians, the load,
/// the provenance, no path under the workspace root) and its report, which `bench report`
/// writes again byte for byte.
#[test]
fn tools_compare_writes_its_results_file_and_report() {
    if !installed(
        Tool::Wrk,
        "bench::cli::tools_compare_writes_its_results_file",
    ) {
        return;
    }
    let _heavy = heavy();
    let bins = bin_dir();
    let dir = scratch("tools-file");
    let args = [
        "tools",
        "compare",
        "--server",
        "server-prebuilt",
        "--tools",
        "builtin,wrk",
        "--rounds",
        "1",
        "--duration",
        "1s",
        "--warmup",
        "1s",
        "--connections",
        "10",
        "--allow-busy",
        "--retries",
        "0",
    ];
    let (out, seen, _) = bench_in(&args, (&bins, &dir), &[], Duration::from_secs(120));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(still_running(&seen).is_empty());
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("results: "))
        .and_then(|l| l.split(" (report: ").next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no results line: {stdout}"));
    let md_path = json.with_extension("md");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let stem = json.file_stem().unwrap().to_str().unwrap();
    assert!(stem.starts_with("tools-") && stem.ends_with('Z'), "{stem}");
    assert_eq!(names, [format!("{stem}.json"), format!("{stem}.md")]);

    bench_model::schema::check_file(&json).unwrap_or_else(|e| panic!("{e}"));
    let r = ToolResults::load(&json).unwrap();
    assert_eq!(r.header.schema, "bench.tools/1");
    assert!(r.complete && r.incomplete_reason.is_none() && r.problems.is_empty());
    assert_eq!(r.header.command[..3], ["bench", "tools", "compare"]);
    assert!(r.header.machine.cpus >= 1 && r.header.versions.contains_key("rustc"));
    let tools: Vec<&str> = r.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["builtin", "wrk"]);
    assert!(r.tools.iter().all(|t| t.version.is_some()), "{:?}", r.tools);
    assert_eq!(r.server.name, "server-prebuilt");
    let l = &r.load;
    assert_eq!(
        (
            l.connections,
            l.mode.as_str(),
            l.endpoint.as_str(),
            l.rounds
        ),
        (10, "keep-alive", "/", 1)
    );
    assert_eq!((l.duration_s, l.warmup_s), (1.0, 1.0));
    let order: Vec<(u32, &str)> = r
        .rounds
        .iter()
        .map(|x| (x.round, x.tool.as_str()))
        .collect();
    assert_eq!(order, [(1, "builtin"), (1, "wrk")]);
    for x in &r.rounds {
        let run = x.run.as_ref().unwrap_or_else(|| panic!("{x:?}"));
        assert!(
            run.requests_per_s > 0.0 && run.tool_cpu_percent.is_some(),
            "{x:?}"
        );
        assert!(
            x.requests_per_s_ratio.is_some() && !x.tool_command.is_empty(),
            "{x:?}"
        );
    }
    assert_eq!(r.rounds[0].requests_per_s_ratio, Some(1.0));
    let medians: Vec<(&str, usize)> = r
        .medians
        .iter()
        .map(|m| (m.tool.as_str(), m.rounds_valid))
        .collect();
    assert_eq!(medians, [("builtin", 1), ("wrk", 1)]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = fs::canonicalize(root).unwrap();
    let raw = fs::read_to_string(&json).unwrap();
    assert!(!raw.contains(&format!("{}/", root.display())), "{raw}");

    let md = fs::read(&md_path).unwrap();
    let page = String::from_utf8_lossy(&md);
    assert!(
        page.contains("| 1 | builtin | ") && page.contains("| 1 | wrk | "),
        "{page}"
    );
    assert!(page.contains("The reference tool is builtin"), "{page}");
    fs::remove_file(&md_path).unwrap();
    let out = Command::new(BENCH)
        .arg("report")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(fs::read(&md_path).unwrap(), md);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn tools_compare_refuses_bad_input_before_starting() {
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let compare = |tools: &str, env: &[(&str, &str)], want: &str| {
        let args = [
            "tools",
            "compare",
            "--server",
            "server-prebuilt",
            "--tools",
            tools,
            "--bin-dir",
            bins,
        ];
        fails_with(&args, env, want)
    };
    compare("builtin,siege", &[], "unknown tool \"siege\"");
    compare("builtin", &[], "at least two tools");
    compare("builtin,builtin", &[], "named twice");
    // ab speaks HTTP/1.0 only: it cannot apply a keep-alive HTTP/1.1 load.
    compare("builtin,ab", &[], "ab cannot run this step");
    let line = compare(
        "builtin,wrk",
        &[("PATH", "/nonexistent")],
        "wrk is not installed",
    );
    assert!(!line.contains("--tool builtin"), "{line}");
    fails_with(
        &[
            "tools",
            "compare",
            "--server",
            "server-nope",
            "--tools",
            "builtin,wrk",
            "--bin-dir",
            bins,
        ],
        &[],
        "unknown server \"server-nope\"",
    );
}

#[test]
fn e1_with_k6_end_to_end() {
    if !installed(Tool::K6, "bench::cli::e1_with_k6") {
        return;
    }
    let _heavy = heavy();
    let r = tool_run(Tool::K6, "e1", &["--repeat", "1"], Duration::from_secs(180));
    assert!(r.complete && r.incomplete_reason.is_none());
    assert!(
        r.header.versions["tool"].starts_with("k6 v"),
        "{:?}",
        r.header.versions
    );
    let steps = &r.servers[0].steps;
    assert_eq!(steps.len(), 6, "two endpoints × c100, c500, c1000");
    for st in steps {
        let at = format!("{} {}", st.endpoint, st.step);
        assert!(st.valid, "{at}: {:?}", st.invalid_reason);
        assert!(
            st.tool_command[0].ends_with("k6"),
            "{at}: {:?}",
            st.tool_command
        );
        let m = st.median.as_ref().unwrap();
        assert!(m.requests > 0 && m.requests_per_s > 0.0, "{at}");
        assert!(
            m.latency_us.p95.is_some() && m.latency_us.p99.is_some(),
            "{at}"
        );
        assert_eq!(m.errors.total(), 0, "{at}: /api/private got its token");
        // k6's own CPU, beside the server's, and whether it was the limit.
        let cpu = m
            .tool_cpu_percent
            .unwrap_or_else(|| panic!("{at}: no tool CPU"));
        assert!(cpu > 0.0, "{at}");
        let cpus = m.tool_cpus.unwrap();
        assert_eq!(
            m.tool_bound,
            cpu >= 90.0 * cpus as f64,
            "{at}: {cpu} of {cpus}"
        );
        assert!(m.server_cpu_percent.is_some(), "{at}");
    }
}

#[test]
fn quick_e7_climbs_each_ladder_until_the_server_cannot_keep_up() {
    let _heavy = heavy();
    // Two rates a debug server keeps up with, then two no server here can: the ladder must
    // stop at 400k (its saturation, or the generator's limit there) and never run 800k.
    let args = [
        "run",
        "e7",
        "--quick",
        "--rates",
        "5000,1000,400000,800000",
        "--servers",
        "server-prebuilt,server-hyper",
        // The ladder alone: the search that follows it has its own test (cmd::run).
        "--no-search",
    ];
    let run = run_ok("e7", &args, Duration::from_secs(240));
    let stdout = text(&run.out.stdout);
    let r = load_checked(&run.file).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.complete && r.incomplete_reason.is_none());
    assert_eq!((r.experiment.as_str(), r.tool.as_str()), ("e7", "builtin"));
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("a ladder of offered rates (1000, 5000, 400000, 800000 requests/s) on 100 keep-alive connections, 2 s each after a discarded 1 s warm-up")),
        "{:?}",
        r.notes
    );
    for s in &r.servers {
        for endpoint in ["/hello", "/api/hello"] {
            let rungs: Vec<&bench_model::results::StepResult> = s
                .steps
                .iter()
                .filter(|st| st.endpoint == endpoint)
                .collect();
            let at = |i: usize| format!("{} {endpoint} {}", s.name, rungs[i].step);
            let ids: Vec<&str> = rungs.iter().map(|st| st.step.as_str()).collect();
            // The ladder runs lowest first and stops at the first rung it cannot keep up
            // with: 400k at the latest, so 800k never runs and is not in the results.
            let stop = rungs
                .iter()
                .position(|st| !st.valid || st.saturation.is_some())
                .unwrap_or_else(|| {
                    panic!("{} {endpoint}: no rung stopped the ladder: {ids:?}", s.name)
                });
            assert_eq!(
                stop + 1,
                rungs.len(),
                "{} {endpoint}: rungs run past the stop: {ids:?}",
                s.name
            );
            assert_eq!(
                ids,
                ["r1k", "r5k", "r400k"][..rungs.len()],
                "{} {endpoint}",
                s.name
            );
            for (i, st) in rungs.iter().enumerate() {
                let offered = [1000.0, 5000.0, 400_000.0][i];
                assert_eq!(st.offered_requests_per_s, Some(offered), "{}", at(i));
                assert_eq!(st.connections, 100);
                let Some(m) = &st.median else {
                    assert!(!st.valid, "{}", at(i));
                    continue;
                };
                assert_eq!(m.offered_requests_per_s, Some(offered), "{}", at(i));
                let cmd = st.tool_command.join(" ");
                assert!(cmd.contains(&format!(" -R {offered} ")), "{}: {cmd}", at(i));
                // Both latencies, p99.9 too, and the server's CPU with its split.
                let (l, u) = (&m.latency_us, m.latency_uncorrected_us.as_ref().unwrap());
                assert!(
                    l.p50.is_some() && l.p99.is_some() && l.p999.is_some() && l.max.is_some(),
                    "{}",
                    at(i)
                );
                assert!(u.p99.is_some() && u.p999.is_some(), "{}", at(i));
                assert!(l.p50 >= u.p50 && l.max >= u.max, "{}: {l:?} {u:?}", at(i));
                assert!(
                    m.cpu_us_per_request.is_some()
                        && m.cpu_user_us_per_request.is_some()
                        && m.cpu_kernel_us_per_request.is_some(),
                    "{}",
                    at(i)
                );
                assert!(m.rss_kb.is_some() && m.interference.is_some(), "{}", at(i));
                // Below the stop the server kept up, by the one rule.
                if i < stop {
                    assert!(st.valid && st.saturation.is_none(), "{}", at(i));
                    assert_eq!(bench_model::rules::saturated(m), None, "{}", at(i));
                }
            }
            // The stop: the server's saturation (why, by the rule), or the load tool's limit.
            let last = rungs[stop];
            match (&last.saturation, last.valid) {
                (Some(why), true) => assert_eq!(
                    Some(why.clone()),
                    bench_model::rules::saturated(last.median.as_ref().unwrap()),
                    "{}",
                    at(stop)
                ),
                (None, false) => {
                    let why = last.invalid_reason.as_deref().unwrap_or_default();
                    assert!(
                        why.contains("the load tool was the limit") || why.contains("failed"),
                        "{}: {why}",
                        at(stop)
                    );
                }
                other => panic!("{}: {other:?}", at(stop)),
            }
            assert!(
                stdout.contains(&format!(
                    "{}: {endpoint} stops at {} this round: ",
                    s.name, last.step
                )),
                "{stdout}"
            );
        }
    }
    // The report: the rungs' table per endpoint, with each server's saturation, and the two
    // charts against the offered rate per endpoint.
    let md = bench_report::markdown(&r);
    for endpoint in ["/hello", "/api/hello"] {
        let heading =
            format!("## `{endpoint}`: p99 ms · server CPU µs per request, at each offered rate");
        assert!(md.contains(&heading), "{md}");
    }
    assert!(
        md.contains(
            "| Server | Analogue of | Capacity, req/s | Searched between | p99 ≤ 10 ms up to | r1k | r5k |"
        ),
        "{md}"
    );
    let svg = bench_report::svg_string(&r);
    assert_eq!(svg.matches("Latency against the offered rate").count(), 2);
    assert_eq!(
        svg.matches("Server CPU time per request against the offered rate")
            .count(),
        2
    );
    fs::remove_dir_all(&run.dir).ok();
}

#[test]
fn e7_with_k6_and_oha_end_to_end() {
    let _heavy = heavy();
    for (tool, marker) in [
        (Tool::K6, "scripts/k6/e7.js"),
        (Tool::Oha, "-q 1000 --latency-correction"),
    ] {
        if !installed(tool, "bench::cli::e7_with_k6_and_oha") {
            continue;
        }
        let r = tool_run(
            tool,
            "e7",
            &["--rates", "1000", "--no-search"],
            Duration::from_secs(120),
        );
        let steps = &r.servers[0].steps;
        assert_eq!(steps.len(), 2, "one rung on each endpoint");
        for st in steps {
            let at = format!("{tool} {} {}", st.endpoint, st.step);
            assert!(st.valid, "{at}: {:?}", st.invalid_reason);
            assert!(
                st.tool_command.join(" ").contains(marker),
                "{at}: {:?}",
                st.tool_command
            );
            let m = st.median.as_ref().unwrap();
            assert_eq!(m.offered_requests_per_s, Some(1000.0), "{at}");
            assert!(m.requests > 0 && m.latency_us.p999.is_some(), "{at}");
            // Neither reports the latency from the actual send beside it; a note says what
            // its latency is.
            assert_eq!(m.latency_uncorrected_us, None, "{at}");
            assert!(
                m.notes.iter().any(|n| n.contains(if tool == Tool::K6 {
                    "constant-arrival-rate"
                } else {
                    "--latency-correction"
                })),
                "{at}: {:?}",
                m.notes
            );
            assert!(
                m.tool_cpu_percent.is_some() && m.cpu_us_per_request.is_some(),
                "{at}"
            );
        }
    }
}

#[test]
fn a_tool_that_crashes_voids_its_steps_and_leaves_nothing_running() {
    let _heavy = heavy();
    let bins = bin_dir();
    let out_dir = scratch("crash");
    // A `wrk` first on PATH that answers --version, then dies of SIGSEGV after a line on stderr.
    let fake = scratch("crash-bin");
    fake_program(
        &fake,
        "wrk",
        "[ \"$1\" = --version ] && { echo 'wrk 4.1.0 [fake]'; exit 1; }\necho 'wrk: boom' >&2\nkill -SEGV $$\n",
    );
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (out, seen, _) = bench_in(
        &[
            "run",
            "e3",
            "--quick",
            "--tool",
            "wrk",
            "--servers",
            "server-prebuilt",
        ],
        (&bins, &out_dir),
        &[("PATH", &path)],
        Duration::from_secs(120),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("6 steps could not be measured") && err.contains("wrk: boom"),
        "{err}"
    );
    assert!(still_running(&seen).is_empty());
    let r = only_results(&out_dir);
    assert!(r.complete);
    for st in &r.servers[0].steps {
        let why = st.invalid_reason.as_deref().unwrap_or_default();
        assert!(!st.valid && st.repeats.is_empty(), "{st:?}");
        assert!(
            why.starts_with("wrk failed (signal: 11") && why.ends_with(": wrk: boom"),
            "{why}"
        );
    }
    fs::remove_dir_all(&fake).ok();
    fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_tool_that_cannot_run_is_refused_with_exit_2_before_anything_starts() {
    let bins = bin_dir();
    let results = scratch("refused");
    let refused = |args: &[&str], env: &[(&str, &str)], want: &str| {
        let (out, seen, _) = bench_in(args, (&bins, &results), env, Duration::from_secs(30));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("bench: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert!(seen.is_empty(), "{args:?} started {seen:?}");
    };
    refused(
        &["run", "e3", "--tool", "siege"],
        &[],
        "unknown tool \"siege\"",
    );
    // autocannon speaks HTTP/1.1 only: E2 and E5 are HTTP/1.0.
    refused(
        &["run", "e2", "--tool", "autocannon"],
        &[],
        "autocannon cannot run this step: it sends HTTP/1.1 only",
    );
    refused(
        &["run", "e5", "--quick", "--tool", "autocannon"],
        &[],
        "autocannon cannot run this step",
    );
    // wrk has no request count.
    refused(
        &["run", "e2", "--tool", "wrk"],
        &[],
        "wrk cannot run this step",
    );
    // E7 offers a fixed rate: wrk, ab and autocannon have no open model.
    for (tool, why) in [
        ("wrk", "wrk cannot run this step: it has no open model"),
        ("ab", "ab cannot run this step: it has no open model"),
        (
            "autocannon",
            "autocannon cannot run this step: its rate (-R, --overallRate) is no open model",
        ),
    ] {
        refused(&["run", "e7", "--quick", "--tool", tool], &[], why);
    }
    // A ladder of rates is E7's only.
    refused(
        &["run", "e3", "--quick", "--rates", "1000"],
        &[],
        "--rates sets a ladder of offered rates, and e3 has none (e7 has)",
    );
    // Not installed: wrk and ab are looked for on PATH only.
    refused(
        &["run", "e3", "--tool", "wrk"],
        &[("PATH", "/nonexistent")],
        "wrk is not installed",
    );
    assert_eq!(fs::read_dir(&results).unwrap().count(), 0);
    fs::remove_dir_all(&results).ok();
}

/// A server that answers `500` to every request: keep-alive for HTTP/1.1 and for an HTTP/1.0
/// request that asks for it (ab -k's mode), else one answer and a close. Its address.
fn server_of_500s() -> String {
    use std::io::Write;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = conn.read(&mut chunk) else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                        buf.drain(..end + 4);
                        let keep = head.contains("http/1.1") && !head.contains("connection: close")
                            || head.contains("connection: keep-alive");
                        let answer = format!(
                            "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: {}\r\n\r\n",
                            if keep { "keep-alive" } else { "close" }
                        );
                        if conn.write_all(answer.as_bytes()).is_err() || !keep {
                            return;
                        }
                    }
                }
            });
        }
    });
    url
}

#[test]
fn a_step_whose_answers_are_errors_is_invalid() {
    // Every request answered, every answer a 500: no step of it is a result.
    let _heavy = heavy();
    let url = server_of_500s();
    let (_, r) = failing_target_run("all-500", &["run", "e5", "--quick"], &url);
    let steps = &r.servers[0].steps;
    assert_eq!(steps.len(), 3, "{steps:?}");
    for st in steps {
        assert!(!st.valid, "{st:?}");
        let why = st.invalid_reason.as_deref().unwrap_or_default();
        assert!(
            why.contains("got no good answer") && why.contains(" status"),
            "{why}"
        );
        let m = st.median.as_ref().unwrap();
        assert_eq!(m.errors.status, m.requests, "{m:?}");
        assert!(m.requests > 0);
    }
}

#[test]
fn steps_picks_steps_by_id_and_refuses_an_unknown_one() {
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let line = fails_with(
        &["run", "e3", "--steps", "c7", "--bin-dir", bins],
        &[],
        "e3 has no step \"c7\": its steps are c100, c1000, c10000",
    );
    assert!(line.starts_with("bench: "), "{line}");
}

#[test]
fn endpoints_refuses_a_path_the_experiment_does_not_measure() {
    let bins = bin_dir();
    let bins = bins.to_str().unwrap();
    let line = fails_with(
        &["run", "e7", "--endpoints", "/", "--bin-dir", bins],
        &[],
        "e7 has no endpoint \"/\": its endpoints are /hello, /api/hello",
    );
    assert!(line.starts_with("bench: "), "{line}");
}

#[test]
fn e5_with_ab_end_to_end() {
    if !installed(Tool::Ab, "bench::cli::e5_with_ab") {
        return;
    }
    let _heavy = heavy();
    let r = tool_run(Tool::Ab, "e5", &[], Duration::from_secs(180));
    let steps = &r.servers[0].steps;
    assert_eq!(
        steps.iter().map(|s| s.step.as_str()).collect::<Vec<_>>(),
        ["c1", "c10", "c100"]
    );
    for st in steps {
        assert!(st.valid, "{st:?}");
        assert!(st.tool_command[0].ends_with("ab"), "{st:?}");
        assert!(st.tool_command.contains(&"-k".to_string()), "{st:?}");
        let m = st.median.as_ref().unwrap();
        // ab -k -n 2000: every request answered, HTTP/1.0 keep-alive, the contract's bytes.
        assert_eq!((m.requests, m.errors.total()), (2000, 0), "{m:?}");
        assert!(m.bytes_per_response > 100.0, "{m:?}");
        // A window under a second: no CPU shares or tool verdict, and the reason.
        assert!(
            m.unmeasured.is_some() && m.tool_cpu_percent.is_none() && !m.tool_bound,
            "{m:?}"
        );
    }
}

/// `bench publish --quick` on one server, in two sittings: Ctrl-C once E3 is done keeps the
/// finished parts and publishes nothing; a second start without `--resume` is refused; with
/// it the publish carries on from E5 (E3 is not measured again), replaces the folder's earlier
/// results files (and only those), writes every part's files, the page and the README's
/// headline table, and leaves nothing running.
#[test]
fn publish_quick_keeps_what_finished_on_ctrl_c_and_resumes() {
    let _heavy = heavy();
    let bins = bin_dir();
    let dir = scratch("publish");
    let results = dir.join("results");
    fs::create_dir_all(&results).unwrap();
    // An earlier publish's file (replaced) and a file of the folder's own (kept).
    fs::write(results.join("e1-20200101T000000Z.json"), "{}").unwrap();
    fs::write(results.join("README.md"), "# results\n").unwrap();
    let readme = dir.join("README.md");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    fs::copy(root.join("README.md"), &readme).unwrap();
    let before = fs::read_to_string(&readme).unwrap();
    let staging = results.join(".publish");
    let state = || -> Option<bench::cmd::publish::State> {
        serde_json::from_str(&fs::read_to_string(staging.join("state.json")).ok()?).ok()
    };
    let args = [
        "publish",
        "--quick",
        "--servers",
        "server-prebuilt",
        "--results-dir",
        results.to_str().unwrap(),
        "--readme",
        readme.to_str().unwrap(),
        "--bin-dir",
        bins.to_str().unwrap(),
        "--allow-busy",
        "--retries",
        "0",
    ];

    // The first sitting, stopped by SIGINT once E3 is done (while E5 runs).
    let log = dir.join("first.log");
    let mut child = Command::new(BENCH)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(fs::File::create(&log).unwrap()))
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bench publish");
    let pid = child.id() as i32;
    let mut seen = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        record_descendants(pid, &mut seen);
        if state().is_some_and(|s| s.done.iter().any(|d| d.part == "e3")) {
            break;
        }
        if let Ok(Some(s)) = child.try_wait() {
            let (_, err) = drain(&mut child);
            panic!("bench publish exited early ({s}): {}", text(&err));
        }
        assert!(Instant::now() < deadline, "E3 not done in 240 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    record_descendants(pid, &mut seen);
    // SAFETY: kill(2) on our own child, not yet waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    let (_, err) = drain(&mut child);
    let err = text(&err);
    println!(
        "first sitting: {status}\n{}",
        fs::read_to_string(&log).unwrap()
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted by SIGINT")
            && err.contains("the finished parts (e3) are kept in")
            && err.contains("`bench publish --resume` carries on from there"),
        "{err}"
    );
    let left = still_running(&seen);
    assert!(
        left.is_empty(),
        "still running after bench exited: {left:?}"
    );
    // It did start the server and the load generator (and, above, left none of them).
    let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
    for want in ["server-prebuilt", "loadgen"] {
        assert!(
            names.contains(&want),
            "never saw {want} under bench: {names:?}"
        );
    }
    let first = state().expect("the state stays");
    let e3: Vec<String> = first.done[0].files.clone();
    assert!(
        e3.iter()
            .any(|f| f.starts_with("e3-") && f.ends_with(".json")),
        "{e3:?}"
    );
    for f in &e3 {
        assert!(staging.join(f).is_file(), "{f} not kept");
    }
    let e3_json = e3.iter().find(|f| f.ends_with(".json")).unwrap();
    // E3 carries the publish's A/A pairs: server-prebuilt and a copy of it on `/` (node-http's
    // pair is left out with node-http).
    check_quick_e3(
        &staging.join(e3_json),
        &["server-prebuilt", "server-prebuilt#2"],
    );
    // Nothing published yet: the folder is as it was, the README too.
    assert!(results.join("e1-20200101T000000Z.json").is_file());
    assert_eq!(fs::read_to_string(&readme).unwrap(), before);

    // Without --resume the interrupted publish is not thrown away.
    let refused = bench_cmd(&args).stdin(Stdio::null()).output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let line = text(&refused.stderr);
    assert!(
        line.contains("an interrupted publish is waiting in") && line.contains("(e3 done)"),
        "{line}"
    );

    // The second sitting.
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let (out, seen, took) = run_watched(&resumed, Duration::from_secs(400));
    let stdout = text(&out.stdout);
    println!("second sitting took {took:.1?}\n{stdout}");
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let left = still_running(&seen);
    assert!(
        left.is_empty(),
        "still running after bench exited: {left:?}"
    );
    assert!(
        !stdout.contains("publish: e3 ("),
        "E3 measured again:\n{stdout}"
    );
    let names: BTreeSet<String> = fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // E3 from the first sitting, under its name.
    for f in &e3 {
        assert!(names.contains(f), "{f}: {names:?}");
    }
    // Every part server-prebuilt takes part in, each with its report; the old file gone, the
    // folder's own kept; the staging folder gone unless a stopped part's file is kept in it.
    for kind in ["e3", "e5", "e6", "e7"] {
        for ext in ["json", "md", "svg"] {
            assert!(
                names
                    .iter()
                    .any(|n| n.starts_with(&format!("{kind}-")) && n.ends_with(ext)),
                "no {kind} .{ext}: {names:?}"
            );
        }
    }
    for kind in ["instructions", "tools", "idle"] {
        for ext in ["json", "md"] {
            assert!(
                names
                    .iter()
                    .any(|n| n.starts_with(&format!("{kind}-")) && n.ends_with(ext)),
                "no {kind} .{ext}: {names:?}"
            );
        }
    }
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("e1-") || n.starts_with("e2-") || n.starts_with("e4-")),
        "{names:?}"
    );
    assert!(
        names.contains("README.md") && names.contains("index.html"),
        "{names:?}"
    );
    // Every results file the publish wrote has its kind's committed schema.
    for n in names.iter().filter(|n| n.ends_with(".json")) {
        bench_model::schema::check_file(&results.join(n)).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        !staging.join("state.json").exists(),
        "the state is gone once published"
    );
    // The README's headline table is the published one's; the rest of the README is as it was.
    let after = fs::read_to_string(&readme).unwrap();
    assert_ne!(after, before);
    let table_of = |t: &str| {
        let (a, rest) = t.split_once("<!-- bench:headline -->").unwrap();
        let (_, b) = rest.split_once("<!-- /bench:headline -->").unwrap();
        (a.to_string(), b.to_string())
    };
    assert_eq!(table_of(&after), table_of(&before));
    assert!(after.contains("| server-prebuilt |"), "{after}");
    // The page has every part.
    let page = fs::read_to_string(results.join("index.html")).unwrap();
    for id in [
        "id=\"e3\"",
        "id=\"e7\"",
        "id=\"instructions\"",
        "id=\"tools\"",
        "id=\"idle\"",
    ] {
        assert!(page.contains(id), "no {id} on the page");
    }
    fs::remove_dir_all(&dir).ok();
}

/// An A/A check: server-prebuilt named twice (the copy is `server-prebuilt#2`), E3's `c100`
/// steps (`/` and `/my/ip`), 12 rounds of 1 s. The two copies are the same binary, each cell
/// on a fresh process and the copies in a random order each round, so the rounds' ratios of
/// their requests/s are as likely above 1.00 as below, whatever the machine does: all 12 on
/// one side happens with probability 2 / 2¹² for one step, under 1 in 1,000 for the two.
/// So the [min, max] of the 12 ratios (the median's 99.9 % interval) must hold 1.00: a
/// correct harness fails this less than once in 1,000 runs, and one that favoured a copy
/// (always measured first, or on a warmed process) fails it.
#[test]
fn an_aa_pair_shows_no_difference_at_the_runs_precision() {
    let _lock = heavy();
    let args = [
        "run",
        "e3",
        "--steps",
        "c100",
        "--length",
        "1s",
        "--rounds",
        "12",
        "--seed",
        "20261202",
        "--servers",
        "server-prebuilt,server-prebuilt",
    ];
    let run = run_ok("aa", &args, Duration::from_secs(600));
    let r = load_checked(&run.file).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = r.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["server-prebuilt", "server-prebuilt#2"]);
    assert_eq!((r.repeat, r.seed), (12, Some(20261202)));
    let (a, b) = (&r.servers[0], &r.servers[1]);
    assert_eq!(a.steps.len(), 2);
    for sa in &a.steps {
        let sb = b
            .steps
            .iter()
            .find(|x| x.endpoint == sa.endpoint && x.step == sa.step)
            .unwrap();
        let at = format!("{} {}", sa.endpoint, sa.step);
        assert!(sa.valid && sb.valid, "{at}");
        let rounds: Vec<Option<u32>> = sa.repeats.iter().map(|x| x.round).collect();
        assert_eq!(rounds, (1..=12).map(Some).collect::<Vec<_>>(), "{at}");
        let ratios: Vec<f64> = sa
            .repeats
            .iter()
            .map(|x| x.requests_per_s / sb.in_round(x.round.unwrap()).unwrap().requests_per_s)
            .collect();
        let i = bench_model::stats::median_interval(ratios.clone(), 0.999).unwrap();
        assert!(i.confidence >= 0.999 && i.n == 12, "{at}: {i:?}");
        assert!(
            i.holds(1.0),
            "{at}: two copies of one server differ at 99.9 %: {i:?} from {ratios:?}"
        );
        // The step's own 95 % interval and the paired ratio are in the file and the report.
        assert!(
            sa.intervals.and_then(|iv| iv.requests_per_s).is_some(),
            "{at}"
        );
        let (mid, p) = sa.paired_ratio(sb, |x| Some(x.requests_per_s)).unwrap();
        println!(
            "{at}: A/A ratio {mid:.3} (95 % CI {:.3}–{:.3}, {} rounds)",
            p.low, p.high, p.n
        );
    }
    fs::remove_dir_all(&run.dir).ok();
}
