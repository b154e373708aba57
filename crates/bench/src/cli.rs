//! The command line (clap): `list`, `verify`, `run` and `report`, and their options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// The harness that reproduces the five experiments side by side: it lists and verifies the
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
    /// Run an experiment (e1…e5) against its servers and write results/EXPERIMENT-TIMESTAMP.json
    Run(RunArgs),
    /// Markdown tables and an SVG chart from results files
    Report(ReportArgs),
}

/// `bench list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Look for the Rust binaries in DIR instead of target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// `bench verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The servers (servers.toml names); default: every one that can run here
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Use the Rust binaries in DIR as they are instead of building target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// `bench run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The experiment: e1, e2, e3, e4 or e5
    #[arg(value_name = "EXPERIMENT", required_unless_present = "list")]
    pub experiment: Option<String>,
    /// List the experiments and exit
    #[arg(long)]
    pub list: bool,
    /// Comma-separated servers (default: every one that can run here and lists the experiment)
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub servers: Vec<String>,
    /// The load tool: builtin, wrk, ab, oha or k6
    #[arg(long, value_name = "TOOL", default_value = "builtin")]
    pub tool: String,
    /// Repeats per step (default: the article's, 3 for E1 and E2, else 1)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: Option<u32>,
    /// Shorten every step (2 s, request counts / 10) for tests and smoke runs
    #[arg(long)]
    pub quick: bool,
    /// Where to write the results JSON
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_dir: PathBuf,
    /// Drive an already running server at http://HOST:PORT (no build, no pinning, no /proc
    /// sampling); --servers may name the one entry it is
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Start servers on this port instead of a free one (0)
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Do not pin the server and the load tool to different CPUs
    #[arg(long)]
    pub no_pin: bool,
    /// Use the binaries (servers and loadgen) in DIR as they are instead of building
    /// target/release
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// `bench report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results files (results/EXPERIMENT-TIMESTAMP.json); each gets a .md and an .svg beside it
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}
