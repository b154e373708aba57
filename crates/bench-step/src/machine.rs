//! The machine beside a step: how much CPU other work took while the step was measured, and
//! whether the machine is quiet enough to start a run at all.
//!
//! [`Clock::now`] reads `/proc/stat` (every CPU's busy time, and steal) and this process's own
//! CPU time; two readings give a [`Window`]. A step's other work is the machine's busy time
//! (user, nice, system, irq, softirq; steal and idle excluded) minus what the server, the load
//! tool and the harness itself used over the same window: on a quiet machine it is near 0
//! (loopback TCP's soft-interrupt time is charged to the processes that made it), and a busy
//! loop on a server CPU shows as 50–100 % of a CPU. [`Interference`] is that, with steal and
//! the server's and tool's time waiting for a CPU; [`disturbed`](bench_model::rules::disturbed) is the one rule that says
//! when the machine, not the server, set a step's figures.
//!
//! [`preflight`] samples the machine for a moment before a run and names the busiest other
//! processes when it is not quiet.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use procfs::CurrentSI;

use bench_model::results::Interference;
use bench_model::rules::OTHER_CPU_LIMIT;
#[cfg(test)]
use bench_model::rules::disturbed;

/// A reading of the machine's CPU counters and of this process's own CPU time.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    at: Instant,
    /// Busy time of all CPUs (steal excluded), seconds.
    busy_s: f64,
    /// Steal time of all CPUs, seconds.
    steal_s: f64,
    /// This process's user + system time, seconds.
    own_s: f64,
}

impl Clock {
    /// Reads now; `None` where /proc/stat cannot be read.
    pub fn now() -> Option<Clock> {
        let total = procfs::KernelStats::current().ok()?.total;
        let hz = procfs::ticks_per_second().max(1) as f64;
        let busy = total.user
            + total.nice
            + total.system
            + total.irq.unwrap_or(0)
            + total.softirq.unwrap_or(0);
        let own = procfs::process::Process::myself()
            .and_then(|p| p.stat())
            .map_or(0, |s| s.utime + s.stime);
        Some(Clock {
            at: Instant::now(),
            busy_s: busy as f64 / hz,
            steal_s: total.steal.unwrap_or(0) as f64 / hz,
            own_s: own as f64 / hz,
        })
    }

    /// What happened from `self` to `later`.
    pub fn until(&self, later: &Clock) -> Window {
        Window {
            wall_s: later.at.saturating_duration_since(self.at).as_secs_f64(),
            busy_s: (later.busy_s - self.busy_s).max(0.0),
            steal_s: (later.steal_s - self.steal_s).max(0.0),
            own_s: (later.own_s - self.own_s).max(0.0),
        }
    }
}

/// The machine over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Window {
    /// Seconds.
    pub wall_s: f64,
    /// Busy CPU time of all CPUs, steal excluded, seconds.
    pub busy_s: f64,
    /// Steal time, seconds.
    pub steal_s: f64,
    /// The harness's own CPU time, seconds.
    pub own_s: f64,
}

impl Window {
    /// The interference of a step over this window: `accounted_s` is the CPU time of what
    /// the step itself ran (server, load tool and probe; `None` when the server is not
    /// sampled, a remote target, so other work cannot be told from it), `server_wait_s` and
    /// `tool_wait_s` the time their threads waited for a CPU, and `tool_wall_s` the window the
    /// tool's wait is a share of.
    pub fn interference(
        &self,
        accounted_s: Option<f64>,
        server_wait_s: Option<f64>,
        tool_wait: Option<(f64, f64)>,
    ) -> Interference {
        let pct = |s: f64, wall: f64| {
            if wall > 0.0 {
                round1(s / wall * 100.0)
            } else {
                0.0
            }
        };
        Interference {
            other_cpu_percent: accounted_s
                .map(|a| pct(self.busy_s - a - self.own_s, self.wall_s).max(0.0)),
            steal_percent: pct(self.steal_s, self.wall_s),
            server_wait_percent: server_wait_s.map(|w| pct(w, self.wall_s)),
            tool_wait_percent: tool_wait.map(|(w, wall)| pct(w, wall)),
        }
    }
}

/// One process's CPU over a preflight.
#[derive(Clone, Debug, PartialEq)]
pub struct Busy {
    /// Its PID.
    pub pid: i32,
    /// Its command name.
    pub comm: String,
    /// Percent of one CPU.
    pub cpu_percent: f64,
}

/// What a preflight saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Quiet {
    /// Other work, percent of one CPU (the machine's busy time less the harness's own).
    pub other_cpu_percent: f64,
    /// Steal, percent.
    pub steal_percent: f64,
    /// The other processes that used a CPU, busiest first.
    pub busiest: Vec<Busy>,
}

impl Quiet {
    /// `None` when the machine is quiet enough to measure on; else the one line that says who
    /// is busy.
    pub fn refusal(&self) -> Option<String> {
        if self.other_cpu_percent <= OTHER_CPU_LIMIT {
            return None;
        }
        let who: Vec<String> = self
            .busiest
            .iter()
            .take(3)
            .map(|b| format!("{} {} {:.0} %", b.pid, b.comm, b.cpu_percent))
            .collect();
        Some(format!(
            "the machine is busy: other work took {:.0} % of a CPU over the last {} s (more than {OTHER_CPU_LIMIT:.0} %; busiest: {}); measure when it is quiet, or pass --allow-busy to measure anyway with every disturbed step marked",
            self.other_cpu_percent,
            PREFLIGHT.as_secs(),
            if who.is_empty() {
                "no single process (kernel threads or short-lived ones)".to_string()
            } else {
                who.join(", ")
            }
        ))
    }
}

