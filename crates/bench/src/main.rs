//! `bench`: the command line's edge. Parses, installs the signal flag, runs the command, and
//! turns any error into one line on stderr and a non-zero exit status (2 for a bad command
//! line, 128 + the signal after SIGINT/SIGTERM, 1 otherwise). See the library for the layers.

use std::process::ExitCode;

use bench::cli::{Cli, Cmd, ToolsCmd};
use bench::cmd::{
    calibrate, compare, idle, instructions, list, noise, publish, report, run, tools, verify,
};
use bench::error;
use bench::say;
use bench::step::procs;
use bench::step::server::Env;
use bench::step::signals;

fn main() -> ExitCode {
    let cli: Cli = match serve::config::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // Load tools inherit it: wrk and ab do not raise their own limit for 10,000 connections.
    let _ = serve::net::raise_nofile_limit();
    if let Err(e) = signals::install() {
        eprintln!("bench: cannot install the signal handlers: {e}");
        return ExitCode::FAILURE;
    }
    match execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(i) = error::interrupted(&e) {
                let left = procs::leftovers();
                let results = match (
                    e.downcast_ref::<publish::Kept>(),
                    e.downcast_ref::<bench::session::Partial>(),
                ) {
                    (Some(k), _) => k.to_string(),
                    (None, Some(p)) => p.to_string(),
                    (None, None) => "no results written".to_string(),
                };
                if left.is_empty() {
                    eprintln!("bench: {i}: stopped every process it had started; {results}");
                } else {
                    eprintln!("bench: {i}: processes it started are still running: {left:?}");
                }
                return ExitCode::from(i.exit_code());
            }
            eprintln!("bench: {}", one_line(&e));
            if error::is_bad_input(&e) {
                return ExitCode::from(2);
            }
            ExitCode::FAILURE
        }
    }
}

fn execute(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Cmd::List(a) => list::run(&Env::new(a.bin_dir).with_servers_file(a.manifest.servers_file)),
        Cmd::Verify(a) => {
            let env = Env::new(a.bin_dir).with_servers_file(a.manifest.servers_file);
            let names: Vec<String> = a.names.into_iter().chain(a.servers).collect();
            verify::run(&env, &names, a.verbose)
        }
        Cmd::Run(a) if a.list => {
            run::list();
            Ok(())
        }
        Cmd::Run(a) => run::command(&a),
        Cmd::Instructions(a) => instructions::command(&a),
        Cmd::Publish(a) => {
            let env = Env::new(a.bin_dir.clone());
            publish::publish(&env, &a)
        }
        Cmd::Idle(a) => {
            let env = Env::new(a.bin_dir).with_servers_file(a.manifest.servers_file);
            let command = bench::session::command();
            let path = idle::run_to(&env, &a.names, a.connections, &a.results_dir, command)?;
            say!(
                "results: {} (report: {})",
                path.display(),
                path.with_extension("md").display()
            );
            Ok(())
        }
        Cmd::Tools(t) => match t.command {
            ToolsCmd::List => {
                tools::list(&Env::new(None));
                Ok(())
            }
            ToolsCmd::Compare(a) => {
                let env = Env::new(a.start.bin_dir.clone())
                    .with_servers_file(a.manifest.servers_file.clone());
                let command = bench::session::command();
                let path = tools::compare_as(&env, &a, command)?;
                say!(
                    "results: {} (report: {})",
                    path.display(),
                    path.with_extension("md").display()
                );
                Ok(())
            }
        },
        Cmd::Report(a) => report::run(&a),
        Cmd::Compare(a) => compare::run(&a),
        Cmd::Calibrate(a) => calibrate::run(&a),
        Cmd::Noise(a) => noise::run(&a),
    }
}

/// The error and its causes on one line, without repeating a cause its parent already quotes.
fn one_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if out.contains(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out.replace('\n', " ")
}
