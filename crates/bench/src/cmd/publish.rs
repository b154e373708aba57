//! `bench publish`: every result of the project measured in one sitting, then published.
//!
//! In a fixed order ([`PARTS`]): E1 … E7, each in its [`publish_rounds`] with its
//! [`publish_steps`] (each timed step measured for its [`publish_length`]), then `bench instructions`,
//! `bench tools compare` and `bench idle`, on every server that can run here. Each
//! experiment is a `bench run` ([`run::run`]): it refuses a busy machine before its first
//! step and measures again a step the machine disturbed.
//!
//! Everything is written first into a staging folder, `DIR/.publish/`, beside a state file
//! that lists the parts done and their files. A part stopped by Ctrl-C or an error leaves
//! the parts before it there; `bench publish --resume` carries on with the next (the
//! stopped part's own partial file is kept in `DIR/.publish/interrupted/`, never published).
//! When every part is done, the published files of DIR from before are removed, the new
//! ones moved in, their reports written beside them, then the page (`DIR/index.html`) and
//! the README's headline table.
//!
//! [`publish_length`]: bench_model::experiment::Experiment::publish_length
//! [`publish_rounds`]: bench_model::experiment::Experiment::publish_rounds
//! [`publish_steps`]: bench_model::experiment::Experiment::publish_steps

use bench_model::sustainable;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use manifest::Manifest;
use serde::{Deserialize, Serialize};

use crate::cli::{Cli, Cmd, CompareArgs, PublishArgs, RunArgs, ToolsArgs, ToolsCmd};
use crate::error::bad;
use crate::plan::{Plan, Subjects};
use crate::provenance;
use crate::step::pin;
use crate::step::server::{self, Env};
use crate::step::signals;
use crate::term::progress::Whole;
use bench_model::experiment::{self, Experiment};
use bench_model::results::timestamp;
use bench_report::format::short;
use bench_report::table::Table;
use bench_tools::Tool;
use clap::Parser;

use super::{idle, instructions, run, tools};

/// What a publish is made of, in the order it runs.
#[derive(Clone, Copy, Debug)]
pub enum Part {
    /// An experiment, as `bench run` runs it.
    Experiment(&'static Experiment),
    /// `bench instructions`.
    Instructions,
    /// `bench tools compare` on one server.
    Tools,
    /// `bench idle`.
    Idle,
}

/// Every part, in order: the experiments first (the figures the page opens with), then the
/// measures of one server at a time.
pub const PARTS: [Part; 10] = [
    Part::Experiment(&experiment::ALL[0]),
    Part::Experiment(&experiment::ALL[1]),
    Part::Experiment(&experiment::ALL[2]),
    Part::Experiment(&experiment::ALL[3]),
    Part::Experiment(&experiment::ALL[4]),
    Part::Experiment(&experiment::ALL[5]),
    Part::Experiment(&experiment::ALL[6]),
    Part::Instructions,
    Part::Tools,
    Part::Idle,
];

/// The server `bench tools compare` drives in a publish (the main one).
pub const TOOLS_SERVER: &str = "server-prebuilt";
/// The tools it compares, the reference first: every keep-alive tool (ab speaks HTTP/1.0
/// only); a tool that is not installed is left out, and the publish says so.
pub const TOOLS: [Tool; 5] = [
    Tool::Builtin,
    Tool::Wrk,
    Tool::Oha,
    Tool::K6,
    Tool::Autocannon,
];

impl Part {
    /// Its id in the state file and on screen: `e1` … `e7`, `instructions`, `tools`, `idle`.
    pub fn id(self) -> &'static str {
        match self {
            Part::Experiment(e) => e.id,
            Part::Instructions => "instructions",
            Part::Tools => "tools",
            Part::Idle => "idle",
        }
    }
}

/// The state of a publish under way, `DIR/.publish/state.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct State {
    /// `bench.publish/1`.
    pub schema: String,
    /// When the first sitting began.
    pub started_utc: String,
    /// The commit measured (a resumed publish must measure the same code).
    pub revision: Option<String>,
    /// `--quick`.
    pub quick: bool,
    /// `--servers` (empty: every server that can run here).
    pub servers: Vec<String>,
    /// The parts done, in order, each with the files it wrote (names in the staging folder).
    pub done: Vec<Done>,
}

/// A part done.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Done {
    /// [`Part::id`].
    pub part: String,
    /// Its files, by name.
    pub files: Vec<String>,
    /// Steps it could not measure, one line each (they are in its results, marked).
    #[serde(default)]
    pub problems: Vec<String>,
}

const STATE_SCHEMA: &str = "bench.publish/1";

impl State {
    fn load(path: &Path) -> anyhow::Result<State> {
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let state: State = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a publish's state", path.display()))?;
        if state.schema != STATE_SCHEMA {
            bail!(
                "{}: schema {:?}, not {STATE_SCHEMA:?}",
                path.display(),
                state.schema
            );
        }
        Ok(state)
    }

    fn save(&self, path: &Path) -> anyhow::Result<()> {
        let tmp = path.with_extension("json.tmp");
        fs::write(&tmp, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("writing {}", tmp.display()))?;
        fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }

    fn is_done(&self, part: Part) -> bool {
        self.done.iter().any(|d| d.part == part.id())
    }
}

