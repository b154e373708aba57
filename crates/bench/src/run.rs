//! `bench run EXPERIMENT`: the experiment's steps against each of its servers, written as one
//! results JSON (schema `bench.results/1`).
//!
//! In order: check the input (experiment, tool, servers, that the tool can apply every step),
//! build what is needed (`cargo build --release -p <servers> -p loadgen`), then for each repeat
//! and each server: start it (pinned to the server CPUs), and for each step run a discarded
//! warm-up of the same load, then the measured run (the tool pinned to the load CPU) while
//! [`crate::sample`] reads the server's process tree; stop the server. Repeats restart the
//! servers, alternating them, so that a slow phase of the machine does not fall on one server
//! only. A signal or an error unwinds through the guards, which stop everything started.
//!
//! With `--target URL` the same steps drive a server that is already running: nothing is
//! built but the built-in generator, nothing is pinned or sampled, and the JSON says so.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use manifest::Server;

use crate::cli::RunArgs;
use crate::experiments::{self, Experiment, Step, Warmup};
use crate::load;
use crate::pin::{self, Plan};
use crate::progress::Progress;
use crate::results::{
    self, Git, Machine, Pinning, Results, Rss, ServerKind, ServerResult, StepResult,
};
use crate::sample::Sampler;
use crate::servers::{self, Availability, Env, Running};
use crate::signals;
use crate::table::Table;
use crate::tools::{self, LoadSpec, Tool};

/// How often the server's process tree is read during a measured run.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// What `bench run` did: where the results went, and any step that could not be measured.
#[derive(Debug)]
pub struct Outcome {
    /// The results file.
    pub path: PathBuf,
    /// Problems that did not stop the run (a server that died during a step, a tool that
    /// failed), one line each.
    pub problems: Vec<String>,
}

/// Prints the experiments (`bench run --list`).
pub fn list() {
    let mut t = Table::new(&["id", "title", "article's load", "steps (default)"]);
    for e in &experiments::ALL {
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
    crate::out::text(&t);
}

/// Runs `bench run` as `args` says; `command` is the harness's own argv, for the JSON.
pub fn run(env: &Env, args: &RunArgs, command: Vec<String>) -> anyhow::Result<Outcome> {
    let id = args.experiment.as_deref().unwrap_or_default();
    let exp = experiments::find(id)
        .ok_or_else(|| anyhow!("unknown experiment {id:?} (use {})", experiments::ids()))?;
    let tool: Tool = args.tool.parse()?;
    let steps = exp.steps(args.quick);
    let repeat = args.repeat.unwrap_or(exp.repeat);
    let loadgen = env.binary("loadgen");
    // Every step must be one the tool can apply as asked, before anything starts.
    for step in &steps {
        for spec in [warmup_spec(step), spec(step)] {
            tool.argv(
                &spec,
                &format!("http://127.0.0.1:1{}", step.endpoint),
                &loadgen,
            )?;
        }
    }
    if tool != Tool::Builtin && !tool.available(&loadgen) {
        bail!(
            "{} is not installed (no `{}` on PATH); use --tool builtin",
            tool.name(),
            tool.program()
        );
    }
    let manifest = env.manifest()?;
    let plan = Planned {
        exp,
        steps,
        tool,
        repeat,
        quick: args.quick,
        loadgen,
        notes: Vec::new(),
    };
    match &args.target {
        Some(url) => {
            let server = match args.servers.as_slice() {
                [] => None,
                [name] => Some(find_serving(&manifest, name, exp, &plan.steps)?.clone()),
                _ => bail!("--target drives one server: give at most one name in --servers"),
            };
            plan.run_target(env, args, command, url, server.as_ref())
        }
        None => {
            let servers = choose(env, &manifest, args, exp, &plan.steps)?;
            plan.run_local(env, args, command, &servers)
        }
    }
}

/// The servers a local run uses: named ones (each must run here and serve the steps), or by
/// default every runnable entry that lists the experiment (peers that cannot run are skipped
/// with a printed reason).
fn choose<'m>(
    env: &Env,
    manifest: &'m manifest::Manifest,
    args: &RunArgs,
    exp: &Experiment,
    steps: &[Step],
) -> anyhow::Result<Vec<&'m Server>> {
    let mut out = Vec::new();
    if args.servers.is_empty() {
        for s in &manifest.servers {
            if !s.experiments.iter().any(|e| e == exp.manifest_id) {
                continue;
            }
            let missing = unserved(s, steps);
            if served(s, steps).is_empty() {
                crate::say!("skip {}: it does not serve {}", s.name, missing.join(", "));
                continue;
            }
            match servers::availability(s, env) {
                Availability::Missing(why) => {
                    crate::say!("skip {}: cannot run here: {why}", s.name)
                }
                _ => out.push(s),
            }
        }
        if out.is_empty() {
            bail!(
                "no server of servers.toml can run {} here (see `bench list`)",
                exp.id
            );
        }
    } else {
        for name in &args.servers {
            let s = find_serving(manifest, name, exp, steps)?;
            if let Availability::Missing(why) = servers::availability(s, env) {
                bail!("{name} cannot run here: {why}");
            }
            if out.iter().any(|o: &&Server| o.name == s.name) {
                bail!("{name} is named twice in --servers");
            }
            out.push(s);
        }
    }
    Ok(out)
}

