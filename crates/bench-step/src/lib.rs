//! `bench-step`: running one step against one server, the body every measuring command of
//! `bench` shares. A discarded warm-up of the step's load, then the measured run while the
//! server's process tree, the load tool's and the machine are sampled; the tool's output read
//! into a [`Run`] with the tool's own CPU beside the server's (and whether the tool, not the
//! server, set the pace: [`Run::tool_bound`]), the run's timeline, and the step marked invalid
//! (with the reason) when it measured nothing, the tool failed or the server was gone. [`run`]
//! is that body, once, for `bench run` and `bench tools compare` alike.
//!
//! What it stands on, one module each:
//!
//! - [`server`]: servers.toml entries made runnable: availability, `cargo build`, start until
//!   the ready line, stop (always, by a guard);
//! - [`child`]: a load tool (or cargo) as a pinned, time-bounded, killable child process;
//! - [`bench_tools`] (its own crate): every load tool's exact argv and its output parser;
//! - [`sample`]: RSS and CPU of a server's process tree from /proc; [`machine`]: the other
//!   work and steal beside a step, and the preflight; [`timeline`]: the three cut into
//!   half-second intervals over the tool's measured window, the run's timeline;
//! - [`answer`]: one plain `GET` per endpoint judged against the contract's bytes (`bench
//!   verify`'s fairness table, E6's record before any load);
//! - [`procs`] (process groups, /proc), [`pin`] (CPU affinity), [`signals`] (SIGINT/SIGTERM
//!   as a flag) beneath them;
//! - [`error`] (the errors a command's exit status depends on: bad input, a signal) and
//!   [`term`] (stdout that a closed pipe cannot panic, the [`say!`] macro, the progress line).
//!
//! The server is seen through [`Watch`] and the tool is launched through [`Launch`], so the
//! unit tests below drive the whole body with a recorded tool output and a fake server
//! (`fake.rs`, also for `bench`'s tests with the `fake` feature).
#![deny(missing_docs)]

pub mod answer;
pub mod child;
pub mod error;
#[cfg(any(test, feature = "fake"))]
pub mod fake;
pub mod machine;
pub mod pin;
pub mod procs;
pub mod sample;
pub mod server;
pub mod signals;
pub mod term;
pub mod timeline;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::term::progress::Progress;
use bench_model::experiment::{Probe, Step, Warmup};
use bench_model::results::timeline::INTERVAL;
use bench_model::results::{Rss, Run, StepResult, Windows};

use bench_model::rules::{self as verdict, Threads};
use bench_tools::{self as tools, LoadSpec, Tool};
use child::{Failure, Output};
use manifest::Server;
use pin::CpuSet;
use sample::{Sampler, Series, Usage};
use server::Running;

/// How often the server's process tree is read during a measured run.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// The load of a step's measured run.
pub fn spec(step: &Step) -> LoadSpec {
    LoadSpec {
        connections: step.connections,
        duration: step.duration,
        requests: step.requests,
        mode: step.mode,
        timeout: Some(step.timeout),
        headers: step.headers.clone(),
        pipeline: step.pipeline,
        warmup: None,
        stages: Vec::new(),
        rate: step.rate,
        timeline: Some(INTERVAL),
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
        timeline: None,
        ..spec(step)
    }
}

/// How long a tool run may take before it is killed.
pub fn limit(spec: &LoadSpec, quick: bool) -> Duration {
    match spec.duration {
        Some(d) => d + spec.timeout.unwrap_or(Duration::from_secs(60)) + Duration::from_secs(30),
        None if quick => Duration::from_secs(120),
        None => Duration::from_secs(600),
    }
}

/// A server as a step watches it.
pub trait Watch {
    /// The root of its process tree, to sample; `None` for none.
    fn pid(&self) -> Option<i32>;
    /// Whether it still runs.
    fn alive(&mut self) -> bool;
    /// The last line it wrote on stderr, for the reason of an invalid step.
    fn last_stderr(&self) -> Option<String>;
}

impl Watch for Running {
    fn pid(&self) -> Option<i32> {
        Some(Running::pid(self))
    }

    fn alive(&mut self) -> bool {
        Running::alive(self)
    }

    fn last_stderr(&self) -> Option<String> {
        Running::last_stderr(self)
    }
}

/// How a step runs its load tool.
pub trait Launch {
    /// Runs `argv` for at most `limit`, calling `tick` about every 100 ms while it runs.
    fn launch(
        &mut self,
        argv: &[String],
        limit: Duration,
        tick: &mut dyn FnMut(),
    ) -> Result<Output, Failure>;