/// The finished parts of a publish that stopped, and how to carry on: the context of its
/// error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// The staging folder.
    pub staging: PathBuf,
    /// The parts done, by id.
    pub done: Vec<String>,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.done.is_empty() {
            return write!(
                f,
                "no part of the publish finished (staging folder {})",
                self.staging.display()
            );
        }
        write!(
            f,
            "the finished parts ({}) are kept in {}; `bench publish --resume` carries on from there",
            self.done.join(", "),
            self.staging.display()
        )
    }
}

/// A part as this publish will run it: what it runs, how many steps, how long.
struct Planned {
    part: Part,
    /// Servers it runs (names), for the plan's table.
    servers: Vec<String>,
    /// Steps (an experiment's step runs; one per server, tool round or the like otherwise).
    steps: usize,
    /// What it should take.
    estimate: Duration,
    /// What it runs, as the command a user would type for this part alone.
    command: Vec<String>,
    /// Why it does not run, when it does not (a `--servers` list that has none of its
    /// servers, a tool missing).
    skipped: Option<String>,
}

/// The names of files a publish writes into DIR (and removes from it before moving the new
/// ones in): results files of every kind, their reports and charts, and the page.
pub fn is_published(name: &str) -> bool {
    if name == "index.html" {
        return true;
    }
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "json" | "md" | "svg") {
        return false;
    }
    let Some((kind, stamp)) = stem.split_once('-') else {
        return false;
    };
    let kind_ok = PARTS.iter().any(|p| p.id() == kind);
    // YYYYMMDDTHHMMSSZ
    let stamp_ok = stamp.len() == 16
        && stamp.bytes().enumerate().all(|(i, b)| match i {
            8 => b == b'T',
            15 => b == b'Z',
            _ => b.is_ascii_digit(),
        });
    kind_ok && stamp_ok
}

/// Runs `bench publish` as `args` say; `argv` is the harness's own command line.
pub fn publish(env: &Env, args: &PublishArgs) -> anyhow::Result<()> {
    let dir = &args.results_dir;
    let staging = dir.join(".publish");
    let state_path = staging.join("state.json");
    let revision = provenance::git_at(&env.root).revision;
    if args.dry_run {
        let state = State::load(&state_path).unwrap_or_default();
        print_plan(&plan(env, args)?, &state);
        return Ok(());
    }
    let existing = if state_path.exists() {
        Some(State::load(&state_path))
    } else {
        None
    };
    let mut state = sitting(existing, args, revision, &staging)?;
    if let Some(readme) = readme_of(args)
        && !readme.is_file()
    {
        return Err(bad(format!("no README at {}", readme.display())));
    }
    fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
    state.save(&state_path)?;

    // The machine first: a busy one is refused before anything is built or started.
    crate::session::preflight(args.allow_busy)?;
    // Every binary once, before the first part, so that no part builds: each would build its
    // own set of packages, and cargo compiles the shared crates again for each set's features.
    let built;
    let env = if env.builds() {
        let mut packages: Vec<String> = env
            .manifest()?
            .servers
            .iter()
            .filter_map(|s| s.package.clone())
            .chain(["loadgen".to_string()])
            .collect();
        packages.sort_unstable();
        packages.dedup();
        crate::say!(
            "publish: building {} (cargo build --release)",
            packages.join(", ")
        );
        server::build(env, &packages, || {})?;
        built = Env::new(Some(env.binaries()));
        &built
    } else {
        env
    };
    let plans = plan(env, args)?;
    print_plan(&plans, &state);
    let todo: Vec<&Planned> = plans
        .iter()
        .filter(|p| p.skipped.is_none() && !state.is_done(p.part))
        .collect();
    let total: usize = plans
        .iter()
        .filter(|p| p.skipped.is_none())
        .map(|p| p.steps)
        .sum();
    let done_before: usize = plans
        .iter()
        .filter(|p| p.skipped.is_none() && state.is_done(p.part))
        .map(|p| p.steps)
        .sum();
    Whole::begin(total, done_before, todo.iter().map(|p| p.estimate).sum());
    // Each experiment pins the harness to the load tool's CPU; every part starts from the
    // CPUs the publish was given, so the next one can split them again.
    let cpus = pin::allowed().ok().map(pin::CpuSet);
    let outcome = (|| -> anyhow::Result<()> {
        for p in &todo {
            signals::check()?;
            if let Some(c) = &cpus {
                let _ = pin::pin_current_thread(c);
            }
            crate::say!("publish: {} ({})", p.part.id(), p.command.join(" "));
            let before = names_in(&staging)?;
            let result = run_part(env, args, p, &staging);
            let files: Vec<String> = names_in(&staging)?
                .difference(&before)
                .filter(|n| *n != "state.json")
                .cloned()
                .collect();
            match result {
                Ok(problems) => {
                    for line in &problems {
                        crate::say!("publish: {}: {line}", p.part.id());
                    }
                    state.done.push(Done {
                        part: p.part.id().into(),
                        files,
                        problems,
                    });
                    state.save(&state_path)?;
                    if let Some(line) = Whole::line() {
                        crate::say!("publish: {} done; {line}", p.part.id());
                    }
                }
                Err(e) => {
                    keep_interrupted(&staging, &files)?;
                    return Err(e);
                }
            }
        }
        Ok(())
    })();
    Whole::end();
    if let Err(e) = outcome {
        let kept = Kept {
            staging: staging.clone(),
            done: state.done.iter().map(|d| d.part.clone()).collect(),
        };
        return Err(e.context(kept));
    }
    swap(env, args, &state, &staging)
}

