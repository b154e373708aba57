//! The work behind the event-loop scenarios, the Rust analogue of the Node.js experiment (E4).
//!
//! What each scenario does, as numbers, and the CPU loop of `/api/sync` as plain Rust. The
//! parts that need a runtime (the timer, the blocking pool, the task chain) are in the `serve`
//! crate's `scenario` module, shared by every tokio-based variant.

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
/// costs the CPU time the experiment is about. Eight additions per turn of the loop, and
/// never inlined, so that every variant runs the same machine code at the same speed: with one
/// addition per turn the loop was 19 bytes, and where the linker happened to put it across a
/// 64-byte line it ran at half speed (2.8 ms per call in server-hyper against 5.6 ms in
/// server-axum in E4 on 2026-12-01, then the other way round once it was not inlined).
#[inline(never)]
pub fn sync_sum() -> u64 {
    let end = black_box(SYNC_ITERATIONS);
    let mut sum = 0u64;
    let mut i = 0u64;
    // Written out, not a `for` over 0..8: a debug build (the test suite's servers) would
    // spend most of the call in the range iterator.
    while end - i >= 8 {
        sum = sum.wrapping_add(black_box(i));
        sum = sum.wrapping_add(black_box(i + 1));
        sum = sum.wrapping_add(black_box(i + 2));
        sum = sum.wrapping_add(black_box(i + 3));
        sum = sum.wrapping_add(black_box(i + 4));
        sum = sum.wrapping_add(black_box(i + 5));
        sum = sum.wrapping_add(black_box(i + 6));
        sum = sum.wrapping_add(black_box(i + 7));
        i += 8;
    }
    while i < end {
        sum = sum.wrapping_add(black_box(i));
        i += 1;
    }
    sum
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
}
