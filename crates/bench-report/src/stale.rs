//! Whether the measured servers' code changed after a run: the line at the top of its report
//! (`**Changed since this run:** server-prebuilt (3 commits), node-http (1 commit)`), in the
//! markdown and on the page.
//!
//! A server's code is where [`code_paths`] says it lives: a Rust variant's crate
//! (`crates/<package>`, the package servers.toml names, else the server's name) with
//! `crates/contract` and `crates/serve`, which every variant is built on; a peer's folder under
//! `peers/`, from its command (`node peers/node/http.js` → `peers/node`; a built program
//! `peers/bin/<name>` → `peers/<name>` when that folder exists, else `peers/<runtime>`, the
//! runtime servers.toml gives it: `peers/bin/go-http` → `peers/go`). The count is the commits
//! between the run's revision and the workspace's `HEAD` that touch those paths (their tests,
//! benchmarks and markdown aside: [`NOT_CODE`]), merges left out
//! (`git rev-list --count --no-merges REV..HEAD -- paths`), git run at the workspace root.
//!
//! When nothing changed the report says nothing. When it cannot tell (the run recorded no
//! revision, its revision is not an ancestor of `HEAD`, no git repository at the root) the
//! line says so instead of guessing.

use std::path::Path;
use std::process::Command;

/// What under a server's paths is not the code that runs when it is measured: its tests,
/// benchmarks and documents (git pathspecs).
pub const NOT_CODE: [&str; 3] = [
    ":(glob,exclude)**/tests/**",
    ":(glob,exclude)**/benches/**",
    ":(glob,exclude)**/*.md",
];

use bench_model::results::{Results, ServerKind, ServerResult};

/// What [`staleness`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Staleness {
    /// No measured server's code has a commit after the run's.
    Current,
    /// The servers whose code has commits after the run's, and how many, in the run's order.
    Changed(Vec<(String, usize)>),
    /// It cannot be told, and why: the run recorded no commit, its commit is not in this
    /// repository's history, git cannot read a repository at the root.
    Unknown(String),
}

impl Staleness {
    /// The report's line (markdown inline marks), `None` when nothing changed.
    pub fn line(&self) -> Option<String> {
        const LEAD: &str = "**Changed since this run:**";
        match self {
            Staleness::Current => None,
            Staleness::Changed(servers) => {
                let list: Vec<String> = servers
                    .iter()
                    .map(|(name, n)| {
                        format!("{name} ({n} commit{})", if *n == 1 { "" } else { "s" })
                    })
                    .collect();
                Some(format!(
                    "{LEAD} {}: the commits since its revision to their code (a Rust variant's crate, `crates/contract` and `crates/serve`; a peer's folder under `peers/`), so their figures may not be what that code does now.",
                    list.join(", ")
                ))
            }
            Staleness::Unknown(why) => Some(format!("{LEAD} unknown: {why}.")),
        }
    }
}

/// Whether the code of `r`'s servers changed after its revision, in the git repository at
/// the workspace `root` (whose `servers.toml`, when it reads, names each variant's package
/// and each peer's runtime).
pub fn staleness(r: &Results, root: &Path) -> Staleness {
    let servers: Vec<Measured<'_>> = r
        .servers
        .iter()
        .map(|s| Measured {
            name: &s.name,
            kind: s.kind,
            command: &s.command,
        })
        .collect();
    staleness_of(r.header.git.revision.as_deref(), &servers, root)
}

/// Whether the code of the servers `names` (as servers.toml names them: a `package` is a
/// Rust variant's, anything else a peer's) changed after `revision`: the staleness of a
/// `bench instructions`, `bench idle` or `bench tools compare` results file, which records
/// its servers by name.
pub fn staleness_named(revision: Option<&str>, names: &[&str], root: &Path) -> Staleness {
    let manifest = manifest::Manifest::load(&root.join("servers.toml")).ok();
    let servers: Vec<Measured<'_>> = names
        .iter()
        .map(|name| {
            let entry = manifest.as_ref().and_then(|m| m.get(name));
            let rust = entry.map_or(name.starts_with("server-"), |e| e.package.is_some());
            Measured {
                name,
                kind: if rust {
                    ServerKind::Rust
                } else {
                    ServerKind::Peer
                },
                command: &[],
            }
        })
        .collect();
    staleness_of(revision, &servers, root)
}

