//! The rules that decide what a measured run is worth, each one function beside its
//! thresholds, applied by every command that runs steps (`bench run`, `bench tools compare`)
//! and read back by every report through the fields they set:
//!
//! - [`failed`]: a run in which more than [`FAILED_LIMIT`] % of the requests failed is not a
//!   result ([`crate::results::StepResult::valid`] false, with the counts);
//! - [`tool_bound`]: the load tool, not the server, set the pace ([`Run::tool_bound`]), from
//!   the tool's [`Usage`] over its measured window;
//! - [`disturbed`]: other work on the machine did ([`Run::disturbed`]): other work above
//!   [`OTHER_CPU_LIMIT`], steal above [`STEAL_LIMIT`], the server waiting for a CPU above
//!   [`SERVER_WAIT_LIMIT`];
//! - [`wrong_length`]: responses whose mean length is not the contract's answer's are not a
//!   result (a fast server answering an empty body);
//! - [`round_trips_set_pace`]: neither the server ([`server_bound`]) nor the tool set the pace
//!   of a closed-loop run, the connections' round trips did ([`Run::round_trips_bound`]);
//! - [`too_short`]: below [`MIN_WINDOW`] a run's CPU shares are not measured at all, rather
//!   than wrong; a count-bounded step runs its count again until [`MIN_COUNT_STEP`];
//! - [`saturated`]: at a rung of a ladder of offered rates (E7), the server could not keep up
//!   (achieved under [`KEEP_UP_SHARE`] of the offered rate, or p99 over [`KEEP_UP_P99`]), so
//!   its ladder stops there (`bench`'s `step::rung` applies it, with the tool-bound rule beside
//!   it);
//! - [`fell_behind`]: an open-model run left more than [`UNSENT_LIMIT`] of the requests due
//!   unsent: the tool's limit when the generator was busy to its limit
//!   ([`Run::tool_fell_behind`], part of [`Run::tool_bound`]), else the server held every
//!   connection (its saturation: [`saturated`] counts them).

use std::time::Duration;

use crate::results::{Errors, Interference, Run};

/// The share of the CPUs it could use (`tool_cpus`) at which a load tool counts as the
/// bottleneck of its step ([`Run::tool_bound`]).
pub const TOOL_BOUND_SHARE: f64 = 0.9;

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
    let parts: Vec<String> = e
        .counted()
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    }
}

/// The least share of the offered rate a rung must achieve for the server to have kept up.
pub const KEEP_UP_SHARE: f64 = 0.95;

/// The most p99 latency (from the intended send times) at which a server keeps up with a rung.
pub const KEEP_UP_P99: Duration = Duration::from_millis(100);

