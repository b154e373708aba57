//! Verdicts with a known error rate: whether a figure moved between two runs, stayed the same
//! within a margin, or cannot be told at the runs' precision, and how often each call is
//! wrong. Every comparison `bench compare` makes goes through here; the method is written out
//! in docs/reading-results.md ("Comparing two runs"), and [`calibrate`] measures its error
//! rates on simulated runs shaped like a publish.
//!
//! **One figure** ([`judge`]) is compared on its per-round values in each run, on logs (a
//! finding's or a ratio to the ceiling's: the per-round paired ratios):
//!
//! - the exact two-sample rank test ([`rank::test`], Mann–Whitney) gives `p_moved`;
//! - the Hodges–Lehmann shift of the new run's logs over the old's, with its exact interval
//!   ([`rank::shift`]), gives the size: `+12 % [+4 %, +21 %]`;
//! - two one-sided rank tests against `±margin` (TOST) give `p_same`: small when the shift
//!   is shown to lie inside the margin;
//! - a side that is a bound ([`Bound`]: requests/s the load tool set is at least what was
//!   measured) allows a move only in the direction the bound cannot fake, and never "same".
//!
//! **Many figures** ([`decide`]) get their verdicts together, so that the error rates hold
//! over the whole report: **moved** when `p_moved`, adjusted by Benjamini–Hochberg over every
//! figure compared ([`multiple::bh`]), is at most [`ALPHA`]; **same within ±margin** when
//! `p_same`, adjusted the same way over every figure, is; otherwise **undecided**, with the
//! rounds a side would need in a comparison of that size ([`rounds_needed`]). Among the figures called moved, at most 5 %
//! are expected to be false; among those called the same, at most 5 % are expected to lie
//! outside the margin.
//!
//! **A gate** ([`gate`]) is stricter: over a declared family of figures, it fails when any
//! moved *beyond the margin* (`p_beyond`, the rank test of a shift of `±margin`), with Holm's
//! adjustment over the family ([`multiple::holm`]): the chance that a clean comparison fails
//! it is at most [`ALPHA`], whatever the dependence between figures, and a machine whose
//! speed drifted by less than the margin between the two runs does not fail it either.
//!
//! E7's capacity has its own likelihood ([`capacity`]) and enters [`decide`] and [`gate`]
//! through the same [`Judgement`].

pub mod calibrate;
pub mod capacity;
pub mod multiple;
pub mod rank;
pub mod sequential;

use serde::Serialize;

/// The level of every verdict: the report's false discovery rate for "moved" and for "same",
/// and the gate's family-wise error.
pub const ALPHA: f64 = 0.05;

/// The default margin of "same within ±M": 10 %. Every finding of the articles is a ratio of
/// 1.5× or more, and the VM's own dips are 10–25 % of a run: within ±10 % two figures are the
/// same for every question the project asks, and most of the publish's figures have a
/// per-round spread (log-sd 0.14–0.18, the two publishes of 2026-12-03 and 12-04) that 6
/// rounds cannot resolve more finely.
pub const MARGIN: f64 = 0.10;

/// The power [`rounds_needed`] plans for.
pub const POWER: f64 = 0.8;

/// The Mann–Whitney test's efficiency relative to the t-test for normal figures (3/π):
/// [`rounds_needed`] plans with it.
const EFFICIENCY: f64 = 3.0 / std::f64::consts::PI;

/// What one side's figures are: exactly what was measured, or a bound of the server's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The figures are the server's.
    #[default]
    Exact,
    /// The server's true figure is at least this (requests/s the load tool set).
    AtLeast,
    /// At most this (a ratio over a side that is at least).
    AtMost,
}

impl Bound {
    /// The bound of `a / b` for sides `a` and `b`; `None` when the two bounds point the same
    /// way (at least over at least: no bound at all).
    pub fn of_ratio(a: Bound, b: Bound) -> Option<Bound> {
        use Bound::*;
        match (a, b) {
            (Exact, Exact) => Some(Exact),
            (AtLeast, Exact) | (Exact, AtMost) | (AtLeast, AtMost) => Some(AtLeast),
            (AtMost, Exact) | (Exact, AtLeast) | (AtMost, AtLeast) => Some(AtMost),
            (AtLeast, AtLeast) | (AtMost, AtMost) => None,
        }
    }

