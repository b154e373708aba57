//! Which CPUs the server and the load tool run on, so that they do not compete for one.
//!
//! [`allowed`] reads the CPUs this process may use (sched_getaffinity); [`plan`] splits them:
//! with two or more, the load tool gets the last one and the server the rest (on a 2-CPU
//! machine: server on CPU 0, load on CPU 1, as the workspace README's hand-run commands do);
//! with one, nothing is pinned. [`split`] is that choice as the commands make it.
//! [`CpuSet::to_libc`] is what [`super::procs::prepare`] hands to sched_setaffinity in the
//! child.

use std::io;

/// A set of CPU numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSet(pub Vec<usize>);

/// Where the server and the load tool run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The server's CPUs.
    pub server: CpuSet,
    /// The load tool's CPUs.
    pub load: CpuSet,
}

impl CpuSet {
    /// The set as the kernel takes it (CPUs past `CPU_SETSIZE` are left out).
    pub fn to_libc(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is a plain bit array for which all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in &self.0 {
            if cpu < libc::CPU_SETSIZE as usize {
                // SAFETY: CPU_SET writes one bit of `set`; `cpu` is below CPU_SETSIZE, the
                // number of bits the set holds.
                unsafe { libc::CPU_SET(cpu, &mut set) };
            }
        }
        set
    }
}

/// The CPUs this process may run on, in increasing order.
pub fn allowed() -> io::Result<Vec<usize>> {
    allowed_of(0)
}

/// The CPUs process `pid` may run on (0: this one), in increasing order.
pub fn allowed_of(pid: i32) -> io::Result<Vec<usize>> {
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: sched_getaffinity(2) writes at most `size_of::<cpu_set_t>()` bytes into `set`.
    let rc =
        unsafe { libc::sched_getaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads one bit of `set`; `cpu` is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Pins the calling thread (and the threads it starts from now on) to `set`: the harness's
/// own polling and /proc sampling then stay off the server's CPUs.
pub fn pin_current_thread(set: &CpuSet) -> io::Result<()> {
    let cpus = set.to_libc();
    // SAFETY: sched_setaffinity(2) on the calling thread (pid 0) reads `size` bytes of `cpus`,
    // an initialised cpu_set_t of that size.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &cpus) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The split a command uses: [`plan`] over the [`allowed`] CPUs, or why it does not pin
/// (`--no-pin`, fewer than two CPUs), as the note its output carries.
pub fn split(no_pin: bool) -> Result<Plan, &'static str> {
    if no_pin {
        return Err("not pinned (--no-pin)");
    }
    plan(&allowed().unwrap_or_default())
        .ok_or("not pinned: fewer than two CPUs to split between server and load")
}

/// Splits `cpus` between server and load tool; `None` with fewer than two.
pub fn plan(cpus: &[usize]) -> Option<Plan> {
    let (&load, server) = cpus.split_last()?;
    if server.is_empty() {
        return None;
    }
    Some(Plan {
        server: CpuSet(server.to_vec()),
        load: CpuSet(vec![load]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_last_cpu_for_the_load() {
        assert_eq!(plan(&[]), None);
        assert_eq!(plan(&[3]), None);
        assert_eq!(
            plan(&[0, 1]),
            Some(Plan {
                server: CpuSet(vec![0]),
                load: CpuSet(vec![1])
            })
        );
        assert_eq!(plan(&[0, 2, 5]).unwrap().server, CpuSet(vec![0, 2]));
    }

    #[test]
    fn reads_its_own_affinity() {
        let cpus = allowed().unwrap();
        assert!(!cpus.is_empty());
        let set = CpuSet(cpus.clone()).to_libc();
        // SAFETY: reading bits below CPU_SETSIZE.
        assert!(cpus.iter().all(|&c| unsafe { libc::CPU_ISSET(c, &set) }));
        // Another process's: a child pinned to the first of them reads as that one.
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("5");
        super::super::procs::prepare(&mut cmd, Some(&CpuSet(vec![cpus[0]])));
        let mut child = cmd.spawn().unwrap();
        let of_child = allowed_of(child.id() as i32);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(of_child.unwrap(), vec![cpus[0]]);
        assert!(allowed_of(i32::MAX).is_err());
    }
}
