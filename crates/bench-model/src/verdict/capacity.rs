//! E7's capacity with an interval: the offered rate a server keeps up with in half the
//! rounds, estimated from every round of every rung, and two such rates compared.
//!
//! **The model.** In each run (one rung in one round) the server can carry some rate `C_r`,
//! and it keeps up with an offered rate `x` when `x < C_r`. On this VM `C_r` moves from run
//! to run by a factor (dips land on whole runs), so `ln C_r = μ + σ·ε` with `ε` a standard
//! normal draw, and a run at rate `x` keeps up with probability `Φ((μ − ln x) / σ)`: a probit
//! in the log of the rate. `e^μ` is the **capacity**, the rate kept up with in half the runs.
//!
//! **The fit.** Each run of a valid rung is one trial (kept up, [`rules::saturated`], or not);
//! a rung where the load tool was the limit says nothing of the server and is left out, so a
//! server the generator could not push past keeps an interval open above: a lower bound. The
//! likelihood of `μ` is averaged over `σ` (log-uniformly from [`SIGMA_MIN`], the VM's per-run
//! spread, to 1: the spread is a nuisance the few runs near the capacity cannot pin down, and
//! taking its best value instead made intervals too short, [`super::calibrate`]) on a grid of
//! `μ` ([`STEP`] apart): a [`Curve`]. With the rungs far apart relative to `σ` the trials
//! separate perfectly and the curve is flat across the bracket; the floor keeps it finite.
//! The estimate is the top of the curve (the middle of a flat top), the interval the `μ` whose
//! curve is within `χ²₁(L)/2` of the top (at 95 %, 1.92), open on a side where it reaches the
//! grid's end.
//!
//! **Comparisons** (two runs of one server, or two servers of one run, E7's finding) are on
//! the difference of two `μ`: its curve is the best sum of the two curves at each difference
//! ([`Curve::difference`]); "moved" is the likelihood-ratio test of a difference of 0, "same
//! within a margin" the two one-sided tests of the signed root at `±margin`. The method is
//! the search's complement: the search still chooses which rates to measure; this reads
//! every run it measured. Its coverage and false alarms on simulated searches are in
//! [`super::calibrate`].

use crate::results::StepResult;
use crate::rules;

/// The smallest run-to-run spread of a server's capacity the fit allows (log-sd): two copies of
/// one server alternated run by run differed by a log-sd of 0.068 per pair (2026-12-04), about
/// 0.05 per run. A smaller floor lets a perfectly separated search claim more than its runs
/// know ([`super::calibrate`]: with 0.02 the interval held a capacity that scatters by 5 % in
/// 87 % of searches, with 0.05 in 99 %).
pub const SIGMA_MIN: f64 = 0.05;

/// The largest spread the fit allows.
pub const SIGMA_MAX: f64 = 1.0;

/// The grid's step in `ln(rate)`: rates 1 % apart.
pub const STEP: f64 = 0.01;

/// How far beyond the lowest and highest rate tried the grid reaches, in `ln(rate)`.
const REACH: f64 = 3.0;

/// The σ the likelihood is averaged over: log-spaced from [`SIGMA_MIN`] to [`SIGMA_MAX`].
fn sigmas() -> impl Iterator<Item = f64> {
    const N: usize = 24;
    let ratio = (SIGMA_MAX / SIGMA_MIN).ln() / (N - 1) as f64;
    (0..N).map(move |i| SIGMA_MIN * (ratio * i as f64).exp())
}

/// `ln Φ(z)`, finite far into the lower tail (Φ's asymptotic there).
fn ln_phi(z: f64) -> f64 {
    if z > -30.0 {
        (0.5 * statrs::function::erf::erfc(-z / std::f64::consts::SQRT_2)).ln()
    } else {
        // Φ(z) ≈ φ(z)/|z| for z → −∞.
        -0.5 * z * z - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
    }
}

/// `P(Z ≥ z)` for a standard normal `Z`.
fn upper_tail(z: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(z / std::f64::consts::SQRT_2)
}

/// One run of a rung: its offered rate and whether it kept up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trial {
    /// Offered requests/s.
    pub rate: f64,
    /// Kept up with ([`rules::saturated`] found nothing).
    pub kept: bool,
}

