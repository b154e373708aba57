//! Options: what to load, how, and for how long.
//!
//! [`Config`] is the library's whole input; the binary fills it from the command line and the
//! bench harness builds it directly. [`Config::validate`] turns every impossible combination
//! into one [`ConfigError`] line before any socket is opened. [`parse_duration`] and
//! [`parse_stages`] are the text forms the command line accepts (`10s`, `500ms`, `2m`;
//! `10s:100,20s:500`).

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::timeline::MAX_INTERVALS;

/// How each request is sent and whether connections are reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// HTTP/1.1, connections kept alive (wrk).
    KeepAlive,
    /// HTTP/1.1 with `Connection: close`: a new connection per request.
    Close,
    /// HTTP/1.0 without keep-alive: a new connection per request (ab without `-k`).
    #[serde(rename = "http1.0")]
    Http10,
    /// HTTP/1.0 with `Connection: Keep-Alive` (ab `-k`); reused only while the server answers
    /// `connection: keep-alive`.
    #[serde(rename = "http1.0-keep-alive")]
    Http10KeepAlive,
}

impl Mode {
    /// Whether connections are meant to be reused.
    pub fn persistent(self) -> bool {
        matches!(self, Mode::KeepAlive | Mode::Http10KeepAlive)
    }

    /// The command-line name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            Mode::KeepAlive => "keep-alive",
            Mode::Close => "close",
            Mode::Http10 => "http1.0",
            Mode::Http10KeepAlive => "http1.0-keep-alive",
        }
    }

    /// Parses a command-line name (see [`Mode::name`]).
    pub fn parse(s: &str) -> Option<Mode> {
        [
            Mode::KeepAlive,
            Mode::Close,
            Mode::Http10,
            Mode::Http10KeepAlive,
        ]
        .into_iter()
        .find(|m| m.name() == s)
    }
}

/// One step of a staged run: ramp linearly to `connections` over `duration` (k6's
/// ramping VUs). The first stage ramps from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// How long the step lasts.
    #[serde(with = "secs")]
    pub duration: Duration,
    /// The number of active connections at the end of the step.
    pub connections: usize,
}

/// The load model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum Load {
    /// `connections` connections, each with one request (or one pipelined batch) at a time.
    Closed,
    /// A fixed total rate in requests/s (wrk2): each worker thread has one schedule for its
    /// share, and hands each request to the next free connection. Latency is measured from
    /// the intended send time, however late the request was sent; the latency from the actual
    /// send time is kept as well, and requests due but never sent are counted.
    Open {
        /// Requests per second, all connections together.
        rate: f64,
    },
    /// A closed model whose number of active connections follows the stages.
    Stages {
        /// The steps, in order.
        stages: Vec<Stage>,
    },
}

/// The target: where to connect and what to put in the request line and `Host`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The URL as given.
    pub url: String,
    /// The resolved address.
    pub addr: SocketAddr,
    /// The `Host` header value (`host` or `host:port` as written).
    pub host: String,
    /// The request target (path and query), at least `/`.
    pub path: String,
}

impl Target {
    /// Parses `http://HOST[:PORT][/PATH]` and resolves the host (the first address wins).
    pub fn parse(url: &str) -> Result<Target, ConfigError> {
        let bad = |why: &str| ConfigError::new(format!("invalid URL {url:?}: {why}"));
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| bad("only http:// URLs are supported"))?;
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if authority.is_empty() || authority.contains('@') {
            return Err(bad("expected http://HOST[:PORT][/PATH]"));
        }
        if path
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(bad("the path holds spaces or control characters"));
        }
        let has_port = match authority.rfind(']') {
            Some(i) => authority[i..].contains(':'),
            None => authority.contains(':'),
        };
        let with_port = if has_port {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let addr = with_port
            .to_socket_addrs()
            .map_err(|e| bad(&format!("cannot resolve {authority}: {e}")))?
            .next()
            .ok_or_else(|| bad(&format!("{authority} has no address")))?;
        Ok(Target {
            url: url.to_string(),
            addr,
            host: authority.to_string(),
            path,
        })
    }
}

