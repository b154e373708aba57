//! Running one step against one server: a discarded warm-up of the step's load, then the
//! measured run while the server's process tree is sampled, the tool's output read into a
//! [`Run`] with the tool's own CPU beside the server's (and whether the tool, not the server,
//! set the pace: [`Run::tool_bound`]), and the step marked invalid (with the reason) when it
//! measured nothing, the tool failed or the server was gone. [`run`] is that body, once, for `bench run` and `bench tools
//! compare` alike.
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
//!   as a flag) beneath them.
//!
//! The server is seen through [`Watch`] and the tool is launched through [`Launch`], so the
//! unit tests below drive the whole body with a recorded tool output and a fake server.

pub mod answer;
pub mod child;
#[cfg(test)]
pub(crate) mod fake;
pub mod machine;
pub mod pin;
pub mod procs;
pub mod sample;
pub mod server;
pub mod signals;
pub mod timeline;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::term::progress::Progress;
use bench_model::experiment::{Probe, Step, Warmup};
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
    // measured run; a step of no connections is the probe alone.
    let probe = match &step.probe {
        Some(p) => {
            let spec = probe_spec(p, step);
            let url = format!("http://{}{}", subject.addr, p.endpoint);
            let argv = Tool::Builtin.argv(&spec, &url, load.loadgen)?;
            Some((spec, argv))
        }
        None => None,
    };
    let alone = step.connections == 0 && probe.is_some();
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
mod tests {
    use loadgen::Mode;

    use super::fake::{Fake, Recorded, exited, report};
    use super::*;

    fn step(mode: Mode) -> Step {
        Step {
            id: "c50".into(),
            endpoint: "/hello".into(),
            connections: 50,
            duration: Some(Duration::from_secs(2)),
            requests: None,
            mode,
            pipeline: 1,
            timeout: Duration::from_secs(5),
            headers: Vec::new(),
            warmup: Warmup::For(Duration::from_secs(1)),
            probe: None,
            rate: None,
        }
    }

