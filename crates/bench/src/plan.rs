//! What a `bench run` will do, decided before anything starts: the experiment, its steps at
//! the asked length, the tool, the repeats, and the servers (each with the steps it serves),
//! or the already running target. Everything that can be refused is refused here: an
//! unknown experiment, server or tool, a tool that is not installed or cannot apply a step
//! exactly, a server that cannot run here or serves none of the steps, a target that does
//! not answer.
//!
//! [`Plan::new`] reads the command line and servers.toml into a [`Plan`]; the `run` command
//! (`cmd::run`) carries it out. A refusal of what the command line asked for (an unknown
//! experiment, tool or server; a tool that is not installed or cannot apply a step) is a
//! [`Error::BadInput`](crate::error::Error::BadInput), which the binary turns into exit status 2.

use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail};
use manifest::{Manifest, Server};

use crate::cli::RunArgs;
use crate::error::bad;
use crate::session;
use crate::step::server::{self, Env};
use crate::step::{spec, warmup_spec};
use bench_model::experiment::{self, Experiment, Step};
use bench_tools::Tool;

/// A run, as it will be carried out.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The experiment.
    pub exp: &'static Experiment,
    /// Its steps, at the asked length (`--quick` or the default).
    pub steps: Vec<Step>,
    /// The load tool.
    pub tool: Tool,
    /// Repeats per step.
    pub repeat: u32,
    /// Whether the steps are the `--quick` ones.
    pub quick: bool,
    /// The built-in generator's binary (whether or not it is the tool).
    pub loadgen: PathBuf,
    /// What the steps run against.
    pub subjects: Subjects,
    /// `--until-width`: rounds by the width needed after the planned ones.
    pub until: Option<Until>,
}

/// Rounds by the width needed (`--until-width PCT --max-rounds N`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Until {
    /// The half-width asked, percent.
    pub percent: f64,
    /// The half-width asked of the A/A pairs, percent (`--aa-width`; else `percent`).
    pub aa_percent: f64,
    /// The most rounds, the planned ones included.
    pub max_rounds: u32,
    /// Also every cell's ratio to the ceiling, not only the findings and A/A pairs.
    pub cells: bool,
    /// The most time the added rounds may take.
    pub budget: Option<std::time::Duration>,
}

impl Until {
    /// The half-width on logs (`ln(1 + PCT/100)`).
    pub fn half_width(&self) -> f64 {
        (1.0 + self.percent / 100.0).ln()
    }

    /// The widths asked, as the run's lines say them: `±10 %`, or `±10 % (A/A pairs ±3 %)`.
    pub fn asked(&self) -> String {
        if self.aa_percent == self.percent {
            format!("±{} %", self.percent)
        } else {
            format!("±{} % (A/A pairs ±{} %)", self.percent, self.aa_percent)
        }
    }

    /// The A/A pairs' half-width on logs.
    pub fn aa_half_width(&self) -> f64 {
        (1.0 + self.aa_percent / 100.0).ln()
    }
}

/// What a run drives.
#[derive(Clone, Debug)]
pub enum Subjects {
    /// Servers the harness starts, in order, each with the steps it serves.
    Local(Vec<(Server, Vec<Step>)>),
    /// A server that is already running (`--target`).
    Target(Box<Target>),
}

/// A server that is already running.
#[derive(Clone, Debug)]
pub struct Target {
    /// `http://HOST:PORT`, without a trailing `/`.
    pub base: String,
    /// Its address.
    pub addr: SocketAddr,
    /// Its servers.toml entry, when `--servers` named one.
    pub server: Option<Server>,
    /// The steps it serves (all of them when it is not named).
    pub steps: Vec<Step>,
}

