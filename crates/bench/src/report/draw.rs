//! A [`Chart`] drawn as SVG: a row per server, a panel per step on one shared scale;
//! horizontal bars, or for latency the percentiles as markers on a log axis. The legend has
//! its own band above the plot, so it never covers data; tick labels carry thousands
//! separators and units, and the axis title says what is measured. Colours are Okabe and
//! Ito's colour-blind-safe palette, and every distinction also shows as a shape, a pattern
//! or a text mark (`†` tool-bound, `invalid`), so none rests on colour alone.
//!
//! [`draw`] returns the elements and the size; the page wraps them in an `<svg>` of their
//! own, the SVG file stacks several under one title.

use std::fmt::Write as _;

use super::chart::{Cell, Chart, Kind, Metric, PERCENTILES, Row, Value};
use super::{MACHINE_MARK, TOOL_MARK, escape, grouped};

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

/// ` †`, ` ‡`, ` †‡` or nothing: the cell's marks.
fn cell_marks(c: &Cell) -> String {
    let mut m = String::new();
    if c.tool_bound || c.disturbed {
        m.push(' ');
    }
    if c.tool_bound {
        m.push_str(TOOL_MARK);
    }
    if c.disturbed {
        m.push_str(MACHINE_MARK);
    }
    m
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
    if cells().any(|c| c.tool_bound) {
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
    if cells().any(|c| c.disturbed) {
        items.push((
            String::new(),
            "‡ the machine was busy (other work, steal or CPU waits): it may have set the figure"
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
    let (mut x, mut y) = (PAD, y);
    for (swatch, label) in items {
        let text_x = if swatch.is_empty() { 0.0 } else { 18.0 };
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
    let bound = match (cell.tool_bound, cell.disturbed) {
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
            let style = if cell.tool_bound && chart.metric == Metric::Rps {
                format!(r#" fill-opacity="0.35" stroke="{c}" stroke-dasharray="3 2""#)
            } else {
                String::new()
            };
            let label = bar_label(chart.metric, cell);
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {} {}{bound}</title><rect class="bar" x="{px}" y="{}" width="{w:.2}" height="{BAR}" fill="{c}"{style}/><text x="{:.2}" y="{}" font-size="11">{}</text></g>"#,
                escape(&row.name),
                escape(step),
                grouped(v, chart.metric.decimals()),
                escape(unit(chart.metric)),
                y - BAR / 2.0,
                px + w + 4.0,
                y + 4.0,
                escape(&label)
            );
        }
        Value::Split(u, k) => {
            let c = colour(row.kind);
            let wu = if u > 0.0 { scale.pos(u).max(1.0) } else { 0.0 };
            let w = scale.pos(u + k).max(wu);
            let label = bar_label(chart.metric, cell);
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {} µs/request, user {} + kernel {}{bound}</title><rect class="bar" x="{px}" y="{y0}" width="{wu:.2}" height="{BAR}" fill="{c}"/><rect class="bar" x="{:.2}" y="{y0}" width="{:.2}" height="{BAR}" fill="{c}" fill-opacity="0.35"/><text x="{:.2}" y="{}" font-size="11">{}</text></g>"#,
                escape(&row.name),
                escape(step),
                grouped(u + k, 2),
                grouped(u, 2),
                grouped(k, 2),
                px + wu,
                w - wu,
                px + w + 4.0,
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
            let _ = write!(
                b,
                r#"<g><title>{}, {}: {}{bound}</title>"#,
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
            }
            if cell.tool_bound || cell.disturbed {
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

/// Microseconds with a unit that keeps the figure short: `350 µs`, `2.5 ms`, `1.2 s`.
pub(crate) fn us_label(us: f64) -> String {
    let trim = |x: f64| {
        let s = if x >= 100.0 {
            grouped(x, 0)
        } else if x >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        };
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if us < 1000.0 {
        format!("{} µs", trim(us))
    } else if us < 1_000_000.0 {
        format!("{} ms", trim(us / 1000.0))
    } else {
        format!("{} s", trim(us / 1_000_000.0))
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
                .filter_map(|c| match c.value {
                    Value::Bar(v) => Some(v),
                    Value::Split(u, k) => Some(u + k),
                    _ => None,
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
    }
}