    /// Runs `step` once with `answers`, against `server` if any.
    fn once(
        step: &Step,
        answers: Vec<Result<Output, Failure>>,
        server: Option<&mut dyn Watch>,
        keepalive: Option<Result<(), String>>,
    ) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
        once_settling(step, answers, server, keepalive, Duration::ZERO)
    }

    /// [`once`], waiting at most `settle` for the server to go idle (before and after the
    /// warm-up).
    fn once_settling(
        step: &Step,
        answers: Vec<Result<Output, Failure>>,
        server: Option<&mut dyn Watch>,
        keepalive: Option<Result<(), String>>,
        settle: Duration,
    ) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
        let length = recorded_length(&answers);
        once_measuring(step, answers, server, keepalive, settle, length, true)
    }

    /// The server's answer as long as the recorded runs' responses (the last that parses),
    /// for the tests that are not of the length rule.
    fn recorded_length(answers: &[Result<Output, Failure>]) -> Result<answer::Length, String> {
        let read = answers
            .iter()
            .rev()
            .filter_map(|a| a.as_ref().ok())
            .find_map(|o| measured(Tool::Builtin, o).ok())
            .map_or(1143, |r| r.bytes_per_response.round() as usize);
        Ok(answer::Length {
            head: read.saturating_sub(12),
            body: 12,
        })
    }

    /// [`once_settling`], the server's answer before the load being `length`.
    fn once_measuring(
        step: &Step,
        answers: Vec<Result<Output, Failure>>,
        server: Option<&mut dyn Watch>,
        keepalive: Option<Result<(), String>>,
        settle: Duration,
        length: Result<answer::Length, String>,
        quick: bool,
    ) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
        let launch = Recorded {
            answers: answers.into(),
            ..Recorded::default()
        };
        run_recorded(step, launch, server, keepalive, settle, length, quick)
    }

    /// The step body on `launch`'s canned outputs, as [`once_measuring`] describes.
    fn run_recorded(
        step: &Step,
        mut launch: Recorded,
        server: Option<&mut dyn Watch>,
        keepalive: Option<Result<(), String>>,
        settle: Duration,
        length: Result<answer::Length, String>,
        quick: bool,
    ) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
        let mut result = results_for(std::slice::from_ref(step)).remove(0);
        let mut subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), server);
        subject.keepalive = keepalive;
        subject.lengths.insert(length_key(step), length);
        let mut load = Load {
            tool: Tool::Builtin,
            loadgen: Path::new("/x/loadgen"),
            quick,
            cpus: 1,
            retries: 0,
            settle,
            launch: &mut launch,
        };
        let got = run(
            &mut load,
            &mut subject,
            step,
            &mut result,
            &mut Progress::new(),
            "test",
        );
        (got, result, launch)
    }

    #[test]
    fn a_step_whose_responses_are_not_the_contracts_length_is_invalid() {
        let s = step(Mode::KeepAlive);
        let answers = || vec![exited(0, "", ""), exited(0, &report(), "")];
        // The recorded run read 1,143 bytes a response; a server whose answer is a 19-byte
        // head and the contract's 1,024-byte body must send 1,043.
        let short = Ok(answer::Length {
            head: 19,
            body: 1024,
        });
        let (got, r, _) = once_measuring(&s, answers(), None, None, Duration::ZERO, short, true);
        let why = "its responses were 1143 bytes each on average as builtin counts them, not the 1043 they must be (a 19-byte head and the contract's 1024-byte body)";
        assert_eq!(got.unwrap(), vec![format!("/hello c50: {why}")]);
        assert_eq!((r.valid, r.invalid_reason.as_deref()), (false, Some(why)));
        // The run is kept, marked invalid.
        assert_eq!(r.repeats.len(), 1);
        // No answer before the load: said in the run's notes, the step not judged by it.
        let (got, r, _) = once_measuring(
            &s,
            answers(),
            None,
            None,
            Duration::ZERO,
            Err("connection refused".into()),
            true,
        );
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert!(r.valid);
        assert!(r.repeats[0].notes.contains(
            &"the responses' length was not checked: one request before the load got no answer (connection refused)".to_string()
        ));
    }

    #[test]
    fn a_count_bounded_step_runs_its_count_until_its_windows_fill_the_least_length() {
        // ab -n's kind of step: a count, no length. Each recorded run is a 2 s window.
        let mut s = step(Mode::KeepAlive);
        s.duration = None;
        s.requests = Some(168_996);
        let answers = || {
            let mut a = vec![exited(0, "", "")];
            a.extend((0..5).map(|_| exited(0, &report(), "")));
            a
        };
        let length = || {
            Ok(answer::Length {
                head: 119,
                body: 1024,
            })
        };
        let (got, r, launch) =
            once_measuring(&s, answers(), None, None, Duration::ZERO, length(), false);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        // The warm-up, then 2 + 2 + 2 s: three runs to pass 5 s, and no fourth.
        assert_eq!(launch.argvs.len(), 4, "{:?}", launch.argvs);
        let run = &r.repeats[0];
        assert_eq!(run.rounds, Some(3));
        assert_eq!(run.requests, 3 * 168_996);
        assert_eq!(run.duration_s, 6.0);
        assert!(r.valid, "{r:?}");
        // --quick: the count once.
        let (_, r, launch) =
            once_measuring(&s, answers(), None, None, Duration::ZERO, length(), true);
        assert_eq!(launch.argvs.len(), 2);
        assert_eq!(
            (r.repeats[0].rounds, r.repeats[0].requests),
            (None, 168_996)
        );
    }

    #[test]
    fn the_length_a_step_expects_is_read_from_the_servers_answer_of_its_kind() {
        // A real server: server-prebuilt's own binary is not built for this crate's tests, so
        // a listener that answers one fixed response stands in for it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for _ in 0..2 {
                let (mut c, _) = listener.accept().unwrap();
                let mut buf = [0u8; 1024];
                let n = std::io::Read::read(&mut c, &mut buf).unwrap();
                seen.push(String::from_utf8_lossy(&buf[..n]).to_string());
                let head = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n";
                std::io::Write::write_all(&mut c, format!("{head}Hello, World").as_bytes())
                    .unwrap();
            }
            seen
        });
        let mut subject = Subject::new(addr, None);
        let mut s = step(Mode::Http10KeepAlive);
        let l = subject.length(&s).unwrap();
        assert_eq!(l, answer::Length { head: 39, body: 12 });
        assert_eq!((l.counted(true), l.counted(false)), (51, 12));
        // Read once per kind of request: the same step again asks nothing.
        assert_eq!(subject.length(&s), Ok(l));
        s.mode = Mode::Close;
        assert!(subject.length(&s).is_ok());
        let seen = server.join().unwrap();
        assert!(seen[0].starts_with("GET /hello HTTP/1.0\r\n"), "{seen:?}");
        assert!(seen[0].contains("Connection: Keep-Alive\r\n"), "{seen:?}");
        assert!(seen[1].starts_with("GET /hello HTTP/1.1\r\n"), "{seen:?}");
        assert!(seen[1].contains("Connection: close\r\n"), "{seen:?}");
        // Nobody there: why, for the run's notes.
        let mut gone = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), None);
        assert!(gone.length(&s).is_err());
    }

    #[test]
    fn a_good_step_warms_up_then_measures_and_samples() {
        let s = step(Mode::KeepAlive);
        let mut server = Fake::new(2, Some(std::process::id() as i32));
        let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
        let (got, r, launch) = once(&s, answers, Some(&mut server), None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert!(r.valid, "{r:?}");
        assert_eq!(launch.argvs.len(), 2);
        // The warm-up is the same load for the warm-up's length.
        let d = |argv: &[String]| argv[argv.iter().position(|a| a == "-d").unwrap() + 1].clone();
        assert_eq!(
            (d(&launch.argvs[0]), d(&launch.argvs[1])),
            ("1s".into(), "2s".into())
        );
        assert_eq!(r.tool_command, launch.argvs[1]);
        assert_eq!(r.tool_command[0], "/x/loadgen");
        assert_eq!(r.repeats.len(), 1);
        let run = &r.repeats[0];
        assert!(run.requests > 0 && run.requests_per_s > 0.0);
        // Sampled: this test's own process stands in for the server's tree.
        assert!(run.rss_kb.is_some_and(|r| r.start > 0), "{run:?}");
        assert!(run.server_cpu_s.is_some() && run.cpu_us_per_request.is_some());
        // No usage of the tool (a recorded output): its CPU is unknown, not zero.
        assert_eq!((run.tool_cpu_percent, run.tool_cpus), (None, Some(1)));
    }

    #[test]
    fn a_probe_runs_beside_the_measured_run_and_alone_for_the_baseline() {
        let mut s = step(Mode::KeepAlive);
        s.probe = Some(bench_model::experiment::probe(Duration::from_secs(2), true));
        let answers = vec![
            exited(0, "", ""),
            exited(0, &report(), ""),
            exited(0, &report(), ""),
        ];
        let (got, r, launch) = once(&s, answers, None, None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert_eq!(launch.argvs.len(), 3, "warm-up, load, probe");
        let probe = launch.argvs[2].join(" ");
        assert_eq!(
            probe,
            "/x/loadgen http://127.0.0.1:9/api/hello -c 1 -d 1s --mode keep-alive \
             --timeout 5s --warmup 500ms --interval 500ms --json --no-progress"
        );
        assert_eq!(r.tool_command, launch.argvs[1]);
        let p = r.repeats[0].probe.as_deref().expect("the probe's run");
        assert!(p.requests_per_s > 0.0 && p.latency_us.p99.is_some());
        assert_eq!(p.tool_cpus, Some(1));

        // A probe that fails leaves the step's run and says so in its notes.
        let answers = vec![
            exited(0, "", ""),
            exited(0, &report(), ""),
            exited(1, "", "loadgen: refused\n"),
        ];
        let (got, r, _) = once(&s, answers, None, None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert!(r.valid && r.repeats[0].probe.is_none());
        assert!(
            r.repeats[0]
                .notes
                .iter()
                .any(|n| n.starts_with("the probe on /api/hello: builtin failed")),
            "{:?}",
            r.repeats[0].notes
        );

        // No connections: the probe alone, no warm-up; its run is the step's and the probe's.
        s.connections = 0;
        let mut server = Fake::new(2, Some(std::process::id() as i32));
        let (got, r, launch) = once(&s, vec![exited(0, &report(), "")], Some(&mut server), None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert_eq!(launch.argvs.len(), 1);
        assert_eq!(launch.argvs[0].join(" "), probe);
        let run = &r.repeats[0];
        let p = run.probe.as_deref().unwrap();
        assert_eq!(p.requests_per_s, run.requests_per_s);
        assert!(run.rss_kb.is_some() && p.rss_kb.is_none());
    }

    #[test]
    fn a_probe_measured_after_the_load_voids_the_step() {
        let mut s = step(Mode::KeepAlive);
        s.probe = Some(bench_model::experiment::probe(Duration::from_secs(2), true));
        let later = |o: Result<Output, Failure>, by: Duration| {
            o.map(|mut o| {
                o.started += by;
                o
            })
        };
        // The load's window ends about 1 s in; the probe's starts 5 s in: after the load.
        let answers = vec![
            exited(0, "", ""),
            exited(0, &report(), ""),
            later(exited(0, &report(), ""), Duration::from_secs(5)),
        ];
        let (got, r, _) = once(&s, answers, None, None);
        let problems = got.unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("/hello c50: the probe's measured window (4.0–6.0 s) is not inside the load's (0.0–1.0 s)"),
            "{problems:?}"
        );
        assert!(!r.valid);
        let w = r.repeats[0].windows.unwrap();
        assert!(!w.probe_inside(), "{w:?}");
        // Beside it: inside, and recorded.
        let answers = vec![
            exited(0, "", ""),
            exited(0, &report(), ""),
            exited(0, &report(), ""),
        ];
        let (got, r, _) = once(&s, answers, None, None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert!(r.valid && r.repeats[0].windows.unwrap().probe_inside());
    }

    #[test]
    fn a_rung_offers_its_rate_and_the_ladder_stops_where_the_server_cannot_keep_up() {
        let mut s = step(Mode::KeepAlive);
        s.rate = Some(2000.0);
        let recorded = |name: &str| {
            let p = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../bench-tools/tests/data")
                .join(name);
            std::fs::read_to_string(p).unwrap()
        };
        // loadgen -R 2000 against a server that kept up.
        let answers = vec![
            exited(0, "", ""),
            exited(0, &recorded("loadgen-R2000-c100.json"), ""),
        ];
        let (got, mut r, launch) = once(&s, answers, None, None);
        assert_eq!(got.unwrap(), Vec::<String>::new());
        for argv in &launch.argvs {
            let a = argv.join(" ");
            assert!(a.contains(" -R 2000 "), "warm-up and run at the rate: {a}");
        }
        assert_eq!(r.offered_requests_per_s, Some(2000.0));
        let run = &r.repeats[0];
        assert_eq!(run.offered_requests_per_s, Some(2000.0));
        assert!(run.latency_uncorrected_us.is_some());
        assert_eq!(rung(&mut r), None, "kept up: the ladder goes on");
        assert_eq!(r.saturation, None);

        // -R 60000 answered at 8,536 a second: its saturation, the ladder stops.
        s.rate = Some(60_000.0);
        let answers = vec![
            exited(0, "", ""),
            exited(0, &recorded("loadgen-R60000-c100-behind.json"), ""),
        ];
        let (_, mut r, _) = once(&s, answers, None, None);
        let why = rung(&mut r).unwrap();
        assert!(
            why.starts_with("its saturation: achieved 8,536 of 60,000"),
            "{why}"
        );
        assert!(r.valid);
        assert_eq!(
            r.saturation.as_deref(),
            Some(why.trim_start_matches("its saturation: "))
        );

        // The same where the tool was the limit: invalid, not the server's saturation.
        r.saturation = None;
        r.repeats[0].tool_bound = true;
        r.repeats[0].tool_busiest_thread_percent = Some(97.0);
        let why = rung(&mut r).unwrap();
        assert!(!r.valid && r.saturation.is_none());
        assert!(
            why.starts_with("the load tool was the limit at this rate (achieved 8,536 of 60,000")
                && why.ends_with(
                    ", its busiest thread at 97 %), so this is not the server's saturation"
                ),
            "{why}"
        );
        assert_eq!(r.invalid_reason.as_deref(), Some(why.as_str()));
        // An invalid rung, or one that gave no run, stops it too.
        assert!(
            rung(&mut r)
                .unwrap()
                .starts_with("invalid: the load tool was the limit")
        );
        r.repeats.clear();
        assert!(rung(&mut r).is_some());
    }

    /// The § rule on a whole step: a closed-loop run where neither side was busy is marked;
    /// the same at an offered rate is not (the rate sets an open-loop run's pace by design),
    /// which needs the rate recorded before the rule is asked.
    #[test]
    fn a_run_at_an_offered_rate_is_never_marked_as_set_by_the_round_trips() {
        // The server and the tool: an idle process (`sleep`, never this test binary, whose
        // other tests run beside it), sampled while the fake tool runs 1.2 s (long enough to
        // be measured): both far under 90 % of a CPU whatever the host does.
        // Stopped when the test ends, passed or failed: no process left behind.
        struct Idle(std::process::Child);
        impl Drop for Idle {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let idle = Idle(
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap(),
        );
        let pid = idle.0.id() as i32;
        let measure = |s: &Step, stdout: &str| {
            let answers = vec![exited(0, "", ""), exited(0, stdout, "")];
            let length = recorded_length(&answers);
            let launch = Recorded {
                answers: answers.into(),
                runs_for: Some((Duration::from_millis(1200), pid)),
                ..Recorded::default()
            };
            let mut server = Fake::new(4, Some(pid));
            let (got, mut result, _) = run_recorded(
                s,
                launch,
                Some(&mut server),
                None,
                Duration::ZERO,
                length,
                true,
            );
            assert_eq!(got.unwrap(), Vec::<String>::new());
            let run = result.repeats.remove(0);
            assert!(run.unmeasured.is_none(), "{run:?}");
            assert!(run.tool_cpu_percent.is_some_and(|p| p < 90.0), "{run:?}");
            assert!(run.server_cpu_percent.is_some_and(|p| p < 90.0), "{run:?}");
            run
        };
        let mut s = step(Mode::KeepAlive);
        let run = measure(&s, &report());
        assert!(
            run.round_trips_bound
                .as_deref()
                .is_some_and(|w| w.starts_with("neither side set the pace")),
            "{run:?}"
        );
        s.rate = Some(2000.0);
        let recorded = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../bench-tools/tests/data/loadgen-R2000-c100.json");
        let run = measure(&s, &std::fs::read_to_string(recorded).unwrap());
        assert_eq!(run.offered_requests_per_s, Some(2000.0));
        assert_eq!(run.round_trips_bound, None, "{run:?}");
        drop(idle);
    }

    #[test]
    fn a_server_gone_before_the_step_runs_nothing() {
        let s = step(Mode::KeepAlive);
        let mut server = Fake::new(0, None);
        let (got, r, launch) = once(&s, vec![], Some(&mut server), None);
        let problems = got.unwrap();
        assert_eq!(
            problems,
            ["/hello c50: the server had exited before this step (fake: gone)"]
        );
        assert!(launch.argvs.is_empty());
        assert!(!r.valid && r.repeats.is_empty());
    }

    #[test]
    fn a_server_gone_during_the_step_keeps_the_run_but_voids_it() {
        let s = step(Mode::KeepAlive);
        let mut server = Fake::new(1, None);
        let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
        let (got, r, _) = once(&s, answers, Some(&mut server), None);
        assert_eq!(
            got.unwrap(),
            ["/hello c50: the server exited during this step (fake: gone)"]
        );
        assert!(!r.valid);
        assert_eq!(r.repeats.len(), 1);
        assert_eq!(r.repeats[0].rss_kb, None, "not sampled without a pid");
    }

    #[test]
    fn a_failed_or_overrun_tool_voids_the_step_and_the_run_goes_on() {
        let s = step(Mode::KeepAlive);
        let answers = vec![exited(0, "", ""), exited(1, "", "loadgen: refused\n")];
        let (got, r, _) = once(&s, answers, None, None);
        let problems = got.unwrap();
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .starts_with("/hello c50: builtin failed (exit status: 1): loadgen: refused"),
            "{problems:?}"
        );
        assert!(!r.valid && r.repeats.is_empty());

        // An overrun warm-up is no problem; an overrun measured run is.
        let answers = vec![
            Err(Failure::Overran(Duration::from_secs(3))),
            Err(Failure::Overran(Duration::from_secs(33))),
        ];
        let (got, r, _) = once(&s, answers, None, None);
        assert_eq!(got.unwrap(), ["/hello c50: builtin ran past 33 s"]);
        assert_eq!(r.invalid_reason.as_deref(), Some("builtin ran past 33 s"));

        // Output that is not a report.
        let answers = vec![exited(0, "", ""), exited(0, "{", "")];
        let (got, r, _) = once(&s, answers, None, None);
        assert!(got.unwrap()[0].contains("cannot read the JSON report"));
        assert!(!r.valid);
    }

    #[test]
    fn a_tool_that_cannot_start_stops_the_run() {
        let s = step(Mode::KeepAlive);
        let answers = vec![Err(Failure::Other(anyhow::anyhow!("cannot run loadgen")))];
        let (got, _, launch) = once(&s, answers, None, None);
        assert_eq!(got.unwrap_err().to_string(), "cannot run loadgen");
        assert_eq!(launch.argvs.len(), 1, "stopped at the warm-up");
    }

    #[test]
    fn no_keepalive_voids_an_http10_keepalive_step_but_it_still_runs() {
        let s = step(Mode::Http10KeepAlive);
        let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
        let (got, r, _) = once(&s, answers, None, Some(Err("closed".into())));
        assert_eq!(got.unwrap(), Vec::<String>::new());
        assert_eq!(
            r.invalid_reason.as_deref(),
            Some("no HTTP/1.0 keep-alive (ab -k's mode), so the run measures reconnects: closed")
        );
        assert_eq!(r.repeats.len(), 1);
    }

    #[test]
    fn decisions() {
        let mut run = Run {
            requests: 5,
            ..Run::default()
        };
        let u = Usage {
            rss_start_kb: 10,
            rss_peak_kb: 30,
            rss_end_kb: 20,
            cpu_s: 0.0123456,
            user_s: Some(0.0023456),
            kernel_s: Some(0.01),
            wall_s: 2.0,
            processes: 1,
            ..Usage::default()
        };
        add_usage(&mut run, &u);
        assert_eq!(
            run.rss_kb.map(|r| (r.start, r.peak, r.end)),
            Some((10, 30, 20))
        );
        assert_eq!(run.server_cpu_s, Some(0.012));
        assert_eq!(run.server_cpu_percent, Some(0.62));
        assert_eq!(run.cpu_us_per_request, Some(2469.12));
        assert_eq!(
            (run.cpu_user_us_per_request, run.cpu_kernel_us_per_request),
            (Some(469.12), Some(2000.0))
        );

        // The tool's own CPU: a multi-threaded tool is bound at 90 % of the CPUs it could use.
        let busy = |cpu_s: f64, busiest_thread_s: f64| Usage {
            cpu_s,
            busiest_thread_s,
            wall_s: 2.0,
            ..Usage::default()
        };
        let mut r = Run::default();
        add_tool_usage(&mut r, Tool::K6.threads(2), 2, Some(&busy(3.5, 1.0)));
        assert_eq!(
            (r.tool_cpu_percent, r.tool_cpus, r.tool_bound),
            (Some(175.0), Some(2), false)
        );
        add_tool_usage(&mut r, Tool::K6.threads(2), 2, Some(&busy(3.6, 1.0)));
        assert!(r.tool_bound, "180 % of 2 CPUs");
        // wrk -t1, the built-in generator: one thread of the two CPUs it is given.
        for tool in [Tool::Wrk, Tool::Builtin, Tool::Ab, Tool::Autocannon] {
            let mut r = Run::default();
            add_tool_usage(&mut r, tool.threads(2), 2, Some(&busy(1.9, 1.85)));
            assert_eq!((r.tool_cpus, r.tool_bound), (Some(1), true), "{tool}");
            add_tool_usage(&mut r, tool.threads(2), 2, Some(&busy(1.9, 1.7)));
            assert!(!r.tool_bound, "{tool}: its busiest thread used 85 %");
        }
        // Not seen: no figure and no verdict (the built-in generator's own note is a note).
        let mut r = Run {
            tool_bound: true,
            ..Run::default()
        };
        add_tool_usage(&mut r, Tool::Builtin.threads(1), 1, None);
        assert_eq!((r.tool_cpu_percent, r.tool_bound), (None, false));
        // Requests left unsent (3 %): the generator fell behind when the harness saw it busy
        // to its limit, whatever it said of itself; with time to spare, the server held them.
        let unsent = |fell_behind: bool| Run {
            tool_bound: fell_behind,
            tool_fell_behind: fell_behind,
            unsent_requests: Some(300),
            intended_requests: Some(10_000),
            ..Run::default()
        };
        let mut r = unsent(false);
        add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, Some(&busy(1.9, 1.85)));
        assert!(r.tool_bound && r.tool_fell_behind);
        let mut r = unsent(true);
        add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, Some(&busy(0.4, 0.4)));
        assert!(!r.tool_bound && !r.tool_fell_behind);
        // Not measured: the generator's own verdict stands.
        let mut r = unsent(true);
        add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, None);
        assert!(r.tool_bound && r.tool_fell_behind);

        // Rounds of a count: added up, rates over the whole.
        let round = |requests: u64, d: f64, p99: u64, status: u64| Run {
            requests,
            duration_s: d,
            requests_per_s: requests as f64 / d,
            transfer_bytes_per_s: 100.0 * requests as f64 / d,
            latency_us: bench_model::results::Latency {
                p99: Some(p99),
                max: Some(p99 * 2),
                ..Default::default()
            },
            errors: bench_model::results::Errors {
                status,
                ..Default::default()
            },
            ..Run::default()
        };
        let m = merge_rounds(vec![
            round(1000, 0.5, 100, 0),
            round(1000, 1.5, 300, 2),
            round(1000, 1.0, 200, 1),
        ]);
        assert_eq!(
            (m.requests, m.duration_s, m.requests_per_s),
            (3000, 3.0, 1000.0)
        );
        assert_eq!(m.transfer_bytes_per_s, 100_000.0);
        assert_eq!((m.latency_us.p99, m.latency_us.max), (Some(200), Some(600)));
        assert_eq!(m.errors.status, 3);

        let mut r = results_for(&[step(Mode::KeepAlive)]).remove(0);
        invalidate(&mut r, "first");
        invalidate(&mut r, "second");
        assert_eq!(
            (r.valid, r.invalid_reason.as_deref()),
            (false, Some("first"))
        );
    }

    /// A process tree that spins on a CPU for `busy_s` seconds, then sleeps; killed when
    /// dropped. The loop forks nothing: a loop that ran `date` each turn spent its time in
    /// short-lived children, which a busy machine starved until the tree read as idle (seen
    /// in a test run beside two cargo builds).
    struct Spinner(std::process::Child);

    impl Spinner {
        fn start(busy_s: u32) -> Spinner {
            let script = format!("timeout {busy_s} sh -c 'while :; do :; done'; exec sleep 60");
            let child = std::process::Command::new("sh")
                .args(["-c", &script])
                .spawn()
                .unwrap();
            Spinner(child)
        }
    }

    impl Drop for Spinner {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_step_waits_for_the_server_to_finish_the_last_ones_work() {
        // Busy for about 2 s (a whole second or two, by the clock's seconds), then idle.
        let spin = Spinner::start(2);
        let mut server = Fake::new(1, Some(spin.0.id() as i32));
        let subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), Some(&mut server));
        let t0 = std::time::Instant::now();
        let note = settle(
            SETTLE_LIMIT,
            &subject,
            &mut Progress::new(),
            "x",
            After::StepBefore,
        )
        .unwrap()
        .expect("it waited, and says so");
        assert!(!note.never);
        let note = note.note;
        let waited = t0.elapsed().as_secs_f64();
        assert!((0.9..15.0).contains(&waited), "{waited} s: {note}");
        assert!(
            note.contains("waited") && note.contains("go idle"),
            "{note}"
        );
        // Idle now: no wait, no note.
        assert_eq!(
            settle(
                SETTLE_LIMIT,
                &subject,
                &mut Progress::new(),
                "x",
                After::StepBefore
            )
            .unwrap(),
            None
        );
        // Not watched, or told not to wait: no wait.
        assert_eq!(
            settle(
                Duration::ZERO,
                &subject,
                &mut Progress::new(),
                "x",
                After::WarmUp
            )
            .unwrap(),
            None
        );
    }

    #[test]
    fn a_server_that_never_settles_is_said_to_share_the_step_with_its_backlog() {
        let spin = Spinner::start(30);
        let mut server = Fake::new(1, Some(spin.0.id() as i32));
        let subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), Some(&mut server));
        let t0 = std::time::Instant::now();
        let note = settle(
            Duration::from_secs(1),
            &subject,
            &mut Progress::new(),
            "x",
            After::StepBefore,
        )
        .unwrap()
        .expect("a note");
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert!(note.never);
        let note = note.note;
        assert!(
            note.contains("still busy from the step before") && note.contains("after 1 s"),
            "{note}"
        );
    }

    /// The warm-up's backlog: a server still busy after the warm-up (here a busy loop that
    /// never stops) is waited for a second time, and one that never goes idle marks the step.
    #[test]
    fn a_server_still_busy_after_its_warm_up_marks_the_step() {
        let spin = Spinner::start(30);
        let mut server = Fake::new(usize::MAX, Some(spin.0.id() as i32));
        let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
        let (got, result, _) = once_settling(
            &step(Mode::KeepAlive),
            answers,
            Some(&mut server),
            None,
            Duration::from_secs(1),
        );
        got.unwrap();
        let r = &result.repeats[0];
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("still busy from its warm-up")),
            "{:?}",
            r.notes
        );
        assert!(r.disturbed, "{r:?}");
        assert!(
            r.disturbed_reason
                .as_deref()
                .is_some_and(|w| w.contains("never went idle after its warm-up")),
            "{:?}",
            r.disturbed_reason
        );
    }
}
