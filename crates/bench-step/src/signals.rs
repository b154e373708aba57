//! SIGINT and SIGTERM as a flag: the handler only records the signal; the harness's loops poll
//! [`received`] and unwind through their guards, which stop every process it started.
//!
//! [`install`] sets the handler once, at start; [`check`] turns a received signal into the
//! [`Error::Interrupted`] that ends a command with a non-zero exit status.

use std::sync::atomic::{AtomicI32, Ordering};

use crate::error::{Error, Interrupted};

static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    SIGNAL.store(signal, Ordering::SeqCst);
}

/// Installs the flag-setting handler for SIGINT and SIGTERM.
pub fn install() -> std::io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: an all-zero sigaction is a valid starting value (no flags, empty mask).
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        // SAFETY: `action` is initialised, its handler is an `extern "C"` function that only
        // stores to an atomic, and a null old-action pointer is allowed.
        if unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The signal received so far, if any.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// [`Error::Interrupted`] once a signal has been received.
pub fn check() -> Result<(), Error> {
    match received() {
        Some(s) => Err(Error::Interrupted(Interrupted(s))),
        None => Ok(()),
    }
}
