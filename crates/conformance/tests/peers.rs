//! Every peer of `servers.toml` (the experiments' own systems: Node, Python, Go, nginx, the C
//! ceiling) against the contract, on the endpoints it serves.
//!
//! A peer whose runtime or packages are not installed (`Server::missing`) is skipped with the
//! reason printed (`scripts/install-peers.sh` installs them); under `BENCH_REQUIRE_TOOLS=1`, as
//! in CI, the test fails instead, naming every peer that could not run and what it lacks
//! (`conformance::require`). Every other peer is started from
//! the workspace root with its `servers.toml` command on 127.0.0.1:0 and judged by the groups
//! its entry lists, with the header fields its entry records allowed and its documented
//! exceptions skipped; then each exception is run alone and must still fail, and SIGTERM must
//! stop the peer with exit status 0. A peer that lists no group (the ceiling, a yardstick, not a
//! conforming server) must still start, announce, answer `GET /` with 200 and pass the suite's
//! HTTP/1.0 keep-alive check (E5 measures it so).

use std::time::Duration;

use conformance::require;
use conformance::suite::Peer;
use conformance::wire::Conn;
use conformance::{Group, Options, Outcome, Target};

/// The suite's checks a peer that lists no group (the ceiling) must still pass:
/// `conn.http10-keep-alive`, ab -k's mode, in which E5 measures every server, the ceiling
/// included (the publish of 2026-12-03 found its E5 step invalid without it).
const YARDSTICK_CHECKS: [&str; 1] = ["conn.http10-keep-alive"];

/// What happened to one peer.
enum Verdict {
    Skipped(Vec<String>),
    Passed(String),
    Failed(String),
}

/// Starts `peer`, judges it, stops it.
fn judge(peer: &Peer) -> Verdict {
    let name = &peer.entry.name;
    let missing = peer.missing();
    if !missing.is_empty() {
        return Verdict::Skipped(missing);
    }
    let mut server = match peer.start() {
        Ok(s) => s,
        Err(e) => return Verdict::Failed(format!("{name} did not start: {e}")),
    };
    let addr = server.addr();
    let mut problems = Vec::new();
    let summary;

    let options = peer.options();
    if options.groups.is_empty() {
        if let Err(e) = answers_root(addr) {
            problems.push(format!("GET / on {addr}: {e}"));
        }
        let only = Options {
            groups: Group::ALL.to_vec(),
            only: YARDSTICK_CHECKS.map(String::from).to_vec(),
            ..options.clone()
        };
        let report = conformance::run(&Target::new(addr), &only);
        for check in YARDSTICK_CHECKS {
            match report.get(check).map(|r| &r.outcome) {
                Some(Outcome::Pass) => {}
                Some(Outcome::Fail(f)) => problems.push(format!("{check} on {addr}: {f}")),
                other => problems.push(format!("{check} on {addr} did not run: {other:?}")),
            }
        }
        summary = format!(
            "started, announced, answered GET /, passed {}",
            YARDSTICK_CHECKS.join(", ")
        );
    } else {
        let report = conformance::run(&Target::new(addr), &options);
        println!("---- {name} ({addr}):\n{report}");
        summary = report.summary();
        if !report.all_passed() {
            problems.push(format!("failed: {}", report.failed_names().join(", ")));
        }
        if let Err(e) = extra_headers_as_recorded(peer, addr) {
            problems.push(e);
        }
        // Each documented exception must still apply.
        let excepted = conformance::suite::excused_checks(&peer.entry)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if !excepted.is_empty() {
            let only = Options {
                only: excepted.clone(),
                skip: Vec::new(),
                ..options.clone()
            };
            let report = conformance::run(&Target::new(addr), &only);
            for check in &excepted {
                match report.get(check).map(|r| &r.outcome) {
                    Some(Outcome::Fail(f)) => println!("EXCEPTED {check}: {f}"),
                    Some(_) => problems.push(format!(
                        "exception {check} passes now: remove it from servers.toml"
                    )),
                    None => problems.push(format!("exception {check} names no check it runs")),
                }
            }
        }
    }

    if let Err(e) = server.signal(libc::SIGTERM) {
        problems.push(format!("SIGTERM: {e}"));
    }
    match server.wait_exit(Duration::from_secs(8)) {
        Some(status) if status.code() == Some(0) => {}
        other => problems.push(format!("after SIGTERM: {other:?}, not exit status 0")),
    }
    if problems.is_empty() {
        Verdict::Passed(summary)
    } else {
        Verdict::Failed(format!("{name}: {}", problems.join("; ")))
    }
}

