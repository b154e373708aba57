//! `server-reuseport`: the SO_REUSEPORT multi-process server as a program.
//!
//! Without the hidden `--worker-of` flag this process is the supervisor
//! ([`server_reuseport::supervisor::run`]); with it, one of its workers
//! ([`server_reuseport::worker::run`]). Exit codes: 0 after SIGINT/SIGTERM, 2 for a bad start
//! (bad flag, bad address, port taken: one line on stderr), 1 if serving itself fails.

use std::process::ExitCode;

use serve::config;
use server_reuseport::{Cli, supervisor, worker};

fn main() -> ExitCode {
    let cli: Cli = match config::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let Some(supervisor_pid) = cli.worker_of else {
        return supervisor::run(&cli);
    };
    match cli.server.resolve(1) {
        Ok(config) => worker::run(supervisor_pid, config, cli.engine),
        Err(e) => {
            config::fail(format!("worker: {e}"));
            ExitCode::from(2)
        }
    }
}