impl Plan {
    /// The plan of `bench run` as `args` ask it, or the first reason it cannot run. Skipped
    /// servers (those the default choice leaves out) are printed, one line each.
    pub fn new(env: &Env, args: &RunArgs) -> anyhow::Result<Plan> {
        let id = args.experiment.as_deref().unwrap_or_default();
        let exp = experiment::find(id).ok_or_else(|| {
            bad(format!(
                "unknown experiment {id:?} (use {})",
                experiment::ids()
            ))
        })?;
        let tool: Tool = args.tool.parse().map_err(bad)?;
        let steps = chosen_steps(exp, args)?;
        let repeat = args.rounds.unwrap_or(exp.repeat);
        let loadgen = env.binary("loadgen");
        refuse_unless_applicable(tool, &steps, &loadgen, "; use --tool builtin")?;
        let manifest = env.manifest()?;
        let subjects = match &args.target {
            Some(url) => {
                let server = match args.servers.as_slice() {
                    [] => None,
                    [name] => Some(find_serving(&manifest, name, exp.id, &steps)?.clone()),
                    _ => bail!("--target drives one server: give at most one name in --servers"),
                };
                let (base, addr) = answering(url)?;
                let steps = match &server {
                    Some(s) => served(s, &steps),
                    None => steps.clone(),
                };
                Subjects::Target(Box::new(Target {
                    base,
                    addr,
                    server,
                    steps,
                }))
            }
            None => {
                let by_default = args.servers.is_empty();
                let mut chosen: Vec<(Server, Vec<Step>)> =
                    choose(env, &manifest, args, exp, &steps)?
                        .into_iter()
                        .map(|s| (s.clone(), runs(exp, s, &steps, by_default)))
                        .collect();
                for arg in &args.aa {
                    let (name, endpoint) = experiment::aa_entry(arg);
                    let Some((server, mut steps)) =
                        chosen.iter().find(|(s, _)| s.name == name).cloned()
                    else {
                        // Chosen by default, a server that cannot run here was skipped (and
                        // said so): its pair goes with it.
                        if by_default && manifest.get(name).is_some() {
                            crate::say!("skip --aa {arg}: {name} is not measured in this run");
                            continue;
                        }
                        return Err(bad(format!(
                            "--aa {arg}: {name} is not among the servers of this run"
                        )));
                    };
                    if let Some(endpoint) = endpoint {
                        steps.retain(|st| st.endpoint == endpoint);
                        if steps.is_empty() {
                            return Err(bad(format!(
                                "--aa {arg}: {name} runs no step on {endpoint} in this run"
                            )));
                        }
                    }
                    chosen.push((server, steps));
                }
                label_copies(&mut chosen);
                Subjects::Local(chosen)
            }
        };
        Ok(Plan {
            exp,
            steps,
            tool,
            repeat,
            quick: args.quick,
            loadgen,
            subjects,
            until: args.until_width.map(|percent| Until {
                percent,
                aa_percent: args.aa_width.unwrap_or(percent),
                max_rounds: args.max_rounds.max(repeat),
                cells: args.until_of == "cells",
                budget: args
                    .until_minutes
                    .map(|m| std::time::Duration::from_secs(u64::from(m) * 60)),
            }),
        })
    }
}

/// A server named more than once (an A/A check: `--servers server-hyper,server-hyper`) runs as
/// that many copies, each measured on its own in every round: the second is `NAME#2`, the
/// third `NAME#3`, and so on; the first keeps its name.
pub fn label_copies(chosen: &mut [(Server, Vec<Step>)]) {
    let mut seen: Vec<String> = Vec::new();
    for (s, _) in chosen.iter_mut() {
        let n = seen.iter().filter(|n| **n == s.name).count();
        seen.push(s.name.clone());
        if n > 0 {
            s.name = bench_model::results::copy_name(&s.name, n + 1);
        }
    }
}

