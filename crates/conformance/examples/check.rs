//! Runs the conformance checks against a server already listening.
//!
//! `cargo run -p conformance --example check -- ADDR [GROUP|CHECK-NAME]...`
//! (no group or name: every group but heavy).

use std::process::ExitCode;

use conformance::{Group, Options, Target};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(addr) = args.next().and_then(|a| a.parse().ok()) else {
        eprintln!("usage: check ADDR [GROUP|CHECK-NAME]...");
        return ExitCode::from(2);
    };
    let mut opts = Options::default().with_groups(&[
        Group::Core,
        Group::Connection,
        Group::BadInput,
        Group::Scenarios,
    ]);
    let mut groups = Vec::new();
    for arg in args {
        match arg.parse::<Group>() {
            Ok(g) => groups.push(g),
            Err(_) => opts.only.push(arg),
        }
    }
    if !groups.is_empty() {
        opts.groups = groups;
    } else if !opts.only.is_empty() {
        opts.groups = Group::ALL.to_vec();
    }
    if let Ok(secs) = std::env::var("IDLE_SECS") {
        opts.idle_secs = secs.parse().unwrap_or(opts.idle_secs);
    }
    let report = conformance::run(&Target::new(addr), &opts);
    report.print();
    if report.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
