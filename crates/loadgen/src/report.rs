//! The result data of a run, and the versioned JSON document (`--json`).
//!
//! [`RunResult`] is what [`crate::run`] returns: counts, rates, the latency summary, errors
//! by kind and the generator's own CPU time. [`Report`] wraps it with the [`SCHEMA`] tag
//! and the configuration; it is what `--json` prints and what the bench harness stores.
//! Adding a field keeps the schema version; renaming or removing one bumps it.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::config::{Config, Load, Mode};
use crate::stats::Errors;
#[cfg(feature = "client")]
use crate::stats::ThreadStats;
use crate::timeline::Timeline;

/// The schema tag of [`Report`]: `loadgen.report/` and the version.
pub const SCHEMA: &str = "loadgen.report/1";

/// A per-thread utilisation at or above this marks the generator as the bottleneck.
pub const BOTTLENECK_UTILISATION: f64 = 0.9;

/// The whole `--json` document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The loadgen crate version that wrote it.
    pub loadgen_version: String,
    /// What was run.
    pub config: ConfigReport,
    /// What was measured.
    pub result: RunResult,
}

impl Report {
    /// The document for `result`, run with `config`.
    pub fn new(config: &Config, result: RunResult) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
            config: ConfigReport::from(config),
            result,
        }
    }
}

/// The configuration, as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigReport {
    /// The URL.
    pub url: String,
    /// The address connected to.
    pub addr: String,
    /// The request method.
    pub method: String,
    /// The connection mode.
    pub mode: Mode,
    /// Connections (the maximum for stages).
    pub connections: usize,
    /// Threads.
    pub threads: usize,
    /// Pipelining depth.
    pub pipeline: usize,
    /// `-n`, if given.
    pub requests: Option<u64>,
    /// The measured duration asked for (`-d`, or the sum of the stages), in seconds.
    pub duration_s: Option<f64>,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Timeout, seconds.
    pub timeout_s: f64,
    /// The load model, tagged by `model`: `closed`, `open` (with `rate`) or `stages`.
    pub load: Load,
    /// `--interval`, seconds: absent without a timeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
}

impl From<&Config> for ConfigReport {
    fn from(c: &Config) -> ConfigReport {
        ConfigReport {
            url: c.target.url.clone(),
            addr: c.target.addr.to_string(),
            method: c.method.clone(),
            mode: c.mode,
            connections: c.max_connections(),
            threads: c.threads,
            pipeline: c.pipeline,
            requests: c.requests,
            duration_s: c.run_duration().map(|d| d.as_secs_f64()),
            warmup_s: c.warmup.as_secs_f64(),
            timeout_s: c.timeout.as_secs_f64(),
            load: c.load.clone(),
            interval_s: c.interval.map(|d| d.as_secs_f64()),
        }
    }
}

/// The measured outcome of a run (warm-up excluded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Seconds from the end of the warm-up to the end of the run.
    pub duration_s: f64,
    /// Requests answered or failed: `responses` plus the transport errors.
    pub requests: u64,
    /// Whole responses, any status.
    pub responses: u64,
    /// Whole responses with a 1xx, 2xx or 3xx status.
    pub ok: u64,
    /// Requests in flight when a timed run ended (neither answered nor failed).
    pub unfinished: u64,
    /// The open model: the requests its schedule made due in the measured window (intended
    /// from the end of the warm-up to the end of the run; with `-n`, those started once the
    /// count is reached); it equals `requests + unfinished + unsent`. 0 for the other models
    /// and in reports written before it was added.
    #[serde(default)]
    pub intended: u64,
    /// The open model: requests of `intended` never sent, because no connection was free for
    /// them (every one waiting for an answer) or the generator fell behind; 0 for the other
    /// models and in reports written before it was added.
    #[serde(default)]
    pub unsent: u64,
    /// `responses / duration_s`.
    pub requests_per_s: f64,
    /// Bytes of whole responses.
    pub response_bytes: u64,
    /// `response_bytes / responses`.
    pub bytes_per_response: f64,
    /// `response_bytes / duration_s`.
    pub transfer_per_s: f64,
    /// Bytes read from sockets, warm-up included.
    pub bytes_read: u64,
    /// Connections opened, warm-up included.
    pub connections_opened: u64,
    /// Whole responses by status class.
    pub status: StatusClasses,
    /// Failures by kind, error statuses by class.
    pub errors: Errors,
    /// Latency of whole responses (in the open model from each request's intended send time,
    /// however late it was sent).
    pub latency: Latency,
    /// The open model's latency from the actual send (absent for other models).
    pub latency_uncorrected: Option<Latency>,
    /// Responses per second of one thread, sampled every 100 ms (wrk's `Req/Sec` row).
    pub thread_requests_per_s: Rate,
    /// The generator's own CPU time.
    pub cpu: Cpu,
    /// The measured window in intervals (`--interval`): absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// Whole responses by status class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusClasses {
    /// 1xx.
    pub s1xx: u64,
    /// 2xx.
    pub s2xx: u64,
    /// 3xx.
    pub s3xx: u64,
    /// 4xx.
    pub s4xx: u64,
    /// 5xx.
    pub s5xx: u64,
}

