//! The statistics every results file and command share: the median of a set of figures (the
//! figure a step, a round of tools or a finding reports), and how sure it is: a
//! distribution-free confidence interval for that median ([`median_interval`]), over a cell's
//! rounds or over the per-round ratios of a paired comparison
//! ([`StepResult::paired_ratio`](crate::results::StepResult::paired_ratio)), and how every
//! report writes it ([`Interval::bracket`]).
//!
//! The interval is the one of order statistics (Hoefler and Belli, SC'15; Conover, *Practical
//! Nonparametric Statistics*, 3.2): with the `n` values sorted, `[x(k), x(n+1-k)]` holds the
//! true median with probability `1 - 2·P(B ≤ k-1)`, `B ~ Binomial(n, 1/2)`, whatever the
//! values' distribution, as long as the rounds are independent draws of it; `k` is the
//! largest whose probability is still at least the level asked. With too few values for the
//! level (fewer than 6 for 95 %) it is `[min, max]`, and [`Interval::confidence`] says what
//! that interval's own probability is.

/// The median of `v` (the mean of the middle two for an even count); `None` for none.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The sample standard deviation of `v` about its mean (n − 1); `None` below 2 values.
pub fn sd(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let ss: f64 = v.iter().map(|x| (x - mean).powi(2)).sum();
    Some((ss / (v.len() - 1) as f64).sqrt())
}

/// The median of whole numbers (the mean of the middle two rounded half up, without
/// overflow); `None` for none.
pub fn median_u64(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => {
            let (a, b) = (v[n / 2 - 1], v[n / 2]);
            Some(a / 2 + b / 2 + (a % 2 + b % 2).div_ceil(2))
        }
    }
}

/// The confidence level of every interval the harness reports: 95 %.
pub const LEVEL: f64 = 0.95;

/// A confidence interval for a median.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
    /// Its real coverage: the probability that an interval made this way holds the true
    /// median, whatever the values' distribution. At least the level asked (0.95) when there
    /// were values enough (6 or more); with fewer the interval is `[min, max]` and its
    /// coverage is less, never the level: 0.5 for 2 values, 0.75 for 3, 0.875 for 4, 0.9375
    /// for 5 (0 for one). Every report writes it beside such an interval (`[a–b; 3 rounds,
    /// 75 %]`), so that none is called a 95 % interval.
    pub confidence: f64,
    /// How many values it is over.
    pub n: usize,
}

impl Interval {
    /// Whether `x` is within it (bounds included).
    pub fn holds(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// Whether it reaches the level asked ([`LEVEL`]).
    pub fn at_level(&self) -> bool {
        self.confidence >= LEVEL - 1e-9
    }

    /// What it is, as every report says it: `95 % CI` when it reaches [`LEVEL`]; else its
    /// rounds and its real coverage, `min–max of 3 rounds, 75 %` (so that no interval from too
    /// few rounds is ever called 95 %).
    pub fn label(&self) -> String {
        if self.at_level() {
            format!("{:.0} % CI", LEVEL * 100.0)
        } else {
            format!(
                "min–max of {} round{}, {}",
                self.n,
                if self.n == 1 { "" } else { "s" },
                coverage(self.confidence)
            )
        }
    }

    /// The interval in brackets with each end written by `f`, as every table, chart label,
    /// finding and comparison writes it: `[0.95–1.01]` at [`LEVEL`] (the report's key says
    /// 95 %), `[0.95–1.01; 3 rounds, 75 %]` below it.
    pub fn bracket(&self, f: impl Fn(f64) -> String) -> String {
        if self.at_level() {
            format!("[{}–{}]", f(self.low), f(self.high))
        } else {
            format!(
                "[{}–{}; {} round{}, {}]",
                f(self.low),
                f(self.high),
                self.n,
                if self.n == 1 { "" } else { "s" },
                coverage(self.confidence)
            )
        }
    }
}

/// A coverage as the reports write it: `95 %`, `87.5 %`, `50 %` (rounded down to a tenth, so
/// that 94.99 % never reads as 95 %).
pub fn coverage(c: f64) -> String {
    let tenths = (c * 1000.0 + 1e-9).floor() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0} %")
    } else {
        format!("{tenths:.1} %")
    }
}

/// `P(B ≤ j)` for `B ~ Binomial(n, 1/2)`, for every `j` in `0..=n` (in log space, so that
/// `n` in the thousands neither overflows nor underflows).
fn binomial_half_cdf(n: usize) -> Vec<f64> {
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0f64;
    let mut cdf = Vec::with_capacity(n + 1);
    let mut sum = 0.0;
    for j in 0..=n {
        if j > 0 {
            ln_choose += ((n - j + 1) as f64).ln() - (j as f64).ln();
        }
        sum += (ln_choose + ln_half_n).exp();
        cdf.push(sum.min(1.0));
    }
    cdf
}

/// The distribution-free confidence interval of the median of `v` at `level` (module
/// documentation); `None` for no (finite) values.
pub fn median_interval(mut v: Vec<f64>, level: f64) -> Option<Interval> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return None;
    }
    let cdf = binomial_half_cdf(n);
    let coverage = |k: usize| 1.0 - 2.0 * cdf[k - 1];
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= level {
        k += 1;
    }
    Some(Interval {
        low: v[k - 1],
        high: v[n - k],
        confidence: coverage(k).max(0.0),
        n,
    })
}

