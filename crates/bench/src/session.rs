//! What every measuring command does the same way around its steps: the command line it
//! records ([`command`]), the servers of `manifest` it can run here and their build
//! ([`runnable`], [`build`]), the machine's preflight before the first step and the CPU split
//! ([`ready`], [`preflight`]),
//! the load tools this machine has ([`tools_table`]), and what an interrupted command's error
//! says of the results it kept ([`Partial`]). The provenance a results file records is
//! [`crate::provenance`]'s.

use std::fmt;
use std::path::PathBuf;

use bench_report::table::Table;
use bench_tools::TOOLS;

use anyhow::bail;
use manifest::{Manifest, Server};

use crate::step::server::{self, Availability, Env};
use crate::step::{machine, pin};

/// How the harness was invoked, as a results file records it: `bench` and its arguments.
pub fn command() -> Vec<String> {
    std::iter::once("bench".to_string())
        .chain(std::env::args().skip(1))
        .collect()
}

/// The servers of `manifest` that `names` asks for (every one `wanted` keeps when empty) and
/// that can run here: one that cannot is skipped with a line when it was not named, and an
/// error when it was; `what` names them in the error when none is left (`server that serves
/// /hello`).
pub fn runnable<'m>(
    env: &Env,
    manifest: &'m Manifest,
    names: &[String],
    wanted: impl Fn(&Server) -> bool,
    what: &str,
) -> anyhow::Result<Vec<&'m Server>> {
    let mut runnable = Vec::new();
    for s in server::select(manifest, names, wanted)? {
        match server::availability(s, env) {
            Availability::Missing(why) if names.is_empty() => {
                crate::say!("skip {}: cannot run here: {why}", s.name);
            }
            Availability::Missing(why) => bail!("{} cannot run here: {why}", s.name),
            _ => runnable.push(s),
        }
    }
    if runnable.is_empty() {
        bail!("no {what} can run here (see `bench list`)");
    }
    Ok(runnable)
}

/// Builds the Rust packages of `servers` and `extra` (`cargo build --release`), saying so
/// when `announce` and there is anything to build.
pub fn build(env: &Env, servers: &[&Server], extra: &[&str], announce: bool) -> anyhow::Result<()> {
    build_ticking(env, servers, extra, announce, &mut || {})
}

/// [`build`], calling `tick` about every 100 ms while cargo runs (a progress line).
pub fn build_ticking(
    env: &Env,
    servers: &[&Server],
    extra: &[&str],
    announce: bool,
    tick: &mut dyn FnMut(),
) -> anyhow::Result<()> {
    let packages: Vec<String> = servers
        .iter()
        .filter_map(|s| s.package.clone())
        .chain(extra.iter().map(|p| p.to_string()))
        .collect();
    if announce && env.builds() && !packages.is_empty() {
        crate::say!("building {} (release)", packages.join(", "));
    }
    server::build(env, &packages, tick)
}

/// The machine made ready to measure on: checked quiet ([`preflight`]), its CPUs split
/// between the server and the load ([`pin::split`]), the harness's own thread pinned to the
/// load's.
#[derive(Debug)]
pub struct Ready {
    /// The preflight's note for the results.
    pub preflight: String,
    /// The split; `None` when not pinned.
    pub cpus: Option<pin::Plan>,
    /// Why not pinned, when not.
    pub unpinned: Option<String>,
    /// Whether the harness's thread now runs on the load's CPUs.
    pub harness_pinned: bool,
}

/// The preflight (refusing a busy machine unless `allow_busy`), then the CPU split (none with
/// `no_pin`), then the harness's own thread on the load's CPUs.
pub fn ready(allow_busy: bool, no_pin: bool) -> anyhow::Result<Ready> {
    let preflight = preflight(allow_busy)?;
    let (cpus, unpinned) = match pin::split(no_pin) {
        Ok(c) => (Some(c), None),
        Err(why) => (None, Some(why.to_string())),
    };
    let harness_pinned = cpus
        .as_ref()
        .is_some_and(|c| pin::pin_current_thread(&c.load).is_ok());
    Ok(Ready {
        preflight,
        cpus,
        unpinned,
        harness_pinned,
    })
}

/// Samples the machine for [`machine::PREFLIGHT`] before the first step: refuses (exit
/// status 2, naming the busiest processes) when other work takes more than
/// [`OTHER_CPU_LIMIT`](bench_model::rules::OTHER_CPU_LIMIT) % of a CPU, unless `allow_busy`. Returns the note for the
/// results.
pub fn preflight(allow_busy: bool) -> anyhow::Result<String> {
    let Some(q) = machine::preflight(machine::PREFLIGHT) else {
        return Ok(
            "preflight: /proc/stat could not be read, so the machine was not checked".into(),
        );
    };
    let seen = format!(
        "preflight: other work took {:.0} % of a CPU over {} s before the first step (steal {:.0} %)",
        q.other_cpu_percent,
        machine::PREFLIGHT.as_secs(),
        q.steal_percent
    );
    match q.refusal() {
        None => Ok(seen),
        Some(why) if allow_busy => {
            crate::say!("{why} (measuring anyway: --allow-busy)");
            Ok(format!("{seen}; measured anyway (--allow-busy)"))
        }
        Some(why) => Err(crate::error::bad(why)),
    }
}

/// The results of a run that stopped before its end (a signal, an error), as far as they
/// got: the context of that run's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partial {
    /// The results file (`"complete": false`).
    pub path: PathBuf,
    /// Step runs (a step on a server, once) finished and in the file.
    pub done: usize,
    /// Step runs the whole run would have made.
    pub total: usize,
}

impl fmt::Display for Partial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "results so far ({} of {} step runs) written to {}",
            self.done,
            self.total,
            self.path.display()
        )
    }
}

/// The table of `bench tools list` (also the end of `bench list`).
pub fn tools_table(env: &Env) -> Table {
    let loadgen = env.binary("loadgen");
    let mut t = Table::new(&[
        "tool",
        "installed",
        "version",
        "found at / looked in; install",
    ]);
    for tool in TOOLS {
        let at = tool.locate(&loadgen);
        let version = at.as_ref().and_then(|_| tool.version(&loadgen));
        t.row(vec![
            tool.name().to_string(),
            if at.is_some() { "yes" } else { "no" }.to_string(),
            version.unwrap_or_else(|| "-".into()),
            match &at {
                Some(p) => p.display().to_string(),
                None => {
                    let (place, how) = tool.install_hint();
                    format!("{place}; {how}")
                }
            },
        ]);
    }
    t
}
