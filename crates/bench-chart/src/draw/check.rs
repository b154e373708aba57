//! The check of the drawn text: every `<text>` of a drawing, its box computed from its
//! position, anchor, size and weight (the same advances [`text_width`] measures with, and
//! the translations of the groups it is in), must lie within the drawing and overlap no other
//! text's ([`problems`]). `bench-report`'s tests run it on every chart of every results file of
//! docs/results and of its test data, wide, narrow and as the SVG file draws it.

use super::{Drawn, bold_width, text_width};

/// One text of a drawing: its words and its box `[x0, y0, x1, y1]`.
#[derive(Clone, Debug)]
pub struct Label {
    /// Its words.
    pub text: String,
    /// Its box, px.
    pub rect: [f64; 4],
}

/// The value of attribute `name` in the tag `tag` (`x="12"`).
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')? + at;
    Some(&tag[at..end])
}

/// `&amp;` and the other escapes back to their characters.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The offset a `transform="translate(x,y)"` gives (nothing for none).
fn translate(tag: &str) -> (f64, f64) {
    let Some(t) = attr(tag, "transform") else {
        return (0.0, 0.0);
    };
    let Some(inner) = t
        .strip_prefix("translate(")
        .and_then(|r| r.split(')').next())
    else {
        return (0.0, 0.0);
    };
    let mut parts = inner.split([',', ' ']).filter(|p| !p.is_empty());
    let x = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0.0);
    let y = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0.0);
    (x, y)
}

/// Every text of the SVG elements `body`, with its box.
pub fn labels(body: &str) -> Vec<Label> {
    let mut out = Vec::new();
    let mut stack: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    let mut rest = body;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        let end = rest.find('>').expect("an unclosed tag");
        let tag = &rest[..=end];
        if tag.starts_with("</g") {
            stack.pop();
        } else if tag.starts_with("<g") && !tag.ends_with("/>") {
            let (dx, dy) = translate(tag);
            let (x, y) = *stack.last().unwrap();
            stack.push((x + dx, y + dy));
        } else if tag.starts_with("<text") {
            let close = rest.find("</text>").expect("an unclosed text");
            let text = unescape(&rest[end + 1..close]);
            let (ox, oy) = *stack.last().unwrap();
            let num = |name: &str| attr(tag, name).and_then(|v| v.parse::<f64>().ok());
            let size = num("font-size").expect("a text without its size");
            let (tx, ty) = translate(tag);
            let x = ox + tx + num("x").unwrap_or(0.0);
            let y = oy + ty + num("y").unwrap_or(0.0);
            let w = if attr(tag, "font-weight").is_some() {
                bold_width(&text, size)
            } else {
                text_width(&text, size)
            };
            let x0 = match attr(tag, "text-anchor") {
                Some("middle") => x - w / 2.0,
                Some("end") => x - w,
                _ => x,
            };
            out.push(Label {
                text,
                rect: [x0, y - 0.78 * size, x0 + w, y + 0.22 * size],
            });
            rest = &rest[close..];
            continue;
        }
        rest = &rest[end + 1..];
    }
    out
}

/// What is wrong with the texts of `d`: any outside the drawing, any two that overlap.
pub fn problems(d: &Drawn) -> Vec<String> {
    const SLACK: f64 = 0.5;
    let all = labels(&d.body);
    let mut out = Vec::new();
    for l in &all {
        let r = l.rect;
        if r[0] < -SLACK || r[2] > d.width + SLACK || r[1] < -SLACK || r[3] > d.height + SLACK {
            out.push(format!(
                "{:?} outside {}×{}: {r:?}",
                l.text, d.width, d.height
            ));
        }
    }
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            let (p, q) = (a.rect, b.rect);
            let w = p[2].min(q[2]) - p[0].max(q[0]);
            let h = p[3].min(q[3]) - p[1].max(q[1]);
            if w > SLACK && h > SLACK {
                out.push(format!("{:?} {p:?} over {:?} {q:?}", a.text, b.text));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check can fail: two texts drawn one over the other, and one past the drawing's edge.
    #[test]
    fn the_check_finds_an_overlap_and_an_overflow() {
        let d = Drawn {
            body: r#"<text x="10" y="20" font-size="12">15,426.19 (11,719.07 + 3,707.12)</text><g transform="translate(100,0)"><text x="0" y="20" font-size="12">87.32</text></g><text x="390" y="60" font-size="11" text-anchor="start">off the edge</text>"#.to_string(),
            width: 400.0,
            height: 100.0,
        };
        let found = problems(&d);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().any(|p| p.contains("\"87.32\"")));
        assert!(found.iter().any(|p| p.contains("off the edge")));
        let l = labels(
            r#"<g transform="translate(5,7)"><text x="1" y="2" font-size="10" text-anchor="end">10</text></g>"#,
        );
        assert_eq!(l.len(), 1);
        assert!((l[0].rect[2] - 6.0).abs() < 1e-9, "{l:?}");
    }
}