    /// Runs `argv` as [`Launch::launch`] does and, at the same time, `beside` (a probe) for
    /// at most `beside_limit`; returns both outputs. The default runs them one after the
    /// other (for recorded outputs in tests); [`Spawn`] runs them together.
    fn launch_beside(
        &mut self,
        argv: &[String],
        limit: Duration,
        beside: &[String],
        beside_limit: Duration,
        tick: &mut dyn FnMut(),
    ) -> (Result<Output, Failure>, Result<Output, Failure>) {
        let main = self.launch(argv, limit, tick);
        let probe = self.launch(beside, beside_limit, &mut || {});
        (main, probe)
    }
}

/// The real launcher: [`child::run`] from `cwd`, pinned to `cpus`.
pub struct Spawn<'a> {
    /// The working directory (the workspace root: k6's script path is relative to it).
    pub cwd: &'a Path,
    /// The load CPUs; `None` when not pinned.
    pub cpus: Option<&'a CpuSet>,
}

impl Launch for Spawn<'_> {
    fn launch(
        &mut self,
        argv: &[String],
        limit: Duration,
        tick: &mut dyn FnMut(),
    ) -> Result<Output, Failure> {
        child::run(argv, self.cwd, self.cpus, limit, tick)
    }

    fn launch_beside(
        &mut self,
        argv: &[String],
        limit: Duration,
        beside: &[String],
        beside_limit: Duration,
        tick: &mut dyn FnMut(),
    ) -> (Result<Output, Failure>, Result<Output, Failure>) {
        let (cwd, cpus) = (self.cwd, self.cpus);
        std::thread::scope(|scope| {
            let probe = std::thread::Builder::new()
                .name("bench-probe".into())
                .spawn_scoped(scope, move || {
                    child::run(beside, cwd, cpus, beside_limit, || {})
                });
            let main = child::run(argv, cwd, cpus, limit, tick);
            let probe = match probe {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(Failure::Other(anyhow::anyhow!(
                        "the probe's thread panicked"
                    )))
                }),
                Err(e) => Err(Failure::Other(anyhow::anyhow!(
                    "cannot start the probe's thread: {e}"
                ))),
            };
            (main, probe)
        })
    }
}

/// What starts a server for a run's steps: [`Start`] starts its process; a test gives a fake
/// one, as it gives recorded tool output through [`Launch`].
pub trait Servers {
    /// Starts `server` and waits until it is ready.
    fn start(&mut self, server: &Server) -> anyhow::Result<Box<dyn Started>>;
}

/// A server started for steps: watched while they run, stopped after them.
pub trait Started: Watch {
    /// Where it listens.
    fn addr(&self) -> SocketAddr;
    /// The command that started it, for the results.
    fn command(&self) -> Vec<String>;
    /// Stops it (its whole process tree); the PIDs that were still there after (none,
    /// normally).
    fn stop(&mut self) -> Vec<i32>;
    /// It, as the step body watches it.
    fn watch(&mut self) -> &mut dyn Watch;
}

impl Started for Running {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
    fn command(&self) -> Vec<String> {
        self.command.clone()
    }
    fn stop(&mut self) -> Vec<i32> {
        Running::stop(self)
    }
    fn watch(&mut self) -> &mut dyn Watch {
        self
    }
}

/// The real starter: [`server::start_with`] on `port`, pinned to `cpus`, with `workers`.
pub struct Start<'a> {
    /// Where the binaries are, and the manifest's servers.
    pub env: &'a server::Env,
    /// The port (0: any free one).
    pub port: u16,
    /// The server CPUs; `None` when not pinned.
    pub cpus: Option<&'a CpuSet>,
    /// `--workers`, when given.
    pub workers: Option<usize>,
}

impl Servers for Start<'_> {
    fn start(&mut self, server: &Server) -> anyhow::Result<Box<dyn Started>> {
        let running = server::start_with(server, self.env, self.port, self.cpus, self.workers)?;
        Ok(Box::new(running))
    }
}

/// The load side of a step: which tool, and how it is launched.
pub struct Load<'a> {
    /// The tool.
    pub tool: Tool,
    /// The built-in generator's binary.
    pub loadgen: &'a Path,
    /// Whether the steps are `--quick` ones (a shorter limit for count-bounded steps).
    pub quick: bool,
    /// How many CPUs the tool is given (the load CPUs when pinned, else every CPU this
    /// process may use): the measure of [`Run::tool_bound`] for a multi-threaded tool.
    pub cpus: usize,
    /// How many times a disturbed run is measured again before it is recorded (`--retries`).
    pub retries: u32,
    /// The most a step waits for the server to go idle before its load starts
    /// ([`SETTLE_LIMIT`]; zero: it does not wait).
    pub settle: Duration,
    /// The launcher.
    pub launch: &'a mut dyn Launch,
}

