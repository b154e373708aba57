//! A [`RateChart`] drawn as SVG (E7): one figure against the offered rate, both axes log
//! and labelled with units, a panel per group of servers (the findings' pair with the
//! ceiling first, then the Rust variants, then the peers, each with the ceiling to read them
//! against) sharing one value axis. Each panel names its lines above itself; the chart's
//! legend says what the styles and marks mean. Every line has its own colour and marker
//! within its panel (a server keeps both in every panel): a Rust variant solid, a peer
//! dashed, the ceiling a dotted grey line of crosses; a rung not held is a hollow marker, the
//! rate sustained a ring, an invalid rung a `✕` at the plot's foot; the interval over the
//! rounds is a band around the line. The keep-up limit is a dotted line that the legend
//! names, never a label over the lines.

use std::fmt::Write as _;

use super::axis::{LogAxis, decades, rate_label};
use super::{
    AXIS, Drawn, GRID, INVALID, Layout, MACHINE_WORDS, PAD, PANEL_GAP, REFERENCE, SMALL,
    TOOL_WORDS, TRIPS_WORDS, Taken, below_level, legend_items, lines, title,
};
use crate::chart::{Kind, MARKERS, PALETTE, Point, RateChart, Series};
use crate::format::escape;

/// The colours of a rate chart's lines (Okabe–Ito, yellow left out: too pale on white), by
/// [`Series::colour`]; the ceiling's is [`REFERENCE`].
const PAIR_COLOURS: [&str; PALETTE] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];

/// The most lines a panel draws the bands of: more bands than that cover each other.
const BANDED: usize = 3;

/// Height of a panel's plot, px.
const PLOT_H: f64 = 220.0;
/// Room left of each panel's plot for its value labels, px.
const Y_LABELS: f64 = 58.0;

