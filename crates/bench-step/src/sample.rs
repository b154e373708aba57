//! RSS and CPU time of a process tree (a server's supervisor and workers, a peer and its
//! children, or a load tool), read from /proc while a step runs.
//!
//! [`Sampler::start`] reads the tree at once (the "start" reading), then a thread reads it
//! every interval (`Periodic`, the reading thread the machine's ticker shares); [`Sampler::finish`] stops the thread, reads once more (the "end") and
//! returns the [`Series`] of readings. RSS is the sum of the members' resident pages (pages two
//! processes share count twice, as `ps` would show them).
//!
//! Each reading holds, per thread of the tree, its `/proc/PID/task/TID/schedstat` (time on a
//! CPU and time runnable but waiting for one, nanoseconds) and its `utime`/`stime` (clock
//! ticks of 10 ms: too coarse for a quarter-second step on their own, so they only split the
//! schedstat time into user and kernel shares). [`Series::usage`] turns the readings into a
//! [`Usage`] over any part of the window: a thread counts by its last reading at or before
//! each end (zero before it was first seen, so a thread born during the window counts from
//! zero, and one that exits keeps its last reading). A load tool is judged over its measured
//! window only ([`Series::last`]: the last N seconds before it exited), its start-up and warm-up
//! excluded. On a kernel without schedstat, a process counts by its utime + stime instead.
//! The window ends at the last reading that saw the tree, so a tree that exits between two
//! readings is measured over the time it was seen.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::procs;
pub use bench_model::rules::Usage;

/// What a CPU-time reading belongs to: a thread (schedstat, ns) or, as a fallback, a whole
/// process (utime + stime, converted to ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Thread(i32),
    Process(i32),
}

/// One thread's counters at one reading.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Times {
    /// On a CPU, ns.
    run_ns: u64,
    /// Runnable, waiting for a CPU, ns.
    wait_ns: u64,
    /// User time, clock ticks.
    utime: u64,
    /// System time, clock ticks.
    stime: u64,
}

impl Times {
    fn minus(self, earlier: Times) -> Times {
        Times {
            run_ns: self.run_ns.saturating_sub(earlier.run_ns),
            wait_ns: self.wait_ns.saturating_sub(earlier.wait_ns),
            utime: self.utime.saturating_sub(earlier.utime),
            stime: self.stime.saturating_sub(earlier.stime),
        }
    }
}

/// One reading of the tree.
#[derive(Clone, Debug)]
struct Reading {
    /// Since the sampler started.
    at: Duration,
    rss_kb: u64,
    processes: usize,
    threads: HashMap<Key, Times>,
}

/// Every reading of a tree that was seen at least once, in order.
#[derive(Clone, Debug)]
pub struct Series {
    /// When its sampler started: a reading's `at` is since then.
    origin: Instant,
    readings: Vec<Reading>,
}

impl Series {
    /// From the first reading to the last, seconds.
    pub fn wall_s(&self) -> f64 {
        self.end().as_secs_f64()
    }

    fn end(&self) -> Duration {
        self.readings.last().map_or(Duration::ZERO, |r| r.at)
    }

    /// When its sampler started.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// What the tree used between two instants, counted between the last readings at or
    /// before each: [`Series::usage_between`] on the clock.
    pub fn usage_at(&self, from: Instant, to: Instant) -> Usage {
        let since = |t: Instant| t.saturating_duration_since(self.origin);
        self.usage_between(since(from), since(to))
    }

    /// What the tree used over the whole window.
    pub fn usage(&self) -> Usage {
        self.usage_between(Duration::ZERO, self.end())
    }

    /// What the tree used over the last `secs` seconds it was seen (a load tool's measured
    /// window, which ends when it exits), or over the whole window when it was seen for less.
    pub fn last(&self, secs: f64) -> Usage {
        let end = self.end();
        let from = end.saturating_sub(Duration::from_secs_f64(secs.max(0.0)));
        self.usage_between(from, end)
    }

