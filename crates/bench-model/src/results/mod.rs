//! The results JSON (`schema: "bench.results/1"`, described in the crate's README): one
//! document per `bench run`.
//!
//! Layout, outermost first: [`Results`] (the run: experiment, when, how, on what) holds a
//! [`ServerResult`] per server, each with a [`StepResult`] per step of the experiment, each with
//! one [`Run`] per repeat, their per-field [`median`] and their [`Spread`]. [`Results::write`]
//! stores a document as `<dir>/<experiment>-<YYYYMMDDTHHMMSSZ>.json`; [`Results::load`] reads
//! one back and checks its [`SCHEMA`].
//!
//! This file is the schema only. Beside it: [`instructions`] (the schema of `bench
//! instructions`' results), [`tools`] (`bench tools compare`'s), [`idle`] (`bench idle`'s),
//! [`provenance`] (the [`Machine`] and [`Git`]
//! fields and how they are detected, the programs' version lines), [`timeline`] (a repeat's
//! window in intervals) and [`timestamp`] (UTC timestamps, through the `time` crate).
//!
//! Adding an optional field keeps the schema version; renaming or removing one bumps it.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub mod idle;
pub mod instructions;
pub mod provenance;
pub mod timeline;
pub mod timestamp;
pub mod tools;

pub use crate::stats::Interval;

/// The name of the C ceiling in `servers.toml`: the loopback's yardstick, measured in every
/// round of the experiments whose load it can answer, which every server's figures are also
/// divided by (the ratio carries across runs and days; the figure itself does not).
pub const CEILING: &str = "ceiling";
pub use provenance::{Git, Header, Machine};
use timestamp::{compact_stamp, utc_now};

/// The schema tag of [`Results`].
pub const SCHEMA: &str = "bench.results/1";

fn yes() -> bool {
    true
}

/// One `bench run`: what was run, when, how, on what, and every server's steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Results {
    /// Schema, when, command, machine, git and versions, as every kind records them.
    #[serde(flatten)]
    pub header: Header,
    /// The experiment's lowercase id (`e1` … `e5`).
    pub experiment: String,
    /// The experiment's title.
    pub title: String,
    /// Whether the run ended: `false` in the document written after every finished step
    /// while it runs, and in the last one of a run that was interrupted or failed. Files from
    /// before this field were written once, at the end: `true`.
    #[serde(default = "yes")]
    pub complete: bool,
    /// Why the document is not complete (`running: 4 of 12 step runs done`, `interrupted by
    /// SIGINT after 4 of 12 step runs`); `None` when it is.
    #[serde(default)]
    pub incomplete_reason: Option<String>,
    /// The load tool: `builtin`, `wrk`, `ab`, `oha`, `k6` or `autocannon` (the tool adapters'
    /// names).
    pub tool: String,
    /// Whether the shortened (`--quick`) steps were run.
    pub quick: bool,
    /// Repeats per step: the rounds of the run (every server measured once per step in each
    /// round, in a fresh random order; see `seed`).
    pub repeat: u32,
    /// The seed of the order in which each round visited the servers (`bench run --seed`
    /// replays it); `None` in files from before rounds, whose repeats ran the servers in turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `http://HOST:PORT` when a remote server was driven; `None` for servers started here.
    pub target: Option<String>,
    /// The CPUs the servers and the load tool were pinned to; `None` when not pinned.
    pub pinning: Option<Pinning>,
    /// `--workers N`: the workers each server was started with (a Rust variant's
    /// `--workers`, a peer's `{cpus}`); `None` for each server's default (files from before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<usize>,
    /// Free-form remarks, e.g. `no /proc sampling: remote target`.
    pub notes: Vec<String>,
    /// Every server, in the order they ran.
    pub servers: Vec<ServerResult>,
}

/// Which CPUs servers and the load tool were pinned to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Pinning {
    /// The servers' CPUs.
    pub server_cpus: Vec<usize>,
    /// The load tool's CPUs.
    pub load_cpus: Vec<usize>,
}

/// Whether a server is one of this workspace's Rust variants or a peer (the original system).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ServerKind {
    /// A Rust variant of this workspace (servers.toml `package`).
    Rust,
    /// A peer: the system an experiment names (servers.toml `command`).
    Peer,
}

/// A header field a library adds to every response that the variant cannot stop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ExtraHeader {
    /// The field name, lowercase.
    pub field: String,
    /// Bytes it adds to each response, CRLF included.
    pub bytes: usize,
}

impl From<&manifest::ExtraHeader> for ExtraHeader {
    fn from(h: &manifest::ExtraHeader) -> ExtraHeader {
        ExtraHeader {
            field: h.field.clone(),
            bytes: h.bytes,
        }
    }
}

/// One server's part of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ServerResult {
    /// Its servers.toml name.
    pub name: String,
    /// Rust variant or peer.
    pub kind: ServerKind,
    /// How it is written, in a few words.
    pub style: String,
    /// The systems of the experiments it is the analogue of (or, for a peer, is).
    pub analogue: Vec<String>,
    /// The command that started it (empty for a remote target).
    pub command: Vec<String>,
    /// Header fields its library adds.
    pub extra_headers: Vec<ExtraHeader>,
    /// One entry per step of the experiment, in order.
    pub steps: Vec<StepResult>,
    /// E6: its answer to one plain `GET` of each of the experiment's endpoints, checked
    /// before any load (`bench verify`'s fairness row); empty for the other experiments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verified: Vec<Verified>,
}

/// One endpoint's answer to a plain `GET` before the load, as `bench verify` judges it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Verified {
    /// The request target.
    pub endpoint: String,
    /// The status code (`None`: no answer, and `notes` says why).
    pub status: Option<u16>,
    /// Bytes of the status line and header fields.
    pub head_bytes: usize,
    /// Bytes of the body.
    pub body_bytes: usize,
    /// The field names, lowercase, in the order sent.
    pub fields: Vec<String>,
    /// What differs from the contract (empty: nothing).
    pub notes: Vec<String>,
}

impl ServerResult {
    /// An entry for a servers.toml server started by `command`, with no steps yet.
    pub fn new(server: &manifest::Server, command: Vec<String>) -> ServerResult {
        ServerResult {
            name: server.name.clone(),
            kind: if server.package.is_some() {
                ServerKind::Rust
            } else {
                ServerKind::Peer
            },
            style: server.style.clone(),
            analogue: server.analogue.clone(),
            command,
            extra_headers: server.extra_headers.iter().map(ExtraHeader::from).collect(),
            steps: Vec::new(),
            verified: Vec::new(),
        }
    }

    /// The server this one is a copy of, when it is one (`server-prebuilt#2`, a run's A/A
    /// pair: [`copy_name`]).
    pub fn copy_of(&self) -> Option<&str> {
        self.name.split_once('#').map(|(name, _)| name)
    }
}

/// The name of the `n`th copy of `name` in one run (`server-prebuilt#2` for the second; the
/// first keeps its name): a server measured more than once, an A/A pair.
pub fn copy_name(name: &str, n: usize) -> String {
    format!("{name}#{n}")
}

/// `name` as the server it is a copy of and which copy: `("server-prebuilt", 2)` for
/// `server-prebuilt#2`, `("server-prebuilt", 1)` for the original ([`copy_name`]).
pub fn copy_number(name: &str) -> (&str, usize) {
    match name.split_once('#') {
        Some((first, n)) => (first, n.parse().unwrap_or(usize::MAX)),
        None => (name, 1),
    }
}

/// How an A/A pair's per-round ratios (a server over its copy, one ratio per round both
/// measured: [`StepResult::paired_ratios`]) fall when their median's interval shows a
/// difference between two copies of one binary: [`aa_one_sided`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneSided {
    /// Whether the ratios are above 1.00 (the original ahead of its copy), or below.
    pub above: bool,
    /// The rounds whose ratio is on that side of 1.00.
    pub on_side: usize,
    /// The rounds paired.
    pub rounds: usize,
    /// The median of the ratios.
    pub median: f64,
    /// Its interval ([`stats::median_interval`](crate::stats::median_interval) at
    /// [`LEVEL`](crate::stats::LEVEL)), which does not hold 1.00.
    pub interval: Interval,
}