    /// `≥ `, `≤ ` or nothing.
    pub fn sign(self) -> &'static str {
        match self {
            Bound::Exact => "",
            Bound::AtLeast => "≥ ",
            Bound::AtMost => "≤ ",
        }
    }
}

/// One run's figures for one comparison: the per-round values (positive) and what they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Side {
    /// The per-round values.
    pub values: Vec<f64>,
    /// Whether they are exact or a bound.
    pub bound: Bound,
}

/// A comparison of one figure between two runs, before the report's verdicts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// The new run's figure over the old's: the Hodges–Lehmann shift of the logs, as a ratio
    /// (`1.12`), with its interval and that interval's coverage.
    pub ratio: Ratio,
    /// The p-value of "moved" in the directions the sides' bounds allow (1 for none).
    pub p_moved: f64,
    /// The p-value of "moved by more than the margin" (the gate's), likewise.
    pub p_beyond: f64,
    /// The p-value of "the same within the margin" (1 when a side is a bound).
    pub p_same: f64,
    /// The smallest `p_moved` these rounds could give: below the level a family asks, nothing
    /// can be shown.
    pub min_p: f64,
    /// The rounds of the old run and of the new.
    pub n: (usize, usize),
    /// The per-round spread pooled over both runs (sd of the logs).
    pub spread: f64,
    /// The margin judged against (`0.10`: ±10 %).
    pub margin: f64,
}

/// A ratio with its interval and the interval's coverage.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ratio {
    /// The estimate.
    pub x: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The probability that an interval made this way holds the true ratio.
    pub coverage: f64,
}

/// The sd of `v` (logs) about their mean and how many there are (0 for fewer than two).
fn sd(v: &[f64]) -> (f64, usize) {
    (crate::stats::sd(v).unwrap_or(0.0), v.len())
}

/// Compares `old` and `new` (each with at least two positive values) against `margin`;
/// `None` when a side has fewer than two.
pub fn judge(old: &Side, new: &Side, margin: f64) -> Option<Judgement> {
    let logs = |s: &Side| -> Vec<f64> {
        s.values
            .iter()
            .filter(|v| **v > 0.0 && v.is_finite())
            .map(|v| v.ln())
            .collect()
    };
    let (x, y) = (logs(old), logs(new));
    if x.len() < 2 || y.len() < 2 {
        return None;
    }
    let shift = rank::shift(&x, &y, crate::stats::LEVEL);
    let t = rank::test(&x, &y);
    let (up, down) = directions(old.bound, new.bound);
    let one_sided = |up_p: f64, down_p: f64| match (up, down) {
        (true, true) => (2.0 * up_p.min(down_p)).min(1.0),
        (true, false) => up_p,
        (false, true) => down_p,
        (false, false) => 1.0,
    };
    let d = (1.0 + margin).ln();
    let shifted = |by: f64| -> Vec<f64> { y.iter().map(|v| v - by).collect() };
    // Beyond: the new run's logs less the margin still above the old's (or plus it, below).
    let beyond_up = rank::test(&x, &shifted(d)).greater;
    let beyond_down = rank::test(&x, &shifted(-d)).less;
    // Same: the new less the margin below the old, and plus the margin above it (TOST).
    let same = if up && down {
        rank::test(&x, &shifted(d))
            .less
            .max(rank::test(&x, &shifted(-d)).greater)
    } else {
        1.0
    };
    let (sx, nx) = sd(&x);
    let (sy, ny) = sd(&y);
    let spread =
        (((nx - 1) as f64 * sx * sx + (ny - 1) as f64 * sy * sy) / (nx + ny - 2) as f64).sqrt();
    Some(Judgement {
        ratio: Ratio {
            x: shift.estimate.exp(),
            low: shift.low.exp(),
            high: shift.high.exp(),
            coverage: shift.coverage,
        },
        p_moved: one_sided(t.greater, t.less),
        p_beyond: one_sided(beyond_up, beyond_down),
        p_same: same,
        // Nothing can be shown when the bounds allow no move.
        min_p: if up || down { t.min_two_sided } else { 1.0 },
        n: (x.len(), y.len()),
        spread,
        margin,
    })
}