/// Puts the copies of each server measured more than once (an A/A pair, [`label_copies`])
/// in a balanced order among themselves in round `round` (1-based), in the places the round's
/// random order gave them: the original first in odd rounds, its copy first in even ones
/// (with more copies, the order turned by one each round), so that over 2k rounds each copy
/// goes first exactly k times and neither gains on average from its place (after a warmer or
/// a cooler machine, say). The other servers keep their random places, and the pair its
/// random places among them. `member` says of an entry of `order` (a server's index, or a
/// search's probe) which pair it belongs to and which copy it is (1 for the original:
/// [`copy_number`](bench_model::results::copy_number) of its name); an entry alone in its
/// pair stays where it is.
pub fn alternate_copies<T: Clone, K: PartialEq>(
    order: &mut [T],
    round: u32,
    member: impl Fn(&T) -> (K, usize),
) {
    let members: Vec<(K, usize)> = order.iter().map(member).collect();
    let mut pairs: Vec<&K> = Vec::new();
    for (pair, _) in &members {
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    for pair in pairs {
        // Where the round's order put the pair's copies, and the copies from the original up,
        // turned by the round.
        let at: Vec<usize> = (0..order.len())
            .filter(|&k| members[k].0 == *pair)
            .collect();
        let mut by_copy = at.clone();
        by_copy.sort_by_key(|&k| members[k].1);
        by_copy.rotate_left((round.saturating_sub(1) as usize) % at.len().max(1));
        let moved: Vec<T> = by_copy.iter().map(|&k| order[k].clone()).collect();
        for (&k, entry) in at.iter().zip(moved) {
            order[k] = entry;
        }
    }
}

/// Refuses a tool that cannot apply every step (and its warm-up) exactly as asked, or that is
/// not installed (the built-in one is built later, so only its steps are checked); `hint`
/// ends the not-installed line.
pub fn refuse_unless_applicable(
    tool: Tool,
    steps: &[Step],
    loadgen: &std::path::Path,
    hint: &str,
) -> anyhow::Result<()> {
    // The probe alone (E4's baseline) is always the built-in generator's.
    for step in steps
        .iter()
        .filter(|s| !(s.connections == 0 && s.probe.is_some()))
    {
        for spec in [warmup_spec(step), spec(step)] {
            tool.argv(
                &spec,
                &format!("http://127.0.0.1:1{}", step.endpoint),
                loadgen,
            )
            .map_err(bad)?;
        }
    }
    if tool != Tool::Builtin && !tool.available(loadgen) {
        let (place, how) = tool.install_hint();
        return Err(bad(format!(
            "{} is not installed (not in {place}; install: {how}){hint}",
            tool.name()
        )));
    }
    Ok(())
}

/// `--target URL` as its base (no trailing `/`) and address, once something answers a TCP
/// connect there.
fn answering(url: &str) -> anyhow::Result<(String, SocketAddr)> {
    let base = url.trim_end_matches('/');
    let target = loadgen::config::Target::parse(base).map_err(|e| anyhow!("--target: {e}"))?;
    if target.path != "/" {
        bail!("--target takes http://HOST:PORT without a path, not {url:?}");
    }
    TcpStream::connect_timeout(&target.addr, Duration::from_secs(3))
        .map_err(|e| anyhow!("nothing answers at {base} ({}): {e}", target.addr))?;
    Ok((base.to_string(), target.addr))
}

/// The servers a local run uses: named ones (each must run here and serve the steps), or by
/// default every runnable entry that lists the experiment (peers that cannot run are skipped
/// with a printed reason).
fn choose<'m>(
    env: &Env,
    manifest: &'m Manifest,
    args: &RunArgs,
    exp: &Experiment,
    steps: &[Step],
) -> anyhow::Result<Vec<&'m Server>> {
    let by_default = args.servers.is_empty();
    // Named again: a copy, for an A/A check (`label_copies`).
    session::choose(
        env,
        manifest,
        &args.servers,
        |s| s.experiments.iter().any(|e| e == exp.manifest_id),
        |s| serving(s, steps, exp.id, by_default.then_some(exp)),
    )?
    .or_none(|| {
        format!(
            "no server of servers.toml can run {} here (see `bench list`)",
            exp.id
        )
    })
}

/// Whether `server` runs a step of `steps`, or why not: `does not serve /api/async, which e4
/// requests` (`asker` names what requests them). `default_of`: the experiment that chose it
/// by default, not by name (a peer then runs only its [`Experiment::peers_on`] endpoints).
pub fn serving(
    server: &Server,
    steps: &[Step],
    asker: &str,
    default_of: Option<&Experiment>,
) -> Result<(), String> {
    let load = load_steps(steps);
    let run = match default_of {
        Some(exp) => runs(exp, server, &load, true),
        None => served(server, &load),
    };
    if run.is_empty() {
        return Err(format!(
            "does not serve {}, which {asker} requests",
            unserved(server, &load).join(", "),
        ));
    }
    Ok(())
}

/// The entry `name`, which must serve at least one step's endpoint (`asker` names what
/// requests them in the refusal: the experiment).
pub fn find_serving<'m>(
    manifest: &'m Manifest,
    name: &str,
    asker: &str,
    steps: &[Step],
) -> anyhow::Result<&'m Server> {
    let s = server::select(manifest, &[name.to_string()], |_| true)?
        .pop()
        .ok_or_else(|| bad(format!("unknown server {name:?}")))?;
    serving(s, steps, asker, None).map_err(|why| anyhow!("{name}: {why}"))?;
    Ok(s)
}

/// The steps that put a load on their endpoint: all but the probe alone (E4's baseline on
/// `/api/hello`, which every server serves and which makes no server an E4 server).
fn load_steps(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .filter(|s| !(s.connections == 0 && s.probe.is_some()))
        .cloned()
        .collect()
}

fn path(step: &Step) -> &str {
    step.endpoint.split('?').next().unwrap_or(&step.endpoint)
}

/// The steps `server` runs: those it serves ([`served`]); of a peer chosen by default (no
/// `--servers`), only those on the experiment's [`Experiment::peers_on`] endpoints when it
/// lists any (E7's peers run `/hello` only).
pub fn runs(exp: &Experiment, server: &Server, steps: &[Step], by_default: bool) -> Vec<Step> {
    let mut v = served(server, steps);
    if by_default && server.is_peer() && !exp.peers_on.is_empty() {
        v.retain(|s| exp.peers_on.contains(&path(s)));
    }
    v
}

