//! The configuration every server binary shares: `--addr`, `--workers`, `ADDR`, `PORT`,
//! `AUTH_TOKEN`, and how a bad command line is reported (one line on stderr, exit 2).
//!
//! Precedence for the listen address: `--addr HOST:PORT`, else env `ADDR`, else env
//! `PORT` on 127.0.0.1, else `127.0.0.1:8080`. Never 0.0.0.0 unless asked.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;

/// The address used when neither `--addr`, `ADDR` nor `PORT` is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The command-line flags every server accepts; binaries `#[command(flatten)]` it.
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerArgs {
    /// Listen address, HOST:PORT (port 0 picks a free port). Default: env ADDR, else env
    /// PORT on 127.0.0.1, else 127.0.0.1:8080.
    #[arg(long, value_name = "HOST:PORT")]
    pub addr: Option<String>,
    /// Worker threads (processes for the SO_REUSEPORT variant), each with its own listener.
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
}

/// A server's resolved configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// How many workers.
    pub workers: usize,
    /// The Bearer token of `/api/private`.
    pub auth_token: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            workers: 1,
            auth_token: contract::body::DEFAULT_AUTH_TOKEN.to_string(),
        }
    }
}

/// Why a configuration could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// An address that does not parse or resolve (with where it came from).
    BadAddr {
        /// `--addr` or `ADDR`.
        source: &'static str,
        /// The value given.
        value: String,
    },
    /// A `PORT` that is not a number from 0 to 65535.
    BadPort(String),
    /// `--workers 0`.
    ZeroWorkers,
    /// `AUTH_TOKEN` set but empty.
    EmptyToken,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::BadAddr { source, value } => {
                write!(
                    f,
                    "invalid {source} {value:?}: expected HOST:PORT, e.g. 127.0.0.1:8080"
                )
            }
            ConfigError::BadPort(v) => write!(f, "invalid PORT {v:?}: expected 0-65535"),
            ConfigError::ZeroWorkers => write!(f, "invalid --workers 0: at least 1 is needed"),
            ConfigError::EmptyToken => write!(f, "AUTH_TOKEN is set but empty"),
        }
    }
}

impl std::error::Error for ConfigError {}

fn resolve_addr(source: &'static str, value: &str) -> Result<SocketAddr, ConfigError> {
    let bad = || ConfigError::BadAddr {
        source,
        value: value.to_string(),
    };
    if let Ok(a) = value.parse::<SocketAddr>() {
        return Ok(a);
    }
    // Host names (`localhost:8080`) resolve through the system; the first answer is used.
    value
        .to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)
}

impl ServerArgs {
    /// Resolves the flags against the process environment.
    pub fn resolve(&self, default_workers: usize) -> Result<Config, ConfigError> {
        self.resolve_with(|k| std::env::var(k).ok(), default_workers)
    }

    /// Resolves the flags against `env` (a lookup of environment variables).
    pub fn resolve_with(
        &self,
        env: impl Fn(&str) -> Option<String>,
        default_workers: usize,
    ) -> Result<Config, ConfigError> {
        let addr = if let Some(a) = &self.addr {
            resolve_addr("--addr", a)?
        } else if let Some(a) = env("ADDR").filter(|a| !a.is_empty()) {
            resolve_addr("ADDR", &a)?
        } else if let Some(p) = env("PORT").filter(|p| !p.is_empty()) {
            let port: u16 = p
                .trim()
                .parse()
                .map_err(|_| ConfigError::BadPort(p.clone()))?;
            SocketAddr::from(([127, 0, 0, 1], port))
        } else {
            resolve_addr("default", DEFAULT_ADDR)?
        };
        let workers = self.workers.unwrap_or(default_workers);
        if workers == 0 {
            return Err(ConfigError::ZeroWorkers);
        }
        let auth_token = match env("AUTH_TOKEN") {
            Some(t) if t.is_empty() => return Err(ConfigError::EmptyToken),
            Some(t) => t,
            None => contract::body::DEFAULT_AUTH_TOKEN.to_string(),
        };
        Ok(Config {
            addr,
            workers,
            auth_token,
        })
    }
}