/// Why the server could not keep up with `run`'s offered rate: it answered less than
/// [`KEEP_UP_SHARE`] of it per second, or its p99 latency, from each request's intended send
/// time, was above [`KEEP_UP_P99`], or it left more than [`UNSENT_LIMIT`] of the requests due
/// unsent; every reason that holds. `None` when it kept up, and for a run of no offered rate
/// (the closed model). (Whether the tool rather than the server was the limit is
/// [`Run::tool_bound`], read beside it.)
pub fn saturated(run: &Run) -> Option<String> {
    let offered = run.offered_requests_per_s.filter(|o| *o > 0.0)?;
    let mut why = Vec::new();
    let share = run.requests_per_s / offered;
    if share < KEEP_UP_SHARE {
        why.push(format!(
            "achieved {} of {} requests/s offered ({:.1} %, under {:.0} %)",
            grouped(run.requests_per_s),
            grouped(offered),
            // Down, so a share just under the limit never reads as the limit itself.
            (share * 1000.0).floor() / 10.0,
            KEEP_UP_SHARE * 100.0
        ));
    }
    let limit = KEEP_UP_P99.as_micros() as u64;
    if let Some(p99) = run.latency_us.p99.filter(|&p| p > limit) {
        why.push(format!(
            "p99 {:.1} ms from the intended send times, over {} ms",
            p99 as f64 / 1000.0,
            KEEP_UP_P99.as_millis()
        ));
    }
    // Requests due and never sent have no latency at all: above the limit the percentiles
    // leave out the worst of them, so the rung is not kept up with, whatever they say.
    if let (Some(unsent), Some(due)) = (run.unsent_requests, run.intended_requests)
        && too_many_unsent(unsent, due)
    {
        why.push(format!(
            "{} of {} requests due never sent ({:.1} %, over {:.0} %)",
            grouped(unsent as f64),
            grouped(due as f64),
            unsent as f64 * 100.0 / due as f64,
            UNSENT_LIMIT * 100.0
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// A rate, rounded, with thousands separators (`61,204`).
fn grouped(x: f64) -> String {
    crate::stats::thousands(x.max(0.0))
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

/// The share of an open-model run's due requests (`intended`) that may go unsent: above it,
/// the requests never sent decide the rung ([`fell_behind`], [`saturated`]).
pub const UNSENT_LIMIT: f64 = 0.01;

/// Whether more than [`UNSENT_LIMIT`] of the `intended` requests went `unsent`.
fn too_many_unsent(unsent: u64, intended: u64) -> bool {
    intended > 0 && unsent as f64 > UNSENT_LIMIT * intended as f64
}

/// Who held back the requests an open-model run left unsent ([`fell_behind`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unsent {
    /// At most [`UNSENT_LIMIT`] of them: neither.
    Few,
    /// The generator, busy to its limit, could not send them: the tool's limit (†).
    Generator,
    /// The generator had time to spare, so every connection was waiting for an answer: the
    /// server held them, its saturation.
    Server,
}

/// Who held back the `unsent` of `intended` requests of an open-model run, given whether the
/// generator was busy to its limit ([`tool_bound`] on its CPU, the harness's measure, or the
/// generator's own when not measured).
///
/// A request due is sent at once by any free connection (loadgen's pacer), so a request stays
/// unsent only while every connection waits for an answer or while the generator has no CPU
/// to send it. With time to spare, it is the first: the server held every connection (a
/// stall, a queue), which is its saturation, not the tool's limit; the requests it never got
/// count against it ([`saturated`]). A rule from the mean number of connections waiting
/// (Little's law) was tried first and misjudged servers that stall in bursts (a garbage
/// collector, a worker process descheduled): between stalls few connections wait, so the
/// mean looks free while the stalls leave the backlog.
pub fn fell_behind(unsent: u64, intended: u64, generator_busy: bool) -> Unsent {
    if !too_many_unsent(unsent, intended) {
        Unsent::Few
    } else if generator_busy {
        Unsent::Generator
    } else {
        Unsent::Server
    }
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

/// Whether the server, by its own use over its measured window `u`, set the pace: it used at
/// least [`TOOL_BOUND_SHARE`] of the `cpus` it could run on, or its busiest thread that share of
/// one CPU (a server of one event loop is at its limit there, however many CPUs it was given).
pub fn server_bound(cpus: usize, u: &Usage) -> bool {
    // The tool's two rules, both: whatever its threads, the server is bound by either.
    tool_bound(Threads::Many { cpus }, u) || tool_bound(Threads::One, u)
}

/// Why neither side set a closed-loop run's pace: the server was not [`server_bound`] and the
/// tool not [`tool_bound`], so each connection waited on its own round trips (connections ÷
/// latency) and the requests/s is not the server's capacity. `None` when one side was bound,
/// for a run of an offered rate (the rate sets an open-loop run's pace, by design), and when
/// the CPU shares were not measured.
pub fn round_trips_set_pace(run: &Run, server_bound: bool) -> Option<String> {
    if server_bound
        || run.tool_bound
        || run.offered_requests_per_s.is_some()
        || run.unmeasured.is_some()
    {
        return None;
    }
    let server = run.server_cpu_percent?;
    let tool = run
        .tool_busiest_thread_percent
        .filter(|_| run.tool_cpus == Some(1))
        .or(run.tool_cpu_percent)?;
    Some(format!(
        "neither side set the pace: the server used {server:.0} % of a CPU and the load tool {tool:.0} %, both under {:.0} % of what they could use",
        TOOL_BOUND_SHARE * 100.0
    ))
}

/// How far a run's mean response may be from the expected length, as a share of it: the Date
/// field and a peer's own fields are of fixed length, so a correct run is within a byte or two.
pub const LENGTH_TOLERANCE: f64 = 0.02;

/// Why `run`'s responses are not of the length they must be: `expected` bytes each, as `tool`
/// counts them (`what` says of what: "a 119-byte head and the contract's 1,024-byte body").
/// A server that answers fast with the wrong bytes (an empty body, a short error page) is not
/// a result. `None` when the mean is within [`LENGTH_TOLERANCE`] (and a byte) of `expected`, and
/// for a run of no answers (the failed-requests rule speaks of it).
pub fn wrong_length(tool: &str, run: &Run, expected: f64, what: &str) -> Option<String> {
    if run.requests == 0 || expected <= 0.0 {
        return None;
    }
    let got = run.bytes_per_response;
    ((got - expected).abs() > LENGTH_TOLERANCE * expected + 1.0).then(|| {
        format!(
            "its responses were {got:.0} bytes each on average as {tool} counts them, not the {expected:.0} they must be ({what})"
        )
    })
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

/// The least length of a count-bounded step's measured window (`--quick` aside): the count is
/// run again, back to back, until the windows add up to it.
pub const MIN_COUNT_STEP: Duration = Duration::from_secs(5);

// The machine beside a step (`bench`'s step/machine.rs measures these figures).

/// Other work above this share of one CPU, percent, disturbs a step (and makes the preflight
/// refuse). Measured here (2 CPUs, server-prebuilt under wrk or loadgen): 0–3 % on a quiet
/// machine, 45–100 % with one busy loop beside the server.
pub const OTHER_CPU_LIMIT: f64 = 10.0;
/// Steal above this share of the window (all CPUs together), percent, disturbs a step.
pub const STEAL_LIMIT: f64 = 5.0;
/// The server's threads waiting for a CPU above this share of the window, percent, disturbs a
/// step while other work ran beside it (at least [`WAIT_NEEDS_OTHER`] % of a CPU). Quiet: under
/// 2 % for a pinned single-worker server at full load.
pub const SERVER_WAIT_LIMIT: f64 = 5.0;
/// The server's waiting is the machine's only when other work took at least this share of a
/// CPU, percent. With less, nothing else ran on the CPUs and the server's threads waited for
/// each other (a runtime with more threads than the CPUs it was given): the server's own
/// figure. Measured here, E7 on 2026-12-01: go-http pinned to one CPU waited for a CPU 15–35 %
/// of the window while other work took 0.0 %.
pub const WAIT_NEEDS_OTHER: f64 = 5.0;

/// Whether the machine set a step's figures: other work above [`OTHER_CPU_LIMIT`] % of a CPU,
/// steal above [`STEAL_LIMIT`] %, or the server waiting for a CPU above
/// [`SERVER_WAIT_LIMIT`] % of the window while other work ran ([`WAIT_NEEDS_OTHER`]; when other
/// work could not be measured, the wait alone). The reason, in a few words, when it did.
pub fn disturbed(i: &Interference) -> Option<String> {
    let mut why = Vec::new();
    if let Some(o) = i.other_cpu_percent.filter(|&o| o > OTHER_CPU_LIMIT) {
        why.push(format!("other work took {o:.0} % of a CPU"));
    }
    if i.steal_percent > STEAL_LIMIT {
        why.push(format!("steal {:.0} %", i.steal_percent));
    }
    let others_ran = i.other_cpu_percent.is_none_or(|o| o >= WAIT_NEEDS_OTHER);
    if let Some(w) = i
        .server_wait_percent
        .filter(|&w| w > SERVER_WAIT_LIMIT && others_ran)
    {
        why.push(format!("the server waited for a CPU {w:.0} % of the time"));
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// What a process tree used over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// RSS at the start, KiB.
    pub rss_start_kb: u64,
    /// The highest RSS reading, KiB.
    pub rss_peak_kb: u64,
    /// RSS at the end, KiB.
    pub rss_end_kb: u64,
    /// CPU time, user plus system, seconds.
    pub cpu_s: f64,
    /// The user-mode share of `cpu_s`, seconds (`None`: no clock tick was seen to split it).
    pub user_s: Option<f64>,
    /// The kernel-mode share of `cpu_s`, seconds.
    pub kernel_s: Option<f64>,
    /// Time its threads were runnable but waited for a CPU, seconds (summed over threads).
    pub wait_s: f64,
    /// CPU time of its busiest thread, seconds.
    pub busiest_thread_s: f64,
    /// The window, seconds.
    pub wall_s: f64,
    /// The most processes seen in the tree at once.
    pub processes: usize,
}

impl Usage {
    /// CPU time over the window, percent of one CPU.
    pub fn cpu_percent(&self) -> f64 {
        self.share(self.cpu_s)
    }

    /// The busiest thread's CPU time over the window, percent of one CPU.
    pub fn busiest_thread_percent(&self) -> f64 {
        self.share(self.busiest_thread_s)
    }

    /// Time waiting for a CPU over the window, percent of the window.
    pub fn wait_percent(&self) -> f64 {
        self.share(self.wait_s)
    }

    fn share(&self, s: f64) -> f64 {
        if self.wall_s > 0.0 {
            s / self.wall_s * 100.0
        } else {
            0.0
        }
    }
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
    fn requests_left_unsent_are_the_servers_unless_the_generator_was_busy() {
        // Who held them back: the generator only when it was busy to its limit.
        assert_eq!(fell_behind(100, 10_000, true), Unsent::Few);
        assert_eq!(fell_behind(101, 10_000, true), Unsent::Generator);
        assert_eq!(fell_behind(101, 10_000, false), Unsent::Server);
        assert_eq!(fell_behind(5, 0, true), Unsent::Few);
        // A rung kept up with by its rate and p99 is not, when over 1 % of it was never sent.
        let mut r = Run {
            offered_requests_per_s: Some(40_000.0),
            requests_per_s: 39_000.0,
            latency_us: crate::results::Latency {
                p99: Some(5_000),
                ..Default::default()
            },
            intended_requests: Some(80_000),
            unsent_requests: Some(800),
            ..Run::default()
        };
        assert_eq!(saturated(&r), None);
        r.unsent_requests = Some(2_560);
        assert_eq!(
            saturated(&r).as_deref(),
            Some("2,560 of 80,000 requests due never sent (3.2 %, over 1 %)")
        );
    }

    #[test]
    fn responses_not_of_the_contracts_length_are_not_a_result() {
        let answered = |bytes_per_response| Run {
            requests: 10_000,
            bytes_per_response,
            ..Run::default()
        };
        let what = "a 119-byte head and the contract's 13-byte body";
        assert_eq!(wrong_length("wrk", &answered(132.0), 132.0, what), None);
        // Within 2 % and a byte: a rare reconnect's `connection: close`, a partial read.
        assert_eq!(wrong_length("wrk", &answered(134.6), 132.0, what), None);
        // A 200 with an empty body: the head alone.
        assert_eq!(
            wrong_length("wrk", &answered(119.0), 132.0, what).as_deref(),
            Some(
                "its responses were 119 bytes each on average as wrk counts them, not the 132 they must be (a 119-byte head and the contract's 13-byte body)"
            )
        );
        assert!(wrong_length("oha", &answered(0.0), 13.0, "the body").is_some());
        assert!(wrong_length("ab", &answered(300.0), 132.0, what).is_some());
        // No answers: the failed-requests rule speaks of it.
        let none = Run {
            requests: 0,
            ..answered(0.0)
        };
        assert_eq!(wrong_length("wrk", &none, 132.0, what), None);
    }

    #[test]
    fn a_run_that_neither_side_bound_is_said_to_be_set_by_its_round_trips() {
        let usage = |cpu_s: f64, busiest_thread_s: f64| Usage {
            cpu_s,
            busiest_thread_s,
            wall_s: 1.0,
            ..Usage::default()
        };
        // A server of one thread at 95 % is bound however many CPUs it has; two threads at
        // 60 % each on two CPUs are not.
        assert!(server_bound(2, &usage(0.95, 0.95)));
        assert!(!server_bound(2, &usage(1.2, 0.6)));
        assert!(server_bound(1, &usage(0.92, 0.5)));
        let closed = Run {
            requests: 1000,
            server_cpu_percent: Some(41.0),
            tool_cpu_percent: Some(35.0),
            tool_busiest_thread_percent: Some(35.0),
            tool_cpus: Some(1),
            ..Run::default()
        };
        assert_eq!(
            round_trips_set_pace(&closed, false).as_deref(),
            Some(
                "neither side set the pace: the server used 41 % of a CPU and the load tool 35 %, both under 90 % of what they could use"
            )
        );
        assert_eq!(round_trips_set_pace(&closed, true), None);
        let tool_bound = Run {
            tool_bound: true,
            ..closed.clone()
        };
        assert_eq!(round_trips_set_pace(&tool_bound, false), None);
        let open = Run {
            offered_requests_per_s: Some(1000.0),
            ..closed.clone()
        };
        assert_eq!(round_trips_set_pace(&open, false), None);
        let short = Run {
            unmeasured: Some("too short".into()),
            ..closed
        };
        assert_eq!(round_trips_set_pace(&short, false), None);
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
    fn a_rung_is_kept_up_with_at_95_percent_and_a_p99_of_100_ms() {
        let rung = |offered: f64, achieved: f64, p99_ms: u64| Run {
            offered_requests_per_s: Some(offered),
            requests_per_s: achieved,
            latency_us: crate::results::Latency {
                p99: Some(p99_ms * 1000),
                ..Default::default()
            },
            ..Run::default()
        };
        assert_eq!(saturated(&rung(80_000.0, 76_000.0, 100)), None);
        assert_eq!(
            saturated(&rung(80_000.0, 75_999.0, 3)).as_deref(),
            Some("achieved 75,999 of 80,000 requests/s offered (94.9 %, under 95 %)")
        );
        assert_eq!(
            saturated(&rung(1000.0, 1000.0, 101)).as_deref(),
            Some("p99 101.0 ms from the intended send times, over 100 ms")
        );
        assert_eq!(
            saturated(&rung(160_000.0, 61_204.4, 1800)).as_deref(),
            Some(
                "achieved 61,204 of 160,000 requests/s offered (38.2 %, under 95 %); p99 1800.0 ms from the intended send times, over 100 ms"
            )
        );
        // No p99 reported: the rate alone decides. No offered rate: no ladder.
        let mut r = rung(1000.0, 999.0, 0);
        r.latency_us.p99 = None;
        assert_eq!(saturated(&r), None);
        r.offered_requests_per_s = None;
        r.requests_per_s = 1.0;
        assert_eq!(saturated(&r), None);
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

    #[test]
    fn a_server_waiting_for_its_own_threads_is_not_the_machine() {
        let at = |other: Option<f64>, wait: f64| Interference {
            other_cpu_percent: other,
            steal_percent: 0.0,
            server_wait_percent: Some(wait),
            tool_wait_percent: None,
        };
        // go-http on one CPU in E7: nothing else ran; its threads waited for each other.
        assert_eq!(disturbed(&at(Some(0.0), 35.3)), None);
        assert_eq!(disturbed(&at(Some(4.9), 20.0)), None);
        // Other work beside it, under its own limit: the wait is the machine's.
        assert_eq!(
            disturbed(&at(Some(7.0), 12.0)).as_deref(),
            Some("the server waited for a CPU 12 % of the time")
        );
        // Other work not measured: the wait alone tells.
        assert!(disturbed(&at(None, 12.0)).is_some());
        assert_eq!(disturbed(&at(Some(7.0), 4.0)), None);
    }
}
