//! `bench instructions`: what a request costs a server in CPU instructions, counted by
//! callgrind instead of timed, so the figure is the same on a quiet machine and a busy one.
//!
//! For each server, endpoint and mode the server runs twice under
//! `valgrind --tool=callgrind`, each time from start to exit; the built-in load generator
//! sends a small request count the first time and a large one the second. Start-up, the
//! connections' set-up (keep-alive and pipelined modes) and shutdown are the same in both runs,
//! so `(instructions of the large run − of the small run) / (answers of the large run − of the
//! small run)` is the cost of one request alone.
//!
//! Layout: [`Mode`] and [`Case`] say what is measured; [`count`] is one run under callgrind;
//! [`measure`] is the pair of runs and the difference; [`Baseline`] is the committed figure the
//! CI guard compares `server-prebuilt` with; [`InstructionResults`] is the results file, and
//! [`markdown`] its table.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde::{Deserialize, Serialize};
use serve::process::ServerProcess;

use crate::report::instructions::{markdown, markdown_report};
use crate::results::instructions::{Count, Counts, InstructionResults, Measurement, Mode, SCHEMA};
use crate::step::signals;

/// How long a server under valgrind may take to print its ready line.
const READY_UNDER_VALGRIND: Duration = Duration::from_secs(120);
/// How long it may take to exit after SIGTERM (callgrind writes its file on exit).
const EXIT_UNDER_VALGRIND: Duration = Duration::from_secs(60);

/// One server (its command line, `--addr` last) and what to send it.
#[derive(Clone, Debug)]
pub struct Case {
    /// The server's name in servers.toml.
    pub server: String,
    /// The program and its arguments, without the listen address.
    pub argv: Vec<String>,
    /// How the listen address is passed: appended as `--addr 127.0.0.1:0`, or substituted
    /// into `argv` already (peers) when `None`.
    pub addr_flag: Option<&'static str>,
    /// The request target, e.g. `/` or `/api?name=John&lastname=Doe`.
    pub target: String,
    /// Extra request header lines for the load generator (`-H`).
    pub headers: Vec<String>,
    /// How requests are sent.
    pub mode: Mode,
    /// Whether the server forks or re-executes itself (callgrind must follow the children).
    pub children: bool,
}

impl Measurement {
    /// The difference of two runs, per answer.
    pub fn from_runs(case: &Case, small: Count, large: Count) -> anyhow::Result<Measurement> {
        if large.answered <= small.answered {
            bail!(
                "{} {}: the large run answered {} requests, the small one {}",
                case.server,
                case.target,
                large.answered,
                small.answered
            );
        }
        let extra = large.instructions.saturating_sub(small.instructions);
        Ok(Measurement {
            server: case.server.clone(),
            target: case.target.clone(),
            mode: case.mode,
            small,
            large,
            per_request: extra as f64 / (large.answered - small.answered) as f64,
        })
    }
}

/// The `valgrind` on PATH and its version, or why there is none.
pub fn valgrind_version() -> Result<String, String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
        Ok(out) => Err(format!("`valgrind --version` exited with {}", out.status)),
        Err(e) => Err(format!(
            "valgrind is not installed ({e}); scripts/install-peers.sh installs Debian's"
        )),
    }
}

