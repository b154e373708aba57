//! Running a [`Config`]: one OS thread per `-t`, each driving its share of the connections
//! (`client`), their statistics merged once into a [`RunResult`] (the `client` feature).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::client::{Plan, Progress, ThreadOutcome};
use crate::stats::ThreadStats;
use crate::{Config, ConfigError, report};

/// Why a run could not be made.
#[derive(Debug)]
pub enum Error {
    /// The configuration cannot run.
    Config(ConfigError),
    /// A worker thread or its runtime could not start.
    Start(std::io::Error),
    /// A worker thread panicked.
    Worker,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => e.fmt(f),
            Error::Start(e) => write!(f, "cannot start a worker thread: {e}"),
            Error::Worker => f.write_str("a worker thread panicked"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Error {
        Error::Config(e)
    }
}

/// Runs the load described by `config` and returns the merged result.
///
/// Raises the soft RLIMIT_NOFILE to the hard limit first (failure to do so is not fatal).
/// Blocks until the run ends: `-n` requests answered or failed, or the duration over.
pub fn run(config: &Config) -> Result<report::RunResult, Error> {
    config.validate()?;
    let _ = serve::net::raise_nofile_limit();
    let plan = Arc::new(Plan::new(config));
    let counters: Vec<Arc<Progress>> = (0..config.threads).map(|_| Arc::default()).collect();
    let mut handles = Vec::with_capacity(config.threads);
    for (i, counter) in counters.iter().enumerate() {
        let (plan, counter, requests) = (Arc::clone(&plan), Arc::clone(counter), config.requests);
        let h = std::thread::Builder::new()
            .name(format!("loadgen-{i}"))
            .spawn(move || crate::client::run_thread(plan, i, requests, counter))
            .map_err(Error::Start)?;
        handles.push(h);
    }
    if config.progress {
        show_progress(config, &plan, &counters, &handles);
    }
    let mut outcomes: Vec<ThreadOutcome> = Vec::with_capacity(handles.len());
    for h in handles {
        outcomes.push(h.join().map_err(|_| Error::Worker)?.map_err(Error::Start)?);
    }
    let mut stats = ThreadStats::new(config.timeout);
    let mut cpu = report::Cpu::default();
    let mut finished = plan.warm_end;
    for o in &outcomes {
        stats.merge(&o.stats);
        cpu.user_s += o.cpu.0;
        cpu.system_s += o.cpu.1;
        let wall = o
            .finished
            .duration_since(plan.start)
            .as_secs_f64()
            .max(1e-9);
        cpu.max_thread_utilisation = cpu.max_thread_utilisation.max((o.cpu.0 + o.cpu.1) / wall);
        finished = finished.max(o.finished);
    }
    cpu.generator_bound = cpu.max_thread_utilisation >= report::BOTTLENECK_UTILISATION;
    let stop = plan.end.map_or(finished, |e| finished.min(e));
    let window = stop.saturating_duration_since(plan.warm_end);
    Ok(report::summarise(config, &stats, window, cpu))
}

/// Draws a progress bar on stderr until the workers finish, for runs long enough to need one.
fn show_progress(
    config: &Config,
    plan: &Plan,
    counters: &[Arc<Progress>],
    handles: &[std::thread::JoinHandle<std::io::Result<ThreadOutcome>>],
) {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::sync::atomic::Ordering;
    let total_time = plan.end.map(|e| e.duration_since(plan.start));
    if total_time.is_some_and(|t| t < Duration::from_secs(3)) {
        return;
    }
    let done = || {
        counters
            .iter()
            .map(|c| c.0.load(Ordering::Relaxed))
            .sum::<u64>()
    };
    let (bar, by_count) = match (config.requests, total_time) {
        (Some(n), None) => (ProgressBar::new(n), true),
        (_, Some(t)) => (ProgressBar::new(t.as_millis() as u64), false),
        (None, None) => return,
    };
    let template = if by_count {
        "{bar:40} {pos}/{len} requests, {elapsed}"
    } else {
        "{bar:40} {elapsed} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    let shown_from = Instant::now() + Duration::from_secs(1);
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(100));
        if Instant::now() < shown_from {
            continue;
        }
        if by_count {
            bar.set_position(done());
        } else {
            bar.set_position(plan.start.elapsed().as_millis() as u64);
            bar.set_message(format!("{} requests", done()));
        }
    }
    bar.finish_and_clear();
}