/// The trials of a server's rungs on `endpoint` among its `steps`: every run of every valid
/// rung, none of a rung where the load tool was the limit (in any of its runs).
pub fn trials(steps: &[StepResult], endpoint: &str) -> Vec<Trial> {
    steps
        .iter()
        .filter(|st| st.endpoint == endpoint && st.valid)
        .filter(|st| !st.repeats.iter().chain(&st.median).any(|r| r.tool_bound))
        .filter_map(|st| Some((crate::sustainable::rate_of(st)?, st)))
        .flat_map(|(rate, st)| {
            st.repeats.iter().map(move |r| Trial {
                rate,
                kept: rules::saturated(r).is_none(),
            })
        })
        .collect()
}

/// A profile log-likelihood over a grid of `ln(rate)` (or of a difference of two), shifted so
/// that its top is 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The grid's first point, in steps of [`STEP`] (so that two curves' grids align).
    first: i64,
    /// The log-likelihood at each point.
    ll: Vec<f64>,
    /// The highest `ln(rate)` kept up with in any run (`+∞` for a difference of two): a lower
    /// bound is never said above a rate the server was seen to hold.
    held: f64,
}

/// A point estimate with its interval, on the log scale (`±∞` where the interval is open).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The top of the curve.
    pub at: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

/// `χ²₁`'s quantile at `level`, halved: how far below its top a profile likelihood's interval
/// reaches (1.92 at 95 %).
fn drop_at(level: f64) -> f64 {
    // The normal quantile squared, halved; z from the upper tail by bisection.
    let tail = (1.0 - level) / 2.0;
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if upper_tail(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo * lo / 2.0
}

impl Curve {
    /// The curve of `trials`; `None` without any.
    pub fn of(trials: &[Trial]) -> Option<Curve> {
        // Trials grouped by rate: (ln rate, kept, not kept).
        let mut groups: Vec<(f64, f64, f64)> = Vec::new();
        for t in trials.iter().filter(|t| t.rate > 0.0) {
            let x = t.rate.ln();
            match groups.iter_mut().find(|g| (g.0 - x).abs() < 1e-12) {
                Some(g) => {
                    g.1 += f64::from(u8::from(t.kept));
                    g.2 += f64::from(u8::from(!t.kept));
                }
                None => groups.push((x, f64::from(u8::from(t.kept)), f64::from(u8::from(!t.kept)))),
            }
        }
        let lo = groups.iter().map(|g| g.0).fold(f64::INFINITY, f64::min);
        let hi = groups.iter().map(|g| g.0).fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() {
            return None;
        }
        let first = ((lo - REACH) / STEP).floor() as i64;
        let last = ((hi + REACH) / STEP).ceil() as i64;
        let sigmas: Vec<f64> = sigmas().collect();
        let ll: Vec<f64> = (first..=last)
            .map(|k| {
                let mu = k as f64 * STEP;
                sigmas
                    .iter()
                    .map(|s| {
                        groups
                            .iter()
                            .map(|&(x, kept, not)| {
                                let z = (mu - x) / s;
                                let mut l = 0.0;
                                if kept > 0.0 {
                                    l += kept * ln_phi(z);
                                }
                                if not > 0.0 {
                                    l += not * ln_phi(-z);
                                }
                                l
                            })
                            .sum::<f64>()
                    })
                    .collect::<Vec<f64>>()
            })
            // The likelihood averaged over σ (log-spaced: a log-uniform prior), in logs.
            .map(|v: Vec<f64>| {
                let top = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                top + (v.iter().map(|l| (l - top).exp()).sum::<f64>() / v.len() as f64).ln()
            })
            .collect();
        let held = trials
            .iter()
            .filter(|t| t.kept && t.rate > 0.0)
            .map(|t| t.rate.ln())
            .fold(f64::NEG_INFINITY, f64::max);
        Some(Curve { first, ll, held }.topped())
    }

    /// Shifted so that its top is 0.
    fn topped(mut self) -> Curve {
        let top = self.ll.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        self.ll.iter_mut().for_each(|l| *l -= top);
        self
    }

    fn at(&self, i: usize) -> f64 {
        (self.first + i as i64) as f64 * STEP
    }

    /// The curve's value at `x`: the nearest grid point's; beyond the grid, its end's (the
    /// curve is taken as constant past its ends, where every trial is far to one side).
    fn value(&self, x: f64) -> f64 {
        let k = (x / STEP).round() as i64 - self.first;
        self.ll[k.clamp(0, self.ll.len() as i64 - 1) as usize]
    }

    /// The profile of `a − b`: at each difference `d`, the best `a(μ + d) + b(μ)` over every
    /// `μ`, each curve constant past its ends. Past `[a's first − b's last, a's last − b's
    /// first]` (one step more each way) it is constant too, so that is its grid.
    pub fn difference(a: &Curve, b: &Curve) -> Curve {
        let (la, lb) = (a.ll.len() as i64, b.ll.len() as i64);
        let a_at = |k: i64| a.ll[k.clamp(0, la - 1) as usize];
        // The best of a at or below index k, and at or above it (k clamped to the grid).
        let mut below = a.ll.clone();
        for i in 1..below.len() {
            below[i] = below[i].max(below[i - 1]);
        }
        let mut above = a.ll.clone();
        for i in (0..above.len().saturating_sub(1)).rev() {
            above[i] = above[i].max(above[i + 1]);
        }
        let best_below = |k: i64| below[k.clamp(0, la - 1) as usize];
        let best_above = |k: i64| above[k.clamp(0, la - 1) as usize];
        let (b_low, b_high) = (b.ll[0], b.ll[(lb - 1) as usize]);
        // d in steps: a's index = b's index + d + (b.first − a.first).
        let first = a.first - (b.first + lb - 1) - 1;
        let last = a.first + la - 1 - b.first + 1;
        let ll = (first..=last)
            .map(|d| {
                let shift = d + b.first - a.first;
                // μ on b's grid.
                let inside = (0..lb)
                    .map(|j| a_at(j + shift) + b.ll[j as usize])
                    .fold(f64::NEG_INFINITY, f64::max);
                // μ below b's grid (b at its low end), or above it (its high end).
                let low = b_low + best_below(shift - 1);
                let high = b_high + best_above(lb + shift);
                inside.max(low).max(high)
            })
            .collect();
        Curve {
            first,
            ll,
            held: f64::INFINITY,
        }
        .topped()
    }

    /// The estimate (the middle of the points at the top) and its interval at `level`: the
    /// points within `χ²₁(level)/2` of the top, open (`±∞`) where they reach the grid's end.
    pub fn estimate(&self, level: f64) -> Estimate {
        let top: Vec<usize> = (0..self.ll.len())
            .filter(|&i| self.ll[i] >= -1e-9)
            .collect();
        let at = (self.at(top[0]) + self.at(*top.last().unwrap_or(&top[0]))) / 2.0;
        let drop = drop_at(level);
        let inside: Vec<usize> = (0..self.ll.len())
            .filter(|&i| self.ll[i] >= -drop)
            .collect();
        let (i, j) = (inside[0], *inside.last().unwrap_or(&inside[0]));
        Estimate {
            at,
            low: if i == 0 {
                f64::NEG_INFINITY
            } else {
                self.at(i)
            },
            high: if j + 1 == self.ll.len() {
                f64::INFINITY
            } else {
                self.at(j)
            },
        }
    }

    /// The p-value of the likelihood-ratio test that the curve's parameter is `x` (two-sided).
    pub fn p_at(&self, x: f64) -> f64 {
        let stat = -2.0 * self.value(x);
        if !stat.is_finite() {
            return 0.0;
        }
        (2.0 * upper_tail(stat.max(0.0).sqrt())).min(1.0)
    }

    /// The p-value that the parameter is at least `x` (one-sided, the signed root), when the
    /// estimate lies below it; at least 0.5 otherwise.
    pub fn p_at_least(&self, x: f64) -> f64 {
        let r = (-2.0 * self.value(x)).max(0.0).sqrt();
        let e = self.estimate(0.5).at;
        if e < x {
            upper_tail(r)
        } else {
            1.0 - upper_tail(r)
        }
    }

    /// The p-value that the parameter is at most `x` (one-sided), when the estimate lies above
    /// it; at least 0.5 otherwise.
    pub fn p_at_most(&self, x: f64) -> f64 {
        let r = (-2.0 * self.value(x)).max(0.0).sqrt();
        let e = self.estimate(0.5).at;
        if e > x {
            upper_tail(r)
        } else {
            1.0 - upper_tail(r)
        }
    }
}

/// A server's capacity on an endpoint as the reports show it: the estimate and its 95 %
/// interval in requests/s (`high` infinite: a lower bound, `low` 0: an upper one), over
/// `trials` runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capacity {
    /// The estimate, requests/s (for a bound, the interval's finite end).
    pub rate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The runs it is over.
    pub trials: usize,
}