/// Everything a run needs. [`Config::new`] gives wrk's defaults for one URL.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Where and what.
    pub target: Target,
    /// The request method (`GET`).
    pub method: String,
    /// Extra request headers, in order.
    pub headers: Vec<(String, String)>,
    /// The request body (sent with a derived `Content-Length` when not empty).
    pub body: Vec<u8>,
    /// Keep-alive, new connection per request, or HTTP/1.0 with or without keep-alive.
    pub mode: Mode,
    /// Connections, all threads together (the maximum for [`Load::Stages`]).
    pub connections: usize,
    /// OS threads, each with its own event loop and its share of the connections.
    pub threads: usize,
    /// Requests written back to back on a connection before reading their responses.
    pub pipeline: usize,
    /// Stop after this many measured requests (answered or failed).
    pub requests: Option<u64>,
    /// Stop after this long, measured after the warm-up.
    pub duration: Option<Duration>,
    /// Load sent first and discarded.
    pub warmup: Duration,
    /// Closed, open or staged.
    pub load: Load,
    /// Connect, write and response timeout; also the top of the latency histograms.
    pub timeout: Duration,
    /// Show a progress bar on stderr (the binary sets it only for a terminal).
    pub progress: bool,
    /// Report a timeline of the measured window in intervals this long (`--interval`;
    /// `None`: no timeline). Needs a duration (`-d` or stages), no longer than the measured
    /// window, and at most [`MAX_INTERVALS`] intervals.
    pub interval: Option<Duration>,
}

impl Config {
    /// wrk's defaults against `url`: 10 connections, 1 thread, keep-alive, closed model,
    /// 10 s, 2 s timeout.
    pub fn new(url: &str) -> Result<Config, ConfigError> {
        Ok(Config {
            target: Target::parse(url)?,
            method: "GET".into(),
            headers: Vec::new(),
            body: Vec::new(),
            mode: Mode::KeepAlive,
            connections: 10,
            threads: 1,
            pipeline: 1,
            requests: None,
            duration: Some(Duration::from_secs(10)),
            warmup: Duration::ZERO,
            load: Load::Closed,
            timeout: Duration::from_secs(2),
            progress: false,
            interval: None,
        })
    }

    /// The number of connections a thread opens at most.
    pub fn max_connections(&self) -> usize {
        match &self.load {
            Load::Stages { stages } => stages.iter().map(|s| s.connections).max().unwrap_or(0),
            _ => self.connections,
        }
    }

    /// The measured length of a staged run (the sum of its stages), or `duration`.
    pub fn run_duration(&self) -> Option<Duration> {
        match &self.load {
            Load::Stages { stages } => Some(stages.iter().map(|s| s.duration).sum()),
            _ => self.duration,
        }
    }

    /// The measured window of a timed run: `duration`, or the stages' sum less the warm-up
    /// (the warm-up is part of the stages); `None` for a run bounded by `-n` alone.
    pub fn measured_window(&self) -> Option<Duration> {
        match &self.load {
            Load::Stages { .. } => self.run_duration().map(|d| d.saturating_sub(self.warmup)),
            _ => self.duration,
        }
    }

    /// Checks every combination; the error is one line for the user.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |s: &str| Err(ConfigError::new(s));
        if self.threads == 0 {
            return err("-t must be at least 1");
        }
        if self.pipeline == 0 {
            return err("-p must be at least 1");
        }
        if self.pipeline > 1 && !self.mode.persistent() {
            return err("pipelining (-p > 1) needs a keep-alive mode");
        }
        if self.timeout.is_zero() {
            return err("--timeout must be more than 0");
        }
        if self.requests == Some(0) {
            return err("-n must be at least 1");
        }
        if self.duration.is_some_and(|d| d.is_zero()) {
            return err("-d must be more than 0");
        }
        if self.method.is_empty() || !self.method.bytes().all(|b| b.is_ascii_alphabetic()) {
            return err("the method must be letters only");
        }
        for (n, v) in &self.headers {
            let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if n.is_empty() || !n.bytes().all(token) || v.bytes().any(|b| b == b'\r' || b == b'\n')
            {
                return Err(ConfigError::new(format!("invalid header {n:?}")));
            }
        }
        match &self.load {
            Load::Closed => {}
            Load::Open { rate } => {
                if !(rate.is_finite() && *rate > 0.0) {
                    return err("-R must be a positive rate");
                }
                if self.pipeline > 1 {
                    return err("the open model (-R) does not pipeline");
                }
            }
            Load::Stages { stages } => {
                if stages.is_empty() || stages.iter().all(|s| s.duration.is_zero()) {
                    return err("--stages needs at least one step with a duration");
                }
                if self.requests.is_some() || self.duration.is_some() {
                    return err("--stages sets the duration; drop -n and -d");
                }
            }
        }
        let conns = self.max_connections();
        if conns == 0 {
            return err("at least one connection is needed");
        }
        if conns < self.threads {
            return Err(ConfigError::new(format!(
                "-c {conns} is fewer than -t {}: each thread needs a connection",
                self.threads
            )));
        }
        if self.run_duration().is_none() && self.requests.is_none() {
            return err("give -n REQUESTS or -d DURATION");
        }
        if let Some(step) = self.interval {
            self.validate_interval(step)?;
        }
        Ok(())
    }

    fn validate_interval(&self, step: Duration) -> Result<(), ConfigError> {
        if step.is_zero() {
            return Err(ConfigError::new("--interval must be more than 0"));
        }
        let Some(window) = self.measured_window() else {
            return Err(ConfigError::new(
                "--interval needs a run of known length: give -d DURATION (or --stages)",
            ));
        };
        if step > window {
            return Err(ConfigError::new(format!(
                "--interval {step:?} is longer than the measured window ({window:?})"
            )));
        }
        let n = window.as_nanos().div_ceil(step.as_nanos());
        if n > u128::from(MAX_INTERVALS) {
            return Err(ConfigError::new(format!(
                "--interval {step:?} cuts the {window:?} measured window into {n} intervals, more \
                 than {MAX_INTERVALS}: give a longer interval"
            )));
        }
        Ok(())
    }
}

