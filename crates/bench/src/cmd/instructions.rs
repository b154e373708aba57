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
//! A count is only taken from a run whose every answer is the contract's ([`Expected`]): one
//! request sent by hand first must get exactly the contract's status and body and its byte
//! count, and the load generator's report must show every request answered, every answer with
//! that status class and exactly that many bytes each in all. A server that answers
//! `200` with no body does less work, and its figure would read as an improvement.
//!
//! Layout: [`Mode`] and [`Case`] say what is measured; [`Expected`] is the answer every request
//! must get; [`count`] is one run under callgrind; [`measure`] is the pair of runs and the
//! difference; [`Baseline`] is the committed figure the CI guard compares `server-prebuilt`
//! with, both ways; [`InstructionResults`] is the results file, and [`markdown`] its table.

use bench_model::results::Header;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use contract::response::{Connection, Head};
use contract::route::Endpoint;
use serde::{Deserialize, Serialize};
use serve::process::ServerProcess;

use crate::cli::InstructionsArgs;
use crate::step::server::Env;
use crate::step::signals;
use bench_model::results::instructions::{
    Count, Counts, InstructionResults, Measurement, Mode, SCHEMA,
};
use bench_report::instructions::{markdown, markdown_report};

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
    /// The answer every request must get.
    pub expected: Expected,
}

/// The answer every request of a counted run must get: the contract's status and body, and the
/// whole response's exact length (its head with the 29-byte Date value, and the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The status code (200 for every target measured).
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
    /// The response's length in bytes; two lengths, with and without the contract's
    /// `connection: close` field, only for an HTTP/1.0 answer of a server that is not judged
    /// on that field (see [`Expected::of`]).
    pub lengths: Vec<usize>,
}

impl Expected {
    /// What `server` must answer to `GET target` in `mode`, derived by the contract crate from
    /// the body, plus what `servers.toml` documents for the server:
    ///
    /// - the head is the contract's ([`Head::ok`]), with `connection: close` on an HTTP/1.0
    ///   answer (new-connection mode);
    /// - each documented `extra_header` adds its bytes, except that on an HTTP/1.0 answer a
    ///   documented `connection` or `keep-alive` field (a peer's keep-alive answer) gives way
    ///   to the contract's `connection: close`;
    /// - a server excused from `conn.http10-close` sends no `connection` field on an HTTP/1.0
    ///   answer, and one not judged by the `connection` group at all (a peer) may send it or
    ///   not: both lengths are accepted.
    pub fn of(server: &manifest::Server, target: &str, mode: Mode) -> anyhow::Result<Expected> {
        let (path, query) = contract::route::split_target(target.as_bytes());
        let endpoint = Endpoint::from_path(path, true)
            .ok_or_else(|| anyhow!("{target} is not an endpoint of the contract"))?;
        let body = match endpoint {
            // The load generator and the server are both on 127.0.0.1.
            Endpoint::MyIp => contract::peer::ip_body([127, 0, 0, 1].into()),
            Endpoint::Echo => contract::query::echo_body(query),
            Endpoint::Private => contract::body::HELLO_JSON.to_vec(),
            fixed => fixed
                .fixed_body()
                .ok_or_else(|| anyhow!("the contract has no fixed body for {target}"))?
                .to_vec(),
        };
        let head = Head::ok(endpoint.content_type(), body.len());
        let http10 = mode == Mode::NewConnection;
        let extra: usize = server
            .extra_headers
            .iter()
            .filter(|x| !(http10 && matches!(x.field.as_str(), "connection" | "keep-alive")))
            .map(|x| x.bytes)
            .sum();
        let without_field = head.len() + body.len() + extra;
        let lengths = if !http10 {
            vec![without_field]
        } else {
            let with_close = head.with_connection(Connection::Close).len() + body.len() + extra;
            let excused = server
                .excused(&conformance::suite::check_names())
                .map_err(|e| anyhow!(e))?
                .iter()
                .any(|(check, _)| check == "conn.http10-close");
            if excused {
                vec![without_field]
            } else if server.has_group("connection") {
                vec![with_close]
            } else {
                vec![with_close, without_field]
            }
        };
        Ok(Expected {
            status: 200,
            body,
            lengths,
        })
    }