/// Every `extra_header` of the peer's entry is on its `GET /hello` answer, adding exactly the
/// bytes recorded (`Name: value` and CRLF), so the facts the bench's verify table shows are
/// measured, not guessed.
fn extra_headers_as_recorded(peer: &Peer, addr: std::net::SocketAddr) -> Result<(), String> {
    if peer.entry.extra_headers.is_empty() {
        return Ok(());
    }
    let mut conn = Conn::connect(addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    conn.send(b"GET /hello HTTP/1.1\r\nHost: peer\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let resp = conn.read_response(false).map_err(|e| e.to_string())?;
    for extra in &peer.entry.extra_headers {
        let sent: Vec<usize> = resp
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(&extra.field))
            .map(|(n, v)| n.len() + 2 + v.len() + 2)
            .collect();
        if sent != [extra.bytes] {
            return Err(format!(
                "extra_header {:?} is recorded as {} bytes, GET /hello sent {sent:?}",
                extra.field, extra.bytes
            ));
        }
    }
    Ok(())
}

/// `GET /` on a new connection answers 200 (the smoke check of a peer listing no group).
fn answers_root(addr: std::net::SocketAddr) -> Result<(), String> {
    let mut conn = Conn::connect(addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    conn.send(b"GET / HTTP/1.1\r\nHost: peer\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let resp = conn.read_response(false).map_err(|e| e.to_string())?;
    if resp.status == 200 && resp.body.len() == 1024 {
        Ok(())
    } else {
        Err(format!(
            "status {} with {} body bytes, not 200 with 1,024",
            resp.status,
            resp.body.len()
        ))
    }
}

#[test]
fn every_peer_serves_its_endpoints_as_the_contract_says() {
    const TEST: &str = "conformance::peers";
    let peers = Peer::all();
    assert!(!peers.is_empty(), "servers.toml lists no peer");
    let mut failed = Vec::new();
    let mut not_installed = Vec::new();
    let mut lines = Vec::new();
    for peer in &peers {
        let line = match judge(peer) {
            Verdict::Skipped(why) => {
                not_installed.push(format!("{} ({})", lacks(&why), peer.entry.name));
                format!(
                    "SKIP {}: not installed: {}",
                    peer.entry.name,
                    why.join(", ")
                )
            }
            Verdict::Passed(summary) => format!("PASS {}: {summary}", peer.entry.name),
            Verdict::Failed(why) => {
                failed.push(why.clone());
                format!("FAIL {why}")
            }
        };
        println!("{line}");
        lines.push(line);
    }
    println!("---- peers:\n{}", lines.join("\n"));
    assert!(
        failed.is_empty(),
        "peers that break the contract:\n{}",
        failed.join("\n")
    );
    if !not_installed.is_empty() {
        require::missing(
            TEST,
            &not_installed.join("; "),
            "scripts/install-peers.sh installs the peers' runtimes and packages",
        );
    }
}

/// What a peer lacks, from `Server::missing`'s lines (`node: not on PATH`): the names alone,
/// joined (`node and peers/node/node_modules/express`).
fn lacks(missing: &[String]) -> String {
    let names: Vec<&str> = missing
        .iter()
        .map(|m| m.split_once(": ").map_or(m.as_str(), |(name, _)| name))
        .collect();
    names.join(" and ")
}

/// A peer whose runtime is not there is skipped with the reason, never started or failed.
#[test]
fn a_peer_without_its_runtime_is_skipped_with_the_reason() {
    let mut entry = Peer::all()
        .into_iter()
        .next()
        .expect("servers.toml lists a peer")
        .entry;
    entry.command = Some(vec![
        "no-such-runtime-here".to_owned(),
        "--addr".to_owned(),
        "{addr}".to_owned(),
    ]);
    entry.requires = vec!["peers/no/such/package".to_owned()];
    let peer = Peer::new(entry, &manifest::workspace_root());
    match judge(&peer) {
        Verdict::Skipped(why) => assert_eq!(
            why,
            [
                "no-such-runtime-here: not on PATH",
                "peers/no/such/package: does not exist"
            ]
        ),
        Verdict::Passed(s) | Verdict::Failed(s) => panic!("not skipped: {s}"),
    }
}