/// The entry `name`, which must serve at least one step's endpoint.
fn find_serving<'m>(
    manifest: &'m manifest::Manifest,
    name: &str,
    exp: &Experiment,
    steps: &[Step],
) -> anyhow::Result<&'m Server> {
    let s = servers::select(manifest, &[name.to_string()], |_| true)?
        .pop()
        .ok_or_else(|| anyhow!("unknown server {name:?}"))?;
    if served(s, steps).is_empty() {
        bail!(
            "{name} does not serve {}, which {} requests",
            unserved(s, steps).join(", "),
            exp.id
        );
    }
    Ok(s)
}

fn path(step: &Step) -> &str {
    step.endpoint.split('?').next().unwrap_or(&step.endpoint)
}

/// The steps whose endpoint `server` serves (servers.toml `endpoints`).
fn served(server: &Server, steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .filter(|s| server.serves(path(s)))
        .cloned()
        .collect()
}

/// The step endpoints (paths without query) that `server` does not serve, each once.
fn unserved<'s>(server: &Server, steps: &'s [Step]) -> Vec<&'s str> {
    let mut out: Vec<&str> = Vec::new();
    for p in steps.iter().map(path) {
        if !server.serves(p) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The load of a step's measured run.
pub fn spec(step: &Step) -> LoadSpec {
    LoadSpec {
        connections: step.connections,
        duration: step.duration,
        requests: step.requests,
        mode: step.mode,
        timeout: Some(step.timeout),
        headers: step.headers.clone(),
        warmup: None,
        stages: Vec::new(),
    }
}

/// The load of a step's warm-up: the same, shorter.
pub fn warmup_spec(step: &Step) -> LoadSpec {
    let (duration, requests) = match step.warmup {
        Warmup::For(d) => (Some(d), None),
        Warmup::Requests(n) => (None, Some(n)),
    };
    LoadSpec {
        duration,
        requests,
        ..spec(step)
    }
}

/// How long a tool run may take before it is killed.
fn limit(spec: &LoadSpec, quick: bool) -> Duration {
    match spec.duration {
        Some(d) => d + spec.timeout.unwrap_or(Duration::from_secs(60)) + Duration::from_secs(30),
        None if quick => Duration::from_secs(120),
        None => Duration::from_secs(600),
    }
}

struct Planned {
    exp: &'static Experiment,
    steps: Vec<Step>,
    tool: Tool,
    repeat: u32,
    quick: bool,
    loadgen: PathBuf,
    notes: Vec<String>,
}

/// Where to drive load, which steps, and how the server is watched.
struct Subject<'a> {
    addr: SocketAddr,
    /// The steps it serves.
    steps: &'a [Step],
    /// The server's PID, when the harness started it (then it is sampled and watched).
    running: Option<&'a mut Running>,
}

