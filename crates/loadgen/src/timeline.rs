//! The run's timeline (`--interval`): what happened in each interval of the measured window,
//! so that a dip of a few seconds shows where it was rather than vanishing into one figure
//! per run.
//!
//! Each worker thread owns one [`ThreadTimeline`], allocated before the run and never grown:
//! per interval, a few counters and a fixed array of latency buckets ([`BUCKETS_PER_OCTAVE`]
//! per power of two, so within 3 %). A response costs one index computation (its completion
//! time over the interval), one bucket index and a few adds; a write, a failure or the open
//! model's start of a request one index and one add. The thread samples its own CPU time at
//! each interval boundary, off the hot path (`client`). The run merges the threads'
//! timelines once at the end ([`ThreadTimeline::merge`]) and summarises them into the
//! report's [`Timeline`].

use std::ops::Range;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::errors::{ErrorKind, Errors};

/// The most intervals a run may have (`--interval` over the measured window).
pub const MAX_INTERVALS: u64 = 10_000;

/// Latency buckets per power of two: values below `2 * BUCKETS_PER_OCTAVE` µs have a bucket
/// each, larger ones a bucket of at most 1/32 of their value (so 3 % wide).
pub const BUCKETS_PER_OCTAVE: usize = 1 << SUB_BITS;

const SUB_BITS: u32 = 5;

/// The bucket of a latency of `us` microseconds.
#[inline]
fn bucket(us: u64) -> usize {
    let log2 = 63 - (us | 1).leading_zeros();
    let shift = log2.saturating_sub(SUB_BITS);
    shift as usize * BUCKETS_PER_OCTAVE + (us >> shift) as usize
}

/// The highest latency, in µs, that falls in bucket `i`.
fn highest(i: usize) -> u64 {
    if i < 2 * BUCKETS_PER_OCTAVE {
        return i as u64;
    }
    let shift = i / BUCKETS_PER_OCTAVE - 1;
    let sub = (i % BUCKETS_PER_OCTAVE + BUCKETS_PER_OCTAVE) as u64;
    (sub << shift) + ((1 << shift) - 1)
}

/// The counters of one interval.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    responses: u64,
    /// The largest latency recorded, µs.
    max_us: u64,
    errors: Errors,
    /// Measured requests whose write began in the interval.
    sent: u64,
    /// The open model: measured requests started whose intended time is in the interval.
    started: u64,
    /// The open model: requests the schedule made due in the interval.
    due: u64,
    /// CPU seconds (user and system) of the thread in the interval.
    cpu_s: f64,
}

impl Slot {
    fn add(&mut self, o: &Slot) {
        self.responses += o.responses;
        self.max_us = self.max_us.max(o.max_us);
        self.errors.merge(&o.errors);
        self.sent += o.sent;
        self.started += o.started;
        self.due += o.due;
        self.cpu_s += o.cpu_s;
    }
}

/// One worker thread's timeline (or, after [`merge`](ThreadTimeline::merge), the run's):
/// fixed memory per interval, allocated once.
#[derive(Clone, Debug)]
pub struct ThreadTimeline {
    /// The start of the measured window (the end of the warm-up).
    origin: Instant,
    step: Duration,
    step_ns: u64,
    window: Duration,
    /// Latencies above this (the timeout, in µs) are recorded as this, as in the run's own
    /// histograms.
    top_us: u64,
    /// Buckets per interval.
    buckets: usize,
    slots: Vec<Slot>,
    /// `buckets` latency counts per interval, interval after interval.
    counts: Vec<u32>,
}

impl ThreadTimeline {
    /// An empty timeline of the `window` from `origin` in intervals of `step` (the last one
    /// shorter when `step` does not divide `window`), whose latency buckets reach `top`.
    /// The number of intervals must be checked first ([`crate::Config::validate`]:
    /// [`MAX_INTERVALS`] at most).
    pub fn new(origin: Instant, step: Duration, window: Duration, top: Duration) -> Self {
        let step_ns = u64::try_from(step.as_nanos()).unwrap_or(u64::MAX).max(1);
        let n = window
            .as_nanos()
            .div_ceil(u128::from(step_ns))
            .clamp(1, u128::from(MAX_INTERVALS)) as usize;
        let top_us = u64::try_from(top.as_micros()).unwrap_or(u64::MAX).max(1);
        let buckets = bucket(top_us) + 1;
        ThreadTimeline {
            origin,
            step,
            step_ns,
            window,
            top_us,
            buckets,
            slots: vec![Slot::default(); n],
            counts: vec![0; n * buckets],
        }
    }

