//! The manifest of every server: `servers.toml` at the workspace root.
//!
//! Every tool that starts, checks or measures servers (the server crates' conformance
//! tests, the bench harness) reads this one file through [`Manifest`], so a server's name,
//! how it starts, what it is the analogue of and which contract rules it is excused from
//! are written once. Layout: [`Manifest`] holds a list of [`Server`] entries; each has
//! either a cargo `package` (Rust variants) or a `command` (peers), plus documented
//! [`Exception`]s (one reason and the checks it excuses, by name or pattern, or another
//! server's rules taken whole with `exceptions_from`) and [`ExtraHeader`]s.
//!
//! [`Manifest::load_files`] reads the workspace's file and a user's own file of entries as one
//! manifest (`bench --servers-file`). The manifest does not know the conformance checks: the
//! conformance crate expands each server's exceptions against them ([`Server::excused`]) and
//! checks every pattern at load time ([`Manifest::check_exceptions`]).
//!
//! A peer (one of the experiments' own systems: Node, Python, Go, nginx, the C ceiling) is
//! started from the workspace root with [`Server::argv`]; [`Server::missing`] says what is not
//! installed yet (empty: runnable), so tools skip a peer with that reason instead of failing.
//! [`require`] is what a test that needs an installed tool does when it is missing (skip with a
//! visible line, or fail under `BENCH_REQUIRE_TOOLS=1`), for every test crate.
#![deny(missing_docs)]

pub mod require;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The conformance groups a server may list.
pub const GROUPS: [&str; 6] = [
    "core",
    "connection",
    "bad-input",
    "rfc9112",
    "scenarios",
    "heavy",
];

/// The experiments of `docs/experiments.md`.
pub const EXPERIMENTS: [&str; 7] = ["E1", "E2", "E3", "E4", "E5", "E6", "E7"];

/// The endpoint paths of `docs/contract.md` a server may list in `endpoints`: the contract's own
/// endpoints, then the event-loop scenarios, in [`contract::Endpoint::ALL`]'s order and
/// derived from it, so the two lists cannot drift apart.
pub const ENDPOINTS: [&str; contract::Endpoint::ALL.len()] = {
    let mut paths = [""; contract::Endpoint::ALL.len()];
    let mut i = 0;
    while i < paths.len() {
        paths[i] = contract::Endpoint::ALL[i].path();
        i += 1;
    }
    paths
};

/// The placeholders a peer's `command` may use (see [`Server::argv`]).
pub const PLACEHOLDERS: [&str; 5] = ["{addr}", "{host}", "{port}", "{root}", "{cpus}"];

/// The whole manifest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Every server, in the order the file lists them.
    #[serde(rename = "server", default)]
    pub servers: Vec<Server>,
}

/// One server: a Rust variant (with `package`) or a peer (with `command`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// The name tools use for it (unique).
    pub name: String,
    /// The cargo package of a Rust variant; its binary has the same name.
    pub package: Option<String>,
    /// The command that starts a peer, run from the workspace root; [`Server::argv`] fills in
    /// its placeholders ([`PLACEHOLDERS`]: `{addr}` is HOST:PORT).
    pub command: Option<Vec<String>>,
    /// The runtime a peer needs (`node`, `python3`, `go`, `nginx`, …); required for a peer.
    pub runtime: Option<String>,
    /// Its usual port, when it has one (the port its community's examples use).
    pub port: Option<u16>,
    /// What a peer needs before it can start: a program on `PATH` (a name without `/`) or a
    /// path relative to the workspace root that must exist (`peers/node/node_modules/express`).
    /// The command's program is needed as well without being listed. See [`Server::missing`].
    #[serde(default)]
    pub requires: Vec<String>,
    /// How it is written, in a few words.
    pub style: String,
    /// For a Rust variant, the systems of the experiments it stands for (`node:http`,
    /// `Express 5`); for a peer, the names of the Rust variants in this manifest that stand for
    /// it (`server-hyper`), so either side finds the other.
    #[serde(default)]
    pub analogue: Vec<String>,
    /// The endpoint paths it serves ([`ENDPOINTS`]); empty means every endpoint of the
    /// contract, and the scenario endpoints when it lists `scenarios`. Checks of an endpoint it
    /// does not serve are not run against it.
    #[serde(default)]
    pub endpoints: Vec<String>,
    /// The experiments it takes part in.
    #[serde(default)]
    pub experiments: Vec<String>,
    /// The conformance groups it is judged by.
    pub groups: Vec<String>,
    /// Whether it serves the event-loop scenarios.
    #[serde(default)]
    pub scenarios: bool,
    /// Its default `--workers`, when that is not 1 (`0` means the number of CPUs).
    pub default_workers: Option<usize>,
    /// Another server of the manifest whose exceptions it shares (`exceptions_from =
    /// "node-http"`: the same library, the same deviations). Only the exceptions are taken, not
    /// the extra header fields; the server named may not itself take them from a third.
    pub exceptions_from: Option<String>,
    /// The exceptions its own entry writes: conformance checks it is excused from, one reason
    /// each with the checks it covers. See [`Server::excused`] for the checks they expand to.
    #[serde(default, rename = "exception")]
    pub exceptions: Vec<Exception>,
    /// The exceptions of the server `exceptions_from` names, filled in when the manifest is
    /// loaded; an own exception that covers the same check comes first.
    #[serde(skip)]
    pub inherited: Vec<Exception>,
    /// Header fields a library adds that the variant cannot stop.
    #[serde(default, rename = "extra_header")]
    pub extra_headers: Vec<ExtraHeader>,
    /// The file whose entry this is (set when the manifest is loaded; errors name it).
    #[serde(skip)]
    pub file: PathBuf,
}

