//! Every Rust variant against `server-hyper`, request by request: the same status line, the
//! same header field names and the same total length (see the crate docs).
//!
//! A difference is allowed only where servers.toml documents it: an `extra_header` (the field
//! is set aside, and must add exactly its documented bytes), or an exception named after the
//! conformance check that covers the request (printed as `EXCEPTION`). A variant listed in
//! servers.toml that this test cannot start fails it, so no variant is left out.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use conformance::wire::{Conn, Response};
use contract::route::Endpoint;
use manifest::{Manifest, Server};
use serve::Config;

/// A server running in this process, on a thread of its own, until the process ends.
struct Running {
    addr: SocketAddr,
}

fn config(addr: SocketAddr) -> Config {
    Config {
        addr,
        workers: 1,
        auth_token: contract::body::DEFAULT_AUTH_TOKEN.to_owned(),
    }
}

fn listener() -> TcpListener {
    serve::net::bind("127.0.0.1:0".parse().unwrap(), false).expect("bind 127.0.0.1:0")
}

/// Runs a tokio-based variant's `serve` in the background (serve's own helper: a thread with a
/// current-thread runtime), until the process ends.
fn start_tokio<F, Fut>(serve: F) -> Running
where
    F: FnOnce(tokio::net::TcpListener, Arc<Config>, serve::signal::Shutdown) -> Fut
        + Send
        + 'static,
    Fut: std::future::Future<Output = ()> + 'static,
{
    let server = serve::workers::Background::local(serve).expect("serve in the background");
    let addr = server.addr();
    // Dropping it would stop it; it ends with the process.
    std::mem::forget(server);
    Running { addr }
}

/// Starts the variant built from `package`, if this test knows how.
fn start(package: &str) -> Option<Running> {
    Some(match package {
        "server-hyper" => start_tokio(server_hyper::serve),
        "server-prebuilt" => start_tokio(server_prebuilt::serve),
        // Its worker processes run this engine on their SO_REUSEPORT listeners; the supervisor
        // around them writes no byte of an answer.
        "server-reuseport" => {
            start_tokio(|l, c, s| server_reuseport::Engine::Prebuilt.serve(l, c, s))
        }
        "server-axum" => start_tokio(|l, c, s| server_axum::serve(l, server_axum::app(&c), s)),
        "server-actix" => {
            let l = listener();
            let addr = l.local_addr().unwrap();
            std::thread::spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    let server = server_actix::server(l, &config(addr)).unwrap();
                    let _ = server.await;
                });
            });
            Running { addr }
        }
        "server-may" => {
            server_may::configure_runtime(1);
            let running = server_may::serve(
                "127.0.0.1:0".parse().unwrap(),
                &config("127.0.0.1:0".parse().unwrap()),
            )
            .expect("start server-may");
            let addr = running.addr;
            // Never stopped: it ends with the process.
            std::mem::forget(running);
            Running { addr }
        }
        _ => return None,
    })
}

/// One request of the comparison and the conformance check that covers it.
struct Probe {
    check: &'static str,
    method: &'static str,
    target: String,
    auth: bool,
    scenario: bool,
}

fn probes() -> Vec<Probe> {
    let p = |check, method, target: &str, auth| Probe {
        check,
        method,
        target: target.to_owned(),
        auth,
        scenario: false,
    };
    let mut out = vec![
        p("core.hello.get", "GET", "/api/hello", false),
        p("core.hello.head", "HEAD", "/api/hello", false),
        p("core.root.get", "GET", "/", false),
        p("core.root.head", "HEAD", "/", false),
        p("core.hello-text.get", "GET", "/hello", false),
        p("core.hello-text.head", "HEAD", "/hello", false),
        p("core.echo.get", "GET", "/api?name=A&lastname=B", false),
        p("core.echo.head", "HEAD", "/api?name=A&lastname=B", false),
        p("core.private.get", "GET", "/api/private", true),
        p("core.private.head", "HEAD", "/api/private", true),
        p("core.private.missing", "GET", "/api/private", false),
        p("core.private.head-401", "HEAD", "/api/private", false),
        p("core.my-ip.v4", "GET", "/my/ip", false),
        p("core.my-ip.head", "HEAD", "/my/ip", false),
        p("core.not-found.unknown", "GET", "/nope", false),
        p("core.not-found.head", "HEAD", "/nope", false),
        p("core.method.delete", "DELETE", "/", false),
    ];
    for (check, e) in [
        ("scenario.async", Endpoint::Async),
        ("scenario.sync", Endpoint::Sync),
        ("scenario.sync-offload", Endpoint::SyncOffload),
        ("scenario.nexttick", Endpoint::NextTick),
        ("scenario.timer", Endpoint::Timer),
    ] {
        out.push(Probe {
            scenario: true,
            ..p(check, "GET", e.path(), false)
        });
    }
    out
}

/// What is compared of one answer.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    status_line: String,
    /// Field names, lowercase, sorted.
    names: Vec<String>,
    /// Head and body, as received.
    len: usize,
}

