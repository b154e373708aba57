//! The open model pacer's wake-up, [`Timer`]: a timerfd awaited through tokio's reactor.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The pacer's wake-up: a timerfd (CLOCK_MONOTONIC, non-blocking, armed relative to the due
/// time) awaited through tokio's reactor.
///
/// tokio's own timer rounds every deadline up to its 1 ms wheel, and the open model counts
/// latency from the intended time, so a late wake-up would add up to a millisecond to every
/// request that found an idle connection (about 0.5 ms on average, more than the whole
/// latency of a fast server on loopback). A timerfd fires within microseconds. No maintained
/// crate wraps a timerfd for tokio's `AsyncFd`; rustix (already in the workspace) makes the
/// one system call, `timerfd_settime`. The expirations are never read: re-arming resets the
/// count, and the reactor (edge-triggered) reports each expiry, so clearing tokio's readiness
/// is enough, and a wake-up costs no system call of its own. Where no timerfd can be made
/// (another OS, or the call failed) tokio's timer stands in.
pub(super) struct Timer {
    inner: TimerKind,
    /// The time the timer is armed for and has not yet been seen to fire.
    armed: Option<Instant>,
}

enum TimerKind {
    #[cfg(target_os = "linux")]
    Fd(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>),
    Tokio(Pin<Box<tokio::time::Sleep>>),
}

impl Timer {
    /// A timer, not armed. Must be called within the runtime.
    pub(super) fn new() -> Timer {
        let inner = Timer::timerfd().unwrap_or_else(|| {
            TimerKind::Tokio(Box::pin(tokio::time::sleep_until(Instant::now().into())))
        });
        Timer { inner, armed: None }
    }

    #[cfg(target_os = "linux")]
    fn timerfd() -> Option<TimerKind> {
        use rustix::time::{TimerfdClockId, TimerfdFlags, timerfd_create};
        use tokio::io::Interest;
        use tokio::io::unix::AsyncFd;
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )
        .ok()?;
        // SAFETY: the `OwnedFd` is a timerfd just opened, owned by the `AsyncFd` until it is
        // dropped, and always returns that same descriptor.
        let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok()?;
        Some(TimerKind::Fd(fd))
    }

    #[cfg(not(target_os = "linux"))]
    fn timerfd() -> Option<TimerKind> {
        None
    }

    /// Arms the timer to fire at `at` (at once if `at` has passed), unless it is armed for
    /// `at` already.
    pub(super) fn arm(&mut self, at: Instant) {
        if self.armed == Some(at) {
            return;
        }
        self.armed = Some(at);
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            TimerKind::Fd(fd) => {
                use rustix::time::{Itimerspec, TimerfdTimerFlags, Timespec, timerfd_settime};
                // A zero value would disarm the timer: 1 ns is the earliest.
                let after = at
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_nanos(1));
                let spec = Itimerspec {
                    it_interval: Timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    },
                    it_value: Timespec {
                        tv_sec: after.as_secs().try_into().unwrap_or(i64::MAX),
                        tv_nsec: after.subsec_nanos().into(),
                    },
                };
                if timerfd_settime(fd.get_ref(), TimerfdTimerFlags::empty(), &spec).is_err() {
                    self.inner = TimerKind::Tokio(Box::pin(tokio::time::sleep_until(at.into())));
                }
            }
            TimerKind::Tokio(sleep) => sleep.as_mut().reset(at.into()),
        }
    }

    /// Ready once the armed time has come. A readiness left from an expiry before the last
    /// arming makes it ready early: the pacer then finds nothing due and arms it again.
    pub(super) fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let poll = match &mut self.inner {
            #[cfg(target_os = "linux")]
            TimerKind::Fd(fd) => match fd.poll_read_ready(cx) {
                Poll::Ready(Ok(mut guard)) => {
                    guard.clear_ready();
                    Poll::Ready(())
                }
                // An error from the reactor: wake now rather than never.
                Poll::Ready(Err(_)) => Poll::Ready(()),
                Poll::Pending => Poll::Pending,
            },
            TimerKind::Tokio(sleep) => sleep.as_mut().poll(cx),
        };
        if poll.is_ready() {
            self.armed = None;
        }
        poll
    }
}
