//! Process behaviour: SIGINT and SIGTERM stop the server with exit 0; a bad flag, a bad
//! address, `--workers 0` and a taken port each exit 2 with one line on stderr.

use conformance::suite::Variant;

const V: Variant = Variant::new("server-actix", env!("CARGO_BIN_EXE_server-actix"));

#[test]
fn signals_exit_zero() {
    V.assert_signals_exit_zero(&[]);
}

#[test]
fn bad_starts_exit_two_with_one_line() {
    V.assert_bad_starts_exit_two();
}

/// E4's remedy must not become the problem: 20 `/api/sync-offload` requests at once may not
/// grow the worker's blocking pool (`web::block`) past the server's CPUs (actix's default,
/// 512 / workers, would spawn a thread for each, and on one server CPU they time-slice the
/// worker's event loop away).
#[test]
fn sync_offload_keeps_the_blocking_pool_to_the_cpus() {
    use conformance::wire::Conn;
    use std::time::Duration;

    let srv = serve::process::ServerProcess::start(V.bin, &[]).expect("start server-actix");
    let mut conns: Vec<Conn> = (0..20)
        .map(|_| Conn::connect(srv.addr(), Duration::from_secs(15)).expect("connect"))
        .collect();
    let request = b"GET /api/sync-offload HTTP/1.1\r\nHost: t\r\n\r\n";
    for c in &mut conns {
        c.send(request).unwrap();
    }
    for c in &mut conns {
        let r = c.read_response(false).expect("an answer");
        assert_eq!(
            (r.status, r.body.as_slice()),
            (200, contract::body::SYNC_JSON)
        );
    }
    // Idle pool threads live on for 10 s, so every thread the burst made is still there.
    let threads = std::fs::read_dir(format!("/proc/{}/task", srv.pid()))
        .unwrap()
        .count();
    let cpus = std::thread::available_parallelism().unwrap().get();
    // The system's main thread, the accept thread, one worker, at most `cpus` pool threads.
    assert!(
        threads <= 3 + cpus,
        "{threads} threads after 20 concurrent offloads on {cpus} CPUs"
    );
}