    /// What the tree used between `from` and `to` (since the sampler started), counted
    /// between the last readings at or before each.
    pub fn usage_between(&self, from: Duration, to: Duration) -> Usage {
        let at_or_before = |t: Duration| self.readings.iter().rposition(|r| r.at <= t).unwrap_or(0);
        let (a, b) = (at_or_before(from), at_or_before(to).max(at_or_before(from)));
        // A thread's counters at reading `i`: its last reading at or before `i`, zero before
        // it was first seen.
        let value = |key: &Key, i: usize| {
            self.readings[..=i]
                .iter()
                .rev()
                .find_map(|r| r.threads.get(key).copied())
                .unwrap_or_default()
        };
        let mut keys: Vec<Key> = Vec::new();
        for r in &self.readings[..=b] {
            for k in r.threads.keys() {
                if !keys.contains(k) {
                    keys.push(*k);
                }
            }
        }
        let mut total = Times::default();
        let mut busiest = 0u64;
        for key in &keys {
            let d = value(key, b).minus(value(key, a));
            total.run_ns += d.run_ns;
            total.wait_ns += d.wait_ns;
            total.utime += d.utime;
            total.stime += d.stime;
            busiest = busiest.max(d.run_ns);
        }
        let cpu_s = total.run_ns as f64 / 1e9;
        let ticks = total.utime + total.stime;
        let (user_s, kernel_s) = if ticks > 0 {
            let user = cpu_s * total.utime as f64 / ticks as f64;
            (Some(user), Some(cpu_s - user))
        } else {
            (None, None)
        };
        let part = &self.readings[a..=b];
        Usage {
            rss_start_kb: part.first().map_or(0, |r| r.rss_kb),
            rss_peak_kb: part.iter().map(|r| r.rss_kb).max().unwrap_or(0),
            rss_end_kb: part.last().map_or(0, |r| r.rss_kb),
            cpu_s,
            user_s,
            kernel_s,
            wait_s: total.wait_ns as f64 / 1e9,
            busiest_thread_s: busiest as f64 / 1e9,
            wall_s: (self.readings[b].at.saturating_sub(self.readings[a].at)).as_secs_f64(),
            processes: part.iter().map(|r| r.processes).max().unwrap_or(0),
        }
    }
}

/// What the tree under `root` uses over the next `window`, from a reading before and one
/// after; `None` when it is gone.
pub fn over(root: i32, window: Duration) -> Option<Usage> {
    let t0 = Instant::now();
    let first = read(root, Duration::ZERO)?;
    std::thread::sleep(window);
    let last = read(root, t0.elapsed())?;
    Some(
        Series {
            origin: t0,
            readings: vec![first, last],
        }
        .usage(),
    )
}

/// Reads the tree under `root` now; `None` when it is gone.
fn read(root: i32, at: Duration) -> Option<Reading> {
    let members = procs::tree(root);
    if members.is_empty() {
        return None;
    }
    Some(Reading {
        at,
        rss_kb: members.iter().map(|s| s.rss_pages).sum::<u64>() * page_kb(),
        processes: members.len(),
        threads: tree_times(&members, schedstat_readable(), thread_times),
    })
}

/// The counters of every member: per thread where this kernel has schedstat; per process
/// (utime + stime) only where it has none at all, so that one thread is never counted under
/// two keys. A member whose threads cannot be read this once (it is exiting) is left out of
/// this reading: its last counters carry forward, as for any thread that exits.
fn tree_times(
    members: &[procs::Stat],
    schedstat: bool,
    per_thread: impl Fn(i32) -> Vec<(Key, Times)>,
) -> HashMap<Key, Times> {
    let mut threads = HashMap::new();
    for s in members {
        if schedstat {
            threads.extend(per_thread(s.pid));
        } else {
            let ns = (s.utime + s.stime).saturating_mul(1_000_000_000) / clock_ticks();
            threads.insert(
                Key::Process(s.pid),
                Times {
                    run_ns: ns,
                    wait_ns: 0,
                    utime: s.utime,
                    stime: s.stime,
                },
            );
        }
    }
    threads
}

