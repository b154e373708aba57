//! `bench run EXPERIMENT`: carries out a [`Plan`] and writes one results JSON (schema
//! `bench.results/1`).
//!
//! In order: the plan (input checked, servers chosen; [`crate::plan`]), the build (`cargo
//! build --release -p <servers> -p loadgen`), the preflight and the CPU split, then the
//! rounds (randomized multiple interleaved trials, as Abedi and Brecht measured them on cloud
//! machines): each round measures every (server, step) cell once, step after step, the
//! servers of each step in a fresh random order (its seed recorded; `--seed` replays it; the
//! two copies of an A/A pair take turns going first: [`crate::plan::alternate_copies`]),
//! each cell on a server process of its own (started pinned to the server CPUs, stopped after
//! the step), so that no cell inherits another's state and a slow phase of the machine falls
//! on every server alike. Each repeat of a step records its round, so that two servers can be
//! compared round by round. A signal or an error unwinds through the guards, which stop
//! everything started.
//!
//! The results file is written after every finished step (atomically: [`Results::save`]),
//! with `"complete": false` and the progress in `incomplete_reason` until the run ends, so a
//! run interrupted at minute 29 keeps the steps of its first 28 minutes: the error then
//! carries a [`Partial`] that says where they are, and the exit status still says what
//! stopped the run.
//!
//! With `--until-width PCT` the planned rounds are followed by rounds of only the cells whose
//! ratio is still wider than that (`until.rs`, by [`bench_model::verdict::sequential`]).
//!
//! With `--target URL` the same steps drive a server that is already running: nothing is
//! built but the built-in generator, nothing is pinned or sampled, every round uses the same
//! process, and the JSON says so.

use bench_model::results::Header;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use manifest::Server;

use crate::cli::RunArgs;
use crate::plan::{Plan, Subjects, Target, unserved};
use crate::provenance;
use crate::session::{self, Partial};
use crate::step::pin;
use crate::step::server::Env;
use crate::step::{self, Launch, Load, Servers, Spawn, Start, Subject, signals};
use crate::term::progress::Progress;
use bench_model::experiment::{self, Step};
use bench_model::results::{Pinning, Results, ServerKind, ServerResult, copy_number, timestamp};
use bench_model::sustainable;
use bench_report::table::Table;
use bench_tools::Tool;

mod until;

/// What `bench run` did: where the results went, and any step that could not be measured.
#[derive(Debug)]
pub struct Outcome {
    /// The results file.
    pub path: PathBuf,
    /// Problems that did not stop the run (a server that died during a step, a tool that
    /// failed), one line each.
    pub problems: Vec<String>,
}

/// Where a run's results go, written again after every finished step.
struct Checkpoint {
    dir: PathBuf,
    /// The workspace root: paths under it are written relative to it.
    root: PathBuf,
    /// The file, once the first step finished.
    path: Option<PathBuf>,
    done: usize,
    total: usize,
}

impl Checkpoint {
    fn new(dir: &Path, root: &Path, total: usize) -> Checkpoint {
        Checkpoint {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
            path: None,
            done: 0,
            total,
        }
    }

    /// Writes `results` as they are: medians of the repeats so far, `complete` when `reason`
    /// is `None`.
    fn save(&mut self, results: &mut Results, reason: Option<String>) -> anyhow::Result<PathBuf> {
        for s in &mut results.servers {
            for step in &mut s.steps {
                step.finish();
            }
        }
        results.relative_to(&self.root);
        results.header.finished_utc = timestamp::utc_now();
        results.complete = reason.is_none();
        results.incomplete_reason = reason;
        let path = match &self.path {
            Some(p) => {
                results.save(p)?;
                p.clone()
            }
            None => results.write(&self.dir)?,
        };
        self.path = Some(path.clone());
        Ok(path)
    }

    /// A step run that will not happen (a rung above where a ladder stopped): the run has one
    /// fewer to make.
    fn skip(&mut self) {
        self.total = self.total.saturating_sub(1);
        crate::term::progress::Whole::step_dropped();
    }

    /// `n` more step runs to make (the rates the search adds).
    fn more(&mut self, n: usize) {
        self.total += n;
        crate::term::progress::Whole::steps_added(n);
    }

    /// One more step run finished: the file now holds it.
    fn step_done(&mut self, results: &mut Results) -> anyhow::Result<()> {
        self.done += 1;
        crate::term::progress::Whole::step_done();
        let reason = format!("running: {} of {} step runs done", self.done, self.total);
        self.save(results, Some(reason))
            .context("cannot write the results")?;
        Ok(())
    }

    /// The run stopped with `e`: the file (if any step finished) says why, and the error
    /// says where the file is.
    fn abandon(&mut self, results: &mut Results, e: anyhow::Error) -> anyhow::Error {
        if self.path.is_none() {
            return e;
        }
        let why = match crate::error::interrupted(&e) {
            Some(i) => i.to_string(),
            None => format!("stopped by an error ({})", e.root_cause()),
        };
        let reason = format!("{why} after {} of {} step runs", self.done, self.total);
        match self.save(results, Some(reason)) {
            Ok(path) => e.context(Partial {
                path,
                done: self.done,
                total: self.total,
            }),
            Err(w) => e.context(format!("and the results could not be written: {w}")),
        }
    }
}

/// Prints the experiments (`bench run --list`).
pub fn list() {
    let mut t = Table::new(&["id", "title", "article's load", "steps (default)"]);
    for e in &experiment::ALL {
        let steps = e.steps(false);
        let shape: Vec<String> = steps
            .iter()
            .map(|s| format!("{} {}", s.endpoint, s.id))
            .collect();
        t.row(vec![
            e.id.to_string(),
            e.title.to_string(),
            e.article_load.to_string(),
            shape.join(", "),
        ]);
    }
    crate::term::out::text(&t);
}

/// `bench run` from its command line: runs it, prints where the results went, and fails
/// (naming the file) when a step could not be measured.
pub fn command(a: &RunArgs) -> anyhow::Result<()> {
    let env = Env::new(a.start.bin_dir.clone()).with_servers_file(a.manifest.servers_file.clone());
    let command = crate::session::command();
    let outcome = run(&env, a, command)?;
    crate::say!("results: {}", outcome.path.display());
    crate::say!(
        "report: cargo run --release -p bench -- report {}",
        outcome.path.display()
    );
    match outcome.problems.as_slice() {
        [] => Ok(()),
        [one] => anyhow::bail!(
            "results written to {}, but a step could not be measured: {one}",
            outcome.path.display()
        ),
        [first, rest @ ..] => anyhow::bail!(
            "results written to {}, but {} steps could not be measured: {first} (and {} more)",
            outcome.path.display(),
            rest.len() + 1,
            rest.len()
        ),
    }
}

/// Runs `bench run` as `args` says; `command` is the harness's own argv, for the JSON.
pub fn run(env: &Env, args: &RunArgs, command: Vec<String>) -> anyhow::Result<Outcome> {
    let plan = Plan::new(env, args)?;
    let run = Run {
        plan: &plan,
        env,
        notes: Vec::new(),
        retries: args.start.retries,
        settle: step::SETTLE_LIMIT,
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        search: !args.no_search,
    };
    match &plan.subjects {
        Subjects::Local(servers) => run.local(args, command, servers),
        Subjects::Target(t) => run.target(args, command, t),
    }
}

