//! A [`Chart`](super::chart::Chart) or a [`RateChart`](super::chart::RateChart) drawn as SVG,
//! for a [`Layout`]: the page draws every chart twice, wide (panels side by side, as many to a
//! row as their labels leave room for) and narrow (one panel to a row, the one a finding
//! reads first), and shows the one that fits the window; the SVG file beside a results file
//! has the wide one.
//!
//! Every text is at least 11 px at the drawing's own scale, and none is drawn over another:
//! titles and legends wrap at the drawing's width, a panel is never narrower than its
//! labels need, axis labels are spaced by their width (a log axis ticks every decade it
//! spans and labels as many as fit), and a mark beside a point goes where it overlaps no other
//! text, or only into the point's tooltip (`check.rs` tests all of it on every chart of every
//! results file). Widths are measured with DejaVu Sans' advances ([`text_width`]), the font a
//! Linux page falls back to and one of the widest.
//!
//! Colours are Okabe and Ito's colour-blind-safe palette, and every distinction also shows as
//! a shape, a pattern or a text mark (`†` tool-bound, `invalid`), so none rests on colour
//! alone. Files: `bars.rs` (a row per server, a panel per step: bars, or the latency
//! percentiles as markers on a log axis), `rates.rs` (lines against the offered rate, E7),
//! `axis.rs` (scales and their ticks), `check.rs` (the tests of the drawn text).

use std::fmt::Write as _;

use crate::chart::Kind;
use crate::format::escape;
use bench_model::stats::Interval;

mod axis;
mod bars;
pub mod check;
mod rates;
mod timeline;

pub use bars::draw;
pub use rates::draw_rates;
pub use timeline::draw_timeline;

/// The font stack: local fonts only (a page that loads none from anywhere).
pub const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";

/// Okabe–Ito blue: Rust variants.
pub const RUST: &str = "#0072B2";
/// Okabe–Ito orange: peers, the articles' systems.
pub const PEER: &str = "#E69F00";
/// Neutral grey: a reference without an analogue (the C ceiling).
pub const REFERENCE: &str = "#7A7A7A";
/// Okabe–Ito vermillion: invalid steps.
pub const INVALID: &str = "#D55E00";
const GRID: &str = "#E4E4E4";
const AXIS: &str = "#555555";
const MUTED: &str = "#6B6B6B";

/// The margin around a drawing, px.
const PAD: f64 = 8.0;
/// The gap between two panels side by side, px.
const PANEL_GAP: f64 = 22.0;
/// The smallest text, px.
const SMALL: f64 = 11.0;

/// How a chart is drawn: its width, and whether its panels stack one to a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// The drawing's width, px (the page scales it to its box).
    pub width: f64,
    /// One panel to a row, the one a finding reads first (a phone's).
    pub narrow: bool,
    /// Each mark's tooltip (`<title>`): left out of the narrow drawing, which a touch screen
    /// shows, to keep the page light.
    pub tips: bool,
}

impl Layout {
    /// The page's wide drawing.
    pub const WIDE: Layout = Layout {
        width: 800.0,
        narrow: false,
        tips: true,
    };
    /// The page's narrow drawing, shown below 700 px: drawn no wider than a phone's page
    /// (390 px less its margins and a scroll bar), so that its text is never scaled below its
    /// size.
    pub const NARROW: Layout = Layout {
        width: 340.0,
        narrow: true,
        tips: false,
    };
    /// The SVG file's.
    pub const FILE: Layout = Layout {
        width: 1000.0,
        narrow: false,
        tips: true,
    };

    /// `<title>text</title>` when the layout has tooltips, else nothing.
    fn tip(&self, text: &str) -> String {
        if self.tips {
            format!("<title>{}</title>", escape(text))
        } else {
            String::new()
        }
    }
}