impl OneSided {
    /// `all 6 rounds above 1`, `5 of 7 rounds below 1`.
    pub fn rounds_text(&self) -> String {
        let side = if self.above { "above" } else { "below" };
        if self.on_side == self.rounds {
            format!("all {} rounds {side} 1", self.rounds)
        } else {
            format!("{} of {} rounds {side} 1", self.on_side, self.rounds)
        }
    }
}

/// Whether an A/A pair's per-round `ratios` (see [`OneSided`]) differ from 1.00 at the
/// run's level: the 95 % interval of their median does not hold 1.00. With 6 to 8 rounds
/// that interval is the lowest to the highest ratio, so it is the case exactly when every
/// round's ratio is on one side of 1.00 (a sign test: 2 / 2⁶ = 3.1 % with 6 rounds, for two
/// copies of one binary in a balanced order); with more rounds, when enough are. `None` when
/// the interval holds 1.00, and below 6 rounds, whose interval (`[min, max]`, 93.75 % with 5
/// rounds, 50 % with 2) cannot show a difference at 95 %.
///
/// Two copies of one binary should not differ, so such a pair says that this run's own
/// noise (the machine, the load tool, the order) is as large as that difference: every
/// report and `bench run`'s summary say so at the top, with its size.
pub fn aa_one_sided(ratios: &[f64]) -> Option<OneSided> {
    let v: Vec<f64> = ratios.iter().copied().filter(|x| x.is_finite()).collect();
    let interval = crate::stats::median_interval(v.clone(), crate::stats::LEVEL)?;
    if !interval.at_level() || interval.holds(1.0) {
        return None;
    }
    let above = interval.low > 1.0;
    Some(OneSided {
        above,
        on_side: v
            .iter()
            .filter(|&&x| if above { x > 1.0 } else { x < 1.0 })
            .count(),
        rounds: v.len(),
        median: crate::stats::median(v)?,
        interval,
    })
}

/// One step of an experiment against one server (e.g. E3's `c1000` on `/`), repeated.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StepResult {
    /// The step's id within the experiment (`c100`, `ramp`, `sync`, …).
    pub step: String,
    /// The request target (`/`, `/api/hello`, …).
    pub endpoint: String,
    /// Connections (concurrency; the peak for a ramp).
    pub connections: usize,
    /// Requests, for count-bounded steps (`ab -n`).
    pub requests: Option<u64>,
    /// Seconds, for time-bounded steps.
    pub duration_s: Option<f64>,
    /// The rate offered, requests/s, for a rung of a ladder of offered rates (E7): the open
    /// model. `None` for a closed-loop step (and in files from before E7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_requests_per_s: Option<f64>,
    /// The load tool's exact argv (of the last repeat; the port may differ between repeats).
    pub tool_command: Vec<String>,
    /// Whether the step measured what it was meant to (see `invalid_reason`).
    pub valid: bool,
    /// Why not, when `valid` is false (e.g. the server does not honour `ab -k`).
    pub invalid_reason: Option<String>,
    /// One [`Run`] per repeat, in order.
    pub repeats: Vec<Run>,
    /// The per-field [`median`] of `repeats`; `None` without repeats.
    pub median: Option<Run>,
    /// The [`spread`] of `repeats`; `None` without repeats.
    pub spread: Option<Spread>,
    /// The confidence intervals of the medians of the repeats' main figures
    /// ([`stats::median_interval`](crate::stats::median_interval)): 95 % intervals with 6
    /// repeats or more, else `[min, max]` of the repeats, each with its real coverage in its
    /// `confidence`; `None` with fewer than two repeats (and in files from before intervals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<Intervals>,
    /// A rung of a ladder of offered rates (E7) where the server could not keep up, and why
    /// (`achieved 61,204 of 80,000 requests/s (77 %, under 95 %)`): its saturation, after
    /// which its ladder on this endpoint stopped. `None` for a rung it kept up with, for a
    /// step of no ladder, and for a rung where the load tool was the limit (that step is
    /// invalid instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation: Option<String>,
    /// For a rate the search added between a ladder's last rate held and its first not held
    /// (E7, [`crate::sustainable`]): the rounds it is owed, whose majority decides whether it
    /// was held. `None` for a ladder's own rung (owed the run's `repeat`) and any other step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched_rounds: Option<u32>,
}

impl StepResult {
    /// Sets `median`, `spread` and `intervals` from `repeats`.
    pub fn finish(&mut self) {
        self.median = median(&self.repeats);
        self.spread = spread(&self.repeats);
        self.intervals = Intervals::of(&self.repeats);
    }

    /// The repeat measured in `round` (1-based), when there is one.
    pub fn in_round(&self, round: u32) -> Option<&Run> {
        self.repeats.iter().find(|r| r.round == Some(round))
    }

    /// The per-round ratios of `figure` of this step over `figure` of `other`, in each round
    /// both measured with a positive figure on both sides: the values a paired comparison is
    /// over.
    pub fn paired_ratios(
        &self,
        other: &StepResult,
        figure: impl Fn(&Run) -> Option<f64>,
    ) -> Vec<f64> {
        self.repeats
            .iter()
            .filter_map(|a| {
                let b = other.in_round(a.round?)?;
                match (figure(a), figure(b)) {
                    (Some(x), Some(y)) if x > 0.0 && y > 0.0 => Some(x / y),
                    _ => None,
                }
            })
            .collect()
    }

    /// Whether the load tool set the pace in any of its rounds ([`Run::tool_set_pace`]): its
    /// requests/s is then at least what was measured, as its median's `†` says.
    pub fn tool_set_pace(&self) -> bool {
        self.repeats.iter().any(Run::tool_set_pace)
    }

    /// A paired comparison: `figure` of this step over `figure` of `other` in each round
    /// both measured, the median of those ratios and its interval
    /// ([`stats::median_interval`](crate::stats::median_interval); below 6 rounds it says its
    /// real coverage). `None` when fewer than two rounds pair up (a run without rounds among
    /// them).
    pub fn paired_ratio(
        &self,
        other: &StepResult,
        figure: impl Fn(&Run) -> Option<f64>,
    ) -> Option<(f64, Interval)> {
        let ratios = self.paired_ratios(other, figure);
        let mid = crate::stats::median(ratios.clone())?;
        let i = crate::stats::median_interval(ratios, crate::stats::LEVEL)?;
        (i.n >= 2).then_some((mid, i))
    }
}

/// The confidence intervals of a step's medians over its repeats (its rounds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Intervals {
    /// Of the median requests/s.
    pub requests_per_s: Option<Interval>,
    /// Of the median server CPU µs per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_request: Option<Interval>,
    /// Of the median p99 latency, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<Interval>,
    /// Of the median mean latency, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_us: Option<Interval>,
    /// Of the median p50 latency, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_us: Option<Interval>,
    /// Of the median p95 latency, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_us: Option<Interval>,
    /// Of the median p99.9 latency, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<Interval>,
    /// Of the median response bytes per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes_per_s: Option<Interval>,
}

impl Intervals {
    /// The intervals of `runs`' figures at [`LEVEL`](crate::stats::LEVEL); `None` for fewer
    /// than two runs.
    pub fn of(runs: &[Run]) -> Option<Intervals> {
        if runs.len() < 2 {
            return None;
        }
        let of = |get: &dyn Fn(&Run) -> Option<f64>| {
            let v: Vec<f64> = runs.iter().filter_map(get).collect();
            (v.len() >= 2)
                .then(|| crate::stats::median_interval(v, crate::stats::LEVEL))
                .flatten()
        };
        Some(Intervals {
            requests_per_s: of(&|r| Some(r.requests_per_s)),
            cpu_us_per_request: of(&|r| r.cpu_us_per_request),
            p99_us: of(&|r| r.latency_us.p99.map(|v| v as f64)),
            mean_us: of(&|r| r.latency_us.mean),
            p50_us: of(&|r| r.latency_us.p50.map(|v| v as f64)),
            p95_us: of(&|r| r.latency_us.p95.map(|v| v as f64)),
            p999_us: of(&|r| r.latency_us.p999.map(|v| v as f64)),
            transfer_bytes_per_s: of(&|r| Some(r.transfer_bytes_per_s)),
        })
    }
}

