//! The results file of `bench instructions` (`schema: "bench.instructions/1"`): what was
//! measured under callgrind ([`Mode`], [`Counts`]), each server's two runs ([`Count`]) and
//! their difference per request ([`Measurement`]), with the provenance of [`super::Results`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Header;

/// The schema tag of [`InstructionResults`].
pub const SCHEMA: &str = "bench.instructions/1";

/// How the load generator sends its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// HTTP/1.1 keep-alive, one request at a time per connection.
    KeepAlive,
    /// HTTP/1.1 keep-alive with 16 requests in flight per connection.
    Pipelined,
    /// HTTP/1.0 without keep-alive: a new connection for every request (ab's default).
    NewConnection,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 3] = [Mode::KeepAlive, Mode::Pipelined, Mode::NewConnection];

    /// Its name on the command line and in the results.
    pub fn name(self) -> &'static str {
        match self {
            Mode::KeepAlive => "keep-alive",
            Mode::Pipelined => "pipelined-16",
            Mode::NewConnection => "http1.0-new-connection",
        }
    }

    /// The mode named `name` (also accepted: `pipelined`, `new-connection`, `http1.0`).
    pub fn parse(name: &str) -> Option<Mode> {
        Some(match name {
            "keep-alive" => Mode::KeepAlive,
            "pipelined-16" | "pipelined" => Mode::Pipelined,
            "http1.0-new-connection" | "new-connection" | "http1.0" => Mode::NewConnection,
            _ => return None,
        })
    }

    /// The load generator's flags for this mode.
    pub fn loadgen_args(self) -> &'static [&'static str] {
        match self {
            Mode::KeepAlive => &[],
            Mode::Pipelined => &["-p", "16"],
            Mode::NewConnection => &["--mode", "http1.0"],
        }
    }
}

/// The request counts of the two runs and the connections they use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Counts {
    /// Requests of the first (small) run.
    pub small: u64,
    /// Requests of the second (large) run.
    pub large: u64,
    /// Concurrent connections of the load generator.
    pub connections: usize,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            small: 2_000,
            large: 12_000,
            connections: 10,
        }
    }
}

/// One run under callgrind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Count {
    /// Requests the load generator was asked for.
    pub requests: u64,
    /// Answers it received (2xx–4xx, framed).
    pub answered: u64,
    /// Instructions the server executed, every thread and process summed.
    pub instructions: u64,
}

/// A server's cost for one endpoint and mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Measurement {
    /// The server's name.
    pub server: String,
    /// The request target.
    pub target: String,
    /// How requests were sent.
    pub mode: Mode,
    /// The small run.
    pub small: Count,
    /// The large run.
    pub large: Count,
    /// Instructions per request: the difference of the two runs over the difference of answers.
    pub per_request: f64,
}

/// A `bench instructions` results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct InstructionResults {
    /// Schema, when, command, machine, git and versions, as every kind records them.
    #[serde(flatten)]
    pub header: Header,
    /// `valgrind --version`.
    pub valgrind: String,
    /// The request counts of the two runs.
    pub counts: Counts,
    /// Every measurement, in the order made.
    pub measurements: Vec<Measurement>,
    /// Servers that were not measured, with the reason.
    pub not_measured: Vec<(String, String)>,
    /// How to read the figures.
    pub notes: Vec<String>,
}

impl InstructionResults {
    /// Writes it as `instructions-<UTC timestamp>.json` in `dir`.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, super::ResultsError> {
        std::fs::create_dir_all(dir).map_err(super::file("creating", dir))?;
        let stamp: String = self
            .header
            .started_utc
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        let path = dir.join(format!("instructions-{stamp}.json"));
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self)? + "\n")
            .map_err(super::file("writing", &tmp))?;
        std::fs::rename(&tmp, &path).map_err(super::file("writing", &path))?;
        Ok(path)
    }

    /// Reads a `bench instructions` results file.
    pub fn load(path: &Path) -> Result<InstructionResults, super::ResultsError> {
        super::load_tagged(path, SCHEMA)
    }
}
