//! `server-actix`: parses the command line, binds, announces the ready line and runs the
//! actix-web server with `--workers` actix workers until SIGINT/SIGTERM.
//!
//! actix's own signal handling is off (it stops at once on SIGINT); this binary waits for
//! either signal and stops the server gracefully: stop accepting, let in-flight requests
//! finish for at most 5 s, exit 0. Exit codes: 0 after a signal, 2 for a bad start (bad flag,
//! bad address, port taken), 1 if serving itself fails.

use std::process::ExitCode;

use clap::Parser;
use serve::config::{self, fail};
use serve::{ServerArgs, net, ready, signal};

/// The actix-web variant (actix-web 4 with middleware, the Fastify analogue).
#[derive(Parser, Debug)]
#[command(name = "server-actix", version, about)]
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
    // One listener: actix's accept thread hands its connections to the workers.
    let listener = match net::bind_workers(config.addr, 1).map(|mut l| l.pop()) {
        Ok(Some(l)) => l,
        Ok(None) => {
            fail("no listener was bound");
            return ExitCode::from(2);
        }
        Err(e) => {
            fail(e);
            return ExitCode::from(2);
        }
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            fail(format!("cannot read the bound address: {e}"));
            return ExitCode::from(2);
        }
    };
    let served = actix_web::rt::System::new().block_on(async move {
        // Handlers first, so a signal sent right after the ready line is a graceful stop.
        let signals = signal::recv_registered()?;
        let server = server_actix::server(listener, &config)?;
        let handle = server.handle();
        ready::announce(local)?;
        actix_web::rt::spawn(async move {
            signals.recv().await;
            handle.stop(true).await;
        });
        server.await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            fail(format!("serving failed: {e}"));
            ExitCode::FAILURE
        }
    }
}
