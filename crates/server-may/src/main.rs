//! `server-may`: parses the command line, starts may_minihttp on `--workers` may scheduler
//! threads, announces the ready line and serves until SIGINT/SIGTERM.
//!
//! Exit codes: 0 after a signal, 2 for a bad start (bad flag, bad address, port taken),
//! 1 if the signal handlers cannot be set up.

use std::process::ExitCode;

use clap::Parser;
use contract::body::SHUTDOWN_GRACE;
use serve::config::{self, fail};
use serve::{ServerArgs, net, ready, signal};

/// The coroutine variant (may_minihttp on may, the Go net/http analogue).
#[derive(Parser, Debug)]
#[command(name = "server-may", version, about)]
struct Cli {
    #[command(flatten)]
    server: ServerArgs,
}

fn main() -> ExitCode {
    let cli: Cli = match config::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let config = match cli.server.resolve(1) {
        Ok(c) => c,
        Err(e) => {
            fail(e);
            return ExitCode::from(2);
        }
    };
    if let Err(e) = net::raise_nofile_limit() {
        fail(format!("warning: cannot raise RLIMIT_NOFILE: {e}"));
    }
    // SIGINT and SIGTERM are waited for on this thread, with a small tokio runtime; the
    // handlers are in place before the ready line.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            fail(format!("cannot start the signal runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let signals = match runtime.block_on(async { signal::recv_registered() }) {
        Ok(s) => s,
        Err(e) => {
            fail(format!("cannot handle signals: {e}"));
            return ExitCode::FAILURE;
        }
    };
    server_may::configure_runtime(config.workers);
    let running = match server_may::serve(config.addr, &config) {
        Ok(r) => r,
        Err(e) => {
            fail(net::BindError {
                addr: config.addr,
                source: e,
            });
            return ExitCode::from(2);
        }
    };
    if let Err(e) = ready::announce(running.addr) {
        fail(format!("cannot write the ready line: {e}"));
        return ExitCode::FAILURE;
    }
    runtime.block_on(signals.recv());
    running.shutdown(SHUTDOWN_GRACE);
    ExitCode::SUCCESS
}