/// What one repeat of a step measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Run {
    /// Requests completed or failed in the measured window.
    pub requests: u64,
    /// The measured window, seconds.
    pub duration_s: f64,
    /// Requests per second, as the tool reports it.
    pub requests_per_s: f64,
    /// Response bytes per second, as the tool reports it.
    pub transfer_bytes_per_s: f64,
    /// Bytes per response (headers and body); 0 when the tool does not tell.
    pub bytes_per_response: f64,
    /// Latency, microseconds.
    pub latency_us: Latency,
    /// Failures by kind.
    pub errors: Errors,
    /// The server's resident memory, KiB; `None` when not sampled.
    pub rss_kb: Option<Rss>,
    /// The server's CPU use over the window, percent of one CPU; `None` when not sampled.
    pub server_cpu_percent: Option<f64>,
    /// The server's CPU time over the window, seconds; `None` when not sampled.
    pub server_cpu_s: Option<f64>,
    /// `server_cpu_s` per request, microseconds; `None` when not sampled.
    pub cpu_us_per_request: Option<f64>,
    /// The rate the tool was asked to offer, requests/s, for a step of the open model (E7):
    /// each request has an intended send time, and `latency_us` runs from it. `None` for a
    /// closed-loop step (and in files from before E7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_requests_per_s: Option<f64>,
    /// The open model's latency from each request's actual send, beside `latency_us` (from
    /// its intended send time): the figure a tool that omits the requests a stall delayed
    /// would report (coordinated omission). `None` when the tool reports only one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_uncorrected_us: Option<Latency>,
    /// The load tool's own CPU use over the measured run (its whole process tree, every
    /// thread's schedstat), percent of one CPU; `None` when not measured (files from before).
    #[serde(default)]
    pub tool_cpu_percent: Option<f64>,
    /// The CPUs the tool could keep busy: the CPUs it was given (pinned, or all this process
    /// may use), or 1 for a single-threaded tool (wrk -t1, ab, autocannon).
    #[serde(default)]
    pub tool_cpus: Option<usize>,
    /// Whether the tool, not the server, set the pace: it used at least
    /// [`TOOL_BOUND_SHARE`](crate::rules::TOOL_BOUND_SHARE) of `tool_cpus` (for the built-in generator, also when its own
    /// report says `generator_bound`). Its requests/s is then the tool's limit.
    #[serde(default)]
    pub tool_bound: bool,
    /// Whether an open-model run's generator fell behind its own schedule: it left more than
    /// [`UNSENT_LIMIT`](crate::rules::UNSENT_LIMIT) of the requests due unsent while busy to
    /// its limit ([`rules::fell_behind`](crate::rules::fell_behind)). Part of
    /// [`Run::tool_bound`], kept apart to say why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tool_fell_behind: bool,
    /// The requests due by an open-model run's schedule over its window (the built-in
    /// generator's `intended`); `None` for other tools and for a closed-loop run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended_requests: Option<u64>,
    /// Of [`Run::intended_requests`], those never sent by the end of the run: each counts as
    /// a request the server was offered and did not get (`None` as for `intended_requests`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent_requests: Option<u64>,
    /// Why neither the server nor the tool set this closed-loop run's pace, so that the
    /// connections' round trips did and the requests/s is not the server's capacity
    /// ([`rules::round_trips_set_pace`](crate::rules::round_trips_set_pace)); `None` when one
    /// of them did, for a run of an offered rate, and in files from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trips_bound: Option<String>,
    /// The user-mode share of `cpu_us_per_request` (the runtime's, the framework's and the
    /// variant's own code), µs; `None` when not sampled. From each thread's utime and stime,
    /// which split the schedstat time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_user_us_per_request: Option<f64>,
    /// The kernel-mode share of `cpu_us_per_request` (system calls and loopback TCP), µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_kernel_us_per_request: Option<f64>,
    /// The tool's busiest thread over its measured window, percent of one CPU: what decides
    /// [`Run::tool_bound`] for a single-threaded tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_busiest_thread_percent: Option<f64>,
    /// What else the machine did over the measured window; `None` when not measured (files
    /// from before, a window too short to measure: see `unmeasured`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<Interference>,
    /// Whether the machine, not the server, may have set this run's figures (other work,
    /// steal, or the server waiting for a CPU past the limits of `bench`'s docs).
    #[serde(default)]
    pub disturbed: bool,
    /// Why `disturbed` is set, in a few words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed_reason: Option<String>,
    /// Disturbed attempts of this repeat measured and set aside before this one (`--retries`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub discarded: u32,
    /// The round of the run this repeat was measured in (1-based): a paired comparison sets
    /// it beside the other servers' repeats of the same round. `None` in a step's `median`
    /// and in files from before rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// For a count-bounded step: how many times the count was run back to back to fill the
    /// step's least length (the figures are over all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Why no CPU percentage, interference or tool-bound verdict was recorded (a measured
    /// window too short to measure them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
    /// E4: the load's and the probe's measured windows, seconds from the start of the step's
    /// measured run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<Windows>,
    /// What the tool could not measure exactly (e.g. ab's 1 ms latency resolution).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The probe's own run beside this one (E4: 1 connection on `/api/hello` while the
    /// step's load runs; for the `baseline` step, the probe alone): its requests/s, latency
    /// and errors, with no server-side fields (the server is sampled for the step's run).
    /// In a step's `median`, the median of the repeats' probes. `None` for a step without
    /// a probe (and in files from before probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Box<Run>>,
    /// The measured window in intervals ([`timeline`]): the loopback's throughput, the
    /// generator's answers and p99, the server's, the tool's and the machine's CPU. `None` in
    /// a step's `median`, for a window too short to cut, and in files from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<timeline::Timeline>,
}

/// How the built-in generator's note on a run began when one of its threads was busy nearly
/// all the time, in files from before `bench` measured the tool's CPU itself.
const GENERATOR_BUSY: &str = "loadgen was busy";

impl Run {
    /// Whether the load tool, not the server, set the pace of this run: its recorded verdict
    /// ([`Run::tool_bound`], from `step::verdict::tool_bound`, the one rule); in a file from
    /// before the tool's CPU was recorded, the built-in generator's own "busy" note. Every
    /// report, and [`Results::tool_bound_steps`], reads it here.
    pub fn tool_set_pace(&self) -> bool {
        self.tool_bound
            || (self.tool_cpu_percent.is_none()
                && self.notes.iter().any(|n| n.starts_with(GENERATOR_BUSY)))
    }

    /// E4: the p99 latency of this run's probe, µs, and whether it is censored; `None`
    /// without a probe, and for a probe whose every request failed (no latency at all: its
    /// errors say what happened).
    ///
    /// A probe that got no answer in its measured window (no request answered or failed:
    /// `requests` 0, no latency) has no p99 the tool could report, but it did not wait for
    /// nothing: it is censored, and counts as [`Run::probe_unanswered_us`], a lower bound,
    /// rather than being left out (which would keep only the rounds where the server was
    /// quick enough to answer, and make the stall look shorter and surer than it was).
    pub fn probe_p99_or_censored(&self) -> Option<(f64, bool)> {
        let p = self.probe.as_deref()?;
        match p.latency_us.p99 {
            Some(us) => Some((us as f64, false)),
            None => p.probe_unanswered_us().map(|us| (us, true)),
        }
    }

