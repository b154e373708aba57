//! A [`Chart`] drawn as SVG: a row per server, a panel per step on one shared scale;
//! horizontal bars, or for latency the percentiles as markers on a log axis. The legend has
//! its own band above the plot, so it never covers data; tick labels carry thousands
//! separators and units, and the axis title says what is measured. Colours are Okabe and
//! Ito's colour-blind-safe palette, and every distinction also shows as a shape, a pattern
//! or a text mark (`†` tool-bound, `invalid`), so none rests on colour alone.
//!
//! [`draw`] returns the elements and the size; the page wraps them in an `<svg>` of their
//! own, the SVG file stacks several under one title. [`draw_rates`] draws a chart against the
//! offered rate (E7) the same way: a line per server, both axes labelled with units, the
//! legend above; a pair (a Rust variant and its peers) shares an Okabe–Ito colour, the Rust
//! variant solid and its peers dashed, each server its own marker shape.

use std::fmt::Write as _;

use super::chart::{Cell, Chart, Kind, Metric, PERCENTILES, Point, RateChart, Row, Series, Value};
use crate::format::{escape, grouped, us_label};
use bench_model::stats::Interval;

/// The font stack: local fonts only (a page that loads none from anywhere).
pub(crate) const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";

/// Okabe–Ito blue: Rust variants.
pub(crate) const RUST: &str = "#0072B2";
/// Okabe–Ito orange: peers, the articles' systems.
pub(crate) const PEER: &str = "#E69F00";
/// Neutral grey: a reference without an analogue (the C ceiling).
pub(crate) const REFERENCE: &str = "#7A7A7A";
/// Okabe–Ito vermillion: invalid steps.
pub(crate) const INVALID: &str = "#D55E00";
const GRID: &str = "#E4E4E4";
const AXIS: &str = "#555555";
const MUTED: &str = "#6B6B6B";

/// The percentiles' colours (Okabe–Ito) in [`PERCENTILES`] order; each has its own shape too.
const PERCENTILE_COLOURS: [&str; 5] = ["#009E73", "#56B4E9", "#CC79A7", "#D55E00", "#000000"];

const PAD: f64 = 8.0;
const ROW: f64 = 18.0;
const PAIR_GAP: f64 = 8.0;
const BAR: f64 = 12.0;
const PANEL_GAP: f64 = 18.0;

/// A drawn chart: SVG elements within `0..width` × `0..height`.
pub(crate) struct Drawn {
    /// The elements.
    pub body: String,
    /// The width it was drawn for.
    pub width: f64,
    /// The height it needs.
    pub height: f64,
}

/// The colour of a server of `kind`.
pub(crate) fn colour(kind: Kind) -> &'static str {
    match kind {
        Kind::Rust => RUST,
        Kind::Peer => PEER,
        Kind::Reference => REFERENCE,
    }
}

/// What a kind is called in a legend.
pub(crate) fn kind_label(kind: Kind) -> &'static str {
    match kind {
        Kind::Rust => "Rust variant",
        Kind::Peer => "peer (the article's system)",
        Kind::Reference => "reference (analogue of none)",
    }
}