/// Runs `case`'s server under callgrind, sends it `requests` requests with the load generator
/// at `loadgen`, stops it with SIGTERM and returns the instructions it executed, read from the
/// callgrind files it wrote into `scratch`.
pub fn count(
    case: &Case,
    loadgen: &Path,
    requests: u64,
    connections: usize,
    scratch: &Path,
) -> anyhow::Result<Count> {
    signals::check()?;
    let dir = scratch.join(format!("run-{requests}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;

    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind").arg("--quiet").arg(format!(
        "--callgrind-out-file={}",
        dir.join("callgrind.out.%p").display()
    ));
    if case.children {
        cmd.arg("--trace-children=yes");
    }
    cmd.args(&case.argv);
    if let Some(flag) = case.addr_flag {
        cmd.args([flag, "127.0.0.1:0"]);
    }
    cmd.env_remove("AUTH_TOKEN").stderr(Stdio::piped());
    let mut server = ServerProcess::spawn(cmd, READY_UNDER_VALGRIND)
        .map_err(|e| anyhow!("{} under valgrind: {e}", case.server))?;
    let url = format!("http://{}{}", server.addr(), case.target);

    let mut load = Command::new(loadgen);
    load.args(["-t", "1", "-c", &connections.to_string()])
        .args(["-n", &requests.to_string()])
        .args(["--timeout", "60s", "--json"])
        .args(case.mode.loadgen_args());
    for h in &case.headers {
        load.args(["-H", h]);
    }
    load.arg(&url).stdin(Stdio::null());
    let out = load
        .output()
        .with_context(|| format!("running {}", loadgen.display()))?;
    signals::check()?;
    if !out.status.success() {
        bail!(
            "loadgen against {} exited with {}: {}",
            case.server,
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let answered = answered(&out.stdout)?;

    server
        .signal(libc::SIGTERM)
        .map_err(|e| anyhow!("stopping {}: {e}", case.server))?;
    let status = server.wait_exit(EXIT_UNDER_VALGRIND).ok_or_else(|| {
        anyhow!(
            "{} did not exit within {} s of SIGTERM under valgrind",
            case.server,
            EXIT_UNDER_VALGRIND.as_secs()
        )
    })?;
    if !status.success() {
        bail!("{} under valgrind exited with {status}", case.server);
    }
    let instructions = total_in(&dir)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Count {
        requests,
        answered,
        instructions,
    })
}

/// The two runs of `case` and their difference.
pub fn measure(
    case: &Case,
    loadgen: &Path,
    counts: Counts,
    scratch: &Path,
) -> anyhow::Result<Measurement> {
    let small = count(case, loadgen, counts.small, counts.connections, scratch)?;
    let large = count(case, loadgen, counts.large, counts.connections, scratch)?;
    Measurement::from_runs(case, small, large)
}

/// The answers in a `loadgen --json` report, read by the built-in tool's own parser; an error
/// when any request failed, since a failed request costs the server a different amount from an
/// answered one.
fn answered(report: &[u8]) -> anyhow::Result<u64> {
    let run = crate::step::tools::Tool::Builtin
        .parse(&String::from_utf8_lossy(report), "")
        .context("loadgen's --json output")?;
    let errors = run.errors.total();
    if errors > 0 {
        bail!(
            "{errors} requests failed under callgrind (of {} answered)",
            run.requests
        );
    }
    Ok(run.requests)
}

/// The instructions in every callgrind file in `dir` (one per process), summed.
fn total_in(dir: &Path) -> anyhow::Result<u64> {
    let mut total = 0;
    let mut files = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        total += callgrind_total(&text)
            .ok_or_else(|| anyhow!("no totals line in {}", path.display()))?;
        files += 1;
    }
    if files == 0 {
        bail!("callgrind wrote no file into {}", dir.display());
    }
    Ok(total)
}

/// The total of the first event (`Ir`, instructions) in a callgrind output file: its
/// `totals:` line, else its `summary:` line.
pub fn callgrind_total(text: &str) -> Option<u64> {
    let first = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
    };
    first("totals:").or_else(|| first("summary:"))
}

/// The committed figure the CI guard holds `server-prebuilt` to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The server's name.
    pub server: String,
    /// The request target.
    pub target: String,
    /// How requests were sent.
    pub mode: Mode,
    /// The request counts it was measured with.
    pub counts: Counts,
    /// Instructions per request when it was written.
    pub per_request: f64,
    /// How far above `per_request` a new measurement may be (0.10: 10 %).
    pub tolerance: f64,
    /// When and by what it was written.
    pub measured_utc: String,
    /// The command that writes it again.
    pub command: String,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> anyhow::Result<Baseline> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} does not parse", path.display()))
    }

    /// Writes it, pretty-printed.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }

    /// The highest figure that passes.
    pub fn limit(&self) -> f64 {
        self.per_request * (1.0 + self.tolerance)
    }

    /// Whether `m` passes: at most [`Baseline::limit`], with a one-line verdict either way.
    pub fn judge(&self, m: &Measurement) -> (bool, String) {
        let change = (m.per_request / self.per_request - 1.0) * 100.0;
        let pass = m.per_request <= self.limit();
        let verdict = format!(
            "{} {} {}: {:.0} instructions per request against the baseline's {:.0} ({change:+.1} %, limit {:.0}, +{:.0} %)",
            m.server,
            m.target,
            m.mode.name(),
            m.per_request,
            self.per_request,
            self.limit(),
            self.tolerance * 100.0
        );
        (pass, verdict)
    }
}