    /// For a probe's run (the probe of E4: one connection, closed loop, one request at a
    /// time) that got no answer in its measured window, the least its latency was, µs: half
    /// its window. `None` when it got one, or a failure, or has no window.
    ///
    /// Why half: the tool counts a request sent in the window and answered (or failed)
    /// within it; requests sent during its warm-up are not counted, and one still awaiting
    /// its answer when the window ends is not recorded. With none counted, the connection
    /// sent at most one request in the window (the next goes only once the last is
    /// answered) and got at most one answer in it, to a request sent before it. That answer
    /// splits the window in two, each part spent waiting on one request (the one sent
    /// before the window, then the one sent at the answer and still unanswered at the end),
    /// so one of them waited at least half the window. The whole window would overstate
    /// it: a request sent just before a 1 s window and answered 0.6 s into it, then the
    /// next, still unanswered 0.4 s later when the window ends, leave no answer counted,
    /// and neither need have waited the whole second.
    pub fn probe_unanswered_us(&self) -> Option<f64> {
        (self.requests == 0 && self.latency_us.p99.is_none() && self.duration_s > 0.0)
            .then_some(self.duration_s * 1e6 / 2.0)
    }
}

/// E4: the probe's p99 over a step's rounds ([`StepResult::probe_p99`]), every round
/// counted: a round whose probe got no answer in its window at its lower bound
/// ([`Run::probe_p99_or_censored`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeP99 {
    /// The median over the rounds, µs: a lower bound when a round is censored.
    pub median_us: f64,
    /// Its interval over the rounds (its ends lower bounds too when a round is censored);
    /// `None` for one round.
    pub interval: Option<Interval>,
    /// Each round's probe, in order.
    pub rounds: Vec<ProbeRound>,
}

/// One round of a step's probe, as [`ProbeP99`] counts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeRound {
    /// The requests its measured window counted (answered or failed); with one connection
    /// and one request at a time it sent at most one more, still unanswered at the end.
    pub answered: u64,
    /// Its measured window, seconds.
    pub window_s: f64,
    /// Its p99, µs, or the lower bound of a round without an answer.
    pub p99_us: f64,
    /// Whether it got no answer (`p99_us` is [`Run::probe_unanswered_us`]).
    pub censored: bool,
}

impl ProbeP99 {
    /// The rounds whose probe got no answer.
    pub fn censored(&self) -> usize {
        self.rounds.iter().filter(|r| r.censored).count()
    }

    /// Whether the median is a lower bound (a round is censored).
    pub fn at_least(&self) -> bool {
        self.censored() > 0
    }
}

impl StepResult {
    /// E4: the probe's p99 over this step's repeats, every round counted, one without an
    /// answer at its lower bound ([`ProbeP99`]); `None` when no repeat has a probe's p99 or
    /// bound (files from before probes, a step without one).
    pub fn probe_p99(&self) -> Option<ProbeP99> {
        let rounds: Vec<ProbeRound> = self
            .repeats
            .iter()
            .filter_map(|r| {
                let (p99_us, censored) = r.probe_p99_or_censored()?;
                let p = r.probe.as_deref()?;
                Some(ProbeRound {
                    answered: p.requests,
                    window_s: p.duration_s,
                    p99_us,
                    censored,
                })
            })
            .collect();
        let values = || rounds.iter().map(|r| r.p99_us).collect::<Vec<f64>>();
        let median_us = crate::stats::median(values())?;
        let interval =
            crate::stats::median_interval(values(), crate::stats::LEVEL).filter(|i| i.n >= 2);
        Some(ProbeP99 {
            median_us,
            interval,
            rounds,
        })
    }
}

/// What else used the machine's CPUs over a run's measured window (`bench`'s docs give the
/// limits past which a run is [`Run::disturbed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Interference {
    /// All CPUs' busy time (steal excluded) less the server's, the load tool's and the
    /// harness's own, percent of one CPU; `None` when the server is not sampled (a remote
    /// target), so it cannot be told from other work.
    pub other_cpu_percent: Option<f64>,
    /// Steal time of all CPUs, percent of the window.
    pub steal_percent: f64,
    /// Time the server's threads were runnable but waited for a CPU, percent of the window.
    pub server_wait_percent: Option<f64>,
    /// Time the tool's threads waited for a CPU, percent of its measured window.
    pub tool_wait_percent: Option<f64>,
}

/// Two measured windows of a probed step, seconds from the start of its measured run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Windows {
    /// The load's `[start, end]`.
    pub load: [f64; 2],
    /// The probe's `[start, end]`.
    pub probe: [f64; 2],
}

