//! RSS and CPU time of a server's whole process tree (a supervisor and its workers, or a
//! peer and its children), read from /proc while a step runs.
//!
//! [`Sampler::start`] reads the tree once at once (the "start" reading), then a thread reads
//! it every interval; [`Sampler::finish`] stops the thread, reads once more (the "end") and
//! returns the [`Usage`]. RSS is the sum of the members' resident pages (pages two processes
//! share count twice, as `ps` would show them). CPU time is the sum, over every thread seen in
//! the tree, of its time on a CPU at its last reading minus at its first (zero for a thread
//! born during the step), so a thread or worker that exits loses at most one interval. It is
//! read from `/proc/PID/task/TID/schedstat` (nanoseconds): utime + stime count in clock ticks
//! of 10 ms, too coarse for a step of 50,000 requests that lasts a quarter of a second. Where
//! schedstat cannot be read, a process counts by its utime + stime instead. The window is
//! from the first reading to the last one that saw the tree, so a tree that exits between
//! two readings (a load tool at the end of its run) is measured over the time it was seen:
//! its CPU percent is not diluted by the time after it had gone.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::procs;

/// What a process tree used over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// RSS at the start, KiB.
    pub rss_start_kb: u64,
    /// The highest RSS reading, KiB.
    pub rss_peak_kb: u64,
    /// RSS at the end, KiB.
    pub rss_end_kb: u64,
    /// CPU time, user plus system, seconds.
    pub cpu_s: f64,
    /// The window, seconds: from the first reading to the last that saw the tree.
    pub wall_s: f64,
    /// The most processes seen in the tree at once.
    pub processes: usize,
}

impl Usage {
    /// CPU time over the window, percent of one CPU.
    pub fn cpu_percent(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.cpu_s / self.wall_s * 100.0
        } else {
            0.0
        }
    }
}

/// What a CPU-time reading belongs to: a thread (schedstat, ns) or, as a fallback, a whole
/// process (utime + stime, converted to ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Thread(i32),
    Process(i32),
}

#[derive(Default)]
struct Acc {
    first: HashMap<Key, u64>,
    last: HashMap<Key, u64>,
    rss_start_kb: Option<u64>,
    rss_peak_kb: u64,
    rss_end_kb: u64,
    processes: usize,
    /// When the tree was last seen.
    seen_at: Option<Instant>,
}

impl Acc {
    fn read(&mut self, root: i32, initial: bool) {
        let members = procs::tree(root);
        if members.is_empty() {
            return;
        }
        self.seen_at = Some(Instant::now());
        let kb = members.iter().map(|s| s.rss_pages).sum::<u64>() * page_kb();
        for s in &members {
            let threads = thread_cpu_ns(s.pid);
            let readings = if threads.is_empty() {
                let ns = (s.utime + s.stime).saturating_mul(1_000_000_000) / clock_ticks();
                vec![(Key::Process(s.pid), ns)]
            } else {
                threads
            };
            for (key, ns) in readings {
                if initial {
                    self.first.insert(key, ns);
                } else {
                    self.first.entry(key).or_insert(0);
                }
                self.last.insert(key, ns);
            }
        }
        self.rss_start_kb.get_or_insert(kb);
        self.rss_peak_kb = self.rss_peak_kb.max(kb);
        self.rss_end_kb = kb;
        self.processes = self.processes.max(members.len());
    }

    fn cpu_s(&self) -> f64 {
        let ns: u64 = self
            .last
            .iter()
            .map(|(key, last)| last.saturating_sub(self.first.get(key).copied().unwrap_or(0)))
            .sum();
        ns as f64 / 1e9
    }
}

/// A running sampler of one process tree.
pub struct Sampler {
    root: i32,
    started: Instant,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Acc>>,
}

