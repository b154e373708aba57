//! `server-hyper`: parses the command line and hands over to [`serve::workers::main`],
//! which binds, announces the ready line and serves with [`server_hyper::serve`] on one
//! current-thread runtime per worker until SIGINT/SIGTERM.
//!
//! Exit codes: 0 after a signal, 2 for a bad start (bad flag, bad address, port taken),
//! 1 if serving itself fails.

use std::process::ExitCode;

use clap::Parser;
use serve::ServerArgs;
use serve::config;

/// The bare-hyper reference server (hyper 1.x http1, the node:http analogue).
#[derive(Parser, Debug)]
#[command(name = "server-hyper", version, about)]
struct Cli {
    #[command(flatten)]
    server: ServerArgs,
}

fn main() -> ExitCode {
    match config::parse_args::<Cli>() {
        Ok(cli) => serve::workers::main(&cli.server, 1, server_hyper::serve),
        Err(code) => code,
    }
}