/// What a step drives: an address and, when the harness started the server, the server.
pub struct Subject<'a> {
    /// Where the load goes.
    pub addr: SocketAddr,
    server: Option<&'a mut dyn Watch>,
    /// Whether it keeps an HTTP/1.0 connection open (checked once, at the first step that
    /// needs it).
    keepalive: Option<Result<(), String>>,
    /// The length its responses must have, per request kind and target (read once, before
    /// the first step that loads it).
    lengths: std::collections::HashMap<String, Result<answer::Length, String>>,
}

impl<'a> Subject<'a> {
    /// `addr`, served by `server` when the harness started it (then it is watched and
    /// sampled), by something else otherwise.
    pub fn new(addr: SocketAddr, server: Option<&'a mut dyn Watch>) -> Subject<'a> {
        Subject {
            addr,
            server,
            keepalive: None,
            lengths: std::collections::HashMap::new(),
        }
    }

    /// The length `step`'s responses must have ([`answer::length`]), read on the first call
    /// for its kind of request and target.
    fn length(&mut self, step: &Step) -> Result<answer::Length, String> {
        let addr = self.addr;
        self.lengths
            .entry(length_key(step))
            .or_insert_with(|| answer::length(addr, &step.endpoint, step.mode, &step.headers))
            .clone()
    }

    /// How many CPUs the server may run on (its affinity), when the harness started it.
    fn server_cpus(&self) -> Option<usize> {
        pin::allowed_of(self.pid()?).ok().map(|c| c.len().max(1))
    }

    /// Why the step is void when the server is no longer running: `the server {when} this
    /// step (its last stderr line)`; `None` while it runs (or is not watched).
    fn gone(&mut self, when: &str) -> Option<String> {
        let server = self.server.as_deref_mut()?;
        if server.alive() {
            return None;
        }
        let last = server
            .last_stderr()
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        Some(format!("the server {when} this step{last}"))
    }

    fn pid(&self) -> Option<i32> {
        self.server.as_deref().and_then(Watch::pid)
    }
}

/// What [`Subject::length`] keeps a length under: the kind of request and the target.
fn length_key(step: &Step) -> String {
    format!("{:?} {}", step.mode, step.endpoint)
}

/// Runs `step` once against `subject`: a warm-up, then the measured run, appended to
/// `result.repeats` when it gave a run. A run the machine disturbed ([`verdict::disturbed`]) is
/// set aside and measured again, up to [`Load::retries`] times, and recorded marked when it never
/// ran clean. Returns the problems that made the step invalid without stopping the run
/// (`ENDPOINT STEP: reason`, one each); an `Err` is what must stop it (a signal, a tool that
/// cannot be started). `what` names the step on the progress line.
pub fn run(
    load: &mut Load<'_>,
    subject: &mut Subject<'_>,
    step: &Step,
    result: &mut StepResult,
    progress: &mut Progress,
    what: &str,
) -> anyhow::Result<Vec<String>> {
    signals::check()?;
    let void = |result: &mut StepResult, why: String| {
        invalidate(result, &why);
        format!("{} {}: {why}", step.endpoint, step.id)
    };
    if let Some(why) = subject.gone("had exited before") {
        return Ok(vec![void(result, why)]);
    }
    if step.mode == loadgen::Mode::Http10KeepAlive {
        let addr = subject.addr;
        let check = subject
            .keepalive
            .get_or_insert_with(|| answer::ab_keepalive_ok(addr));
        if let Err(why) = check {
            invalidate(
                result,
                &format!(
                    "no HTTP/1.0 keep-alive (ab -k's mode), so the run measures reconnects: {why}"
                ),
            );
        }
    }
    let mut discarded = 0;
    loop {
        let label = match discarded {
            0 => what.to_string(),
            n => format!("{what} again ({n}: the machine was busy)"),
        };
        let (mut run, why) = match measure(load, subject, step, progress, &label)? {
            Measured::Void(why) => return Ok(vec![void(result, why)]),
            Measured::Run(run, why) => (run, why),
        };
        if run.disturbed && why.is_empty() && discarded < load.retries {
            discarded += 1;
            continue;
        }
        run.discarded = discarded;
        result.tool_command = run_argv(load, subject, step)?;
        result.repeats.push(*run);
        return Ok(why.into_iter().map(|w| void(result, w)).collect());
    }
}

/// The argv of a step's measured run (its port is the subject's).
fn run_argv(load: &Load<'_>, subject: &Subject<'_>, step: &Step) -> anyhow::Result<Vec<String>> {
    match &step.probe {
        Some(p) if step.connections == 0 => {
            let url = format!("http://{}{}", subject.addr, p.endpoint);
            Ok(Tool::Builtin.argv(&probe_spec(p, step), &url, load.loadgen)?)
        }
        _ => {
            let url = format!("http://{}{}", subject.addr, step.endpoint);
            Ok(load.tool.argv(&spec(step), &url, load.loadgen)?)
        }
    }
}

/// What one measured attempt of a step gave.
enum Measured {
    /// Nothing to record, and why.
    Void(String),
    /// A run, and why it is not valid (empty: it is).
    Run(Box<Run>, Vec<String>),
}

/// The most rounds of a count-bounded step.
const MAX_ROUNDS: u32 = 200;

/// How long a step waits at most for the server to finish what earlier steps left it (E4's
/// blocked sums still queued on a blocking pool, say) before its own load starts.
pub const SETTLE_LIMIT: Duration = Duration::from_secs(30);

/// The window over which the server's CPU is read while waiting for it to settle.
const SETTLE_WINDOW: Duration = Duration::from_millis(250);

/// Below this share of one CPU over `SETTLE_WINDOW` (250 ms) the server is idle.
pub const IDLE_CPU_PERCENT: f64 = 5.0;

/// What a server is settling from: the step before this one, or this step's own warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// The step before (or the server's start).
    StepBefore,
    /// This step's discarded warm-up.
    WarmUp,
}