/// `x` rounded, with thousands separators and no decimals (`81,103`; `n/a` when not finite):
/// how every rate is written, in the rules' reasons and in every report.
pub fn thousands(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let n = x.round().abs() as u128;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if x.round() < 0.0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_odd_even_and_none() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
        assert_eq!(median_u64(vec![5, 1, 3]), Some(3));
        assert_eq!(median_u64(vec![1, 2]), Some(2));
        assert_eq!(median_u64(vec![u64::MAX, u64::MAX - 2]), Some(u64::MAX - 1));
        assert_eq!(median_u64(vec![]), None);
    }

    /// The order statistics of the published tables (Conover, table A3; Hollander and
    /// Wolfe): n = 10 → the 2nd and 9th values, 97.85 %; n = 20 → 6th and 15th, 95.86 %;
    /// n = 30 → 10th and 21st, 95.72 %; and below 6 values no 95 % interval exists.
    #[test]
    fn the_interval_is_the_tables_order_statistics() {
        let v = |n: usize| (1..=n).map(|i| i as f64).collect::<Vec<_>>();
        let i = median_interval(v(10), LEVEL).unwrap();
        assert_eq!((i.low, i.high, i.n), (2.0, 9.0, 10));
        assert!(
            (i.confidence - (1.0 - 22.0 / 1024.0)).abs() < 1e-12,
            "{i:?}"
        );
        let i = median_interval(v(20), LEVEL).unwrap();
        assert_eq!((i.low, i.high), (6.0, 15.0));
        assert!((i.confidence - 0.958_611).abs() < 1e-6, "{i:?}");
        let i = median_interval(v(30), LEVEL).unwrap();
        assert_eq!((i.low, i.high), (10.0, 21.0));
        assert!((i.confidence - 0.957_226).abs() < 1e-6, "{i:?}");
        // Five values: [min, max] is all there is, at 1 - 2/32.
        let i = median_interval(v(5), LEVEL).unwrap();
        assert_eq!((i.low, i.high, i.confidence), (1.0, 5.0, 0.9375));
        assert!(!i.at_level());
        let i = median_interval(v(6), LEVEL).unwrap();
        assert_eq!((i.low, i.high, i.confidence), (1.0, 6.0, 1.0 - 2.0 / 64.0));
        assert!(i.at_level());
        // One value: an interval of no confidence; none without values; order does not matter.
        assert_eq!(median_interval(vec![7.0], LEVEL).unwrap().confidence, 0.0);
        assert!(median_interval(vec![f64::NAN], LEVEL).is_none());
        let shuffled = vec![9.0, 2.0, 7.0, 1.0, 10.0, 4.0, 3.0, 8.0, 6.0, 5.0];
        assert_eq!(
            median_interval(shuffled, LEVEL),
            median_interval(v(10), LEVEL)
        );
        // Large n stays finite.
        let i = median_interval(v(5000), LEVEL).unwrap();
        assert!(i.low > 2400.0 && i.high < 2600.0 && i.at_level(), "{i:?}");
    }

    /// Over many samples of a distribution whose median is known (exponential, median ln 2,
    /// skewed on purpose), the intervals hold it about as often as they claim: a fixed seed,
    /// so the figure is the same every run.
    #[test]
    fn the_interval_holds_a_known_median_as_often_as_it_says() {
        let mut rng = fastrand::Rng::with_seed(20261202);
        let truth = std::f64::consts::LN_2;
        for n in [7usize, 10, 15] {
            let trials = 20_000;
            let mut held = 0;
            let mut claimed = 0.0;
            for _ in 0..trials {
                let v: Vec<f64> = (0..n).map(|_| -(1.0 - rng.f64()).ln()).collect();
                let i = median_interval(v, LEVEL).unwrap();
                claimed = i.confidence;
                held += usize::from(i.holds(truth));
            }
            let rate = held as f64 / trials as f64;
            assert!(
                (rate - claimed).abs() < 0.006,
                "n {n}: held {rate}, claims {claimed}"
            );
        }
    }

    /// Below the level an interval says its rounds and real coverage, never "95 %".
    #[test]
    fn an_interval_says_its_real_coverage_below_the_level() {
        let f = |x: f64| format!("{x:.2}");
        let i = median_interval(vec![1.0, 2.0, 3.0], LEVEL).unwrap();
        assert_eq!(i.bracket(f), "[1.00–3.00; 3 rounds, 75 %]");
        assert_eq!(i.label(), "min–max of 3 rounds, 75 %");
        let i = median_interval(vec![1.0, 2.0, 3.0, 4.0, 5.0], LEVEL).unwrap();
        assert_eq!(i.bracket(f), "[1.00–5.00; 5 rounds, 93.7 %]");
        let i = median_interval((1..=6).map(f64::from).collect(), LEVEL).unwrap();
        assert_eq!(
            (i.bracket(f), i.label()),
            ("[1.00–6.00]".into(), "95 % CI".into())
        );
        assert_eq!(coverage(0.5), "50 %");
        assert_eq!(coverage(0.96875), "96.8 %");
    }
}
