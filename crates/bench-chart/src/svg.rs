//! Drawings ([`Drawn`]) as SVG markup: one as an `<svg>` element of a page ([`element`]), a
//! chart's two as the page's `<figure>` ([`figure`]: wide and narrow, and the page's
//! stylesheet shows the one that fits its window), and many stacked under a title and a
//! subtitle as a whole SVG file ([`document`]).

use std::fmt::Write as _;

use crate::draw::{Drawn, FONT, text_width};
use crate::format::escape;

/// `drawn` as an `<svg>` element of class `chart CLASS`, `data-chart` `id`, labelled `label`
/// for a screen reader, scaled by the page to its box.
pub fn element(drawn: &Drawn, id: &str, label: &str, class: &str) -> String {
    format!(
        r#"<svg class="chart {class}" data-chart="{id}" viewBox="0 0 {} {:.0}" role="img" aria-label="{}" font-family="{}">{}</svg>"#,
        drawn.width,
        drawn.height.ceil(),
        escape(label),
        FONT,
        drawn.body
    )
}

/// One chart on a page: a `<figure>` of its `wide` and its `narrow` drawing ([`element`]s of
/// class `wide` and `narrow`).
pub fn figure(id: &str, label: &str, wide: &Drawn, narrow: &Drawn) -> String {
    format!(
        r#"<figure class="chart" data-chart="{id}">{}{}</figure>"#,
        element(wide, id, label, "wide"),
        element(narrow, id, label, "narrow")
    )
}

/// An SVG document `width` px wide: `title` (bold, 16 px) and `subtitle` (12 px), each wrapped
/// at the width, then `drawings` stacked in order, 16 px apart, on white.
pub fn document(
    title: &str,
    subtitle: &str,
    drawings: impl IntoIterator<Item = Drawn>,
    width: f64,
) -> String {
    let mut head = String::new();
    let mut y = 22.0;
    for line in wrap(title, width - 16.0, 16.0) {
        let _ = write!(
            head,
            r#"<text x="8" y="{y}" font-size="16" font-weight="700">{}</text>"#,
            escape(&line)
        );
        y += 20.0;
    }
    for line in wrap(subtitle, width - 16.0, 12.0) {
        let _ = write!(
            head,
            r#"<text x="8" y="{y}" font-size="12">{}</text>"#,
            escape(&line)
        );
        y += 15.0;
    }
    let mut body = String::new();
    y += 3.0;
    for d in drawings {
        let _ = write!(body, r#"<g transform="translate(0,{y})">{}</g>"#, d.body);
        y += d.height + 16.0;
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" viewBox="0 0 {width} {y}" font-family="{FONT}" fill="#1A1A1A"><rect width="100%" height="100%" fill="#FFFFFF"/>{head}{body}</svg>
"##
    )
}

/// `text` in lines of at most `width` px at `size` px, broken between words only.
fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l} {word}"), size) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}
