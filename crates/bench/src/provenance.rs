//! Where and from what a run was made, read from this machine: the [`Machine`] (host and kernel
//! from uname(2), the same fields as `/proc/sys/kernel`'s; CPUs and memory through procfs), the workspace's [`Git`] revision,
//! and the version lines of the programs that took part (`rustc`, the load tool, a peer's
//! runtime). The types are the results model's ([`bench_model::results`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use bench_model::results::timestamp::utc_iso;
use bench_model::results::{Git, Header, Machine};
use bench_report::stale::git;
use procfs::{CpuInfo, Current, Meminfo};

/// The machine this runs on (fields it cannot read stay empty or 0).
pub fn machine() -> Machine {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| s.to_string_lossy().trim().to_string();
    let kernel = [uname.sysname(), uname.release(), uname.version()]
        .iter()
        .map(|s| text(s))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let cpuinfo = CpuInfo::current().ok();
    let processors = cpuinfo.as_ref().map_or(0, |c| c.num_cores());
    Machine {
        hostname: text(uname.nodename()),
        kernel,
        cpus: if processors > 0 {
            processors
        } else {
            std::thread::available_parallelism().map_or(0, |n| n.get())
        },
        cpu_model: cpuinfo
            .as_ref()
            .and_then(|c| c.model_name(0))
            .map(|m| m.trim().to_string())
            .unwrap_or_default(),
        mem_total_kb: Meminfo::current().map_or(0, |m| m.mem_total / 1024),
    }
}

/// The revision of the repository at `root` and whether tracked files differ from it
/// (`git status --porcelain --untracked-files=no`: results and reports the harness writes
/// are untracked and do not make a tree dirty), with its commit date. `None`s without git.
pub fn git_at(root: &Path) -> Git {
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
        .map(|secs| utc_iso(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs)));
    Git {
        revision,
        dirty,
        committed_utc,
    }
}

/// The header of a results file of kind `schema` started at `started_utc`, `command` being
/// how the harness was invoked: this machine and the revision at `root` read now; not
/// finished yet, and no versions (each command adds those it records).
pub fn header(schema: &str, started_utc: String, command: Vec<String>, root: &Path) -> Header {
    Header {
        schema: schema.to_string(),
        started_utc,
        finished_utc: String::new(),
        command,
        machine: machine(),
        git: git_at(root),
        versions: BTreeMap::new(),
    }
}

/// The versions every results file records: `bench`'s own and `rustc`'s (when it runs).
pub fn versions() -> BTreeMap<String, String> {
    let mut v = BTreeMap::from([("bench".to_string(), env!("CARGO_PKG_VERSION").to_string())]);
    if let Some(rustc) = version_line("rustc", &["--version"]) {
        v.insert("rustc".into(), rustc);
    }
    v
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
        let m = machine();
        assert!(m.cpus >= 1);
        assert!(m.mem_total_kb > 0);
        assert!(m.kernel.starts_with("Linux "), "{}", m.kernel);
        // The same text as /proc/sys/kernel gives (what results files recorded before).
        let proc = |f: &str| {
            std::fs::read_to_string(format!("/proc/sys/kernel/{f}"))
                .unwrap()
                .trim()
                .to_string()
        };
        let kernel = ["ostype", "osrelease", "version"].map(proc).join(" ");
        assert_eq!(m.kernel, kernel);
        assert_eq!(m.hostname, proc("hostname"));
    }

    #[test]
    fn git_is_tolerant() {
        let g = git_at(Path::new(env!("CARGO_MANIFEST_DIR")));
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
        let none = git_at(Path::new("/"));
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
