//! A [`Chart`] drawn as SVG: a row per server, a panel per step on one shared scale (or each
//! its own, E4's scenarios); horizontal bars, or for latency the percentiles as markers on a
//! log axis. The legend has its own band above the plot, so it never covers data; tick labels
//! carry thousands separators and units, and the axis title says what is measured. The panels
//! sit side by side as many to a row as their labels leave room for, each row of panels with
//! the servers' names at its left; the narrow layout stacks them, the panel a finding reads
//! first.

use std::fmt::Write as _;

use super::axis::Scale;
use super::{
    AXIS, BELOW_LEVEL, Drawn, INVALID, Layout, MACHINE_WORDS, MUTED, PAD, PANEL_GAP, RUST, SMALL,
    TOOL_WORDS, TRIPS_WORDS, below_level, bold_width, colour, kind_label, legend_items, lines,
    text_width, title,
};
use crate::chart::{Cell, Chart, Kind, Metric, PERCENTILES, Row, Value};
use crate::format::{escape, grouped, us_label};

/// The percentiles' colours (Okabe–Ito) in [`PERCENTILES`] order; each has its own shape too.
const PERCENTILE_COLOURS: [&str; 5] = ["#009E73", "#56B4E9", "#CC79A7", "#D55E00", "#000000"];

const ROW: f64 = 18.0;
const PAIR_GAP: f64 = 8.0;
const BAR: f64 = 12.0;
/// The size of a server's name.
const NAME: f64 = 12.0;