/// A plan being carried out, and the notes it gathers for the JSON.
struct Run<'p> {
    plan: &'p Plan,
    env: &'p Env,
    notes: Vec<String>,
    /// `--retries`.
    retries: u32,
    /// The most a step waits for the server to go idle ([`step::SETTLE_LIMIT`]).
    settle: std::time::Duration,
    /// The seed of the rounds' order (`--seed`, or a fresh one), recorded in the results.
    seed: u64,
    /// Whether a ladder of offered rates is followed by the search for each server's
    /// sustainable rate (not `--no-search`).
    search: bool,
}

impl Run<'_> {
    /// The results document before any step: what, when, how, on what.
    fn results(&self, args: &RunArgs, command: Vec<String>) -> Results {
        let p = self.plan;
        let mut versions = provenance::versions();
        if let Some(v) = p.tool.version(&p.loadgen) {
            versions.insert("tool".into(), v);
        }
        let lengths = match (p.quick, p.exp.ladder.is_some(), args.length) {
            (true, true, _) => "--quick: the ladder's shorter rungs and fewer rates".to_string(),
            (true, false, _) => "--quick: 2 s steps, request counts / 10 (E5: / 25)".to_string(),
            (false, _, Some(d)) => format!(
                "every timed step measured for {} s (--length) instead of its own length",
                d.as_secs_f64()
            ),
            (false, _, None) => "default lengths".to_string(),
        };
        let mut notes = vec![format!(
            "the article's load: {}; here: {} ({} round(s), {lengths})",
            p.exp.article_load,
            p.tool.name(),
            p.repeat,
        )];
        if !args.steps.is_empty() || !args.endpoints.is_empty() {
            let mut only = Vec::new();
            if !args.steps.is_empty() {
                only.push(format!("the steps {} (--steps)", args.steps.join(", ")));
            }
            if !args.endpoints.is_empty() {
                only.push(format!("{} (--endpoints)", args.endpoints.join(", ")));
            }
            notes.push(format!(
                "only {} of the experiment's shape; `bench run {}` alone measures all of it",
                only.join(" on "),
                p.exp.id
            ));
        }
        match &p.exp.ladder {
            Some(l) => {
                let rates: Vec<String> = p
                    .steps
                    .iter()
                    .filter_map(|s| s.rate)
                    .map(|r| format!("{r:.0}"))
                    .fold(Vec::new(), |mut v, r| {
                        if !v.contains(&r) {
                            v.push(r);
                        }
                        v
                    });
                let rung = p.steps.first().and_then(|s| s.duration).unwrap_or(l.rung);
                notes.push(format!(
                    "a ladder of offered rates ({} requests/s) on {} keep-alive connections, {} s each after a discarded {} s warm-up at the same rate; a server's ladder on an endpoint stops at the first rate it could not keep up with (achieved under {:.0} % of the offered rate, or p99 over {} ms, the latency counted from each request's intended send time): its saturation, unless the load tool was the limit there (then the rung is invalid)",
                    rates.join(", "),
                    l.connections,
                    rung.as_secs_f64(),
                    l.warmup.as_secs_f64(),
                    bench_model::rules::KEEP_UP_SHARE * 100.0,
                    bench_model::rules::KEEP_UP_P99.as_millis()
                ));
                if !p.exp.peers_on.is_empty() && args.servers.is_empty() {
                    notes.push(format!(
                        "the peers ran {} only (the default choice, so that a run of every server fits in its time); a peer named in --servers runs every endpoint",
                        p.exp.peers_on.join(", ")
                    ));
                }
            }
            None => notes.push(
                "each step is preceded by a discarded warm-up of the same load (2 s, or a tenth of the requests; 1 s with --quick; a fifth of --length, 1 to 2 s)"
                    .to_string(),
            ),
        }
        notes.extend(p.exp.run_notes.iter().map(|n| n.to_string()));
        notes.extend(self.notes.iter().cloned());
        Results {
            header: Header {
                versions,
                ..provenance::header(
                    bench_model::results::SCHEMA,
                    timestamp::utc_now(),
                    command,
                    &self.env.root,
                )
            },
            experiment: p.exp.id.to_string(),
            title: p.exp.title.to_string(),
            complete: false,
            incomplete_reason: Some("running: no step done yet".into()),
            tool: p.tool.name().to_string(),
            quick: p.quick,
            repeat: p.repeat,
            seed: None,
            target: None,
            pinning: None,
            workers: args.start.workers.map(|w| w as usize),
            notes,
            servers: Vec::new(),
        }
    }

    /// Builds the servers' packages (and the built-in tool when it is the tool, or E4's
    /// probe), with a progress line.
    fn build(&self, servers: &[&Server]) -> anyhow::Result<()> {
        let p = self.plan;
        // The probe (E4) is the built-in generator whatever the tool.
        let builtin = p.tool == Tool::Builtin || p.steps.iter().any(|s| s.probe.is_some());
        let extra: &[&str] = if builtin { &["loadgen"] } else { &[] };
        let mut progress = Progress::new();
        if self.env.builds() && (builtin || servers.iter().any(|s| s.package.is_some())) {
            progress.phase("cargo build --release".into(), None);
        }
        session::build_ticking(self.env, servers, extra, true, &mut || progress.tick())?;
        if builtin && !Tool::Builtin.available(&p.loadgen) {
            bail!("the built-in tool is missing: no {}", p.loadgen.display());
        }
        Ok(())
    }

    fn local(
        mut self,
        args: &RunArgs,
        command: Vec<String>,
        chosen: &[(Server, Vec<Step>)],
    ) -> anyhow::Result<Outcome> {
        let p = self.plan;
        self.build(&chosen.iter().map(|(s, _)| s).collect::<Vec<_>>())?;
        let ready = session::ready(args.start.allow_busy, args.start.no_pin)?;
        let cpus = self.pinning(&ready, chosen.iter().map(|(s, _)| s));
        self.notes.push(ready.preflight);
        let mut results = self.results(args, command);
        results.seed = Some(self.seed);
        results.pinning = cpus.as_ref().map(|c| Pinning {
            server_cpus: c.server.0.clone(),
            load_cpus: c.load.0.clone(),
        });
        for (s, steps) in chosen {
            if let Some(rt) = s.runtime.as_ref().filter(|_| s.is_peer())
                && let Some(v) = provenance::runtime_version(rt)
            {
                results.header.versions.insert(rt.clone(), v);
            }
            let missing = unserved(s, &p.steps);
            if !missing.is_empty() {
                let note = format!(
                    "{} does not serve {}: only its other steps ran",
                    s.name,
                    missing.join(", ")
                );
                crate::say!("{note}");
                results.notes.push(note);
            }
            if p.exp.runtime_note {
                let n = args
                    .start
                    .workers
                    .map(|w| w as usize)
                    .or_else(|| cpus.as_ref().map(|c| c.server.0.len().max(1)));
                let server_cpus = cpus
                    .as_ref()
                    .map_or_else(step::cpus_allowed, |c| c.server.0.len().max(1));
                if let Some(note) = runtime_flavour(
                    &s.name,
                    args.start.workers.map(|w| w as usize),
                    n,
                    server_cpus,
                ) {
                    results.notes.push(note);
                }
            }
            let mut entry = ServerResult::new(s, Vec::new());
            entry.steps = step::results_for(steps);
            results.servers.push(entry);
        }
        let mut progress = Progress::new();
        progress.run_length(
            chosen
                .iter()
                .map(|(_, st)| experiment::estimate_of(st))
                .sum::<std::time::Duration>()
                * p.repeat,
        );
        let load_cpus = cpus.as_ref().map(|c| &c.load);
        let total = chosen.iter().map(|(_, st)| st.len()).sum::<usize>() * p.repeat as usize;
        let mut ckpt = Checkpoint::new(&args.results_dir, &self.env.root, total);
        let mut start = Start {
            env: self.env,
            port: args.start.port,
            cpus: cpus.as_ref().map(|c| &c.server),
            workers: args.start.workers.map(|w| w as usize),
        };
        let mut spawn = Spawn {
            cwd: &self.env.root,
            cpus: load_cpus,
        };
        let tool_cpus = load_cpus.map_or_else(step::cpus_allowed, |c| c.0.len().max(1));
        let mut rng = fastrand::Rng::with_seed(self.seed);
        let done = self.measure(
            chosen,
            (&mut start, &mut spawn, tool_cpus),
            &mut results,
            &mut ckpt,
            &mut progress,
            &mut rng,
        );
        progress.finish();
        match done {
            Ok(problems) => finish(results, ckpt, problems),
            Err(e) => Err(ckpt.abandon(&mut results, e)),
        }
    }

    /// The run's loop, in rounds: each round measures every (server, step) cell once, step
    /// by step, the servers of each step in a fresh random order drawn from `rng` (whose seed
    /// the results record), but for an A/A pair's copies, which take turns going first
    /// ([`crate::plan::alternate_copies`]); each cell gets a server process of its own, started by `servers`
    /// and stopped after the step, so that no cell inherits another's state (a server that
    /// died in one cell is simply started again for the next). The tool is launched by
    /// `launch` with `tool_cpus` CPUs; the results are written after every cell. Returns the
    /// problems that invalidated steps without stopping the run; a signal or an error stops it.
    fn measure(
        &self,
        chosen: &[(Server, Vec<Step>)],
        (servers, launch, tool_cpus): (&mut dyn Servers, &mut dyn Launch, usize),
        results: &mut Results,
        ckpt: &mut Checkpoint,
        progress: &mut Progress,
        rng: &mut fastrand::Rng,
    ) -> anyhow::Result<Vec<String>> {
        let p = self.plan;
        let mut problems = Vec::new();
        let mut verified = vec![false; chosen.len()];
        for round in 1..=p.repeat {
            // The endpoints whose ladder of offered rates stopped, per server, this round.
            let mut stopped: Vec<Vec<&str>> = vec![Vec::new(); chosen.len()];
            for (k, step) in p.steps.iter().enumerate() {
                let mut order: Vec<usize> = (0..chosen.len())
                    .filter(|&i| chosen[i].1.iter().any(|s| same_step(s, step)))
                    .collect();
                rng.shuffle(&mut order);
                // An A/A pair's copies take turns going first, round by round.
                crate::plan::alternate_copies(&mut order, round, |&i| {
                    let (first, copy) = copy_number(&chosen[i].0.name);
                    (first.to_string(), copy)
                });
                for i in order {
                    signals::check()?;
                    let (s, steps) = &chosen[i];
                    // A rung above where its ladder stopped, this round or an earlier one
                    // (whose rungs above no round ran left the results), is not run.
                    if stopped[i].contains(&step.endpoint.as_str())
                        || !results.servers[i]
                            .steps
                            .iter()
                            .any(|r| same_result(r, step))
                    {
                        ckpt.skip();
                        continue;
                    }
                    let label = format!("{} round {round}/{}", s.name, p.repeat);
                    let what = format!(
                        "{} {} ({}/{})",
                        step.endpoint,
                        step.id,
                        k + 1,
                        p.steps.len()
                    );
                    // TechEmpower verifies every response before any load.
                    let verify = (p.exp.verify_first && !verified[i]).then_some(steps.as_slice());
                    verified[i] |= verify.is_some();
                    let cell = self.fresh_cell(
                        (s, i, round),
                        step,
                        (&label, &what, verify),
                        (&mut *servers, &mut *launch, tool_cpus),
                        results,
                        progress,
                    )?;
                    problems.extend(cell.problems);
                    if cell.stopped {
                        stopped[i].push(&step.endpoint);
                    }
                    ckpt.step_done(results)?;
                }
            }
        }
        let mut cell = |i: usize, step: &Step, round: u32, results: &mut Results| {
            let s = &chosen[i].0;
            let label = format!("{} search round {round}", s.name);
            let what = format!("{} {}", step.endpoint, step.id);
            let cell = self.fresh_cell(
                (s, i, round),
                step,
                (&label, &what, None),
                (&mut *servers, &mut *launch, tool_cpus),
                results,
                progress,
            )?;
            problems.extend(cell.problems);
            Ok(())
        };
        self.until_width(results, ckpt, rng, &mut cell)?;
        self.search(results, ckpt, rng, &mut cell)?;
        // A signal that came while the last server stopped still stops the run.
        signals::check()?;
        Ok(problems)
    }

    /// Measures `step` once on a fresh process of server `s` (`results.servers[i]`), as round
    /// `round`: started, (with `verify`, its answers to `verify`'s steps checked first),
    /// measured ([`Run::cell`]), stopped; `label` and `what` name the cell in the progress
    /// line. Its problems come back named by the server.
    fn fresh_cell(
        &self,
        (s, i, round): (&Server, usize, u32),
        step: &Step,
        (label, what, verify): (&str, &str, Option<&[Step]>),
        (servers, launch, tool_cpus): (&mut dyn Servers, &mut dyn Launch, usize),
        results: &mut Results,
        progress: &mut Progress,
    ) -> anyhow::Result<Cell> {
        progress.phase(format!("{label}: starting"), None);
        let mut running = servers.start(s)?;
        results.servers[i].command = running.command();
        let addr = running.addr();
        if let Some(steps) = verify {
            results.servers[i].verified = crate::step::answer::before_load(s, addr, steps);
        }
        let mut cell = self.cell(
            Subject::new(addr, Some(running.watch())),
            step,
            (results, i, round),
            (launch, tool_cpus),
            progress,
            &format!("{label}: {what}"),
        )?;
        for f in &mut cell.problems {
            *f = format!("{}: {f}", s.name);
        }
        progress.phase(format!("{label}: stopping"), None);
        let left = running.stop();
        if !left.is_empty() {
            bail!("{} left processes behind after stopping: {left:?}", s.name);
        }
        Ok(cell)
    }

    /// After the rounds of a ladder of offered rates (E7), unless `--no-search`: for every
    /// server and endpoint whose ladder found a rate not held above one held, the search for
    /// its sustainable rate ([`bench_model::sustainable`]). Each pass adds, per such server
    /// and endpoint, one rate halfway (on a log scale) between the last held and the first not
    /// held, and measures it in [`sustainable::search_rounds`] rounds, the servers in a fresh
    /// random order each round, a rate's remaining rounds skipped once a majority agrees; it
    /// ends when every bracket is within 5 % (or a server has had
    /// [`sustainable::MAX_PROBES`] rates). `cell` measures one rate of server `i` once.
    fn search(
        &self,
        results: &mut Results,
        ckpt: &mut Checkpoint,
        rng: &mut fastrand::Rng,
        cell: &mut dyn FnMut(usize, &Step, u32, &mut Results) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let p = self.plan;
        // The rungs that no round ran (above where every round's ladder stopped) leave the
        // results.
        for s in &mut results.servers {
            s.steps.retain(|r| {
                r.offered_requests_per_s.is_none()
                    || !r.repeats.is_empty()
                    || r.invalid_reason.is_some()
            });
        }
        if !self.search || p.exp.ladder.is_none() {
            return Ok(());
        }
        let owed = sustainable::search_rounds(p.repeat);
        // The endpoints with a ladder.
        let mut endpoints: Vec<&str> = Vec::new();
        for st in p.steps.iter().filter(|st| st.rate.is_some()) {
            if !endpoints.contains(&st.endpoint.as_str()) {
                endpoints.push(&st.endpoint);
            }
        }
        let mut made: Vec<(usize, &str, usize)> = Vec::new();
        loop {
            let mut probes: Vec<(usize, Step)> = Vec::new();
            for (i, server) in results.servers.iter_mut().enumerate() {
                for &endpoint in &endpoints {
                    let n = made
                        .iter()
                        .find(|(j, e, _)| *j == i && *e == endpoint)
                        .map_or(0, |m| m.2);
                    if n >= sustainable::MAX_PROBES {
                        continue;
                    }
                    let Some(x) = sustainable::sustained(&server.steps, endpoint)
                        .as_ref()
                        .and_then(sustainable::next_probe)
                    else {
                        continue;
                    };
                    let Some(template) = p
                        .steps
                        .iter()
                        .find(|st| st.endpoint == endpoint && st.rate.is_some())
                    else {
                        continue;
                    };
                    let step = Step {
                        rate: Some(x),
                        ..template.clone()
                    };
                    let step = Step {
                        id: experiment::rate_id(x as u64),
                        ..step
                    };
                    let mut r = step::results_for(std::slice::from_ref(&step)).remove(0);
                    r.searched_rounds = Some(owed);
                    // In order of rate among the endpoint's rungs.
                    let at = server
                        .steps
                        .iter()
                        .position(|o| {
                            o.endpoint == endpoint && sustainable::rate_of(o).is_some_and(|y| y > x)
                        })
                        .unwrap_or(server.steps.len());
                    server.steps.insert(at, r);
                    match made.iter_mut().find(|(j, e, _)| *j == i && *e == endpoint) {
                        Some(m) => m.2 += 1,
                        None => made.push((i, endpoint, 1)),
                    }
                    crate::say!(
                        "{}: {} searches {} requests/s (between the last rate held and the first not held)",
                        server.name,
                        endpoint,
                        bench_model::stats::thousands(x)
                    );
                    probes.push((i, step));
                }
            }
            if probes.is_empty() {
                return Ok(());
            }
            ckpt.more(probes.len() * owed as usize);
            for round in 1..=owed {
                rng.shuffle(&mut probes);
                // An A/A pair's searches on one endpoint take turns going first too.
                crate::plan::alternate_copies(&mut probes, round, |(i, step)| {
                    let (first, copy) = copy_number(&results.servers[*i].name);
                    ((first.to_string(), step.endpoint.clone()), copy)
                });
                for (i, step) in &probes {
                    signals::check()?;
                    let decided = results.servers[*i]
                        .steps
                        .iter()
                        .find(|r| same_result(r, step))
                        .is_none_or(|r| sustainable::decided(r, p.repeat));
                    if decided {
                        ckpt.skip();
                        continue;
                    }
                    cell(*i, step, round, results)?;
                    ckpt.step_done(results)?;
                }
            }
        }
    }

    /// The notes on the CPU split of a local run (`None`: not pinned, and the notes say why)
    /// and on servers that start a worker per CPU; returns the split.
    fn pinning<'s>(
        &mut self,
        ready: &session::Ready,
        servers: impl Iterator<Item = &'s Server>,
    ) -> Option<pin::Plan> {
        let split = ready.cpus.clone();
        self.notes.extend(ready.unpinned.clone());
        for s in servers {
            let per_cpu = s.default_workers == Some(0)
                || s.command.iter().flatten().any(|a| a.contains("{cpus}"));
            if per_cpu && let Some(c) = &split {
                self.notes.push(format!(
                    "{} starts one worker per CPU it may use: {} here, pinned to CPU(s) {:?}",
                    s.name,
                    c.server.0.len(),
                    c.server.0
                ));
            }
        }
        self.notes.push(
            "server RSS is the sum over its process tree (supervisor and workers); server CPU is the time on a CPU of every thread of that tree (/proc/PID/task/TID/schedstat, ns) over the tool's whole run, start-up included, split into user and kernel time by each thread's utime and stime; the load tool's CPU is over its measured window only (the last N seconds before it exited)".into(),
        );
        if ready.harness_pinned {
            self.notes.push(
                "the harness itself (its polling and /proc sampling) ran on the load tool's CPU"
                    .into(),
            );
        }
        split
    }

    fn target(
        mut self,
        args: &RunArgs,
        command: Vec<String>,
        target: &Target,
    ) -> anyhow::Result<Outcome> {
        let p = self.plan;
        let (base, steps, server) = (&target.base, &target.steps, target.server.as_ref());
        self.build(&[])?;
        self.notes.push(session::preflight(args.start.allow_busy)?);
        self.notes.push(format!(
            "remote target {base}: not started by the harness, so no build, no pinning and no /proc sampling (RSS and CPU are null); every round measures the same process, so what one step leaves (caches, a JIT's warm-up, memory) carries over to the next"
        ));
        if server.is_none() {
            self.notes.push(
                "the target is not named (--servers): its entry is called `target` and counted as a peer".into(),
            );
        }
        let mut results = self.results(args, command);
        results.target = Some(base.to_string());
        let mut entry = match server {
            Some(s) => ServerResult::new(s, Vec::new()),
            None => ServerResult {
                name: "target".into(),
                kind: ServerKind::Peer,
                style: format!("an already running server at {base}"),
                analogue: Vec::new(),
                command: Vec::new(),
                extra_headers: Vec::new(),
                steps: Vec::new(),
                verified: Vec::new(),
            },
        };
        entry.steps = step::results_for(steps);
        results.servers.push(entry);
        let mut progress = Progress::new();
        progress.run_length(experiment::estimate_of(steps) * p.repeat);
        let mut ckpt = Checkpoint::new(
            &args.results_dir,
            &self.env.root,
            steps.len() * p.repeat as usize,
        );
        let mut problems = Vec::new();
        let mut spawn = Spawn {
            cwd: &self.env.root,
            cpus: None,
        };
        let mut rng = fastrand::Rng::with_seed(self.seed);
        // One process for every cell, as it runs: rounds still alternate with nothing, and
        // what one cell leaves (caches, a JIT's warm-up, memory) carries over to the next.
        let mut all = || -> anyhow::Result<()> {
            for round in 1..=p.repeat {
                let mut stopped: Vec<&str> = Vec::new();
                for (k, step) in steps.iter().enumerate() {
                    signals::check()?;
                    if stopped.contains(&step.endpoint.as_str())
                        || !results.servers[0]
                            .steps
                            .iter()
                            .any(|r| same_result(r, step))
                    {
                        ckpt.skip();
                        continue;
                    }
                    let what = format!(
                        "{base} round {round}/{}: {} {} ({}/{})",
                        p.repeat,
                        step.endpoint,
                        step.id,
                        k + 1,
                        steps.len()
                    );
                    let cell = self.cell(
                        Subject::new(target.addr, None),
                        step,
                        (&mut results, 0, round),
                        (&mut spawn, step::cpus_allowed()),
                        &mut progress,
                        &what,
                    )?;
                    problems.extend(cell.problems);
                    if cell.stopped {
                        stopped.push(&step.endpoint);
                    }
                    ckpt.step_done(&mut results)?;
                }
            }
            let mut cell = |_: usize, step: &Step, round: u32, results: &mut Results| {
                let what = format!("{base} search round {round}: {} {}", step.endpoint, step.id);
                let cell = self.cell(
                    Subject::new(target.addr, None),
                    step,
                    (results, 0, round),
                    (&mut spawn, step::cpus_allowed()),
                    &mut progress,
                    &what,
                )?;
                problems.extend(cell.problems);
                Ok(())
            };
            self.search(&mut results, &mut ckpt, &mut rng, &mut cell)?;
            signals::check()?;
            Ok(())
        };
        let done = all();
        progress.finish();
        match done {
            Ok(()) => finish(results, ckpt, problems),
            Err(e) => Err(ckpt.abandon(&mut results, e)),
        }
    }

    /// Measures `step` once against `subject` (the server `results.servers[server]`), as
    /// round `round`: one more repeat of the step's result. A rung of a ladder that the server
    /// could not keep up with ends its ladder on that endpoint: the rungs above it that no
    /// round ran leave the results. The step must be among the server's results.
    fn cell(
        &self,
        mut subject: Subject<'_>,
        step: &Step,
        (results, server, round): (&mut Results, usize, u32),
        (launch, tool_cpus): (&mut dyn Launch, usize),
        progress: &mut Progress,
        what: &str,
    ) -> anyhow::Result<Cell> {
        let mut load = Load {
            tool: self.plan.tool,
            loadgen: &self.plan.loadgen,
            quick: self.plan.quick,
            cpus: tool_cpus,
            retries: self.retries,
            settle: self.settle,
            launch,
        };
        let entry = &mut results.servers[server];
        let at = entry
            .steps
            .iter()
            .position(|r| same_result(r, step))
            .ok_or_else(|| {
                anyhow::anyhow!("{} has no step {} {}", entry.name, step.endpoint, step.id)
            })?;
        let before = entry.steps[at].repeats.len();
        let problems = step::run(
            &mut load,
            &mut subject,
            step,
            &mut entry.steps[at],
            progress,
            what,
        )?;
        for r in &mut entry.steps[at].repeats[before..] {
            r.round = Some(round);
        }
        let mut stopped = false;
        let searched = entry.steps[at].searched_rounds.is_some();
        if step.rate.is_some()
            && let Some(why) = step::rung(&mut entry.steps[at])
        {
            if searched {
                crate::say!(
                    "{}: {} {} not held in this round: {why}",
                    entry.name,
                    step.endpoint,
                    step.id
                );
            } else {
                // This round's ladder on the endpoint ends here; the next round climbs again.
                crate::say!(
                    "{}: {} stops at {} this round: {why}",
                    entry.name,
                    step.endpoint,
                    step.id
                );
                stopped = true;
            }
        }
        Ok(Cell { problems, stopped })
    }
}

