//! `bench`: the command line's edge. Parses, installs the signal flag, runs the command, and
//! turns any error into one line on stderr and a non-zero exit status (2 for a bad command
//! line, 128 + the signal after SIGINT/SIGTERM, 1 otherwise). See the library for the layers.

use std::process::ExitCode;

use bench::cli::{Cli, Cmd, ToolsCmd};
use bench::cmd::{idle, instructions, list, publish, run, tools, verify};
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
                    e.downcast_ref::<run::Partial>(),
                ) {
                    (Some(k), _) => k.to_string(),
                    (None, Some(p)) => p.to_string(),
                    (None, None) => "no results written".to_string(),
                };
                if left.is_empty() {
                    eprintln!(
                        "bench: interrupted by {}: stopped every process it had started; {results}",
                        i.name()
                    );
                } else {
                    eprintln!(
                        "bench: interrupted by {}: processes it started are still running: {left:?}",
                        i.name()
                    );
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
    let argv: Vec<String> = std::env::args().collect();
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
        Cmd::Run(a) => {
            let env = Env::new(a.start.bin_dir.clone())
                .with_servers_file(a.manifest.servers_file.clone());
            let mut command = vec!["bench".to_string()];
            command.extend(argv.into_iter().skip(1));
            let outcome = run::run(&env, &a, command)?;
            say!("results: {}", outcome.path.display());
            say!(
                "report: cargo run --release -p bench -- report {}",
                outcome.path.display()
            );
            match outcome.problems.as_slice() {
                [] => Ok(()),
                [one] => anyhow::bail!(
                    "results written to {}, but a step could not be measured: {one}",
                    outcome.path.display()
                ),
                [first, rest @ ..] => anyhow::bail!(
                    "results written to {}, but {} steps could not be measured: {first} (and {} more)",
                    outcome.path.display(),
                    rest.len() + 1,
                    rest.len()
                ),
            }
        }
        Cmd::Instructions(a) => {
            let modes = if a.modes.is_empty() {
                bench_model::results::instructions::Mode::ALL.to_vec()
            } else {
                a.modes
                    .iter()
                    .map(|m| {
                        bench_model::results::instructions::Mode::parse(m).ok_or_else(|| {
                            anyhow::anyhow!(
                                "unknown mode {m:?}: keep-alive, pipelined-16 or http1.0-new-connection"
                            )
                        })
                    })
                    .collect::<anyhow::Result<_>>()?
            };
            if a.small >= a.large {
                anyhow::bail!("--small ({}) must be below --large ({})", a.small, a.large);
            }
            let targets = if a.targets.is_empty() {
                instructions::DEFAULT_TARGETS.map(String::from).to_vec()
            } else {
                a.targets.clone()
            };
            let plan = instructions::Plan {
                servers: a.servers.clone(),
                targets,
                modes,
                counts: bench_model::results::instructions::Counts {
                    small: a.small,
                    large: a.large,
                    connections: a.connections,
                },
                results_dir: a.results_dir.clone(),
                check: a.check.clone(),
                write_baseline: a.write_baseline.clone(),
            };
            let mut command = vec!["bench".to_string()];
            command.extend(argv.into_iter().skip(1));
            let env = Env::new(a.bin_dir).with_servers_file(a.manifest.servers_file);
            instructions::run(&env, &plan, command)
        }
        Cmd::Publish(a) => {
            let env = Env::new(a.bin_dir.clone());
            publish::publish(&env, &a)
        }
        Cmd::Idle(a) => {
            let env = Env::new(a.bin_dir).with_servers_file(a.manifest.servers_file);
            let mut command = vec!["bench".to_string()];
            command.extend(argv.into_iter().skip(1));
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
                let mut command = vec!["bench".to_string()];
                command.extend(argv.into_iter().skip(1));
                let path = tools::compare_as(&env, &a, command)?;
                say!(
                    "results: {} (report: {})",
                    path.display(),
                    path.with_extension("md").display()
                );
                Ok(())
            }
        },
        Cmd::Report(a) => {
            if let Some(readme) = &a.readme {
                let changed = bench_report::headline::write_readme(&a.files, readme)?;
                let what = if changed {
                    "rewritten"
                } else {
                    "already current"
                };
                say!("{}: headline table {what}", readme.display());
                return Ok(());
            }
            // The reports say which servers' code changed since each run: git asked here.
            let root = manifest::workspace_root();
            if let Some(out) = &a.html {
                bench_report::write_html(&a.files, out, Some(&root))?;
                say!("{}: {} results file(s)", out.display(), a.files.len());
                return Ok(());
            }
            for file in &a.files {
                if let Some(md) = bench_report::other::write_report_beside(file)? {
                    say!("{}: {}", file.display(), md.display());
                    continue;
                }
                let (md, svg) = bench_report::write_beside(file, Some(&root))?;
                say!("{}: {} and {}", file.display(), md.display(), svg.display());
            }
            Ok(())
        }
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