/// Whether this sitting starts a publish, resumes one, or is refused: from the state an
/// earlier sitting left in `staging` (`existing`, as read), `--resume`, and the commit measured
/// now. A resumed publish must measure the same commit with the same options; a stopped one
/// is never started over silently.
fn sitting(
    existing: Option<anyhow::Result<State>>,
    args: &PublishArgs,
    revision: Option<String>,
    staging: &Path,
) -> anyhow::Result<State> {
    match (existing, args.resume) {
        (Some(s), true) => {
            let s = s?;
            if s.revision != revision {
                return Err(bad(format!(
                    "the interrupted publish in {} measured commit {}, and the code is now at {}: one publish measures one commit; remove that folder to start afresh",
                    staging.display(),
                    s.revision.as_deref().map_or("unknown", short),
                    revision.as_deref().map_or("unknown", short)
                )));
            }
            if s.quick != args.quick || s.servers != args.servers {
                return Err(bad(format!(
                    "the interrupted publish in {} ran {}with --servers {:?}; resume it with the same options",
                    staging.display(),
                    if s.quick { "--quick " } else { "" },
                    s.servers
                )));
            }
            Ok(s)
        }
        (Some(s), false) => {
            let s = s.unwrap_or_default();
            let done: Vec<&str> = s.done.iter().map(|d| d.part.as_str()).collect();
            Err(bad(format!(
                "an interrupted publish is waiting in {} ({} done): carry on with --resume, or remove that folder to start afresh",
                staging.display(),
                if done.is_empty() {
                    "nothing".to_string()
                } else {
                    done.join(", ")
                }
            )))
        }
        (None, true) => Err(bad(format!(
            "nothing to resume: no interrupted publish in {}",
            staging.display()
        ))),
        (None, false) => Ok(State {
            schema: STATE_SCHEMA.into(),
            started_utc: timestamp::utc_now(),
            revision,
            quick: args.quick,
            servers: args.servers.clone(),
            done: Vec::new(),
        }),
    }
}

/// Each part as this publish runs it (those done in an earlier sitting included, for the
/// count of steps).
fn plan(env: &Env, args: &PublishArgs) -> anyhow::Result<Vec<Planned>> {
    let manifest = env.manifest()?;
    let mut plans = Vec::new();
    for part in PARTS {
        let planned = match part {
            Part::Experiment(e) => {
                let servers = servers_for(e, args, &manifest);
                let command = run_command(e, args, &servers);
                let lists: Vec<&str> = manifest
                    .servers
                    .iter()
                    .filter(|s| s.experiments.iter().any(|x| x == e.manifest_id))
                    .map(|s| s.name.as_str())
                    .collect();
                if !args.servers.is_empty() && servers.is_empty() {
                    Planned {
                        part,
                        servers: Vec::new(),
                        steps: 0,
                        estimate: Duration::ZERO,
                        command,
                        skipped: Some(format!(
                            "none of --servers runs {} (its servers: {})",
                            e.manifest_id,
                            lists.join(", ")
                        )),
                    }
                } else {
                    let plan = Plan::new(env, &run_args(&command, args, Path::new(""))?)?;
                    let Subjects::Local(chosen) = &plan.subjects else {
                        unreachable!("a publish starts its servers")
                    };
                    let repeat = plan.repeat as usize;
                    Planned {
                        part,
                        servers: chosen.iter().map(|(s, _)| s.name.clone()).collect(),
                        steps: chosen.iter().map(|(_, st)| st.len()).sum::<usize>() * repeat,
                        estimate: chosen
                            .iter()
                            .map(|(_, st)| server_takes(st, plan.repeat))
                            .sum::<Duration>()
                            + until_takes(plan.until.and_then(|u| u.budget)),
                        command,
                        skipped: None,
                    }
                }
            }
            Part::Instructions => {
                let command = instructions_command(args);
                let p = instructions_plan(&command, Path::new(""))?;
                let servers = if p.servers.is_empty() {
                    vec!["every Rust variant and the ceiling".to_string()]
                } else {
                    p.servers.clone()
                };
                Planned {
                    part,
                    // Measured here: ~7 minutes for the default set (7 servers).
                    estimate: if args.quick {
                        Duration::from_secs(20) * servers.len() as u32
                    } else {
                        Duration::from_secs(7 * 60)
                    },
                    steps: servers.len().max(1),
                    servers,
                    command,
                    skipped: None,
                }
            }
            Part::Tools => {
                let (installed, missing) = tools_here(env);
                let command = compare_command(args, &installed);
                let c = compare_args(&command, args, Path::new(""))?;
                let per = c.duration + c.warmup + Duration::from_secs(1);
                Planned {
                    part,
                    servers: vec![c.server.clone()],
                    steps: installed.len() * c.rounds as usize,
                    estimate: per * c.rounds * installed.len() as u32,
                    command,
                    skipped: if installed.len() < 2 {
                        Some(format!(
                            "fewer than two load tools installed (missing: {})",
                            missing.join(", ")
                        ))
                    } else {
                        None
                    },
                }
            }
            Part::Idle => {
                let names = args.servers.clone();
                let n = if names.is_empty() {
                    manifest
                        .servers
                        .iter()
                        .filter(|s| s.serves("/hello"))
                        .count()
                } else {
                    names.len()
                };
                Planned {
                    part,
                    servers: if names.is_empty() {
                        vec!["every server serving /hello".to_string()]
                    } else {
                        names
                    },
                    steps: n,
                    estimate: Duration::from_secs(5) * n as u32,
                    command: idle_command(args),
                    skipped: None,
                }
            }
        };
        plans.push(planned);
    }
    Ok(plans)
}

