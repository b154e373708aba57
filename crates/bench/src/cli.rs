//! The command line (clap): `list`, `verify`, `run`, `report`, `instructions`, `tools list`
//! and `tools compare`, and their options.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

/// The harness that reproduces the seven experiments side by side: it lists and verifies the
/// servers of servers.toml, runs an experiment's steps against them, and reports the results.
#[derive(Parser, Debug)]
#[command(name = "bench", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Every server of servers.toml: whether it can run here, style, analogue, port
    List(ListArgs),
    /// Start each server, run the conformance core, connection and rfc9112 groups, print the
    /// fairness table (status, head and body bytes, header fields per endpoint)
    Verify(VerifyArgs),
    /// Run an experiment (e1…e7) against its servers and write results/EXPERIMENT-TIMESTAMP.json
    Run(RunArgs),
    /// Markdown tables and SVG charts beside results files, or (--html) one page of them all
    Report(ReportArgs),
    /// What moved between two runs (two results files, or two published folders): each
    /// server's figures, each E7 capacity and each finding, judged by an exact rank test at a
    /// 5 % false discovery rate: moved, the same within a margin, or undecided
    Compare(CompareRunsArgs),
    /// The verdicts' error rates, measured on seeded simulations: one figure's false alarms
    /// and power by rounds, clean comparisons shaped like a publish (the report's and the
    /// gate's false alarms), false discoveries with real moves, E7's capacity interval
    Calibrate(CalibrateArgs),
    /// Where each step's noise is, from the repeats' timelines: the scatter within a repeat,
    /// between repeats and what independent intervals would give, the A/A pairs split into
    /// what a round shares and what a run has alone, what the dips went with (steal, other
    /// work, waits); with --against, between two sittings
    Noise(NoiseArgs),
    /// Instructions per request of each server under callgrind (noise-free), per endpoint and
    /// mode; or check / write the committed baseline of server-prebuilt
    Instructions(InstructionsArgs),
    /// The load tools themselves: `tools list`, `tools compare`
    Tools(ToolsArgs),
    /// Each server's RSS at start and with N idle keep-alive connections open
    Idle(IdleArgs),
    /// Every experiment (E1–E7), instructions per request, the load tools compared and idle
    /// memory, measured in one sitting on every server that runs here; then docs/results
    /// written afresh, its page and the README's headline table
    Publish(PublishArgs),
}