/// A rough width of `text` at `size` px in a sans-serif font (no font metrics here).
pub(crate) fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// Draws `chart` `width` wide.
pub(crate) fn draw(chart: &Chart, width: f64) -> Drawn {
    let mut b = String::new();
    let title = format!("{} · {}", chart.metric.title(), chart.group);
    let _ = write!(
        b,
        r#"<text x="{PAD}" y="18" font-size="15" font-weight="600">{}</text>"#,
        escape(&title)
    );
    let legend_bottom = legend(&mut b, chart, width, 38.0);

    let rows = &chart.rows;
    let label_w = rows
        .iter()
        .map(|r| text_width(&r.name, 12.0) + 22.0)
        .fold(90.0_f64, f64::max)
        .min(220.0);
    let n = chart.panels.len().max(1) as f64;
    let x0 = PAD + label_w;
    let panel_w = ((width - x0 - PAD - PANEL_GAP * (n - 1.0)) / n).max(60.0);
    let latency = chart.metric == Metric::Latency;
    // Room right of the longest bar for its value label.
    let value_room = if latency {
        14.0
    } else {
        chart
            .panels
            .iter()
            .flat_map(|p| &p.cells)
            .map(|c| text_width(&bar_label(chart.metric, c), 11.0) + 8.0)
            .fold(24.0_f64, f64::max)
    };
    let plot_w = (panel_w - value_room).max(40.0);

    let panel_title_y = legend_bottom + 16.0;
    let rows_top = panel_title_y + 8.0;
    let ys = row_centres(rows, rows_top);
    let rows_bottom = ys.last().map_or(rows_top, |y| y + ROW / 2.0);
    let axis_y = rows_bottom + 4.0;

    let all: Vec<&Cell> = chart.panels.iter().flat_map(|p| &p.cells).collect();
    let shared = Scale::new(chart.metric, &all, plot_w);
    for (p, panel) in chart.panels.iter().enumerate() {
        let px = x0 + p as f64 * (panel_w + PANEL_GAP);
        let own;
        let scale = if chart.shared_scale {
            &shared
        } else {
            own = Scale::new(
                chart.metric,
                &panel.cells.iter().collect::<Vec<_>>(),
                plot_w,
            );
            &own
        };
        let _ = write!(
            b,
            r#"<text x="{px}" y="{panel_title_y}" font-size="12" font-weight="600">{}</text>"#,
            escape(&panel.title)
        );
        scale.axis(&mut b, px, rows_top, axis_y);
        for ((row, cell), y) in rows.iter().zip(&panel.cells).zip(&ys) {
            mark(&mut b, chart, scale, row, &panel.title, cell, px, *y);
        }
    }
    for (row, y) in rows.iter().zip(&ys) {
        let _ = write!(
            b,
            r#"<rect x="{PAD}" y="{}" width="9" height="9" fill="{}"/><text x="{}" y="{}" font-size="12">{}</text>"#,
            y - 4.5,
            colour(row.kind),
            PAD + 14.0,
            y + 4.0,
            escape(&row.name)
        );
    }
    let axis_title_y = axis_y + 34.0;
    let _ = write!(
        b,
        r#"<text x="{}" y="{axis_title_y}" font-size="12" fill="{AXIS}" text-anchor="middle">{}</text>"#,
        x0 + (width - x0 - PAD) / 2.0,
        escape(chart.metric.axis())
    );
    Drawn {
        body: b,
        width,
        height: axis_title_y + 10.0,
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

/// The stroke of a whisker or a band's outline from an interval below 95 % (too few rounds):
/// dashed and lighter, so it never reads as a 95 % interval.
const BELOW_LEVEL: &str = r#" stroke-dasharray="2.5 1.5" stroke-opacity="0.6""#;

/// What the legend says of the intervals below 95 % among `intervals` (`min–max of 2 rounds,
/// 50 %; of 3 rounds, 75 %`), each count of rounds once; `None` when every one is at 95 %.
fn below_level(intervals: impl Iterator<Item = Interval>) -> Option<String> {
    let mut below: Vec<Interval> = intervals.filter(|i| !i.at_level()).collect();
    below.sort_by_key(|i| i.n);
    below.dedup_by_key(|i| i.n);
    let labels: Vec<String> = below
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let l = i.label();
            if k == 0 {
                l
            } else {
                l.replacen("min–max ", "", 1)
            }
        })
        .collect();
    (!labels.is_empty()).then(|| labels.join("; "))
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

/// A bar's value label (`185,209 †`).
fn bar_label(metric: Metric, c: &Cell) -> String {
    match c.value {
        Value::Bar(v) => format!("{}{}", grouped(v, metric.decimals()), cell_marks(c)),
        Value::Split(u, k) => format!(
            "{} ({} + {}){}",
            grouped(u + k, metric.decimals()),
            grouped(u, metric.decimals()),
            grouped(k, metric.decimals()),
            cell_marks(c)
        ),
        _ => String::new(),
    }
}

/// ` †`, ` ‡`, ` §`, their combinations or nothing: the cell's marks.
fn cell_marks(c: &Cell) -> String {
    c.marks.suffix()
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
        if cells().any(|c| matches!(c.value, Value::Split(..))) {
            items.push((
                format!(r#"<rect x="0" y="-6" width="10" height="10" fill="{MUTED}"/>"#),
                "solid: user time (runtime, framework, variant)".to_string(),
            ));
            items.push((
                format!(
                    r#"<rect x="0" y="-6" width="10" height="10" fill="{MUTED}" fill-opacity="0.35"/>"#
                ),
                "light: kernel time (system calls, loopback TCP)".to_string(),
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
            format!(r#"<text x="0" y="4" font-size="11" fill="{AXIS}">≥</text>"#),
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
        items.push((
            swatch,
            "† the load generator was ≥ 90 % busy: it may have set the pace".to_string(),
        ));
    }
    if cells().any(|c| c.marks.machine) {
        items.push((
            String::new(),
            "‡ the machine was busy (other work, steal or CPU waits): it may have set the figure"
                .to_string(),
        ));
    }
    if cells().any(|c| c.marks.round_trips) {
        items.push((
            String::new(),
            "§ neither the server nor the load generator was busy: the connections' round trips set the pace"
                .to_string(),
        ));
    }
    if cells().any(|c| c.value == Value::Invalid) {
        items.push((
            format!(
                r#"<text x="0" y="4" font-size="11" fill="{INVALID}" font-style="italic">✕</text>"#
            ),
            "invalid step (the table says why)".to_string(),
        ));
    }
    legend_items(b, items, y, width, 18.0)
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
            r#"<text x="{}" y="{}" font-size="11" fill="{fill}"{}>{text}</text>"#,
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
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {} {}{range}{bound}</title><rect class="bar" x="{px}" y="{}" width="{w:.2}" height="{BAR}" fill="{c}"{style}/>{whisker}<text x="{:.2}" y="{}" font-size="11">{}</text></g>"#,
                escape(&row.name),
                escape(step),
                grouped(v, chart.metric.decimals()),
                escape(unit(chart.metric)),
                y - BAR / 2.0,
                end + 4.0,
                y + 4.0,
                escape(&label)
            );
        }
        Value::Split(u, k) => {
            let c = colour(row.kind);
            let wu = if u > 0.0 { scale.pos(u).max(1.0) } else { 0.0 };
            let w = scale.pos(u + k).max(wu);
            let label = bar_label(chart.metric, cell);
            let (whisker, end, range) = whisker(cell, scale, px, y, w);
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {} µs/request, user {} + kernel {}{range}{bound}</title><rect class="bar" x="{px}" y="{y0}" width="{wu:.2}" height="{BAR}" fill="{c}"/><rect class="bar" x="{:.2}" y="{y0}" width="{:.2}" height="{BAR}" fill="{c}" fill-opacity="0.35"/>{whisker}<text x="{:.2}" y="{}" font-size="11">{}</text></g>"#,
                escape(&row.name),
                escape(step),
                grouped(u + k, 2),
                grouped(u, 2),
                grouped(k, 2),
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
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {}{censored}{bound}</title>"#,
                escape(&row.name),
                escape(step),
                tip.join(", ")
            );
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
            if cell.marks.tool || cell.marks.machine {
                let _ = write!(
                    b,
                    r#"<text x="{:.2}" y="{}" font-size="12">{}</text>"#,
                    hi + 7.0,
                    y + 4.0,
                    cell_marks(cell).trim()
                );
            }
            b.push_str("</g>");
        }
    }
}

/// The unit of a bar's value, for its tooltip.
fn unit(metric: Metric) -> &'static str {
    match metric {
        Metric::Rps => "requests/s",
        Metric::Cpu => "µs/request",
        Metric::Rss => "MB",
        Metric::Latency => "",
    }
}