/// Prints the plan: each part, its servers, steps, estimate, and what is done already.
fn print_plan(plans: &[Planned], state: &State) {
    let mut t = Table::new(&["part", "servers", "steps", "takes ~", "as"]);
    for p in plans {
        let (steps, takes) = match (&p.skipped, state.is_done(p.part)) {
            (Some(why), _) => (format!("skipped: {why}"), "-".to_string()),
            (None, true) => (format!("{} (done)", p.steps), "-".to_string()),
            (None, false) => (p.steps.to_string(), mmss(p.estimate)),
        };
        t.row(vec![
            p.part.id().to_string(),
            p.servers.join(", "),
            steps,
            takes,
            p.command.join(" "),
        ]);
    }
    let left: Duration = plans
        .iter()
        .filter(|p| p.skipped.is_none() && !state.is_done(p.part))
        .map(|p| p.estimate)
        .sum();
    crate::say!("{t}");
    crate::say!("publish: about {} of measuring", mmss(left));
}

/// The README to rewrite, unless `--no-readme`.
fn readme_of(args: &PublishArgs) -> Option<&PathBuf> {
    args.readme.as_ref().filter(|_| !args.no_readme)
}

fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// The servers of `--servers` that `manifest` (the workspace's and the user's own entries)
/// lists for experiment `e`: those its `bench run` names (all of its own when empty).
fn servers_for(e: &'static Experiment, args: &PublishArgs, manifest: &Manifest) -> Vec<String> {
    args.servers
        .iter()
        .filter(|n| {
            manifest
                .get(n)
                .is_some_and(|s| s.experiments.iter().any(|x| x == e.manifest_id))
        })
        .cloned()
        .collect()
}

/// A part's command line, parsed by the same clap types that parse `bench` itself: each part
/// runs exactly the command it records.
fn parsed(argv: &[String]) -> anyhow::Result<Cmd> {
    Cli::try_parse_from(argv).map(|c| c.command).map_err(|e| {
        anyhow!(
            "bench publish built a command bench refuses ({}): {e}",
            argv.join(" ")
        )
    })
}

/// The `bench run` arguments of the part `command`, with where it builds from and writes to.
fn run_args(command: &[String], args: &PublishArgs, dir: &Path) -> anyhow::Result<RunArgs> {
    let Cmd::Run(mut r) = parsed(command)? else {
        bail!("not a bench run command: {}", command.join(" "));
    };
    r.start.bin_dir = args.bin_dir.clone();
    r.results_dir = dir.to_path_buf();
    Ok(r)
}

/// The flags every part's command shares with the publish.
fn shared_flags(args: &PublishArgs) -> Vec<String> {
    let mut v = vec!["--retries".to_string(), args.retries.to_string()];
    if args.allow_busy {
        v.push("--allow-busy".into());
    }
    v
}

/// The `bench run` command that measures experiment `e` on `servers` (all of its own when
/// empty) as this publish does.
fn run_command(e: &'static Experiment, args: &PublishArgs, servers: &[String]) -> Vec<String> {
    let mut v: Vec<String> = vec!["bench".into(), "run".into(), e.id.into()];
    if !servers.is_empty() {
        v.extend(["--servers".into(), servers.join(",")]);
    }
    if args.quick {
        v.push("--quick".into());
    } else {
        if let Some(d) = e.publish_length {
            v.extend(["--length".into(), format!("{}s", d.as_secs())]);
        }
        v.extend(["--rounds".into(), e.publish_rounds.to_string()]);
        if !e.publish_steps.is_empty() {
            v.extend(["--steps".into(), e.publish_steps.join(",")]);
        }
        if !e.publish_endpoints.is_empty() {
            v.extend(["--endpoints".into(), e.publish_endpoints.join(",")]);
        }
        if let Some(l) = &e.ladder {
            let rates: Vec<String> = l.publish_rates.iter().map(u64::to_string).collect();
            v.extend(["--rates".into(), rates.join(",")]);
        }
        // Rounds by the width needed, where the experiment is given minutes for them.
        if e.publish_until_minutes > 0 {
            v.extend([
                "--until-width".into(),
                experiment::PUBLISH_WIDTH.to_string(),
                "--until-minutes".into(),
                e.publish_until_minutes.to_string(),
            ]);
            if !e.publish_aa.is_empty() {
                v.extend([
                    "--aa-width".into(),
                    experiment::PUBLISH_AA_WIDTH.to_string(),
                ]);
            }
        }
    }
    // The A/A pairs of the experiments that declare them (E3, the headline's): two copies of
    // one server, whose ratio shows the run's precision; a pair whose server is not measured
    // is left out.
    for &aa in e.publish_aa {
        let (name, _) = experiment::aa_entry(aa);
        if servers.is_empty() || servers.iter().any(|s| s == name) {
            v.extend(["--aa".into(), aa.into()]);
        }
    }
    v.extend(shared_flags(args));
    v
}

