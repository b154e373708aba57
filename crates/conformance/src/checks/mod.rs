//! The registry of checks and the context they run in.
//!
//! Each group has its module (`core`, `connection`, `bad_input`, `rfc9112`, `scenarios`,
//! `heavy`) holding a `CHECKS` table of [`Check`] entries; [`checks()`] concatenates them once.
//! A check is a plain function of a [`Ctx`] (the target, the options, and helpers that turn
//! wire errors into [`Failure`]s) returning `Ok(())` or the first deviation found.

mod bad_input;
mod connection;
mod core;
mod heavy;
mod rfc9112;
mod scenarios;

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use crate::expect::Judged;
use crate::report::Failure;
use crate::wire::{After, Conn, Response, WireError};
use crate::{Group, Options, Target};

/// When a check is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Finishes in well under a second against a correct server; run on the thread pool.
    Fast,
    /// Waits on purpose (slowloris, idle keep-alive, heavy); runs concurrently with the rest.
    Slow,
    /// Runs after every other check of its group (the final liveness check).
    Last,
}

/// Which address family of the target a check applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Any,
    V4,
    V6,
}

/// One check: a stable name, its group, what it checks, and how it is scheduled.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Stable name, `group.subject.case`.
    pub name: &'static str,
    /// The group it belongs to.
    pub group: Group,
    /// One line saying what the server must do.
    pub about: &'static str,
    /// How it is scheduled.
    pub pace: Pace,
    /// The endpoint paths it requests besides `/hello` (which any check may use: the
    /// liveness check, the request pipelined after a HEAD). A server that does not serve one
    /// of them (`Options::endpoints`) is not judged by the check.
    pub needs: &'static [&'static str],
    family: Family,
    run: fn(&Ctx<'_>) -> Judged,
}

impl Check {
    /// Whether the check applies to a server at `addr` (`core.my-ip.v4` needs an IPv4 target,
    /// `core.my-ip.v6` an IPv6 one; every other check applies to both).
    pub fn applies_to(&self, addr: SocketAddr) -> bool {
        match self.family {
            Family::Any => true,
            Family::V4 => addr.is_ipv4(),
            Family::V6 => addr.is_ipv6(),
        }
    }

    /// Runs the check.
    pub(crate) fn run(&self, ctx: &Ctx<'_>) -> Judged {
        (self.run)(ctx)
    }

    /// The same check, requesting `paths` (see [`Check::needs`](Check#structfield.needs)).
    pub(crate) const fn needs(mut self, paths: &'static [&'static str]) -> Check {
        self.needs = paths;
        self
    }

    /// The first path it needs that a server serving only `served` does not serve (`None`
    /// when `served` is empty, meaning every endpoint).
    pub fn unserved(&self, served: &[String]) -> Option<&'static str> {
        if served.is_empty() {
            return None;
        }
        self.needs
            .iter()
            .copied()
            .find(|p| !served.iter().any(|s| s == p))
    }
}

/// A fast check on any address family.
const fn fast(
    name: &'static str,
    group: Group,
    about: &'static str,
    run: fn(&Ctx<'_>) -> Judged,
) -> Check {
    Check {
        name,
        group,
        about,
        pace: Pace::Fast,
        needs: &[],
        family: Family::Any,
        run,
    }
}

/// Every check, in report order.
pub fn checks() -> &'static [Check] {
    static ALL: OnceLock<Vec<Check>> = OnceLock::new();
    ALL.get_or_init(|| {
        [
            core::CHECKS,
            connection::CHECKS,
            bad_input::CHECKS,
            rfc9112::CHECKS,
            scenarios::CHECKS,
            heavy::CHECKS,
        ]
        .concat()
    })
}

/// What a check runs with.
pub(crate) struct Ctx<'a> {
    pub target: &'a Target,
    pub opts: &'a Options,
}