/// A drawn chart: SVG elements within `0..width` × `0..height`.
pub struct Drawn {
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

/// The advance of `c` in DejaVu Sans (bold when `bold`), em: the widest of the fonts the
/// page's font stack finds, so that a text fits where this says it does.
fn advance(c: char, bold: bool) -> f64 {
    let (regular, heavy) = match c {
        '0'..='9' | '$' | 'µ' | '{' | '}' => (0.636, 0.696),
        ' ' => (0.3179, 0.348),
        ',' | '.' | '·' => (0.3179, 0.38),
        ':' | ';' => (0.337, 0.4),
        '/' | '\\' | '|' => (0.337, 0.365),
        '-' => (0.361, 0.415),
        '(' | ')' | '[' | ']' => (0.39, 0.457),
        '\'' | '′' => (0.275, 0.306),
        '"' => (0.46, 0.521),
        '!' => (0.401, 0.456),
        '?' => (0.531, 0.58),
        '%' => (0.95, 1.002),
        '&' => (0.78, 0.872),
        '@' | '…' | '—' => (1.0, 1.0),
        '†' | '‡' | '§' | '–' | '_' | '*' | '`' | '°' => (0.5, 0.523),
        'i' | 'j' | 'l' => (0.278, 0.343),
        'f' => (0.352, 0.435),
        't' => (0.392, 0.478),
        'r' => (0.411, 0.493),
        's' => (0.521, 0.595),
        'c' | 'z' => (0.55, 0.593),
        'm' => (0.974, 1.042),
        'w' => (0.818, 0.924),
        'k' | 'v' | 'x' | 'y' => (0.592, 0.665),
        'a'..='z' => (0.635, 0.716),
        'I' | 'J' => (0.295, 0.372),
        'M' => (0.863, 0.995),
        'W' => (0.989, 1.103),
        'A'..='Z' => (0.787, 0.85),
        _ => (0.838, 0.838),
    };
    if bold { heavy } else { regular }
}

/// The width of `text` at `size` px (regular weight).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().map(|c| advance(c, false)).sum::<f64>() * size
}

/// The width of `text` at `size` px, bold.
pub fn bold_width(text: &str, size: f64) -> f64 {
    text.chars().map(|c| advance(c, true)).sum::<f64>() * size
}

/// `text` in lines of at most `max` px at `size` px (bold when `bold`), broken between words;
/// a word longer than a line is broken after a `/`, a `,` or a `-` where it can be.
pub(crate) fn wrap(text: &str, size: f64, bold: bool, max: f64) -> Vec<String> {
    let width = |t: &str| {
        if bold {
            bold_width(t, size)
        } else {
            text_width(t, size)
        }
    };
    let mut words: Vec<String> = Vec::new();
    for word in text.split(' ') {
        if width(word) <= max {
            words.push(word.to_string());
            continue;
        }
        // Too long for a line: in pieces after its separators.
        let mut piece = String::new();
        for c in word.chars() {
            piece.push(c);
            if "/,-&?".contains(c) && width(&piece) > max * 0.5 {
                words.push(std::mem::take(&mut piece));
            }
        }
        if !piece.is_empty() {
            words.push(piece);
        }
    }
    let mut lines: Vec<String> = Vec::new();
    let mut glued = false;
    for word in words {
        match lines.last_mut() {
            Some(l) if !glued && width(&format!("{l} {word}")) <= max => {
                l.push(' ');
                l.push_str(&word);
            }
            _ => lines.push(word.clone()),
        }
        glued = false;
    }
    lines
}

