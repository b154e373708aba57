//! `bench verify [NAME…]`: starts each server, runs the conformance `core`, `connection` and
//! `rfc9112` groups against it (those its entry lists), judged exactly as the workspace's tests
//! judge it (`conformance::suite::options_for`: a Rust variant strictly, a peer or a user's own
//! server as `docs/contract.md` allows a library), and prints one line per server: checks passed,
//! excused by its exceptions, failed (each failure under it; each exception's reason with
//! `--verbose`). Then the fairness table: per server and endpoint, the status, head bytes, body
//! bytes and header fields of one plain `GET`, so that equal work and equal bytes can be seen
//! before anything is measured. A failed check makes the command fail (one line on stderr).

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{anyhow, bail};
use conformance::{Group, Outcome, Report, Target};
use manifest::Server;

use crate::step::answer::{Answer, fairness};
use crate::step::server::Env;
use crate::step::{Servers, Start, signals};
use bench_report::table::Table;

/// Runs `bench verify` for `names` (all runnable servers when empty); `verbose` prints each
/// exception's reason.
pub fn run(env: &Env, names: &[String], verbose: bool) -> anyhow::Result<()> {
    let manifest = env.manifest()?;
    let runnable = crate::session::runnable(env, &manifest, names, |_| true, "server")?;
    crate::session::build(env, &runnable, &[], true)?;
    let mut start = Start {
        env,
        port: 0,
        cpus: None,
        workers: None,
    };
    let (table, failures) = verify(&runnable, &mut start, verbose)?;
    crate::say!(
        "\nfairness: one GET per endpoint (Date values differ only in content; its length is fixed)"
    );
    crate::term::out::text(&table);
    if !failures.is_empty() {
        bail!(
            "{} server(s) failed conformance checks: {}",
            failures.len(),
            failures.join("; ")
        );
    }
    Ok(())
}

/// Each server of `runnable` started by `servers`, judged, its line printed and its answers
/// put in the fairness table, then stopped: the table and one line per server that failed a
/// check (`NAME: check, check`).
fn verify(
    runnable: &[&Server],
    servers: &mut dyn Servers,
    verbose: bool,
) -> anyhow::Result<(Table, Vec<String>)> {
    let mut table = Table::new(&[
        "server",
        "endpoint",
        "status",
        "head B",
        "body B",
        "total B",
        "header fields",
        "note",
    ]);
    let mut failures: Vec<String> = Vec::new();
    for s in runnable {
        signals::check()?;
        let mut running = servers.start(s)?;
        let addr = running.addr();
        if groups(s).is_empty() {
            crate::say!(
                "{} ({}): judged by none of core, connection, rfc9112 (servers.toml groups: {:?}); fairness row only",
                s.name,
                addr,
                s.groups
            );
        } else {
            let (report, excused) = conformance(s, addr)?;
            print_report(s, addr, &report, &excused, verbose);
            if report.failed() > 0 {
                failures.push(format!("{}: {}", s.name, report.failed_names().join(", ")));
            }
        }
        for (endpoint, row) in fairness(s, addr) {
            table.row(row_cells(&s.name, endpoint, row));
        }
        let left = running.stop();
        if !left.is_empty() {
            bail!("{} left processes behind after stopping: {left:?}", s.name);
        }
    }
    Ok((table, failures))
}

/// The groups verify runs that `server` lists.
fn groups(server: &Server) -> Vec<Group> {
    [Group::Core, Group::Connection, Group::Rfc9112]
        .into_iter()
        .filter(|g| server.has_group(g.name()))
        .collect()
}

/// Runs the checks, with the options the workspace's tests judge `server` by, on a thread, so
/// that a signal is seen while they run; the report and the names of the checks excused.
fn conformance(server: &Server, addr: SocketAddr) -> anyhow::Result<(Report, Vec<String>)> {
    let options =
        conformance::suite::options_for(server, &groups(server)).map_err(crate::error::bad)?;
    let excused: Vec<String> = options.skip.iter().map(|(c, _)| c.clone()).collect();
    let target = Target::new(addr);
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("bench-verify".into())
        .spawn(move || {
            let _ = tx.send(conformance::run(&target, &options));
        })
        .map_err(|e| anyhow!("cannot start the checks: {e}"))?;
    loop {
        signals::check()?;
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(report) => return Ok((report, excused)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                bail!("the conformance checks against {} stopped", server.name)
            }
        }
    }
}

