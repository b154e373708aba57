//! A step's timeline chart, as data for [`draw_timeline`](crate::draw::draw_timeline): each
//! round's measured window in intervals, read from its [`Timeline`]. Above, each round's
//! throughput as a percentage of its own median interval ([`Timeline::throughput`] over its
//! [`Timeline::whole`] intervals), a line per round, its dips marked: an interval more than
//! [`DIP`] (on logs) below its round's median, the rule of [`Dips`]. Below, what the machine
//! did in each interval: steal, other work and the server's wait for a CPU, the most of any
//! round. Its caption ([`caption`]) says the same as [`Dips::of`] the step: how many
//! intervals were dips, how many rounds were low, and what the dips went with.

use bench_model::noise::{DIP, Dips, below, mean, series};
use bench_model::results::timeline::Timeline;
use bench_model::stats::median;

use crate::format::{grouped, listed};

/// A correlation (of an interval's distance from its round's median with a quantity) below
/// this says the dips went with that quantity.
pub const WENT_WITH: f64 = -0.3;

/// One round's line: its intervals' midpoints (seconds from the start of the measured
/// window), throughput as a percentage of the round's median interval, and whether each is a
/// dip.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundLine {
    /// The round (its repeat's `round`, or its place among the repeats from 1).
    pub round: u32,
    /// `(seconds, percent, dip)` per whole interval.
    pub points: Vec<(f64, f64, bool)>,
    /// Its mean is more than [`DIP`] below the median round's: a low round, which its own
    /// line (against its own median) cannot show.
    pub low: bool,
}

/// One quantity of the machine's per interval: the most any round had.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// What it is (`steal`, `other work`, `server wait`, `tool wait`).
    pub name: &'static str,
    /// `(seconds, percent of one CPU)` per interval.
    pub points: Vec<(f64, f64)>,
}

/// A step's timeline chart (see the module header).
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineChart {
    /// What was measured (`E3 / c100: node-http, each round's measured window in 0.5 s
    /// intervals`).
    pub title: String,
    /// One sentence from [`Dips::of`] the step ([`caption`]).
    pub caption: String,
    /// The longest round's window, seconds: the time axis' end.
    pub window_s: f64,
    /// A line per round that has a timeline of two whole intervals or more, in order.
    pub rounds: Vec<RoundLine>,
    /// Steal and other work, and the server's and the tool's waits where they were sampled.
    pub machine: Vec<Machine>,
}

/// The dip threshold as a percentage of a round's median interval: `100 × e^(−DIP)`.
pub fn threshold() -> f64 {
    100.0 * (-DIP).exp()
}

/// The midpoint of each of `t`'s first `n` intervals, seconds from the window's start.
fn midpoints(t: &Timeline, n: usize) -> Vec<f64> {
    let mut at = 0.0;
    t.duration_s
        .iter()
        .take(n)
        .map(|d| {
            let mid = at + d / 2.0;
            at += d;
            mid
        })
        .collect()
}