/// Which moves the bounds allow: up (the new run's figure above the old's) needs a new side
/// that is not an upper bound and an old one that is not a lower bound; down, the reverse.
fn directions(old: Bound, new: Bound) -> (bool, bool) {
    let up = new != Bound::AtMost && old != Bound::AtLeast;
    let down = new != Bound::AtLeast && old != Bound::AtMost;
    (up, down)
}

/// What a comparison concluded, once every figure of the report was judged ([`decide`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Moved: the new run's figure over the old's (with its interval), shown at the report's
    /// false discovery rate; `within` when it was also shown to be within the margin (a real
    /// but small move).
    Moved {
        /// The ratio and its interval.
        ratio: Ratio,
        /// Also shown within the margin.
        within: bool,
    },
    /// The same within `±margin`, shown at the report's false discovery rate.
    Same {
        /// The margin (`0.10`).
        margin: f64,
    },
    /// Neither shown: `rounds` a side would about decide it (`None`: no estimate of the
    /// spread, or more than 1,000).
    Undecided {
        /// The rounds a side would need.
        rounds: Option<usize>,
    },
    /// A side had fewer than two rounds, or both sides are bounds pointing the same way.
    Unjudged,
}

impl Verdict {
    /// Whether it is a move.
    pub fn moved(&self) -> bool {
        matches!(self, Verdict::Moved { .. })
    }

    /// `moved +12.3 % [+4.1, +21.0] (95 %)`, `same within ±10 %`, `undecided (about 14 rounds
    /// a side)`, `not judged`.
    pub fn text(&self) -> String {
        let pct = |x: f64| format!("{:+.1}", (x - 1.0) * 100.0);
        match self {
            // An interval open on one side (a capacity's lower bound): a move of at least.
            Verdict::Moved { ratio, .. } if ratio.high.is_infinite() => {
                format!("moved up, by at least {} %", pct(ratio.low))
            }
            Verdict::Moved { ratio, .. } if ratio.low <= 0.0 => {
                format!("moved down, by at least {} %", pct(ratio.high))
            }
            Verdict::Moved { ratio, within } => format!(
                "moved {} % [{}, {}] ({}){}",
                pct(ratio.x),
                pct(ratio.low),
                pct(ratio.high),
                crate::stats::coverage(ratio.coverage),
                if *within { ", within the margin" } else { "" }
            ),
            Verdict::Same { margin } => format!("same within ±{:.0} %", margin * 100.0),
            Verdict::Undecided { rounds: Some(n) } => {
                format!("undecided (about {n} rounds a side would decide it)")
            }
            Verdict::Undecided { rounds: None } => "undecided".to_string(),
            Verdict::Unjudged => "not judged".to_string(),
        }
    }
}

/// The verdicts of `judgements` (in order; `None`: not judged), every figure of one report
/// together: Benjamini–Hochberg at [`ALPHA`] over `p_moved`, and over `p_same`.
pub fn decide(judgements: &[Option<Judgement>]) -> Vec<Verdict> {
    let judged: Vec<&Judgement> = judgements.iter().flatten().collect();
    let moved = multiple::bh(&judged.iter().map(|j| j.p_moved).collect::<Vec<_>>());
    let same = multiple::bh(&judged.iter().map(|j| j.p_same).collect::<Vec<_>>());
    let mut k = 0;
    judgements
        .iter()
        .map(|j| {
            let Some(j) = j else {
                return Verdict::Unjudged;
            };
            let (m, s) = (moved[k] <= ALPHA, same[k] <= ALPHA);
            k += 1;
            if m {
                Verdict::Moved {
                    ratio: j.ratio,
                    within: s,
                }
            } else if s {
                Verdict::Same { margin: j.margin }
            } else if j.p_moved >= 1.0 && j.p_same >= 1.0 && j.min_p >= 1.0 {
                Verdict::Unjudged
            } else {
                Verdict::Undecided {
                    rounds: rounds_needed(j, ALPHA / judged.len() as f64),
                }
            }
        })
        .collect()
}