impl After {
    fn what(self) -> &'static str {
        match self {
            After::StepBefore => "the step before",
            After::WarmUp => "its warm-up",
        }
    }
}

/// How a wait for the server to go idle ended, when it was not idle at once.
#[derive(Clone, Debug, PartialEq)]
struct Settled {
    /// The note for the run.
    note: String,
    /// Whether it never went idle within the limit.
    never: bool,
}

/// Waits until the server's process tree is idle (under [`IDLE_CPU_PERCENT`] of a CPU over
/// [`SETTLE_WINDOW`]), at most `limit` ([`SETTLE_LIMIT`]), so that a step does not measure the
/// backlog of the one before it, nor of its own warm-up (`after`). Returns how the wait ended
/// when it was longer than one window (how long, or that the server never settled and how busy
/// it still was); `None` when it was idle at once, or is not watched; an `Err` on a signal.
fn settle(
    limit: Duration,
    subject: &Subject<'_>,
    progress: &mut Progress,
    what: &str,
    after: After,
) -> anyhow::Result<Option<Settled>> {
    let Some(pid) = subject.pid().filter(|_| !limit.is_zero()) else {
        return Ok(None);
    };
    let t0 = std::time::Instant::now();
    let mut waited = false;
    loop {
        let Some(usage) = sample::over(pid, SETTLE_WINDOW) else {
            return Ok(None);
        };
        let busy = usage.cpu_percent();
        if busy < IDLE_CPU_PERCENT {
            return Ok(waited.then(|| Settled {
                note: format!(
                    "the server was still busy from {}; this step waited {:.1} s for it to go idle first",
                    after.what(),
                    t0.elapsed().as_secs_f64()
                ),
                never: false,
            }));
        }
        if t0.elapsed() >= limit {
            return Ok(Some(Settled {
                note: format!(
                    "the server was still busy from {} ({busy:.0} % of a CPU after {:.0} s of waiting): this step shares the machine with that backlog",
                    after.what(),
                    limit.as_secs_f64()
                ),
                never: true,
            }));
        }
        if !waited {
            progress.phase(
                format!("{what}: waiting for the server to go idle"),
                Some(limit),
            );
            waited = true;
        }
        progress.tick();
        signals::check()?;
    }
}