/// Whether this kernel gives a thread's schedstat (read once, from this process's own).
fn schedstat_readable() -> bool {
    static READABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *READABLE.get_or_init(|| !thread_times(std::process::id() as i32).is_empty())
}

/// Readings taken on a thread of their own, one every `every`, until [`Periodic::stop`] (or a
/// drop): what the sampler of a process tree and the machine's ticker
/// ([`timeline::Ticker`](crate::timeline::Ticker)) share.
pub(crate) struct Periodic<T> {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Vec<T>>>,
}

impl<T: Send + 'static> Periodic<T> {
    /// Starts the thread `name`: it waits `every`, then keeps what `read` gives, until stopped.
    pub(crate) fn start(
        name: &str,
        every: Duration,
        mut read: impl FnMut() -> Option<T> + Send + 'static,
    ) -> Periodic<T> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut got = Vec::new();
                while !flag.load(Ordering::Relaxed) {
                    // Sleep in short slices so that stop() returns promptly.
                    let until = Instant::now() + every;
                    while Instant::now() < until && !flag.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(10).min(every));
                    }
                    got.extend(read());
                }
                got
            })
            .ok();
        Periodic { stop, handle }
    }

    /// Stops the thread and returns its readings; `None` when it could not run.
    pub(crate) fn stop(mut self) -> Option<Vec<T>> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take()?.join().ok()
    }
}

impl<T> Drop for Periodic<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A running sampler of one process tree.
pub struct Sampler {
    root: i32,
    started: Instant,
    /// The reading at the start, when the tree was there.
    first: Option<Reading>,
    periodic: Periodic<Reading>,
}

impl Sampler {
    /// Reads the tree under `root` now, then every `every` on a thread.
    pub fn start(root: i32, every: Duration) -> Sampler {
        let started = Instant::now();
        let first = read(root, Duration::ZERO);
        let periodic = Periodic::start("bench-sampler", every, move || {
            read(root, started.elapsed())
        });
        Sampler {
            root,
            started,
            first,
            periodic,
        }
    }

    /// When it started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Stops sampling, reads the tree a last time and returns every reading; `None` when the
    /// tree was not seen at the start (the process had already gone) or the thread could not
    /// run.
    pub fn finish(self) -> Option<Series> {
        let later = self.periodic.stop()?;
        let mut readings: Vec<Reading> = self.first.into_iter().collect();
        if readings.is_empty() {
            return None;
        }
        readings.extend(later);
        readings.extend(read(self.root, self.started.elapsed()));
        Some(Series {
            origin: self.started,
            readings,
        })
    }
}

/// The counters of each thread of `pid` (schedstat's first two fields, the stat's utime and
/// stime); empty when they cannot be read.
fn thread_times(pid: i32) -> Vec<(Key, Times)> {
    let Ok(tasks) = procfs::process::Process::new(pid).and_then(|p| p.tasks()) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| {
            let t = t.ok()?;
            let sched = t.schedstat().ok()?;
            let stat = t.stat().ok()?;
            Some((
                Key::Thread(t.tid),
                Times {
                    run_ns: sched.sum_exec_runtime,
                    wait_ns: sched.run_delay,
                    utime: stat.utime,
                    stime: stat.stime,
                },
            ))
        })
        .collect()
}

/// The current RSS of the tree under `root`, KiB (0 when it is gone).
pub fn rss_kb(root: i32) -> u64 {
    procs::tree(root).iter().map(|s| s.rss_pages).sum::<u64>() * page_kb()
}

fn page_kb() -> u64 {
    (procfs::page_size() / 1024).max(1)
}