/// One reason a server is excused from conformance checks, and the checks it excuses.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    /// The checks: a name as the conformance crate gives it (`core.hello.get`), or a pattern in
    /// which `*` stands for any run of characters (`core.not-found.*`, `bad.version-*`). Each
    /// must match at least one check.
    pub checks: Vec<String>,
    /// Why, exactly: what the library does, and where.
    pub reason: String,
}

/// A header field a library adds and cannot be stopped from adding.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExtraHeader {
    /// The field name, lowercase.
    pub field: String,
    /// Bytes the field adds to each response, CRLF included.
    pub bytes: usize,
}

/// Why the manifest could not be used. Each names the file, and is one line.
#[derive(Debug)]
pub enum ManifestError {
    /// The file could not be read.
    Read(PathBuf, std::io::Error),
    /// The file is not valid TOML of the expected shape (an unknown field, a missing one, a
    /// value of the wrong type); the line, when the parser gives one.
    Parse(PathBuf, Option<usize>, Box<toml::de::Error>),
    /// The file parsed but breaks a rule (duplicate name, unknown group, …): the file of the
    /// entry at fault, and what is wrong, naming the field.
    Invalid(PathBuf, String),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Read(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            ManifestError::Parse(p, line, e) => {
                let msg = e.message().trim_end().replace('\n', " ");
                match line {
                    Some(n) => write!(f, "{}, line {n}: {msg}", p.display()),
                    None => write!(f, "{}: {msg}", p.display()),
                }
            }
            ManifestError::Invalid(p, m) => write!(f, "{}: {m}", p.display()),
        }
    }
}

impl std::error::Error for ManifestError {}

/// The workspace root (the folder holding `servers.toml`), from this crate's location.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The path of the workspace's `servers.toml`.
pub fn default_path() -> PathBuf {
    workspace_root().join("servers.toml")
}

impl Manifest {
    /// Reads and validates the workspace's `servers.toml`.
    pub fn load_default() -> Result<Manifest, ManifestError> {
        Manifest::load(&default_path())
    }

