//! Child processes the harness starts (servers and load tools), and how it stops them.
//!
//! Every child is prepared by [`prepare`] before it is spawned: it becomes the leader of its
//! own process group (so a server's workers, or a peer started through a shell, can be stopped
//! together, and a Ctrl-C at the terminal reaches the harness alone, which then stops them in
//! order), it is killed by the kernel if the harness dies (`PR_SET_PDEATHSIG`), and it is
//! pinned to a set of CPUs when asked. [`stop_group`] stops a group the harness started:
//! SIGTERM to the group, a grace period, then SIGKILL to whatever of it is left, by PID.
//! [`tree`] and [`group_members`] read /proc (through procfs, as every reading of /proc in the
//! harness) to find a process's descendants and the members of a group.
//!
//! The harness only ever signals processes it started: the group of a child it has not yet
//! reaped (its PID, and so the group id, cannot have been reused), or PIDs found in that group.

use std::collections::HashMap;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::pin::CpuSet;

/// Makes `cmd` start in its own process group, die with the harness, and run on `cpus`.
pub fn prepare(cmd: &mut Command, cpus: Option<&CpuSet>) {
    let set = cpus.map(CpuSet::to_libc);
    // SAFETY: getpid(2) has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the forked child before exec and calls only setpgid(2),
    // prctl(2), getppid(2) and sched_setaffinity(2), which are async-signal-safe system calls;
    // it allocates nothing and takes no lock (the CPU set was built before the fork).
    unsafe {
        cmd.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The harness may have died between the fork and the prctl: then nobody would
            // ever stop this child.
            if libc::getppid() != parent {
                return Err(io::Error::other("the harness exited during the start"));
            }
            if let Some(set) = &set {
                let size = std::mem::size_of::<libc::cpu_set_t>();
                if libc::sched_setaffinity(0, size, set) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// The process groups this process started (their leaders' PIDs), for [`leftovers`].
static STARTED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Spawns a command made by [`prepare`] and remembers its process group.
pub fn spawn(cmd: &mut Command) -> io::Result<Child> {
    let child = cmd.spawn()?;
    if let (Ok(pid), Ok(mut started)) = (i32::try_from(child.id()), STARTED.lock()) {
        started.push(pid);
    }
    Ok(child)
}

/// The PIDs still running in any process group this process started through [`spawn`].
pub fn leftovers() -> Vec<i32> {
    let groups = STARTED.lock().map(|g| g.clone()).unwrap_or_default();
    if groups.is_empty() {
        return Vec::new();
    }
    all()
        .into_iter()
        .filter(|s| s.state != 'Z' && groups.contains(&s.pgrp))
        .map(|s| s.pid)
        .collect()
}

/// Sends `signal` to every process of the group led by `child`, if `child` has not been
/// reaped (so its PID, the group id, is still ours). Returns whether it was sent.
pub fn signal_group(child: &mut Child, signal: i32) -> bool {
    if !matches!(child.try_wait(), Ok(None)) {
        return false;
    }
    let Ok(pgid) = i32::try_from(child.id()) else {
        return false;
    };
    // SAFETY: kill(2) on the negative PID of a child we started with its own process group
    // and have not reaped (checked above), so the group is the one we created.
    unsafe { libc::kill(-pgid, signal) == 0 }
}

/// Sends `signal` to one PID (a member of a group we started).
fn signal_pid(pid: i32, signal: i32) {
    // SAFETY: kill(2) has no memory-safety preconditions; callers pass only PIDs found in a
    // process group the harness created.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Stops the group led by `child`: SIGTERM to the group, up to `grace` for the leader to
/// exit, SIGKILL to the leader if it did not, then SIGKILL to every member of the group still
/// running, and up to 2 s for them to go. Returns the PIDs that were still there at the end
/// (empty when everything stopped).
pub fn stop_group(child: &mut Child, grace: Duration) -> Vec<i32> {
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    signal_group(child, libc::SIGTERM);
    let deadline = Instant::now() + grace;
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if matches!(child.try_wait(), Ok(None)) {
        signal_group(child, libc::SIGKILL);
        let _ = child.kill();
        let _ = child.wait();
    }
    kill_leftovers(pgid)
}

/// SIGKILLs every running member of group `pgid` and waits up to 2 s for them to go; returns
/// those still there.
pub fn kill_leftovers(pgid: i32) -> Vec<i32> {
    if pgid <= 0 {
        return Vec::new();
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = group_members(pgid);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        for &pid in &left {
            signal_pid(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One line of `/proc/PID/stat`, the fields the harness uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The process id.
    pub pid: i32,
    /// Its state letter (`R`, `S`, `Z`, …).
    pub state: char,
    /// Its parent.
    pub ppid: i32,
    /// Its process group.
    pub pgrp: i32,
    /// User time, clock ticks.
    pub utime: u64,
    /// System time, clock ticks.
    pub stime: u64,
    /// User time of its reaped children, clock ticks.
    pub cutime: u64,
    /// System time of its reaped children, clock ticks.
    pub cstime: u64,
    /// Resident pages.
    pub rss_pages: u64,
}

impl From<procfs::process::Stat> for Stat {
    fn from(s: procfs::process::Stat) -> Stat {
        Stat {
            pid: s.pid,
            state: s.state,
            ppid: s.ppid,
            pgrp: s.pgrp,
            utime: s.utime,
            stime: s.stime,
            cutime: s.cutime.max(0) as u64,
            cstime: s.cstime.max(0) as u64,
            rss_pages: s.rss,
        }
    }
}

/// The stat of `pid`, if it exists.
pub fn stat(pid: i32) -> Option<Stat> {
    Some(procfs::process::Process::new(pid).ok()?.stat().ok()?.into())
}

/// Every process visible in /proc.
pub fn all() -> Vec<Stat> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| Some(p.ok()?.stat().ok()?.into()))
        .collect()
}

/// `root` and all its descendants (by parent links), zombies excluded.
pub fn tree(root: i32) -> Vec<Stat> {
    let all = all();
    let mut children: HashMap<i32, Vec<usize>> = HashMap::new();
    for (i, s) in all.iter().enumerate() {
        children.entry(s.ppid).or_default().push(i);
    }
    let mut out = Vec::new();
    let mut todo = vec![root];
    let mut seen = 0usize;
    while let Some(pid) = todo.pop() {
        if let Some(s) = all.iter().find(|s| s.pid == pid)
            && s.state != 'Z'
        {
            out.push(*s);
        }
        for &i in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
            todo.push(all[i].pid);
        }
        seen += 1;
        if seen > all.len() + 1 {
            break;
        }
    }
    out
}

/// The PIDs of the running (not zombie) members of process group `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    all()
        .into_iter()
        .filter(|s| s.pgrp == pgid && s.state != 'Z')
        .map(|s| s.pid)
        .collect()
}

/// Whether `pid` exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|s| s.state != 'Z')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_with_an_odd_name_is_read() {
        // Its name holds spaces and parentheses, which /proc/PID/stat does not escape.
        let dir = std::env::temp_dir().join(format!("bench-procs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let odd = dir.join("a (b) c");
        std::fs::copy("/bin/sleep", &odd).unwrap();
        let mut child = Command::new(&odd).arg("5").spawn().unwrap();
        let pid = child.id() as i32;
        let s = stat(pid).expect("its stat");
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((s.pid, s.ppid), (pid, std::process::id() as i32));
        assert!("RSD".contains(s.state), "{s:?}");
        assert!(all().iter().any(|p| p.pid == std::process::id() as i32));
    }

    #[test]
    fn a_group_is_stopped_with_its_children() {
        let mut cmd = Command::new("sh");
        // A shell that ignores SIGTERM and has a child: only the SIGKILL step stops both.
        cmd.args(["-c", "trap '' TERM; sleep 30 & wait"]);
        prepare(&mut cmd, None);
        let mut child = cmd.spawn().unwrap();
        let pid = child.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(5);
        while tree(pid).len() < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let members = tree(pid);
        assert_eq!(members.len(), 2, "{members:?}");
        assert!(members.iter().all(|s| s.pgrp == pid));
        let left = stop_group(&mut child, Duration::from_millis(200));
        assert!(left.is_empty(), "{left:?}");
        assert!(members.iter().all(|s| !alive(s.pid)));
    }
}