/// The notes every results file and report carries: what callgrind counts, and what it
/// distorts.
pub fn standard_notes() -> Vec<String> {
    vec![
        "Instructions are user-space instructions of the server's own process (and of its children: server-reuseport's workers, a peer's wrapper script and workers), every thread summed, as valgrind's callgrind counts them (Ir); the kernel's work for each system call (TCP, epoll) is not in them.".into(),
        "callgrind runs the server's threads one at a time on one simulated CPU, so a multi-threaded runtime's waits and wake-ups (actix's arbiters, may's scheduler, tokio's blocking pool) are counted as they happened under that serialisation, which is not how they interleave on real CPUs.".into(),
        "A `rep`-prefixed string instruction is counted once per repetition: glibc's memset and memcpy use `rep stosb`/`rep movsb` for blocks of a few KB, so zeroing or copying one costs about its length in bytes here, where a real CPU takes a few dozen nanoseconds. actix-http's request decoder zeroes a 3 KB header-index array for every request: 3,323 of server-actix's 11,500 instructions per pipelined `GET /hello` (callgrind_annotate, 2026-12-01), which inflates its figure against its CPU time.".into(),
        "A JIT (Node.js's V8) compiles when its counters say so, which moves with timing: two runs of node-http on /hello here gave 66,518 and 67,069 instructions per request (0.8 % apart), against about 1 % for the Rust variants.".into(),
        "The load generator runs natively, so the server is ~50× slower than the client: with 10 keep-alive connections it usually finds all of them readable at once, which favours servers that batch work per wake-up. The figures compare servers with each other under the same conditions; they are not a prediction of wall-clock speed.".into(),
        "Each figure is (instructions of the large run − of the small run) / (answers of the large run − of the small run): start-up, connection set-up and shutdown cancel out.".into(),
    ]
}

/// The argv of a server (without its address) and how its address is given.
pub fn argv_of(
    server: &manifest::Server,
    env: &crate::step::server::Env,
) -> anyhow::Result<(Vec<String>, Option<&'static str>)> {
    match &server.package {
        Some(package) => Ok((
            vec![env.binary(package).display().to_string()],
            Some("--addr"),
        )),
        None => Ok((
            server
                .argv(&env.root, "127.0.0.1:0")
                .ok_or_else(|| anyhow!("{} has no command", server.name))?,
            None,
        )),
    }
}

/// Whether callgrind can give a true figure for `server`, and if not, why not.
pub fn supported(server: &manifest::Server) -> Result<(), String> {
    if server.package.as_deref() == Some("server-reuseport") {
        return Err(
            "its supervisor starts its workers by executing /proc/self/exe, which under valgrind is valgrind's own tool binary (it exits 2 on the worker flags); each worker runs server-prebuilt's engine, measured as server-prebuilt".into(),
        );
    }
    match server.runtime.as_deref() {
        Some("go") => Err(
            "Go's runtime preempts goroutines with signals, and callgrind 3.19 aborts on them (`vgCallgrind_post_signal: Assertion 'sigNum == vgCallgrind_current_state.sig' failed`, seen here with peers/bin/go-http); a run that survives counts only part of the work".into(),
        ),
        _ => Ok(()),
    }
}

/// Whether `server` is measured when no `--servers` are named: the Rust variants and the C
/// ceiling (seconds each); a peer on an interpreter or a JIT takes about a minute per
/// endpoint and mode under callgrind, so it is measured when named.
pub fn in_default_set(server: &manifest::Server) -> bool {
    server.package.is_some() || server.runtime.as_deref() == Some("c")
}

/// The request targets measured by default: the contract's five plain endpoints.
pub const DEFAULT_TARGETS: [&str; 5] = [
    "/",
    "/api/hello",
    "/my/ip",
    crate::cmd::verify::ECHO,
    "/api/private",
];

/// What `bench instructions` was asked to do.
#[derive(Clone, Debug)]
pub struct Plan {
    /// servers.toml names; empty: every server callgrind can measure that runs here.
    pub servers: Vec<String>,
    /// Request targets.
    pub targets: Vec<String>,
    /// Modes.
    pub modes: Vec<Mode>,
    /// Request counts.
    pub counts: Counts,
    /// Where the results JSON goes.
    pub results_dir: PathBuf,
    /// Measure only this baseline's case and fail above its limit.
    pub check: Option<PathBuf>,
    /// Measure the baseline's case (server-prebuilt, `/`, keep-alive) and write it here.
    pub write_baseline: Option<PathBuf>,
}

