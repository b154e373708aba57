//! Where and from what a run was made: the [`Header`] every kind of results file opens with
//! (its schema, when, the command, the [`Machine`], the workspace's [`Git`] revision, the
//! versions of what took part). `bench`'s `provenance` module reads them from the machine it
//! runs on.

use std::collections::BTreeMap;

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

/// What every kind of results file records of its making, flattened into its top level: a
/// file of any kind is read through the same fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Header {
    /// The kind and its version (`bench.results/1`, `bench.instructions/1`, `bench.tools/1`,
    /// `bench.idle/1`).
    pub schema: String,
    /// When it started, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started_utc: String,
    /// When it finished (or, while it runs, when the file was last written; or stopped),
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub finished_utc: String,
    /// How the harness was invoked (argv; paths under the workspace written relative to it).
    pub command: Vec<String>,
    /// The machine it ran on (instruction counts do not depend on its speed, but on its CPU's
    /// features).
    pub machine: Machine,
    /// The workspace's revision.
    pub git: Git,
    /// Versions of what took part: `bench`, `rustc`, the tool, peers' runtimes; empty (and
    /// not written) where none are recorded (`bench instructions` records valgrind's apart).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub versions: BTreeMap<String, String>,
}
