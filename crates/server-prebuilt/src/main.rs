//! `server-prebuilt`: the raw-socket, prebuilt-response server as a program.
//!
//! Parses the shared flags and hands over to [`serve::workers::main`]: resolve the
//! configuration (one worker by default), raise the descriptor limit, bind one listener per
//! worker, print the ready line and serve until SIGINT or SIGTERM (exit 0). A bad start is
//! one line on stderr and exit 2.

use std::process::ExitCode;

use clap::Parser;
use serve::config::{self, ServerArgs};

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
    match config::parse_args::<Cli>() {
        Ok(cli) => serve::workers::main(&cli.server, DEFAULT_WORKERS, server_prebuilt::serve),
        Err(code) => code,
    }
}