/// The steps of `exp` that `args` choose: its own, or at `--rates`, `--length` or `--quick`,
/// only `--steps` and `--endpoints` when given; the first reason they cannot be.
pub fn chosen_steps(exp: &'static Experiment, args: &RunArgs) -> anyhow::Result<Vec<Step>> {
    let rates = match (&exp.ladder, args.rates.as_slice()) {
        (_, []) => None,
        (None, _) => {
            return Err(bad(format!(
                "--rates sets a ladder of offered rates, and {} has none (e7 has)",
                exp.id
            )));
        }
        (Some(_), rates) => {
            let mut v = rates.to_vec();
            v.sort_unstable();
            v.dedup();
            Some(v)
        }
    };
    let mut steps = exp.steps_at(args.quick, rates.as_deref(), args.length);
    if !args.steps.is_empty() {
        if let Some(unknown) = args
            .steps
            .iter()
            .find(|id| !steps.iter().any(|s| &&s.id == id))
        {
            let mut ids: Vec<&str> = Vec::new();
            for s in &steps {
                if !ids.contains(&s.id.as_str()) {
                    ids.push(&s.id);
                }
            }
            return Err(bad(format!(
                "{} has no step {unknown:?}: its steps are {}",
                exp.id,
                ids.join(", ")
            )));
        }
        steps.retain(|s| args.steps.contains(&s.id));
    }
    if !args.endpoints.is_empty() {
        if let Some(unknown) = args
            .endpoints
            .iter()
            .find(|e| !exp.endpoints.iter().any(|(p, _)| p == e))
        {
            let paths: Vec<&str> = exp.endpoints.iter().map(|(p, _)| *p).collect();
            return Err(bad(format!(
                "{} has no endpoint {unknown:?}: its endpoints are {}",
                exp.id,
                paths.join(", ")
            )));
        }
        steps.retain(|s| args.endpoints.contains(&s.endpoint));
    }
    Ok(steps)
}

/// The steps whose endpoint `server` serves (servers.toml `endpoints`).
pub fn served(server: &Server, steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .filter(|s| server.serves(path(s)))
        .cloned()
        .collect()
}

/// The step endpoints (paths without query) that `server` does not serve, each once.
pub fn unserved<'s>(server: &Server, steps: &'s [Step]) -> Vec<&'s str> {
    let mut out: Vec<&str> = Vec::new();
    for p in steps.iter().map(path) {
        if !server.serves(p) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(order: &[&'static str], round: u32) -> Vec<&'static str> {
        let mut v = order.to_vec();
        alternate_copies(&mut v, round, |n| {
            let (first, copy) = bench_model::results::copy_number(n);
            (first.to_string(), copy)
        });
        v
    }

    /// The pair's two places stay where the random order put them, and so do the others;
    /// within those places the original goes first in odd rounds, its copy in even ones.
    #[test]
    fn the_copies_of_a_pair_take_turns_going_first() {
        let drawn = ["a#2", "b", "a", "c"];
        assert_eq!(named(&drawn, 1), ["a", "b", "a#2", "c"]);
        assert_eq!(named(&drawn, 2), ["a#2", "b", "a", "c"]);
        assert_eq!(named(&["c", "a", "a#2"], 2), ["c", "a#2", "a"]);
        // Two pairs, each on its own; a server alone stays.
        assert_eq!(
            named(&["n#2", "a", "x", "n", "a#2"], 1),
            ["n", "a", "x", "n#2", "a#2"]
        );
        assert_eq!(
            named(&["n#2", "a", "x", "n", "a#2"], 4),
            ["n#2", "a#2", "x", "n", "a"]
        );
        assert_eq!(named(&["x", "y"], 2), ["x", "y"]);
        // Three copies turn by one each round: each goes first once in three rounds.
        let firsts: Vec<&str> = (1..=3).map(|r| named(&["a#3", "a", "a#2"], r)[0]).collect();
        assert_eq!(firsts, ["a", "a#2", "a#3"]);
        // Over 2k rounds of random orders, each copy goes first exactly k times.
        let mut rng = fastrand::Rng::with_seed(3);
        let mut first = 0;
        for round in 1..=10 {
            let mut order = vec!["a", "a#2", "b", "c"];
            rng.shuffle(&mut order);
            let got = named(&order, round);
            let at = |n| got.iter().position(|x| *x == n).unwrap();
            first += usize::from(at("a") < at("a#2"));
        }
        assert_eq!(first, 5);
    }
}
