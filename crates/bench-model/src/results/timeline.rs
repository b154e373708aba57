//! A repeat's measured window in intervals: what went over the loopback, what the load tool
//! saw, and what the server, the tool and the rest of the machine did, at one cadence.
//!
//! A run's one figure averages its window. On this kind of VM the noise is dips of 10–25 %
//! lasting a second or more that land on whole runs (docs/notes/2026-12-04-noise.md), so where
//! in a run a dip was, and what it went with, is what tells the machine from the server.
//! [`Timeline`] keeps that, compactly: one column per quantity, one entry per interval of
//! [`INTERVAL`]. The harness fills it from its own readings (every tool: the loopback's bytes,
//! /proc for the server, the tool and the machine) and from the built-in generator's own
//! timeline (its answers and latency per interval), [`Timeline::from_slices`].

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The timeline's interval: five of the harness's 100 ms readings, so a CPU share is read
/// over 0.4–0.6 s at worst; the dips it is for last a second or more.
pub const INTERVAL: Duration = Duration::from_millis(500);

/// A repeat's measured window in intervals of [`Timeline::interval_s`], one entry per interval
/// in every column, from the start of the load tool's measured window. Percentages are of one
/// CPU; an interval's figures are over its own length ([`Timeline::duration_s`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Timeline {
    /// The interval asked for, seconds.
    pub interval_s: f64,
    /// Each interval's length, seconds (the last one shorter where the window is not a
    /// multiple of the interval).
    pub duration_s: Vec<f64>,
    /// Bytes over the loopback per second, both directions counted once (requests and
    /// answers, of every process on the machine), MB/s: the one throughput every tool has.
    pub loopback_mb_per_s: Vec<f64>,
    /// Answers per second, from the built-in generator's own timeline; `None` for other
    /// tools and for a step of several tool runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responses_per_s: Option<Vec<f64>>,
    /// The 99th percentile of the answers completed in the interval, ms (the generator's;
    /// `None` inside where the interval had no answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ms: Option<Vec<Option<f64>>>,
    /// The server's CPU, percent of one CPU; empty when it was not sampled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_cpu_percent: Vec<f64>,
    /// The time the server's threads were runnable but waited for a CPU, percent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_wait_percent: Vec<f64>,
    /// The load tool's CPU, percent of one CPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_cpu_percent: Vec<f64>,
    /// The load tool's threads' time waiting for a CPU, percent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_wait_percent: Vec<f64>,
    /// Steal, all CPUs, percent of one CPU.
    pub steal_percent: Vec<f64>,
    /// The machine's busy time less the server's, the tool's and the harness's, percent of
    /// one CPU: other work (near 0 on a quiet machine; slightly negative where one of the
    /// readings fell on the other side of an interval's edge).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_percent: Vec<f64>,
}

/// One interval's raw counts, as the harness read them: the input of
/// [`Timeline::from_slices`]. Times are seconds of CPU over the interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Slice {
    /// The interval's length, seconds.
    pub duration_s: f64,
    /// Bytes the loopback carried (transmitted on `lo`).
    pub loopback_bytes: u64,
    /// The generator's answers in it, where it reported them.
    pub responses: Option<u64>,
    /// The generator's p99 in it, µs, where it had answers.
    pub p99_us: Option<u64>,
    /// The server's CPU and wait, where sampled.
    pub server: Option<(f64, f64)>,
    /// The tool's CPU and wait, where sampled.
    pub tool: Option<(f64, f64)>,
    /// All CPUs' steal.
    pub steal_s: f64,
    /// All CPUs' busy time (steal excluded).
    pub busy_s: f64,
    /// This harness's own CPU.
    pub harness_s: f64,
}

