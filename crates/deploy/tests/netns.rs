//! Two hosts on one machine: two network namespaces (names unique to this run) joined by a
//! veth pair, 10.201.0.1/24 in the server's and 10.201.0.2/24 in the load's. The static
//! `server-prebuilt` starts in the server's namespace on its veth address
//! (`ip netns exec NS server-prebuilt --addr 10.201.0.1:0`, ready line read), the load comes
//! from the other namespace over the veth, and the server stops with exit 0 on SIGTERM.
//! The namespaces, and the processes in them, are removed whatever happens (guards).
//!
//! Skipped, with the reason printed, where namespaces or veth pairs cannot be made (not root,
//! no iproute2, no CAP_NET_ADMIN, no veth driver); a failure instead under
//! `BENCH_REQUIRE_TOOLS=1` (`conformance::require`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use conformance::require;
use deploy::{Netns, TempDir, in_netns, note, output, show, static_build, veth_pair};
use serve::process::{READY_TIMEOUT, ServerProcess};

const TEST: &str = "deploy::netns";
const SERVER_IP: &str = "10.201.0.1";
const LOAD_IP: &str = "10.201.0.2";

#[test]
fn a_server_in_one_namespace_and_its_load_in_another() {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return require::unusable(TEST, "root", "network namespaces need root");
    }
    if require::program("ip").is_none() {
        return require::missing(
            TEST,
            "iproute2 (`ip`)",
            "scripts/install-containers.sh installs it",
        );
    }
    if std::env::consts::ARCH != "x86_64" {
        return require::unusable(
            TEST,
            "an x86_64 machine",
            "the static binaries are built for x86_64-unknown-linux-gnu",
        );
    }
    let id = std::process::id();
    let server_ns = match Netns::add(&format!("deploy-{id}-server")) {
        Ok(ns) => ns,
        Err(why) => return require::unusable(TEST, "network namespaces", &why),
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
        return require::unusable(TEST, "veth pairs", &why);
    }

    // A fresh namespace starts from the kernel's defaults: 28,232 ephemeral ports, of which
    // connect() tries the even half first, and `tcp_tw_reuse = 2`, which reuses a TIME_WAIT
    // port for loopback connections only. E3's quick run warms every step up with as many
    // connections as it measures, and each closed connection leaves a TIME_WAIT port, so the
    // measured 10,000-connection step, right after its warm-up, spent its 2 s in connect()
    // searching for a port (0 requests, 0 errors). A real load host needs the same two
    // settings (README, "Two machines").
    output(load_ns.exec("sysctl").args([
        "-q",
        "-w",
        "net.ipv4.ip_local_port_range=1024 65535",
        "net.ipv4.tcp_tw_reuse=1",
    ]))
    .unwrap_or_else(|e| panic!("{e}"));

    let bin =
        static_build(&["server-prebuilt", "loadgen", "bench"]).unwrap_or_else(|e| panic!("{e}"));

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

    // The harness drives the running server from the other namespace, with the binaries of
    // the static build (no cargo run inside the namespace).
    let results = TempDir::new("deploy-netns-results-");
    let url = format!("http://{addr}");
    let mut bench = load_ns.exec(bin.join("bench"));
    bench
        .args(["run", "e3", "--quick", "--target", &url, "--bin-dir"])
        .arg(&bin)
        .arg("--results-dir")
        .arg(results.path());
    note(TEST, &show(&bench));
    let started = Instant::now();
    let out = bench.output().expect("run bench");
    assert!(
        out.status.success(),
        "{} ({}): {}{}",
        show(&bench),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = results_json(results.path());
    check_remote_results(&doc, &url);
    note(
        TEST,
        &format!(
            "bench run e3 --quick across the veth took {:?}",
            started.elapsed()
        ),
    );

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

/// The one results file `bench run` wrote into `dir`, parsed.
fn results_json(dir: &Path) -> serde_json::Value {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(
        files.len(),
        1,
        "results files in {}: {files:?}",
        dir.display()
    );
    let text = std::fs::read_to_string(&files[0]).expect("read the results file");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", files[0].display()))
}

/// A remote run's results: the target recorded, no pinning, no /proc sampling, and every
/// repeat of every step valid, with requests and without errors.
fn check_remote_results(doc: &serde_json::Value, url: &str) {
    assert_eq!(doc["schema"], "bench.results/1");
    assert_eq!(doc["experiment"], "e3");
    assert_eq!(doc["target"], url, "target");
    assert!(doc["pinning"].is_null(), "pinning: {}", doc["pinning"]);
    let mut runs = 0;
    for server in doc["servers"].as_array().into_iter().flatten() {
        for step in server["steps"].as_array().into_iter().flatten() {
            let name = format!("{} {}", step["endpoint"], step["step"]);
            assert_eq!(step["valid"], true, "{name}: {}", step["invalid_reason"]);
            for run in step["repeats"].as_array().into_iter().flatten() {
                runs += 1;
                let requests = run["requests"].as_u64().unwrap_or(0);
                let errors = sum(&run["errors"]);
                note(
                    TEST,
                    &format!(
                        "{name}: {requests} requests, {errors} errors, {:.0} requests/s",
                        run["requests_per_s"].as_f64().unwrap_or(0.0)
                    ),
                );
                assert!(requests > 0, "{name}: no requests: {run}");
                assert_eq!(errors, 0, "{name}: errors: {run}");
                for sampled in [
                    "rss_kb",
                    "server_cpu_percent",
                    "server_cpu_s",
                    "cpu_us_per_request",
                ] {
                    assert!(
                        run[sampled].is_null(),
                        "{name}: {sampled} sampled on a remote target: {run}"
                    );
                }
            }
        }
    }
    assert!(runs > 0, "no runs in the results: {doc}");
}

/// The sum of every number in a JSON object (a report's error counts).
fn sum(v: &serde_json::Value) -> u64 {
    match v {
        serde_json::Value::Number(n) => n.as_u64().unwrap_or(0),
        serde_json::Value::Object(m) => m.values().map(sum).sum(),
        _ => 0,
    }
}
