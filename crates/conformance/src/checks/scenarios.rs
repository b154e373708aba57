//! `scenarios`: the event-loop scenarios of the tokio variants that list them.
//!
//! Each answers its JSON body with `content-type: application/json` under every response rule;
//! `/api/async` must also take at least the 10 ms its timer waits.

use std::time::{Duration, Instant};

use contract::body::{ASYNC_JSON, CT_JSON, NEXTTICK_JSON, SYNC_JSON, TIMER_JSON};

use super::{Check, Ctx, fast};
use crate::Group::Scenarios;
use crate::expect::{Expect, Judged};
use crate::report::Failure;

/// The async scenario's timer.
const ASYNC_WAIT: Duration = Duration::from_millis(10);

fn scenario(c: &Ctx<'_>, path: &str, body: &[u8]) -> Judged {
    let (_, resp) = c.roundtrip(&c.get(path), false)?;
    c.exact(&resp, &Expect::ok(CT_JSON, body))
}

fn async_waits(c: &Ctx<'_>) -> Judged {
    let mut conn = c.connect()?;
    let start = Instant::now();
    c.send(&mut conn, &c.get("/api/async"))?;
    let resp = c.read(&mut conn, false)?;
    let took = start.elapsed();
    c.exact(&resp, &Expect::ok(CT_JSON, ASYNC_JSON))?;
    if took < ASYNC_WAIT {
        return Err(Failure::new(
            "the answer after the 10 ms timer",
            format!("an answer after {:.3} ms", took.as_secs_f64() * 1e3),
        ));
    }
    Ok(())
}

pub(super) const CHECKS: &[Check] = &[
    fast(
        "scenario.async",
        Scenarios,
        "GET /api/async: its JSON, after at least 10 ms",
        async_waits,
    )
    .needs(&["/api/async"]),
    fast(
        "scenario.sync",
        Scenarios,
        "GET /api/sync: the sum's JSON",
        |c| scenario(c, "/api/sync", SYNC_JSON),
    )
    .needs(&["/api/sync"]),
    fast(
        "scenario.sync-offload",
        Scenarios,
        "GET /api/sync-offload: the sum's JSON",
        |c| scenario(c, "/api/sync-offload", SYNC_JSON),
    )
    .needs(&["/api/sync-offload"]),
    fast(
        "scenario.nexttick",
        Scenarios,
        "GET /api/nexttick: its JSON",
        |c| scenario(c, "/api/nexttick", NEXTTICK_JSON),
    )
    .needs(&["/api/nexttick"]),
    fast(
        "scenario.timer",
        Scenarios,
        "GET /api/timer: its JSON",
        |c| scenario(c, "/api/timer", TIMER_JSON),
    )
    .needs(&["/api/timer"]),
];