/// One attempt: the warm-up, then the measured run (rounds of a count until
/// [`MIN_COUNT_STEP`](verdict::MIN_COUNT_STEP)), with the server's tree, the tool's and the machine read throughout.
fn measure(
    load: &mut Load<'_>,
    subject: &mut Subject<'_>,
    step: &Step,
    progress: &mut Progress,
    what: &str,
) -> anyhow::Result<Measured> {
    let url = format!("http://{}{}", subject.addr, step.endpoint);
    // The probe (E4): the built-in generator, a small load on its own endpoint, beside the
    // measured run; a step of no connections is the probe alone, then the measured run with
    // its timeline.
    let alone = step.connections == 0 && step.probe.is_some();
    let probe = match &step.probe {
        Some(p) => {
            let spec = LoadSpec {
                timeline: alone.then_some(INTERVAL),
                ..probe_spec(p, step)
            };
            let url = format!("http://{}{}", subject.addr, p.endpoint);
            let argv = Tool::Builtin.argv(&spec, &url, load.loadgen)?;
            Some((spec, argv))
        }
        None => None,
    };
    let mut settled: Vec<Settled> =
        settle(load.settle, subject, progress, what, After::StepBefore)?
            .into_iter()
            .collect();
    // The length its responses must have, from one request before any load.
    let length = (!alone).then(|| subject.length(step));
    let mut warm_backlog = false;
    if !alone {
        // Warm-up: the same load, shorter; its figures are discarded.
        let warm = warmup_spec(step);
        let argv = load.tool.argv(&warm, &url, load.loadgen)?;
        progress.phase(format!("{what} warm-up"), warm.duration);
        match load
            .launch
            .launch(&argv, limit(&warm, load.quick), &mut || progress.tick())
        {
            Ok(_) | Err(Failure::Overran(_)) => {}
            Err(Failure::Other(e)) => return Err(e),
        }
        // A backlog the warm-up left would run into the measured window.
        let after = settle(load.settle, subject, progress, what, After::WarmUp)?;
        warm_backlog = after.as_ref().is_some_and(|s| s.never);
        settled.extend(after);
    }
    let (tool, spec, argv) = match &probe {
        Some((spec, argv)) if alone => (Tool::Builtin, spec.clone(), argv.clone()),
        _ => {
            let spec = spec(step);
            let argv = load.tool.argv(&spec, &url, load.loadgen)?;
            (load.tool, spec, argv)
        }
    };
    let counted = spec.duration.is_none() && !load.quick;
    progress.phase(what.to_string(), spec.duration);
    // The measured run, with the server's process tree and the machine read throughout.
    let t0 = std::time::Instant::now();
    let sampler = subject.pid().map(|pid| Sampler::start(pid, SAMPLE_EVERY));
    let ticker = timeline::Ticker::start(SAMPLE_EVERY);
    let clock = machine::Clock::now();
    let lim = limit(&spec, load.quick);
    let mut rounds: Vec<(Run, Output)> = Vec::new();
    let mut beside = None;
    loop {
        let (output, b) = match &probe {
            Some((pspec, pargv)) if !alone => {
                let (o, b) = load.launch.launch_beside(
                    &argv,
                    lim,
                    pargv,
                    limit(pspec, load.quick),
                    &mut || progress.tick(),
                );
                (o, Some(b))
            }
            _ => (
                load.launch.launch(&argv, lim, &mut || progress.tick()),
                None,
            ),
        };
        beside = beside.or(b);
        let output = match output {
            Ok(o) => o,
            Err(Failure::Other(e)) => return Err(e),
            Err(f) => return Ok(Measured::Void(f.into_error(tool.name()).to_string())),
        };
        let run = match measured(tool, &output) {
            Ok(run) => run,
            Err(e) => return Ok(Measured::Void(e.to_string())),
        };
        let failed = verdict::failed(tool.name(), &run).is_some();
        rounds.push((run, output));
        let so_far: f64 = rounds.iter().map(|(r, _)| r.duration_s).sum();
        if !counted
            || failed
            || so_far >= verdict::MIN_COUNT_STEP.as_secs_f64()
            || rounds.len() as u32 >= MAX_ROUNDS
            || subject.gone("exited during").is_some()
        {
            break;
        }
        signals::check()?;
    }
    let series = sampler.and_then(Sampler::finish);
    let machine = clock.zip(machine::Clock::now()).map(|(a, b)| a.until(&b));
    let timeline = ticker
        .finish()
        .and_then(|ticks| step_timeline(tool, &rounds, &ticks, series.as_ref()));
    let n_rounds = rounds.len() as u32;
    let tool_usage = tool_window(&rounds);
    // Each round's whole CPU, to its exit: what the readings missed after their last is not
    // other work.
    let tool_whole_cpu_s: f64 = rounds.iter().map(|(_, o)| o.whole_cpu_s()).sum();
    let mut run = merge_rounds(rounds.iter().map(|(r, _)| r.clone()).collect());
    if counted {
        run.rounds = Some(n_rounds);
    }
    run.timeline = timeline;
    let server = series.as_ref().map(Series::usage);
    if let Some(u) = &server {
        add_usage(&mut run, u);
    }
    // The window the CPU shares are measured over: the server's, else the tool's.
    let window_s = server.map_or(run.duration_s, |u| u.wall_s);
    run.unmeasured = verdict::too_short(window_s);
    let measurable = run.unmeasured.is_none();
    if !measurable {
        run.server_cpu_percent = None;
    }
    add_tool_usage(
        &mut run,
        tool.threads(load.cpus),
        load.cpus,
        tool_usage.as_ref().filter(|_| measurable),
    );
    if spec.pipeline > 1 {
        tools::pipelined(tool, spec.pipeline, &mut run);
    }
    if let Some(rate) = spec.rate {
        tools::offered(tool, rate, &mut run);
    }
    // After the offered rate is recorded, which sets an open-loop run's pace by design. The
    // probe alone (E4's baseline) is one connection by design, not a load that fell short.
    if let (Some(u), Some(cpus), false) =
        (server.filter(|_| measurable), subject.server_cpus(), alone)
    {
        let bound = verdict::server_bound(cpus, &u);
        run.round_trips_bound = verdict::round_trips_set_pace(&run, bound);
    }
    run.notes.extend(settled.iter().map(|s| s.note.clone()));
    if alone {
        run.probe = Some(Box::new(probe_only(&run)));
    }
    let mut why = Vec::new();
    let mut probe_cpu_s = 0.0;
    match beside {
        Some(Ok(o)) => match measured(Tool::Builtin, &o) {
            Ok(mut p) => {
                let u = o.usage.as_ref().map(|s| s.last(p.duration_s));
                probe_cpu_s = o.whole_cpu_s();
                add_tool_usage(
                    &mut p,
                    Tool::Builtin.threads(load.cpus),
                    load.cpus,
                    u.as_ref().filter(|_| measurable),
                );
                if let Some((main, _)) = rounds.first() {
                    let w = Windows {
                        load: window_of(&rounds[0].1, main.duration_s, t0),
                        probe: window_of(&o, p.duration_s, t0),
                    };
                    if !w.probe_inside() {
                        why.push(format!(
                            "the probe's measured window ({:.1}–{:.1} s) is not inside the load's ({:.1}–{:.1} s), so it did not measure the server under that load",
                            w.probe[0], w.probe[1], w.load[0], w.load[1]
                        ));
                    }
                    run.windows = Some(w);
                }
                run.probe = Some(Box::new(p));
            }
            Err(e) => run.notes.push(format!("the probe on {PROBE}: {e}")),
        },
        Some(Err(Failure::Other(e))) => return Err(e),
        Some(Err(f)) => run.notes.push(format!(
            "the probe on {PROBE}: {}",
            f.into_error(Tool::Builtin.name())
        )),
        None => {}
    }
    if let (Some(w), true) = (machine, measurable) {
        let accounted = server.map(|u| u.cpu_s + tool_whole_cpu_s + probe_cpu_s);
        let i = w.interference(
            accounted,
            server.map(|u| u.wait_s),
            tool_usage.map(|u| (u.wait_s, u.wall_s)),
        );
        run.disturbed_reason = verdict::disturbed(&i);
        run.disturbed = run.disturbed_reason.is_some();
        run.interference = Some(i);
    }
    // A server that never went idle after its warm-up carried that backlog into the measured
    // window: the figures are not of this load alone, so the step is marked (and measured
    // again, as a disturbed one is, up to --retries).
    if warm_backlog {
        let why = "the server never went idle after its warm-up";
        run.disturbed = true;
        run.disturbed_reason = Some(match run.disturbed_reason.take() {
            Some(other) => format!("{other}; {why}"),
            None => why.to_string(),
        });
    }
    if let Some(w) = verdict::failed(tool.name(), &run) {
        why.push(w);
    }
    match length {
        Some(Ok(l)) => {
            let head = tool.counts_head();
            let expected = l.counted(head) as f64;
            if let Some(w) = verdict::wrong_length(tool.name(), &run, expected, &l.describe(head)) {
                why.push(w);
            }
        }
        Some(Err(e)) => run.notes.push(format!(
            "the responses' length was not checked: one request before the load got no answer ({e})"
        )),
        None => {}
    }
    if let Some(w) = subject.gone("exited during") {
        why.push(w);
    }
    Ok(Measured::Run(Box::new(run), why))
}

