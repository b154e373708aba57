//! The manifest of every server: `servers.toml` at the workspace root.
//!
//! Every tool that starts, checks or measures servers (the server crates' conformance
//! tests, the bench harness) reads this one file through [`Manifest`], so a server's name,
//! how it starts, what it is the analogue of and which contract rules it is excused from
//! are written once. Layout: [`Manifest`] holds a list of [`Server`] entries; each has
//! either a cargo `package` (Rust variants) or a `command` (peers), plus documented
//! [`Exception`]s and [`ExtraHeader`]s.
#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The conformance groups a server may list.
pub const GROUPS: [&str; 5] = ["core", "connection", "bad-input", "scenarios", "heavy"];

/// The experiments of EXPERIMENTS.md.
pub const EXPERIMENTS: [&str; 5] = ["E1", "E2", "E3", "E4", "E5"];

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
    /// The command that starts a peer (`{addr}` stands for HOST:PORT).
    pub command: Option<Vec<String>>,
    /// The runtime a peer needs (`node`, `python3`, `go`, `nginx`, …).
    pub runtime: Option<String>,
    /// How it is written, in a few words.
    pub style: String,
    /// The systems of the experiments it is the analogue of (or, for a peer, is).
    #[serde(default)]
    pub analogue: Vec<String>,
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
    /// known groups and experiments, and scenarios listed consistently.
    pub fn validate(&self) -> Result<(), String> {
        let mut names = BTreeSet::new();
        for s in &self.servers {
            if !names.insert(s.name.as_str()) {
                return Err(format!("server {:?} is listed twice", s.name));
            }
            match (&s.package, &s.command) {
                (Some(_), None) => {}
                (None, Some(c)) if !c.is_empty() => {}
                _ => {
                    return Err(format!(
                        "server {:?} needs exactly one of `package` or a non-empty `command`",
                        s.name
                    ));
                }
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

impl Server {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            let e = Manifest::parse(&bad).unwrap_err().to_string();
            assert!(e.contains(why), "{why}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