/// About how many rounds a side would decide `j` at [`POWER`] in a comparison whose tests are
/// held to `level` each (a report of `m` figures: [`ALPHA`]` / m`, the level Benjamini and
/// Hochberg ask of a lone discovery among them): to show the move, when the observed shift is
/// at least half the margin; else to show it within the margin (normal approximation on the
/// logs with the pooled spread, scaled by the rank test's efficiency, and at least the rounds
/// whose smallest p-value reaches `level`, and more than the rounds it has). `None` with no
/// spread or more than 1,000.
pub fn rounds_needed(j: &Judgement, level: f64) -> Option<usize> {
    let s = j.spread;
    if s <= 0.0 || !s.is_finite() {
        return None;
    }
    let shift = j.ratio.x.ln().abs();
    let margin = (1.0 + j.margin).ln();
    let z_power = normal_quantile(POWER);
    let (z, effect) = if shift >= margin / 2.0 {
        (normal_quantile(1.0 - level / 2.0), shift)
    } else {
        (normal_quantile(1.0 - level), margin - shift)
    };
    let n = 2.0 * (z + z_power).powi(2) * s * s / (EFFICIENCY * effect * effect);
    let n = n
        .ceil()
        .max(rounds_for(level) as f64)
        .max((j.n.0.max(j.n.1) + 1) as f64);
    (n <= 1000.0).then_some(n as usize)
}

/// The fewest rounds a side whose best two-sided p-value (all of one run beyond all of the
/// other: `2 / C(2n, n)`) is at most `level`.
pub fn rounds_for(level: f64) -> usize {
    (1..=64)
        .find(|&n| rank::Null::continuous(n, n).min_two_sided() <= level)
        .unwrap_or(64)
}

/// The standard normal quantile at `p` (0 < p < 1), by bisection on its upper tail.
pub fn normal_quantile(p: f64) -> f64 {
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        let cdf = 1.0 - 0.5 * statrs::function::erf::erfc(mid / std::f64::consts::SQRT_2);
        if cdf < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The gate over a declared family: which of `family` moved beyond the margin, with Holm's
/// adjustment at [`ALPHA`], and what the family's size asks of the rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    /// For each member (in order), whether it failed the gate (`None`: not tested: fewer than
    /// two rounds a side, or two bounds that allow no move).
    pub failed: Vec<Option<bool>>,
    /// The members tested: Holm's family.
    pub judged: usize,
    /// Holm's first threshold, `ALPHA / judged`: a member whose rounds cannot give a p-value
    /// this small cannot fail the gate.
    pub first_threshold: f64,
    /// The members whose rounds cannot reach it.
    pub unreachable: usize,
    /// The rounds a side that can reach it.
    pub rounds_for_family: usize,
}

impl Gate {
    /// Whether any member failed.
    pub fn fails(&self) -> bool {
        self.failed.contains(&Some(true))
    }
}

