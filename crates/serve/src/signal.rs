//! Shutdown: SIGINT/SIGTERM, and a cloneable handle every worker waits on.
//!
//! A binary waits for [`recv`] on one thread, then fires its [`Trigger`]; every worker holds
//! a [`Shutdown`] and stops accepting when it resolves, letting in-flight requests finish
//! for at most [`SHUTDOWN_GRACE`](contract::body::SHUTDOWN_GRACE).

use std::io;

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Which signal asked for the shutdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

/// Resolves on the first SIGINT or SIGTERM. Must be called inside a tokio runtime.
pub async fn recv() -> io::Result<Signal> {
    Ok(recv_registered()?.recv().await)
}

/// SIGINT and SIGTERM handlers, registered: from the moment this exists, those signals no
/// longer kill the process but wait here.
#[derive(Debug)]
pub struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

/// Registers the SIGINT and SIGTERM handlers now. Must be called inside a tokio runtime.
pub fn recv_registered() -> io::Result<Signals> {
    Ok(Signals {
        int: signal(SignalKind::interrupt())?,
        term: signal(SignalKind::terminate())?,
    })
}

impl Signals {
    /// Resolves on the first SIGINT or SIGTERM received since registration.
    pub async fn recv(mut self) -> Signal {
        tokio::select! {
            _ = self.int.recv() => Signal::Interrupt,
            _ = self.term.recv() => Signal::Terminate,
        }
    }
}

/// Fires the shutdown of every [`Shutdown`] made with it.
#[derive(Debug)]
pub struct Trigger(watch::Sender<bool>);

/// A handle that resolves once shutdown has been asked for.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

/// A new trigger and its first handle.
pub fn channel() -> (Trigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (Trigger(tx), Shutdown(rx))
}

impl Trigger {
    /// Asks every handle to shut down.
    pub fn fire(&self) {
        self.0.send_replace(true);
    }

    /// Another handle for this trigger.
    pub fn subscribe(&self) -> Shutdown {
        Shutdown(self.0.subscribe())
    }
}

impl Shutdown {
    /// A handle that never fires (for tests and embedding).
    pub fn never() -> Shutdown {
        let (tx, rx) = watch::channel(false);
        // Keep the sender alive forever so the receiver never sees a closed channel.
        std::mem::forget(tx);
        Shutdown(rx)
    }

    /// Whether shutdown has been asked for.
    pub fn is_fired(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once shutdown has been asked for (or the trigger is gone).
    pub async fn wait(&mut self) {
        let _ = self.0.wait_for(|&fired| fired).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn trigger_reaches_every_handle() {
        let (t, mut a) = channel();
        let mut b = t.subscribe();
        assert!(!a.is_fired());
        t.fire();
        a.wait().await;
        b.wait().await;
        assert!(b.is_fired());
    }
}