/// Writes `text` as lines of at most `max` px from (`x`, `y`) (the first line's baseline),
/// `size` px apart plus a little; returns the baseline of the last line.
#[allow(clippy::too_many_arguments)]
fn lines(
    b: &mut String,
    text: &str,
    x: f64,
    y: f64,
    size: f64,
    bold: bool,
    max: f64,
    attrs: &str,
) -> f64 {
    let mut at = y;
    for (k, line) in wrap(text, size, bold, max).iter().enumerate() {
        if k > 0 {
            at += size * 1.25;
        }
        let _ = write!(
            b,
            r#"<text x="{x:.2}" y="{at:.2}" font-size="{size}"{}{attrs}>{}</text>"#,
            if bold { r#" font-weight="600""# } else { "" },
            escape(line)
        );
    }
    at
}

/// The chart's title from the top, wrapped at `width`; returns the y below it.
fn title(b: &mut String, text: &str, width: f64, narrow: bool) -> f64 {
    let size = if narrow { 14.0 } else { 15.0 };
    lines(b, text, PAD, PAD + size, size, true, width - 2.0 * PAD, "") + 8.0
}

/// Writes legend `items` (a swatch, its label) in rows from `y` between `x0` and `x1`, each
/// label `swatch_w` right of its swatch (none when the swatch is empty), a label too long for
/// a row wrapped under itself; returns the y below the last row.
fn legend_items(
    b: &mut String,
    items: Vec<(String, String)>,
    y: f64,
    (x0, x1): (f64, f64),
    swatch_w: f64,
) -> f64 {
    const SIZE: f64 = 12.0;
    const LINE: f64 = 17.0;
    if items.is_empty() {
        return y;
    }
    let (mut x, mut y) = (x0, y + 4.0);
    let mut row_bottom = y;
    for (swatch, label) in items {
        let text_x = if swatch.is_empty() { 0.0 } else { swatch_w };
        let room = x1 - x0 - text_x;
        let parts = wrap(&label, SIZE, false, room);
        let w = text_x
            + parts
                .iter()
                .map(|p| text_width(p, SIZE))
                .fold(0.0, f64::max)
            + 16.0;
        if x > x0 && (x + w - 16.0 > x1 || parts.len() > 1) {
            x = x0;
            y = row_bottom + LINE;
        }
        let _ = write!(b, r#"<g transform="translate({x:.2},{y:.2})">{swatch}"#);
        for (k, p) in parts.iter().enumerate() {
            let _ = write!(
                b,
                r#"<text x="{text_x}" y="{}" font-size="{SIZE}">{}</text>"#,
                4.0 + k as f64 * LINE,
                escape(p)
            );
        }
        b.push_str("</g>");
        row_bottom = row_bottom.max(y + (parts.len() - 1) as f64 * LINE);
        x += w;
        if parts.len() > 1 {
            // A wrapped item takes its rows alone.
            x = x1;
        }
    }
    row_bottom + 10.0
}

/// Rectangles already taken by text, to place a text where it covers none.
#[derive(Default)]
struct Taken(Vec<[f64; 4]>);

impl Taken {
    /// Whether the box `[x0, y0, x1, y1]` is free (and within `bounds`), taking it if so.
    fn take(&mut self, r: [f64; 4], bounds: [f64; 4]) -> bool {
        let inside =
            r[0] >= bounds[0] && r[1] >= bounds[1] && r[2] <= bounds[2] && r[3] <= bounds[3];
        let free = self
            .0
            .iter()
            .all(|t| r[2] <= t[0] || t[2] <= r[0] || r[3] <= t[1] || t[3] <= r[1]);
        if inside && free {
            self.0.push(r);
        }
        inside && free
    }
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

/// The legend's words for the marks: `†`, `‡`, `§`.
const TOOL_WORDS: &str = "† the load generator was ≥ 90 % busy: it may have set the figure";
const MACHINE_WORDS: &str =
    "‡ the machine was busy (other work, steal or CPU waits): it may have set the figure";
const TRIPS_WORDS: &str = "§ neither the server nor the load generator was busy: the connections' round trips set the pace";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_measured_and_wrapped() {
        // DejaVu Sans: a digit is 0.636 em, a comma 0.318.
        assert!((text_width("10,000", 10.0) - 35.0).abs() < 0.1);
        assert!(bold_width("c100", 12.0) > text_width("c100", 12.0));
        let lines = wrap(
            "Requests per second · /api?name=John&lastname=Doe",
            14.0,
            true,
            300.0,
        );
        assert!(lines.len() >= 2, "{lines:?}");
        assert!(
            lines.iter().all(|l| bold_width(l, 14.0) <= 300.0),
            "{lines:?}"
        );
        let mut taken = Taken::default();
        let bounds = [0.0, 0.0, 100.0, 100.0];
        assert!(taken.take([0.0, 0.0, 10.0, 10.0], bounds));
        assert!(!taken.take([5.0, 5.0, 15.0, 15.0], bounds), "overlaps");
        assert!(taken.take([10.0, 0.0, 20.0, 10.0], bounds), "touches only");
        assert!(!taken.take([95.0, 0.0, 105.0, 10.0], bounds), "outside");
    }
}