impl TimelineChart {
    /// The chart of a step's `rounds` (`(round, its timeline)`, in order) under `title`, its
    /// caption from `dips` ([`Dips::of`] the same step); `None` when no round has a timeline
    /// of two whole intervals.
    pub fn new(title: String, rounds: &[(u32, &Timeline)], dips: &Dips) -> Option<TimelineChart> {
        let read: Vec<(u32, &Timeline, &[f64])> = rounds
            .iter()
            .filter_map(|(n, t)| Some((*n, *t, series(t)?)))
            .collect();
        if read.is_empty() {
            return None;
        }
        let means: Vec<Option<f64>> = read.iter().map(|(_, t, _)| mean(t)).collect();
        let mid = median(means.iter().flatten().copied().collect()).unwrap_or(1.0);
        let lines = read
            .iter()
            .zip(&means)
            .map(|((round, t, v), level)| {
                let m = median(v.to_vec()).unwrap_or(1.0);
                let points = midpoints(t, v.len())
                    .into_iter()
                    .zip(v.iter())
                    .map(|(s, x)| (s, 100.0 * x / m, below(*x, m)))
                    .collect();
                RoundLine {
                    round: *round,
                    points,
                    low: level.is_some_and(|l| below(l, mid)),
                }
            })
            .collect();
        let window_s = read
            .iter()
            .map(|(_, t, v)| t.duration_s[..v.len()].iter().sum::<f64>())
            .fold(0.0, f64::max);
        type Column = (&'static str, fn(&Timeline) -> &[f64]);
        let columns: [Column; 4] = [
            ("steal", |t| &t.steal_percent),
            ("other work", |t| &t.other_percent),
            ("server wait", |t| &t.server_wait_percent),
            ("tool wait", |t| &t.tool_wait_percent),
        ];
        let longest = read.iter().max_by_key(|(_, _, v)| v.len()).map(|r| r.1);
        let machine = columns
            .iter()
            .filter(|(_, get)| read.iter().any(|(_, t, _)| !get(t).is_empty()))
            .map(|(name, get)| {
                let n = read.iter().map(|(_, _, v)| v.len()).max().unwrap_or(0);
                let at = longest.map(|t| midpoints(t, n)).unwrap_or_default();
                let points = (0..n)
                    .filter_map(|i| {
                        let most = read
                            .iter()
                            .filter(|(_, _, v)| i < v.len())
                            .filter_map(|(_, t, _)| get(t).get(i).copied())
                            .reduce(f64::max)?;
                        Some((*at.get(i)?, most))
                    })
                    .collect();
                Machine { name, points }
            })
            .collect();
        Some(TimelineChart {
            title,
            caption: caption(dips),
            window_s,
            rounds: lines,
            machine,
        })
    }
}

/// What [`Dips`] says of a step, in one sentence: `12 of 80 intervals were dips (10 % below
/// their round's median); 2 of 10 rounds were 10 % below the median round; the dips went with
/// steal` (with every quantity whose correlation is below [`WENT_WITH`], the strongest
/// first; "with nothing the harness saw" when none is).
pub fn caption(d: &Dips) -> String {
    let pct = grouped(DIP * 100.0, 0);
    let intervals = match d.dips {
        0 => format!(
            "none of the {} intervals was a dip ({pct} % below its round's median)",
            d.intervals
        ),
        1 => format!(
            "1 of {} intervals was a dip ({pct} % below its round's median)",
            d.intervals
        ),
        n => format!(
            "{n} of {} intervals were dips ({pct} % below their round's median)",
            d.intervals
        ),
    };
    let rounds = match d.low_repeats {
        0 => format!(
            "none of the {} rounds was {pct} % below the median round",
            d.repeats
        ),
        1 => format!(
            "1 of {} rounds was {pct} % below the median round",
            d.repeats
        ),
        n => format!(
            "{n} of {} rounds were {pct} % below the median round",
            d.repeats
        ),
    };
    let mut with: Vec<(f64, &str)> = d
        .with
        .iter()
        .filter_map(|c| Some((c.correlation?, c.name)))
        .filter(|(r, _)| *r < WENT_WITH)
        .collect();
    with.sort_by(|a, b| a.0.total_cmp(&b.0));
    let names: Vec<String> = with.iter().map(|(_, n)| n.to_string()).collect();
    let went = match (d.dips, names.is_empty()) {
        (0, _) => String::new(),
        (n, empty) => format!(
            "; the {} went with {}",
            if n == 1 { "dip" } else { "dips" },
            if empty {
                "nothing the harness saw".to_string()
            } else {
                listed(&names)
            }
        ),
    };
    let mut s = format!("{intervals}; {rounds}{went}");
    if let Some(first) = s.get(..1) {
        s = first.to_uppercase() + &s[1..];
    }
    s + "."
}