/// The timeline of a step's measured window (its rounds' windows, first to last), from the
/// machine's readings, the server's and the tools', and the built-in generator's own when the
/// step was one run of it.
fn step_timeline(
    tool: Tool,
    rounds: &[(Run, Output)],
    ticks: &timeline::Ticks,
    server: Option<&Series>,
) -> Option<bench_model::results::timeline::Timeline> {
    let ((first, o1), (_, on)) = (rounds.first()?, rounds.last()?);
    let end = |o: &Output| o.started + o.elapsed;
    let start = end(o1).checked_sub(std::time::Duration::from_secs_f64(
        first.duration_s.max(0.0),
    ))?;
    let generated = match (tool, rounds) {
        (Tool::Builtin, [(_, o)]) => bench_tools::timeline(&o.stdout, &o.stderr).ok().flatten(),
        _ => None,
    };
    timeline::cut(&timeline::Sources {
        window: (start.max(o1.started), end(on)),
        ticks,
        server,
        tools: rounds
            .iter()
            .filter_map(|(_, o)| o.usage.as_ref())
            .collect(),
        generated: generated.as_ref(),
    })
}

/// `[start, end]` of a tool's measured window, seconds from `t0`: the last `duration_s`
/// seconds before it exited.
fn window_of(o: &Output, duration_s: f64, t0: std::time::Instant) -> [f64; 2] {
    let end = (o.started + o.elapsed)
        .saturating_duration_since(t0)
        .as_secs_f64();
    let r = |x: f64| (x * 100.0).round() / 100.0;
    [r((end - duration_s).max(0.0)), r(end)]
}