impl Windows {
    /// Whether the probe was measured while the load ran (within 0.1 s: the exits are seen
    /// by polling).
    pub fn probe_inside(&self) -> bool {
        const SLACK: f64 = 0.1;
        self.probe[0] >= self.load[0] - SLACK && self.probe[1] <= self.load[1] + SLACK
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A latency summary, microseconds. A field is `None` when the tool does not report it (wrk
/// `--latency` has no p95; k6 by default no p99).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Latency {
    /// Mean.
    pub mean: Option<f64>,
    /// Median.
    pub p50: Option<u64>,
    /// 90th percentile.
    pub p90: Option<u64>,
    /// 95th percentile.
    pub p95: Option<u64>,
    /// 99th percentile.
    pub p99: Option<u64>,
    /// 99.9th percentile (the built-in generator, oha and k6 report it; wrk, ab and
    /// autocannon do not). Absent from files from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999: Option<u64>,
    /// Largest.
    pub max: Option<u64>,
}

/// Failed requests by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Errors {
    /// Connections that could not be made.
    pub connect: u64,
    /// Reads that failed (resets, early close).
    pub read: u64,
    /// Writes that failed.
    pub write: u64,
    /// Requests that timed out.
    pub timeout: u64,
    /// Whole responses with an error status (wrk: not 2xx or 3xx; ab: not 2xx).
    pub status: u64,
    /// Anything else the tool counts (malformed responses, ab's length mismatches, …).
    pub other: u64,
}

impl Errors {
    /// Every failure together.
    pub fn total(&self) -> u64 {
        [
            self.connect,
            self.read,
            self.write,
            self.timeout,
            self.status,
            self.other,
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }

    /// The kinds counted at least once, in order (connect, read, write, timeout, status,
    /// other), each with its count: the one listing of a run's failures.
    pub fn counted(&self) -> Vec<(&'static str, u64)> {
        [
            ("connect", self.connect),
            ("read", self.read),
            ("write", self.write),
            ("timeout", self.timeout),
            ("status", self.status),
            ("other", self.other),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }
}

/// The kinds of [`Errors`] that are socket errors (wrk's): every kind but error statuses and
/// the rest.
pub const SOCKET_ERRORS: [&str; 4] = ["connect", "read", "write", "timeout"];

/// The server's resident memory over a repeat, KiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Rss {
    /// Before the load.
    pub start: u64,
    /// The highest sample.
    pub peak: u64,
    /// After the load.
    pub end: u64,
}

/// How far the repeats of a step are apart, by requests per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Spread {
    /// The lowest repeat.
    pub requests_per_s_min: f64,
    /// The highest repeat.
    pub requests_per_s_max: f64,
    /// `(max - min) / median`; 0 for one repeat (or a median of 0).
    pub relative: f64,
}

/// The per-field median of `runs` (each field on its own, so the result need not be one of
/// the runs); `None` for no runs. An even count takes the mean of the middle two (rounded
/// for integers); an optional field takes the median of the runs that have it;
/// `tool_bound` is whether any run was. `notes` are
/// the union of the runs' notes, in first-seen order.
pub fn median(runs: &[Run]) -> Option<Run> {
    if runs.is_empty() {
        return None;
    }
    let f = |get: fn(&Run) -> f64| median_f64(runs.iter().map(get).collect());
    let u = |get: fn(&Run) -> u64| median_u64(runs.iter().map(get).collect());
    let of = |get: fn(&Run) -> Option<f64>| {
        let v: Vec<f64> = runs.iter().filter_map(get).collect();
        (!v.is_empty()).then(|| median_f64(v))
    };
    let ou = |get: fn(&Run) -> Option<u64>| {
        let v: Vec<u64> = runs.iter().filter_map(get).collect();
        (!v.is_empty()).then(|| median_u64(v))
    };
    let rss = {
        let v: Vec<Rss> = runs.iter().filter_map(|r| r.rss_kb).collect();
        (!v.is_empty()).then(|| Rss {
            start: median_u64(v.iter().map(|r| r.start).collect()),
            peak: median_u64(v.iter().map(|r| r.peak).collect()),
            end: median_u64(v.iter().map(|r| r.end).collect()),
        })
    };
    let mut notes: Vec<String> = Vec::new();
    for n in runs.iter().flat_map(|r| &r.notes) {
        if !notes.contains(n) {
            notes.push(n.clone());
        }
    }
    Some(Run {
        requests: u(|r| r.requests),
        duration_s: f(|r| r.duration_s),
        requests_per_s: f(|r| r.requests_per_s),
        transfer_bytes_per_s: f(|r| r.transfer_bytes_per_s),
        bytes_per_response: f(|r| r.bytes_per_response),
        latency_us: median_latency(runs.iter().map(|r| &r.latency_us)).unwrap_or_default(),
        errors: Errors {
            connect: u(|r| r.errors.connect),
            read: u(|r| r.errors.read),
            write: u(|r| r.errors.write),
            timeout: u(|r| r.errors.timeout),
            status: u(|r| r.errors.status),
            other: u(|r| r.errors.other),
        },
        rss_kb: rss,
        server_cpu_percent: of(|r| r.server_cpu_percent),
        server_cpu_s: of(|r| r.server_cpu_s),
        cpu_us_per_request: of(|r| r.cpu_us_per_request),
        offered_requests_per_s: of(|r| r.offered_requests_per_s),
        latency_uncorrected_us: median_latency(
            runs.iter()
                .filter_map(|r| r.latency_uncorrected_us.as_ref()),
        ),
        tool_cpu_percent: of(|r| r.tool_cpu_percent),
        tool_cpus: runs.iter().filter_map(|r| r.tool_cpus).max(),
        // One tool-bound repeat makes the step's figure suspect.
        tool_bound: runs.iter().any(|r| r.tool_bound),
        tool_fell_behind: runs.iter().any(|r| r.tool_fell_behind),
        intended_requests: ou(|r| r.intended_requests),
        unsent_requests: ou(|r| r.unsent_requests),
        // Marked when most repeats were: a pace the round trips set is the usual case of
        // the step, not one repeat's accident.
        round_trips_bound: {
            let bound: Vec<&String> = runs
                .iter()
                .filter_map(|r| r.round_trips_bound.as_ref())
                .collect();
            (bound.len() * 2 > runs.len()).then(|| bound[0].clone())
        },
        cpu_user_us_per_request: of(|r| r.cpu_user_us_per_request),
        cpu_kernel_us_per_request: of(|r| r.cpu_kernel_us_per_request),
        tool_busiest_thread_percent: of(|r| r.tool_busiest_thread_percent),
        interference: {
            let v: Vec<Interference> = runs.iter().filter_map(|r| r.interference).collect();
            let of = |get: fn(&Interference) -> Option<f64>| {
                let x: Vec<f64> = v.iter().filter_map(get).collect();
                (!x.is_empty()).then(|| median_f64(x))
            };
            (!v.is_empty()).then(|| Interference {
                other_cpu_percent: of(|i| i.other_cpu_percent),
                steal_percent: median_f64(v.iter().map(|i| i.steal_percent).collect()),
                server_wait_percent: of(|i| i.server_wait_percent),
                tool_wait_percent: of(|i| i.tool_wait_percent),
            })
        },
        // So does one disturbed repeat.
        disturbed: runs.iter().any(|r| r.disturbed),
        disturbed_reason: runs.iter().find_map(|r| r.disturbed_reason.clone()),
        discarded: runs.iter().map(|r| r.discarded).sum(),
        round: None,
        rounds: ou(|r| r.rounds.map(u64::from)).map(|n| n as u32),
        unmeasured: runs.iter().find_map(|r| r.unmeasured.clone()),
        windows: runs.iter().find_map(|r| r.windows),
        notes,
        probe: {
            let probes: Vec<Run> = runs
                .iter()
                .filter_map(|r| r.probe.as_deref().cloned())
                .collect();
            median(&probes).map(Box::new)
        },
        timeline: None,
    })
}

/// The per-field median of `latencies` (each field over those that have it); `None` for none.
fn median_latency<'a>(latencies: impl Iterator<Item = &'a Latency>) -> Option<Latency> {
    let v: Vec<&Latency> = latencies.collect();
    let of = |get: fn(&Latency) -> Option<f64>| {
        let x: Vec<f64> = v.iter().filter_map(|l| get(l)).collect();
        (!x.is_empty()).then(|| median_f64(x))
    };
    let ou = |get: fn(&Latency) -> Option<u64>| {
        let x: Vec<u64> = v.iter().filter_map(|l| get(l)).collect();
        (!x.is_empty()).then(|| median_u64(x))
    };
    (!v.is_empty()).then(|| Latency {
        mean: of(|l| l.mean),
        p50: ou(|l| l.p50),
        p90: ou(|l| l.p90),
        p95: ou(|l| l.p95),
        p99: ou(|l| l.p99),
        p999: ou(|l| l.p999),
        max: ou(|l| l.max),
    })
}

/// The lowest and highest requests per second of `runs`, and their distance relative to the
/// median; `None` for no runs.
pub fn spread(runs: &[Run]) -> Option<Spread> {
    if runs.is_empty() {
        return None;
    }
    let v: Vec<f64> = runs.iter().map(|r| r.requests_per_s).collect();
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mid = median_f64(v);
    Some(Spread {
        requests_per_s_min: min,
        requests_per_s_max: max,
        relative: if mid > 0.0 { (max - min) / mid } else { 0.0 },
    })
}

fn median_f64(v: Vec<f64>) -> f64 {
    crate::stats::median(v).unwrap_or(0.0)
}

fn median_u64(v: Vec<u64>) -> u64 {
    crate::stats::median_u64(v).unwrap_or(0)
}

/// A step whose figure is the load tool's limit ([`Results::tool_bound_steps`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundStep<'a> {
    /// The server's name.
    pub server: &'a str,
    /// The step's endpoint.
    pub endpoint: &'a str,
    /// The step's id.
    pub step: &'a str,
    /// The tool's CPU percent (100 = one CPU), if measured.
    pub cpu_percent: Option<f64>,
    /// The CPUs it could use.
    pub cpus: Option<usize>,
    /// Its busiest thread's CPU percent, if measured.
    pub busiest_thread_percent: Option<f64>,
}

impl BoundStep<'_> {
    /// `server /endpoint step (tool CPU 99 % of 1 CPU)`, or for a one-thread tool whose
    /// busiest thread was measured `server /endpoint step (its busiest thread 97 % of a CPU)`.
    pub fn describe(&self) -> String {
        let cpu = match (self.cpu_percent, self.cpus) {
            (_, Some(1)) if self.busiest_thread_percent.is_some() => format!(
                " (its busiest thread {:.0} % of a CPU)",
                self.busiest_thread_percent.unwrap_or(0.0)
            ),
            (Some(p), Some(n)) => format!(
                " (tool CPU {p:.0} % of {n} CPU{})",
                if n == 1 { "" } else { "s" }
            ),
            (Some(p), None) => format!(" (tool CPU {p:.0} %)"),
            _ => " (its own report says it was busy)".to_string(),
        };
        format!("{} {} {}{cpu}", self.server, self.endpoint, self.step)
    }
}

/// Why a results file could not be written or read: the crate's one error type, for every
/// kind of results file.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// A file or directory operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The file is not valid results JSON.
    #[error("{}: not a results document: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: serde_json::Error,
    },
    /// The file has another `schema` tag.
    #[error("{}: schema {found:?}, this bench reads {SCHEMA:?}", path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// The tag it has.
        found: String,
    },
    /// Reading or writing one of the other kinds of file (instructions, tools, idle) failed:
    /// `what` it was doing (`reading`, `writing`, `creating`) and the path.
    #[error("{what} {}", path.display())]
    File {
        /// What it was doing.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The failure.
        #[source]
        source: io::Error,
    },
    /// The file is not JSON.
    #[error("{} is not JSON", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// The failure.
        #[source]
        source: serde_json::Error,
    },
    /// The file is another kind of results file.
    #[error("{} is not a {schema} file (its schema: {found})", path.display())]
    OtherKind {
        /// The file.
        path: PathBuf,
        /// The kind asked for.
        schema: &'static str,
        /// The `schema` it has (JSON text).
        found: String,
    },
    /// The file is tagged as the kind asked for but does not have its shape.
    #[error("{} is not a {schema} file", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// The kind asked for.
        schema: &'static str,
        /// The failure.
        #[source]
        source: serde_json::Error,
    },
    /// A document could not be turned into JSON.
    #[error(transparent)]
    Serialize(#[from] serde_json::Error),
}