impl Timeline {
    /// The timeline of `slices`, in order, read at `interval`. A column that some slice lacks
    /// (the server was not sampled in it, the generator gave no count) is left out whole, so
    /// every column kept has one entry per interval.
    pub fn from_slices(interval: Duration, slices: &[Slice]) -> Timeline {
        let pct = |s: f64, d: f64| round1(if d > 0.0 { s * 100.0 / d } else { 0.0 });
        let all = |f: &dyn Fn(&Slice) -> Option<f64>| -> Option<Vec<f64>> {
            slices.iter().map(f).collect()
        };
        let server = all(&|s| s.server.map(|(c, _)| pct(c, s.duration_s)));
        let server_wait = all(&|s| s.server.map(|(_, w)| pct(w, s.duration_s)));
        let tool = all(&|s| s.tool.map(|(c, _)| pct(c, s.duration_s)));
        let tool_wait = all(&|s| s.tool.map(|(_, w)| pct(w, s.duration_s)));
        let other = all(&|s| {
            let ((server, _), (tool, _)) = (s.server?, s.tool?);
            Some(pct(s.busy_s - server - tool - s.harness_s, s.duration_s))
        });
        let responses = all(&|s| {
            s.responses.map(|n| {
                if s.duration_s > 0.0 {
                    (n as f64 / s.duration_s).round()
                } else {
                    0.0
                }
            })
        });
        let p99 = responses.as_ref().map(|_| {
            slices
                .iter()
                .map(|s| s.p99_us.map(|us| (us as f64 / 10.0).round() / 100.0))
                .collect()
        });
        Timeline {
            interval_s: interval.as_secs_f64(),
            duration_s: slices.iter().map(|s| round3(s.duration_s)).collect(),
            loopback_mb_per_s: slices
                .iter()
                .map(|s| {
                    let mb = s.loopback_bytes as f64 / 1e6;
                    round2(if s.duration_s > 0.0 {
                        mb / s.duration_s
                    } else {
                        0.0
                    })
                })
                .collect(),
            responses_per_s: responses,
            p99_ms: p99,
            server_cpu_percent: server.unwrap_or_default(),
            server_wait_percent: server_wait.unwrap_or_default(),
            tool_cpu_percent: tool.unwrap_or_default(),
            tool_wait_percent: tool_wait.unwrap_or_default(),
            steal_percent: slices
                .iter()
                .map(|s| pct(s.steal_s, s.duration_s))
                .collect(),
            other_percent: other.unwrap_or_default(),
        }
    }

    /// How many intervals it has.
    pub fn len(&self) -> usize {
        self.duration_s.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.duration_s.is_empty()
    }

    /// The throughput column the noise is read from: the generator's answers per second where
    /// it gave them, else the loopback's bytes (proportional to answers for one step's
    /// requests and answers, whatever the tool).
    pub fn throughput(&self) -> &[f64] {
        self.responses_per_s
            .as_deref()
            .unwrap_or(&self.loopback_mb_per_s)
    }

    /// The intervals that count for the noise: all but a last one shorter than half the
    /// interval (a sliver whose rate is mostly the tool's exit).
    pub fn whole(&self) -> usize {
        match self.duration_s.last() {
            Some(&d) if d < self.interval_s / 2.0 => self.len() - 1,
            _ => self.len(),
        }
    }
}

