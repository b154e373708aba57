//! The results file of `bench idle` (`schema: "bench.idle/1"`): each server's RSS once ready
//! and with N idle keep-alive connections ([`IdleServer`]), with the provenance of
//! [`super::Results`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Git, Machine};

/// The schema tag of [`IdleResults`].
pub const SCHEMA: &str = "bench.idle/1";

/// A `bench idle` results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct IdleResults {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// When the measurement started, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started_utc: String,
    /// When it finished, `YYYY-MM-DDTHH:MM:SSZ`.
    pub finished_utc: String,
    /// How the harness was invoked (argv).
    pub command: Vec<String>,
    /// The machine it ran on.
    pub machine: Machine,
    /// The workspace's revision.
    pub git: Git,
    /// `bench` and `rustc` versions.
    pub versions: BTreeMap<String, String>,
    /// Idle connections held open per server, each after one answered `GET /hello`.
    pub connections: usize,
    /// One entry per server, in the order measured.
    pub servers: Vec<IdleServer>,
}

/// One server's memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct IdleServer {
    /// Its servers.toml name.
    pub name: String,
    /// RSS of its process tree once ready, KiB.
    pub before_kb: u64,
    /// RSS with the connections open and idle, KiB.
    pub with_kb: u64,
    /// The memory each idle connection added, bytes (0 when the RSS did not grow).
    pub bytes_per_connection: u64,
}

impl IdleResults {
    /// Writes every path under `root` in the command relative to it.
    pub fn relative_to(&mut self, root: &Path) {
        if let Some(fix) = super::relative_fix(root) {
            self.command.iter_mut().for_each(fix);
        }
    }

    /// Writes it as `idle-<YYYYMMDDTHHMMSSZ>.json` in `dir` (`-2`, … when taken).
    pub fn write(&self, dir: &Path) -> Result<PathBuf, super::ResultsError> {
        super::write_new(dir, "idle", &self.started_utc, self)
    }

    /// Reads a `bench idle` results file.
    pub fn load(path: &Path) -> Result<IdleResults, super::ResultsError> {
        super::load_tagged(path, SCHEMA)
    }
}