/// The page's box atop the run of a `bench instructions`, `bench tools compare` or `bench
/// idle` file, recorded at `header`'s commit, whose servers `names` had their code changed
/// since (as an experiment's run has): nothing when none did, or without the workspace
/// `root` to ask.
pub(crate) fn stale_box(
    header: &bench_model::results::Header,
    names: &[&str],
    root: Option<&Path>,
) -> String {
    root.and_then(|root| staleness_named(header.git.revision.as_deref(), names, root).line())
        .map_or(String::new(), |line| {
            format!(
                "<p class=\"stale\">{}</p>\n",
                bench_chart::format::inline(&line)
            )
        })
}

/// A measured server, as the staleness reads it: its name, kind and the command that started
/// it (empty when not recorded: servers.toml's is read instead).
struct Measured<'a> {
    name: &'a str,
    kind: ServerKind,
    command: &'a [String],
}

fn staleness_of(revision: Option<&str>, servers: &[Measured<'_>], root: &Path) -> Staleness {
    let Some(rev) = revision.filter(|s| !s.is_empty()) else {
        return Staleness::Unknown("the run recorded no commit".into());
    };
    let short = rev.get(..7).unwrap_or(rev);
    if git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_none() {
        return Staleness::Unknown(format!(
            "git cannot read a repository at {}",
            root.display()
        ));
    }
    let commit = format!("{rev}^{{commit}}");
    let known = git(root, &["rev-parse", "--verify", "--quiet", &commit]).is_some()
        && git(root, &["merge-base", "--is-ancestor", rev, "HEAD"]).is_some();
    if !known {
        return Staleness::Unknown(format!(
            "its commit `{short}` is not in this repository's history"
        ));
    }
    let manifest = manifest::Manifest::load(&root.join("servers.toml")).ok();
    let mut changed = Vec::new();
    for s in servers {
        let entry = manifest.as_ref().and_then(|m| m.get(s.name));
        let paths = paths_of(s.name, s.kind, s.command, entry, root);
        if paths.is_empty() {
            continue;
        }
        let range = format!("{rev}..HEAD");
        let mut args = vec!["rev-list", "--count", "--no-merges", &range, "--"];
        args.extend(paths.iter().map(String::as_str));
        args.extend(NOT_CODE);
        let Some(n) = git(root, &args).and_then(|o| o.trim().parse::<usize>().ok()) else {
            return Staleness::Unknown(format!("git could not count the commits since `{short}`"));
        };
        if n > 0 && !changed.iter().any(|(name, _)| name == s.name) {
            changed.push((s.name.to_string(), n));
        }
    }
    if changed.is_empty() {
        Staleness::Current
    } else {
        Staleness::Changed(changed)
    }
}

/// The paths, relative to the workspace `root`, that `s`'s code lives in (see the module);
/// `entry` is its servers.toml entry, when there is one. Empty when none is known.
pub fn code_paths(s: &ServerResult, entry: Option<&manifest::Server>, root: &Path) -> Vec<String> {
    paths_of(&s.name, s.kind, &s.command, entry, root)
}

/// [`code_paths`] of a server by its name, kind and command.
fn paths_of(
    name: &str,
    kind: ServerKind,
    command: &[String],
    entry: Option<&manifest::Server>,
    root: &Path,
) -> Vec<String> {
    match kind {
        ServerKind::Rust => {
            let package = entry.and_then(|e| e.package.as_deref()).unwrap_or(name);
            vec![
                format!("crates/{package}"),
                "crates/contract".into(),
                "crates/serve".into(),
            ]
        }
        ServerKind::Peer => {
            let runtime = entry.and_then(|e| e.runtime.as_deref());
            let mut out = peer_folders(command, runtime, root);
            if out.is_empty()
                && let Some(command) = entry.and_then(|e| e.command.as_ref())
            {
                out = peer_folders(command, runtime, root);
            }
            out
        }
    }
}

/// The folders under `peers/` a peer's `command` runs from (see the module).
fn peer_folders(command: &[String], runtime: Option<&str>, root: &Path) -> Vec<String> {
    let root_prefix = format!("{}/", root.display());
    let mut out: Vec<String> = Vec::new();
    for arg in command {
        let arg = arg
            .strip_prefix("{root}/")
            .or_else(|| arg.strip_prefix(&root_prefix))
            .unwrap_or(arg);
        let Some(rest) = arg.strip_prefix("peers/") else {
            continue;
        };
        let mut parts = rest.split('/');
        let (Some(dir), Some(file)) = (parts.next(), parts.next()) else {
            continue;
        };
        let folder = if dir == "bin" {
            // A program built from a folder of its own name, or of its runtime's.
            let own = format!("peers/{file}");
            let by_runtime = runtime
                .map(|rt| format!("peers/{rt}"))
                .filter(|f| root.join(f).is_dir());
            if root.join(&own).is_dir() {
                own
            } else if let Some(f) = by_runtime {
                f
            } else {
                continue;
            }
        } else {
            format!("peers/{dir}")
        };
        if !out.contains(&folder) {
            out.push(folder);
        }
    }
    out
}

/// What `git -C root args` prints, when it succeeds (also the revision `bench` records).
pub fn git(root: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;
    use std::process::Command;

    use super::*;

    /// A repository of its own in a temporary folder, removed when dropped.
    struct Repo(PathBuf);

    impl Repo {
        fn new(name: &str) -> Repo {
            let dir =
                std::env::temp_dir().join(format!("bench-stale-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            let repo = Repo(dir);
            repo.git(&["init", "--quiet"]);
            repo
        }

        fn git(&self, args: &[&str]) -> String {
            let out = Command::new("git")
                .arg("-C")
                .arg(&self.0)
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(["-c", "commit.gpgsign=false"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        }

        /// Writes `path` (its text: `text`) and commits it; the new revision.
        fn commit(&self, path: &str, text: &str) -> String {
            let file = self.0.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, text).unwrap();
            self.git(&["add", "-A"]);
            self.git(&["commit", "--quiet", "-m", path]);
            self.git(&["rev-parse", "HEAD"])
        }
    }

    impl Drop for Repo {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn server(name: &str, kind: ServerKind, command: &[&str]) -> ServerResult {
        let text = include_str!("../tests/data/results-e3.json");
        let r: Results = serde_json::from_str(text).unwrap();
        ServerResult {
            name: name.into(),
            kind,
            command: command.iter().map(|s| s.to_string()).collect(),
            steps: Vec::new(),
            ..r.servers[0].clone()
        }
    }

    fn run(revision: Option<&str>) -> Results {
        let text = include_str!("../tests/data/results-e3.json");
        let mut r: Results = serde_json::from_str(text).unwrap();
        r.header.git.revision = revision.map(str::to_string);
        r.servers = vec![
            server("server-x", ServerKind::Rust, &["target/release/server-x"]),
            server(
                "node-http",
                ServerKind::Peer,
                &["node", "peers/node/http.js"],
            ),
            server("go-http", ServerKind::Peer, &["peers/bin/go-http"]),
        ];
        r
    }

    #[test]
    fn counts_the_commits_to_each_servers_code() {
        let repo = Repo::new("counts");
        let root = repo.0.as_path();
        repo.commit("crates/server-x/src/main.rs", "1");
        repo.commit("peers/node/http.js", "1");
        let old = repo.commit("README.md", "1");
        assert_eq!(staleness(&run(Some(&old)), root), Staleness::Current);
        assert_eq!(Staleness::Current.line(), None);

        repo.commit("crates/server-x/src/main.rs", "2");
        repo.commit("crates/contract/src/lib.rs", "2");
        repo.commit("peers/node/http.js", "2");
        repo.commit("crates/other/src/lib.rs", "2");
        repo.commit("docs/x.md", "2");
        // Its tests, benchmarks and README are not the code that was measured.
        repo.commit("crates/server-x/tests/endpoints.rs", "2");
        repo.commit("crates/server-x/benches/b.rs", "2");
        repo.commit("crates/server-x/README.md", "2");
        repo.commit("crates/contract/tests/t.rs", "2");
        let s = staleness(&run(Some(&old)), root);
        assert_eq!(
            s,
            Staleness::Changed(vec![("server-x".into(), 2), ("node-http".into(), 1)])
        );
        let line = s.line().unwrap();
        assert!(
            line.starts_with(
                "**Changed since this run:** server-x (2 commits), node-http (1 commit): "
            ),
            "{line}"
        );
        // go-http: no peers/go in this repository, no servers.toml: its code is unknown.
        assert!(!line.contains("go-http"), "{line}");
        // Its folder named by its runtime, once servers.toml says which.
        repo.commit("peers/go/main.go", "1");
        let toml = "[[server]]\nname = \"go-http\"\ncommand = [\"peers/bin/go-http\", \"--addr\", \"{addr}\"]\nruntime = \"go\"\nstyle = \"s\"\nexperiments = [\"E5\"]\ngroups = [\"core\"]\n";
        manifest::Manifest::parse(toml).unwrap();
        repo.commit("servers.toml", toml);
        let s = staleness(&run(Some(&old)), root);
        assert_eq!(
            s,
            Staleness::Changed(vec![
                ("server-x".into(), 2),
                ("node-http".into(), 1),
                ("go-http".into(), 1)
            ])
        );
    }

    #[test]
    fn says_when_it_cannot_tell() {
        let repo = Repo::new("unknown");
        let root = repo.0.as_path();
        repo.commit("crates/server-x/src/main.rs", "1");
        let not_here = "0123456789abcdef0123456789abcdef01234567";
        let s = staleness(&run(Some(not_here)), root);
        assert_eq!(
            s,
            Staleness::Unknown("its commit `0123456` is not in this repository's history".into())
        );
        assert_eq!(
            s.line().unwrap(),
            "**Changed since this run:** unknown: its commit `0123456` is not in this repository's history."
        );
        // A commit of another branch, not an ancestor of HEAD.
        repo.git(&["checkout", "--quiet", "-b", "other"]);
        let elsewhere = repo.commit("crates/server-x/src/main.rs", "elsewhere");
        repo.git(&["checkout", "--quiet", "-"]);
        assert!(matches!(
            staleness(&run(Some(&elsewhere)), root),
            Staleness::Unknown(why) if why.contains("not in this repository's history")
        ));
        assert_eq!(
            staleness(&run(None), root),
            Staleness::Unknown("the run recorded no commit".into())
        );
        let empty = std::env::temp_dir().join(format!("bench-stale-none-{}", std::process::id()));
        fs::create_dir_all(&empty).unwrap();
        // GIT_CEILING_DIRECTORIES is not needed: the temporary folder is in no repository.
        if git(&empty, &["rev-parse", "HEAD"]).is_none() {
            assert!(matches!(
                staleness(&run(Some(not_here)), &empty),
                Staleness::Unknown(why) if why.starts_with("git cannot read a repository at ")
            ));
        }
        let _ = fs::remove_dir(&empty);
    }

    #[test]
    fn where_a_servers_code_lives() {
        let root = Path::new("/nowhere");
        let paths = |s: &ServerResult| code_paths(s, None, root);
        assert_eq!(
            paths(&server("server-x", ServerKind::Rust, &[])),
            ["crates/server-x", "crates/contract", "crates/serve"]
        );
        assert_eq!(
            paths(&server(
                "blazeio",
                ServerKind::Peer,
                &[
                    "peers/python/.venv/bin/python",
                    "peers/python/blazeio_server.py"
                ]
            )),
            ["peers/python"]
        );
        assert_eq!(
            paths(&server(
                "nginx",
                ServerKind::Peer,
                &["/nowhere/peers/nginx/run.sh", "--addr", "{addr}"]
            )),
            ["peers/nginx"]
        );
        // A built program whose folder does not exist, and no runtime: unknown.
        assert!(paths(&server("go-http", ServerKind::Peer, &["peers/bin/go-http"])).is_empty());
    }
}