impl Capacity {
    /// The capacity of `steps`' rungs on `endpoint`; `None` without a run of a valid rung
    /// that the load tool did not limit.
    pub fn of(steps: &[StepResult], endpoint: &str) -> Option<Capacity> {
        let t = trials(steps, endpoint);
        Some(Capacity::from_curve(&Curve::of(&t)?, t.len()))
    }

    /// The estimate of `curve` (a capacity, or a ratio of two) over `trials` runs.
    pub fn from_curve(curve: &Curve, trials: usize) -> Capacity {
        let mut e = curve.estimate(crate::stats::LEVEL);
        // Open above, the interval's lower end is a lower bound of the capacity: never above
        // the highest rate held in a run (the model's spread alone would put it higher).
        if e.high.is_infinite() {
            e.low = e.low.min(curve.held);
        }
        let at = match (e.low.is_finite(), e.high.is_finite()) {
            (true, false) => e.low,
            (false, true) => e.high,
            _ => e.at,
        };
        Capacity {
            rate: at.exp(),
            low: e.low.exp(),
            high: e.high.exp(),
            trials,
        }
    }

    /// A lower bound: the interval is open above (held at every rate the load tool could
    /// offer).
    pub fn at_least(&self) -> bool {
        self.high.is_infinite()
    }