impl Planned {
    fn results(&self, args: &RunArgs, command: Vec<String>, env: &Env) -> Results {
        let mut versions = BTreeMap::new();
        versions.insert("bench".to_string(), env!("CARGO_PKG_VERSION").to_string());
        if let Some(v) = first_line_of("rustc", &["--version"]) {
            versions.insert("rustc".into(), v);
        }
        if let Some(v) = self.tool.version(&self.loadgen) {
            versions.insert("tool".into(), v);
        }
        let mut notes = vec![format!(
            "the article's load: {}; here: {} ({} repeat(s), {})",
            self.exp.article_load,
            self.tool.name(),
            args.repeat.unwrap_or(self.exp.repeat),
            if self.quick {
                "--quick: 2 s steps, request counts / 10 (E5: / 25)"
            } else {
                "default lengths"
            }
        )];
        notes.push(
            "each step is preceded by a discarded warm-up of the same load (2 s, or a tenth of the requests; 1 s with --quick)"
                .to_string(),
        );
        if self.exp.id == "e1" {
            notes.push(
                "E1's k6 ramp (1m:100, 2m:500, 2m:1000, 1m:0) is run as plateaus of 100, 500 and 1000 keep-alive connections, 20 s each, back to back on one server process".to_string(),
            );
        }
        notes.extend(self.notes.iter().cloned());
        Results {
            schema: results::SCHEMA.to_string(),
            experiment: self.exp.id.to_string(),
            title: self.exp.title.to_string(),
            started_utc: results::utc_now(),
            finished_utc: String::new(),
            command,
            machine: Machine::detect(),
            git: Git::detect(&env.root),
            versions,
            tool: self.tool.name().to_string(),
            quick: self.quick,
            repeat: self.repeat,
            target: None,
            pinning: None,
            notes,
            servers: Vec::new(),
        }
    }

    fn step_results(steps: &[Step]) -> Vec<StepResult> {
        steps
            .iter()
            .map(|s| StepResult {
                step: s.id.clone(),
                endpoint: s.endpoint.clone(),
                connections: s.connections,
                requests: s.requests,
                duration_s: s.duration.map(|d| d.as_secs_f64()),
                tool_command: Vec::new(),
                valid: true,
                invalid_reason: None,
                repeats: Vec::new(),
                median: None,
                spread: None,
            })
            .collect()
    }

