//! Many figures judged at once: the report's false discovery rate (Benjamini and Hochberg,
//! 1995) and the gate's family-wise error (Holm, 1979).
//!
//! - [`bh`]: adjusted p-values whose rejections at `q` keep the expected share of false ones
//!   among all rejections at or under `q` for independent or positively dependent tests (the
//!   figures of one run share its rounds, which makes them positively dependent, the case
//!   Benjamini and Yekutieli, 2001, prove it for).
//! - [`holm`]: adjusted p-values whose rejections at `a` keep the probability of any false one
//!   at or under `a`, whatever the dependence.

/// The Benjamini–Hochberg adjusted p-values of `p`, in `p`'s order.
pub fn bh(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    let mut adjusted = vec![1.0; m];
    let mut running = 1.0f64;
    // From the largest p down: adjusted(i) = min over j ≥ i of p(j)·m/j.
    for (from_top, &i) in order.iter().enumerate() {
        let rank = m - from_top;
        running = running.min(p[i] * m as f64 / rank as f64);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

/// Holm's step-down adjusted p-values of `p`, in `p`'s order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![1.0; m];
    let mut running = 0.0f64;
    // From the smallest p up: adjusted(i) = max over j ≤ i of p(j)·(m − j + 1).
    for (k, &i) in order.iter().enumerate() {
        running = running.max(p[i] * (m - k) as f64);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    /// R's `p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH")` and `"holm"`.
    #[test]
    fn the_adjustments_are_rs() {
        let p = [0.01, 0.04, 0.03, 0.005];
        assert!(close(&bh(&p), &[0.02, 0.04, 0.04, 0.02]), "{:?}", bh(&p));
        assert!(
            close(&holm(&p), &[0.03, 0.06, 0.06, 0.02]),
            "{:?}",
            holm(&p)
        );
        assert!(bh(&[]).is_empty() && holm(&[]).is_empty());
        assert!(close(&bh(&[0.5]), &[0.5]) && close(&holm(&[0.9, 0.9]), &[1.0, 1.0]));
    }

    /// Under the null every p is uniform: over many families of 100 independent tests, BH at
    /// 5 % rejects any in about 5 % of families (all rejections are false there: FDR = FWER),
    /// and Holm too; with 20 true effects among 100, BH's share of false rejections stays
    /// under 5 %.
    #[test]
    fn the_rates_hold_on_simulated_families() {
        let mut rng = fastrand::Rng::with_seed(7);
        let families = 4000;
        let (mut bh_any, mut holm_any) = (0, 0);
        let mut false_share = 0.0;
        for _ in 0..families {
            let p: Vec<f64> = (0..100).map(|_| rng.f64()).collect();
            bh_any += usize::from(bh(&p).iter().any(|&q| q <= 0.05));
            holm_any += usize::from(holm(&p).iter().any(|&q| q <= 0.05));
            // 20 real effects with tiny p-values.
            let mixed: Vec<f64> = (0..100)
                .map(|i| if i < 20 { rng.f64() * 1e-4 } else { rng.f64() })
                .collect();
            let rejected: Vec<usize> = bh(&mixed)
                .iter()
                .enumerate()
                .filter(|(_, q)| **q <= 0.05)
                .map(|(i, _)| i)
                .collect();
            let false_ones = rejected.iter().filter(|&&i| i >= 20).count();
            false_share += false_ones as f64 / rejected.len().max(1) as f64;
        }
        let rate = |k: usize| k as f64 / families as f64;
        assert!(rate(bh_any) <= 0.06, "BH any: {}", rate(bh_any));
        assert!(rate(holm_any) <= 0.06, "Holm any: {}", rate(holm_any));
        assert!(
            false_share / families as f64 <= 0.05,
            "BH FDR {}",
            false_share / families as f64
        );
    }
}