/// Draws `chart` for `layout`.
pub fn draw(chart: &Chart, layout: &Layout) -> Drawn {
    let width = layout.width;
    let mut b = String::new();
    let heading = format!("{} · {}", chart.metric.title(), chart.group);
    let below_title = title(&mut b, &heading, width, layout.narrow);
    let mut y = legend(&mut b, chart, width, below_title + 4.0);

    let rows = &chart.rows;
    let label_w = rows
        .iter()
        .map(|r| text_width(&r.name, NAME) + 22.0)
        .fold(80.0_f64, f64::max);
    let x0 = PAD + label_w;
    let latency = chart.metric == Metric::Latency;
    // Room right of the longest bar for its value label (of a latency row, its marks).
    let value_room = if latency {
        26.0
    } else {
        chart
            .panels
            .iter()
            .flat_map(|p| &p.cells)
            .map(|c| text_width(&bar_label(chart.metric, c), SMALL) + 10.0)
            .fold(28.0_f64, f64::max)
    };
    // A panel is never narrower than its title, nor its plot than its tick labels need.
    let min_plot = if layout.narrow { 110.0 } else { 150.0 };
    let min_panel = chart
        .panels
        .iter()
        .map(|p| bold_width(&panel_title(p), 12.0) + 4.0)
        .fold(min_plot + value_room, f64::max);
    let avail = width - x0 - PAD;
    let n = chart.panels.len().max(1);
    let cols = if layout.narrow {
        1
    } else {
        (1..=n)
            .rev()
            .find(|&k| (avail - PANEL_GAP * (k - 1) as f64) / k as f64 >= min_panel)
            .unwrap_or(1)
    };
    let panel_w = (avail - PANEL_GAP * (cols - 1) as f64) / cols as f64;
    let mut order: Vec<usize> = (0..chart.panels.len()).collect();
    if layout.narrow {
        order.sort_by_key(|&i| !chart.panels[i].cited);
    }
    let plot_w = |scale_overhang: f64| (panel_w - value_room.max(scale_overhang)).max(40.0);

    let all: Vec<&Cell> = chart.panels.iter().flat_map(|p| &p.cells).collect();
    let shared = {
        let first = Scale::new(chart.metric, &all, plot_w(0.0));
        Scale::new(chart.metric, &all, plot_w(first.overhang()))
    };
    for block in order.chunks(cols) {
        let panel_title_y = y + 14.0;
        let rows_top = panel_title_y + 8.0;
        let ys = row_centres(rows, rows_top);
        let rows_bottom = ys.last().map_or(rows_top, |y| y + ROW / 2.0);
        let axis_y = rows_bottom + 4.0;
        for (col, &p) in block.iter().enumerate() {
            let panel = &chart.panels[p];
            let px = x0 + col as f64 * (panel_w + PANEL_GAP);
            let own;
            let scale = if chart.shared_scale {
                &shared
            } else {
                let cells: Vec<&Cell> = panel.cells.iter().collect();
                let first = Scale::new(chart.metric, &cells, plot_w(0.0));
                own = Scale::new(chart.metric, &cells, plot_w(first.overhang()));
                &own
            };
            let _ = write!(
                b,
                r#"<text class="panel" x="{px:.2}" y="{panel_title_y:.2}" font-size="12" font-weight="600">{}</text>"#,
                escape(&panel_title(panel))
            );
            scale.axis(&mut b, px, rows_top, axis_y);
            for ((row, cell), y) in rows.iter().zip(&panel.cells).zip(&ys) {
                mark(
                    &mut b,
                    chart,
                    layout,
                    scale,
                    row,
                    &panel.title,
                    cell,
                    px,
                    *y,
                );
            }
        }
        for (row, y) in rows.iter().zip(&ys) {
            let _ = write!(
                b,
                r#"<rect x="{PAD}" y="{:.2}" width="9" height="9" fill="{}"/><text x="{}" y="{:.2}" font-size="{NAME}">{}</text>"#,
                y - 4.5,
                colour(row.kind),
                PAD + 14.0,
                y + 4.0,
                escape(&row.name)
            );
        }
        y = axis_y + 22.0;
    }
    let axis_title_y = y + 8.0;
    let last = lines(
        &mut b,
        chart.metric.axis(),
        if layout.narrow { PAD } else { x0 },
        axis_title_y,
        12.0,
        false,
        width - x0 - PAD,
        &format!(r#" fill="{AXIS}""#),
    );
    Drawn {
        body: b,
        width,
        height: last + 10.0,
    }
}

/// A panel's title: its step, and that a finding reads it.
fn panel_title(p: &crate::chart::Panel) -> String {
    if p.cited {
        format!("{} (a finding's)", p.title)
    } else {
        p.title.clone()
    }
}

/// The vertical centre of each row, pairs set apart.
fn row_centres(rows: &[Row], top: f64) -> Vec<f64> {
    let mut y = top;
    rows.iter()
        .map(|r| {
            if r.gap_before {
                y += PAIR_GAP;
            }
            let c = y + ROW / 2.0;
            y += ROW;
            c
        })
        .collect()
}

/// The whisker of a cell with an interval: its SVG (a line from the interval's low to its high
/// across the bar's middle, with end caps; dashed and lighter below 95 %), where the label may
/// start (after the bar and the whisker) and the words for the tooltip (its rounds and real
/// coverage below 95 %); nothing and the bar's end without one.
fn whisker(c: &Cell, scale: &Scale, px: f64, y: f64, w: f64) -> (String, f64, String) {
    let Some(i) = c.whisker else {
        return (String::new(), px + w, String::new());
    };
    let (x0, x1) = (px + scale.pos(i.low), px + scale.pos(i.high));
    let (t, b) = (y - BAR / 2.0 + 2.0, y + BAR / 2.0 - 2.0);
    let (class, style) = if i.at_level() {
        ("whisker", "")
    } else {
        ("whisker below-level", BELOW_LEVEL)
    };
    (
        format!(
            r#"<path class="{class}" d="M{x0:.2} {y:.2}H{x1:.2}M{x0:.2} {t:.2}V{b:.2}M{x1:.2} {t:.2}V{b:.2}" stroke="{AXIS}" stroke-width="1.2" fill="none"{style}/>"#
        ),
        (px + w).max(x1),
        format!(
            " ({})",
            crate::format::interval_words(&i, |x| grouped(x, 2))
        ),
    )
}

/// A bar's value label, the figure as the tables write it with its marks (`185,209 †`): a
/// CPU time is its median total, never the sum of its parts' medians.
fn bar_label(metric: Metric, c: &Cell) -> String {
    match c.value {
        Value::Bar(v) | Value::Split { total: v, .. } => {
            format!("{}{}", grouped(v, metric.decimals()), c.marks.suffix())
        }
        _ => String::new(),
    }
}

/// Draws the legend from `y`, wrapping at `width`; returns the y below it.
fn legend(b: &mut String, chart: &Chart, width: f64, y: f64) -> f64 {
    let cells = || chart.panels.iter().flat_map(|p| &p.cells);
    let mut items: Vec<(String, String)> = Vec::new();
    if chart.metric == Metric::Latency {
        for (i, name) in PERCENTILES.iter().enumerate() {
            let any =
                cells().any(|c| matches!(c.value, Value::Latency(p) if p.values[i].is_some()));
            if any {
                items.push((shape(i, 5.0, -1.0), (*name).to_string()));
            }
        }
    } else {
        for kind in [Kind::Rust, Kind::Peer, Kind::Reference] {
            if chart.rows.iter().any(|r| r.kind == kind) {
                items.push((
                    format!(
                        r#"<rect x="0" y="-6" width="10" height="10" fill="{}"/>"#,
                        colour(kind)
                    ),
                    kind_label(kind).to_string(),
                ));
            }
        }
        if cells().any(|c| matches!(c.value, Value::Split { .. })) {
            items.push((
                format!(r#"<rect x="0" y="-6" width="10" height="10" fill="{MUTED}"/>"#),
                "bar: the median total; solid: its user share (runtime, framework, variant)"
                    .to_string(),
            ));
            items.push((
                format!(
                    r#"<rect x="0" y="-6" width="10" height="10" fill="{MUTED}" fill-opacity="0.35"/>"#
                ),
                "light: its kernel share (system calls, loopback TCP)".to_string(),
            ));
        }
    }
    if cells().any(|c| c.whisker.is_some_and(|i| i.at_level())) {
        items.push((
            format!(
                r#"<path d="M0 -1H12M0 -5V3M12 -5V3" stroke="{AXIS}" stroke-width="1.2" fill="none"/>"#
            ),
            "95 % interval of the median over the rounds".to_string(),
        ));
    }
    if let Some(below) = below_level(cells().filter_map(|c| c.whisker)) {
        items.push((
            format!(
                r#"<path d="M0 -1H12M0 -5V3M12 -5V3" stroke="{AXIS}" stroke-width="1.2" fill="none"{BELOW_LEVEL}/>"#
            ),
            format!("dashed: too few rounds for a 95 % interval, {below}"),
        ));
    }
    if cells().any(|c| c.at_least.is_some()) {
        items.push((
            format!(r#"<text x="0" y="4" font-size="{SMALL}" fill="{AXIS}">≥</text>"#),
            "p99 a lower bound: the probe got no answer in some rounds (the tables say how many)"
                .to_string(),
        ));
    }
    if cells().any(|c| c.marks.tool) {
        let swatch = if chart.metric != Metric::Rps {
            String::new()
        } else {
            format!(
                r#"<rect x="0.5" y="-5.5" width="12" height="9" fill="{RUST}" fill-opacity="0.35" stroke="{RUST}" stroke-dasharray="3 2"/>"#
            )
        };
        items.push((swatch, TOOL_WORDS.to_string()));
    }
    if cells().any(|c| c.marks.machine) {
        items.push((String::new(), MACHINE_WORDS.to_string()));
    }
    if cells().any(|c| c.marks.round_trips) {
        items.push((String::new(), TRIPS_WORDS.to_string()));
    }
    if cells().any(|c| c.value == Value::Invalid) {
        items.push((
            format!(
                r#"<text x="0" y="4" font-size="{SMALL}" fill="{INVALID}" font-style="italic">✕</text>"#
            ),
            "invalid step (the table says why)".to_string(),
        ));
    }
    legend_items(b, items, y, (PAD, width - PAD), 18.0)
}

/// The marker of percentile `i` at (0, 0) of `r` px, nudged by `dy`.
fn shape(i: usize, r: f64, dy: f64) -> String {
    let c = PERCENTILE_COLOURS[i];
    let (x, y) = (5.0, dy);
    match i {
        0 => format!(r#"<circle cx="{x}" cy="{y}" r="{r}" fill="{c}"/>"#),
        1 => format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{c}"/>"#,
            x - r * 0.85,
            y - r * 0.85,
            r * 1.7,
            r * 1.7
        ),
        2 => format!(
            r#"<path d="M{x},{} L{},{} L{},{} Z" fill="{c}"/>"#,
            y - r * 1.1,
            x + r * 1.1,
            y + r * 0.8,
            x - r * 1.1,
            y + r * 0.8
        ),
        3 => format!(
            r#"<path d="M{x},{} L{},{y} L{x},{} L{},{y} Z" fill="{c}"/>"#,
            y - r * 1.2,
            x + r * 1.2,
            y + r * 1.2,
            x - r * 1.2
        ),
        _ => format!(
            r#"<path d="M{},{} L{},{} M{},{} L{},{}" stroke="{c}" stroke-width="1.8" fill="none"/>"#,
            x - r * 0.9,
            y - r * 0.9,
            x + r * 0.9,
            y + r * 0.9,
            x - r * 0.9,
            y + r * 0.9,
            x + r * 0.9,
            y - r * 0.9
        ),
    }
}

/// Draws one cell of the panel at `px`, on the row centred at `y`.
#[allow(clippy::too_many_arguments)]
fn mark(
    b: &mut String,
    chart: &Chart,
    layout: &Layout,
    scale: &Scale,
    row: &Row,
    step: &str,
    cell: &Cell,
    px: f64,
    y: f64,
) {
    let note = |b: &mut String, text: &str, fill: &str, italic: bool| {
        let _ = write!(
            b,
            r#"<text x="{}" y="{}" font-size="{SMALL}" fill="{fill}"{}>{text}</text>"#,
            px + 3.0,
            y + 4.0,
            if italic {
                r#" font-style="italic""#
            } else {
                ""
            }
        );
    };
    let bound = match (cell.marks.tool, cell.marks.machine) {
        (true, true) => ", the load generator was the bottleneck (†) and the machine was busy (‡)",
        (true, false) => ", the load generator was the bottleneck (†)",
        (false, true) => ", the machine was busy (‡)",
        (false, false) => "",
    };
    let unit = match chart.metric {
        Metric::Rps => "requests/s",
        Metric::Cpu => "µs/request",
        Metric::Rss => "MB",
        Metric::Latency => "",
    };
    match cell.value {
        Value::NotRun => note(b, "—", MUTED, false),
        Value::NotMeasured => note(b, "n/a", MUTED, false),
        Value::Invalid => note(b, "✕ invalid", INVALID, true),
        Value::Bar(v) => {
            let w = scale.pos(v);
            let w = if v > 0.0 { w.max(1.5) } else { 0.0 };
            let c = colour(row.kind);
            // The lighter, dashed bar where the tool's cap is the figure itself (requests/s);
            // elsewhere the `†` of the label says it.
            let style = if cell.marks.tool && chart.metric == Metric::Rps {
                format!(r#" fill-opacity="0.35" stroke="{c}" stroke-dasharray="3 2""#)
            } else {
                String::new()
            };
            let label = bar_label(chart.metric, cell);
            let (whisker, end, range) = whisker(cell, scale, px, y, w);
            let tip = layout.tip(&format!(
                "{}, {step}: {} {unit}{range}{bound}",
                row.name,
                grouped(v, chart.metric.decimals()),
            ));
            let _ = write!(
                b,
                r#"<g>{tip}<rect class="bar" x="{px:.2}" y="{}" width="{w:.2}" height="{BAR}" fill="{c}"{style}/>{whisker}<text x="{:.2}" y="{}" font-size="{SMALL}">{}</text></g>"#,
                y - BAR / 2.0,
                end + 4.0,
                y + 4.0,
                escape(&label)
            );
        }
        Value::Split {
            total,
            user,
            kernel,
        } => {
            let c = colour(row.kind);
            let w = if total > 0.0 {
                scale.pos(total).max(1.5)
            } else {
                0.0
            };
            // The total's bar, its user share solid: the parts' medians in proportion.
            let share = if user + kernel > 0.0 {
                user / (user + kernel)
            } else {
                1.0
            };
            let wu = w * share;
            let label = bar_label(chart.metric, cell);
            let (whisker, end, range) = whisker(cell, scale, px, y, w);
            let tip = layout.tip(&format!(
                "{}, {step}: {} µs/request (the median), of which user {} and kernel {} (each the median of its own rounds){range}{bound}",
                row.name,
                grouped(total, 2),
                grouped(user, 2),
                grouped(kernel, 2),
            ));
            let _ = write!(
                b,
                r#"<g>{tip}<rect class="bar" x="{px:.2}" y="{y0}" width="{wu:.2}" height="{BAR}" fill="{c}"/><rect class="bar" x="{:.2}" y="{y0}" width="{:.2}" height="{BAR}" fill="{c}" fill-opacity="0.35"/>{whisker}<text x="{:.2}" y="{}" font-size="{SMALL}">{}</text></g>"#,
                px + wu,
                w - wu,
                end + 4.0,
                y + 4.0,
                escape(&label),
                y0 = y - BAR / 2.0,
            );
        }
        Value::Latency(p) => {
            let xs: Vec<(usize, f64)> = p
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i, px + scale.pos(v.max(1) as f64))))
                .collect();
            let tip: Vec<String> = p
                .values
                .iter()
                .zip(PERCENTILES)
                .filter_map(|(v, name)| v.map(|v| format!("{name} {}", us_label(v as f64))))
                .collect();
            let censored = cell.at_least.map_or(String::new(), |u| u.words());
            let tip = layout.tip(&format!(
                "{}, {step}: {}{censored}{bound}",
                row.name,
                tip.join(", ")
            ));
            let _ = write!(b, r#"<g>{tip}"#);
            let lo = xs.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
            let hi = xs.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
            let _ = write!(
                b,
                r##"<line x1="{lo:.2}" y1="{y}" x2="{hi:.2}" y2="{y}" stroke="#9A9A9A" stroke-width="1.5"/>"##
            );
            for (i, x) in &xs {
                let _ = write!(
                    b,
                    r#"<g class="mark" transform="translate({:.2},{y})">{}</g>"#,
                    x - 5.0,
                    shape(*i, 4.0, 0.0)
                );
                // A p99 that is a lower bound: `≥` before its marker.
                if *i == 3 && cell.at_least.is_some() {
                    let _ = write!(
                        b,
                        r#"<text class="at-least" x="{:.2}" y="{}" font-size="12" font-weight="600" fill="{AXIS}" text-anchor="end">≥</text>"#,
                        x - 6.0,
                        y + 4.0
                    );
                }
            }
            if cell.marks.any() {
                let _ = write!(
                    b,
                    r#"<text x="{:.2}" y="{}" font-size="{SMALL}">{}</text>"#,
                    hi + 7.0,
                    y + 4.0,
                    cell.marks.suffix().trim()
                );
            }
            b.push_str("</g>");
        }
    }
}