/// What one cell (a step on a server, once) came to.
#[derive(Debug, Default)]
struct Cell {
    /// Problems that invalidated it without stopping the run.
    problems: Vec<String>,
    /// Whether it ended its ladder of offered rates.
    stopped: bool,
}

/// Whether two steps are the same (endpoint and id).
fn same_step(a: &Step, b: &Step) -> bool {
    a.endpoint == b.endpoint && a.id == b.id
}

/// Whether `r` is the result of `step`.
fn same_result(r: &bench_model::results::StepResult, step: &Step) -> bool {
    r.endpoint == step.endpoint && r.step == step.id
}

/// Which runtime flavour `server` ran E4's scenarios on, for the results' notes: `workers`
/// is `--workers` (`None`: the server's default), `cpus` what a peer's `{cpus}` became,
/// `server_cpus` how many CPUs the server may run on (its blocking pools are sized from them
/// by `serve::workers::blocking_threads_of`).
pub fn runtime_flavour(
    server: &str,
    workers: Option<usize>,
    cpus: Option<usize>,
    server_cpus: usize,
) -> Option<String> {
    let n = workers.unwrap_or(1);
    let pool = serve::workers::blocking_threads_of(server_cpus, n);
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    Some(match server {
        "server-hyper" | "server-axum" => format!(
            "{server} ran {} (one per worker thread, each with its own SO_REUSEPORT listener): \
             a blocked runtime stalls every connection it holds; /api/sync-offload runs on tokio's \
             blocking pool (spawn_blocking), capped at {} per runtime (the server's CPUs shared \
             among its runtimes; tokio's default is 512)",
            plural(
                n,
                "current-thread tokio runtime",
                "current-thread tokio runtimes"
            ),
            plural(pool, "thread", "threads")
        ),
        "server-actix" => format!(
            "{server} ran actix-web with {} fed by one accept thread: a blocked worker stalls \
             the connections it holds; /api/sync-offload runs on the blocking pool (web::block), \
             capped at {} per worker (actix's default is 512 / workers)",
            plural(n, "single-threaded worker", "single-threaded workers"),
            plural(pool, "thread", "threads")
        ),
        "node-http" => format!(
            "node-http ran one event loop; /api/sync-offload runs on a pool of {} \
             (`--workers`, one per server CPU by default)",
            match workers.or(cpus) {
                Some(k) => plural(k, "worker_threads Worker", "worker_threads Workers"),
                None => "worker_threads Workers (the CPUs less one, at least 1)".to_string(),
            }
        ),
        _ => return None,
    })
}

