//! The work behind the event-loop scenarios, the Rust analogue of the Node.js experiment (E4).
//!
//! The CPU loop is plain Rust; the rest runs on the tokio runtime of the calling task, so
//! every tokio-based variant shares one implementation.

use std::hint::black_box;
use std::time::Duration;

/// How long `/api/async` waits on a runtime timer.
pub const ASYNC_DELAY: Duration = Duration::from_millis(10);
/// How many numbers `/api/sync` sums.
pub const SYNC_ITERATIONS: u64 = 10_000_000;
/// How many chained tasks `/api/nexttick` runs.
pub const NEXTTICK_CHAIN: u32 = 1_000;
/// How many zero-time sleeps `/api/timer` spawns.
pub const TIMER_TASKS: usize = 200;

/// The wrapping sum of `0..10_000_000`, computed on the calling thread.
///
/// `black_box` keeps the optimiser from folding the loop into a constant, so the call
/// costs the CPU time the experiment is about.
pub fn sync_sum() -> u64 {
    let mut sum = 0u64;
    let mut i = 0u64;
    let end = black_box(SYNC_ITERATIONS);
    while i < end {
        sum = sum.wrapping_add(black_box(i));
        i += 1;
    }
    sum
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_is_the_contracts() {
        assert_eq!(sync_sum(), 49_999_995_000_000);
        assert!(
            std::str::from_utf8(crate::body::SYNC_JSON)
                .unwrap()
                .contains(&sync_sum().to_string())
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn chain_and_timers_complete() {
        nexttick_chain().await;
        spawn_timers();
        let start = std::time::Instant::now();
        wait_async().await;
        assert!(start.elapsed() >= ASYNC_DELAY);
        assert_eq!(sync_offload().await, 49_999_995_000_000);
    }
}