/// One line for `server`: checks passed, excused, failed (and not run, for endpoints it does
/// not serve); under it every failure, and with `verbose` the exceptions' reasons and the
/// checks not run, each grouped by reason.
fn print_report(
    server: &Server,
    addr: SocketAddr,
    report: &Report,
    excused: &[String],
    verbose: bool,
) {
    let names: Vec<&str> = groups(server).iter().map(|g| g.name()).collect();
    let is_excused = |name: &str| excused.iter().any(|e| e == name);
    let skipped = |want_excused: bool| {
        report
            .results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Skipped { .. }))
            .filter(|r| is_excused(r.name) == want_excused)
            .count()
    };
    let not_run = skipped(false);
    let mut line = format!(
        "{} ({addr}), {}: {} passed, {} excused, {} failed",
        server.name,
        names.join(" + "),
        report.passed(),
        skipped(true),
        report.failed()
    );
    if not_run > 0 {
        line.push_str(&format!(
            "; {not_run} not run (endpoints it does not serve)"
        ));
    }
    crate::say!("{line}");
    // Skipped checks grouped by reason: a library's one deviation often excuses many checks.
    let mut grouped: Vec<(String, Vec<&str>)> = Vec::new();
    for r in &report.results {
        match &r.outcome {
            Outcome::Pass => {}
            Outcome::Fail(_) => crate::say!("  {r}"),
            Outcome::Skipped { reason } if verbose => {
                let kind = if is_excused(r.name) {
                    "EXCEPTION"
                } else {
                    "NOT RUN"
                };
                let key = format!("{kind}: {reason}");
                match grouped.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, names)) => names.push(r.name),
                    None => grouped.push((key, vec![r.name])),
                }
            }
            Outcome::Skipped { .. } => {}
        }
    }
    // The exceptions first, then the checks not run.
    grouped.sort_by_key(|(key, _)| !key.starts_with("EXCEPTION"));
    for (key, names) in grouped {
        let (kind, reason) = key.split_once(": ").unwrap_or((&key, ""));
        crate::say!("  {kind} {}: {reason}", names.join(", "));
    }
}

fn row_cells(server: &str, endpoint: &str, answer: Result<Answer, String>) -> Vec<String> {
    match answer {
        Ok(a) => vec![
            server.to_string(),
            endpoint.to_string(),
            a.status.to_string(),
            a.head.to_string(),
            a.body.to_string(),
            (a.head + a.body).to_string(),
            a.fields.join(","),
            a.notes.join("; "),
        ],
        Err(e) => vec![
            server.to_string(),
            endpoint.to_string(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            format!("no answer: {e}"),
        ],
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::step::fake::Fakes;

    /// A wrong server on a port of its own: every connection gets one `200` with the body
    /// `no` and is closed, whatever was asked. Stops when `stop` is set.
    fn wrong_server(stop: Arc<AtomicBool>) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut c, _)) => {
                        let _ = c.set_nonblocking(false);
                        let _ = c.set_read_timeout(Some(Duration::from_millis(200)));
                        let _ = c.read(&mut [0u8; 4096]);
                        let _ = c.write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno",
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        addr
    }

    #[test]
    fn a_wrong_server_fails_its_checks_and_its_bytes_show_in_the_fairness_table() {
        let stop = Arc::new(AtomicBool::new(false));
        let addr = wrong_server(Arc::clone(&stop));
        let manifest = manifest::Manifest::load_default().unwrap();
        let prebuilt = manifest.get("server-prebuilt").unwrap();
        let mut fakes = Fakes {
            alive: usize::MAX,
            addr: Some(addr),
            ..Fakes::default()
        };
        let (table, failures) = verify(&[prebuilt], &mut fakes, false).unwrap();
        stop.store(true, Ordering::SeqCst);
        assert_eq!(
            *fakes.log.borrow(),
            ["start server-prebuilt", "stop server-prebuilt"]
        );
        // Judged as server-prebuilt is: strictly, so its failures are named.
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].starts_with("server-prebuilt: "), "{failures:?}");
        // The table has a row per endpoint it serves, each with the wrong bytes and a note.
        let text = table.to_string();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("server-prebuilt"))
            .collect();
        assert_eq!(
            rows.len(),
            crate::step::answer::probes(prebuilt).len(),
            "{text}"
        );
        assert!(rows.iter().all(|r| r.contains(" 2 ")), "{text}");
    }
}
