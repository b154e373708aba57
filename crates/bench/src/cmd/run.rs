//! `bench run EXPERIMENT`: carries out a [`Plan`] and writes one results JSON (schema
//! `bench.results/1`).
//!
//! In order: the plan (input checked, servers chosen; [`crate::plan`]), the build (`cargo
//! build --release -p <servers> -p loadgen`), the CPU split, then for each repeat and each
//! server: start it (pinned to the server CPUs), run every step it serves through
//! [`step::run`] (warm-up, measured run, sampling), stop it. Repeats restart the servers,
//! alternating them, so that a slow phase of the machine does not fall on one server only.
//! A signal or an error unwinds through the guards, which stop everything started.
//!
//! The results file is written after every finished step (atomically: [`Results::save`]),
//! with `"complete": false` and the progress in `incomplete_reason` until the run ends, so a
//! run interrupted at minute 29 keeps the steps of its first 28 minutes: the error then
//! carries a [`Partial`] that says where they are, and the exit status still says what
//! stopped the run.
//!
//! With `--target URL` the same steps drive a server that is already running: nothing is
//! built but the built-in generator, nothing is pinned or sampled, and the JSON says so.

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
use bench_model::results::{Pinning, Results, ServerKind, ServerResult, timestamp};
use bench_report::table::Table;
use bench_tools::Tool;

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
            "the article's load: {}; here: {} ({} repeat(s), {lengths})",
            p.exp.article_load,
            p.tool.name(),
            args.repeat.unwrap_or(p.exp.repeat),
        )];
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
        let done = self.measure(
            chosen,
            (&mut start, &mut spawn, tool_cpus),
            &mut results,
            &mut ckpt,
            &mut progress,
        );
        progress.finish();
        match done {
            Ok(problems) => finish(results, ckpt, problems),
            Err(e) => Err(ckpt.abandon(&mut results, e)),
        }
    }

    /// The run's loop: for each repeat, each server in turn is started (by `servers`), runs
    /// every step it serves (its tool launched by `launch` with `tool_cpus` CPUs), and is
    /// stopped; the results are written after every step. Returns the problems that
    /// invalidated steps without stopping the run; a signal or an error stops it.
    fn measure(
        &self,
        chosen: &[(Server, Vec<Step>)],
        (servers, launch, tool_cpus): (&mut dyn Servers, &mut dyn Launch, usize),
        results: &mut Results,
        ckpt: &mut Checkpoint,
        progress: &mut Progress,
    ) -> anyhow::Result<Vec<String>> {
        let p = self.plan;
        let mut problems = Vec::new();
        for r in 1..=p.repeat {
            for (i, (s, steps)) in chosen.iter().enumerate() {
                signals::check()?;
                let label = format!("{} r{r}/{}", s.name, p.repeat);
                progress.phase(format!("{label}: starting"), None);
                let mut running = servers.start(s)?;
                results.servers[i].command = running.command();
                let addr = running.addr();
                if r == 1 && p.exp.verify_first {
                    // TechEmpower verifies every response before any load.
                    results.servers[i].verified = crate::step::answer::before_load(s, addr, steps);
                }
                let failed = self.steps(
                    Subject::new(addr, Some(running.watch())),
                    steps,
                    (&mut *results, i),
                    ckpt,
                    (&mut *launch, tool_cpus),
                    progress,
                    &label,
                )?;
                problems.extend(failed.into_iter().map(|f| format!("{}: {f}", s.name)));
                progress.phase(format!("{label}: stopping"), None);
                let left = running.stop();
                if !left.is_empty() {
                    bail!("{} left processes behind after stopping: {left:?}", s.name);
                }
            }
        }
        // A signal that came while the last server stopped still stops the run.
        signals::check()?;
        Ok(problems)
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
            "remote target {base}: not started by the harness, so no build, no pinning and no /proc sampling (RSS and CPU are null)"
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
        let mut all = || -> anyhow::Result<()> {
            for r in 1..=p.repeat {
                let label = format!("{base} r{r}/{}", p.repeat);
                let failed = self.steps(
                    Subject::new(target.addr, None),
                    steps,
                    (&mut results, 0),
                    &mut ckpt,
                    (&mut spawn, step::cpus_allowed()),
                    &mut progress,
                    &label,
                )?;
                problems.extend(failed);
            }
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

    /// Runs every step against one server (`results.servers[server]`), appending one repeat
    /// to each step result and writing the results after each. Returns the problems that
    /// invalidated steps without stopping the run.
    #[allow(clippy::too_many_arguments)]
    fn steps(
        &self,
        mut subject: Subject<'_>,
        steps: &[Step],
        (results, server): (&mut Results, usize),
        ckpt: &mut Checkpoint,
        (launch, tool_cpus): (&mut dyn Launch, usize),
        progress: &mut Progress,
        label: &str,
    ) -> anyhow::Result<Vec<String>> {
        let mut load = Load {
            tool: self.plan.tool,
            loadgen: &self.plan.loadgen,
            quick: self.plan.quick,
            cpus: tool_cpus,
            retries: self.retries,
            settle: self.settle,
            launch,
        };
        let mut problems = Vec::new();
        let n = steps.len();
        // The endpoints whose ladder of offered rates stopped in this repeat.
        let mut stopped: Vec<&str> = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let entry = &mut results.servers[server];
            let at = entry
                .steps
                .iter()
                .position(|r| r.endpoint == step.endpoint && r.step == step.id);
            // A rung above where the ladder stopped (in this repeat, or an earlier one whose
            // rungs above were taken out of the results) is not run.
            let Some(at) = at.filter(|_| !stopped.contains(&step.endpoint.as_str())) else {
                ckpt.skip();
                continue;
            };
            let what = format!("{label}: {} {} ({}/{n})", step.endpoint, step.id, k + 1);
            problems.extend(step::run(
                &mut load,
                &mut subject,
                step,
                &mut entry.steps[at],
                progress,
                &what,
            )?);
            if step.rate.is_some()
                && let Some(why) = step::rung(&mut entry.steps[at])
            {
                crate::say!(
                    "{}: {} stops at {}: {why}",
                    entry.name,
                    step.endpoint,
                    step.id
                );
                stopped.push(&step.endpoint);
                // The rungs above it that no repeat ran leave the results.
                let rungs: Vec<&str> = steps[k + 1..]
                    .iter()
                    .filter(|s| s.endpoint == step.endpoint)
                    .map(|s| s.id.as_str())
                    .collect();
                entry.steps.retain(|r| {
                    r.endpoint != step.endpoint
                        || !r.repeats.is_empty()
                        || !rungs.contains(&r.step.as_str())
                });
            }
            ckpt.step_done(results)?;
        }
        Ok(problems)
    }
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

/// The medians, one row per server and step, on stdout.
fn print_summary(results: &Results) {
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
                format!("{:.0}{}", m.requests_per_s, bench_report::marks(m)),
                ms(m.latency_us.p50),
                ms(m.latency_us.p99),
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
            "../../../bench-report/tests/data/results-e3.json"
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
        let exp = experiment::find("e3").unwrap();
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
        };
        let argv = ["bench", "run", "e3", "--quick", "--repeat", "2"];
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
    fn measured(
        plan: &Plan,
        chosen: &[(Server, Vec<Step>)],
        args: &RunArgs,
        fakes: &mut crate::step::fake::Fakes,
        launch: &mut crate::step::fake::Recorded,
        dir: &Path,
    ) -> (anyhow::Result<Vec<String>>, Results, Checkpoint) {
        let env = Env::new(None);
        let run = Run {
            plan,
            env: &env,
            notes: Vec::new(),
            retries: 0,
            settle: std::time::Duration::ZERO,
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

    #[test]
    fn the_loop_alternates_the_servers_each_repeat_and_writes_after_every_step() {
        let dir = std::env::temp_dir().join(format!("bench-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (plan, chosen, args) = e3_plan();
        let mut fakes = crate::step::fake::Fakes {
            alive: usize::MAX,
            ..Default::default()
        };
        // A warm-up and a measured run per step: 2 servers × 2 steps × 2 repeats.
        let mut launch = crate::step::fake::Recorded {
            answers: answers(16),
            ..Default::default()
        };
        let (got, results, ckpt) = measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        // Each server started, measured and stopped before the next; the next repeat the same.
        let one = [
            "start server-prebuilt",
            "stop server-prebuilt",
            "start server-hyper",
            "stop server-hyper",
        ];
        assert_eq!(*fakes.log.borrow(), [one, one].concat());
        assert_eq!(launch.argvs.len(), 16);
        assert!(launch.answers.is_empty());
        for s in &results.servers {
            assert_eq!(s.command, ["fake"]);
            for st in &s.steps {
                assert_eq!(st.repeats.len(), 2, "{} {}", s.name, st.step);
                assert!(st.valid, "{} {}: {:?}", s.name, st.step, st.invalid_reason);
            }
        }
        // Every step was written as it finished: the file holds all eight, still running.
        assert_eq!((ckpt.done, ckpt.total), (8, 8));
        let on_disk = reread(ckpt.path.as_ref().unwrap());
        assert_eq!(
            on_disk.incomplete_reason.as_deref(),
            Some("running: 8 of 8 step runs done")
        );
        assert!(
            on_disk
                .servers
                .iter()
                .all(|s| s.steps.iter().all(|st| st.repeats.len() == 2))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_server_that_dies_invalidates_its_steps_and_the_run_goes_on() {
        let dir = std::env::temp_dir().join(format!("bench-loop-dies-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut plan, chosen, args) = e3_plan();
        plan.repeat = 1;
        // Gone at the first question: each step ends invalid, naming the server's last words.
        let mut fakes = crate::step::fake::Fakes::default();
        let mut launch = crate::step::fake::Recorded {
            answers: answers(8),
            ..Default::default()
        };
        let (got, results, ckpt) = measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir);
        let problems = got.unwrap();
        assert_eq!(fakes.started(), ["server-prebuilt", "server-hyper"]);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].starts_with("server-prebuilt: "), "{problems:?}");
        assert!(problems[3].starts_with("server-hyper: "), "{problems:?}");
        assert!(
            problems.iter().all(|p| p.contains("fake: gone")),
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
    fn a_server_that_cannot_start_stops_the_run_and_keeps_the_steps_before_it() {
        let dir = std::env::temp_dir().join(format!("bench-loop-fail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (plan, chosen, args) = e3_plan();
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
            measured(&plan, &chosen, &args, &mut fakes, &mut launch, &dir);
        let e = got.unwrap_err();
        assert!(
            format!("{e:#}").contains("server-hyper: did not start"),
            "{e:#}"
        );
        // server-prebuilt's two steps of the first repeat are in the file, and the error
        // says where it is.
        let e = ckpt.abandon(&mut results, e);
        let partial = e.downcast_ref::<Partial>().unwrap();
        assert_eq!((partial.done, partial.total), (2, 8));
        let on_disk = reread(&partial.path);
        assert!(!on_disk.complete);
        assert_eq!(on_disk.servers[0].steps[0].repeats.len(), 1);
        assert!(
            on_disk.servers[1]
                .steps
                .iter()
                .all(|st| st.repeats.is_empty())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