/// The case of `server` for `target` and `mode`.
fn case_for(
    server: &manifest::Server,
    env: &crate::step::server::Env,
    target: &str,
    mode: Mode,
) -> anyhow::Result<Case> {
    let (argv, addr_flag) = argv_of(server, env)?;
    let path = target.split('?').next().unwrap_or(target);
    let headers = if path == "/api/private" {
        vec![format!(
            "Authorization: Bearer {}",
            contract::body::DEFAULT_AUTH_TOKEN
        )]
    } else {
        vec![]
    };
    Ok(Case {
        server: server.name.clone(),
        argv,
        addr_flag,
        target: target.to_string(),
        headers,
        mode,
        // server-reuseport re-executes itself as its workers; peers start through wrappers
        // (nginx's run.sh) or fork (node's cluster). Start-up cancels out in the difference.
        children: server.package.is_none() || server.package.as_deref() == Some("server-reuseport"),
    })
}

/// `bench instructions`: measures, prints the table, writes the results (or checks or writes
/// the baseline).
pub fn run(
    env: &crate::step::server::Env,
    plan: &Plan,
    command: Vec<String>,
) -> anyhow::Result<()> {
    let valgrind = valgrind_version().map_err(|why| anyhow!("{why}"))?;
    let manifest = env.manifest()?;
    let baseline = match (&plan.check, &plan.write_baseline) {
        (Some(path), _) => Some(Baseline::load(path)?),
        (None, Some(_)) => Some(Baseline {
            server: "server-prebuilt".into(),
            target: "/".into(),
            mode: Mode::KeepAlive,
            counts: plan.counts,
            per_request: 0.0,
            tolerance: 0.10,
            measured_utc: crate::results::timestamp::utc_now(),
            command: "cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json".into(),
        }),
        (None, None) => None,
    };
    let (names, targets, modes, counts) = match &baseline {
        Some(b) => (
            vec![b.server.clone()],
            vec![b.target.clone()],
            vec![b.mode],
            b.counts,
        ),
        None => (
            plan.servers.clone(),
            plan.targets.clone(),
            plan.modes.clone(),
            plan.counts,
        ),
    };
    let chosen = crate::step::server::select(&manifest, &names, |_| true)?;
    let mut servers = Vec::new();
    let mut not_measured = Vec::new();
    for s in chosen {
        let why = supported(s)
            .err()
            .or_else(|| match crate::step::server::availability(s, env) {
                crate::step::server::Availability::Missing(why) => {
                    Some(format!("cannot run here: {why}"))
                }
                _ => None,
            });
        match why {
            None if names.is_empty() && !in_default_set(s) => not_measured.push((
                s.name.clone(),
                "a peer: measured when named with --servers (under callgrind an interpreter's or a JIT's figure takes about a minute each)".into(),
            )),
            Some(why) if names.is_empty() => not_measured.push((s.name.clone(), why)),
            Some(why) => bail!("{}: {why}", s.name),
            None => servers.push(s),
        }
    }
    if servers.is_empty() {
        bail!("no server to measure (see `bench list`)");
    }
    let mut packages: Vec<String> = servers.iter().filter_map(|s| s.package.clone()).collect();
    packages.push("loadgen".into());
    if env.builds() {
        crate::say!("building {} (release)", packages.join(", "));
    }
    crate::step::server::build(env, &packages, || {})?;
    let loadgen = env.binary("loadgen");
    let scratch = std::env::temp_dir().join(format!("bench-instructions-{}", std::process::id()));
    let started = crate::results::timestamp::utc_now();
    let mut measurements = Vec::new();
    let result = (|| -> anyhow::Result<()> {
        'servers: for s in &servers {
            for target in &targets {
                let path = target.split('?').next().unwrap_or(target);
                if !s.serves(path) {
                    continue;
                }
                for &mode in &modes {
                    let case = case_for(s, env, target, mode)?;
                    crate::say!(
                        "{} {} {}: {} and {} requests under callgrind",
                        s.name,
                        target,
                        mode.name(),
                        counts.small,
                        counts.large
                    );
                    let m = match measure(&case, &loadgen, counts, &scratch) {
                        Ok(m) => m,
                        Err(e) if e.is::<signals::Interrupted>() => return Err(e),
                        // One server that cannot be measured does not cost the others theirs.
                        Err(e) if names.len() != 1 => {
                            crate::say!("  not measured: {e:#}");
                            not_measured.push((s.name.clone(), format!("{e:#}")));
                            continue 'servers;
                        }
                        Err(e) => return Err(e),
                    };
                    crate::say!(
                        "  {} instructions per request",
                        crate::report::thousands(m.per_request)
                    );
                    measurements.push(m);
                }
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result?;

    if let Some(mut b) = baseline {
        let m = measurements
            .first()
            .ok_or_else(|| anyhow!("{} does not serve {}", b.server, b.target))?;
        if let Some(path) = &plan.write_baseline {
            b.per_request = m.per_request;
            b.write(path)?;
            crate::say!(
                "{}: {} {} {}: {:.0} instructions per request",
                path.display(),
                b.server,
                b.target,
                b.mode.name(),
                b.per_request
            );
            return Ok(());
        }
        let (pass, verdict) = b.judge(m);
        if !pass {
            bail!("instructions per request rose: {verdict}");
        }
        crate::say!("ok: {verdict}");
        return Ok(());
    }
    let results = InstructionResults {
        schema: SCHEMA.into(),
        started_utc: started,
        finished_utc: crate::results::timestamp::utc_now(),
        command,
        machine: crate::results::Machine::detect(),
        git: crate::results::Git::detect(&env.root),
        valgrind,
        counts,
        measurements,
        not_measured,
        notes: standard_notes(),
    };
    crate::say!("{}", markdown(&results));
    let path = results.write(&plan.results_dir)?;
    let md = path.with_extension("md");
    std::fs::write(&md, markdown_report(&results))
        .with_context(|| format!("writing {}", md.display()))?;
    crate::say!("results: {} (report: {})", path.display(), md.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of a file written by valgrind-3.19.0's callgrind on this machine (server-prebuilt,
    /// 2,000 requests); only the lines this module reads matter.
    const RECORDED: &str = include_str!("../../tests/data/callgrind-server-prebuilt-head.txt");

    #[test]
    fn totals_of_a_recorded_file() {
        assert!(callgrind_total(RECORDED).is_some_and(|n| n > 1_000_000));
        assert_eq!(callgrind_total("summary: 12 3\n"), Some(12));
        assert_eq!(
            callgrind_total("events: Ir\ntotals: 7\nsummary: 9\n"),
            Some(7)
        );
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }

    #[test]
    fn difference_per_answer() {
        let case = Case {
            server: "s".into(),
            argv: vec![],
            addr_flag: None,
            target: "/".into(),
            headers: vec![],
            mode: Mode::KeepAlive,
            children: false,
        };
        let run = |answered, instructions| Count {
            requests: answered,
            answered,
            instructions,
        };
        let m =
            Measurement::from_runs(&case, run(2_000, 9_000_000), run(12_000, 29_000_000)).unwrap();
        assert_eq!(m.per_request, 2_000.0);
        assert!(Measurement::from_runs(&case, run(5, 10), run(5, 20)).is_err());
    }

    #[test]
    fn loadgen_errors_make_the_count_unusable() {
        // Reports recorded from the real loadgen here (tests/data/README.md).
        let ok = include_bytes!("../../tests/data/loadgen-c50-keepalive.json");
        assert_eq!(answered(ok).unwrap(), 168_996);
        let bad = include_bytes!("../../tests/data/loadgen-c10-flaky.json");
        assert!(answered(bad).is_err());
        assert!(answered(b"not json").is_err());
    }

    #[test]
    fn baseline_judges_within_tolerance() {
        let b = Baseline {
            server: "server-prebuilt".into(),
            target: "/".into(),
            mode: Mode::KeepAlive,
            counts: Counts::default(),
            per_request: 1_000.0,
            tolerance: 0.10,
            measured_utc: "2026-12-01T00:00:00Z".into(),
            command: "bench instructions --write-baseline".into(),
        };
        let m = |per_request| Measurement {
            server: "server-prebuilt".into(),
            target: "/".into(),
            mode: Mode::KeepAlive,
            small: Count {
                requests: 1,
                answered: 1,
                instructions: 1,
            },
            large: Count {
                requests: 2,
                answered: 2,
                instructions: 2,
            },
            per_request,
        };
        assert!(b.judge(&m(1_099.0)).0);
        assert!(!b.judge(&m(1_101.0)).0);
        assert!(b.judge(&m(1_101.0)).1.contains("+10.1 %"));
    }

    #[test]
    fn modes_round_trip() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.name()), Some(m));
        }
        assert_eq!(Mode::parse("pipelined"), Some(Mode::Pipelined));
        assert_eq!(Mode::parse("bogus"), None);
    }
}
