//! Scheduling the selected checks.
//!
//! Order of a run: the slow waiting checks (slowloris, idle keep-alive) start at once, each on
//! its own thread; the fast checks run on a pool of `Options::parallelism` threads; when they are
//! done the heavy check runs alone (so its 10,000 connections do not slow the others' deadlines);
//! then the waiting checks are joined, and the `Last` checks (the final liveness check) run.
//! A check that panics is reported as failed, never brought down the run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::checks::{Check, Ctx, Pace, checks};
use crate::report::{CheckResult, Failure, Outcome, Report};
use crate::{Group, Options, Target};

/// Runs one check, turning a panic into a failure.
fn run_one(check: &Check, ctx: &Ctx<'_>) -> CheckResult {
    let start = Instant::now();
    let outcome = match catch_unwind(AssertUnwindSafe(|| check.run(ctx))) {
        Ok(Ok(())) => Outcome::Pass,
        Ok(Err(failure)) => Outcome::Fail(failure),
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Outcome::Fail(Failure::new(
                "the check to finish",
                format!("it panicked: {why}"),
            ))
        }
    };
    CheckResult {
        name: check.name,
        group: check.group,
        outcome,
        elapsed: start.elapsed(),
    }
}

pub(crate) fn run(target: &Target, opts: &Options) -> Report {
    let selected: Vec<&Check> = checks()
        .iter()
        .filter(|c| opts.groups.contains(&c.group))
        .filter(|c| c.applies_to(target.addr))
        .filter(|c| opts.only.is_empty() || opts.only.iter().any(|n| n == c.name))
        .collect();
    let results: Mutex<Vec<Option<CheckResult>>> = Mutex::new(vec![None; selected.len()]);
    let store = |i: usize, r: CheckResult| {
        if let Ok(mut all) = results.lock() {
            all[i] = Some(r);
        }
    };

    let mut waiting = Vec::new();
    let mut fast = Vec::new();
    let mut heavy = Vec::new();
    let mut last = Vec::new();
    for (i, check) in selected.iter().enumerate() {
        let unserved = check
            .unserved(&opts.endpoints)
            .map(|path| format!("the server does not serve {path} (servers.toml `endpoints`)"));
        let skip = opts.skip.iter().find(|(n, _)| n == check.name);
        if let Some(reason) = skip.map(|(_, r)| r.clone()).or(unserved) {
            store(
                i,
                CheckResult {
                    name: check.name,
                    group: check.group,
                    outcome: Outcome::Skipped { reason },
                    elapsed: Default::default(),
                },
            );
            continue;
        }
        match (check.pace, check.group) {
            (Pace::Slow, Group::Heavy) => heavy.push(i),
            (Pace::Slow, _) => waiting.push(i),
            (Pace::Fast, _) => fast.push(i),
            (Pace::Last, _) => last.push(i),
        }
    }

    let ctx = Ctx { target, opts };
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let waiters: Vec<_> = waiting
            .iter()
            .map(|&i| {
                let (ctx, check, store) = (&ctx, selected[i], &store);
                scope.spawn(move || store(i, run_one(check, ctx)))
            })
            .collect();

        let workers = opts.parallelism.clamp(1, fast.len().max(1));
        let pool: Vec<_> = (0..workers)
            .map(|_| {
                let (ctx, next, fast, selected, store) = (&ctx, &next, &fast, &selected, &store);
                scope.spawn(move || {
                    while let Some(&i) = fast.get(next.fetch_add(1, Ordering::Relaxed)) {
                        store(i, run_one(selected[i], ctx));
                    }
                })
            })
            .collect();
        for handle in pool {
            let _ = handle.join();
        }
        for &i in &heavy {
            store(i, run_one(selected[i], &ctx));
        }
        for handle in waiters {
            let _ = handle.join();
        }
        for &i in &last {
            store(i, run_one(selected[i], &ctx));
        }
    });

    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    Report {
        results: results
            .into_iter()
            .zip(&selected)
            .map(|(r, check)| {
                r.unwrap_or_else(|| CheckResult {
                    name: check.name,
                    group: check.group,
                    outcome: Outcome::Fail(Failure::new("the check to run", "no result")),
                    elapsed: Default::default(),
                })
            })
            .collect(),
    }
}
