//! `server-prebuilt`: the raw-socket, prebuilt-response server as a program.
//!
//! Parses the shared flags, resolves the configuration (one worker by default), raises the
//! descriptor limit, binds one listener per worker, prints the ready line and serves until
//! SIGINT or SIGTERM (exit 0). A bad start is one line on stderr and exit 2.

use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser;
use contract::config::{self, ServerArgs};
use contract::{date, net, workers};

/// The raw-socket, prebuilt-response HTTP/1.1 server.
#[derive(Parser, Debug)]
#[command(name = "server-prebuilt", version, about)]
struct Cli {
    #[command(flatten)]
    server: ServerArgs,
}

/// Default number of worker threads: one, to compare with a single-process server.
const DEFAULT_WORKERS: usize = 1;

fn main() -> ExitCode {
    let cli = match config::parse_args::<Cli>() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let (config, listeners, addr) = match start(&cli) {
        Ok(started) => started,
        Err(e) => {
            config::fail(format!("{e:#}"));
            return ExitCode::from(2);
        }
    };
    let config = Arc::new(config);
    // The ready line is printed once the signal handlers are registered, so a signal sent
    // right after it is a clean shutdown (exit 0), never the default action.
    let served = workers::run_with_ready(
        listeners,
        move || net::announce(addr),
        move |listener, shutdown| server_prebuilt::serve(listener, Arc::clone(&config), shutdown),
    );
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            config::fail(format!("server failed: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// Everything that can fail before serving: configuration, limits, binding.
fn start(cli: &Cli) -> anyhow::Result<(config::Config, Vec<TcpListener>, SocketAddr)> {
    let config = cli.server.resolve(DEFAULT_WORKERS)?;
    let raised = net::raise_nofile_limit();
    date::start_clock();
    let listeners = net::bind_workers(config.addr, config.workers)?;
    // Without the raise the server still works, with fewer connections: a warning, given only
    // once the start has succeeded so that a bad start stays one line.
    if let Err(e) = raised {
        config::fail(format!("warning: cannot raise the descriptor limit: {e}"));
    }
    let addr = listeners
        .first()
        .context("no listener was bound")?
        .local_addr()
        .context("cannot read the bound address")?;
    Ok((config, listeners, addr))
}