/// What a run's rounds by the width needed may take: its `--until-minutes`, and the round
/// under way when they end (a round started is finished), counted as a minute.
pub fn until_takes(budget: Option<Duration>) -> Duration {
    budget.map_or(Duration::ZERO, |b| b + Duration::from_secs(60))
}

/// What one cell of a run in rounds takes: its step's length and warm-up, and what the
/// publish of 2026-12-02 measured around them: a timed step 0.5–1.2 s more (its server
/// started, settled and stopped; 3.6 s at 10,000 connections, opened and closed), a
/// count-bounded one 9.1–9.3 s in all (its count run until 5 s, at whatever rate the
/// server has, and its warm-up).
pub fn cell_takes(step: &experiment::Step) -> Duration {
    let own = experiment::estimate_of(std::slice::from_ref(step));
    let around = if step.connections >= 10_000 { 4 } else { 1 };
    match step.duration {
        Some(_) => own + Duration::from_secs(around),
        None => own.max(Duration::from_secs(9)),
    }
}

/// What a server's `steps` take in `rounds` rounds: every cell ([`cell_takes`]); for a ladder
/// of offered rates, the ladder climbed to the rung where it ends and the search after it
/// ([`sustainable`]: halving the bracket until it is within 5 %, at most
/// [`sustainable::MAX_PROBES`] rates), whichever rung that is costs the most. A searched rate
/// is counted at the two rounds that decide it when they agree (a third runs only when they
/// do not: a server whose rate wavers there costs one cell more per rate).
pub fn server_takes(steps: &[experiment::Step], rounds: u32) -> Duration {
    let mut total = steps
        .iter()
        .filter(|st| st.rate.is_none())
        .map(cell_takes)
        .sum::<Duration>()
        * rounds;
    let mut endpoints: Vec<&str> = Vec::new();
    for st in steps.iter().filter(|st| st.rate.is_some()) {
        if !endpoints.contains(&st.endpoint.as_str()) {
            endpoints.push(&st.endpoint);
        }
    }
    let searched = sustainable::search_rounds(rounds).min(2);
    for endpoint in endpoints {
        let rungs: Vec<&experiment::Step> = steps
            .iter()
            .filter(|st| st.endpoint == endpoint && st.rate.is_some())
            .collect();
        let worst = (0..=rungs.len())
            .map(|ends| {
                // The ladder ends at rung `ends` (not held), or is held to its top.
                let climbed = rungs[..(ends + 1).min(rungs.len())]
                    .iter()
                    .map(|st| cell_takes(st))
                    .sum::<Duration>()
                    * rounds;
                let probes = match (ends.checked_sub(1).map(|k| rungs[k]), rungs.get(ends)) {
                    (_, None) => 0,
                    (None, Some(_)) => sustainable::MAX_PROBES,
                    (Some(lo), Some(hi)) => {
                        let ratio = hi.rate.unwrap_or(1.0) / lo.rate.unwrap_or(1.0);
                        let halvings = (ratio.ln() / sustainable::BRACKET.ln()).log2().ceil();
                        (halvings.max(0.0) as usize).min(sustainable::MAX_PROBES)
                    }
                };
                climbed + cell_takes(rungs[0]) * (probes as u32 * searched)
            })
            .max()
            .unwrap_or_default();
        total += worst;
    }
    total
}

/// The plan of the instructions part: its command parsed, writing into `dir`.
fn instructions_plan(command: &[String], dir: &Path) -> anyhow::Result<instructions::Plan> {
    let Cmd::Instructions(a) = parsed(command)? else {
        bail!("not a bench instructions command: {}", command.join(" "));
    };
    let mut plan = instructions::plan_of(&a)?;
    plan.results_dir = dir.to_path_buf();
    Ok(plan)
}

fn instructions_command(args: &PublishArgs) -> Vec<String> {
    let mut v: Vec<String> = vec!["bench".into(), "instructions".into()];
    if !args.servers.is_empty() {
        v.extend(["--servers".into(), args.servers.join(",")]);
    }
    if args.quick {
        v.extend(
            [
                "--targets",
                "/",
                "--modes",
                "keep-alive",
                "--small",
                "200",
                "--large",
                "1200",
            ]
            .map(String::from),
        );
    }
    v
}

/// The load tools installed here, and those not.
fn tools_here(env: &Env) -> (Vec<Tool>, Vec<String>) {
    let loadgen = env.binary("loadgen");
    let mut installed = Vec::new();
    let mut missing = Vec::new();
    for t in TOOLS {
        // The built-in generator is built by the part itself.
        if t == Tool::Builtin || t.available(&loadgen) {
            installed.push(t);
        } else {
            missing.push(t.name().to_string());
        }
    }
    (installed, missing)
}

/// The server the tools part drives, and its rounds, length and warm-up.
fn compare_load(args: &PublishArgs) -> (String, u32, Duration, Duration) {
    let server = match args.servers.first() {
        Some(s) if !args.servers.iter().any(|n| n == TOOLS_SERVER) => s.clone(),
        _ => TOOLS_SERVER.to_string(),
    };
    if args.quick {
        (server, 1, Duration::from_secs(1), Duration::from_secs(1))
    } else {
        (server, 3, Duration::from_secs(5), Duration::from_secs(2))
    }
}