/// Medians and spreads, the finish time, the file (now complete), the summary on stdout.
fn finish(
    mut results: Results,
    mut ckpt: Checkpoint,
    problems: Vec<String>,
) -> anyhow::Result<Outcome> {
    let path = ckpt
        .save(&mut results, None)
        .context("cannot write the results")?;
    print_summary(&results);
    Ok(Outcome { path, problems })
}

/// What the summary says before its table: when an A/A pair of the run differed, that this
/// run's precision is no finer than that ([`bench_report::aa_flag`], as the report opens).
fn summary_head(results: &Results) -> Option<String> {
    bench_report::aa_flag(results).map(|flag| flag.replace("**", ""))
}

/// The medians, one row per server and step, on stdout, after [`summary_head`].
fn print_summary(results: &Results) {
    if let Some(head) = summary_head(results) {
        crate::say!("{head}\n");
    }
    let mut t = Table::new(&[
        "server",
        "endpoint",
        "step",
        "req/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "B/resp",
        "RSS peak MiB",
        "CPU %",
        "CPU µs/req",
        "user/kernel µs",
        "tool CPU %",
        "other CPU %",
        "note",
    ]);
    let ms = |us: Option<u64>| us.map_or("-".to_string(), |v| format!("{:.2}", v as f64 / 1000.0));
    let opt = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |v| format!("{v:.d$}"));
    for s in &results.servers {
        for step in &s.steps {
            let note = step.invalid_reason.clone().unwrap_or_default();
            let Some(m) = &step.median else {
                let mut row = vec![s.name.clone(), step.endpoint.clone(), step.step.clone()];
                row.extend(std::iter::repeat_n("-".to_string(), 11));
                row.push(note);
                t.row(row);
                continue;
            };
            let note = match (&m.unmeasured, &step.saturation, note.is_empty()) {
                (_, Some(s), true) => format!("saturation: {s}"),
                (Some(u), _, true) => u.clone(),
                _ => note,
            };
            t.row(vec![
                s.name.clone(),
                step.endpoint.clone(),
                step.step.clone(),
                // The median, its 95 % interval over the rounds when there are some, its marks.
                match step.intervals.and_then(|iv| iv.requests_per_s) {
                    Some(i) => format!(
                        "{:.0} [{:.0}–{:.0}]{}",
                        m.requests_per_s,
                        i.low,
                        i.high,
                        bench_report::marks(m)
                    ),
                    None => format!("{:.0}{}", m.requests_per_s, bench_report::marks(m)),
                },
                ms(m.latency_us.p50),
                match step.intervals.and_then(|iv| iv.p99_us) {
                    Some(i) => format!(
                        "{} [{:.2}–{:.2}]",
                        ms(m.latency_us.p99),
                        i.low / 1000.0,
                        i.high / 1000.0
                    ),
                    None => ms(m.latency_us.p99),
                },
                m.errors.total().to_string(),
                format!("{:.0}", m.bytes_per_response),
                m.rss_kb
                    .map_or("-".into(), |r| format!("{:.1}", r.peak as f64 / 1024.0)),
                opt(m.server_cpu_percent, 0),
                opt(m.cpu_us_per_request, 2),
                match (m.cpu_user_us_per_request, m.cpu_kernel_us_per_request) {
                    (Some(u), Some(k)) => format!("{u:.2} / {k:.2}"),
                    _ => "-".into(),
                },
                opt(m.tool_cpu_percent, 0),
                opt(m.interference.and_then(|i| i.other_cpu_percent), 0),
                note,
            ]);
        }
    }
    crate::term::out::text(&t);
    for line in bench_report::footnotes(results) {
        crate::say!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, Interrupted};
    use anyhow::anyhow;

    /// A recorded E3 document (server-prebuilt and node-http, six steps each), emptied of its
    /// repeats as a run's document is before its first step.
    fn fresh() -> Results {
        let mut r: Results = serde_json::from_str(include_str!(
            "../../../../bench-report/tests/data/results-e3.json"
        ))
        .unwrap();
        r.complete = false;
        r
    }

    fn reread(path: &Path) -> Results {
        bench_model::schema::check_file(path).unwrap();
        Results::load(path).unwrap()
    }

    #[test]
    fn the_checkpoint_keeps_every_finished_step_and_says_why_the_run_stopped() {
        let dir = std::env::temp_dir().join(format!("bench-ckpt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut results = fresh();
        let mut ckpt = Checkpoint::new(&dir, Path::new("/nowhere"), 4);

        // Stopped before any step finished: no file, the error as it was.
        let e = ckpt.abandon(&mut results, anyhow!("no server"));
        assert!(
            e.downcast_ref::<Partial>().is_none() && !dir.exists(),
            "{e:#}"
        );

        // Each finished step is in the file at once, marked as running.
        ckpt.step_done(&mut results).unwrap();
        let path = ckpt.path.clone().expect("written after the first step");
        let on_disk = reread(&path);
        assert!(!on_disk.complete);
        assert_eq!(
            on_disk.incomplete_reason.as_deref(),
            Some("running: 1 of 4 step runs done")
        );
        // A rung that will not run lowers the total; the same file is written again.
        ckpt.skip();
        ckpt.step_done(&mut results).unwrap();
        assert_eq!(ckpt.path.as_ref(), Some(&path));
        assert_eq!(
            reread(&path).incomplete_reason.as_deref(),
            Some("running: 2 of 3 step runs done")
        );

        // Ctrl-C: the file says so, the error says where the file is and is still the
        // interruption (its exit status).
        let sigint = anyhow::Error::new(Error::Interrupted(Interrupted(libc::SIGINT)));
        let e = ckpt.abandon(&mut results, sigint);
        assert_eq!(
            e.downcast_ref::<Partial>(),
            Some(&Partial {
                path: path.clone(),
                done: 2,
                total: 3
            })
        );
        assert_eq!(
            crate::error::interrupted(&e),
            Some(Interrupted(libc::SIGINT))
        );
        assert_eq!(
            reread(&path).incomplete_reason.as_deref(),
            Some("interrupted by SIGINT after 2 of 3 step runs")
        );

        // Another error: named in the file.
        let e = ckpt.abandon(&mut results, anyhow!("the tool crashed"));
        assert!(e.downcast_ref::<Partial>().is_some());
        assert_eq!(
            reread(&path).incomplete_reason.as_deref(),
            Some("stopped by an error (the tool crashed) after 2 of 3 step runs")
        );

        // A run that ends writes it complete, in the same file.
        let outcome = finish(results, ckpt, vec!["a problem".into()]).unwrap();
        assert_eq!(outcome.path, path);
        assert_eq!(outcome.problems, ["a problem"]);
        let done = reread(&path);
        assert!(done.complete && done.incomplete_reason.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// E3's first two quick steps on `/`, on server-prebuilt and server-hyper, with the
    /// built-in tool, two repeats: the plan, the chosen servers, the results before any step.
    fn e3_plan() -> (Plan, Vec<(Server, Vec<Step>)>, RunArgs) {
        let exp = experiment::find(experiment::E3.id).unwrap();
        let steps: Vec<Step> = exp
            .steps_at(true, None, None)
            .into_iter()
            .filter(|s| s.endpoint == "/")
            .take(2)
            .collect();
        assert_eq!(steps.len(), 2);
        let manifest = manifest::Manifest::load_default().unwrap();
        let chosen: Vec<(Server, Vec<Step>)> = ["server-prebuilt", "server-hyper"]
            .iter()
            .map(|n| (manifest.get(n).unwrap().clone(), steps.clone()))
            .collect();
        let plan = Plan {
            exp,
            steps,
            tool: Tool::Builtin,
            repeat: 2,
            quick: true,
            loadgen: PathBuf::from("/x/loadgen"),
            subjects: Subjects::Local(chosen.clone()),
            until: None,
        };
        let argv = [
            "bench",
            "run",
            experiment::E3.id,
            "--quick",
            "--rounds",
            "2",
        ];
        let args = match <crate::cli::Cli as clap::Parser>::try_parse_from(argv)
            .unwrap()
            .command
        {
            crate::cli::Cmd::Run(a) => a,
            other => panic!("{other:?}"),
        };
        (plan, chosen, args)
    }

    /// The loop of `plan` over `chosen` with fake servers and `answers` as the tool's output,
    /// its results written under `dir`: what it returned, the results, the checkpoint.
    pub(super) fn measured(
        plan: &Plan,
        chosen: &[(Server, Vec<Step>)],
        args: &RunArgs,
        fakes: &mut crate::step::fake::Fakes,
        launch: &mut crate::step::fake::Recorded,
        dir: &Path,
        seed: u64,
    ) -> (anyhow::Result<Vec<String>>, Results, Checkpoint) {
        let env = Env::new(None);
        let run = Run {
            plan,
            env: &env,
            notes: Vec::new(),
            retries: 0,
            settle: std::time::Duration::ZERO,
            seed,
            search: !args.no_search,
        };
        let mut results = run.results(args, vec!["bench".into(), "run".into()]);
        for (s, steps) in chosen {
            let mut entry = ServerResult::new(s, Vec::new());
            entry.steps = step::results_for(steps);
            results.servers.push(entry);
        }
        let total = chosen.iter().map(|(_, st)| st.len()).sum::<usize>() * plan.repeat as usize;
        let mut ckpt = Checkpoint::new(dir, &env.root, total);
        let got = run.measure(
            chosen,
            (fakes, launch, 1),
            &mut results,
            &mut ckpt,
            &mut Progress::new(),
            &mut fastrand::Rng::with_seed(run.seed),
        );
        (got, results, ckpt)
    }

    fn answers(
        n: usize,
    ) -> std::collections::VecDeque<Result<step::child::Output, step::child::Failure>> {
        let report = crate::step::fake::report();
        (0..n)
            .map(|_| crate::step::fake::exited(0, &report, ""))
            .collect()
    }

    /// A built-in generator's report of an open-loop run at the rate its argv offers (`-R`),
    /// from a server that keeps up with up to 30,000 requests/s and answers 60 % of anything
    /// above (p99 900 ms).
    fn holds_30k(argv: &[String]) -> Result<step::child::Output, step::child::Failure> {
        let rate: f64 = argv
            .iter()
            .position(|a| a == "-R")
            .and_then(|i| argv.get(i + 1))
            .and_then(|r| r.parse().ok())
            .expect("an open-loop run");
        let mut doc: serde_json::Value =
            serde_json::from_str(&crate::step::fake::report()).unwrap();
        let achieved = if rate <= 30_000.0 { rate } else { rate * 0.6 };
        let duration = doc["result"]["duration_s"].as_f64().unwrap();
        let n = (achieved * duration) as u64;
        doc["config"]["load"] = serde_json::json!({ "model": "open", "rate": rate });
        let res = &mut doc["result"];
        res["requests"] = n.into();
        res["responses"] = n.into();
        res["ok"] = n.into();
        res["requests_per_s"] = achieved.into();
        res["status"]["s2xx"] = n.into();
        res["latency"]["count"] = n.into();
        if rate > 30_000.0 {
            res["latency"]["p99_us"] = 900_000.into();
            res["latency"]["p99_9_us"] = 950_000.into();
            res["latency"]["max_us"] = 990_000.into();
        }
        crate::step::fake::exited(0, &doc.to_string(), "")
    }

    #[test]
    fn e7_searches_between_the_last_rate_held_and_the_first_not_held_to_within_5_percent() {
        let dir = std::env::temp_dir().join(format!("bench-search-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let exp = experiment::find(experiment::E7.id).unwrap();
        let argv = [
            "bench",
            "run",
            experiment::E7.id,
            "--quick",
            "--rounds",
            "3",
            "--rates",
            "10000,40000",
            "--endpoints",
            "/hello",
        ];
        let args = match <crate::cli::Cli as clap::Parser>::try_parse_from(argv)
            .unwrap()
            .command
        {
            crate::cli::Cmd::Run(a) => a,
            other => panic!("{other:?}"),
        };
        let steps = crate::plan::chosen_steps(exp, &args).unwrap();
        assert_eq!(steps.len(), 2);
        let manifest = manifest::Manifest::load_default().unwrap();
        let chosen = vec![(manifest.get("server-hyper").unwrap().clone(), steps.clone())];
        let plan = Plan {
            exp,
            steps,
            tool: Tool::Builtin,
            repeat: 3,
            quick: true,
            loadgen: PathBuf::from("/x/loadgen"),
            subjects: Subjects::Local(chosen.clone()),
            until: None,
        };
        let mut fakes = crate::step::fake::Fakes {
            alive: usize::MAX,
            ..Default::default()
        };
        let mut launch = crate::step::fake::Recorded {
            respond: Some(holds_30k),
            ..Default::default()
        };
        let (got, results, _) = measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, 1);
        let _ = std::fs::remove_dir_all(&dir);
        got.unwrap();
        let steps = &results.servers[0].steps;
        let sus = bench_model::sustainable::sustained(steps, "/hello").unwrap();
        // 10k and 40k in 3 rounds each, then 20,000 (held), 28,300 (held), 33,600 (not),
        // 30,800 (not), 29,500 (held): within 5 %, around the true 30,000.
        let (lo, hi) = (sus.rate().unwrap(), sus.not_held().unwrap());
        assert!(
            lo <= 30_000.0 && 30_000.0 < hi && hi <= lo * 1.05,
            "{lo} {hi}"
        );
        assert_eq!(sus.text(), bench_model::stats::thousands(lo));
        let searched: Vec<(&str, usize)> = steps
            .iter()
            .filter(|st| st.searched_rounds == Some(3))
            .map(|st| (st.step.as_str(), st.repeats.len()))
            .collect();
        // Each searched rate ran until two rounds agreed: two rounds each, as this server
        // never wavers.
        assert!(searched.len() >= 3 && searched.len() <= 5, "{searched:?}");
        assert!(searched.iter().all(|(_, n)| *n == 2), "{searched:?}");
        // In order of rate among the endpoint's rungs.
        let rates: Vec<f64> = steps
            .iter()
            .filter_map(bench_model::sustainable::rate_of)
            .collect();
        assert!(rates.windows(2).all(|w| w[0] < w[1]), "{rates:?}");
        // The ladder's own rungs ran in all three rounds.
        for id in ["r10k", "r40k"] {
            let st = steps.iter().find(|st| st.step == id).unwrap();
            assert_eq!(st.repeats.len(), 3, "{id}");
        }
    }

    /// The order in which the loop visits the two servers of each of two steps, two rounds,
    /// drawn from `seed` as it draws it.
    fn replayed(seed: u64) -> Vec<usize> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut visits = Vec::new();
        for _round in 0..2 {
            for _step in 0..2 {
                let mut order = vec![0, 1];
                rng.shuffle(&mut order);
                visits.extend(order);
            }
        }
        visits
    }

    #[test]
    fn each_round_visits_the_servers_in_the_seeds_order_a_fresh_process_per_cell() {
        let dir = std::env::temp_dir().join(format!("bench-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (plan, chosen, args) = e3_plan();
        let seed = 7;
        let mut fakes = crate::step::fake::Fakes {
            alive: usize::MAX,
            ..Default::default()
        };
        // A warm-up and a measured run per cell: 2 servers × 2 steps × 2 rounds.
        let mut launch = crate::step::fake::Recorded {
            answers: answers(16),
            ..Default::default()
        };
        let (got, results, ckpt) =
            measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, seed);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        // Every cell started its server and stopped it before the next, in the order the
        // seed gives: the same seed, the same order.
        let names = ["server-prebuilt", "server-hyper"];
        let want: Vec<String> = replayed(seed)
            .into_iter()
            .flat_map(|i| [format!("start {}", names[i]), format!("stop {}", names[i])])
            .collect();
        assert_eq!(*fakes.log.borrow(), want);
        // And the order is drawn, not fixed: over 20 seeds each server goes first sometimes.
        let firsts: Vec<usize> = (0..20).map(|seed| replayed(seed)[0]).collect();
        assert!(firsts.contains(&0) && firsts.contains(&1), "{firsts:?}");
        assert_eq!(launch.argvs.len(), 16);
        assert!(launch.answers.is_empty());
        for s in &results.servers {
            assert_eq!(s.command, ["fake"]);
            for st in &s.steps {
                let rounds: Vec<Option<u32>> = st.repeats.iter().map(|r| r.round).collect();
                assert_eq!(rounds, [Some(1), Some(2)], "{} {}", s.name, st.step);
                assert!(st.valid, "{} {}: {:?}", s.name, st.step, st.invalid_reason);
            }
        }
        // Every cell was written as it finished: the file holds all eight, still running,
        // with the seed that replays the order.
        assert_eq!((ckpt.done, ckpt.total), (8, 8));
        let on_disk = reread(ckpt.path.as_ref().unwrap());
        assert_eq!(
            on_disk.incomplete_reason.as_deref(),
            Some("running: 8 of 8 step runs done")
        );
        assert_eq!(on_disk.seed, None, "set by `local`, not by the loop");
        assert!(
            on_disk
                .servers
                .iter()
                .all(|s| s.steps.iter().all(|st| st.repeats.len() == 2))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// E3's plan of `e3_plan` in `rounds` rounds with an A/A pair: server-prebuilt, its copy
    /// `server-prebuilt#2` (as `--aa server-prebuilt` adds it) and server-hyper.
    fn aa_plan(rounds: u32) -> (Plan, Vec<(Server, Vec<Step>)>, RunArgs) {
        let (mut plan, mut chosen, args) = e3_plan();
        chosen.insert(1, chosen[0].clone());
        crate::plan::label_copies(&mut chosen);
        plan.repeat = rounds;
        plan.subjects = Subjects::Local(chosen.clone());
        (plan, chosen, args)
    }

    /// Whether the original of the A/A pair went first, in each round and step in order, in
    /// the servers `started` by an A/A plan of 3 servers per step, and where server-hyper
    /// went (0 to 2).
    fn pair_order(started: &[String]) -> Vec<(bool, usize)> {
        started
            .chunks(3)
            .map(|cell| {
                let at = |n: &str| cell.iter().position(|s| s == n).unwrap();
                (
                    at("server-prebuilt") < at("server-prebuilt#2"),
                    at("server-hyper"),
                )
            })
            .collect()
    }

    /// The two copies of an A/A pair take turns going first, round by round (the original in
    /// odd rounds), in every step: over 6 rounds each goes first 3 times, whatever the seed;
    /// the other server still goes where the seed puts it.
    #[test]
    fn the_copies_of_an_aa_pair_go_first_in_turn_over_the_rounds() {
        let dir = std::env::temp_dir().join(format!("bench-loop-aa-{}", std::process::id()));
        let mut hyper_at = std::collections::BTreeSet::new();
        for seed in 0..8 {
            let _ = std::fs::remove_dir_all(&dir);
            let (plan, chosen, args) = aa_plan(6);
            let mut fakes = crate::step::fake::Fakes {
                alive: usize::MAX,
                ..Default::default()
            };
            // A warm-up and a measured run per cell: 3 servers × 2 steps × 6 rounds.
            let mut launch = crate::step::fake::Recorded {
                answers: answers(72),
                ..Default::default()
            };
            let (got, results, _) =
                measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, seed);
            assert_eq!(got.unwrap(), Vec::<String>::new());
            let order = pair_order(&fakes.started());
            assert_eq!(order.len(), 12, "{order:?}");
            // Round by round, both steps alike: the original first in rounds 1, 3 and 5.
            let firsts: Vec<bool> = order.iter().map(|(first, _)| *first).collect();
            let want: Vec<bool> = (1..=6u32).flat_map(|r| [r % 2 == 1; 2]).collect();
            assert_eq!(firsts, want, "seed {seed}");
            hyper_at.extend(order.iter().map(|(_, at)| *at));
            // Both copies were measured in every round, as two servers.
            for s in &results.servers[..2] {
                for st in &s.steps {
                    assert_eq!(st.repeats.len(), 6, "{} {}", s.name, st.step);
                }
            }
        }
        // The other server's place is still drawn: first, between the copies, and last.
        assert_eq!(hyper_at.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A recorded E3 run of 10 rounds (`results-e3-rounds.json`) with an A/A pair whose
    /// ratios hold 1.00; with `slower` < 1, the copy's requests/s at `/` c100 that much lower
    /// in every round, so that every round's ratio is above 1.
    fn e3_aa(slower: f64) -> Results {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../bench-report/tests/data/results-e3-rounds.json");
        let mut r = Results::load(&path).unwrap();
        let copy = r
            .servers
            .iter_mut()
            .find(|s| s.name == "server-prebuilt#2")
            .unwrap();
        let st = &mut copy.steps[0];
        assert_eq!((st.endpoint.as_str(), st.step.as_str()), ("/", "c100"));
        for m in &mut st.repeats {
            m.requests_per_s *= slower;
        }
        st.finish();
        r
    }

    /// The summary `bench run` ends with opens with an A/A pair that differed (every
    /// round's ratio above 1), its size and its rounds; a pair whose ratios hold 1.00 says
    /// nothing there.
    #[test]
    fn the_summary_opens_with_an_aa_pair_that_differed() {
        assert_eq!(summary_head(&e3_aa(1.0)), None);
        let head = summary_head(&e3_aa(0.9)).unwrap();
        assert!(
            head.starts_with(
                "This run's own A/A pair differed: `server-prebuilt` over `server-prebuilt#2` at `/` c100, requests/s 1.11× [1.10–1.11], all 10 rounds above 1"
            ),
            "{head}"
        );
        assert!(head.contains("are not findings"), "{head}");
    }

    #[test]
    fn a_server_that_dies_invalidates_its_cell_and_is_started_again_for_the_next() {
        let dir = std::env::temp_dir().join(format!("bench-loop-dies-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut plan, chosen, args) = e3_plan();
        plan.repeat = 1;
        // Gone at the first question: each cell ends invalid, naming the server's last words.
        let mut fakes = crate::step::fake::Fakes::default();
        let mut launch = crate::step::fake::Recorded {
            answers: answers(8),
            ..Default::default()
        };
        let (got, results, ckpt) =
            measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, 1);
        let problems = got.unwrap();
        // Each server started again for its second step.
        let mut started = fakes.started();
        started.sort();
        assert_eq!(
            started,
            [
                "server-hyper",
                "server-hyper",
                "server-prebuilt",
                "server-prebuilt"
            ]
        );
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems.iter().all(|p| p.contains("fake: gone")
                && (p.starts_with("server-prebuilt: ") || p.starts_with("server-hyper: "))),
            "{problems:?}"
        );
        assert!(
            results
                .servers
                .iter()
                .all(|s| s.steps.iter().all(|st| !st.valid))
        );
        assert_eq!(ckpt.done, 4);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_server_that_cannot_start_stops_the_run_and_keeps_the_cells_before_it() {
        let dir = std::env::temp_dir().join(format!("bench-loop-fail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (plan, chosen, args) = e3_plan();
        // A seed whose first round visits server-prebuilt first.
        let seed = (0..).find(|&s| replayed(s)[0] == 0).unwrap();
        let mut fakes = crate::step::fake::Fakes {
            alive: usize::MAX,
            fail: Some("server-hyper".into()),
            ..Default::default()
        };
        let mut launch = crate::step::fake::Recorded {
            answers: answers(16),
            ..Default::default()
        };
        let (got, mut results, mut ckpt) =
            measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir, seed);
        let e = got.unwrap_err();
        assert!(
            format!("{e:#}").contains("server-hyper: did not start"),
            "{e:#}"
        );
        // server-prebuilt's first cell is in the file, and the error says where it is.
        let e = ckpt.abandon(&mut results, e);
        let partial = e.downcast_ref::<Partial>().unwrap();
        assert_eq!((partial.done, partial.total), (1, 8));
        let on_disk = reread(&partial.path);
        assert!(!on_disk.complete);
        assert_eq!(on_disk.servers[0].steps[0].repeats.len(), 1);
        assert_eq!(on_disk.servers[0].steps[0].repeats[0].round, Some(1));
        assert!(
            on_disk.servers[1]
                .steps
                .iter()
                .all(|st| st.repeats.is_empty())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
