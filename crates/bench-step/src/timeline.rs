//! A step's timeline: the machine read beside the server's and the tool's samplers, every
//! [`SAMPLE_EVERY`](super::SAMPLE_EVERY), and the three cut into [`INTERVAL`]s over the tool's
//! measured window ([`cut`]), with the built-in generator's own answers and p99 per interval
//! where it gave them.
//!
//! [`Ticker`] reads `/proc/stat` (busy and steal, all CPUs), this process's own CPU and the
//! loopback's bytes (`/proc/net/dev`, `lo`) on a thread. Each source is read at its own
//! instants, so an interval's figure from a source is its rate between the readings nearest
//! the interval's edges, times the interval's length: no source's readings are stretched over
//! another's window.

use std::time::{Duration, Instant};

use bench_model::results::timeline::{INTERVAL, Slice, Timeline};
use bench_tools::Timeline as Generated;

use super::machine::{Clock, Window};
use super::sample::{Periodic, Series};

/// One reading of the machine.
#[derive(Clone, Copy, Debug)]
struct Tick {
    at: Instant,
    clock: Clock,
    lo_bytes: u64,
}

/// The loopback's bytes so far (sent on `lo`: every byte one process writes to another over
/// it, once); `None` where `/proc/net/dev` cannot be read.
fn loopback_bytes() -> Option<u64> {
    procfs::net::dev_status()
        .ok()?
        .get("lo")
        .map(|d| d.sent_bytes)
}

fn tick() -> Option<Tick> {
    Some(Tick {
        at: Instant::now(),
        clock: Clock::now()?,
        lo_bytes: loopback_bytes()?,
    })
}

/// The machine read on a thread until [`Ticker::finish`].
pub struct Ticker {
    /// The reading at the start, when the machine could be read.
    first: Option<Tick>,
    periodic: Periodic<Tick>,
}

impl Ticker {
    /// Reads the machine now, then every `every`.
    pub fn start(every: Duration) -> Ticker {
        Ticker {
            first: tick(),
            periodic: Periodic::start("bench-ticker", every, tick),
        }
    }

    /// Stops, reads once more, and returns the readings; `None` when the machine could not be
    /// read.
    pub fn finish(self) -> Option<Ticks> {
        let mut ticks: Vec<Tick> = self.first.into_iter().collect();
        ticks.extend(self.periodic.stop()?);
        ticks.extend(tick());
        (ticks.len() >= 2).then_some(Ticks(ticks))
    }
}

/// The machine's readings over a step.
#[derive(Clone, Debug)]
pub struct Ticks(Vec<Tick>);

impl Ticks {
    /// The machine between the last readings at or before `from` and `to`, with the
    /// loopback's bytes; `None` where both fall on one reading.
    fn between(&self, from: Instant, to: Instant) -> Option<(Window, u64)> {
        let at = |t: Instant| self.0.iter().rposition(|k| k.at <= t).unwrap_or(0);
        let (a, b) = (at(from), at(to));
        (b > a).then(|| {
            let (a, b) = (&self.0[a], &self.0[b]);
            (
                a.clock.until(&b.clock),
                b.lo_bytes.saturating_sub(a.lo_bytes),
            )
        })
    }
}

/// What a step measured, on the clock, that its timeline is cut from.
pub struct Sources<'a> {
    /// The tool's measured window: its first round's start to its last round's end.
    pub window: (Instant, Instant),
    /// The machine.
    pub ticks: &'a Ticks,
    /// The server's tree, where sampled.
    pub server: Option<&'a Series>,
    /// Each tool run's tree (several for a count-bounded step run more than once).
    pub tools: Vec<&'a Series>,
    /// The built-in generator's own timeline, when the step was one run of it.
    pub generated: Option<&'a Generated>,
}

/// The timeline of a step: `None` when its window is shorter than one interval or the
/// machine was not read through it.
pub fn cut(s: &Sources<'_>) -> Option<Timeline> {
    let (start, end) = s.window;
    let length = end.saturating_duration_since(start);
    if length < INTERVAL {
        return None;
    }
    let n = length.as_secs_f64() / INTERVAL.as_secs_f64();
    let count = n.ceil() as usize;
    // The generator's intervals are from its own measured window's start, the same instant
    // as ours to within a reading: used only when they are as many and as long.
    let generated = s.generated.filter(|g| {
        (g.interval_s - INTERVAL.as_secs_f64()).abs() < 1e-9 && g.intervals.len() == count
    });
    let mut slices = Vec::with_capacity(count);
    for i in 0..count {
        let from = start + INTERVAL * i as u32;
        let to = (from + INTERVAL).min(end);
        let d = to.saturating_duration_since(from).as_secs_f64();
        let (machine, lo) = s.ticks.between(from, to)?;
        // A source's rate between its nearest readings, over this interval's length.
        let scale = |x: f64, wall: f64| if wall > 0.0 { x * d / wall } else { 0.0 };
        let usage = |series: &Series| {
            let u = series.usage_at(from, to);
            (scale(u.cpu_s, u.wall_s), scale(u.wait_s, u.wall_s))
        };
        let tools = s
            .tools
            .iter()
            .filter(|t| t.origin() < to)
            .map(|t| usage(t))
            .fold(None, |sum: Option<(f64, f64)>, (c, w)| {
                let (a, b) = sum.unwrap_or_default();
                Some((a + c, b + w))
            });
        let g = generated.map(|g| &g.intervals[i]);
        slices.push(Slice {
            duration_s: d,
            loopback_bytes: scale(lo as f64, machine.wall_s) as u64,
            responses: g.map(|g| g.responses),
            p99_us: g.and_then(|g| g.p99_us),
            server: s.server.map(usage),
            tool: tools,
            steal_s: scale(machine.steal_s, machine.wall_s),
            busy_s: scale(machine.busy_s, machine.wall_s),
            harness_s: scale(machine.own_s, machine.wall_s),
        });
    }
    Some(Timeline::from_slices(INTERVAL, &slices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_is_read_through_a_window_and_cut_into_its_intervals() {
        let ticker = Ticker::start(Duration::from_millis(100));
        let start = Instant::now();
        // Half a second of this thread busy, then a quarter idle: 0.75 s, two intervals.
        while start.elapsed() < Duration::from_millis(500) {
            std::hint::black_box(0u64);
        }
        std::thread::sleep(Duration::from_millis(250));
        let end = Instant::now();
        let ticks = ticker.finish().expect("the machine can be read here");
        let t = cut(&Sources {
            window: (start, end),
            ticks: &ticks,
            server: None,
            tools: Vec::new(),
            generated: None,
        })
        .expect("a window of 0.75 s has a timeline");
        assert_eq!(t.len(), 2);
        assert!((t.duration_s[1] - 0.25).abs() < 0.02, "{t:?}");
        // No server sampled: no server columns and no other work, which needs it.
        assert!(t.server_cpu_percent.is_empty() && t.other_percent.is_empty());
        assert_eq!(t.steal_percent.len(), 2);
        // Too short a window has none.
        let short = Sources {
            window: (start, start + Duration::from_millis(400)),
            ticks: &ticks,
            server: None,
            tools: Vec::new(),
            generated: None,
        };
        assert!(cut(&short).is_none());
    }
}
