//! Where a step's noise is, read from its repeats' [`Timeline`]s: how far a repeat's
//! intervals scatter ([`Levels::within`]), how far the repeats themselves scatter
//! ([`Levels::between`]), and what the repeats would scatter by if their intervals were
//! independent draws ([`Levels::if_independent`]); for an A/A pair, the part of that a round
//! shares and the part each run has alone ([`Pair`]); and what the dips went with
//! ([`Dips`]: steal, other work, the server's or the tool's wait for a CPU).
//!
//! Everything is on logs (a scatter is a log-sd, 0.07 ≈ 7 %), and a repeat is read from its
//! timeline's throughput ([`Timeline::throughput`]) over its whole intervals, so the levels
//! compare like with like. `bench noise` prints them; docs/notes/2026-12-04-noise.md reads
//! them.

use crate::results::timeline::Timeline;
use crate::results::{Run, StepResult};
use crate::stats::median;

/// An interval (or a repeat) this far below its reference, on logs, is a dip: 10 %, the
/// smallest of the dips this VM was seen to have (2026-12-04: 10–25 % lasting seconds).
pub const DIP: f64 = 0.10;

/// The scatter of one step's repeats at each level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Levels {
    /// Repeats with a timeline of at least two whole intervals.
    pub repeats: usize,
    /// Whole intervals per repeat (the median).
    pub intervals: usize,
    /// The log-sd between a repeat's intervals, pooled over its repeats.
    pub within: f64,
    /// The log-sd between the repeats' means; `None` below 3 repeats.
    pub between: Option<f64>,
    /// A repeat's first interval over its median interval, the median over the repeats: the
    /// measured window's opening (the run's own connections, the server's first requests),
    /// below 1 where it is slower than the rest.
    pub opening: f64,
    /// What `between` would be if every interval were an independent draw of `within`:
    /// `within / √intervals`. A `between` well above it says the noise is in whole runs,
    /// which longer runs do not average away.
    pub if_independent: f64,
}

/// The log-sd of `v` about its mean (n − 1); `None` below 2 values.
pub fn log_sd(v: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = v.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect();
    crate::stats::sd(&logs)
}

/// A repeat's whole intervals' throughput, when it has at least two (every one above 0): what
/// every level, dip and chart of a timeline is read from.
pub fn series(t: &Timeline) -> Option<&[f64]> {
    let v = t.throughput().get(..t.whole())?;
    (v.len() >= 2 && v.iter().all(|x| *x > 0.0)).then_some(v)
}

/// Whether `x` is a dip against `reference` (an interval against its repeat's median
/// interval, a repeat's mean against the median repeat's): more than [`DIP`] below it on logs.
pub fn below(x: f64, reference: f64) -> bool {
    (x / reference).ln() < -DIP
}

/// The timelines of `step`'s repeats that have two whole intervals or more.
fn readable(step: &StepResult) -> Vec<&Timeline> {
    step.repeats
        .iter()
        .filter_map(|r| r.timeline.as_ref())
        .filter(|t| series(t).is_some())
        .collect()
}

/// A repeat's mean throughput over its whole intervals, weighted by their lengths.
pub fn mean(t: &Timeline) -> Option<f64> {
    let v = series(t)?;
    let d = &t.duration_s[..v.len()];
    let total: f64 = d.iter().sum();
    (total > 0.0).then(|| v.iter().zip(d).map(|(x, d)| x * d).sum::<f64>() / total)
}

