//! One worker process: tie its life to the supervisor's, bind its own SO_REUSEPORT listener on
//! the shared address, announce (on stdout, a pipe the supervisor reads), and serve one engine
//! until SIGINT/SIGTERM.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use contract::date;
use serve::config::{self, Config};
use serve::{net, ready, workers};

use crate::cli::Engine;

/// Why a worker could not start.
#[derive(Debug)]
pub enum WorkerError {
    /// `prctl(PR_SET_PDEATHSIG)` failed.
    DeathSignal(io::Error),
    /// The parent is not (or no longer) the supervisor named by `--worker-of`.
    Orphaned {
        /// The supervisor's PID, as given.
        expected: u32,
        /// The actual parent.
        parent: u32,
    },
    /// The listener could not be bound.
    Bind(net::BindError),
}

impl fmt::Display for WorkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerError::DeathSignal(e) => write!(f, "worker: cannot set PR_SET_PDEATHSIG: {e}"),
            WorkerError::Orphaned { expected, parent } => write!(
                f,
                "worker: the supervisor (pid {expected}) is not this process's parent \
                 (pid {parent}); --worker-of is set by the supervisor only"
            ),
            WorkerError::Bind(e) => write!(f, "worker: {e}"),
        }
    }
}

impl std::error::Error for WorkerError {}

/// Makes the kernel SIGKILL this process when its parent dies, then checks that the parent is
/// still `supervisor` (it may have died before the request took effect).
///
/// SIGKILL rather than SIGTERM: a supervisor that dies without forwarding a signal has crashed
/// or been killed, and a worker left serving on its own for up to the 5 s grace would be
/// exactly the orphan this prevents.
pub fn die_with_parent(supervisor: u32) -> Result<(), WorkerError> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number by value; no memory is passed.
    let rc = unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    if rc != 0 {
        return Err(WorkerError::DeathSignal(io::Error::last_os_error()));
    }
    check_parent(supervisor, std::os::unix::process::parent_id())
}

/// `Ok` when `parent` is the `supervisor` named by `--worker-of`.
fn check_parent(supervisor: u32, parent: u32) -> Result<(), WorkerError> {
    if parent == supervisor {
        Ok(())
    } else {
        Err(WorkerError::Orphaned {
            expected: supervisor,
            parent,
        })
    }
}

/// Runs a worker of `supervisor` serving `config.addr` with `engine`; returns the exit code
/// (0 after SIGINT/SIGTERM, 2 for a failed start, 1 if serving fails).
pub fn run(supervisor: u32, config: Config, engine: Engine) -> ExitCode {
    if let Err(e) = die_with_parent(supervisor) {
        config::fail(e);
        return ExitCode::from(2);
    }
    // The descriptor limit was raised by the supervisor and is inherited.
    date::start_clock();
    let listener = match net::bind(config.addr, true) {
        Ok(l) => l,
        Err(e) => {
            config::fail(WorkerError::Bind(e));
            return ExitCode::from(2);
        }
    };
    let local: SocketAddr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            config::fail(format!("worker: cannot read the bound address: {e}"));
            return ExitCode::from(2);
        }
    };
    let config = Arc::new(config);
    // The ready line (to the supervisor) goes out once the signal handlers are registered, so
    // a signal forwarded right after it is a graceful stop, never the default action.
    let served = workers::run_with_ready(
        vec![listener],
        move || ready::announce(local),
        move |listener, shutdown| engine.serve(listener, Arc::clone(&config), shutdown),
    );
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            config::fail(format!("worker: serving failed: {e}"));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_supervisor_is_a_parent() {
        assert!(check_parent(42, 42).is_ok());
        let e = check_parent(42, 1).unwrap_err();
        assert!(matches!(
            e,
            WorkerError::Orphaned {
                expected: 42,
                parent: 1
            }
        ));
        assert!(e.to_string().contains("pid 42"), "{e}");
    }
}
