//! Running a server's workers: one OS thread per listener, each with its own current-thread
//! tokio runtime, nothing shared between them; the calling thread waits for SIGINT/SIGTERM,
//! fires the shutdown, and joins the workers.
//!
//! This is the "`--workers N` threads, each with its own listener" model shared by the
//! tokio-based variants. With one worker it compares with a single-process Node or Python
//! server: one thread serves, the calling thread only waits for signals.
//!
//! [`main`] is a server binary's whole life after its flags are parsed, so each `main.rs`
//! stays a few lines: parse, then `workers::main(&args, 1, my_crate::serve)`.
//!
//! Each runtime's blocking pool (`spawn_blocking`, E4's `/api/sync-offload`) is capped at
//! [`blocking_threads`]: tokio's default of 512 grows a thread per waiting request, and on a
//! one-CPU server a hundred busy pool threads starve the event loop they were meant to free.

use std::future::Future;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;
use std::sync::Arc;

use crate::config::{self, Config, ServerArgs};
use crate::signal::{self, Shutdown, Signal};
use crate::{net, ready};
use contract::date;

/// Serves `listeners` until SIGINT or SIGTERM, running `serve(listener, shutdown)` on one
/// worker thread per listener. Returns once every worker has returned.
///
/// `serve` must return within [`SHUTDOWN_GRACE`](contract::body::SHUTDOWN_GRACE) of the
/// shutdown firing (stop accepting, let in-flight requests finish, then drop the rest).
pub fn run<F, Fut>(listeners: Vec<TcpListener>, serve: F) -> io::Result<Option<Signal>>
where
    F: Fn(tokio::net::TcpListener, Shutdown) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + 'static,
{
    run_with_ready(listeners, || Ok(()), serve)
}

/// [`run`], calling `ready` (typically [`announce`](crate::ready::announce)) once the SIGINT and
/// SIGTERM handlers are registered and before any worker starts.
///
/// Announcing before [`run`] leaves a window in which a signal sent right after the ready line
/// still has its default action and kills the process (no exit 0); announcing here closes it.
/// An error from `ready` is returned without serving.
pub fn run_with_ready<R, F, Fut>(
    listeners: Vec<TcpListener>,
    ready: R,
    serve: F,
) -> io::Result<Option<Signal>>
where
    R: FnOnce() -> io::Result<()>,
    F: Fn(tokio::net::TcpListener, Shutdown) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + 'static,
{
    let signals = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Register the handlers before any worker starts, so an early signal is not lost.
    let waiting = signals.block_on(async { signal::recv_registered() })?;
    ready()?;
    let (trigger, shutdown) = signal::channel();
    let serve = Arc::new(serve);
    let pool = blocking_threads(listeners.len());
    let mut handles = Vec::with_capacity(listeners.len());
    for (i, listener) in listeners.into_iter().enumerate() {
        let serve = Arc::clone(&serve);
        let shutdown = shutdown.clone();
        let handle = std::thread::Builder::new()
            .name(format!("worker-{i}"))
            .spawn(move || -> io::Result<()> {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .max_blocking_threads(pool)
                    .build()?;
                rt.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    serve(listener, shutdown).await;
                    Ok::<(), io::Error>(())
                })?;
                // Tasks still running past the grace period are dropped here.
                rt.shutdown_background();
                Ok(())
            })?;
        handles.push(handle);
    }
    drop(shutdown);
    let got = signals.block_on(async {
        let mut all_done = Box::pin(async {
            // If every worker ended by itself (all failed), stop waiting for a signal.
            while !handles.iter().all(|h| h.is_finished()) {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        });
        tokio::select! {
            s = waiting.recv() => Some(s),
            _ = &mut all_done => None,
        }
    });
    trigger.fire();
    let mut first_err = None;
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(io::Error::other("a worker thread panicked"));
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(got),
    }
}

/// How many threads each of `workers` runtimes may keep in its blocking pool: the CPUs this
/// process may run on (its affinity mask, so a server pinned to one CPU gets 1) shared among
/// the workers, at least 1 each.
///
/// Node's answer to the same question (`peers/node/http.js`'s `worker_threads` pool) is the CPUs
/// less one; here every worker's event loop is a thread of its own too, and the pool's threads
/// only compete with it when there is more CPU-bound work than CPUs, which is then queued
/// instead of time-sliced. server-actix passes the same number to actix's
/// `worker_max_blocking_threads`.
pub fn blocking_threads(workers: usize) -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    blocking_threads_of(cpus, workers)
}