impl Levels {
    /// The levels of `step`'s repeats; `None` when fewer than two have a timeline.
    pub fn of(step: &StepResult) -> Option<Levels> {
        let timelines = readable(step);
        if timelines.len() < 2 {
            return None;
        }
        // Pooled: every interval's distance from its own repeat's mean log.
        let (mut ss, mut df, mut counts) = (0.0, 0usize, Vec::new());
        for t in &timelines {
            let logs: Vec<f64> = series(t)
                .unwrap_or_default()
                .iter()
                .map(|x| x.ln())
                .collect();
            let m = logs.iter().sum::<f64>() / logs.len() as f64;
            ss += logs.iter().map(|x| (x - m).powi(2)).sum::<f64>();
            df += logs.len() - 1;
            counts.push(logs.len() as f64);
        }
        let within = (ss / df.max(1) as f64).sqrt();
        let intervals = median(counts).unwrap_or(2.0) as usize;
        let means: Vec<f64> = timelines.iter().filter_map(|t| mean(t)).collect();
        let openings: Vec<f64> = timelines
            .iter()
            .filter_map(|t| {
                let v = series(t)?;
                Some(v[0] / median(v.to_vec())?)
            })
            .collect();
        Some(Levels {
            opening: median(openings).unwrap_or(1.0),
            repeats: timelines.len(),
            intervals,
            within,
            between: if means.len() >= 3 {
                log_sd(&means)
            } else {
                None
            },
            if_independent: within / (intervals as f64).sqrt(),
        })
    }
}

/// An A/A pair's scatter (the same server twice, in every round): the part each run has
/// alone and the part a round gives both copies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// Rounds both copies measured with a figure.
    pub rounds: usize,
    /// The log-sd of one run's own noise: the log-sd of the copies' ratio over √2 (the ratio
    /// cancels what the round shares).
    pub per_run: f64,
    /// The log-sd of the first copy's figure over the rounds: shared and own together.
    pub total: f64,
    /// The part the round shares, √(total² − per_run²), 0 where the own part is all of it.
    pub per_round: f64,
}

impl Pair {
    /// The pair `first`/`second` on `figure`; `None` below 3 paired rounds.
    pub fn of(
        first: &StepResult,
        second: &StepResult,
        figure: fn(&Run) -> Option<f64>,
    ) -> Option<Pair> {
        let ratios = first.paired_ratios(second, figure);
        let values: Vec<f64> = first.repeats.iter().filter_map(figure).collect();
        if ratios.len() < 3 || values.len() < 3 {
            return None;
        }
        let per_run = log_sd(&ratios)? / 2f64.sqrt();
        let total = log_sd(&values)?;
        Some(Pair {
            rounds: ratios.len(),
            per_run,
            total,
            per_round: (total.powi(2) - per_run.powi(2)).max(0.0).sqrt(),
        })
    }
}

/// One quantity the dips might go with, in the dips and elsewhere.
#[derive(Clone, Debug, PartialEq)]
pub struct Cover {
    /// Its name, as the timeline's column.
    pub name: &'static str,
    /// Its mean over the dip intervals, percent of one CPU.
    pub in_dips: f64,
    /// Its mean over the other intervals.
    pub elsewhere: f64,
    /// The correlation of an interval's log distance from its repeat's median with it, over
    /// every interval (a dip that goes with it gives a negative one).
    pub correlation: Option<f64>,
}

/// The dips of a step's repeats: intervals more than [`DIP`] below their repeat's median
/// interval, and what they went with.
#[derive(Clone, Debug, PartialEq)]
pub struct Dips {
    /// Whole intervals read.
    pub intervals: usize,
    /// Of them, dips.
    pub dips: usize,
    /// Repeats whose mean is more than [`DIP`] below the step's median repeat: dips that
    /// took a whole run, which an interval's distance from its own run cannot see.
    pub low_repeats: usize,
    /// Repeats read.
    pub repeats: usize,
    /// Per quantity the timeline has: steal, other work, the server's and the tool's waits
    /// and CPU.
    pub with: Vec<Cover>,
}