    fn run_local(
        mut self,
        env: &Env,
        args: &RunArgs,
        command: Vec<String>,
        chosen: &[&Server],
    ) -> anyhow::Result<Outcome> {
        let mut packages: Vec<String> = chosen.iter().filter_map(|s| s.package.clone()).collect();
        if self.tool == Tool::Builtin {
            packages.push("loadgen".into());
        }
        let mut progress = Progress::new();
        if env.builds() {
            crate::say!("building {} (cargo build --release)", packages.join(", "));
            progress.phase("cargo build --release".into(), None);
        }
        servers::build(env, &packages, || progress.tick())?;
        if self.tool == Tool::Builtin && !self.tool.available(&self.loadgen) {
            bail!(
                "the built-in tool is missing: no {}",
                self.loadgen.display()
            );
        }
        let plan: Option<Plan> = if args.no_pin {
            self.notes.push("not pinned (--no-pin)".into());
            None
        } else {
            let cpus = pin::allowed().unwrap_or_default();
            let p = pin::plan(&cpus);
            if p.is_none() {
                self.notes.push(
                    "not pinned: fewer than two CPUs to split between server and load".into(),
                );
            }
            p
        };
        for s in chosen {
            let per_cpu = s.default_workers == Some(0)
                || s.command.iter().flatten().any(|a| a.contains("{cpus}"));
            if per_cpu && let Some(p) = &plan {
                self.notes.push(format!(
                    "{} starts one worker per CPU it may use: {} here, pinned to CPU(s) {:?}",
                    s.name,
                    p.server.0.len(),
                    p.server.0
                ));
            }
        }
        self.notes.push(
            "server RSS is the sum over its process tree (supervisor and workers); server CPU is the time on a CPU of every thread of that tree (/proc/PID/task/TID/schedstat, ns) over the tool's whole run, start-up included".into(),
        );
        if let Some(p) = &plan
            && pin::pin_current_thread(&p.load).is_ok()
        {
            self.notes.push(
                "the harness itself (its polling and /proc sampling) ran on the load tool's CPU"
                    .into(),
            );
        }
        let mut results = self.results(args, command, env);
        let mut server_steps: Vec<Vec<Step>> = Vec::new();
        results.pinning = plan.as_ref().map(|p| Pinning {
            server_cpus: p.server.0.clone(),
            load_cpus: p.load.0.clone(),
        });
        for s in chosen {
            if let Some(rt) = s.runtime.as_ref().filter(|_| s.is_peer())
                && let Some(v) = runtime_version(rt)
            {
                results.versions.insert(rt.clone(), v);
            }
            let steps = served(s, &self.steps);
            let missing = unserved(s, &self.steps);
            if !missing.is_empty() {
                let note = format!(
                    "{} does not serve {}: only its other steps ran",
                    s.name,
                    missing.join(", ")
                );
                crate::say!("{note}");
                results.notes.push(note);
            }
            let mut entry = ServerResult::new(s, Vec::new());
            entry.steps = Self::step_results(&steps);
            results.servers.push(entry);
            server_steps.push(steps);
        }
        let total = self.exp.estimate(self.quick) * (chosen.len() as u32) * self.repeat;
        progress.run_length(total);
        let mut problems = Vec::new();
        for r in 1..=self.repeat {
            for (i, s) in chosen.iter().enumerate() {
                signals::check()?;
                let label = format!("{} r{r}/{}", s.name, self.repeat);
                progress.phase(format!("{label}: starting"), None);
                let mut running =
                    servers::start(s, env, args.port, plan.as_ref().map(|p| &p.server))?;
                results.servers[i].command = running.command.clone();
                let addr = running.addr;
                let subject = Subject {
                    addr,
                    steps: &server_steps[i],
                    running: Some(&mut running),
                };
                let failed = self.steps_of(
                    subject,
                    &mut results.servers[i].steps,
                    plan.as_ref(),
                    &mut progress,
                    &label,
                    env,
                )?;
                problems.extend(failed.into_iter().map(|p| format!("{}: {p}", s.name)));
                progress.phase(format!("{label}: stopping"), None);
                let left = running.stop();
                if !left.is_empty() {
                    bail!("{} left processes behind after stopping: {left:?}", s.name);
                }
            }
        }
        progress.finish();
        self.finish(results, &args.results_dir, problems)
    }