fn ask(addr: SocketAddr, probe: &Probe) -> Response {
    let mut req = format!(
        "{} {} HTTP/1.1\r\nHost: {addr}\r\n",
        probe.method, probe.target
    );
    if probe.auth {
        req.push_str("Authorization: Bearer bench-token\r\n");
    }
    req.push_str("\r\n");
    let mut conn = Conn::connect(addr, Duration::from_secs(5)).expect("connect");
    conn.send(req.as_bytes()).expect("send");
    conn.read_response(probe.method == "HEAD")
        .unwrap_or_else(|e| panic!("{addr} {} {}: {e}", probe.method, probe.target))
}

/// The shape of `resp`, with the documented extra fields of `server` set aside (their bytes
/// taken off the length, after checking they are exactly the documented size).
fn shape(resp: &Response, server: &Server) -> Result<Shape, String> {
    let mut len = resp.raw.len();
    let mut names = Vec::new();
    for (name, value) in &resp.headers {
        let lower = name.to_ascii_lowercase();
        if let Some(extra) = server.extra_headers.iter().find(|x| x.field == lower) {
            let bytes = name.len() + 2 + value.len() + 2;
            if bytes != extra.bytes {
                return Err(format!(
                    "`{lower}` is {bytes} bytes, servers.toml says {}",
                    extra.bytes
                ));
            }
            len -= bytes;
        } else {
            names.push(lower);
        }
    }
    names.sort();
    Ok(Shape {
        status_line: format!("HTTP/1.{} {} {}", resp.version, resp.status, resp.reason),
        names,
        len,
    })
}

#[test]
fn every_variant_sends_server_hypers_bytes() {
    let manifest = conformance::suite::workspace_manifest();
    let reference = manifest
        .by_package("server-hyper")
        .expect("server-hyper is listed");
    let hyper = start("server-hyper").unwrap();
    let mut failures = Vec::new();
    for server in manifest.servers.iter().filter(|s| s.package.is_some()) {
        let package = server.package.as_deref().unwrap_or_default();
        if package == "server-hyper" {
            continue;
        }
        let Some(variant) = start(package) else {
            failures.push(format!(
                "{package}: this test cannot start it yet; add it to `start` in {}",
                file!()
            ));
            continue;
        };
        let exceptions = server
            .excused(&conformance::suite::check_names())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut compared = 0;
        for probe in probes() {
            if probe.scenario && !(server.scenarios && reference.scenarios) {
                continue;
            }
            let want = shape(&ask(hyper.addr, &probe), reference).unwrap();
            let got = shape(&ask(variant.addr, &probe), server);
            compared += 1;
            let what = format!("{package} {} {}", probe.method, probe.target);
            match got {
                Ok(got) if got == want => println!("SAME {what}"),
                got => {
                    let diff = match got {
                        Ok(got) => format!("{got:?}, server-hyper {want:?}"),
                        Err(e) => e,
                    };
                    match exceptions.iter().find(|(c, _)| c == probe.check) {
                        Some((check, reason)) => {
                            println!("EXCEPTION {what} ({check}: {reason}): {diff}")
                        }
                        None => {
                            println!("DIFFERENT {what}: {diff}");
                            failures.push(format!("{what}: {diff}"));
                        }
                    }
                }
            }
        }
        println!("{package}: {compared} answers compared");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The comparison itself fails on each kind of difference, and sets aside exactly the
/// documented extra fields.
#[test]
fn shape_sees_every_difference() {
    let parse = |raw: &str| {
        conformance::wire::parse_response(raw.as_bytes(), false, false)
            .unwrap()
            .unwrap()
            .0
    };
    let date = "Sun, 06 Nov 1994 08:49:37 GMT";
    let good = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 2\r\ndate: {date}\r\n\r\nhi"
    );
    let plain = Manifest::parse(
        "[[server]]\nname = \"a\"\npackage = \"a\"\nstyle = \"x\"\ngroups = [\"core\"]\n",
    )
    .unwrap()
    .servers
    .remove(0);
    let mut extra = plain.clone();
    extra.extra_headers.push(manifest::ExtraHeader {
        field: "server".into(),
        bytes: 11,
    });
    let want = shape(&parse(&good), &plain).unwrap();
    // Same bytes in another field order and letter case: the same shape.
    let reordered = format!(
        "HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhi"
    );
    assert_eq!(shape(&parse(&reordered), &plain).unwrap(), want);
    for bad in [
        good.replace("200 OK", "200 Ok"),
        good.replace("date:", "server: M\r\ndate:"),
        good.replace("text/plain; charset=utf-8", "text/plain"),
        good.replace("content-length: 2", "content-length: 3")
            .replace("hi", "hi!"),
    ] {
        assert_ne!(shape(&parse(&bad), &plain).unwrap(), want, "{bad}");
    }
    let with_server = good.replace("date:", "Server: M\r\ndate:");
    assert_eq!(shape(&parse(&with_server), &extra).unwrap(), want);
    let bigger = good.replace("date:", "Server: MM\r\ndate:");
    assert!(shape(&parse(&bigger), &extra).is_err());
}