/// Draws `chart` for `layout`: its title, the legend (what the line styles and marks mean),
/// the value axis' title, then its panels, each with its title and its servers above its
/// plot, side by side as many as fit (the narrow layout stacks them), the offered rate on a
/// log axis below each.
pub fn draw_rates(chart: &RateChart, layout: &Layout) -> Drawn {
    let width = layout.width;
    let mut b = String::new();
    let heading = format!("{} · {}", chart.title, chart.group);
    let mut y = title(&mut b, &heading, width, layout.narrow);
    y = rate_legend(&mut b, chart, width, y + 4.0);
    // The value axis, said once above the panels.
    y = lines(
        &mut b,
        &format!("↑ {}", chart.axis),
        PAD,
        y + 8.0,
        12.0,
        false,
        width - 2.0 * PAD,
        &format!(r#" fill="{AXIS}""#),
    ) + 6.0;

    let n = chart.panels.len().max(1);
    let avail = width - 2.0 * PAD;
    let min_panel = 230.0;
    let cols = if layout.narrow {
        1
    } else {
        (1..=n)
            .rev()
            .find(|&k| (avail - PANEL_GAP * (k - 1) as f64) / k as f64 >= min_panel)
            .unwrap_or(1)
    };
    let panel_w = (avail - PANEL_GAP * (cols - 1) as f64) / cols as f64;
    let plot_w = panel_w - Y_LABELS - 4.0;
    let rates: Vec<f64> = chart
        .panels
        .iter()
        .flat_map(|p| p.lines.iter().flat_map(|(_, l)| l))
        .map(|p| p.rate)
        .filter(|r| *r > 0.0)
        .collect();
    let (min, max) = (
        rates.iter().copied().fold(f64::INFINITY, f64::min),
        rates.iter().copied().fold(0.0_f64, f64::max),
    );
    let (min, max) = if rates.is_empty() {
        (1000.0, 100_000.0)
    } else {
        (min, max)
    };
    let x_axis = LogAxis {
        lo: min / 1.35,
        hi: max * 1.35,
        len: plot_w - 8.0,
    };
    let y_axis = value_axis(chart);
    let mut taken = Taken::default();
    for block in chart.panels.chunks(cols) {
        // Each panel's title and servers, above it; the plots of a row start together.
        let mut header = y;
        for (col, panel) in block.iter().enumerate() {
            let x0 = PAD + col as f64 * (panel_w + PANEL_GAP);
            let end = lines(
                &mut b,
                &panel.title,
                x0,
                y + 14.0,
                12.0,
                true,
                panel_w,
                r#" class="panel""#,
            );
            let items = panel
                .lines
                .iter()
                .map(|(i, _)| {
                    let s = &chart.series[*i];
                    (
                        format!(
                            r#"<line x1="0" y1="-1" x2="24" y2="-1" stroke="{}" stroke-width="{}"{}/><g transform="translate(12,-1)">{}</g>"#,
                            series_colour(s),
                            series_width(s),
                            series_dash(s),
                            series_marker(s, false)
                        ),
                        s.name.clone(),
                    )
                })
                .collect();
            header = header.max(legend_items(
                &mut b,
                items,
                end + 6.0,
                (x0, x0 + panel_w),
                30.0,
            ));
        }
        let top = header + 4.0;
        let bottom = top + PLOT_H;
        for (col, panel) in block.iter().enumerate() {
            let px = PAD + col as f64 * (panel_w + PANEL_GAP) + Y_LABELS;
            let x = |rate: f64| px + 4.0 + x_axis.pos(rate);
            let yv = |v: f64| bottom - y_axis.pos(v.max(1e-9));
            // Value grid and labels.
            for (t, label) in y_axis.ticks(chart.tick, false) {
                let ty = yv(t);
                let _ = write!(
                    b,
                    r#"<line x1="{px:.2}" y1="{ty:.2}" x2="{:.2}" y2="{ty:.2}" stroke="{GRID}" stroke-width="{}"/>"#,
                    px + plot_w,
                    if label.is_some() { 1.0 } else { 0.6 }
                );
                if let Some(l) = label {
                    let _ = write!(
                        b,
                        r#"<text x="{:.2}" y="{:.2}" font-size="{SMALL}" fill="{AXIS}" text-anchor="end">{}</text>"#,
                        px - 4.0,
                        ty + 4.0,
                        escape(&l)
                    );
                }
            }
            // Rate grid and labels.
            for (t, label) in x_axis.ticks(rate_label, true) {
                let tx = x(t);
                let _ = write!(
                    b,
                    r#"<line x1="{tx:.2}" y1="{top:.2}" x2="{tx:.2}" y2="{bottom:.2}" stroke="{GRID}" stroke-width="{}"/><line x1="{tx:.2}" y1="{bottom:.2}" x2="{tx:.2}" y2="{:.2}" stroke="{AXIS}"/>"#,
                    if label.is_some() { 1.0 } else { 0.6 },
                    bottom + if label.is_some() { 4.0 } else { 2.5 },
                );
                if let Some(l) = label {
                    let _ = write!(
                        b,
                        r#"<text x="{tx:.2}" y="{:.2}" font-size="{SMALL}" fill="{AXIS}" text-anchor="middle">{}</text>"#,
                        bottom + 16.0,
                        escape(&l)
                    );
                }
            }
            let _ = write!(
                b,
                r#"<line x1="{px:.2}" y1="{bottom:.2}" x2="{:.2}" y2="{bottom:.2}" stroke="{AXIS}"/><line x1="{px:.2}" y1="{top:.2}" x2="{px:.2}" y2="{bottom:.2}" stroke="{AXIS}"/>"#,
                px + plot_w
            );
            if let Some((v, _)) = &chart.limit {
                let ly = yv(*v);
                let _ = write!(
                    b,
                    r#"<line class="limit" x1="{px:.2}" y1="{ly:.2}" x2="{:.2}" y2="{ly:.2}" stroke="{AXIS}" stroke-width="1.4" stroke-dasharray="1 3" stroke-linecap="round"/>"#,
                    px + plot_w,
                );
            }
            let bounds = [px, top, px + plot_w, bottom];
            // The ceiling first, under the others.
            let mut drawn: Vec<&(usize, Vec<Point>)> = panel.lines.iter().collect();
            drawn.sort_by_key(|(i, _)| chart.series[*i].kind != Kind::Reference);
            // Bands only where they can be told apart.
            let bands = panel.lines.len() <= BANDED;
            for (i, line) in drawn {
                rate_line(
                    &mut b,
                    layout,
                    (&chart.series[*i], bands),
                    line,
                    (&x, &yv),
                    bounds,
                    &mut taken,
                );
            }
        }
        y = bottom + 30.0;
    }
    let last = lines(
        &mut b,
        "offered rate, requests/s (log scale) →",
        PAD + Y_LABELS,
        y + 4.0,
        12.0,
        false,
        width - PAD - Y_LABELS - PAD,
        &format!(r#" fill="{AXIS}""#),
    );
    Drawn {
        body: b,
        width,
        height: last + 10.0,
    }
}

/// The value axis of a [`RateChart`]: log, from the decade below its least figure (or band's
/// end, or limit) to the decade above its greatest, over the plot's height.
fn value_axis(chart: &RateChart) -> LogAxis {
    let mut vals: Vec<f64> = chart
        .panels
        .iter()
        .flat_map(|p| p.lines.iter().flat_map(|(_, l)| l))
        .flat_map(|p| {
            let (lo, hi) = p.band.map(|i| (i.low, i.high)).unzip();
            [p.value, lo, hi]
        })
        .flatten()
        .filter(|v| *v > 0.0)
        .collect();
    vals.extend(chart.limit.as_ref().map(|l| l.0));
    let (lo, hi) = decades(&vals);
    LogAxis {
        lo,
        hi,
        len: PLOT_H,
    }
}

/// One server's line in a panel: segments between consecutive measured rungs, a marker at
/// each (hollow where it could not keep up) with its marks beside it where they cover no
/// other text (else in its tooltip only), `✕` at the foot of the plot for an invalid rung.
fn rate_line(
    b: &mut String,
    layout: &Layout,
    (series, bands): (&Series, bool),
    line: &[Point],
    (x, y): (&dyn Fn(f64) -> f64, &dyn Fn(f64) -> f64),
    bounds: [f64; 4],
    taken: &mut Taken,
) {
    let c = series_colour(series);
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut segments: Vec<Vec<(f64, f64)>> = Vec::new();
    for p in line {
        match p.value {
            Some(v) => run.push((x(p.rate), y(v))),
            None => segments.push(std::mem::take(&mut run)),
        }
    }
    segments.push(run);
    if bands {
        band(b, c, line, x, y);
    }
    for seg in segments.iter().filter(|s| s.len() > 1) {
        let pts: Vec<String> = seg.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect();
        let _ = write!(
            b,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="{}"{}/>"#,
            pts.join(" "),
            series_width(series),
            series_dash(series)
        );
    }
    for p in line {
        let tip = layout.tip(&format!("{}, {}", series.name, p.tip));
        match p.value {
            Some(v) => {
                let (px, py) = (x(p.rate), y(v));
                // The yardstick's own rate is not the point of the chart: no ring on it.
                let ring = if p.sustained && series.kind != Kind::Reference {
                    sustained_ring(c)
                } else {
                    String::new()
                };
                let _ = write!(
                    b,
                    r#"<g class="mark">{tip}<g transform="translate({px:.2},{py:.2})">{}{ring}</g>"#,
                    series_marker(series, p.saturated)
                );
                let marks = p.marks.suffix().trim_start().to_string();
                if !marks.is_empty() {
                    let w = super::text_width(&marks, SMALL);
                    // Right above, right below, left above, left below: the first free.
                    let spots = [
                        (px + 6.0, py - 4.0, false),
                        (px + 6.0, py + 12.0, false),
                        (px - 6.0, py - 4.0, true),
                        (px - 6.0, py + 12.0, true),
                    ];
                    for (tx, ty, left) in spots {
                        let x0 = if left { tx - w } else { tx };
                        if taken.take([x0, ty - SMALL, x0 + w, ty + 3.0], bounds) {
                            let _ = write!(
                                b,
                                r#"<text x="{tx:.2}" y="{ty:.2}" font-size="{SMALL}"{}>{marks}</text>"#,
                                if left { r#" text-anchor="end""# } else { "" }
                            );
                            break;
                        }
                    }
                }
                b.push_str("</g>");
            }
            None if p.invalid => {
                // At the plot's foot, stacked up where another's is.
                let tx = x(p.rate);
                let w = super::text_width("✕", 12.0);
                let mut ty = bounds[3] - 4.0;
                while ty - 12.0 > bounds[1]
                    && !taken.take([tx - w / 2.0, ty - 12.0, tx + w / 2.0, ty + 3.0], bounds)
                {
                    ty -= 14.0;
                }
                let _ = write!(
                    b,
                    r#"<g class="mark">{tip}<text x="{tx:.2}" y="{ty:.2}" font-size="12" fill="{c}" text-anchor="middle">✕</text></g>"#,
                );
            }
            None => {}
        }
    }
}

/// The band of a server's line: the interval of each rung's figure over the rounds, filled
/// in the line's colour between consecutive rungs that have one (a short bar at a rung
/// alone). Where an interval is below 95 % (too few rounds), the band from and to its rung is
/// lighter and outlined dashed, so that it never reads as a 95 % interval.
fn band(
    b: &mut String,
    colour: &str,
    line: &[Point],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
) {
    // A rung of the band: its x, the y of its low and of its high.
    type Rung = (f64, f64, f64);
    let mut runs: Vec<Vec<(Rung, bool)>> = vec![Vec::new()];
    for p in line {
        // A point has a band only where it has a value (`chart::point`).
        match p.band {
            Some(i) => runs
                .last_mut()
                .unwrap()
                .push(((x(p.rate), y(i.low), y(i.high)), i.at_level())),
            None => runs.push(Vec::new()),
        }
    }
    for run in runs.iter().filter(|r| !r.is_empty()) {
        if let [((px, lo, hi), at)] = run[..] {
            let (class, style) = if at {
                ("band", r#" stroke-opacity="0.25""#)
            } else {
                (
                    "band below-level",
                    r#" stroke-opacity="0.2" stroke-dasharray="2 2""#,
                )
            };
            let _ = write!(
                b,
                r#"<path class="{class}" d="M{px:.2} {lo:.2}V{hi:.2}" stroke="{colour}" stroke-width="5"{style}/>"#
            );
            continue;
        }
        // Pieces of one style; a segment is below the level when either end is, and pieces
        // that meet share their rung.
        let mut pieces: Vec<(bool, Vec<Rung>)> = Vec::new();
        for w in run.windows(2) {
            let at = w[0].1 && w[1].1;
            match pieces.last_mut() {
                Some((a, pts)) if *a == at => pts.push(w[1].0),
                _ => pieces.push((at, vec![w[0].0, w[1].0])),
            }
        }
        for (at, piece) in pieces {
            let upper = piece.iter().map(|(px, _, hi)| format!("{px:.2},{hi:.2}"));
            let lower = piece
                .iter()
                .rev()
                .map(|(px, lo, _)| format!("{px:.2},{lo:.2}"));
            let pts: Vec<String> = upper.chain(lower).collect();
            let (class, style) = if at {
                ("band", r#" fill-opacity="0.15" stroke="none""#.to_string())
            } else {
                (
                    "band below-level",
                    format!(
                        r#" fill-opacity="0.07" stroke="{colour}" stroke-width="1" stroke-opacity="0.5" stroke-dasharray="3 2""#
                    ),
                )
            };
            let _ = write!(
                b,
                r#"<polygon class="{class}" points="{}" fill="{colour}"{style}/>"#,
                pts.join(" ")
            );
        }
    }
}

/// The legend of a [`RateChart`] from `y`, wrapping at `width`: what the styles and marks
/// mean, those that occur (each panel names its own servers); returns the y below it.
fn rate_legend(b: &mut String, chart: &RateChart, width: f64, y: f64) -> f64 {
    let points = || {
        chart
            .panels
            .iter()
            .flat_map(|p| p.lines.iter().flat_map(|(_, l)| l))
    };
    let mut items: Vec<(String, String)> = Vec::new();
    let kinds = |k: Kind| chart.series.iter().any(|s| s.kind == k);
    if kinds(Kind::Rust) && kinds(Kind::Peer) {
        items.push((
            r##"<line x1="0" y1="-4" x2="24" y2="-4" stroke="#333333" stroke-width="1.8"/><line x1="0" y1="2" x2="24" y2="2" stroke="#333333" stroke-width="1.8" stroke-dasharray="5 3"/>"##.to_string(),
            "solid: a Rust variant; dashed: a peer".to_string(),
        ));
    }
    if kinds(Kind::Reference) {
        let s = Series {
            name: String::new(),
            kind: Kind::Reference,
            colour: PALETTE,
            marker: MARKERS,
        };
        items.push((
            format!(
                r#"<line x1="0" y1="-1" x2="24" y2="-1" stroke="{REFERENCE}" stroke-width="{}"{}/><g transform="translate(12,-1)">{}</g>"#,
                series_width(&s),
                series_dash(&s),
                series_marker(&s, false)
            ),
            "dotted grey, crosses: the C ceiling, the loopback's yardstick, in the same rounds"
                .to_string(),
        ));
    }
    if let Some((_, label)) = &chart.limit {
        items.push((
            format!(
                r#"<line x1="0" y1="-1" x2="24" y2="-1" stroke="{AXIS}" stroke-width="1.4" stroke-dasharray="1 3" stroke-linecap="round"/>"#
            ),
            label.clone(),
        ));
    }
    if points().any(|p| p.sustained && p.value.is_some()) {
        items.push((
            format!(
                r#"<g transform="translate(8,-1)">{}</g>"#,
                sustained_ring(AXIS)
            ),
            "ring: the rate it sustains (the highest held, searched to 5 %)".to_string(),
        ));
    }
    // The bands drawn: those of the panels of few lines.
    let banded = || {
        chart
            .panels
            .iter()
            .filter(|p| p.lines.len() <= BANDED)
            .flat_map(|p| p.lines.iter().flat_map(|(_, l)| l))
    };
    let crowded = if chart.panels.iter().any(|p| p.lines.len() > BANDED) {
        format!(" (in the panels of up to {BANDED} lines)")
    } else {
        String::new()
    };
    if banded().any(|p| p.band.is_some_and(|i| i.at_level())) {
        items.push((
            r##"<rect x="0" y="-6" width="24" height="10" fill="#888888" fill-opacity="0.25"/>"##
                .to_string(),
            format!("band: the 95 % interval of the median over the rounds{crowded}"),
        ));
    }
    if let Some(below) = below_level(banded().filter_map(|p| p.band)) {
        items.push((
            r##"<rect x="0.5" y="-5.5" width="23" height="9" fill="#888888" fill-opacity="0.1" stroke="#888888" stroke-dasharray="3 2"/>"##
                .to_string(),
            format!("light, dashed band: too few rounds for a 95 % interval, {below}"),
        ));
    }
    if points().any(|p| p.saturated && p.value.is_some()) {
        let s = Series {
            name: String::new(),
            kind: Kind::Rust,
            colour: 6,
            marker: 0,
        };
        items.push((
            format!(
                r#"<g transform="translate(5,-1)">{}</g>"#,
                series_marker(&s, true)
            ),
            "hollow: a rate it did not hold (in most of its rounds)".to_string(),
        ));
    }
    if points().any(|p| p.invalid) {
        items.push((
            format!(r#"<text x="0" y="4" font-size="12" fill="{INVALID}">✕</text>"#),
            "invalid rung (the tables say why)".to_string(),
        ));
    }
    let marks_where =
        " (beside its point where there is room; always in its tooltip and the tables)";
    if points().any(|p| p.marks.tool) {
        items.push((String::new(), format!("{TOOL_WORDS}{marks_where}")));
    }
    if points().any(|p| p.marks.machine) {
        items.push((String::new(), format!("{MACHINE_WORDS}{marks_where}")));
    }
    if points().any(|p| p.marks.round_trips) {
        items.push((String::new(), format!("{TRIPS_WORDS}{marks_where}")));
    }
    legend_items(b, items, y, (PAD, width - PAD), 30.0)
}

/// The colour of `series`: its own, grey for a reference (the C ceiling).
fn series_colour(series: &Series) -> &'static str {
    if series.kind == Kind::Reference {
        return REFERENCE;
    }
    PAIR_COLOURS[series.colour % PALETTE]
}

/// The stroke of `series`' line: solid for a Rust variant, dashed for a peer, dotted for a
/// reference (the C ceiling), a line to read the others against rather than a rival.
fn series_dash(series: &Series) -> &'static str {
    match series.kind {
        Kind::Rust => "",
        Kind::Peer => r#" stroke-dasharray="5 3""#,
        Kind::Reference => r#" stroke-dasharray="1.5 3" stroke-linecap="round""#,
    }
}

/// The width of `series`' line.
fn series_width(series: &Series) -> f64 {
    if series.kind == Kind::Reference {
        2.4
    } else {
        1.8
    }
}

/// The ring drawn around the marker of the rate a server sustains.
fn sustained_ring(colour: &str) -> String {
    format!(r#"<circle cx="0" cy="0" r="7.5" fill="none" stroke="{colour}" stroke-width="1.4"/>"#)
}

/// `series`' marker at (0, 0), by [`Series::marker`]: circle, square, triangle, diamond,
/// triangle down, pentagon; a cross for a reference; hollow (white inside) for a rung it
/// could not keep up with.
fn series_marker(series: &Series, hollow: bool) -> String {
    let c = series_colour(series);
    let fill = if hollow { "#FFFFFF" } else { c };
    let paint = format!(r#"fill="{fill}" stroke="{c}" stroke-width="1.6""#);
    if series.kind == Kind::Reference {
        return format!(
            r#"<path d="M-3.5,-3.5 L3.5,3.5 M-3.5,3.5 L3.5,-3.5" stroke="{c}" stroke-width="1.8" fill="none"/>"#
        );
    }
    match series.marker % MARKERS {
        0 => format!(r#"<circle cx="0" cy="0" r="3.6" {paint}/>"#),
        1 => format!(r#"<rect x="-3.3" y="-3.3" width="6.6" height="6.6" {paint}/>"#),
        2 => format!(r#"<path d="M0,-4.4 L4.2,3.2 L-4.2,3.2 Z" {paint}/>"#),
        3 => format!(r#"<path d="M0,-4.6 L4.6,0 L0,4.6 L-4.6,0 Z" {paint}/>"#),
        4 => format!(r#"<path d="M0,4.4 L4.2,-3.2 L-4.2,-3.2 Z" {paint}/>"#),
        _ => format!(r#"<path d="M0,-4.4 L4.2,-1.4 L2.6,3.6 L-2.6,3.6 L-4.2,-1.4 Z" {paint}/>"#),
    }
}