    /// Reads and validates the manifest at `path`.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        Manifest::load_files(&[path])
    }

    /// Reads `paths` in order as one manifest (the workspace's `servers.toml`, then a user's
    /// own file of `[[server]]` entries) and validates it whole: names are unique across the
    /// files, and an entry may name another file's server as its `analogue` or
    /// `exceptions_from`.
    pub fn load_files(paths: &[&Path]) -> Result<Manifest, ManifestError> {
        let mut texts = Vec::new();
        for path in paths {
            let text =
                std::fs::read_to_string(path).map_err(|e| ManifestError::Read(path.into(), e))?;
            texts.push((path.to_path_buf(), text));
        }
        Manifest::parse_files(&texts)
    }

    /// Parses and validates manifest text (errors name it `servers.toml`).
    pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse_files(&[(PathBuf::from("servers.toml"), text.to_owned())])
    }

    /// Parses each `(file, text)` and validates them as one manifest.
    fn parse_files(texts: &[(PathBuf, String)]) -> Result<Manifest, ManifestError> {
        let mut all = Manifest {
            servers: Vec::new(),
        };
        for (path, text) in texts {
            let mut m: Manifest = toml::from_str(text).map_err(|e| {
                let line = e.span().map(|span| {
                    text.as_bytes()[..span.start.min(text.len())]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                        + 1
                });
                ManifestError::Parse(path.clone(), line, Box::new(e))
            })?;
            for s in &mut m.servers {
                s.file.clone_from(path);
            }
            all.servers.append(&mut m.servers);
        }
        all.validate()?;
        all.resolve_exceptions_from();
        Ok(all)
    }

    /// Checks the rules a parse cannot: unique names, exactly one of `package`/`command`,
    /// a peer's `runtime` and placeholders, known groups, experiments and endpoints, a peer's
    /// analogues naming Rust variants, scenarios listed consistently, and exceptions that each
    /// have a reason and checks, and an `exceptions_from` naming a server that writes its own.
    pub fn validate(&self) -> Result<(), ManifestError> {
        let mut names = BTreeSet::new();
        for s in &self.servers {
            let fail = |m: String| ManifestError::Invalid(s.file.clone(), m);
            if !names.insert(s.name.as_str()) {
                return Err(fail(format!("server {:?} is listed twice", s.name)));
            }
            self.validate_one(s).map_err(fail)?;
        }
        Ok(())
    }

    /// The rules for one entry (see [`Manifest::validate`]), the error naming the field.
    fn validate_one(&self, s: &Server) -> Result<(), String> {
        if s.name.trim().is_empty() {
            return Err("a server has an empty `name`".to_owned());
        }
        match (&s.package, &s.command) {
            (Some(_), None) => {
                if s.runtime.is_some() || !s.requires.is_empty() {
                    return Err(format!(
                        "server {:?}: `runtime` and `requires` are for peers (with `command`), not Rust variants",
                        s.name
                    ));
                }
            }
            (None, Some(c)) if !c.is_empty() => validate_peer(s, c, self)?,
            (None, Some(_)) => return Err(format!("server {:?}: `command` is empty", s.name)),
            (Some(_), Some(_)) => {
                return Err(format!(
                    "server {:?} has both `package` and `command`: a Rust variant of this workspace names its cargo `package`, any other server the `command` that starts it",
                    s.name
                ));
            }
            (None, None) => {
                return Err(format!(
                    "server {:?} has no `command` (the program and arguments that start it, with {{addr}} where the address goes; or, for a Rust variant of this workspace, its cargo `package`)",
                    s.name
                ));
            }
        }
        if let Some(e) = s
            .endpoints
            .iter()
            .find(|e| !ENDPOINTS.contains(&e.as_str()))
        {
            return Err(format!(
                "server {:?}: `endpoints` lists unknown endpoint {e:?} (known: {})",
                s.name,
                ENDPOINTS.join(", ")
            ));
        }
        if let Some(g) = s.groups.iter().find(|g| !GROUPS.contains(&g.as_str())) {
            return Err(format!(
                "server {:?}: `groups` lists unknown group {g:?} (known: {})",
                s.name,
                GROUPS.join(", ")
            ));
        }
        if let Some(e) = s
            .experiments
            .iter()
            .find(|e| !EXPERIMENTS.contains(&e.as_str()))
        {
            return Err(format!(
                "server {:?}: `experiments` lists unknown experiment {e:?} (known: {})",
                s.name,
                EXPERIMENTS.join(", ")
            ));
        }
        if s.scenarios != s.groups.iter().any(|g| g == "scenarios") {
            return Err(format!(
                "server {:?}: `scenarios = {}` disagrees with its groups",
                s.name, s.scenarios
            ));
        }
        for e in &s.exceptions {
            let first = e.checks.first().map_or("", String::as_str);
            if e.reason.trim().is_empty() {
                return Err(format!(
                    "server {:?}: the exception of {first:?} has no `reason`",
                    s.name
                ));
            }
            if e.checks.is_empty() {
                return Err(format!(
                    "server {:?}: an exception has an empty `checks` list (reason {:?})",
                    s.name, e.reason
                ));
            }
            if let Some(bad) = e.checks.iter().find(|c| !is_check_pattern(c)) {
                return Err(format!(
                    "server {:?}: exception `checks` entry {bad:?} is not a check name or pattern (lowercase letters, digits, `.`, `-`, and `*` for any run of characters)",
                    s.name
                ));
            }
        }
        if let Some(from) = &s.exceptions_from {
            match self.get(from) {
                None => {
                    return Err(format!(
                        "server {:?}: `exceptions_from` names {from:?}, which is not a server of the manifest",
                        s.name
                    ));
                }
                Some(other) if other.name == s.name => {
                    return Err(format!(
                        "server {:?}: `exceptions_from` names the server itself",
                        s.name
                    ));
                }
                Some(other) if other.exceptions_from.is_some() => {
                    return Err(format!(
                        "server {:?}: `exceptions_from` names {from:?}, which takes its own from {:?}: name that one",
                        s.name,
                        other.exceptions_from.as_deref().unwrap_or_default()
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Copies each `exceptions_from` server's own exceptions into `inherited`.
    fn resolve_exceptions_from(&mut self) {
        let taken: Vec<Vec<Exception>> = self
            .servers
            .iter()
            .map(|s| {
                s.exceptions_from
                    .as_deref()
                    .and_then(|from| self.get(from))
                    .map(|other| other.exceptions.clone())
                    .unwrap_or_default()
            })
            .collect();
        for (s, inherited) in self.servers.iter_mut().zip(taken) {
            s.inherited = inherited;
        }
    }

    /// Expands every server's exceptions against `known`, the names of every conformance
    /// check (see [`Server::excused`]): an error names the server, its file and the pattern
    /// that matches no check, or the check two of its exceptions excuse.
    pub fn check_exceptions(&self, known: &[&str]) -> Result<(), ManifestError> {
        for s in &self.servers {
            s.excused(known)
                .map_err(|e| ManifestError::Invalid(s.file.clone(), e))?;
        }
        Ok(())
    }

    /// The server called `name`.
    pub fn get(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The entry of the Rust variant built from cargo package `package`.
    pub fn by_package(&self, package: &str) -> Option<&Server> {
        self.servers
            .iter()
            .find(|s| s.package.as_deref() == Some(package))
    }
}

/// Whether `c` can be a check name or pattern: lowercase letters, digits, `.`, `-`, `*`.
fn is_check_pattern(c: &str) -> bool {
    !c.is_empty()
        && c.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"*.-".contains(&b))
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters (none
/// included) and every other character for itself.
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    // The classic greedy match with one backtrack point: the last `*` seen.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&b| b == b'*')
}

/// The rules for a peer's entry: a runtime, known placeholders, an address placeholder, and
/// analogues that are Rust variants of `manifest`.
fn validate_peer(s: &Server, command: &[String], manifest: &Manifest) -> Result<(), String> {
    if s.runtime.as_deref().is_none_or(|r| r.trim().is_empty()) {
        return Err(format!(
            "server {:?} needs a `runtime` beside its `command` (node, python3, go, …: what `bench list` shows)",
            s.name
        ));
    }
    for arg in command {
        let mut rest = arg.as_str();
        while let Some(open) = rest.find('{') {
            let Some(len) = rest[open..].find('}') else {
                return Err(format!(
                    "server {:?}: unclosed `{{` in `command` argument {arg:?}",
                    s.name
                ));
            };
            let placeholder = &rest[open..=open + len];
            if !PLACEHOLDERS.contains(&placeholder) {
                return Err(format!(
                    "server {:?}: unknown placeholder {placeholder} in its `command` (known: {})",
                    s.name,
                    PLACEHOLDERS.join(", ")
                ));
            }
            rest = &rest[open + len + 1..];
        }
    }
    if !command
        .iter()
        .any(|a| a.contains("{addr}") || a.contains("{port}"))
    {
        return Err(format!(
            "server {:?}: its `command` takes no address: put {{addr}} (HOST:PORT) or {{port}} where it goes",
            s.name
        ));
    }
    if let Some(a) = s
        .analogue
        .iter()
        .find(|a| manifest.get(a).is_none_or(|other| other.package.is_none()))
    {
        let variants: Vec<&str> = manifest
            .servers
            .iter()
            .filter(|v| v.package.is_some())
            .map(|v| v.name.as_str())
            .collect();
        return Err(format!(
            "server {:?}: `analogue` {a:?} is not a Rust variant of the manifest (one of: {})",
            s.name,
            variants.join(", ")
        ));
    }
    Ok(())
}

impl Server {
    /// Whether it is a peer (started by `command`), not a Rust variant (a cargo `package`).
    pub fn is_peer(&self) -> bool {
        self.command.is_some()
    }

    /// Whether it serves `path` (one of [`ENDPOINTS`]): listed in `endpoints`, or, when that is
    /// empty, a contract endpoint, or a scenario endpoint of a server that lists `scenarios`.
    pub fn serves(&self, path: &str) -> bool {
        if !self.endpoints.is_empty() {
            return self.endpoints.iter().any(|e| e == path);
        }
        match ENDPOINTS.iter().position(|e| *e == path) {
            Some(i) if i < 6 => true,
            Some(_) => self.scenarios,
            None => false,
        }
    }

    /// What it still needs before it can start, one line each (`node: not on PATH`,
    /// `peers/node/node_modules/express: does not exist`): its command's program and every
    /// entry of `requires`, paths taken relative to the workspace `root`. Empty: runnable.
    /// Always empty for a Rust variant (cargo builds it).
    pub fn missing(&self, root: &Path) -> Vec<String> {
        let Some(command) = &self.command else {
            return Vec::new();
        };
        let mut needs: Vec<&str> = Vec::new();
        for n in command.first().into_iter().chain(&self.requires) {
            if !needs.contains(&n.as_str()) {
                needs.push(n);
            }
        }
        needs
            .into_iter()
            .filter_map(|n| {
                if n.contains('/') {
                    let path = root.join(n);
                    (!path.exists()).then(|| format!("{n}: does not exist"))
                } else {
                    on_path(n).is_none().then(|| format!("{n}: not on PATH"))
                }
            })
            .collect()
    }

    /// The command line that starts a peer on `addr` (HOST:PORT, port 0 allowed), to run with
    /// the workspace `root` as its working directory; `None` for a Rust variant. Placeholders:
    /// `{addr}` is `addr` as given, `{host}` its host (without IPv6 brackets), `{port}` its
    /// port, `{root}` the workspace root, `{cpus}` the CPUs this process may use.
    pub fn argv(&self, root: &Path, addr: &str) -> Option<Vec<String>> {
        let command = self.command.as_ref()?;
        let (host, port) = addr.rsplit_once(':').unwrap_or((addr, ""));
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let cpus = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .to_string();
        let root = root.display().to_string();
        Some(
            command
                .iter()
                .map(|a| {
                    a.replace("{addr}", addr)
                        .replace("{host}", host)
                        .replace("{port}", port)
                        .replace("{root}", &root)
                        .replace("{cpus}", &cpus)
                })
                .collect(),
        )
    }

    /// Whether it is judged by conformance group `group`.
    pub fn has_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// Every check it is excused from and the reason, in the order of `known` (the names of
    /// every conformance check, `conformance::checks()`): each check its own exceptions cover,
    /// then each that the exceptions of `exceptions_from` cover and its own do not.
    ///
    /// An error (one line naming the field): a name or pattern that matches no check of
    /// `known`, or a check that two of its own exceptions cover (say it once, with one reason).
    pub fn excused(&self, known: &[&str]) -> Result<Vec<(String, String)>, String> {
        let mut reasons: Vec<Option<&Exception>> = vec![None; known.len()];
        for (rules, own) in [(&self.exceptions, true), (&self.inherited, false)] {
            let mut this: Vec<Option<&Exception>> = vec![None; known.len()];
            for e in rules {
                for pattern in &e.checks {
                    let mut hit = false;
                    for (i, name) in known.iter().enumerate() {
                        if !matches(pattern, name) {
                            continue;
                        }
                        hit = true;
                        match this[i] {
                            Some(other) if !std::ptr::eq(other, e) && own => {
                                return Err(format!(
                                    "server {:?}: check {name:?} is in the `checks` of two exceptions ({:?} and {:?}): give it one",
                                    self.name,
                                    short(&other.reason),
                                    short(&e.reason)
                                ));
                            }
                            _ => this[i] = Some(e),
                        }
                    }
                    if !hit {
                        let whose = if own {
                            String::new()
                        } else {
                            format!(
                                " (taken from {:?})",
                                self.exceptions_from.as_deref().unwrap_or_default()
                            )
                        };
                        return Err(format!(
                            "server {:?}: exception `checks` entry {pattern:?}{whose} matches no conformance check",
                            self.name
                        ));
                    }
                }
            }
            for (slot, e) in reasons.iter_mut().zip(this) {
                if slot.is_none() {
                    *slot = e;
                }
            }
        }
        Ok(known
            .iter()
            .zip(reasons)
            .filter_map(|(name, e)| e.map(|e| ((*name).to_owned(), e.reason.clone())))
            .collect())
    }
}

/// The first words of a reason, to name an exception in an error line.
fn short(reason: &str) -> String {
    let mut words: Vec<&str> = reason.split_whitespace().take(6).collect();
    if reason.split_whitespace().count() > 6 {
        words.push("…");
    }
    words.join(" ")
}

/// The first `name` in a folder of `PATH` that is an executable file.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_the_contracts_paths_scenarios_last() {
        assert_eq!(ENDPOINTS.len(), contract::Endpoint::ALL.len());
        for (path, e) in ENDPOINTS.iter().zip(contract::Endpoint::ALL) {
            assert_eq!(
                contract::Endpoint::from_path(path.as_bytes(), true),
                Some(e)
            );
        }
        let first_scenario = ENDPOINTS.iter().position(|p| p.starts_with("/api/async"));
        assert_eq!(first_scenario, Some(6), "{ENDPOINTS:?}");
    }

    const OK: &str = r#"
        [[server]]
        name = "a"
        package = "server-a"
        style = "x"
        groups = ["core", "scenarios"]
        scenarios = true
        [[server.exception]]
        checks = ["core.hello.get"]
        reason = "adds a field"
    "#;

    const PEER: &str = r#"
        [[server]]
        name = "p"
        command = ["sh", "-c", "x", "--addr={addr}", "--host={host}", "--port={port}", "{root}/x", "-n{cpus}"]
        runtime = "sh"
        port = 3000
        requires = ["sh", "crates/manifest/Cargo.toml", "no-such-program-here", "no/such/path"]
        style = "y"
        analogue = ["a"]
        endpoints = ["/hello", "/api/async"]
        groups = ["core"]
    "#;

    #[test]
    fn a_peer_has_its_command_line_and_knows_what_it_misses() {
        let m = Manifest::parse(&format!("{OK}{PEER}")).unwrap();
        let (a, p) = (m.get("a").unwrap(), m.get("p").unwrap());
        assert!(p.is_peer() && !a.is_peer());
        assert_eq!(p.port, Some(3000));
        let root = Path::new("/w");
        assert_eq!(a.argv(root, "127.0.0.1:0"), None);
        let cpus = std::thread::available_parallelism().unwrap().to_string();
        assert_eq!(
            p.argv(root, "[::1]:8080").unwrap()[3..],
            [
                "--addr=[::1]:8080".to_owned(),
                "--host=::1".to_owned(),
                "--port=8080".to_owned(),
                "/w/x".to_owned(),
                format!("-n{cpus}"),
            ]
        );
        let here = workspace_root();
        assert_eq!(
            p.missing(&here),
            [
                "no-such-program-here: not on PATH",
                "no/such/path: does not exist"
            ]
        );
        assert!(a.missing(&here).is_empty());
        assert!(p.serves("/hello") && p.serves("/api/async") && !p.serves("/"));
        assert!(a.serves("/") && a.serves("/api/timer") && !a.serves("/nope"));
    }

    #[test]
    fn parses_and_validates() {
        let m = Manifest::parse(OK).unwrap();
        assert_eq!(m.servers[0].exceptions[0].checks, ["core.hello.get"]);
        assert_eq!(m.servers[0].file, Path::new("servers.toml"));
        assert!(m.get("a").unwrap().has_group("core"));
        assert_eq!(m.by_package("server-a").unwrap().name, "a");
    }

    /// [`PEER`] named `name`, with `extra` lines after its name.
    fn peer(name: &str, extra: &str) -> String {
        PEER.replace("name = \"p\"", &format!("name = \"{name}\"\n{extra}"))
    }

    /// The checks `excused` is matched against in these tests.
    const KNOWN: [&str; 7] = [
        "core.hello.get",
        "core.hello.head",
        "core.root.get",
        "bad.version-1.2",
        "bad.version-2.0",
        "rfc9112.te.http10",
        "rfc9112.te.chunked-not-final",
    ];

    #[test]
    fn patterns_match_any_run_of_characters() {
        for (pattern, name, want) in [
            ("core.hello.get", "core.hello.get", true),
            ("core.hello.get", "core.hello.gets", false),
            ("core.*", "core.hello.get", true),
            ("core.*.get", "core.hello.get", true),
            ("core.*.get", "core.hello.head", false),
            ("*", "anything", true),
            ("bad.version-*", "bad.version-1.2", true),
            ("bad.version-*", "bad.version", false),
            ("*-*", "a-b", true),
            ("a*b*c", "abbbc", true),
            ("a*b*c", "acb", false),
        ] {
            assert_eq!(matches(pattern, name), want, "{pattern} {name}");
        }
    }

    #[test]
    fn an_exception_excuses_every_check_its_patterns_match_and_names_its_reason() {
        let m = Manifest::parse(&format!(
            "{OK}{}",
            peer("p", "")
                + "[[server.exception]]\nchecks = [\"core.hello.*\", \"core.hello.get\", \"bad.version-*\"]\nreason = \"one\"\n"
                + "[[server.exception]]\nchecks = [\"rfc9112.te.http10\"]\nreason = \"two\"\n"
        ))
        .unwrap();
        let excused = m.get("p").unwrap().excused(&KNOWN).unwrap();
        let want: Vec<(String, String)> = [
            ("core.hello.get", "one"),
            ("core.hello.head", "one"),
            ("bad.version-1.2", "one"),
            ("bad.version-2.0", "one"),
            ("rfc9112.te.http10", "two"),
        ]
        .map(|(c, r)| (c.to_owned(), r.to_owned()))
        .to_vec();
        assert_eq!(excused, want);
        assert_eq!(
            m.get("a").unwrap().excused(&KNOWN).unwrap(),
            [("core.hello.get".to_owned(), "adds a field".to_owned())]
        );
        assert!(m.check_exceptions(&KNOWN).is_ok());
    }

    #[test]
    fn exceptions_from_takes_the_other_servers_and_its_own_come_first() {
        let m = Manifest::parse(&format!(
            "{OK}{}{}",
            peer("p", "")
                + "[[server.exception]]\nchecks = [\"rfc9112.te.*\"]\nreason = \"p's\"\n",
            peer("q", "exceptions_from = \"p\"")
                + "[[server.exception]]\nchecks = [\"rfc9112.te.http10\", \"core.root.get\"]\nreason = \"q's\"\n"
        ))
        .unwrap();
        let q = m.get("q").unwrap();
        assert_eq!(q.inherited, m.get("p").unwrap().exceptions);
        assert_eq!(
            q.excused(&KNOWN).unwrap(),
            [
                ("core.root.get".to_owned(), "q's".to_owned()),
                ("rfc9112.te.http10".to_owned(), "q's".to_owned()),
                ("rfc9112.te.chunked-not-final".to_owned(), "p's".to_owned()),
            ]
        );
    }

    #[test]
    fn a_pattern_that_matches_nothing_or_a_check_excused_twice_is_an_error() {
        for (rules, why) in [
            (
                "[[server.exception]]\nchecks = [\"core.hello.gte\"]\nreason = \"x\"\n",
                "server \"p\": exception `checks` entry \"core.hello.gte\" matches no conformance check",
            ),
            (
                "[[server.exception]]\nchecks = [\"rfc9113.*\"]\nreason = \"x\"\n",
                "entry \"rfc9113.*\" matches no",
            ),
            (
                "[[server.exception]]\nchecks = [\"core.*\"]\nreason = \"first reason\"\n\
                 [[server.exception]]\nchecks = [\"core.root.get\"]\nreason = \"second\"\n",
                "check \"core.root.get\" is in the `checks` of two exceptions (\"first reason\" and \"second\")",
            ),
        ] {
            let m = Manifest::parse(&format!("{OK}{}", peer("p", "") + rules)).unwrap();
            let e = m.check_exceptions(&KNOWN).unwrap_err().to_string();
            assert!(e.starts_with("servers.toml: "), "{e}");
            assert!(e.contains(why), "{why}: {e}");
        }
    }

    #[test]
    fn files_load_as_one_manifest_and_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("manifest-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (first, second) = (dir.join("servers.toml"), dir.join("mine.toml"));
        std::fs::write(&first, OK).unwrap();
        std::fs::write(&second, peer("p", "exceptions_from = \"a\"")).unwrap();
        let m = Manifest::load_files(&[&first, &second]).unwrap();
        let p = m.get("p").unwrap();
        assert_eq!((p.file.as_path(), p.inherited.len()), (second.as_path(), 1));
        assert_eq!(m.get("a").unwrap().file, first);
        std::fs::write(&second, PEER.replace("[\"a\"]", "[\"b\"]")).unwrap();
        let e = Manifest::load_files(&[&first, &second])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{}: server \"p\": `analogue` \"b\"",
                second.display()
            )),
            "{e}"
        );
        assert!(e.contains("(one of: a)"), "{e}");
        std::fs::write(&second, OK.replace("style", "stile")).unwrap();
        let e = Manifest::load_files(&[&first, &second])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{}, line 5: unknown field `stile`",
                second.display()
            )),
            "{e}"
        );
        std::fs::write(&second, OK).unwrap();
        let e = Manifest::load_files(&[&first, &second])
            .unwrap_err()
            .to_string();
        assert!(e.contains("mine.toml: server \"a\" is listed twice"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn rejects_broken_manifests() {
        for (bad, why) in [
            (
                OK.replace("\"core\", \"scenarios\"", "\"cor\", \"scenarios\""),
                "unknown group",
            ),
            (
                OK.replace("scenarios = true", "scenarios = false"),
                "disagrees",
            ),
            (OK.replace("package = \"server-a\"", ""), "has no `command`"),
            (
                OK.replace("reason = \"adds a field\"", "reason = \" \""),
                "has no `reason`",
            ),
            (
                format!(
                    "{OK}\n{}",
                    OK.replace("[[server.exception]]", "")
                        .replace("checks = [\"core.hello.get\"]", "")
                        .replace("reason = \"adds a field\"", "")
                ),
                "twice",
            ),
            (
                OK.replace("style", "stile"),
                "servers.toml, line 5: unknown field `stile`",
            ),
            (
                format!("{OK}{PEER}").replace("runtime = \"sh\"", ""),
                "needs a `runtime`",
            ),
            (
                format!("{OK}{PEER}").replace("{port}", "{prot}"),
                "unknown placeholder",
            ),
            (
                format!("{OK}{PEER}")
                    .replace("--port={port}", "x")
                    .replace("--addr={addr}", "x"),
                "takes no address",
            ),
            (
                format!("{OK}{PEER}").replace("[\"a\"]", "[\"node:http\"]"),
                "not a Rust variant",
            ),
            (
                format!("{OK}{PEER}").replace("\"/hello\"", "\"/hullo\""),
                "unknown endpoint",
            ),
            (
                OK.replace("style = \"x\"", "style = \"x\"\nruntime = \"sh\""),
                "for peers",
            ),
            (
                format!("{OK}{PEER}").replace("port = 3000", "port = 3000\nworkers = 2"),
                "unknown field `workers`",
            ),
            (
                OK.replace("checks = [\"core.hello.get\"]", "checks = []"),
                "empty `checks`",
            ),
            (
                OK.replace("\"core.hello.get\"]", "\"core.hello get\"]"),
                "not a check name or pattern",
            ),
            (
                OK.replace("checks =", "check ="),
                "unknown field `check`, expected `checks` or `reason`",
            ),
            (
                format!("{OK}{PEER}")
                    .replace("runtime = \"sh\"", "runtime = \"sh\"\npackage = \"p\""),
                "both `package` and `command`",
            ),
            (
                format!("{OK}{}", peer("p", "exceptions_from = \"q\"")),
                "`exceptions_from` names \"q\", which is not a server",
            ),
            (
                format!("{OK}{}", peer("p", "exceptions_from = \"p\"")),
                "`exceptions_from` names the server itself",
            ),
            (
                format!(
                    "{OK}{}{}{}",
                    peer("p", "exceptions_from = \"q\""),
                    peer("q", "exceptions_from = \"r\""),
                    peer("r", "")
                ),
                "takes its own from \"r\": name that one",
            ),
        ] {
            let e = Manifest::parse(&bad).unwrap_err().to_string();
            assert!(e.contains(why), "{why}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