/// A configuration that cannot run, as one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(String);

impl ConfigError {
    /// A new error with this message.
    pub fn new(msg: impl Into<String>) -> ConfigError {
        ConfigError(msg.into())
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Parses `500ms`, `10s`, `2m`, `1h`, `1.5s`, `250us` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid duration {s:?}: expected e.g. 10s, 500ms, 2m"))?;
    let scale = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "m" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "invalid duration unit in {s:?}: use us, ms, s, m or h"
            ));
        }
    };
    Duration::try_from_secs_f64(n * scale).map_err(|_| format!("invalid duration {s:?}"))
}

/// Parses `DURATION:CONNECTIONS[,DURATION:CONNECTIONS…]`, e.g. `1m:100,2m:500,1m:0`.
pub fn parse_stages(s: &str) -> Result<Vec<Stage>, String> {
    s.split(',')
        .map(|step| {
            let (d, c) = step
                .split_once(':')
                .ok_or_else(|| format!("invalid stage {step:?}: expected DURATION:CONNECTIONS"))?;
            Ok(Stage {
                duration: parse_duration(d)?,
                connections: c
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid connections in stage {step:?}"))?,
            })
        })
        .collect()
}

mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("http://127.0.0.1:8080/api?x=1").unwrap();
        assert_eq!(
            (t.host.as_str(), t.path.as_str()),
            ("127.0.0.1:8080", "/api?x=1")
        );
        assert_eq!(t.addr.port(), 8080);
        let t = Target::parse("http://127.0.0.1").unwrap();
        assert_eq!((t.path.as_str(), t.addr.port()), ("/", 80));
        let t = Target::parse("http://[::1]:9/").unwrap();
        assert_eq!(t.addr.port(), 9);
        assert!(Target::parse("https://127.0.0.1/").is_err());
        assert!(Target::parse("http:///x").is_err());
        assert!(Target::parse("http://127.0.0.1/a b").is_err());
    }

    #[test]
    fn durations_and_stages() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5x").is_err());
        let s = parse_stages("1s:10,2s:0").unwrap();
        assert_eq!(
            s[1],
            Stage {
                duration: Duration::from_secs(2),
                connections: 0
            }
        );
        assert!(parse_stages("1s").is_err());
    }

    #[test]
    fn validation() {
        let ok = Config::new("http://127.0.0.1:1/").unwrap();
        assert!(ok.validate().is_ok());
        let bad = |f: &dyn Fn(&mut Config)| {
            let mut c = ok.clone();
            f(&mut c);
            c.validate().unwrap_err()
        };
        bad(&|c| {
            c.mode = Mode::Close;
            c.pipeline = 2;
        });
        bad(&|c| c.threads = 11);
        bad(&|c| (c.requests, c.duration) = (None, None));
        bad(&|c| c.load = Load::Open { rate: 0.0 });
        bad(&|c| c.headers.push(("a b".into(), "x".into())));
        bad(&|c| c.interval = Some(Duration::ZERO));
        bad(&|c| c.interval = Some(Duration::from_secs(11)));
        bad(&|c| c.interval = Some(Duration::from_micros(999)));
        bad(&|c| {
            (c.requests, c.duration) = (Some(10), None);
            c.interval = Some(Duration::from_secs(1));
        });
        let mut c = ok.clone();
        c.interval = Some(Duration::from_millis(1));
        assert!(c.validate().is_ok(), "10,000 intervals of 1 ms");
        c.interval = Some(Duration::from_secs(10));
        assert!(c.validate().is_ok(), "one interval, the whole run");
        bad(&|c| {
            c.load = Load::Stages {
                stages: vec![Stage {
                    duration: Duration::from_secs(1),
                    connections: 5,
                }],
            }
        });
    }
}