    /// The lengths as text: `1,143` or `1,162 or 1,143`.
    fn lengths_text(&self) -> String {
        self.lengths
            .iter()
            .map(|&n| bench_report::format::thousands(n as f64))
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// The difference of two runs, per answer.
pub fn measurement(case: &Case, small: Count, large: Count) -> anyhow::Result<Measurement> {
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
    // One request by hand, in both runs alike (so it cancels out of the difference): its
    // status and body are compared exactly, which the load generator's counts cannot do.
    sample(case, server.addr())?;
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
    let answered = answers(&out.stdout, requests, &case.expected)
        .map_err(|e| anyhow!("{} {} {}: {e}", case.server, case.target, case.mode.name()))?;

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
    measurement(case, small, large)
}

/// Sends `case`'s request once on a connection of its own, as the load generator sends it,
/// and compares the answer with the contract's: status, body and length exactly (the Date
/// value's 29 bytes are counted, not compared).
fn sample(case: &Case, addr: std::net::SocketAddr) -> anyhow::Result<()> {
    use conformance::wire::Conn;
    let version = match case.mode {
        Mode::NewConnection => "HTTP/1.0",
        Mode::KeepAlive | Mode::Pipelined => "HTTP/1.1",
    };
    let mut request = format!("GET {} {version}\r\nHost: {addr}\r\n", case.target);
    for h in &case.headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    let what = || format!("{} {} {}", case.server, case.target, case.mode.name());
    let answer = Conn::connect(addr, Duration::from_secs(60))
        .and_then(|mut c| {
            c.send(request.as_bytes())?;
            c.read_response(false)
        })
        .map_err(|e| anyhow!("{}: no answer to one request: {e}", what()))?;
    let want = &case.expected;
    if answer.status != want.status
        || answer.body != want.body
        || !want.lengths.contains(&answer.raw.len())
    {
        bail!(
            "{}: the answer is not the contract's, so its instructions are not counted: status {}, {} body bytes{}, {} bytes in all; the contract's is status {}, {} body bytes, {} bytes in all",
            what(),
            answer.status,
            bench_report::format::thousands(answer.body.len() as f64),
            if answer.body.len() == want.body.len() && answer.body != want.body {
                " (not the contract's body)"
            } else {
                ""
            },
            bench_report::format::thousands(answer.raw.len() as f64),
            want.status,
            bench_report::format::thousands(want.body.len() as f64),
            want.lengths_text()
        );
    }
    Ok(())
}

/// The answers in a `loadgen --json` report of `requests` requests, after checking them
/// against `expected`: no request failed (a failed request costs the server a different
/// amount from an answered one), every request was answered, every answer had the expected
/// status's class (loadgen counts classes; [`sample`] compares one status exactly), and the
/// answers' bytes are exactly `requests` times one of the expected lengths.
fn answers(report: &[u8], requests: u64, expected: &Expected) -> anyhow::Result<u64> {
    let report: loadgen::Report =
        serde_json::from_slice(report).context("loadgen's --json output does not parse")?;
    let r = &report.result;
    let errors = r.errors.total();
    if errors > 0 {
        bail!(
            "{errors} requests failed under callgrind (of {} answered)",
            r.requests
        );
    }
    if r.responses != requests {
        bail!(
            "{} of {requests} requests were answered, so the count is refused",
            r.responses
        );
    }
    let s = r.status;
    let in_class = match expected.status / 100 {
        1 => s.s1xx,
        2 => s.s2xx,
        3 => s.s3xx,
        4 => s.s4xx,
        _ => s.s5xx,
    };
    if in_class != r.responses {
        bail!(
            "{} of {} answers had a status other than {}xx (1xx {}, 2xx {}, 3xx {}, 4xx {}, 5xx {}), so the count is refused",
            r.responses - in_class.min(r.responses),
            r.responses,
            expected.status / 100,
            s.s1xx,
            s.s2xx,
            s.s3xx,
            s.s4xx,
            s.s5xx
        );
    }
    if !expected
        .lengths
        .iter()
        .any(|&len| r.response_bytes == len as u64 * r.responses)
    {
        bail!(
            "the {} answers were {} bytes in all ({:.1} per answer), not the contract's {} bytes each, so the count is refused",
            r.responses,
            bench_report::format::thousands(r.response_bytes as f64),
            r.response_bytes as f64 / r.responses.max(1) as f64,
            expected.lengths_text()
        );
    }
    Ok(r.responses)
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

/// The committed figure the CI guard holds `server-prebuilt` to, both ways: a rise past
/// [`Baseline::tolerance`] is a regression, and a fall past [`Baseline::tolerance_below`] is an
/// improvement to be recorded on purpose (with [`Baseline::command`]), so that the next
/// regression is measured from it and not from the old figure.
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
    /// How far below `per_request` a new measurement may be (0.03: 3 %; callgrind's counts
    /// repeat to about 1 %). Absent from files written before it: 3 %.
    #[serde(default = "default_tolerance_below")]
    pub tolerance_below: f64,
    /// When and by what it was written.
    pub measured_utc: String,
    /// The command that writes it again.
    pub command: String,
}

/// [`Baseline::tolerance_below`] when a file does not say.
pub const DEFAULT_TOLERANCE_BELOW: f64 = 0.03;

fn default_tolerance_below() -> f64 {
    DEFAULT_TOLERANCE_BELOW
}

/// What a measurement is, against the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Within both tolerances.
    Within,
    /// Above [`Baseline::limit`]: a regression.
    Rose,
    /// Below [`Baseline::lower_limit`]: an improvement not yet recorded.
    Fell,
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

    /// The lowest figure that passes.
    pub fn lower_limit(&self) -> f64 {
        self.per_request * (1.0 - self.tolerance_below)
    }

    /// Where `m` stands, with a one-line verdict either way.
    pub fn judge(&self, m: &Measurement) -> (Judgement, String) {
        let change = (m.per_request / self.per_request - 1.0) * 100.0;
        let judgement = if m.per_request > self.limit() {
            Judgement::Rose
        } else if m.per_request < self.lower_limit() {
            Judgement::Fell
        } else {
            Judgement::Within
        };
        let verdict = format!(
            "{} {} {}: {:.0} instructions per request against the baseline's {:.0} ({change:+.1} %, limits {:.0} and {:.0}, -{:.0} % and +{:.0} %)",
            m.server,
            m.target,
            m.mode.name(),
            m.per_request,
            self.per_request,
            self.lower_limit(),
            self.limit(),
            self.tolerance_below * 100.0,
            self.tolerance * 100.0
        );
        (judgement, verdict)
    }

    /// The outcome of `bench instructions --check`: `Ok` with the verdict when `m` is within
    /// both tolerances, else the one-line error (for a fall, with the command that records
    /// the new figure).
    pub fn check(&self, m: &Measurement) -> anyhow::Result<String> {
        let (judgement, verdict) = self.judge(m);
        match judgement {
            Judgement::Within => Ok(verdict),
            Judgement::Rose => bail!("instructions per request rose: {verdict}"),
            Judgement::Fell => bail!(
                "instructions per request fell more than {:.0} % below the baseline: {verdict}; if the change is meant, write the new baseline with `{}` and commit it",
                self.tolerance_below * 100.0,
                self.command
            ),
        }
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
        "Every counted run answered every request as the contract says: one request sent by hand had exactly the contract's status, body and length, and the load generator counted every answer with a 2xx status and exactly the contract's bytes each in all (plus the fields servers.toml documents for the server); a run that did not is refused, not counted.".into(),
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
    crate::step::answer::ECHO,
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
        expected: Expected::of(server, target, mode)?,
    })
}

