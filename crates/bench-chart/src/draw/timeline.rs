//! A [`TimelineChart`] drawn as SVG: its title and caption, then two panels on one time axis
//! (seconds from the start of the measured window). Above, a thin line per round, its
//! throughput as a percentage of its own median interval, in a muted colour per round (the
//! legend says which rounds were low, which their own lines cannot show), a dot on each dip, the dip threshold a dashed line the legend names; below, steal, other work and
//! the server's and the tool's waits, each the most of any round, in percent of one CPU, told apart by colour
//! and dash. The legends name every line; no label is drawn over the lines.

use std::fmt::Write as _;

use super::axis::nice_step;
use super::{AXIS, Drawn, GRID, Layout, PAD, SMALL, legend_items, lines, title};
use crate::format::{escape, grouped};
use crate::timeline::{TimelineChart, threshold};

/// The rounds' colours: Paul Tol's muted palette, and a grey for a tenth (repeated past it).
const ROUNDS: [&str; 10] = [
    "#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933",
    "#AA4499", "#777777",
];

/// The machine's lines: colour and dash, by their place in [`TimelineChart::machine`].
const MACHINE: [(&str, &str); 4] = [
    ("#D55E00", ""),
    ("#0072B2", r#" stroke-dasharray="5 3""#),
    (
        "#009E73",
        r#" stroke-dasharray="1.5 2.5" stroke-linecap="round""#,
    ),
    ("#CC79A7", r#" stroke-dasharray="7 2 1.5 2""#),
];

/// The throughput panel's height, px.
const TOP_H: f64 = 190.0;
/// The machine panel's height, px.
const LOW_H: f64 = 100.0;
/// Room left of the plots for their value labels, px.
const Y_LABELS: f64 = 46.0;

/// The colour of round `n` (from 1).
fn round_colour(n: u32) -> &'static str {
    ROUNDS[(n.max(1) as usize - 1) % ROUNDS.len()]
}

/// Ticks from `lo` to `hi` over `len` px, no closer than `gap` px: the step and the ticks.
fn ticks(lo: f64, hi: f64, len: f64, gap: f64) -> (f64, Vec<f64>) {
    let step = nice_step(((hi - lo) * gap / len).max(1e-9));
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (step, (first..=last).map(|k| k as f64 * step).collect())
}

/// A value axis over `len` px holding `lo` and `hi`, widened to whole steps: its ends, its
/// step and its labelled ticks, the first and the last at its ends.
fn value_axis(lo: f64, hi: f64, len: f64) -> (f64, f64, f64, Vec<f64>) {
    let (step, _) = ticks(lo, hi, len, 22.0);
    let (first, last) = ((lo / step).floor() as i64, (hi / step).ceil() as i64);
    let marks = (first..=last).map(|k| k as f64 * step).collect();
    (first as f64 * step, last as f64 * step, step, marks)
}

/// `v` as a percent label (`90 %`, `2.5 %`).
fn percent(v: f64, step: f64) -> String {
    format!("{} %", grouped(v, if step < 1.0 { 1 } else { 0 }))
}

/// Draws `chart` for `layout` (see the module header).
pub fn draw_timeline(chart: &TimelineChart, layout: &Layout) -> Drawn {
    let width = layout.width;
    let mut b = String::new();
    let mut y = title(&mut b, &chart.title, width, layout.narrow);
    y = lines(
        &mut b,
        &chart.caption,
        PAD,
        y + 6.0,
        12.0,
        false,
        width - 2.0 * PAD,
        "",
    ) + 10.0;
    let px = PAD + Y_LABELS;
    // Room right of the plot for half the last time label.
    let plot_w = width - px - PAD - 18.0;
    let window = chart.window_s.max(0.5);
    let x = |s: f64| px + s / window * plot_w;

    // The throughput: its legend, the axis' title, then the plot.
    let mut items: Vec<(String, String)> = vec![(String::new(), "rounds:".to_string())];
    for r in &chart.rounds {
        items.push((
            format!(
                r#"<line x1="0" y1="-1" x2="16" y2="-1" stroke="{}" stroke-width="2"/>"#,
                round_colour(r.round)
            ),
            if r.low {
                format!("{} (low)", r.round)
            } else {
                r.round.to_string()
            },
        ));
    }
    let dip = grouped(100.0 - threshold(), 0);
    let dips = chart.rounds.iter().flat_map(|r| &r.points).any(|p| p.2);
    if dips {
        items.push((
            format!(r#"<g transform="translate(8,-1)">{}</g>"#, dot("#777777")),
            "a dip".to_string(),
        ));
    }
    items.push((
        format!(
            r#"<line x1="0" y1="-1" x2="18" y2="-1" stroke="{AXIS}" stroke-width="1.2" stroke-dasharray="5 3"/>"#
        ),
        format!("dip: {dip} % below the round's median"),
    ));
    y = legend_items(&mut b, items, y + 4.0, (PAD, width - PAD), 22.0);
    y = axis_title(
        &mut b,
        "↑ throughput, % of the round's median interval",
        width,
        y,
    );
    let top = y + 6.0;
    let bottom = top + TOP_H;
    let vals = chart
        .rounds
        .iter()
        .flat_map(|r| r.points.iter().map(|p| p.1));
    let (lo, hi) = vals.fold((threshold(), 100.0_f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (lo, hi, step, marks) = value_axis(lo, hi, TOP_H);
    let yv = |v: f64| bottom - (v - lo) / (hi - lo) * TOP_H;
    grid(&mut b, &x, (top, bottom), window, plot_w);
    for t in &marks {
        value_tick(&mut b, px, plot_w, yv(*t), &percent(*t, step), *t == 100.0);
    }
    let ty = yv(threshold());
    let _ = write!(
        b,
        r#"<line class="dip-line" x1="{px:.2}" y1="{ty:.2}" x2="{:.2}" y2="{ty:.2}" stroke="{AXIS}" stroke-width="1.2" stroke-dasharray="5 3"/>"#,
        px + plot_w
    );
    for r in &chart.rounds {
        let c = round_colour(r.round);
        let pts: Vec<String> = r
            .points
            .iter()
            .map(|(s, v, _)| format!("{:.2},{:.2}", x(*s), yv(*v)))
            .collect();
        let _ = write!(
            b,
            r#"<polyline class="round" points="{}" fill="none" stroke="{c}" stroke-width="1.3" stroke-opacity="0.9">{}</polyline>"#,
            pts.join(" "),
            layout.tip(&format!("round {}", r.round))
        );
    }
    for r in &chart.rounds {
        for (s, v, _) in r.points.iter().filter(|p| p.2) {
            let _ = write!(
                b,
                r#"<g class="dip" transform="translate({:.2},{:.2})">{}{}</g>"#,
                x(*s),
                yv(*v),
                layout.tip(&format!(
                    "round {}, {} s: {} % of its median interval",
                    r.round,
                    grouped(*s, 2),
                    grouped(*v, 0)
                )),
                dot(round_colour(r.round))
            );
        }
    }
    axis_line(&mut b, px, plot_w, (top, bottom));

    // What the machine did: its legend, the axis' title, the plot, the time axis under it.
    let mut y = bottom + 18.0;
    if !chart.machine.is_empty() {
        let items = chart
            .machine
            .iter()
            .zip(MACHINE)
            .map(|(m, (c, dash))| {
                (
                    format!(
                        r#"<line x1="0" y1="-1" x2="24" y2="-1" stroke="{c}" stroke-width="1.8"{dash}/>"#
                    ),
                    m.name.to_string(),
                )
            })
            .collect();
        y = legend_items(&mut b, items, y, (PAD, width - PAD), 30.0);
        y = axis_title(&mut b, "↑ % of one CPU, the most of any round", width, y);
        let top = y + 6.0;
        let bottom = top + LOW_H;
        let vals = chart
            .machine
            .iter()
            .flat_map(|m| m.points.iter().map(|p| p.1));
        let (lo, hi) = vals.fold((0.0_f64, 5.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let (lo, hi, step, marks) = value_axis(lo, hi, LOW_H);
        let yv = |v: f64| bottom - (v - lo) / (hi - lo) * LOW_H;
        grid(&mut b, &x, (top, bottom), window, plot_w);
        for t in &marks {
            value_tick(&mut b, px, plot_w, yv(*t), &percent(*t, step), false);
        }
        for (m, (c, dash)) in chart.machine.iter().zip(MACHINE) {
            let pts: Vec<String> = m
                .points
                .iter()
                .map(|(s, v)| format!("{:.2},{:.2}", x(*s), yv(*v)))
                .collect();
            let _ = write!(
                b,
                r#"<polyline class="machine" points="{}" fill="none" stroke="{c}" stroke-width="1.6"{dash}>{}</polyline>"#,
                pts.join(" "),
                layout.tip(m.name)
            );
        }
        axis_line(&mut b, px, plot_w, (top, bottom));
        y = bottom;
    } else {
        y -= 18.0;
    }
    // The time axis' labels, under the lowest plot.
    let (step, marks) = ticks(0.0, window, plot_w, 44.0);
    for t in marks {
        let _ = write!(
            b,
            r#"<text x="{:.2}" y="{:.2}" font-size="{SMALL}" fill="{AXIS}" text-anchor="middle">{} s</text>"#,
            x(t),
            y + 18.0,
            grouped(t, if step < 1.0 { 1 } else { 0 })
        );
    }
    let last = lines(
        &mut b,
        "seconds from the start of the measured window →",
        px,
        y + 37.0,
        12.0,
        false,
        width - px - PAD,
        &format!(r#" fill="{AXIS}""#),
    );
    Drawn {
        body: b,
        width,
        height: last + 10.0,
    }
}

/// A dip's dot at (0, 0), in its round's colour, outlined so it shows on any line.
fn dot(colour: &str) -> String {
    format!(r##"<circle r="3" fill="{colour}" stroke="#1A1A1A" stroke-width="0.9"/>"##)
}

/// An axis' title from `y`, above its plot; returns the y below it.
fn axis_title(b: &mut String, text: &str, width: f64, y: f64) -> f64 {
    lines(
        b,
        text,
        PAD,
        y + 8.0,
        12.0,
        false,
        width - 2.0 * PAD,
        &format!(r#" fill="{AXIS}""#),
    ) + 4.0
}

/// The time grid of a plot from `top` to `bottom`: a line per tick, every half second or wider.
fn grid(
    b: &mut String,
    x: &dyn Fn(f64) -> f64,
    (top, bottom): (f64, f64),
    window: f64,
    plot_w: f64,
) {
    let (_, marks) = ticks(0.0, window, plot_w, 22.0);
    for t in marks {
        let tx = x(t);
        let _ = write!(
            b,
            r#"<line x1="{tx:.2}" y1="{top:.2}" x2="{tx:.2}" y2="{:.2}" stroke="{GRID}"/>"#,
            bottom + 3.0
        );
    }
}

/// A value tick of the plot at `px`: its grid line (darker at 100 %) and its label.
fn value_tick(b: &mut String, px: f64, plot_w: f64, ty: f64, label: &str, strong: bool) {
    let _ = write!(
        b,
        r#"<line x1="{px:.2}" y1="{ty:.2}" x2="{:.2}" y2="{ty:.2}" stroke="{}" stroke-width="1"/><text x="{:.2}" y="{:.2}" font-size="{SMALL}" fill="{AXIS}" text-anchor="end">{}</text>"#,
        px + plot_w,
        if strong { "#BDBDBD" } else { GRID },
        px - 4.0,
        ty + 4.0,
        escape(label)
    );
}

/// The plot's left and bottom axis lines.
fn axis_line(b: &mut String, px: f64, plot_w: f64, (top, bottom): (f64, f64)) {
    let _ = write!(
        b,
        r#"<line x1="{px:.2}" y1="{bottom:.2}" x2="{:.2}" y2="{bottom:.2}" stroke="{AXIS}"/><line x1="{px:.2}" y1="{top:.2}" x2="{px:.2}" y2="{bottom:.2}" stroke="{AXIS}"/>"#,
        px + plot_w
    );
}

#[cfg(test)]
mod tests {
    use bench_model::noise::Dips;
    use bench_model::results::timeline::Timeline;
    use bench_model::results::{Run, StepResult};

    use super::*;
    use crate::draw::check::problems;
    use crate::draw::text_width;

    /// A round's timeline: 8 half-second intervals of `rates` answers/s, steal `steal` %.
    fn timeline(rates: [f64; 8], steal: [f64; 8]) -> Timeline {
        Timeline {
            interval_s: 0.5,
            duration_s: vec![0.5; 8],
            loopback_mb_per_s: rates.iter().map(|r| r / 1000.0).collect(),
            responses_per_s: Some(rates.to_vec()),
            steal_percent: steal.to_vec(),
            other_percent: vec![2.0, 1.5, 2.5, 2.0, 1.0, 2.0, -0.4, 2.0],
            server_wait_percent: vec![1.0; 8],
            tool_wait_percent: vec![0.5; 8],
            ..Timeline::default()
        }
    }

    /// A step of three rounds, each flat within 1 %, the third with one interval 20 % down
    /// while steal was at 30 %.
    fn step() -> StepResult {
        let flat = |l: f64| [l, l * 1.01, l * 0.99, l, l * 1.01, l, l * 0.99, l];
        let mut third = flat(10_000.0);
        third[4] = 8_000.0;
        let mut steal = [1.0; 8];
        steal[4] = 30.0;
        let timelines = [
            timeline(flat(10_000.0), [1.0; 8]),
            timeline(flat(9_800.0), [2.0; 8]),
            timeline(third, steal),
        ];
        StepResult {
            repeats: timelines
                .into_iter()
                .enumerate()
                .map(|(i, t)| Run {
                    round: Some(i as u32 + 1),
                    timeline: Some(t),
                    ..Run::default()
                })
                .collect(),
            ..StepResult::default()
        }
    }

    fn chart(st: &StepResult) -> TimelineChart {
        let rounds: Vec<(u32, &Timeline)> = st
            .repeats
            .iter()
            .filter_map(|r| Some((r.round?, r.timeline.as_ref()?)))
            .collect();
        let title = "E3 / c100: node-http, each round's measured window in 0.5 s intervals";
        TimelineChart::new(title.into(), &rounds, &Dips::of(st).unwrap()).unwrap()
    }

    /// A line per round, a dot per dip (as many as `Dips` counts), the threshold's line, the
    /// machine's four lines, and no text over another or out of the drawing, wide and narrow.
    #[test]
    fn a_line_per_round_a_dot_per_dip_and_no_label_over_another() {
        let st = step();
        let dips = Dips::of(&st).unwrap();
        assert_eq!((dips.dips, dips.intervals), (1, 24));
        let c = chart(&st);
        assert_eq!(
            c.caption,
            "1 of 24 intervals was a dip (10 % below its round's median); none of the 3 rounds was 10 % below the median round; the dip went with steal."
        );
        assert_eq!(c.window_s, 4.0);
        for layout in [Layout::WIDE, Layout::NARROW, Layout::FILE] {
            let d = draw_timeline(&c, &layout);
            assert_eq!(d.body.matches(r#"<polyline class="round""#).count(), 3);
            assert_eq!(d.body.matches(r#"<g class="dip""#).count(), dips.dips);
            assert_eq!(d.body.matches(r#"class="dip-line""#).count(), 1);
            assert_eq!(d.body.matches(r#"<polyline class="machine""#).count(), 4);
            for label in [
                "steal",
                "other work",
                "server wait",
                "tool wait",
                "a dip",
                "rounds:",
            ] {
                assert!(d.body.contains(&format!(">{label}</text>")), "{label}");
            }
            assert_eq!(problems(&d), Vec::<String>::new(), "{} px", layout.width);
        }
        // The dip is drawn where it is: round 3's fifth interval, 2.25 s in, at 80 %.
        let r3 = &c.rounds[2];
        assert_eq!(r3.round, 3);
        let (s, pct, dip) = r3.points[4];
        assert!(
            dip && s == 2.25 && (pct - 80.0).abs() < 0.5,
            "{:?}",
            r3.points[4]
        );
        assert_eq!(r3.points.iter().filter(|p| p.2).count(), 1);
        // The machine's lines are the most of any round: steal 30 % at the dip.
        assert_eq!(c.machine[0].name, "steal");
        assert_eq!(c.machine[0].points[4], (2.25, 30.0));
    }

    #[test]
    fn no_dip_says_so_and_names_nothing() {
        let mut st = step();
        st.repeats.truncate(2);
        let c = chart(&st);
        assert_eq!(
            c.caption,
            "None of the 16 intervals was a dip (10 % below its round's median); none of the 2 rounds was 10 % below the median round."
        );
        let d = draw_timeline(&c, &Layout::NARROW);
        assert_eq!(d.body.matches(r#"<g class="dip""#).count(), 0);
        assert!(!d.body.contains(">a dip</text>"));
        assert_eq!(problems(&d), Vec::<String>::new());
    }

    #[test]
    fn ticks_are_spaced_and_within_the_range() {
        let (step, t) = ticks(0.0, 4.0, 700.0, 44.0);
        assert_eq!(step, 0.5);
        assert_eq!(t.first(), Some(&0.0));
        assert_eq!(t.last(), Some(&4.0));
        let (step, t) = ticks(84.0, 112.0, 190.0, 22.0);
        assert_eq!(step, 5.0);
        assert_eq!(t, vec![85.0, 90.0, 95.0, 100.0, 105.0, 110.0]);
        assert!(text_width("100 %", SMALL) < Y_LABELS - 4.0);
    }
}