impl Results {
    /// The file name this document is written under: `<experiment>-<YYYYMMDDTHHMMSSZ>.json`,
    /// the timestamp being `started_utc` (or now, if that is not a timestamp).
    pub fn file_name(&self) -> String {
        let stamp = compact_stamp(&self.header.started_utc)
            .unwrap_or_else(|| compact_stamp(&utc_now()).unwrap_or_default());
        let experiment: String = self
            .experiment
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("{experiment}-{stamp}.json")
    }

    /// Writes the document, pretty-printed, as `<dir>/`[`Results::file_name`] (creating
    /// `dir`); a name already taken gets `-2`, `-3`, … before `.json`. Returns the path, which
    /// later versions of the same run are [`saved`](Results::save) to.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, ResultsError> {
        fs::create_dir_all(dir).map_err(io_at(dir))?;
        let name = self.file_name();
        let stem = name.trim_end_matches(".json");
        let mut path = dir.join(&name);
        let mut n = 2;
        while path.exists() {
            path = dir.join(format!("{stem}-{n}.json"));
            n += 1;
        }
        self.save(&path)?;
        Ok(path)
    }

    /// Writes the document to `path` atomically: to a temporary file beside it, then renamed
    /// over it, so a reader (or a run killed mid-write) sees the previous version or this
    /// one, never half of one.
    pub fn save(&self, path: &Path) -> Result<(), ResultsError> {
        let text = serde_json::to_string_pretty(self).map_err(|source| ResultsError::Json {
            path: path.to_path_buf(),
            source,
        })?;
        let text = timeline::compact_number_arrays(&text);
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        fs::write(&tmp, text + "\n").map_err(io_at(&tmp))?;
        fs::rename(&tmp, path).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io_at(path)(e)
        })
    }

    /// Writes every path under `root` in the document's commands and notes relative to it
    /// (`/home/me/ws/target/release/loadgen` → `target/release/loadgen`), so that a results
    /// file names no directory of the machine that ran it.
    pub fn relative_to(&mut self, root: &Path) {
        let Some(fix) = relative_fix(root) else {
            return;
        };
        self.header.command.iter_mut().for_each(&fix);
        self.notes.iter_mut().for_each(&fix);
        for server in &mut self.servers {
            server.command.iter_mut().for_each(&fix);
            for step in &mut server.steps {
                step.tool_command.iter_mut().for_each(&fix);
            }
        }
    }

    /// The C ceiling's valid result of the step `(endpoint, step)`, when the run measured it.
    pub fn ceiling_step(&self, endpoint: &str, step: &str) -> Option<&StepResult> {
        self.servers
            .iter()
            .find(|s| s.name == CEILING)?
            .steps
            .iter()
            .find(|c| c.endpoint == endpoint && c.step == step && c.valid)
    }

    /// `figure` of `st` over the ceiling's in the same round: the median of the rounds' ratios
    /// and its interval ([`StepResult::paired_ratio`]); `None` without the ceiling, or without
    /// two rounds that pair up.
    pub fn to_ceiling(
        &self,
        st: &StepResult,
        figure: impl Fn(&Run) -> Option<f64>,
    ) -> Option<(f64, Interval)> {
        st.paired_ratio(self.ceiling_step(&st.endpoint, &st.step)?, figure)
    }

    /// Every step of every server, with its server, in order.
    pub fn steps(&self) -> impl Iterator<Item = (&ServerResult, &StepResult)> {
        self.servers
            .iter()
            .flat_map(|s| s.steps.iter().map(move |st| (s, st)))
    }

    /// Every step whose median run was tool-bound ([`Run::tool_set_pace`]), in order.
    pub fn tool_bound_steps(&self) -> Vec<BoundStep<'_>> {
        self.steps()
            .filter_map(|(s, st)| {
                let m = st.median.as_ref().filter(|m| m.tool_set_pace())?;
                Some(BoundStep {
                    server: &s.name,
                    endpoint: &st.endpoint,
                    step: &st.step,
                    cpu_percent: m.tool_cpu_percent,
                    busiest_thread_percent: m.tool_busiest_thread_percent,
                    cpus: m.tool_cpus,
                })
            })
            .collect()
    }

    /// Reads a document and checks its [`SCHEMA`] tag.
    pub fn load(path: &Path) -> Result<Results, ResultsError> {
        let text = fs::read_to_string(path).map_err(|source| ResultsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Results::parse(&text).map_err(|e| match e {
            ParseFailure::Json(source) => ResultsError::Json {
                path: path.to_path_buf(),
                source,
            },
            ParseFailure::Schema(found) => ResultsError::Schema {
                path: path.to_path_buf(),
                found,
            },
        })
    }

    fn parse(text: &str) -> Result<Results, ParseFailure> {
        // The tag first, so that a future schema is named rather than failing on a field.
        #[derive(Deserialize)]
        struct Tag {
            schema: Option<String>,
        }
        let tag: Tag = serde_json::from_str(text).map_err(ParseFailure::Json)?;
        match tag.schema {
            Some(s) if s == SCHEMA => {
                let mut r: Results = serde_json::from_str(text).map_err(ParseFailure::Json)?;
                r.intervals_from_rounds();
                Ok(r)
            }
            other => Err(ParseFailure::Schema(other.unwrap_or_default())),
        }
    }

    /// A run in rounds (it records its seed): every step's intervals computed again from its
    /// per-round values, so that a file written before a figure had an interval gets it, and
    /// one whose intervals were edited by hand gets the true ones. Files from before rounds
    /// keep what they hold.
    fn intervals_from_rounds(&mut self) {
        if self.seed.is_none() {
            return;
        }
        for s in &mut self.servers {
            for st in &mut s.steps {
                st.intervals = Intervals::of(&st.repeats);
            }
        }
    }
}

/// What rewrites every path under `root` in a string relative to it (`/ws/target/x` →
/// `target/x`); `None` when `root` is `/` or not UTF-8.
pub(crate) fn relative_fix(root: &Path) -> Option<impl Fn(&mut String)> {
    let root = root.to_str()?;
    let prefix = format!("{}/", root.trim_end_matches('/'));
    if prefix == "/" {
        return None;
    }
    Some(move |s: &mut String| {
        if s.contains(&prefix) {
            *s = s.replace(&prefix, "");
        }
    })
}

/// Writes `doc` as `<dir>/<kind>-<YYYYMMDDTHHMMSSZ>.json` (the stamp of `started_utc`; a name
/// already taken gets `-2`, `-3`, …), pretty-printed, atomically (a temporary file renamed).
/// The file of `bench tools compare` and of `bench idle`.
pub(crate) fn write_new<T: Serialize>(
    dir: &Path,
    kind: &str,
    started_utc: &str,
    doc: &T,
) -> Result<PathBuf, ResultsError> {
    fs::create_dir_all(dir).map_err(file("creating", dir))?;
    let stamp =
        compact_stamp(started_utc).unwrap_or_else(|| compact_stamp(&utc_now()).unwrap_or_default());
    let mut path = dir.join(format!("{kind}-{stamp}.json"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{kind}-{stamp}-{n}.json"));
        n += 1;
    }
    let text = serde_json::to_string_pretty(doc)?;
    let tmp = dir.join(format!(".{kind}-{stamp}.{}.tmp", std::process::id()));
    fs::write(&tmp, text + "\n").map_err(file("writing", &tmp))?;
    fs::rename(&tmp, &path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        file("writing", &path)(e)
    })?;
    Ok(path)
}