    fn run_target(
        mut self,
        env: &Env,
        args: &RunArgs,
        command: Vec<String>,
        url: &str,
        server: Option<&Server>,
    ) -> anyhow::Result<Outcome> {
        let base = url.trim_end_matches('/');
        let target = loadgen::config::Target::parse(base).map_err(|e| anyhow!("--target: {e}"))?;
        if target.path != "/" {
            bail!("--target takes http://HOST:PORT without a path, not {url:?}");
        }
        TcpStream::connect_timeout(&target.addr, Duration::from_secs(3))
            .map_err(|e| anyhow!("nothing answers at {base} ({}): {e}", target.addr))?;
        if self.tool == Tool::Builtin {
            let mut progress = Progress::new();
            if env.builds() {
                crate::say!("building loadgen (cargo build --release)");
                progress.phase("cargo build --release".into(), None);
            }
            servers::build(env, &["loadgen".to_string()], || progress.tick())?;
        }
        self.notes.push(format!(
            "remote target {base}: not started by the harness, so no build, no pinning and no /proc sampling (RSS and CPU are null)"
        ));
        if server.is_none() {
            self.notes.push(
                "the target is not named (--servers): its entry is called `target` and counted as a peer".into(),
            );
        }
        let mut results = self.results(args, command, env);
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
            },
        };
        let steps = match server {
            Some(s) => served(s, &self.steps),
            None => self.steps.clone(),
        };
        entry.steps = Self::step_results(&steps);
        results.servers.push(entry);
        let mut progress = Progress::new();
        progress.run_length(self.exp.estimate(self.quick) * self.repeat);
        let mut problems = Vec::new();
        for r in 1..=self.repeat {
            let label = format!("{base} r{r}/{}", self.repeat);
            let subject = Subject {
                addr: target.addr,
                steps: &steps,
                running: None,
            };
            let failed = self.steps_of(
                subject,
                &mut results.servers[0].steps,
                None,
                &mut progress,
                &label,
                env,
            )?;
            problems.extend(failed);
        }
        progress.finish();
        self.finish(results, &args.results_dir, problems)
    }

    /// Runs every step against one server, appending one repeat to each step result.
    /// Returns the problems that invalidated steps without stopping the run.
    fn steps_of(
        &self,
        mut subject: Subject<'_>,
        out: &mut [StepResult],
        plan: Option<&Plan>,
        progress: &mut Progress,
        label: &str,
        env: &Env,
    ) -> anyhow::Result<Vec<String>> {
        let load_cpus = plan.map(|p| &p.load);
        let mut problems = Vec::new();
        let mut keepalive: Option<Result<(), String>> = None;
        let steps = subject.steps;
        let n = steps.len();
        for (k, (step, result)) in steps.iter().zip(out.iter_mut()).enumerate() {
            signals::check()?;
            if let Some(running) = subject.running.as_deref_mut()
                && !running.alive()
            {
                let why = format!(
                    "the server had exited before this step{}",
                    running
                        .last_stderr()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default()
                );
                invalidate(result, &why);
                problems.push(format!("{} {}: {why}", step.endpoint, step.id));
                continue;
            }
            let url = format!("http://{}{}", subject.addr, step.endpoint);
            let what = format!("{label}: {} {} ({}/{n})", step.endpoint, step.id, k + 1);
            if step.mode == loadgen::Mode::Http10KeepAlive {
                let check = keepalive.get_or_insert_with(|| tools::ab_keepalive_ok(subject.addr));
                if let Err(why) = check {
                    invalidate(
                        result,
                        &format!(
                            "no HTTP/1.0 keep-alive (ab -k's mode), so the run measures reconnects: {why}"
                        ),
                    );
                }
            }
            // Warm-up: the same load, shorter; its figures are discarded.
            let warm = warmup_spec(step);
            let argv = self.tool.argv(&warm, &url, &self.loadgen)?;
            progress.phase(format!("{what} warm-up"), warm.duration);
            match load::run(
                &argv,
                &env.root,
                load_cpus,
                limit(&warm, self.quick),
                || progress.tick(),
            ) {
                Ok(_) => {}
                Err(load::Failure::Overran(_)) => {}
                Err(load::Failure::Other(e)) => return Err(e),
            }
            // The measured run, with the server's process tree sampled throughout.
            let spec = spec(step);
            let argv = self.tool.argv(&spec, &url, &self.loadgen)?;
            result.tool_command = argv.clone();
            progress.phase(what.clone(), spec.duration);
            let sampler = subject
                .running
                .as_deref()
                .map(|r| Sampler::start(r.pid(), SAMPLE_EVERY));
            let output = load::run(
                &argv,
                &env.root,
                load_cpus,
                limit(&spec, self.quick),
                || progress.tick(),
            );
            let usage = sampler.and_then(Sampler::finish);
            let output = match output {
                Ok(o) => o,
                Err(load::Failure::Other(e)) => return Err(e),
                Err(f) => {
                    let why = f.into_error(self.tool.name()).to_string();
                    invalidate(result, &why);
                    problems.push(format!("{} {}: {why}", step.endpoint, step.id));
                    continue;
                }
            };
            let parsed = load::succeeded(self.tool.name(), &output).and_then(|()| {
                self.tool
                    .parse(&output.stdout, &output.stderr)
                    .map_err(anyhow::Error::from)
            });
            let mut run = match parsed {
                Ok(run) => run,
                Err(e) => {
                    let why = e.to_string();
                    invalidate(result, &why);
                    problems.push(format!("{} {}: {why}", step.endpoint, step.id));
                    continue;
                }
            };
            if let Some(u) = usage {
                run.rss_kb = Some(Rss {
                    start: u.rss_start_kb,
                    peak: u.rss_peak_kb,
                    end: u.rss_end_kb,
                });
                run.server_cpu_percent = Some(round2(u.cpu_percent()));
                run.server_cpu_s = Some(round3(u.cpu_s));
                run.cpu_us_per_request =
                    (run.requests > 0).then(|| round3(u.cpu_s * 1e6 / run.requests as f64));
            }
            // A run that got no answer measured nothing (e.g. a load host out of ephemeral
            // ports spends the whole step in connect()): its zeros are not a result.
            let e = &run.errors;
            let failed = e.connect + e.read + e.write + e.timeout;
            if run.requests.saturating_sub(failed) == 0 {
                let why = format!(
                    "{} got no answer in the measured window ({} requests, {failed} socket errors)",
                    self.tool.name(),
                    run.requests
                );
                invalidate(result, &why);
                problems.push(format!("{} {}: {why}", step.endpoint, step.id));
            }
            if let Some(running) = subject.running.as_deref_mut()
                && !running.alive()
            {
                let why = format!(
                    "the server exited during this step{}",
                    running
                        .last_stderr()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default()
                );
                invalidate(result, &why);
                problems.push(format!("{} {}: {why}", step.endpoint, step.id));
            }
            result.repeats.push(run);
        }
        Ok(problems)
    }

    fn finish(
        &self,
        mut results: Results,
        dir: &Path,
        problems: Vec<String>,
    ) -> anyhow::Result<Outcome> {
        // A signal that came while the last server stopped still means: no results.
        signals::check()?;
        for s in &mut results.servers {
            for step in &mut s.steps {
                step.finish();
            }
        }
        results.finished_utc = results::utc_now();
        let path = results
            .write(dir)
            .with_context(|| "cannot write the results".to_string())?;
        print_summary(&results);
        Ok(Outcome { path, problems })
    }
}

