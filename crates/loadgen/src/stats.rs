//! Result data of one worker thread, and their merge.
//!
//! Each thread owns one [`ThreadStats`]: two fixed-memory HDR histograms (1 µs to the
//! timeout, 3 significant figures), plain counters and, with `--interval`, its
//! [`ThreadTimeline`]. The connections of a thread share it
//! through the thread's event loop; threads never share it. The run merges them once at the
//! end with [`ThreadStats::merge`].

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::timeline::ThreadTimeline;

pub use crate::errors::{ErrorKind, Errors};

/// The measurements of one worker thread (or, after [`merge`](ThreadStats::merge), of all).
#[derive(Debug)]
pub struct ThreadStats {
    /// Latency in µs: from the intended send time in the open model (always, however late the
    /// send), else from the send.
    pub latency: Histogram<u64>,
    /// Latency in µs from the actual send (equal to `latency` but in the open model).
    pub uncorrected: Histogram<u64>,
    /// Whole responses, any status.
    pub responses: u64,
    /// Whole responses by status class: 1xx, 2xx, 3xx, 4xx, 5xx.
    pub status: [u64; 5],
    /// Failures.
    pub errors: Errors,
    /// Requests cut off by the end of a timed run (not failures).
    pub unfinished: u64,
    /// The open model: measured requests its schedule made due (0 for other models).
    pub intended: u64,
    /// The open model: requests of `intended` never sent.
    pub unsent: u64,
    /// Bytes of whole responses (heads and bodies).
    pub response_bytes: u64,
    /// Bytes read from sockets, measured or not.
    pub bytes_read: u64,
    /// Connections opened.
    pub connections: u64,
    /// When the last measured request finished.
    pub last: Option<Instant>,
    /// Responses per second of one thread, sampled every 100 ms of the measured window.
    pub rate: Histogram<u64>,
    /// The measured window in intervals (`--interval`), or `None`.
    pub timeline: Option<ThreadTimeline>,
}

impl ThreadStats {
    /// Empty stats whose histograms reach `timeout`.
    pub fn new(timeout: Duration) -> ThreadStats {
        let high = u64::try_from(timeout.as_micros())
            .unwrap_or(u64::MAX)
            .max(2);
        let hist = || Histogram::new_with_bounds(1, high, 3).expect("valid histogram bounds");
        ThreadStats {
            latency: hist(),
            uncorrected: hist(),
            responses: 0,
            status: [0; 5],
            errors: Errors::default(),
            unfinished: 0,
            intended: 0,
            unsent: 0,
            response_bytes: 0,
            bytes_read: 0,
            connections: 0,
            last: None,
            rate: Histogram::new_with_bounds(1, 1_000_000_000, 3).expect("valid histogram bounds"),
            timeline: None,
        }
    }

    /// Records a whole response of `len` bytes completed at `at`, in the timeline too.
    #[inline]
    pub fn response_at(
        &mut self,
        at: Instant,
        status: u16,
        len: usize,
        latency: Duration,
        uncorrected: Duration,
    ) {
        self.response(status, len, latency, uncorrected);
        if let Some(t) = &mut self.timeline {
            t.response(at, status, micros(latency));
        }
    }

    /// Records `n` failures of `kind` at `at`, in the timeline too.
    pub fn fail_at(&mut self, at: Instant, kind: ErrorKind, n: u64) {
        self.errors.add(kind, n);
        if let Some(t) = &mut self.timeline {
            t.fail(at, kind, n);
        }
    }

    /// Records a whole response of `len` bytes.
    pub fn response(&mut self, status: u16, len: usize, latency: Duration, uncorrected: Duration) {
        self.latency.saturating_record(micros(latency));
        self.uncorrected.saturating_record(micros(uncorrected));
        self.responses += 1;
        self.response_bytes += len as u64;
        let class = usize::from(status / 100).clamp(1, 5);
        self.status[class - 1] += 1;
        match class {
            4 => self.errors.status_4xx += 1,
            5 => self.errors.status_5xx += 1,
            _ => {}
        }
    }

    /// Requests answered or failed.
    pub fn requests(&self) -> u64 {
        self.responses + self.errors.transport()
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &ThreadStats) {
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
        let _ = self.uncorrected.add(&other.uncorrected);
        self.responses += other.responses;
        for (a, b) in self.status.iter_mut().zip(other.status) {
            *a += b;
        }
        self.errors.merge(&other.errors);
        self.unfinished += other.unfinished;
        self.intended += other.intended;
        self.unsent += other.unsent;
        self.response_bytes += other.response_bytes;
        self.bytes_read += other.bytes_read;
        self.connections += other.connections;
        self.last = self.last.max(other.last);
        let _ = self.rate.add(&other.rate);
        match (&mut self.timeline, &other.timeline) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.timeline = Some(b.clone()),
            _ => {}
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_and_merge() {
        let ms = Duration::from_millis;
        let mut a = ThreadStats::new(ms(100));
        a.response(200, 10, ms(1), ms(1));
        a.response(503, 10, ms(500), ms(2));
        a.errors.add(ErrorKind::Timeout, 2);
        let mut b = ThreadStats::new(ms(100));
        b.response(404, 5, Duration::ZERO, Duration::ZERO);
        a.merge(&b);
        assert_eq!((a.responses, a.requests(), a.response_bytes), (3, 5, 25));
        assert_eq!(a.status, [0, 1, 0, 1, 1]);
        assert_eq!(
            (a.errors.status_4xx, a.errors.status_5xx, a.errors.total()),
            (1, 1, 4)
        );
        assert_eq!(a.latency.min(), 1);
        // Saturated at the top of the range, which is the timeout.
        assert!(a.latency.max() >= 99_900 && a.latency.max() <= 100_100);
    }
}
