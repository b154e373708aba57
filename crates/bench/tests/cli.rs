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

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bench::results::Results;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");

/// Runs that load the machine take this, one at a time.
static HEAVY: Mutex<()> = Mutex::new(());

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
    let started = Instant::now();
    let mut child = spawn(args);
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

fn spawn(args: &[&str]) -> Child {
    Command::new(BENCH)
        .args(args)
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

/// What a quick run left: its output, the processes seen under it, how long it took, its
/// results folder and the results file read back.
struct QuickRun {
    out: Output,
    seen: BTreeMap<i32, Seen>,
    elapsed: Duration,
    dir: PathBuf,
    file: PathBuf,
}

/// `bench run EXPERIMENT --quick --servers SERVERS` with the test's binaries, within `limit`:
/// it must succeed, leave nothing running and write exactly one results file.
fn quick_run(experiment: &str, servers: &str, limit: Duration) -> QuickRun {
    let bins = bin_dir();
    let dir = scratch(experiment);
    let (out, seen, elapsed) = run_watched(
        &[
            "run",
            experiment,
            "--quick",
            "--servers",
            servers,
            "--bin-dir",
            bins.to_str().unwrap(),
            "--results-dir",
            dir.to_str().unwrap(),
        ],
        limit,
    );
    println!("bench run {experiment} --quick took {elapsed:.1?}");
    println!("{}", text(&out.stdout));
    assert!(
        out.status.success(),
        "{:?}: {}",
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
        elapsed,
        file: files[0].clone(),
        dir,
    }
}

#[test]
fn quick_e3_on_two_variants_writes_the_results_and_leaves_nothing_behind() {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let run = quick_run(
        "e3",
        "server-prebuilt,server-hyper",
        Duration::from_secs(180),
    );
    assert!(
        run.elapsed < Duration::from_secs(120),
        "took {:?}",
        run.elapsed
    );

    // It did start servers and load generators (and, above, left none of them).
    let names: Vec<&str> = run.seen.values().map(|s| s.comm.as_str()).collect();
    for want in ["server-prebuilt", "server-hyper", "loadgen"] {
        assert!(
            names.contains(&want),
            "never saw {want} under bench: {names:?}"
        );
    }

    // The results file, read back through the schema's own types.
    let name = run.file.file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with("e3-") && name.ends_with("Z.json"),
        "{name}"
    );
    assert!(
        text(&run.out.stdout).contains(&name),
        "stdout does not name {name}"
    );
    let r = Results::load(&run.file).expect("a valid results file");
    assert_eq!(
        (r.experiment.as_str(), r.tool.as_str(), r.quick, r.repeat),
        ("e3", "builtin", true, 1)
    );
    assert_eq!(r.target, None);
    assert!(r.machine.cpus >= 1 && !r.machine.kernel.is_empty());
    assert!(r.versions.contains_key("bench") && r.versions.contains_key("tool"));
    if r.machine.cpus >= 2 {
        let p = r.pinning.as_ref().expect("pinned with two or more CPUs");
        assert!(!p.server_cpus.is_empty() && !p.load_cpus.is_empty());
        assert!(p.server_cpus.iter().all(|c| !p.load_cpus.contains(c)));
    }
    let servers: Vec<&str> = r.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(servers, ["server-prebuilt", "server-hyper"]);
    for s in &r.servers {
        assert!(s.command[0].ends_with(&s.name), "{:?}", s.command);
        let steps: Vec<(&str, &str)> = s
            .steps
            .iter()
            .map(|st| (st.endpoint.as_str(), st.step.as_str()))
            .collect();
        assert_eq!(
            steps,
            [
                ("/", "c100"),
                ("/", "c1000"),
                ("/", "c10000"),
                ("/my/ip", "c100"),
                ("/my/ip", "c1000"),
                ("/my/ip", "c10000")
            ]
        );
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
    fs::remove_dir_all(&run.dir).ok();
}

#[test]
fn quick_e6_pipelines_plaintext_verifies_first_and_reports_tfb_tables() {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let run = quick_run(
        "e6",
        "server-prebuilt,server-hyper",
        Duration::from_secs(240),
    );
    let mut r = Results::load(&run.file).expect("a valid results file");
    assert_eq!(r.experiment, "e6");
    for s in &r.servers {
        // Verified before the load: a 200 with the contract's body on both endpoints.
        let verified: Vec<(&str, Option<u16>, bool)> = s
            .verified
            .iter()
            .map(|v| (v.endpoint.as_str(), v.status, v.notes.is_empty()))
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
        m.notes.push(
            "loadgen was busy: a worker thread used 99 % of a CPU, so it may have set the pace"
                .into(),
        );
    }
    let md = bench::report::markdown(&r);
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
    assert!(row.split(" | ").nth(2).unwrap().ends_with(" †"), "{row}");
    assert!(md.contains("## Responses verified before the load"), "{md}");
    assert!(
        md.contains("loadgen -p 16 records a latency for every request"),
        "{md}"
    );
    fs::remove_dir_all(&run.dir).ok();
}

#[test]
fn sigint_stops_the_run_and_everything_it_started() {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = bin_dir();
    let out_dir = scratch("sigint");
    // Full-length steps (10 s each): the signal arrives in the middle of the first.
    let mut child = spawn(&[
        "run",
        "e3",
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
    // Wait until both the server and a load generator run under it.
    loop {
        record_descendants(pid, &mut seen);
        let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
        if names.contains(&"server-prebuilt") && names.contains(&"loadgen") {
            break;
        }
        if let Ok(Some(s)) = child.try_wait() {
            let (_, err) = drain(&mut child);
            panic!("bench exited early ({s}): {}", text(&err));
        }
        assert!(
            Instant::now() < deadline,
            "no server and loadgen under bench: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
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
    assert!(!status.success(), "{status}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("interrupted by SIGINT") && err.contains("stopped every process"),
        "{err}"
    );
    let left = still_running(&seen);
    assert!(
        left.is_empty(),
        "still running after bench exited: {left:?}"
    );
    assert_eq!(
        fs::read_dir(&out_dir).unwrap().count(),
        0,
        "results written"
    );
    fs::remove_dir_all(&out_dir).ok();
}

/// Runs bench with `args` (and `env`), expecting failure with exactly one stderr line that
/// contains `want`; returns the line.
fn fails_with(args: &[&str], env: &[(&str, &str)], want: &str) -> String {
    let out = Command::new(BENCH)
        .args(args)
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
    fails_with(&["run", "e3", "--repeat", "0"], &[], "--repeat");

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
    let script = fake.join("server-prebuilt");
    fs::write(
        &script,
        "#!/bin/sh\necho 'server-prebuilt: cannot start: no luck' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
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
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = bin_dir();
    let out_dir = scratch("target");
    let server = serve::process::ServerProcess::start(bins.join("server-prebuilt"), &[])
        .expect("start server-prebuilt");
    let url = format!("http://{}", server.addr());
    let (out, seen, _) = run_watched(
        &[
            "run",
            "e5",
            "--quick",
            "--target",
            &url,
            "--servers",
            "server-prebuilt",
            "--bin-dir",
            bins.to_str().unwrap(),
            "--results-dir",
            out_dir.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
    assert!(
        !names.contains(&"server-prebuilt"),
        "started a server: {names:?}"
    );
    assert!(names.contains(&"loadgen"), "{names:?}");
    assert!(still_running(&seen).is_empty());
    let file = fs::read_dir(&out_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let r = Results::load(&file).unwrap();
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
    fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn a_step_that_gets_no_answer_is_invalid() {
    // A server that accepts every connection and closes it unanswered: each request fails at
    // once, so the step's counts are all failures and measure nothing.
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = bin_dir();
    let out_dir = scratch("no-answer");
    let mute = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", mute.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in mute.incoming() {
            drop(conn);
        }
    });
    let out = Command::new(BENCH)
        .args(["run", "e2", "--quick", "--repeat", "1", "--target", &url])
        .arg("--bin-dir")
        .arg(&bins)
        .arg("--results-dir")
        .arg(&out_dir)
        .output()
        .expect("run bench");
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "a run that measured nothing passed");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("got no answer"), "{stderr}");
    let file = fs::read_dir(&out_dir)
        .unwrap()
        .next()
        .expect("the results are still written")
        .unwrap()
        .path();
    let r = Results::load(&file).unwrap();
    let step = &r.servers[0].steps[0];
    assert!(!step.valid, "{step:?}");
    assert!(
        step.invalid_reason
            .as_deref()
            .is_some_and(|w| w.contains("got no answer")),
        "{step:?}"
    );
    fs::remove_dir_all(&out_dir).ok();
}

#[test]
fn verify_prints_the_fairness_table_and_fails_on_a_wrong_server() {
    let bins = bin_dir();
    let out = Command::new(BENCH)
        .args(["verify", "server-prebuilt", "server-may", "--bin-dir"])
        .arg(&bins)
        .output()
        .expect("run bench verify");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("server-prebuilt (127.0.0.1:"), "{stdout}");
    assert!(stdout.contains("core + connection + rfc9112: "), "{stdout}");
    assert!(
        stdout.contains("EXCEPTION (servers.toml) core.hello.get"),
        "{stdout}"
    );
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
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = bin_dir();
    // wrk is installed on this project's machines; elsewhere the built-in tool is compared
    // with oha if that is there, else the test has nothing to compare and says so.
    let on_path = |p: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(p).is_file()))
    };
    let Some(other) = ["wrk", "oha"].into_iter().find(|t| on_path(t)) else {
        println!("neither wrk nor oha on PATH: nothing to compare the built-in tool with");
        return;
    };
    let tools = format!("builtin,{other}");
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
        ],
        Duration::from_secs(120),
    );
    let stdout = text(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));

    // One server for the whole command; every tool ran under bench; nothing is left.
    let names: Vec<&str> = seen.values().map(|s| s.comm.as_str()).collect();
    let servers = names.iter().filter(|n| **n == "server-prebuilt").count();
    assert_eq!(servers, 1, "{names:?}");
    for want in ["loadgen", other] {
        assert!(names.contains(&want), "never saw {want}: {names:?}");
    }
    assert!(still_running(&seen).is_empty());

    // Rounds alternate the tools in the order given; the first tool is the reference.
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|c| c.len() >= 9 && c[0].parse::<u32>().is_ok())
        .collect();
    let order: Vec<(&str, &str)> = rows.iter().map(|c| (c[0], c[1])).collect();
    assert_eq!(
        order,
        [
            ("1", "builtin"),
            ("1", other),
            ("2", "builtin"),
            ("2", other)
        ],
        "{stdout}"
    );
    for c in &rows {
        let rps: f64 = c[2].parse().unwrap_or_else(|_| panic!("req/s in {c:?}"));
        let p50: f64 = c[3].parse().unwrap_or_else(|_| panic!("p50 in {c:?}"));
        assert!(rps > 0.0 && p50 > 0.0, "{c:?}");
        // Server CPU per request: sampled, because bench started the server.
        assert!(c[5].parse::<f64>().is_ok_and(|v| v > 0.0), "{c:?}");
        let ratio: f64 = c[7].parse().unwrap_or_else(|_| panic!("ratio in {c:?}"));
        if c[1] == "builtin" {
            assert_eq!((c[7], c[8]), ("1.000", "1.000"), "{c:?}");
        } else {
            assert!(ratio > 0.0, "{c:?}");
        }
    }
    assert!(stdout.contains("medians over the rounds"), "{stdout}");
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