/// The `bench tools compare` arguments of the part `command`, writing into `dir`.
fn compare_args(command: &[String], args: &PublishArgs, dir: &Path) -> anyhow::Result<CompareArgs> {
    let Cmd::Tools(ToolsArgs {
        command: ToolsCmd::Compare(mut c),
    }) = parsed(command)?
    else {
        bail!("not a bench tools compare command: {}", command.join(" "));
    };
    c.start.bin_dir = args.bin_dir.clone();
    c.results_dir = dir.to_path_buf();
    Ok(*c)
}

fn compare_command(args: &PublishArgs, tools: &[Tool]) -> Vec<String> {
    let (server, rounds, duration, warmup) = compare_load(args);
    let mut v: Vec<String> = ["bench", "tools", "compare", "--server"]
        .map(String::from)
        .to_vec();
    v.push(server);
    v.push("--tools".into());
    v.push(tools.iter().map(|t| t.name()).collect::<Vec<_>>().join(","));
    v.extend([
        "--rounds".into(),
        rounds.to_string(),
        "--duration".into(),
        format!("{}s", duration.as_secs()),
        "--warmup".into(),
        format!("{}s", warmup.as_secs()),
    ]);
    v.extend(shared_flags(args));
    v
}

fn idle_connections(args: &PublishArgs) -> usize {
    if args.quick { 100 } else { 10_000 }
}

fn idle_command(args: &PublishArgs) -> Vec<String> {
    let mut v: Vec<String> = vec!["bench".into(), "idle".into()];
    v.extend(args.servers.iter().cloned());
    v.extend(["--connections".into(), idle_connections(args).to_string()]);
    v
}

/// Runs one part into `staging`; returns the problems that did not stop it.
fn run_part(
    env: &Env,
    args: &PublishArgs,
    p: &Planned,
    staging: &Path,
) -> anyhow::Result<Vec<String>> {
    match p.part {
        Part::Experiment(_) => {
            let r = run_args(&p.command, args, staging)?;
            let outcome = run::run(env, &r, p.command.clone())?;
            Ok(outcome.problems)
        }
        Part::Instructions => {
            let plan = instructions_plan(&p.command, staging)?;
            instructions::run(env, &plan, p.command.clone())?;
            steps_done(p.steps);
            Ok(Vec::new())
        }
        Part::Tools => {
            let (_, missing) = tools_here(env);
            let c = compare_args(&p.command, args, staging)?;
            let (_, mut problems) = tools::compare_measured(env, &c, p.command.clone())?;
            steps_done(p.steps);
            problems.extend(
                missing
                    .into_iter()
                    .map(|t| format!("{t} is not installed here, so it was not compared")),
            );
            Ok(problems)
        }
        Part::Idle => {
            let Cmd::Idle(a) = parsed(&p.command)? else {
                bail!("not a bench idle command: {}", p.command.join(" "));
            };
            idle::run_to(env, &a.names, a.connections, staging, p.command.clone())?;
            steps_done(p.steps);
            Ok(Vec::new())
        }
    }
}

/// A part that is not a `bench run` counts its steps at its end.
fn steps_done(n: usize) {
    for _ in 0..n {
        Whole::step_done();
    }
}

/// The names of the files directly in `dir`.
fn names_in(dir: &Path) -> anyhow::Result<BTreeSet<String>> {
    let mut v = BTreeSet::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            v.insert(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(v)
}

/// A stopped part's files go to `staging/interrupted/`: kept, never published.
fn keep_interrupted(staging: &Path, files: &[String]) -> anyhow::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let dir = staging.join("interrupted");
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    for f in files {
        fs::rename(staging.join(f), dir.join(f))
            .with_context(|| format!("moving {f} to {}", dir.display()))?;
    }
    Ok(())
}

