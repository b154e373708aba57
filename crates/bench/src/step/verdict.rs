//! The rules that decide what a measured run is worth, each one function, used by every
//! command that runs steps (`bench run`, `bench tools compare`) and read back by every report
//! through the fields they set:
//!
//! - [`failed`]: a run in which more than [`FAILED_LIMIT`] % of the requests failed is not a
//!   result ([`crate::results::StepResult::valid`] false, with the counts);
//! - [`tool_bound`]: the load tool, not the server, set the pace ([`Run::tool_bound`]);
//! - [`machine::disturbed`](super::machine::disturbed): other work on the machine did
//!   ([`Run::disturbed`]);
//! - [`MIN_WINDOW`]: below it a run's CPU shares are not measured at all, rather than wrong.

use std::time::Duration;

use crate::results::{Errors, Run, TOOL_BOUND_SHARE};

use super::sample::Usage;

/// Failed requests above this share, percent, make a run invalid.
pub const FAILED_LIMIT: f64 = 1.0;

/// A measured window shorter than this records no CPU percentages, interference or tool-bound
/// verdict: 100 ms readings and 10 ms clock ticks are too coarse for it.
pub const MIN_WINDOW: Duration = Duration::from_secs(1);

/// Why `run` is not a result because its requests failed: none answered, or more than
/// [`FAILED_LIMIT`] % failed (transport errors, timeouts, k6's failed requests, an answer
/// outside 2xx: every endpoint a step loads answers 200, and the tools count status classes,
/// each in `errors`). `tool` names the tool.
pub fn failed(tool: &str, run: &Run) -> Option<String> {
    let e = &run.errors;
    // A request can fail twice over (wrk counts a late 500 as a timeout and a status error).
    let failed = e.total().min(run.requests);
    let answered = run.requests.saturating_sub(failed);
    if run.requests > 0 && failed as f64 * 100.0 <= FAILED_LIMIT * run.requests as f64 {
        return None;
    }
    let kinds = kinds(e);
    Some(if answered == 0 || run.requests == 0 {
        format!(
            "{tool} got no good answer in the measured window ({} requests, {failed} failed{kinds})",
            run.requests
        )
    } else {
        format!(
            "{failed} of {} requests failed ({:.1} %, more than {FAILED_LIMIT} %{kinds})",
            run.requests,
            failed as f64 * 100.0 / run.requests as f64
        )
    })
}

/// `: 12 connect, 3 status` (the kinds that occurred), or nothing.
fn kinds(e: &Errors) -> String {
    let parts: Vec<String> = [
        ("connect", e.connect),
        ("read", e.read),
        ("write", e.write),
        ("timeout", e.timeout),
        ("status", e.status),
        ("other", e.other),
    ]
    .iter()
    .filter(|(_, n)| *n > 0)
    .map(|(k, n)| format!("{n} {k}"))
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    }
}

/// How a load tool uses CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One thread does the work (wrk -t1, ab, the built-in generator with one worker,
    /// autocannon's event loop): bound when that thread is busy.
    One,
    /// Its threads share the work (k6, oha): bound when they fill the CPUs it may use.
    Many {
        /// The CPUs it may run on.
        cpus: usize,
    },
}

/// Whether the tool set the pace: its busiest thread used at least [`TOOL_BOUND_SHARE`] of a
/// CPU (one thread), or its threads together that share of the CPUs it may run on (many),
/// over its measured window `u`.
pub fn tool_bound(threads: Threads, u: &Usage) -> bool {
    let limit = TOOL_BOUND_SHARE * 100.0;
    match threads {
        Threads::One => u.busiest_thread_percent() >= limit,
        Threads::Many { cpus } => u.cpu_percent() >= limit * cpus.max(1) as f64,
    }
}

/// Why a run's CPU shares were not recorded: its measured window was shorter than
/// [`MIN_WINDOW`].
pub fn too_short(window_s: f64) -> Option<String> {
    (window_s < MIN_WINDOW.as_secs_f64()).then(|| {
        format!(
            "the measured window was {:.2} s, shorter than {} s: no CPU percentages, interference or tool-bound verdict",
            window_s,
            MIN_WINDOW.as_secs()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(requests: u64, errors: Errors) -> Run {
        Run {
            requests,
            errors,
            ..Run::default()
        }
    }

    #[test]
    fn more_than_one_percent_failed_is_not_a_result() {
        let ok = run(1000, Errors::default());
        assert_eq!(failed("wrk", &ok), None);
        let at_limit = run(
            1000,
            Errors {
                status: 10,
                ..Errors::default()
            },
        );
        assert_eq!(failed("wrk", &at_limit), None);
        let over = run(
            1000,
            Errors {
                status: 10,
                timeout: 1,
                ..Errors::default()
            },
        );
        assert_eq!(
            failed("wrk", &over).as_deref(),
            Some("11 of 1000 requests failed (1.1 %, more than 1 %: 1 timeout, 10 status)")
        );
        // Every request answered 500: answers, but none a good one.
        let all = run(
            2000,
            Errors {
                status: 2000,
                ..Errors::default()
            },
        );
        assert_eq!(
            failed("ab", &all).as_deref(),
            Some(
                "ab got no good answer in the measured window (2000 requests, 2000 failed: 2000 status)"
            )
        );
        // k6 counts its failed requests as `other`.
        let k6 = run(
            500,
            Errors {
                other: 500,
                ..Errors::default()
            },
        );
        assert!(failed("k6", &k6).unwrap().contains("500 other"));
        assert!(failed("loadgen", &run(0, Errors::default())).is_some());
    }

    #[test]
    fn one_thread_is_judged_by_its_busiest_thread_many_by_all_their_cpus() {
        let u = |cpu_s: f64, busiest_thread_s: f64| Usage {
            cpu_s,
            busiest_thread_s,
            wall_s: 2.0,
            ..Usage::default()
        };
        // autocannon: its GC and libuv threads add to the total, but its event loop is 80 %.
        assert!(!tool_bound(Threads::One, &u(2.1, 1.6)));
        assert!(tool_bound(Threads::One, &u(1.9, 1.8)));
        // k6 on two CPUs: 175 % is not bound, 180 % is.
        assert!(!tool_bound(Threads::Many { cpus: 2 }, &u(3.5, 0.9)));
        assert!(tool_bound(Threads::Many { cpus: 2 }, &u(3.6, 0.9)));
        assert_eq!(too_short(1.5), None);
        assert!(
            too_short(0.03)
                .unwrap()
                .starts_with("the measured window was 0.03 s")
        );
    }
}
