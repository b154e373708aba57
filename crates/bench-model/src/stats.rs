//! The statistics every results file and command share: the median of a set of figures (the
//! figure a step, a round of tools or a finding reports).

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
}