/// The number of CPUs this process may run on (at least 1).
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses the command line into `P`. `--help` and `--version` print and yield
/// `Err(ExitCode::SUCCESS)`; any other error prints one line on stderr and yields exit 2.
pub fn parse_args<P: clap::Parser>() -> Result<P, ExitCode> {
    parse_args_from(std::env::args_os())
}

/// [`parse_args`] over an explicit argument list (the first item is the program name).
pub fn parse_args_from<P, I, T>(args: I) -> Result<P, ExitCode>
where
    P: clap::Parser,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::error::ErrorKind;
    P::try_parse_from(args).map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            fail(first_line(&e.render().to_string()));
            ExitCode::from(2)
        }
    })
}

fn first_line(text: &str) -> &str {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("bad arguments");
    line.strip_prefix("error: ").unwrap_or(line)
}

/// Prints `msg` as one line on stderr, prefixed by the program's name.
pub fn fail(msg: impl fmt::Display) {
    let name = std::env::args()
        .next()
        .and_then(|p| p.rsplit('/').next().map(str::to_string))
        .unwrap_or_else(|| "server".into());
    let text = msg.to_string();
    eprintln!("{name}: {}", text.replace('\n', " "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        server: ServerArgs,
    }

    fn resolve(args: &[&str], env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let cli = Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        cli.server.resolve_with(
            |k| {
                env.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            },
            1,
        )
    }

    #[test]
    fn precedence() {
        assert_eq!(
            resolve(&[], &[]).unwrap().addr.to_string(),
            "127.0.0.1:8080"
        );
        assert_eq!(
            resolve(&[], &[("PORT", "9000")]).unwrap().addr.to_string(),
            "127.0.0.1:9000"
        );
        assert_eq!(
            resolve(&[], &[("PORT", "9000"), ("ADDR", "0.0.0.0:7000")])
                .unwrap()
                .addr
                .to_string(),
            "0.0.0.0:7000"
        );
        assert_eq!(
            resolve(&["--addr", "[::1]:0"], &[("ADDR", "0.0.0.0:7000")])
                .unwrap()
                .addr
                .to_string(),
            "[::1]:0"
        );
        assert_eq!(
            resolve(&["--addr", "localhost:81"], &[])
                .unwrap()
                .addr
                .port(),
            81
        );
    }

    #[test]
    fn workers_and_token() {
        let c = resolve(&["--workers", "3"], &[("AUTH_TOKEN", "s3cret")]).unwrap();
        assert_eq!((c.workers, c.auth_token.as_str()), (3, "s3cret"));
        assert_eq!(resolve(&[], &[]).unwrap().auth_token, "bench-token");
        assert_eq!(
            resolve(&["--workers", "0"], &[]),
            Err(ConfigError::ZeroWorkers)
        );
        assert_eq!(
            resolve(&[], &[("AUTH_TOKEN", "")]),
            Err(ConfigError::EmptyToken)
        );
    }

    #[test]
    fn bad_values_are_one_line() {
        for (args, env) in [
            (&["--addr", "nonsense"][..], &[][..]),
            (&[], &[("PORT", "99999")]),
            (&[], &[("ADDR", "1.2.3.4")]),
        ] {
            let e = resolve(args, env).unwrap_err().to_string();
            assert!(!e.contains('\n') && !e.is_empty(), "{e}");
        }
    }

    #[test]
    fn bad_flag_exits_2() {
        let r = parse_args_from::<Cli, _, _>(["t", "--bogus"]);
        assert_eq!(r.unwrap_err(), ExitCode::from(2));
        assert_eq!(
            first_line("error: unexpected argument '--x' found\n\nUsage: t\n"),
            "unexpected argument '--x' found"
        );
    }
}
