//! What every measuring command does the same way around its steps: the command line it
//! records ([`command`]), the servers of `manifest` it measures and can run here and their
//! build ([`choose`], [`runnable`], [`build`]), the machine's preflight before the first step and the CPU split
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

/// The servers a command measures, and those it left out.
#[derive(Debug)]
pub struct Chosen<'m> {
    /// The servers to measure, in the order asked (a name given twice comes twice: an A/A
    /// copy), or servers.toml's.
    pub servers: Vec<&'m Server>,
    /// Each server left out that was not named, and why (`cannot run here: …`, or what the
    /// command's own test of it said, such as `does not serve /api/async, which e4 requests`).
    pub left_out: Vec<(String, String)>,
}

impl<'m> Chosen<'m> {
    /// The servers to measure, after saying each left out on a line of its own (`skip NAME:
    /// WHY`); the error `none` when none is left.
    pub fn or_none(self, none: impl FnOnce() -> String) -> anyhow::Result<Vec<&'m Server>> {
        for (name, why) in &self.left_out {
            crate::say!("skip {name}: {why}");
        }
        if self.servers.is_empty() {
            bail!("{}", none());
        }
        Ok(self.servers)
    }
}

/// The servers of `manifest` that `names` asks for, or, when it is empty, every one that
/// `listed` keeps; each must `fit` the command (`Err` says why not) and be able to run here.
/// One that does not is an error when it was named (`NAME: WHY`), and is left out with its
/// reason when it was not. Every measuring command chooses its servers here.
pub fn choose<'m>(
    env: &Env,
    manifest: &'m Manifest,
    names: &[String],
    listed: impl Fn(&Server) -> bool,
    fits: impl Fn(&Server) -> Result<(), String>,
) -> anyhow::Result<Chosen<'m>> {
    let mut chosen = Chosen {
        servers: Vec::new(),
        left_out: Vec::new(),
    };
    for s in server::select(manifest, names, listed)? {
        let why = fits(s)
            .err()
            .or_else(|| match server::availability(s, env) {
                Availability::Missing(why) => Some(format!("cannot run here: {why}")),
                _ => None,
            });
        match why {
            None => chosen.servers.push(s),
            Some(why) if names.is_empty() => chosen.left_out.push((s.name.clone(), why)),
            Some(why) => bail!("{}: {why}", s.name),
        }
    }
    Ok(chosen)
}

/// The servers of `manifest` that `names` asks for (every one `wanted` keeps when empty) and
/// that can run here ([`choose`]), each left out said on a line; `what` names them in the
/// error when none is left (`server that serves /hello`).
pub fn runnable<'m>(
    env: &Env,
    manifest: &'m Manifest,
    names: &[String],
    wanted: impl Fn(&Server) -> bool,
    what: &str,
) -> anyhow::Result<Vec<&'m Server>> {
    choose(env, manifest, names, wanted, |_| Ok(()))?
        .or_none(|| format!("no {what} can run here (see `bench list`)"))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two Rust entries, `a` built (its binary in the `--bin-dir`) and `b` not, and the
    /// environment that has them so.
    fn two() -> (Manifest, Env, PathBuf) {
        let m = Manifest::parse(
            r#"
[[server]]
name = "a"
package = "server-a"
style = "test"
analogue = ["y"]
experiments = ["E3"]
groups = ["core"]

[[server]]
name = "b"
package = "server-b"
style = "test"
analogue = ["y"]
experiments = ["E3", "E6"]
groups = ["core"]
"#,
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("bench-choose-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("server-a"), "").unwrap();
        let env = Env::new(Some(dir.clone()));
        (m, env, dir)
    }

    fn names(c: &Chosen<'_>) -> Vec<String> {
        c.servers.iter().map(|s| s.name.clone()).collect()
    }

    #[test]
    fn servers_not_named_are_left_out_with_their_reason_and_named_ones_are_refused() {
        let (m, env, dir) = two();
        let all = |_: &Server| true;
        let fit = |_: &Server| Ok(());

        // By default: every listed server that fits and can run here; the rest left out, why.
        let c = choose(&env, &m, &[], all, fit).unwrap();
        assert_eq!(names(&c), ["a"]);
        let [(b, why)] = c.left_out.as_slice() else {
            panic!("{c:?}")
        };
        assert_eq!(b, "b");
        assert!(why.starts_with("cannot run here: no binary "), "{why}");
        assert!(why.ends_with("server-b"), "{why}");
        // Only those `listed` keeps; the command's own test comes before the machine's.
        let e6 = |s: &Server| s.experiments.iter().any(|e| e == "E6");
        let c = choose(&env, &m, &[], e6, fit).unwrap();
        assert_eq!((names(&c).len(), c.left_out.len()), (0, 1), "{c:?}");
        let c = choose(&env, &m, &[], all, |s| Err(format!("not {}", s.name))).unwrap();
        assert!(c.servers.is_empty());
        assert_eq!(
            c.left_out,
            [
                ("a".to_string(), "not a".to_string()),
                ("b".to_string(), "not b".to_string())
            ]
        );

        // Named: in the order given, a name twice twice (an A/A copy), `listed` not asked.
        let named = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let none = |_: &Server| false;
        let c = choose(&env, &m, &named(&["a", "a"]), none, fit).unwrap();
        assert_eq!(
            (names(&c), c.left_out.len()),
            (vec!["a".into(), "a".into()], 0)
        );
        // A named server that cannot run, or does not fit, or is unknown: an error naming it.
        let e = choose(&env, &m, &named(&["a", "b"]), all, fit).unwrap_err();
        assert!(
            e.to_string().starts_with("b: cannot run here: no binary "),
            "{e}"
        );
        let e = choose(&env, &m, &named(&["a"]), all, |_| {
            Err("does not serve /x".into())
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "a: does not serve /x");
        let e = choose(&env, &m, &named(&["c"]), all, fit).unwrap_err();
        assert!(e.to_string().starts_with("unknown server \"c\""), "{e}");

        // `runnable`: the same choice, and none left is an error naming what was wanted.
        let got = runnable(&env, &m, &[], all, "server").unwrap();
        assert_eq!(got.len(), 1);
        let e = runnable(&env, &m, &[], e6, "server of E6").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no server of E6 can run here (see `bench list`)"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