    /// An upper bound: open below (held at no rate tried).
    pub fn at_most(&self) -> bool {
        self.low <= 0.0
    }

    /// `29,300 [27,100–31,500]`, `≥ 61,200`, `≤ 1,000`, each end written by `f`.
    pub fn text(&self, f: impl Fn(f64) -> String) -> String {
        match (self.at_least(), self.at_most()) {
            (true, false) => format!("≥ {}", f(self.low)),
            (false, true) => format!("≤ {}", f(self.high)),
            (true, true) => "n/a".to_string(),
            (false, false) => format!("{} [{}–{}]", f(self.rate), f(self.low), f(self.high)),
        }
    }
}

/// Two runs' capacities compared (`old`, `new`: each run's [`Curve`]) against `margin`, as
/// every other figure is ([`super::judge`]): the new over the old with its 95 % interval, and
/// the likelihood-ratio p-values of a move, a move beyond the margin, and sameness within it.
/// A curve open above (a lower bound) leaves the difference open on its side, so bound
/// against bound is never the same and moves only when the other run failed below it.
pub fn judge(old: &Curve, new: &Curve, trials: (usize, usize), margin: f64) -> super::Judgement {
    let d = Curve::difference(new, old);
    let c = Capacity::from_curve(&d, trials.0.min(trials.1));
    let m = (1.0 + margin).ln();
    super::Judgement {
        ratio: super::Ratio {
            x: c.rate,
            low: c.low,
            high: c.high,
            coverage: crate::stats::LEVEL,
        },
        p_moved: d.p_at(0.0),
        p_beyond: (2.0 * d.p_at_most(m).min(d.p_at_least(-m))).min(1.0),
        p_same: d.p_at_least(m).max(d.p_at_most(-m)),
        min_p: 0.0,
        n: trials,
        spread: 0.0,
        margin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trials(rows: &[(f64, usize, usize)]) -> Vec<Trial> {
        rows.iter()
            .flat_map(|&(rate, kept, not)| {
                std::iter::repeat_n(Trial { rate, kept: true }, kept)
                    .chain(std::iter::repeat_n(Trial { rate, kept: false }, not))
            })
            .collect()
    }

    #[test]
    fn the_quantile_of_chi_square_is_the_tables() {
        assert!((drop_at(0.95) - 3.841_459 / 2.0).abs() < 1e-5);
        assert!((drop_at(0.90) - 2.705_543 / 2.0).abs() < 1e-5);
        assert!((ln_phi(0.0) - 0.5f64.ln()).abs() < 1e-12);
        assert!(
            (ln_phi(-30.0001) - ln_phi(-29.9999)).abs() < 0.01,
            "continuous at the switch"
        );
    }

    /// Held at 10k and 20k in every round, not at 40k in any: the estimate is the middle of
    /// 20k and 40k, and the interval lies inside them (six rounds of six held at 20k would be
    /// a 1-in-64 chance if 20k were the capacity itself, the rate held in half the runs).
    #[test]
    fn a_separated_ladder_gives_its_bracket_widened_by_the_noise_floor() {
        let c = Curve::of(&trials(&[(10e3, 6, 0), (20e3, 6, 0), (40e3, 0, 6)])).unwrap();
        let e = c.estimate(0.95);
        let mid = (20e3f64 * 40e3).sqrt().ln();
        assert!((e.at - mid).abs() < 0.02, "{e:?} {mid}");
        assert!(e.low > 20e3f64.ln() && e.low < mid - 0.1, "{e:?}");
        assert!(e.high < 40e3f64.ln() && e.high > mid + 0.1, "{e:?}");
        // Held everywhere: a lower bound, open above.
        let c = Curve::of(&trials(&[(10e3, 6, 0), (80e3, 6, 0)])).unwrap();
        let e = c.estimate(0.95);
        assert!(
            e.high.is_infinite() && e.low > 80e3f64.ln() && e.low < 100e3f64.ln(),
            "{e:?}"
        );
        // Held nowhere: open below.
        let c = Curve::of(&trials(&[(10e3, 0, 6)])).unwrap();
        assert!(c.estimate(0.95).low.is_infinite());
        assert!(Curve::of(&[]).is_none());
    }

    /// Rounds that disagree at a rung spread the interval: 3 of 6 at 30k is the capacity.
    #[test]
    fn rounds_that_disagree_put_the_capacity_at_their_rate() {
        let c = Curve::of(&trials(&[(20e3, 6, 0), (30e3, 3, 3), (40e3, 0, 6)])).unwrap();
        let e = c.estimate(0.95);
        assert!((e.at - 30e3f64.ln()).abs() < 0.03, "{e:?}");
        assert!(e.low < 30e3f64.ln() && e.high > 30e3f64.ln());
    }

    /// Two runs of one server: the difference is centred on 0 and holds it; a server that
    /// fell from [20k, 40k) to [5k, 10k) moved, with a tiny p-value.
    #[test]
    fn differences_of_capacities_are_tested_by_their_likelihood() {
        let a = Curve::of(&trials(&[(10e3, 6, 0), (20e3, 6, 0), (40e3, 0, 6)])).unwrap();
        let d = Curve::difference(&a, &a);
        let e = d.estimate(0.95);
        assert!(e.at.abs() < 1e-9 && e.low < 0.0 && e.high > 0.0, "{e:?}");
        assert!((d.p_at(0.0) - 1.0).abs() < 1e-9);
        let b = Curve::of(&trials(&[(5e3, 6, 0), (10e3, 0, 6), (20e3, 0, 6)])).unwrap();
        let d = Curve::difference(&b, &a);
        assert!(d.p_at(0.0) < 1e-6, "{}", d.p_at(0.0));
        let e = d.estimate(0.95);
        assert!(e.at < -1.0 && e.high < 0.0, "{e:?}");
        // A lower bound against a lower bound: no difference can be excluded above.
        let top = Curve::of(&trials(&[(10e3, 6, 0), (80e3, 6, 0)])).unwrap();
        let d = Curve::difference(&top, &top);
        let e = d.estimate(0.95);
        assert!(e.low.is_infinite() || e.high.is_infinite(), "{e:?}");
        assert!(d.p_at(0.0) > 0.5);
        assert!(d.p_at_least(0.1) > 0.05 || d.p_at_most(-0.1) > 0.05);
    }
}