    /// The number of intervals.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether it has no interval (never: a timeline has at least one).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The interval holding `t`: before the window the first, after it the last.
    #[inline]
    pub fn index(&self, t: Instant) -> usize {
        let d = t.saturating_duration_since(self.origin);
        let ns = d
            .as_secs()
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::from(d.subsec_nanos()));
        usize::try_from(ns / self.step_ns)
            .unwrap_or(usize::MAX)
            .min(self.slots.len() - 1)
    }

    /// The start and end of interval `i` (the end of the window for the last one).
    pub fn bounds(&self, i: usize) -> (Instant, Instant) {
        let from = self.origin + self.step * i as u32;
        let to = (self.origin + self.step * (i as u32 + 1)).min(self.origin + self.window);
        (from, to)
    }

    /// A whole response with `status` completed at `at`, `latency_us` after it was due.
    #[inline]
    pub fn response(&mut self, at: Instant, status: u16, latency_us: u64) {
        let i = self.index(at);
        let us = latency_us.min(self.top_us);
        let c = &mut self.counts[i * self.buckets + bucket(us)];
        *c = c.saturating_add(1);
        let s = &mut self.slots[i];
        s.responses += 1;
        s.max_us = s.max_us.max(us);
        match status / 100 {
            0..=3 => {}
            4 => s.errors.status_4xx += 1,
            _ => s.errors.status_5xx += 1,
        }
    }

    /// `n` requests failed with `kind` at `at`.
    pub fn fail(&mut self, at: Instant, kind: ErrorKind, n: u64) {
        let i = self.index(at);
        self.slots[i].errors.add(kind, n);
    }

    /// `n` measured requests were written from `at`.
    #[inline]
    pub fn sent(&mut self, at: Instant, n: u64) {
        let i = self.index(at);
        self.slots[i].sent += n;
    }

    /// The open model: a measured request intended at `intended` was started.
    #[inline]
    pub fn started(&mut self, intended: Instant) {
        let i = self.index(intended);
        self.slots[i].started += 1;
    }

    /// The open model: the schedule made `n` requests due in interval `i`.
    pub fn set_due(&mut self, i: usize, n: u64) {
        if let Some(s) = self.slots.get_mut(i) {
            s.due = n;
        }
    }

    /// The open model: every request started was all that was due (the thread's share of
    /// `-n` was reached).
    pub fn due_as_started(&mut self) {
        for s in &mut self.slots {
            s.due = s.started;
        }
    }

    /// The thread spent `secs` of CPU in interval `i`.
    pub fn add_cpu(&mut self, i: usize, secs: f64) {
        if let Some(s) = self.slots.get_mut(i) {
            s.cpu_s += secs.max(0.0);
        }
    }

    /// Adds `other`, a timeline of another thread of the same run, into `self`.
    pub fn merge(&mut self, other: &ThreadTimeline) {
        debug_assert_eq!(
            (self.slots.len(), self.buckets),
            (other.slots.len(), other.buckets)
        );
        for (a, b) in self.slots.iter_mut().zip(&other.slots) {
            a.add(b);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a = a.saturating_add(*b);
        }
    }

    /// The report of the intervals of a measured window of `window` (the run's own, which may
    /// end before the one planned): those from `window` on, which hold nothing unless a
    /// response completed after it, count in the last. `open`: the open model, whose
    /// intervals say what was due and unsent.
    pub fn report(&self, window: Duration, open: bool) -> Timeline {
        let n = self.slots.len();
        let keep = (window.as_nanos().div_ceil(u128::from(self.step_ns)) as usize).clamp(1, n);
        let intervals = (0..keep)
            .map(|i| {
                let range = if i + 1 == keep { i..n } else { i..i + 1 };
                let start = self.step * i as u32;
                let end = (self.step * (i as u32 + 1)).min(window);
                let length = end.saturating_sub(start).as_secs_f64();
                self.interval(range, start.as_secs_f64(), length, open)
            })
            .collect();
        Timeline {
            interval_s: self.step.as_secs_f64(),
            intervals,
        }
    }

    fn interval(&self, range: Range<usize>, start_s: f64, duration_s: f64, open: bool) -> Interval {
        let mut s = Slot::default();
        let mut counts = vec![0u64; self.buckets];
        for i in range {
            s.add(&self.slots[i]);
            let own = &self.counts[i * self.buckets..(i + 1) * self.buckets];
            for (a, &b) in counts.iter_mut().zip(own) {
                *a += u64::from(b);
            }
        }
        let total: u64 = counts.iter().sum();
        let quantile = |q: f64| {
            let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
            let mut seen = 0;
            let i = counts
                .iter()
                .position(|&c| {
                    seen += c;
                    seen >= rank
                })
                .unwrap_or(0);
            highest(i).min(s.max_us)
        };
        let has = total > 0;
        let errors = s.errors.total();
        Interval {
            start_s,
            duration_s,
            responses: s.responses,
            errors,
            error_kinds: (errors > 0).then_some(s.errors),
            sent: s.sent,
            due: open.then_some(s.due),
            unsent: open.then(|| s.due.saturating_sub(s.started)),
            p50_us: has.then(|| quantile(0.50)),
            p99_us: has.then(|| quantile(0.99)),
            max_us: has.then_some(s.max_us),
            cpu_s: (s.cpu_s * 1e6).round() / 1e6,
        }
    }
}

