//! The results file of `bench tools compare` (`schema: "bench.tools/1"`): one server driven by
//! several load tools at the same load ([`CompareLoad`]), round by round: each round's run
//! per tool ([`Round`], the [`Run`] of `bench run`'s schema with its ratios to the reference
//! tool) and the medians over the rounds ([`ToolMedian`]), with the provenance of
//! [`super::Results`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Header, Pinning, Run};

/// The schema tag of [`ToolResults`].
pub const SCHEMA: &str = "bench.tools/1";

/// A `bench tools compare` results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ToolResults {
    /// Schema, when, command, machine, git and versions, as every kind records them.
    #[serde(flatten)]
    pub header: Header,
    /// Whether every round ran (`false` after an interrupted comparison).
    pub complete: bool,
    /// Why not (`interrupted by SIGINT after 3 of 6 runs`); `None` when complete.
    pub incomplete_reason: Option<String>,
    /// The tools in the order given (each round runs them in this order); the first is the
    /// reference of the ratios.
    pub tools: Vec<ToolVersion>,
    /// The server.
    pub server: CompareServer,
    /// The load every tool applied.
    pub load: CompareLoad,
    /// The CPUs the server and the tools were pinned to; `None` when not pinned.
    pub pinning: Option<Pinning>,
    /// The CPUs a tool could keep busy (those it was given).
    pub tool_cpus_given: usize,
    /// One entry per round and tool, in the order run.
    pub rounds: Vec<Round>,
    /// One entry per tool, in the order given: the medians over its rounds.
    pub medians: Vec<ToolMedian>,
    /// Runs that could not be measured, one line each (empty: none).
    pub problems: Vec<String>,
}

/// A tool and its version line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ToolVersion {
    /// Its name (`builtin`, `wrk`, `ab`, `oha`, `k6`, `autocannon`).
    pub name: String,
    /// Its version line; `None` when it could not be read.
    pub version: Option<String>,
}

/// The server driven.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CompareServer {
    /// Its servers.toml name.
    pub name: String,
    /// The command that started it.
    pub command: Vec<String>,
}

/// The load every tool applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CompareLoad {
    /// Concurrent connections.
    pub connections: u64,
    /// The connections' mode (`keep-alive`, `close`, `http1.0`, `http1.0-keep-alive`).
    pub mode: String,
    /// The request target.
    pub endpoint: String,
    /// Each measured run's length, seconds.
    pub duration_s: f64,
    /// The discarded warm-up before each measured run, seconds.
    pub warmup_s: f64,
    /// Rounds asked for.
    pub rounds: u32,
}

/// One tool's run in one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Round {
    /// The round, from 1.
    pub round: u32,
    /// The tool's name.
    pub tool: String,
    /// What it measured, with its CPU and tool-bound verdict (`None` when the run was
    /// invalid).
    pub run: Option<Run>,
    /// Why the run is invalid, if it is.
    pub invalid_reason: Option<String>,
    /// The 1-minute load average after the run.
    pub load1: Option<f64>,
    /// Its requests/s over the reference tool's in the same round.
    pub requests_per_s_ratio: Option<f64>,
    /// Its p50 over the reference tool's in the same round.
    pub p50_ratio: Option<f64>,
    /// The tool's exact argv.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_command: Vec<String>,
}

/// One tool's medians over the rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ToolMedian {
    /// The tool's name.
    pub tool: String,
    /// Rounds it ran.
    pub rounds: usize,
    /// Rounds it measured (valid runs).
    pub rounds_valid: usize,
    /// The median of its requests/s.
    pub requests_per_s: Option<f64>,
    /// The median of its p50, µs.
    pub p50_us: Option<f64>,
    /// The median of its own CPU use, percent of one CPU.
    pub tool_cpu_percent: Option<f64>,
    /// Valid rounds in which it was tool-bound.
    pub tool_bound_rounds: usize,
    /// The median of its per-round requests/s ratios to the reference tool.
    pub requests_per_s_ratio: Option<f64>,
    /// The median of its per-round p50 ratios.
    pub p50_ratio: Option<f64>,
}

impl ToolResults {
    /// Writes every path under `root` in the commands and problems relative to it.
    pub fn relative_to(&mut self, root: &Path) {
        let Some(fix) = super::relative_fix(root) else {
            return;
        };
        self.header.command.iter_mut().for_each(&fix);
        self.server.command.iter_mut().for_each(&fix);
        self.problems.iter_mut().for_each(&fix);
        for r in &mut self.rounds {
            r.tool_command.iter_mut().for_each(&fix);
            if let Some(why) = r.invalid_reason.as_mut() {
                fix(why);
            }
        }
    }

    /// Writes it as `tools-<YYYYMMDDTHHMMSSZ>.json` in `dir` (`-2`, … when taken).
    pub fn write(&self, dir: &Path) -> Result<PathBuf, super::ResultsError> {
        super::write_new(dir, "tools", &self.header.started_utc, self)
    }

    /// Reads a `bench tools compare` results file.
    pub fn load(path: &Path) -> Result<ToolResults, super::ResultsError> {
        super::load_tagged(path, SCHEMA)
    }
}
