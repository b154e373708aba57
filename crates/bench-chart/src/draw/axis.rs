//! The scales of the charts and their ticks: a bar chart's value axis (linear from 0, or log
//! for latency), and a rate chart's log axes. A linear axis steps 1-2-5 no closer than its
//! labels are wide; a log axis ticks every decade it spans and every 2 and 5 where there is
//! room, and labels the decades its labels leave room for (always its last one), so that no
//! tick label is drawn over another.

use std::fmt::Write as _;

use super::{AXIS, GRID, SMALL, text_width};
use crate::chart::{Cell, Metric, Value};
use crate::format::{escape, grouped, us_label};

/// The least gap between two tick labels, px.
const LABEL_GAP: f64 = 6.0;

/// A tick: its value, its label (`None`: a minor tick, a grid line only).
pub(super) type Tick = (f64, Option<String>);

/// A value axis of a bar chart: linear from 0 for bars, log for latency (µs).
pub(super) struct Scale {
    log: bool,
    lo: f64,
    hi: f64,
    /// Its length, px.
    pub width: f64,
    ticks: Vec<Tick>,
}

impl Scale {
    /// The scale of `cells`' figures of `metric` over `width` px.
    pub fn new(metric: Metric, cells: &[&Cell], width: f64) -> Scale {
        if metric == Metric::Latency {
            let vals: Vec<f64> = cells
                .iter()
                .filter_map(|c| match c.value {
                    Value::Latency(p) => Some(p.values),
                    _ => None,
                })
                .flatten()
                .flatten()
                .map(|v| v.max(1) as f64)
                .collect();
            let (lo, hi) = decades(&vals);
            let axis = LogAxis { lo, hi, len: width };
            Scale {
                log: true,
                lo,
                hi,
                width,
                ticks: axis.ticks(us_label, true),
            }
        } else {
            let max = cells
                .iter()
                .filter_map(|c| {
                    let v = match c.value {
                        Value::Bar(v) => v,
                        Value::Split { total, .. } => total,
                        _ => return None,
                    };
                    // A whisker reaching past its bar stays inside the chart.
                    Some(c.whisker.map_or(v, |i| v.max(i.high)))
                })
                .fold(0.0_f64, f64::max);
            let (hi, ticks) = linear(max, width);
            Scale {
                log: false,
                lo: 0.0,
                hi,
                width,
                ticks,
            }
        }
    }

    /// The x offset of `v` within a panel.
    pub fn pos(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            v / self.hi
        };
        f.clamp(0.0, 1.0) * self.width
    }

    /// Grid lines, the axis line and tick labels of the panel at `px`, its rows from `top`
    /// to `axis_y`.
    pub fn axis(&self, b: &mut String, px: f64, top: f64, axis_y: f64) {
        for (t, label) in &self.ticks {
            let x = px + self.pos(*t);
            let _ = write!(
                b,
                r#"<line x1="{x:.2}" y1="{top}" x2="{x:.2}" y2="{axis_y}" stroke="{GRID}" stroke-width="{}"/>"#,
                if label.is_some() { 1.0 } else { 0.6 }
            );
            let _ = write!(
                b,
                r#"<line x1="{x:.2}" y1="{axis_y}" x2="{x:.2}" y2="{}" stroke="{AXIS}"/>"#,
                axis_y + if label.is_some() { 4.0 } else { 2.5 }
            );
            if let Some(label) = label {
                // A label stays within its panel: the first starts at its tick, the last of
                // a log axis ends at it.
                let anchor = if *t == self.lo && self.log {
                    "start"
                } else if self.log && *t == self.hi {
                    "end"
                } else {
                    "middle"
                };
                let _ = write!(
                    b,
                    r#"<text x="{x:.2}" y="{}" font-size="{SMALL}" fill="{AXIS}" text-anchor="{anchor}">{}</text>"#,
                    axis_y + 16.0,
                    escape(label)
                );
            }
        }
        let _ = write!(
            b,
            r#"<line x1="{px}" y1="{axis_y}" x2="{:.2}" y2="{axis_y}" stroke="{AXIS}"/>"#,
            px + self.width
        );
    }

    /// How far right of the plot a tick label may reach, px (half the last label of a linear
    /// axis, which is centred on its tick).
    pub fn overhang(&self) -> f64 {
        if self.log {
            return 0.0;
        }
        self.ticks
            .last()
            .and_then(|(_, l)| l.as_ref())
            .map_or(0.0, |l| text_width(l, SMALL) / 2.0)
    }
}