/// `bench publish`.
#[derive(Args, Debug)]
pub struct PublishArgs {
    /// Every step short (`bench run --quick`'s lengths, one tool round, a few instructions
    /// cases): the same publish in minutes, for tests and trials
    #[arg(long)]
    pub quick: bool,
    /// Carry on with an interrupted publish (Ctrl-C, an error) from its first part not done
    #[arg(long)]
    pub resume: bool,
    /// Print what it would run (each part's servers, steps, time and the command that runs
    /// it alone) and stop
    #[arg(long)]
    pub dry_run: bool,
    /// Only these servers (comma-separated; default: every one that can run here); an
    /// experiment none of them runs is skipped
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub servers: Vec<String>,
    /// The folder the results are published to (its earlier results files are replaced)
    #[arg(long, value_name = "DIR", default_value = "docs/results")]
    pub results_dir: PathBuf,
    /// The README whose headline table is rewritten at the end
    #[arg(long, value_name = "README.md", default_value = "README.md")]
    pub readme: Option<PathBuf>,
    /// Leave every README alone
    #[arg(long, conflicts_with = "readme")]
    pub no_readme: bool,
    /// Measure a step again, up to N times, when other work on the machine disturbed it
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Measure even on a busy machine (every disturbed step is still marked); without it a
    /// busy machine is refused before each experiment
    #[arg(long)]
    pub allow_busy: bool,
    /// Use the binaries (servers and loadgen) in DIR as they are instead of building
    /// target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// `bench idle`.
#[derive(Args, Debug)]
pub struct IdleArgs {
    /// The servers (servers.toml names); default: every one that can run here
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Idle connections to hold open, each after one answered `GET /hello`
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub connections: usize,
    /// Where to write the results JSON (idle-TIMESTAMP.json) and its markdown report
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_dir: PathBuf,
    /// Use the Rust binaries in DIR as they are instead of building target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// `bench instructions`.
#[derive(Args, Debug)]
pub struct InstructionsArgs {
    /// Comma-separated servers (default: every one callgrind can measure that runs here)
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub servers: Vec<String>,
    /// Comma-separated request targets (default: /, /api/hello, /my/ip, the query echo,
    /// /api/private)
    #[arg(long, value_name = "T,…", value_delimiter = ',')]
    pub targets: Vec<String>,
    /// Comma-separated modes: keep-alive, pipelined-16, http1.0-new-connection (default: all)
    #[arg(long, value_name = "M,…", value_delimiter = ',')]
    pub modes: Vec<String>,
    /// Requests of the small run
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    pub small: u64,
    /// Requests of the large run
    #[arg(long, value_name = "N", default_value_t = 12_000)]
    pub large: u64,
    /// Concurrent connections
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub connections: usize,
    /// Where to write the results JSON and its markdown report
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_dir: PathBuf,
    /// Measure only the baseline's case and fail if it is above the baseline's limit
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub check: Option<PathBuf>,
    /// Measure server-prebuilt on `GET /` keep-alive and write the baseline file
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Use the binaries (servers and loadgen) in DIR as they are instead of building
    /// target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Measure a step again, up to N times, when other work on the machine disturbed it
    /// (a step that never ran clean is recorded marked)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Measure even when the machine is busy before the first step (every disturbed step is
    /// still marked); without it such a run is refused
    #[arg(long)]
    pub allow_busy: bool,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// Where the servers come from, for every command that reads the manifest.
#[derive(Args, Debug, Clone, Default)]
pub struct ManifestArgs {
    /// Also read the server entries of FILE (your own servers, written as in servers.toml;
    /// docs/add-a-server.md), beside those of servers.toml
    #[arg(long, value_name = "FILE")]
    pub servers_file: Option<PathBuf>,
}

/// `bench list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Look for the Rust binaries in DIR instead of target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// `bench verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The servers (servers.toml names); default: every one that can run here
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Comma-separated servers, as `bench run` takes them (added to any NAME given)
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub servers: Vec<String>,
    /// Print each exception's reason (and the checks not run for an endpoint a server does
    /// not serve) under its server's line
    #[arg(long, short)]
    pub verbose: bool,
    /// Use the Rust binaries in DIR as they are instead of building target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// `bench run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The experiment: e1, e2, e3, e4, e5, e6 or e7
    #[arg(value_name = "EXPERIMENT", required_unless_present = "list")]
    pub experiment: Option<String>,
    /// List the experiments and exit
    #[arg(long)]
    pub list: bool,
    /// Comma-separated servers (default: every one that can run here and lists the experiment)
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub servers: Vec<String>,
    /// The load tool: builtin, wrk, ab, oha, k6 or autocannon
    #[arg(long, value_name = "TOOL", default_value = "builtin")]
    pub tool: String,
    /// Only these steps (by id: c100, async, …; every endpoint's step of that id)
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub steps: Vec<String>,
    /// Only these endpoints (their paths as the experiment lists them: /hello, …)
    #[arg(long, value_name = "PATH,…", value_delimiter = ',')]
    pub endpoints: Vec<String>,
    /// E7's ladder of offered rates instead of its own, requests/s, lowest first (default
    /// 1000,5000,10000,20000,40000,80000,120000,160000; with --quick 1000,10000,40000,120000)
    #[arg(long, value_name = "R,…", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub rates: Vec<u64>,
    /// E7: climb the ladder only, without the search that follows it between each server's
    /// last rate held and its first not held (to within 5 %, each rate its own 3 rounds)
    #[arg(long)]
    pub no_search: bool,
    /// Rounds: each measures every server once per step, the servers of each step in a
    /// fresh random order, each on a fresh server process; every figure is the median over
    /// the rounds, with its 95 % interval (default: the article's repeats, 3 for E1 and E2,
    /// else 1)
    #[arg(long, visible_alias = "repeat", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: Option<u32>,
    /// After the rounds, more rounds of only the cells whose ratio has a 95 % interval wider
    /// than ±PCT % (--until-of), each with its partner, until each is within it, --max-rounds
    /// is reached or --until-minutes are spent (rounds by the width needed:
    /// docs/reading-results.md)
    #[arg(long, value_name = "PCT", value_parser = width)]
    pub until_width: Option<f64>,
    /// The width --until-width asks of the A/A pairs (--aa), ±PCT % (default: --until-width's):
    /// the pair shows the run's precision, so it may be asked for a narrower one than a finding
    #[arg(long, value_name = "PCT", value_parser = width, requires = "until_width")]
    pub aa_width: Option<f64>,
    /// Which ratios --until-width narrows: `findings` (the experiment's findings and the A/A
    /// pairs) or `cells` (also every server's step over the ceiling of the same round)
    #[arg(long, value_name = "WHAT", default_value = "findings", requires = "until_width", value_parser = ["findings", "cells"])]
    pub until_of: String,
    /// The most rounds --until-width may reach, the planned ones included
    #[arg(long, value_name = "N", default_value_t = 40, requires = "until_width", value_parser = clap::value_parser!(u32).range(6..=200))]
    pub max_rounds: u32,
    /// The most minutes --until-width's rounds may take (a round started is finished)
    #[arg(long, value_name = "M", requires = "until_width", value_parser = clap::value_parser!(u32).range(1..=600))]
    pub until_minutes: Option<u32>,
    /// Also a second copy of this server, measured as `NAME#2` in every round beside the
    /// first (an A/A pair: the run's precision; the two alternate in going first); the same
    /// as naming it twice in --servers. `NAME@ENDPOINT`: the copy on that endpoint's steps
    /// only. Repeat it for more pairs
    #[arg(long, value_name = "NAME[@ENDPOINT]")]
    pub aa: Vec<String>,
    /// The seed of the rounds' random order (default: a fresh one; the results record it, so
    /// that a run's order can be replayed)
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Shorten every step (2 s, request counts / 10) for tests and smoke runs
    #[arg(long)]
    pub quick: bool,
    /// Measure every timed step (a ladder's rung) for this long instead of the experiment's
    /// own length (count-bounded steps keep their count); `bench publish` uses it
    #[arg(long, value_name = "DURATION", conflicts_with = "quick", value_parser = positive_duration)]
    pub length: Option<Duration>,
    /// Where to write the results JSON
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_dir: PathBuf,
    /// Drive an already running server at http://HOST:PORT (no build, no pinning, no /proc
    /// sampling); --servers may name the one entry it is
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// How the servers are started.
    #[command(flatten)]
    pub start: StartArgs,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// How `run` and `tools compare` start servers and pin them.
#[derive(Args, Debug)]
pub struct StartArgs {
    /// Start servers on this port instead of a free one (0)
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Do not pin the server and the load tool to different CPUs
    #[arg(long)]
    pub no_pin: bool,
    /// Start every server with N workers (a Rust variant's `--workers N`, a peer's `{cpus}`)
    /// instead of its default
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub workers: Option<u64>,
    /// Use the binaries (servers and loadgen) in DIR as they are instead of building
    /// target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Measure a step again, up to N times, when other work on the machine disturbed it
    /// (a step that never ran clean is recorded marked)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Measure even when the machine is busy before the first step (every disturbed step is
    /// still marked); without it such a run is refused
    #[arg(long)]
    pub allow_busy: bool,
}

/// `bench report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results files (results/EXPERIMENT-TIMESTAMP.json); each gets a .md and an .svg beside it
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Write one self-contained HTML page of every FILE here instead (grouped by experiment,
    /// newest first; nothing is written beside the files)
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Rewrite the headline table of this README (between `<!-- bench:headline -->` and
    /// `<!-- /bench:headline -->`) from the newest results file of each experiment among FILE
    /// (a directory stands for its results files); nothing else is written
    #[arg(long, value_name = "README.md", conflicts_with = "html")]
    pub readme: Option<PathBuf>,
}

/// `bench compare`.
#[derive(Args, Debug)]
pub struct CompareRunsArgs {
    /// The older results: a `bench run` results file, or a folder (the newest file of each
    /// experiment in it: a published docs/results)
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The newer results, as OLD
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Print every figure compared, not only those that moved
    #[arg(long)]
    pub all: bool,
    /// Also write the whole comparison as markdown to this file
    #[arg(long, value_name = "FILE.md")]
    pub markdown: Option<PathBuf>,
    /// The margin of "the same within ±M %" and of the gate's "moved beyond ±M %", in percent
    #[arg(long, value_name = "M", default_value_t = 10.0, value_parser = margin)]
    pub margin: f64,
    /// Exit with status 1 when a figure of the gate's family (--figures) moved beyond the
    /// margin, with Holm's family-wise 5 % (a regression gate; a clean rerun passes it at
    /// least 95 % of the time)
    #[arg(long)]
    pub fail_on_change: bool,
    /// The gate's family: findings, ceiling (the ratios to the ceiling), cells (figures as
    /// measured), capacities (E7), or all
    #[arg(long, value_name = "A,B,…", value_delimiter = ',', default_values_t = ["findings".to_string(), "ceiling".to_string()])]
    pub figures: Vec<String>,
}

/// A half-width in percent: above 0 and below 100.
fn width(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').trim().parse::<f64>() {
        Ok(m) if m > 0.0 && m < 100.0 => Ok(m),
        _ => Err(format!(
            "{s:?} is not a half-width in percent between 0 and 100 (e.g. 5)"
        )),
    }
}

/// A margin in percent: above 0 and below 100.
fn margin(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').trim().parse::<f64>() {
        Ok(m) if m > 0.0 && m < 100.0 => Ok(m),
        _ => Err(format!(
            "{s:?} is not a margin in percent between 0 and 100 (e.g. 10)"
        )),
    }
}

/// `bench noise`.
#[derive(Args, Debug)]
pub struct NoiseArgs {
    /// Results files of `bench run` (a folder: the newest file of each experiment in it)
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Another sitting of the same experiments: each step's median moved between the two,
    /// beside what their rounds alone would move it
    #[arg(long, value_name = "FILE")]
    pub against: Vec<PathBuf>,
    /// Also write the tables as markdown to this file
    #[arg(long, value_name = "FILE.md")]
    pub markdown: Option<PathBuf>,
}

/// `bench calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Simulated comparisons per figure of each table (more: steadier rates, slower)
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
    pub trials: u64,
    /// The simulations' seed (the same seed, the same tables)
    #[arg(long, value_name = "SEED", default_value_t = 20261204)]
    pub seed: u64,
}

/// `bench tools`.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// What to do with the tools.
    #[command(subcommand)]
    pub command: ToolsCmd,
}