/// A latency summary in microseconds, from a merged HDR histogram (3 significant figures).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Samples.
    pub count: u64,
    /// Smallest.
    pub min_us: u64,
    /// Mean.
    pub mean_us: f64,
    /// Standard deviation.
    pub stdev_us: f64,
    /// Share of samples within one standard deviation of the mean, percent (wrk's `+/- Stdev`).
    pub within_stdev_pct: f64,
    /// Median.
    pub p50_us: u64,
    /// 75th percentile.
    pub p75_us: u64,
    /// 90th percentile.
    pub p90_us: u64,
    /// 95th percentile (E1's articles report p95; absent, so 0, in reports written before
    /// it was added).
    #[serde(default)]
    pub p95_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p99_9_us: u64,
    /// Largest (the timeout at most).
    pub max_us: u64,
}

impl Latency {
    /// Summarises a histogram of microseconds.
    pub fn from_histogram(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let (mean, stdev) = (h.mean(), h.stdev());
        Latency {
            count: h.len(),
            min_us: h.min(),
            mean_us: mean,
            stdev_us: stdev,
            within_stdev_pct: within(h, mean, stdev),
            p50_us: h.value_at_quantile(0.50),
            p75_us: h.value_at_quantile(0.75),
            p90_us: h.value_at_quantile(0.90),
            p95_us: h.value_at_quantile(0.95),
            p99_us: h.value_at_quantile(0.99),
            p99_9_us: h.value_at_quantile(0.999),
            max_us: h.max(),
        }
    }
}

/// A per-thread rate summary over 100 ms samples of the measured window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Samples, all threads together (none for runs shorter than one sample).
    pub samples: u64,
    /// Mean per-thread rate.
    pub mean: f64,
    /// Standard deviation.
    pub stdev: f64,
    /// Highest sample.
    pub max: u64,
    /// Share of samples within one standard deviation of the mean, percent.
    pub within_stdev_pct: f64,
}

impl Rate {
    #[cfg(feature = "client")]
    fn from_histogram(h: &Histogram<u64>) -> Rate {
        if h.is_empty() {
            return Rate::default();
        }
        let (mean, stdev) = (h.mean(), h.stdev());
        Rate {
            samples: h.len(),
            mean,
            stdev,
            max: h.max(),
            within_stdev_pct: within(h, mean, stdev),
        }
    }
}

fn within(h: &Histogram<u64>, mean: f64, stdev: f64) -> f64 {
    let lo = (mean - stdev).max(0.0) as u64;
    let hi = (mean + stdev) as u64;
    h.count_between(lo, hi) as f64 / h.len() as f64 * 100.0
}

/// The generator's CPU time, from getrusage per worker thread.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    /// User seconds, all worker threads.
    pub user_s: f64,
    /// System seconds, all worker threads.
    pub system_s: f64,
    /// The busiest worker thread's CPU time over its wall time (1.0 = one CPU, fully).
    pub max_thread_utilisation: f64,
    /// Set when a worker thread was busy at least [`BOTTLENECK_UTILISATION`] of the time:
    /// the generator, not the server, may have set the pace.
    pub generator_bound: bool,
}

/// Builds the result from merged stats over the measured `window`.
#[cfg(feature = "client")]
pub(crate) fn summarise(
    config: &Config,
    stats: &ThreadStats,
    window: std::time::Duration,
    cpu: Cpu,
) -> RunResult {
    let duration_s = window.as_secs_f64();
    let d = duration_s.max(1e-9);
    let [s1, s2, s3, s4, s5] = stats.status;
    RunResult {
        duration_s,
        requests: stats.requests(),
        responses: stats.responses,
        ok: s1 + s2 + s3,
        unfinished: stats.unfinished,
        intended: stats.intended,
        unsent: stats.unsent,
        requests_per_s: stats.responses as f64 / d,
        response_bytes: stats.response_bytes,
        bytes_per_response: if stats.responses == 0 {
            0.0
        } else {
            stats.response_bytes as f64 / stats.responses as f64
        },
        transfer_per_s: stats.response_bytes as f64 / d,
        bytes_read: stats.bytes_read,
        connections_opened: stats.connections,
        status: StatusClasses {
            s1xx: s1,
            s2xx: s2,
            s3xx: s3,
            s4xx: s4,
            s5xx: s5,
        },
        errors: stats.errors,
        latency: Latency::from_histogram(&stats.latency),
        latency_uncorrected: matches!(config.load, Load::Open { .. })
            .then(|| Latency::from_histogram(&stats.uncorrected)),
        thread_requests_per_s: Rate::from_histogram(&stats.rate),
        cpu,
        timeline: stats
            .timeline
            .as_ref()
            .map(|t| t.report(window, matches!(config.load, Load::Open { .. }))),
    }
}