impl Ctx<'_> {
    pub fn addr(&self) -> SocketAddr {
        self.target.addr
    }

    /// A new connection with the run's timeout.
    pub fn connect(&self) -> Result<Conn, Failure> {
        Conn::connect(self.addr(), self.opts.timeout).map_err(|e| wire_failure("a connection", &e))
    }

    /// An HTTP/1.1 request with `Host` and the `extra` field lines (each without CRLF).
    pub fn req(&self, method: &str, target: &str, extra: &[&str]) -> Vec<u8> {
        let mut out = format!("{method} {target} HTTP/1.1\r\nHost: {}\r\n", self.addr());
        for line in extra {
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("\r\n");
        out.into_bytes()
    }

    /// `GET target` with no extra fields.
    pub fn get(&self, target: &str) -> Vec<u8> {
        self.req("GET", target, &[])
    }

    /// The `Authorization` line that `/api/private` accepts.
    pub fn good_auth(&self) -> String {
        format!("Authorization: Bearer {}", self.target.auth_token)
    }

    /// Every rule of `docs/contract.md` "What every response looks like" for `resp`, allowing
    /// the extra header fields of `Options::extra_headers`.
    pub fn exact(&self, resp: &Response, e: &crate::expect::Expect<'_>) -> Judged {
        crate::expect::exact_allowing(resp, e, &self.opts.extra_headers)
    }

    /// Writes `bytes` on `conn`.
    pub fn send(&self, conn: &mut Conn, bytes: &[u8]) -> Judged {
        conn.send(bytes)
            .map_err(|e| wire_failure("to write the request", &e))
    }

    /// Reads one response on `conn`.
    pub fn read(&self, conn: &mut Conn, head: bool) -> Result<Response, Failure> {
        conn.read_response(head)
            .map_err(|e| wire_failure("a complete response", &e))
    }

    /// A new connection, `bytes` written, one response read.
    pub fn roundtrip(&self, bytes: &[u8], head: bool) -> Result<(Conn, Response), Failure> {
        let mut conn = self.connect()?;
        self.send(&mut conn, bytes)?;
        let resp = self.read(&mut conn, head)?;
        Ok((conn, resp))
    }

    /// After `resp`, the server closes the connection (EOF or reset) with nothing more sent.
    pub fn expect_close(&self, conn: &mut Conn, resp: &Response) -> Judged {
        match conn.after(self.opts.timeout) {
            After::Closed => Ok(()),
            After::Open => Err(Failure::new(
                "the server to close the connection after the response",
                format!("still open {} ms later", self.opts.timeout.as_millis()),
            )
            .raw(&resp.raw)),
            After::Extra(bytes) => Err(Failure::new(
                "the close after the response",
                format!("{} more bytes", bytes.len()),
            )
            .raw(&bytes)),
        }
    }

    /// `resp` keeps the connection open: no `connection` field, or `connection: keep-alive`
    /// where `Options::extra_headers` records the field (Node.js, nginx).
    pub fn keeps_open(&self, resp: &Response) -> Judged {
        let recorded = self.opts.extra_headers.iter().any(|x| x == "connection");
        if recorded && crate::expect::connection(resp, crate::expect::ConnField::KeepAlive).is_ok()
        {
            return Ok(());
        }
        crate::expect::connection(resp, crate::expect::ConnField::Absent)
    }

    /// The server still serves a new connection (`GET /hello` answered 200).
    pub fn alive(&self) -> Judged {
        let (_, resp) = self
            .roundtrip(&self.get("/hello"), false)
            .map_err(|f| f.at("liveness (GET /hello on a new connection)"))?;
        crate::expect::status(&resp, 200, false).map_err(|f| f.at("liveness"))
    }
}

/// A wire error as a failure of `expected`.
pub(crate) fn wire_failure(expected: &str, e: &WireError) -> Failure {
    Failure::new(expected, e.to_string()).raw(e.received())
}

/// Sleeps briefly between the parts of a deliberately split request, so that they leave as
/// separate segments and arrive in separate reads.
pub(crate) fn gap() {
    std::thread::sleep(Duration::from_millis(15));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_needed_path_is_an_endpoint_and_every_endpoint_check_names_its_path() {
        for c in checks() {
            for p in c.needs {
                assert!(manifest::ENDPOINTS.contains(p), "{}: {p}", c.name);
            }
            let subject = c.name.split('.').nth(1).unwrap_or("");
            let want = match (c.group, subject) {
                (Group::Core, "hello") => Some("/api/hello"),
                (Group::Core, "root") => Some("/"),
                (Group::Core, "echo") => Some("/api"),
                (Group::Core, "private") => Some("/api/private"),
                (Group::Core, "my-ip") => Some("/my/ip"),
                (Group::Scenarios, s) => Some(match s {
                    "async" => "/api/async",
                    "sync" => "/api/sync",
                    "sync-offload" => "/api/sync-offload",
                    "nexttick" => "/api/nexttick",
                    _ => "/api/timer",
                }),
                _ => None,
            };
            if let Some(want) = want {
                assert_eq!(c.needs, [want], "{}", c.name);
            }
        }
        let served = ["/hello".to_owned(), "/api".to_owned()];
        let private = checks().iter().find(|c| c.name == "core.private.get");
        assert_eq!(
            private.and_then(|c| c.unserved(&served)),
            Some("/api/private")
        );
        assert_eq!(private.and_then(|c| c.unserved(&[])), None);
    }
}