/// The `bench tools` subcommands.
#[derive(Subcommand, Debug)]
pub enum ToolsCmd {
    /// Every load tool: installed or not, where, its version, how to install it
    List,
    /// Drive one server with several load tools at the same load, alternating them round by
    /// round, and print each tool's requests/s and p50 with its ratio to the first tool's
    Compare(Box<CompareArgs>),
}

/// `bench tools compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The server (a servers.toml name)
    #[arg(long, value_name = "NAME")]
    pub server: String,
    /// Comma-separated load tools (builtin, wrk, ab, oha, k6, autocannon); the first is the
    /// reference
    #[arg(long, value_name = "A,B,…", value_delimiter = ',', required = true)]
    pub tools: Vec<String>,
    /// Rounds; each runs every tool once, in the order given
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Each measured run's length
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = loadgen::config::parse_duration)]
    pub duration: Duration,
    /// The discarded warm-up of the same load before each measured run
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = loadgen::config::parse_duration)]
    pub warmup: Duration,
    /// Keep-alive connections
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub connections: u64,
    /// The request target
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub endpoint: String,
    /// The connections' mode: keep-alive (HTTP/1.1), close, http1.0 or http1.0-keep-alive
    /// (ab's only modes are the HTTP/1.0 ones)
    #[arg(long, value_name = "MODE", default_value = "keep-alive")]
    pub mode: String,
    /// Where to write the results JSON (tools-TIMESTAMP.json) and its markdown report
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_dir: PathBuf,
    /// How the server is started.
    #[command(flatten)]
    pub start: StartArgs,
    /// Where the servers come from.
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

/// A duration of at least one second (`--length`): a shorter step records no CPU figures.
fn positive_duration(s: &str) -> Result<Duration, String> {
    let d = loadgen::config::parse_duration(s)?;
    if d < Duration::from_secs(1) {
        return Err(format!(
            "{s} is under 1 s: a step that short records no CPU figures"
        ));
    }
    Ok(d)
}
