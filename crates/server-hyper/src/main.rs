//! `server-hyper`: parses the command line, binds, announces the ready line and serves with
//! [`server_hyper::serve`] on one current-thread runtime per worker until SIGINT/SIGTERM.
//!
//! Exit codes: 0 after a signal, 2 for a bad start (bad flag, bad address, port taken),
//! 1 if serving itself fails.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use contract::config::{self, fail};
use contract::{ServerArgs, net, workers};

/// The bare-hyper reference server (hyper 1.x http1, the node:http analogue).
#[derive(Parser, Debug)]
#[command(name = "server-hyper", version, about)]
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
        Ok(c) => Arc::new(c),
        Err(e) => {
            fail(e);
            return ExitCode::from(2);
        }
    };
    if let Err(e) = net::raise_nofile_limit() {
        // Not fatal: the server works, only fewer connections fit.
        fail(format!("warning: cannot raise RLIMIT_NOFILE: {e}"));
    }
    let listeners = match net::bind_workers(config.addr, config.workers) {
        Ok(l) => l,
        Err(e) => {
            fail(e);
            return ExitCode::from(2);
        }
    };
    let local = match listeners.first().map(std::net::TcpListener::local_addr) {
        Some(Ok(a)) => a,
        Some(Err(e)) => {
            fail(format!("cannot read the bound address: {e}"));
            return ExitCode::from(2);
        }
        None => {
            fail("no listener was bound");
            return ExitCode::from(2);
        }
    };
    // The ready line goes out once the signal handlers are in place, so a SIGINT sent right
    // after it is a graceful shutdown, never the default kill.
    let served = workers::run_with_ready(
        listeners,
        || net::announce(local),
        move |listener, shutdown| server_hyper::serve(listener, Arc::clone(&config), shutdown),
    );
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            fail(format!("serving failed: {e}"));
            ExitCode::FAILURE
        }
    }
}
