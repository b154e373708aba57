//! The manifest of every server: `servers.toml` at the workspace root.
//!
//! Every tool that starts, checks or measures servers (the server crates' conformance
//! tests, the bench harness) reads this one file through [`Manifest`], so a server's name,
//! how it starts, what it is the analogue of and which contract rules it is excused from
//! are written once. Layout: [`Manifest`] holds a list of [`Server`] entries; each has
//! either a cargo `package` (Rust variants) or a `command` (peers), plus documented
//! [`Exception`]s and [`ExtraHeader`]s.
//!
//! A peer (one of the experiments' own systems: Node, Python, Go, nginx, the C ceiling) is
//! started from the workspace root with [`Server::argv`]; [`Server::missing`] says what is not
//! installed yet (empty: runnable), so tools skip a peer with that reason instead of failing.
#![deny(missing_docs)]

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

/// The experiments of EXPERIMENTS.md.
pub const EXPERIMENTS: [&str; 7] = ["E1", "E2", "E3", "E4", "E5", "E6", "E7"];

/// The endpoint paths of CONTRACT.md a server may list in `endpoints`: the contract's own
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
    /// Conformance checks it is excused from, each with the exact reason.
    #[serde(default, rename = "exception")]
    pub exceptions: Vec<Exception>,
    /// Header fields a library adds that the variant cannot stop.
    #[serde(default, rename = "extra_header")]
    pub extra_headers: Vec<ExtraHeader>,
}

/// A conformance check a server is excused from.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    /// The check's name, as the conformance crate names it.
    pub check: String,
    /// Why, exactly.
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

/// Why the manifest could not be used.
#[derive(Debug)]
pub enum ManifestError {
    /// The file could not be read.
    Read(PathBuf, std::io::Error),
    /// The file is not valid TOML of the expected shape.
    Parse(PathBuf, Box<toml::de::Error>),
    /// The file parsed but breaks a rule (duplicate name, unknown group, …).
    Invalid(String),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Read(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            ManifestError::Parse(p, e) => {
                let msg = e.message().replace('\n', " ");
                write!(f, "{} is not a valid manifest: {msg}", p.display())
            }
            ManifestError::Invalid(m) => write!(f, "servers.toml: {m}"),
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
        let text =
            std::fs::read_to_string(path).map_err(|e| ManifestError::Read(path.into(), e))?;
        let m = Manifest::parse(&text).map_err(|e| match e {
            ManifestError::Parse(_, e) => ManifestError::Parse(path.into(), e),
            other => other,
        })?;
        Ok(m)
    }

    /// Parses and validates manifest text.
    pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
        let m: Manifest = toml::from_str(text)
            .map_err(|e| ManifestError::Parse(PathBuf::from("servers.toml"), Box::new(e)))?;
        m.validate().map_err(ManifestError::Invalid)?;
        Ok(m)
    }

    /// Checks the rules a parse cannot: unique names, exactly one of `package`/`command`,
    /// a peer's `runtime` and placeholders, known groups, experiments and endpoints, a peer's
    /// analogues naming Rust variants, and scenarios listed consistently.
    pub fn validate(&self) -> Result<(), String> {
        let mut names = BTreeSet::new();
        for s in &self.servers {
            if !names.insert(s.name.as_str()) {
                return Err(format!("server {:?} is listed twice", s.name));
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
                _ => {
                    return Err(format!(
                        "server {:?} needs exactly one of `package` or a non-empty `command`",
                        s.name
                    ));
                }
            }
            if let Some(e) = s
                .endpoints
                .iter()
                .find(|e| !ENDPOINTS.contains(&e.as_str()))
            {
                return Err(format!("server {:?} lists unknown endpoint {e:?}", s.name));
            }
            if let Some(g) = s.groups.iter().find(|g| !GROUPS.contains(&g.as_str())) {
                return Err(format!("server {:?} lists unknown group {g:?}", s.name));
            }
            if let Some(e) = s
                .experiments
                .iter()
                .find(|e| !EXPERIMENTS.contains(&e.as_str()))
            {
                return Err(format!(
                    "server {:?} lists unknown experiment {e:?}",
                    s.name
                ));
            }
            if s.scenarios != s.groups.iter().any(|g| g == "scenarios") {
                return Err(format!(
                    "server {:?}: `scenarios = {}` disagrees with its groups",
                    s.name, s.scenarios
                ));
            }
            if let Some(e) = s.exceptions.iter().find(|e| e.reason.trim().is_empty()) {
                return Err(format!(
                    "server {:?}: exception {:?} has no reason",
                    s.name, e.check
                ));
            }
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

/// The rules for a peer's entry: a runtime, known placeholders, an address placeholder, and
/// analogues that are Rust variants of `manifest`.
fn validate_peer(s: &Server, command: &[String], manifest: &Manifest) -> Result<(), String> {
    if s.runtime.as_deref().is_none_or(|r| r.trim().is_empty()) {
        return Err(format!(
            "peer {:?} needs a `runtime` beside its `command`",
            s.name
        ));
    }
    for arg in command {
        let mut rest = arg.as_str();
        while let Some(open) = rest.find('{') {
            let Some(len) = rest[open..].find('}') else {
                return Err(format!("peer {:?}: unclosed `{{` in {arg:?}", s.name));
            };
            let placeholder = &rest[open..=open + len];
            if !PLACEHOLDERS.contains(&placeholder) {
                return Err(format!(
                    "peer {:?}: unknown placeholder {placeholder} in its command",
                    s.name
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
            "peer {:?}: its command takes no address ({{addr}} or {{port}})",
            s.name
        ));
    }
    if let Some(a) = s
        .analogue
        .iter()
        .find(|a| manifest.get(a).is_none_or(|other| other.package.is_none()))
    {
        return Err(format!(
            "peer {:?}: analogue {a:?} is not a Rust variant of servers.toml",
            s.name
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

    /// `(check, reason)` pairs of its documented exceptions.
    pub fn exception_pairs(&self) -> Vec<(String, String)> {
        self.exceptions
            .iter()
            .map(|e| (e.check.clone(), e.reason.clone()))
            .collect()
    }
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
        check = "core.hello.get"
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
        assert_eq!(m.servers[0].exceptions[0].check, "core.hello.get");
        assert!(m.get("a").unwrap().has_group("core"));
        assert_eq!(m.by_package("server-a").unwrap().name, "a");
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
            (OK.replace("package = \"server-a\"", ""), "exactly one"),
            (
                OK.replace("reason = \"adds a field\"", "reason = \" \""),
                "no reason",
            ),
            (
                format!(
                    "{OK}\n{}",
                    OK.replace("[[server.exception]]", "")
                        .replace("check = \"core.hello.get\"", "")
                        .replace("reason = \"adds a field\"", "")
                ),
                "twice",
            ),
            (OK.replace("style", "stile"), "not a valid manifest"),
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
                "not a valid manifest",
            ),
        ] {
            let e = Manifest::parse(&bad).unwrap_err().to_string();
            assert!(e.contains(why), "{why}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
