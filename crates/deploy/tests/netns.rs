//! Two hosts on one machine: two network namespaces (names unique to this run) joined by a
//! veth pair, 10.201.0.1/24 in the server's and 10.201.0.2/24 in the load's. The static
//! `server-prebuilt` starts in the server's namespace on its veth address
//! (`ip netns exec NS server-prebuilt --addr 10.201.0.1:0`, ready line read), the load comes
//! from the other namespace over the veth, and the server stops with exit 0 on SIGTERM.
//! The namespaces, and the processes in them, are removed whatever happens (guards).
//!
//! Skipped, with the reason printed, where namespaces or veth pairs cannot be made (not root,
//! no iproute2, no CAP_NET_ADMIN, no veth driver).

use std::net::SocketAddr;
use std::time::Duration;

use conformance::process::{READY_TIMEOUT, ServerProcess};
use deploy::{Netns, in_netns, note, on_path, show, skip, static_build, veth_pair};

const TEST: &str = "deploy::netns";
const SERVER_IP: &str = "10.201.0.1";
const LOAD_IP: &str = "10.201.0.2";

#[test]
fn a_server_in_one_namespace_and_its_load_in_another() {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return skip(TEST, "network namespaces need root");
    }
    if !on_path("ip") {
        return skip(TEST, "iproute2 (`ip`) is not installed");
    }
    if std::env::consts::ARCH != "x86_64" {
        return skip(
            TEST,
            "the static binaries are built for x86_64-unknown-linux-gnu",
        );
    }
    let id = std::process::id();
    let server_ns = match Netns::add(&format!("deploy-{id}-server")) {
        Ok(ns) => ns,
        Err(why) => return skip(TEST, &format!("cannot make a network namespace: {why}")),
    };
    let load_ns = Netns::add(&format!("deploy-{id}-load")).unwrap_or_else(|e| panic!("{e}"));
    // Interface names are at most 15 bytes; both ends are created inside their namespaces,
    // so they never meet another run's names in the host's namespace.
    if let Err(why) = veth_pair(
        &server_ns,
        &format!("dvs{id}"),
        &format!("{SERVER_IP}/24"),
        &load_ns,
        &format!("dvl{id}"),
        &format!("{LOAD_IP}/24"),
    ) {
        return skip(TEST, &format!("cannot make a veth pair: {why}"));
    }

    let bin = static_build(&["server-prebuilt", "loadgen"]).unwrap_or_else(|e| panic!("{e}"));

    let mut cmd = server_ns.exec(bin.join("server-prebuilt"));
    cmd.args(["--addr", &format!("{SERVER_IP}:0")])
        .env_remove("ADDR")
        .env_remove("PORT")
        .env_remove("AUTH_TOKEN");
    note(TEST, &show(&cmd));
    let mut server = ServerProcess::spawn(cmd, READY_TIMEOUT).unwrap_or_else(|e| panic!("{e}"));
    let addr = server.addr();
    assert_eq!(addr.ip().to_string(), SERVER_IP, "ready line address");

    // The other namespace reaches the server over the veth (the server sees the load's
    // address), and not over a loopback it does not share.
    let (my_ip, loopback) = in_netns(&load_ns, move || {
        let my_ip = get_body(addr, "/my/ip");
        let loopback = std::net::TcpStream::connect_timeout(
            &SocketAddr::from(([127, 0, 0, 1], addr.port())),
            Duration::from_secs(2),
        );
        (my_ip, loopback.is_ok())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        my_ip.as_deref(),
        Ok(LOAD_IP),
        "GET /my/ip from the load's namespace"
    );
    assert!(
        !loopback,
        "127.0.0.1:{} answers in the load's namespace: not separate hosts",
        addr.port()
    );

    let url = format!("http://{addr}/");
    let mut load = load_ns.exec(bin.join("loadgen"));
    load.args([
        url.as_str(),
        "-c",
        "10",
        "-d",
        "2s",
        "--json",
        "--no-progress",
    ]);
    note(TEST, &show(&load));
    let out = load.output().expect("run loadgen");
    assert!(
        out.status.success(),
        "{}: {}",
        show(&load),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "loadgen --json: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let requests = report["result"]["requests"].as_u64().unwrap_or(0);
    let errors = sum(&report["result"]["errors"]);
    note(
        TEST,
        &format!(
            "{requests} requests, {errors} errors, {:.0} requests/s across the veth",
            report["result"]["requests_per_s"].as_f64().unwrap_or(0.0)
        ),
    );
    assert!(requests > 0, "no requests: {report}");
    assert_eq!(errors, 0, "errors: {report}");

    server.signal(libc::SIGTERM).expect("signal the server");
    let status = server.wait_exit(Duration::from_secs(6));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "after SIGTERM: {status:?}"
    );
}

/// The body of `GET path` as text, or why there is none.
fn get_body(addr: SocketAddr, path: &str) -> Result<String, String> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let (response, _) = conformance::wire::exchange(
        addr,
        request.as_bytes(),
        false,
        Duration::from_secs(5),
        Duration::from_millis(100),
    )
    .map_err(|e| e.to_string())?;
    String::from_utf8(response.body).map_err(|e| e.to_string())
}

/// The sum of every number in a JSON object (a report's error counts).
fn sum(v: &serde_json::Value) -> u64 {
    match v {
        serde_json::Value::Number(n) => n.as_u64().unwrap_or(0),
        serde_json::Value::Object(m) => m.values().map(sum).sum(),
        _ => 0,
    }
}
