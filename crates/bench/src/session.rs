//! What every measuring command does the same way around its steps: the command line it
//! records ([`command`]), the machine's preflight before the first step ([`preflight`]), the
//! load tools this machine has ([`tools_table`]), and what an interrupted command's error says
//! of the results it kept ([`Partial`]). The provenance a results file records is
//! [`crate::provenance`]'s.

use std::fmt;
use std::path::PathBuf;

use bench_report::table::Table;
use bench_tools::TOOLS;

use crate::step::machine;
use crate::step::server::Env;

/// How the harness was invoked, as a results file records it: `bench` and its arguments.
pub fn command() -> Vec<String> {
    std::iter::once("bench".to_string())
        .chain(std::env::args().skip(1))
        .collect()
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