/// The plan of `bench instructions` as its command line `a` asks.
pub fn plan_of(a: &InstructionsArgs) -> anyhow::Result<Plan> {
    let modes = if a.modes.is_empty() {
        Mode::ALL.to_vec()
    } else {
        a.modes
            .iter()
            .map(|m| {
                Mode::parse(m).ok_or_else(|| {
                    anyhow!(
                        "unknown mode {m:?}: keep-alive, pipelined-16 or http1.0-new-connection"
                    )
                })
            })
            .collect::<anyhow::Result<_>>()?
    };
    if a.small >= a.large {
        bail!("--small ({}) must be below --large ({})", a.small, a.large);
    }
    let targets = if a.targets.is_empty() {
        DEFAULT_TARGETS.map(String::from).to_vec()
    } else {
        a.targets.clone()
    };
    Ok(Plan {
        servers: a.servers.clone(),
        targets,
        modes,
        counts: Counts {
            small: a.small,
            large: a.large,
            connections: a.connections,
        },
        results_dir: a.results_dir.clone(),
        check: a.check.clone(),
        write_baseline: a.write_baseline.clone(),
    })
}

/// `bench instructions` from its command line.
pub fn command(a: &InstructionsArgs) -> anyhow::Result<()> {
    let plan = plan_of(a)?;
    let command = crate::session::command();
    let env = Env::new(a.bin_dir.clone()).with_servers_file(a.manifest.servers_file.clone());
    run(&env, &plan, command)
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
            tolerance_below: DEFAULT_TOLERANCE_BELOW,
            measured_utc: bench_model::results::timestamp::utc_now(),
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
    let chosen = crate::session::choose(env, &manifest, &names, |_| true, supported)?;
    let mut not_measured = chosen.left_out;
    let mut servers = Vec::new();
    for s in chosen.servers {
        if names.is_empty() && !in_default_set(s) {
            not_measured.push((
                s.name.clone(),
                "a peer: measured when named with --servers (under callgrind an interpreter's or a JIT's figure takes about a minute each)".into(),
            ));
        } else {
            servers.push(s);
        }
    }
    // In servers.toml's order, as every table lists the servers.
    not_measured.sort_by_key(|(name, _)| manifest.servers.iter().position(|s| &s.name == name));
    if servers.is_empty() {
        bail!("no server to measure (see `bench list`)");
    }
    crate::session::build(env, &servers, &["loadgen"], true)?;
    let loadgen = env.binary("loadgen");
    let scratch = std::env::temp_dir().join(format!("bench-instructions-{}", std::process::id()));
    let started = bench_model::results::timestamp::utc_now();
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
                        Err(e) if crate::error::interrupted(&e).is_some() => return Err(e),
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
                        bench_report::format::thousands(m.per_request)
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
        let verdict = b.check(m)?;
        crate::say!("ok: {verdict}");
        return Ok(());
    }
    let results = InstructionResults {
        header: Header {
            finished_utc: bench_model::results::timestamp::utc_now(),
            ..crate::provenance::header(SCHEMA, started, command, &env.root)
        },
        valgrind,
        counts,
        measurements,
        not_measured,
        notes: standard_notes(),
    };
    crate::say!("{}", markdown(&results));
    let path = results.write(&plan.results_dir)?;
    let md = bench_report::other::write_markdown_beside(&markdown_report(&results), &path)?;
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

    fn server(name: &str) -> manifest::Server {
        manifest::Manifest::load_default()
            .unwrap()
            .servers
            .into_iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} is not in servers.toml"))
    }

    fn expected(name: &str, target: &str, mode: Mode) -> Expected {
        Expected::of(&server(name), target, mode).unwrap()
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
            expected: expected("server-prebuilt", "/", Mode::KeepAlive),
        };
        let run = |answered, instructions| Count {
            requests: answered,
            answered,
            instructions,
        };
        let m = measurement(&case, run(2_000, 9_000_000), run(12_000, 29_000_000)).unwrap();
        assert_eq!(m.per_request, 2_000.0);
        assert!(measurement(&case, run(5, 10), run(5, 20)).is_err());
    }

    /// The lengths are the contract's (the figures `bench verify` and the README show) plus
    /// what servers.toml documents, per mode.
    #[test]
    fn expected_answers_per_server_target_and_mode() {
        let root = expected("server-prebuilt", "/", Mode::KeepAlive);
        assert_eq!(
            (root.status, root.body.len(), root.lengths.clone()),
            (200, 1024, vec![1143])
        );
        assert_eq!(
            expected("server-prebuilt", "/", Mode::Pipelined).lengths,
            [1143]
        );
        // HTTP/1.0: the contract's `connection: close` (19 bytes) is on the answer.
        assert_eq!(
            expected("server-prebuilt", "/", Mode::NewConnection).lengths,
            [1162]
        );
        assert_eq!(
            expected("server-prebuilt", "/api/hello", Mode::KeepAlive).lengths,
            [133]
        );
        let echo = expected("server-hyper", crate::step::answer::ECHO, Mode::KeepAlive);
        assert_eq!(echo.body, b"Hey John Doe");
        let ip = expected("server-hyper", "/my/ip", Mode::KeepAlive);
        assert_eq!(
            (ip.body.as_slice(), ip.lengths[0]),
            (&b"127.0.0.1"[..], 125)
        );
        let private = expected("server-hyper", "/api/private", Mode::KeepAlive);
        assert_eq!(private.body, contract::body::HELLO_JSON);
        // server-may's documented `server: M` (11 bytes); its HTTP/1.0 answer is excused from
        // `connection: close`, as is server-actix's.
        assert_eq!(expected("server-may", "/", Mode::KeepAlive).lengths, [1154]);
        assert_eq!(
            expected("server-may", "/", Mode::NewConnection).lengths,
            [1154]
        );
        assert_eq!(
            expected("server-actix", "/", Mode::NewConnection).lengths,
            [1143]
        );
        // node-http documents `connection: keep-alive` and `keep-alive: timeout=65` (24 bytes
        // each) for its keep-alive answers; on HTTP/1.0 it is not judged on the field.
        assert_eq!(expected("node-http", "/", Mode::KeepAlive).lengths, [1191]);
        assert_eq!(
            expected("node-http", "/", Mode::NewConnection).lengths,
            [1162, 1143]
        );
        assert!(Expected::of(&server("server-prebuilt"), "/nope", Mode::KeepAlive).is_err());
    }

    #[test]
    fn a_count_is_taken_only_from_the_contracts_answers() {
        // A report recorded from the real loadgen here (bench-tools/tests/data/README.md): 168,996 answers
        // of server-prebuilt's `GET /`, 1,143 bytes each.
        let ok = include_bytes!("../../../bench-tools/tests/data/loadgen-c50-keepalive.json");
        let root = expected("server-prebuilt", "/", Mode::KeepAlive);
        assert_eq!(answers(ok, 168_996, &root).unwrap(), 168_996);

        // One byte more per answer than the contract's (a documented extra field missing, a
        // longer reason phrase): refused.
        let mut longer = root.clone();
        longer.lengths = vec![1144];
        let e = answers(ok, 168_996, &longer).unwrap_err().to_string();
        assert!(
            e.contains(
                "193,162,428 bytes in all (1143.0 per answer), not the contract's 1,144 bytes each"
            ),
            "{e}"
        );
        // Fewer answers than requests.
        let e = answers(ok, 169_000, &root).unwrap_err().to_string();
        assert!(e.contains("168996 of 169000 requests were answered"), "{e}");

        // The same report as a server answering `200` with no body would give: refused.
        let mut empty: serde_json::Value = serde_json::from_slice(ok).unwrap();
        empty["result"]["response_bytes"] = (168_996u64 * 38).into();
        let e = answers(empty.to_string().as_bytes(), 168_996, &root)
            .unwrap_err()
            .to_string();
        assert!(e.contains("(38.0 per answer)"), "{e}");

        // Every byte right, but some answers 404.
        let mut statuses: serde_json::Value = serde_json::from_slice(ok).unwrap();
        statuses["result"]["status"]["s2xx"] = 168_990.into();
        statuses["result"]["status"]["s4xx"] = 6.into();
        let e = answers(statuses.to_string().as_bytes(), 168_996, &root)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("6 of 168996 answers had a status other than 2xx"),
            "{e}"
        );

        // Failed requests, and a report that is not one.
        let bad = include_bytes!("../../../bench-tools/tests/data/loadgen-c10-flaky.json");
        assert!(answers(bad, 1, &root).is_err());
        assert!(answers(b"not json", 1, &root).is_err());
    }

    fn baseline() -> Baseline {
        Baseline {
            server: "server-prebuilt".into(),
            target: "/".into(),
            mode: Mode::KeepAlive,
            counts: Counts::default(),
            per_request: 1_000.0,
            tolerance: 0.10,
            tolerance_below: 0.03,
            measured_utc: "2026-12-01T00:00:00Z".into(),
            command: "cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json".into(),
        }
    }

    fn measured(per_request: f64) -> Measurement {
        Measurement {
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
        }
    }

    #[test]
    fn baseline_judges_both_ways() {
        let b = baseline();
        assert_eq!(b.judge(&measured(1_099.0)).0, Judgement::Within);
        assert_eq!(b.judge(&measured(971.0)).0, Judgement::Within);
        assert_eq!(b.judge(&measured(1_101.0)).0, Judgement::Rose);
        assert_eq!(b.judge(&measured(969.0)).0, Judgement::Fell);
        assert!(b.judge(&measured(1_101.0)).1.contains("+10.1 %"));
        assert!(b.check(&measured(1_000.0)).is_ok());
        let rose = b.check(&measured(1_101.0)).unwrap_err().to_string();
        assert!(
            rose.starts_with("instructions per request rose: "),
            "{rose}"
        );
        let fell = b.check(&measured(969.0)).unwrap_err().to_string();
        assert!(
            fell.starts_with("instructions per request fell more than 3 % below the baseline: "),
            "{fell}"
        );
        assert!(
            fell.ends_with("write the new baseline with `cargo run --release -p bench -- instructions --write-baseline crates/bench/baselines/instructions.json` and commit it"),
            "{fell}"
        );
        assert_eq!(fell.lines().count(), 1);
    }

    #[test]
    fn a_baseline_without_a_lower_tolerance_reads_as_three_percent() {
        let mut v = serde_json::to_value(baseline()).unwrap();
        v.as_object_mut().unwrap().remove("tolerance_below");
        let b: Baseline = serde_json::from_value(v).unwrap();
        assert_eq!(b.tolerance_below, DEFAULT_TOLERANCE_BELOW);
        // The committed one says it.
        let committed = Baseline::load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/instructions.json"),
        )
        .unwrap();
        assert_eq!(committed.tolerance_below, 0.03);
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
