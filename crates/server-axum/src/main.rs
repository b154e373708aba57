//! `server-axum`: parses the command line and hands over to [`serve::workers::main`], which
//! binds, announces the ready line and serves the axum [`Router`](axum::Router) with
//! [`server_axum::serve`] on one current-thread runtime per worker until SIGINT/SIGTERM.
//!
//! Exit codes: 0 after a signal, 2 for a bad start (bad flag, bad address, port taken),
//! 1 if serving itself fails.

use std::process::ExitCode;

use clap::Parser;
use serve::ServerArgs;
use serve::config;

/// The axum variant (axum 0.8 with tower middleware, the Express / Koa analogue).
#[derive(Parser, Debug)]
#[command(name = "server-axum", version, about)]
struct Cli {
    #[command(flatten)]
    server: ServerArgs,
}

fn main() -> ExitCode {
    match config::parse_args::<Cli>() {
        Ok(cli) => serve::workers::main(&cli.server, 1, |listener, config, shutdown| {
            server_axum::serve(listener, server_axum::app(&config), shutdown)
        }),
        Err(code) => code,
    }
}
