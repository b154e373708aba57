//! Where and from what a run was made: the machine (host, kernel, CPUs, memory) and the
//! workspace's git revision, fields of every results schema. `bench`'s `provenance` module
//! reads them from the machine it runs on.

use serde::{Deserialize, Serialize};

/// The machine a run was made on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Machine {
    /// The host name.
    pub hostname: String,
    /// The kernel: OS type, release and build (`Linux 6.1.0-… #1 SMP …`).
    pub kernel: String,
    /// Logical CPUs online.
    pub cpus: usize,
    /// The first CPU's model name.
    pub cpu_model: String,
    /// Total memory, KiB.
    pub mem_total_kb: u64,
}

/// The workspace's revision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Git {
    /// `git rev-parse HEAD`; `None` outside a repository or without git.
    pub revision: Option<String>,
    /// Whether tracked files differ from `revision`; `None` when unknown.
    pub dirty: Option<bool>,
    /// When `revision` was committed (UTC, `2026-12-02T01:00:00Z`); `None` when unknown or in
    /// files from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed_utc: Option<String>,
}
