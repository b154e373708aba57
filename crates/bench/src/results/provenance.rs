//! Where and from what a run was made: the machine (host, kernel, CPUs, memory, from /proc),
//! the workspace's git revision, and the version lines of the programs that took part
//! (`rustc`, the load tool, a peer's runtime). [`Machine`] and [`Git`] are fields of the
//! results schema; their `detect` reads them from this machine.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

/// The machine a run was made on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The host name.
    pub hostname: String,
    /// The kernel: OS type, release and build (`Linux 6.1.0-… #1 SMP …`).
    pub kernel: String,
    /// Logical CPUs online.
    pub cpus: usize,
    /// The first CPU's model name.
    pub cpu_model: String,
    /// Total memory, KiB.
    pub mem_total_kb: u64,
}

/// The workspace's revision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Git {
    /// `git rev-parse HEAD`; `None` outside a repository or without git.
    pub revision: Option<String>,
    /// Whether tracked files differ from `revision`; `None` when unknown.
    pub dirty: Option<bool>,
    /// When `revision` was committed (UTC, `2026-12-02T01:00:00Z`); `None` when unknown or in
    /// files from before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed_utc: Option<String>,
}

impl Machine {
    /// The machine this runs on, from /proc (fields it cannot read stay empty or 0).
    pub fn detect() -> Machine {
        let read = |p: &str| fs::read_to_string(p).unwrap_or_default();
        let cpuinfo = read("/proc/cpuinfo");
        let meminfo = read("/proc/meminfo");
        let kernel = ["ostype", "osrelease", "version"]
            .iter()
            .map(|f| read(&format!("/proc/sys/kernel/{f}")).trim().to_string())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let processors = cpuinfo
            .lines()
            .filter(|l| field_name(l) == Some("processor"))
            .count();
        Machine {
            hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
            kernel,
            cpus: if processors > 0 {
                processors
            } else {
                std::thread::available_parallelism().map_or(0, |n| n.get())
            },
            cpu_model: cpuinfo
                .lines()
                .find(|l| field_name(l) == Some("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default(),
            mem_total_kb: meminfo
                .lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        }
    }
}

fn field_name(line: &str) -> Option<&str> {
    line.split_once(':').map(|(k, _)| k.trim())
}

/// What `git -C root args` prints, when it succeeds.
pub(crate) fn git(root: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
}

impl Git {
    /// The revision of the repository at `root` and whether tracked files differ from it
    /// (`git status --porcelain --untracked-files=no`: results and reports the harness
    /// writes are untracked and do not make a tree dirty). Both `None` without git.
    pub fn detect(root: &Path) -> Git {
        let git = |args: &[&str]| git(root, args);
        let revision = git(&["rev-parse", "HEAD"])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let dirty = revision
            .as_ref()
            .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
            .map(|s| !s.trim().is_empty());
        let committed_utc = revision
            .as_ref()
            .and_then(|_| git(&["show", "-s", "--format=%ct", "HEAD"]))
            .and_then(|s| s.trim().parse::<u64>().ok())
            .map(|secs| {
                super::timestamp::utc_iso(
                    std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs),
                )
            });
        Git {
            revision,
            dirty,
            committed_utc,
        }
    }
}

/// The first line `program args` prints (stdout, else stderr); `None` if it cannot run.
pub fn version_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// A peer runtime's version line (`node --version`; nginx answers `-v`, go `version`).
pub fn runtime_version(runtime: &str) -> Option<String> {
    let flag = match runtime {
        "nginx" => "-v",
        "go" => "version",
        _ => "--version",
    };
    version_line(runtime, &[flag])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_is_detected() {
        let m = Machine::detect();
        assert!(m.cpus >= 1);
        assert!(m.mem_total_kb > 0);
        assert!(m.kernel.starts_with("Linux "), "{}", m.kernel);
    }

    #[test]
    fn git_is_tolerant() {
        let g = Git::detect(Path::new(env!("CARGO_MANIFEST_DIR")));
        if let Some(rev) = &g.revision {
            assert_eq!(rev.len(), 40);
            assert!(g.dirty.is_some());
            // The commit's date, as git gives it.
            let out = Command::new("git")
                .args([
                    "-C",
                    env!("CARGO_MANIFEST_DIR"),
                    "log",
                    "-1",
                    "--date=iso-strict-local",
                    "--format=%cd",
                ])
                .env("TZ", "UTC")
                .output()
                .unwrap();
            let iso = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let c = g.committed_utc.clone().expect("a commit has a date");
            assert_eq!((c.len(), &c[..19]), (20, &iso[..19]), "{c} vs {iso}");
        }
        let none = Git::detect(Path::new("/"));
        assert_eq!(none, Git::default());
    }

    #[test]
    fn version_lines() {
        assert!(version_line("rustc", &["--version"]).is_some_and(|v| v.starts_with("rustc ")));
        assert_eq!(version_line("/nonexistent/rustc", &["--version"]), None);
        // Every peer runtime found here answers its own version flag with its version.
        for (runtime, starts) in [
            ("node", "v"),
            ("go", "go version go"),
            ("nginx", "nginx version"),
        ] {
            match runtime_version(runtime) {
                Some(v) => assert!(v.starts_with(starts), "{runtime}: {v}"),
                // CI installs every peer runtime and says so (.ci/run).
                None => assert!(
                    std::env::var_os("BENCH_REQUIRE_TOOLS").is_none(),
                    "{runtime} is not installed"
                ),
            }
        }
    }
}