type Column = (&'static str, fn(&Timeline) -> &[f64]);

/// The quantities a dip is read against, as the timeline's columns.
const COLUMNS: [Column; 6] = [
    ("steal", |t| &t.steal_percent),
    ("other work", |t| &t.other_percent),
    ("server wait", |t| &t.server_wait_percent),
    ("tool wait", |t| &t.tool_wait_percent),
    ("server CPU", |t| &t.server_cpu_percent),
    ("tool CPU", |t| &t.tool_cpu_percent),
];

impl Dips {
    /// The dips of `step`'s repeats; `None` when none has a timeline.
    pub fn of(step: &StepResult) -> Option<Dips> {
        let timelines = readable(step);
        if timelines.is_empty() {
            return None;
        }
        let (mut dev, mut is_dip) = (Vec::new(), Vec::new());
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); COLUMNS.len()];
        let mut has = [true; COLUMNS.len()];
        for t in &timelines {
            let v = series(t).unwrap_or_default();
            let m = median(v.to_vec()).unwrap_or(1.0);
            for (i, x) in v.iter().enumerate() {
                dev.push((x / m).ln());
                is_dip.push(below(*x, m));
                for (c, (_, get)) in COLUMNS.iter().enumerate() {
                    match get(t).get(i) {
                        Some(y) => cols[c].push(*y),
                        None => has[c] = false,
                    }
                }
            }
        }
        let with = COLUMNS
            .iter()
            .zip(&cols)
            .zip(has)
            .filter(|(_, has)| *has)
            .map(|(((name, _), col), _)| {
                let avg = |dip: bool| {
                    let v: Vec<f64> = col
                        .iter()
                        .zip(&is_dip)
                        .filter(|(_, d)| **d == dip)
                        .map(|(y, _)| *y)
                        .collect();
                    if v.is_empty() {
                        0.0
                    } else {
                        v.iter().sum::<f64>() / v.len() as f64
                    }
                };
                Cover {
                    name,
                    in_dips: avg(true),
                    elsewhere: avg(false),
                    correlation: correlation(&dev, col),
                }
            })
            .collect();
        let means: Vec<f64> = timelines.iter().filter_map(|t| mean(t)).collect();
        let mid = median(means.clone()).unwrap_or(1.0);
        Some(Dips {
            intervals: dev.len(),
            dips: is_dip.iter().filter(|d| **d).count(),
            low_repeats: means.iter().filter(|m| below(**m, mid)).count(),
            repeats: timelines.len(),
            with,
        })
    }
}

