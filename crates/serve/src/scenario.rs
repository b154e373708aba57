//! The event-loop scenarios (E4) on tokio: the runtime side of `contract::scenario`, shared by
//! every tokio-based variant so that each runs the same code for `/api/async`,
//! `/api/sync-offload`, `/api/nexttick` and `/api/timer`. (`/api/sync` is
//! [`contract::scenario::sync_sum`] called on the request's own thread.)

use std::time::Duration;

/// `/api/sync`'s loop, the contract's own, re-exported so a variant finds all five scenarios
/// here.
pub use contract::scenario::sync_sum;
use contract::scenario::{ASYNC_DELAY, NEXTTICK_CHAIN, TIMER_TASKS};

/// `/api/async`: waits [`ASYNC_DELAY`] without blocking the thread.
pub async fn wait_async() {
    tokio::time::sleep(ASYNC_DELAY).await;
}

/// `/api/sync-offload`: [`sync_sum`] on the runtime's blocking pool.
pub async fn sync_offload() -> u64 {
    tokio::task::spawn_blocking(sync_sum)
        .await
        .unwrap_or_else(|_| sync_sum())
}

/// `/api/nexttick`: a chain of [`NEXTTICK_CHAIN`] tasks, each spawning the next; resolves
/// when the last has run.
pub async fn nexttick_chain() {
    let (tx, rx) = tokio::sync::oneshot::channel();
    link(NEXTTICK_CHAIN, tx);
    let _ = rx.await;
}

fn link(left: u32, done: tokio::sync::oneshot::Sender<()>) {
    tokio::spawn(async move {
        if left <= 1 {
            let _ = done.send(());
        } else {
            link(left - 1, done);
        }
    });
}

/// `/api/timer`: spawns [`TIMER_TASKS`] tasks that each sleep for zero time, without
/// waiting for them.
pub fn spawn_timers() {
    for _ in 0..TIMER_TASKS {
        tokio::spawn(tokio::time::sleep(Duration::ZERO));
    }
}

/// `/api/timer` on a runtime whose connections are tasks of a `LocalSet` (actix's workers):
/// the same [`TIMER_TASKS`] zero-time sleeps, spawned into that local set
/// (`actix_web::rt::spawn` is this `spawn_local`). Must be called inside a `LocalSet`.
///
/// With [`spawn_timers`] there, the sleeps would queue on the runtime while the connections
/// run in the local set, which the current-thread scheduler polls ahead of its queue: nothing
/// holds the load back while the sleeps wait, and under E4's load they piled up by the
/// million (9 GB of RSS in 20 s, measured 2026-12-01). In one queue with the connections,
/// each request's sleeps are run before more requests are read.
pub fn spawn_timers_local() {
    for _ in 0..TIMER_TASKS {
        tokio::task::spawn_local(tokio::time::sleep(Duration::ZERO));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn chain_and_timers_complete() {
        nexttick_chain().await;
        spawn_timers();
        tokio::task::LocalSet::new()
            .run_until(async { spawn_timers_local() })
            .await;
        let start = std::time::Instant::now();
        wait_async().await;
        assert!(start.elapsed() >= ASYNC_DELAY);
        assert_eq!(sync_offload().await, 49_999_995_000_000);
    }
}
