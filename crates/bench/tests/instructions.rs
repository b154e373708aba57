//! The CI guard on the hot path: `server-prebuilt`'s instructions per `GET /` keep-alive
//! request, counted by callgrind (deterministic to about 1 %, whatever else the machine does),
//! must stay within the committed baseline's tolerances both ways: a rise past `tolerance`
//! (10 %) is a regression, and a fall past `tolerance_below` (3 %) is an improvement to record
//! on purpose. And a count is only taken from runs whose every answer is the contract's.
//!
//! The baseline is `crates/bench/baselines/instructions.json`; after a deliberate change,
//! write it again with the command it names:
//! `cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json`.
//!
//! Each check is shown failing on the wrong thing: a baseline 20 % lower (the guard must say
//! the count rose) and one 50 % higher (it must say the count fell, and print that command),
//! both measured with fewer requests to keep the test short; and a wrong server put in
//! server-prebuilt's place with `--bin-dir`: this test binary run again as a tiny server that
//! answers `HTTP/1.1 200 OK` with `content-length: 0` (refused on the first answer), or answers
//! the first request right and every later one so (refused on the load generator's counts).
//!
//! Without valgrind the tests skip with the reason (scripts/install-peers.sh installs it), or
//! fail under `BENCH_REQUIRE_TOOLS=1` as in CI (`conformance::require`).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use conformance::require;

const BENCH: &str = env!("CARGO_BIN_EXE_bench");
const TEST: &str = "bench::instructions";
/// Set in the environment of the wrong server (this binary run again): `empty` or `sly`.
const WRONG_SERVER: &str = "BENCH_TEST_WRONG_SERVER";
/// The command the guard prints when the count fell.
const WRITE_BASELINE: &str = "cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json";

/// Callgrind runs take both CPUs of the project's machines: one at a time.
static HEAVY: Mutex<()> = Mutex::new(());

fn baseline() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/instructions.json")
}

/// Whether valgrind is here; else the skip (or, strict, the failure).
fn valgrind() -> bool {
    if require::program("valgrind").is_some() {
        return true;
    }
    require::missing(
        TEST,
        "valgrind",
        "scripts/install-peers.sh installs Debian's valgrind",
    );
    false
}

/// `bench instructions --check FILE [--bin-dir DIR]` with `env`; without `--bin-dir` bench
/// builds the release binaries it measures.
fn check(file: &Path, bin_dir: Option<&Path>, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BENCH);
    cmd.args(["instructions", "--check"]).arg(file);
    if let Some(dir) = bin_dir {
        cmd.arg("--bin-dir").arg(dir);
    }
    cmd.envs(env.iter().copied()).output().expect("run bench")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch path unique to this process and `name`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("bench-instructions-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The committed baseline with `per_request` times `factor` and the request counts `small`
/// and `large`, written to a scratch file.
fn doctored(name: &str, factor: f64, small: u64, large: u64) -> Scratch {
    let mut b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(baseline()).unwrap()).unwrap();
    b["per_request"] = (b["per_request"].as_f64().unwrap() * factor).into();
    b["counts"]["small"] = small.into();
    b["counts"]["large"] = large.into();
    let file = Scratch::new(&format!("{name}.json"));
    std::fs::write(&file.0, b.to_string()).unwrap();
    file
}

