//! The `Date` value, cached and refreshed once a second without data races.
//!
//! One background thread (started on first use) publishes the current Unix second through
//! an `AtomicU64`. Each thread keeps its own formatted copy and re-renders it (with
//! `httpdate`) only when that second has moved on, so a request costs one relaxed atomic
//! load and a 29-byte copy: no lock, no shared mutable bytes, no `unsafe`.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Length of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub const DATE_LEN: usize = 29;

/// An IMF-fixdate value.
pub type HttpDate = [u8; DATE_LEN];

static NOW_SECS: AtomicU64 = AtomicU64::new(0);
static CLOCK: OnceLock<()> = OnceLock::new();

thread_local! {
    static CACHE: Cell<(u64, HttpDate)> = const { Cell::new((u64::MAX, [0; DATE_LEN])) };
}

fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Starts the clock thread if it is not running yet. Called by [`now`]; call it early to
/// keep the thread's start out of the first request.
pub fn start_clock() {
    CLOCK.get_or_init(|| {
        NOW_SECS.store(unix_secs(), Ordering::Relaxed);
        let spawned = std::thread::Builder::new()
            .name("date-clock".into())
            .spawn(|| {
                loop {
                    let now = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .unwrap_or_default();
                    NOW_SECS.store(now.as_secs(), Ordering::Relaxed);
                    // Wake just after the next whole second.
                    let into = now.subsec_nanos() as u64;
                    std::thread::sleep(Duration::from_nanos(1_000_000_000 - into + 1_000_000));
                }
            });
        if spawned.is_err() {
            // Without the thread, `now` falls back to reading the clock itself.
            NOW_SECS.store(0, Ordering::Relaxed);
        }
    });
}

/// Renders the IMF-fixdate of `secs` seconds after the Unix epoch.
///
/// Writes straight into the fixed-size value, so the once-a-second refresh allocates nothing
/// (the raw variants prove "no allocation per request" with a counting allocator).
pub fn render(secs: u64) -> HttpDate {
    use std::io::Write;
    let date = httpdate::HttpDate::from(UNIX_EPOCH + Duration::from_secs(secs));
    let mut out = [b' '; DATE_LEN];
    // An IMF-fixdate is always DATE_LEN bytes, so the write fills `out` exactly.
    let _ = write!(&mut out[..], "{date}");
    out
}

/// The current Unix second as the clock thread last published it.
pub fn current_second() -> u64 {
    start_clock();
    match NOW_SECS.load(Ordering::Relaxed) {
        0 => unix_secs(),
        s => s,
    }
}

/// The current date value, as of the last whole second.
pub fn now() -> HttpDate {
    let secs = current_second();
    CACHE.with(|c| {
        let (cached, date) = c.get();
        if cached == secs {
            date
        } else {
            let date = render(secs);
            c.set((secs, date));
            date
        }
    })
}

/// A per-thread view that tells a caller when the date value has changed, for servers
/// that patch prebuilt responses in place.
#[derive(Debug)]
pub struct Ticker {
    second: u64,
}

impl Ticker {
    /// A ticker that reports a change on its first poll.
    pub fn new() -> Ticker {
        start_clock();
        Ticker { second: u64::MAX }
    }

    /// The new date value if the second has moved on since the last call.
    ///
    /// Inlined into the caller's hot path: one relaxed load and a compare. The clock was
    /// started by [`Ticker::new`]; a published 0 (no clock thread) takes the slow path.
    #[inline]
    pub fn poll(&mut self) -> Option<HttpDate> {
        let secs = NOW_SECS.load(Ordering::Relaxed);
        if secs == self.second && secs != 0 {
            return None;
        }
        self.changed()
    }

    /// [`Ticker::poll`] once the published second differs (or there is no clock thread).
    #[cold]
    #[inline(never)]
    fn changed(&mut self) -> Option<HttpDate> {
        let secs = current_second();
        if secs == self.second {
            return None;
        }
        self.second = secs;
        Some(now())
    }
}

impl Default for Ticker {
    fn default() -> Self {
        Ticker::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_an_imf_fixdate_near_now() {
        let d = now();
        let s = std::str::from_utf8(&d).unwrap();
        let t = httpdate::parse_http_date(s).unwrap();
        let diff = SystemTime::now()
            .duration_since(t)
            .unwrap_or_else(|e| e.duration());
        assert!(diff < Duration::from_secs(3), "{s}");
        assert!(s.ends_with(" GMT"));
    }

    #[test]
    fn render_known_value() {
        assert_eq!(&render(784111777), b"Sun, 06 Nov 1994 08:49:37 GMT");
    }

    #[test]
    fn ticker_reports_first_then_changes() {
        let mut t = Ticker::new();
        assert!(t.poll().is_some());
        // Within the same second nothing changes; after a second boundary it does.
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        let mut changed = false;
        while std::time::Instant::now() < deadline {
            if t.poll().is_some() {
                changed = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(changed, "the clock thread did not advance within 3 s");
    }
}