/// The tool's use over the measured windows of its rounds, added up; `None` when it was not
/// sampled.
fn tool_window(rounds: &[(Run, Output)]) -> Option<Usage> {
    let mut sum: Option<Usage> = None;
    for (run, out) in rounds {
        let Some(u) = out.usage.as_ref().map(|s| s.last(run.duration_s)) else {
            continue;
        };
        let s = sum.get_or_insert_with(Usage::default);
        s.cpu_s += u.cpu_s;
        s.wait_s += u.wait_s;
        s.busiest_thread_s += u.busiest_thread_s;
        s.wall_s += u.wall_s;
    }
    sum
}

/// The rounds of a count-bounded step as one run: requests, errors and the window added up,
/// rates over the whole, latency percentiles the median of the rounds' (the tools report no
/// histogram to merge), notes once each.
pub fn merge_rounds(mut runs: Vec<Run>) -> Run {
    if runs.len() <= 1 {
        return runs.pop().unwrap_or_default();
    }
    let mut m = bench_model::results::median(&runs).unwrap_or_default();
    let requests: u64 = runs.iter().map(|r| r.requests).sum();
    let duration: f64 = runs.iter().map(|r| r.duration_s).sum();
    let bytes: f64 = runs
        .iter()
        .map(|r| r.transfer_bytes_per_s * r.duration_s)
        .sum();
    m.requests = requests;
    m.duration_s = round3(duration);
    if duration > 0.0 {
        m.requests_per_s = round2(requests as f64 / duration);
        m.transfer_bytes_per_s = round2(bytes / duration);
    }
    m.latency_us.max = runs.iter().filter_map(|r| r.latency_us.max).max();
    let mut e = bench_model::results::Errors::default();
    for r in &runs {
        e.connect += r.errors.connect;
        e.read += r.errors.read;
        e.write += r.errors.write;
        e.timeout += r.errors.timeout;
        e.status += r.errors.status;
        e.other += r.errors.other;
    }
    m.errors = e;
    m
}

/// The endpoint a probe loads, for notes.
const PROBE: &str = bench_model::experiment::PROBE_ENDPOINT;

/// The load of `probe` beside `step`'s measured run: closed loop on keep-alive connections,
/// its warm-up discarded by the generator itself, the step's timeout.
pub fn probe_spec(probe: &Probe, step: &Step) -> LoadSpec {
    LoadSpec {
        connections: probe.connections,
        duration: Some(probe.duration),
        requests: None,
        mode: loadgen::Mode::KeepAlive,
        pipeline: 1,
        timeout: Some(step.timeout),
        headers: Vec::new(),
        warmup: Some(probe.warmup),
        stages: Vec::new(),
        rate: None,
        timeline: None,
    }
}

/// The probe's fields of `run` (what a probe reports: requests/s, latency, errors, the
/// tool's own CPU), without the server's, which belong to the step.
fn probe_only(run: &Run) -> Run {
    Run {
        rss_kb: None,
        server_cpu_percent: None,
        server_cpu_s: None,
        cpu_us_per_request: None,
        cpu_user_us_per_request: None,
        cpu_kernel_us_per_request: None,
        probe: None,
        timeline: None,
        ..run.clone()
    }
}

/// The run a tool's output reports, if it finished ([`Tool::finished`]: exit status 0, or
/// k6's 99 for crossed thresholds, which the run's notes then say) and can be read.
pub fn measured(tool: Tool, output: &Output) -> anyhow::Result<Run> {
    let code = output.status.code();
    if !tool.finished(code) {
        child::succeeded(tool.name(), output)?;
    }
    let mut run = tool.parse(&output.stdout, &output.stderr)?;
    if code != Some(0) {
        run.notes.push(format!(
            "{tool}: exit status {} (the script's thresholds, p95 < 500 ms and failures < 1 %, were crossed)",
            code.unwrap_or(-1)
        ));
    }
    Ok(run)
}

/// The CPUs of this process's affinity (at least 1): what an unpinned tool is given.
pub fn cpus_allowed() -> usize {
    pin::allowed().map_or(1, |v| v.len().max(1))
}