/// Every part done: the earlier published files of DIR go, the new ones come in with their
/// reports, then the page and the README.
fn swap(env: &Env, args: &PublishArgs, state: &State, staging: &Path) -> anyhow::Result<()> {
    let dir = &args.results_dir;
    let old: Vec<String> = names_in(dir)?
        .into_iter()
        .filter(|n| is_published(n))
        .collect();
    for n in &old {
        fs::remove_file(dir.join(n)).with_context(|| format!("removing {n}"))?;
    }
    // Every results file: the experiments' get their reports here, and all are on the page
    // (instructions, tools and idle wrote their reports themselves).
    let mut experiments = Vec::new();
    let mut all = Vec::new();
    for d in &state.done {
        for f in &d.files {
            let to = dir.join(f);
            fs::rename(staging.join(f), &to)
                .with_context(|| format!("moving {f} into {}", dir.display()))?;
            if f.ends_with(".json") {
                if experiment::find(&d.part).is_some() {
                    experiments.push(to.clone());
                }
                all.push(to);
            }
        }
    }
    fs::remove_file(staging.join("state.json")).context("removing the publish's state")?;
    if fs::remove_dir(staging).is_err() {
        crate::say!(
            "publish: {} still holds the partial files of a stopped part (not published)",
            staging.display()
        );
    }
    crate::say!(
        "publish: {} earlier file(s) of {} replaced by {} new",
        old.len(),
        dir.display(),
        state.done.iter().map(|d| d.files.len()).sum::<usize>()
    );
    for json in &experiments {
        bench_report::write_beside(json, Some(&env.root))?;
    }
    let html = dir.join("index.html");
    bench_report::write_html(&all, &html, Some(&env.root))?;
    crate::say!("page: {}", html.display());
    if let Some(readme) = readme_of(args) {
        bench_report::headline::write_readme(std::slice::from_ref(dir), readme)?;
        crate::say!("{}: headline table rewritten", readme.display());
    }
    let problems: Vec<String> = state
        .done
        .iter()
        .flat_map(|d| d.problems.iter().map(move |p| format!("{}: {p}", d.part)))
        .collect();
    if !problems.is_empty() {
        crate::say!(
            "publish: {} step(s) could not be measured (marked in their results):",
            problems.len()
        );
        for p in &problems {
            crate::say!("  {p}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::experiment::{PUBLISH_AA_WIDTH, PUBLISH_WIDTH};

    #[test]
    fn published_names_are_the_results_kinds_with_a_timestamp() {
        for yes in [
            "e1-20261129T235449Z.json",
            "e7-20261201T220239Z.svg",
            "instructions-20261201T090912Z.md",
            "tools-20261202T010000Z.json",
            "idle-20261202T010000Z.md",
            "index.html",
        ] {
            assert!(is_published(yes), "{yes}");
        }
        for no in [
            "README.md",
            "e1-2026.json",
            "e8-20261129T235449Z.json",
            "e1-20261129T235449Z.txt",
            "notes-20261129T235449Z.md",
            "e1-20261129X235449Z.json",
        ] {
            assert!(!is_published(no), "{no}");
        }
    }

    /// What the default publish takes if every server of servers.toml runs here and every
    /// ladder climbs to its top (E7's stop at their saturation, so it takes less): the lengths
    /// chosen in experiment.rs must keep it within the 90 minutes a publish may take.
    #[test]
    fn the_default_publish_is_planned_within_ninety_minutes() {
        let manifest = manifest::Manifest::load_default().unwrap();
        let mut total = Duration::ZERO;
        for e in &experiment::ALL {
            // The steps of the publish's own command (a ladder climbs to its last rate at
            // most).
            let a = publish_args(&[]);
            let command = run_command(e, &a, &[]);
            let parsed = run_args(&command, &a, Path::new("")).unwrap();
            let steps = crate::plan::chosen_steps(e, &parsed).unwrap();
            assert!(!steps.is_empty(), "{}'s publish measures no step", e.id);
            let mut secs = Duration::ZERO;
            for s in manifest
                .servers
                .iter()
                .filter(|s| s.experiments.iter().any(|x| x == e.manifest_id))
            {
                let served: Vec<_> = crate::plan::served(s, &steps)
                    .into_iter()
                    .filter(|st| {
                        !s.is_peer()
                            || e.peers_on.is_empty()
                            || e.peers_on.contains(&st.endpoint.as_str())
                    })
                    .collect();
                secs += server_takes(&served, e.publish_rounds);
                // An A/A pair's copy (E3's), on the steps of its endpoint when it names one.
                for &aa in e.publish_aa {
                    let (name, endpoint) = experiment::aa_entry(aa);
                    if name == s.name {
                        let copied: Vec<_> = served
                            .iter()
                            .filter(|st| endpoint.is_none_or(|p| st.endpoint == p))
                            .cloned()
                            .collect();
                        secs += server_takes(&copied, e.publish_rounds);
                    }
                }
            }
            // Its rounds by the width needed.
            secs += until_takes(
                parsed
                    .until_minutes
                    .map(|m| Duration::from_secs(u64::from(m) * 60)),
            );
            println!("{}: {:.1} min", e.id, secs.as_secs_f64() / 60.0);
            total += secs;
        }
        // instructions, tools and idle as the publish of 2026-12-02 took them: 9.4, 2 and
        // 1 min.
        total += Duration::from_secs(564 + 120 + 60);
        println!("in all: {:.1} min", total.as_secs_f64() / 60.0);
        assert!(
            total <= Duration::from_secs(90 * 60),
            "the default publish would take {} min",
            total.as_secs() / 60
        );
    }

    #[test]
    fn the_parts_run_every_experiment_then_the_other_measures() {
        let ids: Vec<&str> = PARTS.iter().map(|p| p.id()).collect();
        let every: Vec<&str> = experiment::ALL.iter().map(|e| e.id).collect();
        assert_eq!(ids[..7], every[..], "every experiment, in order, first");
        assert_eq!(ids[7..], ["instructions", "tools", "idle"]);
        assert_eq!(
            experiment::ALL.len(),
            7,
            "a new experiment belongs in PARTS"
        );
    }

    /// The publish spends rounds by the width needed where an experiment is given minutes
    /// for them (E3 with its A/A pairs asked ±3 %, E5), and nowhere else; `--quick` never.
    #[test]
    fn rounds_by_the_width_needed_go_where_the_publish_gives_minutes() {
        let a = publish_args(&[]);
        for e in &experiment::ALL {
            let r = run_args(&run_command(e, &a, &[]), &a, Path::new("")).unwrap();
            let minutes = (e.publish_until_minutes > 0).then_some(e.publish_until_minutes);
            assert_eq!(r.until_minutes, minutes, "{}", e.id);
            assert_eq!(r.until_width, minutes.map(|_| PUBLISH_WIDTH), "{}", e.id);
            let aa = (minutes.is_some() && !e.publish_aa.is_empty()).then_some(PUBLISH_AA_WIDTH);
            assert_eq!(r.aa_width, aa, "{}", e.id);
        }
        let e3 = experiment::find("e3").unwrap();
        let r = run_args(&run_command(e3, &a, &[]), &a, Path::new("")).unwrap();
        assert_eq!(
            (r.until_width, r.aa_width, r.until_minutes),
            (Some(10.0), Some(3.0), Some(3))
        );
        let quick = publish_args(&["--quick"]);
        let r = run_args(&run_command(e3, &quick, &[]), &quick, Path::new("")).unwrap();
        assert_eq!(r.until_width, None);
    }

    /// `bench publish` with `extra` flags, as its command line parses it.
    fn publish_args(extra: &[&str]) -> PublishArgs {
        let argv = ["bench", "publish"].iter().chain(extra);
        match Cli::try_parse_from(argv).unwrap().command {
            Cmd::Publish(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_sitting_starts_resumes_or_is_refused() {
        let staging = Path::new("docs/results/.publish");
        let rev = Some("a".repeat(40));
        let fresh = sitting(None, &publish_args(&[]), rev.clone(), staging).unwrap();
        assert!(fresh.done.is_empty());
        assert_eq!((fresh.revision.clone(), fresh.quick), (rev.clone(), false));

        // Stopped after E1: a new start is refused, naming what is done.
        let mut stopped = fresh;
        stopped.done.push(Done {
            part: experiment::E1.id.into(),
            files: vec!["e1-20261202T000000Z.json".into()],
            problems: Vec::new(),
        });
        let e = sitting(
            Some(Ok(stopped.clone())),
            &publish_args(&[]),
            rev.clone(),
            staging,
        )
        .unwrap_err();
        assert!(crate::error::is_bad_input(&e), "{e}");
        assert!(
            e.to_string().contains("(e1 done): carry on with --resume"),
            "{e}"
        );

        // --resume carries on: E1 is done, E2 is next.
        let resume = publish_args(&["--resume"]);
        let s = sitting(Some(Ok(stopped.clone())), &resume, rev.clone(), staging).unwrap();
        assert!(s.is_done(PARTS[0]) && !s.is_done(PARTS[1]));

        // Not at another commit, nor with other options.
        let other = Some("b".repeat(40));
        let e = sitting(Some(Ok(stopped.clone())), &resume, other, staging).unwrap_err();
        assert!(
            e.to_string().contains("one publish measures one commit"),
            "{e}"
        );
        let quick = publish_args(&["--resume", "--quick"]);
        let e = sitting(Some(Ok(stopped.clone())), &quick, rev.clone(), staging).unwrap_err();
        assert!(e.to_string().contains("with the same options"), "{e}");
        let fewer = publish_args(&["--resume", "--servers", "server-hyper"]);
        let e = sitting(Some(Ok(stopped)), &fewer, rev.clone(), staging).unwrap_err();
        assert!(e.to_string().contains("with the same options"), "{e}");

        // Nothing to resume; a state that cannot be read is not resumed.
        let e = sitting(None, &resume, rev.clone(), staging).unwrap_err();
        assert!(e.to_string().starts_with("nothing to resume"), "{e}");
        let unreadable = Err(anyhow!("state.json: not JSON"));
        let e = sitting(Some(unreadable), &resume, rev, staging).unwrap_err();
        assert_eq!(e.to_string(), "state.json: not JSON");
    }

    #[test]
    fn every_part_runs_the_command_it_records() {
        let stage = Path::new("stage");
        for quick in [false, true] {
            let flags: &[&str] = if quick {
                &["--quick", "--retries", "0"]
            } else {
                &[]
            };
            let a = publish_args(flags);
            for e in &experiment::ALL {
                let command = run_command(e, &a, &["server-hyper".to_string()]);
                let r = run_args(&command, &a, stage).unwrap();
                assert_eq!(r.experiment.as_deref(), Some(e.id));
                assert_eq!(r.servers, ["server-hyper"]);
                assert_eq!((r.quick, r.tool.as_str()), (quick, "builtin"));
                assert_eq!(r.length, if quick { None } else { e.publish_length });
                assert_eq!(r.start.retries, a.retries);
                assert_eq!(r.results_dir, stage);
            }
            let plan = instructions_plan(&instructions_command(&a), stage).unwrap();
            let (small, large) = if quick { (200, 1_200) } else { (2_000, 12_000) };
            assert_eq!((plan.counts.small, plan.counts.large), (small, large));
            assert_eq!(plan.results_dir, stage);
            let tools = [Tool::Builtin, Tool::Wrk];
            let c = compare_args(&compare_command(&a, &tools), &a, stage).unwrap();
            assert_eq!(c.tools, ["builtin", "wrk"]);
            assert_eq!(
                (c.server.as_str(), c.rounds),
                (TOOLS_SERVER, if quick { 1 } else { 3 })
            );
            assert_eq!(c.start.retries, a.retries);
            let Cmd::Idle(i) = parsed(&idle_command(&a)).unwrap() else {
                panic!("not idle")
            };
            assert_eq!(i.connections, idle_connections(&a));
        }
    }
}