/// [`blocking_threads`] for a server given `cpus` CPUs: `cpus / workers`, at least 1 (bench
/// names the cap in its notes from the CPUs it pins the server to).
pub fn blocking_threads_of(cpus: usize, workers: usize) -> usize {
    (cpus / workers.max(1)).max(1)
}

/// The whole life of a server binary after its flags are parsed: resolve the configuration
/// (`default_workers` when `--workers` is not given), raise RLIMIT_NOFILE, start the `Date`
/// clock, bind one listener per worker, print the ready line once the signal handlers are in
/// place, and serve with `serve(listener, config, shutdown)` on every worker until SIGINT or
/// SIGTERM.
///
/// Returns the process's exit code: 0 after a signal; 2 for a bad start (bad address, port
/// taken), reported as one line on stderr; 1 if serving itself failed.
pub fn main<F, Fut>(args: &ServerArgs, default_workers: usize, serve: F) -> ExitCode
where
    F: Fn(tokio::net::TcpListener, Arc<Config>, Shutdown) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + 'static,
{
    let (config, listeners, addr) = match start(args, default_workers) {
        Ok(started) => started,
        Err(e) => {
            config::fail(e);
            return ExitCode::from(2);
        }
    };
    let config = Arc::new(config);
    let served = run_with_ready(
        listeners,
        move || ready::announce(addr),
        move |listener, shutdown| serve(listener, Arc::clone(&config), shutdown),
    );
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            config::fail(format!("serving failed: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// Everything that can fail before serving, as one printable line.
fn start(
    args: &ServerArgs,
    default_workers: usize,
) -> Result<(Config, Vec<TcpListener>, SocketAddr), String> {
    let config = args.resolve(default_workers).map_err(|e| e.to_string())?;
    let raised = net::raise_nofile_limit();
    date::start_clock();
    let listeners = net::bind_workers(config.addr, config.workers).map_err(|e| e.to_string())?;
    let addr = listeners
        .first()
        .ok_or("no listener was bound")?
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    // Without the raise the server still works with fewer connections: a warning, given only
    // once the start has succeeded so that a bad start stays one line.
    if let Err(e) = raised {
        config::fail(format!("warning: cannot raise the descriptor limit: {e}"));
    }
    Ok((config, listeners, addr))
}

/// A server engine served in the background: its own thread and current-thread runtime, on a
/// listener bound here. For tests and tools that run an engine in-process instead of as a
/// binary. Dropping it fires the shutdown without waiting; [`Background::stop`] also waits
/// for the engine to return.
#[derive(Debug)]
pub struct Background {
    addr: SocketAddr,
    trigger: signal::Trigger,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Background {
    /// Binds `config.addr` (port 0 picks one; the config the engine gets holds the real
    /// address) and runs `serve(listener, config, shutdown)` on a new thread.
    pub fn start<F, Fut>(mut config: Config, serve: F) -> io::Result<Background>
    where
        F: FnOnce(tokio::net::TcpListener, Arc<Config>, Shutdown) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let listener =
            net::bind(config.addr, false).map_err(|e| io::Error::other(e.to_string()))?;
        let addr = listener.local_addr()?;
        config.addr = addr;
        let (trigger, shutdown) = signal::channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::Builder::new()
            .name(format!("background-{addr}"))
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => serve(listener, Arc::new(config), shutdown).await,
                        Err(e) => eprintln!("background server on {addr}: {e}"),
                    }
                });
            })?;
        Ok(Background {
            addr,
            trigger,
            thread: Some(thread),
        })
    }

    /// [`Background::start`] on 127.0.0.1:0 with the default configuration.
    pub fn local<F, Fut>(serve: F) -> io::Result<Background>
    where
        F: FnOnce(tokio::net::TcpListener, Arc<Config>, Shutdown) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let config = Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..Config::default()
        };
        Background::start(config, serve)
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Fires the shutdown and waits for the engine to return (within its grace period).
    pub fn stop(mut self) -> std::thread::Result<()> {
        self.trigger.fire();
        match self.thread.take() {
            Some(thread) => thread.join(),
            None => Ok(()),
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.trigger.fire();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_serves_then_stops_when_asked() {
        let server = Background::local(|listener, config, mut shutdown| async move {
            assert_eq!(listener.local_addr().unwrap(), config.addr);
            while let Some((stream, _)) = net::accept(&listener, &mut shutdown).await {
                drop(stream);
            }
        })
        .unwrap();
        assert_ne!(server.addr().port(), 0);
        std::net::TcpStream::connect(server.addr()).unwrap();
        server.stop().unwrap();
    }
}
