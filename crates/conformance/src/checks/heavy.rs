//! `heavy`: 10,000 connections opened and held at once, each completing `GET /`.
//!
//! The client raises its own RLIMIT_NOFILE soft limit to the hard limit first. Connections are
//! opened with at most [`CONNECTS_IN_FLIGHT`] connects pending (so the listen backlog is not
//! flooded), all are held open, then every one sends `GET /` and must read a 200 with the
//! 1,024-dot body. Runs on its own tokio runtime.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use contract::body::ROOT_BODY;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::{Check, Ctx, Pace, fast};
use crate::Group::Heavy;
use crate::expect::Judged;
use crate::report::Failure;
use crate::wire::{excerpt, parse_response};

/// Connects pending at once while opening.
const CONNECTS_IN_FLIGHT: usize = 256;
/// Deadline of one connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Deadline of all the exchanges once every connection is open.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);
/// File descriptors kept for everything else the process holds.
const FD_SLACK: u64 = 64;

fn heavy(c: &Ctx<'_>) -> Judged {
    let n = c.opts.heavy_connections;
    let limit = serve::net::raise_nofile_limit()
        .map_err(|e| Failure::new("RLIMIT_NOFILE raised", e.to_string()))?;
    if limit < n as u64 + FD_SLACK {
        return Err(Failure::new(
            format!("a file-descriptor limit for {n} connections"),
            format!("the client's hard limit is {limit}"),
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::new("a tokio runtime", e.to_string()))?;
    let request = Arc::new(c.get("/"));
    runtime.block_on(hold_and_get(c.addr(), n, request))
}

async fn hold_and_get(addr: SocketAddr, n: usize, request: Arc<Vec<u8>>) -> Judged {
    // Open every connection first.
    let gate = Arc::new(Semaphore::new(CONNECTS_IN_FLIGHT));
    let mut opening = JoinSet::new();
    for _ in 0..n {
        let Ok(permit) = gate.clone().acquire_owned().await else {
            break;
        };
        opening.spawn(async move {
            let result = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await;
            drop(permit);
            match result {
                Ok(Ok(stream)) => Ok(stream),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("connect timed out".to_owned()),
            }
        });
    }
    let mut streams = Vec::with_capacity(n);
    let mut first_error = None;
    while let Some(joined) = opening.join_next().await {
        match joined {
            Ok(Ok(stream)) => streams.push(stream),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => {
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    if streams.len() < n {
        return Err(Failure::new(
            format!("{n} connections open at once"),
            format!(
                "{} opened (first error: {})",
                streams.len(),
                first_error.unwrap_or_default()
            ),
        ));
    }

    // Every connection is open and held; now each sends GET / and reads the answer. The
    // streams come back from the tasks, so none closes before all have finished.
    let mut exchanging = JoinSet::new();
    for stream in streams {
        let request = request.clone();
        exchanging.spawn(async move {
            let result = tokio::time::timeout(EXCHANGE_TIMEOUT, get_root(stream, &request)).await;
            match result {
                Ok(r) => r,
                Err(_) => Err((
                    format!("no answer within {} s", EXCHANGE_TIMEOUT.as_secs()),
                    None,
                )),
            }
        });
    }
    let mut held = Vec::with_capacity(n);
    let mut failed = 0usize;
    let mut first_failure: Option<String> = None;
    while let Some(joined) = exchanging.join_next().await {
        match joined {
            Ok(Ok(stream)) => held.push(stream),
            Ok(Err((why, stream))) => {
                failed += 1;
                held.extend(stream);
                first_failure.get_or_insert(why);
            }
            Err(e) => {
                failed += 1;
                first_failure.get_or_insert(e.to_string());
            }
        }
    }
    drop(held);
    match first_failure {
        None => Ok(()),
        Some(why) => Err(Failure::new(
            format!("{n} correct answers to GET / with every connection held"),
            format!("{failed} failed (first: {why})"),
        )),
    }
}

type Exchange = Result<TcpStream, (String, Option<TcpStream>)>;

/// Sends `GET /` and reads a 200 with the 1,024-dot body.
async fn get_root(mut stream: TcpStream, request: &[u8]) -> Exchange {
    if let Err(e) = stream.write_all(request).await {
        return Err((format!("write failed: {e}"), Some(stream)));
    }
    let mut buf = Vec::with_capacity(2048);
    loop {
        match parse_response(&buf, false, false) {
            Ok(Some((resp, _))) => {
                if resp.status == 200 && resp.body == ROOT_BODY {
                    return Ok(stream);
                }
                let why = format!(
                    "status {} with a {}-byte body: {}",
                    resp.status,
                    resp.body.len(),
                    excerpt(&resp.raw, 120)
                );
                return Err((why, Some(stream)));
            }
            Ok(None) => {}
            Err(e) => return Err((format!("{e}: {}", excerpt(&buf, 120)), Some(stream))),
        }
        match stream.read_buf(&mut buf).await {
            Ok(0) => {
                let why = format!("closed after {} bytes: {}", buf.len(), excerpt(&buf, 120));
                return Err((why, None));
            }
            Ok(_) => {}
            Err(e) => return Err((format!("read failed: {e}"), None)),
        }
    }
}

pub(super) const CHECKS: &[Check] = &[Check {
    pace: Pace::Slow,
    needs: &["/"],
    ..fast(
        "heavy.10k-concurrent",
        Heavy,
        "10,000 connections held at once, each completing GET / with the 1,024-byte body",
        heavy,
    )
}];