/// The run's timeline (`--interval`): the measured window (after the warm-up) in intervals.
///
/// The intervals' responses and errors add up to the run's, and in the open model their
/// `due` and `unsent` to its `intended` and `unsent`; requests cut off by the end of the run
/// (`unfinished`) are in no interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// The interval asked for, seconds.
    pub interval_s: f64,
    /// One per interval, in order: the measured window's length over `interval_s`, rounded
    /// up (the last one shorter when it does not divide the window).
    pub intervals: Vec<Interval>,
}

/// What happened in one interval of the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Its start, seconds from the end of the warm-up.
    pub start_s: f64,
    /// Its length, seconds (`interval_s` but for a shorter last one).
    pub duration_s: f64,
    /// Whole responses completed in it (any status).
    pub responses: u64,
    /// Failures in it, error statuses included, as the run's `errors` counts them: transport
    /// failures when they happened, 4xx and 5xx responses when they completed.
    pub errors: u64,
    /// `errors` by kind, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kinds: Option<Errors>,
    /// Measured requests whose write began in it (a request whose connection could not be
    /// opened was never sent).
    pub sent: u64,
    /// The open model: the requests its schedule made due in it (intended in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<u64>,
    /// The open model: of `due`, those never sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent: Option<u64>,
    /// Median latency of the responses completed in it, µs (from the intended send time in
    /// the open model, as the run's own); within 3 %, `null` without responses.
    pub p50_us: Option<u64>,
    /// 99th percentile, as `p50_us`.
    pub p99_us: Option<u64>,
    /// The largest latency (the timeout at most, as the run's own), `null` without responses.
    pub max_us: Option<u64>,
    /// CPU seconds, user and system, of all the worker threads in it: getrusage
    /// (RUSAGE_THREAD) read by each thread at the interval's boundaries (a boundary read up to
    /// a few ms late, as the thread's event loop allows, moves that CPU to its neighbour).
    pub cpu_s: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_within_3_percent() {
        let mut prev = 0;
        for us in 1..5_000_000u64 {
            let b = bucket(us);
            assert!(b == prev || b == prev + 1, "{us}: {prev} then {b}");
            assert!(
                highest(b) >= us && highest(b) - us <= us / 32,
                "{us} in {b}"
            );
            prev = b;
        }
        assert_eq!(
            (bucket(0), bucket(63), bucket(64), bucket(65)),
            (0, 63, 64, 64)
        );
        assert_eq!(highest(bucket(u64::MAX)), u64::MAX);
    }

    #[test]
    fn records_by_time_and_merges() {
        let ms = Duration::from_millis;
        let t0 = Instant::now();
        let mut a = ThreadTimeline::new(t0, ms(100), ms(250), ms(1000));
        assert_eq!(a.len(), 3);
        assert_eq!(a.bounds(2), (t0 + ms(200), t0 + ms(250)));
        let mut b = a.clone();
        for (t, lat) in [(0, 10), (99, 20), (100, 30), (150, 2_000_000), (260, 5)] {
            a.response(t0 + ms(t), 200, lat);
        }
        b.response(t0 + ms(120), 503, 40);
        b.fail(t0 + ms(210), ErrorKind::Read, 2);
        b.sent(t0 + ms(50), 3);
        b.add_cpu(1, 0.25);
        a.merge(&b);
        let t = a.report(ms(250), false);
        assert_eq!(t.interval_s, 0.1);
        let got: Vec<_> = t
            .intervals
            .iter()
            .map(|i| (i.responses, i.errors, i.sent, i.p50_us, i.max_us))
            .collect();
        assert_eq!(
            got,
            [
                (2, 0, 3, Some(10), Some(20)),
                // Saturated at the top, the timeout.
                (3, 1, 0, Some(40), Some(1_000_000)),
                (1, 2, 0, Some(5), Some(5)),
            ]
        );
        assert_eq!(t.intervals[1].cpu_s, 0.25);
        assert_eq!(t.intervals[2].duration_s, 0.05);
        assert_eq!(t.intervals[2].error_kinds.unwrap().read, 2);
        assert_eq!(t.intervals[1].error_kinds.unwrap().status_5xx, 1);
        assert_eq!(t.intervals[0].due, None);
        // A run that ended early: its last interval holds the rest.
        let t = a.report(ms(150), false);
        assert_eq!(t.intervals.len(), 2);
        assert_eq!(t.intervals[1].responses, 4);
    }
}