/// The one line bench wrote on stderr after failing.
fn failed_with(out: &Output, what: &str) -> String {
    let err = text(&out.stderr);
    assert!(
        !out.status.success(),
        "{what} passed: {}{err}",
        text(&out.stdout)
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
    println!("{what}: {}", err.trim_end());
    err
}

#[test]
fn server_prebuilt_stays_within_its_baseline() {
    if !valgrind() {
        return;
    }
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let out = check(&baseline(), None, &[]);
    assert!(
        out.status.success(),
        "the guard failed: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let said = text(&out.stdout);
    assert!(said.contains("ok: server-prebuilt / keep-alive"), "{said}");
    println!("{}", said.trim_end());
}

/// The guard fails both ways: against a baseline 20 % lower the count rose; against one 50 %
/// higher it fell, and the line names the command that records the new figure. 200 and 1,200
/// requests instead of the baseline's counts: the figure is as far from either limit.
#[test]
fn a_lower_or_a_much_higher_baseline_fails() {
    if !valgrind() {
        return;
    }
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let lower = doctored("lower", 0.8, 200, 1_200);
    let err = failed_with(&check(&lower.0, None, &[]), "a 20 % lower baseline");
    assert!(err.contains("instructions per request rose"), "{err}");

    let higher = doctored("higher", 1.5, 200, 1_200);
    let err = failed_with(&check(&higher.0, None, &[]), "a 50 % higher baseline");
    assert!(
        err.contains("instructions per request fell more than 3 % below the baseline"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "write the new baseline with `{WRITE_BASELINE}` and commit it"
        )),
        "{err}"
    );
}

/// A folder with `server-prebuilt` (a script that runs this test binary as the wrong server)
/// and the release `loadgen` bench would use.
fn wrong_bin_dir() -> Scratch {
    let dir = Scratch::new("bin");
    std::fs::create_dir_all(&dir.0).unwrap();
    let root = manifest::workspace_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--release", "--locked", "-p", "loadgen"])
        .status()
        .expect("run cargo");
    assert!(
        status.success(),
        "cargo build --release -p loadgen: {status}"
    );
    let target = match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(t) if t.is_absolute() => t,
        Some(t) => root.join(t),
        None => root.join("target"),
    };
    std::os::unix::fs::symlink(target.join("release/loadgen"), dir.0.join("loadgen")).unwrap();
    // libtest prints `running 1 test` on stdout before the test starts, so the script sends
    // stdout to /dev/null and gives the server bench's pipe as fd 3 for its ready line. The
    // shell runs under callgrind; the test binary it executes runs natively (no
    // --trace-children for server-prebuilt): the answers are refused before any count.
    let me = std::env::current_exe().unwrap();
    let script = format!(
        "#!/bin/sh\nexec '{}' --exact wrong_server --nocapture --test-threads=1 3>&1 >/dev/null\n",
        me.display()
    );
    let path = dir.0.join("server-prebuilt");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn a_server_that_answers_200_with_no_body_is_refused() {
    if !valgrind() {
        return;
    }
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = wrong_bin_dir();
    // The committed baseline, with few requests: the runs are refused before any count.
    let file = doctored("wrong", 1.0, 20, 120);

    // Every answer empty: refused on the first, sent by hand.
    let out = check(&file.0, Some(&bins.0), &[(WRONG_SERVER, "empty")]);
    let err = failed_with(&out, "a server answering 200 with no body");
    assert!(
        err.contains("server-prebuilt / keep-alive: the answer is not the contract's, so its instructions are not counted: status 200, 0 body bytes, 38 bytes in all; the contract's is status 200, 1,024 body bytes, 1,143 bytes in all"),
        "{err}"
    );

    // The first answer right, every later one empty: refused on loadgen's counts.
    let out = check(&file.0, Some(&bins.0), &[(WRONG_SERVER, "sly")]);
    let err = failed_with(
        &out,
        "a server answering 200 with no body after its first answer",
    );
    assert!(
        err.contains("server-prebuilt / keep-alive: the 20 answers were 760 bytes in all (38.0 per answer), not the contract's 1,143 bytes each, so the count is refused"),
        "{err}"
    );
    assert!(!err.contains("instructions per request"), "{err}");
}

/// The same wrong server under `bench run`: a server whose answers under load are not the
/// contract's length (the first right, every later one `200` with no body, so fast) is no
/// result, whatever its requests/s. Here, beside the instructions guard, because the wrong
/// server is this test binary run again; it needs no valgrind.
#[test]
fn bench_run_refuses_a_step_whose_answers_are_short() {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let bins = wrong_bin_dir();
    let results = Scratch::new("short-results");
    let out = Command::new(BENCH)
        .current_dir(manifest::workspace_root())
        .env(WRONG_SERVER, "sly")
        .args([
            "run",
            "e3",
            "--servers",
            "server-prebuilt",
            "--steps",
            "c100",
        ])
        .args([
            "--length",
            "1s",
            "--rounds",
            "1",
            "--allow-busy",
            "--bin-dir",
        ])
        .arg(&bins.0)
        .arg("--results-dir")
        .arg(&results.0)
        .output()
        .expect("run bench");
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let file = std::fs::read_dir(&results.0)
        .unwrap_or_else(|e| panic!("no results folder ({e}): {all}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_else(|| panic!("no results file: {all}"));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let steps = r["servers"][0]["steps"].as_array().unwrap();
    let root = steps.iter().find(|s| s["endpoint"] == "/").unwrap();
    assert_eq!(root["valid"], false, "{root}");
    let why = root["invalid_reason"].as_str().unwrap();
    // The answer read before the load was the right one: a 119-byte head.
    assert!(
        why.starts_with(
            "its responses were 38 bytes each on average as builtin counts them, not the 1143 they must be (a 119-byte head and the contract's 1024-byte body)"
        ),
        "{why}"
    );
    assert!(all.contains(why), "said on the terminal too: {all}");
}

/// The wrong server, when this binary is run again by the script of [`wrong_bin_dir`]
/// (otherwise nothing): on 127.0.0.1, one thread per connection, every request head answered
/// `HTTP/1.1 200 OK` with `content-length: 0`; with `sly`, the very first one answered as
/// the contract says. It runs until bench kills it.
#[test]
fn wrong_server() {
    let Ok(kind) = std::env::var(WRONG_SERVER) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut ready = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/fd/3")
        .expect("fd 3, bench's stdout pipe");
    writeln!(
        ready,
        "listening on http://{}",
        listener.local_addr().unwrap()
    )
    .unwrap();
    drop(ready);
    let right = contract::response::Prebuilt::endpoint(
        contract::Endpoint::Root,
        false,
        &contract::date::now(),
    )
    .unwrap();
    let right = right.bytes().to_vec();
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let sly = kind == "sly";
        let right = right.clone();
        std::thread::spawn(move || {
            answer_heads(stream, |first| {
                if sly && first {
                    right.clone()
                } else {
                    b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_vec()
                }
            })
        });
    }
}

/// Whether the wrong server has answered nothing yet.
static FIRST: AtomicBool = AtomicBool::new(true);

/// Answers every request head on `stream` with `answer(whether it is the server's
/// first)`.
fn answer_heads(mut stream: TcpStream, answer: impl Fn(bool) -> Vec<u8>) {
    let mut pending = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            return;
        }
        pending.extend_from_slice(&buf[..n]);
        let mut out = Vec::new();
        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            pending.drain(..end + 4);
            out.extend(answer(FIRST.swap(false, Ordering::Relaxed)));
        }
        if stream.write_all(&out).is_err() {
            return;
        }
    }
}