/// The powers of ten just below the least of `vals` and just above the greatest (100 µs to
/// 10 ms when there is none).
pub(super) fn decades(vals: &[f64]) -> (f64, f64) {
    let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = vals.iter().copied().fold(0.0_f64, f64::max);
    let (min, max) = if vals.is_empty() {
        (100.0, 10_000.0)
    } else {
        (min, max)
    };
    let lo = 10f64.powf(min.log10().floor());
    let mut hi = 10f64.powf(max.log10().ceil());
    if hi <= lo {
        hi = lo * 10.0;
    }
    (lo, hi)
}

/// A linear axis from 0 to at least `max` over `width` px: its top, and its ticks at a 1-2-5
/// step no closer than their labels are wide.
pub(super) fn linear(max: f64, width: f64) -> (f64, Vec<Tick>) {
    let want = (width / 70.0).floor().max(2.0);
    let mut step = nice_step(if max > 0.0 { max / want } else { 1.0 });
    loop {
        let decimals = decimals(step);
        let n = (max / step).ceil().max(1.0) as usize;
        let ticks: Vec<Tick> = (0..=n)
            .map(|i| {
                let t = i as f64 * step;
                (t, Some(grouped(t, decimals)))
            })
            .collect();
        let widest = ticks
            .iter()
            .filter_map(|(_, l)| l.as_ref())
            .map(|l| text_width(l, SMALL))
            .fold(0.0, f64::max);
        let spacing = width / n as f64;
        if spacing >= widest + LABEL_GAP || n <= 1 {
            return (n as f64 * step, ticks);
        }
        step = nice_step(step * 1.01);
    }
}

/// The decimals a tick of `step` needs.
fn decimals(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else if step >= 0.1 {
        1
    } else {
        2
    }
}

/// The 1-2-5 step nearest above `raw`.
pub(super) fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// An offered rate, short ([`crate::format::rate`]).
pub(crate) fn rate_label(rate: f64) -> String {
    crate::format::rate(rate)
}

/// A logarithmic axis from `lo` to `hi` over `len` px, with 1-2-5 ticks.
pub(super) struct LogAxis {
    pub lo: f64,
    pub hi: f64,
    pub len: f64,
}

impl LogAxis {
    /// The offset of `v` along the axis, px.
    pub fn pos(&self, v: f64) -> f64 {
        let f = (v.max(self.lo).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln());
        f.clamp(0.0, 1.0) * self.len
    }

