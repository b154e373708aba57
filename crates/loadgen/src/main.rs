//! `loadgen`: the command line. Parses wrk-like flags into a [`loadgen::Config`], runs it and
//! prints the wrk-shaped summary or, with `--json`, the versioned [`loadgen::Report`].
//!
//! Exit codes: 0 after a run (whatever the errors counted), 2 for a bad command line,
//! 1 if the run could not be made.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use loadgen::config::{parse_duration, parse_stages};
use loadgen::{Config, Load, Mode, Report, Stage};
use serve::config::{self, fail};

/// An HTTP/1.1 load generator (closed, open and staged load; keep-alive, new-connection,
/// HTTP/1.0 and pipelined modes).
#[derive(Parser, Debug)]
#[command(name = "loadgen", version, about)]
struct Cli {
    /// The target, http://HOST[:PORT][/PATH]
    url: String,
    /// Connections, all threads together
    #[arg(short = 'c', long, value_name = "N", default_value_t = 10)]
    connections: usize,
    /// Threads, each with its own event loop
    #[arg(short = 't', long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Measured duration (10s, 500ms, 2m); default 10s unless -n is given
    #[arg(short = 'd', long, value_name = "DURATION", value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Stop after N measured requests (answered or failed)
    #[arg(short = 'n', long, value_name = "N")]
    requests: Option<u64>,
    /// Open model: total requests per second, latency from the intended send times (wrk2)
    #[arg(short = 'R', long, value_name = "RATE")]
    rate: Option<f64>,
    /// Staged closed model: DURATION:CONNECTIONS steps, ramped linearly (k6), e.g. 1m:100,2m:500
    #[arg(long, value_name = "STAGES", value_parser = parse_stages, conflicts_with_all = ["rate", "duration", "requests", "connections"])]
    stages: Option<Vec<Stage>>,
    /// Pipelining depth: requests written back to back per connection
    #[arg(short = 'p', long, value_name = "N", default_value_t = 1)]
    pipeline: usize,
    /// keep-alive (wrk), close (new connection per request), http1.0 (ab), http1.0-keep-alive (ab -k)
    #[arg(long, value_name = "MODE", default_value = "keep-alive", value_parser = parse_mode)]
    mode: Mode,
    /// Load sent first and discarded
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    warmup: Option<Duration>,
    /// Connect, write and response timeout (the top of the latency histogram)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "2s")]
    timeout: Duration,
    /// Request method
    #[arg(short = 'm', long, value_name = "METHOD", default_value = "GET")]
    method: String,
    /// Extra request header, "Name: value" (repeatable)
    #[arg(short = 'H', long = "header", value_name = "HEADER", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// Request body (Content-Length is derived)
    #[arg(long, value_name = "TEXT")]
    body: Option<String>,
    /// Print the latency distribution (wrk --latency)
    #[arg(long)]
    latency: bool,
    /// Print the JSON report (schema loadgen.report/1) instead of the summary
    #[arg(long)]
    json: bool,
    /// Add a timeline of the measured window in intervals this long (250ms, 1s): responses,
    /// errors, requests sent (and due and unsent at -R), p50/p99/max and the generator's CPU
    /// in each; needs -d or --stages
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    interval: Option<Duration>,
    /// Never show the progress bar
    #[arg(long)]
    no_progress: bool,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| {
        format!("invalid mode {s:?}: use keep-alive, close, http1.0 or http1.0-keep-alive")
    })
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let (n, v) = s
        .split_once(':')
        .ok_or_else(|| format!("invalid header {s:?}: expected \"Name: value\""))?;
    Ok((n.trim().to_string(), v.trim().to_string()))
}

fn config(cli: Cli) -> Result<Config, String> {
    let mut c = Config::new(&cli.url).map_err(|e| e.to_string())?;
    c.connections = cli.connections;
    c.threads = cli.threads;
    c.pipeline = cli.pipeline;
    c.mode = cli.mode;
    c.method = cli.method;
    c.headers = cli.headers;
    c.body = cli.body.unwrap_or_default().into_bytes();
    c.timeout = cli.timeout;
    c.warmup = cli.warmup.unwrap_or_default();
    c.requests = cli.requests;
    c.duration = match (cli.duration, cli.requests) {
        (Some(d), _) => Some(d),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(10)),
    };
    if let Some(rate) = cli.rate {
        c.load = Load::Open { rate };
    }
    if let Some(stages) = cli.stages {
        c.duration = None;
        c.load = Load::Stages { stages };
    }
    c.interval = cli.interval;
    c.progress = !cli.no_progress && !cli.json && std::io::stderr().is_terminal();
    c.validate().map_err(|e| e.to_string())?;
    Ok(c)
}

fn main() -> ExitCode {
    let cli: Cli = match config::parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let (json, latency) = (cli.json, cli.latency);
    let config = match config(cli) {
        Ok(c) => c,
        Err(e) => {
            fail(e);
            return ExitCode::from(2);
        }
    };
    let result = match loadgen::run(&config) {
        Ok(r) => r,
        Err(e) => {
            fail(e);
            return ExitCode::FAILURE;
        }
    };
    if json {
        match serde_json::to_string_pretty(&Report::new(&config, result)) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                fail(format!("cannot write the report: {e}"));
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", loadgen::print::human(&config, &result, latency));
    }
    ExitCode::SUCCESS
}