/// Fills the tool-side fields of `run` from `u`, its use over its measured window (`None`:
/// not measured, or a window too short): its CPU percent, its busiest thread's, the CPUs it
/// could keep busy, and the one verdict of [`verdict::tool_bound`], which replaces the tool's
/// own guess of its CPU (loadgen's `generator_bound`), and with it whether a generator that
/// left requests unsent fell behind ([`Run::tool_fell_behind`], `rules::fell_behind`). Not
/// measured: no CPU verdict, and the generator's own unsent verdict stands.
pub fn add_tool_usage(run: &mut Run, threads: Threads, given: usize, u: Option<&Usage>) {
    run.tool_cpus = Some(match threads {
        Threads::One => 1,
        Threads::Many { cpus } => cpus.min(given.max(1)),
    });
    run.tool_bound = run.tool_fell_behind;
    let Some(u) = u.filter(|u| u.wall_s > 0.0) else {
        return;
    };
    run.tool_cpu_percent = Some(round2(u.cpu_percent()));
    run.tool_busiest_thread_percent = Some(round2(u.busiest_thread_percent()));
    run.tool_bound = verdict::tool_bound(threads, u);
    if let (Some(unsent), Some(due)) = (run.unsent_requests, run.intended_requests) {
        run.tool_fell_behind = bench_model::rules::fell_behind(unsent, due, run.tool_bound)
            == bench_model::rules::Unsent::Generator;
    }
}

/// Fills the server-side fields of `run` from what the sampler saw.
pub fn add_usage(run: &mut Run, u: &Usage) {
    run.rss_kb = Some(Rss {
        start: u.rss_start_kb,
        peak: u.rss_peak_kb,
        end: u.rss_end_kb,
    });
    run.server_cpu_percent = Some(round2(u.cpu_percent()));
    run.server_cpu_s = Some(round3(u.cpu_s));
    let n = run.requests;
    run.cpu_us_per_request = per_request(Some(u.cpu_s), n);
    run.cpu_user_us_per_request = per_request(u.user_s, n);
    run.cpu_kernel_us_per_request = per_request(u.kernel_s, n);
}

/// `s` seconds over `n` requests, in µs; `None` without either.
fn per_request(s: Option<f64>, n: u64) -> Option<f64> {
    Some(round3(s? * 1e6 / (n > 0).then_some(n)? as f64))
}

/// After a rung of a ladder of offered rates (a step with a rate, E7) has run: why the
/// server's ladder on that endpoint stops here in this round, or `None` when it goes on to
/// the next rate. (Whether the server *holds* the rate is the majority of its rounds:
/// [`bench_model::sustainable`].)
///
/// It stops at a rung that gave no valid run (the step is invalid already: failed requests, a
/// server gone, a tool that failed), and where the server could not keep up
/// ([`verdict::saturated`], on the run just measured): that rung is then its saturation
/// ([`StepResult::saturation`]), unless the load tool was the limit there ([`Run::tool_bound`]),
/// which makes the rung invalid instead: the rate the tool could not offer says nothing of the
/// server.
pub fn rung(result: &mut StepResult) -> Option<String> {
    let Some(run) = result.repeats.last() else {
        return Some(
            result
                .invalid_reason
                .clone()
                .unwrap_or_else(|| "no run".into()),
        );
    };
    if !result.valid {
        return Some(format!(
            "invalid: {}",
            result.invalid_reason.as_deref().unwrap_or("no reason")
        ));
    }
    let why = verdict::saturated(run)?;
    if run.tool_bound {
        // (Requests left unsent are in `why` already: `verdict::saturated` names them.)
        let busy = run
            .tool_busiest_thread_percent
            .map(|p| format!(", its busiest thread at {p:.0} %"))
            .unwrap_or_default();
        let reason = format!(
            "the load tool was the limit at this rate ({why}{busy}), so this is not the server's saturation"
        );
        invalidate(result, &reason);
        return Some(reason);
    }
    if result.saturation.is_none() {
        result.saturation = Some(why.clone());
    }
    Some(format!("its saturation: {why}"))
}

/// Marks `result` invalid; the first reason is the one kept.
pub fn invalidate(result: &mut StepResult, why: &str) {
    result.valid = false;
    if result.invalid_reason.is_none() {
        result.invalid_reason = Some(why.to_string());
    }
}

/// An empty result (valid, no repeats yet) for each of `steps`.
pub fn results_for(steps: &[Step]) -> Vec<StepResult> {
    steps
        .iter()
        .map(|s| StepResult {
            step: s.id.clone(),
            endpoint: s.endpoint.clone(),
            connections: s.connections,
            requests: s.requests,
            duration_s: s.duration.map(|d| d.as_secs_f64()),
            offered_requests_per_s: s.rate,
            tool_command: Vec::new(),
            valid: true,
            invalid_reason: None,
            repeats: Vec::new(),
            median: None,
            spread: None,
            intervals: None,
            saturation: None,
            searched_rounds: None,
        })
        .collect()
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests;