fn clock_ticks() -> u64 {
    procfs::ticks_per_second().max(1)
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
        let u = s.finish().unwrap().usage();
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
        // A busy loop runs in user mode; the busiest thread is one of the loops.
        let (user, kernel) = (u.user_s.unwrap(), u.kernel_s.unwrap());
        assert!(
            user > kernel && (user + kernel - u.cpu_s).abs() < 1e-9,
            "{u:?}"
        );
        assert!(
            u.busiest_thread_s <= u.cpu_s && u.busiest_thread_s >= u.cpu_s / 3.0,
            "{u:?}"
        );
        assert!(!thread_times(std::process::id() as i32).is_empty());
        assert!(
            Sampler::start(pid, Duration::from_millis(10))
                .finish()
                .is_none()
        );
    }

    #[test]
    fn a_member_whose_threads_cannot_be_read_once_is_not_counted_twice() {
        // A process caught exiting: its task list or schedstat fails in one reading, read
        // in full in the others. Its thread's time must not also count under a per-process
        // key (0.735 s of CPU for a 0.4 s busy loop, seen in CI on 2026-12-02).
        let member = |utime| procs::Stat {
            pid: 42,
            state: 'R',
            ppid: 1,
            pgrp: 42,
            utime,
            stime: 0,
            cutime: 0,
            cstime: 0,
            rss_pages: 1,
        };
        let thread = |ns| {
            vec![(
                Key::Thread(42),
                Times {
                    run_ns: ns,
                    wait_ns: 0,
                    utime: ns / 10_000_000,
                    stime: 0,
                },
            )]
        };
        let readings = vec![
            (0, tree_times(&[member(0)], true, |_| thread(0))),
            (1, tree_times(&[member(20)], true, |_| Vec::new())),
            (2, tree_times(&[member(40)], true, |_| thread(400_000_000))),
        ];
        let series = Series {
            origin: Instant::now(),
            readings: readings
                .into_iter()
                .map(|(s, threads)| Reading {
                    at: Duration::from_secs(s),
                    rss_kb: 4,
                    processes: 1,
                    threads,
                })
                .collect(),
        };
        let u = series.usage();
        assert!((u.cpu_s - 0.4).abs() < 1e-9, "{u:?}");
        // Without schedstat at all, the process's ticks are its time.
        let ticks = tree_times(&[member(40)], false, |_| thread(1));
        assert_eq!(
            ticks.get(&Key::Process(42)).map(|t| t.run_ns),
            Some(40 * 1_000_000_000 / clock_ticks())
        );
        assert!(!ticks.contains_key(&Key::Thread(42)));
    }

    #[test]
    fn a_tree_that_exits_is_measured_over_the_time_it_was_seen() {
        // A load tool's tree: sleeps 0.3 s (its start-up), busy for 0.4 s, then gone, while
        // the sampler runs on.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 0.3; timeout 0.4 sh -c 'while :; do :; done'"]);
        procs::prepare(&mut cmd, None);
        let mut child = cmd.spawn().unwrap();
        let s = Sampler::start(child.id() as i32, Duration::from_millis(50));
        let _ = child.wait();
        std::thread::sleep(Duration::from_millis(500));
        let series = s.finish().unwrap();
        let u = series.usage();
        // The window ends at the last reading that saw it, not at finish(): its CPU percent
        // is not diluted by the half second after it had exited.
        assert!(u.wall_s > 0.5 && u.wall_s < 2.0, "{u:?}");
        // One busy thread (less than a CPU when other tests share the machine).
        assert!(u.cpu_s > 0.02 && u.cpu_s <= 0.5, "{u:?}");
        // Its last 0.35 s (its measured window; readings 50 ms apart, so up to 0.5 s) hold
        // nearly all of it, its idle start none.
        let busy = series.last(0.35);
        assert!(busy.wall_s <= 0.5 && busy.cpu_s > 0.0, "{busy:?}");
        assert!(busy.cpu_s >= u.cpu_s * 0.5, "{busy:?} against {u:?}");
        let start = series.usage_between(Duration::ZERO, Duration::from_millis(250));
        assert!(start.cpu_s < 0.02, "{start:?}");
    }
}