/// A value axis: linear from 0 for bars, log for latency (µs).
struct Scale {
    log: bool,
    lo: f64,
    hi: f64,
    width: f64,
    ticks: Vec<(f64, Option<String>)>,
}

impl Scale {
    fn new(metric: Metric, cells: &[&Cell], width: f64) -> Scale {
        let cells = || cells.iter().copied();
        if metric == Metric::Latency {
            let vals: Vec<f64> = cells()
                .filter_map(|c| match c.value {
                    Value::Latency(p) => Some(p.values),
                    _ => None,
                })
                .flatten()
                .flatten()
                .map(|v| v.max(1) as f64)
                .collect();
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
            let decades = (hi / lo).log10().round() as i32;
            let per_decade = width / decades as f64;
            // Label 1-2-5 within a decade when there is room, else every decade, or on a
            // narrow panel every second or third one: labels at least 56 px apart.
            let mut ticks = Vec::new();
            let every = (56.0 / per_decade).ceil().max(1.0) as i32;
            for d in 0..=decades {
                let base = lo * 10f64.powi(d);
                let label = (d % every == 0).then(|| us_label(base));
                ticks.push((base, label));
                if d < decades {
                    for m in [2.0, 5.0] {
                        let label = (per_decade >= 150.0).then(|| us_label(base * m));
                        ticks.push((base * m, label));
                    }
                }
            }
            Scale {
                log: true,
                lo,
                hi,
                width,
                ticks,
            }
        } else {
            let max = cells()
                .filter_map(|c| {
                    let v = match c.value {
                        Value::Bar(v) => v,
                        Value::Split(u, k) => u + k,
                        _ => return None,
                    };
                    // A whisker reaching past its bar stays inside the chart.
                    Some(c.whisker.map_or(v, |i| v.max(i.high)))
                })
                .fold(0.0_f64, f64::max);
            let want = (width / 70.0).floor().max(2.0);
            let step = nice_step(if max > 0.0 { max / want } else { 1.0 });
            let decimals = if step >= 1.0 {
                0
            } else if step >= 0.1 {
                1
            } else {
                2
            };
            let n = (max / step).ceil().max(1.0) as usize;
            let ticks = (0..=n)
                .map(|i| {
                    let t = i as f64 * step;
                    (t, Some(grouped(t, decimals)))
                })
                .collect();
            Scale {
                log: false,
                lo: 0.0,
                hi: n as f64 * step,
                width,
                ticks,
            }
        }
    }

