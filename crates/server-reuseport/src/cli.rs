//! The command line: the shared server flags, the engine each worker runs, and the hidden flag
//! that turns a process into a worker of a given supervisor.

use std::sync::Arc;

use clap::{Parser, ValueEnum};
use serve::config::{Config, ServerArgs};
use serve::signal::Shutdown;

/// The SO_REUSEPORT multi-process HTTP/1.1 server (the Node cluster and nginx-workers
/// analogue): one worker process per CPU by default, each with its own listener.
#[derive(Parser, Debug, Clone, PartialEq, Eq)]
#[command(name = "server-reuseport", version, about)]
pub struct Cli {
    /// `--addr` and `--workers` (here: worker processes, default the number of CPUs).
    #[command(flatten)]
    pub server: ServerArgs,
    /// The engine every worker runs.
    #[arg(long, value_enum, default_value_t = Engine::Prebuilt)]
    pub engine: Engine,
    /// Internal: run as a worker of the supervisor with this PID (set by the supervisor).
    #[arg(long, hide = true, value_name = "PID")]
    pub worker_of: Option<u32>,
}

/// The serving code a worker runs, taken from another crate's library (nothing is copied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// `server_prebuilt::serve`: raw sockets and prebuilt responses (the default).
    Prebuilt,
    /// `server_hyper::serve`: bare hyper 1.x.
    Hyper,
}

impl Engine {
    /// The flag value that selects this engine.
    pub fn flag(self) -> &'static str {
        match self {
            Engine::Prebuilt => "prebuilt",
            Engine::Hyper => "hyper",
        }
    }

    /// Serves `listener` with this engine until `shutdown` fires (then at most the contract's
    /// grace period).
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        config: Arc<Config>,
        shutdown: Shutdown,
    ) {
        match self {
            Engine::Prebuilt => server_prebuilt::serve(listener, config, shutdown).await,
            Engine::Hyper => server_hyper::serve(listener, config, shutdown).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("server-reuseport").chain(args.iter().copied()))
    }

    #[test]
    fn defaults_and_engines() {
        let cli = parse(&[]).unwrap();
        assert_eq!(
            (cli.engine, cli.worker_of, cli.server.workers),
            (Engine::Prebuilt, None, None)
        );
        let cli = parse(&["--engine", "hyper", "--workers", "3"]).unwrap();
        assert_eq!((cli.engine, cli.server.workers), (Engine::Hyper, Some(3)));
        for e in [Engine::Prebuilt, Engine::Hyper] {
            assert_eq!(parse(&["--engine", e.flag()]).unwrap().engine, e);
        }
        assert!(parse(&["--engine", "nginx"]).is_err());
    }

    #[test]
    fn worker_flag_is_hidden() {
        assert_eq!(parse(&["--worker-of", "42"]).unwrap().worker_of, Some(42));
        let help = <Cli as clap::CommandFactory>::command()
            .render_help()
            .to_string();
        assert!(!help.contains("worker-of"), "{help}");
        assert!(help.contains("--engine"), "{help}");
    }
}