/// The gate over `family` ([`Gate`]). A member whose bounds allow no move at all (`min_p` 1)
/// is left out of Holm's family rather than counted in it with a p-value of 1, which would
/// only lower every other member's threshold (Tarone, 1990).
pub fn gate(family: &[Option<Judgement>]) -> Gate {
    let tested = |j: &Option<Judgement>| j.filter(|j| j.min_p < 1.0);
    let judged: Vec<Judgement> = family.iter().filter_map(tested).collect();
    let adjusted = multiple::holm(&judged.iter().map(|j| j.p_beyond).collect::<Vec<_>>());
    let mut k = 0;
    let failed = family
        .iter()
        .map(|j| {
            tested(j).map(|_| {
                k += 1;
                adjusted[k - 1] <= ALPHA
            })
        })
        .collect();
    let first_threshold = ALPHA / judged.len().max(1) as f64;
    Gate {
        failed,
        judged: judged.len(),
        first_threshold,
        unreachable: judged.iter().filter(|j| j.min_p > first_threshold).count(),
        rounds_for_family: rounds_for(first_threshold),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(v: &[f64]) -> Side {
        Side {
            values: v.to_vec(),
            bound: Bound::Exact,
        }
    }

    const NOISY: [f64; 6] = [1.0, 1.13, 0.91, 1.05, 0.86, 1.2];

    /// Noisy rounds 30 % apart: moved, with the size's interval holding 1.30; the same runs
    /// at +2 %: the same within ±10 % only when the rounds are many, undecided at 6.
    #[test]
    fn a_noisy_move_is_moved_and_a_small_one_is_undecided_at_six_rounds() {
        let old = side(&NOISY);
        let new = side(&NOISY.map(|v| v * 1.3 * 1.01));
        let j = judge(&old, &new, MARGIN).unwrap();
        assert!(j.p_moved < 0.05, "{j:?}");
        assert!(j.ratio.low < 1.31 && 1.31 < j.ratio.high, "{j:?}");
        let v = decide(&[Some(j)]);
        assert!(v[0].moved(), "{v:?}");
        assert!(v[0].text().starts_with("moved +"), "{}", v[0].text());
        // "Medians differ" would call this moved; the rank test does not.
        let new = side(&NOISY.map(|v| v * 1.02));
        let j = judge(&old, &new, MARGIN).unwrap();
        let v = decide(&[Some(j)]);
        assert!(
            matches!(v[0], Verdict::Undecided { rounds: Some(n) } if n > 6),
            "{v:?}"
        );
        // 30 rounds a side of small noise at +2 %: a real move of 2 %, shown, and shown to lie
        // within ±10 %.
        let many: Vec<f64> = (0..30)
            .map(|i| 1.0 + 0.03 * ((i * 7 % 11) as f64 - 5.0) / 5.0)
            .collect();
        let j = judge(
            &side(&many),
            &side(&many.iter().map(|v| v * 1.02).collect::<Vec<_>>()),
            MARGIN,
        )
        .unwrap();
        let v = decide(&[Some(j)]);
        assert!(matches!(v[0], Verdict::Moved { within: true, .. }), "{v:?}");
        assert!(
            v[0].text().ends_with(", within the margin"),
            "{}",
            v[0].text()
        );
        // The same rounds with no move: the same within ±10 %.
        let j = judge(
            &side(&many),
            &side(&many.iter().rev().copied().collect::<Vec<_>>()),
            MARGIN,
        )
        .unwrap();
        assert_eq!(
            decide(&[Some(j)])[0],
            Verdict::Same { margin: MARGIN },
            "{j:?}"
        );
    }

    /// A lower bound (requests/s the tool set) can only be shown to have been beaten from
    /// below: an exact side under it moved down; above it, or bound against bound, nothing.
    #[test]
    fn bounds_allow_only_the_moves_they_cannot_fake() {
        let at_least = |v: &[f64]| Side {
            values: v.to_vec(),
            bound: Bound::AtLeast,
        };
        let low = NOISY.map(|v| v * 0.5);
        let high = NOISY.map(|v| v * 2.0);
        let j = judge(&at_least(&NOISY), &side(&low), MARGIN).unwrap();
        assert!(j.p_moved < 0.01 && j.p_same == 1.0, "{j:?}");
        let j = judge(&at_least(&NOISY), &side(&high), MARGIN).unwrap();
        assert_eq!(j.p_moved, 1.0, "{j:?}");
        let j = judge(&at_least(&NOISY), &at_least(&low), MARGIN).unwrap();
        assert_eq!((j.p_moved, j.p_same), (1.0, 1.0));
        assert_eq!(decide(&[Some(j)])[0], Verdict::Unjudged);
        assert_eq!(Bound::of_ratio(Bound::AtLeast, Bound::AtLeast), None);
        assert_eq!(
            Bound::of_ratio(Bound::Exact, Bound::AtLeast),
            Some(Bound::AtMost)
        );
        assert!(judge(&side(&[1.0]), &side(&NOISY), MARGIN).is_none());
    }

    /// The gate's family: with 6 rounds a side, 30 members put Holm's first threshold (0.0017)
    /// below the best p-value 6 rounds give (0.0022): none can fail, and it says 7 rounds can.
    #[test]
    fn the_gate_says_when_its_family_is_too_large_for_the_rounds() {
        let old = side(&NOISY);
        let far = side(&NOISY.map(|v| v * 3.0));
        let j = judge(&old, &far, MARGIN).unwrap();
        assert!(gate(&[Some(j)]).fails());
        let family: Vec<Option<Judgement>> = std::iter::repeat_n(Some(j), 30).collect();
        let g = gate(&family);
        assert!(
            !g.fails() && g.unreachable == 30 && g.rounds_for_family == 7,
            "{g:?}"
        );
        assert_eq!(rounds_for(0.05), 4);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-5);
    }
}