/// How long [`preflight`] samples.
pub const PREFLIGHT: Duration = Duration::from_secs(2);

/// Samples the machine for `over`: its other work, and the busiest other processes.
pub fn preflight(over: Duration) -> Option<Quiet> {
    let before = Clock::now()?;
    let cpu_before = process_cpu();
    std::thread::sleep(over);
    let after = Clock::now()?;
    let cpu_after = process_cpu();
    let w = before.until(&after);
    let me = std::process::id() as i32;
    let hz = procfs::ticks_per_second().max(1) as f64;
    let mut busiest: Vec<Busy> = cpu_after
        .iter()
        .filter(|(pid, _)| **pid != me)
        .filter_map(|(pid, (comm, t))| {
            let was = cpu_before.get(pid).map_or(0, |(_, t)| *t);
            let s = t.saturating_sub(was) as f64 / hz;
            (s > 0.0).then(|| Busy {
                pid: *pid,
                comm: comm.clone(),
                cpu_percent: round1(s / w.wall_s.max(1e-9) * 100.0),
            })
        })
        .collect();
    busiest.sort_by(|a, b| b.cpu_percent.total_cmp(&a.cpu_percent));
    let i = w.interference(Some(0.0), None, None);
    Some(Quiet {
        other_cpu_percent: i.other_cpu_percent.unwrap_or(0.0),
        steal_percent: i.steal_percent,
        busiest,
    })
}

/// Every process's command name and user + system time, clock ticks. (Not its reaped
/// children's: a shell that reaps a compiler during the window would be charged with the
/// compiler's whole life.)
fn process_cpu() -> HashMap<i32, (String, u64)> {
    let Ok(all) = procfs::process::all_processes() else {
        return HashMap::new();
    };
    all.filter_map(|p| {
        let s = p.ok()?.stat().ok()?;
        Some((s.pid, (s.comm, s.utime + s.stime)))
    })
    .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_work_is_the_busy_time_nobody_in_the_step_used() {
        let w = Window {
            wall_s: 10.0,
            busy_s: 15.0,
            steal_s: 0.2,
            own_s: 0.5,
        };
        // Server 8 s + tool 4 s: 2.5 s left, 25 % of a CPU.
        let i = w.interference(Some(12.0), Some(0.1), Some((0.3, 6.0)));
        assert_eq!(i.other_cpu_percent, Some(25.0));
        assert_eq!(i.steal_percent, 2.0);
        assert_eq!(i.server_wait_percent, Some(1.0));
        assert_eq!(i.tool_wait_percent, Some(5.0));
        assert_eq!(
            disturbed(&i).as_deref(),
            Some("other work took 25 % of a CPU")
        );
        // The step accounts for everything: quiet (a slightly negative rest reads 0).
        let i = w.interference(Some(14.8), Some(0.1), None);
        assert_eq!(i.other_cpu_percent, Some(0.0));
        assert_eq!(disturbed(&i), None);
        // No server to account for (a remote target): only steal and waits can tell.
        let i = w.interference(None, None, None);
        assert_eq!((i.other_cpu_percent, disturbed(&i)), (None, None));
        let stolen = Window { steal_s: 1.0, ..w };
        let i = stolen.interference(Some(13.5), Some(0.9), None);
        assert_eq!(
            disturbed(&i).as_deref(),
            Some("steal 10 %, the server waited for a CPU 9 % of the time")
        );
    }

    #[test]
    fn a_busy_preflight_names_the_busiest_processes() {
        let q = Quiet {
            other_cpu_percent: 87.0,
            steal_percent: 0.0,
            busiest: vec![
                Busy {
                    pid: 4242,
                    comm: "rustc".into(),
                    cpu_percent: 80.2,
                },
                Busy {
                    pid: 7,
                    comm: "cargo".into(),
                    cpu_percent: 6.0,
                },
            ],
        };
        let line = q.refusal().unwrap();
        assert!(
            line.starts_with("the machine is busy: other work took 87 % of a CPU over the last 2 s (more than 10 %; busiest: 4242 rustc 80 %, 7 cargo 6 %)"),
            "{line}"
        );
        assert!(!line.contains('\n'));
        assert_eq!(
            Quiet {
                other_cpu_percent: 9.0,
                ..q
            }
            .refusal(),
            None
        );
    }

    #[test]
    fn a_real_preflight_sees_a_busy_loop() {
        let mut hog = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        let q = preflight(Duration::from_millis(600)).unwrap();
        let pid = hog.id() as i32;
        let _ = hog.kill();
        let _ = hog.wait();
        // However busy the machine is besides (other tests of this binary run busy loops of
        // their own), the loop got some of a CPU, and the preflight refuses and names it.
        assert!(q.refusal().is_some(), "{q:?}");
        assert!(
            q.busiest
                .iter()
                .any(|b| b.pid == pid && b.cpu_percent > 5.0),
            "{q:?}"
        );
    }
}