impl Sampler {
    /// Reads the tree under `root` now, then every `every` on a thread.
    pub fn start(root: i32, every: Duration) -> Sampler {
        let started = Instant::now();
        let mut acc = Acc::default();
        acc.read(root, true);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("bench-sampler".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    // Sleep in short slices so that finish() returns promptly.
                    let until = Instant::now() + every;
                    while Instant::now() < until && !flag.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(10).min(every));
                    }
                    acc.read(root, false);
                }
                acc
            })
            .ok();
        Sampler {
            root,
            started,
            stop,
            handle,
        }
    }

    /// Stops sampling, reads the tree a last time and returns what it used; `None` when the
    /// tree was never seen (the process had already gone) or the thread could not run.
    pub fn finish(mut self) -> Option<Usage> {
        self.stop.store(true, Ordering::Relaxed);
        let mut acc = self.handle.take()?.join().ok()?;
        acc.read(self.root, false);
        let rss_start_kb = acc.rss_start_kb?;
        let wall = acc.seen_at.map_or(Duration::ZERO, |t| {
            t.saturating_duration_since(self.started)
        });
        Some(Usage {
            rss_start_kb,
            rss_peak_kb: acc.rss_peak_kb,
            rss_end_kb: acc.rss_end_kb,
            cpu_s: acc.cpu_s(),
            wall_s: wall.as_secs_f64(),
            processes: acc.processes,
        })
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Time on a CPU, in nanoseconds, of each thread of `pid` (the first field of
/// `/proc/PID/task/TID/schedstat`); empty when it cannot be read.
fn thread_cpu_ns(pid: i32) -> Vec<(Key, u64)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| {
            let tid: i32 = t.ok()?.file_name().to_str()?.parse().ok()?;
            let line = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
            let ns = line.split_whitespace().next()?.parse().ok()?;
            Some((Key::Thread(tid), ns))
        })
        .collect()
}

/// The current RSS of the tree under `root`, KiB (0 when it is gone).
pub fn rss_kb(root: i32) -> u64 {
    procs::tree(root).iter().map(|s| s.rss_pages).sum::<u64>() * page_kb()
}

fn page_kb() -> u64 {
    // SAFETY: sysconf(3) has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).map_or(4, |b| (b / 1024).max(1))
}

fn clock_ticks() -> u64 {
    // SAFETY: sysconf(3) has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn samples_a_busy_tree() {
        let mut cmd = Command::new("sh");
        // Two busy children under one shell: the tree's CPU is about two CPUs' worth when
        // there are two CPUs, at least one CPU's worth in any case.
        cmd.args([
            "-c",
            "sh -c 'while :; do :; done' & sh -c 'while :; do :; done' & wait",
        ]);
        procs::prepare(&mut cmd, None);
        let mut child = cmd.spawn().unwrap();
        let pid = child.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(5);
        while procs::tree(pid).len() < 3 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let s = Sampler::start(pid, Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(600));
        let u = s.finish().unwrap();
        procs::stop_group(&mut child, Duration::from_secs(1));
        assert_eq!(u.processes, 3, "{u:?}");
        assert!(
            u.rss_peak_kb >= u.rss_start_kb && u.rss_start_kb > 0,
            "{u:?}"
        );
        // The two loops ran for the whole window, however busy the machine is with other work;
        // how much of a CPU they got depends on that work, so only the bounds are asserted:
        // some CPU time was seen, and never more than the machine's CPUs could give.
        let cpus = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        assert!(u.cpu_s > 0.01, "{u:?}");
        assert!(u.cpu_percent() <= 100.0 * cpus + 20.0, "{u:?}");
        // Nanosecond readings, not 10 ms ticks: the CPU time is not a whole number of ticks.
        assert_ne!((u.cpu_s * 1e9) as u64 % 10_000_000, 0, "{u:?}");
        assert!(!thread_cpu_ns(std::process::id() as i32).is_empty());
        assert!(
            Sampler::start(pid, Duration::from_millis(10))
                .finish()
                .is_none()
        );
    }

    #[test]
    fn a_tree_that_exits_is_measured_over_the_time_it_was_seen() {
        // A load tool's tree: busy for about 0.4 s, then gone, while the sampler runs on.
        let mut cmd = Command::new("timeout");
        cmd.args(["0.4", "sh", "-c", "while :; do :; done"]);
        procs::prepare(&mut cmd, None);
        let mut child = cmd.spawn().unwrap();
        let s = Sampler::start(child.id() as i32, Duration::from_millis(50));
        let _ = child.wait();
        std::thread::sleep(Duration::from_millis(500));
        let u = s.finish().unwrap();
        // The window ends at the last reading that saw it, not at finish(): its CPU percent
        // is not diluted by the half second after it had exited.
        assert!(u.wall_s > 0.2 && u.wall_s < 0.6, "{u:?}");
        // One busy thread (less than a CPU when other tests share the machine).
        assert!(u.cpu_s > 0.02 && u.cpu_s <= u.wall_s * 1.1, "{u:?}");
    }
}