/// `pretty` (serde_json's pretty output) with every array of numbers and nulls on one line:
/// a timeline's columns, a window's two ends. Pretty-printing puts each element on a line of
/// its own, which more than doubles a results file with timelines; on one line they add about
/// half. Only arrays that span lines are touched, and a JSON string never holds a raw line
/// break, so no string's text changes.
pub fn compact_number_arrays(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let mut rest = pretty;
    while let Some(at) = rest.find("[\n") {
        out.push_str(&rest[..at]);
        let inner_end = rest[at + 1..].find(']').map(|e| at + 1 + e);
        let numbers = inner_end.and_then(|end| {
            let inner = &rest[at + 1..end];
            let items: Vec<&str> = inner.split(',').map(str::trim).collect();
            let plain = |x: &str| {
                x == "null"
                    || (!x.is_empty()
                        && x.chars().all(|c| c.is_ascii_digit() || "-+.eE".contains(c)))
            };
            items
                .iter()
                .all(|x| plain(x))
                .then(|| (items.join(", "), end))
        });
        match numbers {
            Some((joined, end)) => {
                out.push('[');
                out.push_str(&joined);
                out.push(']');
                rest = &rest[end + 1..];
            }
            None => {
                out.push_str("[\n");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(d: f64, bytes: u64) -> Slice {
        Slice {
            duration_s: d,
            loopback_bytes: bytes,
            server: Some((0.4, 0.01)),
            tool: Some((0.45, 0.0)),
            steal_s: 0.02,
            busy_s: 0.9,
            harness_s: 0.01,
            ..Slice::default()
        }
    }

    #[test]
    fn a_slice_becomes_rates_and_shares_of_its_own_length() {
        let t = Timeline::from_slices(
            INTERVAL,
            &[slice(0.5, 100_000_000), slice(0.25, 10_000_000)],
        );
        assert_eq!(t.interval_s, 0.5);
        assert_eq!(t.duration_s, vec![0.5, 0.25]);
        assert_eq!(t.loopback_mb_per_s, vec![200.0, 40.0]);
        assert_eq!(t.server_cpu_percent, vec![80.0, 160.0]);
        assert_eq!(t.tool_cpu_percent, vec![90.0, 180.0]);
        assert_eq!(t.steal_percent, vec![4.0, 8.0]);
        // 0.9 busy − 0.4 server − 0.45 tool − 0.01 harness = 0.04 s of 0.5 s.
        assert_eq!(t.other_percent[0], 8.0);
        assert_eq!(t.responses_per_s, None);
        assert_eq!(t.throughput(), &[200.0, 40.0]);
        // The 0.25 s sliver is half the interval: it counts; shorter would not.
        assert_eq!(t.whole(), 2);
    }

    #[test]
    fn arrays_of_numbers_go_on_one_line_and_nothing_else_changes() {
        let doc = serde_json::json!({
            "timeline": {"steal_percent": [0.0, 1.5, -2.0, 1e-7], "p99_ms": [1.2, null]},
            "repeats": [{"a": [1, 2]}, {"a": []}],
            "command": ["bench", "run"],
            "note": "a [1,\n 2] in a string",
        });
        let pretty = serde_json::to_string_pretty(&doc).unwrap();
        let compact = compact_number_arrays(&pretty);
        assert!(
            compact.contains("\"steal_percent\": [0.0, 1.5, -2.0, 1e-7]"),
            "{compact}"
        );
        assert!(compact.contains("\"p99_ms\": [1.2, null]"), "{compact}");
        assert!(compact.contains("\"a\": [1, 2]"), "{compact}");
        // Arrays of objects and of strings keep a line each.
        assert!(compact.contains("\"command\": [\n"), "{compact}");
        assert!(compact.contains("\"repeats\": [\n"), "{compact}");
        let back: serde_json::Value = serde_json::from_str(&compact).unwrap();
        assert_eq!(back, doc);
        assert!(compact.lines().count() < pretty.lines().count());
    }

    #[test]
    fn a_column_some_interval_lacks_is_left_out_whole() {
        let mut b = slice(0.5, 1);
        b.server = None;
        b.responses = Some(10);
        let mut a = slice(0.5, 1);
        a.responses = Some(20_000);
        a.p99_us = Some(1_234);
        let t = Timeline::from_slices(INTERVAL, &[a, b]);
        assert!(t.server_cpu_percent.is_empty() && t.other_percent.is_empty());
        assert_eq!(t.tool_cpu_percent.len(), 2);
        assert_eq!(t.responses_per_s, Some(vec![40_000.0, 20.0]));
        assert_eq!(t.p99_ms, Some(vec![Some(1.23), None]));
        assert_eq!(t.throughput(), &[40_000.0, 20.0]);
        let mut c = slice(0.1, 1);
        c.responses = None;
        let t = Timeline::from_slices(INTERVAL, &[a, c]);
        assert_eq!((&t.responses_per_s, &t.p99_ms), (&None, &None));
        assert_eq!(t.whole(), 1);
    }
}