    /// The x offset of `v` within a panel.
    fn pos(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            v / self.hi
        };
        f.clamp(0.0, 1.0) * self.width
    }

    /// Grid lines, the axis line and tick labels of the panel at `px`.
    fn axis(&self, b: &mut String, px: f64, top: f64, axis_y: f64) {
        let last = self.ticks.iter().rposition(|(_, l)| l.is_some());
        for (k, (t, label)) in self.ticks.iter().enumerate() {
            let x = px + self.pos(*t);
            // The outermost labels of a log axis stay inside their panel.
            let anchor = match (self.log, k) {
                (true, 0) => "start",
                (true, k) if Some(k) == last => "end",
                _ => "middle",
            };
            let _ = write!(
                b,
                r#"<line x1="{x:.2}" y1="{top}" x2="{x:.2}" y2="{axis_y}" stroke="{GRID}" stroke-width="{}"/>"#,
                if label.is_some() { 1.0 } else { 0.6 }
            );
            if let Some(label) = label {
                let _ = write!(
                    b,
                    r#"<line x1="{x:.2}" y1="{axis_y}" x2="{x:.2}" y2="{}" stroke="{AXIS}"/><text x="{x:.2}" y="{}" font-size="10" fill="{AXIS}" text-anchor="{anchor}">{}</text>"#,
                    axis_y + 4.0,
                    axis_y + 15.0,
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
}

/// The 1-2-5 step nearest above `raw`.
fn nice_step(raw: f64) -> f64 {
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

/// The colours of the pairs of a [`RateChart`] (Okabe–Ito, yellow left out: too pale on white),
/// in the order the pairs come.
const PAIR_COLOURS: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];

/// Height of a [`RateChart`]'s plot, px.
const PLOT_H: f64 = 220.0;
/// Room left of each panel's plot for its value labels, px.
const Y_LABELS: f64 = 50.0;

/// The colour of `series`: its pair's, grey for a reference (the C ceiling).
fn series_colour(series: &Series) -> &'static str {
    if series.kind == Kind::Reference {
        return REFERENCE;
    }
    PAIR_COLOURS[series.pair % PAIR_COLOURS.len()]
}

/// The stroke of `series`' line: solid for a Rust variant, dashed for a peer, wide and light
/// for a reference (the C ceiling), a line to read the others against rather than a rival.
fn series_dash(series: &Series) -> &'static str {
    match series.kind {
        Kind::Rust => "",
        Kind::Peer => r#" stroke-dasharray="5 3""#,
        Kind::Reference => r#" stroke-opacity="0.4" stroke-linecap="round""#,
    }
}

/// The width of `series`' line: wide for a reference.
fn series_width(series: &Series) -> f64 {
    if series.kind == Kind::Reference {
        5.0
    } else {
        1.8
    }
}

/// The ring drawn around the marker of the rate a server sustains.
fn sustained_ring(colour: &str) -> String {
    format!(r#"<circle cx="0" cy="0" r="7.5" fill="none" stroke="{colour}" stroke-width="1.4"/>"#)
}

/// `series`' marker at (0, 0): circle, square, triangle or diamond by its place in its pair;
/// hollow (white inside) for a rung it could not keep up with.
fn series_marker(series: &Series, hollow: bool) -> String {
    let c = series_colour(series);
    let fill = if hollow { "#FFFFFF" } else { c };
    let paint = format!(r#"fill="{fill}" stroke="{c}" stroke-width="1.6""#);
    match series.place % 4 {
        0 => format!(r#"<circle cx="0" cy="0" r="3.6" {paint}/>"#),
        1 => format!(r#"<rect x="-3.3" y="-3.3" width="6.6" height="6.6" {paint}/>"#),
        2 => format!(r#"<path d="M0,-4.4 L4.2,3.2 L-4.2,3.2 Z" {paint}/>"#),
        _ => format!(r#"<path d="M0,-4.6 L4.6,0 L0,4.6 L-4.6,0 Z" {paint}/>"#),
    }
}

/// An offered rate, short: `500`, `1k`, `2.5k`, `160k`, `1M`.
pub(crate) fn rate_label(rate: f64) -> String {
    let trim = |x: f64| {
        let s = format!("{x:.1}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if rate >= 1_000_000.0 {
        format!("{}M", trim(rate / 1_000_000.0))
    } else if rate >= 1000.0 {
        format!("{}k", trim(rate / 1000.0))
    } else {
        trim(rate)
    }
}

/// A logarithmic axis from `lo` to `hi` over `len` px, with 1-2-5 ticks.
struct LogAxis {
    lo: f64,
    hi: f64,
    len: f64,
}

impl LogAxis {
    fn pos(&self, v: f64) -> f64 {
        let f = (v.max(self.lo).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln());
        f.clamp(0.0, 1.0) * self.len
    }

    /// Every 1-2-5 tick within the axis, with whether it is labelled: the powers of ten
    /// always, the 2s and 5s when labels `min_gap` px apart fit.
    fn ticks(&self, min_gap: f64) -> Vec<(f64, bool)> {
        let per_decade = self.len / (self.hi / self.lo).log10();
        let mut out = Vec::new();
        let mut decade = 10f64.powf(self.lo.log10().floor());
        while decade <= self.hi {
            for m in [1.0, 2.0, 5.0] {
                let t = decade * m;
                if t < self.lo * 0.999 || t > self.hi * 1.001 {
                    continue;
                }
                // 1-2-5 labels are at least log10(2) of a decade apart.
                let labelled = m == 1.0 || per_decade * 2f64.log10() >= min_gap;
                out.push((t, labelled));
            }
            decade *= 10.0;
        }
        out
    }
}

/// The value axis of a [`RateChart`]: log for latency (µs), linear from 0 for CPU.
enum ValueAxis {
    Log(LogAxis),
    Linear { hi: f64, step: f64, len: f64 },
}

impl ValueAxis {
    fn new(chart: &RateChart) -> ValueAxis {
        let mut vals: Vec<f64> = chart
            .panels
            .iter()
            .flat_map(|p| p.lines.iter().flatten())
            .flat_map(|p| {
                let (lo, hi) = p.band.map(|i| (i.low, i.high)).unzip();
                [p.value, lo, hi]
            })
            .flatten()
            .collect();
        if chart.log {
            vals.extend(
                chart
                    .panels
                    .iter()
                    .filter_map(|p| p.limit.as_ref().map(|l| l.0)),
            );
            let vals: Vec<f64> = vals.into_iter().map(|v| v.max(1.0)).collect();
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
            ValueAxis::Log(LogAxis {
                lo,
                hi,
                len: PLOT_H,
            })
        } else {
            let max = vals.iter().copied().fold(0.0_f64, f64::max);
            let step = nice_step(if max > 0.0 { max / 5.0 } else { 1.0 });
            let n = (max / step).ceil().max(1.0);
            ValueAxis::Linear {
                hi: n * step,
                step,
                len: PLOT_H,
            }
        }
    }

    /// Px up from the plot's bottom.
    fn pos(&self, v: f64) -> f64 {
        match self {
            ValueAxis::Log(a) => a.pos(v.max(1.0)),
            ValueAxis::Linear { hi, len, .. } => (v / hi).clamp(0.0, 1.0) * len,
        }
    }

    /// The ticks, each with its label (`None`: a minor line).
    fn ticks(&self) -> Vec<(f64, Option<String>)> {
        match self {
            ValueAxis::Log(a) => a
                .ticks(28.0)
                .into_iter()
                .map(|(t, l)| (t, l.then(|| us_label(t))))
                .collect(),
            ValueAxis::Linear { hi, step, .. } => {
                let decimals = if *step >= 1.0 {
                    0
                } else if *step >= 0.1 {
                    1
                } else {
                    2
                };
                let n = (hi / step).round() as usize;
                (0..=n)
                    .map(|i| {
                        let t = i as f64 * step;
                        (t, Some(grouped(t, decimals)))
                    })
                    .collect()
            }
        }
    }
}

/// Draws a chart against the offered rate `width` wide: its title, the legend (every server,
/// then what the line styles and marks mean), then its panels side by side, each with its own
/// labels of the shared value axis and the offered rate on a log axis below.
pub(crate) fn draw_rates(chart: &RateChart, width: f64) -> Drawn {
    let mut b = String::new();
    let title = format!("{} · {}", chart.title, chart.group);
    let _ = write!(
        b,
        r#"<text x="{PAD}" y="18" font-size="15" font-weight="600">{}</text>"#,
        escape(&title)
    );
    let legend_bottom = rate_legend(&mut b, chart, width, 38.0);
    let n = chart.panels.len().max(1) as f64;
    let left = PAD + 16.0;
    let panel_w = ((width - left - PAD - PANEL_GAP * (n - 1.0)) / n).max(120.0);
    let plot_w = panel_w - Y_LABELS;
    let title_y = legend_bottom + 16.0;
    let top = title_y + 10.0;
    let bottom = top + PLOT_H;
    let rates: Vec<f64> = chart
        .panels
        .iter()
        .flat_map(|p| p.lines.iter().flatten())
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
    let y_axis = ValueAxis::new(chart);
    let y_title = format!("{} ↑", chart.axis);
    let _ = write!(
        b,
        r#"<text transform="translate({},{}) rotate(-90)" font-size="10.5" fill="{AXIS}" text-anchor="middle">{}</text>"#,
        PAD + 8.0,
        top + PLOT_H / 2.0,
        escape(&y_title)
    );
    for (k, panel) in chart.panels.iter().enumerate() {
        let px = left + k as f64 * (panel_w + PANEL_GAP) + Y_LABELS;
        let _ = write!(
            b,
            r#"<text x="{px}" y="{title_y}" font-size="12" font-weight="600">{}</text>"#,
            escape(&panel.title)
        );
        let x = |rate: f64| px + 4.0 + x_axis.pos(rate);
        let y = |v: f64| bottom - y_axis.pos(v);
        // Value grid and labels.
        for (t, label) in y_axis.ticks() {
            let ty = y(t);
            let _ = write!(
                b,
                r#"<line x1="{px}" y1="{ty:.2}" x2="{:.2}" y2="{ty:.2}" stroke="{GRID}" stroke-width="{}"/>"#,
                px + plot_w,
                if label.is_some() { 1.0 } else { 0.6 }
            );
            if let Some(l) = label {
                let _ = write!(
                    b,
                    r#"<text x="{:.2}" y="{:.2}" font-size="10" fill="{AXIS}" text-anchor="end">{}</text>"#,
                    px - 4.0,
                    ty + 3.5,
                    escape(&l)
                );
            }
        }
        // Rate grid and labels.
        for (t, labelled) in x_axis.ticks(30.0) {
            let tx = x(t);
            let _ = write!(
                b,
                r#"<line x1="{tx:.2}" y1="{top}" x2="{tx:.2}" y2="{bottom}" stroke="{GRID}" stroke-width="{}"/>"#,
                if labelled { 1.0 } else { 0.6 }
            );
            if labelled {
                let _ = write!(
                    b,
                    r#"<line x1="{tx:.2}" y1="{bottom}" x2="{tx:.2}" y2="{}" stroke="{AXIS}"/><text x="{tx:.2}" y="{}" font-size="10" fill="{AXIS}" text-anchor="middle">{}</text>"#,
                    bottom + 4.0,
                    bottom + 15.0,
                    rate_label(t)
                );
            }
        }
        let _ = write!(
            b,
            r#"<line x1="{px}" y1="{bottom}" x2="{:.2}" y2="{bottom}" stroke="{AXIS}"/><line x1="{px}" y1="{top}" x2="{px}" y2="{bottom}" stroke="{AXIS}"/>"#,
            px + plot_w
        );
        if let Some((v, label)) = &panel.limit {
            // Labelled at the low rates, where a ladder's lines are usually far below it.
            let ly = y(*v);
            let _ = write!(
                b,
                r##"<line x1="{px}" y1="{ly:.2}" x2="{:.2}" y2="{ly:.2}" stroke="{AXIS}" stroke-width="1.2" stroke-dasharray="2 3"/><text x="{:.2}" y="{:.2}" font-size="10" fill="{AXIS}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">{}</text>"##,
                px + plot_w,
                px + 4.0,
                ly - 4.0,
                escape(label)
            );
        }
        for (series, line) in chart.series.iter().zip(&panel.lines) {
            rate_line(&mut b, series, line, &x, &y, bottom);
        }
    }
    let axis_title_y = bottom + 34.0;
    let _ = write!(
        b,
        r#"<text x="{}" y="{axis_title_y}" font-size="12" fill="{AXIS}" text-anchor="middle">offered rate, requests/s (log scale) →</text>"#,
        left + (width - left - PAD) / 2.0,
    );
    Drawn {
        body: b,
        width,
        height: axis_title_y + 10.0,
    }
}

/// One server's line in a panel: segments between consecutive measured rungs, a marker at
/// each (hollow where it could not keep up), `✕` at the foot of the plot for an invalid rung.
fn rate_line(
    b: &mut String,
    series: &Series,
    line: &[Point],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    bottom: f64,
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
    band(b, c, line, x, y);
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
        let tip = format!("{}, {}", series.name, p.tip);
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
                    r#"<g class="mark"><title>{}</title><g transform="translate({px:.2},{py:.2})">{}{ring}</g>"#,
                    escape(&tip),
                    series_marker(series, p.saturated)
                );
                let marks = point_marks(p);
                if !marks.is_empty() {
                    let _ = write!(
                        b,
                        r#"<text x="{:.2}" y="{:.2}" font-size="11">{marks}</text>"#,
                        px + 6.0,
                        py - 4.0
                    );
                }
                b.push_str("</g>");
            }
            None if p.invalid => {
                let _ = write!(
                    b,
                    r#"<g class="mark"><title>{}</title><text x="{:.2}" y="{:.2}" font-size="12" fill="{c}" text-anchor="middle">✕</text></g>"#,
                    escape(&tip),
                    x(p.rate),
                    bottom - 4.0
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

/// `†`, `‡`, `§`, their combinations or nothing: a point's marks.
fn point_marks(p: &Point) -> String {
    p.marks.suffix().trim_start().to_string()
}

/// The legend of a [`RateChart`] from `y`, wrapping at `width`: each server (its line and
/// marker), then what the styles and marks mean, those that occur; returns the y below it.
fn rate_legend(b: &mut String, chart: &RateChart, width: f64, y: f64) -> f64 {
    let points = || chart.panels.iter().flat_map(|p| p.lines.iter().flatten());
    let mut items: Vec<(String, String)> = chart
        .series
        .iter()
        .map(|s| {
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
    let kinds = chart.series.iter().any(|s| s.kind == Kind::Rust)
        && chart.series.iter().any(|s| s.kind != Kind::Rust);
    if kinds {
        items.push((
            String::new(),
            "solid: Rust variant, dashed: peer (a pair shares a colour)".to_string(),
        ));
    }
    if chart.series.iter().any(|s| s.kind == Kind::Reference) {
        items.push((
            String::new(),
            "wide grey: the C ceiling, the loopback's yardstick, measured in the same rounds"
                .to_string(),
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
    if points().any(|p| p.band.is_some_and(|i| i.at_level())) {
        items.push((
            r##"<rect x="0" y="-6" width="24" height="10" fill="#888888" fill-opacity="0.25"/>"##
                .to_string(),
            "band: the 95 % interval of the median over the rounds".to_string(),
        ));
    }
    if let Some(below) = below_level(points().filter_map(|p| p.band)) {
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
            pair: 6,
            place: 0,
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
    if points().any(|p| p.marks.tool) {
        items.push((
            String::new(),
            "† the load generator was ≥ 90 % busy: it may have set the figure".to_string(),
        ));
    }
    if points().any(|p| p.marks.machine) {
        items.push((
            String::new(),
            "‡ the machine was busy (other work, steal or CPU waits): it may have set the figure"
                .to_string(),
        ));
    }
    if points().any(|p| p.marks.round_trips) {
        items.push((
            String::new(),
            "§ neither the server nor the load generator was busy: the connections' round trips set the pace"
                .to_string(),
        ));
    }
    legend_items(b, items, y, width, 30.0)
}

/// Writes legend `items` (a swatch, its label) in rows from `y`, wrapping at the chart's
/// `width`, each label `swatch_w` right of its swatch (none when the swatch is empty); returns
/// the y below the last row.
fn legend_items(
    b: &mut String,
    items: Vec<(String, String)>,
    y: f64,
    width: f64,
    swatch_w: f64,
) -> f64 {
    let (mut x, mut y) = (PAD, y);
    for (swatch, label) in items {
        let text_x = if swatch.is_empty() { 0.0 } else { swatch_w };
        let w = text_x + text_width(&label, 12.0) + 18.0;
        if x > PAD && x + w > width - PAD {
            x = PAD;
            y += 18.0;
        }
        let _ = write!(
            b,
            r#"<g transform="translate({x},{y})">{swatch}<text x="{text_x}" y="4" font-size="12">{}</text></g>"#,
            escape(&label)
        );
        x += w;
    }
    y + 6.0
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

    #[test]
    fn a_log_axis_labels_decades_always_and_2_and_5_where_there_is_room() {
        let wide = LogAxis {
            lo: 700.0,
            hi: 220_000.0,
            len: 600.0,
        };
        let labelled: Vec<f64> = wide
            .ticks(30.0)
            .into_iter()
            .filter(|t| t.1)
            .map(|t| t.0)
            .collect();
        assert_eq!(
            labelled,
            [
                1000.0, 2000.0, 5000.0, 10_000.0, 20_000.0, 50_000.0, 100_000.0, 200_000.0
            ]
        );
        let narrow = LogAxis { len: 120.0, ..wide };
        let labelled: Vec<f64> = narrow
            .ticks(30.0)
            .into_iter()
            .filter(|t| t.1)
            .map(|t| t.0)
            .collect();
        assert_eq!(labelled, [1000.0, 10_000.0, 100_000.0]);
        assert!((wide.pos(700.0), wide.pos(220_000.0)) == (0.0, 600.0));
    }
}