/// Pearson's correlation of `x` and `y`; `None` where either does not vary.
pub fn correlation(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 3 {
        return None;
    }
    let (mx, my) = (
        x[..n].iter().sum::<f64>() / n as f64,
        y[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (a, b) = (x[i] - mx, y[i] - my);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(rates: &[f64], steal: &[f64]) -> Timeline {
        Timeline {
            interval_s: 0.5,
            duration_s: vec![0.5; rates.len()],
            loopback_mb_per_s: rates.to_vec(),
            steal_percent: steal.to_vec(),
            ..Timeline::default()
        }
    }

    fn step(timelines: Vec<Timeline>) -> StepResult {
        StepResult {
            repeats: timelines
                .into_iter()
                .enumerate()
                .map(|(i, t)| Run {
                    requests_per_s: mean(&t).unwrap_or(0.0),
                    round: Some(i as u32 + 1),
                    timeline: Some(t),
                    ..Run::default()
                })
                .collect(),
            ..StepResult::default()
        }
    }

    #[test]
    fn runs_flat_inside_but_apart_show_the_noise_is_in_whole_runs() {
        // Four repeats, each flat within ±1 %, their levels 100, 90, 110, 80.
        let flat = |l: f64| timeline(&[l * 1.01, l * 0.99, l * 1.01, l * 0.99], &[1.0; 4]);
        let s = step(vec![flat(100.0), flat(90.0), flat(110.0), flat(80.0)]);
        let l = Levels::of(&s).unwrap();
        assert_eq!((l.repeats, l.intervals), (4, 4));
        assert!((l.within - 0.0115).abs() < 0.001, "{l:?}");
        assert!((l.if_independent - l.within / 2.0).abs() < 1e-12);
        // The means' log-sd: ln of 100, 90, 110, 80 → 0.136.
        assert!((l.between.unwrap() - 0.136).abs() < 0.002, "{l:?}");
        let d = Dips::of(&s).unwrap();
        assert_eq!((d.dips, d.low_repeats, d.repeats), (0, 1, 4));
    }

    #[test]
    fn a_dip_that_goes_with_steal_shows_in_its_cover() {
        let a = timeline(&[100.0, 100.0, 80.0, 100.0], &[1.0, 1.0, 30.0, 1.0]);
        let b = timeline(&[100.0, 75.0, 100.0, 100.0], &[2.0, 25.0, 2.0, 1.0]);
        let c = timeline(&[100.0, 100.0, 100.0, 100.0], &[1.0, 1.0, 2.0, 1.0]);
        let d = Dips::of(&step(vec![a, b, c])).unwrap();
        assert_eq!((d.intervals, d.dips), (12, 2));
        let steal = &d.with[0];
        assert_eq!(steal.name, "steal");
        assert_eq!(steal.in_dips, 27.5);
        assert!(steal.elsewhere < 1.5);
        assert!(steal.correlation.unwrap() < -0.9);
        // Columns the timelines lack are not read.
        assert_eq!(d.with.len(), 1);
        // Within a run the dips are most of the scatter; between runs they average.
        let l = Levels::of(&step(vec![
            timeline(&[100.0, 100.0, 80.0, 100.0], &[0.0; 4]),
            timeline(&[100.0, 75.0, 100.0, 100.0], &[0.0; 4]),
            timeline(&[100.0; 4], &[0.0; 4]),
        ]))
        .unwrap();
        assert!(l.within > 0.1 && l.between.unwrap() < l.within);
    }

    #[test]
    fn an_aa_pair_splits_what_the_round_shares_from_what_a_run_has_alone() {
        // The round moves both copies alike (×1.3, ×0.8, …); each copy adds ±2 %.
        let rounds = [1.3, 0.8, 1.0, 1.2, 0.9];
        let own = [1.02, 0.98, 1.0, 1.02, 0.98];
        let make = |sign: f64| {
            step(
                rounds
                    .iter()
                    .zip(own)
                    .map(|(r, o)| {
                        let x = 100.0 * r * if sign > 0.0 { o } else { 1.0 / o };
                        timeline(&[x, x], &[0.0, 0.0])
                    })
                    .collect(),
            )
        };
        let p = Pair::of(&make(1.0), &make(-1.0), |r| Some(r.requests_per_s)).unwrap();
        assert_eq!(p.rounds, 5);
        assert!(p.per_run < 0.03 && p.per_round > 0.15, "{p:?}");
        assert!((p.total.powi(2) - p.per_run.powi(2) - p.per_round.powi(2)).abs() < 1e-12);
    }

    #[test]
    fn a_recorded_run_shows_its_noise_in_whole_runs_and_its_dips_at_the_opening() {
        // E3 on 2026-12-04 (docs/notes/2026-12-04-noise.md): 10 rounds of 4 s.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/notes/2026-12-04-noise/a/e3-20261204T224434Z.json"
        );
        let r =
            crate::results::Results::load(std::path::Path::new(path)).expect("the recorded run");
        let step = |name: &str, id: &str| {
            r.servers
                .iter()
                .find(|s| s.name == name)
                .and_then(|s| s.steps.iter().find(|st| st.step == id))
                .expect("the step")
        };
        // The tool-bound step: runs 4× further apart than their intervals would put them.
        let l = Levels::of(step("server-prebuilt", "c100")).unwrap();
        assert_eq!((l.repeats, l.intervals), (10, 8));
        assert!(l.between.unwrap() > 3.0 * l.if_independent, "{l:?}");
        // node-http at c1000: its opening a quarter slower, its dips with its own threads'
        // wait for the CPU.
        let node = step("node-http", "c1000");
        let l = Levels::of(node).unwrap();
        assert!(l.opening < 0.85, "{l:?}");
        let d = Dips::of(node).unwrap();
        let wait = d.with.iter().find(|c| c.name == "server wait").unwrap();
        assert!(
            wait.correlation.unwrap() < -0.5 && wait.in_dips > 5.0 * wait.elsewhere,
            "{wait:?}"
        );
        let steal = d.with.iter().find(|c| c.name == "steal").unwrap();
        assert!(steal.in_dips < 1.0, "{steal:?}");
        // The A/A copies: a round shares part of a run's noise.
        let p = Pair::of(
            step("server-prebuilt", "c100"),
            step("server-prebuilt#2", "c100"),
            |m| Some(m.requests_per_s),
        )
        .unwrap();
        assert_eq!(p.rounds, 10);
        assert!(p.per_round > 0.02 && p.per_run > 0.02, "{p:?}");
    }

    #[test]
    fn correlation_needs_both_to_vary() {
        assert_eq!(correlation(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]), None);
        assert!((correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(log_sd(&[1.0]), None);
    }
}