    /// Every 1-2-5 tick within the axis, labelled by `label` where the labels leave room:
    /// every decade's tick is there, labelled as many as fit (the last always, then from the
    /// first up); the 2s and 5s labelled only when every decade is and they fit too. Along a
    /// horizontal axis (`across`) a label's room is its width, else its height.
    pub fn ticks(&self, label: fn(f64) -> String, across: bool) -> Vec<Tick> {
        let mut all: Vec<(f64, bool)> = Vec::new();
        let mut decade = 10f64.powf(self.lo.log10().floor());
        while decade <= self.hi * 1.001 {
            for m in [1.0, 2.0, 5.0] {
                let t = decade * m;
                if t >= self.lo * 0.999 && t <= self.hi * 1.001 {
                    all.push((t, m == 1.0));
                }
            }
            decade *= 10.0;
        }
        // A label's extent along the axis, centred on its tick (the ends of a horizontal
        // axis are anchored inside it, see `Scale::axis`).
        let extent = |t: f64| {
            let size = if across {
                text_width(&label(t), SMALL)
            } else {
                SMALL
            };
            let at = self.pos(t);
            let (a, b) = if across && t <= self.lo * 1.001 {
                (at, at + size)
            } else if across && t >= self.hi * 0.999 {
                (at - size, at)
            } else {
                (at - size / 2.0, at + size / 2.0)
            };
            (a - LABEL_GAP / 2.0, b + LABEL_GAP / 2.0)
        };
        let mut kept: Vec<(f64, f64)> = Vec::new();
        let fits =
            |kept: &[(f64, f64)], e: (f64, f64)| kept.iter().all(|k| e.1 <= k.0 || k.1 <= e.0);
        let decades: Vec<f64> = all.iter().filter(|t| t.1).map(|t| t.0).collect();
        let mut labelled: Vec<f64> = Vec::new();
        if let Some(&last) = decades.last() {
            kept.push(extent(last));
            labelled.push(last);
        }
        for &t in decades.iter().rev().skip(1).rev() {
            if fits(&kept, extent(t)) {
                kept.push(extent(t));
                labelled.push(t);
            }
        }
        if labelled.len() == decades.len() {
            for &(t, _) in all.iter().filter(|t| !t.1) {
                if fits(&kept, extent(t)) {
                    kept.push(extent(t));
                    labelled.push(t);
                }
            }
        }
        all.iter()
            .map(|&(t, _)| (t, labelled.contains(&t).then(|| label(t))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_labels() {
        assert_eq!(nice_step(37_000.0), 50_000.0);
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(us_label(350.0), "350 µs");
        assert_eq!(us_label(2_500.0), "2.5 ms");
        assert_eq!(us_label(100_000.0), "100 ms");
        assert_eq!(us_label(1_200_000.0), "1.2 s");
        assert_eq!(us_label(2_500_610.0), "2.5 s");
        assert_eq!(rate_label(500.0), "500");
        assert_eq!(rate_label(1000.0), "1k");
        assert_eq!(rate_label(2500.0), "2.5k");
        assert_eq!(rate_label(160_000.0), "160k");
        assert_eq!(rate_label(1_000_000.0), "1M");
    }

    /// E4's CPU panel (`0 5,00010,000` before): the step grows until the labels fit.
    #[test]
    fn a_linear_axis_spaces_its_labels_by_their_width() {
        let (hi, ticks) = linear(15_426.19, 90.0);
        let labels: Vec<&str> = ticks.iter().filter_map(|t| t.1.as_deref()).collect();
        assert_eq!(labels, ["0", "10,000", "20,000"], "{hi}");
        let spacing = 90.0 / (ticks.len() - 1) as f64;
        assert!(spacing >= text_width("20,000", SMALL) + LABEL_GAP);
    }

    #[test]
    fn a_log_axis_ticks_every_decade_and_labels_what_fits() {
        let rate = |t: f64| rate_label(t);
        let wide = LogAxis {
            lo: 700.0,
            hi: 220_000.0,
            len: 600.0,
        };
        let labelled: Vec<f64> = wide
            .ticks(rate, true)
            .into_iter()
            .filter(|t| t.1.is_some())
            .map(|t| t.0)
            .collect();
        assert_eq!(
            labelled,
            [
                1000.0, 2000.0, 5000.0, 10_000.0, 20_000.0, 50_000.0, 100_000.0, 200_000.0
            ]
        );
        assert!((wide.pos(700.0), wide.pos(220_000.0)) == (0.0, 600.0));
        // E4's probe panel: 10 µs to 1 s in 150 px. Every decade ticked; the labels that
        // fit, the last (1 s, beside the points at 280–550 ms) among them.
        let probe = LogAxis {
            lo: 10.0,
            hi: 1_000_000.0,
            len: 150.0,
        };
        let ticks = probe.ticks(us_label, true);
        let decades: Vec<f64> = ticks
            .iter()
            .map(|t| t.0)
            .filter(|t| (t.log10() - t.log10().round()).abs() < 1e-9)
            .collect();
        assert_eq!(decades.len(), 6);
        let labels: Vec<&str> = ticks.iter().filter_map(|t| t.1.as_deref()).collect();
        assert!(labels.contains(&"1 s") && labels.len() >= 3, "{labels:?}");
        let boxes: Vec<(f64, f64)> = ticks
            .iter()
            .filter(|t| t.1.is_some())
            .map(|t| (probe.pos(t.0), text_width(t.1.as_deref().unwrap(), SMALL)))
            .collect();
        for w in boxes.windows(2) {
            assert!(w[1].0 - w[0].0 >= (w[0].1 + w[1].1) / 2.0, "{labels:?}");
        }
    }
}
