//! The results file of `bench idle` (`schema: "bench.idle/1"`): each server's RSS once ready
//! and with N idle keep-alive connections ([`IdleServer`]), with the provenance of
//! [`super::Results`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Header;

/// The schema tag of [`IdleResults`].
pub const SCHEMA: &str = "bench.idle/1";

/// A `bench idle` results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct IdleResults {
    /// Schema, when, command, machine, git and versions, as every kind records them.
    #[serde(flatten)]
    pub header: Header,
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
            self.header.command.iter_mut().for_each(fix);
        }
    }

    /// Writes it as `idle-<YYYYMMDDTHHMMSSZ>.json` in `dir` (`-2`, … when taken).
    pub fn write(&self, dir: &Path) -> Result<PathBuf, super::ResultsError> {
        super::write_new(dir, "idle", &self.header.started_utc, self)
    }

    /// Reads a `bench idle` results file.
    pub fn load(path: &Path) -> Result<IdleResults, super::ResultsError> {
        super::load_tagged(path, SCHEMA)
    }
}