fn invalidate(result: &mut StepResult, why: &str) {
    result.valid = false;
    if result.invalid_reason.is_none() {
        result.invalid_reason = Some(why.to_string());
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The first line `program args` prints (stdout, else stderr).
fn first_line_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// A peer runtime's version line (`node --version`; nginx answers `-v`).
fn runtime_version(runtime: &str) -> Option<String> {
    let flag = if runtime == "nginx" {
        "-v"
    } else {
        "--version"
    };
    first_line_of(runtime, &[flag])
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
        "note",
    ]);
    let ms = |us: Option<u64>| us.map_or("-".to_string(), |v| format!("{:.2}", v as f64 / 1000.0));
    let opt = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |v| format!("{v:.d$}"));
    for s in &results.servers {
        for step in &s.steps {
            let note = step.invalid_reason.clone().unwrap_or_default();
            let Some(m) = &step.median else {
                t.row(vec![
                    s.name.clone(),
                    step.endpoint.clone(),
                    step.step.clone(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    note,
                ]);
                continue;
            };
            t.row(vec![
                s.name.clone(),
                step.endpoint.clone(),
                step.step.clone(),
                format!("{:.0}", m.requests_per_s),
                ms(m.latency_us.p50),
                ms(m.latency_us.p99),
                m.errors.total().to_string(),
                format!("{:.0}", m.bytes_per_response),
                m.rss_kb
                    .map_or("-".into(), |r| format!("{:.1}", r.peak as f64 / 1024.0)),
                opt(m.server_cpu_percent, 0),
                opt(m.cpu_us_per_request, 2),
                note,
            ]);
        }
    }
    crate::out::text(&t);
}