/// An I/O failure `what`-ing `path`, as a [`ResultsError::File`].
pub(crate) fn file(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> ResultsError {
    let path = path.to_path_buf();
    move |source| ResultsError::File { what, path, source }
}

/// The `schema` field of the JSON file at `path`, if it has one.
pub fn schema_of(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct Tag {
        schema: Option<String>,
    }
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str::<Tag>(&text).ok()?.schema
}

/// Reads the JSON file at `path` as a document of `schema` (its tag checked first, so that
/// another kind is named rather than failing on a field).
pub(crate) fn load_tagged<T: serde::de::DeserializeOwned>(
    path: &Path,
    schema: &'static str,
) -> Result<T, ResultsError> {
    let text = fs::read_to_string(path).map_err(file("reading", path))?;
    let found = serde_json::from_str::<serde_json::Value>(&text).map_err(|source| {
        ResultsError::NotJson {
            path: path.to_path_buf(),
            source,
        }
    })?;
    if found["schema"] != schema {
        return Err(ResultsError::OtherKind {
            path: path.to_path_buf(),
            schema,
            found: found["schema"].to_string(),
        });
    }
    serde_json::from_str(&text).map_err(|source| ResultsError::Shape {
        path: path.to_path_buf(),
        schema,
        source,
    })
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> ResultsError {
    let path = path.to_path_buf();
    move |source| ResultsError::Io { path, source }
}

enum ParseFailure {
    Json(serde_json::Error),
    Schema(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rps: f64, p99: Option<u64>, rss_peak: Option<u64>) -> Run {
        Run {
            requests: rps as u64 * 10,
            duration_s: 10.0,
            requests_per_s: rps,
            transfer_bytes_per_s: rps * 100.0,
            bytes_per_response: 100.0,
            latency_us: Latency {
                mean: Some(rps / 10.0),
                p50: Some(rps as u64 / 10),
                p90: None,
                p95: None,
                p99,
                p999: None,
                max: Some(9000),
            },
            errors: Errors {
                read: rps as u64 / 1000,
                ..Errors::default()
            },
            rss_kb: rss_peak.map(|peak| Rss {
                start: 1000,
                peak,
                end: 2000,
            }),
            server_cpu_percent: None,
            server_cpu_s: None,
            cpu_us_per_request: None,
            tool_cpu_percent: None,
            tool_cpus: None,
            tool_bound: false,
            notes: vec![],
            probe: None,
            ..Run::default()
        }
    }

    pub(crate) fn sample() -> Results {
        let mut step = StepResult {
            step: "c100".into(),
            endpoint: "/".into(),
            connections: 100,
            requests: None,
            duration_s: Some(2.0),
            offered_requests_per_s: None,
            tool_command: vec!["wrk".into(), "-t1".into()],
            valid: true,
            invalid_reason: None,
            repeats: vec![run(3000.0, Some(7), Some(5)), run(1000.0, None, None)],
            median: None,
            spread: None,
            intervals: None,
            saturation: None,
            searched_rounds: None,
        };
        step.finish();
        Results {
            header: Header {
                schema: SCHEMA.into(),
                started_utc: "2026-11-29T22:40:00Z".into(),
                finished_utc: "2026-11-29T22:43:10Z".into(),
                command: vec![
                    "bench".into(),
                    "run".into(),
                    crate::experiment::E3.id.into(),
                ],
                machine: Machine {
                    hostname: "bench-test".into(),
                    kernel: "Linux 6.18.44".into(),
                    cpus: 2,
                    cpu_model: "AMD EPYC".into(),
                    mem_total_kb: 24_000_000,
                },
                git: Git::default(),
                versions: std::collections::BTreeMap::from([("bench".into(), "0.1.0".into())]),
            },
            experiment: crate::experiment::E3.id.into(),
            title: "t".into(),
            complete: true,
            incomplete_reason: None,
            tool: "wrk".into(),
            quick: true,
            repeat: 2,
            seed: None,
            target: None,
            pinning: Some(Pinning {
                server_cpus: vec![0],
                load_cpus: vec![1],
            }),
            workers: None,
            notes: vec!["n".into()],
            servers: vec![ServerResult {
                name: "server-prebuilt".into(),
                kind: ServerKind::Rust,
                style: "s".into(),
                analogue: vec!["Blazeio".into()],
                command: vec![],
                extra_headers: vec![ExtraHeader {
                    field: "server".into(),
                    bytes: 11,
                }],
                steps: vec![step],
                verified: vec![],
            }],
        }
    }

    #[test]
    fn paths_under_the_root_are_written_relative_to_it() {
        let mut r = sample();
        r.header.command = vec!["/ws/x/target/release/bench".into(), "run".into()];
        r.notes = vec!["built: /ws/x/target/release/server-hyper".into()];
        r.servers[0].command = vec!["/ws/x/peers/bin/go-http".into(), "--addr".into()];
        r.servers[0].steps[0].tool_command = vec![
            "/ws/x/target/release/loadgen".into(),
            "/ws/xy/elsewhere".into(),
            "/usr/bin/wrk".into(),
        ];
        r.relative_to(Path::new("/ws/x/"));
        assert_eq!(r.header.command, ["target/release/bench", "run"]);
        assert_eq!(r.notes, ["built: target/release/server-hyper"]);
        assert_eq!(r.servers[0].command, ["peers/bin/go-http", "--addr"]);
        assert_eq!(
            r.servers[0].steps[0].tool_command,
            ["target/release/loadgen", "/ws/xy/elsewhere", "/usr/bin/wrk"]
        );
    }

    #[test]
    fn round_trip_through_a_file() {
        let r = sample();
        let dir = std::env::temp_dir().join(format!("bench-results-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let p1 = r.write(&dir).unwrap();
        assert_eq!(p1, dir.join("e3-20261129T224000Z.json"));
        let p2 = r.write(&dir).unwrap();
        assert_eq!(p2, dir.join("e3-20261129T224000Z-2.json"));
        assert_eq!(Results::load(&p1).unwrap(), r);
        // A later version of the same run replaces the file, and leaves no temporary behind.
        let partial = Results {
            complete: false,
            incomplete_reason: Some("running: 1 of 2 step runs done".into()),
            ..r.clone()
        };
        partial.save(&p1).unwrap();
        assert_eq!(Results::load(&p1).unwrap(), partial);
        r.save(&p1).unwrap();
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        // A file from before `complete` was a field: complete.
        let old = fs::read_to_string(&p1)
            .unwrap()
            .replace("\"complete\": true,", "")
            .replace("\"incomplete_reason\": null,", "");
        assert!(!old.contains("complete"));
        let old: Results = serde_json::from_str(&old).unwrap();
        assert!(old.complete);
        let text = fs::read_to_string(&p1).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema"], "bench.results/1");
        assert_eq!(v["servers"][0]["kind"], "rust");
        assert_eq!(
            v["servers"][0]["steps"][0]["median"]["latency_us"]["p95"],
            serde_json::Value::Null
        );
        assert!(v["servers"][0]["steps"][0]["median"].get("notes").is_none());
        fs::write(&p2, text.replace("bench.results/1", "bench.results/9")).unwrap();
        let e = Results::load(&p2).unwrap_err();
        assert!(
            matches!(e, ResultsError::Schema { ref found, .. } if found == "bench.results/9"),
            "{e}"
        );
        fs::write(&p2, "{ not json").unwrap();
        assert!(matches!(Results::load(&p2), Err(ResultsError::Json { .. })));
        assert!(matches!(
            Results::load(&dir.join("none.json")),
            Err(ResultsError::Io { .. })
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The published E4 (2026-12-03, 6 rounds, node-http's steps kept): beside `/api/sync`
    /// node-http's probe got no answer in its 1 s window in rounds 1, 2 and 4. Those rounds
    /// are kept at their lower bound, half the window, in the probe's median and in the
    /// paired ratio over the idle probe; left out, the ratio would be 3,673× over 3 rounds.
    #[test]
    fn a_probe_round_without_an_answer_is_kept_at_its_lower_bound() {
        let r = Results::parse(include_str!(
            "../../../bench-report/tests/data/results-e4-rounds.json"
        ))
        .unwrap_or_else(|_| panic!("results-e4-rounds.json"));
        let node = r.servers.iter().find(|s| s.name == "node-http").unwrap();
        let step = |id: &str| node.steps.iter().find(|st| st.step == id).unwrap();
        let (sync, idle) = (step("sync"), step("baseline"));
        // What such a round records: a window, no request counted, no latency, no error.
        let silent = sync.in_round(1).unwrap().probe.as_deref().unwrap();
        assert_eq!(
            (silent.requests, silent.duration_s, silent.latency_us.p99),
            (0, 1.0, None)
        );
        assert_eq!(silent.errors.total(), 0);
        assert_eq!(silent.probe_unanswered_us(), Some(500_000.0));
        assert_eq!(
            sync.in_round(1).unwrap().probe_p99_or_censored(),
            Some((500_000.0, true))
        );
        assert_eq!(
            sync.in_round(3).unwrap().probe_p99_or_censored(),
            Some((639_487.0, false))
        );
        let p = sync.probe_p99().unwrap();
        let answered: Vec<(u64, bool)> =
            p.rounds.iter().map(|r| (r.answered, r.censored)).collect();
        assert_eq!(
            answered,
            [
                (0, true),
                (0, true),
                (1, false),
                (0, true),
                (1, false),
                (1, false)
            ]
        );
        assert_eq!((p.censored(), p.at_least()), (3, true));
        // 419,071 500,000 500,000 500,000 547,327 639,487: the median is the bound.
        assert_eq!(p.median_us, 500_000.0);
        let i = p.interval.unwrap();
        assert_eq!((i.low, i.high, i.n), (419_071.0, 639_487.0, 6));
        // The idle probe always answered: nothing censored.
        assert_eq!(idle.probe_p99().unwrap().censored(), 0);
        // The paired ratio is over all six rounds.
        let figure = |run: &Run| run.probe_p99_or_censored().map(|(us, _)| us);
        let ratios = sync.paired_ratios(idle, figure);
        assert_eq!(ratios.len(), 6, "{ratios:?}");
        let (x, i) = sync.paired_ratio(idle, figure).unwrap();
        assert_eq!(i.n, 6);
        assert!(i.at_level(), "{i:?}");
        assert_eq!(format!("{x:.0}"), "3307");
        assert_eq!(
            i.bracket(|v| format!("{v:.0}")),
            "[2328–4668]",
            "{ratios:?}"
        );
    }

    #[test]
    fn a_median_has_the_median_of_the_probes_and_old_files_load_without() {
        let mut runs = vec![run(100.0, None, None), run(300.0, None, None)];
        runs[0].probe = Some(Box::new(run(10.0, Some(5), None)));
        runs[1].probe = Some(Box::new(run(30.0, Some(9), None)));
        let m = median(&runs).unwrap();
        let p = m.probe.unwrap();
        assert_eq!((p.requests_per_s, p.latency_us.p99), (20.0, Some(7)));
        assert_eq!(
            median(&runs[..1]).unwrap().probe.unwrap().requests_per_s,
            10.0
        );
        let none = median(&[run(1.0, None, None)]).unwrap();
        assert!(none.probe.is_none());
        let v = serde_json::to_value(&none).unwrap();
        assert!(v.get("probe").is_none(), "not written when absent");
        let back: Run = serde_json::from_value(v).unwrap();
        assert_eq!(back.probe, None);
    }

    #[test]
    fn median_and_spread_odd() {
        let runs = [
            run(1000.0, Some(10), None),
            run(3000.0, Some(30), Some(900)),
            run(2000.0, None, Some(700)),
        ];
        let m = median(&runs).unwrap();
        assert_eq!(m.requests_per_s, 2000.0);
        assert_eq!(m.requests, 20_000);
        assert_eq!(m.latency_us.p50, Some(200));
        // Only the runs that have the field count.
        assert_eq!(m.latency_us.p99, Some(20));
        assert_eq!(m.latency_us.p90, None);
        assert_eq!(m.rss_kb.map(|r| r.peak), Some(800));
        assert_eq!(m.errors.read, 2);
        let s = spread(&runs).unwrap();
        assert_eq!(
            (s.requests_per_s_min, s.requests_per_s_max),
            (1000.0, 3000.0)
        );
        assert_eq!(s.relative, 1.0);
        // Set by the round trips when most repeats were, not when one was.
        let paced = |mut r: Run| {
            r.round_trips_bound = Some("neither side".into());
            r
        };
        let [a, b, c] = runs;
        let one = [paced(a.clone()), b.clone(), c.clone()];
        assert_eq!(median(&one).unwrap().round_trips_bound, None);
        let two = [paced(a), paced(b), c];
        assert_eq!(
            median(&two).unwrap().round_trips_bound.as_deref(),
            Some("neither side")
        );
    }

    #[test]
    fn median_and_spread_even_and_empty() {
        let runs = [
            run(1000.0, Some(1), None),
            run(4000.0, Some(2), None),
            run(2000.0, Some(4), None),
            run(3000.0, Some(8), None),
        ];
        let m = median(&runs).unwrap();
        assert_eq!(m.requests_per_s, 2500.0);
        // 3 and 4 → 3.5, rounded half up.
        assert_eq!(m.latency_us.p99, Some(3));
        assert_eq!(median_u64(vec![3, 4]), 4);
        assert_eq!(median_u64(vec![u64::MAX, u64::MAX - 2]), u64::MAX - 1);
        assert_eq!(m.rss_kb, None);
        let s = spread(&runs).unwrap();
        assert_eq!(s.relative, 3000.0 / 2500.0);
        let one = spread(&runs[..1]).unwrap();
        assert_eq!(one.relative, 0.0);
        assert_eq!(median(&[]), None);
        assert_eq!(spread(&[]), None);
    }

    /// The second publish's A/A pair at E3 `/` c100 (server-prebuilt over its copy, the six
    /// rounds' requests/s ratios): all above 1, so its 95 % interval, lowest to highest, does
    /// not hold 1.00; the same pair at `/` c1000 has rounds on both sides.
    #[test]
    fn an_aa_pair_is_one_sided_when_its_interval_leaves_out_one() {
        let c100 = [1.014, 1.017, 1.055, 1.081, 1.115, 1.242];
        let one = aa_one_sided(&c100).unwrap();
        assert!(one.above);
        assert_eq!((one.on_side, one.rounds), (6, 6));
        assert_eq!((one.interval.low, one.interval.high), (1.014, 1.242));
        assert!((one.median - 1.068).abs() < 1e-9, "{}", one.median);
        assert_eq!(one.rounds_text(), "all 6 rounds above 1");
        let c1000 = [0.763, 0.835, 1.018, 1.026, 1.135, 1.173];
        assert_eq!(aa_one_sided(&c1000), None);
        // Below 1 the same way.
        let below: Vec<f64> = c100.iter().map(|x| 1.0 / x).collect();
        let one = aa_one_sided(&below).unwrap();
        assert!(!one.above);
        assert_eq!(one.rounds_text(), "all 6 rounds below 1");
        // Five rounds all on one side: their [min, max] is a 93.75 % interval, short of 95 %.
        assert_eq!(aa_one_sided(&c100[..5]), None);
        // With more rounds the interval is narrower than [min, max]: 9 of 10 above 1 is.
        let ten = [0.98, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09, 1.1];
        let one = aa_one_sided(&ten).unwrap();
        assert_eq!(one.rounds_text(), "9 of 10 rounds above 1");
        assert_eq!(aa_one_sided(&[]), None);
    }

    #[test]
    fn a_copy_is_numbered_after_its_original() {
        assert_eq!(copy_number("server-prebuilt"), ("server-prebuilt", 1));
        assert_eq!(
            copy_number(&copy_name("server-prebuilt", 2)),
            ("server-prebuilt", 2)
        );
    }
}
